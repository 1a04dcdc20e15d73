// ZsetValue: a sorted set (members with double scores, ordered by score then by member bytes),
// in the two encodings Redis 7.0 reports for sorted sets.
//
// listpack  at most zset-max-listpack-entries members, none longer than zset-max-listpack-value
//           bytes. Held exactly as Redis's t_zset.c lays it out: one listpack of member, score,
//           member, score, ... in order, each score as d2string writes it (an integral score of
//           under 2^52 as an integer entry). The RDB form (RDB_TYPE_ZSET_LISTPACK) is those
//           bytes as they are. Every operation is a linear walk, as in Redis.
// skiplist  anything larger. Redis keeps a skiplist plus a dict (about 136 bytes per 16-byte
//           member); Keel keeps three compact parts:
//             - an arena of records (varint length, member bytes, 8-byte score), appended to and
//               compacted when half of it is dead;
//             - an order-statistic B+tree of (score, record offset) keys, 16 bytes each, in
//               leaves of kLeafMax keys linked both ways; inner nodes hold each child's subtree
//               size (so ranks cost O(log n)) and a lower bound of its keys;
//             - a MemberIndex (member_index.h, shared with sets and hashes: an open-addressing
//               table of 8-byte slots in hash order, resized incrementally), so that ZSCORE is
//               one probe and a ZSCAN cursor is a position in hash space that survives every
//               resize.
//           About 60 bytes per 16-byte member.
//
// A sorted set converts from listpack to skiplist as Redis's zsetAdd does (a new member past
// either limit) and back only where Redis converts (the STORE commands, loading). Nothing depends
// on pointer values. Memory comes from the MemoryAccountant (MemoryUse::kKeyspace); an operation
// that may allocate either completes or, when memory is refused, leaves the value as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "engine/db/types/listpack.h"
#include "engine/db/types/member_index.h"
#include "engine/env/memory.h"

namespace keel {

// A score as a listpack entry holds it (zzlInsertAt): an integer when the score is integral and
// within LLONG_MAX / 2 (-0 included, as 0), else d2string's "inf", "-inf" or "%.17g". Returns
// the length.
size_t ZsetScoreText(double score, char* out);  // out: at least 32 bytes

// Redis's zzlStrtod: the score an entry's text reads as (strtod of at most 127 bytes).
double ZsetParseEntryScore(std::string_view text);

class ZsetValue {
 public:
  struct Limits {
    size_t entries_max;  // zset-max-listpack-entries
    size_t value_max;    // zset-max-listpack-value
  };

  static constexpr size_t kLeafMax = 64;
  static constexpr size_t kInnerMax = 64;
  static constexpr size_t kHeightMax = 12;  // 16^11 keys at least: beyond any memory

  // An empty listpack-encoded sorted set, or nullptr when memory is refused.
  static ZsetValue* CreateListpack(MemoryAccountant& memory, uint64_t hash_seed);
  // An empty skiplist-encoded sorted set, or nullptr when memory is refused.
  static ZsetValue* CreateSkiplist(MemoryAccountant& memory, uint64_t hash_seed,
                                   size_t members_hint);
  // A listpack-encoded set holding `blob` (RDB_TYPE_ZSET_LISTPACK): nullptr when the blob is not
  // a valid listpack of distinct members in order with numeric scores, or memory is refused;
  // *corrupt tells which.
  static ZsetValue* FromListpackBlob(MemoryAccountant& memory, uint64_t hash_seed,
                                     std::string_view blob, bool* corrupt);
  static void Destroy(ZsetValue* zset, MemoryAccountant& memory);
  static ZsetValue* Clone(const ZsetValue& zset, MemoryAccountant& memory);

  ZsetValue(const ZsetValue&) = delete;
  ZsetValue& operator=(const ZsetValue&) = delete;

  bool is_listpack() const { return listpack_ != nullptr; }
  size_t size() const { return members_; }
  uint64_t hash_seed() const { return hash_seed_; }

  // The score of `member`; false when absent.
  bool Score(std::string_view member, double* score) const;

  enum class SetOutcome : uint8_t { kAdded, kUpdated, kOutOfMemory };
  // Gives `member` `score` (not NaN), adding it when absent and converting to skiplist first
  // when a new member passes `limits` (zsetAdd). kOutOfMemory leaves the set unchanged.
  // `member` must not point into this set.
  SetOutcome Set(std::string_view member, double score, const Limits& limits,
                 MemoryAccountant& memory);
  // Set for each of `changes` (distinct members, none pointing into this set), all or nothing:
  // false, with the set unchanged, when memory is refused.
  bool SetMany(std::span<const std::pair<std::string_view, double>> changes, const Limits& limits,
               MemoryAccountant& memory);
  // Removes `member`; false when absent. Never fails (a refused shrink keeps more memory).
  bool Remove(std::string_view member, MemoryAccountant& memory);

