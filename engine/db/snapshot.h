// Snapshot: a point-in-time copy of the keyspace, read a part at a time while writes go on.
//
// Redis forks and lets the kernel's copy-on-write keep the old pages; Keel serialises before it
// mutates, as Dragonfly's versioned buckets do. The snapshot walks each database in hash order
// (the order SCAN's cursor follows, which every resize preserves) and keeps, per database, the
// position it reached. Before the write path changes a key the snapshot has not reached yet, it
// tells the snapshot (KeyspaceObserver::BeforeKeyChange), which saves the key as it still is, or
// notes that it did not exist, and skips it when the walk gets there. A database about to be
// flushed is handed over to the snapshot whole, and SWAPDB needs nothing: the snapshot follows
// database objects, not indexes. So every key is saved exactly once, with the value, type and
// expiry it had when the snapshot began, and no write waits for more than one key's
// serialisation (a flush not even for that). Access clocks are read as they are when saved.
//
// The keyspace must outlive the snapshot; the sink sees entries only during Save.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/db/keyspace.h"

namespace keel {

class SnapshotSink {
 public:
  virtual ~SnapshotSink() = default;
  // One key as it was when the snapshot began; `db` is its database's index at that moment.
  // Keys come in no particular order, each once.
  virtual void Save(int db, const Entry& entry) = 0;
};

class Snapshot final : public KeyspaceObserver {
 public:
  // Begins the snapshot: from now on, the keyspace's state of this moment is what it saves.
  Snapshot(Keyspace& keyspace, SnapshotSink& sink);
  ~Snapshot() override;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Saves about `slots` more slots of the hash space. Returns false once every key was saved.
  bool Step(size_t slots);
  bool done() const { return current_ == parts_.size(); }
  // Keys saved ahead of the walk and not yet passed by it (their count bounds the memory the
  // snapshot holds beyond its position).
  size_t pending_ahead() const;

  // KeyspaceObserver.
  void BeforeKeyChange(const Database& db, std::string_view key, uint64_t hash) override;
  void BeforeFlush(std::unique_ptr<Database>* db) override;

 private:
  struct Part {
    const Database* db = nullptr;
    std::unique_ptr<Database> owned;  // a database flushed while the snapshot still read it
    int index = 0;
    uint64_t cursor = 0;  // hashes below it were walked
    bool walked = false;
    // Keys at or after the cursor that were saved (or found absent) before a change, by hash.
    std::multimap<uint64_t, std::string> ahead;
    // A filter of their hashes: one bit per range of hash space (the hash's top bits), set
    // for each key saved ahead. The walk asks about every key it meets, and under writes `ahead`
    // holds hundreds of thousands, so the common answer (not ahead) must not walk a tree: a key
    // whose bit is clear is not ahead, and only one whose bit is set is looked up in `ahead`.
    // Sized once, at about two bits per key the database had when the snapshot began, so it
    // never rehashes (a hash set of them would, all at once); bits are never cleared,
    // since the walk never asks about a hash it has passed.
    std::vector<uint64_t> ahead_filter;
    int filter_shift = 64;
  };
  static void MarkAhead(Part& part, uint64_t hash);
  static bool MaybeAhead(const Part& part, uint64_t hash);
  Part* PartFor(const Database& db);
  static bool IsAhead(const Part& part, std::string_view key, uint64_t hash);

  Keyspace& keyspace_;
  SnapshotSink& sink_;
  std::vector<Part> parts_;
  size_t current_ = 0;  // the part being walked
};

}  // namespace keel
