// DEBUG: enable-debug-command, and each subcommand Keel has. Replies and error texts were read
// from redis-server 7.0.15 (started with --enable-debug-command yes, and without it).
#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

Config DebugConfig(std::string_view enable) {
  Config config;
  std::string error;
  EXPECT_TRUE(config.SetFromCommand(*Config::Find("enable-debug-command"), enable, &error))
      << error;
  return config;
}

constexpr std::string_view kNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";

class DebugTest : public CommandTest {
 protected:
  void SetUp() override { StartEngine(DebugConfig("yes")); }
};

TEST_F(DebugTest, RefusedUnlessEnabled) {
  StartEngine(DebugConfig("no"));
  EXPECT_EQ(Run({"debug", "help"}), Err(kNotAllowed));
  EXPECT_EQ(Run({"DEBUG", "sleep", "0"}), Err(kNotAllowed));
  // Arity comes first; then the refusal comes before authentication.
  EXPECT_EQ(Run({"debug"}), Err("ERR wrong number of arguments for 'debug' command"));
  client_->authenticated = false;
  EXPECT_EQ(Run({"debug", "help"}), Err(kNotAllowed));
  EXPECT_EQ(engine_->stats().commands[engine_->registry().Find("debug")->id].rejected_calls, 4u);
}

TEST_F(DebugTest, LocalMeansLoopbackClientsOnly) {
  StartEngine(DebugConfig("local"));
  EXPECT_EQ(Run({"debug", "log", "x"}), Ok());
  client_->peer_is_loopback = false;
  EXPECT_EQ(Run({"debug", "log", "x"}), Err(kNotAllowed));
}

TEST_F(DebugTest, ProtectedIsHiddenFromCommandInfo) {
  const RespValue info = Run({"command", "info", "debug"});
  ASSERT_EQ(info.elements.size(), 1u);
  EXPECT_EQ(info.elements[0].elements[2],
            Array({Status("admin"), Status("noscript"), Status("loading"), Status("stale")}));
}

TEST_F(DebugTest, UnknownSubcommandsAndWrongArgumentCounts) {
  const auto error = [](std::string_view sub) {
    return Err("ERR unknown subcommand or wrong number of arguments for '" + std::string(sub) +
               "'. Try DEBUG HELP.");
  };
  EXPECT_EQ(Run({"debug", "foo"}), error("foo"));
  EXPECT_EQ(Run({"debug", "help", "x"}), error("help"));
  EXPECT_EQ(Run({"debug", "log"}), error("log"));
  EXPECT_EQ(Run({"debug", "set-active-expire"}), error("set-active-expire"));
  EXPECT_EQ(Run({"debug", "change-repl-id", "x"}), error("change-repl-id"));
  EXPECT_EQ(Run({"debug", "protocol", "a", "b"}), error("protocol"));
  EXPECT_EQ(Run({"debug", "Sleep"}), error("Sleep"));
  // Redis 7.0.15 has no STRINGMATCH-LEN.
  EXPECT_EQ(Run({"debug", "stringmatch-len"}), error("stringmatch-len"));
}

