// The hash loader (RESTORE's and, next, RDB loading's): arbitrary bytes read as an RDB hash value.
// Input: byte 0 picks the type (0 RDB_TYPE_HASH, 1 _ZIPMAP, 2 _ZIPLIST, 3 _LISTPACK, and Redis
// 7.4's hashes with field TTLs: 4 _METADATA_PRE_GA, 5 _LISTPACK_EX_PRE_GA, 6 _METADATA,
// 7 _LISTPACK_EX, by its low three bits), byte 1 the hash-max-listpack-entries (0..255), byte 2 the
// hash-max-listpack-value (0..255), byte 3 a memory limit in KiB (0: none), the rest the value.
// Properties: no crash and no read past the input; a loaded hash is valid, not empty, within its
// encoding's rules (a listpack within both limits), and loads again from its own serialisation
// with the same pairs; every byte allocated is given back, including on refusal.
#include <map>
#include <string>

#include "engine/db/rdb_format.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/hash_ops.h"
#include "engine/env/memory.h"
#include "fuzz/harnesses.h"
#include "sim/sim_env.h"

namespace keel::fuzz {
namespace {

std::map<std::string, std::string> PairsOf(const HashValue& hash) {
  std::map<std::string, std::string> pairs;
  hash.ForEach([&](std::string_view field, std::string_view value) {
    pairs.emplace(std::string(field), std::string(value));
  });
  return pairs;
}

// The value's plain RDB form (RDB_TYPE_HASH without its type byte).
std::string SerialisePlain(const HashValue& hash) {
  std::string out;
  rdb::WriteLength(&out, hash.size());
  hash.ForEach([&](std::string_view field, std::string_view value) {
    rdb::WriteString(&out, field, true);
    rdb::WriteString(&out, value, true);
  });
  return out;
}

constexpr uint8_t kTypes[] = {
    rdb::kTypeHash,         rdb::kTypeHashZipmap,        rdb::kTypeHashZiplist,
    rdb::kTypeHashListpack, rdb::kTypeHashMetadataPreGa, rdb::kTypeHashListpackExPreGa,
    rdb::kTypeHashMetadata, rdb::kTypeHashListpackEx};

}  // namespace

void HashLoadOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return;
  const uint8_t type = kTypes[data[0] & 7];
  const HashLimits limits = {.listpack_entries = data[1], .listpack_value = data[2]};
  sim::SimMemory resource;
  if (data[3] != 0) resource.set_limit_bytes(size_t{data[3]} * 1024);
  MemoryAccountant memory(resource);
  // A copy of exactly the input's bytes, so that ASan sees any read past them.
  const std::string payload(reinterpret_cast<const char*>(data + 4), size - 4);
  rdb::Reader reader(payload);
  HashValue* hash = nullptr;
  const LoadStatus status = LoadHash(type, reader, limits, 7, memory, &hash);
  if (status == LoadStatus::kLoaded) {
    FUZZ_CHECK(hash != nullptr);
    FUZZ_CHECK(hash->CheckInvariants());
    FUZZ_CHECK(hash->size() > 0);
    if (hash->is_listpack()) {
      FUZZ_CHECK(hash->size() <= limits.listpack_entries);
      FUZZ_CHECK(hash->longest_bytes() <= limits.listpack_value);
    }
    const std::map<std::string, std::string> pairs = PairsOf(*hash);
    FUZZ_CHECK(pairs.size() == hash->size());
    // Round trip through the plain form, with no memory limit.
    resource.set_limit_bytes(0);
    const std::string again = SerialisePlain(*hash);
    rdb::Reader second(again);
    HashValue* reloaded = nullptr;
    FUZZ_CHECK(LoadHash(rdb::kTypeHash, second, limits, 9, memory, &reloaded) ==
               LoadStatus::kLoaded);
    FUZZ_CHECK(second.at_end());
    FUZZ_CHECK(PairsOf(*reloaded) == pairs);
    FUZZ_CHECK(reloaded->is_listpack() == hash->is_listpack());
    HashValue::Destroy(reloaded, memory);
    HashValue::Destroy(hash, memory);
  }
  FUZZ_CHECK(memory.used_bytes(MemoryUse::kKeyspace) == 0);
  FUZZ_CHECK(resource.used_bytes() == 0);
}

}  // namespace keel::fuzz
