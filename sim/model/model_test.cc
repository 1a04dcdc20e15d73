// Tests for the reference model: the Redis rules it encodes, and (RapidCheck) that the engine and
// the model agree on random command sequences from the workload generators, with the clock
// stepping and jumping between commands.
#include "sim/model/model.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "engine/server/engine.h"
#include "sim/sim_env.h"
#include "sim/testing/fixtures.h"
#include "sim/workload/workload.h"

namespace keel::model {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

class ModelTest : public ::testing::Test {
 protected:
  Expected Run(std::vector<std::string> args, int64_t now_ms = kNow) {
    Context context;
    context.now_ms = now_ms;
    return model_.Execute(session_, args, context);
  }

  Model model_;
  Session session_;
};

TEST_F(ModelTest, AKeyLivesThroughItsExpiryMillisecond) {
  EXPECT_TRUE(
      Run({"SET", "k", "v", "PXAT", std::to_string(kNow + 5)}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(Run({"GET", "k"}, kNow + 5).Matches(RespValue::Bulk("v")));
  EXPECT_TRUE(Run({"GET", "k"}, kNow + 6).Matches(testing::NilBulk()));
  EXPECT_TRUE(model_.db(0).empty());  // the lookup reclaimed it
}

TEST_F(ModelTest, DbsizeIsARangeWhileExpiredKeysAreNotReclaimed) {
  Run({"SET", "a", "1", "PX", "10"});
  Run({"SET", "b", "2"});
  const Expected size = Run({"DBSIZE"}, kNow + 100);
  EXPECT_TRUE(size.integer_range);
  EXPECT_TRUE(size.Matches(RespValue::Integer(1)));
  EXPECT_TRUE(size.Matches(RespValue::Integer(2)));
  EXPECT_FALSE(size.Matches(RespValue::Integer(3)));
  Run({"EXISTS", "a"}, kNow + 100);  // touching it reclaims it
  EXPECT_FALSE(Run({"DBSIZE"}, kNow + 100).Matches(RespValue::Integer(2)));
}

TEST_F(ModelTest, AStepBackwardsRevivesAnExpiredKeyNotYetReclaimed) {
  Run({"SET", "k", "v", "PX", "100"});
  EXPECT_TRUE(Run({"DBSIZE"}, kNow + 500).Matches(RespValue::Integer(0)));
  EXPECT_TRUE(Run({"GET", "k"}, kNow + 50).Matches(RespValue::Bulk("v")));
}

TEST_F(ModelTest, SetOptionsFollowRedis) {
  Run({"SET", "k", "old", "EX", "100"});
  EXPECT_TRUE(Run({"SET", "k", "new", "KEEPTTL", "GET"}).Matches(RespValue::Bulk("old")));
  EXPECT_EQ(model_.db(0).at("k").expire_at_ms, kNow + 100'000);
  EXPECT_TRUE(Run({"SET", "k", "x", "NX"}).Matches(testing::NilBulk()));
  EXPECT_TRUE(Run({"SET", "k", "x", "NX", "XX"}).Matches(RespValue::Error(kSyntaxError)));
  EXPECT_TRUE(Run({"SET", "k", "x", "EX", "1", "PX", "1"}).Matches(RespValue::Error(kSyntaxError)));
  EXPECT_TRUE(Run({"SET", "k", "x", "EX", "1", "EX", "2"}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(Run({"SET", "k", "x", "EX", "01"}).Matches(RespValue::Error(kNotInteger)));
  EXPECT_TRUE(Run({"SET", "k", "x", "PX", "9223372036854775807"})
                  .Matches(RespValue::Error("ERR invalid expire time in 'set' command")));
  EXPECT_TRUE(Run({"SET", "k", "x", "EXAT", "0"})
                  .Matches(RespValue::Error("ERR invalid expire time in 'set' command")));
}

TEST_F(ModelTest, RepliesFollowTheSessionsProtocol) {
  EXPECT_EQ(Run({"GET", "nothing"}).value.type, RespType::kNullBulk);
  const Expected hello = Run({"HELLO", "3"});
  EXPECT_EQ(hello.value.type, RespType::kMap);
  EXPECT_EQ(Run({"GET", "nothing"}).value.type, RespType::kNull);
  EXPECT_TRUE(Run({"RESET"}).Matches(RespValue::Simple("RESET")));
  EXPECT_EQ(session_.resp, 2);
}

TEST_F(ModelTest, RejectionsQuoteTheCommandAsRedisDoes) {
  EXPECT_TRUE(Run({"nosuch", "a", "b"})
                  .Matches(RespValue::Error(
                      "ERR unknown command 'nosuch', with args beginning with: 'a' 'b' ")));
  EXPECT_TRUE(
      Run({"GET"}).Matches(RespValue::Error("ERR wrong number of arguments for 'get' command")));
  EXPECT_TRUE(
      Run({"client", "nosuchsub"})
          .Matches(RespValue::Error("ERR unknown subcommand 'nosuchsub'. Try CLIENT HELP.")));
  EXPECT_TRUE(Run({"client"})
                  .Matches(RespValue::Error("ERR wrong number of arguments for 'client' command")));
}

TEST_F(ModelTest, AHelloOptionIsQuotedUpToItsFirstNulByte) {
  // Found by the commands fuzz harness: Redis formats the option with %s.
  EXPECT_TRUE(Run({"HELLO", "3", std::string("\x01\0\x04", 3)})
                  .Matches(RespValue::Error("ERR Syntax error in HELLO option '\x01'")));
}

TEST_F(ModelTest, AllocationRefusedLeavesTheKeyUnchanged) {
  Run({"SET", "k", "old"});
  Context context;
  context.now_ms = kNow;
  context.allocation_refused = true;
  const std::vector<std::string> set = {"SET", "k", "longer value"};
  EXPECT_TRUE(model_.Execute(session_, set, context).Matches(RespValue::Error(kOomError)));
  const std::vector<std::string> set_get = {"SET", "k", "longer value", "GET"};
  EXPECT_TRUE(model_.Execute(session_, set_get, context).Matches(RespValue::Error(kOomError)));
  EXPECT_EQ(model_.db(0).at("k").string, "old");
}

// The engine and the model agree, command by command, on what the workload generates. One engine
// client, no network: the Server loop and faults are the simulator's part.
RC_GTEST_PROP(ModelProperty, EngineAndModelAgreeOnRandomCommands, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  const auto count = *rc::gen::inRange(1, 120);
  sim::SimEnv env(seed);
  Engine engine(env, Config());
  Client* client = engine.NewClient(0, nullptr);
  Model model(static_cast<int>(engine.settings().databases));
  Session session;
  session.client_id = client->id();
  Rng rng(seed);
  workload::KeySpace space;
  space.keys = 1 + static_cast<int>(rng.Below(6));
  space.databases = 2;
  std::vector<std::string> args;
  for (int i = 0; i < count; i++) {
    // Time moves a few ms, sometimes across a second, sometimes backwards (wall clock only).
    const uint64_t move = rng.Below(10);
    if (move < 6) env.sim_clock().Advance(static_cast<int64_t>(rng.Below(4000)));
    if (move == 6) env.sim_clock().Advance(1'000'000);
    if (move == 7) env.sim_clock().JumpWall(-static_cast<int64_t>(rng.Below(3'000'000)));
    space.now_ms = env.clock().WallUs() / 1000;
    const auto& families = workload::Families();
    families[rng.Below(families.size())].generate(rng, space, &args);
    Context context;
    context.now_ms = env.clock().WallUs() / 1000;
    const Expected expected = model.Execute(session, args, context);
    std::vector<std::string_view> views(args.begin(), args.end());
    engine.RunCommand(*client, views);
    const std::vector<RespValue> replies = testing::DecodeAll(client->output().TakeAll());
    RC_ASSERT(replies.size() == 1u);
    if (!expected.Matches(replies[0])) {
      std::string command;
      for (const std::string& arg : args) command += "[" + arg + "] ";
      RC_LOG() << command << "expected " << expected.ToString() << ", the engine replied "
               << replies[0].ToString() << "\n";
    }
    RC_ASSERT(expected.Matches(replies[0]));
  }
}

}  // namespace
}  // namespace keel::model
