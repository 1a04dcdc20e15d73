// TIME, SLOWLOG, LATENCY and MONITOR. Every reply and error text was checked against
// redis-server 7.0.15; the deterministic ones are also compared by
// conformance/cases/servercmds.txt. In the simulator commands take no time, so durations come from
// DEBUG SLEEP, which moves the virtual clock by exactly what it was asked.
#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class DiagnosticsTest : public CommandTest {
 protected:
  void SetUp() override { StartEngine(ConfigWith({{"enable-debug-command", "yes"}})); }
  int64_t WallSeconds() { return env_.sim_clock().WallUs() / 1000000; }
  RespValue Strings(std::initializer_list<std::string_view> texts) {
    std::vector<RespValue> values;
    for (std::string_view text : texts) values.push_back(Bulk(text));
    return RespValue::Array(values);
  }
  // One SLOWLOG GET entry as Redis replies it.
  RespValue Entry(int64_t id, int64_t time_s, int64_t duration_us,
                  std::initializer_list<std::string_view> args, std::string_view name = "") {
    return Array({Int(id), Int(time_s), Int(duration_us), Strings(args), Bulk(""), Bulk(name)});
  }
};

TEST_F(DiagnosticsTest, TimeIsTheCommandTimeInSecondsAndMicroseconds) {
  AdvanceMs(1234);
  const int64_t now_us = env_.sim_clock().WallUs();
  EXPECT_EQ(Run({"time"}), Array({Bulk(std::to_string(now_us / 1000000)),
                                  Bulk(std::to_string(now_us % 1000000))}));
  EXPECT_EQ(Run({"TIME"}).elements[1], Bulk(std::to_string(now_us % 1000000)));
  EXPECT_EQ(Run({"time", "x"}), Err("ERR wrong number of arguments for 'time' command"));
}

TEST_F(DiagnosticsTest, SlowlogKeepsCommandsAtLeastAsSlowAsTheThreshold) {
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "200000"}), Ok());
  EXPECT_EQ(Run({"debug", "sleep", "0.1"}), Ok());
  EXPECT_EQ(Run({"slowlog", "len"}), Int(0));
  const int64_t start_s = WallSeconds();
  EXPECT_EQ(Run({"debug", "sleep", "0.2"}), Ok());  // exactly the threshold: logged
  EXPECT_EQ(Run({"client", "setname", "sleeper"}), Ok());
  EXPECT_EQ(Run({"debug", "sleep", "0.3"}), Ok());
  EXPECT_EQ(Run({"slowlog", "len"}), Int(2));
  // Newest first; the time is when the command ended, the name the client's at that time.
  EXPECT_EQ(Run({"slowlog", "get"}),
            Array({Entry(1, start_s + 0, 300000, {"debug", "sleep", "0.3"}, "sleeper"),
                   Entry(0, start_s + 0, 200000, {"debug", "sleep", "0.2"})}));
  EXPECT_EQ(Run({"slowlog", "get", "1"}),
            Array({Entry(1, start_s, 300000, {"debug", "sleep", "0.3"}, "sleeper")}));
  EXPECT_EQ(Run({"slowlog", "get", "0"}), Array({}));
  EXPECT_EQ(Run({"slowlog", "get", "-1"}).elements.size(), 2u);
  // RESET empties the log; ids go on.
  EXPECT_EQ(Run({"slowlog", "reset"}), Ok());
  EXPECT_EQ(Run({"slowlog", "len"}), Int(0));
  EXPECT_EQ(Run({"debug", "sleep", "0.2"}), Ok());
  EXPECT_EQ(Run({"slowlog", "get"}).elements[0].elements[0], Int(2));
}

TEST_F(DiagnosticsTest, SlowlogThresholdZeroLogsEverythingAndMinusOneNothing) {
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "0"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  // The CONFIG SET itself was logged after it ran, with the new threshold.
  EXPECT_EQ(Run({"slowlog", "get"}),
            Array({Entry(1, WallSeconds(), 0, {"set", "k", "v"}),
                   Entry(0, WallSeconds(), 0, {"config", "set", "slowlog-log-slower-than", "0"})}));
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "-1"}), Ok());
  EXPECT_EQ(Run({"debug", "sleep", "1"}), Ok());
  EXPECT_EQ(Run({"slowlog", "len"}), Int(3));  // the two above and SLOWLOG GET
}

