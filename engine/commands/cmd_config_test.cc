// CONFIG GET / SET / RESETSTAT / REWRITE / HELP. Every reply below was read from Debian's
// redis-server 7.0.15 with the same commands (RESP2).
#include <set>

#include "engine/server/config_file.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ConfigCommandTest : public CommandTest {
 protected:
  // Restarts the engine as keel-server does with a config file at `path` holding `content`.
  void StartWithConfigFile(const std::string& path, std::string_view content) {
    WriteFile(path, content);
    Config config;
    ConfigLoadError error;
    auto no_includes = [](std::string_view, std::string*) { return false; };
    ASSERT_TRUE(LoadConfigText(content, &config, no_includes, &error)) << error.Report();
    StartWith(std::move(config), path);
  }
  void StartWith(Config config, const std::string& config_file = "") {
    client_ = nullptr;
    engine_.reset();
    StartupInfo startup;
    startup.config_file = config_file;
    engine_ = std::make_unique<Engine>(env_, std::move(config), startup);
    client_ = engine_->NewClient(0, nullptr);
  }
  void WriteFile(const std::string& path, std::string_view content) {
    sim::SimFiles& files = env_.sim_files();
    Result<FileId> file = files.Open(path, OpenMode::kCreateTruncate);
    ASSERT_TRUE(file.ok());
    const ConstSlice slice{content.data(), content.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    ASSERT_TRUE(files.Close(*file).ok());
  }
  std::string FileContent(const std::string& path) {
    const std::string* content = env_.sim_files().Content(path);
    return content == nullptr ? "<missing>" : *content;
  }
  // CONFIG GET's reply as a set of "name=value", since its order is Redis's hash order.
  std::set<std::string> GetPairs(const std::vector<std::string>& args) {
    RespValue reply = Run(args);
    std::set<std::string> pairs;
    EXPECT_EQ(reply.type, RespType::kArray);
    EXPECT_EQ(reply.elements.size() % 2, 0u);
    for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
      pairs.insert(reply.elements[i].text + "=" + reply.elements[i + 1].text);
    }
    EXPECT_EQ(pairs.size() * 2, reply.elements.size()) << "a name came twice";
    return pairs;
  }
};

using Pairs = std::set<std::string>;

// Redis's updateMaxclients: a maxclients the descriptor limit cannot hold is refused with the
// value that fits (limit minus the 32 reserved descriptors), and the old value stays; the texts
// are redis-server 7.0.15's under `prlimit --nofile=1024` (conformance/e2e checks the real one).
TEST_F(ConfigCommandTest, MaxclientsMustFitTheDescriptorLimit) {
  env_.sim_network().set_descriptor_limit(1024);
  EXPECT_EQ(Run({"config", "set", "maxclients", "2000"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'maxclients') - The "
                "operating system is not able to handle the specified number of clients, try "
                "with 992"));
  EXPECT_EQ(Run({"config", "get", "maxclients"}), Array({Bulk("maxclients"), Bulk("10000")}));
  bool logged = false;
  for (const std::string& line : env_.sim_log().lines()) {
    if (line.find("maxclients has been reduced to 992") != std::string::npos) logged = true;
  }
  EXPECT_TRUE(logged);
  EXPECT_EQ(Run({"config", "set", "maxclients", "992"}), Ok());
  EXPECT_EQ(Run({"config", "get", "maxclients"}), Array({Bulk("maxclients"), Bulk("992")}));
  env_.sim_network().set_descriptor_limit(0);
  EXPECT_EQ(Run({"config", "set", "maxclients", "100000"}), Ok());
}

TEST_F(ConfigCommandTest, GetReportsTheSpellingTypedOnce) {
  EXPECT_EQ(Run({"config", "get", "MAXMEMORY"}), Array({Bulk("MAXMEMORY"), Bulk("0")}));
  EXPECT_EQ(Run({"config", "get", "MAXMEMORY", "maxmemory"}),
            Array({Bulk("MAXMEMORY"), Bulk("0")}));
  EXPECT_EQ(Run({"config", "get", "maxmemory", "MAXMEMORY"}),
            Array({Bulk("maxmemory"), Bulk("0")}));
  EXPECT_EQ(Run({"config", "get", "hz", "HZ", "Hz"}), Array({Bulk("hz"), Bulk("10")}));
}

