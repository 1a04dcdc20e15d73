#include "engine/db/types/stream.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/db/rdb_format.h"
#include "engine/db/types/listpack.h"
#include "engine/db/types/stream_ops.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

using Fields = std::vector<std::string>;
using Model = std::map<std::pair<uint64_t, uint64_t>, Fields>;

class StreamValueTest : public ::testing::Test {
 protected:
  StreamValueTest() : memory_(resource_) {}
  void TearDown() override {
    for (StreamValue* stream : streams_) StreamValue::Destroy(stream, memory_);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace), 0u);
    EXPECT_EQ(resource_.used_bytes(), 0u);
  }
  StreamValue* NewStream() {
    StreamValue* stream = StreamValue::Create(memory_);
    streams_.push_back(stream);
    return stream;
  }
  bool Add(StreamValue* stream, StreamId id, const Fields& fields, StreamNodeLimits limits = {}) {
    std::vector<std::string_view> views(fields.begin(), fields.end());
    return stream->Append(id, views, limits, memory_);
  }
  static std::vector<std::pair<StreamId, Fields>> All(const StreamValue& stream,
                                                      bool reverse = false) {
    std::vector<std::pair<StreamId, Fields>> all;
    stream.Range(StreamId::Min(), StreamId::Max(), reverse, [&](const StreamEntryView& entry) {
      Fields fields;
      entry.ForEachField([&](std::string_view f, std::string_view v) {
        fields.emplace_back(f);
        fields.emplace_back(v);
      });
      all.emplace_back(entry.id, fields);
      return true;
    });
    return all;
  }
  sim::SimMemory resource_;
  MemoryAccountant memory_;
  std::vector<StreamValue*> streams_;
};

TEST_F(StreamValueTest, AppendsAndReadsBackInOrder) {
  StreamValue* stream = NewStream();
  ASSERT_TRUE(Add(stream, {1, 0}, {"a", "1", "b", "2"}));
  ASSERT_TRUE(Add(stream, {1, 1}, {"a", "3", "b", "4"}));      // same fields as the master
  ASSERT_TRUE(Add(stream, {5, 0}, {"c", "x"}));                // other fields
  ASSERT_TRUE(Add(stream, {6, 0}, {"12345", "-7", "a", ""}));  // integers and empty values
  EXPECT_EQ(stream->length(), 4u);
  EXPECT_EQ(stream->last_id(), (StreamId{6, 0}));
  EXPECT_EQ(stream->first_id(), (StreamId{1, 0}));
  EXPECT_EQ(stream->entries_added(), 4u);
  const auto all = All(*stream);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[1].second, (Fields{"a", "3", "b", "4"}));
  EXPECT_EQ(all[2].second, (Fields{"c", "x"}));
  EXPECT_EQ(all[3].second, (Fields{"12345", "-7", "a", ""}));
  const auto reversed = All(*stream, true);
  EXPECT_EQ(reversed[0].first, (StreamId{6, 0}));
  EXPECT_EQ(reversed[3].first, (StreamId{1, 0}));
  EXPECT_TRUE(stream->CheckInvariants());
}

