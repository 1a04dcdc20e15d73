// Config files and command lines, as redis-server 7.0.15 reads them, and CONFIG REWRITE's
// transformation of a file. Every expected text was read from Debian's redis-server 7.0.15
// (started on such files or command lines, or rewriting them).
#include "engine/server/config_file.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace keel {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  // Loads `text`; returns "" or the report redis-server would print.
  std::string Load(std::string_view text, const ConfigDirChecker& check_dir = {}) {
    ConfigLoadError error;
    auto read = [this](std::string_view path, std::string* content) {
      auto it = files_.find(std::string(path));
      if (it == files_.end()) {
        *content = "No such file or directory";
        return false;
      }
      *content = it->second;
      return true;
    };
    if (LoadConfigText(text, &config_, read, &error, 0, check_dir)) return "";
    return error.Report();
  }
  std::string Get(std::string_view name) const { return config_.Get(*Config::Find(name)); }

  // The report for an error at `line_number` of `line`.
  static std::string Fatal(int line_number, std::string_view line, std::string_view message) {
    return "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, "
           "at line " +
           std::to_string(line_number) + "\n>>> '" + std::string(line) + "'\n" +
           std::string(message) + "\n";
  }

  Config config_;
  std::map<std::string, std::string> files_;
};

TEST_F(ConfigFileTest, CommentsBlankLinesAndLineEndings) {
  EXPECT_EQ(Load("   \t  \n  # x\n\r\nport 7000\r\n"), "");
  EXPECT_EQ(Get("port"), "7000");
  EXPECT_EQ(config_.values().port, 7000);
  EXPECT_EQ(Load("HZ 0\n"), "");  // directive names in any case; hz clamps to 1
  EXPECT_EQ(Get("hz"), "1");
  EXPECT_EQ(Load("hz 1000"), "");  // no final newline needed
  EXPECT_EQ(Get("hz"), "500");
}

// Keel's own parameters read from a file as any other, with the same report for a bad value.
TEST_F(ConfigFileTest, KeelOnlyZstdSnapshotParameters) {
  EXPECT_EQ(Load("rdb-compression-algorithm zstd\nrdb-zstd-level 9\n"), "");
  EXPECT_EQ(Get("rdb-compression-algorithm"), "zstd");
  EXPECT_EQ(config_.values().rdb_compression_algorithm, 1);
  EXPECT_EQ(config_.values().rdb_zstd_level, 9);
  EXPECT_EQ(Load("rdb-zstd-level 20\n"),
            Fatal(1, "rdb-zstd-level 20", "argument must be between 1 and 19 inclusive"));
  EXPECT_EQ(Load("rdb-compression-algorithm lz4\n"),
            Fatal(1, "rdb-compression-algorithm lz4",
                  "argument(s) must be one of the following: lzf, zstd"));
}

TEST_F(ConfigFileTest, Quoting) {
  EXPECT_EQ(Load("requirepass \"a b\\x41\\n\"\n"), "");
  EXPECT_EQ(Get("requirepass"), "a bA\n");
  EXPECT_EQ(Load("masterauth 'it''s'\n"),
            Fatal(1, "masterauth 'it''s'", "Unbalanced quotes in configuration line"));
  EXPECT_EQ(Load("port \"7000\n"),
            Fatal(1, "port \"7000", "Unbalanced quotes in configuration line"));
}

// Found by the config fuzzer (corpus/fuzz/config/1c8c157d...): a quote inside a word opens a
// quoted part, as in sdssplitargs, so a bind address can hold spaces. CONFIG GET joins the
// addresses with spaces, so that value does not read back as the same list (redis-server alike;
// both then fail to listen on such an address and exit).
TEST_F(ConfigFileTest, AQuoteInsideAWordQuotesTheRestOfIt) {
  EXPECT_EQ(Load("bind 127.0.0.1 x\"a b\\x\"\n"), "");
  EXPECT_EQ(config_.values().bind, (std::vector<std::string>{"127.0.0.1", "xa bx"}));
  EXPECT_EQ(Get("bind"), "127.0.0.1 xa bx");
}

