// String commands. This foundation step has GET and SET with every option; the rest of the family
// arrives with the "Keyspace and strings" issue.
#include <climits>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"

namespace keel {
namespace {

// Replies with the string value of args[1] (or null). Returns false after a WRONGTYPE error.
bool ReplyWithValue(CommandContext& context) {
  Entry* entry = LookupKey(context.engine, context.db(), context.arg(1), LookupIntent::kRead);
  if (entry == nullptr) {
    context.reply.NullBulk();
    return true;
  }
  if (entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  context.reply.Bulk(entry->value());
  return true;
}

void CmdGet(CommandContext& context) { ReplyWithValue(context); }

enum SetFlag : uint32_t {
  kSetNx = 1 << 0,
  kSetXx = 1 << 1,
  kSetGet = 1 << 2,
  kSetKeepTtl = 1 << 3,
  kSetEx = 1 << 4,
  kSetPx = 1 << 5,
  kSetExAt = 1 << 6,
  kSetPxAt = 1 << 7,
};

constexpr uint32_t kSetAnyExpiry = kSetEx | kSetPx | kSetExAt | kSetPxAt;

// Redis's parseExtendedStringArgumentsOrReply for SET, with its exact exclusion rules (EX may be
// repeated, the last one wins; NX with XX, or KEEPTTL with any expiry, is a syntax error).
bool ParseSetOptions(CommandContext& context, uint32_t* flags, std::string_view* expire) {
  for (size_t i = 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const bool has_next = i + 1 < context.argc();
    auto expiry_option = [&](uint32_t flag) {
      // Any other expiry form, or KEEPTTL, already given makes this one a syntax error.
      if ((*flags & kSetKeepTtl) || (*flags & kSetAnyExpiry & ~flag) || !has_next) return false;
      *flags |= flag;
      *expire = context.arg(++i);
      return true;
    };
    if (OptionIs(option, "NX") && !(*flags & kSetXx)) {
      *flags |= kSetNx;
    } else if (OptionIs(option, "XX") && !(*flags & kSetNx)) {
      *flags |= kSetXx;
    } else if (OptionIs(option, "GET")) {
      *flags |= kSetGet;
    } else if (OptionIs(option, "KEEPTTL") && !(*flags & kSetAnyExpiry)) {
      *flags |= kSetKeepTtl;
    } else if (OptionIs(option, "EX")     ? expiry_option(kSetEx)
               : OptionIs(option, "PX")   ? expiry_option(kSetPx)
               : OptionIs(option, "EXAT") ? expiry_option(kSetExAt)
               : OptionIs(option, "PXAT") ? expiry_option(kSetPxAt)
                                          : false) {
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// Redis's getExpireMillisecondsOrReply: the absolute expiry in ms, or an error reply.
bool ExpireAtMs(CommandContext& context, uint32_t flags, std::string_view text, int64_t* at_ms) {
  int64_t value = 0;
  if (!ParseStrictInt64(text, &value)) {
    context.reply.Error(errors::kNotInteger);
    return false;
  }
  const bool seconds = (flags & (kSetEx | kSetExAt)) != 0;
  const std::string invalid = "ERR invalid expire time in '" + context.spec.full_name + "' command";
  if (value <= 0 || (seconds && value > LLONG_MAX / 1000)) {
    context.reply.Error(invalid);
    return false;
  }
  if (seconds) value *= 1000;
  if (flags & (kSetEx | kSetPx)) {
    // Relative: overflow past LLONG_MAX is caught as Redis catches it (a non-positive sum).
    value = static_cast<int64_t>(static_cast<uint64_t>(value) +
                                 static_cast<uint64_t>(context.now_ms()));
  }
  if (value <= 0) {
    context.reply.Error(invalid);
    return false;
  }
  *at_ms = value;
  return true;
}

void CmdSet(CommandContext& context) {
  uint32_t flags = 0;
  std::string_view expire;
  if (!ParseSetOptions(context, &flags, &expire)) return;
  int64_t expire_at_ms = kNoExpiry;
  if ((flags & kSetAnyExpiry) && !ExpireAtMs(context, flags, expire, &expire_at_ms)) return;
  if ((flags & kSetGet) && !ReplyWithValue(context)) return;

  Database& db = context.db();
  const std::string_view key = context.arg(1);
  const uint64_t hash = db.Hash(key);
  Entry* existing = LookupKey(context.engine, db, key, hash, LookupIntent::kWrite);
  if (((flags & kSetNx) && existing != nullptr) || ((flags & kSetXx) && existing == nullptr)) {
    if (!(flags & kSetGet)) context.reply.NullBulk();
    return;
  }
  if ((flags & kSetKeepTtl) && existing != nullptr) expire_at_ms = existing->expire_at_ms();
  const std::string_view value = context.arg(2);
  if (db.SetString(key, hash, value, expire_at_ms, StringEncodingFor(value)) ==
      Database::SetOutcome::kOutOfMemory) {
    // Replying after a GET reply would break the one-reply-per-command rule, so the GET form
    // cannot report it; Redis has the same shape (it cannot fail here).
    if (!(flags & kSetGet)) context.reply.Error(errors::kOom);
    return;
  }
  if (!(flags & kSetGet)) context.reply.Ok();
}

// SET's key is overwritten (OW update) unless GET also reads the old value (RW access update),
// as Redis's setGetKeys reports it. Any argument after the value spelled GET counts.
bool FindSetKeys(std::span<const std::string_view> args, std::vector<KeyReference>* keys) {
  bool get = false;
  for (size_t i = 3; i < args.size(); i++) get = get || OptionIs(args[i], "GET");
  keys->push_back({1, get ? kKeyRW | kKeyAccess | kKeyUpdate : kKeyOW | kKeyUpdate});
  return true;
}

constexpr CommandDef kStringCommands[] = {
    {.name = "get",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@string",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Get the value of a key",
     .args = "key:key#0",
     .handler = CmdGet},
    {.name = "set",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "RW access update variable_flags: index 1 range 0 1 0 | RW and ACCESS due to the "
             "optional `GET` argument",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Set the string value of a key",
     .args = "key:key#0 value:string ?condition:oneof@2.6.12{nx=NX xx=XX} ?get=GET@6.2.0 "
             "?expiration:oneof{seconds:integer=EX@2.6.12 milliseconds:integer=PX@2.6.12 "
             "unix-time-seconds:unix-time=EXAT@6.2.0 unix-time-milliseconds:unix-time=PXAT@6.2.0 "
             "keepttl=KEEPTTL@6.0.0}",
     .handler = CmdSet,
     .history = "2.6.12 Added the `EX`, `PX`, `NX` and `XX` options.|6.0.0 Added the `KEEPTTL` "
                "option.|6.2.0 Added the `GET`, `EXAT` and `PXAT` option.|7.0.0 Allowed the `NX` "
                "and `GET` options to be used together.",
     .find_keys = FindSetKeys},
};

}  // namespace

void RegisterStringCommands(Registry& registry) { registry.Add(kStringCommands); }

}  // namespace keel
