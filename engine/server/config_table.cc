// The parameter table: every parameter of Redis 7.0.15 (Debian's build, so with TLS), with the
// names, defaults (as CONFIG GET prints them), bounds, choices and flags the real server shows,
// and the parsers of the parameters with their own syntax. Parameters bound to a ConfigValues
// field take effect in Keel; the others are accepted and reported so that a redis.conf loads
// unchanged, and gain their effect in the issue that builds their feature.
//
// Deliberate defaults that differ from redis-server's compiled-in ones:
//   bind     "127.0.0.1 -::1" (what Debian's redis.conf sets) rather than "* -::*", so that a
//            Keel started without a config file is not reachable from the network;
//   logfile  "" (standard output), as Redis's own default (Debian's file sets a path);
//   dir      "" meaning the working directory the server started in: the engine cannot ask the
//            OS for it, so CONFIG GET dir prints "" where Redis prints the absolute path.
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/base/limits.h"
#include "engine/base/numbers.h"
#include "engine/db/notify.h"
#include "engine/server/config.h"
#include "engine/server/config_file.h"

namespace keel {
namespace {

constexpr int64_t kIntMin = INT_MIN;
constexpr int64_t kIntMax = INT_MAX;
constexpr int64_t kUintMax = UINT_MAX;
constexpr int64_t kLongMax = LLONG_MAX;

std::string Join(std::span<const std::string_view> words) {
  std::string joined;
  for (size_t i = 0; i < words.size(); i++) {
    if (i > 0) joined += ' ';
    joined += words[i];
  }
  return joined;
}

// ---------------------------------------------------------------------------------------------
// save: pairs of <seconds> <changes>; "" clears. Numbers are read as strtoll reads them ("+5",
// "05" and "" are fine), seconds must be >= 1 and changes >= 0; changes are then kept as a C int,
// so 4294967297 reads back as 1, as in Redis.
bool ParseSave(const ConfigSpecialInput& input, ConfigValues* values, std::string* canonical,
               std::string* error) {
  std::span<const std::string_view> words = input.words;
  // A single "" clears the list even in the middle of a config file.
  if (words.size() == 1 && words[0].empty()) {
    canonical->clear();
    values->save_rules.clear();
    return true;
  }
  if (words.size() % 2 != 0) {
    *error = "Invalid save parameters";
    return false;
  }
  std::string pairs;
  for (size_t i = 0; i < words.size(); i++) {
    int64_t number = 0;
    const bool seconds = i % 2 == 0;
    if (!ParseStrtoll(words[i], 10, &number) || number < (seconds ? 1 : 0)) {
      *error = "Invalid save parameters";
      return false;
    }
    if (!seconds) number = static_cast<int32_t>(number);
    if (!pairs.empty()) pairs += ' ';
    pairs += Int64ToString(number);
  }
  *canonical = std::string(input.append ? input.current : std::string_view());
  if (!canonical->empty() && !pairs.empty()) *canonical += ' ';
  *canonical += pairs;
  // The rules in force are the canonical list's pairs (those accumulated before included).
  values->save_rules.clear();
  std::vector<int64_t> numbers;
  for (std::string_view rest = *canonical; !rest.empty();) {
    const size_t space = rest.find(' ');
    int64_t number = 0;
    ParseStrtoll(rest.substr(0, space), 10, &number);
    numbers.push_back(number);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  for (size_t i = 0; i + 1 < numbers.size(); i += 2) {
    values->save_rules.push_back({numbers[i], numbers[i + 1]});
  }
  return true;
}

void RewriteSave(const ConfigParam& /*param*/, std::string_view canonical,
                 std::vector<ConfigRewriteLine>* lines) {
  // Always written, so that a file without save lines does not fall back to the defaults.
  if (canonical.empty()) {
    lines->push_back({"save \"\"", true});
    return;
  }
  const std::vector<std::string_view> numbers = SplitAtSpaces(canonical);
  for (size_t i = 0; i + 1 < numbers.size(); i += 2) {
    lines->push_back({"save " + std::string(numbers[i]) + " " + std::string(numbers[i + 1]), true});
  }
}

// ---------------------------------------------------------------------------------------------
// bind: up to 16 addresses; a single "" means none.
bool ParseBind(const ConfigSpecialInput& input, ConfigValues* values, std::string* canonical,
               std::string* error) {
  constexpr size_t kBindAddressesMax = 16;  // Redis's CONFIG_BINDADDR_MAX
  std::span<const std::string_view> words = input.words;
  if (words.size() > kBindAddressesMax) {
    *error = "Too many bind addresses specified.";
    return false;
  }
  if (words.size() == 1 && words[0].empty()) words = {};
  values->bind.assign(words.begin(), words.end());
  *canonical = Join(words);
  return true;
}

void RewriteBind(const ConfigParam& param, std::string_view canonical,
                 std::vector<ConfigRewriteLine>* lines) {
  // At the default the lines go, so that the file follows the default (Keel's, see the top).
  if (canonical == param.default_value) return;
  lines->push_back({"bind " + std::string(canonical.empty() ? "\"\"" : canonical), true});
}

// ---------------------------------------------------------------------------------------------
// client-output-buffer-limit <class> <hard> <soft> <soft seconds> [<class> ...].
constexpr std::string_view kClientClassNames[] = {"normal", "slave", "pubsub"};
constexpr uint64_t kOutputLimitDefaults[3][3] = {
    {0, 0, 0}, {256ull << 20, 64ull << 20, 60}, {32ull << 20, 8ull << 20, 60}};

// The three classes' limits from the canonical text (or the defaults before the first set).
void ReadOutputLimits(std::string_view canonical, uint64_t limits[3][3]) {
  const std::vector<std::string_view> words = SplitAtSpaces(canonical);
  for (size_t c = 0; c < 3; c++) {
    for (size_t k = 0; k < 3; k++) {
      limits[c][k] = kOutputLimitDefaults[c][k];
      if (words.size() == 12) (void)ParseMemory(words[c * 4 + k + 1], &limits[c][k]);
    }
  }
}

bool ParseOutputBufferLimit(const ConfigSpecialInput& input, ConfigValues* values,
                            std::string* canonical, std::string* error) {
  std::span<const std::string_view> words = input.words;
  if (words.size() % 4 != 0) {
    *error = "Wrong number of arguments in buffer limit configuration.";
    return false;
  }
  uint64_t limits[3][3];
  ReadOutputLimits(input.current, limits);
  // Every group is checked before any is applied: all or nothing.
  for (size_t i = 0; i < words.size(); i += 4) {
    const std::string name = AsciiLowercase(words[i]);
    size_t class_index = 0;
    if (name == "normal") {
      class_index = 0;
    } else if (name == "slave" || name == "replica") {
      class_index = 1;
    } else if (name == "pubsub") {
      class_index = 2;
    } else {
      *error = "Invalid client class specified in buffer limit configuration.";
      return false;
    }
    uint64_t hard = 0;
    uint64_t soft = 0;
    int64_t seconds = 0;
    // Redis keeps the seconds in a C int, so 2147483648 wraps negative and is refused.
    const bool ok = ParseMemory(words[i + 1], &hard) && ParseMemory(words[i + 2], &soft) &&
                    ParseStrtoll(words[i + 3], 10, &seconds) && static_cast<int32_t>(seconds) >= 0;
    if (!ok) {
      *error = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
      return false;
    }
    limits[class_index][0] = hard;
    limits[class_index][1] = soft;
    limits[class_index][2] = static_cast<uint64_t>(static_cast<int32_t>(seconds));
  }
  canonical->clear();
  for (size_t c = 0; c < 3; c++) {
    if (c > 0) *canonical += ' ';
    *canonical += kClientClassNames[c];
    for (size_t k = 0; k < 3; k++) {
      char digits[kInt64TextMax];
      *canonical += ' ';
      canonical->append(digits, FormatUint64(limits[c][k], digits));
    }
    auto clamp = [](uint64_t bytes) {
      return static_cast<int64_t>(std::min<uint64_t>(bytes, static_cast<uint64_t>(INT64_MAX)));
    };
    values->output_buffer_limits[c] = {clamp(limits[c][0]), clamp(limits[c][1]),
                                       clamp(limits[c][2])};
  }
  return true;
}

void RewriteOutputBufferLimit(const ConfigParam& /*param*/, std::string_view canonical,
                              std::vector<ConfigRewriteLine>* lines) {
  uint64_t limits[3][3];
  ReadOutputLimits(canonical, limits);
  constexpr std::string_view kRewriteNames[] = {"normal", "replica", "pubsub"};
  for (size_t c = 0; c < 3; c++) {
    bool differs = false;
    for (size_t k = 0; k < 3; k++) differs |= limits[c][k] != kOutputLimitDefaults[c][k];
    lines->push_back({"client-output-buffer-limit " + std::string(kRewriteNames[c]) + " " +
                          FormatMemoryForConfig(limits[c][0]) + " " +
                          FormatMemoryForConfig(limits[c][1]) + " " +
                          Int64ToString(static_cast<int64_t>(limits[c][2])),
                      differs});
  }
}

// ---------------------------------------------------------------------------------------------
// oom-score-adj-values: three integers in [-2000, 2000].
bool ParseOomScoreAdjValues(const ConfigSpecialInput& input, ConfigValues* /*values*/,
                            std::string* canonical, std::string* error) {
  if (input.words.size() != 3) {
    *error = "wrong number of arguments";
    return false;
  }
  canonical->clear();
  for (std::string_view word : input.words) {
    int64_t number = 0;
    if (!ParseStrtoll(word, 10, &number) || number < -2000 || number > 2000) {
      *error = "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
      return false;
    }
    if (!canonical->empty()) *canonical += ' ';
    *canonical += Int64ToString(number);
  }
  return true;
}

void RewriteOomScoreAdjValues(const ConfigParam& param, std::string_view canonical,
                              std::vector<ConfigRewriteLine>* lines) {
  lines->push_back(
      {"oom-score-adj-values " + std::string(canonical), canonical != param.default_value});
}

// ---------------------------------------------------------------------------------------------
// notify-keyspace-events: a set of class characters, printed in Redis's canonical order. "A" is
// every type and event class (g$lshzxetd); it leaves out n (new keys) and m (misses), and is
// printed instead of its members, so "AKEn" reads back as "AKE".
constexpr std::string_view kNotifyClasses = "g$lshzxetdn";  // printed in this order, then "KEm"
constexpr std::string_view kNotifyAll = "g$lshzxetd";

bool ParseNotifyKeyspaceEvents(const ConfigSpecialInput& input, ConfigValues* values,
                               std::string* canonical, std::string* error) {
  if (input.words.size() != 1) {
    *error = "wrong number of arguments";
    return false;
  }
  constexpr std::string_view kAccepted = "g$lshzxetdnKEm";
  std::string set;  // one char per class present
  for (char c : input.words[0]) {
    if (c == 'A') {
      set += kNotifyAll;
    } else if (kAccepted.find(c) != std::string_view::npos) {
      set += c;
    } else {
      *error = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
      return false;
    }
  }
  auto has = [&](char c) { return set.find(c) != std::string::npos; };
  bool all = true;
  for (char c : kNotifyAll) all &= has(c);
  canonical->clear();
  if (all) {
    *canonical += 'A';
  } else {
    for (char c : kNotifyClasses) {
      if (has(c)) *canonical += c;
    }
  }
  for (char c : std::string_view("KEm")) {
    if (has(c)) *canonical += c;
  }
  // From what was given, not the canonical text: Redis keeps n with A although it prints "A"
  // for both (so its CONFIG GET, and a rewritten config file, lose the n).
  values->notify_keyspace_classes = NotifyClassesFromFlags(set);
  return true;
}

void RewriteNotifyKeyspaceEvents(const ConfigParam& /*param*/, std::string_view canonical,
                                 std::vector<ConfigRewriteLine>* lines) {
  lines->push_back({"notify-keyspace-events " + QuoteConfigArg(canonical), !canonical.empty()});
}

// ---------------------------------------------------------------------------------------------
// latency-tracking-info-percentiles: doubles in [0, 100] as Redis's string2d reads them (strtod
// over the whole word, no leading space, no nan, no overflow or underflow to zero), printed with
// "%f" and trailing zeros trimmed; "" means none.
bool ParsePercentile(std::string_view word, double* value) {
  if (word.empty() || word[0] == ' ' || (word[0] >= '\t' && word[0] <= '\r')) return false;
  const std::string text(word);
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return false;
  if (errno == ERANGE && (std::isinf(*value) || *value == 0.0)) return false;
  return !std::isnan(*value);
}

std::string FormatPercentile(double value) {
  char buffer[400];  // "%f" of values up to 100 (or -0) needs a dozen bytes
  size_t length = static_cast<size_t>(std::snprintf(buffer, sizeof(buffer), "%f", value));
  std::string_view text(buffer, length);
  if (text.find('.') != std::string_view::npos) {
    while (text.back() == '0') text.remove_suffix(1);
    if (text.back() == '.') text.remove_suffix(1);
  }
  return std::string(text);
}

bool ParseLatencyPercentiles(const ConfigSpecialInput& input, ConfigValues* values,
                             std::string* canonical, std::string* error) {
  std::span<const std::string_view> words = input.words;
  if (words.size() == 1 && words[0].empty()) words = {};
  canonical->clear();
  std::vector<double> percentiles;
  for (std::string_view word : words) {
    double percentile = 0;
    if (!ParsePercentile(word, &percentile)) {
      *error = "Invalid latency-tracking-info-percentiles parameters";
      return false;
    }
    if (percentile > 100.0 || percentile < 0.0) {
      *error = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      return false;
    }
    if (!canonical->empty()) *canonical += ' ';
    *canonical += FormatPercentile(percentile);
    percentiles.push_back(percentile);
  }
  values->latency_tracking_info_percentiles = std::move(percentiles);
  return true;
}

void RewriteLatencyPercentiles(const ConfigParam& /*param*/, std::string_view canonical,
                               std::vector<ConfigRewriteLine>* lines) {
  const std::string value = canonical.empty() ? "\"\"" : std::string(canonical);
  lines->push_back({"latency-tracking-info-percentiles " + value, true});
}

// ---------------------------------------------------------------------------------------------
// replicaof <host> <port> | no one (immutable: config file and command line only).
bool ParseReplicaof(const ConfigSpecialInput& input, ConfigValues* /*values*/,
                    std::string* canonical, std::string* error) {
  if (input.words.size() != 2) {
    *error = "wrong number of arguments";
    return false;
  }
  if (EqualsIgnoreCase(input.words[0], "no") && EqualsIgnoreCase(input.words[1], "one")) {
    canonical->clear();
    return true;
  }
  int64_t port = 0;
  if (!ParseStrtoll(input.words[1], 10, &port) || port < 0 || port > 65535) {
    *error = "Invalid master port";
    return false;
  }
  *canonical = std::string(input.words[0]) + " " + Int64ToString(port);
  return true;
}

void RewriteReplicaof(const ConfigParam& /*param*/, std::string_view canonical,
                      std::vector<ConfigRewriteLine>* lines) {
  if (!canonical.empty()) lines->push_back({"replicaof " + std::string(canonical), true});
}

// ---------------------------------------------------------------------------------------------
// dir: Redis changes its working directory, so a relative path is relative to the previous one
// and CONFIG GET prints the resulting absolute path. Keel keeps the path instead and resolves it
// the same way, lexically. Whether the directory exists is the environment's question: the
// caller checks it (CONFIG SET through FileSystem, the config file through its loader).
std::string NormalizePath(std::string_view path) {
  const bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);
      }
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  std::string normalized = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); i++) {
    if (i > 0) normalized += '/';
    normalized += parts[i];
  }
  return normalized.empty() ? "." : normalized;
}

