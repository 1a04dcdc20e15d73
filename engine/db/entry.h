// Entry: one key and its value, held in a single block from the keyspace's SlabAllocator.
//
// Layout (docs/KEYSPACE.md has the per-key arithmetic):
//   byte 0      type (3 bits) | encoding (4 bits) | has-expiry (1 bit)
//   bytes 1-3   access clock: Redis's 24-bit LRU clock, or LFU decrement time and counter
//   varint      key size
//   varint      value size (always 5 bytes when growable)
//   [varint     capacity                      ] only when growable
//   [8 bytes    expiry, absolute Unix ms      ] only with has-expiry
//   [4 bytes    index in the volatile-key list] only with has-expiry
//   key bytes, value bytes, [spare bytes up to the capacity: only when growable]
// A 16-byte key with a 64-byte value takes 86 bytes (an 88-byte slab block). Strings live inline;
// later value types keep a pointer to their structure in the value bytes. The size of a block is
// fixed once written: adding/removing the expiry, or a value outgrowing its block, means a new
// block (Database does that and keeps the table pointing at it).
//
// A growable entry (encoding kRawGrowable) is a raw string that APPEND or SETRANGE grew: like an
// sds string after Redis's sdsMakeRoomFor, its block has spare bytes after the value, so the
// next appends write in place and a string built by appends costs amortised O(1) per byte
// instead of a copy of the whole value per append. Its value size is written as a 5-byte
// (padded) varint, so that changing it never moves the key and value bytes.
//
// An external entry (encoding kRawExternal) is a raw string that lives outside its block: its
// value bytes hold an ExternalString, the block the string was received in. A SET of a large
// argument adopts the client's query-buffer block that the argument was read into, as Redis
// makes the object of a big bulk from its query buffer (PROTO_MBULK_BIG_ARG), so a 512 MB value
// is neither copied nor held twice. value() and the other value accessors see the string;
// stored_value() sees the bytes in the block (what moving the entry to a new block copies).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "engine/base/assert.h"
#include "engine/base/varint.h"

namespace keel {

enum class ValueType : uint8_t { kString = 0, kList, kSet, kZSet, kHash, kStream };

// How a value is stored, as OBJECT ENCODING names it. Strings: kInt for a value that reads as a
// 64-bit integer in at most 20 bytes, kEmbstr for other values of at most 44 bytes, kRaw
// otherwise or after an in-place edit (APPEND, SETRANGE), following Redis's tryObjectEncoding.
// Keel stores every string as bytes; the encoding is kept so that OBJECT ENCODING answers as Redis
// does and so that later value types can say how they are laid out.
//
// kIntShared is a kInt value that Redis would hold as one of its shared integer objects (0..9999,
// written while the maxmemory policy lets integers be shared): OBJECT ENCODING still says "int",
// but OBJECT REFCOUNT and DEBUG OBJECT report Redis's shared refcount for it. Database::SetString
// decides it (see AccessClock::shared_integers); a COPY makes it a private kInt again.
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
  kIntShared,
  // A raw string with spare capacity after it (see the layout above). OBJECT ENCODING says "raw":
  // the spare is how Keel stores an appended-to string, not something Redis clients can see.
  kRawGrowable,
  // A raw string kept in a block of its own (ExternalString, see the layout above). OBJECT
  // ENCODING says "raw".
  kRawExternal,
};

// Where an external string (kRawExternal) lives: `size` bytes at `offset` in `block`, a block of
// `block_bytes` from the keyspace's MemoryAccountant (MemoryUse::kKeyspace) that the entry owns.
// The bytes around the string are what else the block held (a query buffer's command header).
struct ExternalString {
  char* block;
  size_t block_bytes;
  size_t offset;
  size_t size;
};

// The name OBJECT ENCODING replies with.
std::string_view ObjectEncodingName(ObjectEncoding encoding);

// The name TYPE replies with ("string", "list", ...).
std::string_view ValueTypeName(ValueType type);

// The encoding Redis gives a string value it stores as given (SET, GETSET, MSET, SETEX, ...).
ObjectEncoding StringEncodingFor(std::string_view value);

// Redis's OBJ_SHARED_INTEGERS: the integers 0..9999 exist once, as shared objects.
inline constexpr int64_t kSharedIntegers = 10000;
// OBJ_SHARED_REFCOUNT, the refcount Redis reports for a shared object.
inline constexpr int64_t kSharedRefcount = 2147483647;
// What OBJECT REFCOUNT reports for a value of this encoding: Redis's refcount of a key's value is
// 1 unless it is a shared integer (a value is never referenced twice by the keyspace).
inline int64_t ObjectRefcount(ObjectEncoding encoding) {
  return encoding == ObjectEncoding::kIntShared ? kSharedRefcount : 1;
}

