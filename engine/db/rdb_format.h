// The RDB format's building blocks, as Redis 7.0 writes them (rdb.c): lengths, strings with
// their integer and LZF encodings, and the type bytes. The value serialiser (value_ops.h) builds
// on them; DUMP/RESTORE use them now, RDB files and AOF rewrite next (docs/RDB.md will describe
// the file around them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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

// Reads what the Write functions write, advancing `*in`. False on truncated or malformed input
// (RESTORE's "Bad data format"); never reads past the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ReadByte(uint8_t* byte);
  // A plain length (not a special string encoding).
  bool ReadLength(uint64_t* length);
  // A string in any of its encodings, decoded into `*bytes`, refusing one longer than
  // `size_max` bytes.
  bool ReadString(std::string* bytes, size_t size_max);
  // `size` raw bytes (a stream PEL's IDs and times), as a view into the input.
  bool ReadRaw(size_t size, std::string_view* bytes);
  bool at_end() const { return in_.empty(); }
  // The bytes left: a bound on how many more values can follow (each takes at least one).
  size_t remaining() const { return in_.size(); }

 private:
  // A length, or a special encoding (`*encoded` true, `*length` the encoding number).
  bool ReadLengthOrEncoding(uint64_t* length, bool* encoded);
  std::string_view in_;
};

}  // namespace keel::rdb
