// Tests for pub/sub (cmd_pubsub.cc, engine/server/pubsub.h): delivery in subscription order, in
// RESP2 arrays and RESP3 pushes, subscribed mode, disconnection and RESET, and keyspace
// notifications. Every reply was compared with redis-server 7.0 (conformance/cases/pubsub.txt).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

using Replies = std::vector<RespValue>;

class PubSubTest : public ServerTest {
 protected:
  sim::SimNetwork& net() { return env_.sim_network(); }
  static RespValue Message(std::string_view channel, std::string_view text) {
    return Array({Bulk("message"), Bulk(channel), Bulk(text)});
  }
};

TEST_F(PubSubTest, SubscribersReceiveInSubscriptionOrderAndPublishCountsThem) {
  const sim::SimClientId first = Connect();
  const sim::SimClientId second = Connect();
  const sim::SimClientId publisher = Connect();
  EXPECT_EQ(Ask(first, {"subscribe", "a", "b"}),
            (Replies{Array({Bulk("subscribe"), Bulk("a"), Int(1)}),
                     Array({Bulk("subscribe"), Bulk("b"), Int(2)})}));
  EXPECT_EQ(Ask(second, {"psubscribe", "a*"}),
            Replies{Array({Bulk("psubscribe"), Bulk("a*"), Int(1)})});
  EXPECT_EQ(Ask(publisher, {"publish", "a", "hi"}), Replies{Int(2)});
  EXPECT_EQ(Received(first), Replies{Message("a", "hi")});
  EXPECT_EQ(Received(second),
            Replies{Array({Bulk("pmessage"), Bulk("a*"), Bulk("a"), Bulk("hi")})});
  EXPECT_EQ(Ask(publisher, {"publish", "b", "x"}), Replies{Int(1)});
  EXPECT_EQ(Ask(publisher, {"publish", "c", "x"}), Replies{Int(0)});
  EXPECT_EQ(Received(first), Replies{Message("b", "x")});
  EXPECT_EQ(Received(second), Replies{});
  const std::string info = Ask(publisher, {"info", "stats"}).at(0).text;
  EXPECT_NE(info.find("pubsub_channels:2\r\npubsub_patterns:1\r\n"), std::string::npos) << info;
}

// Redis's upstream test "PubSub messages with CLIENT REPLY OFF" (it hung on Keel): messages and
// confirmations are pushed whatever CLIENT REPLY says, while other replies stay silent.
TEST_F(PubSubTest, MessagesAndConfirmationsIgnoreClientReplyOff) {
  const sim::SimClientId subscriber = Connect();
  const sim::SimClientId publisher = Connect();
  net().Send(subscriber, Request({"client", "reply", "off"}) + Request({"subscribe", "ch"}) +
                             Request({"psubscribe", "c*"}));
  Settle();
  EXPECT_EQ(Received(subscriber), (Replies{Array({Bulk("subscribe"), Bulk("ch"), Int(1)}),
                                           Array({Bulk("psubscribe"), Bulk("c*"), Int(2)})}));
  EXPECT_EQ(Ask(publisher, {"publish", "ch", "hi"}), Replies{Int(2)});
  EXPECT_EQ(Received(subscriber), (Replies{Message("ch", "hi"), Array({Bulk("pmessage"), Bulk("c*"),
                                                                       Bulk("ch"), Bulk("hi")})}));
  net().Send(subscriber, Request({"ping"}) + Request({"unsubscribe"}) + Request({"ping"}));
  Settle();
  EXPECT_EQ(Received(subscriber), Replies{Array({Bulk("unsubscribe"), Bulk("ch"), Int(1)})});
}

// Redis's upstream test "Keyspace notifications: evicted events" (it hung on Keel): CONFIG SET
// maxmemory below what is used evicts right after the command, with no other command to
// trigger it.
TEST_F(PubSubTest, LoweringMaxmemoryEvictsAtOnce) {
  const sim::SimClientId subscriber = Connect();
  const sim::SimClientId admin = Connect();
  EXPECT_EQ(Ask(admin, {"config", "set", "notify-keyspace-events", "Ee"}), Replies{Ok()});
  EXPECT_EQ(Ask(admin, {"config", "set", "maxmemory-policy", "allkeys-lru"}), Replies{Ok()});
  Ask(subscriber, {"psubscribe", "*"});
  EXPECT_EQ(Ask(admin, {"set", "foo", "bar"}), Replies{Ok()});
  EXPECT_EQ(Ask(admin, {"config", "set", "maxmemory", "1"}), Replies{Ok()});
  EXPECT_EQ(
      Received(subscriber),
      Replies{Array({Bulk("pmessage"), Bulk("*"), Bulk("__keyevent@0__:evicted"), Bulk("foo")})});
  EXPECT_EQ(Ask(admin, {"config", "set", "maxmemory", "0"}), Replies{Ok()});
  EXPECT_EQ(Ask(admin, {"dbsize"}), Replies{Int(0)});
}

