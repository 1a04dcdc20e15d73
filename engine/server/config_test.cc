// Config: the parameter table against redis-server 7.0.15, every value kind, and the parameters
// with their own syntax. Every expected text and canonical form below was read from Debian's
// redis-server 7.0.15 (CONFIG SET / CONFIG GET, or its config file for immutable parameters).
#include "engine/server/config.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace keel {
namespace {

// CONFIG GET * of a redis-server 7.0.15 started without a config file, except three deliberate
// defaults: port (the server ran with --port), dir (Keel's "" is the working directory) and bind
// (Keel's default is Debian's redis.conf line, not "* -::*").
const std::map<std::string, std::string> kRedisDefaults = {
    {"acl-pubsub-default", "resetchannels"},
    {"aclfile", ""},
    {"acllog-max-len", "128"},
    {"active-defrag-cycle-max", "25"},
    {"active-defrag-cycle-min", "1"},
    {"active-defrag-ignore-bytes", "104857600"},
    {"active-defrag-max-scan-fields", "1000"},
    {"active-defrag-threshold-lower", "10"},
    {"active-defrag-threshold-upper", "100"},
    {"active-expire-effort", "1"},
    {"activedefrag", "no"},
    {"activerehashing", "yes"},
    {"always-show-logo", "no"},
    {"aof-disable-auto-gc", "no"},
    {"aof-load-truncated", "yes"},
    {"aof-rewrite-incremental-fsync", "yes"},
    {"aof-timestamp-enabled", "no"},
    {"aof-use-rdb-preamble", "yes"},
    {"aof_rewrite_cpulist", ""},
    {"appenddirname", "appendonlydir"},
    {"appendfilename", "appendonly.aof"},
    {"appendfsync", "everysec"},
    {"appendonly", "no"},
    {"auto-aof-rewrite-min-size", "67108864"},
    {"auto-aof-rewrite-percentage", "100"},
    {"bgsave_cpulist", ""},
    {"bind", "127.0.0.1 -::1"},
    {"bind-source-addr", ""},
    {"bio_cpulist", ""},
    {"busy-reply-threshold", "5000"},
    {"client-output-buffer-limit",
     "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
    {"client-query-buffer-limit", "1073741824"},
    {"cluster-allow-pubsubshard-when-down", "yes"},
    {"cluster-allow-reads-when-down", "no"},
    {"cluster-allow-replica-migration", "yes"},
    {"cluster-announce-bus-port", "0"},
    {"cluster-announce-hostname", ""},
    {"cluster-announce-ip", ""},
    {"cluster-announce-port", "0"},
    {"cluster-announce-tls-port", "0"},
    {"cluster-config-file", "nodes.conf"},
    {"cluster-enabled", "no"},
    {"cluster-link-sendbuf-limit", "0"},
    {"cluster-migration-barrier", "1"},
    {"cluster-node-timeout", "15000"},
    {"cluster-port", "0"},
    {"cluster-preferred-endpoint-type", "ip"},
    {"cluster-replica-no-failover", "no"},
    {"cluster-replica-validity-factor", "10"},
    {"cluster-require-full-coverage", "yes"},
    {"cluster-slave-no-failover", "no"},
    {"cluster-slave-validity-factor", "10"},
    {"crash-log-enabled", "yes"},
    {"crash-memcheck-enabled", "yes"},
    {"daemonize", "no"},
    {"databases", "16"},
    {"dbfilename", "dump.rdb"},
    {"dir", ""},
    {"disable-thp", "yes"},
    {"dynamic-hz", "yes"},
    {"enable-debug-command", "no"},
    {"enable-module-command", "no"},
    {"enable-protected-configs", "no"},
    {"hash-max-listpack-entries", "512"},
    {"hash-max-listpack-value", "64"},
    {"hash-max-ziplist-entries", "512"},
    {"hash-max-ziplist-value", "64"},
    {"hll-sparse-max-bytes", "3000"},
    {"hz", "10"},
    {"ignore-warnings", ""},
    {"io-threads", "1"},
    {"io-threads-do-reads", "no"},
    {"jemalloc-bg-thread", "yes"},
    {"latency-monitor-threshold", "0"},
    {"latency-tracking", "yes"},
    {"latency-tracking-info-percentiles", "50 99 99.9"},
    {"lazyfree-lazy-eviction", "no"},
    {"lazyfree-lazy-expire", "no"},
    {"lazyfree-lazy-server-del", "no"},
    {"lazyfree-lazy-user-del", "no"},
    {"lazyfree-lazy-user-flush", "no"},
    {"lfu-decay-time", "1"},
    {"lfu-log-factor", "10"},
    {"list-compress-depth", "0"},
    {"list-max-listpack-size", "-2"},
    {"list-max-ziplist-size", "-2"},
    {"logfile", ""},
    {"loglevel", "notice"},
    {"lua-time-limit", "5000"},
    {"masterauth", ""},
    {"masteruser", ""},
    {"maxclients", "10000"},
    {"maxmemory", "0"},
    {"maxmemory-clients", "0"},
    {"maxmemory-eviction-tenacity", "10"},
    {"maxmemory-policy", "noeviction"},
    {"maxmemory-samples", "5"},
    {"min-replicas-max-lag", "10"},
    {"min-replicas-to-write", "0"},
    {"min-slaves-max-lag", "10"},
    {"min-slaves-to-write", "0"},
    {"no-appendfsync-on-rewrite", "no"},
    {"notify-keyspace-events", ""},
    {"oom-score-adj", "no"},
    {"oom-score-adj-values", "0 200 800"},
    {"pidfile", ""},
    {"port", "6379"},
    {"proc-title-template", "{title} {listen-addr} {server-mode}"},
    {"propagation-error-behavior", "ignore"},
    {"protected-mode", "yes"},
    {"proto-max-bulk-len", "536870912"},
    {"rdb-del-sync-files", "no"},
    {"rdb-save-incremental-fsync", "yes"},
    {"rdbchecksum", "yes"},
    {"rdbcompression", "yes"},
    {"repl-backlog-size", "1048576"},
    {"repl-backlog-ttl", "3600"},
    {"repl-disable-tcp-nodelay", "no"},
    {"repl-diskless-load", "disabled"},
    {"repl-diskless-sync", "yes"},
    {"repl-diskless-sync-delay", "5"},
    {"repl-diskless-sync-max-replicas", "0"},
    {"repl-ping-replica-period", "10"},
    {"repl-ping-slave-period", "10"},
    {"repl-timeout", "60"},
    {"replica-announce-ip", ""},
    {"replica-announce-port", "0"},
    {"replica-announced", "yes"},
    {"replica-ignore-disk-write-errors", "no"},
    {"replica-ignore-maxmemory", "yes"},
    {"replica-lazy-flush", "no"},
    {"replica-priority", "100"},
    {"replica-read-only", "yes"},
    {"replica-serve-stale-data", "yes"},
    {"replicaof", ""},
    {"requirepass", ""},
    {"sanitize-dump-payload", "no"},
    {"save", "3600 1 300 100 60 10000"},
    {"server_cpulist", ""},
    {"set-max-intset-entries", "512"},
    {"set-proc-title", "yes"},
    {"shutdown-on-sigint", "default"},
    {"shutdown-on-sigterm", "default"},
    {"shutdown-timeout", "10"},
    {"slave-announce-ip", ""},
    {"slave-announce-port", "0"},
    {"slave-ignore-maxmemory", "yes"},
    {"slave-lazy-flush", "no"},
    {"slave-priority", "100"},
    {"slave-read-only", "yes"},
    {"slave-serve-stale-data", "yes"},
    {"slaveof", ""},
    {"slowlog-log-slower-than", "10000"},
    {"slowlog-max-len", "128"},
    {"socket-mark-id", "0"},
    {"stop-writes-on-bgsave-error", "yes"},
    {"stream-node-max-bytes", "4096"},
    {"stream-node-max-entries", "100"},
    {"supervised", "no"},
    {"syslog-enabled", "no"},
    {"syslog-facility", "local0"},
    {"syslog-ident", "redis"},
    {"tcp-backlog", "511"},
    {"tcp-keepalive", "300"},
    {"timeout", "0"},
    {"tls-auth-clients", "yes"},
    {"tls-ca-cert-dir", ""},
    {"tls-ca-cert-file", ""},
    {"tls-cert-file", ""},
    {"tls-ciphers", ""},
    {"tls-ciphersuites", ""},
    {"tls-client-cert-file", ""},
    {"tls-client-key-file", ""},
    {"tls-client-key-file-pass", ""},
    {"tls-cluster", "no"},
    {"tls-dh-params-file", ""},
    {"tls-key-file", ""},
    {"tls-key-file-pass", ""},
    {"tls-port", "0"},
    {"tls-prefer-server-ciphers", "no"},
    {"tls-protocols", ""},
    {"tls-replication", "no"},
    {"tls-session-cache-size", "20480"},
    {"tls-session-cache-timeout", "300"},
    {"tls-session-caching", "yes"},
    {"tracking-table-max-keys", "1000000"},
    {"unixsocket", ""},
    {"unixsocketperm", "0"},
    {"zset-max-listpack-entries", "128"},
    {"zset-max-listpack-value", "64"},
    {"zset-max-ziplist-entries", "128"},
    {"zset-max-ziplist-value", "64"},
};

const ConfigParam& Param(std::string_view name) {
  const ConfigParam* param = Config::Find(name);
  EXPECT_NE(param, nullptr) << name;
  return *param;
}

// CONFIG SET's path: returns "" on success, else the error text.
std::string SetValue(Config& config, std::string_view name, std::string_view value) {
  std::string error;
  if (!config.SetFromCommand(Param(name), value, &error)) return error;
  return "";
}

// The config file's path: the words after the name.
std::string SetWords(Config& config, std::string_view name,
                     std::initializer_list<std::string_view> words) {
  std::string error;
  std::vector<std::string_view> list(words);
  if (!config.Set(Param(name), list, &error)) return error;
  return "";
}

std::string Get(const Config& config, std::string_view name) { return config.Get(Param(name)); }

// Sets `value` and returns what CONFIG GET would print, or "error: <text>".
std::string Canonical(std::string_view name, std::string_view value) {
  Config config;
  const std::string error = SetValue(config, name, value);
  return error.empty() ? Get(config, name) : "error: " + error;
}

TEST(ConfigTableTest, VisibleNamesAndDefaultsAreRedisOnes) {
  Config config;
  std::map<std::string, std::string> visible;
  for (const ConfigParam& param : ConfigTable()) {
    if (param.flags & (kConfigHidden | kConfigKeelOnly)) continue;
    visible[std::string(param.name)] = config.Get(param);
    if (!param.alias.empty()) visible[std::string(param.alias)] = config.Get(param);
  }
  EXPECT_EQ(visible.size(), 192u);
  EXPECT_EQ(visible, kRedisDefaults);
}

// Keel's own parameters: CONFIG GET * lists them besides Redis's, at defaults that keep the
// files Redis's.
TEST(ConfigTableTest, KeelOnlyParameters) {
  Config config;
  std::map<std::string, std::string> keel_only;
  for (const ConfigParam& param : ConfigTable()) {
    if ((param.flags & kConfigKeelOnly) == 0) continue;
    keel_only[std::string(param.name)] = config.Get(param);
    EXPECT_FALSE(kRedisDefaults.contains(std::string(param.name))) << param.name;
  }
  EXPECT_EQ(keel_only, (std::map<std::string, std::string>{{"rdb-compression-algorithm", "lzf"},
                                                           {"rdb-zstd-level", "1"}}));
  EXPECT_EQ(config.values().rdb_compression_algorithm, 0);
  EXPECT_EQ(config.values().rdb_zstd_level, 1);
}

TEST(ConfigKindTest, RdbCompressionAlgorithmAndZstdLevel) {
  EXPECT_EQ(Canonical("rdb-compression-algorithm", "ZSTD"), "zstd");
  EXPECT_EQ(Canonical("rdb-compression-algorithm", "lzf"), "lzf");
  EXPECT_EQ(Canonical("rdb-compression-algorithm", "gzip"),
            "error: argument(s) must be one of the following: lzf, zstd");
  EXPECT_EQ(Canonical("rdb-compression-algorithm", "lzf zstd"),
            "error: argument(s) must be one of the following: lzf, zstd");
  EXPECT_EQ(Canonical("rdb-zstd-level", "19"), "19");
  EXPECT_EQ(Canonical("rdb-zstd-level", "0"), "error: argument must be between 1 and 19 inclusive");
  EXPECT_EQ(Canonical("rdb-zstd-level", "20"),
            "error: argument must be between 1 and 19 inclusive");
  EXPECT_EQ(Canonical("rdb-zstd-level", "3x"),
            "error: argument couldn't be parsed into an integer");
  Config config;
  EXPECT_EQ(SetValue(config, "rdb-compression-algorithm", "zstd"), "");
  EXPECT_EQ(SetValue(config, "rdb-zstd-level", "7"), "");
  EXPECT_EQ(config.values().rdb_compression_algorithm, 1);
  EXPECT_EQ(config.values().rdb_zstd_level, 7);
}

TEST(ConfigTableTest, HiddenParametersAndNamesAreUnique) {
  std::set<std::string_view> hidden;
  std::set<std::string_view> names;
  size_t entries = 0;
  for (const ConfigParam& param : ConfigTable()) {
    if (param.flags & kConfigHidden) hidden.insert(param.name);
    names.insert(param.name);
    entries++;
    if (!param.alias.empty()) {
      names.insert(param.alias);
      entries++;
    }
  }
  EXPECT_EQ(names.size(), entries);
  EXPECT_EQ(hidden,
            (std::set<std::string_view>{"use-exit-on-panic", "rdb-key-save-delay", "key-load-delay",
                                        "watchdog-period", "loading-process-events-interval-bytes",
                                        "lua-enable-deprecated-api", "io-backend"}));
}

TEST(ConfigTableTest, FlagsMatchRedis) {
  // The immutable and protected parameters redis-server refuses in CONFIG SET.
  std::set<std::string_view> immutable;
  std::set<std::string_view> protected_names;
  for (const ConfigParam& param : ConfigTable()) {
    if (param.flags & kConfigImmutable) immutable.insert(param.name);
    if (param.flags & kConfigProtected) protected_names.insert(param.name);
  }
  EXPECT_EQ(immutable, (std::set<std::string_view>{"aclfile",
                                                   "always-show-logo",
                                                   "aof_rewrite_cpulist",
                                                   "appenddirname",
                                                   "appendfilename",
                                                   "bgsave_cpulist",
                                                   "bio_cpulist",
                                                   "cluster-config-file",
                                                   "cluster-enabled",
                                                   "cluster-port",
                                                   "daemonize",
                                                   "databases",
                                                   "disable-thp",
                                                   "enable-debug-command",
                                                   "enable-module-command",
                                                   "enable-protected-configs",
                                                   "io-backend",
                                                   "io-threads",
                                                   "io-threads-do-reads",
                                                   "logfile",
                                                   "lua-enable-deprecated-api",
                                                   "pidfile",
                                                   "rdbchecksum",
                                                   "replicaof",
                                                   "server_cpulist",
                                                   "set-proc-title",
                                                   "socket-mark-id",
                                                   "supervised",
                                                   "syslog-enabled",
                                                   "syslog-facility",
                                                   "syslog-ident",
                                                   "tcp-backlog",
                                                   "unixsocket",
                                                   "unixsocketperm"}));
  EXPECT_EQ(protected_names, (std::set<std::string_view>{"dbfilename", "dir"}));
}

TEST(ConfigTableTest, DefaultsSetThemselves) {
  for (const ConfigParam& param : ConfigTable()) {
    // dir and replicaof start unset; "" is no value they accept.
    if (param.kind == ConfigKind::kSpecial && param.default_value.empty() &&
        param.name != "notify-keyspace-events") {
      continue;
    }
    Config config;
    std::string error;
    ASSERT_TRUE(config.SetFromCommand(param, param.default_value, &error))
        << param.name << ": " << error;
    EXPECT_EQ(config.Get(param), param.default_value) << param.name;
  }
}

TEST(ConfigTableTest, FindTakesNamesAndAliasesInAnyCase) {
  std::string_view entry;
  EXPECT_EQ(Config::Find("SLAVEOF", &entry), Config::Find("replicaof"));
  EXPECT_EQ(entry, "slaveof");
  EXPECT_EQ(Config::Find("Hash-Max-Listpack-Entries", &entry),
            Config::Find("hash-max-ziplist-entries"));
  EXPECT_EQ(entry, "hash-max-listpack-entries");
  EXPECT_NE(Config::Find("key-load-delay"), nullptr);
  EXPECT_EQ(Config::Find("list-max-ziplist-entries"), nullptr);  // retired, not a parameter
  EXPECT_EQ(Config::Find("nonexist"), nullptr);
}

TEST(ConfigKindTest, Bool) {
  EXPECT_EQ(Canonical("protected-mode", "YES"), "yes");
  EXPECT_EQ(Canonical("protected-mode", "No"), "no");
  EXPECT_EQ(Canonical("protected-mode", "1"), "error: argument must be 'yes' or 'no'");
  EXPECT_EQ(Canonical("protected-mode", ""), "error: argument must be 'yes' or 'no'");
  EXPECT_EQ(Canonical("appendonly", "yes no"), "error: argument must be 'yes' or 'no'");
  Config config;
  EXPECT_EQ(SetValue(config, "protected-mode", "no"), "");
  EXPECT_FALSE(config.values().protected_mode);
  // Debian's server has no defragmenter and refuses to enable it; so does Keel.
  EXPECT_EQ(Canonical("activedefrag", "yes"),
            "error: Active defragmentation cannot be enabled: it requires a Redis server compiled "
            "with a modified Jemalloc like the one shipped by default with the Redis source "
            "distribution");
  EXPECT_EQ(Canonical("activedefrag", "no"), "no");
}

TEST(ConfigKindTest, IntegerIsStrictDecimalWithinBounds) {
  const std::string kNotInteger = "error: argument couldn't be parsed into an integer";
  for (std::string_view bad :
       {"abc", "1k", "+5", " 5", "05", "-0", "", "1 2", "9223372036854775808"}) {
    EXPECT_EQ(Canonical("hz", bad), kNotInteger) << bad;
  }
  EXPECT_EQ(Canonical("hz", "-1"), "error: argument must be between 0 and 2147483647 inclusive");
  EXPECT_EQ(Canonical("timeout", "2147483648"),
            "error: argument must be between 0 and 2147483647 inclusive");
  EXPECT_EQ(Canonical("maxclients", "0"),
            "error: argument must be between 1 and 4294967295 inclusive");
  EXPECT_EQ(Canonical("maxclients", "4294967296"),
            "error: argument must be between 1 and 4294967295 inclusive");
  EXPECT_EQ(Canonical("slowlog-log-slower-than", "-2"),
            "error: argument must be between -1 and 9223372036854775807 inclusive");
  EXPECT_EQ(Canonical("list-max-listpack-size", "-2147483649"),
            "error: argument must be between -2147483648 and 2147483647 inclusive");
  EXPECT_EQ(Canonical("key-load-delay", "-5"), "-5");
  EXPECT_EQ(Canonical("loading-process-events-interval-bytes", "100"),
            "error: argument must be between 1024 and 2147483647 inclusive");
  Config config;
  EXPECT_EQ(SetValue(config, "port", "7000"), "");
  EXPECT_EQ(config.values().port, 7000);
  EXPECT_EQ(SetValue(config, "timeout", "30"), "");
  EXPECT_EQ(config.values().timeout_seconds, 30);
}

TEST(ConfigKindTest, HzIsClampedAsRedisClampsIt) {
  Config config;
  EXPECT_EQ(SetValue(config, "hz", "1000"), "");
  EXPECT_EQ(Get(config, "hz"), "500");
  EXPECT_EQ(config.values().hz, 500);
  EXPECT_EQ(SetValue(config, "hz", "0"), "");
  EXPECT_EQ(Get(config, "hz"), "1");
}

TEST(ConfigKindTest, MemoryUnits) {
  EXPECT_EQ(Canonical("maxmemory", "1k"), "1000");
  EXPECT_EQ(Canonical("maxmemory", "1KB"), "1024");
  EXPECT_EQ(Canonical("maxmemory", "1Kb"), "1024");
  EXPECT_EQ(Canonical("maxmemory", "1mB"), "1048576");
  EXPECT_EQ(Canonical("maxmemory", "1gb"), "1073741824");
  EXPECT_EQ(Canonical("maxmemory", "1G"), "1000000000");
  EXPECT_EQ(Canonical("maxmemory", "1b"), "1");
  EXPECT_EQ(Canonical("maxmemory", "01k"), "1000");
  // memtoull reads no digits as 0.
  EXPECT_EQ(Canonical("maxmemory", ""), "0");
  EXPECT_EQ(Canonical("maxmemory", "k"), "0");
  for (std::string_view bad : {"-1", "+1", " 1", "1.5", "1tb", "0x10", "1bk", "1 2", "abc"}) {
    EXPECT_EQ(Canonical("maxmemory", bad), "error: argument must be a memory value") << bad;
  }
}

TEST(ConfigKindTest, MemorySaturatesAndWrapsLikeRedis) {
  EXPECT_EQ(Canonical("maxmemory", "18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(Canonical("maxmemory", "18446744073709551616"), "18446744073709551615");
  EXPECT_EQ(Canonical("maxmemory", "99999999999999999999999"), "18446744073709551615");
  EXPECT_EQ(Canonical("maxmemory", "17179869184gb"), "0");
  EXPECT_EQ(Canonical("maxmemory", "17179869185gb"), "1073741824");
  EXPECT_EQ(Canonical("cluster-link-sendbuf-limit", "18446744073709551615"),
            "18446744073709551615");
  Config config;
  EXPECT_EQ(SetValue(config, "maxmemory", "9223372036854775808"), "");
  EXPECT_EQ(Get(config, "maxmemory"), "9223372036854775808");
  EXPECT_EQ(config.values().maxmemory, INT64_MAX);  // the engine's field saturates
  EXPECT_EQ(SetValue(config, "maxmemory", "100mb"), "");
  EXPECT_EQ(config.values().maxmemory, 100 << 20);
}

TEST(ConfigKindTest, MemoryBoundsOfSignedParameters) {
  // A wrapped value above INT64_MAX is negative for them, so it fails the bounds.
  EXPECT_EQ(Canonical("proto-max-bulk-len", "18446744073709551615"),
            "error: argument must be between 1048576 and 9223372036854775807 inclusive");
  EXPECT_EQ(Canonical("proto-max-bulk-len", "1"),
            "error: argument must be between 1048576 and 9223372036854775807 inclusive");
  EXPECT_EQ(Canonical("proto-max-bulk-len", "9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(Canonical("hash-max-listpack-value", "18446744073709551615"),
            "error: argument must be between 0 and 9223372036854775807 inclusive");
  EXPECT_EQ(Canonical("hash-max-listpack-value", "-1"), "error: argument must be a memory value");
  EXPECT_EQ(Canonical("hash-max-listpack-value", "1k"), "1000");
  EXPECT_EQ(Canonical("active-defrag-ignore-bytes", "0"),
            "error: argument must be between 1 and 9223372036854775807 inclusive");
  Config config;
  EXPECT_EQ(SetValue(config, "client-query-buffer-limit", "2mb"), "");
  EXPECT_EQ(config.values().client_query_buffer_limit, 2 << 20);
}

TEST(ConfigKindTest, MemoryOrPercent) {
  EXPECT_EQ(Canonical("maxmemory-clients", "5%"), "5%");
  EXPECT_EQ(Canonical("maxmemory-clients", "100%"), "100%");
  EXPECT_EQ(Canonical("maxmemory-clients", "0%"), "0");
  EXPECT_EQ(Canonical("maxmemory-clients", "1mb"), "1048576");
  EXPECT_EQ(Canonical("maxmemory-clients", "9223372036854775807"), "9223372036854775807");
  // Redis keeps percentages negative, so a wrapped huge value reads back as one.
  EXPECT_EQ(Canonical("maxmemory-clients", "18446744073709551615"), "1%");
  EXPECT_EQ(Canonical("maxmemory-clients", "18446744073709551516"), "100%");
  const std::string kTooMuch = "error: percentage argument must be less or equal to 100";
  EXPECT_EQ(Canonical("maxmemory-clients", "101%"), kTooMuch);
  EXPECT_EQ(Canonical("maxmemory-clients", "18446744073709551515"), kTooMuch);
  for (std::string_view bad : {"-5%", "%", "5.5%", "abc", "+5%"}) {
    EXPECT_EQ(Canonical("maxmemory-clients", bad),
              "error: argument must be a memory or percent value")
        << bad;
  }
}

TEST(ConfigKindTest, OctalUnixsocketperm) {
  // Immutable, so these come from config files in Redis; the texts are the same.
  EXPECT_EQ(Canonical("unixsocketperm", "777"), "777");
  EXPECT_EQ(Canonical("unixsocketperm", "0777"), "777");
  EXPECT_EQ(Canonical("unixsocketperm", ""), "0");
  EXPECT_EQ(Canonical("unixsocketperm", " 7"), "7");
  EXPECT_EQ(Canonical("unixsocketperm", "+7"), "7");
  EXPECT_EQ(Canonical("unixsocketperm", "1000"),
            "error: argument must be between 0 and 777 inclusive");
  EXPECT_EQ(Canonical("unixsocketperm", "-1"),
            "error: argument must be between 0 and 777 inclusive");
  EXPECT_EQ(Canonical("unixsocketperm", "999"),
            "error: argument couldn't be parsed as an octal number");
  EXPECT_EQ(Canonical("unixsocketperm", "0x7"),
            "error: argument couldn't be parsed as an octal number");
}

TEST(ConfigKindTest, Enum) {
  EXPECT_EQ(Canonical("loglevel", "WARNING"), "warning");
  EXPECT_EQ(Canonical("maxmemory-policy", "ALLKEYS-LRU"), "allkeys-lru");
  EXPECT_EQ(Canonical("oom-score-adj", "yes"), "yes");
  EXPECT_EQ(Canonical("loglevel", "x"),
            "error: argument(s) must be one of the following: debug, verbose, notice, warning");
  EXPECT_EQ(Canonical("loglevel", "notice warning"),
            "error: argument(s) must be one of the following: debug, verbose, notice, warning");
  EXPECT_EQ(Canonical("appendfsync", "x"),
            "error: argument(s) must be one of the following: everysec, always, no");
  EXPECT_EQ(Canonical("maxmemory-policy", "x"),
            "error: argument(s) must be one of the following: volatile-lru, volatile-lfu, "
            "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
            "noeviction");
  EXPECT_EQ(Canonical("syslog-facility", "x"),
            "error: argument(s) must be one of the following: user, local0, local1, local2, "
            "local3, local4, local5, local6, local7");
  EXPECT_EQ(Canonical("supervised", "x"),
            "error: argument(s) must be one of the following: upstart, systemd, auto, no");
  EXPECT_EQ(Canonical("enable-protected-configs", "x"),
            "error: argument(s) must be one of the following: no, yes, local");
  EXPECT_EQ(Canonical("propagation-error-behavior", "x"),
            "error: argument(s) must be one of the following: ignore, panic, panic-on-replicas");
  Config config;
  EXPECT_EQ(SetValue(config, "loglevel", "debug"), "");
  EXPECT_EQ(config.values().loglevel, 0);
}

TEST(ConfigKindTest, FlagEnumShutdownOnSignal) {
  EXPECT_EQ(Canonical("shutdown-on-sigint", "nosave now"), "nosave now");
  EXPECT_EQ(Canonical("shutdown-on-sigint", "now save"), "save now");
  EXPECT_EQ(Canonical("shutdown-on-sigint", "force now save"), "save now force");
  EXPECT_EQ(Canonical("shutdown-on-sigint", "force force"), "force");
  EXPECT_EQ(Canonical("shutdown-on-sigint", "NOSAVE"), "nosave");
  EXPECT_EQ(Canonical("shutdown-on-sigint", "default now"), "now");
  EXPECT_EQ(Canonical("shutdown-on-sigterm", "default default"), "default");
  const std::string kChoices =
      "error: argument(s) must be one of the following: default, save, nosave, now, force";
  EXPECT_EQ(Canonical("shutdown-on-sigint", "now "), kChoices);
  EXPECT_EQ(Canonical("shutdown-on-sigint", "now x"), kChoices);
  EXPECT_EQ(Canonical("shutdown-on-sigint", ""), kChoices);
  EXPECT_EQ(Canonical("shutdown-on-sigterm", "save nosave"),
            "error: shutdown options SAVE and NOSAVE can't be used simultaneously");
}

TEST(ConfigKindTest, StringValidators) {
  EXPECT_EQ(Canonical("requirepass", "a b"), "a b");
  EXPECT_EQ(Canonical("dbfilename", ""), "");
  EXPECT_EQ(Canonical("dbfilename", "a/b"), "error: dbfilename can't be a path, just a filename");
  EXPECT_EQ(Canonical("dbfilename", "a\\b"), "error: dbfilename can't be a path, just a filename");
  EXPECT_EQ(Canonical("appendfilename", ""), "error: appendfilename can't be empty");
  EXPECT_EQ(Canonical("appendfilename", "a/b"),
            "error: appendfilename can't be a path, just a filename");
  EXPECT_EQ(Canonical("appenddirname", ""), "error: appenddirname can't be empty");
  EXPECT_EQ(Canonical("appenddirname", "a/b"),
            "error: appenddirname can't be a path, just a dirname");
  EXPECT_EQ(Canonical("cluster-announce-hostname", "a.b-c"), "a.b-c");
  EXPECT_EQ(Canonical("cluster-announce-hostname", "a_b"),
            "error: Hostnames may only contain alphanumeric characters, hyphens or dots");
  EXPECT_EQ(Canonical("cluster-announce-hostname", std::string(255, 'a')), std::string(255, 'a'));
  EXPECT_EQ(Canonical("cluster-announce-hostname", std::string(256, 'a')),
            "error: Hostnames must be less than 256 characters");
  Config config;
  EXPECT_EQ(SetValue(config, "requirepass", "secret"), "");
  EXPECT_EQ(config.values().requirepass, "secret");
}

TEST(ConfigKindTest, ProcTitleTemplate) {
  for (std::string_view good : {"{listen-addr}", "x}", "{{", "a{{b", "{port}", "{tls-port}",
                                "{config-file}", "{title} x", "}}", "plain"}) {
    EXPECT_EQ(Canonical("proc-title-template", good), good);
  }
  for (std::string_view bad :
       {"{bad}", "", "{title}", "{", "{title", "{unixsocket}", "   ", "{server-mode}", "{}"}) {
    EXPECT_EQ(Canonical("proc-title-template", bad),
              "error: template format is invalid or contains unknown variables")
        << bad;
  }
}

TEST(ConfigSpecialTest, Save) {
  EXPECT_EQ(Canonical("save", "100 5"), "100 5");
  EXPECT_EQ(Canonical("save", "1 0"), "1 0");
  EXPECT_EQ(Canonical("save", "+5 +3"), "5 3");
  EXPECT_EQ(Canonical("save", "05 007"), "5 7");
  EXPECT_EQ(Canonical("save", "100 "), "100 0");  // the empty word reads as 0 changes
  EXPECT_EQ(Canonical("save", ""), "");
  EXPECT_EQ(Canonical("save", "1 2 3 4 5 6 7 8"), "1 2 3 4 5 6 7 8");
  EXPECT_EQ(Canonical("save", "100 5 100 6"), "100 5 100 6");
  // Changes are kept in a C int; seconds saturate like strtoll.
  EXPECT_EQ(Canonical("save", "9223372036854775807 4294967297"), "9223372036854775807 1");
  EXPECT_EQ(Canonical("save", "99999999999999999999 1"), "9223372036854775807 1");
  EXPECT_EQ(Canonical("save", "1 99999999999999999999"), "1 -1");
  EXPECT_EQ(Canonical("save", "1 2147483648"), "1 -2147483648");
  for (std::string_view bad : {"100 5 200", "0 5", "1 -1", "-1 1", "100  5", " 100 5", "100\t5",
                               "1 1x", "1x 1", "a b", "\"\"", "3", " "}) {
    EXPECT_EQ(Canonical("save", bad), "error: Invalid save parameters") << bad;
  }
}

TEST(ConfigSpecialTest, Bind) {
  Config config;
  EXPECT_EQ(SetValue(config, "bind", "1.2.3.4 -::1"), "");
  EXPECT_EQ(Get(config, "bind"), "1.2.3.4 -::1");
  EXPECT_EQ(config.values().bind, (std::vector<std::string>{"1.2.3.4", "-::1"}));
  EXPECT_EQ(SetValue(config, "bind", ""), "");
  EXPECT_EQ(Get(config, "bind"), "");
  EXPECT_TRUE(config.values().bind.empty());
  EXPECT_EQ(SetValue(config, "bind", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17"),
            "Too many bind addresses specified.");
  EXPECT_TRUE(config.values().bind.empty());
  // Two spaces give an empty address, which only the listeners refuse.
  EXPECT_EQ(SetValue(config, "bind", "127.0.0.1  ::1"), "");
  EXPECT_EQ(config.values().bind.size(), 3u);
}

TEST(ConfigSpecialTest, ClientOutputBufferLimit) {
  const std::string kDefault =
      "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1mb 2k 3"),
            "normal 1048576 2000 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "NORMAL 1 2 3 Slave 4 5 6"),
            "normal 1 2 3 slave 4 5 6 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "replica 1 2 3"),
            "normal 0 0 0 slave 1 2 3 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1 2 +5"),
            "normal 1 2 5 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1 2 4294967297"),
            "normal 1 2 1 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1 2 "),
            "normal 1 2 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 18446744073709551615 2 5"),
            "normal 18446744073709551615 2 5 slave 268435456 67108864 60 pubsub 33554432 8388608 "
            "60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1 2 3 normal 4 5 6"),
            "normal 4 5 6 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(Canonical("client-output-buffer-limit", ""), kDefault);
  const std::string kClass = "error: Invalid client class specified in buffer limit configuration.";
  EXPECT_EQ(Canonical("client-output-buffer-limit", "master 1 2 3"), kClass);
  EXPECT_EQ(Canonical("client-output-buffer-limit", "foo 1 2 3"), kClass);
  const std::string kCount = "error: Wrong number of arguments in buffer limit configuration.";
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1 2"), kCount);
  EXPECT_EQ(Canonical("client-output-buffer-limit", "normal 1 2 3 foo 1 2"), kCount);
  const std::string kValues =
      "error: Error in hard, soft or soft_seconds setting in buffer limit configuration.";
  for (std::string_view bad : {"normal a 2 3", "normal 1 2 -1", "normal 1 2 5x",
                               "normal 1 2 99999999999999999999", "normal 1 2 2147483648"}) {
    EXPECT_EQ(Canonical("client-output-buffer-limit", bad), kValues) << bad;
  }
  Config config;
  EXPECT_EQ(SetValue(config, "client-output-buffer-limit", "normal 1mb 2k 3 pubsub 1 2 3"), "");
  const OutputBufferLimit& normal = config.values().output_buffer_limits[0];
  EXPECT_EQ(normal.hard_bytes, 1 << 20);
  EXPECT_EQ(normal.soft_bytes, 2000);
  EXPECT_EQ(normal.soft_seconds, 3);
  EXPECT_EQ(config.values().output_buffer_limits[1].hard_bytes, 256 << 20);  // untouched
  EXPECT_EQ(config.values().output_buffer_limits[2].soft_seconds, 3);
}