  // zsetConvert both ways; false (nothing changed) when memory is refused.
  bool ConvertToSkiplist(MemoryAccountant& memory);
  bool ConvertToListpack(MemoryAccountant& memory);
  // Whether the set fits the listpack limits (zsetConvertToListpackIfNeeded's test).
  bool FitsListpack(const Limits& limits) const;

  // The 0-based rank of `member` with `score` from the lowest (the member must be present).
  size_t RankOf(std::string_view member, double score) const;
  // The number of members ordered before the first whose score is >= `score` (> when
  // `exclusive`).
  size_t CountScoreBelow(double score, bool exclusive) const;
  // The number of members before the first that is >= `member` (> when `exclusive`), in member
  // order: meaningful when every score is the same, as Redis's lex commands assume. With
  // mixed scores the listpack answers as Redis's linear walk does.
  size_t CountLexBelow(std::string_view member, bool exclusive) const;

  // Visits members of ranks [start, start + count) from the lowest (`reverse`: from the
  // highest rank start downwards), as visit(std::string_view member, double score). The views
  // live until visit returns; visit may not change the set.
  template <typename Visit>
  void ForRange(size_t start, size_t count, bool reverse, Visit&& visit) const;
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    ForRange(0, size(), false, visit);
  }

  // ZSCAN: a listpack is visited whole (cursor 0 back). A skiplist visits the members whose
  // hash lies at and after `cursor` for about `count` slots and returns the next cursor (0 at
  // the end), as SetValue::Scan does.
  template <typename Visit>
  uint64_t Scan(uint64_t cursor, size_t count, Visit&& visit) const;

  // The listpack blob (is_listpack() only): the RDB_TYPE_ZSET_LISTPACK payload.
  std::string_view listpack_blob() const;
  size_t allocated_bytes() const;
  // Order, sizes, bounds, the index and the counts (tests, fuzzing).
  bool CheckInvariants() const;

 private:
  struct Key {
    double score;
    uint64_t offset;  // of the record in the arena
  };
  struct Node {
    uint16_t count;
    bool leaf;
  };
  struct Leaf : Node {
    Leaf* prev;
    Leaf* next;
    Key keys[kLeafMax];
  };
  struct Inner : Node {
    uint64_t sizes[kInnerMax];
    Node* children[kInnerMax];
    Key mins[kInnerMax];  // <= every key of the child; for i > 0, > every key of child i - 1
  };
  struct PathStep {
    Inner* node;
    size_t index;
    bool rightmost = false;  // the node is the last at its level
  };
  // A position in the leaves.
  struct Cursor {
    const Leaf* leaf;
    size_t index;
  };

  ZsetValue() = default;
  ~ZsetValue() = default;

  // Exchanges everything but the hash seed with `other`.
  void SwapContents(ZsetValue& other);

  // --- listpack ---------------------------------------------------------------------------
  // The entry of `member` (nullptr when absent) and its score.
  const unsigned char* ListpackFind(std::string_view member, double* score) const;
  bool ListpackSet(std::string_view member, double score, MemoryAccountant& memory, bool* added);
  // Replaces bytes [from, to) of the listpack with `insert` (member and score entries).
  bool ListpackSplice(size_t from, size_t to, std::string_view member, double score, bool insert,
                      MemoryAccountant& memory);
  template <typename Visit>
  void ListpackForRange(size_t start, size_t count, bool reverse, Visit&& visit) const;

  // --- arena ------------------------------------------------------------------------------
  std::string_view MemberAt(uint64_t offset) const;
  double ScoreAt(uint64_t offset) const;
  void SetScoreAt(uint64_t offset, double score);
  static size_t RecordBytes(size_t member_size);
  bool ReserveArena(size_t bytes, MemoryAccountant& memory);
  uint64_t AppendRecord(std::string_view member, double score);
  void MaybeCompact(MemoryAccountant& memory);

  // --- tree -------------------------------------------------------------------------------
  // <0, 0, >0 as (score, member) orders before, equal to, after `key`.
  int CompareKey(double score, std::string_view member, const Key& key) const;
  bool TreeInsert(Key key, MemoryAccountant& memory);
  void TreeErase(double score, std::string_view member, MemoryAccountant& memory);
  void Rebalance(PathStep* path, size_t depth, MemoryAccountant& memory);
  // The first position whose key is not `before` it, and its rank.
  template <typename Before>
  Cursor LowerBound(Before&& before, size_t* rank) const;
  Cursor AtRank(size_t rank) const;
  static Key MinKey(const Node* node);
  static void DestroyNode(Node* node, MemoryAccountant& memory);
  static Node* CloneNode(const Node* node, MemoryAccountant& memory, Leaf** previous, bool* ok);
  // After a compaction: every lower bound set to its child's real minimum.
  static Key RefreshMins(Node* node);
  bool CheckNode(const Node* node, size_t depth, size_t* count, const Key** last) const;

