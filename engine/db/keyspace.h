// Keyspace: the databases, and the one path through which they are read and written.
//
// Every creation, change and deletion of a key, whether a command, lazy or active expiry,
// eviction, FLUSHDB/FLUSHALL, SWAPDB, MOVE or RENAME makes it, is one call here, and every call
// does the same things around the write (Redis repeats them in each handler; docs/DESIGN.md
// section 6 draws the path):
//   before  BeforeKeyChange to the observers (the point-in-time snapshot hook, snapshot.h);
//   after   the dirty counter (INFO rdb_changes_since_last_save; Redis's server.dirty), the key
//           touched (WATCH, tracking), the keyspace events with Redis's names and classes
//           (notify.h), and for deletions the server makes on its own behalf (expiry,
//           eviction) the DEL or UNLINK that propagation must replay (propagation.h).
// What a command propagates for itself is the command layer's business (it knows the command's
// arguments); the keyspace only counts the change that makes a command propagate.
//
// Reads go through Lookup, writes' lookups through LookupWrite: both reclaim an expired key (lazy
// expiry), update the access clock and, for reads, count hits and misses. A read lookup gives a
// const entry; a write lookup gives a mutable one and announces the key to the snapshot hook
// first, so whatever a command then does to the entry in place, the snapshot saw it before.
//
// Database (database.h) is the storage underneath; its mutating methods are for the keyspace
// and the storage's own tests. Outside engine/db/, code reaches databases only as const.
//
// The keyspace depends on nothing above engine/db/: its settings are copied in by the engine
// when the configuration changes (set_settings), its time by the engine per command.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/base/rng.h"
#include "engine/db/database.h"
#include "engine/db/keyspace_observer.h"
#include "engine/db/maxmemory_policy.h"
#include "engine/db/notify.h"
#include "engine/db/propagation.h"
#include "engine/db/slab.h"
#include "engine/env/memory.h"

namespace keel {

// The configuration the keyspace acts on (a copy of the engine's, refreshed on every change).
struct KeyspaceSettings {
  int64_t maxmemory_bytes = 0;
  MaxmemoryPolicy maxmemory_policy = MaxmemoryPolicy::kNoeviction;
  int64_t maxmemory_samples = 5;
  int64_t maxmemory_eviction_tenacity = 10;
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time_minutes = 1;
  int64_t active_expire_effort = 1;
  int64_t hz = 10;
  bool lazyfree_lazy_expire = false;    // expired keys are propagated as UNLINK, not DEL
  bool lazyfree_lazy_eviction = false;  // evicted keys likewise
  uint32_t notify_classes = 0;          // notify-keyspace-events, as NotifyClass bits

  bool lfu() const {
    return maxmemory_policy == MaxmemoryPolicy::kAllkeysLfu ||
           maxmemory_policy == MaxmemoryPolicy::kVolatileLfu;
  }
};

// The counters INFO stats reports about the keyspace.
struct KeyspaceStats {
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_keys = 0;
  uint64_t evicted_keys = 0;
  uint64_t expired_subkeys = 0;  // hash fields past their TTL (Redis 7.4)
};

enum LookupFlag : uint8_t {
  kLookupNone = 0,
  kLookupNoTouch = 1 << 0,   // leave the access clock alone (OBJECT, and CLIENT NO-TOUCH)
  kLookupNoNotify = 1 << 1,  // no keymiss event (OBJECT)
};
constexpr LookupFlag operator|(LookupFlag a, LookupFlag b) {
  return static_cast<LookupFlag>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}

enum class ExpiryOutcome : uint8_t {
  kSet,          // the key has the new expiry
  kDeleted,      // the time was not in the future: the key is gone
  kOutOfMemory,  // the entry could not be resized: nothing changed
};

// Whether `entry` has expired at `now_ms`. As in Redis (keyIsExpired: now > when), a key is
// still there during its expiry millisecond and gone the millisecond after.
inline bool IsExpired(const Entry& entry, int64_t now_ms) {
  return entry.has_expiry() && entry.expire_at_ms() < now_ms;
}

class Keyspace {
 public:
  // `rng` draws the databases' hash seeds and the LFU counters' increments.
  Keyspace(MemoryAccountant& memory, Rng& rng, int database_count);
  ~Keyspace();
  Keyspace(const Keyspace&) = delete;
  Keyspace& operator=(const Keyspace&) = delete;

