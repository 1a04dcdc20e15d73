// HashValue: a map of byte-string fields to byte-string values, in the two encodings Redis 7.0
// reports for hashes.
//
// listpack   at most hash-max-listpack-entries fields, no field or value longer than
//            hash-max-listpack-value bytes. Redis keeps a listpack of field, value, field,
//            value... in insertion order and finds a field by walking it. Keel keeps the same
//            order and the same walk over one byte arena of records (a varint field length, the
//            field, a varint value length, the value), sized to the byte: a record is a byte or
//            two shorter than a listpack entry pair. The RDB form (RDB_TYPE_HASH_LISTPACK) is
//            built from the records when serialised.
// hashtable  anything else. Redis holds a dict of sds pairs (about 100 bytes per field); Keel
//            keeps the records in an arena (a changed value of another size is appended, its
//            old record counted dead until a compaction) and indexes them with a MemberIndex
//            (member_index.h, as sets and sorted sets do): an open-addressing table of 8-byte
//            slots in hash order, resized incrementally, so that an HSCAN cursor is a position
//            in hash space that stays valid across every resize.
//
// A hash converts from listpack to hashtable as Redis's hashTypeTryConversion and hashTypeSet
// decide (the command layer calls ConvertToHashtable), and never back. Nothing depends on
// pointer values: the order of the fields is a function of the hash seed and its history.
//
// Memory comes from the MemoryAccountant (MemoryUse::kKeyspace). Every operation that may
// allocate either completes or, when memory is refused, leaves the hash exactly as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/rng.h"
#include "engine/db/types/member_index.h"
#include "engine/env/memory.h"

namespace keel {

class HashValue {
 public:
  // An empty listpack-encoded hash, or nullptr when memory is refused. `hash_seed` seeds the
  // field hash of the hashtable encoding.
  static HashValue* Create(MemoryAccountant& memory, uint64_t hash_seed);
  // An empty hashtable-encoded hash with room for `fields_hint` fields, or nullptr.
  static HashValue* CreateHashtable(MemoryAccountant& memory, uint64_t hash_seed,
                                    size_t fields_hint);
  static void Destroy(HashValue* hash, MemoryAccountant& memory);
  // A deep copy with the same encoding and order, or nullptr when memory is refused.
  static HashValue* Clone(const HashValue& hash, MemoryAccountant& memory);

  HashValue(const HashValue&) = delete;
  HashValue& operator=(const HashValue&) = delete;

  bool is_listpack() const { return !index_.allocated(); }
  size_t size() const { return fields_; }
  uint64_t hash_seed() const { return has_ttls_ ? ttls_->hash_seed : hash_seed_; }

  // --- Field expiry (Redis 7.4's hash field expiration) -----------------------------------
  // A hash without field TTLs pays nothing for them: the seed word holds the hash seed. Once a
  // field has a TTL the word points to a side table (the seed moves there) mapping each field
  // with a TTL to its absolute expiry in milliseconds; it is freed with the last TTL.
  static constexpr int64_t kNoFieldTtl = -1;
  bool has_field_ttls() const { return has_ttls_; }
  size_t field_ttl_count() const;
  // The expiry of `field` (ms), or kNoFieldTtl (also for a missing field).
  int64_t FieldExpireAt(std::string_view field) const;
  // Gives the existing `field` the expiry `expire_at_ms` (>= 0). False when memory is refused
  // (nothing changed).
  bool SetFieldExpireAt(std::string_view field, int64_t expire_at_ms, MemoryAccountant& memory);
  // Removes the TTL of `field`; returns whether it had one. Never fails.
  bool PersistField(std::string_view field, MemoryAccountant& memory);
  // A time at or before the earliest field expiry (INT64_MAX without TTLs): nothing expires
  // before it. Exact after ExpireFields.
  int64_t min_field_expire() const { return has_ttls_ ? ttls_->min_expire : INT64_MAX; }
  // Removes up to `max` fields whose expiry is before `now_ms` (a field lives through its
  // expiry millisecond, as a key does), calling on_expired(field) before each goes. Returns the
  // fields removed. Removing never allocates.
  template <typename OnExpired>
  size_t ExpireFields(int64_t now_ms, size_t max, MemoryAccountant& memory, OnExpired&& on_expired);
  // Visits (field, expire_at_ms) for every field with a TTL.
  template <typename Visit>
  void ForEachFieldTtl(Visit&& visit) const;

  // The value of `field` in *value (a view into the hash, valid until it changes).
  bool Get(std::string_view field, std::string_view* value) const;
  bool Contains(std::string_view field) const {
    std::string_view ignored;
    return Get(field, &ignored);
  }

  enum class SetOutcome : uint8_t { kInserted, kUpdated, kOutOfMemory };
  // Sets `field` to `value` (neither may point into this hash). No conversion happens here.
  // kOutOfMemory leaves the hash unchanged.
  SetOutcome Set(std::string_view field, std::string_view value, MemoryAccountant& memory);
  // Removes `field`; returns whether it was there. Never fails (a shrink that is refused keeps
  // the larger layout).
  bool Remove(std::string_view field, MemoryAccountant& memory);
  // Makes room in a hashtable for `more_fields` new fields and `more_bytes` of records
  // (RecordBytes each), so that Sets within them allocate nothing unless a probe run overflows.
  // False when refused (the fields are unchanged).
  bool Reserve(size_t more_fields, size_t more_bytes, MemoryAccountant& memory);
  // The arena bytes a field and its value take.
  static size_t RecordBytes(std::string_view field, std::string_view value);

