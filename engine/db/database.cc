#include "engine/db/database.h"

#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/hash.h"

namespace keel {
namespace {

constexpr size_t kInitialCapacity = 16;

}  // namespace

Database::Database(MemoryAccountant& memory, uint64_t hash_seed)
    : memory_(memory), hash_seed_(hash_seed) {}

Database::~Database() {
  Clear();
  if (slots_ != nullptr) {
    memory_.Deallocate(slots_, capacity_ * sizeof(uint64_t), MemoryUse::kKeyspace);
  }
}

uint64_t Database::MakeSlot(Entry* entry, uint64_t hash) {
  const auto address = reinterpret_cast<uint64_t>(entry);
  KEEL_ASSERT((address & ~kAddressMask) == 0);  // x86-64 and arm64 user addresses fit 48 bits
  return address | (TagOf(hash) << kTagShift);
}

uint64_t Database::Hash(std::string_view key) const {
  return HashBytes(key.data(), key.size(), hash_seed_);
}

size_t Database::Probe(std::string_view key, uint64_t hash, bool* found) const {
  KEEL_DASSERT(capacity_ > 0);
  const size_t mask = capacity_ - 1;
  const uint64_t tag = TagOf(hash);
  size_t index = hash & mask;
  while (true) {
    const uint64_t slot = slots_[index];
    if (slot == 0) {
      *found = false;
      return index;
    }
    if ((slot >> kTagShift) == tag) {
      const Entry* entry = EntryOf(slot);
      if (entry->key_size == key.size() &&
          std::memcmp(entry->key_data(), key.data(), key.size()) == 0) {
        *found = true;
        return index;
      }
    }
    index = (index + 1) & mask;
  }
}

Entry* Database::Find(std::string_view key, uint64_t hash) {
  if (size_ == 0) return nullptr;
  bool found = false;
  const size_t index = Probe(key, hash, &found);
  return found ? EntryOf(slots_[index]) : nullptr;
}

bool Database::Grow() {
  const size_t new_capacity = capacity_ == 0 ? kInitialCapacity : capacity_ * 2;
  auto* new_slots = static_cast<uint64_t*>(
      memory_.Allocate(new_capacity * sizeof(uint64_t), MemoryUse::kKeyspace));
  if (new_slots == nullptr) return false;
  std::memset(new_slots, 0, new_capacity * sizeof(uint64_t));
  const size_t mask = new_capacity - 1;
  for (size_t i = 0; i < capacity_; i++) {
    const uint64_t slot = slots_[i];
    if (slot == 0) continue;
    size_t index = Hash(EntryOf(slot)->key()) & mask;
    while (new_slots[index] != 0) index = (index + 1) & mask;
    new_slots[index] = slot;
  }
  if (slots_ != nullptr) {
    memory_.Deallocate(slots_, capacity_ * sizeof(uint64_t), MemoryUse::kKeyspace);
  }
  slots_ = new_slots;
  capacity_ = new_capacity;
  return true;
}

Entry* Database::NewEntry(std::string_view key, std::string_view value, int64_t expire_at_ms,
                          ObjectEncoding encoding) {
  KEEL_ASSERT(key.size() <= UINT32_MAX);
  KEEL_ASSERT(value.size() <= UINT32_MAX);
  const size_t bytes = Entry::AllocationBytes(key.size(), value.size());
  auto* entry = static_cast<Entry*>(memory_.Allocate(bytes, MemoryUse::kKeyspace));
  if (entry == nullptr) return nullptr;
  entry->expire_at_ms = expire_at_ms;
  entry->key_size = static_cast<uint32_t>(key.size());
  entry->value_size = static_cast<uint32_t>(value.size());
  entry->type = ValueType::kString;
  entry->encoding = encoding;
  std::memset(entry->reserved, 0, sizeof(entry->reserved));
  if (!key.empty()) std::memcpy(entry->key_data(), key.data(), key.size());
  if (!value.empty()) std::memcpy(entry->value_data(), value.data(), value.size());
  return entry;
}

void Database::FreeEntry(Entry* entry) {
  memory_.Deallocate(entry, entry->allocation_bytes(), MemoryUse::kKeyspace);
}

Database::SetOutcome Database::SetString(std::string_view key, uint64_t hash,
                                         std::string_view value, int64_t expire_at_ms,
                                         ObjectEncoding encoding) {
  KEEL_DASSERT(hash == Hash(key));
  if (size_ > 0) {
    bool found = false;
    const size_t index = Probe(key, hash, &found);
    if (found) {
      Entry* old = EntryOf(slots_[index]);
      if (old->type == ValueType::kString && old->value_size == value.size()) {
        // Same size: overwrite in place, the common case for counters and fixed-size values.
        if (!value.empty()) std::memcpy(old->value_data(), value.data(), value.size());
        old->encoding = encoding;
        SetExpiry(old, expire_at_ms);
        return SetOutcome::kReplaced;
      }
      Entry* entry = NewEntry(key, value, expire_at_ms, encoding);
      if (entry == nullptr) return SetOutcome::kOutOfMemory;
      if (old->has_expiry()) expires_count_--;
      if (entry->has_expiry()) expires_count_++;
      FreeEntry(old);
      slots_[index] = MakeSlot(entry, hash);
      return SetOutcome::kReplaced;
    }
  }
  // Grow before the load passes 3/4. If growing is refused the table still has room up to 7/8,
  // and beyond that the insert is refused rather than letting probe chains degrade.
  if ((size_ + 1) * 4 > capacity_ * 3 && !Grow() && (size_ + 1) * 8 > capacity_ * 7) {
    return SetOutcome::kOutOfMemory;
  }
  bool found = false;
  const size_t index = Probe(key, hash, &found);
  KEEL_DASSERT(!found);
  Entry* entry = NewEntry(key, value, expire_at_ms, encoding);
  if (entry == nullptr) return SetOutcome::kOutOfMemory;
  if (entry->has_expiry()) expires_count_++;
  slots_[index] = MakeSlot(entry, hash);
  size_++;
  return SetOutcome::kInserted;
}

void Database::SetExpiry(Entry* entry, int64_t expire_at_ms) {
  if (entry->has_expiry()) expires_count_--;
  entry->expire_at_ms = expire_at_ms;
  if (entry->has_expiry()) expires_count_++;
}

bool Database::Erase(std::string_view key) {
  if (size_ == 0) return false;
  bool found = false;
  const size_t index = Probe(key, Hash(key), &found);
  if (!found) return false;
  EraseSlot(index);
  return true;
}

void Database::EraseSlot(size_t index) {
  Entry* entry = EntryOf(slots_[index]);
  if (entry->has_expiry()) expires_count_--;
  FreeEntry(entry);
  size_--;
  // Backward-shift deletion: move each following entry of the probe run into the hole when its
  // home slot is at or before the hole, so every key stays reachable from its home.
  const size_t mask = capacity_ - 1;
  size_t hole = index;
  size_t next = (hole + 1) & mask;
  while (slots_[next] != 0) {
    const size_t home = Hash(EntryOf(slots_[next])->key()) & mask;
    const size_t distance_home = (next - home) & mask;
    const size_t distance_hole = (next - hole) & mask;
    if (distance_home >= distance_hole) {
      slots_[hole] = slots_[next];
      hole = next;
    }
    next = (next + 1) & mask;
  }
  slots_[hole] = 0;
}

void Database::Clear() {
  for (size_t i = 0; i < capacity_; i++) {
    if (slots_[i] != 0) {
      FreeEntry(EntryOf(slots_[i]));
      slots_[i] = 0;
    }
  }
  size_ = 0;
  expires_count_ = 0;
  if (slots_ != nullptr) {
    memory_.Deallocate(slots_, capacity_ * sizeof(uint64_t), MemoryUse::kKeyspace);
    slots_ = nullptr;
    capacity_ = 0;
  }
}

}  // namespace keel
