// Active expiry: the cron-driven cycle that removes keys whose time has passed even when no
// client touches them (Redis's activeExpireCycle, slow mode).
#pragma once

#include <cstdint>

namespace keel {

class Clock;
class Keyspace;

struct ExpiryCycleReport {
  uint64_t sampled = 0;
  uint64_t expired = 0;
  uint64_t expired_fields = 0;  // hash fields past their TTL
  bool budget_reached = false;  // stopped by the key or time budget with stale keys left
};

// Samples keys with an expiry in each database and deletes those that have expired, repeating
// in a database while more than Redis's acceptable share of the sample was stale, within a
// budget of keys and of time (active-expire-effort raises both, as in Redis) read on `clock`.
// Each database's hashes with field TTLs are visited too, a bounded number per cycle
// (Keyspace::ActiveExpireHashFields). Expired keys go through Keyspace::DeleteExpired; `now_ms` is
// the wall time that decides. Does nothing while writes are paused. Deterministic for a given
// random state and clock.
ExpiryCycleReport ActiveExpireCycle(Keyspace& keyspace, Clock& clock, int64_t now_ms);

}  // namespace keel
