#include "engine/db/types/hash.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "engine/base/assert.h"
#include "engine/base/hash.h"
#include "engine/db/types/record_arena.h"

namespace keel {
namespace {

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
  // A table's arena that must move anyway is compacted when it is mostly dead (the copy costs
  // the same).
  if (!is_listpack() && TooMuchDead(arena_dead_, arena_used_) && CompactArena(memory) &&
      arena_used_ + bytes <= arena_capacity_) {
    return true;
  }
  // A listpack grows to the byte (its arena is nearly all its memory, and it is small); a
  // table's arena by a quarter, so that a hash built by HSETs costs amortised O(1) per field.
  size_t capacity = arena_used_ + bytes;
  if (!is_listpack()) capacity += capacity / 4;
  return ResizeArena(&arena_, &arena_capacity_, arena_used_, capacity, memory);
}

bool HashValue::CompactArena(MemoryAccountant& memory) {
  const size_t live = arena_used_ - arena_dead_;
  const size_t capacity = live + live / 4;
  char* arena = nullptr;
  if (live > 0) {
    arena = static_cast<char*>(memory.Allocate(capacity, MemoryUse::kKeyspace));
    if (arena == nullptr) return false;
  }
  // Nothing can fail from here on: the live records are copied in the index's order.
  size_t used = 0;
  index_.MoveRecords([&](uint64_t old_offset) {
    const size_t bytes = PairAt(old_offset).end - old_offset;
    std::memcpy(arena + used, arena_ + old_offset, bytes);
    used += bytes;
    return used - bytes;
  });
  KEEL_ASSERT(used == live);
  if (arena_ != nullptr) memory.Deallocate(arena_, arena_capacity_, MemoryUse::kKeyspace);
  arena_ = arena;
  arena_capacity_ = live > 0 ? capacity : 0;
  arena_used_ = live;
  arena_dead_ = 0;
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
  if (!hash->ConvertToHashtable(fields_hint, memory)) {
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
  hash->index_.Destroy(memory);
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
  // The copy's arena keeps the offsets (dead records included), so the index copies as it is.
  if (hash.arena_used_ > 0) {
    copy->arena_ = static_cast<char*>(memory.Allocate(hash.arena_used_, MemoryUse::kKeyspace));
    ok = copy->arena_ != nullptr;
    if (ok) {
      std::memcpy(copy->arena_, hash.arena_, hash.arena_used_);
      copy->arena_capacity_ = copy->arena_used_ = hash.arena_used_;
      copy->arena_dead_ = hash.arena_dead_;
    }
  }
  if (ok) ok = copy->index_.CopyFrom(hash.index_, memory);
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
  uint64_t offset = MemberIndex::kAbsent;
  if (is_listpack()) {
    const size_t found = ListpackFind(field);
    if (found != SIZE_MAX) offset = found;
  } else {
    offset = index_.Find(records(), field, HashOf(field));
  }
  if (offset == MemberIndex::kAbsent) return false;
  *value = PairAt(offset).value;
  return true;
}

void HashValue::RandomPair(Rng& rng, std::string_view* field, std::string_view* value) const {
  KEEL_ASSERT(fields_ > 0);
  if (is_listpack()) {
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
  const Pair pair = PairAt(index_.RandomOffset(rng));
  *field = pair.field;
  *value = pair.value;
}

size_t HashValue::longest_bytes() const {
  size_t longest = 0;
  ForEach([&](std::string_view field, std::string_view value) {
    longest = std::max({longest, field.size(), value.size()});
  });
  return longest;
}

size_t HashValue::allocated_bytes() const {
  size_t bytes = sizeof(HashValue) + arena_capacity_ + index_.allocated_bytes();
  if (has_ttls_) bytes += sizeof(FieldTtls) + ttls_->times->allocated_bytes();
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Changes.

HashValue::SetOutcome HashValue::Set(std::string_view field, std::string_view value,
                                     MemoryAccountant& memory) {
  return is_listpack() ? ListpackSet(field, value, memory) : TableSet(field, value, memory);
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
  const uint64_t found = index_.Find(records(), field, hash);
  const size_t record_bytes = RecordBytes(field, value);
  if (found != MemberIndex::kAbsent) {
    const Pair old = PairAt(found);
    if (old.value.size() == value.size()) {
      if (!value.empty())
        std::memcpy(arena_ + (old.value.data() - arena_), value.data(), value.size());
      return SetOutcome::kUpdated;
    }
    // The new record goes at the end of the arena and the slot follows it; the old one is dead.
    if (!ReserveArena(record_bytes, memory)) return SetOutcome::kOutOfMemory;
    const uint64_t offset = index_.Find(records(), field, hash);  // the arena may have moved
    const size_t dead = PairAt(offset).end - offset;
    const size_t at = arena_used_;
    arena_used_ += WriteRecord(arena_ + at, field, value);
    index_.Repoint(records(), field, hash, at);
    arena_dead_ += dead;
    return SetOutcome::kUpdated;
  }
  if (!index_.Reserve(records(), 1, memory)) return SetOutcome::kOutOfMemory;
  if (!ReserveArena(record_bytes, memory)) return SetOutcome::kOutOfMemory;
  const size_t offset = arena_used_;
  if (offset > MemberIndex::kOffsetMax) return SetOutcome::kOutOfMemory;
  arena_used_ += WriteRecord(arena_ + offset, field, value);
  if (!index_.Insert(records(), offset, hash, memory)) {
    arena_used_ = offset;
    return SetOutcome::kOutOfMemory;
  }
  fields_++;
  index_.Advance(records(), 1, memory);
  return SetOutcome::kInserted;
}

bool HashValue::Remove(std::string_view field, MemoryAccountant& memory) {
  if (has_ttls_) (void)PersistField(field, memory);
  if (is_listpack()) {
    const size_t offset = ListpackFind(field);
    if (offset == SIZE_MAX) return false;
    const size_t end = PairAt(offset).end;
    std::memmove(arena_ + offset, arena_ + end, arena_used_ - end);
    arena_used_ -= end - offset;
    fields_--;
    return true;
  }
  const uint64_t hash = HashOf(field);
  const uint64_t offset = index_.Find(records(), field, hash);
  if (offset == MemberIndex::kAbsent) return false;
  arena_dead_ += PairAt(offset).end - offset;
  index_.Remove(records(), field, hash);
  fields_--;
  index_.Advance(records(), 1, memory);
  // Keep the table at least 1/16 full (random draws probe slots) and the arena at least half
  // live; either may be refused, which only costs space.
  index_.MaybeShrink(records(), memory);
  if (TooMuchDead(arena_dead_, arena_used_)) (void)CompactArena(memory);
  return true;
}

bool HashValue::Reserve(size_t more_fields, size_t more_bytes, MemoryAccountant& memory) {
  KEEL_ASSERT(!is_listpack());
  return index_.Reserve(records(), more_fields, memory) && ReserveArena(more_bytes, memory);
}

bool HashValue::ConvertToHashtable(size_t fields_hint, MemoryAccountant& memory) {
  KEEL_ASSERT(is_listpack());
  MemberIndex index;
  if (!index.Create(std::max<size_t>(fields_hint, fields_), memory)) return false;
  // The listpack's arena was sized to the byte; the table's grows by quarters.
  if (arena_used_ > 0 &&
      !ResizeArena(&arena_, &arena_capacity_, arena_used_, arena_used_ + arena_used_ / 4, memory)) {
    index.Destroy(memory);
    return false;
  }
  index_.Swap(index);
  // A table sized for the fields takes them all, in the listpack's order: nothing can fail.
  for (size_t offset = 0; offset < arena_used_;) {
    const Pair pair = PairAt(offset);
    const bool inserted = index_.Insert(records(), offset, HashOf(pair.field), memory);
    KEEL_ASSERT(inserted);
    offset = pair.end;
  }
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
  if (is_listpack()) {
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
  size_t live_bytes = 0;
  bool in_arena = true;
  index_.ForEachOffset([&](uint64_t offset) {
    in_arena = in_arena && offset < arena_used_ && PairAt(offset).end <= arena_used_;
    if (in_arena) live_bytes += PairAt(offset).end - offset;
  });
  return in_arena && index_.size() == fields_ && index_.CheckInvariants(records()) &&
         live_bytes + arena_dead_ == arena_used_;
}

}  // namespace keel
