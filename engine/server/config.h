// Config: every parameter Redis 7.0.15 knows, with its names, defaults, value syntax, canonical
// form and error texts.
//
// One table (config_table.cc) lists each parameter once, with its alias if it has one. Parameters
// the engine acts on are bound to a typed field of ConfigValues, which the engine reads directly
// (no lookup on the request path). Every parameter also keeps its canonical text, the form CONFIG
// GET prints, so parameters of features that arrive later (appendonly, cluster-*, tls-*, ...) are
// accepted, validated and reported from the start.
//
// The same Set path serves the config file, the command line and CONFIG SET, so a value accepted
// in one is accepted in all, with the same canonical form (CONFIG SET maxmemory 1gb reads back as
// 1073741824, as in Redis).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/db/maxmemory_policy.h"

namespace keel {

// Limits of one client class (client-output-buffer-limit).
struct OutputBufferLimit {
  int64_t hard_bytes = 0;  // 0: none
  int64_t soft_bytes = 0;  // 0: none
  int64_t soft_seconds = 0;
};

enum class ClientClass : uint8_t { kNormal = 0, kReplica = 1, kPubsub = 2, kCount = 3 };

// The values the engine acts on. Field names follow the parameter names, with units last.
struct ConfigValues {
  int64_t port = 6379;
  std::vector<std::string> bind;  // "-" prefix: skip the address if it is not available
  int64_t tcp_backlog = 511;
  bool protected_mode = true;
  int64_t timeout_seconds = 0;  // idle clients are closed after this; 0: never
  int64_t tcp_keepalive_seconds = 300;
  int64_t maxclients = 10000;
  int64_t databases = 16;
  int64_t hz = 10;  // already clamped to [1, 500] as Redis clamps it
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  OutputBufferLimit output_buffer_limits[3] = {
      {0, 0, 0}, {256LL << 20, 64LL << 20, 60}, {32LL << 20, 8LL << 20, 60}};
  // Redis takes any uint64; values above INT64_MAX (8 EiB, "no limit" in practice) are kept here
  // as INT64_MAX while CONFIG GET still prints the exact value.
  int64_t maxmemory = 0;
  int64_t tracking_table_max_keys = 1000000;
  std::string requirepass;
  std::string logfile;
  int64_t loglevel = 2;  // index into debug verbose notice warning
  // io-backend: 0 epoll, 1 io_uring (the default; keel-server falls back to epoll where the
  // kernel refuses io_uring). Read once at start by io/main.cc; the engine does not use it.
  int64_t io_backend = 1;
  bool daemonize = false;
  std::string pidfile;
  std::string dir;  // "" means the working directory the server started in
  int64_t slowlog_log_slower_than = 10000;
  int64_t busy_reply_threshold_ms = 5000;  // lua-time-limit: when a running script lets others in
  int64_t slowlog_max_len = 128;
  int64_t latency_monitor_threshold_ms = 0;  // 0: the latency monitor records nothing
  bool latency_tracking = true;
  std::vector<double> latency_tracking_info_percentiles = {50, 99, 99.9};
  int64_t enable_debug_command = 0;  // index into "no yes local"
  // Eviction and expiry. maxmemory_policy is a MaxmemoryPolicy.
  int64_t maxmemory_policy = 7;  // noeviction
  int64_t maxmemory_samples = 5;
  int64_t maxmemory_eviction_tenacity = 10;
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time_minutes = 1;
  int64_t active_expire_effort = 1;
  bool activerehashing = true;
  bool lazyfree_lazy_eviction = false;
  bool lazyfree_lazy_expire = false;
  bool lazyfree_lazy_user_del = false;
  bool lazyfree_lazy_server_del = false;  // RESTORE's delete of a key restored already expired
  // notify-keyspace-events as NotifyClass bits (engine/db/notify.h); 0: no notifications.
  uint32_t notify_keyspace_classes = 0;
  // RDB snapshots: the save rules (after `seconds`, if at least `changes` writes were made, a
  // background save starts), the file's name within `dir`, and how it is written.
  struct SaveRule {
    int64_t seconds;
    int64_t changes;
  };
  std::vector<SaveRule> save_rules = {{3600, 1}, {300, 100}, {60, 10000}};
  std::string dbfilename = "dump.rdb";
  bool stop_writes_on_bgsave_error = true;
  bool rdbchecksum = true;
  // The append-only file (engine/server/aof.h): whether it is on, its files' base name and
  // directory within `dir`, and when its writes are synced (appendfsync: 0 everysec, 1 always,
  // 2 no, the order of the parameter's choices).
  bool appendonly = false;
  std::string appendfilename = "appendonly.aof";
  std::string appenddirname = "appendonlydir";
  int64_t appendfsync = 0;
  bool no_appendfsync_on_rewrite = false;
  int64_t auto_aof_rewrite_percentage = 100;
  int64_t auto_aof_rewrite_min_size = 64 * 1024 * 1024;
  bool aof_load_truncated = true;
  bool aof_use_rdb_preamble = true;
  bool aof_timestamp_enabled = false;
  bool aof_disable_auto_gc = false;
  // LZF for strings of more than 20 bytes in DUMP payloads and RDB files.
  bool rdbcompression = true;
  // Keel only: how SAVE, BGSAVE, SHUTDOWN and DEBUG RELOAD write the RDB file (0 lzf: Redis's
  // file; 1 zstd: the same RDB stream inside one zstd frame, docs/PERSISTENCE.md), and the zstd
  // compression level. The AOF's RDB preamble stays plain RDB either way.
  int64_t rdb_compression_algorithm = 0;
  int64_t rdb_zstd_level = 1;
  // A new list's nodes (engine/db/types/list.h): bytes (-1..-5) or elements per node; and how
  // many nodes at each end stay uncompressed (accepted; Keel's nodes stay uncompressed).
  int64_t list_max_listpack_size = -2;
  int64_t list_compress_depth = 0;
  // A set of integers stays an intset up to this many members.
  int64_t set_max_intset_entries = 512;
  int64_t stream_node_max_bytes = 4096;
  int64_t stream_node_max_entries = 100;
  // A hash stays a listpack up to this many fields, none longer than the value limit in bytes.
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  // A sorted set stays a listpack up to this many members, none longer than the value limit.
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  // A sparse HyperLogLog that would grow past this many bytes becomes dense.
  int64_t hll_sparse_max_bytes = 3000;
};

enum class ConfigKind : uint8_t {
  kBool,     // yes/no, any case
  kInteger,  // strict decimal (Redis's string2ll), within [min, max]
  kMemory,   // decimal with an optional unit (b k kb m mb g gb), within [min, max]
  kOctal,    // octal (strtoll base 8), within [min, max]; printed in octal (unixsocketperm)
  kEnum,     // one of the names in `choices`; with kConfigMultiArg, a set of flags
  kString,   // any text (may be empty)
  kSpecial,  // a parameter with its own syntax (save, bind, client-output-buffer-limit, ...)
};

enum ConfigFlag : uint16_t {
  kConfigImmutable = 1 << 0,  // only from the config file or the command line
  kConfigSensitive = 1 << 1,  // value never logged (requirepass, masterauth, masteruser)
  kConfigProtected = 1 << 2,  // CONFIG SET needs enable-protected-configs (dir, dbfilename)
  // Several words on a config file line; CONFIG SET splits its one value at every space.
  kConfigMultiArg = 1 << 3,
  kConfigPercent = 1 << 4,      // kMemory that may also be "N%" (maxmemory-clients)
  kConfigHidden = 1 << 5,       // not matched by CONFIG GET patterns, only by its exact name
  kConfigEmptyIsNull = 1 << 6,  // kString: "" means unset, and CONFIG REWRITE drops its lines
  kConfigUnsigned = 1 << 7,     // kMemory taking all of uint64 (maxmemory): no bound check
  // While one config file is read, the second and later lines add to the first instead of
  // replacing it (save).
  kConfigAccumulates = 1 << 8,
  // A parameter redis-server does not have (Keel's own features, such as the zstd snapshot):
  // CONFIG GET * lists it besides Redis's, and the table test keeps the two apart.
  kConfigKeelOnly = 1 << 9,
};

struct ConfigValues;
struct ConfigParam;

// What a special parser gets: the words (config file: the line's words after the name; CONFIG
// SET: its value split at spaces), the canonical text before the change, and whether the words
// add to it (a later "save" line of the same config file).
struct ConfigSpecialInput {
  std::span<const std::string_view> words;
  std::string_view current;
  bool append = false;
};

// Parses a special parameter: on success stores the canonical text into *canonical and typed
// fields into *values; otherwise returns false with *error set to Redis's text.
using ConfigSpecialParser = bool (*)(const ConfigSpecialInput& input, ConfigValues* values,
                                     std::string* canonical, std::string* error);

// A line CONFIG REWRITE writes for a parameter. `force`: write it even where the old file has no
// line for the parameter (its value differs from the default, or Redis always writes it).
struct ConfigRewriteLine {
  std::string text;
  bool force = false;
};

// The lines a special parameter rewrites to, from its canonical text (none: drop its lines).
using ConfigSpecialRewriter = void (*)(const ConfigParam& param, std::string_view canonical,
                                       std::vector<ConfigRewriteLine>* lines);

// An extra check of an accepted canonical value ("yes", an enum name, a string); returns false
// with *error set to Redis's text.
using ConfigValidator = bool (*)(std::string_view canonical, std::string* error);

struct ConfigParam {
  std::string_view name;
  std::string_view alias;  // the older name that also works ("slaveof" for "replicaof")
  ConfigKind kind = ConfigKind::kString;
  uint16_t flags = 0;
  std::string_view default_value;  // in the form CONFIG GET prints it
  int64_t min = 0;
  int64_t max = 0;
  std::string_view choices = {};  // kEnum: names separated by spaces, in Redis's order
  int64_t ConfigValues::*integer_field = nullptr;     // kInteger, kMemory, kEnum (index)
  bool ConfigValues::*bool_field = nullptr;           // kBool
  std::string ConfigValues::*string_field = nullptr;  // kString
  ConfigSpecialParser special = nullptr;              // kSpecial
  ConfigSpecialRewriter rewrite = nullptr;            // kSpecial
  ConfigValidator validate = nullptr;
  int64_t (*adjust)(int64_t value) = nullptr;  // kInteger: the value kept for an accepted one

