#include "engine/server/config.h"

#include <cstdio>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/base/split.h"
#include "engine/resp/request_parser.h"
#include "engine/server/config_file.h"

namespace keel {
namespace {

std::vector<std::string_view> Choices(std::string_view text) {
  std::vector<std::string_view> names;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) names.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

std::string RangeError(int64_t min, int64_t max) {
  return "argument must be between " + Int64ToString(min) + " and " + Int64ToString(max) +
         " inclusive";
}

std::string Uint64ToString(uint64_t value) {
  char buffer[kInt64TextMax];
  return std::string(buffer, FormatUint64(value, buffer));
}

std::string OctalToString(uint64_t value) {
  char buffer[32];
  const int length =
      std::snprintf(buffer, sizeof(buffer), "%llo", static_cast<unsigned long long>(value));
  return std::string(buffer, static_cast<size_t>(length));
}

// The bit a flag-set enum gives its choice `index`: the first choice is the empty set
// ("default"), the others one bit each in order (shutdown-on-sigint save now = 1 | 4).
int64_t EnumFlag(size_t index) { return index == 0 ? 0 : int64_t{1} << (index - 1); }

bool SetEnum(const ConfigParam& param, std::span<const std::string_view> words, int64_t* value,
             std::string* canonical, std::string* error) {
  const std::vector<std::string_view> names = Choices(param.choices);
  const bool flag_set = (param.flags & kConfigMultiArg) != 0;
  bool valid = !words.empty() && (flag_set || words.size() == 1);
  int64_t chosen = 0;
  for (size_t w = 0; valid && w < words.size(); w++) {
    valid = false;
    for (size_t i = 0; i < names.size(); i++) {
      if (!EqualsIgnoreCase(names[i], words[w])) continue;
      chosen = flag_set ? (chosen | EnumFlag(i)) : static_cast<int64_t>(i);
      valid = true;
      break;
    }
  }
  if (!valid) {
    *error = "argument(s) must be one of the following: ";
    for (size_t i = 0; i < names.size(); i++) {
      if (i > 0) *error += ", ";
      *error += names[i];
    }
    return false;
  }
  canonical->clear();
  if (!flag_set) {
    *canonical = std::string(names[static_cast<size_t>(chosen)]);
  } else if (chosen == 0) {
    *canonical = std::string(names[0]);
  } else {
    for (size_t i = 1; i < names.size(); i++) {
      if ((chosen & EnumFlag(i)) == 0) continue;
      if (!canonical->empty()) *canonical += ' ';
      *canonical += names[i];
    }
  }
  *value = chosen;
  return true;
}

// kMemory: a memory value, or with kConfigPercent "N%" (kept negative, as Redis keeps it).
bool SetMemory(const ConfigParam& param, std::string_view word, int64_t* value,
               std::string* canonical, std::string* error) {
  const bool percent_allowed = (param.flags & kConfigPercent) != 0;
  uint64_t bytes = 0;
  int64_t signed_value = 0;
  if (ParseMemory(word, &bytes)) {
    // Redis stores the unsigned result into the parameter's C type, so a wrapped value above
    // INT64_MAX reads as negative for the signed ones and fails their bounds.
    signed_value = static_cast<int64_t>(bytes);
  } else if (percent_allowed && word.size() > 1 && word.back() == '%' &&
             ParseStrictInt64(word.substr(0, word.size() - 1), &signed_value) &&
             signed_value >= 0) {
    signed_value = -signed_value;
  } else {
    *error = percent_allowed ? "argument must be a memory or percent value"
                             : "argument must be a memory value";
    return false;
  }
  if (param.flags & kConfigUnsigned) {
    *canonical = Uint64ToString(bytes);
    *value = bytes > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : signed_value;
    return true;
  }
  if (percent_allowed && signed_value < 0) {
    if (signed_value < param.min) {
      *error = "percentage argument must be less or equal to " + Int64ToString(-param.min);
      return false;
    }
    *canonical = Int64ToString(-signed_value) + "%";
    *value = signed_value;
    return true;
  }
  if (signed_value < param.min || signed_value > param.max) {
    *error = RangeError(param.min, param.max);
    return false;
  }
  *canonical = Int64ToString(signed_value);
  *value = signed_value;
  return true;
}

// kOctal: strtoll base 8; bounds are compared unsigned and reported in octal, as Redis does for
// unixsocketperm ("-1" is out of range, not unparsable).
bool SetOctal(const ConfigParam& param, std::string_view word, int64_t* value,
              std::string* canonical, std::string* error) {
  int64_t parsed = 0;
  bool overflow = false;
  if (!ParseStrtoll(word, 8, &parsed, &overflow) || overflow) {
    *error = "argument couldn't be parsed as an octal number";
    return false;
  }
  const uint64_t bits = static_cast<uint64_t>(parsed);
  if (bits < static_cast<uint64_t>(param.min) || bits > static_cast<uint64_t>(param.max)) {
    *error = "argument must be between " + OctalToString(static_cast<uint64_t>(param.min)) +
             " and " + OctalToString(static_cast<uint64_t>(param.max)) + " inclusive";
    return false;
  }
  *canonical = OctalToString(bits);
  *value = parsed;
  return true;
}

}  // namespace

bool ParseMemory(std::string_view text, uint64_t* bytes) {
  if (!text.empty() && text[0] == '-') return false;
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
  const std::string unit = AsciiLowercase(text.substr(digits));
  uint64_t multiplier = 1;
  if (unit.empty() || unit == "b") {
    multiplier = 1;
  } else if (unit == "k") {
    multiplier = 1000;
  } else if (unit == "kb") {
    multiplier = 1024;
  } else if (unit == "m") {
    multiplier = 1000 * 1000;
  } else if (unit == "mb") {
    multiplier = 1024 * 1024;
  } else if (unit == "g") {
    multiplier = 1000ull * 1000 * 1000;
  } else if (unit == "gb") {
    multiplier = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  // Redis copies the digits into a 128-byte buffer and refuses longer numbers.
  if (digits >= 128) return false;
  uint64_t value = 0;
  for (size_t i = 0; i < digits; i++) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      value = UINT64_MAX;  // strtoull saturates and Redis does not look at errno
      break;
    }
    value = value * 10 + digit;
  }
  *bytes = value * multiplier;  // wraps modulo 2^64, as Redis's unsigned multiplication does
  return true;
}

