#include "engine/server/blocking.h"

#include "engine/base/assert.h"
#include "engine/server/client.h"

namespace keel {

BlockingTable::~BlockingTable() {
  if (blocked_ > 0) keyspace_.RemoveObserver(this);
}

void BlockingTable::Add(Client& client) {
  BlockedCall& call = *client.blocked;
  KEEL_ASSERT(call.positions.empty());
  if (blocked_++ == 0) keyspace_.AddObserver(this);
  // A wait for no key (WAIT) is only in the deadline index.
  if (!call.keys.empty()) {
    DbQueues& queues = queues_[call.db];
    call.positions.reserve(call.keys.size());
    for (const std::string& key : call.keys) {
      auto it = queues.find(key);
      if (it == queues.end()) it = queues.emplace(key, Queue()).first;
      call.positions.push_back(it->second.insert(it->second.end(), &client));
    }
  }
  if (call.deadline_us != 0) {
    deadlines_.emplace(call.deadline_us, client.id());
    call.in_deadline_index = true;
  }
}

void BlockingTable::Remove(Client& client) {
  BlockedCall& call = *client.blocked;
  KEEL_ASSERT(call.positions.size() == call.keys.size());
  if (!call.keys.empty()) {
    auto db_it = queues_.find(call.db);
    KEEL_ASSERT(db_it != queues_.end());
    DbQueues& queues = db_it->second;
    for (size_t i = 0; i < call.keys.size(); i++) {
      auto it = queues.find(call.keys[i]);
      KEEL_ASSERT(it != queues.end());
      it->second.erase(call.positions[i]);
      if (it->second.empty()) queues.erase(it);
    }
    if (queues.empty()) queues_.erase(db_it);
  }
  call.positions.clear();
  if (call.in_deadline_index) {
    deadlines_.erase({call.deadline_us, client.id()});
    call.in_deadline_index = false;
  }
  KEEL_ASSERT(blocked_ > 0);
  if (--blocked_ == 0) {
    keyspace_.RemoveObserver(this);
    // Nobody is left to serve: keys that became ready for clients now gone are dropped.
    ready_.clear();
    ready_set_.clear();
  }
}

std::vector<BlockingTable::ReadyKey> BlockingTable::TakeReady() {
  std::vector<ReadyKey> taken;
  taken.swap(ready_);
  ready_set_.clear();
  return taken;
}

std::vector<Client*> BlockingTable::WaitersOf(int db, std::string_view key) const {
  auto db_it = queues_.find(db);
  if (db_it == queues_.end()) return {};
  auto it = db_it->second.find(key);
  if (it == db_it->second.end()) return {};
  return std::vector<Client*>(it->second.begin(), it->second.end());
}

uint64_t BlockingTable::FirstExpired(int64_t now_us) const {
  if (deadlines_.empty() || deadlines_.begin()->first >= now_us) return 0;
  return deadlines_.begin()->second;
}

void BlockingTable::MarkReady(int db, std::string_view key) {
  std::set<std::string, std::less<>>& marked = ready_set_[db];
  if (marked.find(key) != marked.end()) return;
  marked.emplace(key);
  ready_.push_back({db, std::string(key)});
}

void BlockingTable::KeyTouched(int db_index, std::string_view key) {
  auto db_it = queues_.find(db_index);
  if (db_it == queues_.end()) return;
  if (db_it->second.find(key) == db_it->second.end()) return;
  MarkReady(db_index, key);
}

void BlockingTable::DatabaseFlushed(int db_index) {
  // Every waited key of the database is gone: waiters that end when their key goes (XREADGROUP)
  // are told; the others find nothing and wait on.
  auto db_it = queues_.find(db_index);
  if (db_it == queues_.end()) return;
  for (const auto& [key, queue] : db_it->second) MarkReady(db_index, key);
}

void BlockingTable::DatabasesSwapped(int first, int second) {
  // Redis's scanDatabaseForReadyKeys: what a database holds changed as a whole, so every key
  // that clients wait for in either may now serve them.
  for (int db : {first, second}) {
    auto db_it = queues_.find(db);
    if (db_it == queues_.end()) continue;
    for (const auto& [key, queue] : db_it->second) MarkReady(db, key);
  }
}

}  // namespace keel