TEST_F(ConfigCommandTest, GetPatternsAfterExactNames) {
  EXPECT_EQ(GetPairs({"config", "get", "MAXMEMORY", "max*"}),
            (Pairs{"MAXMEMORY=0", "maxmemory-samples=5", "maxmemory-clients=0", "maxclients=10000",
                   "maxmemory-policy=noeviction", "maxmemory-eviction-tenacity=10"}));
  EXPECT_EQ(GetPairs({"config", "get", "maxmemory-p*", "maxmemory-policy"}),
            (Pairs{"maxmemory-policy=noeviction"}));
  EXPECT_EQ(GetPairs({"config", "get", "nonexist*", "port"}), (Pairs{"port=6379"}));
  EXPECT_EQ(Run({"config", "get", "nonexist"}), Array({}));
  EXPECT_EQ(Run({"config", "get", "a", "b", "c"}), Array({}));
}

TEST_F(ConfigCommandTest, GetListsAParameterAndItsAliasSeparately) {
  EXPECT_EQ(GetPairs({"config", "get", "slaveof", "replicaof"}), (Pairs{"slaveof=", "replicaof="}));
  EXPECT_EQ(GetPairs({"config", "get", "*slaveof*"}), (Pairs{"slaveof="}));
  EXPECT_EQ(GetPairs({"config", "get", "*replicaof*", "slaveof"}),
            (Pairs{"replicaof=", "slaveof="}));
  EXPECT_EQ(GetPairs({"config", "get", "SLAVE*of"}), (Pairs{"slaveof="}));
  EXPECT_EQ(GetPairs({"config", "get", "[r]eplicaof"}), (Pairs{"replicaof="}));
  // Redis's 192 names, and Keel's own two (rdb-compression-algorithm, rdb-zstd-level).
  RespValue all = Run({"config", "get", "*"});
  EXPECT_EQ(all.elements.size(), 2u * (192 + 2));
}

TEST_F(ConfigCommandTest, HiddenParametersOnlyByExactName) {
  EXPECT_EQ(GetPairs({"config", "get", "*delay*"}),
            (Pairs{"repl-diskless-sync-delay=5", "repl-disable-tcp-nodelay=no"}));
  EXPECT_EQ(Run({"config", "get", "KEY-LOAD-DELAY"}), Array({Bulk("KEY-LOAD-DELAY"), Bulk("0")}));
  EXPECT_EQ(
      GetPairs({"config", "get", "lua-enable-deprecated-api", "use-exit-on-panic",
                "watchdog-period", "rdb-key-save-delay", "loading-process-events-interval-bytes"}),
      (Pairs{"lua-enable-deprecated-api=no", "use-exit-on-panic=no", "watchdog-period=0",
             "rdb-key-save-delay=0", "loading-process-events-interval-bytes=2097152"}));
  EXPECT_EQ(Run({"config", "set", "key-load-delay", "-5"}), Ok());
  EXPECT_EQ(Run({"config", "get", "key-load-delay"}), Array({Bulk("key-load-delay"), Bulk("-5")}));
}