bool ParseDir(const ConfigSpecialInput& input, ConfigValues* values, std::string* canonical,
              std::string* error) {
  if (input.words.size() != 1) {
    *error = "wrong number of arguments";
    return false;
  }
  const std::string_view path = input.words[0];
  if (path.empty()) {
    *error = "No such file or directory";  // chdir("") fails with ENOENT everywhere
    return false;
  }
  if (path[0] == '/' || input.current.empty()) {
    *canonical = NormalizePath(path);
  } else {
    *canonical = NormalizePath(std::string(input.current) + "/" + std::string(path));
  }
  values->dir = *canonical;
  return true;
}

void RewriteDir(const ConfigParam& /*param*/, std::string_view canonical,
                std::vector<ConfigRewriteLine>* lines) {
  // Redis always writes its absolute working directory. Keel's "" (the directory the server
  // started in) has no line, which keeps that meaning.
  if (!canonical.empty()) lines->push_back({"dir " + QuoteConfigArg(canonical), true});
}

// ---------------------------------------------------------------------------------------------
// Validators.
bool ValidateActiveDefrag(std::string_view value, std::string* error) {
  // Debian's redis-server is linked with the system jemalloc, which lacks the defrag hints; Keel
  // has no defragmenter either, so it refuses as that server does.
  if (value != "yes") return true;
  *error =
      "Active defragmentation cannot be enabled: it requires a Redis server compiled with a "
      "modified Jemalloc like the one shipped by default with the Redis source distribution";
  return false;
}

