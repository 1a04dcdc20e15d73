// MemberIndex: the hashtable index of the set, hash and sorted set encodings (set.h, hash.h,
// zset.h), one open-addressing table of 8-byte slots over the offsets of records in their
// value's arena.
//
// Every record starts with its member (a varint length, then the bytes); what follows is the
// value's own (a hash's value, a sorted set's score). A slot holds the record's offset + 1 (40
// bits, 0 = empty), its distance from home (8 bits, 255 meaning "255 or more": the home is then
// recomputed from the member) and 16 bits of the member's hash (a tag, so that a probe rarely
// compares another member's bytes). Homes come from the hash's high bits (2^k homes) and runs
// do not wrap around (an overflow area follows the last home), so the table is kept in hash
// order by Robin Hood linear probing: an SSCAN / HSCAN / ZSCAN cursor is a position in hash
// space that stays valid across every resize, as the keyspace's SCAN cursor is (key_table.h).
//
// Resizes are incremental, as the keyspace's (database.cc) and Redis's dict are: a resize
// allocates the new table and each write (Insert, Remove) then moves a few of the old table's
// slots to it. Both tables are in hash order, so a moving hash boundary splits the members
// between them: hashes below it live in the new table, the others in the old, and each lookup
// goes to exactly one. Rebuilding a million-member table at once stalled every client for
// 130-220 ms (bench/micro/value_growth_bench.cc). Reads do not move slots: they stay const (a
// read under a scan or a serialiser changes nothing), and writes alone finish a growth long
// before the next is due (see kMigrateMembersPerWrite).
//
// The index keeps its state in one block (a header, then the slots), so a value pays one pointer
// for it. Memory comes from the MemoryAccountant (MemoryUse::kKeyspace); what may allocate
// either completes or, when memory is refused, leaves the index as it was. Nothing depends on
// pointer values: the order is a function of the hash seed and the history of changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "engine/base/assert.h"
#include "engine/base/rng.h"
#include "engine/db/types/record_arena.h"
#include "engine/env/memory.h"

namespace keel {

// The records an index points into, as its owner has them now (the arena moves as it grows).
struct MemberRecords {
  const char* arena;
  uint64_t hash_seed;

  // The member of the record at `offset`.
  std::string_view MemberAt(uint64_t offset) const { return RecordMember(arena, offset); }
  uint64_t HashOf(std::string_view member) const;
};

class MemberIndex {
 public:
  static constexpr uint64_t kAbsent = UINT64_MAX;
  // The largest record offset a slot holds.
  static constexpr uint64_t kOffsetMax = (uint64_t{1} << 40) - 2;
  // Members moved per write while a resize runs, and slots visited per member when the old
  // table is sparse (a shrink's, under 1/16 full), as Redis's dictRehash visits up to ten empty
  // buckets per bucket. Each move rehashes a member (a cache miss), so the step is kept near
  // the keyspace's 16 slots per write (docs/KEYSPACE.md: larger steps slowed every write of a
  // resize). A growth starts at 4/5 load of H homes and doubles them, so the next is due 4/5 H
  // inserts later; moving the old table's 4/5 H members 8 per insert takes H/10 of them. A
  // shrink's old table (H + H/8 + 32 slots) is visited 128 slots per removal. A batch that adds
  // more at once (ZADD or HSET of many) finishes the running resize first.
  static constexpr size_t kMigrateMembersPerWrite = 8;
  static constexpr size_t kEmptyVisitsPerMember = 16;

  MemberIndex() = default;
  MemberIndex(const MemberIndex&) = delete;
  MemberIndex& operator=(const MemberIndex&) = delete;

  bool allocated() const { return table_ != nullptr; }
  // Members indexed.
  size_t size() const;
  bool resizing() const { return table_ != nullptr && table_->next != nullptr; }

  // Allocates an empty table with room for `members` (4/5 load, at least 16 homes). The index
  // must be empty. False when refused (nothing allocated).
  bool Create(size_t members, MemoryAccountant& memory);
  // Frees every table; the index is empty afterwards.
  void Destroy(MemoryAccountant& memory);
  // Makes this empty index a copy of `other` (both tables and the boundary of a running resize:
  // the same order). False when refused (this stays empty).
  bool CopyFrom(const MemberIndex& other, MemoryAccountant& memory);
  void Swap(MemberIndex& other) { std::swap(table_, other.table_); }

