#include "engine/db/types/member_index.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/sim_env.h"

namespace keel {
namespace {

// An index over an arena of records (a varint length, then the member), as a set keeps them.
class MemberIndexTest : public ::testing::Test {
 protected:
  MemberIndexTest() : memory_(resource_) { arena_.reserve(1 << 22); }
  void TearDown() override {
    index_.Destroy(memory_);
    other_.Destroy(memory_);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace), 0u);
  }

  MemberRecords records() const { return {arena_.data(), 42}; }
  static std::string Name(int i) { return "member:" + std::to_string(i); }

  uint64_t Append(const std::string& member) {
    const uint64_t offset = arena_.size();
    size_t length = member.size();
    while (length >= 0x80) {
      arena_.push_back(static_cast<char>(length | 0x80));
      length >>= 7;
    }
    arena_.push_back(static_cast<char>(length));
    arena_ += member;
    return offset;
  }
  // Adds `member` as a set does: room first, then the record, then the write's share of a
  // running resize (when `advance`).
  bool Add(MemberIndex& index, const std::string& member, bool advance = true) {
    if (!index.Reserve(records(), 1, memory_)) return false;
    const uint64_t hash = records().HashOf(member);
    if (index.Find(records(), member, hash) != MemberIndex::kAbsent) return false;
    if (!index.Insert(records(), Append(member), hash, memory_)) return false;
    if (advance) index.Advance(records(), 1, memory_);
    return true;
  }
  bool Remove(MemberIndex& index, const std::string& member) {
    const uint64_t hash = records().HashOf(member);
    if (index.Remove(records(), member, hash) == MemberIndex::kAbsent) return false;
    index.Advance(records(), 1, memory_);
    index.MaybeShrink(records(), memory_);
    return true;
  }
  bool Contains(const MemberIndex& index, const std::string& member) const {
    return index.Find(records(), member, records().HashOf(member)) != MemberIndex::kAbsent;
  }
  std::vector<std::string> Order(const MemberIndex& index) const {
    std::vector<std::string> members;
    index.ForEachOffset([&](uint64_t offset) { members.emplace_back(records().MemberAt(offset)); });
    return members;
  }

  sim::SimMemory resource_;
  MemoryAccountant memory_;
  std::string arena_;
  MemberIndex index_;
  MemberIndex other_;
};

TEST_F(MemberIndexTest, GrowsInStepsAndFindsEveryMemberMeanwhile) {
  ASSERT_TRUE(index_.Create(16, memory_));
  int resizes = 0;
  size_t writes_resizing = 0;
  for (int i = 0; i < 20000; i++) {
    const bool was_resizing = index_.resizing();
    ASSERT_TRUE(Add(index_, Name(i)));
    if (!was_resizing && index_.resizing()) resizes++;
    if (index_.resizing()) {
      writes_resizing++;
      // Mid-resize: every member is found in exactly the table its hash names.
      if (i % 97 == 0) {
        ASSERT_TRUE(index_.CheckInvariants(records())) << i;
        for (int j = 0; j <= i; j += 13) ASSERT_TRUE(Contains(index_, Name(j))) << j;
        EXPECT_FALSE(Contains(index_, Name(-1)));
      }
    }
  }
  EXPECT_EQ(index_.size(), 20000u);
  EXPECT_TRUE(index_.CheckInvariants(records()));
  // 32 homes (16 members at 4/5 load) up to 32,768: ten doublings, each in steps over many
  // writes.
  EXPECT_EQ(resizes, 10);
  EXPECT_GT(writes_resizing, 500u);
}

TEST_F(MemberIndexTest, AResizeEndsLongBeforeTheNextIsDue) {
  // Count the writes each growth takes: under 1/5 of those until the next growth.
  MemberIndex index;
  ASSERT_TRUE(index.Create(16, memory_));
  size_t started_at = 0;
  for (int i = 0; i < 100000; i++) {
    const bool was_resizing = index.resizing();
    ASSERT_TRUE(Add(index, Name(i)));
    if (!was_resizing && index.resizing()) started_at = index.size();
    if (was_resizing && !index.resizing()) {
      EXPECT_LT((index.size() - started_at) * 5, started_at + 16) << started_at;
    }
  }
  index.Destroy(memory_);
}