TEST(ConfigSpecialTest, OomScoreAdjValues) {
  EXPECT_EQ(Canonical("oom-score-adj-values", "1 2 3"), "1 2 3");
  EXPECT_EQ(Canonical("oom-score-adj-values", "+1 02 -2000"), "1 2 -2000");
  EXPECT_EQ(Canonical("oom-score-adj-values", "1 2 "), "1 2 0");
  for (std::string_view bad : {"1 2", "", "1 2 3 4"}) {
    EXPECT_EQ(Canonical("oom-score-adj-values", bad), "error: wrong number of arguments") << bad;
  }
  for (std::string_view bad : {"1 2 3000", "1 2 x"}) {
    EXPECT_EQ(Canonical("oom-score-adj-values", bad),
              "error: Invalid oom-score-adj-values, elements must be between -2000 and 2000.")
        << bad;
  }
}

TEST(ConfigSpecialTest, NotifyKeyspaceEventsCanonicalForm) {
  EXPECT_EQ(Canonical("notify-keyspace-events", "KEA"), "AKE");
  EXPECT_EQ(Canonical("notify-keyspace-events", "g$lshzxetd"), "A");
  EXPECT_EQ(Canonical("notify-keyspace-events", "AKEmn"), "AKEm");  // A hides n
  EXPECT_EQ(Canonical("notify-keyspace-events", "nmEKdtexzhsl$g"), "AKEm");
  EXPECT_EQ(Canonical("notify-keyspace-events", "nmEKdtexzhsl$"), "$lshzxetdnKEm");
  EXPECT_EQ(Canonical("notify-keyspace-events", "ndg"), "gdn");
  EXPECT_EQ(Canonical("notify-keyspace-events", "Ex"), "xE");
  EXPECT_EQ(Canonical("notify-keyspace-events", "ggg"), "g");
  EXPECT_EQ(Canonical("notify-keyspace-events", "n"), "n");
  EXPECT_EQ(Canonical("notify-keyspace-events", "KA"), "AK");
  EXPECT_EQ(Canonical("notify-keyspace-events", "Amn"), "Am");
  EXPECT_EQ(Canonical("notify-keyspace-events", ""), "");
  for (std::string_view bad : {"K E", "q", "a"}) {
    EXPECT_EQ(Canonical("notify-keyspace-events", bad),
              "error: Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
        << bad;
  }
}

TEST(ConfigSpecialTest, LatencyTrackingInfoPercentiles) {
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles",
                      "0 100 1.5 33.333333 1e1 0.0000001 12.3456789"),
            "0 100 1.5 33.333333 10 0 12.345679");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", "99.99999 0.5 1.0 +5 5. .5"),
            "99.99999 0.5 1 5 5 0.5");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", "50.0000005"), "50");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", "99.9999999"), "100");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", "0x10"), "16");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", "1e-300 100.0"), "0 100");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", "-0"), "-0");
  EXPECT_EQ(Canonical("latency-tracking-info-percentiles", ""), "");
  const std::string kInvalid = "error: Invalid latency-tracking-info-percentiles parameters";
  for (std::string_view bad : {"abc", "50 abc", "50 ", " 50", "nan", "1e-400", "1e400"}) {
    EXPECT_EQ(Canonical("latency-tracking-info-percentiles", bad), kInvalid) << bad;
  }
  const std::string kRange =
      "error: latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
  for (std::string_view bad : {"101", "-1", "inf"}) {
    EXPECT_EQ(Canonical("latency-tracking-info-percentiles", bad), kRange) << bad;
  }
}

