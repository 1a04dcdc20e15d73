// DUMP and RESTORE: a value in Redis's serialised form (its RDB encoding, the RDB version and a
// CRC-64), made by the value's own serialiser (engine/db/value_ops.h), so that a payload moves
// between Keel and redis-server 7.0 in both directions.
#include <cstring>
#include <string>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/rdb_format.h"
#include "engine/db/value_load.h"
#include "engine/db/value_ops.h"
#include "engine/server/config.h"
#include "engine/server/value_limits.h"

namespace keel {
namespace {

// A hash with field TTLs is written in Redis 7.4's types, so its payload says RDB 12.
void AppendFooter(std::string* payload) {
  const bool field_ttls =
      !payload->empty() && (static_cast<uint8_t>((*payload)[0]) == rdb::kTypeHashMetadata ||
                            static_cast<uint8_t>((*payload)[0]) == rdb::kTypeHashListpackEx);
  rdb::AppendPayloadFooter(payload, field_ttls ? rdb::kVersionFieldExpiry : rdb::kVersion);
}

bool PayloadIsValid(const CommandContext& context, std::string_view payload) {
  return rdb::PayloadFooterValid(payload, !context.skip_checksum_validation());
}

void CmdDump(CommandContext& context) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry == nullptr) {
    context.reply.NullBulk();
    return;
  }
  std::string payload;
  SerialiseValue(*entry, {.compress = context.config().rdbcompression}, &payload);
  AppendFooter(&payload);
  context.reply.Bulk(payload);
}

// A relative TTL from the command time, wrapping on overflow as Redis's `ttl += mstime()` does:
// a TTL near INT64_MAX lands in the past, so the key is taken as already expired.
int64_t RelativeToAbsolute(int64_t ttl_ms, int64_t now_ms) {
  return static_cast<int64_t>(static_cast<uint64_t>(ttl_ms) + static_cast<uint64_t>(now_ms));
}

struct RestoreOptions {
  bool replace = false;
  bool absttl = false;
  int64_t idle_seconds = -1;  // IDLETIME
  int64_t frequency = -1;     // FREQ
};

