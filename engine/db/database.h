// Database: one of the numbered keyspaces (SELECT 0..databases-1).
//
// An open-addressing hash table with linear probing over pointers to Entry blocks. Each slot
// keeps 16 bits of the key's hash above the 48 address bits, so a probe that meets another key
// rejects it without touching its memory. Deletion shifts later entries back (no tombstones), so
// lookups never slow down with churn. Every byte (entries and slot array) is accounted through the
// MemoryAccountant and an allocation the environment refuses fails the operation cleanly.
//
// This is the foundation's table. Growth is a full rehash when the load passes 3/4; incremental
// growth, cursor-stable SCAN, sampling and the compact entry layout arrive with the "Keyspace and
// strings" issue, behind this same interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/base/memory.h"
#include "engine/db/entry.h"

namespace keel {

class Database {
 public:
  Database(MemoryAccountant& memory, uint64_t hash_seed);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // The hash of `key` in this database. Commands that look a key up and then write it hash once
  // and pass the hash to both calls.
  uint64_t Hash(std::string_view key) const;

  // The entry for `key`, or nullptr. Ignores expiry: callers decide (see keyspace.h).
  Entry* Find(std::string_view key) { return Find(key, Hash(key)); }
  Entry* Find(std::string_view key, uint64_t hash);

  enum class SetOutcome : uint8_t { kInserted, kReplaced, kOutOfMemory };
  // Makes `key` hold the string `value` with `expire_at_ms` (kNoExpiry for none) and `encoding`
  // (what OBJECT ENCODING reports; by default what Redis gives a value stored as given),
  // replacing any previous value of any type. A replaced string of the same size is overwritten
  // in place (no allocation). On kOutOfMemory nothing changed.
  SetOutcome SetString(std::string_view key, std::string_view value, int64_t expire_at_ms) {
    return SetString(key, Hash(key), value, expire_at_ms, StringEncodingFor(value));
  }
  SetOutcome SetString(std::string_view key, uint64_t hash, std::string_view value,
                       int64_t expire_at_ms, ObjectEncoding encoding);

  // Removes `key`; returns whether it existed.
  bool Erase(std::string_view key);

  // Changes the expiry of an existing entry.
  void SetExpiry(Entry* entry, int64_t expire_at_ms);

  // Removes every key.
  void Clear();

  size_t size() const { return size_; }
  size_t expires_count() const { return expires_count_; }
  size_t capacity() const { return capacity_; }

  // Visits entries in slot order (deterministic for a given seed and history). `visit` must not
  // change the table.
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    for (size_t i = 0; i < capacity_; i++) {
      if (slots_[i] != 0) visit(*EntryOf(slots_[i]));
    }
  }

 private:
  static constexpr int kTagShift = 48;
  static constexpr uint64_t kAddressMask = (uint64_t{1} << kTagShift) - 1;

  static Entry* EntryOf(uint64_t slot) { return reinterpret_cast<Entry*>(slot & kAddressMask); }
  static uint64_t TagOf(uint64_t hash) { return (hash >> kTagShift) | 1; }  // never 0
  static uint64_t MakeSlot(Entry* entry, uint64_t hash);

  // Index of the slot holding `key`, or of the empty slot where it would go.
  size_t Probe(std::string_view key, uint64_t hash, bool* found) const;
  bool Grow();
  void EraseSlot(size_t index);
  Entry* NewEntry(std::string_view key, std::string_view value, int64_t expire_at_ms,
                  ObjectEncoding encoding);
  void FreeEntry(Entry* entry);

  MemoryAccountant& memory_;
  uint64_t hash_seed_;
  uint64_t* slots_ = nullptr;
  size_t capacity_ = 0;  // a power of two, or 0 before the first insert
  size_t size_ = 0;
  size_t expires_count_ = 0;
};

}  // namespace keel
