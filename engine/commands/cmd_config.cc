// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the parameter table (server/config_table.cc).
#include <algorithm>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/server/config_file.h"
#include "engine/server/descriptors.h"

namespace keel {
namespace {

// A config file is a few kilobytes. CONFIG REWRITE refuses to load more than this into memory, so
// that a config path pointing at a huge file cannot exhaust the server.
constexpr uint64_t kConfigFileBytesMax = 64ull << 20;

// What strerror would say about a failed file-system status: the real environment ends its
// messages with strerror's text after ": "; kNotFound (ENOENT) is spelled out so that the
// simulated environment, whose messages do not follow that form, reads the same.
std::string StatusErrnoText(const Status& status) {
  if (status.code() == StatusCode::kNotFound) return "No such file or directory";
  const std::string& message = status.message();
  const size_t colon = message.rfind(": ");
  if (colon != std::string::npos) return message.substr(colon + 2);
  if (status.code() == StatusCode::kPermissionDenied) return "Permission denied";
  if (status.code() == StatusCode::kNoSpace) return "No space left on device";
  return message.empty() ? std::string(StatusCodeName(status.code())) : message;
}

void CmdConfigGet(CommandContext& context) {
  // Each pattern adds the entries it matches, once per name: a parameter and its alias are
  // separate entries, as in Redis (CONFIG GET * lists both replicaof and slaveof). A name
  // without glob characters is looked up directly, hidden parameters included, and reported
  // under the spelling the client used.
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
      if (param.flags & kConfigHidden) continue;
      for (std::string_view name : {param.name, param.alias}) {
        if (name.empty() || already(name)) continue;
        if (GlobMatch(pattern, name, /*nocase=*/true)) {
          matches.emplace_back(std::string(name), &param);
        }
      }
    }
  }
  context.reply.MapHeader(matches.size());
  for (const auto& [name, param] : matches) {
    context.reply.Bulk(name);
    context.reply.Bulk(context.server().config().Get(*param));
  }
}

// Redis's allowProtectedAction: enable-protected-configs yes, or local and a local client.
bool ProtectedConfigsAllowed(CommandContext& context) {
  const std::string& setting =
      context.server().config().Get(*Config::Find("enable-protected-configs"));
  return setting == "yes" || (setting == "local" && context.client.peer_is_loopback);
}

bool IsTlsParam(const ConfigParam& param) {
  // tls-auth-clients is read per connection; every other tls-* change reconfigures TLS.
  return param.name.substr(0, 4) == "tls-" && param.name != "tls-auth-clients";
}

struct ConfigChange {
  const ConfigParam* param;
  std::string_view entry;  // the name or the alias, as the table spells it
  std::string_view value;
};

// The checks of CONFIG SET's first pass, in argument order; the first problem wins. Returns the
// error reply, or "" when every name is known, settable and given once.
std::string CheckConfigSetNames(CommandContext& context, std::vector<ConfigChange>* changes) {
  for (size_t i = 2; i < context.argc(); i += 2) {
    const std::string_view typed = context.arg(i);
    std::string_view entry;
    const ConfigParam* param = Config::Find(typed, &entry);
    if (param == nullptr) {
      return "ERR Unknown option or number of arguments for CONFIG SET - '" + std::string(typed) +
             "'";
    }
    std::string_view problem;
    if (param->flags & kConfigImmutable) {
      problem = "can't set immutable config";
    } else if ((param->flags & kConfigProtected) && !ProtectedConfigsAllowed(context)) {
      problem = "can't set protected config";
    } else {
      // A parameter and its alias are different entries, so "hash-max-ziplist-entries 1
      // hash-max-listpack-entries 2" is no duplicate (the last one wins).
      for (const ConfigChange& change : *changes) {
        if (change.entry == entry) problem = "duplicate parameter";
      }
    }
    if (!problem.empty()) {
      return "ERR CONFIG SET failed (possibly related to argument '" + std::string(typed) +
             "') - " + std::string(problem);
    }
    changes->push_back({param, entry, context.arg(i + 1)});
  }
  return "";
}