// No expiry set. Expiry times are absolute Unix milliseconds, as Redis stores them.
inline constexpr int64_t kNoExpiry = -1;

class Entry {
 public:
  Entry() = delete;
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;

  // Bytes an entry with these sizes occupies.
  static size_t BytesFor(size_t key_size, size_t value_size, bool has_expiry) {
    return kFixedBytes + VarintBytes(key_size) + VarintBytes(value_size) +
           (has_expiry ? kExpiryBytes : 0) + key_size + value_size;
  }
  // Bytes a growable entry (kRawGrowable) with room for `capacity` value bytes occupies.
  static size_t GrowableBytesFor(size_t key_size, size_t capacity, bool has_expiry) {
    return kFixedBytes + VarintBytes(key_size) + kPaddedVarintBytes + VarintBytes(capacity) +
           (has_expiry ? kExpiryBytes : 0) + key_size + capacity;
  }
  // The most value bytes a growable entry can hold (its size field's padded varint).
  static constexpr size_t kGrowableValueBytesMax = (size_t{1} << 35) - 1;

  // Writes an entry into `block` (BytesFor(key.size(), value_size, expire_at_ms != kNoExpiry)
  // bytes). The value bytes are left for the caller to fill; the access clock starts at 0.
  static Entry* Create(void* block, ValueType type, ObjectEncoding encoding, std::string_view key,
                       size_t value_size, int64_t expire_at_ms);
  // The same for a growable string: `block` has GrowableBytesFor(key.size(), capacity, ...)
  // bytes and capacity >= value_size.
  static Entry* CreateGrowable(void* block, std::string_view key, size_t value_size,
                               size_t capacity, int64_t expire_at_ms);

  ValueType type() const { return static_cast<ValueType>(bytes_[0] & 0x07); }
  ObjectEncoding encoding() const { return static_cast<ObjectEncoding>((bytes_[0] >> 3) & 0x0f); }
  // Within the same layout: an entry never becomes growable or stops being one in place.
  void set_encoding(ObjectEncoding encoding) {
    KEEL_DASSERT((encoding == ObjectEncoding::kRawGrowable) == growable());
    KEEL_DASSERT((encoding == ObjectEncoding::kRawExternal) == external());
    bytes_[0] = static_cast<unsigned char>((bytes_[0] & 0x87) | (static_cast<int>(encoding) << 3));
  }
  bool has_expiry() const { return (bytes_[0] & 0x80) != 0; }
  bool growable() const { return encoding() == ObjectEncoding::kRawGrowable; }
  bool external() const { return encoding() == ObjectEncoding::kRawExternal; }
  // Whether a string is raw as Redis means it (OBJ_ENCODING_RAW), however Keel stores it: an edit
  // in place keeps its access clock, where an int or embstr value is unshared first.
  bool raw_string() const {
    const ObjectEncoding encoding = this->encoding();
    return encoding == ObjectEncoding::kRaw || encoding == ObjectEncoding::kRawGrowable ||
           encoding == ObjectEncoding::kRawExternal;
  }
  // Tests of WRONGTYPE paths plant a value of another type before that type has commands.
  void SetTypeForTesting(ValueType type) {
    bytes_[0] = static_cast<unsigned char>((bytes_[0] & 0xf8) | static_cast<int>(type));
  }

  // Redis's 24-bit "lru" field: the LRU clock of the last access, or with an LFU policy the
  // minutes of the last decrement (16 bits) and the logarithmic counter (8 bits).
  uint32_t access_clock() const {
    return static_cast<uint32_t>(bytes_[1]) | static_cast<uint32_t>(bytes_[2]) << 8 |
           static_cast<uint32_t>(bytes_[3]) << 16;
  }
  void set_access_clock(uint32_t clock) {
    bytes_[1] = static_cast<unsigned char>(clock);
    bytes_[2] = static_cast<unsigned char>(clock >> 8);
    bytes_[3] = static_cast<unsigned char>(clock >> 16);
  }