TEST_F(StreamValueTest, NodesSplitAtTheEntryLimitAsRedisDoes) {
  StreamValue* stream = NewStream();
  for (uint64_t i = 1; i <= 250; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", "v"}));
  EXPECT_EQ(stream->node_count(), 3u);  // 100 + 100 + 50
  EXPECT_EQ(stream->nodes()[1].master, (StreamId{101, 0}));
  EXPECT_TRUE(stream->CheckInvariants());
}

TEST_F(StreamValueTest, NodesSplitAtTheByteLimit) {
  StreamValue* stream = NewStream();
  const std::string big(1000, 'x');
  for (uint64_t i = 1; i <= 10; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", big}));
  EXPECT_GT(stream->node_count(), 2u);
  EXPECT_TRUE(stream->CheckInvariants());
  EXPECT_EQ(All(*stream).size(), 10u);
}

TEST_F(StreamValueTest, DeleteMarksEntriesAndFreesEmptyNodes) {
  StreamValue* stream = NewStream();
  for (uint64_t i = 1; i <= 150; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", "v"}));
  bool refused = false;
  EXPECT_TRUE(stream->Delete({2, 0}, memory_, &refused));
  EXPECT_FALSE(stream->Delete({2, 0}, memory_, &refused));
  EXPECT_FALSE(stream->Delete({999, 0}, memory_, &refused));
  EXPECT_FALSE(stream->Contains({2, 0}));
  EXPECT_TRUE(stream->Contains({3, 0}));
  for (uint64_t i = 101; i <= 150; i++) ASSERT_TRUE(stream->Delete({i, 0}, memory_, &refused));
  EXPECT_EQ(stream->node_count(), 1u);
  EXPECT_EQ(stream->length(), 99u);
  EXPECT_TRUE(stream->CheckInvariants());
}

TEST_F(StreamValueTest, TrimByLengthExactAndApproximate) {
  StreamValue* exact = NewStream();
  StreamValue* approx = NewStream();
  for (uint64_t i = 1; i <= 250; i++) {
    ASSERT_TRUE(Add(exact, {i, 0}, {"f", "v"}));
    ASSERT_TRUE(Add(approx, {i, 0}, {"f", "v"}));
  }
  StreamValue::TrimArgs args;
  args.strategy = StreamValue::TrimStrategy::kMaxlen;
  args.maxlen = 120;
  EXPECT_EQ(exact->Trim(args, memory_), 130);
  EXPECT_EQ(exact->length(), 120u);
  EXPECT_EQ(exact->first_id(), (StreamId{131, 0}));
  args.approx = true;
  args.limit = 10000;
  EXPECT_EQ(approx->Trim(args, memory_), 100);  // whole nodes only
  EXPECT_EQ(approx->length(), 150u);
  EXPECT_TRUE(exact->CheckInvariants());
  EXPECT_TRUE(approx->CheckInvariants());
}

TEST_F(StreamValueTest, TrimByMinId) {
  StreamValue* stream = NewStream();
  for (uint64_t i = 1; i <= 250; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", "v"}));
  StreamValue::TrimArgs args;
  args.strategy = StreamValue::TrimStrategy::kMinid;
  args.minid = {105, 0};
  EXPECT_EQ(stream->Trim(args, memory_), 104);
  StreamId first;
  ASSERT_TRUE(stream->FirstEntryId(&first));
  EXPECT_EQ(first, (StreamId{105, 0}));
  EXPECT_TRUE(stream->CheckInvariants());
}

TEST_F(StreamValueTest, GroupsConsumersAndCloneAndRdbRoundTrip) {
  StreamValue* stream = NewStream();
  for (uint64_t i = 1; i <= 5; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", std::to_string(i)}));
  StreamGroup* group = stream->CreateGroup("g", {0, 0}, 0, memory_);
  ASSERT_NE(group, nullptr);
  StreamConsumer* alice = StreamValue::CreateConsumer(*group, "alice", 1000, memory_);
  ASSERT_NE(alice, nullptr);
  ASSERT_TRUE(group->pel.Reserve(2, memory_));
  ASSERT_TRUE(alice->pel.Reserve(2, memory_));
  group->pel.Insert(0, StreamNack{{1, 0}, 1000, 1, alice});
  group->pel.Insert(1, StreamNack{{2, 0}, 1001, 2, alice});
  alice->pel.Insert(0, {1, 0});
  alice->pel.Insert(1, {2, 0});
  ASSERT_TRUE(stream->CheckInvariants());

  StreamValue* copy = StreamValue::Clone(*stream, memory_);
  ASSERT_NE(copy, nullptr);
  streams_.push_back(copy);
  EXPECT_EQ(All(*copy), All(*stream));
  EXPECT_EQ(copy->FindGroup("g")->pel[1].consumer, copy->FindGroup("g")->FindConsumer("alice"));

  std::string bytes;
  SerialiseStream(*stream, true, &bytes);
  rdb::Reader reader(std::string_view(bytes).substr(1));
  StreamValue* loaded = nullptr;
  ASSERT_EQ(LoadStream(static_cast<uint8_t>(bytes[0]), reader, memory_, &loaded),
            LoadStatus::kLoaded);
  streams_.push_back(loaded);
  EXPECT_TRUE(reader.at_end());
  EXPECT_EQ(All(*loaded), All(*stream));
  std::string again;
  SerialiseStream(*loaded, true, &again);
  EXPECT_EQ(again, bytes);

  EXPECT_EQ(StreamValue::DeleteConsumer(*group, alice, memory_), 2u);
  EXPECT_TRUE(group->pel.empty());
}

TEST_F(StreamValueTest, LoadRejectsTruncatedPayloads) {
  StreamValue* stream = NewStream();
  for (uint64_t i = 1; i <= 3; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", "v"}));
  std::string bytes;
  SerialiseStream(*stream, false, &bytes);
  for (size_t cut = 1; cut < bytes.size(); cut++) {
    rdb::Reader reader(std::string_view(bytes).substr(1, cut - 1));
    StreamValue* loaded = nullptr;
    const LoadStatus status = LoadStream(static_cast<uint8_t>(bytes[0]), reader, memory_, &loaded);
    if (status == LoadStatus::kLoaded) StreamValue::Destroy(loaded, memory_);
    EXPECT_NE(status, LoadStatus::kLoaded) << cut;
  }
}

TEST_F(StreamValueTest, RefusedMemoryLeavesTheStreamUnchanged) {
  StreamValue* stream = NewStream();
  for (uint64_t i = 1; i <= 120; i++) ASSERT_TRUE(Add(stream, {i, 0}, {"f", "v"}));
  const auto before = All(*stream);
  resource_.set_limit_bytes(memory_.held_bytes());
  for (uint64_t i = 121; i <= 400; i++) {
    if (!Add(stream, {i, 0}, {"field", std::string(64, 'v')})) break;
  }
  EXPECT_TRUE(stream->CheckInvariants());
  resource_.set_limit_bytes(SIZE_MAX);
  EXPECT_GE(All(*stream).size(), before.size());
}

// Random appends, deletes and trims against a map.
RC_GTEST_FIXTURE_PROP(StreamValueTest, BehavesAsASortedMap, ()) {
  StreamValue* stream = StreamValue::Create(memory_);
  Model model;
  uint64_t next = 1;
  const auto steps = *rc::gen::inRange(1, 400);
  for (int step = 0; step < steps; step++) {
    const int op = *rc::gen::inRange(0, 10);
    if (op < 7) {
      next += *rc::gen::inRange<uint64_t>(0, 3);
      const StreamId id{next, static_cast<uint64_t>(step)};
      Fields fields{*rc::gen::element<std::string>("a", "b", "1"), std::to_string(step)};
      std::vector<std::string_view> views(fields.begin(), fields.end());
      RC_ASSERT(stream->Append(id, views, {200, 7}, memory_));
      model[{id.ms, id.seq}] = fields;
    } else if (op < 9 && !model.empty()) {
      auto it = model.begin();
      std::advance(it, *rc::gen::inRange<size_t>(0, model.size()));
      bool refused = false;
      RC_ASSERT(stream->Delete({it->first.first, it->first.second}, memory_, &refused));
      model.erase(it);
    } else {
      StreamValue::TrimArgs args;
      args.strategy = StreamValue::TrimStrategy::kMaxlen;
      args.maxlen = *rc::gen::inRange<uint64_t>(0, 20);
      stream->Trim(args, memory_);
      while (model.size() > args.maxlen) model.erase(model.begin());
    }
    RC_ASSERT(stream->CheckInvariants());
    RC_ASSERT(stream->length() == model.size());
  }
  Model seen;
  stream->Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& entry) {
    Fields fields;
    entry.ForEachField([&](std::string_view f, std::string_view v) {
      fields.emplace_back(f);
      fields.emplace_back(v);
    });
    seen[{entry.id.ms, entry.id.seq}] = fields;
    return true;
  });
  StreamValue::Destroy(stream, memory_);
  RC_ASSERT(seen == model);
}

}  // namespace
}  // namespace keel