  int database_count() const { return static_cast<int>(databases_.size()); }
  const Database& database(int db) const { return *databases_[Index(db)]; }
  uint64_t Hash(int db, std::string_view key) const { return database(db).Hash(key); }
  // Room for `keys` keys in database `db` (Database::Reserve): an RDB's RESIZEDB.
  void Reserve(int db, size_t keys) { mutable_database(db).Reserve(keys); }
  SlabAllocator& slab() { return slab_; }
  const AccessClock& access_clock() const { return access_clock_; }
  KeyspaceStats& stats() { return stats_; }
  const KeyspaceSettings& settings() const { return settings_; }
  void set_settings(const KeyspaceSettings& settings);
  Propagation& propagation() { return propagation_; }

  // The changes made since the counter was last reset: Redis's server.dirty (INFO
  // rdb_changes_since_last_save). A command that changed it is propagated.
  uint64_t dirty() const { return dirty_; }
  void ResetDirty() { dirty_ = 0; }
  // A change that is not to a key (FUNCTION LOAD, DELETE...): counted as one, so that the save
  // rules see it and the command that made it is propagated.
  void CountChange() { dirty_++; }
  // A save covered the first `changes` changes (Redis's dirty - dirty_before_bgsave).
  void ForgetDirty(uint64_t changes) { dirty_ = dirty_ > changes ? dirty_ - changes : 0; }

  // Observers must outlive their registration.
  void AddObserver(KeyspaceObserver* observer);
  void RemoveObserver(KeyspaceObserver* observer);
  bool observed() const { return !observers_.empty(); }

  // --- Time -----------------------------------------------------------------------------
  // The command-time snapshot every expiry decision uses, and the access clocks derived from it
  // (Redis's LRU clock in seconds, LFU's in minutes).
  // Inline, and the clocks recomputed only when the millisecond changes: every command sets it,
  // and a pipeline's commands mostly share one.
  void SetCommandTime(int64_t command_time_ms) {
    if (command_time_ms == command_time_ms_) return;  // the clocks start at 0, as the time
    command_time_ms_ = command_time_ms;
    SetAccessClocks(command_time_ms);
  }
  int64_t command_time_ms() const { return command_time_ms_; }
  // While writes are paused (CLIENT PAUSE WRITE or ALL) nothing expires or is evicted: an expired
  // key reads as missing but stays.
  void set_writes_paused(bool paused) { writes_paused_ = paused; }
  bool writes_paused() const { return writes_paused_; }
  // Redis's checkAlreadyExpired: a command that gives a key the absolute time `expire_at_ms`
  // deletes it instead when that time is not after the command time. Never while expiry is
  // decided elsewhere.
  bool ExpiryIsPast(int64_t expire_at_ms) const {
    return decides_expiry_ && expire_at_ms <= command_time_ms_;
  }
  // Whether this keyspace decides when keys expire (true), or follows what a primary or the AOF
  // being loaded says (false): then a key past its time is still live to lookups, and a past
  // expiry is set rather than taken for a deletion, until the DEL that the primary (or the
  // AOF) sends, as on a Redis replica or while Redis loads. Engine::Call switches it for
  // commands from the primary and from the AOF.
  void set_decides_expiry(bool decides) { decides_expiry_ = decides; }
  bool decides_expiry() const { return decides_expiry_; }
  // Whether the write being announced is the server's own deletion (expiry, eviction) rather
  // than a command's: client tracking attributes those to no client (Redis's
  // signalModifiedKey(NULL, ...)).
  bool server_deletion() const { return server_deletion_; }

