#include "engine/db/key_table.h"

#include <cstring>

#include "engine/base/assert.h"

namespace keel {

uint64_t FirstHashOfSlot(size_t slot, size_t home_slots, bool* past_end) {
  *past_end = slot >= home_slots;
  if (*past_end) return 0;
  // ceil(slot * 2^64 / home_slots): the smallest hash h with (h * home_slots) >> 64 >= slot.
  const __uint128_t scaled = static_cast<__uint128_t>(slot) << 64;
  const __uint128_t first = (scaled + home_slots - 1) / home_slots;
  return static_cast<uint64_t>(first);
}

uint64_t KeyTable::MakeSlot(Entry* entry, uint64_t distance, uint8_t tag) {
  const auto address = reinterpret_cast<uint64_t>(entry);
  KEEL_ASSERT((address & ~kAddressMask) == 0);  // x86-64 and arm64 user addresses fit 48 bits
  KEEL_ASSERT(address != 0);
  if (distance > kDistanceSaturated) distance = kDistanceSaturated;
  return address | (distance << kAddressBits) | (static_cast<uint64_t>(tag) << 56);
}

bool KeyTable::Allocate() {
  KEEL_ASSERT(slots_ == nullptr);
  // The overflow area takes the runs that would pass the last home slot; at the maximum load a
  // run longer than this is vanishingly rare, and Insert reports it so the caller grows.
  overflow_ = 128 + homes_ / 128;
  // Zeroed by the environment: fresh pages, not a memset of the whole table at once.
  slots_ = static_cast<uint64_t*>(memory_.AllocateZeroed(slot_bytes(), MemoryUse::kKeyspace));
  if (slots_ == nullptr) return false;
  return true;
}

void KeyTable::Release() {
  if (slots_ != nullptr) memory_.Deallocate(slots_, slot_bytes(), MemoryUse::kKeyspace);
  slots_ = nullptr;
  size_ = 0;
}

void KeyTable::Reset() {
  if (slots_ != nullptr) std::memset(slots_, 0, slot_bytes());
  size_ = 0;
}

size_t KeyTable::HomeOf(size_t index, HashFunction rehash, const void* context) const {
  const uint64_t slot = slots_[index];
  KEEL_DASSERT(slot != 0);
  const uint64_t distance = DistanceOf(slot);
  if (distance < kDistanceSaturated) return index - distance;
  return HomeSlot(rehash(context, EntryOf(slot)->key()), homes_);
}

size_t KeyTable::Locate(std::string_view key, uint64_t hash) const {
  if (slots_ == nullptr) return SIZE_MAX;
  const size_t home = HomeSlot(hash, homes_);
  const uint8_t tag = TagOf(hash);
  const size_t end = slot_count();
  for (size_t i = home; i < end; i++) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return SIZE_MAX;
    const uint64_t distance = DistanceOf(slot);
    // Runs are sorted by home: an entry whose home is past ours ends the search. (A saturated
    // distance says nothing about the home, so such an entry is simply compared.)
    if (distance < kDistanceSaturated && i - distance > home) return SIZE_MAX;
    if (TagBits(slot) == tag) {
      const Entry* entry = EntryOf(slot);
      if (entry->key() == key) return i;
    }
  }
  return SIZE_MAX;
}

Entry* KeyTable::Find(std::string_view key, uint64_t hash) const {
  const size_t index = Locate(key, hash);
  return index == SIZE_MAX ? nullptr : EntryOf(slots_[index]);
}

bool KeyTable::Insert(Entry* entry, uint64_t hash, HashFunction rehash, const void* context) {
  KEEL_ASSERT(slots_ != nullptr);
  const size_t home = HomeSlot(hash, homes_);
  const size_t end = slot_count();
  if (slots_[home] == 0) {
    // No run crosses an empty slot, so every entry after it belongs after it: the new entry can
    // take its home directly (most inserts while a resize moves keys in hash order).
    slots_[home] = MakeSlot(entry, 0, TagOf(hash));
    size_++;
    return true;
  }
  // The new entry goes after every entry whose home is at or before its own.
  size_t position = home;
  while (position < end && slots_[position] != 0 && HomeOf(position, rehash, context) <= home) {
    position++;
  }
  size_t empty = position;
  while (empty < end && slots_[empty] != 0) empty++;
  if (empty == end) return false;
  // Shift [position, empty) right by one; each moved entry is one slot further from home.
  for (size_t i = empty; i > position; i--) {
    const uint64_t moved = slots_[i - 1];
    const uint64_t distance = DistanceOf(moved);
    slots_[i] = (moved & ~(uint64_t{0xff} << kAddressBits)) |
                ((distance < kDistanceSaturated ? distance + 1 : distance) << kAddressBits);
  }
  slots_[position] = MakeSlot(entry, position - home, TagOf(hash));
  size_++;
  return true;
}

