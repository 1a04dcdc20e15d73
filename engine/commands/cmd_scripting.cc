// Scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (Redis 7.0's eval.c). The scripts,
// their interpreter and the rules of a run are engine/script/scripting.h's.
#include <string_view>

#include "engine/commands/context.h"
#include "engine/script/scripting.h"

namespace keel {
namespace {

void CmdEval(CommandContext& context) {
  Scripting::Of(context.server()).Eval(context, /*by_sha=*/false, /*read_only=*/false);
}

void CmdEvalRo(CommandContext& context) {
  Scripting::Of(context.server()).Eval(context, /*by_sha=*/false, /*read_only=*/true);
}

void CmdEvalsha(CommandContext& context) {
  Scripting::Of(context.server()).Eval(context, /*by_sha=*/true, /*read_only=*/false);
}

void CmdEvalshaRo(CommandContext& context) {
  Scripting::Of(context.server()).Eval(context, /*by_sha=*/true, /*read_only=*/true);
}

void CmdScriptExists(CommandContext& context) {
  Scripting& scripting = Scripting::Of(context.server());
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    context.reply.Integer(scripting.Exists(context.arg(i)) ? 1 : 0);
  }
}

void CmdScriptFlush(CommandContext& context) {
  // ASYNC or SYNC: Keel frees the scripts at once either way (nothing a client can observe,
  // as FLUSHALL ASYNC).
  if (context.argc() == 3 && !EqualsIgnoreCase(context.arg(2), "sync") &&
      !EqualsIgnoreCase(context.arg(2), "async")) {
    context.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  if (context.argc() > 3) {
    context.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  Scripting::Of(context.server()).Flush();
  context.reply.Ok();
}

void CmdScriptKill(CommandContext& context) {
  Scripting::Of(context.server()).Kill(context.reply, /*eval=*/true);
}

void CmdScriptLoad(CommandContext& context) {
  Scripting::Of(context.server()).Load(context, context.arg(2));
}

void CmdScriptHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

// EVAL's keys: numkeys (argument 2) of them from argument 3 (COMMAND GETKEYS).
constexpr std::string_view kEvalKeys =
    "RW access update: index 2 keynum 0 1 1 | We cannot tell how "
    "the keys will be used so we assume the worst, RW and UPDATE";
constexpr std::string_view kEvalRoKeys =
    "RO access: index 2 keynum 0 1 1 | We cannot tell how the "
    "keys will be used so we assume the worst, RO and ACCESS";

constexpr CommandDef kScriptingCommands[] = {
    {.name = "eval",
     .arity = -3,
     .flags = "noscript skip_monitor may_replicate no_mandatory_keys stale",
     .acl = "@scripting",
     .keys = kEvalKeys,
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "Depends on the script that is executed.",
     .summary = "Execute a Lua script server side",
     .args = "script numkeys:integer ?*key:key#0 ?*arg",
     .handler = CmdEval},
    {.name = "evalsha",
     .arity = -3,
     .flags = "noscript skip_monitor may_replicate no_mandatory_keys stale",
     .acl = "@scripting",
     .keys = "RW access update: index 2 keynum 0 1 1",
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "Depends on the script that is executed.",
     .summary = "Execute a Lua script server side",
     .args = "sha1 numkeys:integer ?*key:key#0 ?*arg",
     .handler = CmdEvalsha},
    {.name = "eval_ro",
     .arity = -3,
     .flags = "readonly noscript skip_monitor no_mandatory_keys stale",
     .acl = "@scripting",
     .keys = kEvalRoKeys,
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "Depends on the script that is executed.",
     .summary = "Execute a read-only Lua script server side",
     .args = "script numkeys:integer ?*key:key#0 ?*arg",
     .handler = CmdEvalRo},
    {.name = "evalsha_ro",
     .arity = -3,
     .flags = "readonly noscript skip_monitor no_mandatory_keys stale",
     .acl = "@scripting",
     .keys = "RO access: index 2 keynum 0 1 1",
     .group = "scripting",
     .since = "7.0.0",
     .complexity = "Depends on the script that is executed.",
     .summary = "Execute a read-only Lua script server side",
     .args = "sha1 numkeys:integer ?*key:key#0 ?*arg",
     .handler = CmdEvalshaRo},
    {.name = "script",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for Lua scripts management commands",
     .args = "",
     .handler = nullptr},
    {.name = "script|exists",
     .arity = -3,
     .flags = "noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "O(N) with N being the number of scripts to check (so checking a single script "
                   "is an O(1) operation).",
     .summary = "Check existence of scripts in the script cache.",
     .args = "*sha1",
     .handler = CmdScriptExists,
     .tips = "request_policy:all_shards response_policy:agg_logical_and"},
    {.name = "script|flush",
     .arity = -2,
     .flags = "noscript",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "O(N) with N being the number of scripts in cache",
     .summary = "Remove all the scripts from the script cache.",
     .args = "?async:oneof@6.2.0{async=ASYNC sync=SYNC}",
     .handler = CmdScriptFlush,
     .history = "6.2.0 Added the `ASYNC` and `SYNC` flushing mode modifiers.",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "script|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdScriptHelp},
    {.name = "script|kill",
     .arity = 2,
     .flags = "noscript allow_busy",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Kill the script currently in execution.",
     .args = "",
     .handler = CmdScriptKill,
     .tips = "request_policy:all_shards response_policy:one_succeeded"},
    {.name = "script|load",
     .arity = 3,
     .flags = "noscript stale",
     .acl = "@scripting",
     .keys = "",
     .group = "scripting",
     .since = "2.6.0",
     .complexity = "O(N) with N being the length in bytes of the script body.",
     .summary = "Load the specified Lua script into the script cache.",
     .args = "script",
     .handler = CmdScriptLoad,
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
};

}  // namespace

void RegisterScriptingCommands(Registry& registry) { registry.Add(kScriptingCommands); }

}  // namespace keel
