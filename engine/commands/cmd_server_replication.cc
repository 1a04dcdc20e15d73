// Replication's commands on the primary's side (engine/server/replication.h): SYNC, PSYNC,
// REPLCONF, WAIT, ROLE. INFO replication is in cmd_info.cc.
#include "engine/commands/context.h"
#include "engine/server/engine.h"
#include "engine/server/replication.h"

namespace keel {
namespace {

void CmdSync(CommandContext& context) {
  context.server().replication().Sync(context.client, context.args, /*psync=*/false);
}

void CmdPsync(CommandContext& context) {
  context.server().replication().Sync(context.client, context.args, /*psync=*/true);
}

void CmdReplconf(CommandContext& context) {
  context.server().replication().Replconf(context.client, context.args);
}

// WAIT numreplicas timeout: replies how many replicas acknowledged this client's last write,
// once numreplicas did or the timeout passed. It waits through the engine's blocking (with no
// keys): every acknowledgement runs it again (Replication::ServeWaiters), and so does its
// timeout (BlockedCall::retry_on_timeout), which then replies the count.
void CmdWait(CommandContext& context) {
  int64_t replicas = 0;
  if (!ParseStrictInt64(context.arg(1), &replicas)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  int64_t timeout_ms = 0;
  if (!ParseStrictInt64(context.arg(2), &timeout_ms)) {
    context.reply.Error("ERR timeout is not an integer or out of range");
    return;
  }
  if (timeout_ms < 0) {
    context.reply.Error("ERR timeout is negative");
    return;
  }
  Engine& engine = context.server();
  Replication& replication = engine.replication();
  Client& client = context.client;
  const int64_t acknowledged = replication.CountAcknowledged(client.repl_write_offset);
  const bool timed_out = client.blocked != nullptr && client.blocked->deadline_us != 0 &&
                         engine.now_monotonic_us() >= client.blocked->deadline_us;
  if (acknowledged >= replicas || !context.may_block() || timed_out) {
    context.reply.Integer(acknowledged);
    return;
  }
  context.BlockOn({}, ValueType::kString, timeout_ms);
  client.blocked->retry_on_timeout = true;
  replication.AddWaiter(client.id());
  replication.RequestAcks();
}

void CmdRole(CommandContext& context) { context.server().replication().ReplyRole(context.client); }

constexpr CommandDef kReplicationCommands[] = {
    {.name = "sync",
     .arity = 1,
     .flags = "admin noscript no_async_loading no_multi",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "",
     .summary = "Internal command used for replication",
     .args = "",
     .handler = CmdSync},
    {.name = "psync",
     .arity = -3,
     .flags = "admin noscript no_async_loading no_multi",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.0",
     .complexity = "",
     .summary = "Internal command used for replication",
     .args = "replicationid offset:integer",
     .handler = CmdPsync},
    {.name = "replconf",
     .arity = -1,
     .flags = "admin noscript loading stale allow_busy",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "3.0.0",
     .complexity = "O(1)",
     .summary = "An internal command for configuring the replication stream",
     .args = "",
     .handler = CmdReplconf,
     .doc_flags = "syscmd"},
    {.name = "wait",
     .arity = 3,
     .flags = "noscript",
     .acl = "@connection",
     .keys = "",
     .group = "generic",
     .since = "3.0.0",
     .complexity = "O(1)",
     .summary = "Wait for the synchronous replication of all the write commands sent in the "
                "context of the current connection",
     .args = "numreplicas:integer timeout:integer",
     .handler = CmdWait,
     .tips = "request_policy:all_shards response_policy:agg_min"},
    {.name = "role",
     .arity = 1,
     .flags = "noscript loading stale fast",
     .acl = "@admin @dangerous",
     .keys = "",
     .group = "server",
     .since = "2.8.12",
     .complexity = "O(1)",
     .summary = "Return the role of the instance in the context of replication",
     .args = "",
     .handler = CmdRole},
};

}  // namespace

void RegisterReplicationCommands(Registry& registry) { registry.Add(kReplicationCommands); }

}  // namespace keel