TEST_F(ConfigCommandTest, ArityAndSyntax) {
  EXPECT_EQ(Run({"config", "get"}), Err("ERR wrong number of arguments for 'config|get' command"));
  EXPECT_EQ(Run({"config", "set"}), Err("ERR wrong number of arguments for 'config|set' command"));
  EXPECT_EQ(Run({"config", "set", "maxmemory"}),
            Err("ERR wrong number of arguments for 'config|set' command"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1", "port"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"config", "resetstat", "x"}),
            Err("ERR wrong number of arguments for 'config|resetstat' command"));
  EXPECT_EQ(Run({"config", "rewrite", "x"}),
            Err("ERR wrong number of arguments for 'config|rewrite' command"));
  EXPECT_EQ(Run({"config", "help", "x"}),
            Err("ERR wrong number of arguments for 'config|help' command"));
  EXPECT_EQ(Run({"config", "foo"}), Err("ERR unknown subcommand 'foo'. Try CONFIG HELP."));
  EXPECT_EQ(Run({"config"}), Err("ERR wrong number of arguments for 'config' command"));
}

TEST_F(ConfigCommandTest, SetNameErrorsFirstProblemWins) {
  const std::string kUnknown = "ERR Unknown option or number of arguments for CONFIG SET - ";
  EXPECT_EQ(Run({"config", "set", "nonexist", "1"}), Err(kUnknown + "'nonexist'"));
  EXPECT_EQ(Run({"config", "set", "nonexist", "1", "maxmemory", "abc"}),
            Err(kUnknown + "'nonexist'"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "abc", "nonexist", "1"}),
            Err(kUnknown + "'nonexist'"));
  EXPECT_EQ(Run({"config", "set", "nonexist", "1", "daemonize", "no"}),
            Err(kUnknown + "'nonexist'"));
  const std::string kFailed = "ERR CONFIG SET failed (possibly related to argument ";
  EXPECT_EQ(Run({"config", "set", "daemonize", "no", "nonexist", "1"}),
            Err(kFailed + "'daemonize') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "set", "daemonize", "no", "maxmemory", "abc"}),
            Err(kFailed + "'daemonize') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "abc", "daemonize", "no"}),
            Err(kFailed + "'daemonize') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1", "maxmemory", "2"}),
            Err(kFailed + "'maxmemory') - duplicate parameter"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1", "MAXMEMORY", "2"}),
            Err(kFailed + "'MAXMEMORY') - duplicate parameter"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "abc", "maxmemory", "2"}),
            Err(kFailed + "'maxmemory') - duplicate parameter"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1", "daemonize", "no", "maxmemory", "2"}),
            Err(kFailed + "'daemonize') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1", "maxmemory", "2", "daemonize", "no"}),
            Err(kFailed + "'maxmemory') - duplicate parameter"));
  EXPECT_EQ(Run({"config", "set", "SLAVEOF", "1"}),
            Err(kFailed + "'SLAVEOF') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "set", "dir", "/nonexistent"}),
            Err(kFailed + "'dir') - can't set protected config"));
  EXPECT_EQ(Run({"config", "set", "DBFILENAME", "x"}),
            Err(kFailed + "'DBFILENAME') - can't set protected config"));
  EXPECT_EQ(Run({"config", "set", "daemonize", "yes", "dbfilename", "x"}),
            Err(kFailed + "'daemonize') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1", "DIR", "/tmp", "maxmemory", "2"}),
            Err(kFailed + "'DIR') - can't set protected config"));
  EXPECT_EQ(Run({"config", "set", "enable-protected-configs", "yes"}),
            Err(kFailed + "'enable-protected-configs') - can't set immutable config"));
  EXPECT_EQ(Run({"config", "get", "maxmemory"}), Array({Bulk("maxmemory"), Bulk("0")}));
}

TEST_F(ConfigCommandTest, SetValueErrorsNameTheEntry) {
  const std::string kFailed = "ERR CONFIG SET failed (possibly related to argument ";
  EXPECT_EQ(Run({"config", "set", "MAXMEMORY", "abc"}),
            Err(kFailed + "'maxmemory') - argument must be a memory value"));
  EXPECT_EQ(Run({"config", "set", "hash-max-ziplist-entries", "abc"}),
            Err(kFailed + "'hash-max-ziplist-entries') - argument couldn't be parsed into an "
                          "integer"));
  EXPECT_EQ(Run({"config", "set", "port", "70000", "bind", "1.2.3.4"}),
            Err(kFailed + "'port') - argument must be between 0 and 65535 inclusive"));
  EXPECT_EQ(Run({"config", "set", "save", "100 5 200"}),
            Err(kFailed + "'save') - Invalid save parameters"));
}

TEST_F(ConfigCommandTest, SetIsAllOrNothing) {
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1mb", "hz", "abc"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be "
                "parsed into an integer"));
  EXPECT_EQ(Run({"config", "get", "maxmemory"}), Array({Bulk("maxmemory"), Bulk("0")}));
  EXPECT_EQ(engine_->settings().maxmemory, 0);
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1mb", "hz", "1000", "save", ""}), Ok());
  EXPECT_EQ(engine_->settings().maxmemory, 1 << 20);
  EXPECT_EQ(engine_->settings().hz, 500);
  EXPECT_EQ(GetPairs({"config", "get", "maxmemory", "hz", "save"}),
            (Pairs{"maxmemory=1048576", "hz=500", "save="}));
}

TEST_F(ConfigCommandTest, AParameterAndItsAliasAreNotDuplicates) {
  EXPECT_EQ(
      Run({"config", "set", "hash-max-ziplist-entries", "1", "hash-max-listpack-entries", "2"}),
      Ok());
  EXPECT_EQ(Run({"config", "get", "hash-max-ziplist-entries"}),
            Array({Bulk("hash-max-ziplist-entries"), Bulk("2")}));
}

