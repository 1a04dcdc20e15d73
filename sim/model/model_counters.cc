// The string counters in the model: INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT (Redis 7.0's
// incrDecrCommand and incrbyfloatCommand). A counter keeps the key's expiry. An integer result is
// stored as SET would store its text (int, shared when 0..9999); INCRBYFLOAT's text is created
// as a plain string, never an int: embstr, or raw past 44 bytes.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/model/model.h"

namespace keel::model {
namespace {

Expected IncrementBy(Call& call, int64_t increment) {
  const std::string& key = call.args[1];
  const Value* value = call.Lookup(key);
  if (IsOtherType(value)) return Error(kWrongType);
  int64_t current = 0;
  if (value != nullptr && !ParseInt64(value->string, &current)) return Error(kNotInteger);
  if ((increment < 0 && current < 0 && increment < INT64_MIN - current) ||
      (increment > 0 && current > 0 && increment > INT64_MAX - current)) {
    return Error("ERR increment or decrement would overflow");
  }
  if (call.context.allocation_refused) return Error(kOomError);
  const int64_t result = current + increment;
  const int64_t expire_at_ms = value != nullptr ? value->expire_at_ms : kNoExpiry;
  call.Store(key, StoredString(std::to_string(result), expire_at_ms, call.shared_integers()));
  return Integer(result);
}

Expected Incr(Call& call) { return IncrementBy(call, 1); }
Expected Decr(Call& call) { return IncrementBy(call, -1); }

Expected Incrby(Call& call) {
  int64_t increment = 0;
  if (!ParseInt64(call.args[2], &increment)) return Error(kNotInteger);
  return IncrementBy(call, increment);
}

Expected Decrby(Call& call) {
  int64_t decrement = 0;
  if (!ParseInt64(call.args[2], &decrement)) return Error(kNotInteger);
  // Its negation is not an int64: refused before the key is looked up.
  if (decrement == INT64_MIN) return Error("ERR decrement would overflow");
  return IncrementBy(call, -decrement);
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

Expected Incrbyfloat(Call& call) {
  const std::string& key = call.args[1];
  const Value* value = call.Lookup(key);
  if (IsOtherType(value)) return Error(kWrongType);
  long double current = 0;
  long double increment = 0;
  if ((value != nullptr && !ParseLongDouble(value->string, &current)) ||
      !ParseLongDouble(call.args[2], &increment)) {
    return Error("ERR value is not a valid float");
  }
  const long double result = current + increment;
  if (std::isnan(result) || std::isinf(result)) {
    return Error("ERR increment would produce NaN or Infinity");
  }
  if (call.context.allocation_refused) return Error(kOomError);
  Value stored;
  stored.string = FormatHuman(result);
  stored.expire_at_ms = value != nullptr ? value->expire_at_ms : kNoExpiry;
  stored.encoding = stored.string.size() <= 44 ? Encoding::kEmbstr : Encoding::kRaw;
  const Expected reply = Bulk(stored.string);
  call.Store(key, std::move(stored));
  return reply;
}

constexpr Command kCommands[] = {
    {"incr", kAllocates, Incr},
    {"decr", kAllocates, Decr},
    {"incrby", kAllocates, Incrby},
    {"decrby", kAllocates, Decrby},
    {"incrbyfloat", kAllocates, Incrbyfloat},
};

}  // namespace

// Redis's string2ld as observed (7.0.15): the whole text must be a number for strtold, with no
// leading space and no NUL byte, and neither NaN nor an overflow.
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

std::span<const Command> CounterCommands() { return kCommands; }

}  // namespace keel::model
