#include "engine/db/types/bitmap.h"

#include <bit>
#include <cstring>

#include "engine/base/assert.h"

namespace keel::bitmap {
namespace {

// Sums of a field and an increment are exact in 128 bits (GCC and Clang have the type).
__extension__ typedef __int128 Int128;

// Whole strings are read eight bytes at a time: a word's bits in Redis's order are its bytes
// read big-endian (byte 0's most significant bit first).
inline uint64_t LoadBigEndian(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
  return word;
}

inline uint64_t LoadNative(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

uint64_t CountWordsPortable(const unsigned char* p, size_t words) {
  uint64_t count = 0;
  for (size_t i = 0; i < words; i++) count += std::popcount(LoadNative(p + 8 * i));
  return count;
}

#if defined(__x86_64__)
// The same loop compiled for the POPCNT instruction (one instruction per word instead of a
// dozen), used when the CPU has it: every x86-64 made since 2008 does, but the build targets
// the baseline ISA. Four independent sums keep the loop from waiting on one adder.
__attribute__((target("popcnt"))) uint64_t CountWordsPopcnt(const unsigned char* p, size_t words) {
  uint64_t sums[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    sums[0] += static_cast<uint64_t>(__builtin_popcountll(LoadNative(p + 8 * i)));
    sums[1] += static_cast<uint64_t>(__builtin_popcountll(LoadNative(p + 8 * i + 8)));
    sums[2] += static_cast<uint64_t>(__builtin_popcountll(LoadNative(p + 8 * i + 16)));
    sums[3] += static_cast<uint64_t>(__builtin_popcountll(LoadNative(p + 8 * i + 24)));
  }
  for (; i < words; i++)
    sums[0] += static_cast<uint64_t>(__builtin_popcountll(LoadNative(p + 8 * i)));
  return sums[0] + sums[1] + sums[2] + sums[3];
}
const bool kHasPopcnt = __builtin_cpu_supports("popcnt");
#endif

uint64_t CountWords(const unsigned char* p, size_t words) {
#if defined(__x86_64__)
  if (kHasPopcnt) return CountWordsPopcnt(p, words);
#endif
  return CountWordsPortable(p, words);
}

}  // namespace

uint64_t CountBits(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t words = bytes.size() / 8;
  uint64_t count = CountWords(p, words);
  for (size_t i = words * 8; i < bytes.size(); i++) count += std::popcount(p[i]);
  return count;
}

uint64_t CountBitRange(std::string_view bytes, uint64_t first_bit, uint64_t last_bit) {
  KEEL_DASSERT(first_bit <= last_bit);
  KEEL_DASSERT(last_bit < 8 * static_cast<uint64_t>(bytes.size()));
  const uint64_t first_byte = first_bit >> 3;
  const uint64_t last_byte = last_bit >> 3;
  uint64_t count = CountBits(bytes.substr(first_byte, last_byte - first_byte + 1));
  // Take back the bits of the edge bytes that lie outside the range.
  const auto first = static_cast<unsigned char>(bytes[first_byte]);
  const auto last = static_cast<unsigned char>(bytes[last_byte]);
  const unsigned before_mask = static_cast<unsigned char>(0xFF00u >> (first_bit & 7));
  const unsigned after_mask = (1u << (7 - (last_bit & 7))) - 1;
  count -= static_cast<uint64_t>(std::popcount(static_cast<unsigned char>(first & before_mask)));
  count -= static_cast<uint64_t>(std::popcount(static_cast<unsigned char>(last & after_mask)));
  return count;
}

int64_t FindBit(std::string_view bytes, uint64_t first_bit, uint64_t last_bit, bool bit) {
  KEEL_DASSERT(first_bit <= last_bit);
  KEEL_DASSERT(last_bit < 8 * static_cast<uint64_t>(bytes.size()));
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  uint64_t position = first_bit;
  // Bit by bit up to a word boundary (at most 63 bits), then whole words, then the tail.
  for (; position <= last_bit && (position & 63) != 0; position++) {
    if (GetBit(bytes, position) == bit) return static_cast<int64_t>(position);
  }
  const uint64_t flip = bit ? 0 : ~uint64_t{0};
  for (; position <= last_bit && last_bit - position >= 63; position += 64) {
    const uint64_t word = LoadBigEndian(p + (position >> 3)) ^ flip;
    if (word != 0) return static_cast<int64_t>(position + std::countl_zero(word));
  }
  for (; position <= last_bit; position++) {
    if (GetBit(bytes, position) == bit) return static_cast<int64_t>(position);
  }
  return -1;
}

void Combine(BitOperation operation, std::span<const std::string_view> sources, size_t size,
             unsigned char* out) {
  KEEL_ASSERT(!sources.empty());
  KEEL_ASSERT(operation != BitOperation::kNot || sources.size() == 1);
  // The first source, zero padded, is the starting value; each further source is folded in
  // over the bytes it has, and over the padding where that changes something (AND clears it).
  const std::string_view first = sources[0].substr(0, size);
  if (!first.empty()) std::memcpy(out, first.data(), first.size());
  std::memset(out + first.size(), 0, size - first.size());
  if (operation == BitOperation::kNot) {
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
      const uint64_t word = ~LoadNative(out + i);
      std::memcpy(out + i, &word, sizeof(word));
    }
    for (; i < size; i++) out[i] = static_cast<unsigned char>(~out[i]);
    return;
  }
  for (size_t s = 1; s < sources.size(); s++) {
    const auto* in = reinterpret_cast<const unsigned char*>(sources[s].data());
    const size_t length = std::min(size, sources[s].size());
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
      uint64_t word = LoadNative(out + i);
      const uint64_t other = LoadNative(in + i);
      word = operation == BitOperation::kAnd  ? word & other
             : operation == BitOperation::kOr ? word | other
                                              : word ^ other;
      std::memcpy(out + i, &word, sizeof(word));
    }
    for (; i < length; i++) {
      out[i] = operation == BitOperation::kAnd  ? out[i] & in[i]
               : operation == BitOperation::kOr ? out[i] | in[i]
                                                : out[i] ^ in[i];
    }
    // Past this source's end it reads as zeros: AND clears, OR and XOR keep.
    if (operation == BitOperation::kAnd) std::memset(out + length, 0, size - length);
  }
}

