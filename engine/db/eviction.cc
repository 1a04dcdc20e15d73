#include "engine/db/eviction.h"

#include <algorithm>

#include "engine/db/keyspace.h"
#include "engine/server/engine.h"

namespace keel {
namespace {

// Keys evicted per call at the default tenacity (10); tenacity scales it as Redis scales its
// time budget, so that one command never does unbounded work.
constexpr uint64_t kEvictionsPerCallBase = 64;

bool VolatileOnly(MaxmemoryPolicy policy) {
  return policy == MaxmemoryPolicy::kVolatileLru || policy == MaxmemoryPolicy::kVolatileLfu ||
         policy == MaxmemoryPolicy::kVolatileRandom || policy == MaxmemoryPolicy::kVolatileTtl;
}

bool RandomPolicy(MaxmemoryPolicy policy) {
  return policy == MaxmemoryPolicy::kVolatileRandom || policy == MaxmemoryPolicy::kAllkeysRandom;
}

uint64_t Score(const Engine& engine, MaxmemoryPolicy policy, const Entry& entry) {
  switch (policy) {
    case MaxmemoryPolicy::kVolatileLfu:
    case MaxmemoryPolicy::kAllkeysLfu:
      return 255 - LfuCounter(engine, entry);
    case MaxmemoryPolicy::kVolatileTtl:
      return UINT64_MAX - static_cast<uint64_t>(entry.expire_at_ms());
    default:
      return static_cast<uint64_t>(IdleTimeMs(engine, entry));
  }
}

// Samples maxmemory-samples keys of every database into the pool (evictionPoolPopulate).
void PopulatePool(Engine& engine, MaxmemoryPolicy policy, EvictionPool& pool) {
  const int64_t samples = engine.settings().maxmemory_samples;
  const bool volatile_only = VolatileOnly(policy);
  for (int index = 0; index < engine.database_count(); index++) {
    Database& db = engine.database(index);
    if ((volatile_only ? db.expires_count() : db.size()) == 0) continue;
    for (int64_t i = 0; i < samples; i++) {
      Entry* entry =
          volatile_only ? db.RandomVolatileEntry(engine.rng()) : db.RandomEntry(engine.rng());
      if (entry == nullptr) break;
      pool.Offer(Score(engine, policy, *entry), index, entry->key());
    }
  }
}

// The next key to evict, by the policy; false when there is none.
bool PickVictim(Engine& engine, MaxmemoryPolicy policy, int* database, std::string* key) {
  const bool volatile_only = VolatileOnly(policy);
  if (RandomPolicy(policy)) {
    // Round robin over the databases, as Redis's next_db does.
    for (int tries = 0; tries < engine.database_count(); tries++) {
      const int index = engine.next_eviction_database();
      Database& db = engine.database(index);
      Entry* entry =
          volatile_only ? db.RandomVolatileEntry(engine.rng()) : db.RandomEntry(engine.rng());
      if (entry != nullptr) {
        *database = index;
        key->assign(entry->key());
        return true;
      }
    }
    return false;
  }
  EvictionPool& pool = engine.eviction_pool();
  for (int attempt = 0; attempt < 4; attempt++) {
    PopulatePool(engine, policy, pool);
    EvictionPool::Candidate candidate;
    while (pool.TakeBest(&candidate)) {
      // A candidate may have gone (deleted, or lost its expiry) since it was sampled.
      Entry* entry = engine.database(candidate.database).Find(candidate.key);
      if (entry == nullptr || (volatile_only && !entry->has_expiry())) continue;
      *database = candidate.database;
      *key = std::move(candidate.key);
      return true;
    }
  }
  return false;
}

}  // namespace

void EvictionPool::Offer(uint64_t score, int database, std::string_view key) {
  for (const Candidate& candidate : candidates_) {
    if (candidate.database == database && candidate.key == key) return;
  }
  if (candidates_.size() == kSize && score <= candidates_.front().score) return;
  auto position = std::lower_bound(
      candidates_.begin(), candidates_.end(), score,
      [](const Candidate& candidate, uint64_t value) { return candidate.score < value; });
  candidates_.insert(position, Candidate{score, database, std::string(key)});
  if (candidates_.size() > kSize) candidates_.erase(candidates_.begin());
}

bool EvictionPool::TakeBest(Candidate* candidate) {
  if (candidates_.empty()) return false;
  *candidate = std::move(candidates_.back());
  candidates_.pop_back();
  return true;
}

EvictionResult PerformEvictions(Engine& engine) {
  const int64_t maxmemory = engine.settings().maxmemory;
  if (maxmemory <= 0) return EvictionResult::kOk;
  MemoryAccountant& memory = engine.memory();
  if (memory.used_bytes_total() <= static_cast<size_t>(maxmemory)) return EvictionResult::kOk;
  const auto policy = static_cast<MaxmemoryPolicy>(engine.settings().maxmemory_policy);
  if (policy == MaxmemoryPolicy::kNoeviction) return EvictionResult::kFailed;
  const uint64_t budget = kEvictionsPerCallBase *
                          static_cast<uint64_t>(engine.settings().maxmemory_eviction_tenacity + 1);
  for (uint64_t evicted = 0; memory.used_bytes_total() > static_cast<size_t>(maxmemory);
       evicted++) {
    if (evicted == budget) return EvictionResult::kRunning;
    int database = 0;
    std::string key;
    if (!PickVictim(engine, policy, &database, &key)) return EvictionResult::kFailed;
    engine.database(database).Erase(key);
    engine.stats().evicted_keys++;
  }
  return EvictionResult::kOk;
}

}  // namespace keel