  // --- Lookups --------------------------------------------------------------------------
  // The live entry for `key` in database `db`, or nullptr: deletes it when it has expired
  // (DeleteExpired), updates its access clock unless kLookupNoTouch. Lookup counts keyspace
  // hits and misses and announces a miss (keymiss); LookupWrite does neither, and announces the
  // key to BeforeKeyChange before returning it, so its entry may be changed in place (then
  // announce the change with KeyChanged).
  const Entry* Lookup(int db, std::string_view key, LookupFlag flags = kLookupNone) {
    return Lookup(db, key, Hash(db, key), flags);
  }
  const Entry* Lookup(int db, std::string_view key, uint64_t hash, LookupFlag flags = kLookupNone) {
    Entry* entry = mutable_database(db).Find(key, hash);
    if (entry == nullptr || (decides_expiry_ && IsExpired(*entry, command_time_ms_))) {
      return LookupMissed(db, key, hash, flags, entry);
    }
    if (!(flags & kLookupNoTouch)) TouchEntry(*entry);
    stats_.keyspace_hits++;
    return entry;
  }
  Entry* LookupWrite(int db, std::string_view key, LookupFlag flags = kLookupNone) {
    return LookupWrite(db, key, Hash(db, key), flags);
  }
  Entry* LookupWrite(int db, std::string_view key, uint64_t hash, LookupFlag flags = kLookupNone) {
    Entry* entry = mutable_database(db).Find(key, hash);
    if (entry == nullptr) return nullptr;
    if (decides_expiry_ && IsExpired(*entry, command_time_ms_)) {
      if (!writes_paused_) DeleteExpired(db, key, hash);
      return nullptr;
    }
    if (!(flags & kLookupNoTouch)) TouchEntry(*entry);
    BeforeChange(db, key, hash);
    return entry;
  }
  // The entry with no expiry check, no clock update and no statistics: for walks that decide
  // themselves (SCAN, KEYS, RANDOMKEY).
  const Entry* Peek(int db, std::string_view key, uint64_t hash) const;

  // --- Writes ---------------------------------------------------------------------------
  // Each announces `event` (after "new" when it created the key), counts one change and touches
  // the key, on success only; on failure (memory refused) nothing changed.

