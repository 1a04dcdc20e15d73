// SetValue: a set of byte strings, in the two encodings Redis 7.0 reports for sets.
//
// intset     every member is an integer (in Redis's strict text form, as string2ll reads it)
//            and there are at most set-max-intset-entries of them. Held exactly as Redis's
//            intset.c lays it out: a 4-byte width (2, 4 or 8: the narrowest that holds every
//            member, never narrowed again), a 4-byte count, then the members sorted ascending,
//            little-endian. The RDB form (RDB_TYPE_SET_INTSET) is those bytes as they are.
// hashtable  anything else. Redis holds a dict of sds strings (about 80 bytes per member); Keel
//            packs the members into one byte arena per set (a varint length, then the bytes)
//            and indexes them with a MemberIndex (member_index.h: an open-addressing table of
//            8-byte slots in hash order, resized incrementally), or, while the set has at most
//            kSmallMembers members, with no table at all (a linear walk of the arena is faster
//            than hashing at that size, and costs no slots).
//
// A set converts from intset to hashtable as Redis's setTypeAdd does (a member that is not an
// integer, or one more than set-max-intset-entries) and never back. The index keeps its table in
// hash order, so an SSCAN cursor is a position in hash space that stays valid across every
// resize, as the keyspace's SCAN cursor is (key_table.h). Nothing depends on pointer values: the
// order of the members is a function of the set's hash seed and its history.
//
// Memory comes from the MemoryAccountant (MemoryUse::kKeyspace). Every operation that may
// allocate either completes or, when memory is refused, leaves the set exactly as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/rng.h"
#include "engine/db/types/member_index.h"
#include "engine/env/memory.h"

namespace keel {

class SetValue {
 public:
  // Members a hashtable-encoded set keeps without an index (a walk of its arena).
  static constexpr size_t kSmallMembers = 16;
  // The widest text an intset member has ("-9223372036854775808").
  static constexpr size_t kIntTextMax = 20;

  // An empty intset-encoded set (Redis's createIntsetObject), or nullptr when memory is refused.
  // `hash_seed` seeds the member hash of the hashtable encoding.
  static SetValue* Create(MemoryAccountant& memory, uint64_t hash_seed);
  // An empty hashtable-encoded set with room for `members_hint` members (Redis's
  // createSetObject and dictExpand), or nullptr when memory is refused.
  static SetValue* CreateHashtable(MemoryAccountant& memory, uint64_t hash_seed,
                                   size_t members_hint);
  // Frees `set` and everything it owns.
  static void Destroy(SetValue* set, MemoryAccountant& memory);
  // A deep copy with the same encoding and order, or nullptr when memory is refused.
  static SetValue* Clone(const SetValue& set, MemoryAccountant& memory);
  // A set from an RDB intset blob (RDB_TYPE_SET_INTSET): nullptr when the blob is not a valid
  // intset (a width other than 2, 4 or 8, a size that does not match its count, members out of
  // order or repeated, a member that a narrower width would hold is fine) or memory is refused;
  // *corrupt tells which. An intset longer than `intset_max` is converted, as Redis does.
  static SetValue* FromIntsetBlob(MemoryAccountant& memory, uint64_t hash_seed,
                                  std::string_view blob, size_t intset_max, bool* corrupt);

  SetValue(const SetValue&) = delete;
  SetValue& operator=(const SetValue&) = delete;

  bool is_intset() const { return intset_ != nullptr; }
  size_t size() const;
  uint64_t hash_seed() const { return hash_seed_; }

  enum class AddOutcome : uint8_t { kAdded, kPresent, kOutOfMemory };
  // Adds `member`, converting to hashtable as Redis's setTypeAdd does (`intset_max` is
  // set-max-intset-entries). kOutOfMemory leaves the set unchanged.
  AddOutcome Add(std::string_view member, size_t intset_max, MemoryAccountant& memory);
  // Removes `member`; returns whether it was there. Never fails: a removal allocates only to
  // shrink, and keeps the larger layout when that is refused.
  bool Remove(std::string_view member, MemoryAccountant& memory);
  bool Contains(std::string_view member) const;
  // Converts an intset to a hashtable with room for `members_hint` members (Redis's
  // setTypeConvert). False, with nothing changed, when memory is refused.
  bool ConvertToHashtable(size_t members_hint, MemoryAccountant& memory);

  // A member drawn uniformly from `rng` (the set must not be empty), as bytes in `*scratch` or
  // in the set (valid until the set changes).
  std::string_view RandomMember(Rng& rng, std::string* scratch) const;

