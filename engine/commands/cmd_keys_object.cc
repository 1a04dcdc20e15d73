// OBJECT ENCODING, REFCOUNT, IDLETIME, FREQ and HELP: what Redis's objectCommand reports about a
// key's value. The lookups neither touch the key nor count as an access, but do count in
// keyspace_hits/misses and reclaim an expired key, as Redis's objectCommandLookup does.
#include <iterator>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/value_ops.h"

namespace keel {
namespace {

// The live entry of args[2], or nullptr after replying null.
const Entry* LookupObject(CommandContext& context) {
  const Entry* entry =
      context.keyspace.Lookup(context.db_index(), context.arg(2), kLookupNoTouch | kLookupNoNotify);
  if (entry == nullptr) context.reply.NullBulk();
  return entry;
}

bool LfuPolicy(const CommandContext& context) { return context.keyspace.settings().lfu(); }

void CmdObjectEncoding(CommandContext& context) {
  if (const Entry* entry = LookupObject(context)) {
    context.reply.Bulk(EncodingNameOf(*entry));
  }
}

void CmdObjectRefcount(CommandContext& context) {
  if (const Entry* entry = LookupObject(context)) {
    context.reply.Integer(ObjectRefcount(entry->encoding()));
  }
}

// The access clock holds an LRU time or an LFU counter, never both, so each subcommand refuses
// under the other kind of policy. The key is looked up first: a missing key replies null either
// way.
void CmdObjectIdletime(CommandContext& context) {
  const Entry* entry = LookupObject(context);
  if (entry == nullptr) return;
  if (LfuPolicy(context)) {
    context.reply.Error(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
        "switching between policies at runtime LRU and LFU data will take some time to adjust.");
    return;
  }
  context.reply.Integer(context.keyspace.IdleTimeMs(*entry) / 1000);
}

void CmdObjectFreq(CommandContext& context) {
  const Entry* entry = LookupObject(context);
  if (entry == nullptr) return;
  if (!LfuPolicy(context)) {
    context.reply.Error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time to "
        "adjust.");
    return;
  }
  // The counter as decayed by now (LFUDecrAndReturn): a key not accessed for long reads lower
  // than its stored counter.
  context.reply.Integer(context.keyspace.LfuCounter(*entry));
}

void CmdObjectHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kObjectCommands[] = {
    {.name = "object",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "generic",
     .since = "2.2.3",
     .complexity = "Depends on subcommand.",
     .summary = "A container for object introspection commands",
     .args = "",
     .handler = nullptr},
    {.name = "object|encoding",
     .arity = 3,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "RO: index 2 range 0 1 0",
     .group = "generic",
     .since = "2.2.3",
     .complexity = "O(1)",
     .summary = "Inspect the internal encoding of a Redis object",
     .args = "key:key#0",
     .handler = CmdObjectEncoding,
     .tips = "nondeterministic_output"},
    {.name = "object|freq",
     .arity = 3,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "RO: index 2 range 0 1 0",
     .group = "generic",
     .since = "4.0.0",
     .complexity = "O(1)",
     .summary = "Get the logarithmic access frequency counter of a Redis object",
     .args = "key:key#0",
     .handler = CmdObjectFreq,
     .tips = "nondeterministic_output"},
    {.name = "object|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@keyspace",
     .keys = "",
     .group = "generic",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdObjectHelp},
    {.name = "object|idletime",
     .arity = 3,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "RO: index 2 range 0 1 0",
     .group = "generic",
     .since = "2.2.3",
     .complexity = "O(1)",
     .summary = "Get the time since a Redis object was last accessed",
     .args = "key:key#0",
     .handler = CmdObjectIdletime,
     .tips = "nondeterministic_output"},
    {.name = "object|refcount",
     .arity = 3,
     .flags = "readonly",
     .acl = "@keyspace",
     .keys = "RO: index 2 range 0 1 0",
     .group = "generic",
     .since = "2.2.3",
     .complexity = "O(1)",
     .summary = "Get the number of references to the value of the key",
     .args = "key:key#0",
     .handler = CmdObjectRefcount,
     .tips = "nondeterministic_output"},
};

}  // namespace

void RegisterObjectCommands(Registry& registry) { registry.Add(kObjectCommands); }

}  // namespace keel