  // Makes `key` hold the string `value` (see Database::SetString).
  Database::SetOutcome SetString(int db, std::string_view key, uint64_t hash,
                                 std::string_view value, int64_t expire_at_ms,
                                 ObjectEncoding encoding, KeyEvent event) {
    BeforeChange(db, key, hash);
    const Database::SetOutcome outcome =
        mutable_database(db).SetString(key, hash, value, expire_at_ms, encoding);
    if (outcome != Database::SetOutcome::kOutOfMemory) {
      Changed(db, key, event, outcome == Database::SetOutcome::kInserted);
    }
    return outcome;
  }
  // Makes `key` hold the external string `external` (see Database::AdoptString).
  Database::SetOutcome AdoptString(int db, std::string_view key, uint64_t hash,
                                   const ExternalString& external, int64_t expire_at_ms,
                                   KeyEvent event) {
    BeforeChange(db, key, hash);
    const Database::SetOutcome outcome =
        mutable_database(db).AdoptString(key, hash, external, expire_at_ms);
    if (outcome != Database::SetOutcome::kOutOfMemory) {
      Changed(db, key, event, outcome == Database::SetOutcome::kInserted);
    }
    return outcome;
  }
  // MSET's two phases (see Database::PrepareString): CommitPrepared is the write.
  Entry* PrepareString(int db, std::string_view key, std::string_view value, int64_t expire_at_ms,
                       ObjectEncoding encoding);
  void CommitPrepared(int db, Entry* prepared, uint64_t hash, KeyEvent event);
  void DiscardPrepared(int db, Entry* prepared);
  // SETRANGE's and APPEND's edit of `entry` (see Database::WriteStringRange).
  Entry* WriteStringRange(int db, Entry* entry, uint64_t hash, size_t offset,
                          std::string_view patch, KeyEvent event);
  // The bit commands' edit (Redis's lookupStringForBitCommand): makes the string `entry` raw and
  // at least `size` bytes long, zero padded, so that the caller can then change its bytes in
  // place (entry->mutable_value()). Counts and announces nothing: the command announces what it
  // changed with KeyChanged. Returns the entry, which may have moved, or nullptr when memory is
  // refused (then nothing changed). REQUIRES: size <= UINT32_MAX.
  Entry* GrowString(int db, Entry* entry, uint64_t hash, size_t size);
  // Gives the live key `*entry` the absolute expiry `expire_at_ms` (any int64, never "no
  // expiry"): when ExpiryIsPast it deletes the key instead (announced as "del"; Redis
  // propagates that as DEL), else announces "expire". `*entry` follows the entry (adding an
  // expiry may move it) and is null once deleted.
  ExpiryOutcome SetExpiry(int db, Entry** entry, int64_t expire_at_ms);
  // PERSIST and GETEX PERSIST: removes the expiry `*entry` has ("persist"). False when the entry
  // could not be resized (nothing changed).
  bool RemoveExpiry(int db, Entry** entry);
  // Deletes `key` for a command (DEL, UNLINK, GETDEL, ...), announced as `event`. Returns
  // whether it existed.
  bool Delete(int db, std::string_view key, uint64_t hash, KeyEvent event = events::kDel);
  // RENAME: `from` (which must exist) takes the name `to` in the same database, replacing what
  // `to` held; announced as "rename_from" and "rename_to". False on refused memory.
  bool Rename(int db, std::string_view from, uint64_t from_hash, std::string_view to,
              uint64_t to_hash);
  // COPY: `to` in `target_db` becomes a copy of `source` (an entry of `source_db` that `to` is
  // not), replacing what it held; the copy is a new value (fresh access clock, never a shared
  // integer), announced as "copy_to". False on refused memory.
  bool Copy(int source_db, const Entry& source, int target_db, std::string_view to,
            uint64_t to_hash);
  // MOVE: `key` (which must exist in `source_db` and not in `target_db`) goes to `target_db` with
  // its value, expiry and access clock; "move_from" and "move_to". False on refused memory.
  bool Move(int source_db, std::string_view key, uint64_t source_hash, int target_db,
            uint64_t target_hash);
  // RESTORE: `key` holds the string `value` anew, with `access_clock`, replacing what it held.
  // Announced as "new" then "restore" even when a key was replaced (Redis deletes the old key and
  // adds the restored one); one change. On kOutOfMemory nothing changed.
  Database::SetOutcome Restore(int db, std::string_view key, uint64_t hash, std::string_view value,
                               int64_t expire_at_ms, uint32_t access_clock);
  // Makes `key` hold the object-typed value `object` (see Database::SetObject), replacing what
  // it held: announced as `event` (after "new" when created), counting `changes` changes, as
  // Redis's dirty counter counts one per element an LPUSH adds. On kOutOfMemory nothing changed
  // and the caller still owns `object`.
  Database::SetOutcome SetObject(int db, std::string_view key, uint64_t hash, ValueType type,
                                 ObjectEncoding encoding, void* object, int64_t expire_at_ms,
                                 KeyEvent event, uint64_t changes);
  // RESTORE of an object-typed value: as Restore, with the entry owning `object` on success.
  Database::SetOutcome RestoreObject(int db, std::string_view key, uint64_t hash, ValueType type,
                                     ObjectEncoding encoding, void* object, int64_t expire_at_ms,
                                     uint32_t access_clock);
  // Deletes `key`, whose aggregate value the command emptied (Redis deletes an empty list, set,
  // ...): announced as "del" but not counted, as the command counted its own changes.
  void DeleteEmptied(int db, std::string_view key, uint64_t hash);
  // Removes every key of `db` (FLUSHDB), of every database (FlushAll). Returns the keys removed,
  // which is what the dirty counter grows by.
  size_t Flush(int db);
  size_t FlushAll();
  // SWAPDB: the two databases exchange their contents (one change, also when they are the same
  // database). Clients keep their index, so a client of `first` sees what was `second`'s.
  void Swap(int first, int second);
  // Announces an event that comes with another write of the same command (SET ... EX announces
  // "expire" after "set"). No change is counted.
  void Notify(int db, KeyEvent event, std::string_view key);
  // After a command changed a LookupWrite entry in place: counts the change, touches the key
  // and announces `event`.
  void KeyChanged(int db, std::string_view key, KeyEvent event);
  // The same counting `changes` changes: several (LREM's removals, LTRIM's), or none (an LTRIM
  // that removed nothing still touches the key and announces "ltrim", but is not propagated).
  void KeyChanged(int db, std::string_view key, KeyEvent event, uint64_t changes);
  // DEBUG POPULATE's write (Redis's bare dbAdd): stores the string `value` as `key`, which
  // holds no live value, announcing "new" only and counting no change. False on refused memory.
  bool Populate(int db, std::string_view key, uint64_t hash, std::string_view value);