TEST(ConfigSpecialTest, Replicaof) {
  Config config;
  EXPECT_EQ(SetWords(config, "replicaof", {"127.0.0.1", "1"}), "");
  EXPECT_EQ(Get(config, "slaveof"), "127.0.0.1 1");
  EXPECT_EQ(SetWords(config, "replicaof", {"NO", "ONE"}), "");
  EXPECT_EQ(Get(config, "replicaof"), "");
  EXPECT_EQ(SetWords(config, "replicaof", {"127.0.0.1", "+5"}), "");
  EXPECT_EQ(Get(config, "replicaof"), "127.0.0.1 5");
  EXPECT_EQ(SetWords(config, "replicaof", {"127.0.0.1", ""}), "");
  EXPECT_EQ(Get(config, "replicaof"), "127.0.0.1 0");
  EXPECT_EQ(SetWords(config, "slaveof", {"127.0.0.1", "abc"}), "Invalid master port");
  EXPECT_EQ(SetWords(config, "replicaof", {"127.0.0.1", "65536"}), "Invalid master port");
  EXPECT_EQ(SetWords(config, "replicaof", {"127.0.0.1"}), "wrong number of arguments");
}

TEST(ConfigSpecialTest, DirResolvesRelativePathsAsChdirWould) {
  Config config;
  EXPECT_EQ(Get(config, "dir"), "");
  EXPECT_EQ(SetValue(config, "dir", "/tmp/r7402"), "");
  EXPECT_EQ(SetValue(config, "dir", ".."), "");
  EXPECT_EQ(Get(config, "dir"), "/tmp");
  EXPECT_EQ(SetValue(config, "dir", "r7402/."), "");
  EXPECT_EQ(Get(config, "dir"), "/tmp/r7402");
  EXPECT_EQ(SetValue(config, "dir", "/tmp//rw/"), "");
  EXPECT_EQ(Get(config, "dir"), "/tmp/rw");
  EXPECT_EQ(config.values().dir, "/tmp/rw");
  EXPECT_EQ(SetValue(config, "dir", ""), "No such file or directory");
  EXPECT_EQ(Get(config, "dir"), "/tmp/rw");
  // Before any dir is set a relative one stays relative to the starting directory.
  Config fresh;
  EXPECT_EQ(SetValue(fresh, "dir", "./data/../db"), "");
  EXPECT_EQ(Get(fresh, "dir"), "db");
}

