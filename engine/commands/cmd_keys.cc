// Generic key commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, COPY, MOVE, SWAPDB,
// DBSIZE, FLUSHDB and FLUSHALL. The expiry commands (EXPIRE, TTL, PERSIST, ...) are in
// cmd_keys_expire.cc, the keyspace walks (KEYS, SCAN, RANDOMKEY) in cmd_keys_scan.cc, OBJECT in
// cmd_keys_object.cc.
//
// Lookups follow Redis's choice per command, because they decide three observable things: whether
// an expired key is reclaimed (every lookup does), whether keyspace_hits/misses count (read
// lookups), and whether the key's LRU/LFU clock moves (all but kLookupNoTouch): EXISTS and TYPE
// do not touch, TOUCH and COPY's source do.
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"

namespace keel {
namespace {

constexpr std::string_view kNoSuchKey = "ERR no such key";
constexpr std::string_view kSameObject = "ERR source and destination objects are the same";

// DEL and UNLINK: an expired key is reclaimed by the lookup and does not count as deleted.
// UNLINK frees synchronously too: the reply is the same and Keel has no background thread.
void CmdDel(CommandContext& context) {
  int64_t deleted = 0;
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  for (size_t i = 1; i < context.argc(); i++) {
    const std::string_view key = context.arg(i);
    const uint64_t hash = keyspace.Hash(db, key);
    if (keyspace.LookupWrite(db, key, hash, kLookupNoTouch) == nullptr) continue;
    if (keyspace.Delete(db, key, hash)) deleted++;
  }
  context.reply.Integer(deleted);
}

// EXISTS does not touch the keys (Redis looks them up with LOOKUP_NOTOUCH); TOUCH does, and that
// is all it does.
void CountLiveKeys(CommandContext& context, LookupFlag lookup_flags) {
  int64_t found = 0;
  for (size_t i = 1; i < context.argc(); i++) {
    if (context.keyspace.Lookup(context.db_index(), context.arg(i), lookup_flags) != nullptr) {
      found++;
    }
  }
  context.reply.Integer(found);
}

void CmdExists(CommandContext& context) { CountLiveKeys(context, kLookupNoTouch); }
void CmdTouch(CommandContext& context) { CountLiveKeys(context, kLookupNone); }

void CmdType(CommandContext& context) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1), kLookupNoTouch);
  context.reply.SimpleString(entry == nullptr ? "none" : ValueTypeName(entry->type()));
}

// RENAME and RENAMENX. As Redis: the same name twice is a no-op once the key is known to exist,
// the expiry goes with the value, and the value keeps its access clock (the lookup touched it).
void RenameGeneric(CommandContext& context, bool nx) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view from = context.arg(1);
  const std::string_view to = context.arg(2);
  const uint64_t from_hash = keyspace.Hash(db, from);
  const Entry* source = keyspace.LookupWrite(db, from, from_hash);
  if (source == nullptr) {
    context.reply.Error(kNoSuchKey);
    return;
  }
  if (from == to) {
    if (nx) {
      context.reply.Integer(0);
    } else {
      context.reply.Ok();
    }
    return;
  }
  const uint64_t to_hash = keyspace.Hash(db, to);
  if (keyspace.LookupWrite(db, to, to_hash) != nullptr && nx) {
    context.reply.Integer(0);
    return;
  }
  if (!keyspace.Rename(db, from, from_hash, to, to_hash)) {
    context.reply.Error(errors::kOom);
    return;
  }
  if (nx) {
    context.reply.Integer(1);
  } else {
    context.reply.Ok();
  }
}

void CmdRename(CommandContext& context) { RenameGeneric(context, false); }
void CmdRenamenx(CommandContext& context) { RenameGeneric(context, true); }

