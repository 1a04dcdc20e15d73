// What the set family's files share (cmd_set.cc, cmd_set_random.cc, cmd_set_algebra.cc): the
// set events, the lookups that answer WRONGTYPE, and the write-path steps every set write ends
// with.
#pragma once

#include <cstddef>
#include <string_view>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/set.h"
#include "engine/db/types/set_ops.h"

namespace keel {

// The set family's keyspace events, as t_set.c names them (class 's').
namespace set_events {
inline constexpr KeyEvent kSadd{kNotifySet, "sadd"};
inline constexpr KeyEvent kSrem{kNotifySet, "srem"};
inline constexpr KeyEvent kSpop{kNotifySet, "spop"};
inline constexpr KeyEvent kSinterstore{kNotifySet, "sinterstore"};
inline constexpr KeyEvent kSunionstore{kNotifySet, "sunionstore"};
inline constexpr KeyEvent kSdiffstore{kNotifySet, "sdiffstore"};
}  // namespace set_events

inline const SetValue& SetOf(const Entry& entry) {
  return *static_cast<const SetValue*>(EntryObject(entry));
}
inline SetValue& MutableSetOf(Entry& entry) { return *static_cast<SetValue*>(EntryObject(entry)); }

// The family's two reaches beyond the keyspace, in one place each: the memory its sets are
// allocated from, and set-max-intset-entries.
inline MemoryAccountant& Memory(CommandContext& context) { return context.memory(); }
inline size_t IntsetMax(const CommandContext& context) {
  return static_cast<size_t>(context.config().set_max_intset_entries);
}

// A new set's hash seed: drawn from the engine's generator, so that a simulation replays it and
// no two sets share a member order (inserting one set's members in its hash order into another
// with the same seed would crowd the new table's first slots).
inline uint64_t NewSetSeed(CommandContext& context) { return context.keyspace.rng().Next(); }

// A read lookup of `key` as a set: false after replying WRONGTYPE; *set is null for a missing key.
inline bool LookupSet(CommandContext& context, std::string_view key, const SetValue** set) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), key);
  *set = nullptr;
  if (entry == nullptr) return true;
  if (entry->type() != ValueType::kSet) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  *set = &SetOf(*entry);
  return true;
}

// After a set's members changed in place: the entry's encoding follows the set's (an intset
// may have become a hashtable).
inline void SyncSetEncoding(Entry& entry) {
  entry.set_encoding(SetEncodingOf(MutableSetOf(entry)));
}

// Stores `set` (owned by the key on success) as `key`, replacing what it held, announced as
// `event`: SINTERSTORE and friends, Redis's setKey. An expired value is reclaimed first, as
// setKey's lookup does. On refused memory replies with the OOM error, frees `set` and returns
// false.
bool StoreSet(CommandContext& context, std::string_view key, SetValue* set, KeyEvent event);

// Replies with every member of `set` as a RESP3 set (an array in RESP2).
void ReplySetMembers(CommandContext& context, const SetValue& set);

// Redis's getRangeLongFromObjectOrReply(min, max) with its message (`message` empty: Redis's
// own texts). False after replying with the error.
bool ParseRangeArg(CommandContext& context, std::string_view text, int64_t min, int64_t max,
                   std::string_view message, int64_t* value);

void RegisterSetRandomCommands(Registry& registry);   // SRANDMEMBER, SPOP
void RegisterSetAlgebraCommands(Registry& registry);  // SINTER*, SUNION*, SDIFF*

}  // namespace keel
