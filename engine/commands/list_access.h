// What the list commands (cmd_list.cc, cmd_list_move.cc) share: finding a key's list, creating
// one, popping and replying with a range, the bookkeeping after elements leave a list, and the
// list family's keyspace events (named and classed as Redis 7.0 announces them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/types/list.h"

namespace keel {

namespace list_events {
inline constexpr KeyEvent kLpush{kNotifyList, "lpush"};
inline constexpr KeyEvent kRpush{kNotifyList, "rpush"};
inline constexpr KeyEvent kLpop{kNotifyList, "lpop"};
inline constexpr KeyEvent kRpop{kNotifyList, "rpop"};
inline constexpr KeyEvent kLinsert{kNotifyList, "linsert"};
inline constexpr KeyEvent kLset{kNotifyList, "lset"};
inline constexpr KeyEvent kLrem{kNotifyList, "lrem"};
inline constexpr KeyEvent kLtrim{kNotifyList, "ltrim"};
}  // namespace list_events

inline List* ListOf(Entry* entry) { return static_cast<List*>(EntryObject(*entry)); }
inline const List* ListOf(const Entry* entry) {
  return static_cast<const List*>(EntryObject(*entry));
}

// The write lookup of a list key: `*entry` is its entry or nullptr when missing. False after
// replying WRONGTYPE for a key of another type.
bool LookupListForWrite(CommandContext& context, std::string_view key, uint64_t hash,
                        Entry** entry);
// The same for reads (counts hits and misses).
bool LookupListForRead(CommandContext& context, std::string_view key, const Entry** entry);

// A new list for a new key, with the list-max-listpack-size configured now (nullptr when
// memory is refused).
List* NewList(CommandContext& context);

// Stores the new list `list` as `key` (announcing "new" then `event`, counting `changes`).
// False after replying with the OOM error; the list is then destroyed.
bool StoreNewList(CommandContext& context, std::string_view key, uint64_t hash, List* list,
                  KeyEvent event, uint64_t changes);

// Replies with elements [start, start + count) of `list`, reversed (from the last to the first)
// when `reverse`: LRANGE, and the pops with a count.
void ReplyRange(CommandContext& context, const List& list, size_t start, size_t count,
                bool reverse);

// After `count` elements left the list `key` from its head (or tail): announces "lpop" (or
// "rpop"), counts `count` changes, and deletes the key when the list is empty ("del").
void ElementsRemoved(CommandContext& context, std::string_view key, uint64_t hash, List* list,
                     bool head, size_t count);

// Redis's LEFT / RIGHT argument (head / tail). False after the syntax error.
bool ParseListEnd(CommandContext& context, std::string_view arg, bool* head);

// LMOVE's work on its arguments 1 (source) and 2 (destination), with its replies: the element
// moved, a null when the source is missing, WRONGTYPE, OOM (cmd_list_move.cc).
void MoveListEnd(CommandContext& context, bool from_head, bool to_head);

// LMPOP's and BLMPOP's arguments from `numkeys_index` on: numkeys key... LEFT|RIGHT [COUNT n].
struct MpopArgs {
  size_t first_key = 0;
  size_t end_key = 0;  // one past the last key: where LEFT|RIGHT is
  bool head = false;
  size_t count = 1;
};
// False after replying with the error (Redis's texts and order).
bool ParseMpopArgs(CommandContext& context, size_t numkeys_index, MpopArgs* parsed);
// Pops up to `count` elements from the list `entry` of `key` at its head (or tail), replying
// [key, [elements]] and propagating the LPOP or RPOP with the count taken, as Redis rewrites
// LMPOP and BLMPOP.
void PopRangeWithKey(CommandContext& context, std::string_view key, uint64_t hash, Entry* entry,
                     bool head, size_t count);

}  // namespace keel
