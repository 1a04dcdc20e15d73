// KeyTable: one open-addressing table of entry pointers, kept in hash order.
//
// Slot i of a table with C home slots holds an entry whose home is fastrange(hash, C) =
// (hash * C) >> 64, so homes grow with the hash's high bits and the table is a sorted array of
// hashes with gaps. Collisions are resolved by Robin Hood linear probing: within a run, entries
// stay sorted by home, each slot keeping its distance from home. That order gives the keyspace
// three things a plain hash table cannot: a SCAN cursor that is a position in hash space (valid
// across any resize), incremental resizing by a moving hash boundary (each lookup goes to exactly
// one of two tables), and lookups that stop as soon as they pass the key's home.
//
// A slot is 8 bytes: the entry's address (48 bits), the distance from home (8 bits, 255 meaning
// "255 or more": the home is then recomputed from the key) and 8 bits of the hash (a tag, so
// that a probe that meets another key rarely touches its memory). Slots past the last home slot
// form an overflow area instead of wrapping around, which keeps the order total. There is no
// tombstone: deletion shifts the rest of the run back by one.
//
// The table owns no entries and allocates only its slot array (MemoryUse::kKeyspace).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/db/entry.h"
#include "engine/env/memory.h"

namespace keel {

// Where a key's hash puts it in a table of `home_slots` slots.
inline size_t HomeSlot(uint64_t hash, size_t home_slots) {
  return static_cast<size_t>((static_cast<__uint128_t>(hash) * home_slots) >> 64);
}

// The smallest hash whose home slot is `slot` or later (2^64 for slot == home_slots, returned as
// 0 with *past_end set).
uint64_t FirstHashOfSlot(size_t slot, size_t home_slots, bool* past_end);

class KeyTable {
 public:
  using HashFunction = uint64_t (*)(const void* context, std::string_view key);

  // `home_slots` > 0. Nothing is allocated until Allocate().
  KeyTable(MemoryAccountant& memory, size_t home_slots) : memory_(memory), homes_(home_slots) {}
  ~KeyTable() { Release(); }
  KeyTable(const KeyTable&) = delete;
  KeyTable& operator=(const KeyTable&) = delete;

  // Allocates the slot array; false when memory is refused.
  bool Allocate();
  bool allocated() const { return slots_ != nullptr; }
  void Release();

  size_t home_slots() const { return homes_; }
  // Home slots plus the overflow area; 0 until allocated.
  size_t slot_count() const { return slots_ == nullptr ? 0 : homes_ + overflow_; }
  size_t size() const { return size_; }
  size_t slot_bytes() const { return (homes_ + overflow_) * sizeof(uint64_t); }

  // The entry for `key`, or nullptr.
  Entry* Find(std::string_view key, uint64_t hash) const;

  // Inserts an entry whose key is absent. False when the overflow area is exhausted (the caller
  // grows the table first, so this only happens in a degenerate run).
  bool Insert(Entry* entry, uint64_t hash, HashFunction rehash, const void* context);

  // Points the slot of `key` at `replacement` (the entry was reallocated). The key must exist.
  void Replace(std::string_view key, uint64_t hash, Entry* replacement);

  // Removes `key` and returns its entry, or nullptr if absent.
  Entry* Remove(std::string_view key, uint64_t hash, HashFunction rehash, const void* context);

  // Visits the entries of slots [begin, end) in slot order.
  template <typename Visit>
  void VisitSlots(size_t begin, size_t end, Visit&& visit) const {
    for (size_t i = begin; i < end && i < slot_count(); i++) {
      if (slots_[i] != 0) visit(*EntryOf(slots_[i]));
    }
  }

  // A slot at or after `slot` where every entry whose home is before it lies before it: an empty
  // slot or one holding an entry at its home. SCAN chunks and migration steps end there, so that
  // no entry is left behind a boundary it belongs before. Returns slot_count() if none.
  size_t NextBoundary(size_t slot) const;

  // The first occupied slot at or after `slot` (wrapping around), for random sampling, or
  // slot_count() when empty.
  size_t NextOccupied(size_t slot) const;
  Entry* EntryAt(size_t slot) const { return slots_[slot] == 0 ? nullptr : EntryOf(slots_[slot]); }

  // The most consecutive occupied slots (a run that every insert into it walks): a diagnostic
  // for tests, O(slots).
  size_t LongestRun() const;

  // Removes every slot; the entries are the caller's to free (visit them first).
  void Reset();

  // Empties slots [begin, end) without touching their entries (a resize moved them elsewhere).
  // `end` must be a boundary (NextBoundary) so that no remaining entry belongs before it.
  void ClearSlots(size_t begin, size_t end);

  // Checks the ordering invariant (debug builds, tests): every entry sits at or after its home,
  // runs are sorted by home, stored distances are right. `rehash` recomputes a key's hash.
  bool CheckInvariants(HashFunction rehash, const void* context) const;

 private:
  static constexpr int kAddressBits = 48;
  static constexpr uint64_t kAddressMask = (uint64_t{1} << kAddressBits) - 1;
  static constexpr uint64_t kDistanceSaturated = 255;

  static Entry* EntryOf(uint64_t slot) { return reinterpret_cast<Entry*>(slot & kAddressMask); }
  static uint64_t DistanceOf(uint64_t slot) { return (slot >> kAddressBits) & 0xff; }
  static uint8_t TagOf(uint64_t hash) { return static_cast<uint8_t>(hash); }
  static uint64_t TagBits(uint64_t slot) { return slot >> 56; }
  static uint64_t MakeSlot(Entry* entry, uint64_t distance, uint8_t tag);

  // The home of the entry in slot `index` (recomputing the hash only for a saturated distance).
  size_t HomeOf(size_t index, HashFunction rehash, const void* context) const;
  // Index of the slot holding `key`, or SIZE_MAX.
  size_t Locate(std::string_view key, uint64_t hash) const;

  MemoryAccountant& memory_;
  size_t homes_;
  size_t overflow_ = 0;
  size_t size_ = 0;
  uint64_t* slots_ = nullptr;
};

}  // namespace keel
