// Key lookup with Redis's expiry semantics: a key whose time has passed is logically gone at the
// command-time snapshot, and is deleted on access (lazy expiry).
#pragma once

#include <string_view>

#include "engine/db/database.h"
#include "engine/server/engine.h"

namespace keel {

enum class LookupIntent : uint8_t {
  kRead,   // counts keyspace hits and misses
  kWrite,  // no statistics (the command is about to change the key)
};

// The live entry for `key` in `db` at the engine's command time, or nullptr. Deletes the key when
// it has expired.
Entry* LookupKey(Engine& engine, Database& db, std::string_view key, LookupIntent intent);
Entry* LookupKey(Engine& engine, Database& db, std::string_view key, uint64_t hash,
                 LookupIntent intent);

// Whether `entry` has expired at `now_ms`. As in Redis (keyIsExpired: now > when), a key is
// still there during its expiry millisecond and gone the millisecond after.
inline bool IsExpired(const Entry& entry, int64_t now_ms) {
  return entry.has_expiry() && entry.expire_at_ms() < now_ms;
}

}  // namespace keel
