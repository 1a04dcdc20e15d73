// The keyspace walks in the model: KEYS, SCAN and RANDOMKEY. Their replies depend on the engine's
// hash table (order, which keys a SCAN page holds, which key is drawn), so they are predicted as
// bounds (expected.h): KEYS as a set, a SCAN page as a subset, RANDOMKEY as one of the live keys.
//
// Expired keys: KEYS skips them without reclaiming (Redis's KEYS only checks keyIsExpired). A SCAN
// page and RANDOMKEY reclaim the expired keys they meet, which the model cannot know; the driver
// forgets those keys once it sees the engine no longer holds them (Model::ForgetExpired). One
// case is certain: RANDOMKEY finding no live key has drawn, and reclaimed, every expired one.
#include <cerrno>
#include <cstdlib>

#include "sim/model/model.h"

namespace keel::model {
namespace {

// The live keys of the session's database that `pattern` lets through ("*" lists every key
// without matching, which includes the empty key, as Redis does).
std::vector<std::string> LiveMatching(Call& call, std::string_view pattern, bool use_pattern) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : call.db()) {
    if (Model::IsExpired(value, call.now_ms())) continue;
    if (use_pattern && !GlobMatch(pattern, key)) continue;
    keys.push_back(key);
  }
  return keys;
}

Expected Keys(Call& call) {
  const std::string& pattern = call.args[1];
  return BulkSet(LiveMatching(call, pattern, pattern != "*"));
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: options in pairs, in any order, repeated
// (the last wins); COUNT must be an integer of at least 1. Without TYPE a page lists live keys;
// with TYPE Redis checks the type by a lookup that reclaims an expired key first, so an expired
// key the page met is listed under TYPE none.
Expected Scan(Call& call) {
  if (!ValidCursor(call.args[1])) return Error("ERR invalid cursor");
  std::string_view pattern;
  bool use_pattern = false;
  bool use_type = false;
  std::string type;
  for (size_t i = 2; i < call.args.size(); i += 2) {
    if (i + 1 >= call.args.size()) return Error(kSyntaxError);
    const std::string& option = call.args[i];
    const std::string& value = call.args[i + 1];
    if (OptionIs(option, "COUNT")) {
      int64_t count = 0;
      if (!ParseInt64(value, &count)) return Error(kNotInteger);
      if (count < 1) return Error(kSyntaxError);
    } else if (OptionIs(option, "MATCH")) {
      pattern = value;
      use_pattern = value != "*";
    } else if (OptionIs(option, "TYPE")) {
      use_type = true;
      type = value.substr(0, value.find('\0'));
    } else {
      return Error(kSyntaxError);
    }
  }
  if (!use_type) return ScanPage(LiveMatching(call, pattern, use_pattern));
  for (const ValueType value_type : {ValueType::kString, ValueType::kList, ValueType::kSet,
                                     ValueType::kZSet, ValueType::kHash, ValueType::kStream}) {
    if (!EqualsIgnoreCase(type, TypeName(value_type))) continue;
    std::vector<std::string> typed;
    for (const std::string& key : LiveMatching(call, pattern, use_pattern)) {
      if (call.db().at(key).type == value_type) typed.push_back(key);
    }
    return ScanPage(std::move(typed));
  }
  std::vector<std::string> expired;
  if (EqualsIgnoreCase(type, "none")) {
    for (const auto& [key, value] : call.db()) {
      if (!Model::IsExpired(value, call.now_ms())) continue;
      if (use_pattern && !GlobMatch(pattern, key)) continue;
      expired.push_back(key);
    }
  }
  return ScanPage(std::move(expired));
}

Expected Randomkey(Call& call) {
  std::vector<Expected> keys;
  for (const std::string& key : LiveMatching(call, "*", false)) keys.push_back(Bulk(key));
  if (keys.empty()) {
    call.db().clear();  // every key left had expired, and each was drawn and reclaimed
    return call.Null();
  }
  return OneOf(std::move(keys));
}

constexpr Command kCommands[] = {
    {"keys", 0, Keys},
    {"scan", 0, Scan},
    {"randomkey", 0, Randomkey},
};

}  // namespace

std::span<const Command> ScanCommands() { return kCommands; }

// Redis's parseScanCursorOrReply: strtoul over the argument as a C string, so "" is 0, a sign is
// allowed ("-1" wraps around), and leading space, trailing bytes or overflow are refused. Any
// cursor that parses is valid: where it resumes is the engine's business.
bool ValidCursor(const std::string& text) {
  const std::string c_text = text.substr(0, text.find('\0'));
  const char first = c_text.empty() ? '\0' : c_text[0];
  if (first == ' ' || (first >= '\t' && first <= '\r')) return false;
  errno = 0;
  char* end = nullptr;
  std::strtoull(c_text.c_str(), &end, 10);
  return *end == '\0' && errno != ERANGE;
}

}  // namespace keel::model