TEST_F(MemberIndexTest, ScanVisitsEveryMemberWhileResizesRun) {
  ASSERT_TRUE(index_.Create(16, memory_));
  for (int i = 0; i < 3000; i++) ASSERT_TRUE(Add(index_, Name(i)));
  std::multiset<std::string> seen;
  uint64_t cursor = 0;
  int calls = 0;
  int next = 3000;
  do {
    cursor = index_.Scan(records(), cursor, 8,
                         [&](uint64_t offset) { seen.emplace(records().MemberAt(offset)); });
    calls++;
    // Between the first calls the set grows through two resizes and loses members the scan may
    // miss (a set that kept growing faster than the scan moves would never let it end).
    if (calls > 60) continue;
    for (int k = 0; k < 100; k++) ASSERT_TRUE(Add(index_, Name(next++)));
    if (calls % 3 == 0) {
      ASSERT_TRUE(Remove(index_, Name(next - 7)));
    }
    ASSERT_TRUE(index_.CheckInvariants(records()));
  } while (cursor != 0);
  EXPECT_GT(calls, 100);
  for (int i = 0; i < 3000; i++) EXPECT_EQ(seen.count(Name(i)), 1u) << i;
}

TEST_F(MemberIndexTest, ShrinksInStepsWhenMostlyEmpty) {
  ASSERT_TRUE(index_.Create(16, memory_));
  for (int i = 0; i < 20000; i++) ASSERT_TRUE(Add(index_, Name(i)));
  index_.FinishResize(records(), memory_);
  const size_t full_bytes = index_.allocated_bytes();
  bool shrank = false;
  for (int i = 0; i < 20000; i++) {
    if (i % 50 == 0) continue;
    ASSERT_TRUE(Remove(index_, Name(i)));
    shrank = shrank || index_.resizing();
    if (i % 101 == 0) {
      ASSERT_TRUE(index_.CheckInvariants(records()));
    }
  }
  EXPECT_TRUE(shrank);
  EXPECT_FALSE(index_.resizing());
  EXPECT_EQ(index_.size(), 400u);
  // 4,096 homes for 400 members (the shrink to fit 2,047; the next is due under 256).
  EXPECT_LT(index_.allocated_bytes() * 7, full_bytes);
  for (int i = 0; i < 20000; i += 50) EXPECT_TRUE(Contains(index_, Name(i)));
}

TEST_F(MemberIndexTest, RandomDrawsAreUniformAndRepeatableWhileResizing) {
  ASSERT_TRUE(index_.Create(16, memory_));
  int i = 0;
  // Stop just after a growth starts, so that both tables hold members.
  while (!(index_.resizing() && index_.size() > 1000)) ASSERT_TRUE(Add(index_, Name(i++)));
  for (int k = 0; k < 30; k++) ASSERT_TRUE(Add(index_, Name(i++)));
  ASSERT_TRUE(index_.resizing());
  std::map<uint64_t, int> draws;
  Rng rng(5);
  const int kDraws = 200000;
  for (int k = 0; k < kDraws; k++) draws[index_.RandomOffset(rng)]++;
  EXPECT_EQ(draws.size(), index_.size());
  const double expected = static_cast<double>(kDraws) / static_cast<double>(index_.size());
  for (const auto& [offset, count] : draws) {
    EXPECT_GT(count, expected / 3) << records().MemberAt(offset);
    EXPECT_LT(count, expected * 3) << records().MemberAt(offset);
  }
  Rng first(9);
  Rng second(9);
  for (int k = 0; k < 100; k++) EXPECT_EQ(index_.RandomOffset(first), index_.RandomOffset(second));
}

