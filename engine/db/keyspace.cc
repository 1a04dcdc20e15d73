#include "engine/db/keyspace.h"

namespace keel {

Entry* LookupKey(Engine& engine, Database& db, std::string_view key, LookupIntent intent) {
  return LookupKey(engine, db, key, db.Hash(key), intent);
}

Entry* LookupKey(Engine& engine, Database& db, std::string_view key, uint64_t hash,
                 LookupIntent intent) {
  Entry* entry = db.Find(key, hash);
  if (entry != nullptr && IsExpired(*entry, engine.command_time_ms())) {
    db.Erase(key);
    engine.stats().expired_keys++;
    entry = nullptr;
  }
  if (intent == LookupIntent::kRead) {
    if (entry != nullptr) {
      engine.stats().keyspace_hits++;
    } else {
      engine.stats().keyspace_misses++;
    }
  }
  return entry;
}

}  // namespace keel