bool IsBaseName(std::string_view name) { return name.find_first_of("/\\") == std::string::npos; }

bool ValidateDbfilename(std::string_view value, std::string* error) {
  if (IsBaseName(value)) return true;
  *error = "dbfilename can't be a path, just a filename";
  return false;
}

bool ValidateAppendfilename(std::string_view value, std::string* error) {
  if (value.empty()) {
    *error = "appendfilename can't be empty";
    return false;
  }
  if (IsBaseName(value)) return true;
  *error = "appendfilename can't be a path, just a filename";
  return false;
}

bool ValidateAppenddirname(std::string_view value, std::string* error) {
  if (value.empty()) {
    *error = "appenddirname can't be empty";
    return false;
  }
  if (IsBaseName(value)) return true;
  *error = "appenddirname can't be a path, just a dirname";
  return false;
}

bool ValidateHostname(std::string_view value, std::string* error) {
  constexpr size_t kHostnameBytesMax = 256;  // Redis's NET_HOST_STR_LEN, terminator included
  if (value.size() >= kHostnameBytesMax) {
    *error = "Hostnames must be less than 256 characters";
    return false;
  }
  for (char c : value) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.';
    if (!ok) {
      *error = "Hostnames may only contain alphanumeric characters, hyphens or dots";
      return false;
    }
  }
  return true;
}