TEST_F(DebugTest, HelpListsWhatKeelHasInRedisOrder) {
  const RespValue help = Run({"debug", "help"});
  std::vector<std::string> names;
  for (const RespValue& line : help.elements) {
    if (line.text.empty() || line.text[0] == ' ') continue;
    names.push_back(line.text.substr(0, line.text.find(' ')));
  }
  const std::vector<std::string> expected = {"DEBUG",
                                             "CHANGE-REPL-ID",
                                             "DIGEST",
                                             "DIGEST-VALUE",
                                             "ERROR",
                                             "LOG",
                                             "LOADAOF",
                                             "OBJECT",
                                             "POPULATE",
                                             "PROTOCOL",
                                             "RELOAD",
                                             "SET-ACTIVE-EXPIRE",
                                             "QUICKLIST-PACKED-THRESHOLD",
                                             "SET-SKIP-CHECKSUM-VALIDATION",
                                             "SLEEP",
                                             "STRINGMATCH-TEST",
                                             "PAUSE-CRON",
                                             "HELP"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(help.elements[0],
            Status("DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[13], Status("LOADAOF"));
  EXPECT_EQ(help.elements[14],
            Status("    Flush the AOF buffers on disk and reload the AOF in memory."));
  EXPECT_EQ(help.elements[15], Status("OBJECT <key>"));
  EXPECT_EQ(help.elements[16], Status("    Show low level info about `key` and associated value."));
  EXPECT_EQ(help.elements[17], Status("POPULATE <count> [<prefix>] [<size>]"));
  EXPECT_EQ(help.elements[24], Status("    integer, double, bignum, null, array, set, map, attrib, "
                                      "push, verbatim,"));
}

// DEBUG POPULATE, as redis-server 7.0.15 answers it.
TEST_F(DebugTest, PopulateWritesNumberedStringKeys) {
  EXPECT_EQ(Run({"debug", "populate", "3"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(3));
  EXPECT_EQ(Run({"mget", "key:0", "key:1", "key:2", "key:3"}),
            Array({Bulk("value:0"), Bulk("value:1"), Bulk("value:2"), NilBulk()}));
  EXPECT_EQ(Run({"object", "encoding", "key:2"}), Bulk("embstr"));
  EXPECT_EQ(Run({"ttl", "key:0"}), Int(-1));
  // Zero keys is fine; the count, the size and nothing else is checked as a positive long.
  EXPECT_EQ(Run({"debug", "populate", "0"}), Ok());
  for (const char* bad : {"-1", "abc", "9223372036854775808", "+1", " 1", "1.0", ""}) {
    EXPECT_EQ(Run({"debug", "populate", bad}), Err("ERR value is out of range, must be positive"))
        << bad;
    EXPECT_EQ(Run({"debug", "populate", "1", "p", bad}),
              Err("ERR value is out of range, must be positive"))
        << bad;
  }
  EXPECT_EQ(Run({"dbsize"}), Int(3));
}

TEST_F(DebugTest, PopulateKeepsExistingKeysAndReplacesExpiredOnes) {
  EXPECT_EQ(Run({"set", "key:1", "mine"}), Ok());
  EXPECT_EQ(Run({"set", "key:2", "short-lived", "px", "10"}), Ok());
  AdvanceMs(20);
  EXPECT_EQ(Run({"debug", "populate", "3"}), Ok());
  EXPECT_EQ(Run({"mget", "key:0", "key:1", "key:2"}),
            Array({Bulk("value:0"), Bulk("mine"), Bulk("value:2")}));
  EXPECT_EQ(Run({"ttl", "key:2"}), Int(-1));
}

TEST_F(DebugTest, PopulatePrefixAndSize) {
  EXPECT_EQ(Run({"debug", "populate", "2", "p", "10"}), Ok());
  EXPECT_EQ(Run({"get", "p:1"}), Bulk(std::string("value:1\0\0\0", 10)));
  EXPECT_EQ(Run({"debug", "populate", "2", "q", "3"}), Ok());
  EXPECT_EQ(Run({"mget", "q:0", "q:1"}), Array({Bulk("val"), Bulk("val")}));
  // Size 0 means the plain value.
  EXPECT_EQ(Run({"debug", "populate", "1", "r", "0"}), Ok());
  EXPECT_EQ(Run({"get", "r:0"}), Bulk("value:0"));
  // Encodings follow the size as for SET: 44 bytes embstr, 45 raw.
  EXPECT_EQ(Run({"debug", "populate", "1", "t", "45"}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "t:0"}), Bulk("raw"));
  EXPECT_EQ(Run({"debug", "populate", "1", "u", "44"}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "u:0"}), Bulk("embstr"));
  // The prefix is read up to a NUL byte, and names are cut at 127 bytes, so a long prefix makes
  // every number the same key: one key, the rest skipped as existing.
  EXPECT_EQ(Run({"debug", "populate", "2", std::string("a\0b", 3)}), Ok());
  EXPECT_EQ(Run({"exists", "a:0", "a:1"}), Int(2));
  EXPECT_EQ(Run({"debug", "populate", "5", std::string(200, 'x')}), Ok());
  EXPECT_EQ(Run({"exists", std::string(127, 'x')}), Int(1));
  EXPECT_EQ(Run({"dbsize"}), Int(10));
  EXPECT_EQ(Run({"debug", "populate", "1", "a", "2", "3"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'populate'. Try DEBUG "
                "HELP."));
}

TEST_F(DebugTest, PopulateStopsAtARefusalWithAnError) {
  // Redis would abort on a failed allocation; Keel stops, keeps what it wrote and says OOM.
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 100000);
  EXPECT_EQ(Run({"debug", "populate", "1000000", "k", "100"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  const RespValue size = Run({"dbsize"});
  EXPECT_GT(size.integer, 0);
  EXPECT_LT(size.integer, 1000);
  // A size past proto-max-bulk-len is refused before anything is written, as SETRANGE's is.
  EXPECT_EQ(Run({"config", "set", "proto-max-bulk-len", "1mb"}), Ok());
  EXPECT_EQ(Run({"debug", "populate", "1", "big", "1048577"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"exists", "big:0"}), Int(0));
  EXPECT_EQ(Run({"debug", "populate", "1", "big", "1048576"}), Ok());
  EXPECT_EQ(Run({"strlen", "big:0"}), Int(1048576));
}

// The fields of a DEBUG OBJECT line after "Value at:<address> ", which varies.
std::string WithoutAddress(const RespValue& line) {
  EXPECT_EQ(line.type, RespType::kSimpleString);
  EXPECT_EQ(line.text.rfind("Value at:0x", 0), 0u) << line.text;
  const size_t space = line.text.find(' ', std::string_view("Value at:").size());
  return space == std::string::npos ? line.text : line.text.substr(space + 1);
}

TEST_F(DebugTest, ObjectDescribesTheStoredValue) {
  // The simulated clock starts at Unix second 1700000000, whose 24-bit LRU clock is 5501184.
  EXPECT_EQ(Run({"set", "s", "hello"}), Ok());
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "s"})),
            "refcount:1 encoding:embstr serializedlength:6 lru:5501184 lru_seconds_idle:0");
  EXPECT_EQ(Run({"set", "n", "6"}), Ok());
  EXPECT_EQ(Run({"set", "big", "10000"}), Ok());
  EXPECT_EQ(Run({"set", "neg", "-1"}), Ok());
  EXPECT_EQ(Run({"set", "wide", "4294967296"}), Ok());
  AdvanceMs(3000);
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "n"})),
            "refcount:2147483647 encoding:int serializedlength:2 lru:5501184 lru_seconds_idle:3");
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "big"})),
            "refcount:1 encoding:int serializedlength:3 lru:5501184 lru_seconds_idle:3");
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "neg"})),
            "refcount:1 encoding:int serializedlength:2 lru:5501184 lru_seconds_idle:3");
  // Past 32 bits an integer is saved as its text: a length byte and 10 digits.
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "wide"})),
            "refcount:1 encoding:int serializedlength:11 lru:5501184 lru_seconds_idle:3");
  // DEBUG OBJECT does not touch the key.
  EXPECT_EQ(Run({"object", "idletime", "n"}), Int(3));
  EXPECT_EQ(Run({"debug", "object", "missing"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"debug", "object"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'object'. Try DEBUG "
                "HELP."));
  EXPECT_EQ(Run({"debug", "object", "s", "x"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'object'. Try DEBUG "
                "HELP."));
}

TEST_F(DebugTest, ObjectSerializedLengthOfStrings) {
  // A short value that is an integer's text is saved as an integer even when stored as text
  // (INCRBYFLOAT's result); a longer one by its length and bytes.
  EXPECT_EQ(Run({"incrbyfloat", "f", "100"}), Bulk("100"));
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "f"})).substr(0, 45),
            "refcount:1 encoding:embstr serializedlength:2");
  EXPECT_EQ(Run({"append", "r", "123456789012"}), Int(12));
  EXPECT_EQ(Run({"append", "r", "3"}), Int(13));
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "r"})).substr(0, 43),
            "refcount:1 encoding:raw serializedlength:14");
  // 100 bytes: a two-byte length. (Redis would compress this value with LZF; with rdbcompression
  // off, as here, it would not.)
  EXPECT_EQ(Run({"config", "set", "rdbcompression", "no"}), Ok());
  EXPECT_EQ(Run({"set", "long", std::string(100, 'x')}), Ok());
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "long"})).substr(0, 44),
            "refcount:1 encoding:raw serializedlength:102");
}

