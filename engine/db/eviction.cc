#include "engine/db/eviction.h"

#include <algorithm>

#include "engine/db/keyspace.h"

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

uint64_t Score(const Keyspace& keyspace, MaxmemoryPolicy policy, const Entry& entry) {
  switch (policy) {
    case MaxmemoryPolicy::kVolatileLfu:
    case MaxmemoryPolicy::kAllkeysLfu:
      return 255 - keyspace.LfuCounter(entry);
    case MaxmemoryPolicy::kVolatileTtl:
      return UINT64_MAX - static_cast<uint64_t>(entry.expire_at_ms());
    default:
      return static_cast<uint64_t>(keyspace.IdleTimeMs(entry));
  }
}

// Samples maxmemory-samples keys of every database into the pool (evictionPoolPopulate).
void PopulatePool(Keyspace& keyspace, MaxmemoryPolicy policy, EvictionPool& pool) {
  const int64_t samples = keyspace.settings().maxmemory_samples;
  const bool volatile_only = VolatileOnly(policy);
  for (int index = 0; index < keyspace.database_count(); index++) {
    const Database& db = keyspace.database(index);
    if ((volatile_only ? db.expires_count() : db.size()) == 0) continue;
    for (int64_t i = 0; i < samples; i++) {
      const Entry* entry =
          volatile_only ? keyspace.RandomVolatileEntry(index) : keyspace.RandomEntry(index);
      if (entry == nullptr) break;
      pool.Offer(Score(keyspace, policy, *entry), index, entry->key());
    }
  }
}

// The next key to evict, by the policy; false when there is none.
bool PickVictim(Keyspace& keyspace, Evictor& evictor, MaxmemoryPolicy policy, int* database,
                std::string* key) {
  const bool volatile_only = VolatileOnly(policy);
  if (RandomPolicy(policy)) {
    // Round robin over the databases, as Redis's next_db does.
    for (int tries = 0; tries < keyspace.database_count(); tries++) {
      const int index = evictor.NextDatabase(keyspace.database_count());
      const Entry* entry =
          volatile_only ? keyspace.RandomVolatileEntry(index) : keyspace.RandomEntry(index);
      if (entry != nullptr) {
        *database = index;
        key->assign(entry->key());
        return true;
      }
    }
    return false;
  }
  EvictionPool& pool = evictor.pool();
  for (int attempt = 0; attempt < 4; attempt++) {
    PopulatePool(keyspace, policy, pool);
    EvictionPool::Candidate candidate;
    while (pool.TakeBest(&candidate)) {
      // A candidate may have gone (deleted, or lost its expiry) since it was sampled.
      const Database& db = keyspace.database(candidate.database);
      const Entry* entry = db.FindConst(candidate.key, db.Hash(candidate.key));
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

EvictionResult Evictor::Perform(Keyspace& keyspace, const MemoryAccountant& memory) {
  const KeyspaceSettings& settings = keyspace.settings();
  const int64_t maxmemory = settings.maxmemory_bytes;
  if (maxmemory <= 0) return EvictionResult::kOk;
  if (memory.used_bytes_total() <= static_cast<size_t>(maxmemory)) return EvictionResult::kOk;
  const MaxmemoryPolicy policy = settings.maxmemory_policy;
  if (policy == MaxmemoryPolicy::kNoeviction) return EvictionResult::kFailed;
  const uint64_t budget =
      kEvictionsPerCallBase * static_cast<uint64_t>(settings.maxmemory_eviction_tenacity + 1);
  for (uint64_t evicted = 0; memory.used_bytes_total() > static_cast<size_t>(maxmemory);
       evicted++) {
    if (evicted == budget) return EvictionResult::kRunning;
    int database = 0;
    std::string key;
    if (!PickVictim(keyspace, *this, policy, &database, &key)) return EvictionResult::kFailed;
    keyspace.Evict(database, key);
  }
  return EvictionResult::kOk;
}

}  // namespace keel
