// The blocking sorted-set pops: BZPOPMIN, BZPOPMAX and BZMPOP (Redis's t_zset.c
// blockingGenericZpopCommand), on the engine's one waiter mechanism, as the blocking list
// commands (cmd_list_block.cc): each takes at once when a key holds a sorted set, else its client
// blocks on the keys, and the engine runs the handler again for the key that became ready
// (context.serving_key()). Inside MULTI/EXEC or a script they answer as a timeout, at once.
//
// Propagation is what the pop did, as Redis rewrites it: ZPOPMIN/ZPOPMAX key for BZPOPMIN and
// BZPOPMAX, ZPOPMIN/ZPOPMAX key count (the members it took) for BZMPOP.
#include <algorithm>

#include "engine/commands/cmd_zset_common.h"
#include "engine/commands/context.h"

namespace keel {
namespace {

// Pops from the first of `keys` that holds a sorted set (only the serving key, when the engine
// runs a waiter again), or blocks. `count` 0 is BZPOPMIN/BZPOPMAX's single pop, whose reply and
// propagation carry no count.
void BlockingZpop(CommandContext& context, std::span<const std::string_view> keys, bool max,
                  size_t count, int64_t timeout_ms) {
  const int db = context.db_index();
  const std::string_view serving = context.serving_key();
  for (std::string_view key : keys) {
    if (!serving.empty() && key != serving) continue;
    const Entry* entry = context.keyspace.LookupWrite(db, key);
    if (entry == nullptr) continue;
    if (entry->type() != ValueType::kZSet) {
      context.reply.Error(errors::kWrongType);
      return;
    }
    const std::string_view pop = max ? "ZPOPMAX" : "ZPOPMIN";
    if (count == 0) {
      PopAndReply(context, key, 1, max, PopReply::kFlatWithKey);
      context.PropagateAs({pop, key});
      return;
    }
    const size_t popped = PopAndReply(context, key, count, max, PopReply::kNestedWithKey);
    char text[kInt64TextMax];
    context.PropagateAs(
        {pop, key, std::string_view(text, FormatInt64(static_cast<int64_t>(popped), text))});
    return;
  }
  if (!context.may_block()) {
    context.reply.NullArray();
    return;
  }
  context.BlockOn(keys, ValueType::kZSet, timeout_ms);
}

// BZPOPMIN/BZPOPMAX key [key ...] timeout: the timeout is parsed first.
void BzpopMinMax(CommandContext& context, bool max) {
  int64_t timeout_ms = 0;
  if (!ParseBlockTimeout(context, context.arg(context.argc() - 1), &timeout_ms)) return;
  BlockingZpop(context, context.args.subspan(1, context.argc() - 2), max, 0, timeout_ms);
}

void CmdBzpopmin(CommandContext& context) { BzpopMinMax(context, false); }
void CmdBzpopmax(CommandContext& context) { BzpopMinMax(context, true); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]: the rest of the arguments are
// parsed before the timeout, as zmpopGenericCommand does.
void CmdBzmpop(CommandContext& context) {
  ZmpopArgs parsed;
  if (!ParseZmpopArgs(context, 2, &parsed)) return;
  int64_t timeout_ms = 0;
  if (!ParseBlockTimeout(context, context.arg(1), &timeout_ms)) return;
  BlockingZpop(context, context.args.subspan(parsed.first_key, parsed.end_key - parsed.first_key),
               parsed.max, parsed.count, timeout_ms);
}

constexpr std::string_view kTimeoutDoubleHistory =
    "6.0.0 `timeout` is interpreted as a double instead of an integer.";

constexpr CommandDef kZsetBlockingCommands[] = {
    {
        .name = "bzpopmin",
        .arity = -3,
        .flags = "write noscript blocking fast",
        .acl = "@sortedset",
        .keys = "RW access delete: index 1 range -2 1 0",
        .group = "sorted-set",
        .since = "5.0.0",
        .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
        .summary = "Remove and return the member with the lowest score from one or more sorted "
                   "sets, or block until one is available",
        .args = "*key:key#0 timeout:double",
        .handler = CmdBzpopmin,
        .history = kTimeoutDoubleHistory,
    },
    {
        .name = "bzpopmax",
        .arity = -3,
        .flags = "write noscript blocking fast",
        .acl = "@sortedset",
        .keys = "RW access delete: index 1 range -2 1 0",
        .group = "sorted-set",
        .since = "5.0.0",
        .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
        .summary = "Remove and return the member with the highest score from one or more sorted "
                   "sets, or block until one is available",
        .args = "*key:key#0 timeout:double",
        .handler = CmdBzpopmax,
        .history = kTimeoutDoubleHistory,
    },
    {
        .name = "bzmpop",
        .arity = -5,
        .flags = "write blocking",
        .acl = "@sortedset",
        .keys = "RW access delete: index 2 keynum 0 1 1",
        .group = "sorted-set",
        .since = "7.0.0",
        .complexity =
            "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of "
            "elements in the sorted set, and M being the number of elements popped.",
        .summary = "Remove and return members with scores in a sorted set or block until one is "
                   "available",
        .args = "timeout:double numkeys:integer *key:key#0 where:oneof{min=MIN max=MAX} "
                "?count:integer=COUNT",
        .handler = CmdBzmpop,
    },
};

}  // namespace

void RegisterZsetBlockingCommands(Registry& registry) { registry.Add(kZsetBlockingCommands); }

}  // namespace keel
