// Tests for client-side caching (CLIENT TRACKING, CACHING, GETREDIR, TRACKINGINFO;
// engine/server/tracking.h): the option checks, invalidations as RESP3 pushes and on the
// __redis__:invalidate channel, their order after the command's reply, flushes, BCAST prefixes,
// NOLOOP, OPTIN/OPTOUT, expiry, broken redirects and the table's key limit. Every byte was
// compared with redis-server 7.0.15 (conformance/cases/tracking.txt has the single-connection
// ones).
#include <gtest/gtest.h>

#include <string>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

constexpr std::string_view kPushHeader = ">2\r\n$10\r\ninvalidate\r\n";
constexpr std::string_view kMessageHeader =
    "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n";

std::string Keys(std::initializer_list<std::string_view> keys) {
  std::string out = "*" + std::to_string(keys.size()) + "\r\n";
  for (std::string_view key : keys) {
    out += "$" + std::to_string(key.size()) + "\r\n";
    out.append(key);
    out += "\r\n";
  }
  return out;
}

class TrackingTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    StartServer();
  }
  sim::SimNetwork& net() { return env_.sim_network(); }
  // Sends one command and returns every byte the client received meanwhile.
  std::string Ask(sim::SimClientId client, std::initializer_list<std::string_view> args) {
    net().Send(client, Request(args));
    Settle();
    return net().Receive(client);
  }
  std::string Received(sim::SimClientId client) {
    Settle();
    return net().Receive(client);
  }
  int64_t IdOf(sim::SimClientId client) {
    const std::string reply = Ask(client, {"client", "id"});
    return std::stoll(reply.substr(1));
  }
  sim::SimClientId Resp3() {
    const sim::SimClientId client = Connect();
    Ask(client, {"hello", "3"});
    return client;
  }
};