  // Writes made while a QuietWrites lives count as changes but announce nothing (no touch, no
  // event): the command announces them afterwards with AnnounceWrite, in the order Redis would
  // have (MSET writes new keys and replaced ones in two phases, for all-or-nothing, but
  // announces them in argument order).
  class QuietWrites {
   public:
    explicit QuietWrites(Keyspace& keyspace) : keyspace_(keyspace) {
      KEEL_ASSERT(!keyspace.quiet_);
      keyspace.quiet_ = true;
    }
    ~QuietWrites() { keyspace_.quiet_ = false; }
    QuietWrites(const QuietWrites&) = delete;
    QuietWrites& operator=(const QuietWrites&) = delete;

   private:
    Keyspace& keyspace_;
  };
  void AnnounceWrite(int db, std::string_view key, KeyEvent event, bool created);
  // Takes back a key this command created quietly (an all-or-nothing write that failed part
  // way): deletes it without counting or announcing anything, and uncounts its creation.
  void UndoCreate(int db, std::string_view key);

  // --- The server's own deletions -------------------------------------------------------
  // The one place where a key is deleted because its time has passed (lazy expiry in the
  // lookups, and the active expiry cycle): counts expired_keys, announces "expired", propagates
  // DEL (UNLINK with lazyfree-lazy-expire). Not a change for the dirty counter, as in Redis.
  void DeleteExpired(int db, std::string_view key, uint64_t hash);
  // The one place where hash fields are deleted because their TTL passed (lazily, before a hash
  // command reads or writes `key`, and by the active cycle): removes up to `max` fields of the
  // hash `key` whose time is before the command time, propagating HDEL key field for each and
  // announcing "hexpired" (and "del" when the hash is left empty, which deletes it). Counts no
  // change, as Redis. Nothing while expiry is decided elsewhere or writes are paused. Returns the
  // fields removed.
  size_t ExpireHashFields(int db, std::string_view key, uint64_t hash, size_t max) {
    return ExpireHashFields(db, key, hash, max, command_time_ms_);
  }
  // The same deciding at `now_ms` (the active cycle's time).
  size_t ExpireHashFields(int db, std::string_view key, uint64_t hash, size_t max, int64_t now_ms);
  // Lists `key` (a hash that has field TTLs) for the active cycle (Database::NoteFieldExpiry).
  void NoteFieldExpiry(int db, std::string_view key);
  // The active cycle's step for hash fields in `db`: visits up to `keys` listed hashes, expiring
  // at most `fields_quota` fields in all, and drops the names found stale. Returns the fields
  // expired.
  size_t ActiveExpireHashFields(int db, size_t keys, size_t fields_quota, int64_t now_ms);
  // The one place where eviction deletes a key: evicted_keys, DEL (or UNLINK), then "evicted"
  // once it is gone. `key` must not point into the entry (the evictor passes its own copy).
  void Evict(int db, std::string_view key);