TEST_F(DiagnosticsTest, SlowlogMaxLenTrimsOnTheNextEntry) {
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "0"}), Ok());
  for (int i = 0; i < 5; i++) EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"config", "set", "slowlog-max-len", "3"}), Ok());  // logged, then trimmed
  EXPECT_EQ(Run({"slowlog", "len"}), Int(3));
  EXPECT_EQ(Run({"config", "set", "slowlog-max-len", "0"}), Ok());
  EXPECT_EQ(Run({"slowlog", "len"}), Int(0));
}

TEST_F(DiagnosticsTest, SlowlogAndMonitorNeverShowPasswords) {
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "0"}), Ok());
  EXPECT_EQ(Run({"auth", "user", "secret"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"hello", "2", "auth", "default", "pw"}).type, RespType::kArray);
  EXPECT_EQ(Run({"config", "set", "masterauth", "hidden"}), Ok());
  // Past AUTH's syntax check nothing is hidden, as in Redis.
  EXPECT_EQ(Run({"auth", "a", "b", "c"}), Err("ERR syntax error"));
  const RespValue entries = Run({"slowlog", "get", "4"});
  ASSERT_EQ(entries.elements.size(), 4u);
  EXPECT_EQ(entries.elements[0].elements[3], Strings({"auth", "a", "b", "c"}));
  EXPECT_EQ(entries.elements[1].elements[3],
            Strings({"config", "set", "masterauth", "(redacted)"}));
  EXPECT_EQ(entries.elements[2].elements[3],
            Strings({"hello", "2", "auth", "(redacted)", "(redacted)"}));
  EXPECT_EQ(entries.elements[3].elements[3], Strings({"auth", "(redacted)", "(redacted)"}));
}

TEST_F(DiagnosticsTest, SlowlogErrors) {
  EXPECT_EQ(Run({"slowlog"}), Err("ERR wrong number of arguments for 'slowlog' command"));
  EXPECT_EQ(Run({"slowlog", "foo"}), Err("ERR unknown subcommand 'foo'. Try SLOWLOG HELP."));
  EXPECT_EQ(Run({"slowlog", "get", "-2"}), Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"slowlog", "get", "abc"}), Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"slowlog", "get", "1", "2"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG "
                "HELP."));
  EXPECT_EQ(Run({"Slowlog", "GET", "1", "2"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG "
                "HELP."));
  EXPECT_EQ(Run({"slowlog", "len", "x"}),
            Err("ERR wrong number of arguments for 'slowlog|len' command"));
  EXPECT_EQ(Run({"slowlog", "reset", "x"}),
            Err("ERR wrong number of arguments for 'slowlog|reset' command"));
}

