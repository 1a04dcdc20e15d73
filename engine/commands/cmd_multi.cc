// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH (Redis 7.0's multi.c semantics).
//
// Queuing happens in Engine::Execute (engine.h, "MULTI / EXEC / WATCH"): these handlers start,
// run and end a transaction, and keep the watched keys (engine/server/watch.h).
#include <string_view>

#include "engine/commands/context.h"
#include "engine/server/transaction.h"

namespace keel {
namespace {

constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";

void CmdMulti(CommandContext& context) {
  Client& client = context.client;
  if (client.flags & kClientMulti) {
    // A plain error, not a refusal: it does not doom the transaction (Redis's addReplyError).
    context.reply.Error("ERR MULTI calls can not be nested");
    return;
  }
  client.flags |= kClientMulti;
  context.reply.Ok();
}

void CmdExec(CommandContext& context) {
  Client& client = context.client;
  Engine& engine = context.server();
  if (!(client.flags & kClientMulti)) {
    context.reply.Error("ERR EXEC without MULTI");
    return;
  }
  // A watched key that expired since WATCH is a change, reclaimed or not (Redis 7.0's
  // isWatchedKeyExpired).
  if (engine.watches().AnyExpired(client)) client.flags |= kClientDirtyCas;
  if (client.flags & (kClientDirtyExec | kClientDirtyCas)) {
    if (client.flags & kClientDirtyExec) {
      context.reply.Error(kExecAbort);
    } else {
      context.reply.NullArray();
    }
    engine.DiscardTransaction(client);
    return;
  }
  engine.watches().UnwatchAll(client);
  // EXEC itself is never propagated: its commands are, and the outermost call wraps them in
  // MULTI ... EXEC when there is more than one (a read-only transaction propagates nothing).
  context.PreventPropagation();
  const Transaction* transaction = client.transaction.get();
  const size_t count = transaction == nullptr ? 0 : transaction->count();
  context.reply.ArrayHeader(count);
  // Each command runs through the re-entrant call, inside this one: at EXEC's command time,
  // with no other client's command between them (the loop runs nothing else meanwhile), each
  // accounted on its own. A command's error is its own element of the reply.
  for (size_t i = 0; i < count; i++) {
    engine.Call(client, transaction->spec(i), transaction->args(i), kCallInMulti);
  }
  // Nothing a queued command can do ends the transaction under it (RESET, DISCARD, EXEC and
  // MULTI are never queued).
  KEEL_ASSERT(client.transaction.get() == transaction);
  engine.DiscardTransaction(client);
}

void CmdDiscard(CommandContext& context) {
  if (!(context.client.flags & kClientMulti)) {
    context.reply.Error("ERR DISCARD without MULTI");
    return;
  }
  context.server().DiscardTransaction(context.client);
  context.reply.Ok();
}

void CmdWatch(CommandContext& context) {
  Client& client = context.client;
  if (client.flags & kClientMulti) {
    context.reply.Error("ERR WATCH inside MULTI is not allowed");
    return;
  }
  // Already broken: watching more cannot save the transaction.
  if (client.flags & kClientDirtyCas) {
    context.reply.Ok();
    return;
  }
  WatchTable& watches = context.server().watches();
  size_t bytes = watches.watched_bytes(client);
  for (size_t i = 1; i < context.argc(); i++) bytes += context.arg(i).size();
  if (bytes > static_cast<size_t>(context.server().settings().client_query_buffer_limit)) {
    context.reply.Error(Engine::kTransactionTooLarge);
    return;
  }
  for (size_t i = 1; i < context.argc(); i++) {
    watches.Watch(client, context.db_index(), context.arg(i));
  }
  context.reply.Ok();
}

void CmdUnwatch(CommandContext& context) {
  context.server().watches().UnwatchAll(context.client);
  context.client.flags &= ~kClientDirtyCas;
  context.reply.Ok();
}

constexpr CommandDef kMultiCommands[] = {
    {.name = "multi",
     .arity = 1,
     .flags = "noscript loading stale fast allow_busy",
     .acl = "@transaction",
     .keys = "",
     .group = "transactions",
     .since = "1.2.0",
     .complexity = "O(1)",
     .summary = "Mark the start of a transaction block",
     .args = "",
     .handler = CmdMulti},
    {.name = "exec",
     .arity = 1,
     .flags = "noscript loading stale skip_slowlog",
     .acl = "@transaction",
     .keys = "",
     .group = "transactions",
     .since = "1.2.0",
     .complexity = "Depends on commands in the transaction",
     .summary = "Execute all commands issued after MULTI",
     .args = "",
     .handler = CmdExec},
    {.name = "discard",
     .arity = 1,
     .flags = "noscript loading stale fast allow_busy",
     .acl = "@transaction",
     .keys = "",
     .group = "transactions",
     .since = "2.0.0",
     .complexity = "O(N), when N is the number of queued commands",
     .summary = "Discard all commands issued after MULTI",
     .args = "",
     .handler = CmdDiscard},
    {.name = "watch",
     .arity = -2,
     .flags = "noscript loading stale fast allow_busy",
     .acl = "@transaction",
     .keys = "RO: index 1 range -1 1 0",
     .group = "transactions",
     .since = "2.2.0",
     .complexity = "O(1) for every key.",
     .summary = "Watch the given keys to determine execution of the MULTI/EXEC block",
     .args = "*key:key#0",
     .handler = CmdWatch},
    {.name = "unwatch",
     .arity = 1,
     .flags = "noscript loading stale fast allow_busy",
     .acl = "@transaction",
     .keys = "",
     .group = "transactions",
     .since = "2.2.0",
     .complexity = "O(1)",
     .summary = "Forget about all watched keys",
     .args = "",
     .handler = CmdUnwatch},
};

}  // namespace

void RegisterMultiCommands(Registry& registry) { registry.Add(kMultiCommands); }

}  // namespace keel
