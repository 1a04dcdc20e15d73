// A script that runs past busy-reply-threshold, through the real Server loop over the simulated
// network: the simulated clock moves with the script's Lua instructions (Clock::
// ChargeComputation), so the script becomes busy in virtual time; other clients then get BUSY
// for everything but SCRIPT KILL, SHUTDOWN NOSAVE and the few commands Redis lets in. Reply
// texts were checked against redis-server 7.0.15.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/server/server.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

constexpr std::string_view kBusy =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

class ScriptBusyTest : public ServerTest {
 protected:
  void SetUp() override {
    StartServer(ConfigWith({{"busy-reply-threshold", "10"}}));
    runner_ = Connect();
    other_ = Connect();
    Settle();
  }
  sim::SimNetwork& net() { return env_.sim_network(); }

  sim::SimClientId runner_ = 0;
  sim::SimClientId other_ = 0;
};

TEST_F(ScriptBusyTest, OthersGetBusyUntilTheScriptEnds) {
  // About 30 ms of virtual time at the simulated interpreter's speed: busy after 10.
  net().Send(runner_,
             Request({"eval", "local i = 0 while i < 800000 do i = i + 1 end return i", "0"}));
  net().Send(other_, Request({"get", "k"}) + Request({"multi"}) + Request({"discard"}));
  Settle();
  EXPECT_EQ(DecodeAll(net().Receive(runner_)), (std::vector<RespValue>{Int(800000)}));
  EXPECT_EQ(DecodeAll(net().Receive(other_)), (std::vector<RespValue>{Err(kBusy), Ok(), Ok()}));
  EXPECT_EQ(engine_->busy(), BusyKind::kNone);
  // Busy no more.
  EXPECT_EQ(Exchange(other_, Request({"get", "k"})), (std::vector<RespValue>{NilBulk()}));
}

TEST_F(ScriptBusyTest, ScriptKillStopsAScriptThatHasNotWritten) {
  net().Send(runner_, Request({"eval", "while true do end", "0"}));
  net().Send(other_, Request({"ping"}) + Request({"script", "kill"}));
  Settle();
  const std::vector<RespValue> runner = DecodeAll(net().Receive(runner_));
  ASSERT_EQ(runner.size(), 1u);
  EXPECT_EQ(runner[0].type, RespType::kError);
  EXPECT_EQ(runner[0].text.rfind("ERR Script killed by user with SCRIPT KILL... script: ", 0), 0u)
      << runner[0].text;
  EXPECT_EQ(DecodeAll(net().Receive(other_)), (std::vector<RespValue>{Err(kBusy), Ok()}));
  const std::vector<std::string>& log = env_.sim_log().lines();
  bool slow_logged = false;
  for (const std::string& line : log) {
    if (line.find("Slow script detected: still in execution after") != std::string::npos) {
      slow_logged = true;
    }
  }
  EXPECT_TRUE(slow_logged);
}

TEST_F(ScriptBusyTest, AScriptThatWroteCannotBeKilled) {
  net().Send(runner_, Request({"eval",
                               "redis.call('set', 'k', 'v') local i = 0 "
                               "while i < 800000 do i = i + 1 end return i",
                               "0"}));
  net().Send(other_, Request({"script", "kill"}) + Request({"shutdown"}));
  Settle();
  EXPECT_EQ(DecodeAll(net().Receive(runner_)), (std::vector<RespValue>{Int(800000)}));
  EXPECT_EQ(DecodeAll(net().Receive(other_)),
            (std::vector<RespValue>{
                Err("UNKILLABLE Sorry the script already executed write commands against the "
                    "dataset. You can either wait the script termination or kill the server in a "
                    "hard way using the SHUTDOWN NOSAVE command."),
                Err(kBusy)}));
  EXPECT_EQ(Exchange(other_, Request({"get", "k"})), (std::vector<RespValue>{Bulk("v")}));
}

TEST_F(ScriptBusyTest, ShutdownNosaveEndsAScriptThatWrote) {
  net().Send(runner_, Request({"eval", "redis.call('set', 'k', 'v') while true do end", "0"}));
  net().Send(other_, Request({"shutdown", "nosave"}));
  Settle();
  EXPECT_TRUE(engine_->shutdown_requested());
  // The script's client hears nothing, as when redis-server exits.
  EXPECT_EQ(net().Receive(runner_), "");
}

TEST_F(ScriptBusyTest, NoThresholdNoBusy) {
  engine_->RunCommand(*engine_->NewClient(0, nullptr),
                      {"config", "set", "busy-reply-threshold", "0"});
  net().Send(runner_,
             Request({"eval", "local i = 0 while i < 800000 do i = i + 1 end return 1", "0"}));
  net().Send(other_, Request({"ping"}));
  Settle();
  EXPECT_EQ(DecodeAll(net().Receive(runner_)), (std::vector<RespValue>{Int(1)}));
  EXPECT_EQ(DecodeAll(net().Receive(other_)), (std::vector<RespValue>{Status("PONG")}));
}

constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

// A function past the threshold: BUSY names FUNCTION KILL, FUNCTION STATS shows it, SCRIPT KILL
// refuses to kill it and FUNCTION KILL does (Redis's scriptKill and functionStatsCommand).
TEST_F(ScriptBusyTest, FunctionKillStopsAFunctionThatScriptKillWillNot) {
  ASSERT_EQ(Exchange(other_, Request({"function", "load",
                                      "#!lua name=spin\nredis.register_function('spin', "
                                      "function() while true do end end)"})),
            (std::vector<RespValue>{Bulk("spin")}));
  net().Send(runner_, Request({"fcall", "spin", "0", "arg"}));
  net().Send(other_, Request({"ping"}) + Request({"script", "kill"}) +
                         Request({"function", "stats"}) + Request({"function", "kill"}));
  Settle();
  const std::vector<RespValue> runner = DecodeAll(net().Receive(runner_));
  ASSERT_EQ(runner.size(), 1u);
  EXPECT_EQ(runner[0].text.rfind("ERR Script killed by user with SCRIPT KILL... script: spin, ", 0),
            0u)
      << runner[0].text;
  const std::vector<RespValue> other = DecodeAll(net().Receive(other_));
  ASSERT_EQ(other.size(), 4u);
  EXPECT_EQ(other[0], Err(kBusyFunction));
  EXPECT_EQ(other[1], Err(kBusyFunction));
  ASSERT_EQ(other[2].elements.size(), 4u);
  const RespValue& running = other[2].elements[1];
  ASSERT_EQ(running.elements.size(), 6u) << "name, command, duration_ms";
  EXPECT_EQ(running.elements[1], Bulk("spin"));
  EXPECT_EQ(running.elements[3], Array({Bulk("fcall"), Bulk("spin"), Bulk("0"), Bulk("arg")}));
  EXPECT_EQ(other[3], Ok());
  EXPECT_EQ(engine_->busy(), BusyKind::kNone);
}

TEST_F(ScriptBusyTest, FunctionCommandsRefuseWhileAnEvalScriptRuns) {
  net().Send(runner_, Request({"eval", "while true do end", "0"}));
  net().Send(other_, Request({"function", "kill"}) + Request({"function", "stats"}) +
                         Request({"script", "kill"}));
  Settle();
  EXPECT_EQ(DecodeAll(net().Receive(other_)),
            (std::vector<RespValue>{Err(kBusy), Err(kBusy), Ok()}));
}

}  // namespace
}  // namespace keel::testing