// proc-title-template: "{name}" variables among Redis's, "{{" for a literal brace, and the
// expansion must not be blank. Redis expands with an empty title and server mode to decide; the
// unix socket is taken as unset (Keel has none) and the config file name as non-empty (as the
// reference server accepts "{config-file}" even without one).
bool ValidateProcTitleTemplate(std::string_view value, std::string* error) {
  constexpr std::string_view kEmpty[] = {"title", "server-mode", "unixsocket"};
  constexpr std::string_view kNonEmpty[] = {"listen-addr", "port", "tls-port", "config-file"};
  bool valid = true;
  bool visible = false;  // the expansion has a character other than a space
  size_t i = 0;
  while (valid && i < value.size()) {
    if (value[i] != '{') {
      visible |= value[i] != ' ';
      i++;
      continue;
    }
    if (i + 1 < value.size() && value[i + 1] == '{') {
      visible = true;
      i += 2;
      continue;
    }
    const size_t close = value.find('}', i + 1);
    if (close == std::string_view::npos) {
      valid = false;
      break;
    }
    const std::string_view name = value.substr(i + 1, close - i - 1);
    bool known = false;
    for (std::string_view empty : kEmpty) known |= name == empty;
    for (std::string_view non_empty : kNonEmpty) {
      if (name == non_empty) known = visible = true;
    }
    valid = known;
    i = close + 1;
  }
  if (valid && visible) return true;
  *error = "template format is invalid or contains unknown variables";
  return false;
}

bool ValidateShutdownFlags(std::string_view value, std::string* error) {
  bool save = false;
  bool nosave = false;
  for (std::string_view word : SplitAtSpaces(value)) {
    save |= word == "save";
    nosave |= word == "nosave";
  }
  if (!(save && nosave)) return true;
  *error = "shutdown options SAVE and NOSAVE can't be used simultaneously";
  return false;
}

// Redis accepts any hz but runs between 1 and 500 (CONFIG_MIN_HZ, CONFIG_MAX_HZ), and reports the
// clamped value.
int64_t ClampHz(int64_t hz) { return std::clamp<int64_t>(hz, 1, 500); }

// ---------------------------------------------------------------------------------------------
// Table builders, one per kind, so that each parameter fits on a line or two.
using CV = ConfigValues;

