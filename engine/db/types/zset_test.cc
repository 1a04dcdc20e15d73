#include "engine/db/types/zset.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/sim_env.h"

namespace keel {
namespace {

using Pairs = std::vector<std::pair<std::string, double>>;

Pairs Contents(const ZsetValue& zset) {
  Pairs pairs;
  zset.ForEach([&](std::string_view member, double score) { pairs.emplace_back(member, score); });
  return pairs;
}

// The model's order: by score, then by member bytes.
Pairs Ordered(const std::map<std::string, double>& model) {
  std::set<std::pair<double, std::string>> sorted;
  for (const auto& [member, score] : model) sorted.emplace(score, member);
  Pairs pairs;
  for (const auto& [score, member] : sorted) pairs.emplace_back(member, score);
  return pairs;
}

class ZsetValueTest : public ::testing::Test {
 protected:
  ZsetValueTest() : memory_(resource_) {}
  void TearDown() override {
    for (ZsetValue* zset : zsets_) ZsetValue::Destroy(zset, memory_);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace), 0u);
    EXPECT_EQ(resource_.used_bytes(), 0u);
  }
  ZsetValue* Keep(ZsetValue* zset) {
    zsets_.push_back(zset);
    return zset;
  }
  sim::SimMemory resource_;
  MemoryAccountant memory_;
  std::vector<ZsetValue*> zsets_;
};

constexpr ZsetValue::Limits kDefaultLimits{128, 64};

TEST_F(ZsetValueTest, ScoreTextIsD2string) {
  char text[32];
  auto text_of = [&](double score) { return std::string(text, ZsetScoreText(score, text)); };
  EXPECT_EQ(text_of(1), "1");
  EXPECT_EQ(text_of(-0.0), "0");
  EXPECT_EQ(text_of(1e18), "1000000000000000000");
  EXPECT_EQ(text_of(5e18), "5e+18");
  EXPECT_EQ(text_of(1.5), "1.5");
  EXPECT_EQ(text_of(1.1), "1.1000000000000001");
  EXPECT_EQ(text_of(1.0 / 0.0), "inf");
  EXPECT_EQ(text_of(-1.0 / 0.0), "-inf");
  EXPECT_EQ(text_of(4503599627370497.0), "4503599627370497");
  EXPECT_EQ(text_of(1e20), "1e+20");
}

TEST_F(ZsetValueTest, ListpackIsRedisBytes) {
  ZsetValue* zset = Keep(ZsetValue::CreateListpack(memory_, 1));
  ASSERT_NE(zset, nullptr);
  EXPECT_EQ(zset->Set("a", 1.1, kDefaultLimits, memory_), ZsetValue::SetOutcome::kAdded);
  EXPECT_EQ(zset->Set("b", 1.1000000000000001, kDefaultLimits, memory_),
            ZsetValue::SetOutcome::kAdded);
  EXPECT_TRUE(zset->is_listpack());
  // redis-server 7.0: ZADD z 1.1 a 1 b, ZINCRBY z 0.1 b; DUMP z, its listpack decompressed.
  const std::string score = "1.1000000000000001";
  const std::string expected = std::string(
                                   "\x35\x00\x00\x00\x04\x00\x81"
                                   "a"
                                   "\x02\x92",
                                   10) +
                               score +
                               std::string(
                                   "\x13\x81"
                                   "b"
                                   "\x02\x92",
                                   5) +
                               score + std::string("\x13\xff", 2);
  EXPECT_EQ(zset->listpack_blob(), expected);
  EXPECT_TRUE(zset->CheckInvariants());
}

