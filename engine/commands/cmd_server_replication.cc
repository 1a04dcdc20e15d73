// Replication's commands on the primary's side (engine/server/replication.h): SYNC, PSYNC,
// REPLCONF, WAIT, ROLE. INFO replication is in cmd_info.cc.
#include "engine/base/numbers.h"
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
  if (context.server().replication().is_replica()) {
    context.reply.Error(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
        "if a replica is configured to be writable (which is not the default) writes to "
        "replicas are just local and are not propagated.");
    return;
  }
  int64_t replicas = 0;
  if (!ParseStrictInt64(context.arg(1), &replicas)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  int64_t timeout_ms = 0;
  if (!ParseMillisecondTimeout(context, context.arg(2), &timeout_ms)) return;
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

// REPLICAOF host port | NO ONE (and SLAVEOF, its old name): Redis 7.0's replicaofCommand.
void CmdReplicaof(CommandContext& context) {
  Replication& replication = context.server().replication();
  if (OptionIs(context.arg(1), "no") && OptionIs(context.arg(2), "one")) {
    if (replication.is_replica()) {
      replication.StopReplicating();
      context.server().Log(LogLevel::kNotice, "MASTER MODE enabled (user request from '" +
                                                  context.client.peer_address + "')");
    }
    context.reply.Ok();
    return;
  }
  if (context.client.flags & kClientReplica) {
    context.reply.Error("ERR Command is not valid when client is a replica.");
    return;
  }
  int64_t port = 0;
  if (!ParseStrictInt64(context.arg(2), &port) || port < 0 || port > 65535) {
    context.reply.Error("ERR Invalid master port");
    return;
  }
  if (replication.is_replica() && EqualsIgnoreCase(replication.primary_host(), context.arg(1)) &&
      replication.primary_port() == port) {
    context.server().Log(LogLevel::kNotice,
                         "REPLICAOF would result into synchronization with the master we are "
                         "already connected with. No operation performed.");
    context.reply.SimpleString("OK Already connected to specified master");
    return;
  }
  replication.ReplicaOf(context.arg(1), port);
  context.server().Log(LogLevel::kNotice,
                       "REPLICAOF " + std::string(context.arg(1)) + ":" + Int64ToString(port) +
                           " enabled (user request from '" + context.client.peer_address + "')");
  context.reply.Ok();
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
    {.name = "replicaof",
     .arity = 3,
     .flags = "admin noscript stale no_async_loading",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Make the server a replica of another instance, or promote it as master.",
     .args = "args:oneof{host-port:block{host port:integer} no-one:block{no=NO one=ONE}}",
     .handler = CmdReplicaof},
    {.name = "slaveof",
     .arity = 3,
     .flags = "admin noscript stale no_async_loading",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Make the server a replica of another instance, or promote it as master.",
     .args = "args:oneof{host-port:block{host port:integer} no-one:block{no=NO one=ONE}}",
     .handler = CmdReplicaof,
     .doc_flags = "deprecated",
     .deprecated_since = "5.0.0",
     .replaced_by = "`REPLICAOF`"},
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