constexpr uint16_t kImmutable = kConfigImmutable;
constexpr uint16_t kProtected = kConfigProtected;
constexpr uint16_t kHidden = kConfigHidden;
constexpr uint16_t kSensitive = kConfigSensitive;
constexpr uint16_t kNull = kConfigEmptyIsNull;
constexpr uint16_t kKeelOnly = kConfigKeelOnly;

constexpr ConfigParam Bool(std::string_view name, uint16_t flags, std::string_view value,
                           bool CV::*field = nullptr, ConfigValidator validate = nullptr) {
  ConfigParam param;
  param.name = name;
  param.kind = ConfigKind::kBool;
  param.flags = flags;
  param.default_value = value;
  param.bool_field = field;
  param.validate = validate;
  return param;
}

constexpr ConfigParam Int(std::string_view name, uint16_t flags, std::string_view value,
                          int64_t min, int64_t max, int64_t CV::*field = nullptr) {
  ConfigParam param;
  param.name = name;
  param.kind = ConfigKind::kInteger;
  param.flags = flags;
  param.default_value = value;
  param.min = min;
  param.max = max;
  param.integer_field = field;
  return param;
}

constexpr ConfigParam Memory(std::string_view name, uint16_t flags, std::string_view value,
                             int64_t min, int64_t max, int64_t CV::*field = nullptr) {
  ConfigParam param = Int(name, flags, value, min, max, field);
  param.kind = ConfigKind::kMemory;
  return param;
}

constexpr ConfigParam Enum(std::string_view name, uint16_t flags, std::string_view value,
                           std::string_view choices, int64_t CV::*field = nullptr) {
  ConfigParam param;
  param.name = name;
  param.kind = ConfigKind::kEnum;
  param.flags = flags;
  param.default_value = value;
  param.choices = choices;
  param.integer_field = field;
  return param;
}

constexpr ConfigParam String(std::string_view name, uint16_t flags, std::string_view value,
                             std::string CV::*field = nullptr, ConfigValidator validate = nullptr) {
  ConfigParam param;
  param.name = name;
  param.kind = ConfigKind::kString;
  param.flags = flags;
  param.default_value = value;
  param.string_field = field;
  param.validate = validate;
  return param;
}

constexpr ConfigParam Special(std::string_view name, uint16_t flags, std::string_view value,
                              ConfigSpecialParser parser, ConfigSpecialRewriter rewrite) {
  ConfigParam param;
  param.name = name;
  param.kind = ConfigKind::kSpecial;
  param.flags = flags;
  param.default_value = value;
  param.special = parser;
  param.rewrite = rewrite;
  return param;
}

constexpr ConfigParam WithValidator(ConfigParam param, ConfigValidator validate) {
  param.validate = validate;
  return param;
}

constexpr ConfigParam HzParam() {
  ConfigParam param = Int("hz", 0, "10", 0, kIntMax, &CV::hz);
  param.adjust = ClampHz;
  return param;
}

constexpr ConfigParam UnixSocketPerm() {
  ConfigParam param = Int("unixsocketperm", kImmutable, "0", 0, 0777);
  param.kind = ConfigKind::kOctal;
  return param;
}

constexpr std::string_view kShutdownChoices = "default save nosave now force";
constexpr std::string_view kProtectedAction = "no yes local";

