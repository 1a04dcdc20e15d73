// MEMORY USAGE and MEMORY HELP (Redis's object.c memoryCommand); STATS, DOCTOR, PURGE and
// MALLOC-STATS are in cmd_memory_stats.cc.
//
// MEMORY USAGE is exact where Redis samples: the key's entry (its block in the slab, key and
// inline value included), what the value holds outside it (list nodes, a set's table, ...) and
// the table slot that points at the entry. SAMPLES is parsed and checked as Redis checks it, and
// changes nothing. Like Redis (dbFind), it measures a key whose time has passed but which has not
// been reclaimed yet, and it touches nothing.
#include <iterator>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/value_ops.h"

namespace keel {
namespace {

// What the table spends per key besides the entry: one slot pointing at it.
constexpr size_t kTableSlotBytes = sizeof(void*);

void CmdMemoryUsage(CommandContext& context) {
  for (size_t i = 3; i < context.argc(); i++) {
    if (OptionIs(context.arg(i), "samples") && i + 1 < context.argc()) {
      int64_t samples = 0;
      if (!ParseStrictInt64(context.arg(i + 1), &samples)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (samples < 0) {
        context.reply.Error(errors::kSyntax);
        return;
      }
      i++;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  const Entry* entry = context.keyspace.database(context.db_index()).Find(context.arg(2));
  if (entry == nullptr) {
    context.reply.NullBulk();
    return;
  }
  const size_t usage = entry->allocation_bytes() + ExternalBytesOf(*entry) + kTableSlotBytes;
  context.reply.Integer(static_cast<int64_t>(usage));
}

void CmdMemoryHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return memory in bytes used by <key> and its value. Nested values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

constexpr CommandDef kMemoryCommands[] = {
    {.name = "memory",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for memory diagnostics commands",
     .args = "",
     .handler = nullptr},
    {.name = "memory|usage",
     .arity = -3,
     .flags = "readonly",
     .acl = "",
     .keys = "RO: index 2 range 0 1 0",
     .group = "server",
     .since = "4.0.0",
     .complexity = "O(N) where N is the number of samples.",
     .summary = "Estimate the memory usage of a key",
     .args = "key:key#0 ?count:integer=SAMPLES",
     .handler = CmdMemoryUsage},
    {.name = "memory|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdMemoryHelp},
};

}  // namespace

void RegisterMemoryCommands(Registry& registry) { registry.Add(kMemoryCommands); }

}  // namespace keel
