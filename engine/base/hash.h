// A fast seeded 64-bit hash for keyspace tables and the command lookup.
//
// Seeds come from the environment's entropy (so a client cannot pick keys that collide, and a
// simulated run is fixed by its seed); nothing depends on pointer values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace keel {

namespace hash_internal {

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const __uint128_t product = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t Read64(const unsigned char* p) {
  uint64_t value;
  std::memcpy(&value, p, 8);
  return value;
}

inline uint64_t Read32(const unsigned char* p) {
  uint32_t value;
  std::memcpy(&value, p, 4);
  return value;
}

inline constexpr uint64_t kPrime0 = 0xa0761d6478bd642full;
inline constexpr uint64_t kPrime1 = 0xe7037ed1a0b428dbull;
inline constexpr uint64_t kPrime2 = 0x8ebc6af09c88c6e3ull;

}  // namespace hash_internal

inline uint64_t HashBytes(const void* data, size_t size, uint64_t seed) {
  using namespace hash_internal;
  const auto* p = static_cast<const unsigned char*>(data);
  seed ^= Mix(seed ^ kPrime0, kPrime1);
  uint64_t a = 0;
  uint64_t b = 0;
  if (size <= 16) {
    if (size >= 4) {
      a = (Read32(p) << 32) | Read32(p + ((size >> 3) << 2));
      b = (Read32(p + size - 4) << 32) | Read32(p + size - 4 - ((size >> 3) << 2));
    } else if (size > 0) {
      a = (static_cast<uint64_t>(p[0]) << 16) | (static_cast<uint64_t>(p[size >> 1]) << 8) |
          p[size - 1];
    }
  } else {
    size_t left = size;
    while (left > 16) {
      seed = Mix(Read64(p) ^ kPrime1, Read64(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    a = Read64(p + left - 16);
    b = Read64(p + left - 8);
  }
  return Mix(kPrime1 ^ size, Mix(a ^ kPrime1, b ^ seed ^ kPrime2));
}

}  // namespace keel
