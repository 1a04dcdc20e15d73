// HyperLogLog as Redis 7.0 stores it in a string value (hyperloglog.c), byte for byte, so that a
// HyperLogLog made by Redis counts the same in Keel and the other way round:
//
//   header  "HYLL", encoding (0 dense, 1 sparse), 3 unused bytes, the cached cardinality as 8
//           little-endian bytes (its top bit set: not valid, recompute);
//   dense   16384 registers of 6 bits, packed least significant bit first (12288 bytes);
//   sparse  run-length opcodes: ZERO 00xxxxxx (1..64 zero registers), XZERO 01xxxxxx yyyyyyyy
//           (1..16384 zero registers), VAL 1vvvvvxx (1..4 registers of value 1..32).
//
// An element's register and value come from MurmurHash64A with Redis's seed; the count is Otmar
// Ertl's estimator over the register histogram, as Redis 7.0 computes it (the same double
// operations in the same order, so the same integer comes out).
//
// Values from outside (RESTORE, a corrupted key) may hold any bytes: every reader here checks
// bounds against the value's length and reports a corrupt value rather than reading past it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel::hll {

inline constexpr int kPrecision = 14;
inline constexpr int kRegisters = 1 << kPrecision;  // 16384
inline constexpr int kRegisterBits = 6;
inline constexpr int kRegisterMax = (1 << kRegisterBits) - 1;
inline constexpr int kHashBits = 64 - kPrecision;  // Redis's HLL_Q
inline constexpr size_t kHeaderBytes = 16;
inline constexpr size_t kDenseBytes = kHeaderBytes + (kRegisters * kRegisterBits + 7) / 8;
inline constexpr size_t kEmptySparseBytes = kHeaderBytes + 2;  // one XZERO of 16384
// A valid sparse value has at most one opcode (of at most two bytes) per register.
inline constexpr size_t kSparseBytesMax = kHeaderBytes + 2 * kRegisters;
// One register update grows a sparse value by at most 3 bytes (XZERO into XZERO VAL XZERO).
inline constexpr size_t kSparseGrowthMax = 3;
// A working buffer for sparse edits: any valid sparse value plus one update, or a dense one.
inline constexpr size_t kWorkBytes = kSparseBytesMax + kSparseGrowthMax;
static_assert(kWorkBytes >= kDenseBytes);

enum Encoding : uint8_t { kDense = 0, kSparse = 1 };

inline constexpr std::string_view kInvalidHll = "INVALIDOBJ Corrupted HLL object detected";
inline constexpr std::string_view kNotHll =
    "WRONGTYPE Key is not a valid HyperLogLog string value.";

// Redis's MurmurHash64A (little-endian reads), and the seed its HyperLogLog uses.
inline constexpr uint32_t kHashSeed = 0xadc83b19u;
uint64_t MurmurHash64A(std::string_view bytes, uint32_t seed);

// The register `element` maps to and the value it offers there (1..kHashBits+1).
void Pattern(std::string_view element, int* index, int* count);

// Redis's isHLLObjectOrReply checks on a string value: long enough for the header, "HYLL",
// a known encoding, and a dense value exactly kDenseBytes long. A sparse value is checked
// only as it is read.
bool LooksLikeHll(std::string_view value);
inline Encoding EncodingOf(std::string_view value) {
  return static_cast<Encoding>(static_cast<unsigned char>(value[4]));
}

// The cached cardinality in the header.
bool CacheValid(std::string_view value);
uint64_t CachedCount(std::string_view value);
void StoreCache(char* value, uint64_t count);
void InvalidateCache(char* value);

// Writes the empty HyperLogLog (sparse, cache valid at 0) to `out`, kEmptySparseBytes long.
void WriteEmpty(char* out);

// Raises `max[i]` to register i of `value` (dense or sparse, after LooksLikeHll). False when
// the sparse opcodes do not cover exactly kRegisters registers (corrupt).
bool MergeInto(std::string_view value, uint8_t* max);

// The cardinality estimate of `value` (after LooksLikeHll), ignoring the cache. False when the
// sparse opcodes are corrupt.
bool Count(std::string_view value, uint64_t* count);
// The estimate over raw registers (one byte each), as PFCOUNT of several keys computes it.
uint64_t CountRegisters(const uint8_t* registers);

// A value being edited: `size` bytes of `data`, with room for `capacity`.
struct Buffer {
  char* data;
  size_t size;
  size_t capacity;
};

enum class SetResult : uint8_t { kUnchanged, kUpdated, kCorrupt };

// Raises register `index` to `count` (Redis's hllDenseSet / hllSparseSet): a sparse value that
// would pass `sparse_bytes_max` bytes, or needs a value above 32, becomes dense. REQUIRES: a
// dense buffer is kDenseBytes long; a sparse one has capacity kWorkBytes. The cache is
// invalidated on kUpdated; on kCorrupt the buffer may be partly changed.
SetResult Set(Buffer& buffer, int index, int count, size_t sparse_bytes_max);

// Converts a sparse buffer (capacity at least kDenseBytes) to dense, keeping the header bytes.
// False when the sparse value is corrupt (the buffer is then unchanged).
bool ToDense(Buffer& buffer);

// A dense value's register `index`.
int DenseRegister(std::string_view value, int index);

// PFDEBUG DECODE's text for a sparse value ("z:5 v:3,1 Z:16378"): false when an XZERO opcode
// is cut short by the end of the value.
bool Decode(std::string_view value, char* out, size_t out_capacity, size_t* out_size);

}  // namespace keel::hll
