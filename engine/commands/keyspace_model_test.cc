// The keyspace model test: random sequences of every string and generic key command, run through
// CommandTest, each reply compared with what a small reference model predicts. The model is a
// std::map per database from key to value, expiry time and encoding, written from Redis's
// documented (and, where noted, observed) behaviour without any of the engine's code. The test
// moves the virtual clock between commands, often exactly onto or just past a key's expiry time:
// a key lives through its expiry millisecond and is gone the millisecond after.
//
// What the model cannot know it checks as bounds: which expired keys a command has already
// reclaimed (DBSIZE counts those not yet reclaimed, as Redis's does), which key RANDOMKEY draws,
// and in which order KEYS and SCAN list keys.
//
// By default each run checks 100 sequences; ctest's keyspace_model_10000 checks the issue's
// 10,000:
//   RC_PARAMS="max_success=10000" ./build/asan/engine/keel_engine_tests
//       --gtest_filter='KeyspaceModelTest_RapidCheck.*'
// (a failure prints the seed; RC_PARAMS="reproduce=..." replays it).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

constexpr int kDatabases = 4;  // the sequences use databases 0..3 of the default 16
constexpr int64_t kNoTtl = -1;

// ---------------------------------------------------------------------------------------------
// The reference model.

enum class Encoding { kInt, kEmbstr, kRaw };

struct Value {
  std::string bytes;
  int64_t expire_at_ms = kNoTtl;
  Encoding encoding = Encoding::kEmbstr;
  bool shared = false;  // one of Redis's shared integers 0..9999: OBJECT REFCOUNT 2147483647
};

// Redis's string2ll: optional '-', digits, no leading zero (but "0"), no "-0", within int64.
bool StrictInt(std::string_view text, int64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  const bool negative = text[0] == '-';
  const size_t start = negative ? 1 : 0;
  if (start == text.size()) return false;
  if (text[start] == '0') {
    if (negative || text.size() != 1) return false;
    *out = 0;
    return true;
  }
  // Accumulate as a negative number: its range holds INT64_MIN, which has no positive twin.
  int64_t value = 0;
  for (size_t i = start; i < text.size(); i++) {
    if (text[i] < '0' || text[i] > '9') return false;
    const int digit = text[i] - '0';
    if (value < (INT64_MIN + digit) / 10) return false;
    value = value * 10 - digit;
  }
  if (!negative && value == INT64_MIN) return false;
  *out = negative ? value : -value;
  return true;
}

// A value stored as given (SET and friends): an integer's text of at most 20 bytes is an int
// (shared when 0..9999, as the default config allows), else embstr up to 44 bytes, else raw.
Value Stored(std::string bytes, int64_t expire_at_ms) {
  Value value;
  int64_t number = 0;
  if (bytes.size() <= 20 && StrictInt(bytes, &number)) {
    value.encoding = Encoding::kInt;
    value.shared = number >= 0 && number < 10000;
  } else {
    value.encoding = bytes.size() <= 44 ? Encoding::kEmbstr : Encoding::kRaw;
  }
  value.bytes = std::move(bytes);
  value.expire_at_ms = expire_at_ms;
  return value;
}

// An edited string (APPEND, SETRANGE): raw, private.
Value Edited(std::string bytes, int64_t expire_at_ms) {
  Value value;
  value.bytes = std::move(bytes);
  value.expire_at_ms = expire_at_ms;
  value.encoding = Encoding::kRaw;
  return value;
}

// A glob matcher for the patterns the sequences use: '*', '?' and '[chars]'.
bool Glob(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (size_t skip = 0; skip <= text.size(); skip++) {
      if (Glob(pattern.substr(1), text.substr(skip))) return true;
    }
    return false;
  }
  if (text.empty()) return false;
  if (pattern[0] == '[') {
    const size_t close = pattern.find(']');
    const std::string_view chars = pattern.substr(1, close - 1);
    return chars.find(text[0]) != std::string_view::npos &&
           Glob(pattern.substr(close + 1), text.substr(1));
  }
  return (pattern[0] == '?' || pattern[0] == text[0]) && Glob(pattern.substr(1), text.substr(1));
}

class Model {
 public:
  using Db = std::map<std::string, Value>;

  // Each database holds live keys and expired keys that may not have been reclaimed yet.
  Db dbs[kDatabases];
  int db = 0;
  int64_t now_ms = 0;

