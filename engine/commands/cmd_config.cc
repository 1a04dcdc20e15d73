// CONFIG GET / SET / RESETSTAT / HELP over the parameter table (server/config_table.cc).
#include <algorithm>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/context.h"

namespace keel {
namespace {

void CmdConfigGet(CommandContext& context) {
  // Each pattern adds the parameters it matches, once each; a name without glob characters is
  // looked up directly and reported under the spelling the client used, as Redis does.
  std::vector<std::pair<std::string, const ConfigParam*>> matches;
  auto already = [&](std::string_view name) {
    return std::any_of(matches.begin(), matches.end(),
                       [&](const auto& match) { return EqualsIgnoreCase(match.first, name); });
  };
  for (size_t i = 2; i < context.argc(); i++) {
    const std::string_view pattern = context.arg(i);
    if (pattern.find_first_of("[*?") == std::string_view::npos) {
      if (already(pattern)) continue;
      if (const ConfigParam* param = Config::Find(pattern)) {
        matches.emplace_back(std::string(pattern), param);
      }
      continue;
    }
    for (const ConfigParam& param : ConfigTable()) {
      for (std::string_view name : {param.name, param.alias}) {
        if (name.empty() || already(name)) continue;
        if (GlobMatch(pattern, name, /*nocase=*/true)) matches.emplace_back(std::string(name), &param);
      }
    }
  }
  context.reply.MapHeader(matches.size());
  for (const auto& [name, param] : matches) {
    context.reply.Bulk(name);
    context.reply.Bulk(context.engine.config().Get(*param));
  }
}

void CmdConfigSet(CommandContext& context) {
  if (context.argc() % 2 != 0) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  struct Change {
    const ConfigParam* param;
    std::string_view typed_name;
    std::string_view value;
  };
  std::vector<Change> changes;
  std::string failure;
  std::string_view failed_name;
  for (size_t i = 2; i < context.argc(); i += 2) {
    const ConfigParam* param = Config::Find(context.arg(i));
    if (param == nullptr) {
      context.reply.Error("ERR Unknown option or number of arguments for CONFIG SET - '" +
                          std::string(context.arg(i)) + "'");
      return;
    }
    if (!failure.empty()) continue;
    if (param->flags & (kConfigImmutable | kConfigProtected)) {
      failure = (param->flags & kConfigImmutable) ? "can't set immutable config"
                                                  : "can't set protected config";
      failed_name = context.arg(i);
      continue;
    }
    for (const Change& change : changes) {
      if (change.param == param) {
        failure = "duplicate parameter";
        failed_name = context.arg(i);
      }
    }
    changes.push_back({param, context.arg(i), context.arg(i + 1)});
  }
  // All or nothing: changes are made on a copy that replaces the live config only if every
  // parameter was accepted.
  Config staged = context.engine.config();
  for (const Change& change : changes) {
    if (!failure.empty()) break;
    const std::string_view words[] = {change.value};
    std::string error;
    if (!staged.Set(*change.param, words, &error)) {
      failure = error;
      failed_name = change.typed_name;
    }
  }
  if (!failure.empty()) {
    context.reply.Error("ERR CONFIG SET failed (possibly related to argument '" +
                        std::string(failed_name) + "') - " + failure);
    return;
  }
  // Moving the listeners is the one change that can fail after validation (the port is taken).
  const ConfigValues& now = context.engine.settings();
  const ConfigValues& next = staged.values();
  if ((next.port != now.port || next.bind != now.bind) && context.engine.listener_control()) {
    if (!context.engine.listener_control()->Rebind(next).ok()) {
      const bool port_changed = next.port != now.port;
      context.reply.Error(std::string("ERR CONFIG SET failed (possibly related to argument '") +
                          (port_changed ? "port" : "bind") + "') - " +
                          (port_changed ? "Unable to listen on this port. Check server logs."
                                        : "Failed to bind to specified addresses."));
      return;
    }
  }
  context.engine.config() = std::move(staged);
  context.reply.Ok();
}

void CmdConfigResetstat(CommandContext& context) {
  ServerStats& stats = context.engine.stats();
  const size_t commands = stats.commands.size();
  stats = ServerStats();
  stats.commands.resize(commands);
  context.reply.Ok();
}

void CmdConfigHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "HELP",
      "    Print this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kConfigCommands[] = {
    {.name = "config",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.0.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for server configuration commands",
     .args = "",
     .handler = nullptr},
    {.name = "config|get",
     .arity = -3,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.0.0",
     .complexity = "O(N) when N is the number of configuration parameters provided",
     .summary = "Get the values of configuration parameters",
     .args = "*parameter:block{parameter:string}",
     .handler = CmdConfigGet,
     .history = "7.0.0 Added the ability to pass multiple pattern parameters in one call"},
    {.name = "config|set",
     .arity = -4,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.0.0",
     .complexity = "O(N) when N is the number of configuration parameters provided",
     .summary = "Set configuration parameters to the given values",
     .args = "*parameter_value:block{parameter:string value:string}",
     .handler = CmdConfigSet,
     .history = "7.0.0 Added the ability to set multiple parameters in one call.",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "config|resetstat",
     .arity = 2,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Reset the stats returned by INFO",
     .args = "",
     .handler = CmdConfigResetstat,
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "config|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdConfigHelp},
};

}  // namespace

void RegisterConfigCommands(Registry& registry) { registry.Add(kConfigCommands); }

}  // namespace keel