void KeyTable::Replace(std::string_view key, uint64_t hash, Entry* replacement) {
  const size_t index = Locate(key, hash);
  KEEL_ASSERT(index != SIZE_MAX);
  const uint64_t slot = slots_[index];
  slots_[index] = (slot & ~kAddressMask) | reinterpret_cast<uint64_t>(replacement);
}

Entry* KeyTable::Remove(std::string_view key, uint64_t hash, HashFunction rehash,
                        const void* context) {
  const size_t index = Locate(key, hash);
  if (index == SIZE_MAX) return nullptr;
  Entry* removed = EntryOf(slots_[index]);
  // Backward shift: each following entry away from its home moves one slot closer to it.
  const size_t end = slot_count();
  size_t hole = index;
  while (hole + 1 < end && slots_[hole + 1] != 0 && DistanceOf(slots_[hole + 1]) != 0) {
    const uint64_t moved = slots_[hole + 1];
    uint64_t distance = DistanceOf(moved);
    if (distance == kDistanceSaturated) {
      // The true distance may exceed 255: recompute it from the key.
      distance = hole + 1 - HomeSlot(rehash(context, EntryOf(moved)->key()), homes_);
    }
    distance--;
    if (distance > kDistanceSaturated) distance = kDistanceSaturated;
    slots_[hole] = (moved & ~(uint64_t{0xff} << kAddressBits)) | (distance << kAddressBits);
    hole++;
  }
  slots_[hole] = 0;
  size_--;
  return removed;
}

void KeyTable::ClearSlots(size_t begin, size_t end) {
  KEEL_DASSERT(end == NextBoundary(end));
  for (size_t i = begin; i < end && i < slot_count(); i++) {
    if (slots_[i] != 0) {
      slots_[i] = 0;
      size_--;
    }
  }
}

size_t KeyTable::NextBoundary(size_t slot) const {
  const size_t end = slot_count();
  while (slot < end && slots_[slot] != 0 && DistanceOf(slots_[slot]) != 0) slot++;
  return slot;
}

size_t KeyTable::NextOccupied(size_t slot) const {
  const size_t end = slot_count();
  if (size_ == 0) return end;
  for (size_t scanned = 0; scanned < end; scanned++, slot++) {
    if (slot >= end) slot = 0;
    if (slots_[slot] != 0) return slot;
  }
  return end;
}

size_t KeyTable::LongestRun() const {
  size_t longest = 0;
  size_t run = 0;
  for (size_t i = 0; i < slot_count(); i++) {
    run = slots_[i] == 0 ? 0 : run + 1;
    if (run > longest) longest = run;
  }
  return longest;
}

bool KeyTable::CheckInvariants(HashFunction rehash, const void* context) const {
  if (slots_ == nullptr) return size_ == 0;
  size_t count = 0;
  size_t previous_home = 0;
  bool previous_occupied = false;
  for (size_t i = 0; i < slot_count(); i++) {
    const uint64_t slot = slots_[i];
    if (slot == 0) {
      previous_occupied = false;
      continue;
    }
    count++;
    const Entry* entry = EntryOf(slot);
    const uint64_t hash = rehash(context, entry->key());
    const size_t home = HomeSlot(hash, homes_);
    if (home > i) return false;  // before its home
    const uint64_t distance = i - home;
    const uint64_t stored = DistanceOf(slot);
    if (distance < kDistanceSaturated ? stored != distance : stored != kDistanceSaturated) {
      return false;
    }
    if (TagBits(slot) != TagOf(hash)) return false;
    if (previous_occupied && home < previous_home) return false;  // run not sorted by home
    previous_home = home;
    previous_occupied = true;
  }
  return count == size_;
}

}  // namespace keel