TEST_F(DiagnosticsTest, SlowlogHelp) {
  EXPECT_EQ(
      Run({"slowlog", "help"}),
      Array({Status("SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
             Status("GET [<count>]"),
             Status("    Return top <count> entries from the slowlog (default: 10, -1 mean "
                    "all)."),
             Status("    Entries are made of:"),
             Status("    id, timestamp, time in microseconds, arguments array, client IP "
                    "and port,"),
             Status("    client name"), Status("LEN"),
             Status("    Return the length of the slowlog."), Status("RESET"),
             Status("    Reset the slowlog."), Status("HELP"), Status("    Prints this help.")}));
}

TEST_F(DiagnosticsTest, LatencyMonitorRecordsCommandsOverTheThreshold) {
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));
  EXPECT_EQ(Run({"debug", "sleep", "0.3"}), Ok());  // threshold 0: the monitor is off
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));
  EXPECT_EQ(Run({"config", "set", "latency-monitor-threshold", "200"}), Ok());
  EXPECT_EQ(Run({"debug", "sleep", "0.1"}), Ok());
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));
  // Samples are stamped when the command ends: 0.65 s and 0.85 s into the same second, where
  // the larger latency is kept.
  EXPECT_EQ(Run({"debug", "sleep", "0.25"}), Ok());
  const int64_t first_s = WallSeconds();
  EXPECT_EQ(Run({"debug", "sleep", "0.2"}), Ok());
  ASSERT_EQ(WallSeconds(), first_s);
  AdvanceMs(2000);
  EXPECT_EQ(Run({"debug", "sleep", "0.3"}), Ok());
  const int64_t second_s = WallSeconds();
  ASSERT_GT(second_s, first_s);
  EXPECT_EQ(Run({"latency", "latest"}),
            Array({Array({Bulk("command"), Int(second_s), Int(300), Int(300)})}));
  EXPECT_EQ(Run({"latency", "history", "command"}),
            Array({Array({Int(first_s), Int(250)}), Array({Int(second_s), Int(300)})}));
  EXPECT_EQ(Run({"latency", "history", "fast-command"}), Array({}));
  EXPECT_EQ(Run({"latency", "reset", "nosuch", "command"}), Int(1));
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));
  EXPECT_EQ(Run({"latency", "reset"}), Int(0));
}

TEST_F(DiagnosticsTest, LatencyEventsFollowTheCommandsFastFlag) {
  EXPECT_EQ(Run({"config", "set", "latency-monitor-threshold", "10"}), Ok());
  engine_->AddLatencySampleIfNeeded("fast-command", 9);
  engine_->AddLatencySampleIfNeeded("fast-command", 12);
  engine_->AddLatencySampleIfNeeded("expire-cycle", 50);
  EXPECT_EQ(Run({"latency", "latest"}),
            Array({Array({Bulk("expire-cycle"), Int(WallSeconds()), Int(50), Int(50)}),
                   Array({Bulk("fast-command"), Int(WallSeconds()), Int(12), Int(12)})}));
  EXPECT_EQ(Run({"latency", "reset"}), Int(2));
}

// The active expire cycle is timed as Redis times it ("expire-cycle"): here freeing the expired
// value takes 30 ms of (simulated) time, as a large value can.
TEST_F(DiagnosticsTest, ASlowExpireCycleIsALatencyEvent) {
  struct SlowDeletion : KeyspaceObserver {
    sim::SimClock* clock = nullptr;
    void BeforeKeyChange(const Database& /*db*/, std::string_view /*key*/,
                         uint64_t /*hash*/) override {
      clock->Advance(30'000);
    }
  } slow;
  slow.clock = &env_.sim_clock();
  EXPECT_EQ(Run({"config", "set", "latency-monitor-threshold", "20"}), Ok());
  EXPECT_EQ(Run({"set", "big", "v", "px", "50"}), Ok());
  env_.sim_clock().Advance(100'000);
  engine_->keyspace().AddObserver(&slow);
  engine_->BeginTimeSlice();  // the loop's clock reading before its cron
  engine_->Cron();
  engine_->keyspace().RemoveObserver(&slow);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"latency", "latest"}),
            Array({Array({Bulk("expire-cycle"), Int(WallSeconds()), Int(30), Int(30)})}));
}