TEST_F(DebugTest, ObjectSeesExpiredKeysAsStored) {
  EXPECT_EQ(Run({"set", "k", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  // Redis's DEBUG OBJECT finds the stored key without the expiry check, and counts no lookup.
  EXPECT_EQ(WithoutAddress(Run({"debug", "object", "k"})).substr(0, 45),
            "refcount:1 encoding:embstr serializedlength:2");
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(engine_->keyspace().stats().keyspace_hits + engine_->keyspace().stats().keyspace_misses,
            0u);
}

TEST_F(DebugTest, SleepStopsTheServerForTheTimeAsked) {
  const int64_t start_us = env_.sim_clock().MonotonicUs();
  EXPECT_EQ(Run({"debug", "sleep", "0.25"}), Ok());
  EXPECT_EQ(env_.sim_clock().MonotonicUs() - start_us, 250'000);
  EXPECT_EQ(Run({"debug", "sleep", "2"}), Ok());
  EXPECT_EQ(env_.sim_clock().MonotonicUs() - start_us, 2'250'000);
  // strtod's reading: what is not a positive time sleeps not at all.
  for (std::string_view none : {"0", "abc", "-1", "0.0000001", "nan", "1e30"}) {
    EXPECT_EQ(Run({"debug", "sleep", none}), Ok()) << none;
  }
  EXPECT_EQ(env_.sim_clock().MonotonicUs() - start_us, 2'250'000);
  EXPECT_EQ(Run({"debug", "sleep", "1e-3xyz"}), Ok());
  EXPECT_EQ(env_.sim_clock().MonotonicUs() - start_us, 2'251'000);
  // The sleep is part of the command's time.
  EXPECT_EQ(engine_->stats().commands[engine_->registry().Find("debug")->id].usec, 2'251'000u);
}

TEST_F(DebugTest, SetActiveExpireReadsLikeAtoi) {
  EXPECT_TRUE(engine_->active_expire_enabled());
  EXPECT_EQ(Run({"debug", "set-active-expire", "0"}), Ok());
  EXPECT_FALSE(engine_->active_expire_enabled());
  EXPECT_EQ(Run({"debug", "set-active-expire", "1"}), Ok());
  EXPECT_TRUE(engine_->active_expire_enabled());
  EXPECT_EQ(Run({"debug", "set-active-expire", "abc"}), Ok());
  EXPECT_FALSE(engine_->active_expire_enabled());
  EXPECT_EQ(Run({"debug", "set-active-expire", " 7x"}), Ok());
  EXPECT_TRUE(engine_->active_expire_enabled());
}

TEST_F(DebugTest, SkipChecksumValidationAndPauseCronAreSwitches) {
  EXPECT_EQ(Run({"debug", "set-skip-checksum-validation", "1"}), Ok());
  EXPECT_TRUE(engine_->skip_checksum_validation());
  EXPECT_EQ(Run({"debug", "set-skip-checksum-validation", "0"}), Ok());
  EXPECT_FALSE(engine_->skip_checksum_validation());
  EXPECT_EQ(Run({"debug", "pause-cron", "1"}), Ok());
  EXPECT_TRUE(engine_->cron_paused());
  EXPECT_EQ(Run({"debug", "pause-cron", "0"}), Ok());
  EXPECT_FALSE(engine_->cron_paused());
}

TEST_F(DebugTest, QuicklistPackedThreshold) {
  EXPECT_EQ(engine_->quicklist_packed_threshold_bytes(), 1ull << 30);
  EXPECT_EQ(Run({"debug", "quicklist-packed-threshold", "100"}), Ok());
  EXPECT_EQ(engine_->quicklist_packed_threshold_bytes(), 100u);
  EXPECT_EQ(Run({"debug", "quicklist-packed-threshold", "4095mb"}), Ok());
  EXPECT_EQ(engine_->quicklist_packed_threshold_bytes(), 4095ull << 20);
  EXPECT_EQ(Run({"debug", "quicklist-packed-threshold", "0"}), Ok());  // back to the default
  EXPECT_EQ(engine_->quicklist_packed_threshold_bytes(), 1ull << 30);
  for (std::string_view bad : {"4gb", "abc", "-1", "4095mb1"}) {
    EXPECT_EQ(Run({"debug", "quicklist-packed-threshold", bad}),
              Err("ERR argument must be a memory value bigger than 1 and smaller than 4gb"))
        << bad;
  }
  EXPECT_EQ(engine_->quicklist_packed_threshold_bytes(), 1ull << 30);
}

TEST_F(DebugTest, ChangeReplIdReplacesMasterReplid) {
  const std::string before = engine_->replication_id();
  EXPECT_EQ(before.size(), 40u);
  EXPECT_NE(before, engine_->run_id());
  EXPECT_EQ(Run({"debug", "change-repl-id"}), Ok());
  EXPECT_NE(engine_->replication_id(), before);
  const std::string info = Run({"info", "replication"}).text;
  EXPECT_NE(info.find("master_replid:" + engine_->replication_id() + "\r\n"), std::string::npos);
}

TEST_F(DebugTest, LogWritesAWarning) {
  EXPECT_EQ(Run({"debug", "log", std::string("hello\0world", 11)}), Ok());
  const std::vector<std::string>& lines = env_.sim_log().lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "DEBUG LOG: hello");
}

TEST_F(DebugTest, ErrorRepliesVerbatimAndCountsNowhere) {
  EXPECT_EQ(RunRaw({"debug", "error", "MYERR some\r\ntext"}), "-MYERR some  text\r\n");
  EXPECT_EQ(RunRaw({"debug", "error", ""}), "-\r\n");
  EXPECT_EQ(engine_->stats().total_error_replies, 0u);
  EXPECT_TRUE(engine_->stats().errors.empty());
}

TEST_F(DebugTest, StringmatchTest) {
  EXPECT_EQ(Run({"debug", "stringmatch-test"}),
            Status("Apparently Redis did not crash: test passed"));
}

TEST_F(DebugTest, ProtocolInResp2) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"string", "$11\r\nHello World\r\n"},
      {"integer", ":12345\r\n"},
      {"double", "$5\r\n3.141\r\n"},
      {"bignum", "$37\r\n1234567999999999999999999999999999999\r\n"},
      {"null", "$-1\r\n"},
      {"array", "*3\r\n:0\r\n:1\r\n:2\r\n"},
      {"set", "*3\r\n:0\r\n:1\r\n:2\r\n"},
      {"map", "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n"},
      {"attrib", "$39\r\nSome real reply following the attribute\r\n"},
      {"push", "-ERR RESP2 is not supported by this command\r\n"},
      {"verbatim", "$25\r\nThis is a verbatim\nstring\r\n"},
      {"true", ":1\r\n"},
      {"false", ":0\r\n"},
      {"STRING", "$11\r\nHello World\r\n"},
      {"foo",
       "-ERR Wrong protocol type name. Please use one of the following: "
       "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false\r\n"},
  };
  for (const auto& [type, expected] : cases) {
    EXPECT_EQ(RunRaw({"debug", "protocol", type}), expected) << type;
  }
}

