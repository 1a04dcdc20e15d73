// Tests for the simulator: determinism (in one process and across processes), swarm plans, that
// every fault class happens, that small sweeps pass, and that the oracle reports what it must.
#include "sim/simulator/simulation.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "engine/db/database.h"
#include "engine/server/engine.h"
#include "sim/simulator/oracle.h"
#include "sim/simulator/plan.h"
#include "sim/testing/fixtures.h"

namespace keel::sim {
namespace {

RunPlan Plan(uint64_t seed, int ops) {
  RunOverrides overrides;
  overrides.ops = ops;
  return DrawPlan(seed, overrides);
}

// Counts trace records by kind (the first word after the time).
class CountingSink final : public TraceSink {
 public:
  void WriteLine(std::string_view line) override {
    const size_t start = line.find(' ') + 1;
    const size_t end = line.find(' ', start);
    counts[std::string(line.substr(start, end - start))]++;
  }
  std::map<std::string, int> counts;
};

TEST(SimulationTest, TheSameSeedGivesTheSameTraceInOneProcess) {
  for (uint64_t seed : {1, 2, 3, 17, 99}) {
    const RunPlan plan = Plan(seed, 150);
    const RunResult first = Simulate(plan);
    const RunResult second = Simulate(plan);
    ASSERT_TRUE(first.ok) << first.failure;
    // A power loss ends a run early (seed 2's, after a few commands), and must replay too.
    if (first.crashes == 0) {
      EXPECT_GT(first.trace_records, 100u);
    }
    EXPECT_EQ(first.crashes, second.crashes) << "seed " << seed;
    EXPECT_EQ(first.trace_hash, second.trace_hash) << "seed " << seed;
    EXPECT_EQ(first.trace_records, second.trace_records) << "seed " << seed;
    EXPECT_EQ(first.commands, second.commands) << "seed " << seed;
  }
}

TEST(SimulationTest, DifferentSeedsGiveDifferentTraces) {
  std::set<uint64_t> hashes;
  for (uint64_t seed = 1; seed <= 10; seed++) hashes.insert(Simulate(Plan(seed, 50)).trace_hash);
  EXPECT_EQ(hashes.size(), 10u);
}

TEST(SimulationTest, FormattingTheTraceDoesNotChangeIt) {
  CountingSink sink;
  const RunPlan plan = Plan(4, 100);
  EXPECT_EQ(Simulate(plan, &sink).trace_hash, Simulate(plan).trace_hash);
}

TEST(SimulationTest, TheSameSeedGivesTheSameTraceInAnotherProcess) {
  for (uint64_t seed : {5, 6}) {
    const RunResult here = Simulate(Plan(seed, 120));
    const std::string command = std::string(KEEL_SIM_BINARY) + " --seed " + std::to_string(seed) +
                                " --ops 120 --print-hash --no-shrink 2>/dev/null";
    std::FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    uint64_t hash = 0;
    uint64_t records = 0;
    const int parsed =
        std::fscanf(pipe, "trace-hash %" SCNx64 " records %" SCNu64, &hash, &records);
    EXPECT_EQ(pclose(pipe), 0);
    ASSERT_EQ(parsed, 2) << command;
    EXPECT_EQ(hash, here.trace_hash) << "seed " << seed;
    EXPECT_EQ(records, here.trace_records) << "seed " << seed;
  }
}

TEST(SimulationTest, SmallRunsOfManySeedsPass) {
  uint64_t commands = 0;
  for (uint64_t seed = 100; seed < 130; seed++) {
    const RunResult result = Simulate(Plan(seed, 120));
    EXPECT_TRUE(result.ok) << "seed " << seed << " (" << result.phase << "): " << result.failure;
    commands += result.commands;
  }
  EXPECT_GT(commands, 30u * 50);
}

TEST(SimulationTest, EveryFaultClassHappensInASweep) {
  CountingSink sink;
  uint64_t power_losses = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    const RunResult result = Simulate(Plan(seed, 200), &sink);
    ASSERT_TRUE(result.ok) << "seed " << seed << ": " << result.failure;
    power_losses += result.crashes;
  }
  EXPECT_GT(power_losses, 5u);
  for (const char* kind : {"reset", "client-close", "wall-jump", "timer-late", "refusal",
                           "server-close", "execute", "reply"}) {
    EXPECT_GT(sink.counts[kind], 0) << kind << " never happened";
  }
}

TEST(PlanTest, SeedsDrawDifferentRuns) {
  std::set<int> clients;
  std::set<uint32_t> faults;
  std::set<size_t> splits;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    const RunPlan plan = DrawPlan(seed, RunOverrides());
    clients.insert(plan.clients);
    faults.insert(plan.faults);
    splits.insert(plan.read_bytes_max);
    EXPECT_GE(plan.clients, 1);
    EXPECT_LE(plan.clients, 16);
    EXPECT_EQ(plan.ops, kOpsDefault);
  }
  EXPECT_GE(clients.size(), 8u);
  EXPECT_GE(faults.size(), 40u);
  EXPECT_TRUE(faults.count(0) || faults.size() > 100);  // some calm seeds, or a wide spread
  EXPECT_GE(splits.size(), 4u);
}

