// Listpack: Redis's packed sequence of strings and integers (listpack.c's format, byte for byte),
// the representation of a list node (list.h) and, in RDB, of every small aggregate.
//
// Layout: 4 bytes total size and 2 bytes element count (little-endian; 65535 means "unknown"),
// the entries, then the end byte 0xFF. An entry is its encoding (a 7-bit unsigned, a 13-, 16-,
// 24-, 32- or 64-bit signed integer, or a string of 6-, 12- or 32-bit length) followed by its
// back length: the encoding's size written from the right in 7-bit groups, so the previous
// entry can be found from the next one. An element that reads as a strict 64-bit integer (as
// lpStringToInt64 decides) is stored as an integer, as Redis does: DUMP bytes then match.
//
// These functions work on caller-owned buffers and never allocate; the writers need room for
// exactly EntryBytes(element) bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::listpack {

inline constexpr size_t kHeaderBytes = 6;
inline constexpr unsigned char kEnd = 0xFF;
inline constexpr uint16_t kCountUnknown = 65535;  // LP_HDR_NUMELE_UNKNOWN
// An empty listpack: header and end byte.
inline constexpr size_t kEmptyBytes = kHeaderBytes + 1;
// The longest text of an int64 ("-9223372036854775808").
inline constexpr size_t kIntegerTextMax = 20;

// Redis's lpStringToInt64: a strict decimal int64 (no sign on zero, no leading zeros, at most
// 20 bytes).
bool StringToInt64(std::string_view text, int64_t* value);

// Bytes the entry for `element` takes (encoding, data and back length).
size_t EntryBytes(std::string_view element);
// Writes the entry for `element` at `out` (EntryBytes(element) bytes).
void WriteEntry(std::string_view element, unsigned char* out);

// Total size and count from a header.
uint32_t TotalBytes(const unsigned char* listpack);
void SetHeader(unsigned char* listpack, uint32_t total_bytes, size_t count);
// Writes an empty listpack (kEmptyBytes bytes).
void WriteEmpty(unsigned char* listpack);

// An element read from an entry: its bytes, or for an integer entry its text (kept in `digits`,
// so the view lives as long as this object does).
class Element {
 public:
  Element() = default;
  Element(const Element&) = delete;
  Element& operator=(const Element&) = delete;
  std::string_view view() const { return view_; }
  // Reads the entry at `entry` (which must be valid).
  void Read(const unsigned char* entry);

 private:
  std::string_view view_;
  char digits_[kIntegerTextMax + 1] = {};
};

// Reads the entry at `entry` (valid): true and *value for an integer entry, false and *bytes
// (a view into the listpack) for a string entry.
bool ReadEntry(const unsigned char* entry, int64_t* value, std::string_view* bytes);

// Size of the entry at `entry` (valid), back length included.
size_t EntrySize(const unsigned char* entry);
// The entry before the one at `entry`, which must not be the first (its back length says where).
const unsigned char* PreviousEntry(const unsigned char* entry);
// Whether the entry at `entry` holds `element` (as Redis's lpCompare: an integer entry equals
// the element's strict integer text).
bool EntryEquals(const unsigned char* entry, std::string_view element);

// Deep validation of untrusted bytes (a RESTORE payload): header size equals `size`, every
// entry's encoding and back length are consistent and inside the buffer, the end byte is last,
// and the header count (unless unknown) matches. On success `*count` is the element count.
bool Validate(const unsigned char* listpack, size_t size, size_t* count);

// Every element of the untrusted listpack `blob` (validated as Validate does), appended to
// `*elements`; false when it is malformed.
bool ReadAll(std::string_view blob, std::vector<std::string>* elements);

}  // namespace keel::listpack
