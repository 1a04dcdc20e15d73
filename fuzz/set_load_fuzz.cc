// The set loader (RESTORE's and, next, RDB loading's): arbitrary bytes read as an RDB set value.
// Input: byte 0 picks the type (even: RDB_TYPE_SET, odd: RDB_TYPE_SET_INTSET), byte 1 the
// set-max-intset-entries (0..255), byte 2 a memory limit in KiB (0: none), the rest the value.
// Properties: no crash and no read past the input; a loaded set is valid, not empty, within its
// encoding's rules, and loads again from its own serialisation with the same members; every byte
// allocated is given back, including on refusal.
#include <set>
#include <string>

#include "engine/db/rdb_format.h"
#include "engine/db/types/set.h"
#include "engine/db/types/set_ops.h"
#include "engine/env/memory.h"
#include "fuzz/harnesses.h"
#include "sim/sim_env.h"

namespace keel::fuzz {
namespace {

std::set<std::string> MembersOf(const SetValue& set) {
  std::set<std::string> members;
  set.ForEach([&](std::string_view member) { members.emplace(member); });
  return members;
}

// The value's RDB encoding without its type byte (as SetSerialise writes it after the byte).
std::string Serialise(const SetValue& set) {
  std::string out;
  if (set.is_intset()) {
    rdb::WriteString(&out, set.intset_blob(), true);
    return out;
  }
  rdb::WriteLength(&out, set.size());
  set.ForEach([&](std::string_view member) { rdb::WriteString(&out, member, true); });
  return out;
}

}  // namespace

void SetLoadOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return;
  const uint8_t type = (data[0] & 1) != 0 ? rdb::kTypeSetIntset : rdb::kTypeSet;
  const size_t intset_max = data[1];
  sim::SimMemory resource;
  if (data[2] != 0) resource.set_limit_bytes(size_t{data[2]} * 1024);
  MemoryAccountant memory(resource);
  // A copy of exactly the input's bytes, so that ASan sees any read past them.
  const std::string payload(reinterpret_cast<const char*>(data + 3), size - 3);
  rdb::Reader reader(payload);
  SetValue* set = nullptr;
  const LoadStatus status = LoadSet(type, reader, intset_max, 7, memory, &set);
  if (status == LoadStatus::kLoaded) {
    FUZZ_CHECK(set != nullptr);
    FUZZ_CHECK(set->CheckInvariants());
    FUZZ_CHECK(set->size() > 0);
    if (set->is_intset()) FUZZ_CHECK(set->size() <= intset_max);
    const std::set<std::string> members = MembersOf(*set);
    FUZZ_CHECK(members.size() == set->size());
    // Round trip, with no memory limit.
    resource.set_limit_bytes(0);
    const std::string again = Serialise(*set);
    rdb::Reader second(again);
    SetValue* reloaded = nullptr;
    const uint8_t again_type = set->is_intset() ? rdb::kTypeSetIntset : rdb::kTypeSet;
    FUZZ_CHECK(LoadSet(again_type, second, intset_max, 9, memory, &reloaded) ==
               LoadStatus::kLoaded);
    FUZZ_CHECK(second.at_end());
    FUZZ_CHECK(MembersOf(*reloaded) == members);
    SetValue::Destroy(reloaded, memory);
    SetValue::Destroy(set, memory);
  }
  FUZZ_CHECK(memory.used_bytes(MemoryUse::kKeyspace) == 0);
  FUZZ_CHECK(resource.used_bytes() == 0);
}

}  // namespace keel::fuzz