  bool Expired(const Value& value) const {
    return value.expire_at_ms != kNoTtl && value.expire_at_ms < now_ms;
  }
  // The live value of `key` without reclaiming anything.
  const Value* Peek(int index, const std::string& key) const {
    const auto it = dbs[index].find(key);
    return it == dbs[index].end() || Expired(it->second) ? nullptr : &it->second;
  }
  // A lookup the server certainly makes: it reclaims an expired key.
  Value* Lookup(int index, const std::string& key) {
    const auto it = dbs[index].find(key);
    if (it == dbs[index].end()) return nullptr;
    if (Expired(it->second)) {
      dbs[index].erase(it);
      return nullptr;
    }
    return &it->second;
  }
  Value* Lookup(const std::string& key) { return Lookup(db, key); }

  std::set<std::string> LiveKeys(int index) const {
    std::set<std::string> keys;
    for (const auto& [key, value] : dbs[index]) {
      if (!Expired(value)) keys.insert(key);
    }
    return keys;
  }
  // Reclaims the expired keys for which `reclaimed` holds.
  template <typename Predicate>
  void ReclaimExpired(int index, Predicate reclaimed) {
    for (auto it = dbs[index].begin(); it != dbs[index].end();) {
      if (Expired(it->second) && reclaimed(it->first)) {
        it = dbs[index].erase(it);
      } else {
        ++it;
      }
    }
  }
  // The next expiry time after now, if any key has one.
  int64_t NextExpiry() const {
    int64_t next = INT64_MAX;
    for (const Db& one : dbs) {
      for (const auto& [key, value] : one) {
        if (value.expire_at_ms != kNoTtl && value.expire_at_ms >= now_ms) {
          next = std::min(next, value.expire_at_ms);
        }
      }
    }
    return next;
  }
};

std::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kInt:
      return "int";
    case Encoding::kEmbstr:
      return "embstr";
    case Encoding::kRaw:
      return "raw";
  }
  return "?";
}

RespValue InvalidExpire(std::string_view command) {
  return Err("ERR invalid expire time in '" + std::string(command) + "' command");
}

constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";