bool ParseStrtoll(std::string_view text, int base, int64_t* value, bool* overflow) {
  KEEL_ASSERT(base >= 2 && base <= 10);
  auto is_space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  size_t i = 0;
  while (i < text.size() && is_space(text[i])) i++;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const size_t first_digit = i;
  uint64_t magnitude = 0;
  bool saturated = false;
  const uint64_t limit = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(INT64_MAX);
  for (; i < text.size() && text[i] >= '0' && text[i] < '0' + base; i++) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (magnitude > (limit - digit) / static_cast<uint64_t>(base)) {
      saturated = true;
    } else {
      magnitude = magnitude * static_cast<uint64_t>(base) + digit;
    }
  }
  if (overflow != nullptr) *overflow = saturated;
  // Without digits strtoll consumes nothing, so only the empty text is consumed entirely.
  if (i == first_digit) {
    *value = 0;
    return text.empty();
  }
  if (saturated) magnitude = limit;
  *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return i == text.size();
}

bool SplitConfigArgs(std::string_view line, std::vector<std::string>* words) {
  std::string copy(line.substr(0, line.find('\0')));
  std::vector<std::string_view> views;
  if (!SplitArgsInPlace(copy.data(), copy.size(), &views)) return false;
  words->clear();
  for (std::string_view view : views) words->emplace_back(view);
  return true;
}

std::vector<std::string_view> SplitAtSpaces(std::string_view text) { return SplitOn(text, ' '); }

std::string FormatMemoryForConfig(uint64_t bytes) {
  constexpr uint64_t kKb = 1024;
  constexpr uint64_t kMb = kKb * 1024;
  constexpr uint64_t kGb = kMb * 1024;
  if (bytes != 0 && bytes % kGb == 0) return Uint64ToString(bytes / kGb) + "gb";
  if (bytes != 0 && bytes % kMb == 0) return Uint64ToString(bytes / kMb) + "mb";
  if (bytes != 0 && bytes % kKb == 0) return Uint64ToString(bytes / kKb) + "kb";
  return Uint64ToString(bytes);
}

Config::Config() {
  // Parsing every default costs more than building an engine's keyspace; the defaults are
  // constant, so they are parsed once per process and copied from then on.
  static const Config* const kDefaults = new Config(BuildDefaults{});
  *this = *kDefaults;
}

Config::Config(BuildDefaults /*tag*/) {
  std::span<const ConfigParam> table = ConfigTable();
  texts_.resize(table.size());
  file_loaded_.assign(table.size(), false);
  for (const ConfigParam& param : table) {
    // A special parameter whose default is empty (dir, replicaof, notify-keyspace-events) starts
    // unset; its parser may refuse "" as a value (dir "" fails in Redis).
    if (param.kind == ConfigKind::kSpecial && param.default_value.empty()) continue;
    std::string error;
    const bool ok = SetFromCommand(param, param.default_value, &error);
    KEEL_ASSERT(ok);
  }
}

const ConfigParam* Config::Find(std::string_view name) {
  std::string_view entry;
  return Find(name, &entry);
}

const ConfigParam* Config::Find(std::string_view name, std::string_view* entry) {
  for (const ConfigParam& param : ConfigTable()) {
    if (EqualsIgnoreCase(param.name, name)) {
      *entry = param.name;
      return &param;
    }
    if (!param.alias.empty() && EqualsIgnoreCase(param.alias, name)) {
      *entry = param.alias;
      return &param;
    }
  }
  return nullptr;
}

