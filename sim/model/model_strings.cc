// The string family in the model: GET, SET with every option, SETNX, SETEX, PSETEX, GETEX,
// GETDEL, GETSET, MGET, MSET, MSETNX, APPEND, STRLEN, GETRANGE, SUBSTR and SETRANGE (Redis 7.0's
// t_string.c rules). The counters are in model_counters.cc, LCS in model_lcs.cc.
//
// Every write that allocates has an out-of-memory outcome (Context::allocation_refused): the
// lookups before the write happened (an expired key they met is gone), nothing was written, and
// the reply is the OOM error.
#include <algorithm>
#include <climits>

#include "sim/model/model.h"

namespace keel::model {
namespace {

// Redis's proto-max-bulk-len default: a string may not grow past it.
constexpr int64_t kStringBytesMax = 512 * 1024 * 1024;

// GET's reply for `key`; `wrong_type` tells whether it was the WRONGTYPE error.
Expected ValueReply(Call& call, const std::string& key, bool* wrong_type) {
  *wrong_type = false;
  const Value* value = call.Lookup(key);
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

// Redis's getExpireMillisecondsOrReply: the absolute expiry in ms from `text` in `unit` ("EX",
// "PX", "EXAT" or "PXAT"), or the error Redis replies, naming `command`.
bool ExpireAt(std::string_view unit, const std::string& text, int64_t now_ms,
              std::string_view command, int64_t* at_ms, Expected* error) {
  int64_t value = 0;
  if (!ParseInt64(text, &value)) {
    *error = Error(kNotInteger);
    return false;
  }
  const bool seconds = unit == "EX" || unit == "EXAT";
  const bool relative = unit == "EX" || unit == "PX";
  const Expected invalid =
      Error("ERR invalid expire time in '" + std::string(command) + "' command");
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

struct SetOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keep_ttl = false;
  bool persist = false;  // GETEX only
  std::string unit;      // "EX", "PX", "EXAT", "PXAT" or empty
  std::string expire;
};

// An expiry form at args[*i]: it excludes KEEPTTL, PERSIST and the other forms, and needs its
// argument. Repeating the same form is allowed (the last one wins).
bool ParseExpiryForm(std::span<const std::string> args, size_t* i, SetOptions* options) {
  for (std::string_view unit : {"EX", "PX", "EXAT", "PXAT"}) {
    if (!OptionIs(args[*i], unit)) continue;
    const bool other_unit = !options->unit.empty() && options->unit != unit;
    if (options->keep_ttl || options->persist || other_unit || *i + 1 >= args.size()) return false;
    options->unit = std::string(unit);
    options->expire = args[++*i];
    return true;
  }
  return false;
}

// SET's options, in any order. NX and XX exclude each other, as do KEEPTTL and the expiry forms.
// Anything else is a syntax error.
bool ParseSetOptions(std::span<const std::string> args, SetOptions* options) {
  for (size_t i = 3; i < args.size(); i++) {
    const std::string& option = args[i];
    if (OptionIs(option, "NX") && !options->xx) {
      options->nx = true;
    } else if (OptionIs(option, "XX") && !options->nx) {
      options->xx = true;
    } else if (OptionIs(option, "GET")) {
      options->get = true;
    } else if (OptionIs(option, "KEEPTTL") && options->unit.empty()) {
      options->keep_ttl = true;
    } else if (!ParseExpiryForm(args, &i, options)) {
      return false;
    }
  }
  return true;
}

// GETEX's options: the expiry forms and PERSIST, each excluding the others.
bool ParseGetexOptions(std::span<const std::string> args, SetOptions* options) {
  for (size_t i = 2; i < args.size(); i++) {
    if (OptionIs(args[i], "PERSIST") && options->unit.empty()) {
      options->persist = true;
    } else if (!ParseExpiryForm(args, &i, options)) {
      return false;
    }
  }
  return true;
}

Expected Set(Call& call) {
  SetOptions options;
  if (!ParseSetOptions(call.args, &options)) return Error(kSyntaxError);
  int64_t expire_at_ms = kNoExpiry;
  Expected reply = Ok();
  if (!options.unit.empty() &&
      !ExpireAt(options.unit, options.expire, call.now_ms(), "set", &expire_at_ms, &reply)) {
    return reply;
  }
  const std::string& key = call.args[1];
  if (options.get) {
    bool wrong_type = false;
    reply = ValueReply(call, key, &wrong_type);
    if (wrong_type) return reply;
  }
  Value* existing = call.Lookup(key);
  if ((options.nx && existing != nullptr) || (options.xx && existing == nullptr)) {
    return options.get ? reply : call.Null();
  }
  // With GET too the old value is not sent: the OOM error is the only reply.
  if (call.context.allocation_refused) return Error(kOomError);
  if (options.keep_ttl && existing != nullptr) expire_at_ms = existing->expire_at_ms;
  call.Store(key, StoredString(call.args[2], expire_at_ms, call.shared_integers()));
  return options.get ? reply : Ok();
}

Expected Setnx(Call& call) {
  if (call.Lookup(call.args[1]) != nullptr) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  call.Store(call.args[1], StoredString(call.args[2], kNoExpiry, call.shared_integers()));
  return Integer(1);
}

// SETEX and PSETEX: the expiry is checked first, then the key is replaced whatever it held.
Expected SetWithTtl(Call& call, std::string_view unit, std::string_view name) {
  int64_t expire_at_ms = kNoExpiry;
  Expected error;
  if (!ExpireAt(unit, call.args[2], call.now_ms(), name, &expire_at_ms, &error)) return error;
  call.Lookup(call.args[1]);  // reclaims an expired key, as Redis's lookupKeyWrite does
  if (call.context.allocation_refused) return Error(kOomError);
  call.Store(call.args[1], StoredString(call.args[3], expire_at_ms, call.shared_integers()));
  return Ok();
}

Expected Setex(Call& call) { return SetWithTtl(call, "EX", "setex"); }
Expected Psetex(Call& call) { return SetWithTtl(call, "PX", "psetex"); }

// GETEX: option syntax first, then the key (a missing key replies null before the expiry value is
// even parsed), then the expiry value. An absolute time at or before now (Redis's
// checkAlreadyExpired, when <= now) deletes the key after replying with it.
Expected Getex(Call& call) {
  SetOptions options;
  if (!ParseGetexOptions(call.args, &options)) return Error(kSyntaxError);
  const std::string& key = call.args[1];
  Value* value = call.Lookup(key);
  if (value == nullptr) return call.Null();
  if (IsOtherType(value)) return Error(kWrongType);
  const Expected reply = Bulk(value->string);
  if (!options.unit.empty()) {
    int64_t at_ms = kNoExpiry;
    Expected error;
    if (!ExpireAt(options.unit, options.expire, call.now_ms(), "getex", &at_ms, &error)) {
      return error;
    }
    if (at_ms <= call.now_ms()) {
      call.db().erase(key);
      return reply;
    }
    if (call.context.allocation_refused) return Error(kOomError);
    value->expire_at_ms = at_ms;
    call.model.MarkWritten(call.session.db, key);  // a write even when the time is the same
  } else if (options.persist && value->expire_at_ms != kNoExpiry) {
    if (call.context.allocation_refused) return Error(kOomError);
    value->expire_at_ms = kNoExpiry;
  }
  return reply;
}

Expected Getdel(Call& call) {
  const Value* value = call.Lookup(call.args[1]);
  if (value == nullptr) return call.Null();
  if (IsOtherType(value)) return Error(kWrongType);
  const Expected reply = Bulk(value->string);
  call.db().erase(call.args[1]);
  return reply;
}

// GETSET: SET key value GET, which also clears the expiry.
Expected Getset(Call& call) {
  const Value* old = call.Lookup(call.args[1]);
  if (IsOtherType(old)) return Error(kWrongType);
  const Expected reply = old != nullptr ? Bulk(old->string) : call.Null();
  if (call.context.allocation_refused) return Error(kOomError);
  call.Store(call.args[1], StoredString(call.args[2], kNoExpiry, call.shared_integers()));
  return reply;
}

Expected Mget(Call& call) {
  std::vector<RespValue> values;
  for (size_t i = 1; i < call.args.size(); i++) {
    const Value* value = call.Lookup(call.args[i]);
    // A value of another type reads as missing.
    values.push_back(value != nullptr && !IsOtherType(value) ? RespValue::Bulk(value->string)
                                                             : call.Null().value);
  }
  return Array(std::move(values));
}

// MSET and MSETNX. The arity check lets any count of at least 3 through; unpaired arguments get
// the arity error's text. MSETNX looks the keys up in order until the first live one. Both are all
// or nothing: a refused allocation writes no pair (every key was looked up first).
Expected MsetGeneric(Call& call, bool nx) {
  if (call.args.size() % 2 == 0) return Error(WrongArity(nx ? "msetnx" : "mset"));
  for (size_t i = 1; i < call.args.size(); i += 2) {
    if (call.Lookup(call.args[i]) != nullptr && nx) return Integer(0);
  }
  if (call.context.allocation_refused) return Error(kOomError);
  // In argument order, so the last value of a repeated key wins.
  for (size_t i = 1; i < call.args.size(); i += 2) {
    call.Store(call.args[i], StoredString(call.args[i + 1], kNoExpiry, call.shared_integers()));
  }
  return nx ? Integer(1) : Ok();
}

Expected Mset(Call& call) { return MsetGeneric(call, false); }
Expected Msetnx(Call& call) { return MsetGeneric(call, true); }

bool TooLong(int64_t size, int64_t append) {
  return size > kStringBytesMax || append > kStringBytesMax - size;
}

constexpr std::string_view kTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

// APPEND: a new key is stored as SET stores it; appending to a string leaves it raw (Redis edits
// it in place), even when nothing is appended.
Expected Append(Call& call) {
  const std::string& key = call.args[1];
  const std::string& tail = call.args[2];
  Value* value = call.Lookup(key);
  if (IsOtherType(value)) return Error(kWrongType);
  if (value == nullptr) {
    if (call.context.allocation_refused) return Error(kOomError);
    call.Store(key, StoredString(tail, kNoExpiry, call.shared_integers()));
    return Integer(static_cast<int64_t>(tail.size()));
  }
  if (TooLong(static_cast<int64_t>(value->string.size()), static_cast<int64_t>(tail.size()))) {
    return Error(kTooLong);
  }
  if (call.context.allocation_refused) return Error(kOomError);
  *value = EditedString(value->string + tail, value->expire_at_ms);
  call.model.MarkWritten(call.session.db, key);  // Redis touches it even when nothing is appended
  return Integer(static_cast<int64_t>(value->string.size()));
}

Expected Strlen(Call& call) {
  const Value* value = call.Lookup(call.args[1]);
  if (IsOtherType(value)) return Error(kWrongType);
  return Integer(value != nullptr ? static_cast<int64_t>(value->string.size()) : 0);
}

// GETRANGE and SUBSTR: inclusive byte offsets, negative ones counted from the end, clamped.
Expected Getrange(Call& call) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseInt64(call.args[2], &start) || !ParseInt64(call.args[3], &end)) {
    return Error(kNotInteger);
  }
  const Value* value = call.Lookup(call.args[1]);
  if (IsOtherType(value)) return Error(kWrongType);
  if (value == nullptr) return Bulk("");
  const auto length = static_cast<int64_t>(value->string.size());
  // Both from the end with start past end is empty even where clamping would make them meet.
  if (start < 0 && end < 0 && start > end) return Bulk("");
  if (start < 0) start = std::max<int64_t>(length + start, 0);
  if (end < 0) end = std::max<int64_t>(length + end, 0);
  if (end >= length) end = length - 1;
  if (start > end || length == 0) return Bulk("");
  return Bulk(std::string_view(value->string)
                  .substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// SETRANGE: overwrites from the offset, padding with zero bytes; the result is raw. Writing
// nothing changes nothing and creates no key.
Expected Setrange(Call& call) {
  int64_t offset = 0;
  if (!ParseInt64(call.args[2], &offset)) return Error(kNotInteger);
  if (offset < 0) return Error("ERR offset is out of range");
  const std::string& key = call.args[1];
  const std::string& patch = call.args[3];
  Value* value = call.Lookup(key);
  if (IsOtherType(value)) return Error(kWrongType);
  const int64_t old_size = value != nullptr ? static_cast<int64_t>(value->string.size()) : 0;
  if (patch.empty()) return Integer(old_size);
  if (TooLong(offset, static_cast<int64_t>(patch.size()))) return Error(kTooLong);
  if (call.context.allocation_refused) return Error(kOomError);
  std::string built = value != nullptr ? value->string : std::string();
  const size_t end = static_cast<size_t>(offset) + patch.size();
  if (built.size() < end) built.resize(end, '\0');
  built.replace(static_cast<size_t>(offset), patch.size(), patch);
  const int64_t expire_at_ms = value != nullptr ? value->expire_at_ms : kNoExpiry;
  const auto size = static_cast<int64_t>(built.size());
  call.Store(key, EditedString(std::move(built), expire_at_ms));
  return Integer(size);
}

constexpr Command kCommands[] = {
    {"get", 0, Get},
    {"set", kAllocates, Set},
    {"setnx", kAllocates, Setnx},
    {"setex", kAllocates, Setex},
    {"psetex", kAllocates, Psetex},
    {"getex", kAllocates, Getex},
    {"getdel", 0, Getdel},
    {"getset", kAllocates, Getset},
    {"mget", 0, Mget},
    {"mset", kAllocates, Mset},
    {"msetnx", kAllocates, Msetnx},
    {"append", kAllocates, Append},
    {"strlen", 0, Strlen},
    {"getrange", 0, Getrange},
    {"substr", 0, Getrange},
    {"setrange", kAllocates, Setrange},
};

}  // namespace

std::span<const Command> StringCommands() { return kCommands; }

}  // namespace keel::model
