// MULTI, EXEC, DISCARD, WATCH, UNWATCH: queuing, aborts, WATCH's breakers, atomic execution at
// one command time, propagation as one unit, and the limits (conformance/cases/multi.txt pins
// the same replies against redis-server).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/commands/context.h"
#include "engine/db/propagation.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Array;
using testing::Bulk;
using testing::ConfigWith;
using testing::Err;
using testing::Int;
using testing::NilBulk;
using testing::NullArray;
using testing::Ok;
using testing::Status;

class Recording final : public PropagationSink {
 public:
  void Propagate(int db, std::span<const std::string_view> args) override {
    std::string line = std::to_string(db);
    for (std::string_view arg : args) line += " " + std::string(arg);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

class MultiTest : public testing::CommandTest {
 protected:
  void SetUp() override {
    StartEngine(ConfigWith({{"enable-debug-command", "yes"}}));
    other_ = engine_->NewClient(0, nullptr);
  }

  // A command of the second client.
  RespValue Other(std::initializer_list<std::string_view> args) {
    engine_->RunCommand(*other_, std::span<const std::string_view>(args.begin(), args.size()));
    return DecodeOne(other_->output().TakeAll());
  }

  std::string ClientInfo() {
    const RespValue info = Run({"client", "info"});
    return info.text;
  }

  uint64_t Calls(std::string_view name) {
    return engine_->stats().commands[engine_->registry().FindByFullName(name)->id].calls;
  }

  uint64_t FailedCalls(std::string_view name) {
    return engine_->stats().commands[engine_->registry().FindByFullName(name)->id].failed_calls;
  }

  Client* other_ = nullptr;
};

// Redis 7.0.15 counts an error once, for the command that replied it: EXEC is not a failed
// call because a queued command failed, wherever in the transaction it stands.
TEST_F(MultiTest, ExecIsNotFailedByTheErrorOfAQueuedCommand) {
  Run({"set", "s", "text"});
  for (const bool error_last : {false, true}) {
    Run({"multi"});
    if (error_last) Run({"set", "a", "1"});
    Run({"incr", "s"});
    if (!error_last) Run({"set", "a", "1"});
    const RespValue reply = Run({"exec"});
    ASSERT_EQ(reply.type, RespType::kArray);
  }
  EXPECT_EQ(Calls("exec"), 2u);
  EXPECT_EQ(FailedCalls("exec"), 0u);
  EXPECT_EQ(FailedCalls("incr"), 2u);
  // EXEC's own error still fails it.
  Run({"exec"});
  EXPECT_EQ(FailedCalls("exec"), 1u);
}

TEST_F(MultiTest, QueuedCommandsRunAtExecInOrder) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "k", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"incr", "k"}), Status("QUEUED"));
  EXPECT_EQ(Run({"get", "k"}), Status("QUEUED"));
  // Nothing ran yet: another client still sees no key.
  EXPECT_EQ(Other({"get", "k"}), NilBulk());
  EXPECT_EQ(Run({"exec"}), Array({Ok(), Int(2), Bulk("2")}));
  EXPECT_EQ(Other({"get", "k"}), Bulk("2"));
  // Out of the transaction again.
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"discard"}), Err("ERR DISCARD without MULTI"));
}

TEST_F(MultiTest, AnEmptyTransactionRepliesAnEmptyArray) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(RunRaw({"exec"}), "*0\r\n");
}

TEST_F(MultiTest, ARuntimeErrorFailsOnlyItsCommand) {
  ASSERT_EQ(Run({"set", "s", "text"}), Ok());
  Run({"multi"});
  Run({"incr", "s"});
  Run({"set", "t", "1"});
  EXPECT_EQ(Run({"exec"}), Array({Err("ERR value is not an integer or out of range"), Ok()}));
  EXPECT_EQ(Run({"get", "t"}), Bulk("1"));
}

TEST_F(MultiTest, QueuingErrorsAbortExec) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"nosuch", "x"}, std::vector<std::string>{"set", "k"},
        std::vector<std::string>{"shutdown"}}) {
    Run({"multi"});
    Run({"set", "k", "v"});
    const RespValue refused = Run(bad);
    EXPECT_EQ(refused.type, RespType::kError) << bad[0];
    EXPECT_EQ(Run({"exec"}), Err("EXECABORT Transaction discarded because of previous errors."));
    EXPECT_EQ(Run({"get", "k"}), NilBulk()) << bad[0];
  }
  Run({"multi"});
  EXPECT_EQ(Run({"shutdown"}), Err("ERR Command not allowed inside a transaction"));
}