size_t Config::IndexOf(const ConfigParam& param) const {
  std::span<const ConfigParam> table = ConfigTable();
  KEEL_ASSERT(&param >= table.data() && &param < table.data() + table.size());
  return static_cast<size_t>(&param - table.data());
}

bool Config::Set(const ConfigParam& param, std::span<const std::string_view> words,
                 std::string* error) {
  return SetWords(param, words, error);
}

bool Config::SetFromCommand(const ConfigParam& param, std::string_view value, std::string* error) {
  if (param.flags & kConfigMultiArg) {
    const std::vector<std::string_view> words = SplitAtSpaces(value);
    return SetWords(param, words, error);
  }
  const std::string_view words[] = {value};
  return SetWords(param, words, error);
}

bool Config::SetWords(const ConfigParam& param, std::span<const std::string_view> words,
                      std::string* error) {
  const size_t index = IndexOf(param);
  std::string canonical;
  if (param.kind == ConfigKind::kSpecial) {
    ConfigSpecialInput input;
    input.words = words;
    input.current = texts_[index];
    input.append = (param.flags & kConfigAccumulates) && reading_file_ && file_loaded_[index];
    ConfigValues staged = values_;
    if (!param.special(input, &staged, &canonical, error)) return false;
    values_ = std::move(staged);
    texts_[index] = std::move(canonical);
    if (reading_file_) file_loaded_[index] = true;
    return true;
  }
  const bool flag_enum = param.kind == ConfigKind::kEnum && (param.flags & kConfigMultiArg);
  if (!flag_enum && words.size() != 1) {
    *error = "wrong number of arguments";
    return false;
  }
  int64_t number = 0;
  switch (param.kind) {
    case ConfigKind::kBool:
      if (EqualsIgnoreCase(words[0], "yes")) {
        canonical = "yes";
      } else if (EqualsIgnoreCase(words[0], "no")) {
        canonical = "no";
      } else {
        *error = "argument must be 'yes' or 'no'";
        return false;
      }
      break;
    case ConfigKind::kInteger:
      if (!ParseStrictInt64(words[0], &number)) {
        *error = "argument couldn't be parsed into an integer";
        return false;
      }
      if (number < param.min || number > param.max) {
        *error = RangeError(param.min, param.max);
        return false;
      }
      if (param.adjust != nullptr) number = param.adjust(number);
      canonical = Int64ToString(number);
      break;
    case ConfigKind::kMemory:
      if (!SetMemory(param, words[0], &number, &canonical, error)) return false;
      break;
    case ConfigKind::kOctal:
      if (!SetOctal(param, words[0], &number, &canonical, error)) return false;
      break;
    case ConfigKind::kEnum:
      if (!SetEnum(param, words, &number, &canonical, error)) return false;
      break;
    case ConfigKind::kString:
      canonical = std::string(words[0]);
      break;
    case ConfigKind::kSpecial:
      KEEL_ASSERT(false);
  }
  if (param.validate != nullptr && !param.validate(canonical, error)) return false;
  if (param.integer_field != nullptr) values_.*param.integer_field = number;
  if (param.bool_field != nullptr) values_.*param.bool_field = canonical == "yes";
  if (param.string_field != nullptr) values_.*param.string_field = canonical;
  texts_[index] = std::move(canonical);
  return true;
}

const std::string& Config::Get(const ConfigParam& param) const { return texts_[IndexOf(param)]; }

std::vector<ConfigRewriteLine> Config::RewriteLines(const ConfigParam& param) const {
  const std::string& text = Get(param);
  std::vector<ConfigRewriteLine> lines;
  const std::string prefix = std::string(param.name) + " ";
  const bool differs = text != param.default_value;
  switch (param.kind) {
    case ConfigKind::kSpecial:
      param.rewrite(param, text, &lines);
      break;
    case ConfigKind::kString:
      // Redis drops an unset (NULL) string's lines; a set one is always written unless it has a
      // default and equals it.
      if (text.empty() && (param.flags & kConfigEmptyIsNull)) break;
      lines.push_back(
          {prefix + QuoteConfigArg(text), (param.flags & kConfigEmptyIsNull) ? true : differs});
      break;
    case ConfigKind::kMemory:
      if (!text.empty() && text.back() == '%') {
        lines.push_back({prefix + text, differs});
      } else {
        uint64_t bytes = 0;
        const bool parsed = ParseMemory(text, &bytes);
        KEEL_ASSERT(parsed);
        lines.push_back({prefix + FormatMemoryForConfig(bytes), differs});
      }
      break;
    case ConfigKind::kBool:
    case ConfigKind::kInteger:
    case ConfigKind::kOctal:
    case ConfigKind::kEnum:
      lines.push_back({prefix + text, differs});
      break;
  }
  return lines;
}

}  // namespace keel
