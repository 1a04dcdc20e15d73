// Key lookup with Redis's expiry and access-tracking semantics: a key whose time has passed is
// logically gone at the command-time snapshot and is deleted on access (lazy expiry); a key that
// is read or written has its access clock updated (LRU time, or the LFU counter) unless the
// lookup says not to (OBJECT, TYPE-like inspections, CLIENT NO-TOUCH).
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/db/database.h"
#include "engine/server/engine.h"

namespace keel {

enum class LookupIntent : uint8_t {
  kRead,   // counts keyspace hits and misses
  kWrite,  // no statistics (the command is about to change the key)
};

enum LookupFlag : uint8_t {
  kLookupNoTouch = 1 << 0,  // leave the access clock alone (OBJECT, and CLIENT NO-TOUCH)
};

// The live entry for `key` in `db` at the engine's command time, or nullptr. Deletes the key when
// it has expired; updates its access clock otherwise.
Entry* LookupKey(Engine& engine, Database& db, std::string_view key, LookupIntent intent,
                 uint8_t flags = 0);
Entry* LookupKey(Engine& engine, Database& db, std::string_view key, uint64_t hash,
                 LookupIntent intent, uint8_t flags = 0);

// Whether `entry` has expired at `now_ms`. As in Redis (keyIsExpired: now > when), a key is
// still there during its expiry millisecond and gone the millisecond after.
inline bool IsExpired(const Entry& entry, int64_t now_ms) {
  return entry.has_expiry() && entry.expire_at_ms() < now_ms;
}

// Records an access: the LRU clock, or with an LFU policy Redis's decayed, logarithmically
// incremented counter (updateLFU).
void TouchEntry(Engine& engine, Entry& entry);

// Redis's LFUDecrAndReturn: the entry's LFU counter after the decay due since its last access.
uint32_t LfuCounter(const Engine& engine, const Entry& entry);

// Redis's estimateObjectIdleTime in milliseconds, from the entry's LRU clock.
int64_t IdleTimeMs(const Engine& engine, const Entry& entry);

}  // namespace keel
