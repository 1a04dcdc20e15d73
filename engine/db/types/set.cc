#include "engine/db/types/set.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "engine/base/assert.h"
#include "engine/base/hash.h"
#include "engine/base/numbers.h"

namespace keel {
namespace {

constexpr size_t kIntsetHeaderBytes = 8;  // width and count, 4 bytes each, little-endian

// A table slot: the record's arena offset + 1 (40 bits, 0 = empty), its distance from home
// (8 bits, saturated at 255: the home is then recomputed from the member), and 16 bits of the
// member's hash (a tag, so that a probe rarely compares bytes of another member).
constexpr uint64_t kOffsetMask = (uint64_t{1} << 40) - 1;
constexpr uint64_t kDistanceSaturated = 255;

uint64_t OffsetOf(uint64_t slot) { return (slot & kOffsetMask) - 1; }
uint64_t DistanceOf(uint64_t slot) { return (slot >> 40) & 0xff; }
uint64_t TagOf(uint64_t hash) { return hash & 0xffff; }
uint64_t MakeSlot(uint64_t offset, uint64_t distance, uint64_t tag) {
  return (offset + 1) | (std::min(distance, kDistanceSaturated) << 40) | (tag << 48);
}

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

size_t VarintBytes(size_t value) {
  size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    bytes++;
  }
  return bytes;
}

// Load factor bounds of the table: grow past 4/5 full, shrink under 1/16 full.
bool Overloaded(size_t members, size_t home_slots) { return members * 5 > home_slots * 4; }

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
  if (members_hint > kSmallMembers && !set->Rebuild(BitsFor(members_hint), false, memory)) {
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
  if (set->slots_ != nullptr) {
    memory.Deallocate(set->slots_, set->slot_count() * sizeof(uint64_t), MemoryUse::kKeyspace);
  }
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
    if (ok && set.slots_ != nullptr) {
      copy->slots_ =
          static_cast<uint64_t*>(copy_block(set.slots_, set.slot_count() * sizeof(uint64_t)));
      ok = copy->slots_ != nullptr;
    }
    // Only once the slots exist do the table sizes describe something Destroy must free.
    if (ok) {
      copy->home_slots_ = set.home_slots_;
      copy->overflow_slots_ = set.overflow_slots_;
      copy->home_shift_ = set.home_shift_;
    }
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
  size_t bytes = sizeof(SetValue) + intset_bytes_ + arena_capacity_;
  if (slots_ != nullptr) bytes += slot_count() * sizeof(uint64_t);
  return bytes;
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
  if (slots_ == nullptr) return SmallFind(member) != SIZE_MAX;
  return Locate(member, HashOf(member)) != SIZE_MAX;
}

std::string_view SetValue::RandomMember(Rng& rng, std::string* scratch) const {
  KEEL_ASSERT(size() > 0);
  if (is_intset()) {
    char text[kIntTextMax];
    const size_t length = SetIntText(IntsetAt(rng.Below(size())), text);
    scratch->assign(text, length);
    return *scratch;
  }
  if (slots_ == nullptr) {
    size_t index = rng.Below(members_);
    for (size_t offset = 0;; index--) {
      const std::string_view member = RecordAt(offset);
      if (index == 0) return member;
      offset = static_cast<size_t>(member.data() + member.size() - arena_);
    }
  }
  // Uniform over the members: uniform slots, retried until one is occupied (the table is kept
  // at least 1/16 full, so this takes 16 draws at worst on average).
  while (true) {
    const uint64_t slot = slots_[rng.Below(slot_count())];
    if (slot != 0) return RecordAt(OffsetOf(slot));
  }
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
  if (slots_ == nullptr ? SmallFind(member) != SIZE_MAX
                        : Locate(member, HashOf(member)) != SIZE_MAX) {
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
  std::swap(slots_, built->slots_);
  std::swap(members_, built->members_);
  std::swap(arena_used_, built->arena_used_);
  std::swap(arena_capacity_, built->arena_capacity_);
  std::swap(arena_dead_, built->arena_dead_);
  std::swap(home_slots_, built->home_slots_);
  std::swap(overflow_slots_, built->overflow_slots_);
  std::swap(home_shift_, built->home_shift_);
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

std::string_view SetValue::RecordIn(const char* arena, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(arena + offset);
  size_t length = 0;
  size_t shift = 0;
  size_t i = 0;
  while (true) {
    length |= static_cast<size_t>(p[i] & 0x7f) << shift;
    if (p[i++] < 0x80) break;
    shift += 7;
  }
  return {arena + offset + i, length};
}

std::string_view SetValue::RecordAt(size_t offset) const {
  KEEL_DASSERT(offset < arena_used_);
  return RecordIn(arena_, offset);
}

bool SetValue::ReserveArena(size_t bytes, MemoryAccountant& memory) {
  if (arena_used_ + bytes <= arena_capacity_) return true;
  // Small sets grow to the byte (their arena is most of their memory); larger ones by a quarter,
  // so that a set built by SADDs costs amortised O(1) per member.
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

size_t SetValue::AppendRecord(std::string_view member) {
  KEEL_DASSERT(arena_used_ + RecordBytes(member.size()) <= arena_capacity_);
  const size_t offset = arena_used_;
  auto* p = reinterpret_cast<unsigned char*>(arena_ + offset);
  size_t length = member.size();
  size_t i = 0;
  while (length >= 0x80) {
    p[i++] = static_cast<unsigned char>(length | 0x80);
    length >>= 7;
  }
  p[i++] = static_cast<unsigned char>(length);
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

bool SetValue::HashtableAdd(std::string_view member, MemoryAccountant& memory) {
  const size_t record_bytes = RecordBytes(member.size());
  if (slots_ == nullptr && members_ >= kSmallMembers) {
    // The set outgrows its walk: index it (the arena is compacted as it is indexed).
    if (!Rebuild(BitsFor(members_ + 1), false, memory)) return false;
  } else if (slots_ != nullptr && Overloaded(members_ + 1, home_slots_)) {
    if (!Rebuild(BitsFor(members_ + 1), arena_dead_ > arena_used_ / 2, memory)) return false;
  }
  if (!ReserveArena(record_bytes, memory)) return false;
  if (slots_ == nullptr) {
    AppendRecord(member);
    members_++;
    return true;
  }
  const uint64_t hash = HashOf(member);
  const size_t before = arena_used_;
  const size_t offset = AppendRecord(member);
  if (!TableInsert(offset, hash)) {
    // A probe run reached the end of the overflow area (a degenerate run): a larger table takes
    // it, or nothing changed.
    arena_used_ = before;
    if (!Rebuild(BitsFor(members_ + 1) + 1, false, memory)) return false;
    if (!ReserveArena(record_bytes, memory)) return false;
    const size_t retried = AppendRecord(member);
    const bool inserted = TableInsert(retried, hash);
    KEEL_ASSERT(inserted);
  }
  members_++;
  return true;
}

bool SetValue::HashtableRemove(std::string_view member, MemoryAccountant& memory) {
  if (slots_ == nullptr) {
    const size_t offset = SmallFind(member);
    if (offset == SIZE_MAX) return false;
    const size_t bytes = RecordBytes(member.size());
    std::memmove(arena_ + offset, arena_ + offset + bytes, arena_used_ - offset - bytes);
    arena_used_ -= bytes;
    members_--;
    return true;
  }
  const size_t index = Locate(member, HashOf(member));
  if (index == SIZE_MAX) return false;
  arena_dead_ += RecordBytes(member.size());
  TableRemoveAt(index);
  members_--;
  // Keep the table at least 1/16 full (random draws probe slots) and the arena at least half
  // live; either rebuild may be refused, which only costs space.
  if (home_slots_ > 64 && members_ * 16 < home_slots_) {
    (void)Rebuild(BitsFor(members_), true, memory);
  } else if (arena_dead_ > 4096 && arena_dead_ > arena_used_ / 2) {
    (void)Rebuild(__builtin_ctzll(static_cast<uint64_t>(home_slots_)), true, memory);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The hashtable's index.

uint64_t SetValue::HashOf(std::string_view member) const {
  return HashBytes(member.data(), member.size(), hash_seed_);
}

int SetValue::BitsFor(size_t members) {
  // The smallest power of two that keeps `members` at most 4/5 full, at least 16 slots.
  int bits = 4;
  while (Overloaded(members, size_t{1} << bits)) bits++;
  return bits;
}

size_t SetValue::SlotHome(size_t index) const {
  const uint64_t distance = DistanceOf(slots_[index]);
  if (distance < kDistanceSaturated) return index - distance;
  return HomeOf(HashOf(RecordAt(OffsetOf(slots_[index]))));
}

size_t SetValue::Locate(std::string_view member, uint64_t hash) const {
  const size_t home = HomeOf(hash);
  const uint64_t tag = TagOf(hash);
  for (size_t i = home; i < slot_count(); i++) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return SIZE_MAX;
    const size_t slot_home = SlotHome(i);
    // Runs are sorted by home: past our home, the member is not here.
    if (slot_home > home) return SIZE_MAX;
    if (slot_home == home && (slot >> 48) == tag && RecordAt(OffsetOf(slot)) == member) return i;
  }
  return SIZE_MAX;
}

bool SetValue::TableInsert(size_t offset, uint64_t hash) {
  size_t carry_home = HomeOf(hash);
  // The insertion shifts members up to the first empty slot at or after the home; with none
  // before the end of the overflow area, refuse before changing anything.
  size_t empty = carry_home;
  while (empty < slot_count() && slots_[empty] != 0) empty++;
  if (empty == slot_count()) return false;
  uint64_t carry_offset = offset;
  uint64_t carry_tag = TagOf(hash);
  for (size_t i = carry_home; i < empty; i++) {
    const size_t slot_home = SlotHome(i);
    // Robin Hood: the member from a later home yields its place, which keeps runs sorted by home
    // (members of one home stay in insertion order).
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

void SetValue::TableRemoveAt(size_t index) {
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

size_t SetValue::NextBoundary(size_t slot) const {
  for (size_t i = slot; i < slot_count(); i++) {
    if (slots_[i] == 0 || DistanceOf(slots_[i]) == 0) return i;
  }
  return slot_count();
}

bool SetValue::Rebuild(int bits, bool compact, MemoryAccountant& memory) {
  const size_t homes = size_t{1} << bits;
  // Room past the last home for the runs that start near it: Robin Hood runs are short at 4/5
  // load; a run that still reaches the end makes HashtableAdd rebuild larger.
  const size_t overflow = 32 + homes / 8;
  const size_t slots = homes + overflow;
  auto* table =
      static_cast<uint64_t*>(memory.AllocateZeroed(slots * sizeof(uint64_t), MemoryUse::kKeyspace));
  if (table == nullptr) return false;
  // A set without a table is always compacted into a new arena as it is indexed; its arena was
  // sized to the byte, and the table's grows by quarters.
  const bool compacting = (compact || slots_ == nullptr) && arena_used_ > 0;
  char* arena = arena_;
  size_t arena_capacity = arena_capacity_;
  if (compacting) {
    const size_t live = arena_used_ - arena_dead_;
    arena_capacity = live + live / 4;
    arena = live == 0 ? nullptr
                      : static_cast<char*>(memory.Allocate(arena_capacity, MemoryUse::kKeyspace));
    if (live > 0 && arena == nullptr) {
      memory.Deallocate(table, slots * sizeof(uint64_t), MemoryUse::kKeyspace);
      return false;
    }
  }
  // Nothing can fail from here on: the new layout goes in, and the live records are placed in
  // it in their current order, read from the old layout.
  uint64_t* old_slots = slots_;
  const size_t old_slot_count = slot_count();
  const char* old_arena = arena_;
  const size_t old_arena_used = arena_used_;
  const size_t old_arena_capacity = arena_capacity_;
  slots_ = table;
  home_slots_ = static_cast<uint32_t>(homes);
  overflow_slots_ = static_cast<uint32_t>(overflow);
  home_shift_ = static_cast<uint8_t>(64 - bits);
  arena_ = arena;
  arena_capacity_ = arena_capacity;
  if (compacting) {
    arena_used_ = 0;
    arena_dead_ = 0;
  }
  auto place = [&](size_t old_offset) {
    const std::string_view member = RecordIn(old_arena, old_offset);
    size_t offset = old_offset;
    if (compacting) {
      const size_t bytes = RecordBytes(member.size());
      offset = arena_used_;
      std::memcpy(arena_ + offset, member.data() + member.size() - bytes, bytes);
      arena_used_ += bytes;
    }
    const bool inserted = TableInsert(offset, HashOf(member));
    KEEL_ASSERT(inserted);
  };
  if (old_slots == nullptr) {
    for (size_t offset = 0; offset < old_arena_used;) {
      const std::string_view member = RecordIn(old_arena, offset);
      place(offset);
      offset = static_cast<size_t>(member.data() + member.size() - old_arena);
    }
  } else {
    for (size_t i = 0; i < old_slot_count; i++) {
      if (old_slots[i] != 0) place(OffsetOf(old_slots[i]));
    }
    memory.Deallocate(old_slots, old_slot_count * sizeof(uint64_t), MemoryUse::kKeyspace);
  }
  if (compacting && old_arena != nullptr) {
    memory.Deallocate(const_cast<char*>(old_arena), old_arena_capacity, MemoryUse::kKeyspace);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Invariants.

bool SetValue::CheckInvariants() const {
  if (is_intset()) {
    if (arena_ != nullptr || slots_ != nullptr) return false;
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
  if (slots_ == nullptr) {
    ForEach([&](std::string_view) { counted++; });
    return counted == members_ && members_ <= kSmallMembers;
  }
  size_t previous_home = 0;
  for (size_t i = 0; i < slot_count(); i++) {
    if (slots_[i] == 0) continue;
    const std::string_view member = RecordAt(OffsetOf(slots_[i]));
    const uint64_t hash = HashOf(member);
    const size_t home = HomeOf(hash);
    if (home > i || (slots_[i] >> 48) != TagOf(hash)) return false;
    if (DistanceOf(slots_[i]) != std::min<uint64_t>(i - home, kDistanceSaturated)) return false;
    // Within a run homes never decrease; a new run starts at its home.
    if (i > 0 && slots_[i - 1] != 0 && home < previous_home) return false;
    previous_home = home;
    counted++;
  }
  return counted == members_;
}

}  // namespace keel
