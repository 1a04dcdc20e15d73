// Tests for the blocking list commands and the engine's blocking machinery (blocking.h): clients
// served first come first served, after the top-level command that made a key ready; timeouts on
// the virtual clock; CLIENT UNBLOCK; keys deleted, retyped, renamed or swapped while clients wait;
// waiters that disconnect; input pipelined behind a blocked command.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

using Replies = std::vector<RespValue>;

class ListBlockTest : public ServerTest {
 protected:
  sim::SimNetwork& net() { return env_.sim_network(); }
  std::string InfoField(sim::SimClientId asker, std::string_view field) {
    const std::string info = Ask(asker, {"info", "clients"}).at(0).text;
    const std::string key = std::string(field) + ":";
    const size_t at = info.find(key);
    if (at == std::string::npos) return "<missing>";
    const size_t begin = at + key.size();
    return info.substr(begin, info.find('\r', begin) - begin);
  }
  uint64_t IdOf(sim::SimClientId client) {
    return static_cast<uint64_t>(Ask(client, {"client", "id"}).at(0).integer);
  }
  // Runs loop iterations, letting virtual time pass, until `client` has a reply (or 10,000).
  Replies AwaitReply(sim::SimClientId client) {
    Replies replies;
    for (int i = 0; i < 10000 && replies.empty(); i++) {
      server_->RunOnce();
      replies = Received(client);
    }
    return replies;
  }
};

TEST_F(ListBlockTest, APushServesTheWaiterAndItsPipelinedCommandsThenRun) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId pusher = Connect();
  const uint64_t waiter_id = IdOf(waiter);
  net().Send(waiter, Request({"blpop", "q", "0"}) + Request({"ping"}));
  Settle();
  EXPECT_EQ(Received(waiter), Replies{});
  EXPECT_EQ(InfoField(pusher, "blocked_clients"), "1");
  EXPECT_EQ(InfoField(pusher, "clients_in_timeout_table"), "0");
  const std::string line = Ask(pusher, {"client", "list", "id", std::to_string(waiter_id)})[0].text;
  EXPECT_NE(line.find(" flags=b "), std::string::npos) << line;
  EXPECT_NE(line.find(" cmd=blpop "), std::string::npos) << line;
  EXPECT_EQ(Ask(pusher, {"rpush", "q", "a", "b"}), Replies{Int(2)});
  EXPECT_EQ(Received(waiter), (Replies{Array({Bulk("q"), Bulk("a")}), Status("PONG")}));
  EXPECT_EQ(Ask(pusher, {"lrange", "q", "0", "-1"}), Replies{Array({Bulk("b")})});
  EXPECT_EQ(InfoField(pusher, "blocked_clients"), "0");
}

TEST_F(ListBlockTest, WaitersAreServedFirstComeFirstServed) {
  const sim::SimClientId first = Connect();
  const sim::SimClientId second = Connect();
  const sim::SimClientId third = Connect();
  const sim::SimClientId pusher = Connect();
  Send(first, {"brpop", "q", "0"});
  Send(second, {"blpop", "other", "q", "0"});
  Send(third, {"blpop", "q", "0"});
  // One push of three elements serves all three, in the order they blocked.
  EXPECT_EQ(Ask(pusher, {"lpush", "q", "x", "y", "z"}), Replies{Int(3)});
  EXPECT_EQ(Received(first), Replies{Array({Bulk("q"), Bulk("x")})});
  EXPECT_EQ(Received(second), Replies{Array({Bulk("q"), Bulk("z")})});
  EXPECT_EQ(Received(third), Replies{Array({Bulk("q"), Bulk("y")})});
  EXPECT_EQ(Ask(pusher, {"exists", "q"}), Replies{Int(0)});
  // One element for two waiters: the first gets it, the second waits on.
  Send(first, {"blpop", "q", "0"});
  Send(second, {"blpop", "q", "0"});
  EXPECT_EQ(Ask(pusher, {"rpush", "q", "1"}), Replies{Int(1)});
  EXPECT_EQ(Received(first), Replies{Array({Bulk("q"), Bulk("1")})});
  EXPECT_EQ(Received(second), Replies{});
  EXPECT_EQ(Ask(pusher, {"rpush", "q", "2"}), Replies{Int(1)});
  EXPECT_EQ(Received(second), Replies{Array({Bulk("q"), Bulk("2")})});
}

