#include "engine/server/config.h"

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/resp/request_parser.h"

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

}  // namespace

bool ParseMemory(std::string_view text, int64_t* bytes) {
  // Redis's memtoull: digits, then an optional unit among b k kb m mb g gb (any case).
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
  if (digits == 0) return false;
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
  uint64_t value = 0;
  for (size_t i = 0; i < digits; i++) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  if (value > static_cast<uint64_t>(INT64_MAX) / multiplier) return false;
  *bytes = static_cast<int64_t>(value * multiplier);
  return true;
}

bool SplitConfigArgs(std::string_view line, std::vector<std::string>* words) {
  std::string copy(line.substr(0, line.find('\0')));
  std::vector<std::string_view> views;
  if (!SplitArgsInPlace(copy.data(), copy.size(), &views)) return false;
  words->clear();
  for (std::string_view view : views) words->emplace_back(view);
  return true;
}

Config::Config() {
  std::span<const ConfigParam> table = ConfigTable();
  texts_.resize(table.size());
  for (const ConfigParam& param : table) {
    std::vector<std::string> words;
    // A default that is one word (or empty) is set as one word, as CONFIG SET would; a special
    // default is split like a config line.
    if (param.kind == ConfigKind::kSpecial) {
      KEEL_ASSERT(SplitConfigArgs(param.default_value, &words));
    } else {
      words.emplace_back(param.default_value);
    }
    std::vector<std::string_view> views(words.begin(), words.end());
    std::string error;
    const bool ok = Set(param, views, &error);
    KEEL_ASSERT(ok);
  }
}

const ConfigParam* Config::Find(std::string_view name) {
  for (const ConfigParam& param : ConfigTable()) {
    if (EqualsIgnoreCase(param.name, name)) return &param;
    if (!param.alias.empty() && EqualsIgnoreCase(param.alias, name)) return &param;
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
  const size_t index = IndexOf(param);
  if (param.kind == ConfigKind::kSpecial) {
    ConfigValues staged = values_;
    std::string canonical;
    if (!param.special(words, &staged, &canonical, error)) return false;
    values_ = std::move(staged);
    texts_[index] = std::move(canonical);
    return true;
  }
  if (words.size() != 1) {
    *error = "wrong number of arguments";
    return false;
  }
  const std::string_view word = words[0];
  switch (param.kind) {
    case ConfigKind::kBool: {
      bool value = false;
      if (EqualsIgnoreCase(word, "yes")) {
        value = true;
      } else if (!EqualsIgnoreCase(word, "no")) {
        *error = "argument must be 'yes' or 'no'";
        return false;
      }
      if (param.bool_field != nullptr) values_.*param.bool_field = value;
      texts_[index] = value ? "yes" : "no";
      return true;
    }
    case ConfigKind::kInteger:
    case ConfigKind::kMemory: {
      int64_t value = 0;
      if (param.kind == ConfigKind::kInteger) {
        if (!ParseStrictInt64(word, &value)) {
          *error = "argument couldn't be parsed into an integer";
          return false;
        }
      } else if (!ParseMemory(word, &value)) {
        *error = "argument must be a memory value";
        return false;
      }
      if (value < param.min || value > param.max) {
        *error = RangeError(param.min, param.max);
        return false;
      }
      if (param.integer_field != nullptr) values_.*param.integer_field = value;
      texts_[index] = Int64ToString(value);
      return true;
    }
    case ConfigKind::kEnum: {
      std::vector<std::string_view> names = Choices(param.choices);
      for (size_t i = 0; i < names.size(); i++) {
        if (EqualsIgnoreCase(names[i], word)) {
          if (param.integer_field != nullptr) values_.*param.integer_field = static_cast<int64_t>(i);
          texts_[index] = std::string(names[i]);
          return true;
        }
      }
      *error = "argument(s) must be one of the following: ";
      for (size_t i = 0; i < names.size(); i++) {
        if (i > 0) *error += ", ";
        *error += names[i];
      }
      return false;
    }
    case ConfigKind::kString: {
      if (param.string_field != nullptr) values_.*param.string_field = std::string(word);
      texts_[index] = std::string(word);
      return true;
    }
    case ConfigKind::kSpecial: break;
  }
  *error = "unsupported parameter kind";
  return false;
}

std::string Config::Get(const ConfigParam& param) const { return texts_[IndexOf(param)]; }

}  // namespace keel
