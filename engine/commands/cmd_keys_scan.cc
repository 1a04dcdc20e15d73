// The keyspace walks of the generic family: KEYS, SCAN and RANDOMKEY.
//
// SCAN's cursor. Database::Scan continues from a position in hash space (64 bits), which stays
// valid across resizes. Clients do not all keep 64-bit cursors exactly: node-redis v4 turns the
// cursor into a JavaScript Number, exact only below 2^53. So the cursor a client sees is the
// position divided by 2^11, and a cursor resumes at cursor * 2^11: at or before where the previous
// call stopped, so nothing is skipped; keys whose hash falls in the at most 2^11 - 1 positions
// before it would be returned again, which SCAN's contract allows (and a 64-bit hash makes
// practically never happen).
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"

namespace keel {
namespace {

// KEYS pattern. Two passes over the keyspace, one to count and one to reply, so that the reply
// needs no list of the keys (a pattern matching millions of keys costs no memory beyond the reply
// itself). Expired keys are skipped but not reclaimed, as Redis's KEYS does. As in Redis, the
// pattern "*" lists every key without matching, which includes the empty key (GlobMatch("*", "")
// is false, as Redis's stringmatchlen is).
void CmdKeys(CommandContext& context) {
  const std::string_view pattern = context.arg(1);
  const bool all = pattern == "*";
  const int64_t now_ms = context.now_ms();
  auto listed = [&](const Entry& entry) {
    return !IsExpired(entry, now_ms) && (all || GlobMatch(pattern, entry.key()));
  };
  const Database& db = context.db();
  size_t count = 0;
  db.ForEach([&](const Entry& entry) { count += listed(entry) ? 1 : 0; });
  context.reply.ArrayHeader(count);
  db.ForEach([&](const Entry& entry) {
    if (listed(entry)) context.reply.Bulk(entry.key());
  });
}

struct ScanOptions {
  uint64_t count = 10;
  bool use_pattern = false;
  std::string_view pattern;
  bool use_type = false;
  std::string type;  // as C compares it: up to a NUL byte
};

// Redis's option loop in scanGenericCommand: COUNT, MATCH and TYPE each with a value, in any order
// and repeated (the last wins). COUNT must be a strict integer and at least 1.
bool ParseScanOptions(CommandContext& context, ScanOptions* options) {
  for (size_t i = 2; i < context.argc(); i += 2) {
    const std::string_view option = context.arg(i);
    if (i + 1 >= context.argc()) {
      context.reply.Error(errors::kSyntax);
      return false;
    }
    const std::string_view value = context.arg(i + 1);
    if (OptionIs(option, "COUNT")) {
      int64_t count = 0;
      if (!ParseStrictInt64(value, &count)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      if (count < 1) {
        context.reply.Error(errors::kSyntax);
        return false;
      }
      options->count = static_cast<uint64_t>(count);
    } else if (OptionIs(option, "MATCH")) {
      options->pattern = value;
      // "*" matches every key: no need to match (and so the empty key is listed too).
      options->use_pattern = value != "*";
    } else if (OptionIs(option, "TYPE")) {
      options->use_type = true;
      options->type = std::string(value.substr(0, value.find('\0')));
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type], as Redis's scanGenericCommand: step
// through the hash space one boundary at a time until COUNT keys were collected (before
// filtering), the end was reached, or 10 * COUNT steps were taken; then filter by pattern, type
// and expiry, reclaiming expired keys on the way.
void CmdScan(CommandContext& context) {
  uint64_t cursor = 0;
  if (!ParseScanCursor(context.arg(1), &cursor)) {
    context.reply.Error("ERR invalid cursor");
    return;
  }
  ScanOptions options;
  if (!ParseScanOptions(context, &options)) return;

  Keyspace& keyspace = context.keyspace;
  const int db_index = context.db_index();
  const Database& db = context.db();
  std::vector<const Entry*> collected;
  uint64_t position = CursorPosition(cursor);
  uint64_t steps_left = options.count > UINT64_MAX / 10 ? UINT64_MAX : options.count * 10;
  do {
    position = db.Scan(position, 1, [&](const Entry& entry) { collected.push_back(&entry); });
    // A position below 2^11 other than 0 would read as the end cursor: keep going past it.
  } while (position != 0 && ((position >> kCursorShift) == 0 ||
                             (steps_left-- > 0 && collected.size() < options.count)));

  // Filtering may reclaim expired keys; each collected entry is distinct, so reclaiming one
  // leaves the others valid. `kept` holds views of live keys, and of the names in `reclaimed`.
  std::vector<std::string_view> kept;
  std::vector<std::string> reclaimed;
  kept.reserve(collected.size());
  reclaimed.reserve(collected.size());
  const int64_t now_ms = context.now_ms();
  for (const Entry* entry : collected) {
    if (options.use_pattern && !GlobMatch(options.pattern, entry->key())) continue;
    const bool expired = IsExpired(*entry, now_ms);
    if (options.use_type) {
      // Redis checks the type with a read lookup (counted in keyspace_hits/misses, reclaiming an
      // expired key, whose type is then "none") and only then the expiry, which by then finds
      // nothing to expire: so an expired key is listed under TYPE none. Unless writes are paused:
      // then the key stays, is still expired, and is left out.
      std::string name(expired ? entry->key() : std::string_view());
      const Entry* live = keyspace.Lookup(db_index, expired ? std::string_view(name) : entry->key(),
                                          kLookupNoTouch);
      const std::string_view type = live != nullptr ? ValueTypeName(live->type()) : "none";
      if (!EqualsIgnoreCase(options.type, type)) continue;
      if (live == nullptr) {
        if (keyspace.writes_paused()) continue;
        reclaimed.push_back(std::move(name));
        kept.push_back(reclaimed.back());
        continue;
      }
    } else if (expired) {
      if (!keyspace.writes_paused()) {
        const std::string_view key = entry->key();
        keyspace.DeleteExpired(db_index, key, db.Hash(key));
      }
      continue;
    }
    kept.push_back(entry->key());
  }

  char text[kInt64TextMax];
  context.reply.ArrayHeader(2);
  context.reply.Bulk(std::string_view(text, FormatUint64(position >> kCursorShift, text)));
  context.reply.ArrayHeader(kept.size());
  for (std::string_view key : kept) context.reply.Bulk(key);
}

// RANDOMKEY: a random live key, reclaiming the expired ones it meets. When writes are paused
// expired keys stay, so a database of nothing but expired keys would never yield one: after 100
// draws Keel then returns an expired key, as Redis 7.2 does (Redis 7.0 loops forever).
void CmdRandomkey(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db_index = context.db_index();
  const Database& db = context.db();
  constexpr int kPausedDrawsMax = 100;
  int draws_left = kPausedDrawsMax;
  while (true) {
    const Entry* entry = keyspace.RandomEntry(db_index);
    if (entry == nullptr) {
      context.reply.NullBulk();
      return;
    }
    if (IsExpired(*entry, context.now_ms())) {
      if (keyspace.writes_paused()) {
        const bool all_volatile = db.expires_count() == db.size();
        if (!all_volatile || --draws_left > 0) continue;
      } else {
        const std::string_view key = entry->key();
        keyspace.DeleteExpired(db_index, key, db.Hash(key));
        continue;
      }
    }
    context.reply.Bulk(entry->key());
    return;
  }
}

constexpr CommandDef kScanCommands[] = {
    {.name = "keys",
     .arity = 2,
     .flags = "readonly",
     .acl = "@keyspace @dangerous",
     .keys = "",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(N) with N being the number of keys in the database, under the assumption "
                   "that the key names in the database and the given pattern have limited length.",
     .summary = "Find all keys matching the given pattern",
     .args = "pattern:pattern",
     .handler = CmdKeys,
     .tips = "request_policy:all_shards nondeterministic_output_order"},
    {.name = "scan",
     .arity = -2,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "",
     .group = "generic",
     .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command "
                   "calls for the cursor to return back to 0. N is the number of elements inside "
                   "the collection.",
     .summary = "Incrementally iterate the keys space",
     .args = "cursor:integer ?pattern:pattern=MATCH ?count:integer=COUNT ?type:string=TYPE@6.0.0",
     .handler = CmdScan,
     .history = "6.0.0 Added the `TYPE` subcommand.",
     .tips = "nondeterministic_output request_policy:special"},
    {.name = "randomkey",
     .arity = 1,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Return a random key from the keyspace",
     .args = "",
     .handler = CmdRandomkey,
     .tips = "request_policy:all_shards nondeterministic_output"},
};

}  // namespace

void RegisterScanCommands(Registry& registry) { registry.Add(kScanCommands); }

}  // namespace keel
