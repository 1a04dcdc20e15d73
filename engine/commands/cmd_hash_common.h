// What the hash family's files share (cmd_hash.cc, cmd_hash_random.cc): the hash events, the
// lookups that answer WRONGTYPE, and the family's reach into the configuration.
#pragma once

#include <cstddef>
#include <string_view>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/hash_ops.h"

namespace keel {

// The hash family's keyspace events, as t_hash.c names them (class 'h').
namespace hash_events {
inline constexpr KeyEvent kHset{kNotifyHash, "hset"};
inline constexpr KeyEvent kHdel{kNotifyHash, "hdel"};
inline constexpr KeyEvent kHincrby{kNotifyHash, "hincrby"};
inline constexpr KeyEvent kHincrbyfloat{kNotifyHash, "hincrbyfloat"};
inline constexpr KeyEvent kHexpire{kNotifyHash, "hexpire"};
inline constexpr KeyEvent kHpersist{kNotifyHash, "hpersist"};
}  // namespace hash_events

inline const HashValue& HashOf(const Entry& entry) {
  return *static_cast<const HashValue*>(EntryObject(entry));
}
inline HashValue& MutableHashOf(Entry& entry) {
  return *static_cast<HashValue*>(EntryObject(entry));
}

// hash-max-listpack-entries and hash-max-listpack-value, as the commands read them.
inline HashLimits HashLimitsOf(const CommandContext& context) {
  return {.listpack_entries = static_cast<size_t>(context.config().hash_max_listpack_entries),
          .listpack_value = static_cast<size_t>(context.config().hash_max_listpack_value)};
}

// A new hash's seed, drawn from the engine's generator (so that a simulation replays it).
inline uint64_t NewHashSeed(CommandContext& context) { return context.keyspace.rng().Next(); }

// A read lookup of `key` as a hash: false after replying WRONGTYPE; *hash is null when missing.
inline bool LookupHash(CommandContext& context, std::string_view key, const HashValue** hash) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), key);
  *hash = nullptr;
  if (entry == nullptr) return true;
  if (entry->type() != ValueType::kHash) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  *hash = &HashOf(*entry);
  return true;
}

void RegisterHashRandomCommands(Registry& registry);  // HRANDFIELD, HSCAN
void RegisterHashTtlCommands(Registry& registry);     // the field expiry commands

// Lazy field expiry (cmd_hash_ttl.cc): before a hash command reads or writes `key`, the fields
// of its hash whose TTL passed are deleted (Keyspace::ExpireHashFields), so that no command sees
// them. Costs a lookup and a comparison for a hash without field TTLs.
void ReclaimExpiredFields(CommandContext& context, std::string_view key);

// HSET's write (cmd_hash.cc): the pairs args[first], args[first + 1], ... to the end into args[1],
// created when missing, all or nothing; `event` announced with `changes` changes. Unless
// `keep_ttl`, each field written loses its TTL (HSET's rule). False after replying (WRONGTYPE or
// OOM); *created counts the new fields.
bool WriteHashPairs(CommandContext& context, size_t first, KeyEvent event, uint64_t changes,
                    bool keep_ttl, size_t* created);

}  // namespace keel
