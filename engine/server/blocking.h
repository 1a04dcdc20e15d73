// BlockingTable: which clients wait for which keys, which keys may now serve them, and when their
// waits end (Redis's blocking_keys, ready_keys and clients_timeout_table).
//
// Clients blocked on a key are served first come first served: each key keeps its waiters in
// the order they blocked. A write to a key with waiters makes the key ready (whatever the write
// was: whether the key now holds something for them is for the engine to decide when it serves
// them, as Redis looks at the key's type then), and so does SWAPDB for every waited key of the
// two databases. The engine serves ready keys after each top-level command, so a push inside
// MULTI/EXEC or a script serves waiters only once the transaction or script has ended.
//
// The table observes the keyspace only while some client is blocked, so that writes pay nothing
// for blocking otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/db/keyspace.h"
#include "engine/db/keyspace_observer.h"
#include "engine/server/blocked_call.h"

namespace keel {

class Client;

class BlockingTable final : public KeyspaceObserver {
 public:
  explicit BlockingTable(Keyspace& keyspace) : keyspace_(keyspace) {}
  ~BlockingTable() override;
  BlockingTable(const BlockingTable&) = delete;
  BlockingTable& operator=(const BlockingTable&) = delete;

  // Queues `client` (whose `blocked` is filled in) behind the waiters of each of its keys.
  void Add(Client& client);
  // Takes `client` out of every queue and the deadline index (it stays `blocked` for the caller
  // to clear).
  void Remove(Client& client);
  size_t blocked_count() const { return blocked_; }
  size_t timed_count() const { return deadlines_.size(); }

  struct ReadyKey {
    int db;
    std::string key;
  };
  bool has_ready() const { return !ready_.empty(); }
  // The ready keys in the order they became ready; a key may become ready again while they are
  // served (a served BLMOVE pushes to a key others wait for).
  std::vector<ReadyKey> TakeReady();
  // The clients waiting for `key` of `db`, first come first.
  std::vector<Client*> WaitersOf(int db, std::string_view key) const;

  // The earliest deadline of a blocked client (monotonic us), or 0 when none has one.
  int64_t next_deadline_us() const { return deadlines_.empty() ? 0 : deadlines_.begin()->first; }
  // The id of a client whose deadline is before `now_us`, or 0.
  uint64_t FirstExpired(int64_t now_us) const;

  // KeyspaceObserver.
  void KeyTouched(int db_index, std::string_view key) override;
  void DatabasesSwapped(int first, int second) override;
  void DatabaseFlushed(int db_index) override;

 private:
  using Queue = std::list<Client*>;
  using DbQueues = std::map<std::string, Queue, std::less<>>;
  void MarkReady(int db, std::string_view key);

  Keyspace& keyspace_;
  std::map<int, DbQueues> queues_;  // database -> key -> waiters
  std::vector<ReadyKey> ready_;
  std::map<int, std::set<std::string, std::less<>>> ready_set_;  // what ready_ holds
  std::set<std::pair<int64_t, uint64_t>> deadlines_;             // (deadline us, client id)
  size_t blocked_ = 0;
};

}  // namespace keel