TEST_F(ConfigFileTest, ReportsTheLineAndRedisText) {
  EXPECT_EQ(Load("foo bar\n"), Fatal(1, "foo bar", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(Load("# c\nport 1 2\n"), Fatal(2, "port 1 2", "wrong number of arguments"));
  EXPECT_EQ(Load("loglevel\n"), Fatal(1, "loglevel", "wrong number of arguments"));
  EXPECT_EQ(Load("port 7000 # comment\n"),
            Fatal(1, "port 7000 # comment", "wrong number of arguments"));
  EXPECT_EQ(Load("notify-keyspace-events K E\n"),
            Fatal(1, "notify-keyspace-events K E", "wrong number of arguments"));
  EXPECT_EQ(Load("oom-score-adj-values 1 2\n"),
            Fatal(1, "oom-score-adj-values 1 2", "wrong number of arguments"));
  EXPECT_EQ(Load("slaveof 127.0.0.1 abc\n"),
            Fatal(1, "slaveof 127.0.0.1 abc", "Invalid master port"));
  EXPECT_EQ(Load("replicaof 127.0.0.1\n"),
            Fatal(1, "replicaof 127.0.0.1", "wrong number of arguments"));
  EXPECT_EQ(Load("unixsocketperm 999\n"),
            Fatal(1, "unixsocketperm 999", "argument couldn't be parsed as an octal number"));
  EXPECT_EQ(Load("appendfilename \"\"\n"),
            Fatal(1, "appendfilename \"\"", "appendfilename can't be empty"));
  EXPECT_EQ(Load("dbfilename a/b\n"),
            Fatal(1, "dbfilename a/b", "dbfilename can't be a path, just a filename"));
  EXPECT_EQ(Load("   sentinel foo  \n"),
            Fatal(1, "sentinel foo", "sentinel directive while not in sentinel mode"));
  EXPECT_EQ(Load("sentinel\n"), "");
}

TEST_F(ConfigFileTest, ReportWithoutALine) {
  // As redis-server prints a failure found after the last line (it cannot open the log file).
  ConfigLoadError error;
  error.message = "Can't open the log file: No such file or directory";
  EXPECT_EQ(error.Report(),
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Can't open the log file: No such file or directory\n");
}

TEST_F(ConfigFileTest, RetiredDirectivesAreAcceptedWithTheirOldArity) {
  EXPECT_EQ(Load("list-max-ziplist-entries 5\nlua-replicate-commands yes\n"), "");
  EXPECT_EQ(Load("list-max-ziplist-entries 5\nlist-max-ziplist-value 1 2\n"),
            Fatal(2, "list-max-ziplist-value 1 2", "Bad directive or wrong number of arguments"));
}

TEST_F(ConfigFileTest, MultiWordParameters) {
  EXPECT_EQ(Load("bind 127.0.0.1 -::1 ::1\n"), "");
  EXPECT_EQ(config_.values().bind, (std::vector<std::string>{"127.0.0.1", "-::1", "::1"}));
  EXPECT_EQ(Load("bind\n"), "");
  EXPECT_EQ(Get("bind"), "");
  EXPECT_EQ(Load("bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"),
            Fatal(1, "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
                  "Too many bind addresses specified."));
  EXPECT_EQ(Load("client-output-buffer-limit normal 1 2 3 pubsub 4 5 6\n"), "");
  EXPECT_EQ(Get("client-output-buffer-limit"),
            "normal 1 2 3 slave 268435456 67108864 60 pubsub 4 5 6");
  EXPECT_EQ(Load("latency-tracking-info-percentiles 50 99\n"), "");
  EXPECT_EQ(Get("latency-tracking-info-percentiles"), "50 99");
  EXPECT_EQ(Load("shutdown-on-sigint save now\n"), "");
  EXPECT_EQ(Get("shutdown-on-sigint"), "save now");
  EXPECT_EQ(Load("shutdown-on-sigint \"\"\n"),
            Fatal(1, "shutdown-on-sigint \"\"",
                  "argument(s) must be one of the following: default, save, nosave, now, force"));
  EXPECT_EQ(Load("replicaof NO ONE\n"), "");
  EXPECT_EQ(Get("replicaof"), "");
}

TEST_F(ConfigFileTest, SaveLinesAddUp) {
  EXPECT_EQ(Load("save 100 5\nsave 200 6\n"), "");
  EXPECT_EQ(Get("save"), "100 5 200 6");
  Config fresh;
  config_ = fresh;
  EXPECT_EQ(Load("save 100 5 200 6\n"), "");
  EXPECT_EQ(Get("save"), "100 5 200 6");
}

TEST_F(ConfigFileTest, BareSaveAddsNothingAndEmptySaveClears) {
  EXPECT_EQ(Load("save 100 5\nsave\nsave 200 6\n"), "");
  EXPECT_EQ(Get("save"), "100 5 200 6");
  config_ = Config();
  EXPECT_EQ(Load("save 100 5\nsave \"\"\nsave 200 6\n"), "");
  EXPECT_EQ(Get("save"), "200 6");
  config_ = Config();
  EXPECT_EQ(Load("save\n"), "");
  EXPECT_EQ(Get("save"), "");
  EXPECT_EQ(Load("save 100 5\nsave \"\" 1\n"), Fatal(2, "save \"\" 1", "Invalid save parameters"));
}

TEST_F(ConfigFileTest, SaveLinesAfterAnIncludeReplaceEachOther) {
  // Redis clears its "reading a config file" flag when the included file ends.
  files_["/etc/inc.conf"] = "maxmemory-samples 7\n";
  EXPECT_EQ(Load("include /etc/inc.conf\nsave 100 5\nsave 200 6\n"), "");
  EXPECT_EQ(Get("save"), "200 6");
  EXPECT_EQ(Get("maxmemory-samples"), "7");
}

TEST_F(ConfigFileTest, IncludeReadsTheFileInPlace) {
  files_["/etc/a.conf"] = "port 7001\ninclude /etc/b.conf\n";
  files_["/etc/b.conf"] = "hz 20\n";
  EXPECT_EQ(Load("port 7000\ninclude /etc/a.conf\ntimeout 5\n"), "");
  EXPECT_EQ(Get("port"), "7001");
  EXPECT_EQ(Get("hz"), "20");
  EXPECT_EQ(Get("timeout"), "5");
  // An error inside an included file reports that file's line.
  files_["/etc/bad.conf"] = "\nport x\n";
  EXPECT_EQ(Load("include /etc/bad.conf\n"),
            Fatal(2, "port x", "argument couldn't be parsed into an integer"));
}

TEST_F(ConfigFileTest, MissingIncludeIsAPlainFatalLogLine) {
  EXPECT_EQ(Load("include /nonexistent.conf\n"),
            "Fatal error, can't open config file '/nonexistent.conf': No such file or "
            "directory\n");
  EXPECT_EQ(Load("include a b\n"),
            Fatal(1, "include a b", "Bad directive or wrong number of arguments"));
}

TEST_F(ConfigFileTest, IncludeCycleStopsAtTheDepthLimit) {
  files_["/etc/self.conf"] = "include /etc/self.conf\n";
  EXPECT_EQ(Load("include /etc/self.conf\n"),
            Fatal(1, "include /etc/self.conf", "Too many nested includes"));
}

TEST_F(ConfigFileTest, DirIsCheckedByTheEnvironment) {
  auto check = [](std::string_view path) -> std::string {
    if (path == "/etc/passwd") return "Not a directory";
    return path == "/var/lib/keel" ? "" : "No such file or directory";
  };
  EXPECT_EQ(Load("dir /var/lib/keel\n", check), "");
  EXPECT_EQ(Get("dir"), "/var/lib/keel");
  EXPECT_EQ(config_.values().dir, "/var/lib/keel");
  EXPECT_EQ(Load("dir /nonexistent\n", check),
            Fatal(1, "dir /nonexistent", "No such file or directory"));
  EXPECT_EQ(Load("dir /etc/passwd\n", check), Fatal(1, "dir /etc/passwd", "Not a directory"));
  EXPECT_EQ(Load("dir \"\"\n"), Fatal(1, "dir \"\"", "No such file or directory"));
}

std::string CommandLine(std::initializer_list<std::string_view> args) {
  return CommandLineToConfigText(std::vector<std::string_view>(args));
}

TEST(CommandLineTest, OptionsBecomeQuotedConfigLines) {
  EXPECT_EQ(CommandLine({"--port", "7000", "--save", ""}), "port \"7000\" \nsave \"\" ");
  EXPECT_EQ(CommandLine({"--save", "100", "5", "--save", "200", "6"}),
            "save \"100\" \"5\" \nsave \"200\" \"6\" ");
  EXPECT_EQ(CommandLine({"--port 7000"}), "port 7000 ");
  // An option without a value takes the next word as its value even if it starts with "--".
  EXPECT_EQ(CommandLine({"--requirepass", "--x"}), "requirepass \"--x\" ");
}

TEST(CommandLineTest, BareSaveMeansSaveEmpty) {
  EXPECT_EQ(CommandLine({"--save"}), "save \"\"");
  EXPECT_EQ(CommandLine({"--save", "--port", "7000"}), "save \"\"\nport \"7000\" ");
}

TEST(CommandLineTest, LoadedAsRedisLoadsThem) {
  Config config;
  ConfigLoadError error;
  auto no_files = [](std::string_view, std::string*) { return false; };
  std::string text = "\n" + CommandLine({"--save", "100", "5", "--save", "200", "6"});
  ASSERT_TRUE(LoadConfigText(text, &config, no_files, &error)) << error.Report();
  EXPECT_EQ(config.Get(*Config::Find("save")), "100 5 200 6");
  text = "\n" + CommandLine({"--save", "100", "5", "--save", ""});
  ASSERT_TRUE(LoadConfigText(text, &config, no_files, &error)) << error.Report();
  EXPECT_EQ(config.Get(*Config::Find("save")), "");
  text = "\n" + CommandLine({"--port", "7410", "--port", "abc"});
  EXPECT_FALSE(LoadConfigText(text, &config, no_files, &error));
  EXPECT_EQ(error.Report(),
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 3\n"
            ">>> 'port \"abc\"'\n"
            "argument couldn't be parsed into an integer\n");
}

TEST(QuoteConfigArgTest, MatchesSdscatrepr) {
  EXPECT_EQ(QuoteConfigArg(""), "\"\"");
  EXPECT_EQ(QuoteConfigArg("a\"b c"), "\"a\\\"b c\"");
  EXPECT_EQ(QuoteConfigArg(std::string("\\\n\r\t\a\b\x01\x7f", 8)),
            "\"\\\\\\n\\r\\t\\a\\b\\x01\\x7f\"");
}

class RewriteTest : public ::testing::Test {
 protected:
  // Loads `old` (includes read as empty files), applies CONFIG SET-style changes, rewrites.
  std::string Rewrite(std::string_view old,
                      std::initializer_list<std::pair<std::string_view, std::string_view>> sets) {
    ConfigLoadError error;
    auto empty_files = [](std::string_view, std::string* content) {
      content->clear();
      return true;
    };
    EXPECT_TRUE(LoadConfigText(old, &config_, empty_files, &error)) << error.Report();
    for (const auto& [name, value] : sets) {
      std::string message;
      EXPECT_TRUE(config_.SetFromCommand(*Config::Find(name), value, &message)) << message;
    }
    return RewriteConfigText(old, config_);
  }

  Config config_;
};

TEST_F(RewriteTest, UpdatesInPlaceKeepsCommentsAndAppendsTheRest) {
  const std::string old =
      "# top comment\n"
      "   # indented comment  \n"
      "\n"
      "\n"
      "port 7000\n"
      "PORT 7000\n"
      "hash-max-ziplist-entries 100\n"
      "slave-read-only yes\n"
      "slaveof no one\n"
      "lua-time-limit 6000\n"
      "save 100 5\n"
      "save 200 6\n"
      "include /etc/other.conf\n"
      "requirepass \"\"\n"
      "dbfilename dump.rdb\n"
      "\ttimeout 0\t\n"
      "list-max-ziplist-entries 5\n"
      "hash-max-listpack-entries 300\n"
      "#  Generated by CONFIG REWRITE\n"
      "\n"
      "protected-mode no\n";
  EXPECT_EQ(
      Rewrite(old,
              {{"save", "10 1 20 2"}, {"maxmemory", "3mb"}, {"notify-keyspace-events", "KEA"}}),
      "# top comment\n"
      "# indented comment\n"
      "\n"
      "port 7000\n"
      "\n"
      "hash-max-listpack-entries 300\n"
      "replica-read-only yes\n"
      "\n"
      "busy-reply-threshold 6000\n"
      "save 10 1\n"
      "save 20 2\n"
      "include /etc/other.conf\n"
      "\n"
      "dbfilename \"dump.rdb\"\n"
      "timeout 0\n"
      "# ??? list-max-ziplist-entries 5\n"
      "\n"
      "#  Generated by CONFIG REWRITE\n"
      "\n"
      "protected-mode no\n"
      "\n"
      "# Generated by CONFIG REWRITE\n"
      "maxmemory 3mb\n"
      "latency-tracking-info-percentiles 50 99 99.9\n"
      "notify-keyspace-events \"AKE\"\n");
}

TEST_F(RewriteTest, DefaultValuedLinesStayAndNullStringsGo) {
  const std::string old =
      "logfile \"\"\n"
      "notify-keyspace-events \"\"\n"
      "unixsocketperm 700\n"
      "replica-announce-ip \"\"\n"
      "oom-score-adj-values 0 200 800\n"
      "client-output-buffer-limit normal 0 0 0\n"
      "client-output-buffer-limit slave 256mb 64mb 60\n"
      "maxmemory 0\n"
      "hz 10\n"
      "aclfile \"\"\n"
      "shutdown-on-sigint default\n"
      "bind 127.0.0.1\n"
      "replicaof no one\n"
      "latency-tracking-info-percentiles \"\"\n";
  EXPECT_EQ(Rewrite(old, {{"save", ""}}),
            "logfile \"\"\n"
            "notify-keyspace-events \"\"\n"
            "unixsocketperm 700\n"
            "\n"
            "oom-score-adj-values 0 200 800\n"
            "client-output-buffer-limit normal 0 0 0\n"
            "client-output-buffer-limit replica 256mb 64mb 60\n"
            "maxmemory 0\n"
            "hz 10\n"
            "aclfile \"\"\n"
            "shutdown-on-sigint default\n"
            "bind 127.0.0.1\n"
            "\n"
            "latency-tracking-info-percentiles \"\"\n"
            "\n"
            "# Generated by CONFIG REWRITE\n"
            "save \"\"\n");
}

TEST_F(RewriteTest, MissingFileStartsWithTheSignature) {
  EXPECT_EQ(Rewrite("", {{"port", "7422"}}),
            "# Generated by CONFIG REWRITE\n"
            "port 7422\n"
            "save 3600 1\n"
            "save 300 100\n"
            "save 60 10000\n"
            "latency-tracking-info-percentiles 50 99 99.9\n");
}

TEST_F(RewriteTest, ExistingSignatureIsNotRepeatedAndRewritingIsStable) {
  const std::string once = Rewrite("port 7000\n", {{"maxmemory", "1gb"}, {"save", ""}});
  EXPECT_EQ(once,
            "port 7000\n"
            "\n"
            "# Generated by CONFIG REWRITE\n"
            "save \"\"\n"
            "maxmemory 1gb\n"
            "latency-tracking-info-percentiles 50 99 99.9\n");
  // The final newline leaves an empty last line, which Redis keeps: a second rewrite ends with a
  // blank line, and from then on the file stays the same.
  const std::string twice = RewriteConfigText(once, config_);
  EXPECT_EQ(twice, once + "\n");
  EXPECT_EQ(RewriteConfigText(twice, config_), twice);
}

TEST_F(RewriteTest, BindAtKeelsDefaultIsDropped) {
  // Redis drops the bind lines when bind is at its default; Keel's default is Debian's line.
  EXPECT_EQ(Rewrite("bind 127.0.0.1 -::1\nsave \"\"\n", {}),
            "\n"
            "save \"\"\n"
            "\n"
            "# Generated by CONFIG REWRITE\n"
            "latency-tracking-info-percentiles 50 99 99.9\n");
}

}  // namespace
}  // namespace keel