  constexpr ConfigParam Alias(std::string_view older_name) const {
    ConfigParam copy = *this;
    copy.alias = older_name;
    return copy;
  }
};

// The table, in the order CONFIG REWRITE appends parameters.
std::span<const ConfigParam> ConfigTable();

class Config {
 public:
  // Every parameter at its default.
  Config();

  const ConfigValues& values() const { return values_; }
  ConfigValues& mutable_values() { return values_; }

  // The parameter called `name` or by its alias (any case, hidden ones included), or nullptr.
  static const ConfigParam* Find(std::string_view name);
  // Also returns the entry that matched: the parameter's name or its alias, as the table spells
  // it. Redis treats the two as separate entries (CONFIG GET * lists both; CONFIG SET errors
  // name the one used).
  static const ConfigParam* Find(std::string_view name, std::string_view* entry);

  // Sets a parameter from the words of a config file line (after the name). On failure returns
  // false with *error holding Redis's text ("argument must be 'yes' or 'no'") and changes nothing.
  bool Set(const ConfigParam& param, std::span<const std::string_view> words, std::string* error);
  // Sets a parameter from CONFIG SET's one value, which Redis splits at every space for
  // multi-word parameters ("" gives no words at all).
  bool SetFromCommand(const ConfigParam& param, std::string_view value, std::string* error);