// COPY source destination [DB destination-db] [REPLACE]. Options are read left to right, so a bad
// DB index is reported before a later syntax error. The copy is a new value as Redis's
// dupStringObject makes it: a fresh access clock, and never a shared integer.
void CmdCopy(CommandContext& context) {
  const int source_index = context.client.db_index;
  int target_index = source_index;
  bool replace = false;
  for (size_t i = 3; i < context.argc(); i++) {
    if (OptionIs(context.arg(i), "REPLACE")) {
      replace = true;
    } else if (OptionIs(context.arg(i), "DB") && i + 1 < context.argc()) {
      if (!ParseDbIndexArg(context, context.arg(++i), &target_index)) return;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  const std::string_view from = context.arg(1);
  const std::string_view to = context.arg(2);
  if (source_index == target_index && from == to) {
    context.reply.Error(kSameObject);
    return;
  }
  Keyspace& keyspace = context.keyspace;
  const Entry* source = keyspace.Lookup(source_index, from);
  if (source == nullptr) {
    context.reply.Integer(0);
    return;
  }
  const uint64_t to_hash = keyspace.Hash(target_index, to);
  if (keyspace.LookupWrite(target_index, to, to_hash) != nullptr && !replace) {
    context.reply.Integer(0);
    return;
  }
  if (!keyspace.Copy(source_index, *source, target_index, to, to_hash)) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(1);
}

// MOVE key db: the value, its expiry and its access clock go to the other database, unless the
// key exists there.
void CmdMove(CommandContext& context) {
  int target_index = 0;
  if (!ParseDbIndexArg(context, context.arg(2), &target_index)) return;
  if (target_index == context.client.db_index) {
    context.reply.Error(kSameObject);
    return;
  }
  Keyspace& keyspace = context.keyspace;
  const int source_index = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t source_hash = keyspace.Hash(source_index, key);
  if (keyspace.LookupWrite(source_index, key, source_hash) == nullptr) {
    context.reply.Integer(0);
    return;
  }
  const uint64_t target_hash = keyspace.Hash(target_index, key);
  if (keyspace.LookupWrite(target_index, key, target_hash) != nullptr) {
    context.reply.Integer(0);
    return;
  }
  if (!keyspace.Move(source_index, key, source_hash, target_index, target_hash)) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(1);
}

// SWAPDB index1 index2: each index is checked as a C int with its own error text first, then
// both against the database count.
void CmdSwapdb(CommandContext& context) {
  int first = 0;
  int second = 0;
  if (!ParseIntArg(context, context.arg(1), "ERR invalid first DB index", &first) ||
      !ParseIntArg(context, context.arg(2), "ERR invalid second DB index", &second)) {
    return;
  }
  const int count = context.database_count();
  if (first < 0 || first >= count || second < 0 || second >= count) {
    context.reply.Error(errors::kDbIndexOutOfRange);
    return;
  }
  context.keyspace.Swap(first, second);
  context.reply.Ok();
}

void CmdDbsize(CommandContext& context) {
  // Like Redis, keys that have expired but were not yet reclaimed still count.
  context.reply.Integer(static_cast<int64_t>(context.db().size()));
}

// FLUSHDB/FLUSHALL take at most one option, SYNC or ASYNC. Keel frees synchronously either way:
// both leave the keyspace empty before the reply, which is all a client can observe.
bool ParseFlushOption(CommandContext& context) {
  if (context.argc() == 1) return true;
  if (context.argc() == 2 &&
      (OptionIs(context.arg(1), "SYNC") || OptionIs(context.arg(1), "ASYNC"))) {
    return true;
  }
  context.reply.Error(errors::kSyntax);
  return false;
}

void CmdFlushdb(CommandContext& context) {
  if (!ParseFlushOption(context)) return;
  context.keyspace.Flush(context.db_index());
  // Replayed even when there was nothing to remove, as Redis does (forceCommandPropagation).
  context.ForcePropagation();
  context.reply.Ok();
}

void CmdFlushall(CommandContext& context) {
  if (!ParseFlushOption(context)) return;
  context.keyspace.FlushAll();
  context.SaveAfterFlushAll();
  context.ForcePropagation();
  context.reply.Ok();
}

constexpr CommandDef kKeyCommands[] = {
    {.name = "del",
     .arity = -2,
     .flags = "write",
     .acl = "@keyspace",
     .keys = "RM delete: index 1 range -1 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys that will be removed. When a key to remove "
                   "holds a value other than a string, the individual complexity for this key is "
                   "O(M) where M is the number of elements in the list, set, sorted set or hash. "
                   "Removing a single key that holds a string value is O(1).",
     .summary = "Delete a key",
     .args = "*key:key#0",
     .handler = CmdDel,
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "unlink",
     .arity = -2,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RM delete: index 1 range -1 1 0",
     .group = "generic",
     .since = "4.0.0",
     .complexity = "O(1) for each key removed regardless of its size. Then the command does O(N) "
                   "work in a different thread in order to reclaim memory, where N is the number "
                   "of allocations the deleted objects where composed of.",
     .summary = "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but "
                "non blocking.",
     .args = "*key:key#0",
     .handler = CmdDel,
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "exists",
     .arity = -2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO: index 1 range -1 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys to check.",
     .summary = "Determine if a key exists",
     .args = "*key:key#0",
     .handler = CmdExists,
     .history = "3.0.3 Accepts multiple `key` arguments.",
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "touch",
     .arity = -2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO: index 1 range -1 1 0",
     .group = "generic",
     .since = "3.2.1",
     .complexity = "O(N) where N is the number of keys that will be touched.",
     .summary = "Alters the last access time of a key(s). Returns the number of existing keys "
                "specified.",
     .args = "*key:key#0",
     .handler = CmdTouch,
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "type",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "RO: index 1 range 0 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Determine the type stored at key",
     .args = "key:key#0",
     .handler = CmdType},
    {.name = "rename",
     .arity = 3,
     .flags = "write",
     .acl = "@keyspace",
     .keys = "RW access delete: index 1 range 0 1 0;OW update: index 2 range 0 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Rename a key",
     .args = "key:key#0 newkey:key#1",
     .handler = CmdRename},
    {.name = "renamenx",
     .arity = 3,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW access delete: index 1 range 0 1 0;OW insert: index 2 range 0 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Rename a key, only if the new key does not exist",
     .args = "key:key#0 newkey:key#1",
     .handler = CmdRenamenx,
     .history = "3.2.0 The command no longer returns an error when source and destination names "
                "are the same."},
    {.name = "copy",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@keyspace",
     .keys = "RO access: index 1 range 0 1 0;OW update: index 2 range 0 1 0",
     .group = "generic",
     .since = "6.2.0",
     .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) "
                   "for string values.",
     .summary = "Copy a key",
     .args = "source:key#0 destination:key#1 ?destination-db:integer=DB ?replace=REPLACE",
     .handler = CmdCopy},
    {.name = "move",
     .arity = 3,
     .flags = "write fast",
     .acl = "@keyspace",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "generic",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Move a key to another database",
     .args = "key:key#0 db:integer",
     .handler = CmdMove},
    {.name = "swapdb",
     .arity = 3,
     .flags = "write fast",
     .acl = "@keyspace @dangerous",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "O(N) where N is the count of clients watching or blocking on keys from both "
                   "databases.",
     .summary = "Swaps two Redis databases",
     .args = "index1:integer index2:integer",
     .handler = CmdSwapdb},
    {.name = "dbsize",
     .arity = 1,
     .flags = "readonly fast",
     .acl = "@keyspace",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Return the number of keys in the selected database",
     .args = "",
     .handler = CmdDbsize,
     .tips = "request_policy:all_shards response_policy:agg_sum"},
    {.name = "flushdb",
     .arity = -1,
     .flags = "write",
     .acl = "@keyspace @dangerous",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys in the selected database",
     .summary = "Remove all keys from the current database",
     .args = "?async:oneof{async=ASYNC@4.0.0 sync=SYNC@6.2.0}",
     .handler = CmdFlushdb,
     .history = "4.0.0 Added the `ASYNC` flushing mode modifier.|6.2.0 Added the `SYNC` flushing "
                "mode modifier.",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "flushall",
     .arity = -1,
     .flags = "write",
     .acl = "@keyspace @dangerous",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(N) where N is the total number of keys in all databases",
     .summary = "Remove all keys from all databases",
     .args = "?async:oneof{async=ASYNC@4.0.0 sync=SYNC@6.2.0}",
     .handler = CmdFlushall,
     .history = "4.0.0 Added the `ASYNC` flushing mode modifier.|6.2.0 Added the `SYNC` flushing "
                "mode modifier.",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
};

}  // namespace

void RegisterKeyCommands(Registry& registry) { registry.Add(kKeyCommands); }

}  // namespace keel
