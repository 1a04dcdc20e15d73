// Database: one of the numbered keyspaces (SELECT 0..databases-1).
//
// Keys live in a hash-ordered KeyTable (key_table.h); entries come from the engine's
// SlabAllocator (slab.h). The table grows by 1.25x (and shrinks) incrementally: while a resize
// runs, keys whose hash is below a moving boundary are in the new table and the others in the
// old one, so a lookup probes exactly one table, and every insert, delete and cron tick moves a
// bounded number of slots across. Keys with an expiry are also listed in a vector (the entry
// knows its index) so that active expiry and volatile-* eviction can sample them uniformly.
// docs/KEYSPACE.md explains the design and its per-key cost.
//
// Pointers to entries stay valid until that entry is replaced, re-expired (SetExpiry may move
// it) or erased; table resizing never moves entries. Every allocation is accounted and a refused
// one fails the operation with nothing changed.
//
// The mutating methods are the storage layer: only the Keyspace (keyspace.h), which wraps every
// write with the write path's bookkeeping, and this class's own tests call them. Everyone else
// sees databases as const through Keyspace::database().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/base/rng.h"
#include "engine/db/entry.h"
#include "engine/db/key_table.h"
#include "engine/db/slab.h"
#include "engine/db/value_ops.h"
#include "engine/env/memory.h"

namespace keel {

class HashValue;

// The keyspace's notion of "now" for access tracking, shared by an engine's databases and
// updated by the engine once per command (Redis's LRU clock and its LFU settings).
struct AccessClock {
  uint32_t lru_clock = 0;    // seconds, 24 bits (Redis's LRU_CLOCK with 1 s resolution)
  bool lfu = false;          // maxmemory-policy is an LFU one: new keys start at LFU_INIT_VAL
  uint32_t lfu_minutes = 0;  // minutes, 16 bits (Redis's LFUGetTimeInMinutes)
  // Whether a new integer value of 0..9999 is one of Redis's shared integers: unless maxmemory
  // is set with an LRU or LFU policy, which needs a private access clock per key (Redis's
  // MAXMEMORY_FLAG_NO_SHARED_INTEGERS).
  bool shared_integers = true;

  // The access clock a new key starts with.
  uint32_t Initial() const {
    return lfu ? ((lfu_minutes & 0xffff) << 8) | kLfuInitialCount : lru_clock;
  }
  static constexpr uint32_t kLfuInitialCount = 5;  // Redis's LFU_INIT_VAL
};

class Database {
 public:
  Database(MemoryAccountant& memory, SlabAllocator& slab, const AccessClock& clock,
           uint64_t hash_seed);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // The hash of `key` in this database. Commands that look a key up and then write it hash once
  // and pass the hash to both calls.
  uint64_t Hash(std::string_view key) const;

  // The entry for `key`, or nullptr. Ignores expiry: callers decide (see keyspace.h).
  Entry* Find(std::string_view key) { return Find(key, Hash(key)); }
  Entry* Find(std::string_view key, uint64_t hash);
  // The same for readers of a const database (no lookup cache).
  const Entry* FindConst(std::string_view key, uint64_t hash) const;
  const Entry* Find(std::string_view key) const { return FindConst(key, Hash(key)); }
  uint64_t hash_seed() const { return hash_seed_; }

  enum class SetOutcome : uint8_t { kInserted, kReplaced, kOutOfMemory };
  // Makes `key` hold the string `value` with `expire_at_ms` (kNoExpiry for none) and `encoding`
  // (what OBJECT ENCODING reports; by default what Redis gives a value stored as given),
  // replacing any previous value of any type. kInt is only for a value in Redis's strict integer
  // form (as StringEncodingFor finds it). A kInt value of 0..9999 is stored as kIntShared
  // when the access clock says integers are shared, as Redis then stores a shared object. A
  // replaced string of the same size and expiry presence is overwritten in place. On
  // kOutOfMemory nothing changed.
  SetOutcome SetString(std::string_view key, std::string_view value, int64_t expire_at_ms) {
    return SetString(key, Hash(key), value, expire_at_ms, StringEncodingFor(value));
  }
  SetOutcome SetString(std::string_view key, uint64_t hash, std::string_view value,
                       int64_t expire_at_ms, ObjectEncoding encoding);

