// Entry: one key and its value, held in a single accounted allocation.
//
// Layout: [Entry header][key bytes][value bytes]. Strings live inline after the key, so a SET of
// a short value costs one allocation. Later value types (lists, hashes, ...) will keep a pointer
// to their own structure in the value area and mark it in `type`. The "Keyspace and strings"
// issue replaces this header with the compact per-key layout described in docs/KEYSPACE.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel {

enum class ValueType : uint8_t { kString = 0, kList, kSet, kZSet, kHash, kStream };

// How a value is stored, as OBJECT ENCODING names it. Strings: kInt for a value that reads as a
// 64-bit integer in at most 20 bytes, kEmbstr for other values of at most 44 bytes, kRaw
// otherwise or after an in-place edit (APPEND, SETRANGE), following Redis's tryObjectEncoding.
// Keel stores every string as bytes; the encoding is kept so that OBJECT ENCODING answers as Redis
// does and so that later value types can say how they are laid out.
enum class ObjectEncoding : uint8_t {
  kRaw = 0,
  kInt,
  kEmbstr,
  kHashtable,
  kListpack,
  kQuicklist,
  kIntset,
  kSkiplist,
  kStream,
};

// The name OBJECT ENCODING replies with.
std::string_view ObjectEncodingName(ObjectEncoding encoding);

// The encoding Redis gives a string value it stores as given (SET, GETSET, MSET, SETEX, ...).
ObjectEncoding StringEncodingFor(std::string_view value);

// No expiry set. Expiry times are absolute Unix milliseconds, as Redis stores them.
inline constexpr int64_t kNoExpiry = -1;

struct Entry {
  int64_t expire_at_ms;
  uint32_t key_size;
  uint32_t value_size;
  ValueType type;
  ObjectEncoding encoding;
  uint8_t reserved[6];

  char* key_data() { return reinterpret_cast<char*>(this + 1); }
  const char* key_data() const { return reinterpret_cast<const char*>(this + 1); }
  std::string_view key() const { return {key_data(), key_size}; }
  char* value_data() { return key_data() + key_size; }
  std::string_view value() const { return {key_data() + key_size, value_size}; }
  bool has_expiry() const { return expire_at_ms != kNoExpiry; }

  static size_t AllocationBytes(size_t key_size, size_t value_size) {
    return sizeof(Entry) + key_size + value_size;
  }
  size_t allocation_bytes() const { return AllocationBytes(key_size, value_size); }
};

static_assert(sizeof(Entry) == 24, "the entry header is part of the per-key cost");

}  // namespace keel
