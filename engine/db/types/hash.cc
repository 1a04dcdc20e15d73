#include "engine/db/types/hash.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "engine/base/assert.h"
#include "engine/base/hash.h"

namespace keel {
namespace {

using hash_internal::kOffsetMask;

// A table slot, as set.cc lays it out: the record's arena offset + 1 (40 bits, 0 = empty), its
// distance from home (8 bits, saturated at 255: the home is then recomputed from the field),
// and 16 bits of the field's hash (a tag, so that a probe rarely compares another field).
constexpr uint64_t kDistanceSaturated = 255;

uint64_t OffsetOf(uint64_t slot) { return (slot & kOffsetMask) - 1; }
uint64_t DistanceOf(uint64_t slot) { return (slot >> 40) & 0xff; }
uint64_t TagOf(uint64_t hash) { return hash & 0xffff; }
uint64_t MakeSlot(uint64_t offset, uint64_t distance, uint64_t tag) {
  return (offset + 1) | (std::min(distance, kDistanceSaturated) << 40) | (tag << 48);
}
uint64_t WithOffset(uint64_t slot, uint64_t offset) { return (slot & ~kOffsetMask) | (offset + 1); }

size_t VarintBytes(size_t value) {
  size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    bytes++;
  }
  return bytes;
}

size_t WriteVarint(unsigned char* out, size_t value) {
  size_t i = 0;
  while (value >= 0x80) {
    out[i++] = static_cast<unsigned char>(value | 0x80);
    value >>= 7;
  }
  out[i++] = static_cast<unsigned char>(value);
  return i;
}

size_t ReadVarint(const unsigned char* in, size_t* value) {
  size_t result = 0;
  size_t shift = 0;
  size_t i = 0;
  while (true) {
    result |= static_cast<size_t>(in[i] & 0x7f) << shift;
    if (in[i++] < 0x80) break;
    shift += 7;
  }
  *value = result;
  return i;
}

// Load factor bounds of the table: grow past 4/5 full, shrink under 1/16 full.
bool Overloaded(size_t fields, size_t home_slots) { return fields * 5 > home_slots * 4; }

// Dead bytes that make a hashtable's arena worth compacting: more than half of it, and more
// than a page (so that small hashes do not rebuild on every few updates).
bool TooMuchDead(size_t dead, size_t used) { return dead > 4096 && dead > used / 2; }

}  // namespace

// A small hash is this header and its arena: the header fits a 64-byte malloc chunk (glibc adds
// 8 bytes), which keeps 100,000 hashes of 10 fields within Redis's memory (bench mem-hash-*).
static_assert(sizeof(HashValue) <= 56);

// ---------------------------------------------------------------------------------------------
// Records.

HashValue::Pair HashValue::PairIn(const char* arena, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(arena + offset);
  size_t field_bytes = 0;
  size_t at = ReadVarint(p, &field_bytes);
  const char* field = arena + offset + at;
  at += field_bytes;
  size_t value_bytes = 0;
  at += ReadVarint(p + at, &value_bytes);
  const char* value = arena + offset + at;
  at += value_bytes;
  return {std::string_view(field, field_bytes), std::string_view(value, value_bytes), offset + at};
}

size_t HashValue::RecordBytes(std::string_view field, std::string_view value) {
  return VarintBytes(field.size()) + field.size() + VarintBytes(value.size()) + value.size();
}

size_t HashValue::WriteRecord(char* out, std::string_view field, std::string_view value) {
  auto* p = reinterpret_cast<unsigned char*>(out);
  size_t at = WriteVarint(p, field.size());
  if (!field.empty()) std::memcpy(p + at, field.data(), field.size());
  at += field.size();
  at += WriteVarint(p + at, value.size());
  if (!value.empty()) std::memcpy(p + at, value.data(), value.size());
  return at + value.size();
}

