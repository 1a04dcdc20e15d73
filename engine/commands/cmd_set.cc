// Set commands: SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, SMOVE and SSCAN. The random
// draws (SRANDMEMBER, SPOP) are in cmd_set_random.cc, the algebra (SINTER, SUNION, SDIFF and
// their STORE and CARD forms) in cmd_set_algebra.cc. The structure is engine/db/types/set.h.
//
// Writes follow Redis 7.0's t_set.c: the dirty counter grows by the members added or removed,
// events are "sadd"/"srem" (class s), and a set emptied by a removal is deleted ("del"). A
// refused allocation fails the command with the OOM error and leaves every key as it was.
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/cmd_set_common.h"

namespace keel {

bool StoreSet(CommandContext& context, std::string_view key, SetValue* set, KeyEvent event) {
  const int db = context.db_index();
  const uint64_t hash = context.keyspace.Hash(db, key);
  (void)context.keyspace.LookupWrite(db, key, hash);
  if (context.keyspace.SetObject(db, key, hash, ValueType::kSet, SetEncodingOf(*set), set,
                                 kNoExpiry, event, 1) == Database::SetOutcome::kOutOfMemory) {
    SetValue::Destroy(set, Memory(context));
    context.reply.Error(errors::kOom);
    return false;
  }
  return true;
}

void ReplySetMembers(CommandContext& context, const SetValue& set) {
  context.reply.SetHeader(set.size());
  set.ForEach([&](std::string_view member) { context.reply.Bulk(member); });
}

bool ParseRangeArg(CommandContext& context, std::string_view text, int64_t min, int64_t max,
                   std::string_view message, int64_t* value) {
  if (!ParseStrictInt64(text, value)) {
    context.reply.Error(message.empty() ? errors::kNotInteger : "ERR " + std::string(message));
    return false;
  }
  if (*value < min || *value > max) {
    context.reply.Error(message.empty() ? "ERR value is out of range, value must between " +
                                              std::to_string(min) + " and " + std::to_string(max)
                                        : "ERR " + std::string(message));
    return false;
  }
  return true;
}

namespace {

// Adds args[2..] to `set`. All or nothing: on refused memory the members added so far are taken
// out again and false is returned.
bool AddAll(CommandContext& context, SetValue& set, size_t* added) {
  MemoryAccountant& memory = Memory(context);
  const size_t intset_max = IntsetMax(context);
  std::vector<size_t> added_at;
  for (size_t i = 2; i < context.argc(); i++) {
    switch (set.Add(context.arg(i), intset_max, memory)) {
      case SetValue::AddOutcome::kAdded:
        added_at.push_back(i);
        break;
      case SetValue::AddOutcome::kPresent:
        break;
      case SetValue::AddOutcome::kOutOfMemory:
        for (size_t at : added_at) set.Remove(context.arg(at), memory);
        return false;
    }
  }
  *added = added_at.size();
  return true;
}

// Whether adding args[2..] to the intset `set` converts it (a new non-integer member, or more
// members than set-max-intset-entries).
bool AddConverts(CommandContext& context, const SetValue& set) {
  size_t new_members = 0;
  for (size_t i = 2; i < context.argc(); i++) {
    int64_t ignored = 0;
    const std::string_view member = context.arg(i);
    if (set.Contains(member)) continue;
    if (!ParseStrictInt64(member, &ignored)) return true;
    new_members++;
  }
  return set.size() + new_members > IntsetMax(context);
}

// SADD key member [member ...]
void CmdSadd(CommandContext& context) {
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  MemoryAccountant& memory = Memory(context);
  Entry* entry = context.keyspace.LookupWrite(db, key, hash);
  if (entry != nullptr && entry->type() != ValueType::kSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  size_t added = 0;
  if (entry == nullptr) {
    // Redis's setTypeCreate: an intset, which the first non-integer member converts.
    SetValue* set = SetValue::Create(memory, NewSetSeed(context));
    if (set == nullptr || !AddAll(context, *set, &added)) {
      SetValue::Destroy(set, memory);
      context.reply.Error(errors::kOom);
      return;
    }
    if (context.keyspace.SetObject(db, key, hash, ValueType::kSet, SetEncodingOf(*set), set,
                                   kNoExpiry, set_events::kSadd,
                                   added) == Database::SetOutcome::kOutOfMemory) {
      SetValue::Destroy(set, memory);
      context.reply.Error(errors::kOom);
      return;
    }
    context.reply.Integer(static_cast<int64_t>(added));
    return;
  }
  SetValue& set = MutableSetOf(*entry);
  if (set.is_intset() && AddConverts(context, set)) {
    // The conversion is built aside (an intset is small), so a refusal leaves even the encoding
    // as it was.
    SetValue* converted = SetValue::Clone(set, memory);
    if (converted == nullptr || !AddAll(context, *converted, &added)) {
      SetValue::Destroy(converted, memory);
      context.reply.Error(errors::kOom);
      return;
    }
    SetValue::Destroy(&set, memory);
    SetEntryObject(*entry, converted);
  } else if (!AddAll(context, set, &added)) {
    context.reply.Error(errors::kOom);
    return;
  }
  SyncSetEncoding(*entry);
  if (added > 0) context.keyspace.KeyChanged(db, key, set_events::kSadd, added);
  context.reply.Integer(static_cast<int64_t>(added));
}

// SREM key member [member ...]: stops at the member that empties the set, as Redis does.
void CmdSrem(CommandContext& context) {
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = context.keyspace.LookupWrite(db, key, hash);
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  if (entry->type() != ValueType::kSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  SetValue& set = MutableSetOf(*entry);
  size_t deleted = 0;
  for (size_t i = 2; i < context.argc() && set.size() > 0; i++) {
    if (set.Remove(context.arg(i), Memory(context))) deleted++;
  }
  if (deleted > 0) {
    if (set.size() == 0) {
      // Every removal is counted; the deletion of the emptied set is not.
      context.keyspace.KeyChanged(db, key, set_events::kSrem, deleted);
      context.keyspace.DeleteEmptied(db, key, hash);
    } else {
      context.keyspace.KeyChanged(db, key, set_events::kSrem, deleted);
    }
  }
  context.reply.Integer(static_cast<int64_t>(deleted));
}

void CmdScard(CommandContext& context) {
  const SetValue* set = nullptr;
  if (!LookupSet(context, context.arg(1), &set)) return;
  context.reply.Integer(set == nullptr ? 0 : static_cast<int64_t>(set->size()));
}

void CmdSismember(CommandContext& context) {
  const SetValue* set = nullptr;
  if (!LookupSet(context, context.arg(1), &set)) return;
  context.reply.Integer(set != nullptr && set->Contains(context.arg(2)) ? 1 : 0);
}

// SMISMEMBER: a missing key is an empty set (zeros), not an empty reply.
void CmdSmismember(CommandContext& context) {
  const SetValue* set = nullptr;
  if (!LookupSet(context, context.arg(1), &set)) return;
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    context.reply.Integer(set != nullptr && set->Contains(context.arg(i)) ? 1 : 0);
  }
}

// SMEMBERS is SINTER of one key in Redis 7.0: a set reply, empty for a missing key.
void CmdSmembers(CommandContext& context) {
  const SetValue* set = nullptr;
  if (!LookupSet(context, context.arg(1), &set)) return;
  if (set == nullptr) {
    context.reply.SetHeader(0);
    return;
  }
  ReplySetMembers(context, *set);
}

// SMOVE source destination member. Both keys are looked up (and reclaimed if expired) before
// anything else, as Redis does. The destination is written first, quietly, so that a refusal
// changes nothing; the events are then announced in Redis's order: srem (and del) on the
// source, sadd (after new) on the destination.
void CmdSmove(CommandContext& context) {
  const int db = context.db_index();
  const std::string_view source = context.arg(1);
  const std::string_view destination = context.arg(2);
  const std::string_view member = context.arg(3);
  const uint64_t source_hash = context.keyspace.Hash(db, source);
  const uint64_t destination_hash = context.keyspace.Hash(db, destination);
  MemoryAccountant& memory = Memory(context);
  Entry* source_entry = context.keyspace.LookupWrite(db, source, source_hash);
  Entry* destination_entry = context.keyspace.LookupWrite(db, destination, destination_hash);
  if (source_entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  if (source_entry->type() != ValueType::kSet ||
      (destination_entry != nullptr && destination_entry->type() != ValueType::kSet)) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  SetValue& source_set = MutableSetOf(*source_entry);
  if (source_entry == destination_entry) {
    context.reply.Integer(source_set.Contains(member) ? 1 : 0);
    return;
  }
  if (!source_set.Contains(member)) {
    context.reply.Integer(0);
    return;
  }
  bool added = false;
  bool created = false;
  {
    Keyspace::QuietWrites quiet(context.keyspace);
    if (destination_entry == nullptr) {
      SetValue* set = SetValue::Create(memory, NewSetSeed(context));
      if (set == nullptr ||
          set->Add(member, IntsetMax(context), memory) == SetValue::AddOutcome::kOutOfMemory) {
        SetValue::Destroy(set, memory);
        context.reply.Error(errors::kOom);
        return;
      }
      if (context.keyspace.SetObject(db, destination, destination_hash, ValueType::kSet,
                                     SetEncodingOf(*set), set, kNoExpiry, set_events::kSadd,
                                     1) == Database::SetOutcome::kOutOfMemory) {
        SetValue::Destroy(set, memory);
        context.reply.Error(errors::kOom);
        return;
      }
      added = created = true;
    } else {
      switch (MutableSetOf(*destination_entry).Add(member, IntsetMax(context), memory)) {
        case SetValue::AddOutcome::kOutOfMemory:
          context.reply.Error(errors::kOom);
          return;
        case SetValue::AddOutcome::kAdded:
          added = true;
          SyncSetEncoding(*destination_entry);
          context.keyspace.KeyChanged(db, destination, set_events::kSadd);
          break;
        case SetValue::AddOutcome::kPresent:
          break;
      }
    }
    // `member` is an argument, not a view into the set, so the removal may free what it likes.
    source_set.Remove(member, memory);
    context.keyspace.KeyChanged(db, source, set_events::kSrem, source_set.size() == 0 ? 0 : 1);
  }
  const bool source_emptied = source_set.size() == 0;
  context.keyspace.AnnounceWrite(db, source, set_events::kSrem, false);
  if (source_emptied) {
    context.keyspace.AnnounceWrite(db, source, events::kDel, false);
    context.keyspace.Delete(db, source, source_hash, events::kNone);
  }
  if (added) context.keyspace.AnnounceWrite(db, destination, set_events::kSadd, created);
  context.reply.Integer(1);
}

// --- SSCAN ------------------------------------------------------------------------------------

// SSCAN key cursor [MATCH pattern] [COUNT count]. A missing key answers an empty page before the
// options are read; TYPE is SCAN's only. An intset, and a set small enough to hold no table,
// come back whole with cursor 0; a table is walked until COUNT members were collected (before
// MATCH filters them), its end, or 10 * COUNT steps, as scanGenericCommand walks a dict.
void CmdSscan(CommandContext& context) {
  uint64_t cursor = 0;
  if (!ParseScanCursor(context.arg(2), &cursor)) {
    context.reply.Error("ERR invalid cursor");
    return;
  }
  const SetValue* set = nullptr;
  if (!LookupSet(context, context.arg(1), &set)) return;
  if (set == nullptr) {
    context.reply.ArrayHeader(2);
    context.reply.Bulk("0");
    context.reply.ArrayHeader(0);
    return;
  }
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  for (size_t i = 3; i < context.argc(); i += 2) {
    const std::string_view option = context.arg(i);
    const bool has_value = i + 1 < context.argc();
    if (OptionIs(option, "count") && has_value) {
      if (!ParseStrictInt64(context.arg(i + 1), &count)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 1) {
        context.reply.Error(errors::kSyntax);
        return;
      }
    } else if (OptionIs(option, "match") && has_value) {
      pattern = context.arg(i + 1);
      use_pattern = pattern != "*";
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  // Views of the members: the set does not change while the command runs, and an intset's
  // members (formatted into a buffer that each visit reuses) are copied.
  std::vector<std::string_view> members;
  std::vector<std::string> texts;
  auto collect = [&](std::string_view member) {
    if (use_pattern && !GlobMatch(pattern, member)) return;
    if (set->is_intset()) {
      texts.emplace_back(member);
    } else {
      members.push_back(member);
    }
  };
  size_t collected = 0;
  auto visit = [&](std::string_view member) {
    collected++;
    collect(member);
  };
  uint64_t position = CursorPosition(cursor);
  if (set->is_intset()) {
    position = set->Scan(position, 1, visit);
  } else {
    int64_t steps_left = count * 10;
    do {
      position = set->Scan(position, 1, visit);
    } while (position != 0 && steps_left-- > 0 && collected < static_cast<uint64_t>(count));
  }
  char text[kInt64TextMax];
  context.reply.ArrayHeader(2);
  context.reply.Bulk(std::string_view(text, FormatUint64(position >> kCursorShift, text)));
  context.reply.ArrayHeader(members.size() + texts.size());
  for (std::string_view member : members) context.reply.Bulk(member);
  for (const std::string& member : texts) context.reply.Bulk(member);
}

constexpr CommandDef kSetCommands[] = {
    {.name = "sadd",
     .arity = -3,
     .flags = "write denyoom fast",
     .acl = "@set",
     .keys = "RW insert: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is "
                   "called with multiple arguments.",
     .summary = "Add one or more members to a set",
     .args = "key:key#0 *member",
     .handler = CmdSadd,
     .history = "2.4.0 Accepts multiple `member` arguments."},
    {.name = "srem",
     .arity = -3,
     .flags = "write fast",
     .acl = "@set",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N) where N is the number of members to be removed.",
     .summary = "Remove one or more members from a set",
     .args = "key:key#0 *member",
     .handler = CmdSrem,
     .history = "2.4.0 Accepts multiple `member` arguments."},
    {.name = "scard",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@set",
     .keys = "RO: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Get the number of members in a set",
     .args = "key:key#0",
     .handler = CmdScard},
    {.name = "sismember",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@set",
     .keys = "RO: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Determine if a given value is a member of a set",
     .args = "key:key#0 member",
     .handler = CmdSismember},
    {.name = "smismember",
     .arity = -3,
     .flags = "readonly fast",
     .acl = "@set",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "set",
     .since = "6.2.0",
     .complexity = "O(N) where N is the number of elements being checked for membership",
     .summary = "Returns the membership associated with the given elements for a set",
     .args = "key:key#0 *member",
     .handler = CmdSmismember},
    {.name = "smembers",
     .arity = 2,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(N) where N is the set cardinality.",
     .summary = "Get all the members in a set",
     .args = "key:key#0",
     .handler = CmdSmembers,
     .tips = "nondeterministic_output_order"},
    {.name = "smove",
     .arity = 4,
     .flags = "write fast",
     .acl = "@set",
     .keys = "RW access delete: index 1 range 0 1 0;RW insert: index 2 range 0 1 0",
     .group = "set",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Move a member from one set to another",
     .args = "source:key#0 destination:key#1 member",
     .handler = CmdSmove},
    {.name = "sscan",
     .arity = -3,
     .flags = "readonly",
     .acl = "@set",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "set",
     .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command "
                   "calls for the cursor to return back to 0. N is the number of elements inside "
                   "the collection..",
     .summary = "Incrementally iterate Set elements",
     .args = "key:key#0 cursor:integer ?pattern:pattern=MATCH ?count:integer=COUNT",
     .handler = CmdSscan,
     .tips = "nondeterministic_output"},
};

}  // namespace

void RegisterSetCommands(Registry& registry) {
  registry.Add(kSetCommands);
  RegisterSetRandomCommands(registry);
  RegisterSetAlgebraCommands(registry);
}

}  // namespace keel
