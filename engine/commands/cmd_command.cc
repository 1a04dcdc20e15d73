// COMMAND and its subcommands: the registry, answered in Redis 7.0's reply shapes.
#include <algorithm>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/registry/key_extraction.h"

namespace keel {
namespace {

void StatusSet(ReplyBuilder& reply, const std::vector<std::string_view>& names,
               std::string_view prefix = {}) {
  reply.SetHeader(names.size());
  for (std::string_view name : names) {
    if (prefix.empty()) {
      reply.SimpleString(name);
    } else {
      reply.SimpleString(std::string(prefix) + std::string(name));
    }
  }
}

void ReplyKeySpec(ReplyBuilder& reply, const KeySpec& spec) {
  reply.MapHeader(spec.notes.empty() ? 3 : 4);
  if (!spec.notes.empty()) {
    reply.Bulk("notes");
    reply.Bulk(spec.notes);
  }
  reply.Bulk("flags");
  StatusSet(reply, KeySpecFlagNames(spec.flags));
  reply.Bulk("begin_search");
  reply.MapHeader(2);
  reply.Bulk("type");
  switch (spec.begin) {
    case KeySpec::Begin::kUnknown:
      reply.Bulk("unknown");
      reply.Bulk("spec");
      reply.MapHeader(0);
      break;
    case KeySpec::Begin::kIndex:
      reply.Bulk("index");
      reply.Bulk("spec");
      reply.MapHeader(1);
      reply.Bulk("index");
      reply.Integer(spec.index);
      break;
    case KeySpec::Begin::kKeyword:
      reply.Bulk("keyword");
      reply.Bulk("spec");
      reply.MapHeader(2);
      reply.Bulk("keyword");
      reply.Bulk(spec.keyword);
      reply.Bulk("startfrom");
      reply.Integer(spec.start_from);
      break;
  }
  reply.Bulk("find_keys");
  reply.MapHeader(2);
  reply.Bulk("type");
  switch (spec.find) {
    case KeySpec::Find::kUnknown:
      reply.Bulk("unknown");
      reply.Bulk("spec");
      reply.MapHeader(0);
      break;
    case KeySpec::Find::kRange:
      reply.Bulk("range");
      reply.Bulk("spec");
      reply.MapHeader(3);
      reply.Bulk("lastkey");
      reply.Integer(spec.last_key);
      reply.Bulk("keystep");
      reply.Integer(spec.key_step);
      reply.Bulk("limit");
      reply.Integer(spec.limit);
      break;
    case KeySpec::Find::kKeynum:
      reply.Bulk("keynum");
      reply.Bulk("spec");
      reply.MapHeader(3);
      reply.Bulk("keynumidx");
      reply.Integer(spec.keynum_index);
      reply.Bulk("firstkey");
      reply.Integer(spec.first_key);
      reply.Bulk("keystep");
      reply.Integer(spec.key_step);
      break;
  }
}

void ReplyCommandInfo(ReplyBuilder& reply, const CommandSpec& spec) {
  reply.ArrayHeader(10);
  reply.Bulk(spec.full_name);
  reply.Integer(spec.arity);
  StatusSet(reply, CommandFlagNames(spec.flags));
  reply.Integer(spec.legacy_first_key);
  reply.Integer(spec.legacy_last_key);
  reply.Integer(spec.legacy_key_step);
  StatusSet(reply, AclCategoryNames(spec.acl), "@");
  reply.SetHeader(spec.tips.size());
  for (const std::string& tip : spec.tips) reply.Bulk(tip);
  reply.SetHeader(spec.key_specs.size());
  for (const KeySpec& key_spec : spec.key_specs) ReplyKeySpec(reply, key_spec);
  if (spec.subcommands.empty()) {
    reply.SetHeader(0);
  } else {
    reply.ArrayHeader(spec.subcommands.size());
    for (const auto& sub : spec.subcommands) ReplyCommandInfo(reply, *sub);
  }
}

void ReplyArgs(ReplyBuilder& reply, const std::vector<ArgSpec>& args) {
  reply.ArrayHeader(args.size());
  for (const ArgSpec& arg : args) {
    const bool nested = !arg.children.empty();
    size_t fields = 2 + (arg.key_spec_index >= 0) + !arg.token.empty() + !arg.since.empty() +
                    !arg.deprecated_since.empty() + (arg.flags != 0) + nested;
    reply.MapHeader(fields);
    reply.Bulk("name");
    reply.Bulk(arg.name);
    reply.Bulk("type");
    reply.Bulk(arg.type);
    if (arg.key_spec_index >= 0) {
      reply.Bulk("key_spec_index");
      reply.Integer(arg.key_spec_index);
    }
    if (!arg.token.empty()) {
      reply.Bulk("token");
      reply.Bulk(arg.token);
    }
    if (!arg.since.empty()) {
      reply.Bulk("since");
      reply.Bulk(arg.since);
    }
    if (!arg.deprecated_since.empty()) {
      reply.Bulk("deprecated_since");
      reply.Bulk(arg.deprecated_since);
    }
    if (arg.flags != 0) {
      std::vector<std::string_view> names;
      if (arg.flags & ArgSpec::kOptional) names.push_back("optional");
      if (arg.flags & ArgSpec::kMultiple) names.push_back("multiple");
      if (arg.flags & ArgSpec::kMultipleToken) names.push_back("multiple_token");
      reply.Bulk("flags");
      StatusSet(reply, names);
    }
    if (nested) {
      reply.Bulk("arguments");
      ReplyArgs(reply, arg.children);
    }
  }
}

void ReplyCommandDocs(ReplyBuilder& reply, const CommandSpec& spec) {
  const CommandDef& def = *spec.def;
  const size_t fields = 1 + !def.summary.empty() + !def.since.empty() + !def.complexity.empty() +
                        !spec.doc_flags.empty() + !def.deprecated_since.empty() +
                        !def.replaced_by.empty() + !spec.history.empty() + !spec.args.empty() +
                        !spec.subcommands.empty();
  reply.MapHeader(fields);
  if (!def.summary.empty()) {
    reply.Bulk("summary");
    reply.Bulk(def.summary);
  }
  if (!def.since.empty()) {
    reply.Bulk("since");
    reply.Bulk(def.since);
  }
  reply.Bulk("group");
  reply.Bulk(def.group);
  if (!def.complexity.empty()) {
    reply.Bulk("complexity");
    reply.Bulk(def.complexity);
  }
  if (!spec.doc_flags.empty()) {
    reply.Bulk("doc_flags");
    std::vector<std::string_view> names(spec.doc_flags.begin(), spec.doc_flags.end());
    StatusSet(reply, names);
  }
  if (!def.deprecated_since.empty()) {
    reply.Bulk("deprecated_since");
    reply.Bulk(def.deprecated_since);
  }
  if (!def.replaced_by.empty()) {
    reply.Bulk("replaced_by");
    reply.Bulk(def.replaced_by);
  }
  if (!spec.history.empty()) {
    reply.Bulk("history");
    reply.SetHeader(spec.history.size());
    for (const auto& [version, text] : spec.history) {
      reply.ArrayHeader(2);
      reply.Bulk(version);
      reply.Bulk(text);
    }
  }
  if (!spec.args.empty()) {
    reply.Bulk("arguments");
    ReplyArgs(reply, spec.args);
  }
  if (!spec.subcommands.empty()) {
    reply.Bulk("subcommands");
    reply.MapHeader(spec.subcommands.size());
    for (const auto& sub : spec.subcommands) {
      reply.Bulk(sub->full_name);
      ReplyCommandDocs(reply, *sub);
    }
  }
}

void CmdCommand(CommandContext& context) {
  const auto& commands = context.server().registry().commands();
  context.reply.ArrayHeader(commands.size());
  for (const CommandSpec* spec : commands) ReplyCommandInfo(context.reply, *spec);
}

void CmdCommandCount(CommandContext& context) {
  context.reply.Integer(static_cast<int64_t>(context.server().registry().commands().size()));
}

void CmdCommandInfo(CommandContext& context) {
  const Registry& registry = context.server().registry();
  if (context.argc() == 2) {
    CmdCommand(context);
    return;
  }
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    const CommandSpec* spec = registry.FindByFullName(context.arg(i));
    if (spec == nullptr) {
      context.reply.NullBulk();  // Redis's addReplyNull: "$-1" in RESP2
    } else {
      ReplyCommandInfo(context.reply, *spec);
    }
  }
}

void CmdCommandDocs(CommandContext& context) {
  const Registry& registry = context.server().registry();
  std::vector<const CommandSpec*> found;
  if (context.argc() == 2) {
    found = registry.commands();
  } else {
    for (size_t i = 2; i < context.argc(); i++) {
      if (const CommandSpec* spec = registry.FindByFullName(context.arg(i))) found.push_back(spec);
    }
  }
  context.reply.MapHeader(found.size());
  for (const CommandSpec* spec : found) {
    context.reply.Bulk(spec->full_name);
    ReplyCommandDocs(context.reply, *spec);
  }
}

void CmdCommandList(CommandContext& context) {
  // COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]: every command and
  // subcommand by full name.
  enum class Filter { kNone, kModule, kAclCategory, kPattern } filter = Filter::kNone;
  std::string_view value;
  if (context.argc() == 5 && OptionIs(context.arg(2), "FILTERBY")) {
    value = context.arg(4);
    if (OptionIs(context.arg(3), "MODULE")) {
      filter = Filter::kModule;
    } else if (OptionIs(context.arg(3), "ACLCAT")) {
      filter = Filter::kAclCategory;
    } else if (OptionIs(context.arg(3), "PATTERN")) {
      filter = Filter::kPattern;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  } else if (context.argc() != 2) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  const uint32_t category = filter == Filter::kAclCategory ? AclCategoryFromName(value) : 0;
  std::vector<const CommandSpec*> matched;
  auto consider = [&](const CommandSpec& spec) {
    switch (filter) {
      case Filter::kNone:
        matched.push_back(&spec);
        break;
      case Filter::kModule:
        break;  // Keel loads no modules
      case Filter::kAclCategory:
        if (spec.acl & category) matched.push_back(&spec);
        break;
      case Filter::kPattern:
        if (GlobMatch(value, spec.full_name, /*nocase=*/true)) matched.push_back(&spec);
        break;
    }
  };
  for (const CommandSpec* spec : context.server().registry().commands()) {
    consider(*spec);
    for (const auto& sub : spec->subcommands) consider(*sub);
  }
  context.reply.ArrayHeader(matched.size());
  for (const CommandSpec* spec : matched) context.reply.Bulk(spec->full_name);
}

void GetKeys(CommandContext& context, bool with_flags) {
  const std::span<const std::string_view> target = context.args.subspan(2);
  bool unknown_subcommand = false;
  const CommandSpec* spec = context.server().registry().Resolve(target, &unknown_subcommand);
  if (spec == nullptr) {
    context.reply.Error("ERR Invalid command specified");
    return;
  }
  if (!CommandHasKeys(*spec)) {
    context.reply.Error("ERR The command has no key arguments");
    return;
  }
  if (!spec->ArityAccepts(target.size())) {
    context.reply.Error("ERR Invalid number of arguments specified for command");
    return;
  }
  std::vector<KeyReference> keys;
  if (!ExtractKeys(*spec, target, &keys) || keys.empty()) {
    if (spec->flags & kCmdNoMandatoryKeys) {
      context.reply.EmptyArray();
    } else {
      context.reply.Error("ERR Invalid arguments specified for command");
    }
    return;
  }
  context.reply.ArrayHeader(keys.size());
  for (const KeyReference& key : keys) {
    if (with_flags) {
      context.reply.ArrayHeader(2);
      context.reply.Bulk(target[key.position]);
      StatusSet(context.reply, KeySpecFlagNames(key.flags));
    } else {
      context.reply.Bulk(target[key.position]);
    }
  }
}

void CmdCommandGetkeys(CommandContext& context) { GetKeys(context, false); }
void CmdCommandGetkeysandflags(CommandContext& context) { GetKeys(context, true); }

void CmdCommandHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kIntrospectionCommands[] = {
    {.name = "command",
     .arity = -1,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(N) where N is the total number of Redis commands",
     .summary = "Get array of Redis command details",
     .args = "",
     .handler = CmdCommand,
     .tips = "nondeterministic_output_order"},
    {.name = "command|count",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Get total number of Redis commands",
     .args = "",
     .handler = CmdCommandCount},
    {.name = "command|list",
     .arity = -2,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "7.0.0",
     .complexity = "O(N) where N is the total number of Redis commands",
     .summary = "Get an array of Redis command names",
     .args = "?filterby:oneof=FILTERBY{module-name:string=MODULE category:string=ACLCAT "
             "pattern:pattern=PATTERN}",
     .handler = CmdCommandList,
     .tips = "nondeterministic_output_order"},
    {.name = "command|info",
     .arity = -2,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(N) where N is the number of commands to look up",
     .summary = "Get array of specific Redis command details, or all when no argument is given.",
     .args = "?*command-name:string",
     .handler = CmdCommandInfo,
     .history = "7.0.0 Allowed to be called with no argument to get info on all commands.",
     .tips = "nondeterministic_output_order"},
    {.name = "command|docs",
     .arity = -2,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of commands to look up",
     .summary = "Get array of specific Redis command documentation",
     .args = "?*command-name:string",
     .handler = CmdCommandDocs,
     .tips = "nondeterministic_output_order"},
    {.name = "command|getkeys",
     .arity = -4,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(N) where N is the number of arguments to the command",
     .summary = "Extract keys given a full Redis command",
     .args = "",
     .handler = CmdCommandGetkeys},
    {.name = "command|getkeysandflags",
     .arity = -4,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of arguments to the command",
     .summary = "Extract keys and access flags given a full Redis command",
     .args = "",
     .handler = CmdCommandGetkeysandflags},
    {.name = "command|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@connection",
     .keys = "",
     .group = "server",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdCommandHelp},
};

}  // namespace

void RegisterIntrospectionCommands(Registry& registry) { registry.Add(kIntrospectionCommands); }

}  // namespace keel