  // --- member index -----------------------------------------------------------------------
  MemberRecords records() const { return {arena_, hash_seed_}; }
  uint64_t HashOf(std::string_view member) const { return records().HashOf(member); }

  unsigned char* listpack_ = nullptr;  // non-null: listpack encoding (listpack_bytes_ long)
  uint32_t listpack_bytes_ = 0;
  uint32_t members_ = 0;
  uint64_t hash_seed_ = 0;
  // skiplist encoding
  char* arena_ = nullptr;
  size_t arena_used_ = 0;
  size_t arena_capacity_ = 0;
  size_t arena_dead_ = 0;
  Node* root_ = nullptr;
  Leaf* first_ = nullptr;
  Leaf* last_ = nullptr;
  uint8_t height_ = 0;  // inner levels above the leaves
  MemberIndex index_;

  friend struct ZsetValueTestPeer;
};

// ---------------------------------------------------------------------------------------------
// Template implementations.

namespace zset_internal {
// Reads the listpack entry at `entry` as text into `*text` (integer entries formatted into
// `digits`, kept by the caller), and returns the next entry.
const unsigned char* ReadEntry(const unsigned char* entry, std::string_view* text, char* digits);
const unsigned char* PreviousEntry(const unsigned char* entry);
}  // namespace zset_internal

template <typename Visit>
void ZsetValue::ListpackForRange(size_t start, size_t count, bool reverse, Visit&& visit) const {
  char member_digits[24];
  char score_digits[24];
  std::string_view member;
  std::string_view score_text;
  if (!reverse) {
    const unsigned char* p = listpack_ + listpack::kHeaderBytes;
    for (size_t i = 0; i < start; i++) {
      p = zset_internal::ReadEntry(p, &member, member_digits);
      p = zset_internal::ReadEntry(p, &score_text, score_digits);
    }
    for (size_t i = 0; i < count; i++) {
      p = zset_internal::ReadEntry(p, &member, member_digits);
      p = zset_internal::ReadEntry(p, &score_text, score_digits);
      visit(member, ZsetParseEntryScore(score_text));
    }
    return;
  }
  // From the end: the score entry of the last member is the one before the end byte.
  const unsigned char* p = listpack_ + listpack::TotalBytes(listpack_) - 1;
  for (size_t i = 0; i < start; i++) {
    p = zset_internal::PreviousEntry(p);
    p = zset_internal::PreviousEntry(p);
  }
  for (size_t i = 0; i < count; i++) {
    const unsigned char* score_entry = zset_internal::PreviousEntry(p);
    p = zset_internal::PreviousEntry(score_entry);
    zset_internal::ReadEntry(p, &member, member_digits);
    zset_internal::ReadEntry(score_entry, &score_text, score_digits);
    visit(member, ZsetParseEntryScore(score_text));
  }
}

template <typename Visit>
void ZsetValue::ForRange(size_t start, size_t count, bool reverse, Visit&& visit) const {
  if (start >= size()) return;
  if (count > size() - start) count = size() - start;
  if (count == 0) return;
  if (is_listpack()) {
    ListpackForRange(start, count, reverse, visit);
    return;
  }
  Cursor at = AtRank(reverse ? size() - 1 - start : start);
  for (size_t i = 0; i < count; i++) {
    const Key& key = at.leaf->keys[at.index];
    visit(MemberAt(key.offset), key.score);
    if (reverse) {
      if (at.index == 0) {
        at.leaf = at.leaf->prev;
        at.index = at.leaf == nullptr ? 0 : at.leaf->count - 1;
      } else {
        at.index--;
      }
    } else if (++at.index == at.leaf->count) {
      at.leaf = at.leaf->next;
      at.index = 0;
    }
    if (at.leaf == nullptr) return;
  }
}

template <typename Visit>
uint64_t ZsetValue::Scan(uint64_t cursor, size_t count, Visit&& visit) const {
  if (is_listpack()) {
    ForEach(visit);
    return 0;
  }
  return index_.Scan(records(), cursor, count,
                     [&](uint64_t offset) { visit(MemberAt(offset), ScoreAt(offset)); });
}

}  // namespace keel