std::string SetFailure(std::string_view entry, std::string_view reason) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(entry) + "') - " +
         std::string(reason);
}

// Applies the changes to `staged` in argument order, as Redis's set phase does. "dir" must name a
// directory the environment can list (Redis chdirs into it at this point).
std::string StageConfigSet(CommandContext& context, const std::vector<ConfigChange>& changes,
                           Config* staged) {
  for (const ConfigChange& change : changes) {
    std::string error;
    if (!staged->SetFromCommand(*change.param, change.value, &error)) {
      return SetFailure(change.entry, error);
    }
    if (change.param->name == "dir") {
      Result<std::vector<std::string>> listing =
          context.server().env().files().ListDirectory(staged->Get(*change.param));
      if (!listing.ok()) return SetFailure(change.entry, StatusErrnoText(listing.status()));
    }
  }
  return "";
}

// The apply phase: effects that can still fail once every value is valid, tried in argument
// order. Keel has no TLS, so any change that would turn it on fails as Redis fails without
// certificates; moving the listeners can fail on a taken port or an unusable address.
std::string ApplyConfigSet(CommandContext& context, const std::vector<ConfigChange>& changes,
                           const Config& staged) {
  const Config& live = context.server().config();
  const ConfigValues& now = live.values();
  const ConfigValues& next = staged.values();
  ListenerControl* listeners = context.server().listener_control();
  bool listeners_moved = false;
  bool tls_checked = false;
  for (const ConfigChange& change : changes) {
    const ConfigParam& param = *change.param;
    if (live.Get(param) == staged.Get(param)) continue;  // Redis applies only real changes
    if ((param.name == "port" || param.name == "bind") && !listeners_moved) {
      listeners_moved = true;
      if (listeners != nullptr && !listeners->Rebind(next).ok()) {
        return SetFailure(change.entry, param.name == "port"
                                            ? "Unable to listen on this port. Check server logs."
                                            : "Failed to bind to specified addresses.");
      }
    } else if (param.name == "appendonly") {
      // Redis's updateAppendonly: turning the AOF on starts its first rewrite, now.
      if (!next.appendonly) {
        context.server().aof().Disable();
      } else if (!context.server().aof().Enable()) {
        return SetFailure(change.entry, "Unable to turn on AOF. Check server logs.");
      }
    } else if (param.name == "maxclients") {
      // Redis's updateMaxclients: the descriptor limit is raised for the new value where the
      // system allows; a value it cannot hold is refused with the one that would fit.
      const auto wanted = static_cast<uint64_t>(next.maxclients);
      const MaxclientsFit fit = FitMaxclientsToDescriptors(context.server(), wanted);
      if (fit.maxclients != wanted) {
        if (listeners_moved && listeners != nullptr) listeners->Rebind(now).IgnoreError();
        return SetFailure(change.entry,
                          "The operating system is not able to handle the specified number of "
                          "clients, try with " +
                              Int64ToString(static_cast<int64_t>(fit.maxclients)));
      }
    } else if (IsTlsParam(param) && !tls_checked) {
      tls_checked = true;
      const bool enabled = staged.Get(*Config::Find("tls-port")) != "0" ||
                           staged.Get(*Config::Find("tls-replication")) == "yes" ||
                           staged.Get(*Config::Find("tls-cluster")) == "yes";
      if (enabled) {
        // Put the listeners back if this command moved them before failing.
        if (listeners_moved && listeners != nullptr) listeners->Rebind(now).IgnoreError();
        return SetFailure(change.entry, "Unable to update TLS configuration. Check server logs.");
      }
    }
  }
  return "";
}

