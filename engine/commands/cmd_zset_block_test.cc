// Tests for BZPOPMIN, BZPOPMAX and BZMPOP: their replies in both protocols, their argument
// errors in Redis's order, waiters served first come first served by ZADD (after EXEC when inside
// one), a list waiter and a sorted-set waiter on one key, and their timeouts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/registry/errors.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

using Replies = std::vector<RespValue>;

class ZsetBlockTest : public ServerTest {
 protected:
  Replies AwaitReply(sim::SimClientId client) {
    Replies replies;
    for (int i = 0; i < 10000 && replies.empty(); i++) {
      server_->RunOnce();
      replies = Received(client);
    }
    return replies;
  }
};

TEST_F(ZsetBlockTest, AnExistingSortedSetIsPoppedAtOnce) {
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Ask(client, {"zadd", "z", "1", "a", "2", "b", "3", "c"}), Replies{Int(3)});
  EXPECT_EQ(Ask(client, {"bzpopmin", "none", "z", "0"}),
            Replies{Array({Bulk("z"), Bulk("a"), Bulk("1")})});
  EXPECT_EQ(Ask(client, {"bzpopmax", "z", "0"}), Replies{Array({Bulk("z"), Bulk("c"), Bulk("3")})});
  EXPECT_EQ(Ask(client, {"bzmpop", "0", "2", "none", "z", "max", "count", "5"}),
            Replies{Array({Bulk("z"), Array({Array({Bulk("b"), Bulk("2")})})})});
  EXPECT_EQ(Ask(client, {"exists", "z"}), Replies{Int(0)});
}

TEST_F(ZsetBlockTest, ArgumentErrorsComeInRedissOrder) {
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Ask(client, {"bzpopmin", "z", "-1"}), Replies{Err("ERR timeout is negative")});
  EXPECT_EQ(Ask(client, {"bzpopmax", "z", "x"}),
            Replies{Err("ERR timeout is not a float or out of range")});
  // BZMPOP checks numkeys, the side and the count before the timeout.
  EXPECT_EQ(Ask(client, {"bzmpop", "x", "0", "z", "min"}),
            Replies{Err("ERR numkeys should be greater than 0")});
  EXPECT_EQ(Ask(client, {"bzmpop", "x", "2", "z", "min"}), Replies{Err("ERR syntax error")});
  EXPECT_EQ(Ask(client, {"bzmpop", "x", "1", "z", "left"}), Replies{Err("ERR syntax error")});
  EXPECT_EQ(Ask(client, {"bzmpop", "x", "1", "z", "min", "count", "0"}),
            Replies{Err("ERR count should be greater than 0")});
  EXPECT_EQ(Ask(client, {"bzmpop", "x", "1", "z", "min"}),
            Replies{Err("ERR timeout is not a float or out of range")});
  EXPECT_EQ(Ask(client, {"set", "s", "v"}), Replies{Ok()});
  EXPECT_EQ(Ask(client, {"bzpopmin", "s", "0"}), Replies{Err(errors::kWrongType)});
}

TEST_F(ZsetBlockTest, ZaddServesWaitersFirstComeFirstServed) {
  const sim::SimClientId first = Connect();
  const sim::SimClientId second = Connect();
  const sim::SimClientId writer = Connect();
  Send(first, {"bzpopmax", "z", "0"});
  Send(second, {"bzmpop", "0", "1", "z", "min", "count", "2"});
  EXPECT_EQ(Received(first), Replies{});
  EXPECT_EQ(Ask(writer, {"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"}), Replies{Int(4)});
  EXPECT_EQ(Received(first), Replies{Array({Bulk("z"), Bulk("d"), Bulk("4")})});
  EXPECT_EQ(Received(second), Replies{Array({Bulk("z"), Array({Array({Bulk("a"), Bulk("1")}),
                                                               Array({Bulk("b"), Bulk("2")})})})});
  EXPECT_EQ(Ask(writer, {"zrange", "z", "0", "-1"}), Replies{Array({Bulk("c")})});
}

TEST_F(ZsetBlockTest, Resp3RepliesCarryDoubles) {
  const sim::SimClientId client = Connect();
  Ask(client, {"hello", "3"});
  EXPECT_EQ(Ask(client, {"zadd", "z", "1.5", "a", "2", "b"}), Replies{Int(2)});
  const Replies popped = Ask(client, {"bzpopmin", "z", "0"});
  ASSERT_EQ(popped.size(), 1u);
  ASSERT_EQ(popped[0].elements.size(), 3u);
  EXPECT_EQ(popped[0].elements[2].type, RespType::kDouble);
  EXPECT_EQ(popped[0].elements[2].text, "1.5");
}

TEST_F(ZsetBlockTest, AListWaiterAndASortedSetWaiterOnOneKeyEachGetTheirType) {
  const sim::SimClientId list_waiter = Connect();
  const sim::SimClientId zset_waiter = Connect();
  const sim::SimClientId writer = Connect();
  Send(list_waiter, {"blpop", "k", "0"});
  Send(zset_waiter, {"bzpopmin", "k", "0"});
  EXPECT_EQ(Ask(writer, {"zadd", "k", "1", "m"}), Replies{Int(1)});
  EXPECT_EQ(Received(zset_waiter), Replies{Array({Bulk("k"), Bulk("m"), Bulk("1")})});
  EXPECT_EQ(Received(list_waiter), Replies{});
  EXPECT_EQ(Ask(writer, {"rpush", "k", "e"}), Replies{Int(1)});
  EXPECT_EQ(Received(list_waiter), Replies{Array({Bulk("k"), Bulk("e")})});
}

TEST_F(ZsetBlockTest, InsideMultiTheyAnswerAsATimeoutAndExecServesAfter) {
  const sim::SimClientId client = Connect();
  const sim::SimClientId waiter = Connect();
  Ask(client, {"multi"});
  Ask(client, {"bzpopmin", "z", "0"});
  Ask(client, {"bzmpop", "0", "1", "z", "max"});
  Ask(client, {"zadd", "z", "1", "a"});
  EXPECT_EQ(Ask(client, {"exec"}), Replies{Array({NullArray(), NullArray(), Int(1)})});
  Send(waiter, {"bzpopmin", "z", "0"});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("z"), Bulk("a"), Bulk("1")})});
  Send(waiter, {"bzpopmax", "z", "0"});
  Ask(client, {"multi"});
  Ask(client, {"zadd", "z", "2", "b"});
  Ask(client, {"zcard", "z"});
  EXPECT_EQ(Received(waiter), Replies{});
  EXPECT_EQ(Ask(client, {"exec"}), Replies{Array({Int(1), Int(1)})});
  EXPECT_EQ(Received(waiter), Replies{Array({Bulk("z"), Bulk("b"), Bulk("2")})});
}

TEST_F(ZsetBlockTest, ATimeoutRepliesWithANullArray) {
  const sim::SimClientId client = Connect();
  Send(client, {"bzpopmin", "z", "0.05"});
  EXPECT_EQ(AwaitReply(client), Replies{NullArray()});
  Send(client, {"bzmpop", "0.05", "1", "z", "min"});
  EXPECT_EQ(AwaitReply(client), Replies{NullArray()});
}

}  // namespace
}  // namespace keel::testing