TEST(PlanTest, OverridesChangeOnlyWhatTheySay) {
  const RunPlan full = DrawPlan(42, RunOverrides());
  RunOverrides overrides;
  overrides.clients = 1;
  overrides.ops = 10;
  overrides.faults = kFaultClock;
  const RunPlan small = DrawPlan(42, overrides);
  EXPECT_EQ(small.clients, 1);
  EXPECT_EQ(small.ops, 10);
  EXPECT_EQ(small.faults, full.faults & kFaultClock);
  EXPECT_EQ(small.space.keys, full.space.keys);
  EXPECT_EQ(small.pipeline_max, full.pipeline_max);
  EXPECT_EQ(small.ReplayArgs(overrides), "--seed 42 --clients 1 --ops 10 --faults clock");
}

TEST(PlanTest, FaultNamesRoundTrip) {
  uint32_t mask = 0;
  ASSERT_TRUE(ParseFaultNames("reset,clock,memory", &mask));
  EXPECT_EQ(mask, kFaultReset | kFaultClock | kFaultMemory);
  EXPECT_EQ(FaultNames(mask), "reset,clock,memory");
  EXPECT_EQ(FaultNames(0), "none");
  EXPECT_FALSE(ParseFaultNames("reset,lightning", &mask));
}

// The oracle on its own: an engine, one client, commands run directly.
class OracleTest : public ::testing::Test {
 protected:
  OracleTest() : env_(1), engine_(env_, Config()), oracle_(engine_, env_, trace_, 0, "noeviction") {
    client_ = engine_.NewClient(kConn, nullptr);
    oracle_.Open(kConn, client_->id());
    engine_.set_command_observer(&oracle_);
  }
  ~OracleTest() override { engine_.set_command_observer(nullptr); }
  void Run(std::initializer_list<std::string_view> args) {
    engine_.RunCommand(*client_, args);
    client_->output().TakeAll();
  }

  static constexpr SimClientId kConn = 7;
  SimEnv env_;
  Trace trace_;
  Engine engine_;
  Oracle oracle_;
  Client* client_ = nullptr;
};

TEST_F(OracleTest, ARightReplyPassesAndAWrongOneIsReported) {
  oracle_.Sent(kConn, {"SET", "k", "v"});
  oracle_.Sent(kConn, {"GET", "k"});
  Run({"SET", "k", "v"});
  Run({"GET", "k"});
  oracle_.Received(kConn, RespValue::Simple("OK"), "+OK\r\n");
  EXPECT_EQ(oracle_.failure(), "");
  oracle_.Received(kConn, RespValue::Bulk("w"), "$1\r\nw\r\n");
  EXPECT_NE(oracle_.failure().find("command #2 in db 0"), std::string::npos) << oracle_.failure();
  EXPECT_NE(oracle_.failure().find("expected: \"v\""), std::string::npos) << oracle_.failure();
  EXPECT_NE(oracle_.failure().find("actual:   \"w\""), std::string::npos) << oracle_.failure();
}

TEST_F(OracleTest, AReplyNobodyAskedForIsReported) {
  oracle_.Received(kConn, RespValue::Simple("OK"), "+OK\r\n");
  EXPECT_NE(oracle_.failure().find("no reply was due"), std::string::npos) << oracle_.failure();
}

TEST_F(OracleTest, ACommandTheClientNeverSentIsReported) {
  Run({"PING"});
  EXPECT_NE(oracle_.failure().find("which the client never sent"), std::string::npos)
      << oracle_.failure();
}

TEST_F(OracleTest, ACommandOutOfOrderIsReported) {
  oracle_.Sent(kConn, {"GET", "a"});
  oracle_.Sent(kConn, {"GET", "b"});
  Run({"GET", "b"});
  EXPECT_NE(oracle_.failure().find("executed GET b but the client sent GET a"), std::string::npos)
      << oracle_.failure();
}

TEST_F(OracleTest, ARefusedSetIsFollowedWhicheverOutcomeTheEngineTook) {
  oracle_.Sent(kConn, {"SET", "k", "first"});
  Run({"SET", "k", "first"});
  oracle_.Received(kConn, RespValue::Simple("OK"), "+OK\r\n");
  // From now on every allocation is refused: a longer value cannot be stored.
  env_.sim_memory().set_refusal(env_.sim_memory().used_bytes(), 1'000'000);
  oracle_.Sent(kConn, {"SET", "k", "a longer value", "GET"});
  // A value of a size the keyspace holds no page for yet, so that storing it must allocate.
  const std::string big(300, 'v');
  oracle_.Sent(kConn, {"SET", "other", big});
  Run({"SET", "k", "a longer value", "GET"});
  Run({"SET", "other", big});
  oracle_.Received(kConn, RespValue::Error(model::kOomError), "-OOM\r\n");
  oracle_.Received(kConn, RespValue::Error(model::kOomError), "-OOM\r\n");
  EXPECT_EQ(oracle_.failure(), "");
  EXPECT_EQ(oracle_.model().db(0).at("k").string, "first");
  EXPECT_EQ(oracle_.model().db(0).count("other"), 0u);
}