  // Makes `key` hold the external string `external` (a SET of a large argument: see entry.h),
  // replacing whatever it held, with `expire_at_ms`. The entry owns the string's block once this
  // returns anything but kOutOfMemory; on kOutOfMemory nothing changed and the block is the
  // caller's.
  SetOutcome AdoptString(std::string_view key, uint64_t hash, const ExternalString& external,
                         int64_t expire_at_ms);

  // Two-phase replacement, for commands that write several existing keys all or nothing (MSET):
  // PrepareString allocates the entry SetString would store for `key` without touching the table
  // (nullptr when memory is refused); CommitPrepared puts it in place of `key`'s entry, which
  // must exist, and cannot fail; DiscardPrepared frees a prepared entry that will not be used.
  Entry* PrepareString(std::string_view key, std::string_view value, int64_t expire_at_ms,
                       ObjectEncoding encoding);
  void CommitPrepared(Entry* prepared, uint64_t hash);
  void DiscardPrepared(Entry* prepared) { FreeEntry(prepared); }

  // Makes `key` hold a copy of `source`'s type, encoding, value bytes and access clock, with
  // `expire_at_ms`, replacing any entry `key` has (RENAME, COPY and MOVE). `source` may belong to
  // another database but must not be `key`'s own entry here. The copy is made before anything is
  // replaced, so on nullptr (memory refused) nothing changed.
  //
  // kDeep copies the value (COPY); kTransfer moves its ownership to the new entry without copying
  // (RENAME, MOVE; every database of a keyspace shares its accountant): the caller then removes the
  // source with Erase(..., kKeepValue), so that the value is not destroyed with it.
  enum class CopyMode : uint8_t { kDeep, kTransfer };
  Entry* StoreCopy(std::string_view key, uint64_t hash, const Entry& source, int64_t expire_at_ms,
                   CopyMode mode = CopyMode::kDeep);

  // Makes `key` hold an object-typed value (any type but string): the entry owns `object`, which
  // was allocated through this database's MemoryAccountant and is destroyed by the type's
  // operations (value_ops.h) with the entry. Replaces any previous value. On kOutOfMemory nothing
  // changed and the caller still owns `object`.
  SetOutcome SetObject(std::string_view key, uint64_t hash, ValueType type, ObjectEncoding encoding,
                       void* object, int64_t expire_at_ms);

  // SETRANGE's and APPEND's edit of the string `entry` (this database's entry for a key whose
  // hash is `hash`): writes `patch` at `offset`, zero-filling any gap after the old end, and
  // leaves the value raw, with its expiry and, for a raw value, its access clock (an int or
  // embstr value becomes a new raw object in Redis, with a new clock). A value that does not
  // grow is edited in place. One that grows moves to a growable block with room to spare, as
  // Redis's sdsMakeRoomFor gives an sds string (twice the new size below 1 MiB, 1 MiB more
  // above), and grows in place while that room lasts: appending costs amortised O(1) per byte.
  // Returns the entry, which may have moved, or nullptr when memory is refused (then nothing
  // changed). offset + patch.size() must be at most UINT32_MAX.
  Entry* WriteStringRange(Entry* entry, uint64_t hash, size_t offset, std::string_view patch);

  // Sets or clears (kNoExpiry) the expiry of `entry`, which belongs to this database. Returns the
  // entry, which may have moved (adding or removing an expiry changes its size), or nullptr when
  // memory is refused (then nothing changed).
  Entry* SetExpiry(Entry* entry, int64_t expire_at_ms);

