// The expiry commands in the model: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX, XX, GT and
// LT), TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST (Redis 7.0's expire.c rules).
#include <climits>

#include "sim/model/model.h"

namespace keel::model {
namespace {

struct ExpireConditions {
  bool nx = false, xx = false, gt = false, lt = false;
};

// Redis's parseExtendedExpireArgumentsOrReply: any number of NX, XX, GT and LT (repeats allowed),
// then the incompatible pairs. An unknown option is quoted as C prints it, up to a NUL byte.
bool ParseConditions(std::span<const std::string> args, ExpireConditions* conditions,
                     Expected* error) {
  for (size_t i = 3; i < args.size(); i++) {
    const std::string& option = args[i];
    if (OptionIs(option, "NX")) {
      conditions->nx = true;
    } else if (OptionIs(option, "XX")) {
      conditions->xx = true;
    } else if (OptionIs(option, "GT")) {
      conditions->gt = true;
    } else if (OptionIs(option, "LT")) {
      conditions->lt = true;
    } else {
      *error = Error("ERR Unsupported option " + option.substr(0, option.find('\0')));
      return false;
    }
  }
  if (conditions->nx && (conditions->xx || conditions->gt || conditions->lt)) {
    *error = Error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if (conditions->gt && conditions->lt) {
    *error = Error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// A key without an expiry counts as expiring never: GT always fails on it, LT always passes.
bool ConditionsHold(const ExpireConditions& conditions, int64_t current_ms, int64_t when_ms) {
  const bool has_expiry = current_ms != kNoExpiry;
  if (conditions.nx && has_expiry) return false;
  if (conditions.xx && !has_expiry) return false;
  if (conditions.gt && (!has_expiry || when_ms <= current_ms)) return false;
  if (conditions.lt && has_expiry && when_ms >= current_ms) return false;
  return true;
}

// Redis's expireGenericCommand: options, then the time. Negative and past times are allowed (the
// key is deleted at once, reply 1); only overflow is an error. `relative` adds the command time.
Expected ExpireGeneric(Call& call, bool relative, bool seconds, std::string_view name) {
  ExpireConditions conditions;
  Expected error;
  if (!ParseConditions(call.args, &conditions, &error)) return error;
  int64_t when = 0;
  if (!ParseInt64(call.args[2], &when)) return Error(kNotInteger);
  const Expected invalid = Error("ERR invalid expire time in '" + std::string(name) + "' command");
  if (seconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) return invalid;
    when *= 1000;
  }
  const int64_t base_ms = relative ? call.now_ms() : 0;
  if (when > LLONG_MAX - base_ms) return invalid;
  when += base_ms;
  const std::string& key = call.args[1];
  Value* value = call.Lookup(key);
  if (value == nullptr || !ConditionsHold(conditions, value->expire_at_ms, when)) {
    return Integer(0);
  }
  // Redis's checkAlreadyExpired: a time at or before now deletes the key.
  if (when <= call.now_ms()) {
    call.db().erase(key);
    return Integer(1);
  }
  if (call.context.allocation_refused) return Error(kOomError);
  value->expire_at_ms = when;
  call.model.MarkWritten(call.session.db, key);  // a write even when the time is the same
  return Integer(1);
}

Expected Expire(Call& call) { return ExpireGeneric(call, true, true, "expire"); }
Expected Pexpire(Call& call) { return ExpireGeneric(call, true, false, "pexpire"); }
Expected Expireat(Call& call) { return ExpireGeneric(call, false, true, "expireat"); }
Expected Pexpireat(Call& call) { return ExpireGeneric(call, false, false, "pexpireat"); }

// Redis's ttlGenericCommand: -2 for a missing key, -1 for one without an expiry, else the time
// left (or the absolute time), in seconds rounded to the nearest. A key in its expiry
// millisecond has 0 left.
Expected TtlGeneric(Call& call, bool milliseconds, bool absolute) {
  const Value* value = call.Lookup(call.args[1]);
  if (value == nullptr) return Integer(-2);
  if (value->expire_at_ms == kNoExpiry) return Integer(-1);
  int64_t ttl = absolute ? value->expire_at_ms : value->expire_at_ms - call.now_ms();
  if (ttl < 0) ttl = 0;
  // In unsigned arithmetic, as an expiry near INT64_MAX (PEXPIREAT accepts it) rounds in Redis.
  const auto rounded_s = static_cast<int64_t>((static_cast<uint64_t>(ttl) + 500) / 1000);
  return Integer(milliseconds ? ttl : rounded_s);
}

Expected Ttl(Call& call) { return TtlGeneric(call, false, false); }
Expected Pttl(Call& call) { return TtlGeneric(call, true, false); }
Expected Expiretime(Call& call) { return TtlGeneric(call, false, true); }
Expected Pexpiretime(Call& call) { return TtlGeneric(call, true, true); }

Expected Persist(Call& call) {
  Value* value = call.Lookup(call.args[1]);
  if (value == nullptr || value->expire_at_ms == kNoExpiry) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  value->expire_at_ms = kNoExpiry;
  return Integer(1);
}

constexpr Command kCommands[] = {
    {"expire", kAllocates, Expire},
    {"pexpire", kAllocates, Pexpire},
    {"expireat", kAllocates, Expireat},
    {"pexpireat", kAllocates, Pexpireat},
    {"ttl", 0, Ttl},
    {"pttl", 0, Pttl},
    {"expiretime", 0, Expiretime},
    {"pexpiretime", 0, Pexpiretime},
    {"persist", kAllocates, Persist},
};

}  // namespace

std::span<const Command> ExpireCommands() { return kCommands; }

}  // namespace keel::model