  // listpack to hashtable with room for `fields_hint` fields (Redis's hashTypeConvert). False,
  // with nothing changed, when memory is refused.
  bool ConvertToHashtable(size_t fields_hint, MemoryAccountant& memory);

  // A field and its value drawn uniformly from `rng` (the hash must not be empty).
  void RandomPair(Rng& rng, std::string_view* field, std::string_view* value) const;

  // Visits every pair in the hash's order (listpack: insertion; hashtable: hash order).
  // visit(field, value) may not change the hash; the views live until it changes.
  template <typename Visit>
  void ForEach(Visit&& visit) const;

  // HSCAN: visits pairs from `cursor` on for about `count` slots and returns the next cursor
  // (0 when done). A listpack is visited whole at once, as Redis returns it. A pair present for
  // the whole scan is visited at least once.
  template <typename Visit>
  uint64_t Scan(uint64_t cursor, size_t count, Visit&& visit) const;

  // The longest field or value (RDB loading decides the encoding by it).
  size_t longest_bytes() const;
  // The bytes the hash occupies outside its key's entry (MEMORY USAGE).
  size_t allocated_bytes() const;
  // The structure's invariants (tests, fuzzing): records well formed and counted, fields
  // distinct, the table in hash order with the right distances.
  bool CheckInvariants() const;

 private:
  HashValue() = default;
  ~HashValue() = default;

  struct Pair {
    std::string_view field;
    std::string_view value;
    size_t end = 0;  // the arena offset after the record
  };
  static Pair PairIn(const char* arena, size_t offset);
  Pair PairAt(size_t offset) const { return PairIn(arena_, offset); }
  static size_t WriteRecord(char* out, std::string_view field, std::string_view value);
  // Makes room for `bytes` more arena bytes (compacting a mostly dead table arena as it grows);
  // false when refused (nothing changed).
  bool ReserveArena(size_t bytes, MemoryAccountant& memory);
  // Copies the live records into a new arena in the index's order; false when refused.
  bool CompactArena(MemoryAccountant& memory);
  // The record offset of `field` in a listpack, or SIZE_MAX.
  size_t ListpackFind(std::string_view field) const;
  SetOutcome ListpackSet(std::string_view field, std::string_view value, MemoryAccountant& memory);
  SetOutcome TableSet(std::string_view field, std::string_view value, MemoryAccountant& memory);

  MemberRecords records() const { return {arena_, hash_seed()}; }
  uint64_t HashOf(std::string_view field) const { return records().HashOf(field); }

  // The field TTL side table (see has_field_ttls): `times` maps a field to its expiry as 8
  // little-endian bytes.
  struct FieldTtls {
    uint64_t hash_seed = 0;
    HashValue* times = nullptr;
    int64_t min_expire = INT64_MAX;
  };
  // Recomputes ttls_->min_expire exactly.
  void RecomputeMinExpire();
  // Frees the side table (its seed goes back to the header word).
  void DropTtls(MemoryAccountant& memory);
  static int64_t DecodeTime(std::string_view bytes);

  char* arena_ = nullptr;
  MemberIndex index_;  // not allocated: listpack encoding
  union {
    uint64_t hash_seed_ = 0;  // without field TTLs
    FieldTtls* ttls_;         // with them (tagged by has_ttls_)
  };
  size_t arena_used_ = 0;
  size_t arena_capacity_ = 0;
  size_t arena_dead_ = 0;  // bytes of replaced or removed records (hashtable only)
  uint32_t fields_ = 0;
  bool has_ttls_ = false;
};

// ---------------------------------------------------------------------------------------------
// Template implementations.

template <typename Visit>
void HashValue::ForEachFieldTtl(Visit&& visit) const {
  if (!has_ttls_) return;
  ttls_->times->ForEach(
      [&](std::string_view field, std::string_view when) { visit(field, DecodeTime(when)); });
}

template <typename OnExpired>
size_t HashValue::ExpireFields(int64_t now_ms, size_t max, MemoryAccountant& memory,
                               OnExpired&& on_expired) {
  if (!has_ttls_ || ttls_->min_expire >= now_ms || max == 0) return 0;
  // The victims are copied out first: removing changes the arenas the walk reads.
  std::vector<std::string> expired;
  ttls_->times->ForEach([&](std::string_view field, std::string_view when) {
    if (expired.size() < max && DecodeTime(when) < now_ms) expired.emplace_back(field);
  });
  for (const std::string& field : expired) {
    on_expired(std::string_view(field));
    Remove(field, memory);
  }
  if (has_ttls_) RecomputeMinExpire();
  return expired.size();
}

template <typename Visit>
void HashValue::ForEach(Visit&& visit) const {
  if (is_listpack()) {
    for (size_t offset = 0; offset < arena_used_;) {
      const Pair pair = PairAt(offset);
      offset = pair.end;
      visit(pair.field, pair.value);
    }
    return;
  }
  index_.ForEachOffset([&](uint64_t offset) {
    const Pair pair = PairAt(offset);
    visit(pair.field, pair.value);
  });
}

template <typename Visit>
uint64_t HashValue::Scan(uint64_t cursor, size_t count, Visit&& visit) const {
  if (is_listpack()) {
    ForEach(visit);
    return 0;
  }
  return index_.Scan(records(), cursor, count, [&](uint64_t offset) {
    const Pair pair = PairAt(offset);
    visit(pair.field, pair.value);
  });
}

}  // namespace keel
