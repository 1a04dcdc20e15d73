// String counters: INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT. A counter keeps the key's expiry;
// the result is stored as Redis stores it (int for the integer commands; embstr, or raw past 44
// bytes, for INCRBYFLOAT's text).
#include <cmath>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"

namespace keel {
namespace {

constexpr std::string_view kNotFloat = "ERR value is not a valid float";

// Looks args[1] up for writing. Returns false after a WRONGTYPE error; `entry` is null for a
// missing key.
bool LookupCounter(CommandContext& context, uint64_t hash, Entry** entry) {
  *entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1), hash);
  if (*entry != nullptr && (*entry)->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  return true;
}

// Stores `text` at args[1] with the expiry `entry` had. Returns false after an OOM error.
bool StoreCounter(CommandContext& context, uint64_t hash, const Entry* entry, std::string_view text,
                  ObjectEncoding encoding, KeyEvent event) {
  const int64_t expire_at_ms = entry != nullptr ? entry->expire_at_ms() : kNoExpiry;
  if (context.keyspace.SetString(context.db_index(), context.arg(1), hash, text, expire_at_ms,
                                 encoding, event) == Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return false;
  }
  return true;
}

// Redis's incrDecrCommand: a missing key counts as 0; the stored value must be a strict decimal
// int64 (string2ll), and the sum must not leave the int64 range.
void IncrementBy(CommandContext& context, int64_t increment) {
  const uint64_t hash = context.keyspace.Hash(context.db_index(), context.arg(1));
  Entry* entry = nullptr;
  if (!LookupCounter(context, hash, &entry)) return;
  int64_t value = 0;
  if (entry != nullptr && !ParseStrictInt64(entry->value(), &value)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  if ((increment < 0 && value < 0 && increment < INT64_MIN - value) ||
      (increment > 0 && value > 0 && increment > INT64_MAX - value)) {
    context.reply.Error("ERR increment or decrement would overflow");
    return;
  }
  value += increment;
  char text[kInt64TextMax];
  const size_t length = FormatInt64(value, text);
  if (!StoreCounter(context, hash, entry, std::string_view(text, length), ObjectEncoding::kInt,
                    events::kIncrby)) {
    return;
  }
  context.reply.Integer(value);
}

void CmdIncr(CommandContext& context) { IncrementBy(context, 1); }
void CmdDecr(CommandContext& context) { IncrementBy(context, -1); }

void CmdIncrby(CommandContext& context) {
  int64_t increment = 0;
  if (!ParseStrictInt64(context.arg(2), &increment)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  IncrementBy(context, increment);
}

void CmdDecrby(CommandContext& context) {
  int64_t decrement = 0;
  if (!ParseStrictInt64(context.arg(2), &decrement)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  // Its negation is not an int64; checked before the key is even looked up.
  if (decrement == INT64_MIN) {
    context.reply.Error("ERR decrement would overflow");
    return;
  }
  IncrementBy(context, -decrement);
}

// Redis's incrbyfloatCommand, in long double as Redis computes it (x87 extended precision on
// x86-64). The stored value and the reply are the "%.17Lf" text with trailing zeros dropped, so
// 0.1 + 0.2 gives "0.3" and 1e50 gives all 51 of its digits.
void CmdIncrbyfloat(CommandContext& context) {
  const uint64_t hash = context.keyspace.Hash(context.db_index(), context.arg(1));
  Entry* entry = nullptr;
  if (!LookupCounter(context, hash, &entry)) return;
  long double value = 0;
  long double increment = 0;
  if ((entry != nullptr && !ParseLongDouble(entry->value(), &value)) ||
      !ParseLongDouble(context.arg(2), &increment)) {
    context.reply.Error(kNotFloat);
    return;
  }
  value += increment;
  if (std::isnan(value) || std::isinf(value)) {
    context.reply.Error("ERR increment would produce NaN or Infinity");
    return;
  }
  char text[kLongDoubleTextMax];
  const std::string_view result(text, FormatLongDoubleHuman(value, text));
  // Redis creates the result with createStringObject, never as an int: "10" is embstr.
  const ObjectEncoding encoding =
      result.size() <= 44 ? ObjectEncoding::kEmbstr : ObjectEncoding::kRaw;
  if (!StoreCounter(context, hash, entry, result, encoding, events::kIncrbyfloat)) return;
  // Replayed as the value it produced, so that a replica's floating point cannot differ.
  context.PropagateAs({"SET", context.arg(1), result, "KEEPTTL"});
  context.reply.Bulk(result);
}

// Copied from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS.
constexpr CommandDef kCounterCommands[] = {
    {.name = "incr",
     .arity = 2,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Increment the integer value of a key by one",
     .args = "key:key#0",
     .handler = CmdIncr},
    {.name = "decr",
     .arity = 2,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Decrement the integer value of a key by one",
     .args = "key:key#0",
     .handler = CmdDecr},
    {.name = "incrby",
     .arity = 3,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Increment the integer value of a key by the given amount",
     .args = "key:key#0 increment:integer",
     .handler = CmdIncrby},
    {.name = "decrby",
     .arity = 3,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Decrement the integer value of a key by the given number",
     .args = "key:key#0 decrement:integer",
     .handler = CmdDecrby},
    {.name = "incrbyfloat",
     .arity = 3,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "string",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Increment the float value of a key by the given amount",
     .args = "key:key#0 increment:double",
     .handler = CmdIncrbyfloat},
};

}  // namespace

void RegisterStringCounterCommands(Registry& registry) { registry.Add(kCounterCommands); }

}  // namespace keel
