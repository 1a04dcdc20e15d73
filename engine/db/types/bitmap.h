// Bitmap kernels over plain string bytes, as Redis numbers bits: bit 0 is the most significant
// bit of byte 0 (bitops.c). SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP and BITFIELD
// (engine/commands/cmd_bitmap.cc, cmd_bitfield.cc) read and write string values through these,
// so the bytes are exactly Redis's and DUMP/RESTORE carry them unchanged.
//
// The loops over whole strings (counting, searching, combining) go a 64-bit word at a time; the
// bytes before and after the whole words are done one at a time. None of them allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace keel::bitmap {

// The value of bit `bit_offset` of `bytes`; bits past the end read as 0.
inline bool GetBit(std::string_view bytes, uint64_t bit_offset) {
  const uint64_t byte = bit_offset >> 3;
  if (byte >= bytes.size()) return false;
  return (static_cast<unsigned char>(bytes[byte]) >> (7 - (bit_offset & 7))) & 1;
}

// The number of set bits in `bytes`.
uint64_t CountBits(std::string_view bytes);

// The number of set bits among bits [first_bit, last_bit] (inclusive) of `bytes`.
// REQUIRES: first_bit <= last_bit < 8 * bytes.size().
uint64_t CountBitRange(std::string_view bytes, uint64_t first_bit, uint64_t last_bit);

// The offset of the first bit equal to `bit` among bits [first_bit, last_bit] (inclusive) of
// `bytes`, or -1 when there is none. REQUIRES: first_bit <= last_bit < 8 * bytes.size().
int64_t FindBit(std::string_view bytes, uint64_t first_bit, uint64_t last_bit, bool bit);

enum class BitOperation : uint8_t { kAnd, kOr, kXor, kNot };

// BITOP: writes `size` bytes to `out`, the operation over `sources` where each source is read
// as if padded with zero bytes to `size` (Redis's rule for strings of different lengths). kNot
// takes exactly one source. `out` may not overlap a source.
void Combine(BitOperation operation, std::span<const std::string_view> sources, size_t size,
             unsigned char* out);

// BITFIELD's unsigned read of `bits` bits (1..64) at `bit_offset`; bits past the end of `bytes`
// read as 0.
uint64_t GetField(std::string_view bytes, uint64_t bit_offset, int bits);
// The same bits read as a two's complement signed integer.
int64_t GetSignedField(std::string_view bytes, uint64_t bit_offset, int bits);
// Writes the low `bits` bits of `value` at `bit_offset`.
// REQUIRES: bit_offset + bits <= 8 * bytes.size().
void SetField(std::span<char> bytes, uint64_t bit_offset, int bits, uint64_t value);

// BITFIELD's overflow rules (bitops.c's checkUnsignedBitfieldOverflow and
// checkSignedBitfieldOverflow) for `value` + `increment` in a field of `bits` bits.
enum class Overflow : uint8_t { kWrap, kSat, kFail };
struct FieldResult {
  uint64_t value;  // what is stored (the low `bits` bits matter; signed values sign-extended)
  bool overflowed;
};
// Unsigned fields (1..63 bits). `value` is the field's value, or for SET the new value as
// given (a negative one reads as a huge unsigned number, as in Redis: SET u8 0 -1 SAT is 255).
FieldResult AddUnsigned(uint64_t value, int64_t increment, int bits, Overflow overflow);
// Signed fields (1..64 bits).
FieldResult AddSigned(int64_t value, int64_t increment, int bits, Overflow overflow);

}  // namespace keel::bitmap
