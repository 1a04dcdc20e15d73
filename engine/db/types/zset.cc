#include "engine/db/types/zset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "engine/base/assert.h"
#include "engine/base/hash.h"
#include "engine/base/numbers.h"
#include "engine/db/types/listpack.h"
#include "engine/db/types/record_arena.h"

namespace keel {
namespace {

int CompareBytes(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// The listpack entries of one (member, score) pair.
size_t PairBytes(std::string_view member, double score) {
  char text[32];
  const size_t length = ZsetScoreText(score, text);
  return listpack::EntryBytes(member) + listpack::EntryBytes(std::string_view(text, length));
}

unsigned char* WritePair(unsigned char* out, std::string_view member, double score) {
  char text[32];
  const std::string_view score_text(text, ZsetScoreText(score, text));
  listpack::WriteEntry(member, out);
  out += listpack::EntryBytes(member);
  listpack::WriteEntry(score_text, out);
  return out + listpack::EntryBytes(score_text);
}

}  // namespace

size_t ZsetScoreText(double score, char* out) {
  // zzlInsertAt: a score that double2ll takes (integral, within LLONG_MAX / 2) is an integer
  // entry, so -0 is stored as 0; any other as d2string writes it.
  constexpr double kIntegerBound = static_cast<double>(INT64_MAX / 2);
  if (score >= -kIntegerBound && score <= kIntegerBound) {
    const auto integer = static_cast<int64_t>(score);
    if (static_cast<double>(integer) == score) return FormatInt64(integer, out);
  }
  if (std::isinf(score)) {
    const char* text = score > 0 ? "inf" : "-inf";
    std::memcpy(out, text, std::strlen(text));
    return std::strlen(text);
  }
  const int length = std::snprintf(out, 32, "%.17g", score);
  KEEL_ASSERT(length > 0 && length < 32);
  return static_cast<size_t>(length);
}

double ZsetParseEntryScore(std::string_view text) {
  char buffer[128];
  const size_t length = std::min(text.size(), sizeof(buffer) - 1);
  std::memcpy(buffer, text.data(), length);
  buffer[length] = '\0';
  return std::strtod(buffer, nullptr);
}

namespace zset_internal {

const unsigned char* ReadEntry(const unsigned char* entry, std::string_view* text, char* digits) {
  listpack::Element element;
  element.Read(entry);
  const size_t size = listpack::EntrySize(entry);
  const std::string_view view = element.view();
  // An integer entry's text lives in `element`: copy it out before it goes.
  const auto* data = reinterpret_cast<const unsigned char*>(view.data());
  if (data >= entry && data + view.size() <= entry + size) {
    *text = view;
  } else {
    std::memcpy(digits, view.data(), view.size());
    *text = std::string_view(digits, view.size());
  }
  return entry + size;
}

const unsigned char* PreviousEntry(const unsigned char* entry) {
  return listpack::PreviousEntry(entry);
}

}  // namespace zset_internal

// ---------------------------------------------------------------------------------------------
// Creation and destruction.

ZsetValue* ZsetValue::CreateListpack(MemoryAccountant& memory, uint64_t hash_seed) {
  void* block = memory.Allocate(sizeof(ZsetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* zset = new (block) ZsetValue();
  zset->hash_seed_ = hash_seed;
  zset->listpack_ =
      static_cast<unsigned char*>(memory.Allocate(listpack::kEmptyBytes, MemoryUse::kKeyspace));
  if (zset->listpack_ == nullptr) {
    Destroy(zset, memory);
    return nullptr;
  }
  zset->listpack_bytes_ = listpack::kEmptyBytes;
  listpack::WriteEmpty(zset->listpack_);
  return zset;
}

ZsetValue* ZsetValue::CreateSkiplist(MemoryAccountant& memory, uint64_t hash_seed,
                                     size_t members_hint) {
  void* block = memory.Allocate(sizeof(ZsetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* zset = new (block) ZsetValue();
  zset->hash_seed_ = hash_seed;
  auto* leaf = static_cast<Leaf*>(memory.Allocate(sizeof(Leaf), MemoryUse::kKeyspace));
  if (leaf == nullptr) {
    Destroy(zset, memory);
    return nullptr;
  }
  leaf->count = 0;
  leaf->leaf = true;
  leaf->prev = leaf->next = nullptr;
  zset->root_ = zset->first_ = zset->last_ = leaf;
  if (!zset->index_.Create(members_hint, memory)) {
    Destroy(zset, memory);
    return nullptr;
  }
  return zset;
}

void ZsetValue::DestroyNode(Node* node, MemoryAccountant& memory) {
  if (node->leaf) {
    memory.Deallocate(node, sizeof(Leaf), MemoryUse::kKeyspace);
    return;
  }
  auto* inner = static_cast<Inner*>(node);
  for (size_t i = 0; i < inner->count; i++) DestroyNode(inner->children[i], memory);
  memory.Deallocate(inner, sizeof(Inner), MemoryUse::kKeyspace);
}

void ZsetValue::Destroy(ZsetValue* zset, MemoryAccountant& memory) {
  if (zset == nullptr) return;
  if (zset->listpack_ != nullptr) {
    memory.Deallocate(zset->listpack_, zset->listpack_bytes_, MemoryUse::kKeyspace);
  }
  if (zset->arena_ != nullptr) {
    memory.Deallocate(zset->arena_, zset->arena_capacity_, MemoryUse::kKeyspace);
  }
  if (zset->root_ != nullptr) DestroyNode(zset->root_, memory);
  zset->index_.Destroy(memory);
  zset->~ZsetValue();
  memory.Deallocate(zset, sizeof(ZsetValue), MemoryUse::kKeyspace);
}

ZsetValue::Node* ZsetValue::CloneNode(const Node* node, MemoryAccountant& memory, Leaf** previous,
                                      bool* ok) {
  if (node->leaf) {
    auto* leaf = static_cast<Leaf*>(memory.Allocate(sizeof(Leaf), MemoryUse::kKeyspace));
    if (leaf == nullptr) {
      *ok = false;
      return nullptr;
    }
    std::memcpy(static_cast<void*>(leaf), node, sizeof(Leaf));
    leaf->prev = *previous;
    leaf->next = nullptr;
    if (*previous != nullptr) (*previous)->next = leaf;
    *previous = leaf;
    return leaf;
  }
  const auto* from = static_cast<const Inner*>(node);
  auto* inner = static_cast<Inner*>(memory.Allocate(sizeof(Inner), MemoryUse::kKeyspace));
  if (inner == nullptr) {
    *ok = false;
    return nullptr;
  }
  std::memcpy(static_cast<void*>(inner), from, sizeof(Inner));
  // Children not yet copied are not owned: the count says how many are.
  inner->count = 0;
  for (size_t i = 0; i < from->count; i++) {
    Node* child = CloneNode(from->children[i], memory, previous, ok);
    if (child == nullptr) break;
    inner->children[i] = child;
    inner->count++;
  }
  return inner;
}

ZsetValue* ZsetValue::Clone(const ZsetValue& zset, MemoryAccountant& memory) {
  void* block = memory.Allocate(sizeof(ZsetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* copy = new (block) ZsetValue();
  copy->hash_seed_ = zset.hash_seed_;
  copy->members_ = zset.members_;
  bool ok = true;
  if (zset.is_listpack()) {
    const uint32_t bytes = listpack::TotalBytes(zset.listpack_);
    copy->listpack_ = static_cast<unsigned char*>(memory.Allocate(bytes, MemoryUse::kKeyspace));
    ok = copy->listpack_ != nullptr;
    if (ok) {
      std::memcpy(copy->listpack_, zset.listpack_, bytes);
      copy->listpack_bytes_ = bytes;
    }
  } else {
    if (zset.arena_used_ > 0) {
      copy->arena_ = static_cast<char*>(memory.Allocate(zset.arena_used_, MemoryUse::kKeyspace));
      ok = copy->arena_ != nullptr;
      if (ok) {
        std::memcpy(copy->arena_, zset.arena_, zset.arena_used_);
        copy->arena_capacity_ = copy->arena_used_ = zset.arena_used_;
        copy->arena_dead_ = zset.arena_dead_;
      }
    }
    Leaf* previous = nullptr;
    if (ok) {
      copy->root_ = CloneNode(zset.root_, memory, &previous, &ok);
      copy->height_ = zset.height_;
    }
    if (ok) {
      // The leftmost leaf is the first one copied.
      Node* node = copy->root_;
      while (!node->leaf) node = static_cast<Inner*>(node)->children[0];
      copy->first_ = static_cast<Leaf*>(node);
      copy->last_ = previous;
      ok = copy->index_.CopyFrom(zset.index_, memory);
    }
  }
  if (!ok) {
    Destroy(copy, memory);
    return nullptr;
  }
  return copy;
}

ZsetValue* ZsetValue::FromListpackBlob(MemoryAccountant& memory, uint64_t hash_seed,
                                       std::string_view blob, bool* corrupt) {
  *corrupt = true;
  const auto* bytes = reinterpret_cast<const unsigned char*>(blob.data());
  size_t count = 0;
  if (blob.size() > UINT32_MAX || !listpack::Validate(bytes, blob.size(), &count)) return nullptr;
  if (count % 2 != 0) return nullptr;
  // Redis checks for repeated members; Keel also checks the order and the scores, so that no
  // command meets a listpack its walks would misread.
  const unsigned char* p = bytes + listpack::kHeaderBytes;
  std::string previous_member;
  double previous_score = 0;
  char member_digits[24];
  char score_digits[24];
  std::vector<std::string> members;
  for (size_t i = 0; i < count / 2; i++) {
    std::string_view member;
    std::string_view score_text;
    p = zset_internal::ReadEntry(p, &member, member_digits);
    p = zset_internal::ReadEntry(p, &score_text, score_digits);
    const double score = ZsetParseEntryScore(score_text);
    if (std::isnan(score)) return nullptr;
    if (i > 0 && (score < previous_score ||
                  (score == previous_score && CompareBytes(previous_member, member) >= 0))) {
      return nullptr;
    }
    members.emplace_back(member);
    previous_member.assign(member);
    previous_score = score;
  }
  std::sort(members.begin(), members.end());
  if (std::adjacent_find(members.begin(), members.end()) != members.end()) return nullptr;
  *corrupt = false;
  void* block = memory.Allocate(sizeof(ZsetValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  auto* zset = new (block) ZsetValue();
  zset->hash_seed_ = hash_seed;
  zset->listpack_ = static_cast<unsigned char*>(memory.Allocate(blob.size(), MemoryUse::kKeyspace));
  if (zset->listpack_ == nullptr) {
    Destroy(zset, memory);
    return nullptr;
  }
  std::memcpy(zset->listpack_, blob.data(), blob.size());
  zset->listpack_bytes_ = static_cast<uint32_t>(blob.size());
  zset->members_ = static_cast<uint32_t>(count / 2);
  // A count past what the header can say is written as "unknown"; Keel's own header says so too.
  listpack::SetHeader(zset->listpack_, static_cast<uint32_t>(blob.size()), count);
  return zset;
}

// ---------------------------------------------------------------------------------------------
// Queries.

std::string_view ZsetValue::listpack_blob() const {
  KEEL_DASSERT(is_listpack());
  return {reinterpret_cast<const char*>(listpack_), listpack::TotalBytes(listpack_)};
}

size_t ZsetValue::allocated_bytes() const {
  size_t bytes = sizeof(ZsetValue) + listpack_bytes_ + arena_capacity_ + index_.allocated_bytes();
  // Leaves hold at least a quarter of kLeafMax keys, inner nodes are about 1/16 of the leaves:
  // an estimate from the count, as walking a large tree for MEMORY USAGE would cost O(n).
  if (root_ != nullptr) {
    const size_t leaves = std::max<size_t>(1, (members_ + kLeafMax / 2) / (kLeafMax * 3 / 4));
    bytes += leaves * sizeof(Leaf) + (leaves / (kInnerMax / 2)) * sizeof(Inner);
  }
  return bytes;
}

bool ZsetValue::Score(std::string_view member, double* score) const {
  if (is_listpack()) return ListpackFind(member, score) != nullptr;
  const uint64_t offset = index_.Find(records(), member, HashOf(member));
  if (offset == MemberIndex::kAbsent) return false;
  *score = ScoreAt(offset);
  return true;
}

bool ZsetValue::FitsListpack(const Limits& limits) const {
  if (size() > limits.entries_max) return false;
  if (is_listpack()) return true;
  bool fits = true;
  size_t total = 0;
  ForEach([&](std::string_view member, double) {
    if (member.size() > limits.value_max) fits = false;
    total += member.size() + 32;
  });
  // lpSafeToAdd: a listpack stays under 1 GiB.
  return fits && total < (size_t{1} << 30);
}

size_t ZsetValue::RankOf(std::string_view member, double score) const {
  if (is_listpack()) {
    size_t rank = 0;
    size_t found = SIZE_MAX;
    ListpackForRange(0, size(), false, [&](std::string_view at, double) {
      if (found == SIZE_MAX && at == member) found = rank;
      rank++;
    });
    KEEL_ASSERT(found != SIZE_MAX);
    return found;
  }
  size_t rank = 0;
  LowerBound([&](const Key& key) { return CompareKey(score, member, key) > 0; }, &rank);
  return rank;
}

size_t ZsetValue::CountScoreBelow(double score, bool exclusive) const {
  if (is_listpack()) {
    size_t below = 0;
    bool done = false;
    ListpackForRange(0, size(), false, [&](std::string_view, double at) {
      if (done) return;
      if (exclusive ? at <= score : at < score) {
        below++;
      } else {
        done = true;
      }
    });
    return below;
  }
  size_t rank = 0;
  LowerBound([&](const Key& key) { return exclusive ? key.score <= score : key.score < score; },
             &rank);
  return rank;
}

size_t ZsetValue::CountLexBelow(std::string_view member, bool exclusive) const {
  auto before = [&](std::string_view at) {
    const int c = CompareBytes(at, member);
    return exclusive ? c <= 0 : c < 0;
  };
  if (is_listpack()) {
    size_t below = 0;
    bool done = false;
    ListpackForRange(0, size(), false, [&](std::string_view at, double) {
      if (done) return;
      if (before(at)) {
        below++;
      } else {
        done = true;
      }
    });
    return below;
  }
  size_t rank = 0;
  LowerBound([&](const Key& key) { return before(MemberAt(key.offset)); }, &rank);
  return rank;
}

// ---------------------------------------------------------------------------------------------
// Changes.

ZsetValue::SetOutcome ZsetValue::Set(std::string_view member, double score, const Limits& limits,
                                     MemoryAccountant& memory) {
  KEEL_DASSERT(!std::isnan(score));
  if (is_listpack()) {
    double current = 0;
    const bool present = ListpackFind(member, &current) != nullptr;
    if (present && current == score) return SetOutcome::kUpdated;
    if (!present && (size() + 1 > limits.entries_max || member.size() > limits.value_max)) {
      if (!ConvertToSkiplist(memory)) return SetOutcome::kOutOfMemory;
    } else {
      bool added = false;
      if (!ListpackSet(member, score, memory, &added)) return SetOutcome::kOutOfMemory;
      return added ? SetOutcome::kAdded : SetOutcome::kUpdated;
    }
  }
  const uint64_t hash = HashOf(member);
  const uint64_t found = index_.Find(records(), member, hash);
  if (found != MemberIndex::kAbsent) {
    const uint64_t offset = found;
    const double current = ScoreAt(offset);
    if (current == score) return SetOutcome::kUpdated;
    // The new key goes in before the old one leaves, so a refusal changes nothing.
    if (!TreeInsert(Key{score, offset}, memory)) return SetOutcome::kOutOfMemory;
    TreeErase(current, member, memory);
    SetScoreAt(offset, score);
    return SetOutcome::kUpdated;
  }
  if (!ReserveArena(RecordBytes(member.size()), memory)) return SetOutcome::kOutOfMemory;
  if (!index_.Reserve(records(), 1, memory)) return SetOutcome::kOutOfMemory;
  const size_t used_before = arena_used_;
  const uint64_t offset = AppendRecord(member, score);
  if (!index_.Insert(records(), offset, hash, memory)) {
    arena_used_ = used_before;
    return SetOutcome::kOutOfMemory;
  }
  if (!TreeInsert(Key{score, offset}, memory)) {
    index_.Remove(records(), member, hash);
    arena_used_ = used_before;
    return SetOutcome::kOutOfMemory;
  }
  members_++;
  index_.Advance(records(), 1, memory);
  return SetOutcome::kAdded;
}

bool ZsetValue::SetMany(std::span<const std::pair<std::string_view, double>> changes,
                        const Limits& limits, MemoryAccountant& memory) {
  if (is_listpack()) {
    // A listpack is small: the changes go into a copy, which replaces it when all went in.
    ZsetValue* copy = Clone(*this, memory);
    if (copy == nullptr) return false;
    for (const auto& [member, score] : changes) {
      if (copy->Set(member, score, limits, memory) == SetOutcome::kOutOfMemory) {
        Destroy(copy, memory);
        return false;
      }
    }
    SwapContents(*copy);
    Destroy(copy, memory);
    return true;
  }
  // In place, in two passes that only add: new members (record, slot and key), then the new keys
  // of updated members beside their old ones. Undoing either only removes, which cannot fail;
  // once both are in, the old keys go.
  size_t new_bytes = 0;
  size_t new_members = 0;
  for (const auto& [member, score] : changes) {
    if (index_.Find(records(), member, HashOf(member)) == MemberIndex::kAbsent) {
      new_bytes += RecordBytes(member.size());
      new_members++;
    }
  }
  if (!ReserveArena(new_bytes, memory)) return false;
  if (!index_.Reserve(records(), new_members, memory)) return false;
  const size_t arena_before = arena_used_;
  std::vector<size_t> added;    // indexes into changes
  std::vector<size_t> updated;  // indexes into changes
  std::vector<double> old_scores;
  bool ok = true;
  for (size_t i = 0; i < changes.size() && ok; i++) {
    const auto& [member, score] = changes[i];
    const uint64_t hash = HashOf(member);
    if (index_.Find(records(), member, hash) != MemberIndex::kAbsent) continue;
    const uint64_t offset = AppendRecord(member, score);
    if (!index_.Insert(records(), offset, hash, memory)) {
      ok = false;
    } else if (!TreeInsert(Key{score, offset}, memory)) {
      index_.Remove(records(), member, hash);
      ok = false;
    } else {
      added.push_back(i);
      members_++;
    }
  }
  for (size_t i = 0; i < changes.size() && ok; i++) {
    const auto& [member, score] = changes[i];
    const uint64_t offset = index_.Find(records(), member, HashOf(member));
    if (offset >= arena_before) continue;  // added above
    const double current = ScoreAt(offset);
    if (current == score) continue;
    if (!TreeInsert(Key{score, offset}, memory)) {
      ok = false;
    } else {
      updated.push_back(i);
      old_scores.push_back(current);
    }
  }
  if (!ok) {
    for (size_t i : updated) TreeErase(changes[i].second, changes[i].first, memory);
    for (size_t i : added) {
      const std::string_view member = changes[i].first;
      TreeErase(changes[i].second, member, memory);
      index_.Remove(records(), member, HashOf(member));
      members_--;
    }
    arena_used_ = arena_before;
    return false;
  }
  for (size_t k = 0; k < updated.size(); k++) {
    const std::string_view member = changes[updated[k]].first;
    TreeErase(old_scores[k], member, memory);
    SetScoreAt(index_.Find(records(), member, HashOf(member)), changes[updated[k]].second);
  }
  index_.Advance(records(), added.size(), memory);
  return true;
}

void ZsetValue::SwapContents(ZsetValue& other) {
  std::swap(listpack_, other.listpack_);
  std::swap(listpack_bytes_, other.listpack_bytes_);
  std::swap(members_, other.members_);
  std::swap(arena_, other.arena_);
  std::swap(arena_used_, other.arena_used_);
  std::swap(arena_capacity_, other.arena_capacity_);
  std::swap(arena_dead_, other.arena_dead_);
  std::swap(root_, other.root_);
  std::swap(first_, other.first_);
  std::swap(last_, other.last_);
  std::swap(height_, other.height_);
  index_.Swap(other.index_);
}

bool ZsetValue::Remove(std::string_view member, MemoryAccountant& memory) {
  if (is_listpack()) {
    double score = 0;
    const unsigned char* entry = ListpackFind(member, &score);
    if (entry == nullptr) return false;
    const size_t from = static_cast<size_t>(entry - listpack_);
    const unsigned char* score_entry = entry + listpack::EntrySize(entry);
    const size_t to =
        static_cast<size_t>(score_entry + listpack::EntrySize(score_entry) - listpack_);
    if (!ListpackSplice(from, to, {}, 0, false, memory)) {
      // The smaller block was refused: close the gap in place and keep the larger block.
      const uint32_t total = listpack::TotalBytes(listpack_);
      std::memmove(listpack_ + from, listpack_ + to, total - to);
      members_--;
      listpack::SetHeader(listpack_, static_cast<uint32_t>(total - (to - from)), members_ * 2);
    }
    return true;
  }
  const uint64_t hash = HashOf(member);
  const uint64_t offset = index_.Find(records(), member, hash);
  if (offset == MemberIndex::kAbsent) return false;
  TreeErase(ScoreAt(offset), member, memory);
  index_.Remove(records(), member, hash);
  arena_dead_ += RecordBytes(member.size());
  members_--;
  index_.Advance(records(), 1, memory);
  index_.MaybeShrink(records(), memory);
  MaybeCompact(memory);
  return true;
}

bool ZsetValue::ConvertToSkiplist(MemoryAccountant& memory) {
  KEEL_ASSERT(is_listpack());
  ZsetValue* built = CreateSkiplist(memory, hash_seed_, size());
  if (built == nullptr) return false;
  const Limits unlimited{0, 0};
  bool ok = true;
  ListpackForRange(0, size(), false, [&](std::string_view member, double score) {
    if (ok) ok = built->Set(member, score, unlimited, memory) == SetOutcome::kAdded;
  });
  if (!ok) {
    Destroy(built, memory);
    return false;
  }
  KEEL_ASSERT(built->members_ == members_);
  SwapContents(*built);
  Destroy(built, memory);
  return true;
}

bool ZsetValue::ConvertToListpack(MemoryAccountant& memory) {
  KEEL_ASSERT(!is_listpack());
  size_t bytes = listpack::kEmptyBytes;
  ForEach([&](std::string_view member, double score) { bytes += PairBytes(member, score); });
  if (bytes > UINT32_MAX) return false;
  auto* blob = static_cast<unsigned char*>(memory.Allocate(bytes, MemoryUse::kKeyspace));
  if (blob == nullptr) return false;
  unsigned char* out = blob + listpack::kHeaderBytes;
  ForEach([&](std::string_view member, double score) { out = WritePair(out, member, score); });
  *out = listpack::kEnd;
  listpack::SetHeader(blob, static_cast<uint32_t>(bytes), members_ * 2);
  memory.Deallocate(arena_, arena_capacity_, MemoryUse::kKeyspace);
  DestroyNode(root_, memory);
  index_.Destroy(memory);
  arena_ = nullptr;
  arena_used_ = arena_capacity_ = arena_dead_ = 0;
  root_ = nullptr;
  first_ = last_ = nullptr;
  height_ = 0;
  listpack_ = blob;
  listpack_bytes_ = static_cast<uint32_t>(bytes);
  return true;
}

// ---------------------------------------------------------------------------------------------
// listpack.

const unsigned char* ZsetValue::ListpackFind(std::string_view member, double* score) const {
  const unsigned char* p = listpack_ + listpack::kHeaderBytes;
  while (*p != listpack::kEnd) {
    const unsigned char* score_entry = p + listpack::EntrySize(p);
    if (listpack::EntryEquals(p, member)) {
      char digits[24];
      std::string_view text;
      zset_internal::ReadEntry(score_entry, &text, digits);
      *score = ZsetParseEntryScore(text);
      return p;
    }
    p = score_entry + listpack::EntrySize(score_entry);
  }
  return nullptr;
}

bool ZsetValue::ListpackSplice(size_t from, size_t to, std::string_view member, double score,
                               bool insert, MemoryAccountant& memory) {
  const uint32_t total = listpack::TotalBytes(listpack_);
  const size_t inserted = insert ? PairBytes(member, score) : 0;
  const size_t bytes = total - (to - from) + inserted;
  auto* blob = static_cast<unsigned char*>(memory.Allocate(bytes, MemoryUse::kKeyspace));
  if (blob == nullptr) return false;
  std::memcpy(blob, listpack_, from);
  if (insert) WritePair(blob + from, member, score);
  std::memcpy(blob + from + inserted, listpack_ + to, total - to);
  members_ = static_cast<uint32_t>(members_ + (insert ? 1 : 0) - (to > from ? 1 : 0));
  listpack::SetHeader(blob, static_cast<uint32_t>(bytes), members_ * 2);
  memory.Deallocate(listpack_, listpack_bytes_, MemoryUse::kKeyspace);
  listpack_ = blob;
  listpack_bytes_ = static_cast<uint32_t>(bytes);
  return true;
}

bool ZsetValue::ListpackSet(std::string_view member, double score, MemoryAccountant& memory,
                            bool* added) {
  // Where the pair goes (zzlInsert: before the first pair with a greater score, or an equal
  // score and a greater member) and where the member's old pair is, in one walk.
  size_t old_from = 0;
  size_t old_to = 0;
  size_t insert_at = SIZE_MAX;
  const unsigned char* p = listpack_ + listpack::kHeaderBytes;
  while (*p != listpack::kEnd) {
    const unsigned char* score_entry = p + listpack::EntrySize(p);
    const unsigned char* next = score_entry + listpack::EntrySize(score_entry);
    char member_digits[24];
    char score_digits[24];
    std::string_view at_member;
    std::string_view at_score;
    zset_internal::ReadEntry(p, &at_member, member_digits);
    zset_internal::ReadEntry(score_entry, &at_score, score_digits);
    if (at_member == member) {
      old_from = static_cast<size_t>(p - listpack_);
      old_to = static_cast<size_t>(next - listpack_);
    } else if (insert_at == SIZE_MAX) {
      const double s = ZsetParseEntryScore(at_score);
      if (s > score || (s == score && CompareBytes(at_member, member) > 0)) {
        insert_at = static_cast<size_t>(p - listpack_);
      }
    }
    p = next;
  }
  if (insert_at == SIZE_MAX) insert_at = static_cast<size_t>(p - listpack_);
  *added = old_to == 0;
  if (old_to == 0) return ListpackSplice(insert_at, insert_at, member, score, true, memory);
  // The member moves: one new block without the old pair and with the new one.
  const uint32_t total = listpack::TotalBytes(listpack_);
  const size_t inserted = PairBytes(member, score);
  const size_t bytes = total - (old_to - old_from) + inserted;
  auto* blob = static_cast<unsigned char*>(memory.Allocate(bytes, MemoryUse::kKeyspace));
  if (blob == nullptr) return false;
  unsigned char* out = blob;
  auto copy = [&](size_t from, size_t to) {
    std::memcpy(out, listpack_ + from, to - from);
    out += to - from;
  };
  if (insert_at <= old_from) {
    copy(0, insert_at);
    out = WritePair(out, member, score);
    copy(insert_at, old_from);
    copy(old_to, total);
  } else {
    copy(0, old_from);
    copy(old_to, insert_at);
    out = WritePair(out, member, score);
    copy(insert_at, total);
  }
  KEEL_ASSERT(static_cast<size_t>(out - blob) == bytes);
  listpack::SetHeader(blob, static_cast<uint32_t>(bytes), members_ * 2);
  memory.Deallocate(listpack_, listpack_bytes_, MemoryUse::kKeyspace);
  listpack_ = blob;
  listpack_bytes_ = static_cast<uint32_t>(bytes);
  return true;
}

// ---------------------------------------------------------------------------------------------
// The arena: records of a varint length, the member's bytes and the score (8 bytes).

size_t ZsetValue::RecordBytes(size_t member_size) {
  return VarintBytes(member_size) + member_size + sizeof(double);
}

std::string_view ZsetValue::MemberAt(uint64_t offset) const {
  KEEL_DASSERT(offset < arena_used_);
  return RecordMember(arena_, offset);
}

double ZsetValue::ScoreAt(uint64_t offset) const {
  const std::string_view member = MemberAt(offset);
  double score = 0;
  std::memcpy(&score, member.data() + member.size(), sizeof(score));
  return score;
}

void ZsetValue::SetScoreAt(uint64_t offset, double score) {
  const std::string_view member = MemberAt(offset);
  std::memcpy(const_cast<char*>(member.data() + member.size()), &score, sizeof(score));
}

bool ZsetValue::ReserveArena(size_t bytes, MemoryAccountant& memory) {
  if (arena_used_ + bytes <= arena_capacity_) return true;
  // Grown by a quarter, so that a set built by ZADDs costs amortised O(1) per member.
  const size_t needed = arena_used_ + bytes;
  const size_t capacity = std::max(needed + needed / 4, size_t{256});
  if (capacity > MemberIndex::kOffsetMax) return false;
  return ResizeArena(&arena_, &arena_capacity_, arena_used_, capacity, memory);
}

uint64_t ZsetValue::AppendRecord(std::string_view member, double score) {
  KEEL_DASSERT(arena_used_ + RecordBytes(member.size()) <= arena_capacity_);
  const size_t offset = arena_used_;
  auto* p = reinterpret_cast<unsigned char*>(arena_ + offset);
  const size_t i = WriteVarint(p, member.size());
  if (!member.empty()) std::memcpy(p + i, member.data(), member.size());
  std::memcpy(p + i + member.size(), &score, sizeof(score));
  arena_used_ += i + member.size() + sizeof(score);
  return offset;
}

void ZsetValue::MaybeCompact(MemoryAccountant& memory) {
  if (arena_dead_ <= 4096 || arena_dead_ <= arena_used_ / 2) return;
  const size_t live = arena_used_ - arena_dead_;
  const size_t capacity = std::max(live + live / 4, size_t{256});
  char* arena = static_cast<char*>(memory.Allocate(capacity, MemoryUse::kKeyspace));
  if (arena == nullptr) return;
  // Nothing can fail from here on. Records move in tree order; every key and slot is rewritten,
  // and the lower bounds of the inner nodes (which may name dead records) are recomputed.
  char* old_arena = arena_;
  const size_t old_capacity = arena_capacity_;
  size_t used = 0;
  for (Leaf* leaf = first_; leaf != nullptr; leaf = leaf->next) {
    for (size_t i = 0; i < leaf->count; i++) {
      const uint64_t old_offset = leaf->keys[i].offset;
      const std::string_view member = MemberAt(old_offset);
      const size_t bytes = RecordBytes(member.size());
      std::memcpy(arena + used, member.data() + member.size() + sizeof(double) - bytes, bytes);
      leaf->keys[i].offset = used;
      used += bytes;
    }
  }
  // The index is filled again in tree order (a running resize ends: its target stays).
  index_.Clear(memory);
  arena_ = arena;
  arena_capacity_ = capacity;
  arena_used_ = used;
  arena_dead_ = 0;
  memory.Deallocate(old_arena, old_capacity, MemoryUse::kKeyspace);
  for (Leaf* leaf = first_; leaf != nullptr; leaf = leaf->next) {
    for (size_t i = 0; i < leaf->count; i++) {
      const uint64_t offset = leaf->keys[i].offset;
      // The same members fill a table that held them, in any order: nothing can fail.
      const bool inserted = index_.Insert(records(), offset, HashOf(MemberAt(offset)), memory);
      KEEL_ASSERT(inserted);
    }
  }
  RefreshMins(root_);
}

// ---------------------------------------------------------------------------------------------
// The B+tree.

int ZsetValue::CompareKey(double score, std::string_view member, const Key& key) const {
  if (score < key.score) return -1;
  if (score > key.score) return 1;
  return CompareBytes(member, MemberAt(key.offset));
}

ZsetValue::Key ZsetValue::MinKey(const Node* node) {
  while (!node->leaf) node = static_cast<const Inner*>(node)->children[0];
  const auto* leaf = static_cast<const Leaf*>(node);
  KEEL_ASSERT(leaf->count > 0);
  return leaf->keys[0];
}

ZsetValue::Key ZsetValue::RefreshMins(Node* node) {
  if (node->leaf) {
    const auto* leaf = static_cast<const Leaf*>(node);
    return leaf->count > 0 ? leaf->keys[0] : Key{0, 0};
  }
  auto* inner = static_cast<Inner*>(node);
  for (size_t i = 0; i < inner->count; i++) inner->mins[i] = RefreshMins(inner->children[i]);
  return inner->mins[0];
}

namespace {
template <typename NodeT>
uint64_t SubtreeSize(const NodeT* inner) {
  uint64_t total = 0;
  for (size_t i = 0; i < inner->count; i++) total += inner->sizes[i];
  return total;
}
}  // namespace

template <typename Before>
ZsetValue::Cursor ZsetValue::LowerBound(Before&& before, size_t* rank) const {
  *rank = 0;
  const Node* node = root_;
  while (!node->leaf) {
    const auto* inner = static_cast<const Inner*>(node);
    // The last child whose lower bound is before the target: everything in the children left
    // of it is before the target too.
    size_t low = 1;
    size_t high = inner->count;
    while (low < high) {
      const size_t middle = low + (high - low) / 2;
      if (before(inner->mins[middle])) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    const size_t child = low - 1;
    for (size_t i = 0; i < child; i++) *rank += inner->sizes[i];
    node = inner->children[child];
  }
  const auto* leaf = static_cast<const Leaf*>(node);
  size_t low = 0;
  size_t high = leaf->count;
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    if (before(leaf->keys[middle])) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  *rank += low;
  if (low == leaf->count && leaf->next != nullptr) return Cursor{leaf->next, 0};
  return Cursor{leaf, low};
}

ZsetValue::Cursor ZsetValue::AtRank(size_t rank) const {
  KEEL_ASSERT(rank < members_);
  const Node* node = root_;
  while (!node->leaf) {
    const auto* inner = static_cast<const Inner*>(node);
    size_t i = 0;
    while (i + 1 < inner->count && rank >= inner->sizes[i]) rank -= inner->sizes[i++];
    node = inner->children[i];
  }
  KEEL_ASSERT(rank < node->count);
  return Cursor{static_cast<const Leaf*>(node), rank};
}

bool ZsetValue::TreeInsert(Key key, MemoryAccountant& memory) {
  const std::string_view member = MemberAt(key.offset);
  PathStep path[kHeightMax];
  size_t depth = 0;
  Node* node = root_;
  bool rightmost = true;
  while (!node->leaf) {
    auto* inner = static_cast<Inner*>(node);
    size_t child = 0;
    for (size_t low = 1, high = inner->count; low < high;) {
      const size_t middle = low + (high - low) / 2;
      if (CompareKey(key.score, member, inner->mins[middle]) >= 0) {
        low = middle + 1;
        child = middle;
      } else {
        high = middle;
      }
    }
    KEEL_ASSERT(depth < kHeightMax);
    path[depth++] = PathStep{inner, child, rightmost};
    rightmost = rightmost && child + 1 == inner->count;
    node = inner->children[child];
  }
  auto* leaf = static_cast<Leaf*>(node);
  // Every full node from the leaf up splits, and a full root makes a new root: allocate them all
  // before changing anything, so that a refusal leaves the tree as it was.
  size_t splits = leaf->count == kLeafMax ? 1 : 0;
  for (size_t d = depth; splits == depth - d + 1 && d > 0; d--) {
    if (path[d - 1].node->count == kInnerMax) splits++;
  }
  const size_t new_nodes = splits == 0 ? 0 : splits + (splits == depth + 1 ? 1 : 0);
  void* fresh[kHeightMax + 2];
  for (size_t i = 0; i < new_nodes; i++) {
    const size_t bytes = (i == 0) ? sizeof(Leaf) : sizeof(Inner);
    fresh[i] = memory.Allocate(bytes, MemoryUse::kKeyspace);
    if (fresh[i] == nullptr) {
      for (size_t j = 0; j < i; j++) {
        memory.Deallocate(fresh[j], j == 0 ? sizeof(Leaf) : sizeof(Inner), MemoryUse::kKeyspace);
      }
      return false;
    }
  }
  size_t fresh_used = 0;
  // Nothing fails from here on.
  for (size_t d = 0; d < depth; d++) {
    Inner* inner = path[d].node;
    if (path[d].index == 0 && CompareKey(key.score, member, inner->mins[0]) < 0) {
      inner->mins[0] = key;
    }
  }
  size_t position = 0;
  for (size_t low = 0, high = leaf->count; low < high;) {
    const size_t middle = low + (high - low) / 2;
    if (CompareKey(key.score, member, leaf->keys[middle]) > 0) {
      low = middle + 1;
      position = low;
    } else {
      high = middle;
    }
  }
  Node* sibling = nullptr;  // a new right sibling of the node at the current level
  Key sibling_min{};
  uint64_t sibling_size = 0;
  uint64_t node_size = 0;
  if (leaf->count == kLeafMax) {
    auto* right = new (fresh[fresh_used++]) Leaf();
    right->leaf = true;
    // Appending past the last key of the set (scores that only grow) keeps the full leaf full
    // and starts the next one, so that such a set fills its leaves instead of halving them.
    const bool appending = position == kLeafMax && leaf == last_;
    const size_t half = appending ? kLeafMax : kLeafMax / 2;
    right->count = static_cast<uint16_t>(kLeafMax - half);
    std::memcpy(right->keys, leaf->keys + half, right->count * sizeof(Key));
    leaf->count = static_cast<uint16_t>(half);
    right->next = leaf->next;
    right->prev = leaf;
    if (leaf->next != nullptr) leaf->next->prev = right;
    leaf->next = right;
    if (last_ == leaf) last_ = right;
    Leaf* target = leaf;
    if (position > half || appending) {
      target = right;
      position -= half;
    }
    std::memmove(target->keys + position + 1, target->keys + position,
                 (target->count - position) * sizeof(Key));
    target->keys[position] = key;
    target->count++;
    sibling = right;
    sibling_min = right->keys[0];
    sibling_size = right->count;
    node_size = leaf->count;
  } else {
    std::memmove(leaf->keys + position + 1, leaf->keys + position,
                 (leaf->count - position) * sizeof(Key));
    leaf->keys[position] = key;
    leaf->count++;
  }
  for (size_t d = depth; d > 0; d--) {
    Inner* inner = path[d - 1].node;
    const size_t index = path[d - 1].index;
    if (sibling == nullptr) {
      inner->sizes[index]++;
      continue;
    }
    inner->sizes[index] = node_size;
    Inner* target = inner;
    size_t at = index + 1;
    Node* split_off = nullptr;
    if (inner->count == kInnerMax) {
      auto* right = new (fresh[fresh_used++]) Inner();
      right->leaf = false;
      // As for leaves: a child appended to the last node of its level starts the next node.
      const bool appending = at == kInnerMax && path[d - 1].rightmost;
      const size_t half = appending ? kInnerMax : kInnerMax / 2;
      right->count = static_cast<uint16_t>(kInnerMax - half);
      std::memcpy(right->sizes, inner->sizes + half, right->count * sizeof(uint64_t));
      std::memcpy(right->children, inner->children + half, right->count * sizeof(Node*));
      std::memcpy(right->mins, inner->mins + half, right->count * sizeof(Key));
      inner->count = static_cast<uint16_t>(half);
      if (at > half || appending) {
        target = right;
        at -= half;
      }
      split_off = right;
    }
    std::memmove(target->sizes + at + 1, target->sizes + at, (target->count - at) * 8);
    std::memmove(target->children + at + 1, target->children + at,
                 (target->count - at) * sizeof(Node*));
    std::memmove(target->mins + at + 1, target->mins + at, (target->count - at) * sizeof(Key));
    target->sizes[at] = sibling_size;
    target->children[at] = sibling;
    target->mins[at] = sibling_min;
    target->count++;
    if (split_off == nullptr) {
      sibling = nullptr;
    } else {
      auto* right = static_cast<Inner*>(split_off);
      sibling = right;
      sibling_min = right->mins[0];
      sibling_size = SubtreeSize(right);
      node_size = SubtreeSize(inner);
    }
  }
  if (sibling != nullptr) {
    auto* root = new (fresh[fresh_used++]) Inner();
    root->leaf = false;
    root->count = 2;
    root->children[0] = root_;
    root->children[1] = sibling;
    root->sizes[0] = node_size;
    root->sizes[1] = sibling_size;
    root->mins[0] = MinKey(root_);
    root->mins[1] = sibling_min;
    root_ = root;
    height_++;
    KEEL_ASSERT(height_ < kHeightMax);
  }
  KEEL_ASSERT(fresh_used == new_nodes);
  return true;
}

void ZsetValue::TreeErase(double score, std::string_view member, MemoryAccountant& memory) {
  PathStep path[kHeightMax];
  size_t depth = 0;
  Node* node = root_;
  while (!node->leaf) {
    auto* inner = static_cast<Inner*>(node);
    size_t child = 0;
    for (size_t low = 1, high = inner->count; low < high;) {
      const size_t middle = low + (high - low) / 2;
      if (CompareKey(score, member, inner->mins[middle]) >= 0) {
        low = middle + 1;
        child = middle;
      } else {
        high = middle;
      }
    }
    path[depth++] = PathStep{inner, child};
    node = inner->children[child];
  }
  auto* leaf = static_cast<Leaf*>(node);
  size_t position = 0;
  for (size_t low = 0, high = leaf->count; low < high;) {
    const size_t middle = low + (high - low) / 2;
    if (CompareKey(score, member, leaf->keys[middle]) > 0) {
      low = middle + 1;
      position = low;
    } else {
      high = middle;
    }
  }
  KEEL_ASSERT(position < leaf->count);
  KEEL_ASSERT(CompareKey(score, member, leaf->keys[position]) == 0);
  std::memmove(leaf->keys + position, leaf->keys + position + 1,
               (leaf->count - position - 1) * sizeof(Key));
  leaf->count--;
  for (size_t d = 0; d < depth; d++) path[d].node->sizes[path[d].index]--;
  Rebalance(path, depth, memory);
}

void ZsetValue::Rebalance(PathStep* path, size_t depth, MemoryAccountant& memory) {
  Node* node =
      path == nullptr || depth == 0 ? root_ : path[depth - 1].node->children[path[depth - 1].index];
  for (size_t d = depth; d > 0; d--) {
    Inner* parent = path[d - 1].node;
    const size_t index = path[d - 1].index;
    const size_t most = node->leaf ? kLeafMax : kInnerMax;
    if (node->count >= most / 4 || parent->count < 2) break;
    const size_t a = index + 1 < parent->count ? index : index - 1;
    const size_t b = a + 1;
    Node* left = parent->children[a];
    Node* right = parent->children[b];
    const size_t total = left->count + right->count;
    if (left->leaf) {
      auto* l = static_cast<Leaf*>(left);
      auto* r = static_cast<Leaf*>(right);
      if (total <= kLeafMax) {
        std::memcpy(l->keys + l->count, r->keys, r->count * sizeof(Key));
        l->count = static_cast<uint16_t>(total);
        l->next = r->next;
        if (r->next != nullptr) r->next->prev = l;
        if (last_ == r) last_ = l;
        right = nullptr;
        memory.Deallocate(r, sizeof(Leaf), MemoryUse::kKeyspace);
      } else if (l->count > r->count) {
        const size_t move = l->count - total / 2;
        std::memmove(r->keys + move, r->keys, r->count * sizeof(Key));
        std::memcpy(r->keys, l->keys + l->count - move, move * sizeof(Key));
        l->count = static_cast<uint16_t>(l->count - move);
        r->count = static_cast<uint16_t>(r->count + move);
      } else {
        const size_t move = r->count - total / 2;
        std::memcpy(l->keys + l->count, r->keys, move * sizeof(Key));
        std::memmove(r->keys, r->keys + move, (r->count - move) * sizeof(Key));
        l->count = static_cast<uint16_t>(l->count + move);
        r->count = static_cast<uint16_t>(r->count - move);
      }
      parent->sizes[a] = l->count;
      if (right != nullptr) parent->sizes[b] = r->count;
    } else {
      auto* l = static_cast<Inner*>(left);
      auto* r = static_cast<Inner*>(right);
      // The right node's first child takes the parent's bound for the right node when it moves
      // behind the left node's children: that bound is above all of them, its own may not be.
      const Key right_bound = parent->mins[b];
      if (total <= kInnerMax) {
        r->mins[0] = right_bound;
        std::memcpy(l->sizes + l->count, r->sizes, r->count * sizeof(uint64_t));
        std::memcpy(l->children + l->count, r->children, r->count * sizeof(Node*));
        std::memcpy(l->mins + l->count, r->mins, r->count * sizeof(Key));
        l->count = static_cast<uint16_t>(total);
        right = nullptr;
        memory.Deallocate(r, sizeof(Inner), MemoryUse::kKeyspace);
      } else if (l->count > r->count) {
        const size_t move = l->count - total / 2;
        r->mins[0] = right_bound;
        std::memmove(r->sizes + move, r->sizes, r->count * sizeof(uint64_t));
        std::memmove(r->children + move, r->children, r->count * sizeof(Node*));
        std::memmove(r->mins + move, r->mins, r->count * sizeof(Key));
        std::memcpy(r->sizes, l->sizes + l->count - move, move * sizeof(uint64_t));
        std::memcpy(r->children, l->children + l->count - move, move * sizeof(Node*));
        std::memcpy(r->mins, l->mins + l->count - move, move * sizeof(Key));
        l->count = static_cast<uint16_t>(l->count - move);
        r->count = static_cast<uint16_t>(r->count + move);
      } else {
        const size_t move = r->count - total / 2;
        r->mins[0] = right_bound;
        std::memcpy(l->sizes + l->count, r->sizes, move * sizeof(uint64_t));
        std::memcpy(l->children + l->count, r->children, move * sizeof(Node*));
        std::memcpy(l->mins + l->count, r->mins, move * sizeof(Key));
        std::memmove(r->sizes, r->sizes + move, (r->count - move) * sizeof(uint64_t));
        std::memmove(r->children, r->children + move, (r->count - move) * sizeof(Node*));
        std::memmove(r->mins, r->mins + move, (r->count - move) * sizeof(Key));
        l->count = static_cast<uint16_t>(l->count + move);
        r->count = static_cast<uint16_t>(r->count - move);
      }
      parent->sizes[a] = SubtreeSize(l);
      if (right != nullptr) parent->sizes[b] = SubtreeSize(r);
    }
    if (right == nullptr) {
      // The right node merged into the left: its entry leaves the parent.
      const size_t tail = parent->count - b - 1;
      std::memmove(parent->sizes + b, parent->sizes + b + 1, tail * sizeof(uint64_t));
      std::memmove(parent->children + b, parent->children + b + 1, tail * sizeof(Node*));
      std::memmove(parent->mins + b, parent->mins + b + 1, tail * sizeof(Key));
      parent->count--;
    } else {
      parent->mins[b] = MinKey(right);
    }
    node = parent;
  }
  while (!root_->leaf && root_->count == 1) {
    auto* old_root = static_cast<Inner*>(root_);
    root_ = old_root->children[0];
    memory.Deallocate(old_root, sizeof(Inner), MemoryUse::kKeyspace);
    height_--;
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants.

bool ZsetValue::CheckNode(const Node* node, size_t depth, size_t* count, const Key** last) const {
  if (node->leaf) {
    if (depth != height_) return false;
    const auto* leaf = static_cast<const Leaf*>(node);
    for (size_t i = 0; i < leaf->count; i++) {
      const Key& key = leaf->keys[i];
      if (key.offset >= arena_used_ || ScoreAt(key.offset) != key.score) return false;
      if (*last != nullptr && CompareKey((*last)->score, MemberAt((*last)->offset), key) >= 0) {
        return false;
      }
      *last = &key;
    }
    *count += leaf->count;
    return node == root_ || leaf->count >= 1;
  }
  const auto* inner = static_cast<const Inner*>(node);
  if (inner->count < (node == root_ ? 2 : 1)) return false;
  for (size_t i = 0; i < inner->count; i++) {
    const Key* previous_last = *last;
    // The bound sits above every earlier key and at or below every key of the child.
    if (i > 0 && previous_last != nullptr &&
        CompareKey(previous_last->score, MemberAt(previous_last->offset), inner->mins[i]) >= 0) {
      return false;
    }
    const Key first = MinKey(inner->children[i]);
    if (CompareKey(first.score, MemberAt(first.offset), inner->mins[i]) < 0) return false;
    size_t child_count = 0;
    if (!CheckNode(inner->children[i], depth + 1, &child_count, last)) return false;
    if (child_count != inner->sizes[i]) return false;
    *count += child_count;
  }
  return true;
}

bool ZsetValue::CheckInvariants() const {
  if (is_listpack()) {
    if (root_ != nullptr || index_.allocated() || arena_ != nullptr) return false;
    size_t count = 0;
    if (!listpack::Validate(listpack_, listpack::TotalBytes(listpack_), &count)) return false;
    if (count != size_t{members_} * 2) return false;
    bool ordered = true;
    bool first = true;
    double previous_score = 0;
    std::string previous_member;
    ForEach([&](std::string_view member, double score) {
      if (!first && (score < previous_score ||
                     (score == previous_score && CompareBytes(previous_member, member) >= 0))) {
        ordered = false;
      }
      first = false;
      previous_score = score;
      previous_member.assign(member);
    });
    return ordered;
  }
  size_t count = 0;
  const Key* last = nullptr;
  if (!CheckNode(root_, 0, &count, &last) || count != members_) return false;
  size_t linked = 0;
  const Leaf* previous = nullptr;
  for (const Leaf* leaf = first_; leaf != nullptr; leaf = leaf->next) {
    if (leaf->prev != previous) return false;
    linked += leaf->count;
    previous = leaf;
  }
  if (previous != last_ || linked != members_) return false;
  if (index_.size() != members_ || !index_.CheckInvariants(records())) return false;
  for (const Leaf* leaf = first_; leaf != nullptr; leaf = leaf->next) {
    for (size_t i = 0; i < leaf->count; i++) {
      const std::string_view member = MemberAt(leaf->keys[i].offset);
      if (index_.Find(records(), member, HashOf(member)) != leaf->keys[i].offset) return false;
    }
  }
  return true;
}

}  // namespace keel
