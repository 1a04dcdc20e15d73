// Config: every redis.conf parameter Keel accepts, with Redis 7.0's names, defaults, value
// syntax and error texts.
//
// One table (config_table.cc) lists each parameter once. Parameters the engine acts on are bound
// to a typed field of ConfigValues, which the engine reads directly (no lookup on the request
// path). Parameters of features that arrive later (save, appendonly, ...) are accepted, validated
// and reported by CONFIG GET from the start, stored as their canonical text.
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

namespace keel {

// Limits of one client class (client-output-buffer-limit).
struct OutputBufferLimit {
  int64_t hard_bytes = 0;  // 0: none
  int64_t soft_bytes = 0;  // 0: none
  int64_t soft_seconds = 0;
};

enum class ClientClass : uint8_t { kNormal = 0, kReplica = 1, kPubsub = 2, kCount = 3 };

// The values the engine acts on. Field names follow the parameter names.
struct ConfigValues {
  int64_t port = 6379;
  std::vector<std::string> bind;  // "-" prefix: skip the address if it is not available
  int64_t tcp_backlog = 511;
  bool protected_mode = true;
  int64_t timeout_seconds = 0;  // idle clients are closed after this; 0: never
  int64_t tcp_keepalive_seconds = 300;
  int64_t maxclients = 10000;
  int64_t databases = 16;
  int64_t hz = 10;
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  OutputBufferLimit output_buffer_limits[3] = {
      {0, 0, 0}, {256LL << 20, 64LL << 20, 60}, {32LL << 20, 8LL << 20, 60}};
  int64_t maxmemory = 0;
  std::string requirepass;
  std::string logfile;
  int64_t loglevel = 2;  // index into debug verbose notice warning
  bool daemonize = false;
  std::string pidfile;
  std::string dir;
  int64_t slowlog_log_slower_than = 10000;
  int64_t slowlog_max_len = 128;
};

enum class ConfigKind : uint8_t {
  kBool,     // yes/no
  kInteger,  // decimal, within [min, max]
  kMemory,   // decimal with an optional unit (k kb m mb g gb), within [min, max]
  kEnum,     // one of the names listed in `choices`
  kString,   // any text (may be empty)
  kSpecial,  // a parameter with its own syntax (save, bind, client-output-buffer-limit, ...)
};

enum ConfigFlag : uint16_t {
  kConfigImmutable = 1 << 0,   // only from the config file or the command line
  kConfigSensitive = 1 << 1,   // value never logged (requirepass, masterauth)
  kConfigProtected = 1 << 2,   // settable only with enable-protected-configs
  kConfigMultiArg = 1 << 3,    // takes several words in the config file (save 900 1 300 10)
  kConfigPercent = 1 << 4,     // kMemory that may also be "N%" (maxmemory-clients)
};

struct ConfigValues;
struct ConfigParam;

// A parameter with its own syntax: parses the words, and on success stores the canonical text
// into *canonical (and typed fields into *values). Returns false with *error set otherwise.
using ConfigSpecialParser = bool (*)(std::span<const std::string_view> words, ConfigValues* values,
                                     std::string* canonical, std::string* error);

struct ConfigParam {
  std::string_view name;
  std::string_view alias;  // the older name that also works ("slaveof" for "replicaof")
  ConfigKind kind;
  uint16_t flags;
  std::string_view default_value;  // in the form CONFIG GET prints it
  int64_t min = 0;
  int64_t max = 0;
  std::string_view choices = {};  // kEnum: names separated by spaces, in Redis's order
  int64_t ConfigValues::*integer_field = nullptr;  // kInteger, kMemory, kEnum (index)
  bool ConfigValues::*bool_field = nullptr;         // kBool
  std::string ConfigValues::*string_field = nullptr;  // kString
  ConfigSpecialParser special = nullptr;              // kSpecial
};

// The table, in the order CONFIG REWRITE writes parameters.
std::span<const ConfigParam> ConfigTable();

class Config {
 public:
  Config();

  const ConfigValues& values() const { return values_; }
  ConfigValues& mutable_values() { return values_; }

  // The parameter called `name` or by its alias (any case), or nullptr.
  static const ConfigParam* Find(std::string_view name);

  // Sets a parameter from words: one word for CONFIG SET (which Redis then splits itself for
  // multi-word parameters), one or more from a config file line. On failure returns false with
  // *error holding Redis's text ("argument must be 'yes' or 'no'") and changes nothing.
  bool Set(const ConfigParam& param, std::span<const std::string_view> words, std::string* error);

  // The canonical value text as CONFIG GET reports it.
  std::string Get(const ConfigParam& param) const;

 private:
  size_t IndexOf(const ConfigParam& param) const;

  ConfigValues values_;
  std::vector<std::string> texts_;  // canonical text of every parameter, by table index
};

// Parses Redis's memory notation ("100", "1k", "1kb", "5mb", "2GB") into bytes. Returns false for
// anything else (Redis's memtoull).
bool ParseMemory(std::string_view text, int64_t* bytes);

// Splits a config line or a CONFIG SET value into words with Redis's quoting (sdssplitargs; a
// NUL byte ends the line). Returns false on unbalanced quotes.
bool SplitConfigArgs(std::string_view line, std::vector<std::string>* words);

}  // namespace keel
