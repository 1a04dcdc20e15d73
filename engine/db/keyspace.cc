#include "engine/db/keyspace.h"

namespace keel {
namespace {

constexpr uint32_t kLruClockMax = (1u << 24) - 1;  // Redis's LRU_CLOCK_MAX
constexpr int64_t kLruClockResolutionMs = 1000;    // Redis's LRU_CLOCK_RESOLUTION

bool LfuPolicy(const Engine& engine) {
  const auto policy = static_cast<MaxmemoryPolicy>(engine.settings().maxmemory_policy);
  return policy == MaxmemoryPolicy::kVolatileLfu || policy == MaxmemoryPolicy::kAllkeysLfu;
}

}  // namespace

Entry* LookupKey(Engine& engine, Database& db, std::string_view key, LookupIntent intent,
                 uint8_t flags) {
  return LookupKey(engine, db, key, db.Hash(key), intent, flags);
}

Entry* LookupKey(Engine& engine, Database& db, std::string_view key, uint64_t hash,
                 LookupIntent intent, uint8_t flags) {
  Entry* entry = db.Find(key, hash);
  if (entry != nullptr && IsExpired(*entry, engine.command_time_ms())) {
    // Logically gone either way; deleted only when writes are not paused (CLIENT PAUSE WRITE:
    // Redis then leaves the key for after the pause).
    if (!engine.writes_paused()) DeleteExpiredKey(engine, db, key, hash);
    entry = nullptr;
  }
  if (entry != nullptr && !(flags & kLookupNoTouch)) TouchEntry(engine, *entry);
  if (intent == LookupIntent::kRead) {
    if (entry != nullptr) {
      engine.stats().keyspace_hits++;
    } else {
      engine.stats().keyspace_misses++;
    }
  }
  return entry;
}

void DeleteExpiredKey(Engine& engine, Database& db, std::string_view key, uint64_t hash) {
  if (db.Erase(key, hash)) engine.stats().expired_keys++;
}

ExpiryOutcome SetKeyExpiry(Engine& engine, Database& db, Entry** entry, int64_t expire_at_ms) {
  if (ExpiryIsPast(engine, expire_at_ms)) {
    const std::string_view key = (*entry)->key();
    db.Erase(key, db.Hash(key));
    *entry = nullptr;
    return ExpiryOutcome::kDeleted;
  }
  // A time after the command time is positive, so it is never taken for kNoExpiry.
  Entry* moved = db.SetExpiry(*entry, expire_at_ms);
  if (moved == nullptr) return ExpiryOutcome::kOutOfMemory;
  *entry = moved;
  return ExpiryOutcome::kSet;
}

bool RemoveKeyExpiry(Database& db, Entry** entry) {
  Entry* moved = db.SetExpiry(*entry, kNoExpiry);
  if (moved == nullptr) return false;
  *entry = moved;
  return true;
}

uint32_t LfuCounter(const Engine& engine, const Entry& entry) {
  const uint32_t clock = entry.access_clock();
  const uint32_t last_minutes = clock >> 8;
  uint32_t counter = clock & 0xff;
  const uint32_t now_minutes = engine.access_clock().lfu_minutes;
  // Minutes since the last decrement, on a 16-bit clock that wraps (LFUTimeElapsed).
  const uint32_t elapsed =
      now_minutes >= last_minutes ? now_minutes - last_minutes : 65535 - last_minutes + now_minutes;
  const int64_t decay = engine.settings().lfu_decay_time_minutes;
  const uint32_t periods = decay > 0 ? static_cast<uint32_t>(elapsed / decay) : 0;
  return periods > counter ? 0 : counter - periods;
}

void TouchEntry(Engine& engine, Entry& entry) {
  if (!LfuPolicy(engine)) {
    entry.set_access_clock(engine.access_clock().lru_clock);
    return;
  }
  uint32_t counter = LfuCounter(engine, entry);
  // LFULogIncr: the counter grows with probability 1 / ((counter - LFU_INIT_VAL) * factor + 1).
  if (counter < 255) {
    const double above_initial = counter > AccessClock::kLfuInitialCount
                                     ? static_cast<double>(counter - AccessClock::kLfuInitialCount)
                                     : 0.0;
    const double probability =
        1.0 / (above_initial * static_cast<double>(engine.settings().lfu_log_factor) + 1.0);
    const double draw = static_cast<double>(engine.rng().Next() >> 11) * 0x1.0p-53;
    if (draw < probability) counter++;
  }
  entry.set_access_clock(((engine.access_clock().lfu_minutes & 0xffff) << 8) | counter);
}

int64_t IdleTimeMs(const Engine& engine, const Entry& entry) {
  const uint32_t now = engine.access_clock().lru_clock;
  const uint32_t then = entry.access_clock();
  const uint32_t ticks = now >= then ? now - then : kLruClockMax - then + now;
  return static_cast<int64_t>(ticks) * kLruClockResolutionMs;
}

}  // namespace keel
