// Set algebra: SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF and SDIFFSTORE, as
// t_set.c's sinterGenericCommand and sunionDiffGenericCommand compute them. A missing key is an
// empty set; any key of another type is WRONGTYPE, whichever position it has.
//
// The STORE forms build the result as Redis does (an intset that its members convert, with the
// same algorithm, so the result has Redis's encoding: SDIFF's second algorithm adds the first set
// whole and then removes, which can leave a hashtable that the first would have kept an intset),
// then replace the destination ("new" when created, then the family's event), or delete it when
// the result is empty ("del").
#include <algorithm>
#include <vector>

#include "engine/commands/cmd_set_common.h"

namespace keel {
namespace {

// The sets named by args[first..first+count), in order: false after replying WRONGTYPE. A
// missing key is a null entry.
bool LookupSets(CommandContext& context, size_t first, size_t count,
                std::vector<const SetValue*>* sets) {
  sets->clear();
  sets->reserve(count);
  bool ok = true;
  for (size_t i = first; i < first + count; i++) {
    const SetValue* set = nullptr;
    // Every key is looked up (hits, misses and lazy expiry as Redis counts them); the first
    // WRONGTYPE answers.
    const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(i));
    if (entry != nullptr && entry->type() != ValueType::kSet) {
      ok = false;
      break;
    }
    if (entry != nullptr) set = &SetOf(*entry);
    sets->push_back(set);
  }
  if (!ok) context.reply.Error(errors::kWrongType);
  return ok;
}

// Whether `member` (of sets[0]) is in every other set.
bool InAll(const std::vector<const SetValue*>& sets, std::string_view member) {
  for (size_t j = 1; j < sets.size(); j++) {
    if (sets[j] != sets[0] && !sets[j]->Contains(member)) return false;
  }
  return true;
}

// The destination of a STORE form whose result is empty: deleted if it exists.
void DeleteDestination(CommandContext& context, std::string_view destination) {
  const int db = context.db_index();
  context.keyspace.Delete(db, destination, context.keyspace.Hash(db, destination), events::kDel);
  context.reply.Integer(0);
}

enum class InterMode : uint8_t { kReply, kCardinality, kStore };

// sinterGenericCommand over args[first..first+count); `limit` (kCardinality) 0 for none.
void Intersect(CommandContext& context, size_t first, size_t count, InterMode mode,
               uint64_t limit) {
  std::vector<const SetValue*> sets;
  if (!LookupSets(context, first, count, &sets)) return;
  const bool empty = std::find(sets.begin(), sets.end(), nullptr) != sets.end();
  if (empty) {
    if (mode == InterMode::kStore) {
      DeleteDestination(context, context.arg(1));
    } else if (mode == InterMode::kCardinality) {
      context.reply.Integer(0);
    } else {
      context.reply.SetHeader(0);
    }
    return;
  }
  // Smallest first: its members are the candidates.
  std::stable_sort(sets.begin(), sets.end(),
                   [](const SetValue* a, const SetValue* b) { return a->size() < b->size(); });
  if (mode == InterMode::kCardinality) {
    uint64_t cardinality = 0;
    // ForEach cannot stop early; past the limit the members are skipped unchecked.
    sets[0]->ForEach([&](std::string_view member) {
      if (limit != 0 && cardinality >= limit) return;
      if (InAll(sets, member)) cardinality++;
    });
    context.reply.Integer(static_cast<int64_t>(cardinality));
    return;
  }
  if (mode == InterMode::kReply) {
    // Two walks, one to count and one to reply, so that no list of members is kept.
    size_t cardinality = 0;
    sets[0]->ForEach([&](std::string_view member) { cardinality += InAll(sets, member) ? 1 : 0; });
    context.reply.SetHeader(cardinality);
    sets[0]->ForEach([&](std::string_view member) {
      if (InAll(sets, member)) context.reply.Bulk(member);
    });
    return;
  }
  MemoryAccountant& memory = Memory(context);
  SetValue* result = SetValue::Create(memory, NewSetSeed(context));
  bool refused = result == nullptr;
  if (!refused) {
    const size_t intset_max = IntsetMax(context);
    sets[0]->ForEach([&](std::string_view member) {
      if (refused || !InAll(sets, member)) return;
      refused = result->Add(member, intset_max, memory) == SetValue::AddOutcome::kOutOfMemory;
    });
  }
  if (refused) {
    SetValue::Destroy(result, memory);
    context.reply.Error(errors::kOom);
    return;
  }
  if (result->size() == 0) {
    SetValue::Destroy(result, memory);
    DeleteDestination(context, context.arg(1));
    return;
  }
  const auto size = static_cast<int64_t>(result->size());
  if (StoreSet(context, context.arg(1), result, set_events::kSinterstore)) {
    context.reply.Integer(size);
  }
}

enum class SetOp : uint8_t { kUnion, kDiff };

// sunionDiffGenericCommand's result over args[first..first+count), or nullptr after replying
// with an error.
SetValue* UnionOrDiff(CommandContext& context, size_t first, size_t count, SetOp op) {
  std::vector<const SetValue*> sets;
  if (!LookupSets(context, first, count, &sets)) return nullptr;
  bool same_set = false;
  for (size_t j = 1; j < sets.size(); j++) same_set |= sets[j] != nullptr && sets[j] == sets[0];
  // Redis's choice of DIFF algorithm: 1 walks the first set checking the others (O(N*M)), 2
  // adds the first set and removes every other's members (O(total)); 1 gets a factor of two.
  bool first_algorithm = true;
  if (op == SetOp::kDiff && sets[0] != nullptr && !same_set) {
    uint64_t one_work = 0;
    uint64_t two_work = 0;
    for (const SetValue* set : sets) {
      if (set == nullptr) continue;
      one_work += sets[0]->size();
      two_work += set->size();
    }
    first_algorithm = one_work / 2 <= two_work;
    if (first_algorithm && sets.size() > 1) {
      // Largest first, so that a shared member is found early (nulls are empty sets).
      std::stable_sort(sets.begin() + 1, sets.end(), [](const SetValue* a, const SetValue* b) {
        return (a == nullptr ? 0 : a->size()) > (b == nullptr ? 0 : b->size());
      });
    }
  }
  MemoryAccountant& memory = Memory(context);
  const size_t intset_max = IntsetMax(context);
  SetValue* result = SetValue::Create(memory, NewSetSeed(context));
  bool refused = result == nullptr;
  auto add = [&](std::string_view member) {
    if (!refused) {
      refused = result->Add(member, intset_max, memory) == SetValue::AddOutcome::kOutOfMemory;
    }
  };
  if (refused) {
  } else if (op == SetOp::kUnion) {
    for (const SetValue* set : sets) {
      if (set != nullptr) set->ForEach(add);
    }
  } else if (same_set || sets[0] == nullptr) {
    // A set minus itself, or nothing minus anything: empty.
  } else if (first_algorithm) {
    sets[0]->ForEach([&](std::string_view member) {
      for (size_t j = 1; j < sets.size(); j++) {
        if (sets[j] != nullptr && sets[j]->Contains(member)) return;
      }
      add(member);
    });
  } else {
    sets[0]->ForEach(add);
    for (size_t j = 1; j < sets.size() && !refused && result->size() > 0; j++) {
      if (sets[j] == nullptr) continue;
      sets[j]->ForEach([&](std::string_view member) { result->Remove(member, memory); });
    }
  }
  if (refused) {
    SetValue::Destroy(result, memory);
    context.reply.Error(errors::kOom);
    return nullptr;
  }
  return result;
}

void ReplyUnionOrDiff(CommandContext& context, SetOp op) {
  SetValue* result = UnionOrDiff(context, 1, context.argc() - 1, op);
  if (result == nullptr) return;
  ReplySetMembers(context, *result);
  SetValue::Destroy(result, Memory(context));
}

void StoreUnionOrDiff(CommandContext& context, SetOp op) {
  SetValue* result = UnionOrDiff(context, 2, context.argc() - 2, op);
  if (result == nullptr) return;
  if (result->size() == 0) {
    SetValue::Destroy(result, Memory(context));
    DeleteDestination(context, context.arg(1));
    return;
  }
  const auto size = static_cast<int64_t>(result->size());
  if (StoreSet(context, context.arg(1), result,
               op == SetOp::kUnion ? set_events::kSunionstore : set_events::kSdiffstore)) {
    context.reply.Integer(size);
  }
}

void CmdSinter(CommandContext& context) {
  Intersect(context, 1, context.argc() - 1, InterMode::kReply, 0);
}

void CmdSinterstore(CommandContext& context) {
  Intersect(context, 2, context.argc() - 2, InterMode::kStore, 0);
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void CmdSintercard(CommandContext& context) {
  int64_t key_count = 0;
  if (!ParseRangeArg(context, context.arg(1), 1, INT64_MAX, "numkeys should be greater than 0",
                     &key_count)) {
    return;
  }
  if (key_count > static_cast<int64_t>(context.argc()) - 2) {
    context.reply.Error("ERR Number of keys can't be greater than number of args");
    return;
  }
  int64_t limit = 0;
  for (size_t i = 2 + static_cast<size_t>(key_count); i < context.argc(); i++) {
    if (OptionIs(context.arg(i), "limit") && i + 1 < context.argc()) {
      if (!ParseRangeArg(context, context.arg(++i), 0, INT64_MAX, "LIMIT can't be negative",
                         &limit)) {
        return;
      }
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  Intersect(context, 2, static_cast<size_t>(key_count), InterMode::kCardinality,
            static_cast<uint64_t>(limit));
}

void CmdSunion(CommandContext& context) { ReplyUnionOrDiff(context, SetOp::kUnion); }
void CmdSunionstore(CommandContext& context) { StoreUnionOrDiff(context, SetOp::kUnion); }
void CmdSdiff(CommandContext& context) { ReplyUnionOrDiff(context, SetOp::kDiff); }
void CmdSdiffstore(CommandContext& context) { StoreUnionOrDiff(context, SetOp::kDiff); }

// The STORE forms' key specs: the destination, then the sources.
constexpr std::string_view kStoreKeysUpdate =
    "RW update: index 1 range 0 1 0;RO access: index 2 range -1 1 0";
constexpr std::string_view kStoreKeysOverwrite =
    "OW update: index 1 range 0 1 0;RO access: index 2 range -1 1 0";

constexpr CommandDef kSetAlgebraCommands[] = {
    {.name = "sinter",
     .arity = -2,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 range -1 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is "
                   "the number of sets.",
     .summary = "Intersect multiple sets",
     .args = "*key:key#0",
     .handler = CmdSinter,
     .tips = "nondeterministic_output_order"},
    {.name = "sintercard",
     .arity = -3,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 keynum 0 1 1",
     .group = "set",
     .since = "7.0.0",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is "
                   "the number of sets.",
     .summary = "Intersect multiple sets and return the cardinality of the result",
     .args = "numkeys:integer *key:key#0 ?limit:integer=LIMIT",
     .handler = CmdSintercard},
    {.name = "sinterstore",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@set",
     .keys = kStoreKeysUpdate,
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is "
                   "the number of sets.",
     .summary = "Intersect multiple sets and store the resulting set in a key",
     .args = "destination:key#0 *key:key#1",
     .handler = CmdSinterstore},
    {.name = "sunion",
     .arity = -2,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 range -1 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .summary = "Add multiple sets",
     .args = "*key:key#0",
     .handler = CmdSunion,
     .tips = "nondeterministic_output_order"},
    {.name = "sunionstore",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@set",
     .keys = kStoreKeysOverwrite,
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .summary = "Add multiple sets and store the resulting set in a key",
     .args = "destination:key#0 *key:key#1",
     .handler = CmdSunionstore},
    {.name = "sdiff",
     .arity = -2,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 range -1 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .summary = "Subtract multiple sets",
     .args = "*key:key#0",
     .handler = CmdSdiff,
     .tips = "nondeterministic_output_order"},
    {.name = "sdiffstore",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@set",
     .keys = kStoreKeysOverwrite,
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .summary = "Subtract multiple sets and store the resulting set in a key",
     .args = "destination:key#0 *key:key#1",
     .handler = CmdSdiffstore},
};

}  // namespace

void RegisterSetAlgebraCommands(Registry& registry) { registry.Add(kSetAlgebraCommands); }

}  // namespace keel