TEST_F(DebugTest, ProtocolInResp3) {
  EXPECT_EQ(Run({"hello", "3"}).type, RespType::kMap);
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"double", ",3.141\r\n"},
      {"bignum", "(1234567999999999999999999999999999999\r\n"},
      {"null", "_\r\n"},
      {"set", "~3\r\n:0\r\n:1\r\n:2\r\n"},
      {"map", "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n"},
      {"attrib",
       "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply "
       "following the attribute\r\n"},
      {"push",
       ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push "
       "reply\r\n"},
      {"verbatim", "=29\r\ntxt:This is a verbatim\nstring\r\n"},
      {"true", "#t\r\n"},
      {"false", "#f\r\n"},
  };
  for (const auto& [type, expected] : cases) {
    EXPECT_EQ(RunRaw({"debug", "protocol", type}), expected) << type;
  }
}

class DebugServerTest : public ServerTest {};

TEST_F(DebugServerTest, PauseCronStopsPeriodicWork) {
  // With cron paused, an idle client outlives its timeout; once resumed it is closed.
  Config config = DebugConfig("yes");
  std::string error;
  ASSERT_TRUE(config.SetFromCommand(*Config::Find("timeout"), "1", &error)) << error;
  StartServer(std::move(config));
  const sim::SimClientId admin = Connect();
  const sim::SimClientId idle = Connect();
  EXPECT_EQ(Exchange(admin, Request({"debug", "pause-cron", "1"})), (std::vector<RespValue>{Ok()}));
  env_.sim_clock().Advance(3'000'000);
  Settle();
  EXPECT_FALSE(env_.sim_network().ClosedByServer(idle));
  EXPECT_EQ(Exchange(admin, Request({"debug", "pause-cron", "0"})), (std::vector<RespValue>{Ok()}));
  env_.sim_clock().Advance(2'000'000);
  Settle();
  EXPECT_TRUE(env_.sim_network().ClosedByServer(idle));
}