TEST_F(ListBlockTest, TimeoutsRunOnTheClockAndZeroWaitsForever) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId forever = Connect();
  const sim::SimClientId other = Connect();
  Send(forever, {"blpop", "q", "0"});
  // Settling lets virtual time pass once nothing is left to do, so the clock is read just
  // before the command that blocks.
  const int64_t start_us = env_.sim_clock().MonotonicUs();
  Send(waiter, {"blmove", "src", "dst", "left", "right", "1.5"});
  EXPECT_EQ(InfoField(other, "clients_in_timeout_table"), "1");
  // BLMOVE's timeout is a null array, as for every key wait in Redis 7.0.
  EXPECT_EQ(AwaitReply(waiter), Replies{NullArray()});
  const int64_t waited_us = env_.sim_clock().MonotonicUs() - start_us;
  EXPECT_GT(waited_us, 1'500'000);
  EXPECT_LT(waited_us, 1'510'000);  // woken for the deadline, not at a later cron tick
  env_.sim_clock().Advance(60'000'000);
  Settle();
  EXPECT_EQ(Received(forever), Replies{});
  EXPECT_EQ(InfoField(other, "blocked_clients"), "1");
}

TEST_F(ListBlockTest, TimeoutArgumentsAreCheckedAsRedisChecksThem) {
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Ask(client, {"blpop", "q", "-1"}), Replies{Err("ERR timeout is negative")});
  EXPECT_EQ(Ask(client, {"blpop", "q", "inf"}), Replies{Err("ERR timeout is negative")});
  EXPECT_EQ(Ask(client, {"blpop", "q", "1e30"}), Replies{Err("ERR timeout is negative")});
  EXPECT_EQ(Ask(client, {"blpop", "q", "abc"}),
            Replies{Err("ERR timeout is not a float or out of range")});
  EXPECT_EQ(Ask(client, {"blpop", "q", "nan"}),
            Replies{Err("ERR timeout is not a float or out of range")});
  EXPECT_EQ(Ask(client, {"brpoplpush", "a", "b", " 1"}),
            Replies{Err("ERR timeout is not a float or out of range")});
  // BLMPOP checks numkeys, the direction and the count before the timeout.
  EXPECT_EQ(Ask(client, {"blmpop", "x", "0", "q", "left"}),
            Replies{Err("ERR numkeys should be greater than 0")});
  EXPECT_EQ(Ask(client, {"blmpop", "x", "1", "q", "up"}), Replies{Err("ERR syntax error")});
  EXPECT_EQ(Ask(client, {"blmpop", "x", "1", "q", "left", "count", "0"}),
            Replies{Err("ERR count should be greater than 0")});
  EXPECT_EQ(Ask(client, {"blmpop", "x", "1", "q", "left"}),
            Replies{Err("ERR timeout is not a float or out of range")});
  // 1e-10 s rounds up to one millisecond.
  Send(client, {"blpop", "q", "1e-10"});
  EXPECT_EQ(AwaitReply(client), Replies{NullArray()});
}

TEST_F(ListBlockTest, APushInsideATransactionServesOnlyAfterExec) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId writer = Connect();
  Send(waiter, {"blpop", "q", "0"});
  EXPECT_EQ(Ask(writer, {"multi"}), Replies{Ok()});
  EXPECT_EQ(Ask(writer, {"rpush", "q", "a"}), Replies{Status("QUEUED")});
  EXPECT_EQ(Ask(writer, {"lrange", "q", "0", "-1"}), Replies{Status("QUEUED")});
  EXPECT_EQ(Received(waiter), Replies{});
  // The transaction sees its own push; the waiter gets it once EXEC is done.
  EXPECT_EQ(Ask(writer, {"exec"}), Replies{Array({Int(1), Array({Bulk("a")})})});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("q"), Bulk("a")})});
}