TEST(ConfigTest, FailedSetChangesNothing) {
  Config config;
  EXPECT_EQ(SetValue(config, "latency-tracking-info-percentiles", "50 99"), "");
  EXPECT_EQ(SetValue(config, "latency-tracking-info-percentiles", "50 abc"),
            "Invalid latency-tracking-info-percentiles parameters");
  EXPECT_EQ(Get(config, "latency-tracking-info-percentiles"), "50 99");
  EXPECT_EQ(SetValue(config, "client-output-buffer-limit", "normal 1 2 3 foo 1 2 3"),
            "Invalid client class specified in buffer limit configuration.");
  EXPECT_EQ(config.values().output_buffer_limits[0].hard_bytes, 0);
}

TEST(ConfigTest, SaveLinesAccumulateOnlyWhileReadingAFile) {
  Config config;
  config.set_reading_file(true);
  EXPECT_EQ(SetWords(config, "save", {"100", "5"}), "");  // the first line replaces the default
  EXPECT_EQ(SetWords(config, "save", {"200", "6"}), "");
  EXPECT_EQ(Get(config, "save"), "100 5 200 6");
  EXPECT_EQ(SetWords(config, "save", {}), "");  // a bare "save" adds nothing
  EXPECT_EQ(Get(config, "save"), "100 5 200 6");
  EXPECT_EQ(SetWords(config, "save", {""}), "");  // save "" clears even here
  EXPECT_EQ(SetWords(config, "save", {"300", "7"}), "");
  EXPECT_EQ(Get(config, "save"), "300 7");
  config.set_reading_file(false);
  EXPECT_EQ(SetWords(config, "save", {"1", "2"}), "");
  EXPECT_EQ(Get(config, "save"), "1 2");
}