// In the order of Debian's redis.conf, which is the order CONFIG REWRITE appends lines in (Redis
// appends in hash-table order, which is arbitrary).
constexpr ConfigParam kTable[] = {
    // Network.
    Special("bind", kConfigMultiArg, "127.0.0.1 -::1", ParseBind, RewriteBind),
    String("bind-source-addr", kNull, ""),
    Bool("protected-mode", 0, "yes", &CV::protected_mode),
    Enum("enable-protected-configs", kImmutable, "no", kProtectedAction),
    Enum("enable-debug-command", kImmutable, "no", kProtectedAction, &CV::enable_debug_command),
    Enum("enable-module-command", kImmutable, "no", kProtectedAction),
    Int("port", 0, "6379", 0, 65535, &CV::port),
    Int("tcp-backlog", kImmutable, "511", 0, kIntMax, &CV::tcp_backlog),
    String("unixsocket", kImmutable | kNull, ""),
    UnixSocketPerm(),
    Int("timeout", 0, "0", 0, kIntMax, &CV::timeout_seconds),
    Int("tcp-keepalive", 0, "300", 0, kIntMax, &CV::tcp_keepalive_seconds),
    Int("socket-mark-id", kImmutable, "0", 0, kUintMax),
    // TLS (Debian builds Redis with it; Keel accepts the names and refuses to turn TLS on).
    Int("tls-port", 0, "0", 0, 65535),
    String("tls-cert-file", kNull, ""),
    String("tls-key-file", kNull, ""),
    String("tls-key-file-pass", kNull, ""),
    String("tls-client-cert-file", kNull, ""),
    String("tls-client-key-file", kNull, ""),
    String("tls-client-key-file-pass", kNull, ""),
    String("tls-dh-params-file", kNull, ""),
    String("tls-ca-cert-file", kNull, ""),
    String("tls-ca-cert-dir", kNull, ""),
    Enum("tls-auth-clients", 0, "yes", "no yes optional"),
    Bool("tls-replication", 0, "no"),
    Bool("tls-cluster", 0, "no"),
    String("tls-protocols", kNull, ""),
    String("tls-ciphers", kNull, ""),
    String("tls-ciphersuites", kNull, ""),
    Bool("tls-prefer-server-ciphers", 0, "no"),
    Bool("tls-session-caching", 0, "yes"),
    Int("tls-session-cache-size", 0, "20480", 0, kIntMax),
    Int("tls-session-cache-timeout", 0, "300", 0, kIntMax),
    // General.
    Bool("daemonize", kImmutable, "no", &CV::daemonize),
    Enum("supervised", kImmutable, "no", "upstart systemd auto no"),
    String("pidfile", kImmutable | kNull, "", &CV::pidfile),
    Enum("loglevel", 0, "notice", "debug verbose notice warning", &CV::loglevel),
    String("logfile", kImmutable, "", &CV::logfile),
    Bool("syslog-enabled", kImmutable, "no"),
    String("syslog-ident", kImmutable, "redis"),
    Enum("syslog-facility", kImmutable, "local0",
         "user local0 local1 local2 local3 local4 local5 local6 local7"),
    Bool("crash-log-enabled", 0, "yes"),
    Bool("crash-memcheck-enabled", 0, "yes"),
    // Redis takes up to INT_MAX (and allocates them all at start); the keyspace takes at most
    // limits::kDatabasesMax, so a larger value is refused with Redis's range error instead of
    // aborting the server (docs/DESIGN.md, deliberate differences).
    Int("databases", kImmutable, "16", 1, limits::kDatabasesMax, &CV::databases),
    Bool("always-show-logo", kImmutable, "no"),
    Bool("set-proc-title", kImmutable, "yes"),
    String("proc-title-template", 0, "{title} {listen-addr} {server-mode}", nullptr,
           ValidateProcTitleTemplate),
    // Snapshotting.
    Special("save", kConfigMultiArg | kConfigAccumulates, "3600 1 300 100 60 10000", ParseSave,
            RewriteSave),
    Bool("stop-writes-on-bgsave-error", 0, "yes", &CV::stop_writes_on_bgsave_error),
    Bool("rdbcompression", 0, "yes", &CV::rdbcompression),
    Bool("rdbchecksum", kImmutable, "yes", &CV::rdbchecksum),
    // Keel only (the default is Redis's file): a zstd-compressed snapshot for backups and large
    // datasets; level 19 is zstd's highest before its memory-hungry "ultra" levels.
    Enum("rdb-compression-algorithm", kKeelOnly, "lzf", "lzf zstd", &CV::rdb_compression_algorithm),
    Int("rdb-zstd-level", kKeelOnly, "1", 1, 19, &CV::rdb_zstd_level),
    Enum("sanitize-dump-payload", 0, "no", "no yes clients"),
    String("dbfilename", kProtected, "dump.rdb", &CV::dbfilename, ValidateDbfilename),
    Bool("rdb-del-sync-files", 0, "no"),
    Special("dir", kProtected, "", ParseDir, RewriteDir),
    // Replication.
    Special("replicaof", kImmutable | kConfigMultiArg, "", ParseReplicaof, RewriteReplicaof)
        .Alias("slaveof"),
    String("masterauth", kSensitive | kNull, ""),
    String("masteruser", kSensitive | kNull, ""),
    Bool("replica-serve-stale-data", 0, "yes").Alias("slave-serve-stale-data"),
    Bool("replica-read-only", 0, "yes").Alias("slave-read-only"),
    Bool("repl-diskless-sync", 0, "yes"),
    Int("repl-diskless-sync-delay", 0, "5", 0, kIntMax),
    Int("repl-diskless-sync-max-replicas", 0, "0", 0, kIntMax),
    Enum("repl-diskless-load", 0, "disabled", "disabled on-empty-db swapdb"),
    Int("repl-ping-replica-period", 0, "10", 1, kIntMax).Alias("repl-ping-slave-period"),
    Int("repl-timeout", 0, "60", 1, kIntMax),
    Bool("repl-disable-tcp-nodelay", 0, "no"),
    Memory("repl-backlog-size", 0, "1048576", 1, kLongMax),
    Int("repl-backlog-ttl", 0, "3600", 0, kLongMax),
    Int("replica-priority", 0, "100", 0, kIntMax).Alias("slave-priority"),
    Enum("propagation-error-behavior", 0, "ignore", "ignore panic panic-on-replicas"),
    Bool("replica-ignore-disk-write-errors", 0, "no"),
    Bool("replica-announced", 0, "yes"),
    Int("min-replicas-to-write", 0, "0", 0, kIntMax).Alias("min-slaves-to-write"),
    Int("min-replicas-max-lag", 0, "10", 0, kIntMax).Alias("min-slaves-max-lag"),
    String("replica-announce-ip", kNull, "").Alias("slave-announce-ip"),
    Int("replica-announce-port", 0, "0", 0, 65535).Alias("slave-announce-port"),
    // Keys tracking and security.
    Int("tracking-table-max-keys", 0, "1000000", 0, kLongMax, &CV::tracking_table_max_keys),
    Int("acllog-max-len", 0, "128", 0, kLongMax),
    String("aclfile", kImmutable, ""),
    String("requirepass", kSensitive | kNull, "", &CV::requirepass),
    Enum("acl-pubsub-default", 0, "resetchannels", "allchannels resetchannels"),
    // Clients and memory.
    Int("maxclients", 0, "10000", 1, kUintMax, &CV::maxclients),
    Memory("maxmemory", kConfigUnsigned, "0", 0, 0, &CV::maxmemory),
    Enum("maxmemory-policy", 0, "noeviction",
         "volatile-lru volatile-lfu volatile-random volatile-ttl allkeys-lru allkeys-lfu "
         "allkeys-random noeviction",
         &CV::maxmemory_policy),
    Int("maxmemory-samples", 0, "5", 1, kIntMax, &CV::maxmemory_samples),
    Int("maxmemory-eviction-tenacity", 0, "10", 0, 100, &CV::maxmemory_eviction_tenacity),
    Bool("replica-ignore-maxmemory", 0, "yes").Alias("slave-ignore-maxmemory"),
    Int("active-expire-effort", 0, "1", 1, 10, &CV::active_expire_effort),
    // Lazy freeing, threads, OOM score.
    Bool("lazyfree-lazy-eviction", 0, "no", &CV::lazyfree_lazy_eviction),
    Bool("lazyfree-lazy-expire", 0, "no", &CV::lazyfree_lazy_expire),
    Bool("lazyfree-lazy-server-del", 0, "no", &CV::lazyfree_lazy_server_del),
    Bool("replica-lazy-flush", 0, "no").Alias("slave-lazy-flush"),
    Bool("lazyfree-lazy-user-del", 0, "no", &CV::lazyfree_lazy_user_del),
    Bool("lazyfree-lazy-user-flush", 0, "no"),
    Int("io-threads", kImmutable, "1", 1, 128),
    Bool("io-threads-do-reads", kImmutable, "no"),
    Enum("oom-score-adj", 0, "no", "no yes relative absolute"),
    Special("oom-score-adj-values", kConfigMultiArg, "0 200 800", ParseOomScoreAdjValues,
            RewriteOomScoreAdjValues),
    Bool("disable-thp", kImmutable, "yes"),
    // Append only file.
    Bool("appendonly", 0, "no", &CV::appendonly),
    String("appendfilename", kImmutable, "appendonly.aof", &CV::appendfilename,
           ValidateAppendfilename),
    String("appenddirname", kImmutable, "appendonlydir", &CV::appenddirname, ValidateAppenddirname),
    Enum("appendfsync", 0, "everysec", "everysec always no", &CV::appendfsync),
    Bool("no-appendfsync-on-rewrite", 0, "no", &CV::no_appendfsync_on_rewrite),
    Int("auto-aof-rewrite-percentage", 0, "100", 0, kIntMax, &CV::auto_aof_rewrite_percentage),
    Memory("auto-aof-rewrite-min-size", 0, "67108864", 0, kLongMax, &CV::auto_aof_rewrite_min_size),
    Bool("aof-load-truncated", 0, "yes", &CV::aof_load_truncated),
    Bool("aof-use-rdb-preamble", 0, "yes", &CV::aof_use_rdb_preamble),
    Bool("aof-timestamp-enabled", 0, "no", &CV::aof_timestamp_enabled),
    Bool("aof-disable-auto-gc", 0, "no", &CV::aof_disable_auto_gc),
    // Shutdown, scripting.
    Int("shutdown-timeout", 0, "10", 0, kIntMax),
    WithValidator(Enum("shutdown-on-sigint", kConfigMultiArg, "default", kShutdownChoices),
                  ValidateShutdownFlags),
    WithValidator(Enum("shutdown-on-sigterm", kConfigMultiArg, "default", kShutdownChoices),
                  ValidateShutdownFlags),
    Int("busy-reply-threshold", 0, "5000", 0, kLongMax, &CV::busy_reply_threshold_ms)
        .Alias("lua-time-limit"),
    // Cluster.
    Bool("cluster-enabled", kImmutable, "no"),
    String("cluster-config-file", kImmutable, "nodes.conf"),
    Int("cluster-node-timeout", 0, "15000", 0, kLongMax),
    Int("cluster-port", kImmutable, "0", 0, 65535),
    Int("cluster-replica-validity-factor", 0, "10", 0, kIntMax)
        .Alias("cluster-slave-validity-factor"),
    Int("cluster-migration-barrier", 0, "1", 0, kIntMax),
    Bool("cluster-allow-replica-migration", 0, "yes"),
    Bool("cluster-require-full-coverage", 0, "yes"),
    Bool("cluster-replica-no-failover", 0, "no").Alias("cluster-slave-no-failover"),
    Bool("cluster-allow-reads-when-down", 0, "no"),
    Bool("cluster-allow-pubsubshard-when-down", 0, "yes"),
    Memory("cluster-link-sendbuf-limit", kConfigUnsigned, "0", 0, 0),
    String("cluster-announce-hostname", kNull, "", nullptr, ValidateHostname),
    Enum("cluster-preferred-endpoint-type", 0, "ip", "ip hostname unknown-endpoint"),
    Int("cluster-announce-tls-port", 0, "0", 0, 65535),
    String("cluster-announce-ip", kNull, ""),
    Int("cluster-announce-port", 0, "0", 0, 65535),
    Int("cluster-announce-bus-port", 0, "0", 0, 65535),
    // Slow log, latency, notifications.
    Int("slowlog-log-slower-than", 0, "10000", -1, kLongMax, &CV::slowlog_log_slower_than),
    Int("slowlog-max-len", 0, "128", 0, kLongMax, &CV::slowlog_max_len),
    Int("latency-monitor-threshold", 0, "0", 0, kLongMax, &CV::latency_monitor_threshold_ms),
    Bool("latency-tracking", 0, "yes", &CV::latency_tracking),
    Special("latency-tracking-info-percentiles", kConfigMultiArg, "50 99 99.9",
            ParseLatencyPercentiles, RewriteLatencyPercentiles),
    Special("notify-keyspace-events", 0, "", ParseNotifyKeyspaceEvents,
            RewriteNotifyKeyspaceEvents),
    // Data structure encodings.
    Int("hash-max-listpack-entries", 0, "512", 0, kLongMax, &CV::hash_max_listpack_entries)
        .Alias("hash-max-ziplist-entries"),
    Memory("hash-max-listpack-value", 0, "64", 0, kLongMax, &CV::hash_max_listpack_value)
        .Alias("hash-max-ziplist-value"),
    Int("list-max-listpack-size", 0, "-2", kIntMin, kIntMax, &CV::list_max_listpack_size)
        .Alias("list-max-ziplist-size"),
    Int("list-compress-depth", 0, "0", 0, kIntMax, &CV::list_compress_depth),
    Int("set-max-intset-entries", 0, "512", 0, kLongMax, &CV::set_max_intset_entries),
    Int("zset-max-listpack-entries", 0, "128", 0, kLongMax, &CV::zset_max_listpack_entries)
        .Alias("zset-max-ziplist-entries"),
    Memory("zset-max-listpack-value", 0, "64", 0, kLongMax, &CV::zset_max_listpack_value)
        .Alias("zset-max-ziplist-value"),
    Memory("hll-sparse-max-bytes", 0, "3000", 0, kLongMax, &CV::hll_sparse_max_bytes),
    Memory("stream-node-max-bytes", 0, "4096", 0, kLongMax, &CV::stream_node_max_bytes),
    Int("stream-node-max-entries", 0, "100", 0, kLongMax, &CV::stream_node_max_entries),
    Bool("activerehashing", 0, "yes", &CV::activerehashing),
    // Client limits and background tasks.
    Special("client-output-buffer-limit", kConfigMultiArg,
            "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
            ParseOutputBufferLimit, RewriteOutputBufferLimit),
    Memory("client-query-buffer-limit", 0, "1073741824", 1024 * 1024, kLongMax,
           &CV::client_query_buffer_limit),
    Memory("maxmemory-clients", kConfigPercent, "0", -100, kLongMax),
    Memory("proto-max-bulk-len", 0, "536870912", 1024 * 1024, kLongMax, &CV::proto_max_bulk_len),
    HzParam(),
    Bool("dynamic-hz", 0, "yes"),
    Bool("aof-rewrite-incremental-fsync", 0, "yes"),
    Bool("rdb-save-incremental-fsync", 0, "yes"),
    Int("lfu-log-factor", 0, "10", 0, kIntMax, &CV::lfu_log_factor),
    Int("lfu-decay-time", 0, "1", 0, kIntMax, &CV::lfu_decay_time_minutes),
    // Active defragmentation.
    Bool("activedefrag", 0, "no", nullptr, ValidateActiveDefrag),
    Memory("active-defrag-ignore-bytes", 0, "104857600", 1, kLongMax),
    Int("active-defrag-threshold-lower", 0, "10", 0, 1000),
    Int("active-defrag-threshold-upper", 0, "100", 0, 1000),
    Int("active-defrag-cycle-min", 0, "1", 1, 99),
    Int("active-defrag-cycle-max", 0, "25", 1, 99),
    Int("active-defrag-max-scan-fields", 0, "1000", 1, kLongMax),
    Bool("jemalloc-bg-thread", 0, "yes"),
    String("server_cpulist", kImmutable | kNull, ""),
    String("bio_cpulist", kImmutable | kNull, ""),
    String("aof_rewrite_cpulist", kImmutable | kNull, ""),
    String("bgsave_cpulist", kImmutable | kNull, ""),
    String("ignore-warnings", 0, ""),
    // Hidden: CONFIG GET * leaves them out; CONFIG GET/SET take them by exact name.
    Bool("use-exit-on-panic", kHidden, "no"),
    Int("rdb-key-save-delay", kHidden, "0", kIntMin, kIntMax),
    Int("key-load-delay", kHidden, "0", kIntMin, kIntMax),
    Int("watchdog-period", kHidden, "0", 0, kIntMax),
    Int("loading-process-events-interval-bytes", kHidden, "2097152", 1024, kIntMax),
    // Debian's addition (the Lua CVE fixes): whether scripts may use deprecated Lua APIs.
    Bool("lua-enable-deprecated-api", kImmutable | kHidden, "no"),
    // Keel's own: how keel-server's network waits and moves bytes (io/uring_network.h), chosen
    // at start. Hidden so that CONFIG GET * lists Redis's parameters only.
    Enum("io-backend", kImmutable | kHidden, "io_uring", "epoll io_uring", &CV::io_backend),
};

}  // namespace

std::span<const ConfigParam> ConfigTable() { return kTable; }

}  // namespace keel
