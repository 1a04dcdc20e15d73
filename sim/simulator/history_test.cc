// Tests for StateHistory, the crash check's record of every state: a recovered keyspace equal to
// a late enough state passes; one that lost an acknowledged write, holds half of a unit, or holds
// what no unit wrote fails; expired keys and encodings a reload changes do not count.
#include "sim/simulator/history.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::sim {
namespace {

class HistoryTest : public keel::testing::CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    engine_->keyspace().AddObserver(&history_);
  }
  void TearDown() override { engine_->keyspace().RemoveObserver(&history_); }

  // One unit: the commands, then the unit's end.
  void Unit(std::initializer_list<std::vector<std::string>> commands) {
    for (const std::vector<std::string>& args : commands) Run(args);
    history_.EndUnit(*engine_);
  }
  // A second engine holding what `commands` make: what a recovery could load.
  std::unique_ptr<Engine> Recovered(std::initializer_list<std::vector<std::string>> commands) {
    auto engine = std::make_unique<Engine>(env_, Config());
    Client* client = engine->NewClient(0, nullptr);
    for (const std::vector<std::string>& args : commands) {
      std::vector<std::string_view> views(args.begin(), args.end());
      engine->Replay(*client, views, kCallFromAof);
      client->output().Clear();
    }
    return engine;
  }
  int64_t NowMs() { return env_.clock().WallUs() / 1000; }

  StateHistory history_;
};

TEST_F(HistoryTest, AnyStateAtOrAfterThePromisedOnePasses) {
  Unit({{"set", "a", "1"}});
  Unit({{"rpush", "l", "x", "y"}});
  Unit({{"get", "a"}});  // a unit that changes nothing keeps the state before it
  Unit({{"set", "a", "2"}});
  ASSERT_EQ(history_.units(), 4u);

  auto empty = Recovered({});
  EXPECT_EQ(history_.CheckRecovered(*empty, NowMs(), 0).failure, "");
  auto second = Recovered({{"set", "a", "1"}, {"rpush", "l", "x", "y"}});
  StateHistory::Verdict verdict = history_.CheckRecovered(*second, NowMs(), 3);
  EXPECT_EQ(verdict.failure, "");
  EXPECT_EQ(verdict.matched, 3u);  // states 2 and 3 are the same
  auto last = Recovered({{"set", "a", "2"}, {"rpush", "l", "x", "y"}});
  EXPECT_EQ(history_.CheckRecovered(*last, NowMs(), 4).failure, "");
}

TEST_F(HistoryTest, ALostAcknowledgedWriteFails) {
  Unit({{"set", "a", "1"}});
  Unit({{"set", "b", "2"}});
  auto first = Recovered({{"set", "a", "1"}});
  const StateHistory::Verdict verdict = history_.CheckRecovered(*first, NowMs(), 2);
  EXPECT_NE(verdict.failure.find("an acknowledged write was lost"), std::string::npos)
      << verdict.failure;
  EXPECT_EQ(verdict.matched, 1u);
}

TEST_F(HistoryTest, HalfAUnitOrAnUnwrittenValueIsNoState) {
  Unit({{"set", "a", "1"}, {"set", "b", "1"}});  // a MULTI ... EXEC of two writes
  auto half = Recovered({{"set", "a", "1"}});
  EXPECT_NE(history_.CheckRecovered(*half, NowMs(), 0).failure.find("no state of the history"),
            std::string::npos);
  auto torn = Recovered({{"set", "a", std::string("1\0", 2)}, {"set", "b", "1"}});
  EXPECT_NE(history_.CheckRecovered(*torn, NowMs(), 0).failure.find("no state of the history"),
            std::string::npos);
  auto typed = Recovered({{"rpush", "a", "1"}, {"set", "b", "1"}});
  EXPECT_NE(history_.CheckRecovered(*typed, NowMs(), 0).failure, "");
}

TEST_F(HistoryTest, ExpiredKeysAndReloadedEncodingsDoNotCount) {
  const std::string at_ms = std::to_string(NowMs() + 1000);
  Unit({{"set", "gone", "v", "pxat", at_ms}});
  // A set written as a hashtable and reloaded as an intset, a sorted set whose -0 became 0.
  Unit({{"sadd", "s", "x", "1"}, {"srem", "s", "x"}});
  Unit({{"zadd", "z", "1", std::string(80, 'L'), "-0", "m"}, {"zrem", "z", std::string(80, 'L')}});
  AdvanceMs(2000);
  auto reloaded = Recovered({{"sadd", "s", "1"}, {"zadd", "z", "0", "m"}});
  EXPECT_EQ(history_.CheckRecovered(*reloaded, NowMs(), 3).failure, "");
  // Still there, it matters neither.
  auto kept =
      Recovered({{"set", "gone", "v", "pxat", at_ms}, {"sadd", "s", "1"}, {"zadd", "z", "0", "m"}});
  EXPECT_EQ(history_.CheckRecovered(*kept, NowMs(), 3).failure, "");
  // A live expiry must be the same.
  auto other_expiry = Recovered({{"sadd", "s", "1"},
                                 {"zadd", "z", "0", "m"},
                                 {"pexpireat", "s", std::to_string(NowMs() + 5000)}});
  EXPECT_NE(history_.CheckRecovered(*other_expiry, NowMs(), 3).failure, "");
}

TEST_F(HistoryTest, FlushAndSwapAreFollowed) {
  Unit({{"set", "a", "1"}, {"select", "1"}, {"set", "b", "2"}, {"select", "0"}});
  Unit({{"swapdb", "0", "1"}});
  Unit({{"flushdb"}});  // database 0 now holds b; it goes
  auto after = Recovered({{"select", "1"}, {"set", "a", "1"}});
  EXPECT_EQ(history_.CheckRecovered(*after, NowMs(), 3).failure, "");
  auto swapped = Recovered({{"set", "b", "2"}, {"select", "1"}, {"set", "a", "1"}});
  const StateHistory::Verdict verdict = history_.CheckRecovered(*swapped, NowMs(), 0);
  EXPECT_EQ(verdict.failure, "");
  EXPECT_EQ(verdict.matched, 2u);
}

}  // namespace
}  // namespace keel::sim