std::vector<std::string> Lines(const Config& config, std::string_view name) {
  std::vector<std::string> texts;
  for (const ConfigRewriteLine& line : config.RewriteLines(Param(name))) {
    texts.push_back(line.text + (line.force ? " [force]" : ""));
  }
  return texts;
}

using Texts = std::vector<std::string>;

TEST(ConfigRewriteLinesTest, PlainKinds) {
  Config config;
  EXPECT_EQ(Lines(config, "maxmemory"), Texts{"maxmemory 0"});
  EXPECT_EQ(Lines(config, "hz"), Texts{"hz 10"});
  EXPECT_EQ(Lines(config, "dbfilename"), Texts{"dbfilename \"dump.rdb\""});
  EXPECT_EQ(Lines(config, "requirepass"), Texts{});  // unset: the lines go
  EXPECT_EQ(Lines(config, "logfile"), Texts{"logfile \"\""});
  ASSERT_EQ(SetValue(config, "maxmemory", "3mb"), "");
  ASSERT_EQ(SetValue(config, "proto-max-bulk-len", "1000000000"), "");
  ASSERT_EQ(SetValue(config, "maxmemory-clients", "5%"), "");
  ASSERT_EQ(SetValue(config, "requirepass", "a\"b c"), "");
  ASSERT_EQ(SetValue(config, "shutdown-on-sigint", "now save"), "");
  ASSERT_EQ(SetValue(config, "hz", "1000"), "");
  ASSERT_EQ(SetValue(config, "hash-max-listpack-value", "1025"), "");
  EXPECT_EQ(Lines(config, "maxmemory"), Texts{"maxmemory 3mb [force]"});
  EXPECT_EQ(Lines(config, "proto-max-bulk-len"), Texts{"proto-max-bulk-len 1000000000 [force]"});
  EXPECT_EQ(Lines(config, "maxmemory-clients"), Texts{"maxmemory-clients 5% [force]"});
  EXPECT_EQ(Lines(config, "requirepass"), Texts{"requirepass \"a\\\"b c\" [force]"});
  EXPECT_EQ(Lines(config, "shutdown-on-sigint"), Texts{"shutdown-on-sigint save now [force]"});
  EXPECT_EQ(Lines(config, "hz"), Texts{"hz 500 [force]"});
  EXPECT_EQ(Lines(config, "hash-max-listpack-value"),
            Texts{"hash-max-listpack-value 1025 [force]"});
  Config perm;
  ASSERT_EQ(SetValue(perm, "unixsocketperm", "0700"), "");
  EXPECT_EQ(Lines(perm, "unixsocketperm"), Texts{"unixsocketperm 700 [force]"});
}