// The options after the payload, as Redis's restoreCommand reads them: IDLETIME and FREQ
// exclude each other, and each needs its value. False after replying with the error.
bool ParseRestoreOptions(CommandContext& context, RestoreOptions* options) {
  for (size_t i = 4; i < context.argc(); i++) {
    const std::string_view arg = context.arg(i);
    const bool has_value = i + 1 < context.argc();
    if (OptionIs(arg, "replace")) {
      options->replace = true;
    } else if (OptionIs(arg, "absttl")) {
      options->absttl = true;
    } else if (OptionIs(arg, "idletime") && has_value && options->frequency == -1) {
      if (!ParseStrictInt64(context.arg(i + 1), &options->idle_seconds)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      if (options->idle_seconds < 0) {
        context.reply.Error("ERR Invalid IDLETIME value, must be >= 0");
        return false;
      }
      i++;
    } else if (OptionIs(arg, "freq") && has_value && options->idle_seconds == -1) {
      if (!ParseStrictInt64(context.arg(i + 1), &options->frequency)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      if (options->frequency < 0 || options->frequency > 255) {
        context.reply.Error("ERR Invalid FREQ value, must be >= 0 and <= 255");
        return false;
      }
      i++;
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// Redis's objectSetLRUOrLFU: FREQ sets the LFU counter under an LFU policy, IDLETIME the LRU
// clock under any other; otherwise the value starts as a new one.
uint32_t RestoredAccessClock(const CommandContext& context, const RestoreOptions& options) {
  const AccessClock& clock = context.keyspace.access_clock();
  constexpr int64_t kLruClockMax = (1 << 24) - 1;  // Redis's LRU_CLOCK_MAX
  if (context.keyspace.settings().lfu()) {
    if (options.frequency >= 0) {
      return ((clock.lfu_minutes & 0xffff) << 8) | static_cast<uint32_t>(options.frequency);
    }
  } else if (options.idle_seconds >= 0) {
    int64_t at = static_cast<int64_t>(clock.lru_clock) - options.idle_seconds;
    if (at < 0) at += kLruClockMax;
    return static_cast<uint32_t>(at) & 0xffffff;
  }
  return clock.Initial();
}

// Reads the value's type byte and the value. False after replying: "Bad data format" for a
// type Keel does not read (as Redis refuses one it does not know) or a malformed value, the OOM
// error when memory was refused.
bool LoadValue(CommandContext& context, rdb::Reader& reader, LoadedValue* loaded) {
  uint8_t type = 0;
  ValueLoad result = ValueLoad::kBadFormat;
  if (reader.ReadByte(&type)) {
    result = LoadValueOfType(type, reader, LoadLimitsOf(context.config()), context.keyspace.rng(),
                             context.memory(), loaded);
  }
  if (result == ValueLoad::kOutOfMemory) {
    context.reply.Error(errors::kOom);
  } else if (result == ValueLoad::kBadFormat) {
    context.reply.Error("ERR Bad data format");
  }
  return result == ValueLoad::kLoaded;
}

// RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency].
void CmdRestore(CommandContext& context) {
  RestoreOptions options;
  if (!ParseRestoreOptions(context, &options)) return;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  if (!options.replace && context.keyspace.LookupWrite(db, key, hash) != nullptr) {
    context.reply.Error("BUSYKEY Target key name already exists.");
    return;
  }
  int64_t ttl = 0;
  if (!ParseStrictInt64(context.arg(2), &ttl)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  if (ttl < 0) {
    context.reply.Error("ERR Invalid TTL value, must be >= 0");
    return;
  }
  const std::string_view payload = context.arg(3);
  if (!PayloadIsValid(context, payload)) {
    context.reply.Error("ERR DUMP payload version or checksum are wrong");
    return;
  }
  // Redis's loader reads from the whole payload, footer included: a value that claims a few bytes
  // more than it has takes them from the footer, as there.
  rdb::Reader reader(payload);
  LoadedValue loaded;
  if (!LoadValue(context, reader, &loaded)) return;
  int64_t expire_at_ms = kNoExpiry;
  if (ttl > 0) {
    expire_at_ms = options.absttl ? ttl : RelativeToAbsolute(ttl, context.now_ms());
  }
  const bool existed = options.replace && context.keyspace.LookupWrite(db, key, hash) != nullptr;
  if (expire_at_ms != kNoExpiry && context.keyspace.ExpiryIsPast(expire_at_ms)) {
    // Restored already expired: the replaced key is deleted, and nothing is added.
    loaded.Discard(context.memory());
    if (existed) {
      context.keyspace.Delete(db, key, hash, events::kDel);
      PropagateAsDel(context, key, context.config().lazyfree_lazy_server_del);
    }
    context.reply.Ok();
    return;
  }
  if (StoreLoadedValue(context.keyspace, db, key, hash, &loaded, expire_at_ms,
                       RestoredAccessClock(context, options)) ==
      Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  // A relative TTL replays as the absolute time it gave (Redis appends ABSTTL).
  if (expire_at_ms != kNoExpiry && !options.absttl && context.propagating()) {
    char text[kInt64TextMax];
    const std::string_view at_text(text, FormatInt64(expire_at_ms, text));
    std::vector<std::string_view> args;
    args.reserve(context.argc() + 1);
    for (size_t i = 0; i < context.argc(); i++) args.push_back(i == 2 ? at_text : context.arg(i));
    args.push_back("ABSTTL");
    context.PropagateAs(args);
  }
  context.reply.Ok();
}

constexpr CommandDef kDumpCommands[] = {
    {.name = "dump",
     .arity = 2,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "generic",
     .since = "2.6.0",
     .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is the "
                   "number of Redis objects composing the value and M their average size. For "
                   "small string values the time complexity is thus O(1)+O(1*M) where M is small, "
                   "so simply O(1).",
     .summary = "Return a serialized version of the value stored at the specified key.",
     .args = "key:key#0",
     .handler = CmdDump,
     .tips = "nondeterministic_output"},
    {.name = "restore",
     .arity = -4,
     .flags = "write denyoom",
     .acl = "@keyspace @dangerous",
     .keys = "OW update: index 1 range 0 1 0",
     .group = "generic",
     .since = "2.6.0",
     .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the "
                   "serialized value, where N is the number of Redis objects composing the value "
                   "and M their average size. For small string values the time complexity is "
                   "thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set "
                   "values the complexity is O(N*M*log(N)) because inserting values into sorted "
                   "sets is O(log(N)).",
     .summary = "Create a key using the provided serialized value, previously obtained using "
                "DUMP.",
     .args = "key:key#0 ttl:integer serialized-value:string ?replace=REPLACE@3.0.0 "
             "?absttl=ABSTTL@5.0.0 ?seconds:integer=IDLETIME@5.0.0 "
             "?frequency:integer=FREQ@5.0.0",
     .handler = CmdRestore,
     .history = "3.0.0 Added the `REPLACE` modifier.|5.0.0 Added the `ABSTTL` modifier.|5.0.0 "
                "Added the `IDLETIME` and `FREQ` options."},
};

}  // namespace

void RegisterDumpCommands(Registry& registry) { registry.Add(kDumpCommands); }

}  // namespace keel
