// The hash family in the model: HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HLEN, HSTRLEN, HEXISTS,
// HKEYS, HVALS, HGETALL, HINCRBY, HINCRBYFLOAT, HRANDFIELD and HSCAN, written from Redis 7.0's
// t_hash.c rules over a vector of pairs in insertion order.
//
// Encodings: a hash is a listpack while it has at most 512 fields (hash-max-listpack-entries)
// and no field or value longer than 64 bytes was written to it (hash-max-listpack-value; the
// workload leaves both alone), and once a hashtable stays one. A listpack's replies are exact
// (insertion order, an update keeps its place); a hashtable's order is the engine's table, so
// its replies are bounds: the right pairs in any order.
//
// Random draws are bounds too: HRANDFIELD's must be fields (with their values), of the right
// number, distinct when the count is positive.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/model/model.h"

namespace keel::model {
namespace {

constexpr size_t kListpackEntriesMax = 512;
constexpr size_t kListpackValueMax = 64;

using FieldPairs = std::vector<std::pair<std::string, std::string>>;

bool LookupHash(Call& call, std::string_view key, Value** hash, Expected* error) {
  *hash = call.Lookup(key);
  if (*hash != nullptr && (*hash)->type != ValueType::kHash) {
    *error = Error(kWrongType);
    return false;
  }
  return true;
}

FieldPairs::iterator Find(Value& hash, std::string_view field) {
  return std::find_if(hash.hash.begin(), hash.hash.end(),
                      [&](const auto& pair) { return pair.first == field; });
}

const std::string* ValueOf(const Value* hash, std::string_view field) {
  if (hash == nullptr) return nullptr;
  auto it = Find(const_cast<Value&>(*hash), field);
  return it == hash->hash.end() ? nullptr : &it->second;
}

// hashTypeSet with hashTypeTryConversion's length test: returns whether the field was new.
bool SetField(Value& hash, const std::string& field, const std::string& value) {
  if (field.size() > kListpackValueMax || value.size() > kListpackValueMax) {
    hash.encoding = Encoding::kHashtable;
  }
  auto it = Find(hash, field);
  if (it != hash.hash.end()) {
    it->second = value;
    return false;
  }
  hash.hash.emplace_back(field, value);
  if (hash.hash.size() > kListpackEntriesMax) hash.encoding = Encoding::kHashtable;
  return true;
}

// The hash at `key`, created empty (a listpack) when missing.
Value* HashForWrite(Call& call, const std::string& key) {
  Value* hash = call.Lookup(key);
  if (hash != nullptr) return hash;
  Value created;
  created.type = ValueType::kHash;
  created.encoding = Encoding::kListpack;
  call.Store(key, std::move(created));
  return call.Lookup(key);
}

// Redis's signalModifiedKey after a hash write: WATCH sees it even when the value is unchanged
// (HSET of the same value, HINCRBY by 0).
void Written(Call& call, const std::string& key) { call.model.MarkWritten(call.session.db, key); }

std::vector<std::string> Flat(const FieldPairs& pairs) {
  std::vector<std::string> flat;
  for (const auto& [field, value] : pairs) {
    flat.push_back(field);
    flat.push_back(value);
  }
  return flat;
}

Expected Hset(Call& call) {
  if (call.args.size() % 2 == 1) {
    std::string name = call.args[0];
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Error("ERR wrong number of arguments for '" + name + "' command");
  }
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  if (call.context.allocation_refused) return Error(kOomError);
  hash = HashForWrite(call, call.args[1]);
  // hashTypeTryConversion looks at every argument before the first write.
  for (size_t i = 2; i < call.args.size(); i++) {
    if (call.args[i].size() > kListpackValueMax) hash->encoding = Encoding::kHashtable;
  }
  int64_t created = 0;
  for (size_t i = 2; i + 1 < call.args.size(); i += 2) {
    created += SetField(*hash, call.args[i], call.args[i + 1]) ? 1 : 0;
  }
  Written(call, call.args[1]);
  if (std::tolower(static_cast<unsigned char>(call.args[0][1])) == 's') return Integer(created);
  return Ok();
}

Expected Hsetnx(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  if (ValueOf(hash, call.args[2]) != nullptr) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  hash = HashForWrite(call, call.args[1]);
  SetField(*hash, call.args[2], call.args[3]);
  Written(call, call.args[1]);
  return Integer(1);
}

Expected Hget(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  const std::string* value = ValueOf(hash, call.args[2]);
  return value == nullptr ? call.Null() : Bulk(*value);
}

Expected Hmget(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  std::vector<RespValue> replies;
  for (size_t i = 2; i < call.args.size(); i++) {
    const std::string* value = ValueOf(hash, call.args[i]);
    if (value != nullptr) {
      replies.push_back(RespValue::Bulk(*value));
    } else {
      replies.push_back(call.Null().value);
    }
  }
  return Array(std::move(replies));
}

Expected Hdel(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  if (hash == nullptr) return Integer(0);
  int64_t deleted = 0;
  for (size_t i = 2; i < call.args.size() && !hash->hash.empty(); i++) {
    auto it = Find(*hash, call.args[i]);
    if (it == hash->hash.end()) continue;
    hash->hash.erase(it);
    deleted++;
  }
  if (deleted > 0) Written(call, call.args[1]);
  if (hash->hash.empty()) call.db().erase(call.args[1]);
  return Integer(deleted);
}

Expected Hlen(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  return Integer(hash == nullptr ? 0 : static_cast<int64_t>(hash->hash.size()));
}

Expected Hstrlen(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  const std::string* value = ValueOf(hash, call.args[2]);
  return Integer(value == nullptr ? 0 : static_cast<int64_t>(value->size()));
}

Expected Hexists(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  return Integer(ValueOf(hash, call.args[2]) != nullptr ? 1 : 0);
}

// HKEYS (fields), HVALS (values), HGETALL (both: a map in RESP3).
Expected All(Call& call, bool fields, bool values) {
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  const FieldPairs empty;
  const FieldPairs& pairs = hash == nullptr ? empty : hash->hash;
  const bool ordered = hash == nullptr || hash->encoding == Encoding::kListpack;
  if (fields && values) {
    if (!ordered) {
      return Pairs(Flat(pairs), static_cast<int64_t>(pairs.size()),
                   kPairsDistinct | (call.session.resp == 3 ? kPairsMap : 0));
    }
    std::vector<RespValue> flat;
    for (const std::string& text : Flat(pairs)) flat.push_back(RespValue::Bulk(text));
    return Map(std::move(flat), call.session.resp);
  }
  std::vector<std::string> texts;
  for (const auto& [field, value] : pairs) texts.push_back(fields ? field : value);
  if (!ordered) {
    if (fields) return BulkSet(std::move(texts));
    return Draws(texts, static_cast<int64_t>(texts.size()), false);
  }
  std::vector<RespValue> replies;
  for (const std::string& text : texts) replies.push_back(RespValue::Bulk(text));
  return Array(std::move(replies));
}

Expected Hkeys(Call& call) { return All(call, true, false); }
Expected Hvals(Call& call) { return All(call, false, true); }
Expected Hgetall(Call& call) { return All(call, true, true); }

Expected Hincrby(Call& call) {
  int64_t increment = 0;
  if (!ParseInt64(call.args[3], &increment)) return Error(kNotInteger);
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  int64_t value = 0;
  const std::string* current = ValueOf(hash, call.args[2]);
  if (current != nullptr && !ParseInt64(*current, &value)) {
    return Error("ERR hash value is not an integer");
  }
  if ((increment < 0 && value < 0 && increment < INT64_MIN - value) ||
      (increment > 0 && value > 0 && increment > INT64_MAX - value)) {
    return Error("ERR increment or decrement would overflow");
  }
  if (call.context.allocation_refused) return Error(kOomError);
  value += increment;
  hash = HashForWrite(call, call.args[1]);
  SetField(*hash, call.args[2], std::to_string(value));
  Written(call, call.args[1]);
  return Integer(value);
}

// Redis's string2ld as observed (7.0.15), as model_counters.cc reads it.
bool ParseLongDouble(const std::string& text, long double* value) {
  if (text.empty() || text.size() >= 5 * 1024 || text.find('\0') != std::string::npos) {
    return false;
  }
  if (text[0] == ' ' || (text[0] >= '\t' && text[0] <= '\r')) return false;
  errno = 0;
  char* end = nullptr;
  const long double parsed = std::strtold(text.c_str(), &end);
  if (*end != '\0' || std::isnan(parsed)) return false;
  if (errno == ERANGE && (std::isinf(parsed) || parsed == 0)) return false;
  *value = parsed;
  return true;
}

// ld2string(LD_STR_HUMAN): "%.17Lf", trailing zeros of the fraction and a bare '.' dropped.
std::string FormatHuman(long double value) {
  std::vector<char> buffer(6000);
  const int length = std::snprintf(buffer.data(), buffer.size(), "%.17Lf", value);
  std::string text(buffer.data(), static_cast<size_t>(length));
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

Expected Hincrbyfloat(Call& call) {
  long double increment = 0;
  if (!ParseLongDouble(call.args[3], &increment)) return Error("ERR value is not a valid float");
  if (std::isinf(increment)) return Error("ERR value is NaN or Infinity");
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  long double value = 0;
  const std::string* current = ValueOf(hash, call.args[2]);
  if (current != nullptr && !ParseLongDouble(*current, &value)) {
    return Error("ERR hash value is not a float");
  }
  value += increment;
  if (std::isnan(value) || std::isinf(value)) {
    return Error("ERR increment would produce NaN or Infinity");
  }
  if (call.context.allocation_refused) return Error(kOomError);
  const std::string text = FormatHuman(value);
  hash = HashForWrite(call, call.args[1]);
  SetField(*hash, call.args[2], text);
  Written(call, call.args[1]);
  return Bulk(text);
}

// Redis's getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX) with its own texts.
bool ParseCount(const std::string& text, int64_t* count, Expected* error) {
  if (!ParseInt64(text, count)) {
    *error = Error(kNotInteger);
    return false;
  }
  if (*count == INT64_MIN) {
    *error = Error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return false;
  }
  return true;
}

Expected Hrandfield(Call& call) {
  Value* hash = nullptr;
  Expected error;
  if (call.args.size() == 2) {
    if (!LookupHash(call, call.args[1], &hash, &error)) return error;
    if (hash == nullptr) return call.Null();
    std::vector<Expected> one;
    for (const auto& pair : hash->hash) one.push_back(Bulk(pair.first));
    return OneOf(std::move(one));
  }
  int64_t count = 0;
  if (!ParseCount(call.args[2], &count, &error)) return error;
  if (call.args.size() > 4 || (call.args.size() == 4 && !OptionIs(call.args[3], "withvalues"))) {
    return Error(kSyntaxError);
  }
  const bool with_values = call.args.size() == 4;
  if (with_values && (count < -INT64_MAX / 2 || count > INT64_MAX / 2)) {
    return Error("ERR value is out of range");
  }
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  if (hash == nullptr || count == 0) return Array({});
  const auto size = static_cast<int64_t>(hash->hash.size());
  // Draws that need a temporary hash (a positive count below the size) can be refused.
  if (count > 1 && count < size && call.context.allocation_refused) return Error(kOomError);
  const int64_t drawn = count < 0 ? -count : std::min(count, size);
  const bool distinct = count > 0;
  if (!with_values) {
    std::vector<std::string> fields;
    for (const auto& pair : hash->hash) fields.push_back(pair.first);
    return Draws(std::move(fields), drawn, distinct);
  }
  return Pairs(Flat(hash->hash), drawn,
               (distinct ? kPairsDistinct : 0) | (call.session.resp == 3 ? kPairsNested : 0));
}

Expected Hscan(Call& call) {
  if (!ValidCursor(call.args[2])) return Error("ERR invalid cursor");
  Value* hash = nullptr;
  Expected error;
  if (!LookupHash(call, call.args[1], &hash, &error)) return error;
  if (hash == nullptr) return Array({RespValue::Bulk("0"), RespValue::Array({})});
  std::string pattern = "*";
  for (size_t i = 3; i < call.args.size(); i += 2) {
    const bool has_value = i + 1 < call.args.size();
    if (OptionIs(call.args[i], "count") && has_value) {
      int64_t count = 0;
      if (!ParseInt64(call.args[i + 1], &count)) return Error(kNotInteger);
      if (count < 1) return Error(kSyntaxError);
    } else if (OptionIs(call.args[i], "match") && has_value) {
      pattern = call.args[i + 1];
    } else {
      return Error(kSyntaxError);
    }
  }
  FieldPairs matching;
  for (const auto& pair : hash->hash) {
    if (pattern == "*" || GlobMatch(pattern, pair.first)) matching.push_back(pair);
  }
  if (hash->encoding == Encoding::kListpack) {
    // A listpack comes back whole, in order, with cursor 0.
    std::vector<RespValue> items;
    for (const std::string& text : Flat(matching)) items.push_back(RespValue::Bulk(text));
    return Array({RespValue::Bulk("0"), RespValue::Array(std::move(items))});
  }
  return Pairs(Flat(matching), 0, kPairsDistinct | kPairsScanPage);
}

constexpr Command kCommands[] = {
    {"hset", kAllocates, Hset},
    {"hmset", kAllocates, Hset},
    {"hsetnx", kAllocates, Hsetnx},
    {"hget", 0, Hget},
    {"hmget", 0, Hmget},
    {"hdel", 0, Hdel},
    {"hlen", 0, Hlen},
    {"hstrlen", 0, Hstrlen},
    {"hexists", 0, Hexists},
    {"hkeys", 0, Hkeys},
    {"hvals", 0, Hvals},
    {"hgetall", 0, Hgetall},
    {"hincrby", kAllocates, Hincrby},
    {"hincrbyfloat", kAllocates, Hincrbyfloat},
    {"hrandfield", kAllocates, Hrandfield},
    {"hscan", 0, Hscan},
};

}  // namespace

std::span<const Command> HashCommands() { return kCommands; }

}  // namespace keel::model