TEST_F(DiagnosticsTest, LatencyErrorsAndHelp) {
  EXPECT_EQ(Run({"latency"}), Err("ERR wrong number of arguments for 'latency' command"));
  EXPECT_EQ(Run({"latency", "foo"}), Err("ERR unknown subcommand 'foo'. Try LATENCY HELP."));
  EXPECT_EQ(Run({"latency", "latest", "x"}),
            Err("ERR wrong number of arguments for 'latency|latest' command"));
  EXPECT_EQ(Run({"latency", "history"}),
            Err("ERR wrong number of arguments for 'latency|history' command"));
  const RespValue help = Run({"latency", "help"});
  ASSERT_EQ(help.elements.size(), 17u);
  EXPECT_EQ(help.elements[0],
            Status("LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[1], Status("DOCTOR"));
  EXPECT_EQ(help.elements[3], Status("GRAPH <event>"));
  EXPECT_EQ(help.elements[13],
            Status("    Return a cumulative distribution of latencies in the format of a "
                   "histogram for the specified command names."));
  EXPECT_EQ(help.elements[16], Status("    Prints this help."));
  EXPECT_EQ(Run({"latency", "graph", "nosuch"}),
            Err("ERR No samples available for event 'nosuch'"));
  EXPECT_EQ(Run({"latency", "doctor", "x"}),
            Err("ERR wrong number of arguments for 'latency|doctor' command"));
}

TEST_F(DiagnosticsTest, LatencyHistogramPerCommand) {
  EXPECT_EQ(Run({"latency", "histogram", "ping"}), Array({}));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"debug", "sleep", "0.003"}), Ok());
  // A 0 µs command counts as 1 ns, listed at the 1 µs level; 3 ms at the 2^22 ns level, printed
  // as the top of that bucket (4227 µs).
  EXPECT_EQ(Run({"latency", "histogram", "PING", "nosuch"}),
            Array({Bulk("ping"), Array({Bulk("calls"), Int(2), Bulk("histogram_usec"),
                                        Array({Int(1), Int(2)})})}));
  EXPECT_EQ(Run({"latency", "histogram", "debug"}),
            Array({Bulk("debug"), Array({Bulk("calls"), Int(1), Bulk("histogram_usec"),
                                         Array({Int(4227), Int(1)})})}));
  // A container names its subcommands that have data.
  EXPECT_EQ(Run({"client", "id"}).type, RespType::kInteger);
  const RespValue client = Run({"latency", "histogram", "client"});
  ASSERT_EQ(client.elements.size(), 2u);
  EXPECT_EQ(client.elements[0], Bulk("client|id"));
  EXPECT_EQ(Run({"latency", "histogram", "client|id"}).elements[0], Bulk("client|id"));
  // Without names: every command with data.
  EXPECT_EQ(Run({"latency", "histogram"}).elements.size(), 2u * 4);  // ping debug client|id latency
}

TEST_F(DiagnosticsTest, LatencyHistogramIsAMapInResp3) {
  EXPECT_EQ(Run({"hello", "3"}).type, RespType::kMap);
  EXPECT_EQ(RunRaw({"latency", "histogram", "hello"}),
            "%1\r\n$5\r\nhello\r\n%2\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n%1\r\n:1\r\n:"
            "1\r\n");
}

class MonitorTest : public ServerTest {
 protected:
  sim::SimNetwork& net() { return env_.sim_network(); }
  std::string Stamp() {
    const int64_t now_us = env_.sim_clock().WallUs();
    char text[64];
    std::snprintf(text, sizeof(text), "+%lld.%06lld", static_cast<long long>(now_us / 1000000),
                  static_cast<long long>(now_us % 1000000));
    return text;
  }
  std::string Peer(sim::SimClientId client) {
    const std::vector<RespValue> info = Exchange(client, Request({"client", "info"}));
    const std::string& line = info.at(0).text;
    const size_t at = line.find("addr=") + 5;
    return line.substr(at, line.find(' ', at) - at);
  }
};