  // --- Access tracking ------------------------------------------------------------------
  // Redis's LFUDecrAndReturn: the entry's LFU counter after the decay due since its last access.
  uint32_t LfuCounter(const Entry& entry) const;
  // Redis's estimateObjectIdleTime in milliseconds, from the entry's LRU clock.
  int64_t IdleTimeMs(const Entry& entry) const;
  // Random entries (RANDOMKEY, eviction and expiry sampling), without expiry checks.
  const Entry* RandomEntry(int db);
  const Entry* RandomVolatileEntry(int db);
  Rng& rng() { return rng_; }
  MemoryAccountant& memory() { return memory_; }

  // The entry of `key` as stored, for tests that plant what no command can make yet (a value of
  // a type without commands). Bypasses the write path.
  Entry* MutableEntryForTesting(int db, std::string_view key) {
    return mutable_database(db).Find(key);
  }

  // Moves every database's running resize on by up to `slots` slots (cron).
  void ResizeStep(size_t slots);
  bool CheckInvariants() const;

 private:
  // Flush without FlushSignalled (FlushAll signals once for all databases).
  size_t FlushOne(int db);
  void SetAccessClocks(int64_t command_time_ms);
  size_t Index(int db) const {
    KEEL_DASSERT(db >= 0 && db < database_count());
    return static_cast<size_t>(db);
  }
  Database& mutable_database(int db) { return *databases_[Index(db)]; }
  // The bookkeeping around every write is inline where nothing observes (the request path's
  // common case: a branch each), and out of line where an observer is told.
  void TouchEntry(Entry& entry) {
    if (!settings_.lfu()) {
      entry.set_access_clock(access_clock_.lru_clock);
      return;
    }
    TouchLfu(entry);
  }
  void TouchLfu(Entry& entry);
  // Lookup's miss: `expired` (or null) is the entry found past its expiry.
  const Entry* LookupMissed(int db, std::string_view key, uint64_t hash, LookupFlag flags,
                            Entry* expired);
  void BeforeChange(int db, std::string_view key, uint64_t hash) {
    if (!observers_.empty()) NotifyBeforeChange(db, key, hash);
  }
  void NotifyBeforeChange(int db, std::string_view key, uint64_t hash);
  // After a successful write: the counter, the touch and the event (after "new" when created).
  void Changed(int db, std::string_view key, KeyEvent event, bool created) {
    dirty_++;
    if (!quiet_ && !observers_.empty()) AnnounceWrite(db, key, event, created);
  }
  void Announce(int db, KeyEvent event, std::string_view key);
  // After a value arrived at `key` whole (RESTORE, RENAME, COPY, MOVE, a new object): lists it
  // for the active cycle when it is a hash with field TTLs.
  void NoteIfFieldTtls(int db, std::string_view key);
  void PropagateDeletion(int db, std::string_view key, bool lazy);

  MemoryAccountant& memory_;
  Rng& rng_;
  SlabAllocator slab_;        // entries of every database
  AccessClock access_clock_;  // what "now" means for LRU/LFU, updated per command
  std::vector<std::unique_ptr<Database>> databases_;
  KeyspaceSettings settings_;
  KeyspaceStats stats_;
  Propagation propagation_;
  std::vector<KeyspaceObserver*> observers_;
  uint64_t dirty_ = 0;
  int64_t command_time_ms_ = 0;
  bool writes_paused_ = false;
  bool quiet_ = false;  // a QuietWrites is alive
  bool decides_expiry_ = true;
  bool server_deletion_ = false;
};

}  // namespace keel
