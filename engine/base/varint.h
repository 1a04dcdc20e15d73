// Unsigned varints: 7 bits a byte, low first, the high bit meaning "more". The keyspace's entries
// (entry.h) and the members' records of sets, hashes and sorted sets (record_arena.h) use them.
#pragma once

#include <cstddef>

namespace keel {

inline size_t VarintBytes(size_t value) {
  size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    bytes++;
  }
  return bytes;
}

// Reads the varint at `p` into `*value`; returns its bytes. The caller wrote it, so it ends.
inline size_t ReadVarint(const unsigned char* p, size_t* value) {
  if (p[0] < 0x80) {
    *value = p[0];
    return 1;
  }
  size_t result = 0;
  size_t shift = 0;
  size_t i = 0;
  while (true) {
    result |= static_cast<size_t>(p[i] & 0x7f) << shift;
    if (p[i++] < 0x80) break;
    shift += 7;
  }
  *value = result;
  return i;
}

// Writes `value` at `p` (room for VarintBytes(value)); returns the bytes written.
inline size_t WriteVarint(unsigned char* p, size_t value) {
  size_t i = 0;
  while (value >= 0x80) {
    p[i++] = static_cast<unsigned char>(value | 0x80);
    value >>= 7;
  }
  p[i++] = static_cast<unsigned char>(value);
  return i;
}

}  // namespace keel