TEST_F(MultiTest, TransactionCommandsRunAtOnceAndDoNotAbort) {
  Run({"multi"});
  EXPECT_EQ(Run({"multi"}), Err("ERR MULTI calls can not be nested"));
  EXPECT_EQ(Run({"watch", "k"}), Err("ERR WATCH inside MULTI is not allowed"));
  EXPECT_EQ(Run({"unwatch"}), Status("QUEUED"));
  EXPECT_EQ(Run({"set", "k", "v"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok(), Ok()}));
}

TEST_F(MultiTest, ExecRefusedEndsTheTransactionWithTheReason) {
  Run({"multi"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"exec", "extra"}),
            Err("EXECABORT Transaction discarded because of: wrong number of arguments for "
                "'exec' command"));
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"get", "k"}), NilBulk());
}

TEST_F(MultiTest, DiscardAndResetEndTheTransaction) {
  Run({"multi"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"discard"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), NilBulk());
  Run({"watch", "w"});
  Run({"multi"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(engine_->watches().watched_count(*client_), 0u);
}

TEST_F(MultiTest, AWriteFromAnyClientBreaksTheWatch) {
  Run({"set", "k", "1"});
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(Other({"set", "k", "2"}), Ok());
  Run({"multi"});
  Run({"set", "k", "3"});
  EXPECT_EQ(Run({"exec"}), NullArray());
  EXPECT_EQ(Run({"get", "k"}), Bulk("2"));
  // The client's own write counts too.
  Run({"watch", "k"});
  Run({"set", "k", "4"});
  Run({"multi"});
  Run({"get", "k"});
  EXPECT_EQ(Run({"exec"}), NullArray());
}

TEST_F(MultiTest, AWriteThatChangesNothingLeavesTheWatch) {
  Run({"set", "k", "1"});
  Run({"watch", "k", "missing"});
  EXPECT_EQ(Other({"set", "k", "2", "nx"}), NilBulk());
  EXPECT_EQ(Other({"del", "missing"}), Int(0));
  EXPECT_EQ(Other({"persist", "k"}), Int(0));
  EXPECT_EQ(Other({"get", "k"}), Bulk("1"));
  Run({"multi"});
  Run({"incr", "k"});
  EXPECT_EQ(Run({"exec"}), Array({Int(2)}));
}

// Found by the random differential run: Redis makes a value raw before a bit or HyperLogLog
// edit (dbUnshareStringValue) without signalling a modified key, so an edit that changes no
// byte breaks no WATCH (Keel's used to).
TEST_F(MultiTest, MakingAValueRawOrDenseWithoutChangingItLeavesTheWatch) {
  Run({"set", "int", "1"});
  Run({"pfadd", "hll", "a", "b", "c"});
  Run({"watch", "int", "hll"});
  EXPECT_EQ(Other({"setbit", "int", "7", "1"}), Int(1));  // '1' is 0x31: bit 7 is set already
  EXPECT_EQ(Other({"pfadd", "hll", "a"}), Int(0));
  EXPECT_EQ(Other({"object", "encoding", "int"}), Bulk("raw"));
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), Array({Status("PONG")}));
  // A change of a bit still breaks it.
  Run({"watch", "int"});
  EXPECT_EQ(Other({"setbit", "int", "7", "0"}), Int(1));
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), NullArray());
}

TEST_F(MultiTest, UnwatchForgetsTheKeysAndTheBreak) {
  Run({"watch", "k"});
  Other({"set", "k", "1"});
  EXPECT_NE(ClientInfo().find("flags=d "), std::string::npos);
  EXPECT_EQ(Run({"unwatch"}), Ok());
  Run({"multi"});
  Run({"get", "k"});
  EXPECT_EQ(Run({"exec"}), Array({Bulk("1")}));
}

TEST_F(MultiTest, AKeyThatExpiresAfterWatchBreaksIt) {
  Run({"set", "k", "v", "px", "100"});
  Run({"watch", "k"});
  AdvanceMs(200);
  // Nothing reclaimed it, and still EXEC fails (Redis 7.0's isWatchedKeyExpired).
  ASSERT_EQ(engine_->database(0).size(), 1u);
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), NullArray());
}

