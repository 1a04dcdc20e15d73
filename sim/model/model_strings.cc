// The string family in the model: GET and SET with every option (Redis 7.0's t_string.c rules).
#include <climits>

#include "sim/model/model.h"

namespace keel::model {
namespace {

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

// GET's reply for `key`; `wrong_type` tells whether it was the WRONGTYPE error.
Expected ValueReply(Call& call, const std::string& key, bool* wrong_type) {
  *wrong_type = false;
  const Value* value = call.model.Lookup(call.session.db, key, call.now_ms());
  if (value == nullptr) return call.Null();
  if (value->type != ValueType::kString) {
    *wrong_type = true;
    return Error(kWrongType);
  }
  return Bulk(value->string);
}

Expected Get(Call& call) {
  bool wrong_type = false;
  return ValueReply(call, call.args[1], &wrong_type);
}

struct SetOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keep_ttl = false;
  std::string unit;  // "EX", "PX", "EXAT", "PXAT" or empty
  std::string expire;
};

// Options may come in any order. NX and XX exclude each other, as do KEEPTTL and the expiry
// forms, and the expiry forms each other; an expiry form needs its argument. Anything else is a
// syntax error. Repeating the same form is allowed (the last one wins).
bool ParseOptions(std::span<const std::string> args, SetOptions* options) {
  for (size_t i = 3; i < args.size(); i++) {
    const std::string& option = args[i];
    const bool has_next = i + 1 < args.size();
    if (EqualsIgnoreCase(option, "NX") && !options->xx) {
      options->nx = true;
    } else if (EqualsIgnoreCase(option, "XX") && !options->nx) {
      options->xx = true;
    } else if (EqualsIgnoreCase(option, "GET")) {
      options->get = true;
    } else if (EqualsIgnoreCase(option, "KEEPTTL") && options->unit.empty()) {
      options->keep_ttl = true;
    } else {
      bool matched = false;
      for (std::string_view unit : {"EX", "PX", "EXAT", "PXAT"}) {
        if (!EqualsIgnoreCase(option, unit)) continue;
        const bool other_unit = !options->unit.empty() && options->unit != unit;
        if (options->keep_ttl || other_unit || !has_next) return false;
        options->unit = std::string(unit);
        options->expire = args[++i];
        matched = true;
        break;
      }
      if (!matched) return false;
    }
  }
  return true;
}

// The absolute expiry in ms, or the error Redis replies.
bool ExpireAt(const SetOptions& options, int64_t now_ms, int64_t* at_ms, Expected* error) {
  int64_t value = 0;
  if (!ParseInt64(options.expire, &value)) {
    *error = Error(kNotInteger);
    return false;
  }
  const bool seconds = options.unit == "EX" || options.unit == "EXAT";
  const bool relative = options.unit == "EX" || options.unit == "PX";
  const Expected invalid = Error("ERR invalid expire time in 'set' command");
  if (value <= 0 || (seconds && value > LLONG_MAX / 1000)) {
    *error = invalid;
    return false;
  }
  __int128_t at = seconds ? static_cast<__int128_t>(value) * 1000 : value;
  if (relative) at += now_ms;
  // Redis adds in 64 bits and rejects the sum when it went negative, which is what passing
  // LLONG_MAX does.
  if (at > LLONG_MAX || at <= 0) {
    *error = invalid;
    return false;
  }
  *at_ms = static_cast<int64_t>(at);
  return true;
}

Expected Set(Call& call) {
  SetOptions options;
  if (!ParseOptions(call.args, &options)) return Error(kSyntaxError);
  int64_t expire_at_ms = kNoExpiry;
  Expected reply = Ok();
  if (!options.unit.empty() && !ExpireAt(options, call.now_ms(), &expire_at_ms, &reply)) {
    return reply;
  }
  const std::string& key = call.args[1];
  if (options.get) {
    bool wrong_type = false;
    reply = ValueReply(call, key, &wrong_type);
    if (wrong_type) return reply;
  }
  Value* existing = call.model.Lookup(call.session.db, key, call.now_ms());
  if ((options.nx && existing != nullptr) || (options.xx && existing == nullptr)) {
    return options.get ? reply : call.Null();
  }
  if (call.context.allocation_refused) {
    // The engine's outcome when memory for the new value is refused: nothing changes and the
    // reply is the OOM error, with GET too (the old value is not sent).
    return Error(kOomError);
  }
  if (options.keep_ttl && existing != nullptr) expire_at_ms = existing->expire_at_ms;
  call.db()[key] = Value{ValueType::kString, call.args[2], expire_at_ms};
  return options.get ? reply : Ok();
}

constexpr Command kCommands[] = {
    {"get", 2, 0, Get},
    {"set", -3, kWrite | kDenyOom | kAllocates, Set},
};

}  // namespace

std::span<const Command> StringCommands() { return kCommands; }

}  // namespace keel::model