TEST(ConfigRewriteLinesTest, SpecialParameters) {
  Config config;
  EXPECT_EQ(Lines(config, "save"),
            (Texts{"save 3600 1 [force]", "save 300 100 [force]", "save 60 10000 [force]"}));
  EXPECT_EQ(Lines(config, "bind"), Texts{});
  EXPECT_EQ(Lines(config, "dir"), Texts{});
  EXPECT_EQ(Lines(config, "replicaof"), Texts{});
  EXPECT_EQ(Lines(config, "notify-keyspace-events"), Texts{"notify-keyspace-events \"\""});
  EXPECT_EQ(Lines(config, "latency-tracking-info-percentiles"),
            Texts{"latency-tracking-info-percentiles 50 99 99.9 [force]"});
  EXPECT_EQ(Lines(config, "oom-score-adj-values"), Texts{"oom-score-adj-values 0 200 800"});
  EXPECT_EQ(Lines(config, "client-output-buffer-limit"),
            (Texts{"client-output-buffer-limit normal 0 0 0",
                   "client-output-buffer-limit replica 256mb 64mb 60",
                   "client-output-buffer-limit pubsub 32mb 8mb 60"}));
  ASSERT_EQ(SetValue(config, "save", ""), "");
  ASSERT_EQ(SetValue(config, "bind", "127.0.0.1"), "");
  ASSERT_EQ(SetValue(config, "dir", "/var/lib/keel"), "");
  ASSERT_EQ(SetValue(config, "notify-keyspace-events", "KEA"), "");
  ASSERT_EQ(SetValue(config, "latency-tracking-info-percentiles", ""), "");
  ASSERT_EQ(SetValue(config, "oom-score-adj-values", "1 2 3"), "");
  ASSERT_EQ(SetValue(config, "client-output-buffer-limit", "normal 1k 2mb 3 pubsub 1 2 3"), "");
  ASSERT_EQ(SetWords(config, "replicaof", {"10.0.0.1", "6380"}), "");
  EXPECT_EQ(Lines(config, "save"), Texts{"save \"\" [force]"});
  EXPECT_EQ(Lines(config, "bind"), Texts{"bind 127.0.0.1 [force]"});
  EXPECT_EQ(Lines(config, "dir"), Texts{"dir \"/var/lib/keel\" [force]"});
  EXPECT_EQ(Lines(config, "replicaof"), Texts{"replicaof 10.0.0.1 6380 [force]"});
  EXPECT_EQ(Lines(config, "notify-keyspace-events"),
            Texts{"notify-keyspace-events \"AKE\" [force]"});
  EXPECT_EQ(Lines(config, "latency-tracking-info-percentiles"),
            Texts{"latency-tracking-info-percentiles \"\" [force]"});
  EXPECT_EQ(Lines(config, "oom-score-adj-values"), Texts{"oom-score-adj-values 1 2 3 [force]"});
  EXPECT_EQ(Lines(config, "client-output-buffer-limit"),
            (Texts{"client-output-buffer-limit normal 1000 2mb 3 [force]",
                   "client-output-buffer-limit replica 256mb 64mb 60",
                   "client-output-buffer-limit pubsub 1 2 3 [force]"}));
  ASSERT_EQ(SetValue(config, "bind", ""), "");
  EXPECT_EQ(Lines(config, "bind"), Texts{"bind \"\" [force]"});
}

