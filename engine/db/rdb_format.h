// The RDB format's building blocks, as Redis 7.0 writes them (rdb.c): lengths, strings with
// their integer and LZF encodings, and the type bytes. The value serialiser (value_ops.h) builds
// on them; DUMP/RESTORE use them now, RDB files and AOF rewrite next (docs/RDB.md will describe
// the file around them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/db/byte_source.h"

namespace keel::rdb {

// RDB_VERSION of Redis 7.0: DUMP payloads carry it, and RESTORE refuses a newer one.
inline constexpr uint16_t kVersion = 10;
// RDB_VERSION of Redis 7.4 and 8.0: what a payload or file holding a hash with field TTLs (the
// types below) says it is. Redis 7.0 refuses it ("DUMP payload version or checksum are wrong").
inline constexpr uint16_t kVersionFieldExpiry = 12;

// Type bytes (RDB_TYPE_*).
inline constexpr uint8_t kTypeString = 0;
inline constexpr uint8_t kTypeList = 1;             // a count, then each element
inline constexpr uint8_t kTypeSet = 2;              // a count, then each member
inline constexpr uint8_t kTypeHash = 4;             // a count, then each field and value
inline constexpr uint8_t kTypeHashZipmap = 9;       // one zipmap (before Redis 2.6)
inline constexpr uint8_t kTypeHashZiplist = 13;     // one ziplist (Redis 2.6 to 6.2)
inline constexpr uint8_t kTypeHashListpack = 16;    // one listpack (Redis 7.0)
inline constexpr uint8_t kTypeListZiplist = 10;     // one ziplist (before Redis 3.2)
inline constexpr uint8_t kTypeSetIntset = 11;       // one intset
inline constexpr uint8_t kTypeListQuicklist = 14;   // ziplist nodes (Redis 3.2 to 6.2)
inline constexpr uint8_t kTypeListQuicklist2 = 18;  // listpack nodes (Redis 7.0)
inline constexpr uint8_t kTypeSetListpack = 20;     // one listpack (Redis 7.2; loaded only)
// Hashes with field TTLs (Redis 7.4): the pre-GA forms are loaded only.
inline constexpr uint8_t kTypeHashMetadataPreGa = 22;    // count, then (ttl, field, value)...
inline constexpr uint8_t kTypeHashListpackExPreGa = 23;  // listpack of field, value, ttl...
inline constexpr uint8_t kTypeHashMetadata = 24;    // min ttl, count, (ttl - min + 1, field, value)
inline constexpr uint8_t kTypeHashListpackEx = 25;  // min ttl, listpack of field, value, ttl...

// Appends rdbSaveLen's encoding of `length`: 6, 14, 32 or 64 bits.
void WriteLength(std::string* out, uint64_t length);

// Appends rdbSaveRawString's encoding of `bytes`: an integer of up to 32 bits as such when
// `bytes` is its canonical text (of at most 11 bytes), else LZF-compressed when `compress` and it
// is longer than 20 bytes and LZF saves at least 4 bytes, else its length and bytes.
void WriteString(std::string* out, std::string_view bytes, bool compress);

// DUMP and FUNCTION DUMP payloads end with the RDB version (2 bytes) and a CRC-64 of everything
// before it (8 bytes), both little-endian.
inline constexpr size_t kPayloadFooterBytes = 10;
void AppendPayloadFooter(std::string* payload, uint16_t version = kVersion);
// Redis's verifyDumpPayload: a version this server can read and, when `verify_checksum` (DEBUG
// SET-SKIP-CHECKSUM-VALIDATION turns it off), a matching checksum.
bool PayloadFooterValid(std::string_view payload, bool verify_checksum);

// Reads what the Write functions write, advancing through the input. False on truncated or
// malformed input (RESTORE's "Bad data format"); never reads past the end.
//
// The input is either a whole buffer, or a ByteSource pulled through a window of fixed size (a
// compressed snapshot being decompressed): then no read needs more than the window at once (a
// long string is copied out window by window), and remaining() is the source's upper bound, not
// an exact count, so table sizes taken from counts go through PresizeFor.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in), base_(in.data()), crc_from_(in.data()) {}
  // Reads `source` through a window of `window_bytes` (>= 1) bytes, allocated here.
  Reader(ByteSource& source, size_t window_bytes);
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  bool ReadByte(uint8_t* byte) {
    if (in_.empty() && !Refill(1)) return false;
    *byte = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }
  // A plain length (not a special string encoding).
  bool ReadLength(uint64_t* length);
  // A string in any of its encodings, decoded into `*bytes`, refusing one longer than
  // `size_max` bytes.
  bool ReadString(std::string* bytes, size_t size_max);
  // `size` raw bytes (a stream PEL's IDs and times): a view into the input, or into the
  // reader's own copy when they straddle windows; valid until the next read.
  bool ReadRaw(size_t size, std::string_view* bytes);
  // Copies the next `size` bytes to `out`.
  bool ReadInto(char* out, size_t size);
  // Whether the input has ended (a source is asked for more; its error() may then say why not).
  bool at_end() { return in_.empty() && !Refill(1); }
  // The bytes left, exactly for a buffer, at most for a source: a bound on how many more values
  // can follow (each takes at least one).
  size_t remaining() const;
  // How many of `count` items of at least `item_bytes_min` bytes each a table may be sized for
  // before they are read: `count` itself for a buffer (the caller has checked it against
  // remaining()); for a source, no more than the window and kPresizeAllowanceBytes can hold, so
  // that a corrupt count in a compressed file (whose bound is loose) cannot make one huge
  // allocation: the table grows as the items arrive instead.
  size_t PresizeFor(uint64_t count, size_t item_bytes_min) const;
  // Bytes read so far, and the CRC-64 of them (an RDB file's trailer covers what precedes it).
  uint64_t position() const { return consumed_before_ + static_cast<uint64_t>(in_.data() - base_); }
  uint64_t ConsumedCrc64() const;
  // The source's error, if it stopped on one ("" for a buffer).
  std::string_view source_error() const;

  // About 1.4 million keys or 2 million hash fields: a table presized for more (a large
  // dataset's RESIZEDB) grows as the rest arrives.
  static constexpr size_t kPresizeAllowanceBytes = 4u << 20;

 private:
  // A length, or a special encoding (`*encoded` true, `*length` the encoding number).
  bool ReadLengthOrEncoding(uint64_t* length, bool* encoded);
  // Makes at least `wanted` (<= the window) bytes readable; false when the input ends first.
  bool Refill(size_t wanted);
  // Reads `size` bytes appended to `*out` without allocating more than arrives.
  bool AppendInto(std::string* out, size_t size);

  std::string_view in_;  // the unread bytes of the buffer or the window
  const char* base_;     // where the buffer or the window begins
  ByteSource* source_ = nullptr;
  std::string window_;            // a source's window (its size is fixed)
  uint64_t consumed_before_ = 0;  // bytes read before the window's start
  uint64_t crc_ = 0;              // CRC-64 of the bytes read before crc_from_
  const char* crc_from_;          // bytes read from here on are not in crc_ yet
  std::string raw_;               // ReadRaw's copy when its bytes straddle windows
  std::string lzf_in_;            // an LZF string's compressed bytes read from a source
};

}  // namespace keel::rdb
