// Generic key commands. This foundation step has DEL, EXISTS, DBSIZE, FLUSHDB and FLUSHALL; the
// rest of the family arrives with the "Keyspace and strings" issue.
#include "engine/commands/context.h"
#include "engine/db/keyspace.h"

namespace keel {
namespace {

void CmdDel(CommandContext& context) {
  int64_t deleted = 0;
  Database& db = context.db();
  for (size_t i = 1; i < context.argc(); i++) {
    // An expired key is removed by the lookup and does not count as deleted.
    if (LookupKey(context.engine, db, context.arg(i), LookupIntent::kWrite) == nullptr) continue;
    if (db.Erase(context.arg(i))) deleted++;
  }
  context.reply.Integer(deleted);
}

void CmdExists(CommandContext& context) {
  int64_t found = 0;
  for (size_t i = 1; i < context.argc(); i++) {
    if (LookupKey(context.engine, context.db(), context.arg(i), LookupIntent::kRead) != nullptr) {
      found++;
    }
  }
  context.reply.Integer(found);
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
  context.db().Clear();
  context.reply.Ok();
}

void CmdFlushall(CommandContext& context) {
  if (!ParseFlushOption(context)) return;
  for (int i = 0; i < context.engine.database_count(); i++) context.engine.database(i).Clear();
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
