#include "engine/db/types/member_index.h"

#include <algorithm>
#include <cstring>

#include "engine/base/hash.h"

namespace keel {
namespace {

constexpr uint64_t kDistanceSaturated = 255;

uint64_t DistanceOf(uint64_t slot) { return (slot >> 40) & 0xff; }
uint64_t TagOf(uint64_t hash) { return hash & 0xffff; }
uint64_t MakeSlot(uint64_t offset, uint64_t distance, uint64_t tag) {
  return (offset + 1) | (std::min(distance, kDistanceSaturated) << 40) | (tag << 48);
}

// Load factor bounds: grow past 4/5 full, shrink under 1/16 full.
bool Overloaded(size_t members, size_t homes) { return members * 5 > homes * 4; }

}  // namespace

uint64_t MemberRecords::HashOf(std::string_view member) const {
  return HashBytes(member.data(), member.size(), hash_seed);
}

// ---------------------------------------------------------------------------------------------
// Tables.

int MemberIndex::BitsFor(size_t members) {
  // The smallest power of two that keeps `members` at most 4/5 full, at least 16 homes.
  int bits = 4;
  while (Overloaded(members, size_t{1} << bits)) bits++;
  return bits;
}

size_t MemberIndex::TableBytes(int bits) {
  const size_t homes = size_t{1} << bits;
  return sizeof(Table) + (homes + OverflowFor(homes)) * sizeof(uint64_t);
}

MemberIndex::Table* MemberIndex::NewTable(int bits, MemoryAccountant& memory) {
  KEEL_ASSERT(bits >= 4 && bits < 40);
  // Zeroed: the header starts empty (no resize, no members) and every slot is empty.
  auto* table = static_cast<Table*>(memory.AllocateZeroed(TableBytes(bits), MemoryUse::kKeyspace));
  if (table == nullptr) return nullptr;
  table->shift = static_cast<uint8_t>(64 - bits);
  return table;
}

void MemberIndex::FreeTable(Table* table, MemoryAccountant& memory) {
  memory.Deallocate(table, TableBytes(64 - table->shift), MemoryUse::kKeyspace);
}

size_t MemberIndex::size() const {
  if (table_ == nullptr) return 0;
  return table_->members + (table_->next != nullptr ? table_->next->members : 0);
}

size_t MemberIndex::allocated_bytes() const {
  if (table_ == nullptr) return 0;
  size_t bytes = TableBytes(64 - table_->shift);
  if (table_->next != nullptr) bytes += TableBytes(64 - table_->next->shift);
  return bytes;
}

bool MemberIndex::Create(size_t members, MemoryAccountant& memory) {
  KEEL_ASSERT(table_ == nullptr);
  table_ = NewTable(BitsFor(members), memory);
  return table_ != nullptr;
}

void MemberIndex::Destroy(MemoryAccountant& memory) {
  if (table_ == nullptr) return;
  if (table_->next != nullptr) FreeTable(table_->next, memory);
  FreeTable(table_, memory);
  table_ = nullptr;
}

bool MemberIndex::CopyFrom(const MemberIndex& other, MemoryAccountant& memory) {
  KEEL_ASSERT(table_ == nullptr);
  if (other.table_ == nullptr) return true;
  const int bits = 64 - other.table_->shift;
  auto* table = static_cast<Table*>(memory.Allocate(TableBytes(bits), MemoryUse::kKeyspace));
  if (table == nullptr) return false;
  std::memcpy(table, other.table_, TableBytes(bits));
  table->next = nullptr;
  if (const Table* next = other.table_->next; next != nullptr) {
    const int next_bits = 64 - next->shift;
    auto* copy = static_cast<Table*>(memory.Allocate(TableBytes(next_bits), MemoryUse::kKeyspace));
    if (copy == nullptr) {
      FreeTable(table, memory);
      return false;
    }
    std::memcpy(copy, next, TableBytes(next_bits));
    table->next = copy;
  }
  table_ = table;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Lookups and changes.

uint64_t MemberIndex::Find(const MemberRecords& records, std::string_view member,
                           uint64_t hash) const {
  if (table_ == nullptr) return kAbsent;
  const Table& table = *TableFor(hash);
  const size_t index = Locate(table, records, member, hash);
  return index == SIZE_MAX ? kAbsent : OffsetOf(table.slots()[index]);
}

void MemberIndex::Repoint(const MemberRecords& records, std::string_view member, uint64_t hash,
                          uint64_t offset) {
  KEEL_ASSERT(offset <= kOffsetMax);
  Table& table = *TableFor(hash);
  const size_t index = Locate(table, records, member, hash);
  KEEL_ASSERT(index != SIZE_MAX);
  uint64_t& slot = table.slots()[index];
  slot = (slot & ~kOffsetMask) | (offset + 1);
}

bool MemberIndex::Reserve(const MemberRecords& records, size_t more, MemoryAccountant& memory) {
  KEEL_ASSERT(table_ != nullptr);
  const size_t members = size() + more;
  if (!Overloaded(members, target()->homes())) return true;
  Table* table = NewTable(BitsFor(members), memory);
  if (table == nullptr) return false;
  StartResize(records, table, memory);
  return true;
}

void MemberIndex::StartResize(const MemberRecords& records, Table* table,
                              MemoryAccountant& memory) {
  // A write that needs another resize before the running one is done (a batch of many members)
  // finishes it first: its cost is proportional to the batch.
  FinishResize(records, memory);
  KEEL_ASSERT(table_->next == nullptr);
  table_->next = table;
  table_->migrated = 0;
}

bool MemberIndex::Insert(const MemberRecords& records, uint64_t offset, uint64_t hash,
                         MemoryAccountant& memory) {
  KEEL_ASSERT(offset <= kOffsetMax);
  Table* table = TableFor(hash);
  if (TableInsert(*table, records, offset, hash)) {
    table->members++;
    return true;
  }
  // A probe run reached the end of the overflow area (a degenerate run): a table twice the size
  // of the largest takes every member at once, or nothing changes.
  const int bits = 64 - std::min(table_->shift, target()->shift) + 1;
  Table* larger = NewTable(bits, memory);
  if (larger == nullptr) return false;
  StartResize(records, larger, memory);
  FinishResize(records, memory);
  const bool inserted = TableInsert(*table_, records, offset, hash);
  KEEL_ASSERT(inserted);
  table_->members++;
  return true;
}

uint64_t MemberIndex::Remove(const MemberRecords& records, std::string_view member, uint64_t hash) {
  if (table_ == nullptr) return kAbsent;
  Table* table = TableFor(hash);
  const size_t index = Locate(*table, records, member, hash);
  if (index == SIZE_MAX) return kAbsent;
  const uint64_t offset = OffsetOf(table->slots()[index]);
  TableRemoveAt(*table, records, index);
  table->members--;
  return offset;
}

void MemberIndex::MaybeShrink(const MemberRecords& records, MemoryAccountant& memory) {
  const size_t homes = target()->homes();
  if (homes <= 64 || size() * 16 >= homes) return;
  Table* table = NewTable(BitsFor(size()), memory);
  if (table == nullptr) return;
  StartResize(records, table, memory);
}

bool MemberIndex::Step(const MemberRecords& records, size_t members, MemoryAccountant& memory) {
  Table* next = table_->next;
  if (next == nullptr) return false;
  Table& old = *table_;
  const size_t end = old.slot_count();
  const size_t from = old.migrated;
  // A step moves `members` members or visits kEmptyVisitsPerMember slots for each (a shrink's
  // old table is under 1/16 full), then goes on to a boundary slot: whole runs move, every
  // member whose home is before the stop moves, and the hash boundary can pass them all.
  const size_t visits_max =
      members > SIZE_MAX / kEmptyVisitsPerMember ? SIZE_MAX : members * kEmptyVisitsPerMember;
  uint64_t* old_slots = old.slots();
  size_t moved = 0;
  size_t stop = from;
  for (; stop < end; stop++) {
    const uint64_t slot = old_slots[stop];
    const bool budget_spent = moved >= members || stop - from >= visits_max;
    if (budget_spent && (slot == 0 || AtHome(slot))) break;
    if (slot == 0) continue;
    const uint64_t offset = OffsetOf(slot);
    const bool placed =
        TableInsert(*next, records, offset, records.HashOf(records.MemberAt(offset)));
    KEEL_ASSERT(placed);  // the new table is sized for every member with room to spare
    old_slots[stop] = 0;
    moved++;
  }
  old.members -= static_cast<uint32_t>(moved);
  next->members += static_cast<uint32_t>(moved);
  old.migrated = stop;
  // Past the last home every member has moved (no member sits at or after `stop` whose home is
  // before it).
  if (stop < old.homes()) return true;
  KEEL_ASSERT(old.members == 0);
  table_ = next;
  FreeTable(&old, memory);
  return false;
}

void MemberIndex::Clear(MemoryAccountant& memory) {
  if (table_ == nullptr) return;
  if (Table* next = table_->next; next != nullptr) {
    FreeTable(table_, memory);
    table_ = next;
  }
  std::memset(table_->slots(), 0, table_->slot_count() * sizeof(uint64_t));
  table_->members = 0;
}

uint64_t MemberIndex::RandomOffset(Rng& rng) const {
  KEEL_ASSERT(size() > 0);
  // Uniform over the members: uniform over the slots that may hold one (the new table's, and the
  // old one's not yet moved), retried until one is occupied. A table is kept at least 1/16 full
  // outside a shrink, so this takes 16 draws at worst on average.
  const Table* next = table_->next;
  const size_t next_slots = next != nullptr ? next->slot_count() : 0;
  const size_t first_live = FirstLive(*table_);
  const size_t old_slots = table_->slot_count() - first_live;
  while (true) {
    const size_t drawn = rng.Below(next_slots + old_slots);
    const uint64_t slot = drawn < next_slots ? next->slots()[drawn]
                                             : table_->slots()[first_live + drawn - next_slots];
    if (slot != 0) return OffsetOf(slot);
  }
}

// ---------------------------------------------------------------------------------------------
// One table.

size_t MemberIndex::SlotHome(const Table& table, const MemberRecords& records, size_t index) {
  const uint64_t slot = table.slots()[index];
  const uint64_t distance = DistanceOf(slot);
  if (distance < kDistanceSaturated) return index - distance;
  return table.HomeOf(records.HashOf(records.MemberAt(OffsetOf(slot))));
}

size_t MemberIndex::Locate(const Table& table, const MemberRecords& records,
                           std::string_view member, uint64_t hash) {
  const size_t home = table.HomeOf(hash);
  const uint64_t tag = TagOf(hash);
  const uint64_t* slots = table.slots();
  for (size_t i = home; i < table.slot_count(); i++) {
    const uint64_t slot = slots[i];
    if (slot == 0) return SIZE_MAX;
    const size_t slot_home = SlotHome(table, records, i);
    // Runs are sorted by home: past our home, the member is not here.
    if (slot_home > home) return SIZE_MAX;
    if (slot_home == home && (slot >> 48) == tag && records.MemberAt(OffsetOf(slot)) == member) {
      return i;
    }
  }
  return SIZE_MAX;
}

bool MemberIndex::TableInsert(Table& table, const MemberRecords& records, uint64_t offset,
                              uint64_t hash) {
  uint64_t* slots = table.slots();
  size_t carry_home = table.HomeOf(hash);
  // The insertion shifts members up to the first empty slot at or after the home; with none
  // before the end of the overflow area, refuse before changing anything.
  size_t empty = carry_home;
  while (empty < table.slot_count() && slots[empty] != 0) empty++;
  if (empty == table.slot_count()) return false;
  uint64_t carry_offset = offset;
  uint64_t carry_tag = TagOf(hash);
  for (size_t i = carry_home; i < empty; i++) {
    const size_t slot_home = SlotHome(table, records, i);
    // Robin Hood: the member from a later home yields its place, which keeps runs sorted by home
    // (members of one home stay in insertion order).
    if (slot_home > carry_home) {
      const uint64_t displaced = slots[i];
      slots[i] = MakeSlot(carry_offset, i - carry_home, carry_tag);
      carry_home = slot_home;
      carry_offset = OffsetOf(displaced);
      carry_tag = displaced >> 48;
    }
  }
  slots[empty] = MakeSlot(carry_offset, empty - carry_home, carry_tag);
  return true;
}

void MemberIndex::TableRemoveAt(Table& table, const MemberRecords& records, size_t index) {
  uint64_t* slots = table.slots();
  size_t i = index;
  // Backward shift: the rest of the run moves one slot nearer home.
  while (i + 1 < table.slot_count() && slots[i + 1] != 0 && !AtHome(slots[i + 1])) {
    const uint64_t next = slots[i + 1];
    const size_t home = SlotHome(table, records, i + 1);
    slots[i] = MakeSlot(OffsetOf(next), i - home, next >> 48);
    i++;
  }
  slots[i] = 0;
}

size_t MemberIndex::NextBoundary(const Table& table, size_t slot) {
  const uint64_t* slots = table.slots();
  for (size_t i = slot; i < table.slot_count(); i++) {
    if (slots[i] == 0 || AtHome(slots[i])) return i;
  }
  return table.slot_count();
}

// ---------------------------------------------------------------------------------------------
// Invariants.

bool MemberIndex::CheckTable(const Table& table, const MemberRecords& records, uint64_t low,
                             uint64_t high) const {
  const uint64_t* slots = table.slots();
  for (size_t i = 0; i < FirstLive(table); i++) {
    if (slots[i] != 0) return false;
  }
  size_t counted = 0;
  size_t previous_home = 0;
  for (size_t i = FirstLive(table); i < table.slot_count(); i++) {
    if (slots[i] == 0) continue;
    const uint64_t hash = records.HashOf(records.MemberAt(OffsetOf(slots[i])));
    if (hash < low || hash > high) return false;
    const size_t home = table.HomeOf(hash);
    if (home > i || (slots[i] >> 48) != TagOf(hash)) return false;
    if (DistanceOf(slots[i]) != std::min<uint64_t>(i - home, kDistanceSaturated)) return false;
    // Within a run homes never decrease; a new run starts at its home.
    if (i > 0 && slots[i - 1] != 0 && home < previous_home) return false;
    previous_home = home;
    counted++;
  }
  return counted == table.members;
}

bool MemberIndex::CheckInvariants(const MemberRecords& records) const {
  if (table_ == nullptr) return true;
  const Table* next = table_->next;
  if (next == nullptr) return table_->migrated == 0 && CheckTable(*table_, records, 0, UINT64_MAX);
  if (next->next != nullptr || table_->migrated >= table_->homes()) return false;
  const uint64_t split = boundary();
  if (!CheckTable(*next, records, 0, split == 0 ? 0 : split - 1)) return false;
  if (split == 0 && next->members != 0) return false;
  return CheckTable(*table_, records, split, UINT64_MAX);
}

}  // namespace keel