TEST_F(ListBlockTest, InsideMultiABlockingCommandAnswersAsItsTimeoutWould) {
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Ask(client, {"rpush", "q", "a"}), Replies{Int(1)});
  Ask(client, {"multi"});
  Ask(client, {"blpop", "q", "0"});
  Ask(client, {"blpop", "q", "0"});
  Ask(client, {"blmove", "q", "d", "left", "left", "0"});
  Ask(client, {"blmpop", "0", "1", "q", "left"});
  EXPECT_EQ(Ask(client, {"exec"}),
            Replies{Array({Array({Bulk("q"), Bulk("a")}), NullArray(), NilBulk(), NullArray()})});
}

TEST_F(ListBlockTest, AKeyOfAnotherTypeLeavesTheWaiterWaitingAndARenameServesIt) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId writer = Connect();
  Send(waiter, {"blpop", "q", "0"});
  EXPECT_EQ(Ask(writer, {"set", "q", "string"}), Replies{Ok()});
  EXPECT_EQ(Ask(writer, {"del", "q"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter), Replies{});
  EXPECT_EQ(Ask(writer, {"rpush", "elsewhere", "moved"}), Replies{Int(1)});
  EXPECT_EQ(Ask(writer, {"rename", "elsewhere", "q"}), Replies{Ok()});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("q"), Bulk("moved")})});
}

TEST_F(ListBlockTest, SwapdbAndMoveServeWaitersOfTheDatabaseTheyFill) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId writer = Connect();
  Send(waiter, {"blpop", "q", "0"});
  Ask(writer, {"select", "1"});
  EXPECT_EQ(Ask(writer, {"rpush", "q", "from-1"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter), Replies{});
  EXPECT_EQ(Ask(writer, {"swapdb", "0", "1"}), Replies{Ok()});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("q"), Bulk("from-1")})});
  Send(waiter, {"blpop", "q", "0"});
  EXPECT_EQ(Ask(writer, {"rpush", "q", "moved"}), Replies{Int(1)});  // writer is in db 1
  EXPECT_EQ(Ask(writer, {"move", "q", "0"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("q"), Bulk("moved")})});
}

TEST_F(ListBlockTest, AWaiterThatDisconnectsTakesNothing) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId writer = Connect();
  Send(waiter, {"blpop", "q", "0"});
  net().CloseClient(waiter);
  Settle();
  EXPECT_EQ(InfoField(writer, "blocked_clients"), "0");
  EXPECT_EQ(Ask(writer, {"rpush", "q", "kept"}), Replies{Int(1)});
  EXPECT_EQ(Ask(writer, {"llen", "q"}), Replies{Int(1)});
}

