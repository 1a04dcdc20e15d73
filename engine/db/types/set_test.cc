#include "engine/db/types/set.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/sim_env.h"

namespace keel {
namespace {

// Builds sets over a counted memory, and checks at the end that every byte came back.
class SetValueTest : public ::testing::Test {
 protected:
  SetValueTest() : memory_(resource_) {}
  void TearDown() override {
    for (SetValue* set : sets_) SetValue::Destroy(set, memory_);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace), 0u);
    EXPECT_EQ(resource_.used_bytes(), 0u);
  }
  SetValue* NewSet() {
    SetValue* set = SetValue::Create(memory_, 42);
    sets_.push_back(set);
    return set;
  }
  static std::vector<std::string> Members(const SetValue& set) {
    std::vector<std::string> members;
    set.ForEach([&](std::string_view member) { members.emplace_back(member); });
    return members;
  }
  static std::vector<std::string> Sorted(std::vector<std::string> members) {
    std::sort(members.begin(), members.end());
    return members;
  }

  sim::SimMemory resource_;
  MemoryAccountant memory_;
  std::vector<SetValue*> sets_;
};

TEST_F(SetValueTest, IntegersStayAnIntsetInOrder) {
  SetValue* set = NewSet();
  EXPECT_EQ(set->Add("5", 512, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_EQ(set->Add("-3", 512, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_EQ(set->Add("5", 512, memory_), SetValue::AddOutcome::kPresent);
  EXPECT_EQ(set->Add("100000", 512, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_TRUE(set->is_intset());
  EXPECT_EQ(Members(*set), (std::vector<std::string>{"-3", "5", "100000"}));
  EXPECT_TRUE(set->Contains("5"));
  EXPECT_FALSE(set->Contains("05"));
  EXPECT_FALSE(set->Contains("x"));
  EXPECT_TRUE(set->CheckInvariants());
  // The blob is Redis's intset: 4-byte width 4 (100000 needs 32 bits), count 3, members.
  const std::string_view blob = set->intset_blob();
  ASSERT_EQ(blob.size(), 8u + 3 * 4);
  EXPECT_EQ(blob[0], 4);
  EXPECT_EQ(blob[4], 3);
}

TEST_F(SetValueTest, NonIntegerTextConvertsToHashtable) {
  SetValue* set = NewSet();
  ASSERT_EQ(set->Add("1", 512, memory_), SetValue::AddOutcome::kAdded);
  // Not Redis's strict integer form: a leading zero, a plus sign, spaces.
  for (std::string_view text : {"01", "+1", " 1", "1 "}) {
    SCOPED_TRACE(std::string(text));
    SetValue* probe = NewSet();
    ASSERT_EQ(probe->Add(text, 512, memory_), SetValue::AddOutcome::kAdded);
    EXPECT_FALSE(probe->is_intset());
  }
  ASSERT_EQ(set->Add("a", 512, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_FALSE(set->is_intset());
  EXPECT_EQ(Sorted(Members(*set)), (std::vector<std::string>{"1", "a"}));
  EXPECT_TRUE(set->Contains("1"));
  EXPECT_TRUE(set->CheckInvariants());
}

TEST_F(SetValueTest, IntsetConvertsPastTheLimit) {
  SetValue* set = NewSet();
  for (int i = 0; i < 4; i++)
    ASSERT_EQ(set->Add(std::to_string(i), 4, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_TRUE(set->is_intset());
  ASSERT_EQ(set->Add("4", 4, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_FALSE(set->is_intset());
  EXPECT_EQ(set->size(), 5u);
  // Never back, even when it shrinks.
  EXPECT_TRUE(set->Remove("4", memory_));
  EXPECT_FALSE(set->is_intset());
  // A limit of 0 converts on the first member, as Redis does.
  SetValue* zero = NewSet();
  ASSERT_EQ(zero->Add("1", 0, memory_), SetValue::AddOutcome::kAdded);
  EXPECT_FALSE(zero->is_intset());
}

TEST_F(SetValueTest, LargeSetKeepsEveryMemberThroughGrowthAndShrinking) {
  SetValue* set = NewSet();
  constexpr int kCount = 20000;
  for (int i = 0; i < kCount; i++) {
    ASSERT_EQ(set->Add("member:" + std::to_string(i), 512, memory_), SetValue::AddOutcome::kAdded);
  }
  EXPECT_EQ(set->size(), static_cast<size_t>(kCount));
  EXPECT_TRUE(set->CheckInvariants());
  for (int i = 0; i < kCount; i += 7) EXPECT_TRUE(set->Contains("member:" + std::to_string(i)));
  EXPECT_FALSE(set->Contains("member:-1"));
  // Remove most of them: the table shrinks and the arena compacts, members stay findable.
  for (int i = 0; i < kCount; i++) {
    if (i % 50 != 0) {
      ASSERT_TRUE(set->Remove("member:" + std::to_string(i), memory_));
    }
  }
  EXPECT_EQ(set->size(), static_cast<size_t>(kCount / 50));
  EXPECT_TRUE(set->CheckInvariants());
  for (int i = 0; i < kCount; i += 50) EXPECT_TRUE(set->Contains("member:" + std::to_string(i)));
  EXPECT_LT(set->allocated_bytes(), size_t{64} * 1024);
}

TEST_F(SetValueTest, ScanVisitsEveryMemberAcrossResizes) {
  SetValue* set = NewSet();
  for (int i = 0; i < 1000; i++)
    ASSERT_EQ(set->Add("k" + std::to_string(i), 512, memory_), SetValue::AddOutcome::kAdded);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    cursor = set->Scan(cursor, 10, [&](std::string_view member) { seen.emplace(member); });
    calls++;
    // Grow the set while scanning: the members present from the start must all be seen.
    if (calls == 20) {
      for (int i = 1000; i < 5000; i++)
        ASSERT_EQ(set->Add("k" + std::to_string(i), 512, memory_), SetValue::AddOutcome::kAdded);
    }
  } while (cursor != 0);
  EXPECT_GT(calls, 20);
  for (int i = 0; i < 1000; i++) EXPECT_TRUE(seen.count("k" + std::to_string(i))) << i;
}

TEST_F(SetValueTest, RefusedMemoryLeavesTheSetUnchanged) {
  SetValue* set = NewSet();
  for (int i = 0; i < 10; i++)
    ASSERT_EQ(set->Add(std::to_string(i), 512, memory_), SetValue::AddOutcome::kAdded);
  const std::vector<std::string> before = Members(*set);
  resource_.set_limit_bytes(resource_.used_bytes());
  EXPECT_EQ(set->Add("x", 512, memory_), SetValue::AddOutcome::kOutOfMemory);
  EXPECT_EQ(set->Add("11", 512, memory_), SetValue::AddOutcome::kOutOfMemory);
  EXPECT_TRUE(set->is_intset());
  EXPECT_EQ(Members(*set), before);
  EXPECT_EQ(SetValue::Clone(*set, memory_), nullptr);
  resource_.set_limit_bytes(0);
}

TEST_F(SetValueTest, CloneIsEqualAndIndependent) {
  SetValue* set = NewSet();
  for (int i = 0; i < 100; i++)
    ASSERT_EQ(set->Add("m" + std::to_string(i), 512, memory_), SetValue::AddOutcome::kAdded);
  SetValue* copy = SetValue::Clone(*set, memory_);
  ASSERT_NE(copy, nullptr);
  sets_.push_back(copy);
  EXPECT_EQ(Members(*copy), Members(*set));
  EXPECT_TRUE(copy->Remove("m1", memory_));
  EXPECT_TRUE(set->Contains("m1"));
  EXPECT_TRUE(copy->CheckInvariants());
}

TEST_F(SetValueTest, IntsetBlobRoundTripAndCorruption) {
  SetValue* set = NewSet();
  for (int value : {-70000, 3, 9})
    ASSERT_EQ(set->Add(std::to_string(value), 512, memory_), SetValue::AddOutcome::kAdded);
  bool corrupt = true;
  SetValue* loaded = SetValue::FromIntsetBlob(memory_, 1, set->intset_blob(), 512, &corrupt);
  ASSERT_NE(loaded, nullptr);
  sets_.push_back(loaded);
  EXPECT_FALSE(corrupt);
  EXPECT_EQ(Members(*loaded), Members(*set));
  // Past the limit: converted.
  SetValue* converted = SetValue::FromIntsetBlob(memory_, 1, set->intset_blob(), 2, &corrupt);
  ASSERT_NE(converted, nullptr);
  sets_.push_back(converted);
  EXPECT_FALSE(converted->is_intset());
  // Truncated, a bad width, out of order.
  std::string blob(set->intset_blob());
  EXPECT_EQ(SetValue::FromIntsetBlob(memory_, 1, blob.substr(0, blob.size() - 1), 512, &corrupt),
            nullptr);
  EXPECT_TRUE(corrupt);
  std::string bad_width = blob;
  bad_width[0] = 3;
  EXPECT_EQ(SetValue::FromIntsetBlob(memory_, 1, bad_width, 512, &corrupt), nullptr);
  EXPECT_TRUE(corrupt);
  std::string unordered = blob;
  std::swap(unordered[8], unordered[12]);
  EXPECT_EQ(SetValue::FromIntsetBlob(memory_, 1, unordered, 512, &corrupt), nullptr);
  EXPECT_TRUE(corrupt);
}

TEST_F(SetValueTest, RandomMemberIsUniformEnough) {
  SetValue* set = NewSet();
  for (int i = 0; i < 40; i++)
    ASSERT_EQ(set->Add("r" + std::to_string(i), 512, memory_), SetValue::AddOutcome::kAdded);
  Rng rng(7);
  std::string scratch;
  std::map<std::string, int> counts;
  for (int i = 0; i < 40000; i++) counts[std::string(set->RandomMember(rng, &scratch))]++;
  EXPECT_EQ(counts.size(), 40u);
  for (const auto& [member, count] : counts) {
    EXPECT_GT(count, 700) << member;
    EXPECT_LT(count, 1300) << member;
  }
}

// Against std::set: random adds and removes of integers and strings, any limit, memory refused
// at random; the set must hold what the model holds, in a valid layout, after every step.
RC_GTEST_PROP(SetValueProperty, BehavesLikeASet, ()) {
  sim::SimMemory resource;
  MemoryAccountant memory(resource);
  const size_t intset_max = *rc::gen::inRange<size_t>(0, 40);
  SetValue* set = SetValue::Create(memory, *rc::gen::arbitrary<uint64_t>());
  RC_ASSERT(set != nullptr);
  std::set<std::string> model;
  const int steps = *rc::gen::inRange(1, 400);
  for (int step = 0; step < steps; step++) {
    const int pick = *rc::gen::inRange(0, 100);
    const std::string member = pick < 50 ? std::to_string(*rc::gen::inRange(-300, 300))
                                         : "s" + std::to_string(*rc::gen::inRange(0, 200));
    const bool refuse = *rc::gen::inRange(0, 20) == 0;
    if (refuse) resource.set_limit_bytes(resource.used_bytes());
    if (*rc::gen::inRange(0, 3) != 0) {
      const bool was_intset = set->is_intset();
      const SetValue::AddOutcome outcome = set->Add(member, intset_max, memory);
      if (outcome == SetValue::AddOutcome::kOutOfMemory) {
        RC_ASSERT(refuse);
        RC_ASSERT(set->is_intset() == was_intset);
      } else {
        RC_ASSERT((outcome == SetValue::AddOutcome::kAdded) == model.insert(member).second);
      }
    } else {
      RC_ASSERT(set->Remove(member, memory) == (model.erase(member) == 1));
    }
    resource.set_limit_bytes(0);
    RC_ASSERT(set->CheckInvariants());
    RC_ASSERT(set->size() == model.size());
    if (set->is_intset()) RC_ASSERT(set->size() <= intset_max);
  }
  std::set<std::string> held;
  set->ForEach([&](std::string_view m) { RC_ASSERT(held.emplace(m).second); });
  RC_ASSERT(held == model);
  for (const std::string& m : model) RC_ASSERT(set->Contains(m));
  SetValue::Destroy(set, memory);
  RC_ASSERT(memory.used_bytes(MemoryUse::kKeyspace) == 0u);
}

}  // namespace
}  // namespace keel
