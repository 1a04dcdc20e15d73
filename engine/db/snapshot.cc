#include "engine/db/snapshot.h"

#include "engine/base/assert.h"

namespace keel {

Snapshot::Snapshot(Keyspace& keyspace, SnapshotSink& sink) : keyspace_(keyspace), sink_(sink) {
  parts_.resize(static_cast<size_t>(keyspace.database_count()));
  for (int i = 0; i < keyspace.database_count(); i++) {
    Part& part = parts_[static_cast<size_t>(i)];
    part.db = &keyspace.database(i);
    part.index = i;
    // 2^bits >= twice the keys, at least a word's worth.
    int bits = 6;
    while (bits < 32 && (size_t{1} << bits) < 2 * part.db->size()) bits++;
    part.filter_shift = 64 - bits;
    part.ahead_filter.assign(size_t{1} << (bits - 6), 0);
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

void Snapshot::MarkAhead(Part& part, uint64_t hash) {
  const uint64_t bit = hash >> part.filter_shift;
  part.ahead_filter[bit >> 6] |= uint64_t{1} << (bit & 63);
}

bool Snapshot::MaybeAhead(const Part& part, uint64_t hash) {
  const uint64_t bit = hash >> part.filter_shift;
  return (part.ahead_filter[bit >> 6] >> (bit & 63)) & 1;
}

bool Snapshot::IsAhead(const Part& part, std::string_view key, uint64_t hash) {
  if (!MaybeAhead(part, hash)) return false;
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
  MarkAhead(*part, hash);
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
      const uint64_t next =
          part.db->Scan(part.cursor, slots, [&](const Entry& entry, uint64_t hash) {
            if (!IsAhead(part, entry.key(), hash)) sink_.Save(part.index, entry);
          });
      // Keys saved ahead that the walk has now passed need no remembering.
      part.ahead.erase(part.ahead.begin(),
                       next == 0 ? part.ahead.end() : part.ahead.lower_bound(next));
      part.cursor = next;
      if (next != 0) return true;
    }
    part.walked = true;
    part.ahead.clear();
    part.ahead_filter = {};
    part.owned.reset();
    current_++;
    // One database per step at most, so that a step's work stays bounded by `slots`.
    if (current_ < parts_.size()) return true;
  }
  return false;
}

}  // namespace keel