  // Removes `key` and destroys its value; returns whether it existed. kKeepValue removes the
  // entry only: its value was transferred to another entry (StoreCopy's kTransfer).
  enum class EraseMode : uint8_t { kDestroyValue, kKeepValue };
  bool Erase(std::string_view key) { return Erase(key, Hash(key)); }
  bool Erase(std::string_view key, uint64_t hash, EraseMode mode = EraseMode::kDestroyValue);

  // Removes every key and gives the memory back. The emptied database hashes with a new seed.
  void Clear();

  // Keys whose hash has field TTLs (Redis 7.4's db->hexpires), for the active expiry cycle to
  // visit: a set of names kept as a HashValue (so its memory is accounted). A name stays until
  // the cycle finds it stale (deleted, renamed, retyped, or without TTLs left). False when memory
  // is refused: the hash's fields then expire only when a command touches it.
  bool NoteFieldExpiry(std::string_view key);
  void ForgetFieldExpiry(std::string_view key);
  size_t field_expiry_key_count() const;
  // Up to about `count` names from the set, continuing where the last call stopped (a round
  // over the set starts again once it ends).
  void NextFieldExpiryKeys(size_t count, std::vector<std::string>* keys);

  size_t size() const;
  size_t expires_count() const { return volatile_.size(); }

  // SCAN: visits entries whose hash is at or after `cursor` for about `count` slots and returns
  // the cursor to continue from (0 once everything was visited). `visit` takes the entry, or the
  // entry and its hash. A key present for the whole
  // scan is visited at least once whatever resizes happen in between; the cursor is a position in
  // hash space, not in a table.
  template <typename Visit>
  uint64_t Scan(uint64_t cursor, size_t count, Visit&& visit) const;

  // A random entry (nullptr when empty), and a random entry among those with an expiry.
  Entry* RandomEntry(Rng& rng);
  Entry* RandomVolatileEntry(Rng& rng);

  // Visits every entry. `visit` must not change the database.
  template <typename Visit>
  void ForEach(Visit&& visit) const;

  // Makes room for `keys` keys at once (Redis's dictExpand on an RDB's RESIZEDB), so that a
  // load does not grow the table step by step, moving every key again at each step. Only grows;
  // a refused allocation leaves the table as it was (the inserts grow it as usual).
  void Reserve(size_t keys);

  // Moves up to `slots` slots of a running resize (cron calls it; inserts and deletes call it
  // with a small budget). Returns whether a resize is still running.
  bool ResizeStep(size_t slots);
  bool resizing() const { return next_ != nullptr; }

  // Bytes of the slot arrays (INFO used_memory_overhead-style figures and docs/KEYSPACE.md).
  size_t table_bytes() const;

  // The structure's invariants (tests, simulator, fuzzing): ordering in both tables, the
  // resize boundary, entry counts and the volatile list.
  bool CheckInvariants() const;
  // The longest run of occupied slots in either table (tests: inserts walk runs).
  size_t LongestRun() const;

 private:
  static uint64_t HashWithSeed(const void* context, std::string_view key);
  KeyTable& TableFor(uint64_t hash) {
    return next_ != nullptr && hash < boundary_ ? *next_ : *main_;
  }
  const KeyTable& TableFor(uint64_t hash) const {
    return next_ != nullptr && hash < boundary_ ? *next_ : *main_;
  }
  Entry* NewEntry(ValueType type, ObjectEncoding encoding, std::string_view key, size_t value_size,
                  int64_t expire_at_ms);
  Entry* NewGrowableEntry(std::string_view key, size_t value_size, size_t capacity,
                          int64_t expire_at_ms);
  // Frees an entry's block; DestroyEntry first destroys what its value owns (value_ops.h).
  void FreeEntry(Entry* entry);
  void DestroyEntry(Entry* entry);
  void TrackExpiry(Entry* entry);
  void UntrackExpiry(Entry* entry);
  // Puts `replacement` in `old`'s place in the table and the volatile list, and frees `old`:
  // destroying its value when `replacement` holds another one, not when it holds `old`'s value
  // moved to a new block (kMoved).
  enum class Replaced : uint8_t { kOtherValue, kMoved };
  void ReplaceEntry(Entry* old, uint64_t hash, Entry* replacement, Replaced replaced);
  // Inserts a new entry or replaces `key`'s, as SetString and SetObject end.
  SetOutcome Place(Entry* old, uint64_t hash, Entry* entry);
  bool Insert(Entry* entry, uint64_t hash);
  void MaybeStartResize(bool may_shrink);
  void FinishResize();
  template <typename Visit>
  static void VisitRange(const KeyTable& table, uint64_t low, uint64_t high, bool high_is_end,
                         uint64_t seed, Visit&& visit);

