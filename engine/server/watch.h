// WatchTable: WATCH's keys, and the keyspace observer that breaks them (Redis's watched_keys).
//
// A client's EXEC fails (a null array) when a key it watched was changed after WATCH: by any
// client's write (itself included), by expiry (lazy or active) or eviction, by FLUSHDB/FLUSHALL
// emptying the key's database while the key existed, or by SWAPDB bringing in or taking away
// the key. A write that changes nothing touches nothing (the write path only touches keys it
// changed), so it breaks nothing. A watched key that expires before EXEC breaks the
// transaction too, even if nothing reclaimed it (AnyExpired, Redis's isWatchedKeyExpired).
//
// A key that had already expired when it was watched is "logically absent": its reclamation
// (expiry, a flush, a swap that leaves it absent) is no change; anything that gives it a live
// value is. This follows Redis 7.0's touchWatchedKey and touchAllWatchedKeysInDb.
//
// The table is a keyspace observer only while some client watches a key, so that writes pay
// nothing for WATCH otherwise. A broken client is flagged kClientDirtyCas and its watches are
// dropped at once (they can no longer matter).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/db/keyspace.h"
#include "engine/db/keyspace_observer.h"

namespace keel {

class Client;

class WatchTable final : public KeyspaceObserver {
 public:
  explicit WatchTable(Keyspace& keyspace) : keyspace_(keyspace) {}
  ~WatchTable() override;
  WatchTable(const WatchTable&) = delete;
  WatchTable& operator=(const WatchTable&) = delete;

  // Watches `key` of database `db` for `client` (once: watching it again changes nothing).
  // Whether it has expired is read without reclaiming it, as Redis's keyIsExpired.
  void Watch(Client& client, int db, std::string_view key);
  // Forgets every key `client` watches (UNWATCH, EXEC, DISCARD, RESET, disconnection).
  void UnwatchAll(Client& client);
  // Whether a key `client` watched while it was live has expired since (at the command time).
  bool AnyExpired(const Client& client) const;
  // Keys `client` watches, and their bytes (for the transaction size limit).
  size_t watched_count(const Client& client) const;
  size_t watched_bytes(const Client& client) const;
  size_t total_watched_keys() const;

  // KeyspaceObserver.
  void KeyTouched(int db_index, std::string_view key) override;
  void DatabaseFlushing(int db_index, const Database& db) override;
  void DatabasesSwapped(int first, int second) override;

 private:
  struct Watcher {
    Client* client;
    bool expired;  // the key had expired when it was watched: logically absent
  };
  using KeyWatchers = std::map<std::string, std::vector<Watcher>, std::less<>>;
  struct ClientWatches {
    std::vector<std::pair<int, std::string>> keys;  // in WATCH order
    size_t bytes = 0;
  };

  bool Exists(const Database& db, std::string_view key) const;
  bool Expired(const Database& db, std::string_view key) const;
  // The touchAllWatchedKeysInDb rules for the watchers of `db_index`: `emptied` held the keys
  // before, `replaced_with` (nullptr for a flush) holds them now.
  void TouchAll(int db_index, const Database& emptied, const Database* replaced_with);
  void Break(const std::vector<Client*>& clients);
  void Forget(Client& client);

  Keyspace& keyspace_;
  std::map<int, KeyWatchers> keys_;            // database -> key -> watchers, in WATCH order
  std::map<uint64_t, ClientWatches> clients_;  // client id -> what it watches
  size_t total_keys_ = 0;
  bool observing_ = false;
};

}  // namespace keel