TEST_F(ListBlockTest, ClientUnblockEndsAWaitWithTheTimeoutReplyOrAnError) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId admin = Connect();
  const uint64_t id = IdOf(waiter);
  EXPECT_EQ(Ask(admin, {"client", "unblock", std::to_string(id)}), Replies{Int(0)});
  Send(waiter, {"blpop", "q", "0"});
  EXPECT_EQ(Ask(admin, {"client", "unblock", std::to_string(id), "timeout"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter), Replies{NullArray()});
  Send(waiter, {"brpoplpush", "q", "d", "0"});
  EXPECT_EQ(Ask(admin, {"client", "unblock", std::to_string(id), "ERROR"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter), Replies{Err("UNBLOCKED client unblocked via CLIENT UNBLOCK")});
  EXPECT_EQ(Ask(admin, {"client", "unblock", std::to_string(id), "nope"}),
            Replies{Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")});
  EXPECT_EQ(Ask(admin, {"client", "unblock", "x"}),
            Replies{Err("ERR value is not an integer or out of range")});
  // Both endings count as failed calls of the blocked command, as in Redis 7.0.
  const std::string stats = Ask(admin, {"info", "commandstats"}).at(0).text;
  EXPECT_NE(stats.find("cmdstat_blpop:calls=1,"), std::string::npos) << stats;
  EXPECT_NE(stats.find("failed_calls=1\r\ncmdstat_brpoplpush"), std::string::npos) << stats;
}

TEST_F(ListBlockTest, BlmoveServedMovesAndAWrongDestinationKeepsTheElement) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId writer = Connect();
  // Source and destination the same list: the element goes round.
  Send(waiter, {"blmove", "q", "q", "right", "left", "0"});
  EXPECT_EQ(Ask(writer, {"rpush", "q", "a", "b"}), Replies{Int(2)});
  EXPECT_EQ(Received(waiter), Replies{Bulk("b")});
  EXPECT_EQ(Ask(writer, {"lrange", "q", "0", "-1"}), Replies{Array({Bulk("b"), Bulk("a")})});
  Ask(writer, {"del", "q"});
  EXPECT_EQ(Ask(writer, {"set", "d", "string"}), Replies{Ok()});
  Send(waiter, {"brpoplpush", "q", "d", "0"});
  EXPECT_EQ(Ask(writer, {"rpush", "q", "x"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter),
            Replies{Err("WRONGTYPE Operation against a key holding the wrong kind of value")});
  EXPECT_EQ(Ask(writer, {"lrange", "q", "0", "-1"}), Replies{Array({Bulk("x")})});
}

TEST_F(ListBlockTest, CircularMovesServeEachOtherInOneRound) {
  const sim::SimClientId first = Connect();
  const sim::SimClientId second = Connect();
  const sim::SimClientId writer = Connect();
  Send(first, {"brpoplpush", "l1", "l2", "0"});
  Send(second, {"brpoplpush", "l2", "l1", "0"});
  EXPECT_EQ(Ask(writer, {"rpush", "l1", "foo"}), Replies{Int(1)});
  EXPECT_EQ(Received(first), Replies{Bulk("foo")});
  EXPECT_EQ(Received(second), Replies{Bulk("foo")});
  EXPECT_EQ(Ask(writer, {"lrange", "l1", "0", "-1"}), Replies{Array({Bulk("foo")})});
  EXPECT_EQ(Ask(writer, {"exists", "l2"}), Replies{Int(0)});
}

TEST_F(ListBlockTest, BlmpopIsServedFromTheKeyThatBecameReady) {
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId writer = Connect();
  Send(waiter, {"blmpop", "0", "2", "a", "b", "right", "count", "5"});
  // One transaction fills b, then a: Redis 7.0 serves from b, the key signalled first.
  Ask(writer, {"multi"});
  Ask(writer, {"rpush", "b", "1", "2", "3"});
  Ask(writer, {"rpush", "a", "x"});
  EXPECT_EQ(Ask(writer, {"exec"}), Replies{Array({Int(3), Int(1)})});
  EXPECT_EQ(Received(waiter),
            Replies{Array({Bulk("b"), Array({Bulk("3"), Bulk("2"), Bulk("1")})})});
  EXPECT_EQ(Ask(writer, {"llen", "a"}), Replies{Int(1)});
}

// DEBUG LOADAOF replays the AOF inside its own command: a key the replay makes ready serves its
// waiters once the command ends, not from inside it (an assertion stopped the server here).
TEST_F(ListBlockTest, DebugLoadaofServesWaitersAfterItEnds) {
  StartServer(ConfigWith({{"appendonly", "yes"}, {"enable-debug-command", "yes"}}));
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId loader = Connect();
  EXPECT_EQ(Ask(loader, {"rpush", "q", "x"}), Replies{Int(1)});
  EXPECT_EQ(Ask(loader, {"lpop", "q"}), Replies{Bulk("x")});
  net().Send(waiter, Request({"blpop", "q", "0"}));
  Settle();
  EXPECT_EQ(Received(waiter), Replies{});
  // The replay pushes to q (ready) and pops it again: nothing serves the waiter.
  EXPECT_EQ(Ask(loader, {"debug", "loadaof"}), Replies{Status("OK")});
  Settle();
  EXPECT_EQ(Received(waiter), Replies{});
  EXPECT_EQ(Ask(loader, {"rpush", "q", "y"}), Replies{Int(1)});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("q"), Bulk("y")})});
}

}  // namespace
}  // namespace keel::testing