void CmdConfigSet(CommandContext& context) {
  if (context.argc() % 2 != 0) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  // Secrets (requirepass, masterauth) never reach the slow log or MONITOR: every one of them is
  // hidden before any check can fail, as Redis does.
  for (size_t i = 2; i < context.argc(); i += 2) {
    const ConfigParam* param = Config::Find(context.arg(i));
    if (param != nullptr && (param->flags & kConfigSensitive)) context.Redact(i + 1);
  }
  std::vector<ConfigChange> changes;
  std::string failure = CheckConfigSetNames(context, &changes);
  // All or nothing: the changes are made on a copy that replaces the live config only when every
  // value was accepted and applied.
  Config staged = context.server().config();
  if (failure.empty()) failure = StageConfigSet(context, changes, &staged);
  if (failure.empty()) failure = ApplyConfigSet(context, changes, staged);
  if (!failure.empty()) {
    context.reply.Error(failure);
    return;
  }
  context.server().ReplaceConfig(std::move(staged));
  context.reply.Ok();
}

void CmdConfigResetstat(CommandContext& context) {
  ServerStats& stats = context.server().stats();
  const size_t commands = stats.commands.size();
  stats = ServerStats();
  stats.commands.resize(commands);
  context.keyspace.stats() = KeyspaceStats();
  context.reply.Ok();
}

// Reads all of `path` into *content; a missing file reads as empty (Redis then writes a new one).
Status ReadConfigFile(FileSystem& files, const std::string& path, std::string* content) {
  Result<FileId> file = files.Open(path, OpenMode::kRead);
  if (!file.ok()) {
    if (file.status().code() == StatusCode::kNotFound) return Status::Ok();
    return file.status();
  }
  Status status;
  char buffer[16 * 1024];
  for (;;) {
    Result<size_t> read = files.ReadAt(*file, content->size(), buffer, sizeof(buffer));
    if (!read.ok()) {
      status = read.status();
      break;
    }
    if (*read == 0) break;
    content->append(buffer, *read);
    if (content->size() > kConfigFileBytesMax) {
      status = Status(StatusCode::kIoError, "read " + path + ": File too large");
      break;
    }
  }
  files.Close(*file).IgnoreError();  // read only: nothing to lose
  return status;
}

// Writes `content` to a temporary file beside `path` and renames it over `path`, so that a
// failure leaves the old file intact. The seam has no synchronous flush; the rename's atomicity
// is what protects the old content.
Status ReplaceConfigFile(FileSystem& files, const std::string& path, const std::string& content) {
  const std::string temporary = path + ".keel-rewrite.tmp";
  Result<FileId> file = files.Open(temporary, OpenMode::kCreateTruncate);
  if (!file.ok()) return file.status();
  const ConstSlice slice{content.data(), content.size()};
  Status status = files.Append(*file, &slice, 1);
  Status closed = files.Close(*file);
  if (status.ok()) status = std::move(closed);
  if (status.ok()) status = files.Rename(temporary, path);
  if (!status.ok()) files.Remove(temporary).IgnoreError();  // best effort: the error is reported
  return status;
}

void CmdConfigRewrite(CommandContext& context) {
  const std::string& path = context.server().startup().config_file;
  if (path.empty()) {
    context.reply.Error("ERR The server is running without a config file");
    return;
  }
  FileSystem& files = context.server().env().files();
  std::string old_content;
  Status status = ReadConfigFile(files, path, &old_content);
  if (status.ok()) {
    status =
        ReplaceConfigFile(files, path, RewriteConfigText(old_content, context.server().config()));
  }
  if (!status.ok()) {
    const std::string reason = StatusErrnoText(status);
    context.server().Log(LogLevel::kWarning, "CONFIG REWRITE failed: " + reason);
    context.reply.Error("ERR Rewriting config file: " + reason);
    return;
  }
  context.server().Log(LogLevel::kWarning, "CONFIG REWRITE executed with success.");
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
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

// Tips as redis-server 7.0.15 reports them in COMMAND INFO: config|set has them, config|resetstat
// and config|rewrite have none there (the 7.2 command docs add them).
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
     .handler = CmdConfigResetstat},
    {.name = "config|rewrite",
     .arity = 2,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.0",
     .complexity = "O(1)",
     .summary = "Rewrite the configuration file with the in memory configuration",
     .args = "",
     .handler = CmdConfigRewrite},
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
