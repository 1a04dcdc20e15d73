// Pub/sub: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, their shard forms
// SSUBSCRIBE, SUNSUBSCRIBE and SPUBLISH, and PUBSUB CHANNELS, NUMSUB, NUMPAT, SHARDCHANNELS,
// SHARDNUMSUB and HELP (Redis's pubsub.c). The registry and the delivery are the engine's
// (engine/server/pubsub.h); keyspace notifications are published through the same delivery.
#include "engine/commands/context.h"

namespace keel {
namespace {

// A client that expects exactly one reply per command cannot subscribe (Redis's
// CLIENT_DENY_BLOCKING: scripts, internal clients); a transaction may, for compatibility, except
// to shard channels, which came after that compatibility was needed (Redis 7.0's
// ssubscribeCommand makes no exception).
bool MaySubscribe(CommandContext& context, PubSub::Kind kind) {
  if (context.may_block() || (context.in_transaction() && kind != PubSub::Kind::kShard)) {
    return true;
  }
  std::string name(context.spec.name);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  context.reply.Error("ERR " + name + " isn't allowed for a DENY BLOCKING client");
  return false;
}

void Subscribe(CommandContext& context, PubSub::Kind kind) {
  if (!MaySubscribe(context, kind)) return;
  for (size_t i = 1; i < context.argc(); i++) {
    context.server().pubsub().Subscribe(context.client, kind, context.arg(i));
  }
}

void Unsubscribe(CommandContext& context, PubSub::Kind kind) {
  PubSub& pubsub = context.server().pubsub();
  if (context.argc() == 1) {
    pubsub.UnsubscribeAll(context.client, kind, /*reply_when_none=*/true);
    return;
  }
  for (size_t i = 1; i < context.argc(); i++)
    pubsub.Unsubscribe(context.client, kind, context.arg(i));
}

void CmdSubscribe(CommandContext& context) { Subscribe(context, PubSub::Kind::kChannel); }
void CmdPsubscribe(CommandContext& context) { Subscribe(context, PubSub::Kind::kPattern); }
void CmdSsubscribe(CommandContext& context) { Subscribe(context, PubSub::Kind::kShard); }
void CmdUnsubscribe(CommandContext& context) { Unsubscribe(context, PubSub::Kind::kChannel); }
void CmdPunsubscribe(CommandContext& context) { Unsubscribe(context, PubSub::Kind::kPattern); }
void CmdSunsubscribe(CommandContext& context) { Unsubscribe(context, PubSub::Kind::kShard); }

// PUBLISH and SPUBLISH reach the replicas' subscribers too: Redis 7.0 without cluster propagates
// them to replicas (not to the AOF: a restart does not publish again).
void CmdPublish(CommandContext& context) {
  context.ForcePropagation(kPropagateReplicas);
  context.reply.Integer(static_cast<int64_t>(
      context.server().Publish(context.arg(1), context.arg(2), /*shard=*/false)));
}

void CmdSpublish(CommandContext& context) {
  context.ForcePropagation(kPropagateReplicas);
  context.reply.Integer(static_cast<int64_t>(
      context.server().Publish(context.arg(1), context.arg(2), /*shard=*/true)));
}

void Channels(CommandContext& context, bool shard) {
  if (context.argc() > 3) {
    context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
    return;
  }
  const std::string_view pattern = context.argc() == 3 ? context.arg(2) : std::string_view();
  const std::vector<std::string> channels = context.server().pubsub().Channels(pattern, shard);
  context.reply.ArrayHeader(channels.size());
  for (const std::string& channel : channels) context.reply.Bulk(channel);
}

void NumSub(CommandContext& context, bool shard) {
  // A flat array of channel, count pairs, also in RESP3 (Redis 7.0).
  context.reply.ArrayHeader((context.argc() - 2) * 2);
  for (size_t i = 2; i < context.argc(); i++) {
    context.reply.Bulk(context.arg(i));
    context.reply.Integer(
        static_cast<int64_t>(context.server().pubsub().SubscriberCount(context.arg(i), shard)));
  }
}

void CmdPubsubChannels(CommandContext& context) { Channels(context, false); }
void CmdPubsubShardchannels(CommandContext& context) { Channels(context, true); }
void CmdPubsubNumsub(CommandContext& context) { NumSub(context, false); }
void CmdPubsubShardnumsub(CommandContext& context) { NumSub(context, true); }
void CmdPubsubNumpat(CommandContext& context) {
  context.reply.Integer(static_cast<int64_t>(context.server().pubsub().pattern_count()));
}

void CmdPubsubHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: "
      "'*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kPubsubCommands[] = {
    {.name = "subscribe",
     .arity = -2,
     .flags = "pubsub noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.0.0",
     .complexity = "O(N) where N is the number of channels to subscribe to.",
     .summary = "Listen for messages published to the given channels",
     .args = "*channel:string",
     .handler = CmdSubscribe},
    {.name = "unsubscribe",
     .arity = -1,
     .flags = "pubsub noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.0.0",
     .complexity = "O(N) where N is the number of clients already subscribed to a channel.",
     .summary = "Stop listening for messages posted to the given channels",
     .args = "?*channel:string",
     .handler = CmdUnsubscribe},
    {.name = "psubscribe",
     .arity = -2,
     .flags = "pubsub noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.0.0",
     .complexity = "O(N) where N is the number of patterns the client is already subscribed to.",
     .summary = "Listen for messages published to channels matching the given patterns",
     .args = "*pattern:block{pattern:pattern}",
     .handler = CmdPsubscribe},
    {.name = "punsubscribe",
     .arity = -1,
     .flags = "pubsub noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.0.0",
     .complexity = "O(N+M) where N is the number of patterns the client is already subscribed "
                   "and M is the number of total patterns subscribed in the system (by any "
                   "client).",
     .summary = "Stop listening for messages posted to channels matching the given patterns",
     .args = "?*pattern:pattern",
     .handler = CmdPunsubscribe},
    {.name = "publish",
     .arity = 3,
     .flags = "pubsub loading stale fast may_replicate",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.0.0",
     .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel "
                   "and M is the total number of subscribed patterns (by any client).",
     .summary = "Post a message to a channel",
     .args = "channel:string message:string",
     .handler = CmdPublish},
    {.name = "ssubscribe",
     .arity = -2,
     .flags = "pubsub noscript loading stale",
     .acl = "",
     .keys = "not_key: index 1 range -1 1 0",
     .group = "pubsub",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of shard channels to subscribe to.",
     .summary = "Listen for messages published to the given shard channels",
     .args = "*shardchannel:string",
     .handler = CmdSsubscribe},
    {.name = "sunsubscribe",
     .arity = -1,
     .flags = "pubsub noscript loading stale",
     .acl = "",
     .keys = "not_key: index 1 range -1 1 0",
     .group = "pubsub",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of clients already subscribed to a shard channel.",
     .summary = "Stop listening for messages posted to the given shard channels",
     .args = "?*shardchannel:string",
     .handler = CmdSunsubscribe},
    {.name = "spublish",
     .arity = 3,
     .flags = "pubsub loading stale fast may_replicate",
     .acl = "",
     .keys = "not_key: index 1 range 0 1 0",
     .group = "pubsub",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of clients subscribed to the receiving shard "
                   "channel.",
     .summary = "Post a message to a shard channel",
     .args = "shardchannel:string message:string",
     .handler = CmdSpublish},
    {.name = "pubsub",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.8.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for Pub/Sub commands",
     .args = "",
     .handler = nullptr},
    {.name = "pubsub|channels",
     .arity = -2,
     .flags = "pubsub loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.8.0",
     .complexity = "O(N) where N is the number of active channels, and assuming constant time "
                   "pattern matching (relatively short channels and patterns)",
     .summary = "List active channels",
     .args = "?pattern:pattern",
     .handler = CmdPubsubChannels},
    {.name = "pubsub|numsub",
     .arity = -2,
     .flags = "pubsub loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.8.0",
     .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
     .summary = "Get the count of subscribers for channels",
     .args = "?*channel:string",
     .handler = CmdPubsubNumsub},
    {.name = "pubsub|numpat",
     .arity = 2,
     .flags = "pubsub loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "2.8.0",
     .complexity = "O(1)",
     .summary = "Get the count of unique patterns pattern subscriptions",
     .args = "",
     .handler = CmdPubsubNumpat},
    {.name = "pubsub|shardchannels",
     .arity = -2,
     .flags = "pubsub loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of active shard channels, and assuming constant "
                   "time pattern matching (relatively short shard channels).",
     .summary = "List active shard channels",
     .args = "?pattern:pattern",
     .handler = CmdPubsubShardchannels},
    {.name = "pubsub|shardnumsub",
     .arity = -2,
     .flags = "pubsub loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "7.0.0",
     .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested "
                   "shard channels",
     .summary = "Get the count of subscribers for shard channels",
     .args = "?*shardchannel:string",
     .handler = CmdPubsubShardnumsub},
    {.name = "pubsub|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "",
     .keys = "",
     .group = "pubsub",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdPubsubHelp},
};

}  // namespace

void RegisterPubsubCommands(Registry& registry) { registry.Add(kPubsubCommands); }

}  // namespace keel