TEST_F(ConfigCommandTest, MultiWordValuesAreSplitAtSpaces) {
  EXPECT_EQ(Run({"config", "set", "save", "100 5 200 6"}), Ok());
  EXPECT_EQ(Run({"config", "get", "save"}), Array({Bulk("save"), Bulk("100 5 200 6")}));
  EXPECT_EQ(Run({"config", "set", "save", "100  5"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save "
                "parameters"));
  EXPECT_EQ(Run({"config", "set", "client-output-buffer-limit", "pubsub 1mb 2k 3"}), Ok());
  EXPECT_EQ(Run({"config", "get", "client-output-buffer-limit"}),
            Array({Bulk("client-output-buffer-limit"),
                   Bulk("normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 2000 3")}));
  // A one-word parameter takes the whole value, spaces included.
  EXPECT_EQ(Run({"config", "set", "requirepass", "a b"}), Ok());
  EXPECT_EQ(engine_->settings().requirepass, "a b");
}

TEST_F(ConfigCommandTest, TlsCannotBeTurnedOn) {
  const std::string kTls = "') - Unable to update TLS configuration. Check server logs.";
  const std::string kFailed = "ERR CONFIG SET failed (possibly related to argument '";
  EXPECT_EQ(Run({"config", "set", "tls-port", "7440"}), Err(kFailed + "tls-port" + kTls));
  EXPECT_EQ(Run({"config", "set", "tls-replication", "yes"}),
            Err(kFailed + "tls-replication" + kTls));
  EXPECT_EQ(Run({"config", "set", "tls-cluster", "yes"}), Err(kFailed + "tls-cluster" + kTls));
  EXPECT_EQ(Run({"config", "set", "tls-cert-file", "/nonexistent"}), Ok());
  EXPECT_EQ(Run({"config", "get", "tls-cert-file"}),
            Array({Bulk("tls-cert-file"), Bulk("/nonexistent")}));
  EXPECT_EQ(Run({"config", "set", "tls-auth-clients", "optional"}), Ok());
}

TEST_F(ConfigCommandTest, ProtectedConfigsWhenEnabled) {
  Config config;
  std::string error;
  ASSERT_TRUE(config.Set(*Config::Find("enable-protected-configs"),
                         std::vector<std::string_view>{"yes"}, &error));
  StartWith(std::move(config));
  EXPECT_EQ(Run({"config", "set", "dbfilename", "a/b"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename "
                "can't be a path, just a filename"));
  EXPECT_EQ(Run({"config", "set", "dbfilename", ""}), Ok());
  EXPECT_EQ(Run({"config", "set", "dir", ""}),
            Err("ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or "
                "directory"));
  EXPECT_EQ(Run({"config", "set", "dir", "/tmp/r7402"}), Ok());
  EXPECT_EQ(Run({"config", "set", "dir", ".."}), Ok());
  EXPECT_EQ(Run({"config", "get", "dir"}), Array({Bulk("dir"), Bulk("/tmp")}));
  EXPECT_EQ(engine_->settings().dir, "/tmp");
}

TEST_F(ConfigCommandTest, ProtectedConfigsForLocalClientsOnly) {
  Config config;
  std::string error;
  ASSERT_TRUE(config.Set(*Config::Find("enable-protected-configs"),
                         std::vector<std::string_view>{"local"}, &error));
  StartWith(std::move(config));
  EXPECT_EQ(Run({"config", "set", "dbfilename", "x.rdb"}), Ok());
  client_->peer_is_loopback = false;
  EXPECT_EQ(Run({"config", "set", "dbfilename", "y.rdb"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set "
                "protected config"));
  EXPECT_EQ(Run({"config", "get", "dbfilename"}), Array({Bulk("dbfilename"), Bulk("x.rdb")}));
}

TEST_F(ConfigCommandTest, Resetstat) {
  EXPECT_EQ(Run({"get", "missing"}), NilBulk());
  ASSERT_EQ(engine_->keyspace().stats().keyspace_misses, 1u);
  EXPECT_EQ(Run({"config", "resetstat"}), Ok());
  EXPECT_EQ(engine_->keyspace().stats().keyspace_misses, 0u);
}

TEST_F(ConfigCommandTest, ResetstatClearsEveryStatisticButTheLogs) {
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "0"}), Ok());
  EXPECT_EQ(Run({"config", "set", "latency-monitor-threshold", "1"}), Ok());
  engine_->AddLatencySampleIfNeeded("command", 5);
  EXPECT_EQ(Run({"get"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  engine_->stats().total_reads_processed = 7;
  engine_->stats().total_writes_processed = 7;
  EXPECT_EQ(Run({"config", "resetstat"}), Ok());
  const ServerStats& stats = engine_->stats();
  EXPECT_EQ(stats.total_commands_processed, 1u);  // RESETSTAT itself, counted after it ran
  EXPECT_EQ(stats.total_error_replies, 0u);
  EXPECT_TRUE(stats.errors.empty());
  EXPECT_EQ(stats.total_reads_processed, 0u);
  EXPECT_EQ(stats.total_writes_processed, 0u);
  const CommandSpec* ping = engine_->registry().Find("ping");
  EXPECT_EQ(stats.commands[ping->id].calls, 0u);
  EXPECT_EQ(stats.commands[ping->id].latency, nullptr);
  EXPECT_EQ(stats.commands[engine_->registry().Find("get")->id].rejected_calls, 0u);
  EXPECT_EQ(Run({"info", "commandstats"}).text.find("cmdstat_ping"), std::string::npos);
  EXPECT_EQ(Run({"info", "latencystats"}).text.find("usec_ping"), std::string::npos);
  // The slow log and the latency monitor are not statistics: they stay.
  EXPECT_EQ(Run({"slowlog", "len"}), Int(6));
  EXPECT_EQ(Run({"latency", "latest"}).elements.size(), 1u);
}

TEST_F(ConfigCommandTest, Help) {
  EXPECT_EQ(RunRaw({"config", "help"}),
            "*11\r\n"
            "+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
            "+GET <pattern>\r\n"
            "+    Return parameters matching the glob-like <pattern> and their values.\r\n"
            "+SET <directive> <value>\r\n"
            "+    Set the configuration <directive> to <value>.\r\n"
            "+RESETSTAT\r\n"
            "+    Reset statistics reported by the INFO command.\r\n"
            "+REWRITE\r\n"
            "+    Rewrite the configuration file.\r\n"
            "+HELP\r\n"
            "+    Prints this help.\r\n");
}

TEST_F(ConfigCommandTest, RewriteSubcommandDescription) {
  EXPECT_EQ(RunRaw({"command", "info", "config|rewrite"}),
            "*1\r\n*10\r\n$14\r\nconfig|rewrite\r\n:2\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n"
            "+stale\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n"
            "*0\r\n");
  EXPECT_EQ(RunRaw({"command", "docs", "config|rewrite"}),
            "*2\r\n$14\r\nconfig|rewrite\r\n*8\r\n$7\r\nsummary\r\n$63\r\nRewrite the "
            "configuration file with the in memory configuration\r\n$5\r\nsince\r\n$5\r\n2.8.0\r\n"
            "$5\r\ngroup\r\n$6\r\nserver\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n");
}

TEST_F(ConfigCommandTest, RewriteWithoutAConfigFile) {
  EXPECT_EQ(Run({"config", "rewrite"}), Err("ERR The server is running without a config file"));
}

TEST_F(ConfigCommandTest, RewriteUpdatesTheStartupFile) {
  const std::string path = "/etc/keel/keel.conf";
  StartWithConfigFile(path, "# Keel\nport 7000\nmaxmemory 1gb\nslaveof no one\n");
  EXPECT_EQ(Run({"config", "set", "maxmemory", "2gb", "notify-keyspace-events", "Ex"}), Ok());
  EXPECT_EQ(Run({"config", "rewrite"}), Ok());
  EXPECT_EQ(FileContent(path),
            "# Keel\n"
            "port 7000\n"
            "maxmemory 2gb\n"
            "\n"
            "# Generated by CONFIG REWRITE\n"
            "save 3600 1\n"
            "save 300 100\n"
            "save 60 10000\n"
            "latency-tracking-info-percentiles 50 99 99.9\n"
            "notify-keyspace-events \"xE\"\n");
  EXPECT_EQ(FileContent(path + ".keel-rewrite.tmp"), "<missing>");
  // Rewriting again changes only the empty last line (as Redis does), then nothing.
  EXPECT_EQ(Run({"config", "rewrite"}), Ok());
  const std::string twice = FileContent(path);
  EXPECT_EQ(Run({"config", "rewrite"}), Ok());
  EXPECT_EQ(FileContent(path), twice);
}

TEST_F(ConfigCommandTest, RewriteRecreatesADeletedFile) {
  const std::string path = "/etc/keel/keel.conf";
  StartWithConfigFile(path, "port 7422\n");
  ASSERT_TRUE(env_.sim_files().Remove(path).ok());
  EXPECT_EQ(Run({"config", "set", "save", ""}), Ok());
  EXPECT_EQ(Run({"config", "rewrite"}), Ok());
  EXPECT_EQ(FileContent(path),
            "# Generated by CONFIG REWRITE\n"
            "port 7422\n"
            "save \"\"\n"
            "latency-tracking-info-percentiles 50 99 99.9\n");
}

}  // namespace
}  // namespace keel::testing
