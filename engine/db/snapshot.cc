#include "engine/db/snapshot.h"

#include "engine/base/assert.h"

namespace keel {

Snapshot::Snapshot(Keyspace& keyspace, SnapshotSink& sink) : keyspace_(keyspace), sink_(sink) {
  parts_.resize(static_cast<size_t>(keyspace.database_count()));
  for (int i = 0; i < keyspace.database_count(); i++) {
    parts_[static_cast<size_t>(i)].db = &keyspace.database(i);
    parts_[static_cast<size_t>(i)].index = i;
  }
  keyspace_.AddObserver(this);
}

Snapshot::~Snapshot() { keyspace_.RemoveObserver(this); }

size_t Snapshot::pending_ahead() const {
  size_t count = 0;
  for (const Part& part : parts_) count += part.ahead.size();
  return count;
}

Snapshot::Part* Snapshot::PartFor(const Database& db) {
  for (Part& part : parts_) {
    if (part.db == &db) return part.walked ? nullptr : &part;
  }
  return nullptr;  // a database that replaced a flushed one: not part of the snapshot
}

bool Snapshot::IsAhead(const Part& part, std::string_view key, uint64_t hash) {
  auto [begin, end] = part.ahead.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    if (it->second == key) return true;
  }
  return false;
}

void Snapshot::BeforeKeyChange(const Database& db, std::string_view key, uint64_t hash) {
  Part* part = PartFor(db);
  if (part == nullptr || hash < part->cursor || IsAhead(*part, key, hash)) return;
  // Not reached yet and about to change: save it as it is now (or note that it did not exist,
  // so that the walk does not save what this write creates).
  if (const Entry* entry = db.FindConst(key, hash)) sink_.Save(part->index, *entry);
  part->ahead.emplace(hash, std::string(key));
}

void Snapshot::BeforeFlush(std::unique_ptr<Database>* db) {
  Part* part = PartFor(**db);
  if (part == nullptr) return;
  // The walk goes on over the old contents, which nothing can change any more.
  part->owned = std::move(*db);
}

bool Snapshot::Step(size_t slots) {
  while (current_ < parts_.size()) {
    Part& part = parts_[current_];
    if (part.db->size() > 0) {
      const uint64_t next = part.db->Scan(part.cursor, slots, [&](const Entry& entry) {
        const std::string_view key = entry.key();
        const uint64_t hash = part.db->Hash(key);
        if (!IsAhead(part, key, hash)) sink_.Save(part.index, entry);
      });
      // Keys saved ahead that the walk has now passed need no remembering.
      part.ahead.erase(part.ahead.begin(),
                       next == 0 ? part.ahead.end() : part.ahead.lower_bound(next));
      part.cursor = next;
      if (next != 0) return true;
    }
    part.walked = true;
    part.ahead.clear();
    part.owned.reset();
    current_++;
    // One database per step at most, so that a step's work stays bounded by `slots`.
    if (current_ < parts_.size()) return true;
  }
  return false;
}

}  // namespace keel