TEST_F(MultiTest, LazyAndActiveExpiryBreakTheWatch) {
  Run({"set", "lazy", "v", "px", "100"});
  Run({"set", "active", "v", "px", "100"});
  Run({"watch", "lazy"});
  AdvanceMs(200);
  EXPECT_EQ(Other({"get", "lazy"}), NilBulk());  // reclaimed by the lookup
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), NullArray());

  Run({"set", "active", "v", "px", "100"});
  Run({"watch", "active"});
  AdvanceMs(200);
  engine_->BeginTimeSlice();
  for (int i = 0; i < 20 && engine_->database(0).size() > 0; i++) engine_->Cron();
  ASSERT_EQ(engine_->database(0).size(), 0u);
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), NullArray());
}

TEST_F(MultiTest, AKeyAlreadyExpiredWhenWatchedIsAbsentUntilItGetsAValue) {
  Run({"set", "k", "v", "px", "100"});
  AdvanceMs(200);
  Run({"watch", "k"});
  // Reclaiming it is no change...
  EXPECT_EQ(Other({"get", "k"}), NilBulk());
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), Array({Status("PONG")}));
  // ...giving it a value is.
  Run({"set", "k", "v", "px", "100"});
  AdvanceMs(200);
  Run({"watch", "k"});
  Other({"set", "k", "new"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), NullArray());
}

TEST_F(MultiTest, EvictionBreaksTheWatch) {
  Run({"set", "k", "v"});
  Run({"watch", "k"});
  Other({"config", "set", "maxmemory-policy", "allkeys-random"});
  Other({"config", "set", "maxmemory", "1"});
  Other({"get", "x"});  // evicts before it runs
  Other({"config", "set", "maxmemory", "0"});
  ASSERT_EQ(engine_->database(0).size(), 0u);
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), NullArray());
}

TEST_F(MultiTest, FlushesBreakWatchesOfKeysTheyRemove) {
  Run({"set", "k", "v"});
  Run({"watch", "k", "missing"});
  EXPECT_EQ(Other({"flushdb"}), Ok());
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), NullArray());
  // A flush that removes no watched key leaves the watch alone.
  Run({"watch", "missing"});
  Other({"set", "other", "v"});
  Other({"flushall"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), Array({}));
  // Another database's flush does not reach it either.
  Run({"set", "k", "v"});
  Run({"watch", "k"});
  Other({"select", "1"});
  Other({"flushdb"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), Array({}));
}

TEST_F(MultiTest, SwapdbBreaksWatchesOfKeysItBringsOrTakes) {
  Other({"select", "1"});
  Other({"set", "k", "v"});
  Run({"watch", "k"});  // absent in db 0, present in db 1
  Other({"swapdb", "0", "1"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), NullArray());
  // Absent on both sides: no change.
  Run({"watch", "nowhere"});
  Other({"swapdb", "0", "1"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), Array({}));
}

TEST_F(MultiTest, ExecRunsAtOneCommandTime) {
  Run({"multi"});
  Run({"set", "k", "v", "px", "500"});
  Run({"debug", "sleep", "1"});
  Run({"pttl", "k"});
  EXPECT_EQ(Run({"exec"}), Array({Ok(), Ok(), Int(500)}));
  EXPECT_EQ(Run({"pttl", "k"}), Int(-2));
}

TEST_F(MultiTest, ExecPropagatesWhatItWroteAsOneUnit) {
  Recording sink;
  engine_->keyspace().propagation().AddSink(&sink);
  Run({"multi"});
  Run({"set", "a", "1"});
  Run({"incr", "a"});
  Run({"get", "a"});
  Run({"exec"});
  EXPECT_EQ(sink.lines, (std::vector<std::string>{"0 MULTI", "0 set a 1", "0 incr a", "-1 EXEC"}));
  sink.lines.clear();
  // One write alone, and a read-only transaction propagates nothing.
  Run({"multi"});
  Run({"incr", "a"});
  Run({"get", "a"});
  Run({"exec"});
  EXPECT_EQ(sink.lines, (std::vector<std::string>{"0 incr a"}));
  sink.lines.clear();
  Run({"multi"});
  Run({"get", "a"});
  Run({"exec"});
  EXPECT_TRUE(sink.lines.empty());
  engine_->keyspace().propagation().RemoveSink(&sink);
}

TEST_F(MultiTest, EveryCommandIsAccountedAndExecIsToo) {
  Run({"multi"});
  Run({"set", "a", "1"});
  Run({"incr", "a"});
  Run({"exec"});
  EXPECT_EQ(Calls("multi"), 1u);
  EXPECT_EQ(Calls("exec"), 1u);
  EXPECT_EQ(Calls("set"), 1u);
  EXPECT_EQ(Calls("incr"), 1u);
}

