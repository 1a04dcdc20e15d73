// TrackingCheck: a client-side cache kept by CLIENT TRACKING, checked for staleness after every
// step of a simulation (engine/server/tracking.h).
//
// An internal client of the engine (no connection: its replies are read in-process) speaks
// RESP3 with tracking on in default mode. Between steps it reads a random key of database 0
// with GET and caches the reply (a string, or null). After each step it applies every
// invalidation it received (a key drops out of the cache, a flush's null empties it) and then
// compares each cached key with the engine's entry as stored (an expired key nobody reclaimed
// still holds its value, and Redis invalidates only when the key is reclaimed): a cached value
// that differs, or a key that appeared or went, had an invalidation lost. So any write, expiry
// (lazy or active), eviction, flush, MOVE or RENAME of a key the cache holds must reach it.
//
// SWAPDB exchanges databases without invalidating anything in Redis 7.0: the check forgets its
// cache then. A refused allocation for its replies (the environment's memory faults) loses
// what it received: it starts over with an empty cache.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/db/keyspace_observer.h"
#include "engine/server/engine.h"

namespace keel::sim {

class TrackingCheck final : public KeyspaceObserver {
 public:
  // Creates the tracking client: call before any connection, as it takes the next client id.
  explicit TrackingCheck(Engine& engine);
  ~TrackingCheck() override;
  TrackingCheck(const TrackingCheck&) = delete;
  TrackingCheck& operator=(const TrackingCheck&) = delete;

  // GET `key` from database 0 into the cache (the command observer does not see it).
  void Read(std::string_view key);
  // Applies the invalidations received, then compares the cache with the engine. Returns the
  // first stale entry, or empty.
  std::string Check();

  uint64_t reads() const { return reads_; }
  uint64_t invalidations() const { return invalidations_; }

  // KeyspaceObserver.
  void DatabasesSwapped(int first, int second) override;

 private:
  // Applies what the client received; `read_key` is the key of the GET whose reply is among it
  // (empty when none is). Returns an error for anything unexpected.
  std::string Drain(std::string_view read_key);

  Engine& engine_;
  Client* client_;
  std::map<std::string, std::optional<std::string>, std::less<>> cache_;
  uint64_t reads_ = 0;
  uint64_t invalidations_ = 0;
  std::string failure_;
};

}  // namespace keel::sim