TEST(ConfigHelpersTest, ParseStrtoll) {
  int64_t value = 0;
  bool overflow = false;
  EXPECT_TRUE(ParseStrtoll("", 10, &value));
  EXPECT_EQ(value, 0);
  EXPECT_TRUE(ParseStrtoll(" \t+42", 10, &value));
  EXPECT_EQ(value, 42);
  EXPECT_TRUE(ParseStrtoll("-0777", 8, &value));
  EXPECT_EQ(value, -511);
  EXPECT_TRUE(ParseStrtoll("99999999999999999999", 10, &value, &overflow));
  EXPECT_EQ(value, INT64_MAX);
  EXPECT_TRUE(overflow);
  EXPECT_TRUE(ParseStrtoll("-9223372036854775808", 10, &value, &overflow));
  EXPECT_EQ(value, INT64_MIN);
  EXPECT_FALSE(overflow);
  EXPECT_FALSE(ParseStrtoll(" ", 10, &value));
  EXPECT_FALSE(ParseStrtoll("+", 10, &value));
  EXPECT_FALSE(ParseStrtoll("5 ", 10, &value));
  EXPECT_FALSE(ParseStrtoll("8", 8, &value));
}

TEST(ConfigHelpersTest, SplitAtSpacesKeepsEmptyWords) {
  using Words = std::vector<std::string_view>;
  EXPECT_EQ(SplitAtSpaces(""), Words{});
  EXPECT_EQ(SplitAtSpaces(" "), (Words{"", ""}));
  EXPECT_EQ(SplitAtSpaces("a  b"), (Words{"a", "", "b"}));
  EXPECT_EQ(SplitAtSpaces("a b "), (Words{"a", "b", ""}));
}

TEST(ConfigHelpersTest, FormatMemoryForConfig) {
  EXPECT_EQ(FormatMemoryForConfig(0), "0");
  EXPECT_EQ(FormatMemoryForConfig(1000), "1000");
  EXPECT_EQ(FormatMemoryForConfig(2048), "2kb");
  EXPECT_EQ(FormatMemoryForConfig(3 << 20), "3mb");
  EXPECT_EQ(FormatMemoryForConfig(1ull << 30), "1gb");
  EXPECT_EQ(FormatMemoryForConfig((1ull << 30) + 1024), "1048577kb");
}

}  // namespace
}  // namespace keel