// Redis's string2ld as observed (7.0.15): the whole text must be a number for strtold, with no
// leading space and no NUL byte, and neither NaN nor an overflow.
bool ParseFloat(const std::string& text, long double* value) {
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
  int length = std::snprintf(buffer.data(), buffer.size(), "%.17Lf", value);
  std::string text(buffer.data(), static_cast<size_t>(length));
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

// Redis's LCS with its backtracking order.
std::string Lcs(const std::string& a, const std::string& b) {
  std::vector<std::vector<uint32_t>> table(a.size() + 1, std::vector<uint32_t>(b.size() + 1));
  for (size_t i = 1; i <= a.size(); i++) {
    for (size_t j = 1; j <= b.size(); j++) {
      table[i][j] = a[i - 1] == b[j - 1] ? table[i - 1][j - 1] + 1
                                         : std::max(table[i - 1][j], table[i][j - 1]);
    }
  }
  std::string result(table[a.size()][b.size()], '\0');
  size_t i = a.size();
  size_t j = b.size();
  size_t index = result.size();
  while (i > 0 && j > 0) {
    if (a[i - 1] == b[j - 1]) {
      result[--index] = a[i - 1];
      i--;
      j--;
    } else if (table[i - 1][j] > table[i][j - 1]) {
      i--;
    } else {
      j--;
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Generators.

std::string GenKey() { return *rc::gen::element<std::string>("a", "b", "c", ""); }

std::string GenValue() {
  return *rc::gen::element<std::string>(
      "", "0", "7", "9999", "10000", "-3", "007", "9223372036854775807", "-9223372036854775808",
      "9223372036854775808", "3.5", "-0.25", "1e3", "inf", "hello", "abcab", std::string(44, 'x'),
      std::string(45, 'y'), std::string("5\0x", 3), " 1");
}

std::vector<std::string> GenKeys(int count_max) {
  std::vector<std::string> keys;
  const int count = *rc::gen::inRange(1, count_max + 1);
  for (int i = 0; i < count; i++) keys.push_back(GenKey());
  return keys;
}

std::string Number(int64_t value) { return std::to_string(value); }

// ---------------------------------------------------------------------------------------------
// The property.

class KeyspaceModelTest : public CommandTest {
 protected:
  int64_t WallMs() { return env_.sim_clock().WallUs() / 1000; }

  // Runs `args` and checks the reply against `expected`.
  void Check(const std::vector<std::string>& args, const RespValue& expected) {
    const RespValue reply = Run(args);
    if (!(reply == expected)) Fail(args, reply, expected.ToString());
  }

  void Fail(const std::vector<std::string>& args, const RespValue& reply,
            const std::string& expected) {
    std::string command;
    for (const std::string& arg : args) command += (command.empty() ? "" : " ") + Quoted(arg);
    RC_FAIL("db " + std::to_string(model_.db) + " at " + std::to_string(model_.now_ms) + ": " +
            command + "\n  reply:    " + reply.ToString() + "\n  expected: " + expected);
  }

  static std::string Quoted(const std::string& arg) {
    std::string out = "\"";
    for (char c : arg) {
      if (c == '\0') {
        out += "\\0";
      } else {
        out += c;
      }
    }
    return out + "\"";
  }

  std::set<std::string> KeySet(const RespValue& array, bool* duplicates) {
    std::set<std::string> keys;
    for (const RespValue& element : array.elements) {
      if (!keys.insert(element.text).second) *duplicates = true;
    }
    return keys;
  }

  void Step();
  void StepString(int op);
  void StepGeneric(int op);
  void MoveClock();

  Model model_;
};

void KeyspaceModelTest::MoveClock() {
  const int choice = *rc::gen::inRange(0, 4);
  int64_t advance = 0;
  if (choice == 0) {
    advance = *rc::gen::element<int64_t>(0, 1, 2, 499, 500, 999, 1000, 1500, 3000);
  } else {
    // Onto, or just past, the next expiry.
    const int64_t next = model_.NextExpiry();
    if (next == INT64_MAX) return;
    advance = next - model_.now_ms + (choice == 1 ? 0 : 1);
  }
  AdvanceMs(advance);
}

void KeyspaceModelTest::StepString(int op) {
  Model& m = model_;
  const int64_t now = m.now_ms;
  const std::string key = GenKey();
  switch (op) {
    case 0: {  // GET
      const Value* value = m.Lookup(key);
      Check({"get", key}, value ? Bulk(value->bytes) : NilBulk());
      break;
    }
    case 1: {  // SET key value [NX|XX] [GET] [EX|PX|EXAT|PXAT n|KEEPTTL]
      const std::string bytes = GenValue();
      std::vector<std::string> args = {"set", key, bytes};
      const int condition = *rc::gen::inRange(0, 3);  // none, NX, XX
      if (condition == 1) args.push_back("NX");
      if (condition == 2) args.push_back("xx");
      const bool get = *rc::gen::arbitrary<bool>();
      if (get) args.push_back("GET");
      const int form = *rc::gen::inRange(0, 6);  // none, EX, PX, EXAT, PXAT, KEEPTTL
      int64_t amount = 0;
      bool valid = true;
      int64_t expire_at = kNoTtl;
      if (form == 1) amount = *rc::gen::element<int64_t>(-1, 0, 1, 2, 5);
      if (form == 2) amount = *rc::gen::element<int64_t>(0, 1, 10, 500, 1500, 3000);
      if (form == 3) amount = now / 1000 + *rc::gen::element<int64_t>(-1, 0, 1, 3);
      if (form == 4) amount = now + *rc::gen::element<int64_t>(-5, 0, 1, 1000, 2500);
      if (form >= 1 && form <= 4) {
        args.push_back(*rc::gen::element<std::string>(form == 1   ? "EX"
                                                      : form == 2 ? "px"
                                                      : form == 3 ? "EXAT"
                                                                  : "pxat"));
        args.push_back(Number(amount));
        valid = amount > 0;
        expire_at = form == 1   ? now + amount * 1000
                    : form == 2 ? now + amount
                    : form == 3 ? amount * 1000
                                : amount;
      }
      if (form == 5) args.push_back("KEEPTTL");
      if (!valid) {
        Check(args, InvalidExpire("set"));
        break;
      }
      Value* existing = m.Lookup(key);
      const RespValue old = existing ? Bulk(existing->bytes) : NilBulk();
      if ((condition == 1 && existing) || (condition == 2 && !existing)) {
        Check(args, get ? old : NilBulk());
        break;
      }
      if (form == 5) expire_at = existing ? existing->expire_at_ms : kNoTtl;
      m.dbs[m.db][key] = Stored(bytes, expire_at);
      Check(args, get ? old : Ok());
      break;
    }
    case 2: {  // SETNX
      const std::string bytes = GenValue();
      if (m.Lookup(key)) {
        Check({"setnx", key, bytes}, Int(0));
      } else {
        m.dbs[m.db][key] = Stored(bytes, kNoTtl);
        Check({"setnx", key, bytes}, Int(1));
      }
      break;
    }
    case 3: {  // SETEX / PSETEX
      const bool ms = *rc::gen::arbitrary<bool>();
      const int64_t amount = ms ? *rc::gen::element<int64_t>(0, 1, 100, 2000)
                                : *rc::gen::element<int64_t>(-1, 0, 1, 3);
      const std::string bytes = GenValue();
      const std::vector<std::string> args = {ms ? "psetex" : "setex", key, Number(amount), bytes};
      if (amount <= 0) {
        Check(args, InvalidExpire(args[0]));
        break;
      }
      m.Lookup(key);
      m.dbs[m.db][key] = Stored(bytes, now + (ms ? amount : amount * 1000));
      Check(args, Ok());
      break;
    }
    case 4: {                                    // GETEX key [EX|PX|EXAT|PXAT n|PERSIST]
      const int form = *rc::gen::inRange(0, 6);  // none, EX, PX, EXAT, PXAT, PERSIST
      std::vector<std::string> args = {"getex", key};
      int64_t amount = 0;
      if (form == 1) amount = *rc::gen::element<int64_t>(0, 1, 3);
      if (form == 2) amount = *rc::gen::element<int64_t>(-1, 1, 700, 2000);
      if (form == 3) amount = now / 1000 + *rc::gen::element<int64_t>(-1, 0, 1, 2);
      if (form == 4) amount = now + *rc::gen::element<int64_t>(-1, 0, 1, 1200);
      const char* names[] = {"", "EX", "PX", "exat", "PXAT", "persist"};
      if (form > 0) args.push_back(names[form]);
      if (form >= 1 && form <= 4) args.push_back(Number(amount));
      Value* value = m.Lookup(key);
      if (!value) {
        Check(args, NilBulk());
        break;
      }
      const RespValue reply = Bulk(value->bytes);
      if (form >= 1 && form <= 4) {
        if (amount <= 0) {
          Check(args, InvalidExpire("getex"));
          break;
        }
        const int64_t at = form == 1   ? now + amount * 1000
                           : form == 2 ? now + amount
                           : form == 3 ? amount * 1000
                                       : amount;
        if (form >= 3 && at <= now) {
          m.dbs[m.db].erase(key);
        } else {
          value->expire_at_ms = at;
        }
      } else if (form == 5) {
        value->expire_at_ms = kNoTtl;
      }
      Check(args, reply);
      break;
    }
    case 5: {  // GETDEL
      const Value* value = m.Lookup(key);
      const RespValue reply = value ? Bulk(value->bytes) : NilBulk();
      m.dbs[m.db].erase(key);
      Check({"getdel", key}, reply);
      break;
    }
    case 6: {  // GETSET
      const std::string bytes = GenValue();
      const Value* value = m.Lookup(key);
      const RespValue reply = value ? Bulk(value->bytes) : NilBulk();
      m.dbs[m.db][key] = Stored(bytes, kNoTtl);
      Check({"getset", key, bytes}, reply);
      break;
    }
    case 7: {  // MGET
      std::vector<std::string> args = {"mget"};
      RespValue expected = Array({});
      for (const std::string& one : GenKeys(4)) {
        args.push_back(one);
        const Value* value = m.Lookup(one);
        expected.elements.push_back(value ? Bulk(value->bytes) : NilBulk());
      }
      Check(args, expected);
      break;
    }
    case 8: {  // MSET / MSETNX
      const bool nx = *rc::gen::arbitrary<bool>();
      std::vector<std::string> args = {nx ? "msetnx" : "mset"};
      std::vector<std::pair<std::string, std::string>> pairs;
      for (const std::string& one : GenKeys(3)) {
        pairs.emplace_back(one, GenValue());
        args.push_back(one);
        args.push_back(pairs.back().second);
      }
      if (nx) {
        // Keys are looked up in order until the first live one.
        for (const auto& pair : pairs) {
          if (m.Lookup(pair.first)) {
            Check(args, Int(0));
            return;
          }
        }
      }
      for (const auto& [one, bytes] : pairs) m.dbs[m.db][one] = Stored(bytes, kNoTtl);
      Check(args, nx ? Int(1) : Ok());
      break;
    }
    case 9: {  // APPEND
      const std::string tail = GenValue();
      Value* value = m.Lookup(key);
      if (!value) {
        m.dbs[m.db][key] = Stored(tail, kNoTtl);
        Check({"append", key, tail}, Int(static_cast<int64_t>(tail.size())));
      } else {
        *value = Edited(value->bytes + tail, value->expire_at_ms);
        Check({"append", key, tail}, Int(static_cast<int64_t>(value->bytes.size())));
      }
      break;
    }
    case 10: {  // STRLEN
      const Value* value = m.Lookup(key);
      Check({"strlen", key}, Int(value ? static_cast<int64_t>(value->bytes.size()) : 0));
      break;
    }
    case 11: {  // GETRANGE / SUBSTR
      int64_t start = *rc::gen::inRange<int64_t>(-6, 7);
      int64_t end = *rc::gen::element<int64_t>(-50, -2, -1, 0, 1, 3, 50, INT64_MAX);
      const std::vector<std::string> args = {*rc::gen::element<std::string>("getrange", "substr"),
                                             key, Number(start), Number(end)};
      const Value* value = m.Lookup(key);
      if (!value) {
        Check(args, Bulk(""));
        break;
      }
      const int64_t length = static_cast<int64_t>(value->bytes.size());
      if (start < 0 && end < 0 && start > end) {
        Check(args, Bulk(""));
        break;
      }
      if (start < 0) start = std::max<int64_t>(length + start, 0);
      if (end < 0) end = std::max<int64_t>(length + end, 0);
      if (end >= length) end = length - 1;
      if (start > end || length == 0) {
        Check(args, Bulk(""));
      } else {
        Check(args, Bulk(value->bytes.substr(static_cast<size_t>(start),
                                             static_cast<size_t>(end - start + 1))));
      }
      break;
    }
    case 12: {  // SETRANGE
      const int64_t offset = *rc::gen::element<int64_t>(-1, 0, 1, 3, 10);
      const std::string bytes = *rc::gen::element<std::string>("", "Z", "xyz", "12");
      const std::vector<std::string> args = {"setrange", key, Number(offset), bytes};
      if (offset < 0) {
        Check(args, Err("ERR offset is out of range"));
        break;
      }
      Value* value = m.Lookup(key);
      if (!value) {
        if (bytes.empty()) {
          Check(args, Int(0));
          break;
        }
        std::string built(static_cast<size_t>(offset), '\0');
        built += bytes;
        m.dbs[m.db][key] = Edited(built, kNoTtl);
        Check(args, Int(static_cast<int64_t>(built.size())));
        break;
      }
      if (bytes.empty()) {
        Check(args, Int(static_cast<int64_t>(value->bytes.size())));
        break;
      }
      std::string built = value->bytes;
      const size_t end = static_cast<size_t>(offset) + bytes.size();
      if (built.size() < end) built.resize(end, '\0');
      built.replace(static_cast<size_t>(offset), bytes.size(), bytes);
      *value = Edited(built, value->expire_at_ms);
      Check(args, Int(static_cast<int64_t>(built.size())));
      break;
    }
    case 13: {  // INCR, DECR, INCRBY, DECRBY
      const int form = *rc::gen::inRange(0, 4);
      const int64_t amount =
          *rc::gen::element<int64_t>(0, 1, -1, 9999, -10000, INT64_MAX, INT64_MIN, 5000000000);
      std::vector<std::string> args = {"incr", key};
      int64_t increment = 1;
      if (form == 1) {
        args[0] = "decr";
        increment = -1;
      } else if (form == 2) {
        args = {"incrby", key, Number(amount)};
        increment = amount;
      } else if (form == 3) {
        args = {"decrby", key, Number(amount)};
        if (amount == INT64_MIN) {
          Check(args, Err("ERR decrement would overflow"));
          break;
        }
        increment = -amount;
      }
      Value* value = m.Lookup(key);
      int64_t current = 0;
      if (value && !StrictInt(value->bytes, &current)) {
        Check(args, Err(kNotInteger));
        break;
      }
      if ((increment < 0 && current < 0 && increment < INT64_MIN - current) ||
          (increment > 0 && current > 0 && increment > INT64_MAX - current)) {
        Check(args, Err("ERR increment or decrement would overflow"));
        break;
      }
      const int64_t result = current + increment;
      Value stored = Stored(Number(result), value ? value->expire_at_ms : kNoTtl);
      m.dbs[m.db][key] = stored;
      Check(args, Int(result));
      break;
    }
    case 14: {  // INCRBYFLOAT
      const std::string increment =
          *rc::gen::element<std::string>("1.5", "-0.25", "3", "1e2", "abc", "inf", "0.1", "-7");
      const std::vector<std::string> args = {"incrbyfloat", key, increment};
      Value* value = m.Lookup(key);
      long double current = 0;
      long double by = 0;
      if ((value && !ParseFloat(value->bytes, &current)) || !ParseFloat(increment, &by)) {
        Check(args, Err("ERR value is not a valid float"));
        break;
      }
      const long double result = current + by;
      if (std::isnan(result) || std::isinf(result)) {
        Check(args, Err("ERR increment would produce NaN or Infinity"));
        break;
      }
      const std::string text = FormatHuman(result);
      Value stored;
      stored.bytes = text;
      stored.expire_at_ms = value ? value->expire_at_ms : kNoTtl;
      stored.encoding = text.size() <= 44 ? Encoding::kEmbstr : Encoding::kRaw;
      m.dbs[m.db][key] = stored;
      Check(args, Bulk(text));
      break;
    }
    case 15: {  // LCS a b [LEN]
      const std::string other = GenKey();
      const bool len = *rc::gen::arbitrary<bool>();
      std::vector<std::string> args = {"lcs", key, other};
      if (len) args.push_back("LEN");
      const Value* a = m.Lookup(key);
      const std::string a_bytes = a ? a->bytes : "";
      const Value* b = m.Lookup(other);
      const std::string lcs = Lcs(a_bytes, b ? b->bytes : "");
      Check(args, len ? Int(static_cast<int64_t>(lcs.size())) : Bulk(lcs));
      break;
    }
  }
}

void KeyspaceModelTest::StepGeneric(int op) {
  Model& m = model_;
  const int64_t now = m.now_ms;
  const std::string key = GenKey();
  switch (op) {
    case 0: {  // DEL / UNLINK
      std::vector<std::string> args = {*rc::gen::element<std::string>("del", "unlink")};
      int64_t deleted = 0;
      for (const std::string& one : GenKeys(3)) {
        args.push_back(one);
        if (m.Lookup(one)) {
          m.dbs[m.db].erase(one);
          deleted++;
        }
      }
      Check(args, Int(deleted));
      break;
    }
    case 1: {  // EXISTS / TOUCH
      std::vector<std::string> args = {*rc::gen::element<std::string>("exists", "touch")};
      int64_t found = 0;
      for (const std::string& one : GenKeys(4)) {
        args.push_back(one);
        if (m.Lookup(one)) found++;
      }
      Check(args, Int(found));
      break;
    }
    case 2: {  // TYPE
      Check({"type", key}, Status(m.Lookup(key) ? "string" : "none"));
      break;
    }
    case 3: {  // EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT [NX|XX|GT|LT]
      const int form = *rc::gen::inRange(0, 4);
      const char* names[] = {"expire", "pexpire", "expireat", "pexpireat"};
      int64_t amount = 0;
      if (form == 0) amount = *rc::gen::element<int64_t>(-2, -1, 0, 1, 2, 5);
      if (form == 1) amount = *rc::gen::element<int64_t>(-1000, 0, 1, 999, 1000, 2500);
      if (form == 2) amount = now / 1000 + *rc::gen::element<int64_t>(-2, 0, 1, 2, 5);
      if (form == 3) amount = now + *rc::gen::element<int64_t>(-1, 0, 1, 1500, 4000);
      std::string amount_text = Number(amount);
      // Overflow: seconds past LLONG_MAX ms, or a relative time whose sum passes it. (PEXPIREAT
      // adds nothing, so it has no overflow.)
      const bool overflow = form != 3 && *rc::gen::weightedElement<bool>({{1, true}, {15, false}});
      if (overflow) amount_text = form == 1 ? "9223372036854775807" : "9223372036854776";
      std::vector<std::string> args = {names[form], key, amount_text};
      const std::vector<std::string> options = *rc::gen::weightedOneOf<std::vector<std::string>>(
          {{6, rc::gen::just(std::vector<std::string>{})},
           {6, rc::gen::container<std::vector<std::string>>(
                   1, rc::gen::element<std::string>("NX", "xx", "GT", "lt"))},
           {2, rc::gen::container<std::vector<std::string>>(
                   2, rc::gen::element<std::string>("NX", "xx", "GT", "lt"))},
           {1, rc::gen::just(std::vector<std::string>{"FOO"})}});
      bool nx = false, xx = false, gt = false, lt = false;
      for (const std::string& option : options) {
        args.push_back(option);
        nx |= option == "NX";
        xx |= option == "xx";
        gt |= option == "GT";
        lt |= option == "lt";
      }
      if (!options.empty() && options[0] == "FOO") {
        Check(args, Err("ERR Unsupported option FOO"));
        break;
      }
      if (nx && (xx || gt || lt)) {
        Check(args, Err("ERR NX and XX, GT or LT options at the same time are not compatible"));
        break;
      }
      if (gt && lt) {
        Check(args, Err("ERR GT and LT options at the same time are not compatible"));
        break;
      }
      if (overflow) {
        Check(args, InvalidExpire(names[form]));
        break;
      }
      const int64_t when = form == 0   ? now + amount * 1000
                           : form == 1 ? now + amount
                           : form == 2 ? amount * 1000
                                       : amount;
      Value* value = m.Lookup(key);
      if (!value) {
        Check(args, Int(0));
        break;
      }
      const int64_t current = value->expire_at_ms;
      const bool has = current != kNoTtl;
      if ((nx && has) || (xx && !has) || (gt && (!has || when <= current)) ||
          (lt && has && when >= current)) {
        Check(args, Int(0));
        break;
      }
      if (when <= now) {
        m.dbs[m.db].erase(key);
      } else {
        value->expire_at_ms = when;
      }
      Check(args, Int(1));
      break;
    }
    case 4: {  // TTL, PTTL, EXPIRETIME, PEXPIRETIME
      const int form = *rc::gen::inRange(0, 4);
      const char* names[] = {"ttl", "pttl", "expiretime", "pexpiretime"};
      const Value* value = m.Lookup(key);
      int64_t expected = -2;
      if (value && value->expire_at_ms == kNoTtl) expected = -1;
      if (value && value->expire_at_ms != kNoTtl) {
        const int64_t ms = form >= 2 ? value->expire_at_ms : value->expire_at_ms - now;
        expected = form % 2 == 1 ? ms : (ms + 500) / 1000;
      }
      Check({names[form], key}, Int(expected));
      break;
    }
    case 5: {  // PERSIST
      Value* value = m.Lookup(key);
      const bool had = value && value->expire_at_ms != kNoTtl;
      if (had) value->expire_at_ms = kNoTtl;
      Check({"persist", key}, Int(had ? 1 : 0));
      break;
    }
    case 6: {  // RENAME / RENAMENX
      const bool nx = *rc::gen::arbitrary<bool>();
      const std::string to = GenKey();
      const std::vector<std::string> args = {nx ? "renamenx" : "rename", key, to};
      const Value* source = m.Lookup(key);
      if (!source) {
        Check(args, Err("ERR no such key"));
        break;
      }
      if (key == to) {
        Check(args, nx ? Int(0) : Ok());
        break;
      }
      if (m.Lookup(to) && nx) {
        Check(args, Int(0));
        break;
      }
      const Value moved = *source;
      m.dbs[m.db].erase(key);
      m.dbs[m.db][to] = moved;
      Check(args, nx ? Int(1) : Ok());
      break;
    }
    case 7: {  // KEYS
      const std::string pattern =
          *rc::gen::element<std::string>("*", "a*", "?", "[ab]", "", "*b*", "nomatch");
      const RespValue reply = Run({"keys", pattern});
      std::set<std::string> expected;
      for (const std::string& one : m.LiveKeys(m.db)) {
        if (pattern == "*" || Glob(pattern, one)) expected.insert(one);
      }
      bool duplicates = false;
      if (reply.type != RespType::kArray || KeySet(reply, &duplicates) != expected || duplicates) {
        Fail({"keys", pattern}, reply, "the keys " + std::to_string(expected.size()));
      }
      break;
    }
    case 8: {  // SCAN, a whole iteration
      std::vector<std::string> options;
      const std::string pattern =
          *rc::gen::element<std::string>("", "*", "a*", "?", "[bc]", "nomatch");
      if (!pattern.empty()) options.insert(options.end(), {"MATCH", pattern});
      if (*rc::gen::arbitrary<bool>()) {
        options.insert(options.end(), {"count", Number(*rc::gen::inRange(1, 20))});
      }
      const std::string type = *rc::gen::element<std::string>("", "string", "STRING", "list");
      if (!type.empty()) options.insert(options.end(), {"TYPE", type});
      std::set<std::string> expected;
      if (type != "list") {
        for (const std::string& one : m.LiveKeys(m.db)) {
          if (pattern.empty() || pattern == "*" || Glob(pattern, one)) expected.insert(one);
        }
      }
      std::set<std::string> seen;
      std::string cursor = "0";
      for (int call = 0; call < 100; call++) {
        std::vector<std::string> args = {"scan", cursor};
        args.insert(args.end(), options.begin(), options.end());
        const RespValue reply = Run(args);
        if (reply.type != RespType::kArray || reply.elements.size() != 2) {
          Fail(args, reply, "[cursor, keys]");
        }
        cursor = reply.elements[0].text;
        for (const RespValue& element : reply.elements[1].elements) seen.insert(element.text);
        if (cursor == "0") break;
      }
      RC_ASSERT(cursor == "0");
      if (seen != expected) {
        Fail({"scan", "...", pattern, type}, Array({}),
             "a whole iteration giving the " + std::to_string(expected.size()) + " live keys");
      }
      // Every expired key the pattern lets through was visited and reclaimed.
      m.ReclaimExpired(m.db, [&](const std::string& one) {
        return pattern.empty() || pattern == "*" || Glob(pattern, one);
      });
      break;
    }
    case 9: {  // RANDOMKEY
      const RespValue reply = Run({"randomkey"});
      const std::set<std::string> live = m.LiveKeys(m.db);
      if (live.empty()) {
        if (!(reply == NilBulk())) Fail({"randomkey"}, reply, "nil");
        // It reclaimed every expired key on its way to finding none.
        m.ReclaimExpired(m.db, [](const std::string&) { return true; });
      } else if (reply.type != RespType::kBulkString || !live.count(reply.text)) {
        Fail({"randomkey"}, reply, "one of the " + std::to_string(live.size()) + " live keys");
      }
      break;
    }
    case 10: {  // DBSIZE: the live keys, plus expired ones not yet reclaimed
      const RespValue reply = Run({"dbsize"});
      const int64_t live = static_cast<int64_t>(m.LiveKeys(m.db).size());
      const int64_t stored = static_cast<int64_t>(m.dbs[m.db].size());
      if (reply.type != RespType::kInteger || reply.integer < live || reply.integer > stored) {
        Fail({"dbsize"}, reply, "between " + Number(live) + " and " + Number(stored));
      }
      break;
    }
    case 11: {  // SELECT
      const int index = *rc::gen::inRange(0, kDatabases);
      m.db = index;
      Check({"select", Number(index)}, Ok());
      break;
    }
    case 12: {  // MOVE
      const int target = *rc::gen::element(0, 1, 2, 3, 16);
      const std::vector<std::string> args = {"move", key, Number(target)};
      if (target >= kDatabases) {
        Check(args, Err("ERR DB index is out of range"));
        break;
      }
      if (target == m.db) {
        Check(args, Err("ERR source and destination objects are the same"));
        break;
      }
      const Value* source = m.Lookup(key);
      if (!source || m.Lookup(target, key)) {
        Check(args, Int(0));
        break;
      }
      m.dbs[target][key] = *source;
      m.dbs[m.db].erase(key);
      Check(args, Int(1));
      break;
    }
    case 13: {  // COPY source destination [DB n] [REPLACE]
      const std::string to = GenKey();
      std::vector<std::string> args = {"copy", key, to};
      int target = m.db;
      if (*rc::gen::arbitrary<bool>()) {
        target = *rc::gen::element(0, 1, 2, 3, 16);
        args.insert(args.end(), {"DB", Number(target)});
      }
      const bool replace = *rc::gen::arbitrary<bool>();
      if (replace) args.push_back("replace");
      if (target >= kDatabases) {
        Check(args, Err("ERR DB index is out of range"));
        break;
      }
      if (target == m.db && key == to) {
        Check(args, Err("ERR source and destination objects are the same"));
        break;
      }
      const Value* source = m.Lookup(key);
      if (!source) {
        Check(args, Int(0));
        break;
      }
      if (m.Lookup(target, to) && !replace) {
        Check(args, Int(0));
        break;
      }
      Value copy = *source;
      copy.shared = false;  // a copy is a new object, never a shared integer
      m.dbs[target][to] = copy;
      Check(args, Int(1));
      break;
    }
    case 14: {  // SWAPDB
      const int first = *rc::gen::inRange(0, kDatabases);
      const int second = *rc::gen::inRange(0, kDatabases);
      std::swap(m.dbs[first], m.dbs[second]);
      Check({"swapdb", Number(first), Number(second)}, Ok());
      break;
    }
    case 15: {  // FLUSHDB / FLUSHALL
      if (*rc::gen::weightedElement<bool>({{3, true}, {1, false}})) {
        m.dbs[m.db].clear();
        Check({"flushdb"}, Ok());
      } else {
        for (Model::Db& one : m.dbs) one.clear();
        Check({"flushall", "sync"}, Ok());
      }
      break;
    }
    case 16: {  // OBJECT ENCODING / REFCOUNT
      const bool refcount = *rc::gen::arbitrary<bool>();
      const Value* value = m.Lookup(key);
      const std::vector<std::string> args = {"object", refcount ? "refcount" : "encoding", key};
      if (!value) {
        Check(args, NilBulk());
      } else if (refcount) {
        Check(args, Int(value->shared ? 2147483647 : 1));
      } else {
        Check(args, Bulk(EncodingName(value->encoding)));
      }
      break;
    }
  }
}

constexpr int kStringOps = 16;
constexpr int kGenericOps = 17;

void KeyspaceModelTest::Step() {
  model_.now_ms = WallMs();
  const int op = *rc::gen::inRange(0, kStringOps + kGenericOps + 4);
  if (op < kStringOps) {
    StepString(op);
  } else if (op < kStringOps + kGenericOps) {
    StepGeneric(op - kStringOps);
  } else {
    MoveClock();
  }
}

RC_GTEST_FIXTURE_PROP(KeyspaceModelTest, RepliesMatchTheModel, ()) {
  const int steps = *rc::gen::inRange(1, 80);
  for (int i = 0; i < steps; i++) Step();
  for (int index = 0; index < engine_->database_count(); index++) {
    RC_ASSERT(engine_->database(index).CheckInvariants());
  }
}

}  // namespace
}  // namespace keel::testing
