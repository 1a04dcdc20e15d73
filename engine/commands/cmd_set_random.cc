// SRANDMEMBER and SPOP: members drawn at random, following t_set.c's cases for a count. The draws
// come from the engine's generator (seeded from the environment), so a simulation replays them.
//
// SPOP propagates what it removed, not itself: one member as SREM key member, a count as one SREM
// per member (wrapped in MULTI/EXEC with the rest of the unit), a count that empties the set as
// DEL key.
#include <string>

#include "engine/commands/cmd_set_common.h"

namespace keel {
namespace {

// Redis's SRANDMEMBER_SUB_STRATEGY_MUL and SPOP_MOVE_STRATEGY_MUL: when a draw of `count`
// distinct members is answered by copying the set and removing from the copy.
constexpr uint64_t kSubtractStrategyFactor = 3;
constexpr uint64_t kMoveStrategyFactor = 5;

// Whether a reply of unbounded length (SRANDMEMBER with a negative count) should stop: the
// client is being closed or its output could not grow, as Redis stops at CLIENT_CLOSE_ASAP. A
// muted client (CLIENT REPLY OFF) would never stop it otherwise.
bool ReplyShouldStop(const CommandContext& context) {
  return (context.client.flags & kClientCloseAsap) || context.client.output().failed() ||
         context.reply.muted();
}

// SRANDMEMBER key count, count != 0 and the set not empty.
void RandomMembersWithCount(CommandContext& context, const SetValue& set, int64_t count) {
  MemoryAccountant& memory = Memory(context);
  Rng& rng = context.keyspace.rng();
  std::string scratch;
  const uint64_t size = set.size();
  // CASE 1: a negative count repeats members; a count of 1 is one draw.
  if (count < 0 || count == 1) {
    const uint64_t draws = count < 0 ? 0 - static_cast<uint64_t>(count) : 1;
    context.reply.ArrayHeader(draws);
    for (uint64_t i = 0; i < draws; i++) {
      if (ReplyShouldStop(context)) break;
      context.reply.Bulk(set.RandomMember(rng, &scratch));
    }
    return;
  }
  const auto wanted = static_cast<uint64_t>(count);
  // CASE 2: the whole set.
  if (wanted >= size) {
    context.reply.ArrayHeader(size);
    set.ForEach([&](std::string_view member) { context.reply.Bulk(member); });
    return;
  }
  SetValue* drawn = nullptr;
  if (wanted * kSubtractStrategyFactor > size) {
    // CASE 3: a copy, thinned by random removals down to the count.
    drawn = SetValue::Clone(set, memory);
    while (drawn != nullptr && drawn->size() > wanted) {
      const std::string member(drawn->RandomMember(rng, &scratch));
      drawn->Remove(member, memory);
    }
  } else {
    // CASE 4: random draws until `count` distinct ones were found.
    drawn = SetValue::Create(memory, NewSetSeed(context));
    while (drawn != nullptr && drawn->size() < wanted) {
      if (drawn->Add(set.RandomMember(rng, &scratch), SIZE_MAX, memory) ==
          SetValue::AddOutcome::kOutOfMemory) {
        SetValue::Destroy(drawn, memory);
        drawn = nullptr;
      }
    }
  }
  if (drawn == nullptr) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.ArrayHeader(drawn->size());
  drawn->ForEach([&](std::string_view member) { context.reply.Bulk(member); });
  SetValue::Destroy(drawn, memory);
}

// SRANDMEMBER key [count]
void CmdSrandmember(CommandContext& context) {
  if (context.argc() > 3) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  int64_t count = 0;
  // The count is read before the key, so its errors come first.
  if (context.argc() == 3 &&
      !ParseRangeArg(context, context.arg(2), -INT64_MAX, INT64_MAX, "", &count)) {
    return;
  }
  const SetValue* set = nullptr;
  if (!LookupSet(context, context.arg(1), &set)) return;
  if (context.argc() == 2) {
    if (set == nullptr) {
      context.reply.NullBulk();
      return;
    }
    std::string scratch;
    context.reply.Bulk(set->RandomMember(context.keyspace.rng(), &scratch));
    return;
  }
  if (set == nullptr || count == 0) {
    context.reply.EmptyArray();
    return;
  }
  RandomMembersWithCount(context, *set, count);
}

// SPOP key count, with count < the set's size (the set stays). Redis's cases 2 and 3: a small
// count is drawn and removed member by member; a large one keeps a random remainder as the new
// set (built aside, so a refusal changes nothing) and pops everything else.
void PopSome(CommandContext& context, Entry& entry, uint64_t count) {
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  MemoryAccountant& memory = Memory(context);
  Rng& rng = context.keyspace.rng();
  Propagation& propagation = context.keyspace.propagation();
  SetValue& set = MutableSetOf(entry);
  std::string scratch;
  const uint64_t remaining = set.size() - count;
  if (remaining * kMoveStrategyFactor > count) {
    context.reply.SetHeader(count);
    for (uint64_t i = 0; i < count; i++) {
      const std::string member(set.RandomMember(rng, &scratch));
      context.reply.Bulk(member);
      propagation.Add(db, {"SREM", key, member});
      set.Remove(member, memory);
    }
  } else {
    // The remainder as a new set, as Redis builds it (its encoding follows its members).
    SetValue* kept = SetValue::Create(memory, NewSetSeed(context));
    while (kept != nullptr && kept->size() < remaining) {
      if (kept->Add(set.RandomMember(rng, &scratch), IntsetMax(context), memory) ==
          SetValue::AddOutcome::kOutOfMemory) {
        SetValue::Destroy(kept, memory);
        kept = nullptr;
      }
    }
    if (kept == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    context.reply.SetHeader(count);
    set.ForEach([&](std::string_view member) {
      if (kept->Contains(member)) return;
      context.reply.Bulk(member);
      propagation.Add(db, {"SREM", key, member});
    });
    SetValue::Destroy(&set, memory);
    SetEntryObject(entry, kept);
  }
  SyncSetEncoding(entry);
  context.keyspace.KeyChanged(db, key, set_events::kSpop, count);
  context.PreventPropagation();
}

// SPOP key [count]
void CmdSpop(CommandContext& context) {
  if (context.argc() > 3) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  int64_t count = 0;
  if (context.argc() == 3 && !ParseRangeArg(context, context.arg(2), 0, INT64_MAX,
                                            "value is out of range, must be positive", &count)) {
    return;
  }
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = context.keyspace.LookupWrite(db, key, hash);
  if (entry != nullptr && entry->type() != ValueType::kSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  if (context.argc() == 2) {
    if (entry == nullptr) {
      context.reply.NullBulk();
      return;
    }
    SetValue& set = MutableSetOf(*entry);
    std::string member;
    std::string scratch;
    member = set.RandomMember(context.keyspace.rng(), &scratch);
    set.Remove(member, Memory(context));
    context.PropagateAs({"SREM", key, member});
    context.reply.Bulk(member);
    if (set.size() == 0) {
      context.keyspace.KeyChanged(db, key, set_events::kSpop, 1);
      context.keyspace.DeleteEmptied(db, key, hash);
    } else {
      context.keyspace.KeyChanged(db, key, set_events::kSpop);
    }
    return;
  }
  if (entry == nullptr || count == 0) {
    context.reply.SetHeader(0);
    return;
  }
  const uint64_t size = MutableSetOf(*entry).size();
  if (static_cast<uint64_t>(count) >= size) {
    // CASE 1: the whole set, and the key goes (propagated as DEL).
    ReplySetMembers(context, MutableSetOf(*entry));
    context.keyspace.KeyChanged(db, key, set_events::kSpop, size);
    context.keyspace.DeleteEmptied(db, key, hash);
    context.PropagateAs({"DEL", key});
    return;
  }
  PopSome(context, *entry, static_cast<uint64_t>(count));
}

constexpr CommandDef kSetRandomCommands[] = {
    {.name = "srandmember",
     .arity = -2,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the absolute "
                   "value of the passed count.",
     .summary = "Get one or multiple random members from a set",
     .args = "key:key#0 ?count:integer@2.6.0",
     .handler = CmdSrandmember,
     .history = "2.6.0 Added the optional `count` argument.",
     .tips = "nondeterministic_output"},
    {.name = "spop",
     .arity = -2,
     .flags = "write fast",
     .acl = "@set",
     .keys = "RW access delete: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the value of the "
                   "passed count.",
     .summary = "Remove and return one or multiple random members from a set",
     .args = "key:key#0 ?count:integer@3.2.0",
     .handler = CmdSpop,
     .history = "3.2.0 Added the `count` argument.",
     .tips = "nondeterministic_output"},
};

}  // namespace

void RegisterSetRandomCommands(Registry& registry) { registry.Add(kSetRandomCommands); }

}  // namespace keel