TEST_F(MemberIndexTest, CopyAndMovesKeepTheResizeAndTheOrder) {
  ASSERT_TRUE(index_.Create(16, memory_));
  int i = 0;
  while (!(index_.resizing() && index_.size() > 300)) ASSERT_TRUE(Add(index_, Name(i++)));
  ASSERT_TRUE(other_.CopyFrom(index_, memory_));
  EXPECT_TRUE(other_.resizing());
  EXPECT_EQ(Order(other_), Order(index_));
  EXPECT_EQ(other_.allocated_bytes(), index_.allocated_bytes());
  EXPECT_TRUE(other_.CheckInvariants(records()));
  // A compaction's move: the records copied in the index's order into a second arena.
  const std::vector<std::string> before = Order(index_);
  std::string moved;
  index_.MoveRecords([&](uint64_t offset) {
    const uint64_t at = moved.size();
    const std::string_view member = records().MemberAt(offset);
    moved.push_back(static_cast<char>(member.size()));
    moved += member;
    return at;
  });
  arena_ = moved;
  EXPECT_EQ(Order(index_), before);
  EXPECT_TRUE(index_.CheckInvariants(records()));
}

TEST_F(MemberIndexTest, RefusedMemoryChangesNothing) {
  ASSERT_TRUE(index_.Create(16, memory_));
  // Past 64 homes (so that a shrink is due later), up to the member whose Reserve needs a
  // larger table.
  int i = 0;
  auto would_grow = [&] {
    MemberIndex probe;
    EXPECT_TRUE(probe.CopyFrom(index_, memory_));
    const bool grows = probe.Reserve(records(), 1, memory_) && probe.resizing();
    probe.Destroy(memory_);
    return grows;
  };
  while (index_.size() < 200 || !would_grow()) {
    ASSERT_TRUE(Add(index_, Name(i++)));
    index_.FinishResize(records(), memory_);
  }
  const std::vector<std::string> before = Order(index_);
  const size_t bytes = index_.allocated_bytes();
  resource_.set_limit_bytes(resource_.used_bytes());
  EXPECT_FALSE(index_.Reserve(records(), 1, memory_));
  EXPECT_FALSE(other_.CopyFrom(index_, memory_));
  EXPECT_FALSE(other_.allocated());
  EXPECT_EQ(Order(index_), before);
  EXPECT_EQ(index_.allocated_bytes(), bytes);
  EXPECT_FALSE(index_.resizing());
  // A refused shrink keeps the larger table.
  for (int k = 0; k + 2 < i; k++) {
    ASSERT_NE(index_.Remove(records(), Name(k), records().HashOf(Name(k))), MemberIndex::kAbsent);
  }
  index_.MaybeShrink(records(), memory_);
  EXPECT_FALSE(index_.resizing());
  EXPECT_EQ(index_.allocated_bytes(), bytes);
  EXPECT_TRUE(index_.CheckInvariants(records()));
  resource_.set_limit_bytes(0);
  index_.MaybeShrink(records(), memory_);
  EXPECT_TRUE(index_.resizing());
  index_.FinishResize(records(), memory_);
  EXPECT_LT(index_.allocated_bytes(), bytes);
  EXPECT_EQ(index_.size(), 2u);
}

TEST_F(MemberIndexTest, ClearKeepsTheTargetAndTakesTheMembersAgain) {
  ASSERT_TRUE(index_.Create(16, memory_));
  int i = 0;
  while (!(index_.resizing() && index_.size() > 300)) ASSERT_TRUE(Add(index_, Name(i++)));
  index_.Clear(memory_);
  EXPECT_FALSE(index_.resizing());
  EXPECT_EQ(index_.size(), 0u);
  uint64_t offset = 0;
  for (int k = 0; k < i; k++) {
    const std::string_view member = records().MemberAt(offset);
    ASSERT_TRUE(index_.Insert(records(), offset, records().HashOf(member), memory_));
    offset = static_cast<uint64_t>(member.data() + member.size() - arena_.data());
  }
  EXPECT_EQ(index_.size(), static_cast<size_t>(i));
  EXPECT_TRUE(index_.CheckInvariants(records()));
}

}  // namespace
}  // namespace keel
