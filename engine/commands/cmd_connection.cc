// Connection commands: PING, ECHO, SELECT, HELLO, AUTH, QUIT, RESET.
#include "engine/base/numbers.h"
#include "engine/commands/context.h"

namespace keel {

namespace {

void CmdPing(CommandContext& context) {
  if (context.argc() > 2) {
    context.reply.Error(WrongArityError(context.spec));
    return;
  }
  // A RESP2 connection in subscribed mode reads arrays only: PING answers as a message would.
  if ((context.client.flags & kClientPubSub) && context.reply.resp() == 2) {
    context.reply.ArrayHeader(2);
    context.reply.Bulk("pong");
    context.reply.Bulk(context.argc() == 1 ? std::string_view() : context.arg(1));
    return;
  }
  if (context.argc() == 1) {
    context.reply.SimpleString("PONG");
  } else {
    context.reply.Bulk(context.arg(1));
  }
}

void CmdEcho(CommandContext& context) { context.reply.Bulk(context.arg(1)); }

void CmdSelect(CommandContext& context) {
  int index = 0;
  if (!ParseDbIndexArg(context, context.arg(1), &index)) return;
  context.client.db_index = index;
  context.reply.Ok();
}

// The default user's credentials: without requirepass it takes any password (nopass).
bool CheckPassword(Engine& engine, std::string_view user, std::string_view password) {
  const std::string& required = engine.settings().requirepass;
  if (user != "default") return false;
  return required.empty() || password == required;
}

constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";

void CmdAuth(CommandContext& context) {
  if (context.argc() > 3) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  // The credentials never reach the slow log or MONITOR (after the syntax check, as in Redis).
  for (size_t i = 1; i < context.argc(); i++) context.Redact(i);
  std::string_view user = "default";
  std::string_view password = context.arg(1);
  if (context.argc() == 2) {
    if (context.server().settings().requirepass.empty()) {
      context.reply.Error(
          "ERR AUTH <password> called without any password configured for the default user. "
          "Are you sure your configuration is correct?");
      return;
    }
  } else {
    user = context.arg(1);
    password = context.arg(2);
  }
  if (!CheckPassword(context.server(), user, password)) {
    context.reply.Error(kWrongPass);
    return;
  }
  context.client.authenticated = true;
  context.reply.Ok();
}

void CmdHello(CommandContext& context) {
  int64_t version = 0;
  size_t next = 1;
  if (context.argc() >= 2) {
    if (!ParseStrictInt64(context.arg(next++), &version)) {
      context.reply.Error("ERR Protocol version is not an integer or out of range");
      return;
    }
    if (version < 2 || version > 3) {
      context.reply.Error("NOPROTO unsupported protocol version");
      return;
    }
  }
  // Redis 7.0 applies each option as it parses it, in order: AUTH authenticates (or fails the
  // command) at once, SETNAME names the client at once. An error in a later option leaves the
  // earlier ones applied, and a failed AUTH is reported before anything wrong after it
  // (conformance/cases/connection.txt).
  for (size_t i = next; i < context.argc(); i++) {
    const size_t more = context.argc() - 1 - i;
    if (OptionIs(context.arg(i), "AUTH") && more >= 2) {
      // Passwords never reach SLOWLOG or MONITOR.
      context.Redact(i + 1);
      context.Redact(i + 2);
      if (!CheckPassword(context.server(), context.arg(i + 1), context.arg(i + 2))) {
        context.reply.Error(kWrongPass);
        return;
      }
      context.client.authenticated = true;
      i += 2;
    } else if (OptionIs(context.arg(i), "SETNAME") && more >= 1) {
      const std::string_view name = context.arg(i + 1);
      if (!ValidClientName(name)) {
        context.reply.Error(kBadClientName);
        return;
      }
      context.client.name = std::string(name);
      i++;
    } else {
      std::string option(context.arg(i).substr(0, context.arg(i).find('\0')));
      context.reply.Error("ERR Syntax error in HELLO option '" + option + "'");
      return;
    }
  }
  if (!context.client.authenticated) {
    context.reply.Error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
        "HELLO AUTH <user> <pass> option can be used to authenticate the client and select the "
        "RESP protocol version at the same time");
    return;
  }
  if (version != 0) context.reply.set_resp(static_cast<int>(version));
  ReplyBuilder& reply = context.reply;
  reply.MapHeader(7);
  reply.Bulk("server");
  reply.Bulk("redis");
  reply.Bulk("version");
  reply.Bulk(kRedisCompatibleVersion);
  reply.Bulk("proto");
  reply.Integer(reply.resp());
  reply.Bulk("id");
  reply.Integer(static_cast<int64_t>(context.client.id()));
  reply.Bulk("mode");
  reply.Bulk("standalone");
  reply.Bulk("role");
  reply.Bulk("master");
  reply.Bulk("modules");
  reply.EmptyArray();
}

void CmdQuit(CommandContext& context) {
  context.reply.Ok();
  context.client.flags |= kClientCloseAfterReply;
}

void CmdReset(CommandContext& context) {
  Client& client = context.client;
  if (client.flags & kClientMonitor) context.server().RemoveMonitor(&client);
  context.server().tracking().Disable(client);
  client.reply().set_resp(2);
  context.server().DiscardTransaction(client);
  context.server().pubsub().Forget(client);  // every subscription, without replies
  // Redis 7.0.15 keeps CLIENT NO-EVICT across RESET; NO-TOUCH (7.2) is cleared as 7.2 does. A
  // CLIENT REPLY SKIP in force still silences this reply, as in Redis.
  client.flags &= ~(kClientReplyOff | kClientReplySkipNext | kClientNoTouch);
  client.reply().set_muted((client.flags & kClientReplySkip) != 0);
  client.db_index = 0;
  client.name.clear();
  client.authenticated = context.server().settings().requirepass.empty();
  context.reply.SimpleString("RESET");
}

constexpr CommandDef kConnectionCommands[] = {
    {.name = "ping",
     .arity = -1,
     .flags = "fast",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Ping the server",
     .args = "?message:string",
     .handler = CmdPing,
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "echo",
     .arity = 2,
     .flags = "loading stale fast",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Echo the given string",
     .args = "message:string",
     .handler = CmdEcho},
    {.name = "select",
     .arity = 2,
     .flags = "loading stale fast",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Change the selected database for the current connection",
     .args = "index:integer",
     .handler = CmdSelect},
    {.name = "auth",
     .arity = -2,
     .flags = "noscript loading stale fast no_auth allow_busy",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "1.0.0",
     .complexity = "O(N) where N is the number of passwords defined for the user",
     .summary = "Authenticate to the server",
     .args = "?username:string@6.0.0 password:string",
     .handler = CmdAuth,
     .history = "6.0.0 Added ACL style (username and password)."},
    {.name = "hello",
     .arity = -1,
     .flags = "noscript loading stale fast no_auth allow_busy",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.0.0",
     .complexity = "O(1)",
     .summary = "Handshake with Redis",
     .args = "?arguments:block{protover:integer ?username_password:block=AUTH{username:string "
             "password:string} ?clientname:string=SETNAME}",
     .handler = CmdHello,
     .history = "6.2.0 `protover` made optional; when called without arguments the command "
                "reports the current connection's context."},
    {.name = "quit",
     .arity = -1,
     .flags = "noscript loading stale fast no_auth allow_busy",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Close the connection",
     .args = "",
     .handler = CmdQuit},
    {.name = "reset",
     .arity = 1,
     .flags = "noscript loading stale fast no_auth allow_busy",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Reset the connection",
     .args = "",
     .handler = CmdReset},
};

}  // namespace

void RegisterConnectionCommands(Registry& registry) { registry.Add(kConnectionCommands); }

}  // namespace keel
