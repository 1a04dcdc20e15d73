#include "engine/db/types/set.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "engine/base/assert.h"
#include "engine/base/hash.h"
#include "engine/base/numbers.h"
#include "engine/db/types/record_arena.h"

namespace keel {
namespace {

constexpr size_t kIntsetHeaderBytes = 8;  // width and count, 4 bytes each, little-endian

// The narrowest intset width that holds `value` (Redis's _intsetValueEncoding).
uint32_t WidthFor(int64_t value) {
  if (value >= INT16_MIN && value <= INT16_MAX) return 2;
  if (value >= INT32_MIN && value <= INT32_MAX) return 4;
  return 8;
}

uint32_t ReadU32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
void WriteU32(unsigned char* p, uint32_t value) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<unsigned char>(value >> (8 * i));
}
int64_t ReadMember(const unsigned char* p, uint32_t width) {
  uint64_t bits = 0;
  for (uint32_t i = 0; i < width; i++) bits |= static_cast<uint64_t>(p[i]) << (8 * i);
  // Sign-extend from `width` bytes.
  const int shift = 64 - static_cast<int>(width) * 8;
  return static_cast<int64_t>(bits << shift) >> shift;
}
void WriteMember(unsigned char* p, uint32_t width, int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  for (uint32_t i = 0; i < width; i++) p[i] = static_cast<unsigned char>(bits >> (8 * i));
}

}  // namespace

size_t SetIntText(int64_t value, char* out) { return FormatInt64(value, out); }

// ---------------------------------------------------------------------------------------------
// Creation and destruction.

