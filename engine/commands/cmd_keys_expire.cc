// The expiry commands of the generic family: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT (with NX, XX,
// GT and LT), TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST.
//
// Expiry times are absolute Unix milliseconds. Every change goes through Keyspace::SetExpiry or
// RemoveExpiry (engine/db/keyspace.h); the commands propagate as Redis 7.0 does: PEXPIREAT with
// the absolute time (and the options as sent), or DEL when the time was already past.
#include <climits>
#include <string>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"

namespace keel {
namespace {

enum ExpireFlag : uint32_t {
  kExpireNx = 1 << 0,
  kExpireXx = 1 << 1,
  kExpireGt = 1 << 2,
  kExpireLt = 1 << 3,
};

// Redis's parseExtendedExpireArgumentsOrReply: any number of NX, XX, GT and LT (repeats allowed),
// then the incompatible pairs. An unknown option is quoted as C prints it, up to a NUL byte.
bool ParseExpireOptions(CommandContext& context, uint32_t* flags) {
  for (size_t i = 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    if (OptionIs(option, "NX")) {
      *flags |= kExpireNx;
    } else if (OptionIs(option, "XX")) {
      *flags |= kExpireXx;
    } else if (OptionIs(option, "GT")) {
      *flags |= kExpireGt;
    } else if (OptionIs(option, "LT")) {
      *flags |= kExpireLt;
    } else {
      context.reply.Error("ERR Unsupported option " +
                          std::string(option.substr(0, option.find('\0'))));
      return false;
    }
  }
  if ((*flags & kExpireNx) && (*flags & (kExpireXx | kExpireGt | kExpireLt))) {
    context.reply.Error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & kExpireGt) && (*flags & kExpireLt)) {
    context.reply.Error("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// Whether the condition options let a key whose expiry is `current_ms` (kNoExpiry for none) take
// `when_ms`. A key without an expiry counts as expiring never: GT always fails on it, LT always
// passes (Redis 7.0).
bool ConditionHolds(uint32_t flags, int64_t current_ms, int64_t when_ms) {
  const bool has_expiry = current_ms != kNoExpiry;
  if ((flags & kExpireNx) && has_expiry) return false;
  if ((flags & kExpireXx) && !has_expiry) return false;
  if ((flags & kExpireGt) && (!has_expiry || when_ms <= current_ms)) return false;
  if ((flags & kExpireLt) && has_expiry && when_ms >= current_ms) return false;
  return true;
}

// Redis's expireGenericCommand. `base_ms` is the command time for the relative forms and 0 for
// the absolute ones; `rewrite` says the command propagates as PEXPIREAT rather than as sent.
// Negative and past times are allowed: the key is then deleted at once. Only overflow is an error:
// seconds that do not fit in milliseconds, or a sum past LLONG_MAX.
void ExpireGeneric(CommandContext& context, int64_t base_ms, bool seconds, bool rewrite) {
  uint32_t flags = 0;
  if (!ParseExpireOptions(context, &flags)) return;
  int64_t when = 0;
  if (!ParseStrictInt64(context.arg(2), &when)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  const std::string invalid = "ERR invalid expire time in '" + context.spec.full_name + "' command";
  if (seconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
      context.reply.Error(invalid);
      return;
    }
    when *= 1000;
  }
  if (when > LLONG_MAX - base_ms) {
    context.reply.Error(invalid);
    return;
  }
  when += base_ms;

  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  Entry* entry = keyspace.LookupWrite(db, key);
  if (entry == nullptr || !ConditionHolds(flags, entry->expire_at_ms(), when)) {
    context.reply.Integer(0);
    return;
  }
  switch (keyspace.SetExpiry(db, &entry, when)) {
    case ExpiryOutcome::kOutOfMemory:
      context.reply.Error(errors::kOom);
      return;
    case ExpiryOutcome::kDeleted:
      PropagateAsDel(context, key, keyspace.settings().lazyfree_lazy_expire);
      break;
    case ExpiryOutcome::kSet:
      // PEXPIREAT replays as sent; the relative and second forms as PEXPIREAT.
      if (rewrite) PropagateAsPexpireat(context, key, when, context.args.subspan(3));
      break;
  }
  context.reply.Integer(1);
}

void CmdExpire(CommandContext& context) { ExpireGeneric(context, context.now_ms(), true, true); }
void CmdPexpire(CommandContext& context) { ExpireGeneric(context, context.now_ms(), false, true); }
void CmdExpireat(CommandContext& context) { ExpireGeneric(context, 0, true, true); }
void CmdPexpireat(CommandContext& context) { ExpireGeneric(context, 0, false, false); }

// Redis's ttlGenericCommand: -2 for a missing key, -1 for one without an expiry, else the time
// left (or the absolute time), in seconds rounded to the nearest. The lookup does not touch the
// key. A key in its expiry millisecond has 0 left.
void TtlGeneric(CommandContext& context, bool milliseconds, bool absolute) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1), kLookupNoTouch);
  if (entry == nullptr) {
    context.reply.Integer(-2);
    return;
  }
  if (!entry->has_expiry()) {
    context.reply.Integer(-1);
    return;
  }
  int64_t ttl = absolute ? entry->expire_at_ms() : entry->expire_at_ms() - context.now_ms();
  if (ttl < 0) ttl = 0;
  // Rounded in unsigned arithmetic: redis-server's reply for an expiry near INT64_MAX (PEXPIREAT
  // accepts it) is the exact quotient, e.g. EXPIRETIME 9223372036854776 for INT64_MAX.
  const auto rounded_s = static_cast<int64_t>((static_cast<uint64_t>(ttl) + 500) / 1000);
  context.reply.Integer(milliseconds ? ttl : rounded_s);
}

void CmdTtl(CommandContext& context) { TtlGeneric(context, false, false); }
void CmdPttl(CommandContext& context) { TtlGeneric(context, true, false); }
void CmdExpiretime(CommandContext& context) { TtlGeneric(context, false, true); }
void CmdPexpiretime(CommandContext& context) { TtlGeneric(context, true, true); }

void CmdPersist(CommandContext& context) {
  Entry* entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1));
  if (entry == nullptr || !entry->has_expiry()) {
    context.reply.Integer(0);
    return;
  }
  if (!context.keyspace.RemoveExpiry(context.db_index(), &entry)) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(1);
}

