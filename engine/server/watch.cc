#include "engine/server/watch.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "engine/db/database.h"
#include "engine/server/client.h"

namespace keel {

WatchTable::~WatchTable() {
  if (observing_) keyspace_.RemoveObserver(this);
}

bool WatchTable::Exists(const Database& db, std::string_view key) const {
  return db.Find(key) != nullptr;
}

bool WatchTable::Expired(const Database& db, std::string_view key) const {
  const Entry* entry = db.Find(key);
  return entry != nullptr && IsExpired(*entry, keyspace_.command_time_ms());
}

void WatchTable::Watch(Client& client, int db, std::string_view key) {
  ClientWatches& mine = clients_[client.id()];
  for (const auto& [watched_db, watched_key] : mine.keys) {
    if (watched_db == db && watched_key == key) return;
  }
  mine.keys.emplace_back(db, std::string(key));
  mine.bytes += key.size();
  KeyWatchers& watchers = keys_[db];
  auto it = watchers.find(key);
  if (it == watchers.end()) it = watchers.emplace(std::string(key), std::vector<Watcher>()).first;
  it->second.push_back(Watcher{&client, Expired(keyspace_.database(db), key)});
  total_keys_++;
  if (!observing_) {
    keyspace_.AddObserver(this);
    observing_ = true;
  }
}

void WatchTable::Forget(Client& client) {
  auto mine = clients_.find(client.id());
  if (mine == clients_.end()) return;
  for (const auto& [db, key] : mine->second.keys) {
    auto db_it = keys_.find(db);
    KEEL_ASSERT(db_it != keys_.end());
    auto it = db_it->second.find(key);
    KEEL_ASSERT(it != db_it->second.end());
    std::vector<Watcher>& watchers = it->second;
    const size_t erased =
        std::erase_if(watchers, [&](const Watcher& w) { return w.client == &client; });
    KEEL_ASSERT(erased == 1);
    total_keys_--;
    if (watchers.empty()) db_it->second.erase(it);
    if (db_it->second.empty()) keys_.erase(db_it);
  }
  clients_.erase(mine);
}

void WatchTable::UnwatchAll(Client& client) {
  Forget(client);
  // Not from inside a keyspace callback (the keyspace is walking its observers then): commands
  // call this, the observer methods use Forget and leave the registration for the next call.
  if (observing_ && clients_.empty()) {
    keyspace_.RemoveObserver(this);
    observing_ = false;
  }
}

bool WatchTable::AnyExpired(const Client& client) const {
  auto mine = clients_.find(client.id());
  if (mine == clients_.end()) return false;
  for (const auto& [db, key] : mine->second.keys) {
    auto db_it = keys_.find(db);
    const std::vector<Watcher>& watchers = db_it->second.find(key)->second;
    for (const Watcher& watcher : watchers) {
      if (watcher.client != &client) continue;
      if (!watcher.expired && Expired(keyspace_.database(db), key)) return true;
    }
  }
  return false;
}

size_t WatchTable::watched_count(const Client& client) const {
  auto mine = clients_.find(client.id());
  return mine == clients_.end() ? 0 : mine->second.keys.size();
}

size_t WatchTable::watched_bytes(const Client& client) const {
  auto mine = clients_.find(client.id());
  return mine == clients_.end() ? 0 : mine->second.bytes;
}

size_t WatchTable::total_watched_keys() const { return total_keys_; }

void WatchTable::Break(const std::vector<Client*>& clients) {
  for (Client* client : clients) {
    client->flags |= kClientDirtyCas;
    Forget(*client);
  }
}

void WatchTable::KeyTouched(int db_index, std::string_view key) {
  auto db_it = keys_.find(db_index);
  if (db_it == keys_.end()) return;
  auto it = db_it->second.find(key);
  if (it == db_it->second.end()) return;
  // The key has changed: deleted (expiry and eviction touch it just before it goes, when it is
  // expired or about to be erased), or given a value. For a key watched while already expired,
  // only a live value now is a change.
  const Database& db = keyspace_.database(db_index);
  const bool live_now = Exists(db, key) && !Expired(db, key);
  std::vector<Client*> broken;
  for (Watcher& watcher : it->second) {
    if (watcher.expired && !live_now) {
      watcher.expired = false;  // reclaimed: it is now simply absent
      continue;
    }
    broken.push_back(watcher.client);
  }
  Break(broken);
}

void WatchTable::TouchAll(int db_index, const Database& emptied, const Database* replaced_with) {
  auto db_it = keys_.find(db_index);
  if (db_it == keys_.end()) return;
  std::vector<Client*> broken;
  for (auto& [key, watchers] : db_it->second) {
    const bool in_emptied = Exists(emptied, key);
    const bool in_replacement = replaced_with != nullptr && Exists(*replaced_with, key);
    if (!in_emptied && !in_replacement) continue;
    for (Watcher& watcher : watchers) {
      if (watcher.expired) {
        if (!in_replacement) {
          watcher.expired = false;  // the expired key is gone: no logical change
          continue;
        }
        if (Expired(*replaced_with, key)) continue;  // still logically absent
      } else if (!in_emptied && Expired(*replaced_with, key)) {
        watcher.expired = true;  // absent before, logically absent now
        continue;
      }
      if (std::find(broken.begin(), broken.end(), watcher.client) == broken.end()) {
        broken.push_back(watcher.client);
      }
    }
  }
  Break(broken);
}

void WatchTable::DatabaseFlushing(int db_index, const Database& db) {
  TouchAll(db_index, db, nullptr);
}

void WatchTable::DatabasesSwapped(int first, int second) {
  // Called after the swap: what `first` held is now `second`'s, and the other way round.
  // Clients stay with their database index, so each side's watchers compare what their index
  // held (now under the other index) with what it holds now.
  TouchAll(first, keyspace_.database(second), &keyspace_.database(first));
  TouchAll(second, keyspace_.database(first), &keyspace_.database(second));
}

}  // namespace keel