SetValue* SetValue::Create(MemoryAccountant& memory, uint64_t hash_seed) {
  void* block = memory.Allocate(sizeof(SetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* set = new (block) SetValue();
  set->hash_seed_ = hash_seed;
  auto* blob =
      static_cast<unsigned char*>(memory.Allocate(kIntsetHeaderBytes, MemoryUse::kKeyspace));
  if (blob == nullptr) {
    Destroy(set, memory);
    return nullptr;
  }
  WriteU32(blob, 2);
  WriteU32(blob + 4, 0);
  set->intset_ = blob;
  set->intset_bytes_ = kIntsetHeaderBytes;
  return set;
}

SetValue* SetValue::CreateHashtable(MemoryAccountant& memory, uint64_t hash_seed,
                                    size_t members_hint) {
  void* block = memory.Allocate(sizeof(SetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* set = new (block) SetValue();
  set->hash_seed_ = hash_seed;
  if (members_hint > kSmallMembers && !set->index_.Create(members_hint, memory)) {
    Destroy(set, memory);
    return nullptr;
  }
  return set;
}

void SetValue::Destroy(SetValue* set, MemoryAccountant& memory) {
  if (set == nullptr) return;
  if (set->intset_ != nullptr)
    memory.Deallocate(set->intset_, set->intset_bytes_, MemoryUse::kKeyspace);
  if (set->arena_ != nullptr) {
    memory.Deallocate(set->arena_, set->arena_capacity_, MemoryUse::kKeyspace);
  }
  set->index_.Destroy(memory);
  set->~SetValue();
  memory.Deallocate(set, sizeof(SetValue), MemoryUse::kKeyspace);
}

SetValue* SetValue::Clone(const SetValue& set, MemoryAccountant& memory) {
  void* block = memory.Allocate(sizeof(SetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* copy = new (block) SetValue();
  copy->hash_seed_ = set.hash_seed_;
  auto copy_block = [&](const void* from, size_t bytes) -> void* {
    if (from == nullptr || bytes == 0) return nullptr;
    void* to = memory.Allocate(bytes, MemoryUse::kKeyspace);
    if (to != nullptr) std::memcpy(to, from, bytes);
    return to;
  };
  bool ok = true;
  if (set.intset_ != nullptr) {
    copy->intset_ = static_cast<unsigned char*>(copy_block(set.intset_, set.intset_bytes_));
    copy->intset_bytes_ = set.intset_bytes_;
    ok = copy->intset_ != nullptr;
  } else {
    // The copy's arena is compacted only by keeping its capacity to what is used: offsets stay.
    if (set.arena_used_ > 0) {
      copy->arena_ = static_cast<char*>(copy_block(set.arena_, set.arena_used_));
      copy->arena_capacity_ = set.arena_used_;
      ok = copy->arena_ != nullptr;
    }
    copy->arena_used_ = set.arena_used_;
    copy->arena_dead_ = set.arena_dead_;
    copy->members_ = set.members_;
    if (ok) ok = copy->index_.CopyFrom(set.index_, memory);
  }
  if (!ok) {
    Destroy(copy, memory);
    return nullptr;
  }
  return copy;
}

SetValue* SetValue::FromIntsetBlob(MemoryAccountant& memory, uint64_t hash_seed,
                                   std::string_view blob, size_t intset_max, bool* corrupt) {
  *corrupt = true;
  if (blob.size() < kIntsetHeaderBytes) return nullptr;
  const auto* bytes = reinterpret_cast<const unsigned char*>(blob.data());
  const uint32_t width = ReadU32(bytes);
  const uint32_t count = ReadU32(bytes + 4);
  if (width != 2 && width != 4 && width != 8) return nullptr;
  if (static_cast<uint64_t>(count) * width + kIntsetHeaderBytes != blob.size()) return nullptr;
  // Redis checks the order only in deep sanitisation; Keel always does, so no command ever
  // meets an intset whose search would go wrong.
  for (uint32_t i = 1; i < count; i++) {
    if (ReadMember(bytes + kIntsetHeaderBytes + (i - 1) * width, width) >=
        ReadMember(bytes + kIntsetHeaderBytes + i * width, width)) {
      return nullptr;
    }
  }
  *corrupt = false;
  void* block = memory.Allocate(sizeof(SetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* set = new (block) SetValue();
  set->hash_seed_ = hash_seed;
  set->intset_ = static_cast<unsigned char*>(memory.Allocate(blob.size(), MemoryUse::kKeyspace));
  if (set->intset_ == nullptr) {
    Destroy(set, memory);
    return nullptr;
  }
  std::memcpy(set->intset_, blob.data(), blob.size());
  set->intset_bytes_ = static_cast<uint32_t>(blob.size());
  if (count > intset_max && !set->ConvertToHashtable(count, memory)) {
    Destroy(set, memory);
    return nullptr;
  }
  return set;
}

// ---------------------------------------------------------------------------------------------
// Queries.

size_t SetValue::size() const { return is_intset() ? ReadU32(intset_ + 4) : members_; }

size_t SetValue::allocated_bytes() const {
  return sizeof(SetValue) + intset_bytes_ + arena_capacity_ + index_.allocated_bytes();
}

std::string_view SetValue::intset_blob() const {
  KEEL_DASSERT(is_intset());
  // The block may be longer than the intset (a shrink that memory refused).
  return {reinterpret_cast<const char*>(intset_), kIntsetHeaderBytes + size() * IntsetWidth()};
}

bool SetValue::Contains(std::string_view member) const {
  if (is_intset()) {
    int64_t value = 0;
    if (!ParseStrictInt64(member, &value)) return false;
    bool found = false;
    IntsetSearch(value, &found);
    return found;
  }
  if (!index_.allocated()) return SmallFind(member) != SIZE_MAX;
  return index_.Find(records(), member, HashOf(member)) != MemberIndex::kAbsent;
}

std::string_view SetValue::RandomMember(Rng& rng, std::string* scratch) const {
  KEEL_ASSERT(size() > 0);
  if (is_intset()) {
    char text[kIntTextMax];
    const size_t length = SetIntText(IntsetAt(rng.Below(size())), text);
    scratch->assign(text, length);
    return *scratch;
  }
  if (!index_.allocated()) {
    size_t index = rng.Below(members_);
    for (size_t offset = 0;; index--) {
      const std::string_view member = RecordAt(offset);
      if (index == 0) return member;
      offset = static_cast<size_t>(member.data() + member.size() - arena_);
    }
  }
  return RecordAt(index_.RandomOffset(rng));
}

// ---------------------------------------------------------------------------------------------
// Changes.

SetValue::AddOutcome SetValue::Add(std::string_view member, size_t intset_max,
                                   MemoryAccountant& memory) {
  if (is_intset()) {
    int64_t value = 0;
    if (ParseStrictInt64(member, &value)) {
      bool found = false;
      IntsetSearch(value, &found);
      if (found) return AddOutcome::kPresent;
      if (size() < intset_max) {
        bool added = false;
        if (!IntsetAdd(value, memory, &added)) return AddOutcome::kOutOfMemory;
        return AddOutcome::kAdded;
      }
    }
    // Not an integer, or one too many (Redis converts with room for the members it has).
    if (!ConvertToHashtable(size() + 1, memory)) return AddOutcome::kOutOfMemory;
  }
  if (!index_.allocated()
          ? SmallFind(member) != SIZE_MAX
          : index_.Find(records(), member, HashOf(member)) != MemberIndex::kAbsent) {
    return AddOutcome::kPresent;
  }
  return HashtableAdd(member, memory) ? AddOutcome::kAdded : AddOutcome::kOutOfMemory;
}

bool SetValue::Remove(std::string_view member, MemoryAccountant& memory) {
  if (is_intset()) {
    int64_t value = 0;
    if (!ParseStrictInt64(member, &value)) return false;
    bool found = false;
    const size_t index = IntsetSearch(value, &found);
    if (!found) return false;
    IntsetRemoveAt(index, memory);
    return true;
  }
  return HashtableRemove(member, memory);
}

bool SetValue::ConvertToHashtable(size_t members_hint, MemoryAccountant& memory) {
  KEEL_ASSERT(is_intset());
  const size_t count = size();
  // Build the new layout aside, so a refusal leaves the intset as it was.
  SetValue* built = CreateHashtable(memory, hash_seed_, std::max(members_hint, count));
  if (built == nullptr) return false;
  char text[kIntTextMax];
  size_t arena_bytes = 0;
  for (size_t i = 0; i < count; i++) arena_bytes += RecordBytes(SetIntText(IntsetAt(i), text));
  if (arena_bytes > 0 && !built->ReserveArena(arena_bytes, memory)) {
    Destroy(built, memory);
    return false;
  }
  for (size_t i = 0; i < count; i++) {
    const std::string_view member(text, SetIntText(IntsetAt(i), text));
    // The arena has room and a table of the hinted size takes every member: cannot fail.
    const bool added = built->HashtableAdd(member, memory);
    KEEL_ASSERT(added);
  }
  memory.Deallocate(intset_, intset_bytes_, MemoryUse::kKeyspace);
  intset_ = nullptr;
  intset_bytes_ = 0;
  std::swap(arena_, built->arena_);
  index_.Swap(built->index_);
  std::swap(members_, built->members_);
  std::swap(arena_used_, built->arena_used_);
  std::swap(arena_capacity_, built->arena_capacity_);
  std::swap(arena_dead_, built->arena_dead_);
  Destroy(built, memory);
  return true;
}

// ---------------------------------------------------------------------------------------------
// intset.

uint32_t SetValue::IntsetWidth() const { return ReadU32(intset_); }

int64_t SetValue::IntsetAt(size_t index) const {
  const uint32_t width = IntsetWidth();
  return ReadMember(intset_ + kIntsetHeaderBytes + index * width, width);
}

size_t SetValue::IntsetSearch(int64_t value, bool* found) const {
  size_t low = 0;
  size_t high = size();
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    const int64_t at = IntsetAt(middle);
    if (at == value) {
      *found = true;
      return middle;
    }
    if (at < value) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  *found = false;
  return low;
}

bool SetValue::IntsetAdd(int64_t value, MemoryAccountant& memory, bool* added) {
  bool found = false;
  const size_t index = IntsetSearch(value, &found);
  *added = !found;
  if (found) return true;
  const size_t count = size();
  const uint32_t width = IntsetWidth();
  const uint32_t new_width = std::max(width, WidthFor(value));
  const size_t new_bytes = kIntsetHeaderBytes + (count + 1) * new_width;
  // A new exact-size block, as Redis's intsetResize reallocates to the exact size.
  auto* blob = static_cast<unsigned char*>(memory.Allocate(new_bytes, MemoryUse::kKeyspace));
  if (blob == nullptr) return false;
  WriteU32(blob, new_width);
  WriteU32(blob + 4, static_cast<uint32_t>(count + 1));
  unsigned char* out = blob + kIntsetHeaderBytes;
  if (new_width == width) {
    const unsigned char* in = intset_ + kIntsetHeaderBytes;
    std::memcpy(out, in, index * width);
    WriteMember(out + index * width, width, value);
    std::memcpy(out + (index + 1) * width, in + index * width, (count - index) * width);
  } else {
    for (size_t i = 0, j = 0; i <= count; i++) {
      WriteMember(out + i * new_width, new_width, i == index ? value : IntsetAt(j++));
    }
  }
  memory.Deallocate(intset_, intset_bytes_, MemoryUse::kKeyspace);
  intset_ = blob;
  intset_bytes_ = static_cast<uint32_t>(new_bytes);
  return true;
}

void SetValue::IntsetRemoveAt(size_t index, MemoryAccountant& memory) {
  const size_t count = size();
  const uint32_t width = IntsetWidth();
  unsigned char* data = intset_ + kIntsetHeaderBytes;
  std::memmove(data + index * width, data + (index + 1) * width, (count - index - 1) * width);
  WriteU32(intset_ + 4, static_cast<uint32_t>(count - 1));
  // Redis shrinks the block to the exact size; a refused smaller block keeps the larger one.
  const size_t new_bytes = kIntsetHeaderBytes + (count - 1) * width;
  void* smaller = memory.Allocate(new_bytes, MemoryUse::kKeyspace);
  if (smaller == nullptr) return;
  std::memcpy(smaller, intset_, new_bytes);
  memory.Deallocate(intset_, intset_bytes_, MemoryUse::kKeyspace);
  intset_ = static_cast<unsigned char*>(smaller);
  intset_bytes_ = static_cast<uint32_t>(new_bytes);
}

// ---------------------------------------------------------------------------------------------
// The hashtable's arena.

size_t SetValue::RecordBytes(size_t member_size) { return VarintBytes(member_size) + member_size; }

std::string_view SetValue::RecordAt(size_t offset) const {
  KEEL_DASSERT(offset < arena_used_);
  return RecordMember(arena_, offset);
}

bool SetValue::ReserveArena(size_t bytes, MemoryAccountant& memory) {
  if (arena_used_ + bytes <= arena_capacity_) return true;
  // An arena that must move anyway is compacted when it is mostly dead (the copy costs the same).
  if (index_.allocated() && arena_dead_ > arena_used_ / 2 && CompactArena(memory) &&
      arena_used_ + bytes <= arena_capacity_) {
    return true;
  }
  // Small sets grow to the byte (their arena is most of their memory); larger ones by a quarter,
  // so that a set built by SADDs costs amortised O(1) per member.
  size_t capacity = arena_used_ + bytes;
  if (index_.allocated()) capacity += capacity / 4;
  return ResizeArena(&arena_, &arena_capacity_, arena_used_, capacity, memory);
}

bool SetValue::CompactArena(MemoryAccountant& memory) {
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
    const std::string_view member = RecordAt(old_offset);
    const size_t bytes = RecordBytes(member.size());
    std::memcpy(arena + used, member.data() + member.size() - bytes, bytes);
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

size_t SetValue::AppendRecord(std::string_view member) {
  KEEL_DASSERT(arena_used_ + RecordBytes(member.size()) <= arena_capacity_);
  const size_t offset = arena_used_;
  auto* p = reinterpret_cast<unsigned char*>(arena_ + offset);
  const size_t i = WriteVarint(p, member.size());
  if (!member.empty()) std::memcpy(p + i, member.data(), member.size());
  arena_used_ += i + member.size();
  return offset;
}

size_t SetValue::SmallFind(std::string_view member) const {
  for (size_t offset = 0; offset < arena_used_;) {
    const std::string_view at = RecordAt(offset);
    if (at == member) return offset;
    offset = static_cast<size_t>(at.data() + at.size() - arena_);
  }
  return SIZE_MAX;
}

bool SetValue::IndexSmallSet(MemoryAccountant& memory) {
  KEEL_ASSERT(!index_.allocated() && arena_dead_ == 0);
  MemberIndex index;
  if (!index.Create(members_ + 1, memory)) return false;
  // The arena was sized to the byte; the indexed set's grows by quarters.
  if (!ResizeArena(&arena_, &arena_capacity_, arena_used_, arena_used_ + arena_used_ / 4, memory)) {
    index.Destroy(memory);
    return false;
  }
  index_.Swap(index);
  // A table sized for the members takes them all: nothing can fail.
  for (size_t offset = 0; offset < arena_used_;) {
    const std::string_view member = RecordAt(offset);
    const bool inserted = index_.Insert(records(), offset, HashOf(member), memory);
    KEEL_ASSERT(inserted);
    offset = static_cast<size_t>(member.data() + member.size() - arena_);
  }
  return true;
}

bool SetValue::HashtableAdd(std::string_view member, MemoryAccountant& memory) {
  const size_t record_bytes = RecordBytes(member.size());
  if (!index_.allocated() && members_ >= kSmallMembers) {
    // The set outgrows its walk: index it.
    if (!IndexSmallSet(memory)) return false;
  } else if (index_.allocated() && !index_.Reserve(records(), 1, memory)) {
    return false;
  }
  if (!ReserveArena(record_bytes, memory)) return false;
  if (!index_.allocated()) {
    AppendRecord(member);
    members_++;
    return true;
  }
  const size_t before = arena_used_;
  const size_t offset = AppendRecord(member);
  if (offset > MemberIndex::kOffsetMax ||
      !index_.Insert(records(), offset, HashOf(member), memory)) {
    arena_used_ = before;
    return false;
  }
  members_++;
  index_.Advance(records(), 1, memory);
  return true;
}

bool SetValue::HashtableRemove(std::string_view member, MemoryAccountant& memory) {
  if (!index_.allocated()) {
    const size_t offset = SmallFind(member);
    if (offset == SIZE_MAX) return false;
    const size_t bytes = RecordBytes(member.size());
    std::memmove(arena_ + offset, arena_ + offset + bytes, arena_used_ - offset - bytes);
    arena_used_ -= bytes;
    members_--;
    return true;
  }
  if (index_.Remove(records(), member, HashOf(member)) == MemberIndex::kAbsent) return false;
  arena_dead_ += RecordBytes(member.size());
  members_--;
  index_.Advance(records(), 1, memory);
  // Keep the table at least 1/16 full (random draws probe slots) and the arena at least half
  // live; either may be refused, which only costs space.
  index_.MaybeShrink(records(), memory);
  if (arena_dead_ > 4096 && arena_dead_ > arena_used_ / 2) (void)CompactArena(memory);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Invariants.

bool SetValue::CheckInvariants() const {
  if (is_intset()) {
    if (arena_ != nullptr || index_.allocated()) return false;
    const uint32_t width = IntsetWidth();
    if (width != 2 && width != 4 && width != 8) return false;
    if (kIntsetHeaderBytes + size() * width > intset_bytes_) return false;
    for (size_t i = 1; i < size(); i++) {
      if (IntsetAt(i - 1) >= IntsetAt(i)) return false;
    }
    return true;
  }
  if (arena_used_ > arena_capacity_) return false;
  size_t counted = 0;
  if (!index_.allocated()) {
    ForEach([&](std::string_view) { counted++; });
    return counted == members_ && members_ <= kSmallMembers;
  }
  size_t live_bytes = 0;
  bool in_arena = true;
  index_.ForEachOffset([&](uint64_t offset) {
    in_arena = in_arena && offset < arena_used_;
    if (in_arena) live_bytes += RecordBytes(RecordAt(offset).size());
  });
  return in_arena && index_.size() == members_ && index_.CheckInvariants(records()) &&
         live_bytes + arena_dead_ == arena_used_;
}

}  // namespace keel