TEST_F(TrackingTest, OptionsAreCheckedAsRedisChecksThem) {
  const sim::SimClientId c = Connect();
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "prefix", "a"}),
            "-ERR PREFIX option requires BCAST mode to be enabled\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "redirect", "999"}),
            "-ERR The client ID you want redirect to does not exist\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "redirect", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "optin", "optout"}),
            "-ERR You can't specify both OPTIN mode and OPTOUT mode\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "bcast", "optin"}),
            "-ERR OPTIN and OPTOUT are not compatible with BCAST\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "redirect"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Ask(c, {"client", "caching", "yes"}),
            "-ERR CLIENT CACHING can be called only when the client is in tracking mode with "
            "OPTIN or OPTOUT mode enabled\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "bcast", "prefix", "a", "prefix", "ab"}),
            "-ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single "
            "client must not overlap.\r\n");
  // Redis 7.0.15 enables tracking after an overlap past the first given prefix: error and +OK.
  EXPECT_EQ(
      Ask(c, {"client", "tracking", "on", "bcast", "prefix", "a", "prefix", "b", "prefix", "bc"}),
      "-ERR Prefix 'b' overlaps with another provided prefix 'bc'. Prefixes for a single client "
      "must not overlap.\r\n+OK\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "bcast", "prefix", "bcd"}),
            "-ERR Prefix 'bcd' overlaps with an existing prefix 'b'. Prefixes for a single client "
            "must not overlap.\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on"}),
            "-ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
            "and then re-enabling it with a different mode.\r\n");
  EXPECT_EQ(Ask(c, {"client", "trackinginfo"}),
            "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:0\r\n"
            "$8\r\nprefixes\r\n*3\r\n$1\r\na\r\n$1\r\nb\r\n$2\r\nbc\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "off"}), "+OK\r\n");
  EXPECT_EQ(Ask(c, {"client", "getredir"}), ":-1\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "optin"}), "+OK\r\n");
  EXPECT_EQ(Ask(c, {"client", "caching", "no"}),
            "-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n");
  EXPECT_EQ(Ask(c, {"client", "tracking", "on", "optout"}),
            "-ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
            "and then re-enabling it with a different mode.\r\n");
  EXPECT_EQ(Ask(c, {"client", "caching", "yes"}), "+OK\r\n");
  EXPECT_EQ(Ask(c, {"client", "trackinginfo"}),
            "*6\r\n$5\r\nflags\r\n*3\r\n$2\r\non\r\n$5\r\noptin\r\n$11\r\ncaching-yes\r\n"
            "$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n");
  EXPECT_EQ(Ask(c, {"client", "getredir"}), ":0\r\n");
}

TEST_F(TrackingTest, Resp3ClientIsInvalidatedOnceAfterItsOwnReply) {
  const sim::SimClientId tracker = Resp3();
  const sim::SimClientId writer = Connect();
  Ask(tracker, {"client", "tracking", "on"});
  Ask(writer, {"set", "k", "1"});
  EXPECT_EQ(Ask(tracker, {"get", "k"}), "$1\r\n1\r\n");
  EXPECT_EQ(Ask(writer, {"set", "k", "2"}), "+OK\r\n");
  EXPECT_EQ(Received(tracker), std::string(kPushHeader) + Keys({"k"}));
  // Forgotten until read again.
  Ask(writer, {"set", "k", "3"});
  EXPECT_EQ(Received(tracker), "");
  Ask(tracker, {"get", "k"});
  // Its own write: the invalidation follows the reply.
  EXPECT_EQ(Ask(tracker, {"set", "k", "4"}), "+OK\r\n" + std::string(kPushHeader) + Keys({"k"}));
  // In a transaction, after EXEC's whole reply.
  Ask(tracker, {"get", "k"});
  Ask(tracker, {"multi"});
  Ask(tracker, {"incr", "k"});
  Ask(tracker, {"get", "k"});
  EXPECT_EQ(Ask(tracker, {"exec"}),
            "*2\r\n:5\r\n$1\r\n5\r\n" + std::string(kPushHeader) + Keys({"k"}));
}

TEST_F(TrackingTest, Resp2RedirectGoesToTheInvalidateChannelAndFlushesSendOneNull) {
  const sim::SimClientId sink = Connect();
  const sim::SimClientId tracker = Connect();
  const sim::SimClientId writer = Connect();
  const int64_t sink_id = IdOf(sink);
  Ask(sink, {"subscribe", "__redis__:invalidate"});
  EXPECT_EQ(Ask(tracker, {"client", "tracking", "on", "redirect", std::to_string(sink_id)}),
            "+OK\r\n");
  Ask(tracker, {"mget", "a", "b"});
  Ask(writer, {"mset", "a", "1", "b", "2"});
  EXPECT_EQ(Received(sink),
            std::string(kMessageHeader) + Keys({"a"}) + std::string(kMessageHeader) + Keys({"b"}));
  Ask(tracker, {"get", "a"});
  EXPECT_EQ(Ask(writer, {"flushall"}), "+OK\r\n");
  EXPECT_EQ(Received(sink), std::string(kMessageHeader) + "$-1\r\n");
  EXPECT_EQ(Ask(tracker, {"client", "getredir"}), ":" + std::to_string(sink_id) + "\r\n");
  const std::string info = Ask(writer, {"info"});
  EXPECT_NE(info.find("tracking_clients:1\r\n"), std::string::npos);
  EXPECT_NE(info.find("tracking_total_keys:0\r\n"), std::string::npos);
}

TEST_F(TrackingTest, BroadcastSendsTheChangedKeysOfEachPrefixOncePerIteration) {
  const sim::SimClientId tracker = Resp3();
  const sim::SimClientId writer = Connect();
  EXPECT_EQ(Ask(tracker, {"client", "tracking", "on", "bcast", "prefix", "a", "prefix", "c"}),
            "+OK\r\n");
  net().Send(writer, Request({"set", "a2", "1"}) + Request({"set", "b1", "1"}) +
                         Request({"set", "a1", "1"}) + Request({"del", "a2"}));
  EXPECT_EQ(Received(writer), "+OK\r\n+OK\r\n+OK\r\n:1\r\n");
  EXPECT_EQ(Received(tracker), std::string(kPushHeader) + Keys({"a1", "a2"}));
  const std::string info = Ask(writer, {"info", "stats"});
  EXPECT_NE(info.find("tracking_total_prefixes:2\r\n"), std::string::npos);
  EXPECT_NE(Ask(writer, {"client", "list"}).find("flags=tB "), std::string::npos);
}

TEST_F(TrackingTest, NoloopLeavesOutTheClientsOwnWrites) {
  const sim::SimClientId tracker = Resp3();
  const sim::SimClientId writer = Connect();
  Ask(tracker, {"client", "tracking", "on", "noloop"});
  Ask(tracker, {"get", "k"});
  EXPECT_EQ(Ask(tracker, {"set", "k", "1"}), "+OK\r\n");
  Ask(tracker, {"get", "k"});
  Ask(writer, {"set", "k", "2"});
  EXPECT_EQ(Received(tracker), std::string(kPushHeader) + Keys({"k"}));
  const sim::SimClientId bcast = Resp3();
  Ask(bcast, {"client", "tracking", "on", "bcast", "noloop"});
  Ask(bcast, {"set", "mine", "1"});
  EXPECT_EQ(Received(bcast), "");
  Ask(writer, {"set", "theirs", "1"});
  EXPECT_EQ(Received(bcast), std::string(kPushHeader) + Keys({"theirs"}));
}

TEST_F(TrackingTest, OptinTracksOnlyAfterCachingYesAndOptoutNotAfterCachingNo) {
  const sim::SimClientId optin = Resp3();
  const sim::SimClientId writer = Connect();
  Ask(optin, {"client", "tracking", "on", "optin"});
  Ask(optin, {"get", "plain"});
  Ask(optin, {"client", "caching", "yes"});
  Ask(optin, {"get", "cached"});
  Ask(optin, {"get", "after"});  // CACHING applied to one command only
  Ask(writer, {"mset", "plain", "1", "cached", "1", "after", "1"});
  EXPECT_EQ(Received(optin), std::string(kPushHeader) + Keys({"cached"}));
  const sim::SimClientId optout = Resp3();
  Ask(optout, {"client", "tracking", "on", "optout"});
  Ask(optout, {"client", "caching", "no"});
  Ask(optout, {"get", "skipped"});
  Ask(optout, {"get", "kept"});
  Ask(writer, {"mset", "skipped", "1", "kept", "1"});
  EXPECT_EQ(Received(optout), std::string(kPushHeader) + Keys({"kept"}));
}

TEST_F(TrackingTest, ExpiryInvalidatesActiveAndLazy) {
  // TTLs of seconds: each Ask lets virtual time reach a cron tick or two.
  const sim::SimClientId tracker = Resp3();
  const sim::SimClientId writer = Connect();
  Ask(tracker, {"client", "tracking", "on"});
  Ask(writer, {"set", "k", "1", "px", "10000"});
  EXPECT_EQ(Ask(tracker, {"get", "k"}), "$1\r\n1\r\n");
  env_.sim_clock().Advance(20'000'000);
  // The active expiry cycle reclaims it.
  EXPECT_EQ(Received(tracker), std::string(kPushHeader) + Keys({"k"}));
  Ask(writer, {"set", "k", "1", "px", "10000"});
  EXPECT_EQ(Ask(tracker, {"get", "k"}), "$1\r\n1\r\n");
  env_.sim_clock().Advance(20'000'000);
  // Its own read comes before the next cron and reclaims the key: the invalidation follows the
  // (null) reply.
  EXPECT_EQ(Ask(tracker, {"get", "k"}), "_\r\n" + std::string(kPushHeader) + Keys({"k"}));
}

TEST_F(TrackingTest, AGoneRedirectClientBreaksTheRedirect) {
  const sim::SimClientId sink = Resp3();
  const sim::SimClientId tracker = Resp3();
  const sim::SimClientId writer = Connect();
  const int64_t sink_id = IdOf(sink);
  Ask(tracker, {"client", "tracking", "on", "redirect", std::to_string(sink_id)});
  Ask(tracker, {"get", "k"});
  net().CloseClient(sink);
  Settle();
  Ask(writer, {"set", "k", "1"});
  EXPECT_EQ(Received(tracker),
            ">2\r\n$21\r\ntracking-redir-broken\r\n:" + std::to_string(sink_id) + "\r\n");
  EXPECT_NE(Ask(writer, {"client", "list"}).find("flags=tR "), std::string::npos);
  EXPECT_NE(Ask(tracker, {"client", "trackinginfo"}).find("broken_redirect"), std::string::npos);
  EXPECT_EQ(Ask(tracker, {"reset"}), "+RESET\r\n");
  EXPECT_EQ(Ask(tracker, {"client", "getredir"}), ":-1\r\n");
}

TEST_F(TrackingTest, TheTableKeepsAtMostMaxKeysInvalidatingTheRest) {
  const sim::SimClientId tracker = Resp3();
  const sim::SimClientId writer = Connect();
  Ask(tracker, {"client", "tracking", "on"});
  Ask(tracker, {"mget", "a", "b", "c"});
  EXPECT_EQ(Ask(writer, {"config", "set", "tracking-table-max-keys", "1"}), "+OK\r\n");
  Ask(writer, {"ping"});  // checked before each command
  const std::string pushes = Received(tracker);
  EXPECT_EQ(pushes.size(), 2 * (kPushHeader.size() + Keys({"a"}).size())) << pushes;
  EXPECT_NE(Ask(writer, {"info", "stats"}).find("tracking_total_keys:1\r\n"), std::string::npos);
}

}  // namespace
}  // namespace keel::testing