TEST_F(ZsetValueTest, ConvertsPastTheLimitsAndBack) {
  ZsetValue* zset = Keep(ZsetValue::CreateListpack(memory_, 1));
  const ZsetValue::Limits limits{4, 8};
  for (int i = 0; i < 4; i++) {
    ASSERT_EQ(zset->Set("m" + std::to_string(i), i, limits, memory_),
              ZsetValue::SetOutcome::kAdded);
  }
  EXPECT_TRUE(zset->is_listpack());
  EXPECT_EQ(zset->Set("m0", 10, limits, memory_), ZsetValue::SetOutcome::kUpdated);
  EXPECT_TRUE(zset->is_listpack());
  EXPECT_EQ(zset->Set("m4", 4, limits, memory_), ZsetValue::SetOutcome::kAdded);
  EXPECT_FALSE(zset->is_listpack());
  EXPECT_TRUE(zset->CheckInvariants());
  EXPECT_EQ(Contents(*zset), (Pairs{{"m1", 1}, {"m2", 2}, {"m3", 3}, {"m4", 4}, {"m0", 10}}));
  EXPECT_FALSE(zset->FitsListpack(limits));
  EXPECT_TRUE(zset->Remove("m4", memory_));
  EXPECT_TRUE(zset->FitsListpack(limits));
  ASSERT_TRUE(zset->ConvertToListpack(memory_));
  EXPECT_TRUE(zset->is_listpack());
  EXPECT_TRUE(zset->CheckInvariants());
  EXPECT_EQ(Contents(*zset), (Pairs{{"m1", 1}, {"m2", 2}, {"m3", 3}, {"m0", 10}}));
  // A long member converts too.
  EXPECT_EQ(zset->Set("a-long-member", 0, limits, memory_), ZsetValue::SetOutcome::kAdded);
  EXPECT_FALSE(zset->is_listpack());
}

TEST_F(ZsetValueTest, RanksAndRangesOfALargeSet) {
  ZsetValue* zset = Keep(ZsetValue::CreateSkiplist(memory_, 7, 0));
  const ZsetValue::Limits limits{0, 0};
  constexpr int kMembers = 20000;
  for (int i = 0; i < kMembers; i++) {
    // Scores 0..99 repeated: ties are ordered by member bytes.
    ASSERT_EQ(zset->Set("member:" + std::to_string(i), i % 100, limits, memory_),
              ZsetValue::SetOutcome::kAdded);
  }
  ASSERT_TRUE(zset->CheckInvariants());
  EXPECT_EQ(zset->size(), size_t{kMembers});
  EXPECT_EQ(zset->CountScoreBelow(50, false), size_t{kMembers / 2});
  EXPECT_EQ(zset->CountScoreBelow(50, true), size_t{kMembers / 2 + kMembers / 100});
  double score = 0;
  ASSERT_TRUE(zset->Score("member:1234", &score));
  EXPECT_EQ(score, 34);
  const size_t rank = zset->RankOf("member:1234", 34);
  std::string at_rank;
  zset->ForRange(rank, 1, false, [&](std::string_view member, double) { at_rank = member; });
  EXPECT_EQ(at_rank, "member:1234");
  // Remove most, in an order unrelated to the tree's, so leaves merge and the arena compacts.
  for (int i = 0; i < kMembers; i++) {
    if (i % 7 == 0) continue;
    ASSERT_TRUE(zset->Remove("member:" + std::to_string((i * 7919) % kMembers), memory_));
  }
  ASSERT_TRUE(zset->CheckInvariants());
  size_t visited = 0;
  double previous = -1;
  zset->ForRange(0, zset->size(), false, [&](std::string_view, double at) {
    EXPECT_GE(at, previous);
    previous = at;
    visited++;
  });
  EXPECT_EQ(visited, zset->size());
}

// The memory target (issue 14): at most 0.6x Redis 7.0's 136 bytes per 16-byte member, counted
// as every byte the set allocates. Growing scores append (leaves stay full); shuffled scores
// split leaves in halves.
TEST_F(ZsetValueTest, SixteenByteMembersCostAtMostSixTenthsOfRedis) {
  constexpr int kMembers = 200000;
  constexpr double kRedisBytesPerMember = 136;
  for (const bool shuffled : {false, true}) {
    const size_t before = memory_.used_bytes(MemoryUse::kKeyspace);
    ZsetValue* zset = Keep(ZsetValue::CreateSkiplist(memory_, 5, 0));
    char member[17];
    for (int i = 0; i < kMembers; i++) {
      std::snprintf(member, sizeof(member), "%07d:%08d", shuffled ? 1 : 0, i);
      const double score = shuffled ? static_cast<double>((i * 7919LL) % kMembers) : i;
      ASSERT_EQ(zset->Set(std::string_view(member, 16), score, {0, 0}, memory_),
                ZsetValue::SetOutcome::kAdded);
    }
    ASSERT_TRUE(zset->CheckInvariants());
    const double per_member =
        static_cast<double>(memory_.used_bytes(MemoryUse::kKeyspace) - before) / kMembers;
    EXPECT_LT(per_member, 0.6 * kRedisBytesPerMember) << (shuffled ? "shuffled" : "growing");
    RecordProperty(shuffled ? "bytes_per_member_shuffled" : "bytes_per_member_growing",
                   std::to_string(per_member));
  }
}

