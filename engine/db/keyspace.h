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

// The one place where a key is deleted because its time has passed: lazy expiry (LookupKey)
// and the active expiry cycle. Counts INFO's expired_keys. Redis propagates this as DEL key; the
// AOF writer logs it here.
void DeleteExpiredKey(Engine& engine, Database& db, std::string_view key, uint64_t hash);

enum class ExpiryOutcome : uint8_t {
  kSet,          // the key has the new expiry
  kDeleted,      // the time was not in the future: the key is gone
  kOutOfMemory,  // the entry could not be resized: nothing changed
};

// Redis's checkAlreadyExpired: a command that gives a key the absolute time `expire_at_ms`
// deletes it instead when that time is not after the command time.
inline bool ExpiryIsPast(const Engine& engine, int64_t expire_at_ms) {
  return expire_at_ms <= engine.command_time_ms();
}

// The one place where a command gives a live key an expiry (EXPIRE, PEXPIRE, EXPIREAT,
// PEXPIREAT, GETEX): `expire_at_ms` is an absolute time, any int64 (never "no expiry"). A time
// for which ExpiryIsPast holds deletes the key at once (not counted as expired), which Redis
// propagates as DEL; otherwise the entry takes the time, which Redis propagates as PEXPIREAT key
// <expire_at_ms>: the AOF writer logs here. `*entry` is the key's entry in `db`, updated to where
// it now lives (adding an expiry may move it), or null once deleted.
ExpiryOutcome SetKeyExpiry(Engine& engine, Database& db, Entry** entry, int64_t expire_at_ms);

// The other half, PERSIST and GETEX PERSIST: removes the expiry of `*entry` (which has one).
// Returns false when the entry could not be resized (nothing changed); `*entry` is updated.
bool RemoveKeyExpiry(Database& db, Entry** entry);

// Records an access: the LRU clock, or with an LFU policy Redis's decayed, logarithmically
// incremented counter (updateLFU).
void TouchEntry(Engine& engine, Entry& entry);

// Redis's LFUDecrAndReturn: the entry's LFU counter after the decay due since its last access.
uint32_t LfuCounter(const Engine& engine, const Entry& entry);

// Redis's estimateObjectIdleTime in milliseconds, from the entry's LRU clock.
int64_t IdleTimeMs(const Engine& engine, const Entry& entry);

}  // namespace keel