  std::string_view key() const {
    const Layout layout = Decode();
    return {reinterpret_cast<const char*>(data()) + layout.key_offset, layout.key_size};
  }
  std::string_view value() const {
    const std::string_view bytes = stored_value();
    if (external()) [[unlikely]] {
      const ExternalString string = ReadExternal(bytes.data());
      return {string.block + string.offset, string.size};
    }
    return bytes;
  }
  // The value bytes, writable, found with one decode of the layout (SET's in-place overwrite).
  std::span<char> mutable_value() {
    const std::span<char> bytes = mutable_stored_value();
    if (external()) [[unlikely]] {
      const ExternalString string = ReadExternal(bytes.data());
      return {string.block + string.offset, string.size};
    }
    return bytes;
  }
  char* value_data() { return mutable_value().data(); }
  size_t key_size() const { return Decode().key_size; }
  size_t value_size() const { return external() ? external_string().size : Decode().value_size; }
  // The value bytes the block has room for: value_size() unless growable.
  size_t value_capacity() const { return external() ? external_string().size : Decode().capacity; }
  // Changes the value size of a growable entry, within its capacity. The bytes are the caller's.
  void set_value_size(size_t value_size) {
    const Layout layout = Decode();
    KEEL_DASSERT(growable() && value_size <= layout.capacity);
    WritePaddedVarint(data() + kFixedBytes + VarintBytes(layout.key_size), value_size);
  }
  // The value bytes in the entry's own block: value() except for an external string, whose block
  // holds its ExternalString. Moving an entry to a new block copies these.
  std::string_view stored_value() const {
    const Layout layout = Decode();
    return {reinterpret_cast<const char*>(data()) + layout.key_offset + layout.key_size,
            layout.value_size};
  }
  std::span<char> mutable_stored_value() {
    const Layout layout = Decode();
    return {reinterpret_cast<char*>(data()) + layout.key_offset + layout.key_size,
            layout.value_size};
  }
  // Where an external string lives. REQUIRES: external().
  ExternalString external_string() const {
    KEEL_DASSERT(external());
    return ReadExternal(stored_value().data());
  }
  // Makes an external entry own `string` (its block's previous ExternalString, if any, is the
  // caller's to free). REQUIRES: external().
  void set_external_string(const ExternalString& string) {
    KEEL_DASSERT(external());
    std::memcpy(mutable_stored_value().data(), &string, sizeof(string));
  }

  // The expiry (absolute Unix ms), or kNoExpiry.
  int64_t expire_at_ms() const {
    if (!has_expiry()) return kNoExpiry;
    int64_t at_ms;
    std::memcpy(&at_ms, data() + Decode().expiry_offset, sizeof(at_ms));
    return at_ms;
  }
  // Changes the expiry of an entry that has one (its block has room for it).
  void set_expire_at_ms(int64_t at_ms) {
    std::memcpy(data() + Decode().expiry_offset, &at_ms, sizeof(at_ms));
  }
  // The entry's place in its database's list of keys with an expiry (for sampling).
  uint32_t volatile_index() const {
    uint32_t index;
    std::memcpy(&index, data() + Decode().expiry_offset + 8, sizeof(index));
    return index;
  }
  void set_volatile_index(uint32_t index) {
    std::memcpy(data() + Decode().expiry_offset + 8, &index, sizeof(index));
  }

  size_t allocation_bytes() const {
    const Layout layout = Decode();
    return layout.key_offset + layout.key_size + layout.capacity;
  }

 private:
  static constexpr size_t kFixedBytes = 4;
  static constexpr size_t kExpiryBytes = 12;
  static constexpr size_t kPaddedVarintBytes = 5;

  static ExternalString ReadExternal(const char* bytes) {
    ExternalString string;
    std::memcpy(&string, bytes, sizeof(string));
    return string;
  }

  // Create and CreateGrowable: the header, the key, and for a growable entry its padded size and
  // capacity (`capacity` is ignored otherwise).
  static Entry* Write(void* block, ValueType type, ObjectEncoding encoding, std::string_view key,
                      size_t value_size, size_t capacity, int64_t expire_at_ms);

  struct Layout {
    size_t key_size;
    size_t value_size;
    size_t capacity;
    size_t expiry_offset;
    size_t key_offset;
  };

  // A varint of exactly kPaddedVarintBytes bytes (continuation bits on the first four), which
  // ReadVarint reads like any other.
  static void WritePaddedVarint(unsigned char* p, size_t value) {
    for (size_t i = 0; i + 1 < kPaddedVarintBytes; i++) {
      p[i] = static_cast<unsigned char>(value | 0x80);
      value >>= 7;
    }
    p[kPaddedVarintBytes - 1] = static_cast<unsigned char>(value);
  }

  Layout Decode() const {
    Layout layout;
    size_t offset = kFixedBytes;
    offset += ReadVarint(data() + offset, &layout.key_size);
    offset += ReadVarint(data() + offset, &layout.value_size);
    layout.capacity = layout.value_size;
    if (growable()) offset += ReadVarint(data() + offset, &layout.capacity);
    layout.expiry_offset = offset;
    layout.key_offset = offset + (has_expiry() ? kExpiryBytes : 0);
    return layout;
  }

  // The whole block, including what follows the fixed bytes.
  unsigned char* data() { return reinterpret_cast<unsigned char*>(this); }
  const unsigned char* data() const { return reinterpret_cast<const unsigned char*>(this); }

  unsigned char bytes_[kFixedBytes];  // the fixed part; the rest follows in the same block
};

}  // namespace keel