bool HashValue::ReserveArena(size_t bytes, MemoryAccountant& memory) {
  if (arena_used_ + bytes <= arena_capacity_) return true;
  // A listpack grows to the byte (its arena is nearly all its memory, and it is small); a
  // table's arena by a quarter, so that a hash built by HSETs costs amortised O(1) per field.
  size_t capacity = arena_used_ + bytes;
  if (slots_ != nullptr) capacity += capacity / 4;
  char* grown = static_cast<char*>(memory.Allocate(capacity, MemoryUse::kKeyspace));
  if (grown == nullptr) return false;
  if (arena_used_ > 0) std::memcpy(grown, arena_, arena_used_);
  if (arena_ != nullptr) memory.Deallocate(arena_, arena_capacity_, MemoryUse::kKeyspace);
  arena_ = grown;
  arena_capacity_ = capacity;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Creation and destruction.

HashValue* HashValue::Create(MemoryAccountant& memory, uint64_t hash_seed) {
  void* block = memory.Allocate(sizeof(HashValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* hash = new (block) HashValue();
  hash->hash_seed_ = hash_seed;
  return hash;
}

HashValue* HashValue::CreateHashtable(MemoryAccountant& memory, uint64_t hash_seed,
                                      size_t fields_hint) {
  HashValue* hash = Create(memory, hash_seed);
  if (hash == nullptr) return nullptr;
  if (!hash->Rebuild(BitsFor(fields_hint), memory)) {
    Destroy(hash, memory);
    return nullptr;
  }
  return hash;
}

void HashValue::Destroy(HashValue* hash, MemoryAccountant& memory) {
  if (hash == nullptr) return;
  hash->DropTtls(memory);
  if (hash->arena_ != nullptr) {
    memory.Deallocate(hash->arena_, hash->arena_capacity_, MemoryUse::kKeyspace);
  }
  if (hash->slots_ != nullptr) {
    memory.Deallocate(hash->slots_, hash->slot_count() * sizeof(uint64_t), MemoryUse::kKeyspace);
  }
  hash->~HashValue();
  memory.Deallocate(hash, sizeof(HashValue), MemoryUse::kKeyspace);
}

HashValue* HashValue::Clone(const HashValue& hash, MemoryAccountant& memory) {
  HashValue* copy = Create(memory, hash.hash_seed());
  if (copy == nullptr) return nullptr;
  bool ok = true;
  if (hash.has_ttls_) {
    void* block = memory.Allocate(sizeof(FieldTtls), MemoryUse::kKeyspace);
    HashValue* times = block == nullptr ? nullptr : Clone(*hash.ttls_->times, memory);
    if (times == nullptr) {
      if (block != nullptr) memory.Deallocate(block, sizeof(FieldTtls), MemoryUse::kKeyspace);
      Destroy(copy, memory);
      return nullptr;
    }
    copy->ttls_ = new (block) FieldTtls{hash.hash_seed(), times, hash.ttls_->min_expire};
    copy->has_ttls_ = true;
  }
  // The copy's arena keeps the offsets (dead records included), so the slots copy as they are.
  if (hash.arena_used_ > 0) {
    copy->arena_ = static_cast<char*>(memory.Allocate(hash.arena_used_, MemoryUse::kKeyspace));
    ok = copy->arena_ != nullptr;
    if (ok) {
      std::memcpy(copy->arena_, hash.arena_, hash.arena_used_);
      copy->arena_capacity_ = copy->arena_used_ = hash.arena_used_;
      copy->arena_dead_ = hash.arena_dead_;
    }
  }
  if (ok && hash.slots_ != nullptr) {
    const size_t bytes = hash.slot_count() * sizeof(uint64_t);
    copy->slots_ = static_cast<uint64_t*>(memory.Allocate(bytes, MemoryUse::kKeyspace));
    ok = copy->slots_ != nullptr;
    if (ok) {
      std::memcpy(copy->slots_, hash.slots_, bytes);
      copy->home_shift_ = hash.home_shift_;
    }
  }
  if (!ok) {
    Destroy(copy, memory);
    return nullptr;
  }
  copy->fields_ = hash.fields_;
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Queries.

size_t HashValue::ListpackFind(std::string_view field) const {
  for (size_t offset = 0; offset < arena_used_;) {
    const Pair pair = PairAt(offset);
    if (pair.field == field) return offset;
    offset = pair.end;
  }
  return SIZE_MAX;
}

bool HashValue::Get(std::string_view field, std::string_view* value) const {
  size_t offset = SIZE_MAX;
  if (slots_ == nullptr) {
    offset = ListpackFind(field);
  } else {
    const size_t index = Locate(field, HashOf(field));
    if (index != SIZE_MAX) offset = OffsetOf(slots_[index]);
  }
  if (offset == SIZE_MAX) return false;
  *value = PairAt(offset).value;
  return true;
}

void HashValue::RandomPair(Rng& rng, std::string_view* field, std::string_view* value) const {
  KEEL_ASSERT(fields_ > 0);
  if (slots_ == nullptr) {
    size_t index = rng.Below(fields_);
    for (size_t offset = 0;; index--) {
      const Pair pair = PairAt(offset);
      if (index == 0) {
        *field = pair.field;
        *value = pair.value;
        return;
      }
      offset = pair.end;
    }
  }
  // Uniform over the fields: uniform slots, retried until one is occupied (the table is kept
  // at least 1/16 full, so this takes 16 draws at worst on average).
  while (true) {
    const uint64_t slot = slots_[rng.Below(slot_count())];
    if (slot == 0) continue;
    const Pair pair = PairAt(OffsetOf(slot));
    *field = pair.field;
    *value = pair.value;
    return;
  }
}

size_t HashValue::longest_bytes() const {
  size_t longest = 0;
  ForEach([&](std::string_view field, std::string_view value) {
    longest = std::max({longest, field.size(), value.size()});
  });
  return longest;
}

size_t HashValue::allocated_bytes() const {
  size_t bytes = sizeof(HashValue) + arena_capacity_;
  if (slots_ != nullptr) bytes += slot_count() * sizeof(uint64_t);
  if (has_ttls_) bytes += sizeof(FieldTtls) + ttls_->times->allocated_bytes();
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Changes.

HashValue::SetOutcome HashValue::Set(std::string_view field, std::string_view value,
                                     MemoryAccountant& memory) {
  return slots_ == nullptr ? ListpackSet(field, value, memory) : TableSet(field, value, memory);
}

HashValue::SetOutcome HashValue::ListpackSet(std::string_view field, std::string_view value,
                                             MemoryAccountant& memory) {
  const size_t offset = ListpackFind(field);
  if (offset == SIZE_MAX) {
    const size_t bytes = RecordBytes(field, value);
    if (!ReserveArena(bytes, memory)) return SetOutcome::kOutOfMemory;
    arena_used_ += WriteRecord(arena_ + arena_used_, field, value);
    fields_++;
    return SetOutcome::kInserted;
  }
  const Pair old = PairAt(offset);
  if (old.value.size() == value.size()) {
    if (!value.empty())
      std::memcpy(arena_ + (old.value.data() - arena_), value.data(), value.size());
    return SetOutcome::kUpdated;
  }
  // A value of another size: the record is rewritten in its place (insertion order is kept, as
  // lpReplace keeps it), into a new arena of the new size so that a refusal changes nothing.
  const size_t old_bytes = old.end - offset;
  const size_t new_bytes = RecordBytes(field, value);
  const size_t used = arena_used_ - old_bytes + new_bytes;
  char* arena = static_cast<char*>(memory.Allocate(used, MemoryUse::kKeyspace));
  if (arena == nullptr) return SetOutcome::kOutOfMemory;
  std::memcpy(arena, arena_, offset);
  WriteRecord(arena + offset, field, value);
  std::memcpy(arena + offset + new_bytes, arena_ + old.end, arena_used_ - old.end);
  memory.Deallocate(arena_, arena_capacity_, MemoryUse::kKeyspace);
  arena_ = arena;
  arena_used_ = arena_capacity_ = used;
  return SetOutcome::kUpdated;
}

HashValue::SetOutcome HashValue::TableSet(std::string_view field, std::string_view value,
                                          MemoryAccountant& memory) {
  const uint64_t hash = HashOf(field);
  size_t index = Locate(field, hash);
  const size_t record_bytes = RecordBytes(field, value);
  if (index != SIZE_MAX) {
    size_t offset = OffsetOf(slots_[index]);
    const Pair old = PairAt(offset);
    if (old.value.size() == value.size()) {
      if (!value.empty())
        std::memcpy(arena_ + (old.value.data() - arena_), value.data(), value.size());
      return SetOutcome::kUpdated;
    }
    // The new record goes at the end of the arena and the slot follows it; the old one is dead.
    // An arena that must grow anyway is compacted first when it is mostly dead. Once only: the
    // old record itself may be most of the compacted arena (one large field updated), and
    // compacting again would never end (it once recursed until the stack overflowed).
    if (arena_used_ + record_bytes > arena_capacity_ &&
        TooMuchDead(arena_dead_ + (old.end - offset), arena_used_)) {
      if (!Rebuild(64 - home_shift_, memory)) return SetOutcome::kOutOfMemory;
      index = Locate(field, hash);
      KEEL_ASSERT(index != SIZE_MAX);
      offset = OffsetOf(slots_[index]);
    }
    if (!ReserveArena(record_bytes, memory)) return SetOutcome::kOutOfMemory;
    const size_t dead = PairAt(offset).end - offset;  // the arena may have moved
    slots_[index] = WithOffset(slots_[index], arena_used_);
    arena_used_ += WriteRecord(arena_ + arena_used_, field, value);
    arena_dead_ += dead;
    return SetOutcome::kUpdated;
  }
  if (Overloaded(fields_ + 1, home_slots()) ||
      (arena_used_ + record_bytes > arena_capacity_ && TooMuchDead(arena_dead_, arena_used_))) {
    if (!Rebuild(BitsFor(fields_ + 1), memory)) return SetOutcome::kOutOfMemory;
  }
  if (!ReserveArena(record_bytes, memory)) return SetOutcome::kOutOfMemory;
  const size_t offset = arena_used_;
  if (!TableInsert(offset, hash)) {
    // A probe run reached the end of the overflow area (a degenerate run): a larger table
    // takes it, or nothing changed.
    if (!Rebuild(BitsFor(fields_ + 1) + 1, memory)) return SetOutcome::kOutOfMemory;
    if (!ReserveArena(record_bytes, memory)) return SetOutcome::kOutOfMemory;
    const bool inserted = TableInsert(arena_used_, hash);
    KEEL_ASSERT(inserted);
  }
  arena_used_ += WriteRecord(arena_ + arena_used_, field, value);
  fields_++;
  return SetOutcome::kInserted;
}

bool HashValue::Remove(std::string_view field, MemoryAccountant& memory) {
  if (has_ttls_) (void)PersistField(field, memory);
  if (slots_ == nullptr) {
    const size_t offset = ListpackFind(field);
    if (offset == SIZE_MAX) return false;
    const size_t end = PairAt(offset).end;
    std::memmove(arena_ + offset, arena_ + end, arena_used_ - end);
    arena_used_ -= end - offset;
    fields_--;
    return true;
  }
  const size_t index = Locate(field, HashOf(field));
  if (index == SIZE_MAX) return false;
  const size_t offset = OffsetOf(slots_[index]);
  arena_dead_ += PairAt(offset).end - offset;
  TableRemoveAt(index);
  fields_--;
  // Keep the table at least 1/16 full (random draws probe slots) and the arena at least half
  // live; either rebuild may be refused, which only costs space.
  if (home_slots() > 64 && fields_ * 16 < home_slots()) {
    (void)Rebuild(BitsFor(fields_), memory);
  } else if (TooMuchDead(arena_dead_, arena_used_)) {
    (void)Rebuild(64 - home_shift_, memory);
  }
  return true;
}

bool HashValue::Reserve(size_t more_fields, size_t more_bytes, MemoryAccountant& memory) {
  KEEL_ASSERT(!is_listpack());
  if (Overloaded(fields_ + more_fields, home_slots()) &&
      !Rebuild(BitsFor(fields_ + more_fields), memory)) {
    return false;
  }
  return ReserveArena(more_bytes, memory);
}

bool HashValue::ConvertToHashtable(size_t fields_hint, MemoryAccountant& memory) {
  KEEL_ASSERT(is_listpack());
  return Rebuild(BitsFor(std::max<size_t>(fields_hint, fields_)), memory);
}

// ---------------------------------------------------------------------------------------------
// The hashtable's index.

uint64_t HashValue::HashOf(std::string_view field) const {
  return HashBytes(field.data(), field.size(), hash_seed());
}

int HashValue::BitsFor(size_t fields) {
  // The smallest power of two that keeps `fields` at most 4/5 full, at least 16 slots.
  int bits = 4;
  while (Overloaded(fields, size_t{1} << bits)) bits++;
  return bits;
}

size_t HashValue::SlotHome(size_t index) const {
  const uint64_t distance = DistanceOf(slots_[index]);
  if (distance < kDistanceSaturated) return index - distance;
  return HomeOf(HashOf(PairAt(OffsetOf(slots_[index])).field));
}

size_t HashValue::Locate(std::string_view field, uint64_t hash) const {
  const size_t home = HomeOf(hash);
  const uint64_t tag = TagOf(hash);
  for (size_t i = home; i < slot_count(); i++) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return SIZE_MAX;
    const size_t slot_home = SlotHome(i);
    // Runs are sorted by home: past our home, the field is not here.
    if (slot_home > home) return SIZE_MAX;
    if (slot_home == home && (slot >> 48) == tag && PairAt(OffsetOf(slot)).field == field) {
      return i;
    }
  }
  return SIZE_MAX;
}

bool HashValue::TableInsert(size_t offset, uint64_t hash) {
  size_t carry_home = HomeOf(hash);
  // The insertion shifts fields up to the first empty slot at or after the home; with none
  // before the end of the overflow area, refuse before changing anything.
  size_t empty = carry_home;
  while (empty < slot_count() && slots_[empty] != 0) empty++;
  if (empty == slot_count()) return false;
  uint64_t carry_offset = offset;
  uint64_t carry_tag = TagOf(hash);
  for (size_t i = carry_home; i < empty; i++) {
    const size_t slot_home = SlotHome(i);
    // Robin Hood: a field from a later home yields its place, which keeps runs sorted by home.
    if (slot_home > carry_home) {
      const uint64_t displaced = slots_[i];
      slots_[i] = MakeSlot(carry_offset, i - carry_home, carry_tag);
      carry_home = slot_home;
      carry_offset = OffsetOf(displaced);
      carry_tag = displaced >> 48;
    }
  }
  slots_[empty] = MakeSlot(carry_offset, empty - carry_home, carry_tag);
  return true;
}

void HashValue::TableRemoveAt(size_t index) {
  size_t i = index;
  // Backward shift: the rest of the run moves one slot nearer home.
  while (i + 1 < slot_count() && slots_[i + 1] != 0 && SlotHome(i + 1) != i + 1) {
    const uint64_t next = slots_[i + 1];
    const size_t home = SlotHome(i + 1);
    slots_[i] = MakeSlot(OffsetOf(next), i - home, next >> 48);
    i++;
  }
  slots_[i] = 0;
}

size_t HashValue::NextBoundary(size_t slot) const {
  for (size_t i = slot; i < slot_count(); i++) {
    if (slots_[i] == 0 || DistanceOf(slots_[i]) == 0) return i;
  }
  return slot_count();
}

bool HashValue::Rebuild(int bits, MemoryAccountant& memory) {
  const size_t homes = size_t{1} << bits;
  // Room past the last home for the runs that start near it (see set.cc).
  const size_t overflow = OverflowFor(homes);
  const size_t slots = homes + overflow;
  auto* table =
      static_cast<uint64_t*>(memory.AllocateZeroed(slots * sizeof(uint64_t), MemoryUse::kKeyspace));
  if (table == nullptr) return false;
  const size_t live = arena_used_ - arena_dead_;
  const size_t capacity = live + live / 4;
  char* arena = nullptr;
  if (live > 0) {
    arena = static_cast<char*>(memory.Allocate(capacity, MemoryUse::kKeyspace));
    if (arena == nullptr) {
      memory.Deallocate(table, slots * sizeof(uint64_t), MemoryUse::kKeyspace);
      return false;
    }
  }
  // Nothing can fail from here on: the live records are copied in their current order.
  uint64_t* old_slots = slots_;
  const size_t old_slot_count = slot_count();
  char* old_arena = arena_;
  const size_t old_arena_used = arena_used_;
  const size_t old_arena_capacity = arena_capacity_;
  slots_ = table;
  home_shift_ = static_cast<uint8_t>(64 - bits);
  arena_ = arena;
  arena_capacity_ = live > 0 ? capacity : 0;
  arena_used_ = 0;
  arena_dead_ = 0;
  auto place = [&](size_t old_offset) {
    const Pair pair = PairIn(old_arena, old_offset);
    const size_t offset = arena_used_;
    std::memcpy(arena_ + offset, old_arena + old_offset, pair.end - old_offset);
    arena_used_ += pair.end - old_offset;
    const bool inserted = TableInsert(offset, HashOf(pair.field));
    KEEL_ASSERT(inserted);
  };
  if (old_slots == nullptr) {
    for (size_t offset = 0; offset < old_arena_used;) {
      const size_t end = PairIn(old_arena, offset).end;
      place(offset);
      offset = end;
    }
  } else {
    for (size_t i = 0; i < old_slot_count; i++) {
      if (old_slots[i] != 0) place(OffsetOf(old_slots[i]));
    }
    memory.Deallocate(old_slots, old_slot_count * sizeof(uint64_t), MemoryUse::kKeyspace);
  }
  KEEL_ASSERT(arena_used_ == live);
  if (old_arena != nullptr) memory.Deallocate(old_arena, old_arena_capacity, MemoryUse::kKeyspace);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Field expiry.

int64_t HashValue::DecodeTime(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8 && i < bytes.size(); i++) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return static_cast<int64_t>(value);
}

size_t HashValue::field_ttl_count() const { return has_ttls_ ? ttls_->times->size() : 0; }

int64_t HashValue::FieldExpireAt(std::string_view field) const {
  if (!has_ttls_) return kNoFieldTtl;
  std::string_view when;
  if (!ttls_->times->Get(field, &when)) return kNoFieldTtl;
  return DecodeTime(when);
}

bool HashValue::SetFieldExpireAt(std::string_view field, int64_t expire_at_ms,
                                 MemoryAccountant& memory) {
  KEEL_DASSERT(Contains(field) && expire_at_ms >= 0);
  char bytes[8];
  for (int i = 0; i < 8; i++)
    bytes[i] = static_cast<char>(static_cast<uint64_t>(expire_at_ms) >> (8 * i));
  bool created = false;
  if (!has_ttls_) {
    void* block = memory.Allocate(sizeof(FieldTtls), MemoryUse::kKeyspace);
    if (block == nullptr) return false;
    HashValue* times = Create(memory, hash_seed_);
    if (times == nullptr) {
      memory.Deallocate(block, sizeof(FieldTtls), MemoryUse::kKeyspace);
      return false;
    }
    ttls_ = new (block) FieldTtls{hash_seed_, times, INT64_MAX};
    has_ttls_ = true;
    created = true;
  }
  if (ttls_->times->Set(field, std::string_view(bytes, 8), memory) == SetOutcome::kOutOfMemory) {
    if (created) DropTtls(memory);
    return false;
  }
  ttls_->min_expire = std::min(ttls_->min_expire, expire_at_ms);
  return true;
}

bool HashValue::PersistField(std::string_view field, MemoryAccountant& memory) {
  if (!has_ttls_ || !ttls_->times->Remove(field, memory)) return false;
  if (ttls_->times->size() == 0) DropTtls(memory);
  return true;
}

void HashValue::RecomputeMinExpire() {
  int64_t earliest = INT64_MAX;
  ForEachFieldTtl([&](std::string_view, int64_t when) { earliest = std::min(earliest, when); });
  ttls_->min_expire = earliest;
}

void HashValue::DropTtls(MemoryAccountant& memory) {
  if (!has_ttls_) return;
  FieldTtls* ttls = ttls_;
  Destroy(ttls->times, memory);
  has_ttls_ = false;
  hash_seed_ = ttls->hash_seed;
  ttls->~FieldTtls();
  memory.Deallocate(ttls, sizeof(FieldTtls), MemoryUse::kKeyspace);
}

// ---------------------------------------------------------------------------------------------
// Invariants.

bool HashValue::CheckInvariants() const {
  if (arena_used_ > arena_capacity_) return false;
  if (has_ttls_) {
    const HashValue& times = *ttls_->times;
    if (times.size() == 0 || times.has_ttls_ || !times.CheckInvariants()) return false;
    bool known = true;
    int64_t earliest = INT64_MAX;
    ForEachFieldTtl([&](std::string_view field, int64_t when) {
      known = known && Contains(field) && when >= 0;
      earliest = std::min(earliest, when);
    });
    if (!known || ttls_->min_expire > earliest) return false;
  }
  size_t counted = 0;
  if (slots_ == nullptr) {
    if (arena_dead_ != 0) return false;
    bool distinct = true;
    for (size_t offset = 0; offset < arena_used_;) {
      const Pair pair = PairAt(offset);
      if (pair.end > arena_used_) return false;
      // Quadratic, but a listpack is small and this runs in tests only.
      for (size_t other = pair.end; other < arena_used_ && distinct;) {
        const Pair later = PairAt(other);
        distinct = later.field != pair.field;
        other = later.end;
      }
      offset = pair.end;
      counted++;
    }
    return distinct && counted == fields_;
  }
  size_t previous_home = 0;
  size_t live_bytes = 0;
  for (size_t i = 0; i < slot_count(); i++) {
    if (slots_[i] == 0) continue;
    const size_t offset = OffsetOf(slots_[i]);
    if (offset >= arena_used_) return false;
    const Pair pair = PairAt(offset);
    if (pair.end > arena_used_) return false;
    live_bytes += pair.end - offset;
    const uint64_t hash = HashOf(pair.field);
    const size_t home = HomeOf(hash);
    if (home > i || (slots_[i] >> 48) != TagOf(hash)) return false;
    if (DistanceOf(slots_[i]) != std::min<uint64_t>(i - home, kDistanceSaturated)) return false;
    if (i > 0 && slots_[i - 1] != 0 && home < previous_home) return false;
    previous_home = home;
    counted++;
  }
  return counted == fields_ && live_bytes + arena_dead_ == arena_used_;
}

}  // namespace keel