constexpr std::string_view kExpireHistory = "7.0.0 Added options: `NX`, `XX`, `GT` and `LT`.";

constexpr CommandDef kExpireCommands[] = {
    {.name = "expire",
     .arity = -3,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Set a key's time to live in seconds",
     .args = "key:key#0 seconds:integer ?condition:oneof@7.0.0{nx=NX xx=XX gt=GT lt=LT}",
     .handler = CmdExpire,
     .history = kExpireHistory},
    {.name = "pexpire",
     .arity = -3,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "generic",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Set a key's time to live in milliseconds",
     .args = "key:key#0 milliseconds:integer ?condition:oneof@7.0.0{nx=NX xx=XX gt=GT lt=LT}",
     .handler = CmdPexpire,
     .history = kExpireHistory},
    {.name = "expireat",
     .arity = -3,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "generic",
     .since = "1.2.0",
     .complexity = "O(1)",
     .summary = "Set the expiration for a key as a UNIX timestamp",
     .args = "key:key#0 unix-time-seconds:unix-time ?condition:oneof@7.0.0{nx=NX xx=XX gt=GT "
             "lt=LT}",
     .handler = CmdExpireat,
     .history = kExpireHistory},
    {.name = "pexpireat",
     .arity = -3,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "generic",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Set the expiration for a key as a UNIX timestamp specified in milliseconds",
     .args = "key:key#0 unix-time-milliseconds:unix-time ?condition:oneof@7.0.0{nx=NX xx=XX gt=GT "
             "lt=LT}",
     .handler = CmdPexpireat,
     .history = kExpireHistory},
    {.name = "ttl",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Get the time to live for a key in seconds",
     .args = "key:key#0",
     .handler = CmdTtl,
     .history = "2.8.0 Added the -2 reply.",
     .tips = "nondeterministic_output"},
    {.name = "pttl",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "generic",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Get the time to live for a key in milliseconds",
     .args = "key:key#0",
     .handler = CmdPttl,
     .history = "2.8.0 Added the -2 reply.",
     .tips = "nondeterministic_output"},
    {.name = "expiretime",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "generic",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Get the expiration Unix timestamp for a key",
     .args = "key:key#0",
     .handler = CmdExpiretime},
    {.name = "pexpiretime",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "generic",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Get the expiration Unix timestamp for a key in milliseconds",
     .args = "key:key#0",
     .handler = CmdPexpiretime},
    {.name = "persist",
     .arity = 2,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "generic",
     .since = "2.2.0",
     .complexity = "O(1)",
     .summary = "Remove the expiration from a key",
     .args = "key:key#0",
     .handler = CmdPersist},
};

}  // namespace

void RegisterExpireCommands(Registry& registry) { registry.Add(kExpireCommands); }

}  // namespace keel
