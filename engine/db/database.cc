#include "engine/db/database.h"

#include <algorithm>
#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/hash.h"
#include "engine/db/types/hash.h"

namespace keel {
namespace {

constexpr size_t kInitialHomeSlots = 8;
// Grow past this load (Robin Hood probing keeps lookups short up to here), by this factor, so that
// the load stays between 0.7 and 0.875 (docs/KEYSPACE.md has the arithmetic).
constexpr size_t kLoadMaxPercent = 875;  // per mille
constexpr size_t kGrowthPercent = 125;
// Shrink below this load, to about half full.
constexpr size_t kLoadMinPerMille = 200;
// Slots moved per insert or delete while a resize runs. Enough to finish well before the new
// table fills up (growth adds room for 0.22 * homes inserts; this finishes within homes / 16,
// with the cron's steps helping), and few enough that a pipelined burst of writes during a resize
// does not stall: moving a slot rehashes its key, a cache miss per entry, so 96 per write made
// the writes of a resize ~6x slower and doubled SET -r's p99 against redis-server.
constexpr size_t kResizeSlotsPerWrite = 16;

// Whether the text of a kInt value is one of Redis's shared integers (0..9999). A kInt value is
// already in strict integer form (StringEncodingFor parsed it, or a counter formatted it), so
// its length and sign say it without parsing it again.
static_assert(kSharedIntegers == 10000, "shared integers are those of at most 4 digits");
bool IsSharedInteger(std::string_view value) {
  KEEL_DASSERT(!value.empty());
  return value.size() <= 4 && value[0] != '-';
}

// splitmix64's step and finaliser: a seed unrelated, as far as a hash can tell, to the last.
uint64_t NextHashSeed(uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

Database::Database(MemoryAccountant& memory, SlabAllocator& slab, const AccessClock& clock,
                   uint64_t hash_seed)
    : memory_(memory),
      slab_(slab),
      clock_(clock),
      hash_seed_(hash_seed),
      main_(std::make_unique<KeyTable>(memory, kInitialHomeSlots)) {}

Database::~Database() { Clear(); }

uint64_t Database::HashWithSeed(const void* context, std::string_view key) {
  return HashBytes(key.data(), key.size(), *static_cast<const uint64_t*>(context));
}

uint64_t Database::Hash(std::string_view key) const { return HashWithSeed(&hash_seed_, key); }

size_t Database::size() const { return main_->size() + (next_ ? next_->size() : 0); }

size_t Database::table_bytes() const {
  size_t bytes = main_->allocated() ? main_->slot_bytes() : 0;
  if (next_ != nullptr && next_->allocated()) bytes += next_->slot_bytes();
  return bytes;
}

Entry* Database::Find(std::string_view key, uint64_t hash) {
  KEEL_DASSERT(hash == Hash(key));
  if (last_found_ != nullptr && last_found_hash_ == hash && last_found_->key() == key) {
    return last_found_;
  }
  Entry* entry = TableFor(hash).Find(key, hash);
  if (entry != nullptr) {
    last_found_ = entry;
    last_found_hash_ = hash;
  }
  return entry;
}

const Entry* Database::FindConst(std::string_view key, uint64_t hash) const {
  KEEL_DASSERT(hash == Hash(key));
  return TableFor(hash).Find(key, hash);
}

Entry* Database::NewEntry(ValueType type, ObjectEncoding encoding, std::string_view key,
                          size_t value_size, int64_t expire_at_ms) {
  KEEL_ASSERT(key.size() <= UINT32_MAX);
  KEEL_ASSERT(value_size <= UINT32_MAX);
  const size_t bytes = Entry::BytesFor(key.size(), value_size, expire_at_ms != kNoExpiry);
  void* block = slab_.Allocate(bytes);
  if (block == nullptr) return nullptr;
  Entry* entry = Entry::Create(block, type, encoding, key, value_size, expire_at_ms);
  entry->set_access_clock(clock_.Initial());
  return entry;
}

Entry* Database::NewGrowableEntry(std::string_view key, size_t value_size, size_t capacity,
                                  int64_t expire_at_ms) {
  KEEL_ASSERT(key.size() <= UINT32_MAX);
  KEEL_ASSERT(value_size <= capacity && capacity <= Entry::kGrowableValueBytesMax);
  const size_t bytes = Entry::GrowableBytesFor(key.size(), capacity, expire_at_ms != kNoExpiry);
  void* block = slab_.Allocate(bytes);
  if (block == nullptr) return nullptr;
  Entry* entry = Entry::CreateGrowable(block, key, value_size, capacity, expire_at_ms);
  entry->set_access_clock(clock_.Initial());
  return entry;
}

void Database::FreeEntry(Entry* entry) {
  if (entry == last_found_) last_found_ = nullptr;
  slab_.Deallocate(entry, entry->allocation_bytes());
}

void Database::DestroyEntry(Entry* entry) {
  if (const ValueOps* ops = OpsFor(entry->type()); ops != nullptr) ops->destroy(*entry, memory_);
  FreeEntry(entry);
}

void Database::TrackExpiry(Entry* entry) {
  KEEL_DASSERT(entry->has_expiry());
  entry->set_volatile_index(static_cast<uint32_t>(volatile_.size()));
  volatile_.push_back(entry);
}

void Database::UntrackExpiry(Entry* entry) {
  KEEL_DASSERT(entry->has_expiry());
  const uint32_t index = entry->volatile_index();
  KEEL_ASSERT(index < volatile_.size());
  KEEL_ASSERT(volatile_[index] == entry);
  Entry* last = volatile_.back();
  volatile_[index] = last;
  last->set_volatile_index(index);
  volatile_.pop_back();
}

void Database::ReplaceEntry(Entry* old, uint64_t hash, Entry* replacement, Replaced replaced) {
  TableFor(hash).Replace(old->key(), hash, replacement);
  if (old->has_expiry()) UntrackExpiry(old);
  if (replacement->has_expiry()) TrackExpiry(replacement);
  if (replaced == Replaced::kMoved) {
    FreeEntry(old);
  } else {
    DestroyEntry(old);
  }
}

Database::SetOutcome Database::Place(Entry* old, uint64_t hash, Entry* entry) {
  if (old != nullptr) {
    ReplaceEntry(old, hash, entry, Replaced::kOtherValue);
    return SetOutcome::kReplaced;
  }
  if (!Insert(entry, hash)) return SetOutcome::kOutOfMemory;
  if (entry->has_expiry()) TrackExpiry(entry);
  return SetOutcome::kInserted;
}

bool Database::Insert(Entry* entry, uint64_t hash) {
  if (!main_->allocated() && !main_->Allocate()) return false;
  // An insert only grows the table: a table just reserved (an RDB's RESIZEDB) is nearly empty
  // while its keys arrive, and shrinking it would start a migration into a table too small to
  // finish before it fills.
  MaybeStartResize(/*may_shrink=*/false);
  if (next_ != nullptr) ResizeStep(kResizeSlotsPerWrite);
  if (TableFor(hash).Insert(entry, hash, HashWithSeed, &hash_seed_)) return true;
  // A run reached the end of the overflow area (a degenerate case at high load): finish any
  // resize, grow now, and place the entry in the bigger table.
  if (next_ == nullptr) {
    auto bigger = std::make_unique<KeyTable>(memory_, main_->home_slots() * 2);
    if (!bigger->Allocate()) return false;
    next_ = std::move(bigger);
    boundary_ = 0;
    migrated_slot_ = 0;
  }
  FinishResize();
  return main_->Insert(entry, hash, HashWithSeed, &hash_seed_);
}

Database::SetOutcome Database::SetString(std::string_view key, uint64_t hash,
                                         std::string_view value, int64_t expire_at_ms,
                                         ObjectEncoding encoding) {
  KEEL_DASSERT(hash == Hash(key));
  if (encoding == ObjectEncoding::kInt && clock_.shared_integers && IsSharedInteger(value)) {
    encoding = ObjectEncoding::kIntShared;
  }
  Entry* old = Find(key, hash);
  const bool has_expiry = expire_at_ms != kNoExpiry;
  if (old != nullptr && old->type() == ValueType::kString && !old->growable() && !old->external() &&
      old->has_expiry() == has_expiry) {
    const std::span<char> current = old->mutable_value();
    if (current.size() == value.size()) {
      // Same shape: overwrite in place, the common case for counters and fixed-size values.
      if (!value.empty()) std::memcpy(current.data(), value.data(), value.size());
      old->set_encoding(encoding);
      if (has_expiry) old->set_expire_at_ms(expire_at_ms);
      old->set_access_clock(clock_.Initial());
      return SetOutcome::kReplaced;
    }
  }
  Entry* entry = NewEntry(ValueType::kString, encoding, key, value.size(), expire_at_ms);
  if (entry == nullptr) return SetOutcome::kOutOfMemory;
  if (!value.empty()) std::memcpy(entry->value_data(), value.data(), value.size());
  const SetOutcome outcome = Place(old, hash, entry);
  if (outcome == SetOutcome::kOutOfMemory) FreeEntry(entry);
  return outcome;
}

Database::SetOutcome Database::AdoptString(std::string_view key, uint64_t hash,
                                           const ExternalString& external, int64_t expire_at_ms) {
  KEEL_DASSERT(hash == Hash(key));
  Entry* old = Find(key, hash);
  Entry* entry = NewEntry(ValueType::kString, ObjectEncoding::kRawExternal, key,
                          sizeof(ExternalString), expire_at_ms);
  if (entry == nullptr) return SetOutcome::kOutOfMemory;
  entry->set_external_string(external);
  const SetOutcome outcome = Place(old, hash, entry);
  // The string is not ours until placed: free the block only.
  if (outcome == SetOutcome::kOutOfMemory) FreeEntry(entry);
  return outcome;
}

Database::SetOutcome Database::SetObject(std::string_view key, uint64_t hash, ValueType type,
                                         ObjectEncoding encoding, void* object,
                                         int64_t expire_at_ms) {
  KEEL_DASSERT(hash == Hash(key));
  KEEL_ASSERT(type != ValueType::kString && OpsFor(type) != nullptr);
  Entry* old = Find(key, hash);
  Entry* entry = NewEntry(type, encoding, key, sizeof(object), expire_at_ms);
  if (entry == nullptr) return SetOutcome::kOutOfMemory;
  SetEntryObject(*entry, object);
  const SetOutcome outcome = Place(old, hash, entry);
  // The caller keeps the object: free the block only.
  if (outcome == SetOutcome::kOutOfMemory) FreeEntry(entry);
  return outcome;
}

Entry* Database::PrepareString(std::string_view key, std::string_view value, int64_t expire_at_ms,
                               ObjectEncoding encoding) {
  if (encoding == ObjectEncoding::kInt && clock_.shared_integers && IsSharedInteger(value)) {
    encoding = ObjectEncoding::kIntShared;
  }
  Entry* entry = NewEntry(ValueType::kString, encoding, key, value.size(), expire_at_ms);
  if (entry != nullptr && !value.empty()) {
    std::memcpy(entry->value_data(), value.data(), value.size());
  }
  return entry;
}

void Database::CommitPrepared(Entry* prepared, uint64_t hash) {
  KEEL_DASSERT(hash == Hash(prepared->key()));
  Entry* old = TableFor(hash).Find(prepared->key(), hash);
  KEEL_ASSERT(old != nullptr);
  ReplaceEntry(old, hash, prepared, Replaced::kOtherValue);
}

Entry* Database::StoreCopy(std::string_view key, uint64_t hash, const Entry& source,
                           int64_t expire_at_ms, CopyMode mode) {
  KEEL_DASSERT(hash == Hash(key));
  Entry* old = TableFor(hash).Find(key, hash);
  KEEL_ASSERT(old != &source);
  // The bytes in the source's block: a string, an object's pointer, an external string's place.
  const std::string_view stored = source.stored_value();
  const size_t value_size = stored.size();
  // A copy is exact, as Redis's dupStringObject is: a growable string's spare stays behind.
  const ObjectEncoding encoding = source.growable() ? ObjectEncoding::kRaw : source.encoding();
  Entry* entry = NewEntry(source.type(), encoding, key, value_size, expire_at_ms);
  if (entry == nullptr) return nullptr;
  const ValueOps* ops = OpsFor(source.type());
  if (mode == CopyMode::kTransfer || ops == nullptr) {
    // The value bytes themselves: a string, or what changes owner (a structure, a block).
    if (value_size > 0)
      std::memcpy(entry->mutable_stored_value().data(), stored.data(), value_size);
  } else if (!ops->copy(source, *entry, memory_)) {
    FreeEntry(entry);
    return nullptr;
  }
  entry->set_access_clock(source.access_clock());
  if (Place(old, hash, entry) == SetOutcome::kOutOfMemory) {
    if (mode == CopyMode::kTransfer) {
      FreeEntry(entry);
    } else {
      DestroyEntry(entry);
    }
    return nullptr;
  }
  return entry;
}

Entry* Database::SetExpiry(Entry* entry, int64_t expire_at_ms) {
  const bool has_expiry = expire_at_ms != kNoExpiry;
  if (entry->has_expiry() == has_expiry) {
    if (has_expiry) entry->set_expire_at_ms(expire_at_ms);
    return entry;
  }
  // Adding or removing the expiry changes the entry's size: copy it into a new block.
  const std::string_view key = entry->key();
  // The bytes in the block: an external string's place moves with it, the string stays.
  const std::string_view value = entry->stored_value();
  // A growable string keeps its spare: EXPIRE between appends must not cost a shrink and regrow.
  Entry* moved = entry->growable()
                     ? NewGrowableEntry(key, value.size(), entry->value_capacity(), expire_at_ms)
                     : NewEntry(entry->type(), entry->encoding(), key, value.size(), expire_at_ms);
  if (moved == nullptr) return nullptr;
  if (!value.empty()) {
    std::memcpy(moved->mutable_stored_value().data(), value.data(), value.size());
  }
  moved->set_access_clock(entry->access_clock());
  ReplaceEntry(entry, Hash(key), moved, Replaced::kMoved);
  return moved;
}

namespace {

// Redis's sdsMakeRoomFor greedy policy: double below SDS_MAX_PREALLOC (1 MiB), else 1 MiB more;
// never past what a value may hold.
size_t GrowthCapacity(size_t needed) {
  constexpr size_t kPreallocMax = 1024 * 1024;
  const size_t greedy = needed < kPreallocMax ? needed * 2 : needed + kPreallocMax;
  return std::max(needed, std::min<size_t>(greedy, UINT32_MAX));
}

}  // namespace

Entry* Database::WriteStringRange(Entry* entry, uint64_t hash, size_t offset,
                                  std::string_view patch) {
  KEEL_DASSERT(hash == Hash(entry->key()));
  KEEL_DASSERT(entry->type() == ValueType::kString);
  KEEL_ASSERT(offset <= UINT32_MAX && patch.size() <= UINT32_MAX - offset);
  const size_t old_size = entry->value_size();
  const size_t new_size = std::max(old_size, offset + patch.size());
  // Redis gives an int or embstr value a new raw object (dbUnshareStringValue), whose clock
  // starts afresh; a raw one is edited where it is.
  const bool keeps_clock = entry->raw_string();
  if (new_size == old_size || (entry->growable() && new_size <= entry->value_capacity())) {
    char* value = entry->value_data();
    if (offset > old_size) std::memset(value + old_size, 0, offset - old_size);
    if (!patch.empty()) std::memcpy(value + offset, patch.data(), patch.size());
    if (new_size != old_size) entry->set_value_size(new_size);
    if (!entry->raw_string()) entry->set_encoding(ObjectEncoding::kRaw);
    if (!keeps_clock) entry->set_access_clock(clock_.Initial());
    return entry;
  }
  // Room to spare if it can be had, else exactly what is needed.
  const std::string_view key = entry->key();
  const int64_t expire_at_ms = entry->expire_at_ms();
  Entry* moved = NewGrowableEntry(key, new_size, GrowthCapacity(new_size), expire_at_ms);
  if (moved == nullptr) moved = NewGrowableEntry(key, new_size, new_size, expire_at_ms);
  if (moved == nullptr) return nullptr;
  char* value = moved->value_data();
  const size_t kept = std::min(old_size, offset);
  if (kept > 0) std::memcpy(value, entry->value().data(), kept);
  if (offset > old_size) std::memset(value + old_size, 0, offset - old_size);
  if (!patch.empty()) std::memcpy(value + offset, patch.data(), patch.size());
  // It grew, so the patch reaches past the old end: nothing of the old value follows it.
  KEEL_DASSERT(offset + patch.size() == new_size);
  if (keeps_clock) moved->set_access_clock(entry->access_clock());
  // The string was copied, not moved: an external one's block goes with the old entry.
  ReplaceEntry(entry, hash, moved, Replaced::kOtherValue);
  return moved;
}

bool Database::Erase(std::string_view key, uint64_t hash, EraseMode mode) {
  KEEL_DASSERT(hash == Hash(key));
  Entry* removed = TableFor(hash).Remove(key, hash, HashWithSeed, &hash_seed_);
  if (removed == nullptr) return false;
  if (removed->has_expiry()) UntrackExpiry(removed);
  if (mode == EraseMode::kKeepValue) {
    FreeEntry(removed);
  } else {
    DestroyEntry(removed);
  }
  if (next_ != nullptr) {
    ResizeStep(kResizeSlotsPerWrite);
  } else {
    MaybeStartResize(/*may_shrink=*/true);
  }
  return true;
}

bool Database::NoteFieldExpiry(std::string_view key) {
  if (field_expiry_keys_ == nullptr) {
    field_expiry_keys_ = HashValue::Create(memory_, hash_seed_);
    if (field_expiry_keys_ == nullptr) return false;
  }
  if (field_expiry_keys_->is_listpack() && field_expiry_keys_->size() >= 128 &&
      !field_expiry_keys_->ConvertToHashtable(256, memory_)) {
    return false;
  }
  return field_expiry_keys_->Set(key, {}, memory_) != HashValue::SetOutcome::kOutOfMemory;
}

void Database::ForgetFieldExpiry(std::string_view key) {
  if (field_expiry_keys_ == nullptr) return;
  field_expiry_keys_->Remove(key, memory_);
  if (field_expiry_keys_->size() == 0) {
    HashValue::Destroy(field_expiry_keys_, memory_);
    field_expiry_keys_ = nullptr;
  }
}

size_t Database::field_expiry_key_count() const {
  return field_expiry_keys_ == nullptr ? 0 : field_expiry_keys_->size();
}

void Database::NextFieldExpiryKeys(size_t count, std::vector<std::string>* keys) {
  if (field_expiry_keys_ == nullptr) {
    field_expiry_cursor_ = 0;
    return;
  }
  field_expiry_cursor_ = field_expiry_keys_->Scan(
      field_expiry_cursor_, count,
      [&](std::string_view key, std::string_view) { keys->emplace_back(key); });
}

void Database::Clear() {
  last_found_ = nullptr;
  HashValue::Destroy(field_expiry_keys_, memory_);
  field_expiry_keys_ = nullptr;
  field_expiry_cursor_ = 0;
  ForEach([this](Entry& entry) {
    if (const ValueOps* ops = OpsFor(entry.type()); ops != nullptr) ops->destroy(entry, memory_);
    slab_.Deallocate(&entry, entry.allocation_bytes());
  });
  volatile_.clear();
  volatile_.shrink_to_fit();
  next_.reset();
  main_ = std::make_unique<KeyTable>(memory_, kInitialHomeSlots);
  boundary_ = 0;
  migrated_slot_ = 0;
  // A new seed for the emptied table. The table is sorted by hash, so keys inserted in the hash
  // order of the seed they were read under (an RDB this process saved, reloaded by DEBUG RELOAD;
  // a SCAN and DUMP before FLUSHALL, restored after) all land in one run of a growing table, and
  // each insert walks it: 100,000 keys took minutes. Under another seed that order is random.
  // Derived from the old seed rather than drawn, so the engine's random stream is unchanged.
  hash_seed_ = NextHashSeed(hash_seed_);
}

void Database::MaybeStartResize(bool may_shrink) {
  if (next_ != nullptr) return;
  const size_t homes = main_->home_slots();
  const size_t keys = main_->size();
  size_t target = 0;
  if ((keys + 1) * 1000 > homes * kLoadMaxPercent) {
    target = homes * kGrowthPercent / 100 + 1;
  } else if (may_shrink && homes > kInitialHomeSlots && keys * 1000 < homes * kLoadMinPerMille) {
    target = keys * 2 > kInitialHomeSlots ? keys * 2 : kInitialHomeSlots;
  }
  if (target == 0) return;
  auto table = std::make_unique<KeyTable>(memory_, target);
  // A refused allocation postpones the resize; the current table still has room (its overflow
  // area), and the next write tries again.
  if (!table->Allocate()) return;
  next_ = std::move(table);
  boundary_ = 0;
  migrated_slot_ = 0;
}

bool Database::ResizeStep(size_t slots) {
  if (next_ == nullptr) return false;
  const size_t end = main_->slot_count();
  // Move whole runs: stop at a boundary slot so that every entry whose home is before it moves
  // with this step, and the hash boundary can advance past all of them.
  const size_t stop = main_->NextBoundary(migrated_slot_ + slots);
  main_->VisitSlots(migrated_slot_, stop, [&](Entry& entry) {
    const uint64_t hash = Hash(entry.key());
    const bool placed = next_->Insert(&entry, hash, HashWithSeed, &hash_seed_);
    KEEL_ASSERT(placed);  // the new table is sized for all keys with room to spare
  });
  // The moved entries are now only in next_. No entry at or after `stop` belongs before it, so
  // clearing the moved slots leaves main_'s remaining runs intact.
  main_->ClearSlots(migrated_slot_, stop);
  migrated_slot_ = stop;
  bool past_end = false;
  boundary_ = FirstHashOfSlot(stop, main_->home_slots(), &past_end);
  if (past_end || stop >= end) {
    KEEL_ASSERT(main_->size() == 0);
    main_ = std::move(next_);
    boundary_ = 0;
    migrated_slot_ = 0;
    return false;
  }
  return true;
}

void Database::Reserve(size_t keys) {
  // Homes for `keys` at a load of 0.8, inside the band the growth rule keeps (0.7 to 0.875).
  const size_t homes = keys / 4 * 5 + kInitialHomeSlots;
  if (homes <= main_->home_slots() || (next_ != nullptr && homes <= next_->home_slots())) return;
  auto table = std::make_unique<KeyTable>(memory_, homes);
  if (!table->Allocate()) return;
  FinishResize();
  if (main_->size() == 0) {
    main_ = std::move(table);
    return;
  }
  next_ = std::move(table);
  boundary_ = 0;
  migrated_slot_ = 0;
  FinishResize();
}

void Database::FinishResize() {
  while (ResizeStep(SIZE_MAX / 2)) {
  }
}

Entry* Database::RandomEntry(Rng& rng) {
  const size_t total = size();
  if (total == 0) return nullptr;
  KeyTable* table = main_.get();
  if (next_ != nullptr && rng.Below(total) < next_->size()) table = next_.get();
  if (table->size() == 0) table = table == main_.get() ? next_.get() : main_.get();
  // Sample slots until one is occupied, as Redis's dictGetRandomKey samples buckets: every entry
  // is equally likely. Taking the next occupied slot after a random one instead favours an entry
  // after a long empty run (two keys in adjacent slots: one came up 15 times in 16). The load is
  // at least 0.2 of the home slots outside a shrink, so the tries are few in a big table. A small
  // one is mostly overflow area (8 homes and their overflow for a couple of keys): past the bound,
  // the entry of a random rank, found by walking the slots, which is just as fair.
  constexpr int kTriesMax = 64;
  for (int i = 0; i < kTriesMax; i++) {
    if (Entry* entry = table->EntryAt(rng.Below(table->slot_count()))) return entry;
  }
  size_t rank = rng.Below(table->size());
  for (size_t slot = table->NextOccupied(0); slot < table->slot_count();
       slot = table->NextOccupied(slot + 1)) {
    if (rank-- == 0) return table->EntryAt(slot);
  }
  KEEL_ASSERT(false);  // size() counts the occupied slots
  return nullptr;
}

Entry* Database::RandomVolatileEntry(Rng& rng) {
  if (volatile_.empty()) return nullptr;
  return volatile_[rng.Below(volatile_.size())];
}

size_t Database::LongestRun() const {
  const size_t main_run = main_->LongestRun();
  const size_t next_run = next_ == nullptr ? 0 : next_->LongestRun();
  return main_run > next_run ? main_run : next_run;
}

bool Database::CheckInvariants() const {
  if (!main_->CheckInvariants(HashWithSeed, &hash_seed_)) return false;
  if (next_ != nullptr && !next_->CheckInvariants(HashWithSeed, &hash_seed_)) return false;
  size_t with_expiry = 0;
  bool placed_right = true;
  ForEach([&](const Entry& entry) {
    if (entry.has_expiry()) {
      with_expiry++;
      const uint32_t index = entry.volatile_index();
      if (index >= volatile_.size() || volatile_[index] != &entry) placed_right = false;
    }
    // While resizing, each key is on its side of the boundary.
    if (next_ != nullptr) {
      const uint64_t hash = Hash(entry.key());
      const bool in_next = next_->Find(entry.key(), hash) == &entry;
      if (in_next != (hash < boundary_)) placed_right = false;
    }
  });
  return placed_right && with_expiry == volatile_.size();
}

}  // namespace keel
