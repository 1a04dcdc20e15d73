// The parameter table: Redis 7.0's names, defaults (as CONFIG GET prints them), bounds and
// choices. Parameters bound to a ConfigValues field take effect in Keel; the others are accepted
// and reported so that a redis.conf loads unchanged, and gain their effect in the issue that
// builds their feature.
#include <climits>

#include "engine/base/numbers.h"
#include "engine/server/config.h"

namespace keel {
namespace {

// "save": pairs of <seconds> <changes>, or "" to disable. CONFIG SET passes the pairs as one
// word, the config file as several.
bool ParseSave(std::span<const std::string_view> words, ConfigValues* /*values*/,
               std::string* canonical, std::string* error) {
  std::vector<std::string> parts;
  for (std::string_view word : words) {
    std::vector<std::string> split;
    if (!SplitConfigArgs(word, &split)) split.assign(1, std::string(word));
    for (std::string& part : split) parts.push_back(std::move(part));
  }
  canonical->clear();
  if (parts.size() == 1 && parts[0].empty()) return true;
  if (parts.empty()) return true;
  if (parts.size() % 2 != 0) {
    *error = "Invalid save parameters";
    return false;
  }
  for (const std::string& part : parts) {
    int64_t number = 0;
    if (!ParseStrictInt64(part, &number) || number < 0 || number > INT_MAX) {
      *error = "Invalid save parameters";
      return false;
    }
  }
  for (size_t i = 0; i < parts.size(); i++) {
    if (i > 0) *canonical += ' ';
    int64_t number = 0;
    (void)ParseStrictInt64(parts[i], &number);
    *canonical += Int64ToString(number);
  }
  return true;
}

bool ParseBind(std::span<const std::string_view> words, ConfigValues* values,
               std::string* canonical, std::string* error) {
  std::vector<std::string> addresses;
  for (std::string_view word : words) {
    std::vector<std::string> split;
    if (!SplitConfigArgs(word, &split)) {
      *error = "Invalid bind address";
      return false;
    }
    for (std::string& address : split) addresses.push_back(std::move(address));
  }
  if (addresses.size() > 16) {
    *error = "Too many bind addresses specified.";
    return false;
  }
  values->bind = addresses;
  canonical->clear();
  for (size_t i = 0; i < addresses.size(); i++) {
    if (i > 0) *canonical += ' ';
    *canonical += addresses[i];
  }
  return true;
}

// "client-output-buffer-limit <class> <hard> <soft> <soft seconds> [<class> ...]".
bool ParseOutputBufferLimit(std::span<const std::string_view> words, ConfigValues* values,
                            std::string* canonical, std::string* error) {
  std::vector<std::string> parts;
  for (std::string_view word : words) {
    std::vector<std::string> split;
    if (!SplitConfigArgs(word, &split)) split.assign(1, std::string(word));
    for (std::string& part : split) parts.push_back(std::move(part));
  }
  if (parts.empty() || parts.size() % 4 != 0) {
    *error = "Wrong number of arguments in buffer limit configuration.";
    return false;
  }
  OutputBufferLimit limits[3];
  for (int i = 0; i < 3; i++) limits[i] = values->output_buffer_limits[i];
  for (size_t i = 0; i < parts.size(); i += 4) {
    const std::string name = AsciiLowercase(parts[i]);
    int class_index = -1;
    if (name == "normal") {
      class_index = 0;
    } else if (name == "replica" || name == "slave") {
      class_index = 1;
    } else if (name == "pubsub") {
      class_index = 2;
    } else {
      *error = "Invalid client class specified in buffer limit configuration.";
      return false;
    }
    int64_t hard = 0;
    int64_t soft = 0;
    int64_t seconds = 0;
    if (!ParseMemory(parts[i + 1], &hard) || !ParseMemory(parts[i + 2], &soft) ||
        !ParseStrictInt64(parts[i + 3], &seconds) || seconds < 0) {
      *error = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
      return false;
    }
    limits[class_index] = OutputBufferLimit{hard, soft, seconds};
  }
  for (int i = 0; i < 3; i++) values->output_buffer_limits[i] = limits[i];
  static constexpr const char* kNames[] = {"normal", "slave", "pubsub"};
  canonical->clear();
  for (int i = 0; i < 3; i++) {
    if (i > 0) *canonical += ' ';
    *canonical += kNames[i];
    *canonical += ' ' + Int64ToString(limits[i].hard_bytes);
    *canonical += ' ' + Int64ToString(limits[i].soft_bytes);
    *canonical += ' ' + Int64ToString(limits[i].soft_seconds);
  }
  return true;
}

// Words joined by single spaces, for lists without further checks ("oom-score-adj-values").
bool ParseWordList(std::span<const std::string_view> words, ConfigValues* /*values*/,
                   std::string* canonical, std::string* /*error*/) {
  canonical->clear();
  for (size_t i = 0; i < words.size(); i++) {
    if (i > 0) *canonical += ' ';
    *canonical += words[i];
  }
  return true;
}

constexpr int64_t kIntMax = INT_MAX;
constexpr int64_t kLongMax = LLONG_MAX;
constexpr int64_t kUintMax = UINT_MAX;

using CV = ConfigValues;

constexpr ConfigParam kTable[] = {
    // name, alias, kind, flags, default, min, max, choices, fields...
    {"bind", "", ConfigKind::kSpecial, kConfigMultiArg, "127.0.0.1 -::1", 0, 0, {}, nullptr,
     nullptr, nullptr, ParseBind},
    {"port", "", ConfigKind::kInteger, 0, "6379", 0, 65535, {}, &CV::port},
    {"tcp-backlog", "", ConfigKind::kInteger, kConfigImmutable, "511", 0, kIntMax, {},
     &CV::tcp_backlog},
    {"protected-mode", "", ConfigKind::kBool, 0, "yes", 0, 0, {}, nullptr, &CV::protected_mode},
    {"timeout", "", ConfigKind::kInteger, 0, "0", 0, kIntMax, {}, &CV::timeout_seconds},
    {"tcp-keepalive", "", ConfigKind::kInteger, 0, "300", 0, kIntMax, {},
     &CV::tcp_keepalive_seconds},
    {"daemonize", "", ConfigKind::kBool, kConfigImmutable, "no", 0, 0, {}, nullptr,
     &CV::daemonize},
    {"pidfile", "", ConfigKind::kString, kConfigImmutable, "", 0, 0, {}, nullptr, nullptr,
     &CV::pidfile},
    {"loglevel", "", ConfigKind::kEnum, 0, "notice", 0, 0, "debug verbose notice warning",
     &CV::loglevel},
    {"logfile", "", ConfigKind::kString, kConfigImmutable, "", 0, 0, {}, nullptr, nullptr,
     &CV::logfile},
    {"databases", "", ConfigKind::kInteger, kConfigImmutable, "16", 1, kIntMax, {},
     &CV::databases},
    {"save", "", ConfigKind::kSpecial, kConfigMultiArg, "3600 1 300 100 60 10000", 0, 0, {},
     nullptr, nullptr, nullptr, ParseSave},
    {"dbfilename", "", ConfigKind::kString, kConfigProtected, "dump.rdb"},
    {"dir", "", ConfigKind::kString, kConfigProtected, "", 0, 0, {}, nullptr, nullptr, &CV::dir},
    {"requirepass", "", ConfigKind::kString, kConfigSensitive, "", 0, 0, {}, nullptr, nullptr,
     &CV::requirepass},
    {"maxclients", "", ConfigKind::kInteger, 0, "10000", 1, kUintMax, {}, &CV::maxclients},
    {"maxmemory", "", ConfigKind::kMemory, 0, "0", 0, kLongMax, {}, &CV::maxmemory},
    {"maxmemory-policy", "", ConfigKind::kEnum, 0, "noeviction", 0, 0,
     "volatile-lru volatile-lfu volatile-random volatile-ttl allkeys-lru allkeys-lfu "
     "allkeys-random noeviction"},
    {"maxmemory-samples", "", ConfigKind::kInteger, 0, "5", 1, 64},
    {"appendonly", "", ConfigKind::kBool, 0, "no"},
    {"appendfilename", "", ConfigKind::kString, kConfigImmutable, "appendonly.aof"},
    {"appenddirname", "", ConfigKind::kString, kConfigImmutable, "appendonlydir"},
    {"appendfsync", "", ConfigKind::kEnum, 0, "everysec", 0, 0, "always everysec no"},
    {"hz", "", ConfigKind::kInteger, 0, "10", 0, kIntMax, {}, &CV::hz},
    {"proto-max-bulk-len", "", ConfigKind::kMemory, 0, "536870912", 1024 * 1024, kLongMax, {},
     &CV::proto_max_bulk_len},
    {"client-query-buffer-limit", "", ConfigKind::kMemory, 0, "1073741824", 1024 * 1024,
     kLongMax, {}, &CV::client_query_buffer_limit},
    {"client-output-buffer-limit", "", ConfigKind::kSpecial, kConfigMultiArg,
     "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", 0, 0, {}, nullptr,
     nullptr, nullptr, ParseOutputBufferLimit},
    {"slowlog-log-slower-than", "", ConfigKind::kInteger, 0, "10000", -1, kLongMax, {},
     &CV::slowlog_log_slower_than},
    {"slowlog-max-len", "", ConfigKind::kInteger, 0, "128", 0, kLongMax, {},
     &CV::slowlog_max_len},
    {"oom-score-adj-values", "", ConfigKind::kSpecial, kConfigMultiArg, "0 200 800", 0, 0, {},
     nullptr, nullptr, nullptr, ParseWordList},
};

}  // namespace

std::span<const ConfigParam> ConfigTable() { return kTable; }

}  // namespace keel
