// CLIENT: connection introspection and control: ID, SETNAME, GETNAME, INFO, LIST, KILL, PAUSE,
// UNPAUSE, UNBLOCK, REPLY, NO-EVICT, NO-TOUCH, HELP, and client-side caching's TRACKING,
// CACHING, GETREDIR and TRACKINGINFO (engine/server/tracking.h).
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

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
  if (client.flags & kClientMonitor) flags += 'O';
  if (client.flags & kClientReplica) flags += 'S';
  if (client.flags & kClientPrimary) flags += 'M';
  if (client.flags & kClientPubSub) flags += 'P';
  if (client.flags & kClientMulti) flags += 'x';
  if (client.flags & (kClientPostponed | kClientBlocked)) flags += 'b';
  if (client.flags & kClientTracking) flags += 't';
  if (client.flags & kClientTrackingBrokenRedirect) flags += 'R';
  if (client.flags & kClientTrackingBcast) flags += 'B';
  if (client.flags & kClientDirtyCas) flags += 'd';
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
  // The caller's own batch counts as Redis's buffer still holds it (Client::input_batch_bytes).
  const auto unread = static_cast<int64_t>(client.query().unread_size());
  const auto query_free = static_cast<int64_t>(client.query().capacity()) - unread;
  const int64_t query_bytes = &client == &context.client
                                  ? std::max(unread, static_cast<int64_t>(client.input_batch_bytes))
                                  : unread;
  const Transaction* transaction = client.transaction.get();
  const int64_t queued = transaction == nullptr ? 0 : static_cast<int64_t>(transaction->count());
  const int64_t multi_bytes =
      transaction == nullptr ? 0 : static_cast<int64_t>(transaction->multi_mem_bytes());
  AppendField(&line, "id", static_cast<int64_t>(client.id()));
  AppendField(&line, "addr", client.peer_address);
  AppendField(&line, "laddr", client.local_address);
  AppendField(&line, "fd", client.descriptor);
  AppendField(&line, "name", client.name);
  AppendField(&line, "age", (now_ms - client.created_ms) / 1000);
  AppendField(&line, "idle", (now_ms - client.last_interaction_ms) / 1000);
  AppendField(&line, "flags", flags);
  AppendField(&line, "db", client.db_index);
  const Subscriptions* subs = client.subscriptions.get();
  AppendField(&line, "sub", subs == nullptr ? 0 : static_cast<int64_t>(subs->channels.size()));
  AppendField(&line, "psub", subs == nullptr ? 0 : static_cast<int64_t>(subs->patterns.size()));
  AppendField(&line, "ssub",
              subs == nullptr ? 0 : static_cast<int64_t>(subs->shard_channels.size()));
  AppendField(&line, "multi", (client.flags & kClientMulti) ? queued : -1);
  AppendField(&line, "qbuf", query_bytes);
  AppendField(&line, "qbuf-free", query_free);
  AppendField(&line, "argv-mem", argv_bytes);
  AppendField(&line, "multi-mem", multi_bytes);
  AppendField(&line, "rbs", static_cast<int64_t>(client.output().chunk_count() * 16384));
  AppendField(&line, "rbp", 0);
  AppendField(&line, "obl", pending);
  AppendField(&line, "oll", static_cast<int64_t>(client.output().chunk_count()));
  AppendField(&line, "omem", pending);
  AppendField(&line, "tot-mem", query_bytes + query_free + pending + argv_bytes + multi_bytes);
  AppendField(&line, "events", events);
  AppendField(&line, "cmd", client.last_command ? client.last_command->full_name : "NULL");
  AppendField(&line, "user", "default");
  AppendField(
      &line, "redir",
      (client.flags & kClientTracking) ? static_cast<int64_t>(client.tracking_redirect) : -1);
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
  context.reply.Verbatim(DescribeClient(context.server(), context.client, context) + "\n");
}

// printf's "%s" on a C string: the text up to its first NUL byte.
std::string_view CText(std::string_view text) { return text.substr(0, text.find('\0')); }