uint64_t GetField(std::string_view bytes, uint64_t bit_offset, int bits) {
  KEEL_DASSERT(bits >= 1 && bits <= 64);
  uint64_t value = 0;
  for (int i = 0; i < bits; i++) {
    value = (value << 1) | (GetBit(bytes, bit_offset + static_cast<uint64_t>(i)) ? 1 : 0);
  }
  return value;
}

int64_t GetSignedField(std::string_view bytes, uint64_t bit_offset, int bits) {
  uint64_t value = GetField(bytes, bit_offset, bits);
  // Sign-extend from the field's top bit.
  if (bits < 64 && (value >> (bits - 1)) & 1) value |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(value);
}

void SetField(std::span<char> bytes, uint64_t bit_offset, int bits, uint64_t value) {
  KEEL_DASSERT(bits >= 1 && bits <= 64);
  KEEL_ASSERT(bit_offset + static_cast<uint64_t>(bits) <= 8 * static_cast<uint64_t>(bytes.size()));
  for (int i = 0; i < bits; i++) {
    const uint64_t position = bit_offset + static_cast<uint64_t>(i);
    const bool on = (value >> (bits - 1 - i)) & 1;
    auto& byte = reinterpret_cast<unsigned char&>(bytes[position >> 3]);
    const auto mask = static_cast<unsigned char>(0x80u >> (position & 7));
    byte = on ? static_cast<unsigned char>(byte | mask) : static_cast<unsigned char>(byte & ~mask);
  }
}

FieldResult AddUnsigned(uint64_t value, int64_t increment, int bits, Overflow overflow) {
  KEEL_DASSERT(bits >= 1 && bits <= 63);
  const uint64_t max = (uint64_t{1} << bits) - 1;
  const Int128 sum = static_cast<Int128>(value) + increment;
  const uint64_t wrapped = static_cast<uint64_t>(sum) & max;
  if (value > max || sum > static_cast<Int128>(max)) {
    return {overflow == Overflow::kSat ? max : wrapped, true};
  }
  if (sum < 0) return {overflow == Overflow::kSat ? 0 : wrapped, true};
  return {static_cast<uint64_t>(sum), false};
}

FieldResult AddSigned(int64_t value, int64_t increment, int bits, Overflow overflow) {
  KEEL_DASSERT(bits >= 1 && bits <= 64);
  const Int128 max = bits == 64 ? INT64_MAX : (Int128{1} << (bits - 1)) - 1;
  const Int128 min = -max - 1;
  const Int128 sum = static_cast<Int128>(value) + increment;
  // Wrapping keeps the low `bits` bits and sign-extends them.
  uint64_t wrapped = static_cast<uint64_t>(sum);
  if (bits < 64) {
    wrapped &= (uint64_t{1} << bits) - 1;
    if ((wrapped >> (bits - 1)) & 1) wrapped |= ~uint64_t{0} << bits;
  }
  if (sum > max) {
    return {overflow == Overflow::kSat ? static_cast<uint64_t>(static_cast<int64_t>(max)) : wrapped,
            true};
  }
  if (sum < min) {
    return {overflow == Overflow::kSat ? static_cast<uint64_t>(static_cast<int64_t>(min)) : wrapped,
            true};
  }
  return {static_cast<uint64_t>(static_cast<int64_t>(sum)), false};
}

}  // namespace keel::bitmap