TEST_F(PubSubTest, ARespTwoSubscriberMayOnlySubscribePingQuitOrReset) {
  const sim::SimClientId client = Connect();
  Ask(client, {"subscribe", "a"});
  EXPECT_EQ(Ask(client, {"get", "k"}),
            Replies{Err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                        "QUIT / RESET are allowed in this context")});
  EXPECT_EQ(Ask(client, {"ping"}), Replies{Array({Bulk("pong"), Bulk("")})});
  EXPECT_EQ(Ask(client, {"unsubscribe"}), Replies{Array({Bulk("unsubscribe"), Bulk("a"), Int(0)})});
  EXPECT_EQ(Ask(client, {"get", "k"}), Replies{NilBulk()});
  // RESP3 has no such mode: commands run, and messages are pushes.
  const sim::SimClientId modern = Connect();
  Ask(modern, {"hello", "3"});
  Ask(modern, {"subscribe", "a"});
  EXPECT_EQ(Ask(modern, {"get", "k"}), Replies{Null()});
  net().Send(client, Request({"publish", "a", "pushed"}));
  Settle();
  EXPECT_EQ(Received(client), Replies{Int(1)});
  const Replies pushed = Received(modern);
  ASSERT_EQ(pushed.size(), 1u);
  EXPECT_EQ(pushed[0].type, RespType::kPush);
  EXPECT_EQ(pushed[0].elements.size(), 3u);
}

TEST_F(PubSubTest, DisconnectingAndResetLeaveEverySubscription) {
  const sim::SimClientId leaver = Connect();
  const sim::SimClientId resetter = Connect();
  const sim::SimClientId publisher = Connect();
  Ask(leaver, {"subscribe", "a"});
  Ask(resetter, {"psubscribe", "*"});
  Ask(resetter, {"ssubscribe", "s"});
  EXPECT_EQ(Ask(resetter, {"reset"}), Replies{Status("RESET")});
  net().CloseClient(leaver);
  Settle();
  EXPECT_EQ(Ask(publisher, {"publish", "a", "x"}), Replies{Int(0)});
  EXPECT_EQ(Ask(publisher, {"spublish", "s", "x"}), Replies{Int(0)});
  EXPECT_EQ(Ask(publisher, {"pubsub", "numpat"}), Replies{Int(0)});
  EXPECT_EQ(Ask(publisher, {"pubsub", "channels"}), Replies{Array({})});
  EXPECT_EQ(Received(resetter), Replies{});
}

// Found by the random differential run: Redis keeps a client's patterns in a list, so
// PUNSUBSCRIBE without arguments confirms them in the order subscribed (Keel took its sorted set's
// order), a pattern that left and came back counting as new.
TEST_F(PubSubTest, PunsubscribeWithoutArgumentsLeavesInTheOrderSubscribed) {
  const sim::SimClientId client = Connect();
  Ask(client, {"psubscribe", "z*", "a*", "m*"});
  Ask(client, {"punsubscribe", "z*"});
  Ask(client, {"psubscribe", "z*", "a*"});
  EXPECT_EQ(Ask(client, {"punsubscribe"}),
            (Replies{Array({Bulk("punsubscribe"), Bulk("a*"), Int(2)}),
                     Array({Bulk("punsubscribe"), Bulk("m*"), Int(1)}),
                     Array({Bulk("punsubscribe"), Bulk("z*"), Int(0)})}));
}

// Found by the random differential run: a transaction may SUBSCRIBE and PSUBSCRIBE (Redis's
// compatibility exception) but not SSUBSCRIBE.
TEST_F(PubSubTest, ATransactionMaySubscribeButNotToShardChannels) {
  const sim::SimClientId client = Connect();
  Ask(client, {"multi"});
  Ask(client, {"ssubscribe", "s"});
  Ask(client, {"subscribe", "c"});
  EXPECT_EQ(Ask(client, {"exec"}),
            (Replies{Array({Err("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"),
                            Array({Bulk("subscribe"), Bulk("c"), Int(1)})})}));
}

TEST_F(PubSubTest, KeyspaceNotificationsArePublishedOnlyWhileEnabled) {
  const sim::SimClientId listener = Connect();
  const sim::SimClientId writer = Connect();
  Ask(listener, {"psubscribe", "__key*__:*"});
  EXPECT_EQ(Ask(writer, {"set", "k", "v"}), Replies{Ok()});
  EXPECT_EQ(Received(listener), Replies{});
  EXPECT_EQ(Ask(writer, {"config", "set", "notify-keyspace-events", "K$"}), Replies{Ok()});
  EXPECT_EQ(Ask(writer, {"set", "k", "w"}), Replies{Ok()});
  EXPECT_EQ(Received(listener), (Replies{Array({Bulk("pmessage"), Bulk("__key*__:*"),
                                                Bulk("__keyspace@0__:k"), Bulk("set")})}));
  EXPECT_EQ(Ask(writer, {"del", "k"}), Replies{Int(1)});  // g is not enabled
  EXPECT_EQ(Received(listener), Replies{});
  EXPECT_EQ(Ask(writer, {"config", "set", "notify-keyspace-events", ""}), Replies{Ok()});
  EXPECT_EQ(Ask(writer, {"set", "k", "v"}), Replies{Ok()});
  EXPECT_EQ(Received(listener), Replies{});
}

}  // namespace
}  // namespace keel::testing
