// maxmemory eviction: Redis's performEvictions, with its policies, its sampling
// (maxmemory-samples) and its pool of the best candidates seen so far.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

class Keyspace;
class MemoryAccountant;

// The best candidates sampled so far (Redis's EVPOOL_SIZE of 16), kept across calls so that
// repeated sampling approximates the true least-recently/frequently used key.
class EvictionPool {
 public:
  static constexpr size_t kSize = 16;
  struct Candidate {
    uint64_t score;  // higher is evicted first: idle ms, 255 - LFU counter, or time to expiry
    int database;
    std::string key;
  };
  // Offers a candidate; keeps the kSize best.
  void Offer(uint64_t score, int database, std::string_view key);
  // Takes the best candidate out, if any.
  bool TakeBest(Candidate* candidate);
  void Clear() { candidates_.clear(); }

 private:
  std::vector<Candidate> candidates_;  // sorted by score, best last
};

enum class EvictionResult : uint8_t {
  kOk,       // within maxmemory (or no limit)
  kRunning,  // keys were evicted but the per-call budget ran out first; the next call goes on
  kFailed,   // over maxmemory and nothing can be evicted (noeviction, or no eligible key)
};

// Eviction's state across commands: the candidate pool and the random policies' round-robin
// database.
class Evictor {
 public:
  // Evicts keys (Keyspace::Evict) until `memory` is within maxmemory, as maxmemory-policy says.
  // Called before every command when maxmemory is set; denyoom commands are refused on kFailed.
  EvictionResult Perform(Keyspace& keyspace, const MemoryAccountant& memory);

  EvictionPool& pool() { return pool_; }
  // The next database of the round robin over `count` databases.
  int NextDatabase(int count) {
    next_database_ = (next_database_ + 1) % count;
    return next_database_;
  }

 private:
  EvictionPool pool_;
  int next_database_ = 0;
};

}  // namespace keel
