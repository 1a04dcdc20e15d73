#include "engine/db/keyspace.h"

#include <algorithm>
#include <string>

#include "engine/db/types/hash.h"

namespace keel {
namespace {

constexpr uint32_t kLruClockMax = (1u << 24) - 1;  // Redis's LRU_CLOCK_MAX
constexpr int64_t kLruClockResolutionMs = 1000;    // Redis's LRU_CLOCK_RESOLUTION

}  // namespace

Keyspace::Keyspace(MemoryAccountant& memory, Rng& rng, int database_count)
    : memory_(memory), rng_(rng), slab_(memory) {
  KEEL_ASSERT(database_count >= 1);
  for (int i = 0; i < database_count; i++) {
    databases_.push_back(std::make_unique<Database>(memory_, slab_, access_clock_, rng_.Next()));
  }
}

Keyspace::~Keyspace() {
  databases_.clear();  // returns entries before the slab goes away
}

void Keyspace::set_settings(const KeyspaceSettings& settings) {
  settings_ = settings;
  access_clock_.lfu = settings.lfu();
  // Unless maxmemory is set with an LRU or LFU policy, which needs a private access clock per
  // key, integers 0..9999 are Redis's shared objects (MAXMEMORY_FLAG_NO_SHARED_INTEGERS).
  const MaxmemoryPolicy policy = settings.maxmemory_policy;
  access_clock_.shared_integers =
      settings.maxmemory_bytes == 0 || !(settings.lfu() || policy == MaxmemoryPolicy::kAllkeysLru ||
                                         policy == MaxmemoryPolicy::kVolatileLru);
}

void Keyspace::AddObserver(KeyspaceObserver* observer) {
  KEEL_ASSERT(observer != nullptr);
  KEEL_ASSERT(std::find(observers_.begin(), observers_.end(), observer) == observers_.end());
  observers_.push_back(observer);
}

void Keyspace::RemoveObserver(KeyspaceObserver* observer) {
  const size_t removed = std::erase(observers_, observer);
  KEEL_ASSERT(removed == 1);
}

void Keyspace::SetAccessClocks(int64_t command_time_ms) {
  // Redis's LRU clock: seconds, 24 bits; LFU's decrement clock: minutes, 16 bits.
  access_clock_.lru_clock = static_cast<uint32_t>(command_time_ms / 1000) & 0xffffff;
  access_clock_.lfu_minutes = static_cast<uint32_t>(command_time_ms / 60000) & 0xffff;
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping around every write.

void Keyspace::NotifyBeforeChange(int db, std::string_view key, uint64_t hash) {
  const Database& database = *databases_[Index(db)];
  for (KeyspaceObserver* observer : observers_) observer->BeforeKeyChange(database, key, hash);
}

void Keyspace::Announce(int db, KeyEvent event, std::string_view key) {
  if ((settings_.notify_classes & event.type_class) == 0 || observers_.empty()) return;
  for (KeyspaceObserver* observer : observers_) {
    observer->KeyEventFired(db, event.type_class, event.name, key);
  }
}

void Keyspace::AnnounceWrite(int db, std::string_view key, KeyEvent event, bool created) {
  for (KeyspaceObserver* observer : observers_) observer->KeyTouched(db, key);
  if (created) Announce(db, events::kNew, key);
  Announce(db, event, key);
}

void Keyspace::UndoCreate(int db, std::string_view key) {
  KEEL_ASSERT(quiet_);
  Database& database = mutable_database(db);
  // A key named twice in the command was created by its first write and replaced by the second:
  // the first undo erases it, and each undo uncounts one of its writes.
  database.Erase(key, database.Hash(key));
  KEEL_ASSERT(dirty_ > 0);
  dirty_--;
}

bool Keyspace::Populate(int db, std::string_view key, uint64_t hash, std::string_view value) {
  BeforeChange(db, key, hash);
  const Database::SetOutcome outcome =
      mutable_database(db).SetString(key, hash, value, kNoExpiry, StringEncodingFor(value));
  if (outcome == Database::SetOutcome::kOutOfMemory) return false;
  for (KeyspaceObserver* observer : observers_) observer->KeyTouched(db, key);
  // An expired key that writes being paused kept is replaced, not created.
  if (outcome == Database::SetOutcome::kInserted) Announce(db, events::kNew, key);
  return true;
}

void Keyspace::Notify(int db, KeyEvent event, std::string_view key) { Announce(db, event, key); }

void Keyspace::KeyChanged(int db, std::string_view key, KeyEvent event) {
  Changed(db, key, event, false);
}

void Keyspace::KeyChanged(int db, std::string_view key, KeyEvent event, uint64_t changes) {
  if (changes == 0) {
    if (quiet_) return;
    for (KeyspaceObserver* observer : observers_) observer->KeyTouched(db, key);
    Announce(db, event, key);
    return;
  }
  dirty_ += changes - 1;
  Changed(db, key, event, false);
}

void Keyspace::PropagateDeletion(int db, std::string_view key, bool lazy) {
  propagation_.Add(db, {lazy ? "UNLINK" : "DEL", key});
}

// ---------------------------------------------------------------------------------------------
// Lookups.

const Entry* Keyspace::Peek(int db, std::string_view key, uint64_t hash) const {
  return databases_[Index(db)]->FindConst(key, hash);
}

const Entry* Keyspace::LookupMissed(int db, std::string_view key, uint64_t hash, LookupFlag flags,
                                    Entry* expired) {
  // Logically gone either way; deleted only when writes are not paused (CLIENT PAUSE WRITE:
  // Redis then leaves the key for after the pause).
  if (expired != nullptr && !writes_paused_) DeleteExpired(db, key, hash);
  stats_.keyspace_misses++;
  if (!(flags & kLookupNoNotify)) Announce(db, events::kKeyMiss, key);
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Writes.

Database::SetOutcome Keyspace::Restore(int db, std::string_view key, uint64_t hash,
                                       std::string_view value, int64_t expire_at_ms,
                                       uint32_t access_clock) {
  BeforeChange(db, key, hash);
  Database& database = mutable_database(db);
  // As Redis's tryObjectEncoding leaves a loaded string (an integer text may be shared).
  const Database::SetOutcome outcome =
      database.SetString(key, hash, value, expire_at_ms, StringEncodingFor(value));
  if (outcome == Database::SetOutcome::kOutOfMemory) return outcome;
  database.Find(key, hash)->set_access_clock(access_clock);
  Changed(db, key, events::kRestore, true);
  return outcome;
}

Database::SetOutcome Keyspace::SetObject(int db, std::string_view key, uint64_t hash,
                                         ValueType type, ObjectEncoding encoding, void* object,
                                         int64_t expire_at_ms, KeyEvent event, uint64_t changes) {
  BeforeChange(db, key, hash);
  const Database::SetOutcome outcome =
      mutable_database(db).SetObject(key, hash, type, encoding, object, expire_at_ms);
  if (outcome == Database::SetOutcome::kOutOfMemory) return outcome;
  KEEL_ASSERT(changes >= 1);
  dirty_ += changes - 1;
  Changed(db, key, event, outcome == Database::SetOutcome::kInserted);
  return outcome;
}

Database::SetOutcome Keyspace::RestoreObject(int db, std::string_view key, uint64_t hash,
                                             ValueType type, ObjectEncoding encoding, void* object,
                                             int64_t expire_at_ms, uint32_t access_clock) {
  BeforeChange(db, key, hash);
  Database& database = mutable_database(db);
  const Database::SetOutcome outcome =
      database.SetObject(key, hash, type, encoding, object, expire_at_ms);
  if (outcome == Database::SetOutcome::kOutOfMemory) return outcome;
  database.Find(key, hash)->set_access_clock(access_clock);
  if (type == ValueType::kHash) NoteIfFieldTtls(db, key);
  Changed(db, key, events::kRestore, true);
  return outcome;
}

void Keyspace::DeleteEmptied(int db, std::string_view key, uint64_t hash) {
  Database& database = mutable_database(db);
  KEEL_ASSERT(database.Find(key, hash) != nullptr);
  BeforeChange(db, key, hash);
  // Announced first: `key` may be a view of the entry's own bytes, which Erase frees.
  if (!quiet_) {
    for (KeyspaceObserver* observer : observers_) observer->KeyTouched(db, key);
    Announce(db, events::kDel, key);
  }
  const bool erased = database.Erase(key, hash);
  KEEL_ASSERT(erased);
}

Entry* Keyspace::PrepareString(int db, std::string_view key, std::string_view value,
                               int64_t expire_at_ms, ObjectEncoding encoding) {
  return mutable_database(db).PrepareString(key, value, expire_at_ms, encoding);
}

void Keyspace::CommitPrepared(int db, Entry* prepared, uint64_t hash, KeyEvent event) {
  const std::string_view key = prepared->key();
  BeforeChange(db, key, hash);
  mutable_database(db).CommitPrepared(prepared, hash);
  Changed(db, key, event, false);
}

void Keyspace::DiscardPrepared(int db, Entry* prepared) {
  mutable_database(db).DiscardPrepared(prepared);
}

Entry* Keyspace::WriteStringRange(int db, Entry* entry, uint64_t hash, size_t offset,
                                  std::string_view patch, KeyEvent event) {
  BeforeChange(db, entry->key(), hash);
  Entry* written = mutable_database(db).WriteStringRange(entry, hash, offset, patch);
  if (written != nullptr) Changed(db, written->key(), event, false);
  return written;
}

Entry* Keyspace::GrowString(int db, Entry* entry, uint64_t hash, size_t size) {
  KEEL_ASSERT(size <= UINT32_MAX);
  BeforeChange(db, entry->key(), hash);
  // An empty patch at `size`: the database pads to it and makes the value raw, as SETRANGE does.
  return mutable_database(db).WriteStringRange(entry, hash, size, {});
}

ExpiryOutcome Keyspace::SetExpiry(int db, Entry** entry, int64_t expire_at_ms) {
  const std::string_view key = (*entry)->key();
  const uint64_t hash = Hash(db, key);
  if (ExpiryIsPast(expire_at_ms)) {
    // The key's bytes go with it: announce from a view that outlives the entry.
    BeforeChange(db, key, hash);
    Changed(db, key, events::kDel, false);
    mutable_database(db).Erase(key, hash);
    *entry = nullptr;
    return ExpiryOutcome::kDeleted;
  }
  BeforeChange(db, key, hash);
  // A time after the command time is positive, so it is never taken for kNoExpiry.
  Entry* moved = mutable_database(db).SetExpiry(*entry, expire_at_ms);
  if (moved == nullptr) return ExpiryOutcome::kOutOfMemory;
  *entry = moved;
  Changed(db, moved->key(), events::kExpire, false);
  return ExpiryOutcome::kSet;
}

bool Keyspace::RemoveExpiry(int db, Entry** entry) {
  const std::string_view key = (*entry)->key();
  BeforeChange(db, key, Hash(db, key));
  Entry* moved = mutable_database(db).SetExpiry(*entry, kNoExpiry);
  if (moved == nullptr) return false;
  *entry = moved;
  Changed(db, moved->key(), events::kPersist, false);
  return true;
}

bool Keyspace::Delete(int db, std::string_view key, uint64_t hash, KeyEvent event) {
  Database& database = mutable_database(db);
  if (database.Find(key, hash) == nullptr) return false;
  BeforeChange(db, key, hash);
  // Announced first: `key` may be a view of the entry's own bytes, which Erase frees.
  Changed(db, key, event, false);
  const bool erased = database.Erase(key, hash);
  KEEL_ASSERT(erased);
  return true;
}

bool Keyspace::Rename(int db, std::string_view from, uint64_t from_hash, std::string_view to,
                      uint64_t to_hash) {
  Database& database = mutable_database(db);
  const Entry* source = database.Find(from, from_hash);
  KEEL_ASSERT(source != nullptr);
  BeforeChange(db, from, from_hash);
  BeforeChange(db, to, to_hash);
  // The value changes key, not owner database: its structure moves without a copy.
  if (database.StoreCopy(to, to_hash, *source, source->expire_at_ms(),
                         Database::CopyMode::kTransfer) == nullptr) {
    return false;
  }
  database.Erase(from, from_hash, Database::EraseMode::kKeepValue);
  NoteIfFieldTtls(db, to);
  // Redis deletes the target and adds the key anew: "new" whether or not the target existed.
  dirty_++;
  for (KeyspaceObserver* observer : observers_) {
    observer->KeyTouched(db, from);
    observer->KeyTouched(db, to);
  }
  Announce(db, events::kNew, to);
  Announce(db, events::kRenameFrom, from);
  Announce(db, events::kRenameTo, to);
  return true;
}

bool Keyspace::Copy(int source_db, const Entry& source, int target_db, std::string_view to,
                    uint64_t to_hash) {
  BeforeChange(target_db, to, to_hash);
  Entry* copy = mutable_database(target_db).StoreCopy(to, to_hash, source, source.expire_at_ms());
  if (copy == nullptr) return false;
  // A new value, as Redis's dupStringObject makes it: a fresh access clock, never shared.
  if (copy->encoding() == ObjectEncoding::kIntShared) copy->set_encoding(ObjectEncoding::kInt);
  copy->set_access_clock(access_clock_.Initial());
  (void)source_db;
  NoteIfFieldTtls(target_db, to);
  // Redis deletes the target (REPLACE) and adds the copy anew: "new" in either case.
  Changed(target_db, to, events::kCopyTo, true);
  return true;
}

bool Keyspace::Move(int source_db, std::string_view key, uint64_t source_hash, int target_db,
                    uint64_t target_hash) {
  Database& source_database = mutable_database(source_db);
  const Entry* source = source_database.Find(key, source_hash);
  KEEL_ASSERT(source != nullptr);
  BeforeChange(target_db, key, target_hash);
  BeforeChange(source_db, key, source_hash);
  // The databases share one accountant and a value carries its own hash seed, so the value's
  // structure changes database without a copy (a set of a million members moved in O(1), as
  // Redis moves the robj).
  if (mutable_database(target_db).StoreCopy(key, target_hash, *source, source->expire_at_ms(),
                                            Database::CopyMode::kTransfer) == nullptr) {
    return false;
  }
  // `key` may be a view of the source entry's bytes: announce before the source goes.
  NoteIfFieldTtls(target_db, key);
  dirty_++;
  for (KeyspaceObserver* observer : observers_) {
    observer->KeyTouched(source_db, key);
    observer->KeyTouched(target_db, key);
  }
  Announce(target_db, events::kNew, key);
  Announce(source_db, events::kMoveFrom, key);
  Announce(target_db, events::kMoveTo, key);
  source_database.Erase(key, source_hash, Database::EraseMode::kKeepValue);
  return true;
}

size_t Keyspace::Flush(int db) {
  const size_t removed = FlushOne(db);
  for (KeyspaceObserver* observer : observers_) observer->FlushSignalled(db);
  return removed;
}

size_t Keyspace::FlushOne(int db) {
  std::unique_ptr<Database>& slot = databases_[Index(db)];
  const size_t removed = slot->size();
  const uint64_t seed = slot->hash_seed();
  for (KeyspaceObserver* observer : observers_) observer->DatabaseFlushing(db, *slot);
  for (KeyspaceObserver* observer : observers_) {
    observer->BeforeFlush(&slot);
    if (slot == nullptr) {
      // The observer took the database: an empty one takes its place (Clear below reseeds it).
      slot = std::make_unique<Database>(memory_, slab_, access_clock_, seed);
      break;
    }
  }
  slot->Clear();
  dirty_ += removed;
  for (KeyspaceObserver* observer : observers_) observer->DatabaseFlushed(db);
  return removed;
}

size_t Keyspace::FlushAll() {
  size_t removed = 0;
  for (int db = 0; db < database_count(); db++) removed += FlushOne(db);
  for (KeyspaceObserver* observer : observers_) observer->FlushSignalled(-1);
  return removed;
}

void Keyspace::Swap(int first, int second) {
  // Redis counts (and so propagates) SWAPDB of a database with itself too.
  dirty_++;
  if (first == second) return;
  std::swap(databases_[Index(first)], databases_[Index(second)]);
  for (KeyspaceObserver* observer : observers_) observer->DatabasesSwapped(first, second);
}

namespace {

// The server's own deletions (expiry, eviction) touch the key once it is gone, as Redis signals
// after the deletion: WATCH tells a reclaimed key from one given a value by whether it is still
// there. `key` may view the entry's own bytes, so observers get a copy.
void EraseAndTouch(const std::vector<KeyspaceObserver*>& observers, Database& database, int db,
                   std::string_view key, uint64_t hash) {
  if (observers.empty()) {
    database.Erase(key, hash);
    return;
  }
  const std::string erased(key);
  database.Erase(key, hash);
  for (KeyspaceObserver* observer : observers) observer->KeyTouched(db, erased);
}

}  // namespace

void Keyspace::DeleteExpired(int db, std::string_view key, uint64_t hash) {
  Database& database = mutable_database(db);
  if (database.Find(key, hash) == nullptr) return;
  BeforeChange(db, key, hash);
  stats_.expired_keys++;
  Announce(db, events::kExpired, key);
  PropagateDeletion(db, key, settings_.lazyfree_lazy_expire);
  server_deletion_ = true;
  EraseAndTouch(observers_, database, db, key, hash);
  server_deletion_ = false;
}

size_t Keyspace::ExpireHashFields(int db, std::string_view key, uint64_t hash, size_t max,
                                  int64_t now_ms) {
  if (!decides_expiry_ || writes_paused_) return 0;
  Database& database = mutable_database(db);
  Entry* entry = database.Find(key, hash);
  if (entry == nullptr || entry->type() != ValueType::kHash) return 0;
  auto& value = *static_cast<HashValue*>(EntryObject(*entry));
  if (value.min_field_expire() >= now_ms) return 0;
  const std::string name(key);  // `key` may view the entry
  BeforeChange(db, name, hash);
  const size_t expired = value.ExpireFields(now_ms, max, memory_, [&](std::string_view field) {
    propagation_.Add(db, {"HDEL", name, field});
  });
  if (expired == 0) return 0;
  stats_.expired_subkeys += expired;
  Announce(db, events::kHexpired, name);
  if (value.size() == 0) {
    database.ForgetFieldExpiry(name);
    Announce(db, events::kDel, name);
    EraseAndTouch(observers_, database, db, name, hash);  // `value` is gone after this
    return expired;
  }
  if (!value.has_field_ttls()) database.ForgetFieldExpiry(name);
  for (KeyspaceObserver* observer : observers_) observer->KeyTouched(db, name);
  return expired;
}

void Keyspace::NoteFieldExpiry(int db, std::string_view key) {
  (void)mutable_database(db).NoteFieldExpiry(key);
}

size_t Keyspace::ActiveExpireHashFields(int db, size_t keys, size_t fields_quota, int64_t now_ms) {
  Database& database = mutable_database(db);
  if (database.field_expiry_key_count() == 0 || !decides_expiry_ || writes_paused_) return 0;
  std::vector<std::string> names;
  database.NextFieldExpiryKeys(keys, &names);
  size_t expired = 0;
  for (const std::string& name : names) {
    if (expired >= fields_quota) break;
    const uint64_t hash = database.Hash(name);
    const Entry* entry = database.Find(name, hash);
    if (entry == nullptr || entry->type() != ValueType::kHash ||
        !static_cast<const HashValue*>(EntryObject(*entry))->has_field_ttls()) {
      database.ForgetFieldExpiry(name);
      continue;
    }
    // A key past its own expiry goes as a key, through the usual path.
    if (IsExpired(*entry, now_ms)) continue;
    expired += ExpireHashFields(db, name, hash, fields_quota - expired, now_ms);
  }
  return expired;
}

void Keyspace::NoteIfFieldTtls(int db, std::string_view key) {
  Database& database = mutable_database(db);
  const Entry* entry = database.Find(key);
  if (entry != nullptr && entry->type() == ValueType::kHash &&
      static_cast<const HashValue*>(EntryObject(*entry))->has_field_ttls()) {
    (void)database.NoteFieldExpiry(key);
  }
}

void Keyspace::Evict(int db, std::string_view key) {
  Database& database = mutable_database(db);
  const uint64_t hash = database.Hash(key);
  if (database.Find(key, hash) == nullptr) return;
  BeforeChange(db, key, hash);
  stats_.evicted_keys++;
  PropagateDeletion(db, key, settings_.lazyfree_lazy_eviction);
  // As Redis's performEvictions: the key is deleted (and touched), then "evicted" is announced,
  // so that an observer sees the memory the eviction freed. The caller's key outlives the entry.
  server_deletion_ = true;
  EraseAndTouch(observers_, database, db, key, hash);
  server_deletion_ = false;
  Announce(db, events::kEvicted, key);
}

// ---------------------------------------------------------------------------------------------
// Access tracking.

uint32_t Keyspace::LfuCounter(const Entry& entry) const {
  const uint32_t clock = entry.access_clock();
  const uint32_t last_minutes = clock >> 8;
  const uint32_t counter = clock & 0xff;
  const uint32_t now_minutes = access_clock_.lfu_minutes;
  // Minutes since the last decrement, on a 16-bit clock that wraps (LFUTimeElapsed).
  const uint32_t elapsed =
      now_minutes >= last_minutes ? now_minutes - last_minutes : 65535 - last_minutes + now_minutes;
  const int64_t decay = settings_.lfu_decay_time_minutes;
  const uint32_t periods = decay > 0 ? static_cast<uint32_t>(elapsed / decay) : 0;
  return periods > counter ? 0 : counter - periods;
}

void Keyspace::TouchLfu(Entry& entry) {
  uint32_t counter = LfuCounter(entry);
  // LFULogIncr: the counter grows with probability 1 / ((counter - LFU_INIT_VAL) * factor + 1).
  if (counter < 255) {
    const double above_initial = counter > AccessClock::kLfuInitialCount
                                     ? static_cast<double>(counter - AccessClock::kLfuInitialCount)
                                     : 0.0;
    const double probability =
        1.0 / (above_initial * static_cast<double>(settings_.lfu_log_factor) + 1.0);
    const double draw = static_cast<double>(rng_.Next() >> 11) * 0x1.0p-53;
    if (draw < probability) counter++;
  }
  entry.set_access_clock(((access_clock_.lfu_minutes & 0xffff) << 8) | counter);
}

int64_t Keyspace::IdleTimeMs(const Entry& entry) const {
  const uint32_t now = access_clock_.lru_clock;
  const uint32_t then = entry.access_clock();
  const uint32_t ticks = now >= then ? now - then : kLruClockMax - then + now;
  return static_cast<int64_t>(ticks) * kLruClockResolutionMs;
}

const Entry* Keyspace::RandomEntry(int db) { return mutable_database(db).RandomEntry(rng_); }

const Entry* Keyspace::RandomVolatileEntry(int db) {
  return mutable_database(db).RandomVolatileEntry(rng_);
}

void Keyspace::ResizeStep(size_t slots) {
  for (auto& database : databases_) database->ResizeStep(slots);
}

bool Keyspace::CheckInvariants() const {
  return std::all_of(databases_.begin(), databases_.end(),
                     [](const auto& database) { return database->CheckInvariants(); });
}

}  // namespace keel