// Redis's getClientTypeByName (MONITOR clients are "normal"). Returns false for an unknown name.
enum class ClientType : uint8_t { kNormal, kPubsub, kReplica, kPrimary };
bool ParseClientType(std::string_view name, ClientType* type) {
  if (OptionIs(name, "normal")) {
    *type = ClientType::kNormal;
  } else if (OptionIs(name, "pubsub")) {
    *type = ClientType::kPubsub;
  } else if (OptionIs(name, "slave") || OptionIs(name, "replica")) {
    *type = ClientType::kReplica;
  } else if (OptionIs(name, "master")) {
    *type = ClientType::kPrimary;
  } else {
    return false;
  }
  return true;
}

// Redis's getClientType: the primary, a replica, a subscribed client, or a normal one.
ClientType TypeOf(const Client& client) {
  if (client.flags & kClientPrimary) return ClientType::kPrimary;
  if (client.flags & kClientReplica) return ClientType::kReplica;
  if (client.flags & kClientPubSub) return ClientType::kPubsub;
  return ClientType::kNormal;
}

void CmdClientList(CommandContext& context) {
  // CLIENT LIST [TYPE normal|master|replica|pubsub] | [ID id [id ...]]: one filter at most.
  std::vector<int64_t> ids;
  bool only_ids = false;
  std::optional<ClientType> wanted_type;
  if (context.argc() == 4 && OptionIs(context.arg(2), "TYPE")) {
    const std::string_view type = context.arg(3);
    ClientType parsed = ClientType::kNormal;
    if (ParseClientType(type, &parsed)) {
      wanted_type = parsed;
    } else {
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
      Client* client = id > 0 ? context.server().FindClient(static_cast<uint64_t>(id)) : nullptr;
      if (client == nullptr) continue;
      text += DescribeClient(context.server(), *client, context);
      text += '\n';
    }
  } else {
    for (const auto& [id, client] : context.server().clients()) {
      if (wanted_type && TypeOf(*client) != *wanted_type) continue;
      text += DescribeClient(context.server(), *client, context);
      text += '\n';
    }
  }
  context.reply.Verbatim(text);
}

struct KillFilter {
  bool old_form = false;
  std::optional<std::string_view> addr;
  std::optional<std::string_view> laddr;
  std::optional<ClientType> type;
  int64_t id = 0;  // 0: any
  bool user = false;
  int64_t max_age_s = 0;  // 0: no MAXAGE filter
  bool skip_me = true;
};

