// CLIENT: connection introspection. This foundation step has SETNAME, GETNAME, ID, INFO, LIST and
// HELP; KILL, PAUSE, REPLY, NO-EVICT and the rest arrive with the "Keyspace and strings" issue.
#include <iterator>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"

namespace keel {
namespace {

void AppendField(std::string* line, std::string_view name, std::string_view value) {
  if (!line->empty()) line->push_back(' ');
  line->append(name);
  line->push_back('=');
  line->append(value);
}

void AppendField(std::string* line, std::string_view name, int64_t value) {
  AppendField(line, name, Int64ToString(value));
}

// One CLIENT LIST line, with Redis 7.0's fields in Redis's order. Sizes describe Keel's buffers:
// qbuf is the unparsed input held for the client, obl/omem its pending reply bytes.
std::string DescribeClient(Engine& engine, Client& client, const CommandContext& context) {
  std::string line;
  const int64_t now_ms = engine.wall_ms();
  std::string flags;
  if (client.flags & kClientCloseAfterReply) flags += 'c';
  if (client.flags & kClientCloseAsap) flags += 'A';
  if (client.flags & kClientNoEvict) flags += 'e';
  if (client.flags & kClientNoTouch) flags += 'T';
  if (flags.empty()) flags = "N";
  std::string events;
  if (client.has_connection()) {
    if (!(client.flags & kClientReadPaused)) events += 'r';
    if (client.flags & kClientWriteInterest) events += 'w';
  }
  int64_t argv_bytes = 0;
  if (&client == &context.client) {
    for (std::string_view arg : context.args) argv_bytes += static_cast<int64_t>(arg.size());
  }
  const auto pending = static_cast<int64_t>(client.output().pending_bytes());
  const auto query_bytes = static_cast<int64_t>(client.query().unread_size());
  const auto query_free = static_cast<int64_t>(client.query().capacity()) - query_bytes;
  AppendField(&line, "id", static_cast<int64_t>(client.id()));
  AppendField(&line, "addr", client.peer_address);
  AppendField(&line, "laddr", client.local_address);
  AppendField(&line, "fd", client.descriptor);
  AppendField(&line, "name", client.name);
  AppendField(&line, "age", (now_ms - client.created_ms) / 1000);
  AppendField(&line, "idle", (now_ms - client.last_interaction_ms) / 1000);
  AppendField(&line, "flags", flags);
  AppendField(&line, "db", client.db_index);
  AppendField(&line, "sub", 0);
  AppendField(&line, "psub", 0);
  AppendField(&line, "ssub", 0);
  AppendField(&line, "multi", -1);
  AppendField(&line, "qbuf", query_bytes);
  AppendField(&line, "qbuf-free", query_free);
  AppendField(&line, "argv-mem", argv_bytes);
  AppendField(&line, "multi-mem", 0);
  AppendField(&line, "rbs", static_cast<int64_t>(client.output().chunk_count() * 16384));
  AppendField(&line, "rbp", 0);
  AppendField(&line, "obl", pending);
  AppendField(&line, "oll", static_cast<int64_t>(client.output().chunk_count()));
  AppendField(&line, "omem", pending);
  AppendField(&line, "tot-mem", query_bytes + query_free + pending + argv_bytes);
  AppendField(&line, "events", events);
  AppendField(&line, "cmd", client.last_command ? client.last_command->full_name : "NULL");
  AppendField(&line, "user", "default");
  AppendField(&line, "redir", -1);
  AppendField(&line, "resp", client.reply().resp());
  return line;
}

void CmdClientId(CommandContext& context) {
  context.reply.Integer(static_cast<int64_t>(context.client.id()));
}

void CmdClientSetname(CommandContext& context) {
  if (!ValidClientName(context.arg(2))) {
    context.reply.Error(kBadClientName);
    return;
  }
  context.client.name = std::string(context.arg(2));
  context.reply.Ok();
}

void CmdClientGetname(CommandContext& context) {
  if (context.client.name.empty()) {
    context.reply.NullBulk();
  } else {
    context.reply.Bulk(context.client.name);
  }
}

void CmdClientInfo(CommandContext& context) {
  context.reply.Verbatim(DescribeClient(context.engine, context.client, context) + "\n");
}

void CmdClientList(CommandContext& context) {
  // CLIENT LIST [TYPE normal|master|replica|pubsub] | [ID id [id ...]]: one filter at most.
  std::vector<int64_t> ids;
  bool only_ids = false;
  bool none = false;  // TYPE master/replica/pubsub: Keel has no such clients yet
  if (context.argc() == 4 && OptionIs(context.arg(2), "TYPE")) {
    const std::string_view type = context.arg(3);
    if (OptionIs(type, "master") || OptionIs(type, "replica") || OptionIs(type, "slave") ||
        OptionIs(type, "pubsub")) {
      none = true;
    } else if (!OptionIs(type, "normal")) {
      // Redis formats the type as a C string: the text stops at a NUL byte.
      context.reply.Error("ERR Unknown client type '" +
                          std::string(type.substr(0, type.find('\0'))) + "'");
      return;
    }
  } else if (context.argc() > 3 && OptionIs(context.arg(2), "ID")) {
    only_ids = true;
    for (size_t i = 3; i < context.argc(); i++) {
      // Any integer is accepted; ids that name no client (0, negative, gone) list nothing.
      int64_t id = 0;
      if (!ParseStrictInt64(context.arg(i), &id)) {
        context.reply.Error("ERR Invalid client ID");
        return;
      }
      ids.push_back(id);
    }
  } else if (context.argc() != 2) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  std::string text;
  if (only_ids) {
    // In the order asked, repeats included, as Redis looks each id up in turn.
    for (int64_t id : ids) {
      Client* client = id > 0 ? context.engine.FindClient(static_cast<uint64_t>(id)) : nullptr;
      if (client == nullptr) continue;
      text += DescribeClient(context.engine, *client, context);
      text += '\n';
    }
  } else if (!none) {
    for (const auto& [id, client] : context.engine.clients()) {
      text += DescribeClient(context.engine, *client, context);
      text += '\n';
    }
  }
  context.reply.Verbatim(text);
}

void CmdClientHelp(CommandContext& context) {
  // Redis 7.0's text, restricted to the subcommands Keel has, so that HELP never offers what
  // would be an unknown subcommand (conformance/cases/client.txt does not compare it for that).
  static constexpr std::string_view kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kClientCommands[] = {
    {.name = "client",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "connection",
     .since = "2.4.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for client connection commands",
     .args = "",
     .handler = nullptr},
    {.name = "client|id",
     .arity = 2,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Returns the client ID for the current connection",
     .args = "",
     .handler = CmdClientId},
    {.name = "client|setname",
     .arity = 3,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "2.6.9",
     .complexity = "O(1)",
     .summary = "Set the current connection name",
     .args = "connection-name:string",
     .handler = CmdClientSetname},
    {.name = "client|getname",
     .arity = 2,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "2.6.9",
     .complexity = "O(1)",
     .summary = "Get the current connection name",
     .args = "",
     .handler = CmdClientGetname},
    {.name = "client|info",
     .arity = 2,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Returns information about the current client connection.",
     .args = "",
     .handler = CmdClientInfo,
     .tips = "nondeterministic_output"},
    {.name = "client|list",
     .arity = -2,
     .flags = "admin noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "2.4.0",
     .complexity = "O(N) where N is the number of client connections",
     .summary = "Get the list of client connections",
     .args = "?normal_master_replica_pubsub:oneof=TYPE@5.0.0{normal=NORMAL master=MASTER "
             "replica=REPLICA pubsub=PUBSUB} ?id:block=ID@6.2.0{*client-id:integer}",
     .handler = CmdClientList,
     .history = "2.8.12 Added unique client `id` field.|5.0.0 Added optional `TYPE` filter.|6.0.0 "
                "Added `user` field.|6.2.0 Added `argv-mem`, `tot-mem`, `laddr` and `redir` "
                "fields and the optional `ID` filter.|7.0.0 Added `resp`, `multi-mem`, `rbs` and "
                "`rbp` fields.|7.0.3 Added `ssub` field.",
     .tips = "nondeterministic_output"},
    {.name = "client|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdClientHelp},
};

}  // namespace

void RegisterClientCommands(Registry& registry) { registry.Add(kClientCommands); }

}  // namespace keel