  // Visits every member in the set's order (intset: ascending; hashtable: hash order).
  // visit(std::string_view) may not change the set; the view lives until visit returns.
  template <typename Visit>
  void ForEach(Visit&& visit) const;

  // SSCAN: visits members from `cursor` on for about `count` slots and returns the next cursor
  // (0 when done). An intset or a set without a table is visited whole at once, as Redis
  // returns an intset whole. A member present for the whole scan is visited at least once.
  template <typename Visit>
  uint64_t Scan(uint64_t cursor, size_t count, Visit&& visit) const;

  // The bytes the set occupies outside its key's entry (MEMORY USAGE).
  size_t allocated_bytes() const;
  // The intset blob (is_intset() only): the RDB_TYPE_SET_INTSET payload.
  std::string_view intset_blob() const;

  // The structure's invariants (tests, fuzzing): the intset sorted and of the right width, the
  // table in hash order with the right distances, counts matching.
  bool CheckInvariants() const;

 private:
  SetValue() = default;
  ~SetValue() = default;

  // --- intset -----------------------------------------------------------------------------
  uint32_t IntsetWidth() const;
  int64_t IntsetAt(size_t index) const;
  // The index of `value`, or where it would go (*found false).
  size_t IntsetSearch(int64_t value, bool* found) const;
  bool IntsetAdd(int64_t value, MemoryAccountant& memory, bool* added);
  void IntsetRemoveAt(size_t index, MemoryAccountant& memory);

  // --- hashtable arena --------------------------------------------------------------------
  // A record at `offset`: its member's bytes.
  std::string_view RecordAt(size_t offset) const;
  static size_t RecordBytes(size_t member_size);
  // Makes room for `bytes` more arena bytes (compacting a mostly dead arena as it grows); false
  // when refused (nothing changed).
  bool ReserveArena(size_t bytes, MemoryAccountant& memory);
  // Copies the live records into a new arena of `live + live / 4` bytes, in the index's order;
  // false when refused (nothing changed).
  bool CompactArena(MemoryAccountant& memory);
  size_t AppendRecord(std::string_view member);
  // The offset of `member` in a set without a table, or SIZE_MAX.
  size_t SmallFind(std::string_view member) const;
  // Indexes a set without a table (its arena compacted into a new block); false when refused.
  bool IndexSmallSet(MemoryAccountant& memory);
  bool HashtableAdd(std::string_view member, MemoryAccountant& memory);
  bool HashtableRemove(std::string_view member, MemoryAccountant& memory);

  MemberRecords records() const { return {arena_, hash_seed_}; }
  uint64_t HashOf(std::string_view member) const { return records().HashOf(member); }

  // intset_ non-null: intset encoding (intset_bytes_ long). Otherwise hashtable: members in
  // arena_, indexed by index_ when allocated.
  unsigned char* intset_ = nullptr;
  char* arena_ = nullptr;
  MemberIndex index_;
  uint64_t hash_seed_ = 0;
  uint32_t intset_bytes_ = 0;  // the intset's block (at least its header and members)
  uint32_t members_ = 0;       // hashtable only
  size_t arena_used_ = 0;
  size_t arena_capacity_ = 0;
  size_t arena_dead_ = 0;  // bytes of removed records still in the arena (with a table)

  friend struct SetValueTestPeer;
};

// ---------------------------------------------------------------------------------------------
// Template implementations.

// The decimal text of `value` in `out` (kIntTextMax bytes at least).
size_t SetIntText(int64_t value, char* out);

template <typename Visit>
void SetValue::ForEach(Visit&& visit) const {
  if (is_intset()) {
    char text[kIntTextMax];
    const size_t count = size();
    for (size_t i = 0; i < count; i++) {
      visit(std::string_view(text, SetIntText(IntsetAt(i), text)));
    }
    return;
  }
  if (!index_.allocated()) {
    for (size_t offset = 0; offset < arena_used_;) {
      const std::string_view member = RecordAt(offset);
      offset = static_cast<size_t>(member.data() + member.size() - arena_);
      visit(member);
    }
    return;
  }
  index_.ForEachOffset([&](uint64_t offset) { visit(RecordAt(offset)); });
}

template <typename Visit>
uint64_t SetValue::Scan(uint64_t cursor, size_t count, Visit&& visit) const {
  if (is_intset() || !index_.allocated()) {
    ForEach(visit);
    return 0;
  }
  return index_.Scan(records(), cursor, count, [&](uint64_t offset) { visit(RecordAt(offset)); });
}

}  // namespace keel