  MemoryAccountant& memory_;
  SlabAllocator& slab_;
  const AccessClock& clock_;
  uint64_t hash_seed_;
  std::unique_ptr<KeyTable> main_;
  std::unique_ptr<KeyTable> next_;          // the resize target, or null
  uint64_t boundary_ = 0;                   // while resizing: hashes below it live in next_
  size_t migrated_slot_ = 0;                // while resizing: main_'s slots below it are moved
  std::vector<Entry*> volatile_;            // entries with an expiry (each knows its index)
  HashValue* field_expiry_keys_ = nullptr;  // see NoteFieldExpiry
  uint64_t field_expiry_cursor_ = 0;
  // The last entry Find returned: a command that looks a key up and then writes it (SET, INCR,
  // APPEND, ...) finds it again without probing. Cleared when that entry is freed.
  Entry* last_found_ = nullptr;
  uint64_t last_found_hash_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Template implementations.

template <typename Visit>
void Database::VisitRange(const KeyTable& table, uint64_t low, uint64_t high, bool high_is_end,
                          uint64_t seed, Visit&& visit) {
  if (!table.allocated() || table.size() == 0) return;
  const size_t begin = HomeSlot(low, table.home_slots());
  // Every entry whose home is at or before high's home lies before the next boundary after it.
  const size_t end =
      high_is_end ? table.slot_count() : table.NextBoundary(HomeSlot(high, table.home_slots()) + 1);
  table.VisitSlots(begin, end, [&](Entry& entry) {
    const uint64_t hash = HashWithSeed(&seed, entry.key());
    if (hash < low || (!high_is_end && hash >= high)) return;
    // A visitor that takes the hash gets it (the snapshot's walk), rather than hashing again.
    if constexpr (std::is_invocable_v<Visit&, Entry&, uint64_t>) {
      visit(entry, hash);
    } else {
      visit(entry);
    }
  });
}

template <typename Visit>
uint64_t Database::Scan(uint64_t cursor, size_t count, Visit&& visit) const {
  if (size() == 0) return 0;
  if (count == 0) count = 1;
  // The chunk ends at a boundary slot of the table that holds the cursor's hash: its first hash
  // is the next cursor. Both tables are then swept for the hash range [cursor, next).
  const KeyTable& primary = TableFor(cursor);
  const size_t start = HomeSlot(cursor, primary.home_slots());
  const size_t stop = primary.NextBoundary(start + count);
  bool past_end = false;
  const uint64_t next = FirstHashOfSlot(stop, primary.home_slots(), &past_end);
  const bool to_end = past_end || next == 0;
  VisitRange(*main_, cursor, next, to_end, hash_seed_, visit);
  if (next_ != nullptr) VisitRange(*next_, cursor, next, to_end, hash_seed_, visit);
  return to_end ? 0 : next;
}

template <typename Visit>
void Database::ForEach(Visit&& visit) const {
  main_->VisitSlots(0, main_->slot_count(), visit);
  if (next_ != nullptr) next_->VisitSlots(0, next_->slot_count(), visit);
}

}  // namespace keel