TEST_F(MonitorTest, MonitorSeesEveryCommandAsRedisFormatsIt) {
  const sim::SimClientId monitor = Connect();
  const sim::SimClientId client = Connect();
  const std::string peer = Peer(client);
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  // Lines are stamped with the time of the feed: the virtual clock stands still while there is
  // work, so it is the time the commands are sent.
  std::string stamp = Stamp();
  EXPECT_EQ(Exchange(client, Request({"set", "k", "v"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(net().Receive(monitor), stamp + " [0 " + peer + "] \"set\" \"k\" \"v\"\r\n");
  stamp = Stamp();
  env_.sim_network().Send(client, Request({"echo", "x\x01\"\\\n\r\t\a\b"}) +
                                      Request({"select", "3"}) + Request({"nosuch"}) +
                                      Request({"config", "get", "port"}) + Request({"auth", "pw"}));
  Settle();
  // Rejected commands and admin commands are not shown; SELECT shows its new database; AUTH's
  // password is redacted whether or not it was right.
  EXPECT_EQ(net().Receive(monitor), stamp + " [0 " + peer +
                                        "] \"echo\" \"x\\x01\\\"\\\\\\n\\r\\t\\a\\b\"\r\n" + stamp +
                                        " [3 " + peer + "] \"select\" \"3\"\r\n" + stamp + " [3 " +
                                        peer + "] \"auth\" \"(redacted)\"\r\n");
}

TEST_F(MonitorTest, MonitorClientsMayNotUseTheKeyspace) {
  const sim::SimClientId monitor = Connect();
  const std::string peer = Peer(monitor);
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Exchange(monitor, Request({"get", "k"})),
            (std::vector<RespValue>{Err("ERR Replica can't interact with the keyspace")}));
  EXPECT_EQ(Exchange(monitor, Request({"dbsize"})),
            (std::vector<RespValue>{Err("ERR Replica can't interact with the keyspace")}));
  // Other commands run, and the monitor sees its own.
  const std::string stamp = Stamp().substr(1);
  EXPECT_EQ(Exchange(monitor, Request({"ping"})),
            (std::vector<RespValue>{Status("PONG"), Status(stamp + " [0 " + peer + "] \"ping\"")}));
  // A second MONITOR gets no reply at all.
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), std::vector<RespValue>{});
  const std::vector<RespValue> list = Exchange(monitor, Request({"client", "list"}));
  EXPECT_NE(list.at(0).text.find(" flags=O "), std::string::npos) << list.at(0).text;
  // RESET ends monitoring.
  EXPECT_EQ(Exchange(monitor, Request({"reset"})), (std::vector<RespValue>{Status("RESET")}));
  EXPECT_EQ(Exchange(monitor, Request({"get", "k"})), (std::vector<RespValue>{NilBulk()}));
  EXPECT_EQ(engine_->monitor_count(), 0u);
}

TEST_F(MonitorTest, AClosedMonitorIsForgotten) {
  const sim::SimClientId monitor = Connect();
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(engine_->monitor_count(), 1u);
  net().CloseClient(monitor);
  Settle();
  EXPECT_EQ(engine_->monitor_count(), 0u);
  EXPECT_EQ(Exchange(client, Request({"ping"})), (std::vector<RespValue>{Status("PONG")}));
}

TEST_F(MonitorTest, QuitIsShownToOthersButNotToTheMonitorThatQuits) {
  const sim::SimClientId monitor = Connect();
  const sim::SimClientId watcher = Connect();
  const std::string peer = Peer(monitor);
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Exchange(watcher, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  const std::string stamp = Stamp();
  EXPECT_EQ(Exchange(monitor, Request({"quit"})), (std::vector<RespValue>{Ok()}));
  EXPECT_TRUE(net().ClosedByServer(monitor));
  EXPECT_EQ(net().Receive(watcher), stamp + " [0 " + peer + "] \"quit\"\r\n");
}

TEST_F(MonitorTest, MonitorsAreNeverPaused) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId monitor = Connect();
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Exchange(admin, Request({"client", "pause", "100000"})),
            (std::vector<RespValue>{Ok()}));
  const std::vector<RespValue> replies = Exchange(monitor, Request({"echo", "hi"}));
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0], Bulk("hi"));
}

TEST_F(MonitorTest, MonitorObeysClientReplyOff) {
  const sim::SimClientId monitor = Connect();
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Exchange(monitor, Request({"monitor"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Exchange(monitor, Request({"client", "reply", "off"})), std::vector<RespValue>{});
  EXPECT_EQ(Exchange(client, Request({"ping"})), (std::vector<RespValue>{Status("PONG")}));
  EXPECT_EQ(net().Receive(monitor), "");
}

}  // namespace
}  // namespace keel::testing