  // The offset of `member`'s record (its hash `hash`), or kAbsent.
  uint64_t Find(const MemberRecords& records, std::string_view member, uint64_t hash) const;
  // Points the slot of `member` (present) at the record at `offset` (a rewritten record).
  void Repoint(const MemberRecords& records, std::string_view member, uint64_t hash,
               uint64_t offset);

  // Makes room for `more` members beyond size() at 4/5 load: starts a growth when the table
  // (the running resize's target) would pass it, finishing the running resize first. False when
  // refused (nothing changed).
  bool Reserve(const MemberRecords& records, size_t more, MemoryAccountant& memory);
  // Indexes the record at `offset` (its member absent, hashing to `hash`). Reserve must have
  // made room. False only when the member's probe run reached the end of the overflow area (a
  // degenerate run) and the larger table that takes it was refused: nothing changed then.
  bool Insert(const MemberRecords& records, uint64_t offset, uint64_t hash,
              MemoryAccountant& memory);
  // Removes `member` (hashing to `hash`); returns the offset of its record, or kAbsent. Never
  // allocates.
  uint64_t Remove(const MemberRecords& records, std::string_view member, uint64_t hash);
  // A write that changed `members` members has succeeded: moves its share of a running resize
  // (kMigrateMembersPerWrite each). The owner calls it once the write can no longer be undone,
  // so that a refused write leaves even the order of the members as it was. Never allocates.
  void Advance(const MemberRecords& records, size_t members, MemoryAccountant& memory) {
    if (resizing()) Step(records, members * kMigrateMembersPerWrite, memory);
  }
  // Under 1/16 load (random draws probe slots) and past 64 homes, starts a shrink to fit the
  // members. A refusal only costs space.
  void MaybeShrink(const MemberRecords& records, MemoryAccountant& memory);
  // Moves about `members` members of a running resize (whole probe runs); returns whether one
  // still runs. Never allocates (it frees the old table at the end).
  bool Step(const MemberRecords& records, size_t members, MemoryAccountant& memory);
  void FinishResize(const MemberRecords& records, MemoryAccountant& memory) {
    while (Step(records, SIZE_MAX / 4, memory)) {
    }
  }
  // Empties every slot and ends a running resize (the larger table stays), keeping room for as
  // many members as before: the owner then inserts its records again (a compaction that puts
  // them in another order).
  void Clear(MemoryAccountant& memory);

  // Rewrites every record offset, in slot order: move(old_offset) returns the new one (a
  // compaction that copies the records in that order).
  template <typename Move>
  void MoveRecords(Move&& move);

  // The offset of a member drawn uniformly from `rng` (the index must not be empty).
  uint64_t RandomOffset(Rng& rng) const;
  // Visits the offset of every member in hash order: visit(uint64_t offset).
  template <typename Visit>
  void ForEachOffset(Visit&& visit) const;
  // SSCAN / HSCAN / ZSCAN: visits the offsets of the members whose hash is at or after `cursor`
  // for about `count` slots and returns the next cursor (0 when done). A member present for the
  // whole scan is visited at least once whatever resizes happen in between.
  template <typename Visit>
  uint64_t Scan(const MemberRecords& records, uint64_t cursor, size_t count, Visit&& visit) const;

  // The bytes of the index's blocks (MEMORY USAGE).
  size_t allocated_bytes() const;
  // Every table in hash order with the right distances and tags, each member on its side of the
  // boundary, the counts right (tests, fuzzing).
  bool CheckInvariants(const MemberRecords& records) const;

 private:
  // A table: this header, then its slots in the same block.
  struct Table {
    Table* next;       // the target of a running resize, or null
    size_t migrated;   // while resizing: this table's slots below it have moved to `next`
    uint32_t members;  // in this table
    uint8_t shift;     // 2^(64 - shift) homes
    uint64_t* slots() { return reinterpret_cast<uint64_t*>(this + 1); }
    const uint64_t* slots() const { return reinterpret_cast<const uint64_t*>(this + 1); }
    size_t homes() const { return size_t{1} << (64 - shift); }
    size_t slot_count() const { return homes() + OverflowFor(homes()); }
    size_t HomeOf(uint64_t hash) const { return static_cast<size_t>(hash >> shift); }
    // The smallest hash whose home is `slot` or later; SIZE_MAX past the last home.
    uint64_t FirstHashOf(size_t slot) const {
      return slot >= homes() ? UINT64_MAX : static_cast<uint64_t>(slot) << shift;
    }
  };
  static_assert(sizeof(Table) % sizeof(uint64_t) == 0);

