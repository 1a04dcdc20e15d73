// Functions: FCALL, FCALL_RO and FUNCTION (Redis 7.0's functions.c). The libraries and their
// interpreter are engine/script/functions.h's; a function runs as EVAL's scripts do
// (engine/script/scripting.h).
#include <string>
#include <string_view>

#include "engine/base/glob.h"
#include "engine/commands/context.h"
#include "engine/registry/errors.h"
#include "engine/script/function_lua.h"
#include "engine/script/script_flags.h"
#include "engine/script/scripting.h"

namespace keel {
namespace {

Functions& FunctionsOf(CommandContext& context) {
  return Scripting::Of(context.server()).functions();
}

// A library changed: counted as a change (save rules, INFO) and so propagated as sent (Redis's
// server.dirty++ in each FUNCTION command that changes something).
void CountChange(CommandContext& context) { context.keyspace.CountChange(); }

void CmdFcall(CommandContext& context) {
  Scripting::Of(context.server()).Fcall(context, /*read_only=*/false);
}

void CmdFcallRo(CommandContext& context) {
  Scripting::Of(context.server()).Fcall(context, /*read_only=*/true);
}

void CmdFunctionLoad(CommandContext& context) {
  bool replace = false;
  size_t index = 2;
  for (; index + 1 < context.argc(); index++) {
    if (!EqualsIgnoreCase(context.arg(index), "replace")) {
      context.reply.Error("ERR Unknown option given: " + std::string(context.arg(index)));
      return;
    }
    replace = true;
  }
  // The AOF and a primary are obeyed whatever the code takes (Redis's mustObeyClient).
  const bool obeyed =
      (context.server().current_call().flags & (kCallFromAof | kCallFromPrimary)) != 0;
  std::string name;
  const std::string error = FunctionsOf(context).Load(context.arg(index), replace,
                                                      obeyed ? 0 : kFunctionLoadTimeoutMs, &name);
  if (!error.empty()) {
    context.reply.Error(error);
    return;
  }
  CountChange(context);
  context.reply.Bulk(name);
}

void CmdFunctionDelete(CommandContext& context) {
  if (!FunctionsOf(context).Delete(context.arg(2))) {
    context.reply.Error("ERR Library not found");
    return;
  }
  CountChange(context);
  context.reply.Ok();
}

void CmdFunctionFlush(CommandContext& context) {
  if (context.argc() > 3) {
    context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
    return;
  }
  // ASYNC or SYNC: Keel frees the libraries at once either way (nothing a client can observe).
  if (context.argc() == 3 && !EqualsIgnoreCase(context.arg(2), "sync") &&
      !EqualsIgnoreCase(context.arg(2), "async")) {
    context.reply.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  FunctionsOf(context).Flush();
  CountChange(context);
  context.reply.Ok();
}

void ReplyFunction(ReplyBuilder& reply, const FunctionInfo& function) {
  reply.MapHeader(3);
  reply.Bulk("name");
  reply.Bulk(function.name);
  reply.Bulk("description");
  if (function.description) {
    reply.Bulk(*function.description);
  } else {
    reply.NullBulk();
  }
  reply.Bulk("flags");
  size_t count = 0;
  for (uint32_t flag : kNamedScriptFlags) count += (function.flags & flag) ? 1 : 0;
  reply.SetHeader(count);
  for (uint32_t flag : kNamedScriptFlags) {
    if (function.flags & flag) reply.SimpleString(ScriptFlagName(flag));
  }
}

void CmdFunctionList(CommandContext& context) {
  bool with_code = false;
  bool filtered = false;
  std::string_view pattern;
  for (size_t i = 2; i < context.argc(); i++) {
    const std::string_view arg = context.arg(i);
    if (!with_code && EqualsIgnoreCase(arg, "withcode")) {
      with_code = true;
      continue;
    }
    if (!filtered && EqualsIgnoreCase(arg, "libraryname")) {
      if (i + 1 >= context.argc()) {
        context.reply.Error("ERR library name argument was not given");
        return;
      }
      pattern = context.arg(++i);
      filtered = true;
      continue;
    }
    context.reply.Error("ERR Unknown argument " + std::string(arg));
    return;
  }
  const FunctionRegistry& registry = FunctionsOf(context).registry();
  size_t count = 0;
  for (const auto& [name, library] : registry.libraries()) {
    if (!filtered || GlobMatch(pattern, name, /*nocase=*/true)) count++;
  }
  context.reply.ArrayHeader(count);
  for (const auto& [name, library] : registry.libraries()) {
    if (filtered && !GlobMatch(pattern, name, /*nocase=*/true)) continue;
    context.reply.MapHeader(with_code ? 4 : 3);
    context.reply.Bulk("library_name");
    context.reply.Bulk(name);
    context.reply.Bulk("engine");
    context.reply.Bulk("LUA");
    context.reply.Bulk("functions");
    context.reply.ArrayHeader(library->functions().size());
    for (const auto& [function_name, function] : library->functions()) {
      ReplyFunction(context.reply, function);
    }
    if (with_code) {
      context.reply.Bulk("library_code");
      context.reply.Bulk(library->code());
    }
  }
}

void CmdFunctionDump(CommandContext& context) {
  context.reply.Bulk(FunctionsOf(context).Dump(context.config().rdbcompression));
}

void CmdFunctionRestore(CommandContext& context) {
  if (context.argc() > 4) {
    context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
    return;
  }
  RestorePolicy policy = RestorePolicy::kAppend;
  if (context.argc() == 4) {
    const std::string_view name = context.arg(3);
    if (EqualsIgnoreCase(name, "append")) {
      policy = RestorePolicy::kAppend;
    } else if (EqualsIgnoreCase(name, "replace")) {
      policy = RestorePolicy::kReplace;
    } else if (EqualsIgnoreCase(name, "flush")) {
      policy = RestorePolicy::kFlush;
    } else {
      context.reply.Error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  }
  const std::string error =
      FunctionsOf(context).Restore(context.arg(2), policy, !context.skip_checksum_validation());
  if (!error.empty()) {
    context.reply.Error(error);
    return;
  }
  CountChange(context);
  context.reply.Ok();
}

void CmdFunctionStats(CommandContext& context) {
  Scripting::Of(context.server()).FunctionStats(context.reply);
}

void CmdFunctionKill(CommandContext& context) {
  Scripting::Of(context.server()).Kill(context.reply, /*eval=*/false);
}

void CmdFunctionHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored using "
      "FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
      "replace the old",
      "      libraries with the new libraries (notice that even on this option there is a "
      "chance of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kFunctionCommands[] = {
    {.name = "fcall",
     .arity = -3,
     .flags = "noscript skip_monitor may_replicate no_mandatory_keys stale",
     .acl = "@scripting",
     .keys = "RW access update: index 2 keynum 0 1 1 | We cannot tell how the keys will be used "
             "so we assume the worst, RW and UPDATE",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "Depends on the function that is executed.",
     .summary = "Invoke a function",
     .args = "function numkeys:integer ?*key:key#0 ?*arg",
     .handler = CmdFcall},
    {.name = "fcall_ro",
     .arity = -3,
     .flags = "readonly noscript skip_monitor no_mandatory_keys stale",
     .acl = "@scripting",
     .keys = "RO access: index 2 keynum 0 1 1 | We cannot tell how the keys will be used so we "
             "assume the worst, RO and ACCESS",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "Depends on the function that is executed.",
     .summary = "Invoke a read-only function",
     .args = "function numkeys:integer ?*key:key#0 ?*arg",
     .handler = CmdFcallRo},
    {.name = "function",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for function commands",
     .args = "",
     .handler = nullptr},
    {.name = "function|delete",
     .arity = 3,
     .flags = "write noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Delete a function by name",
     .args = "library-name",
     .handler = CmdFunctionDelete,
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "function|dump",
     .arity = 2,
     .flags = "noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions",
     .summary = "Dump all functions into a serialized binary payload",
     .args = "",
     .handler = CmdFunctionDump},
    {.name = "function|flush",
     .arity = -2,
     .flags = "write noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions deleted",
     .summary = "Deleting all functions",
     .args = "?async:oneof{async=ASYNC sync=SYNC}",
     .handler = CmdFunctionFlush,
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "function|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdFunctionHelp},
    {.name = "function|kill",
     .arity = 2,
     .flags = "noscript allow_busy",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Kill the function currently in execution.",
     .args = "",
     .handler = CmdFunctionKill,
     .tips = "request_policy:all_shards response_policy:one_succeeded"},
    {.name = "function|list",
     .arity = -2,
     .flags = "noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions",
     .summary = "List information about all the functions",
     .args = "?library-name-pattern:string=LIBRARYNAME ?withcode=WITHCODE",
     .handler = CmdFunctionList,
     .tips = "nondeterministic_output_order"},
    {.name = "function|load",
     .arity = -3,
     .flags = "write denyoom noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(1) (considering compilation time is redundant)",
     .summary = "Create a function with the given arguments (name, code, description)",
     .args = "?replace=REPLACE function-code",
     .handler = CmdFunctionLoad,
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "function|restore",
     .arity = -3,
     .flags = "write denyoom noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of functions on the payload",
     .summary = "Restore all the functions on the given payload",
     .args = "serialized-value ?policy:oneof{flush=FLUSH append=APPEND replace=REPLACE}",
     .handler = CmdFunctionRestore,
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "function|stats",
     .arity = 2,
     .flags = "noscript allow_busy",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "O(1)",
     .summary = "Return information about the function currently running (name, description, "
                "duration)",
     .args = "",
     .handler = CmdFunctionStats,
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
};

}  // namespace

void RegisterFunctionCommands(Registry& registry) { registry.Add(kFunctionCommands); }

}  // namespace keel