TEST_F(ZsetValueTest, RefusedMemoryLeavesTheSetUnchanged) {
  for (bool listpack : {true, false}) {
    ZsetValue* zset = Keep(listpack ? ZsetValue::CreateListpack(memory_, 3)
                                    : ZsetValue::CreateSkiplist(memory_, 3, 0));
    const ZsetValue::Limits limits{listpack ? 128u : 0u, 64};
    for (int i = 0; i < 300; i++) {
      resource_.set_limit_bytes(resource_.used_bytes());
      const std::string member = "x" + std::to_string(i);
      const Pairs before = Contents(*zset);
      const auto outcome = zset->Set(member, i * 0.5, limits, memory_);
      if (outcome == ZsetValue::SetOutcome::kOutOfMemory) {
        EXPECT_EQ(Contents(*zset), before);
        EXPECT_TRUE(zset->CheckInvariants());
      }
      resource_.set_limit_bytes(SIZE_MAX);
      if (outcome == ZsetValue::SetOutcome::kOutOfMemory) {
        ASSERT_EQ(zset->Set(member, i * 0.5, limits, memory_), ZsetValue::SetOutcome::kAdded);
      }
    }
    EXPECT_EQ(zset->size(), 300u);
    EXPECT_TRUE(zset->CheckInvariants());
  }
}

// Against std::map: random sets, updates and removals, either encoding, memory sometimes
// refused; the order, ranks, counts and clones must agree.
RC_GTEST_PROP(ZsetValueProperty, BehavesAsAnOrderedMap, ()) {
  sim::SimMemory resource;
  MemoryAccountant memory(resource);
  const bool listpack = *rc::gen::arbitrary<bool>();
  ZsetValue* zset =
      listpack ? ZsetValue::CreateListpack(memory, 9) : ZsetValue::CreateSkiplist(memory, 9, 0);
  RC_ASSERT(zset != nullptr);
  const ZsetValue::Limits limits{static_cast<size_t>(*rc::gen::inRange(0, 40)), 8};
  std::map<std::string, double> model;
  const int steps = *rc::gen::inRange(0, 3000);
  for (int step = 0; step < steps; step++) {
    const std::string member =
        "m" + std::to_string(*rc::gen::inRange(0, step % 3 == 0 ? 20 : 2000));
    const double score = *rc::gen::inRange(-5, 5) * 1.5;
    const bool refuse = *rc::gen::inRange(0, 30) == 0;
    if (refuse) resource.set_limit_bytes(resource.used_bytes());
    if (*rc::gen::inRange(0, 3) == 0) {
      RC_ASSERT(zset->Remove(member, memory) == (model.erase(member) == 1));
    } else {
      const auto outcome = zset->Set(member, score, limits, memory);
      if (outcome == ZsetValue::SetOutcome::kOutOfMemory) {
        RC_ASSERT(refuse);
      } else {
        RC_ASSERT((outcome == ZsetValue::SetOutcome::kAdded) == (model.count(member) == 0));
        model[member] = score;
      }
    }
    resource.set_limit_bytes(SIZE_MAX);
  }
  RC_ASSERT(zset->CheckInvariants());
  const Pairs expected = Ordered(model);
  RC_ASSERT(Contents(*zset) == expected);
  for (size_t rank = 0; rank < expected.size(); rank += 1 + expected.size() / 20) {
    RC_ASSERT(zset->RankOf(expected[rank].first, expected[rank].second) == rank);
    Pairs reversed;
    zset->ForRange(rank, 3, true,
                   [&](std::string_view m, double s) { reversed.emplace_back(m, s); });
    RC_ASSERT(reversed.front() == expected[expected.size() - 1 - rank]);
  }
  size_t below_zero = 0;
  for (const auto& [member, score] : expected) below_zero += score < 0 ? 1 : 0;
  RC_ASSERT(zset->CountScoreBelow(0, false) == below_zero);
  ZsetValue* copy = ZsetValue::Clone(*zset, memory);
  RC_ASSERT(copy != nullptr);
  RC_ASSERT(copy->CheckInvariants());
  RC_ASSERT(Contents(*copy) == expected);
  ZsetValue::Destroy(copy, memory);
  ZsetValue::Destroy(zset, memory);
  RC_ASSERT(resource.used_bytes() == 0u);
}

}  // namespace
}  // namespace keel
