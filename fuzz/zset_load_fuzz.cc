// The sorted-set loader (RESTORE's and, next, RDB loading's): arbitrary bytes read as an RDB
// sorted-set value. Input: byte 0 picks the type (RDB_TYPE_ZSET, _ZSET_2, _ZSET_ZIPLIST or
// _ZSET_LISTPACK, by its low two bits), byte 1 the zset-max-listpack-entries (0..255), byte 2 a
// memory limit in KiB (0: none), the rest the value. Properties: no crash and no read past the
// input; a loaded set is valid, not empty, within its encoding's rules, and loads again from its
// own serialisation with the same members and scores; every byte allocated is given back,
// including on refusal.
#include <map>
#include <string>

#include "engine/db/entry.h"
#include "engine/db/rdb_format.h"
#include "engine/db/types/zset.h"
#include "engine/db/types/zset_ops.h"
#include "engine/env/memory.h"
#include "fuzz/harnesses.h"
#include "sim/sim_env.h"

namespace keel::fuzz {
namespace {

std::map<std::string, double> PairsOf(const ZsetValue& zset) {
  std::map<std::string, double> pairs;
  zset.ForEach([&](std::string_view member, double score) { pairs.emplace(member, score); });
  return pairs;
}

// The value's RDB encoding without its type byte, as ZsetSerialise writes it after the byte.
std::string Serialise(const ZsetValue& zset) {
  std::string out;
  if (zset.is_listpack()) {
    rdb::WriteString(&out, zset.listpack_blob(), true);
    return out;
  }
  rdb::WriteLength(&out, zset.size());
  zset.ForRange(0, zset.size(), true, [&](std::string_view member, double score) {
    rdb::WriteString(&out, member, true);
    out.append(reinterpret_cast<const char*>(&score), sizeof(score));
  });
  return out;
}

constexpr uint8_t kTypes[4] = {rdb::kTypeZset, rdb::kTypeZset2, rdb::kTypeZsetZiplist,
                               rdb::kTypeZsetListpack};

}  // namespace

void ZsetLoadOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return;
  const uint8_t type = kTypes[data[0] & 3];
  const ZsetValue::Limits limits{data[1], 64};
  sim::SimMemory resource;
  if (data[2] != 0) resource.set_limit_bytes(size_t{data[2]} * 1024);
  MemoryAccountant memory(resource);
  // A copy of exactly the input's bytes, so that ASan sees any read past them.
  const std::string payload(reinterpret_cast<const char*>(data + 3), size - 3);
  rdb::Reader reader(payload);
  ZsetValue* zset = nullptr;
  const LoadStatus status = LoadZset(type, reader, limits, 7, memory, &zset);
  if (status == LoadStatus::kLoaded) {
    FUZZ_CHECK(zset != nullptr);
    FUZZ_CHECK(zset->CheckInvariants());
    FUZZ_CHECK(zset->size() > 0);
    if (zset->is_listpack()) FUZZ_CHECK(zset->size() <= limits.entries_max);
    const std::map<std::string, double> pairs = PairsOf(*zset);
    FUZZ_CHECK(pairs.size() == zset->size());
    resource.set_limit_bytes(0);
    const std::string again = Serialise(*zset);
    rdb::Reader second(again);
    ZsetValue* reloaded = nullptr;
    const uint8_t again_type = zset->is_listpack() ? rdb::kTypeZsetListpack : rdb::kTypeZset2;
    FUZZ_CHECK(LoadZset(again_type, second, limits, 9, memory, &reloaded) == LoadStatus::kLoaded);
    FUZZ_CHECK(second.at_end());
    FUZZ_CHECK(PairsOf(*reloaded) == pairs);
    ZsetValue::Destroy(reloaded, memory);
    ZsetValue::Destroy(zset, memory);
  }
  FUZZ_CHECK(memory.used_bytes(MemoryUse::kKeyspace) == 0);
  FUZZ_CHECK(resource.used_bytes() == 0);
}

}  // namespace keel::fuzz