TEST_F(MultiTest, ClientListShowsTheTransaction) {
  EXPECT_NE(ClientInfo().find(" multi=-1 "), std::string::npos);
  Run({"multi"});
  Run({"set", "k", "v"});
  Run({"get", "k"});
  const RespValue inside = Run({"exec"});
  ASSERT_EQ(inside.type, RespType::kArray);
  Run({"multi"});
  Run({"client", "info"});
  const RespValue info = Run({"exec"});
  ASSERT_EQ(info.elements.size(), 1u);
  // Seen from inside EXEC: in a transaction of one command of 10 bytes and 2 arguments.
  EXPECT_NE(info.elements[0].text.find(" flags=x "), std::string::npos) << info.elements[0].text;
  EXPECT_NE(info.elements[0].text.find(" multi=1 "), std::string::npos);
  EXPECT_NE(info.elements[0].text.find(" multi-mem=26 "), std::string::npos);
}

TEST_F(MultiTest, MonitorIsRefusedInsideExec) {
  Run({"multi"});
  Run({"monitor"});
  EXPECT_EQ(Run({"exec"}), Array({Err("ERR MONITOR isn't allowed for DENY BLOCKING client")}));
  EXPECT_EQ(engine_->monitor_count(), 0u);
}

TEST_F(MultiTest, OverMaxmemoryQueuingIsRefusedAndExecOfDenyoomCommandsAborts) {
  Run({"multi"});
  Run({"set", "k", "v"});
  Other({"config", "set", "maxmemory", "1"});
  // Over the limit, with noeviction: queuing anything is refused (it takes memory)...
  EXPECT_EQ(Run({"get", "k"}), Err(std::string(errors::kOom)));
  // ...and EXEC of a transaction with a denyoom command is refused with the reason.
  EXPECT_EQ(Run({"exec"}),
            Err("EXECABORT Transaction discarded because of: OOM command not allowed when used "
                "memory > 'maxmemory'."));
  // A transaction of reads only may run.
  Other({"config", "set", "maxmemory", "0"});
  Run({"multi"});
  Run({"get", "k"});
  Other({"config", "set", "maxmemory", "1"});
  EXPECT_EQ(Run({"exec"}), Array({NilBulk()}));
  Run({"multi"});
  EXPECT_EQ(Run({"discard"}), Ok());
  Other({"config", "set", "maxmemory", "0"});
}

TEST_F(MultiTest, TheQueueIsBoundedByTheQueryBufferLimit) {
  Run({"config", "set", "client-query-buffer-limit", "1mb"});
  const std::string value(100 * 1024, 'x');
  Run({"multi"});
  RespValue reply;
  int queued = 0;
  for (; queued < 20; queued++) {
    reply = Run({"set", "k", value});
    if (reply.type == RespType::kError) break;
  }
  EXPECT_EQ(queued, 10);
  EXPECT_EQ(reply, Err(std::string(Engine::kTransactionTooLarge)));
  EXPECT_EQ(Run({"exec"}), Err("EXECABORT Transaction discarded because of previous errors."));
  // The queue's memory went back.
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kQueryBuffers), 0u);
}

TEST_F(MultiTest, ADisconnectedClientLeavesNoWatchOrQueue) {
  Run({"set", "k", "v"});
  Other({"watch", "k"});
  Other({"multi"});
  Other({"set", "k", "queued"});
  EXPECT_EQ(engine_->watches().total_watched_keys(), 1u);
  engine_->FreeClient(other_);
  other_ = nullptr;
  EXPECT_EQ(engine_->watches().total_watched_keys(), 0u);
  EXPECT_EQ(Run({"set", "k", "after"}), Ok());  // touches nothing that is gone
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kQueryBuffers), 0u);
}

TEST_F(MultiTest, ManyWatchersOfOneKeyAreAllBroken) {
  Client* third = engine_->NewClient(0, nullptr);
  Run({"watch", "k"});
  Other({"watch", "k", "j"});
  engine_->RunCommand(*third, {"watch", "j"});
  Run({"set", "k", "v"});
  EXPECT_TRUE(client_->flags & kClientDirtyCas);
  EXPECT_TRUE(other_->flags & kClientDirtyCas);
  EXPECT_FALSE(third->flags & kClientDirtyCas);
  // The broken client forgot its keys, so a write of "j" now reaches only the third.
  EXPECT_EQ(engine_->watches().total_watched_keys(), 1u);
  third->output().TakeAll();
}

}  // namespace
}  // namespace keel