  // The canonical value text as CONFIG GET reports it.
  const std::string& Get(const ConfigParam& param) const;

  // The lines CONFIG REWRITE writes for `param` (none: drop the parameter's lines).
  std::vector<ConfigRewriteLine> RewriteLines(const ConfigParam& param) const;

  // Whether the values come from a config file being read (Redis's reading_config_file), which
  // makes "save" lines accumulate. LoadConfigText turns it on and off.
  void set_reading_file(bool reading) { reading_file_ = reading; }

 private:
  struct BuildDefaults {};
  explicit Config(BuildDefaults tag);
  size_t IndexOf(const ConfigParam& param) const;
  bool SetWords(const ConfigParam& param, std::span<const std::string_view> words,
                std::string* error);

  ConfigValues values_;
  std::vector<std::string> texts_;  // canonical text of every parameter, by table index
  std::vector<bool> file_loaded_;   // kConfigAccumulates: a file line has set it already
  bool reading_file_ = false;
};

// Redis's memtoull: digits, then an optional unit among b k kb m mb g gb (any case). Like Redis it
// saturates on too many digits and wraps on a unit overflow ("17179869184gb" is 0), and reads ""
// and "k" as 0. Returns false for anything else ("-1", "+1", " 1", "1tb").
bool ParseMemory(std::string_view text, uint64_t* bytes);

// C's strtoll over the whole text: optional leading spaces, sign, digits in `base`; saturates on
// overflow (reporting it in *overflow when given). "" reads as 0. Returns false when characters
// are left over.
bool ParseStrtoll(std::string_view text, int base, int64_t* value, bool* overflow = nullptr);

// Splits a config line or a CONFIG SET value into words with Redis's quoting (sdssplitargs; a
// NUL byte ends the line). Returns false on unbalanced quotes.
bool SplitConfigArgs(std::string_view line, std::vector<std::string>* words);

// Splits at every single space, keeping empty words, as Redis splits CONFIG SET values of
// multi-word parameters (sdssplitlen): "" gives no words, "a  b" gives "a", "", "b".
std::vector<std::string_view> SplitAtSpaces(std::string_view text);

// Redis's rewriteConfigFormatMemory: "1gb", "3mb", "2kb" when the bytes divide evenly, else the
// plain number.
std::string FormatMemoryForConfig(uint64_t bytes);

}  // namespace keel