  // Room past the last home for the runs that start near it: Robin Hood runs are short at 4/5
  // load; a run that still reaches the end makes Insert grow the table.
  static size_t OverflowFor(size_t homes) { return 32 + homes / 8; }
  static int BitsFor(size_t members);
  static size_t TableBytes(int bits);
  static Table* NewTable(int bits, MemoryAccountant& memory);
  static void FreeTable(Table* table, MemoryAccountant& memory);

  static uint64_t OffsetOf(uint64_t slot) { return (slot & kOffsetMask) - 1; }
  static bool AtHome(uint64_t slot) { return ((slot >> 40) & 0xff) == 0; }
  // While resizing, hashes below it live in table_->next.
  uint64_t boundary() const { return table_->FirstHashOf(table_->migrated); }
  Table* TableFor(uint64_t hash) const {
    return table_->next != nullptr && hash < boundary() ? table_->next : table_;
  }
  // The table a resize is heading for (the only one when none runs).
  Table* target() const { return table_->next != nullptr ? table_->next : table_; }
  // Starts a resize into `table` (allocated, empty), finishing a running one first.
  void StartResize(const MemberRecords& records, Table* table, MemoryAccountant& memory);

  static constexpr uint64_t kOffsetMask = (uint64_t{1} << 40) - 1;

  // The table-level operations (member_index.cc).
  static size_t SlotHome(const Table& table, const MemberRecords& records, size_t index);
  static size_t Locate(const Table& table, const MemberRecords& records, std::string_view member,
                       uint64_t hash);
  static bool TableInsert(Table& table, const MemberRecords& records, uint64_t offset,
                          uint64_t hash);
  static void TableRemoveAt(Table& table, const MemberRecords& records, size_t index);
  static size_t NextBoundary(const Table& table, size_t slot);
  // Visits the slots holding members of `table` (from `migrated` on when it is being emptied).
  static size_t FirstLive(const Table& table) { return table.next != nullptr ? table.migrated : 0; }
  bool CheckTable(const Table& table, const MemberRecords& records, uint64_t low,
                  uint64_t high) const;

  Table* table_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Template implementations.

template <typename Move>
void MemberIndex::MoveRecords(Move&& move) {
  if (table_ == nullptr) return;
  Table* tables[] = {table_->next, table_};
  for (Table* table : tables) {
    if (table == nullptr) continue;
    uint64_t* slots = table->slots();
    for (size_t i = FirstLive(*table); i < table->slot_count(); i++) {
      if (slots[i] == 0) continue;
      const uint64_t offset = move(OffsetOf(slots[i]));
      KEEL_DASSERT(offset <= kOffsetMax);
      slots[i] = (slots[i] & ~kOffsetMask) | (offset + 1);
    }
  }
}

template <typename Visit>
void MemberIndex::ForEachOffset(Visit&& visit) const {
  if (table_ == nullptr) return;
  // The new table holds the hashes below the boundary, the old one the rest: hash order.
  const Table* tables[] = {table_->next, table_};
  for (const Table* table : tables) {
    if (table == nullptr) continue;
    const uint64_t* slots = table->slots();
    for (size_t i = FirstLive(*table); i < table->slot_count(); i++) {
      if (slots[i] != 0) visit(OffsetOf(slots[i]));
    }
  }
}

template <typename Visit>
uint64_t MemberIndex::Scan(const MemberRecords& records, uint64_t cursor, size_t count,
                           Visit&& visit) const {
  if (table_ == nullptr) return 0;
  if (count == 0) count = 1;
  const Table& table = *TableFor(cursor);
  const bool below_boundary = &table != table_;
  const uint64_t* slots = table.slots();
  const size_t start = table.HomeOf(cursor);
  // Chunks end at a boundary slot (NextBoundary): every member whose home is before it lies
  // before it, so the next cursor is the first hash of that slot.
  const size_t stop =
      start + count >= table.slot_count() ? table.slot_count() : NextBoundary(table, start + count);
  for (size_t i = start; i < stop; i++) {
    if (slots[i] == 0) continue;
    const uint64_t offset = OffsetOf(slots[i]);
    // Members displaced here from before the cursor's home were visited already.
    if (records.HashOf(records.MemberAt(offset)) >= cursor) visit(offset);
  }
  const uint64_t next = table.FirstHashOf(stop);
  if (below_boundary) {
    // The new table holds only hashes below the boundary: past it, the old table goes on.
    const uint64_t boundary_hash = boundary();
    return next >= boundary_hash ? boundary_hash : next;
  }
  return next == UINT64_MAX ? 0 : next;
}

}  // namespace keel