TEST_F(OracleTest, AnExpiredKeyTheEngineReclaimedStaysGoneAfterTheClockStepsBack) {
  oracle_.Sent(kConn, {"SET", "k", "v", "PX", "10"});
  Run({"SET", "k", "v", "PX", "10"});
  env_.sim_clock().Advance(50'000);
  oracle_.ObserveWall(env_.clock().WallUs() / 1000);
  // The engine reclaims the expired key on its own (as active expiry does), then the wall clock
  // steps back to before the expiry: Redis would report the key gone, and so must the model.
  engine_.keyspace().DeleteExpired(0, "k", engine_.keyspace().Hash(0, "k"));
  ASSERT_EQ(engine_.database(0).size(), 0u);
  env_.sim_clock().JumpWall(-100'000);
  oracle_.Sent(kConn, {"GET", "k"});
  Run({"GET", "k"});
  oracle_.Received(kConn, RespValue::Simple("OK"), "+OK\r\n");
  oracle_.Received(kConn, testing::NilBulk(), "$-1\r\n");
  EXPECT_EQ(oracle_.failure(), "");
}

TEST_F(OracleTest, AnExpiredKeyTheEngineStillHoldsComesBackWithTheClock) {
  oracle_.Sent(kConn, {"SET", "k", "v", "PX", "10"});
  Run({"SET", "k", "v", "PX", "10"});
  env_.sim_clock().Advance(50'000);
  oracle_.ObserveWall(env_.clock().WallUs() / 1000);
  env_.sim_clock().JumpWall(-100'000);  // no command touched it: lazy expiry never ran
  oracle_.Sent(kConn, {"GET", "k"});
  Run({"GET", "k"});
  oracle_.Received(kConn, RespValue::Simple("OK"), "+OK\r\n");
  oracle_.Received(kConn, RespValue::Bulk("v"), "$1\r\nv\r\n");
  EXPECT_EQ(oracle_.failure(), "");
}

// Regression seeds 1253 and 376: an eviction is a write to a watched key (Redis's evict.c
// signals it), so the model must break the WATCH as the engine does.
TEST(OracleEvictionTest, AnEvictedKeyBreaksTheWatchOnIt) {
  SimEnv env(1);
  Trace trace;
  Engine engine(env, Config());
  Oracle oracle(engine, env, trace, 1, "allkeys-lru");
  constexpr SimClientId kConn = 7;
  Client* client = engine.NewClient(kConn, nullptr);
  oracle.Open(kConn, client->id());
  engine.set_command_observer(&oracle);
  for (std::initializer_list<std::string_view> args :
       {std::initializer_list<std::string_view>{"SET", "k", "v"}, {"WATCH", "k"}}) {
    oracle.Sent(kConn, std::vector<std::string>(args.begin(), args.end()));
    engine.RunCommand(*client, args);
  }
  engine.set_command_observer(nullptr);
  ASSERT_FALSE(oracle.model().WatchBroken(client->id(), 0));
  oracle.BeforeKeyChange(engine.database(0), "k", engine.keyspace().Hash(0, "k"));
  oracle.KeyEventFired(0, 0, "evicted", "k");
  EXPECT_EQ(oracle.failure(), "");
  EXPECT_EQ(oracle.model().db(0).count("k"), 0u);
  EXPECT_TRUE(oracle.model().WatchBroken(client->id(), 0));
}

TEST_F(OracleTest, AKeyspaceThatDriftsFromTheModelIsFound) {
  oracle_.Sent(kConn, {"SET", "k", "v"});
  Run({"SET", "k", "v"});
  EXPECT_EQ(CompareKeyspace(engine_, oracle_.model(), 0, 0), "");
  // Written behind the write path's back, as a bug would.
  ASSERT_NE(engine_.keyspace().SetString(0, "k", engine_.keyspace().Hash(0, "k"), "changed",
                                         kNoExpiry, ObjectEncoding::kEmbstr, events::kNone),
            Database::SetOutcome::kOutOfMemory);
  EXPECT_NE(CompareKeyspace(engine_, oracle_.model(), 0, 0).find("the engine holds \"changed\""),
            std::string::npos);
  ASSERT_TRUE(engine_.keyspace().Delete(0, "k", engine_.keyspace().Hash(0, "k")));
  EXPECT_NE(CompareKeyspace(engine_, oracle_.model(), 0, 0).find("the engine nothing"),
            std::string::npos);
}

}  // namespace
}  // namespace keel::sim