// Parses CLIENT KILL's filters as Redis 7.0 does (option names any case, each with one value,
// errors in argument order), plus a positive MAXAGE from Redis 7.4. Replies the error and returns
// false.
bool ParseKillFilter(CommandContext& context, KillFilter* filter) {
  if (context.argc() == 3) {
    // The old form, CLIENT KILL ip:port, may kill the caller itself.
    filter->old_form = true;
    filter->addr = CText(context.arg(2));
    filter->skip_me = false;
    return true;
  }
  for (size_t i = 2; i < context.argc(); i += 2) {
    const std::string_view option = context.arg(i);
    const bool has_value = context.argc() > i + 1;
    if (!has_value) {
      context.reply.Error(errors::kSyntax);
      return false;
    }
    const std::string_view value = context.arg(i + 1);
    if (OptionIs(option, "id")) {
      int64_t id = 0;
      if (!ParseStrictInt64(value, &id) || id < 1) {
        context.reply.Error("ERR client-id should be greater than 0");
        return false;
      }
      filter->id = id;
    } else if (OptionIs(option, "type")) {
      ClientType type = ClientType::kNormal;
      if (!ParseClientType(value, &type)) {
        context.reply.Error("ERR Unknown client type '" + std::string(CText(value)) + "'");
        return false;
      }
      filter->type = type;
    } else if (OptionIs(option, "addr")) {
      filter->addr = CText(value);
    } else if (OptionIs(option, "laddr")) {
      filter->laddr = CText(value);
    } else if (OptionIs(option, "user")) {
      // Only the default user exists until ACLs arrive; users are compared byte for byte.
      if (value != "default") {
        context.reply.Error("ERR No such user '" + std::string(CText(value)) + "'");
        return false;
      }
      filter->user = true;
    } else if (OptionIs(option, "skipme")) {
      if (OptionIs(value, "yes")) {
        filter->skip_me = true;
      } else if (OptionIs(value, "no")) {
        filter->skip_me = false;
      } else {
        context.reply.Error(errors::kSyntax);
        return false;
      }
    } else if (OptionIs(option, "maxage")) {
      // Redis 7.0 has no MAXAGE and answers a syntax error for every form of it; Keel keeps
      // 7.4's filter for a positive age (docs/DESIGN.md, deliberate differences) and answers
      // 7.0's syntax error for everything else, "MAXAGE 0" included (which would kill every
      // connection, the caller's aside, rather than none).
      int64_t max_age = 0;
      if (!ParseStrictInt64(value, &max_age) || max_age <= 0) {
        context.reply.Error(errors::kSyntax);
        return false;
      }
      filter->max_age_s = max_age;
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

bool KillMatches(const KillFilter& filter, const Client& client, const CommandContext& context) {
  // Clients already being closed are gone as far as Redis is concerned (it frees them at once).
  if (client.flags & kClientCloseAsap) return false;
  if (filter.addr && client.peer_address != *filter.addr) return false;
  if (filter.laddr && client.local_address != *filter.laddr) return false;
  if (filter.type) {
    if (*filter.type != TypeOf(client)) return false;
  }
  if (filter.id != 0 && static_cast<int64_t>(client.id()) != filter.id) return false;
  if (filter.max_age_s != 0 && (context.now_ms() - client.created_ms) / 1000 < filter.max_age_s) {
    return false;
  }
  if (&client == &context.client && filter.skip_me) return false;
  return true;
}

void CmdClientKill(CommandContext& context) {
  KillFilter filter;
  if (!ParseKillFilter(context, &filter)) return;
  int64_t killed = 0;
  bool kill_me = false;
  for (const auto& [id, client] : context.server().clients()) {
    if (!KillMatches(filter, *client, context)) continue;
    if (client.get() == &context.client) {
      kill_me = true;  // closed once this reply is written
    } else {
      context.server().RequestClose(client.get());
    }
    killed++;
  }
  if (filter.old_form) {
    if (killed == 0) {
      context.reply.Error("ERR No such client");
    } else {
      context.reply.Ok();
    }
  } else {
    context.reply.Integer(killed);
  }
  if (kill_me) context.client.flags |= kClientCloseAfterReply;
}

void CmdClientPause(CommandContext& context) {
  // CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked before the timeout, as in Redis.
  if (context.argc() > 4) {
    context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
    return;
  }
  PauseMode mode = PauseMode::kAll;
  if (context.argc() == 4) {
    if (OptionIs(context.arg(3), "write")) {
      mode = PauseMode::kWrite;
    } else if (!OptionIs(context.arg(3), "all")) {
      context.reply.Error("ERR CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  int64_t timeout_ms = 0;
  if (!ParseMillisecondTimeout(context, context.arg(2), &timeout_ms)) return;
  // Redis 7.0.15's getTimeoutFromObjectOrReply: 0 stays 0 (an end time long past), anything else
  // is added to the current time without an overflow check, so a timeout near INT64_MAX wraps to
  // an end time in the past and the pause ends at once. Reproduced with a wrapping addition.
  int64_t end_ms = 0;
  if (timeout_ms > 0) {
    end_ms = static_cast<int64_t>(static_cast<uint64_t>(context.now_ms()) +
                                  static_cast<uint64_t>(timeout_ms));
  }
  context.server().PauseClients(mode, end_ms);
  context.reply.Ok();
}

void CmdClientUnpause(CommandContext& context) {
  context.server().UnpauseClients();
  context.reply.Ok();
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]: the reason is checked before the id, as in Redis.
void CmdClientUnblock(CommandContext& context) {
  if (context.argc() > 4) {
    context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
    return;
  }
  bool with_error = false;
  if (context.argc() == 4) {
    if (OptionIs(context.arg(3), "error")) {
      with_error = true;
    } else if (!OptionIs(context.arg(3), "timeout")) {
      context.reply.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      return;
    }
  }
  int64_t id = 0;
  if (!ParseStrictInt64(context.arg(2), &id)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  Client* target = id > 0 ? context.server().FindClient(static_cast<uint64_t>(id)) : nullptr;
  const bool unblocked = target != nullptr && context.server().UnblockClient(*target, with_error);
  context.reply.Integer(unblocked ? 1 : 0);
}

void CmdClientReply(CommandContext& context) {
  Client& client = context.client;
  const std::string_view mode = context.arg(2);
  if (OptionIs(mode, "on")) {
    client.flags &= ~(kClientReplySkip | kClientReplyOff);
    context.reply.set_muted(false);
    context.reply.Ok();
  } else if (OptionIs(mode, "off")) {
    client.flags |= kClientReplyOff;  // no reply, this one included
  } else if (OptionIs(mode, "skip")) {
    if (!(client.flags & kClientReplyOff)) client.flags |= kClientReplySkipNext;
  } else {
    context.reply.Error(errors::kSyntax);
  }
}

// CLIENT NO-EVICT and NO-TOUCH: ON|OFF switches of one client flag.
void SetClientFlagOnOff(CommandContext& context, uint32_t flag) {
  if (OptionIs(context.arg(2), "on")) {
    context.client.flags |= flag;
  } else if (OptionIs(context.arg(2), "off")) {
    context.client.flags &= ~flag;
  } else {
    context.reply.Error(errors::kSyntax);
    return;
  }
  context.reply.Ok();
}

void CmdClientNoEvict(CommandContext& context) { SetClientFlagOnOff(context, kClientNoEvict); }

void CmdClientNoTouch(CommandContext& context) { SetClientFlagOnOff(context, kClientNoTouch); }

// CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP], with
// Redis 7.0's checks in its order: the options as they are read (a REDIRECT to a client that
// does not exist is refused there), then their combination with each other and with the
// client's current mode.
void CmdClientTracking(CommandContext& context) {
  Client& client = context.client;
  Engine& engine = context.server();
  uint64_t redirect = 0;
  uint32_t options = 0;
  std::vector<std::string_view> prefixes;
  for (size_t i = 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const bool more = i + 1 < context.argc();
    if (OptionIs(option, "redirect") && more) {
      i++;
      if (redirect != 0) {
        context.reply.Error("ERR A client can only redirect to a single other client");
        return;
      }
      int64_t id = 0;
      if (!ParseStrictInt64(context.arg(i), &id)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      // The client must exist now, though it may go away later (a broken redirect).
      redirect = static_cast<uint64_t>(id);
      if (engine.FindClient(redirect) == nullptr) {
        context.reply.Error("ERR The client ID you want redirect to does not exist");
        return;
      }
    } else if (OptionIs(option, "bcast")) {
      options |= kClientTrackingBcast;
    } else if (OptionIs(option, "optin")) {
      options |= kClientTrackingOptin;
    } else if (OptionIs(option, "optout")) {
      options |= kClientTrackingOptout;
    } else if (OptionIs(option, "noloop")) {
      options |= kClientTrackingNoloop;
    } else if (OptionIs(option, "prefix") && more) {
      prefixes.push_back(context.arg(++i));
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  const std::string_view mode = context.arg(2);
  if (OptionIs(mode, "off")) {
    engine.tracking().Disable(client);
    context.reply.Ok();
    return;
  }
  if (!OptionIs(mode, "on")) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  const bool bcast = (options & kClientTrackingBcast) != 0;
  if (!bcast && !prefixes.empty()) {
    context.reply.Error("ERR PREFIX option requires BCAST mode to be enabled");
    return;
  }
  if ((client.flags & kClientTracking) && ((client.flags & kClientTrackingBcast) != 0) != bcast) {
    context.reply.Error(
        "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and "
        "then re-enabling it with a different mode.");
    return;
  }
  if (bcast && (options & (kClientTrackingOptin | kClientTrackingOptout))) {
    context.reply.Error("ERR OPTIN and OPTOUT are not compatible with BCAST");
    return;
  }
  if ((options & kClientTrackingOptin) && (options & kClientTrackingOptout)) {
    context.reply.Error("ERR You can't specify both OPTIN mode and OPTOUT mode");
    return;
  }
  if (((options & kClientTrackingOptin) && (client.flags & kClientTrackingOptout)) ||
      ((options & kClientTrackingOptout) && (client.flags & kClientTrackingOptin))) {
    context.reply.Error(
        "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
        "then re-enabling it with a different mode.");
    return;
  }
  if (bcast) {
    std::string error;
    const Tracking::PrefixCheck check = engine.tracking().CheckPrefixes(client, prefixes, &error);
    if (check != Tracking::PrefixCheck::kOk) context.reply.Error(error);
    // Redis 7.0.15 goes on after an overlap of two given prefixes past the first: an error
    // and +OK both (checkPrefixCollisionsOrReply returns the prefix's index).
    if (check == Tracking::PrefixCheck::kRefused) return;
  }
  engine.tracking().Enable(client, redirect, options, prefixes);
  context.reply.Ok();
}

void CmdClientCaching(CommandContext& context) {
  Client& client = context.client;
  if (!(client.flags & kClientTracking)) {
    context.reply.Error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
        "OPTOUT mode enabled");
    return;
  }
  const std::string_view mode = context.arg(2);
  if (OptionIs(mode, "yes")) {
    if (!(client.flags & kClientTrackingOptin)) {
      context.reply.Error(
          "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
      return;
    }
  } else if (OptionIs(mode, "no")) {
    if (!(client.flags & kClientTrackingOptout)) {
      context.reply.Error(
          "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
      return;
    }
  } else {
    context.reply.Error(errors::kSyntax);
    return;
  }
  // Lasts for the next command (or transaction): Engine::EndTrackingCaching.
  client.flags |= kClientTrackingCaching;
  context.reply.Ok();
}

void CmdClientGetredir(CommandContext& context) {
  const Client& client = context.client;
  context.reply.Integer(
      (client.flags & kClientTracking) ? static_cast<int64_t>(client.tracking_redirect) : -1);
}

void CmdClientTrackinginfo(CommandContext& context) {
  const Client& client = context.client;
  const uint32_t flags = client.flags;
  std::vector<std::string_view> names;
  names.push_back((flags & kClientTracking) ? "on" : "off");
  if (flags & kClientTrackingBcast) names.push_back("bcast");
  if (flags & kClientTrackingOptin) {
    names.push_back("optin");
    if (flags & kClientTrackingCaching) names.push_back("caching-yes");
  }
  if (flags & kClientTrackingOptout) {
    names.push_back("optout");
    if (flags & kClientTrackingCaching) names.push_back("caching-no");
  }
  if (flags & kClientTrackingNoloop) names.push_back("noloop");
  if (flags & kClientTrackingBrokenRedirect) names.push_back("broken_redirect");
  ReplyBuilder& reply = context.reply;
  reply.MapHeader(3);
  reply.Bulk("flags");
  reply.SetHeader(names.size());
  for (std::string_view name : names) reply.Bulk(name);
  reply.Bulk("redirect");
  reply.Integer((flags & kClientTracking) ? static_cast<int64_t>(client.tracking_redirect) : -1);
  reply.Bulk("prefixes");
  reply.ArrayHeader(client.tracking_prefixes.size());
  for (const std::string& prefix : client.tracking_prefixes) reply.Bulk(prefix);
}

void CmdClientHelp(CommandContext& context) {
  // Redis 7.0.15's text, restricted to the subcommands Keel has so that HELP never offers what
  // would be an unknown subcommand; NO-TOUCH's lines and KILL's MAXAGE are from Redis 7.2/7.4,
  // whose features they describe.
  static constexpr std::string_view kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "    * MAXAGE <maxage>",
      "      Kill connections older than the specified age.",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "NO-TOUCH (ON|OFF)",
      "    Will not touch LRU/LFU stats when this mode is on.",
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
    {.name = "client|kill",
     .arity = -3,
     .flags = "admin noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "2.4.0",
     .complexity = "O(N) where N is the number of client connections",
     .summary = "Kill the connection of a client",
     .args = "filter:oneof{'ip:port'^2.8.12 *new-format:oneof{?client-id:integer=ID@2.8.12 "
             "?normal_master_slave_pubsub:oneof=TYPE@2.8.12{normal=NORMAL master=MASTER@3.2.0 "
             "slave=SLAVE replica=REPLICA@5.0.0 pubsub=PUBSUB} ?username:string=USER "
             "?'ip:port':string=ADDR ?'ip:port':string=LADDR@6.2.0 ?yes/no:string=SKIPME}}",
     .handler = CmdClientKill,
     .history = "2.8.12 Added new filter format.|2.8.12 `ID` option.|3.2.0 Added `master` type in "
                "for `TYPE` option.|5.0.0 Replaced `slave` `TYPE` with `replica`. `slave` still "
                "supported for backward compatibility.|6.2.0 `LADDR` option."},
    {.name = "client|pause",
     .arity = -3,
     .flags = "admin noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "2.9.50",
     .complexity = "O(1)",
     .summary = "Stop processing commands from clients for some time",
     .args = "timeout:integer ?mode:oneof@6.2.0{write=WRITE all=ALL}",
     .handler = CmdClientPause,
     .history = "6.2.0 `CLIENT PAUSE WRITE` mode added along with the `mode` option."},
    {.name = "client|unpause",
     .arity = 2,
     .flags = "admin noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.2.0",
     .complexity = "O(N) Where N is the number of paused clients",
     .summary = "Resume processing of clients that were paused",
     .args = "",
     .handler = CmdClientUnpause},
    {.name = "client|unblock",
     .arity = -3,
     .flags = "admin noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "5.0.0",
     .complexity = "O(log N) where N is the number of client connections",
     .summary = "Unblock a client blocked in a blocking command from a different connection",
     .args = "client-id:integer ?timeout_error:oneof{timeout=TIMEOUT error=ERROR}",
     .handler = CmdClientUnblock},
    {.name = "client|reply",
     .arity = 3,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "3.2.0",
     .complexity = "O(1)",
     .summary = "Instruct the server whether to reply to commands",
     .args = "on_off_skip:oneof{on=ON off=OFF skip=SKIP}",
     .handler = CmdClientReply},
    {.name = "client|no-evict",
     .arity = 3,
     .flags = "admin noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Set client eviction mode for the current connection",
     .args = "enabled:oneof{on=ON off=OFF}",
     .handler = CmdClientNoEvict},
    // Not in Redis 7.0; as Redis 7.2 describes it.
    {.name = "client|no-touch",
     .arity = 3,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "7.2.0",
     .complexity = "O(1)",
     .summary = "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
     .args = "enabled:oneof{on=ON off=OFF}",
     .handler = CmdClientNoTouch},
    {.name = "client|tracking",
     .arity = -3,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.0.0",
     .complexity = "O(1). Some options may introduce additional complexity.",
     .summary = "Enable or disable server assisted client side caching support",
     .args = "status:oneof{on=ON off=OFF} ?client-id:integer=REDIRECT ?*+prefix:string=PREFIX "
             "?bcast=BCAST ?optin=OPTIN ?optout=OPTOUT ?noloop=NOLOOP",
     .handler = CmdClientTracking},
    {.name = "client|caching",
     .arity = 3,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.0.0",
     .complexity = "O(1)",
     .summary = "Instruct the server about tracking or not keys in the next request",
     .args = "mode:oneof{yes=YES no=NO}",
     .handler = CmdClientCaching},
    {.name = "client|getredir",
     .arity = 2,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.0.0",
     .complexity = "O(1)",
     .summary = "Get tracking notifications redirection client ID if any",
     .args = "",
     .handler = CmdClientGetredir},
    {.name = "client|trackinginfo",
     .arity = 2,
     .flags = "noscript loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "connection",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Return information about server assisted client side caching for the current "
                "connection",
     .args = "",
     .handler = CmdClientTrackinginfo},
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
