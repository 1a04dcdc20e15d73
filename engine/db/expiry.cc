#include "engine/db/expiry.h"

#include "engine/db/keyspace.h"
#include "engine/env/env.h"

namespace keel {
namespace {

// Redis's ACTIVE_EXPIRE_CYCLE_* constants, each raised by active-expire-effort as Redis raises
// them: keys sampled per round in a database, the share of stale keys in a sample above which
// the database gets another round, and the share of a cron period the cycle may take.
constexpr uint64_t kKeysPerLoop = 20;
constexpr uint64_t kAcceptableStalePercent = 10;
constexpr int64_t kSlowTimePercent = 25;
// Rounds in one database per cycle: a bound that holds even when time does not move (the
// simulator's clock stands still during a cycle).
constexpr int kRoundsPerDatabaseMax = 16;
// Hash field expiry per database and cycle: hashes visited, and fields expired at most (Redis
// 7.4 bounds the fields, ACTIVE_EXPIRE_CYCLE_FIELDS_QUOTA).
constexpr size_t kFieldHashesPerCycle = 64;
constexpr size_t kFieldsPerCycle = 10000;

}  // namespace

ExpiryCycleReport ActiveExpireCycle(Keyspace& keyspace, Clock& clock, int64_t now_ms) {
  ExpiryCycleReport report;
  // Expiring is writing: not while writes are paused (CLIENT PAUSE), as in Redis.
  if (keyspace.writes_paused()) return report;
  const int64_t effort = keyspace.settings().active_expire_effort - 1;  // 0..9
  const uint64_t keys_per_loop = kKeysPerLoop + kKeysPerLoop / 4 * static_cast<uint64_t>(effort);
  const uint64_t acceptable_stale = kAcceptableStalePercent - static_cast<uint64_t>(effort);
  const int64_t hz = keyspace.settings().hz;
  const int64_t time_budget_us = 1000000 * (kSlowTimePercent + 2 * effort) / hz / 100;
  const int64_t start_us = clock.MonotonicUs();
  for (int index = 0; index < keyspace.database_count(); index++) {
    report.expired_fields +=
        keyspace.ActiveExpireHashFields(index, kFieldHashesPerCycle, kFieldsPerCycle, now_ms);
    const Database& db = keyspace.database(index);
    for (int round = 0; round < kRoundsPerDatabaseMax && db.expires_count() > 0; round++) {
      uint64_t expired = 0;
      const uint64_t samples =
          db.expires_count() < keys_per_loop ? db.expires_count() : keys_per_loop;
      for (uint64_t i = 0; i < samples; i++) {
        const Entry* entry = keyspace.RandomVolatileEntry(index);
        if (entry == nullptr) break;
        report.sampled++;
        if (IsExpired(*entry, now_ms)) {
          const std::string_view key = entry->key();
          keyspace.DeleteExpired(index, key, db.Hash(key));
          expired++;
        }
      }
      report.expired += expired;
      if (expired * 100 <= samples * acceptable_stale) break;
      if (clock.MonotonicUs() - start_us > time_budget_us || round + 1 == kRoundsPerDatabaseMax) {
        report.budget_reached = true;
        break;
      }
    }
  }
  return report;
}

}  // namespace keel