TEST_F(DebugServerTest, ATerminationSignalEndsTheSleepAndShutsDownAtOnce) {
  // redis-server 7.0.15 exits about 50 ms after SIGTERM during DEBUG SLEEP 10; the signal used to
  // wait for the end of the sleep here.
  StartServer(DebugConfig("yes"));
  const sim::SimClientId sleeper = Connect();
  const int64_t start_us = env_.sim_clock().MonotonicUs();
  env_.RequestShutdownAt(start_us + 500'000);
  env_.sim_network().Send(sleeper, Request({"debug", "sleep", "100"}));
  for (int i = 0; i < 10 && server_->RunOnce(); i++) {
  }
  EXPECT_FALSE(server_->RunOnce());  // shut down
  EXPECT_LT(env_.sim_clock().MonotonicUs() - start_us, 2'000'000);
  EXPECT_EQ(env_.sim_network().open_connections(), 0u);
  bool logged = false;
  for (const std::string& line : env_.sim_log().lines()) {
    logged = logged || line.find("Received SIGTERM scheduling shutdown...") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

TEST_F(DebugServerTest, SleepServesNobodyMeanwhile) {
  StartServer(DebugConfig("yes"));
  const sim::SimClientId sleeper = Connect();
  const sim::SimClientId other = Connect();
  const int64_t start_wall_us = env_.sim_clock().WallUs();
  env_.sim_network().Send(sleeper, Request({"debug", "sleep", "1.5"}));
  env_.sim_network().Send(other, Request({"time"}));
  Settle();
  EXPECT_EQ(DecodeAll(env_.sim_network().Receive(sleeper)), (std::vector<RespValue>{Ok()}));
  // The other client's TIME ran after the sleep, in the same loop iteration or a later one.
  const std::vector<RespValue> time = DecodeAll(env_.sim_network().Receive(other));
  ASSERT_EQ(time.size(), 1u);
  const int64_t answered_us =
      std::stoll(time[0].elements.at(0).text) * 1'000'000 + std::stoll(time[0].elements.at(1).text);
  EXPECT_GE(answered_us - start_wall_us, 1'500'000);
}

}  // namespace
}  // namespace keel::testing
