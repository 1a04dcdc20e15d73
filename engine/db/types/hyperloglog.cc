#include "engine/db/types/hyperloglog.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/base/assert.h"

namespace keel::hll {
namespace {

// Sparse opcodes (hyperloglog.c's HLL_SPARSE_* macros).
constexpr int kZeroRunMax = 64;
constexpr int kValueMax = 32;
constexpr int kValueRunMax = 4;

inline bool IsZero(const unsigned char* p) { return (*p & 0xc0) == 0; }
inline bool IsXzero(const unsigned char* p) { return (*p & 0xc0) == 0x40; }
inline bool IsValue(const unsigned char* p) { return (*p & 0x80) != 0; }
inline int ZeroRun(const unsigned char* p) { return (*p & 0x3f) + 1; }
inline int XzeroRun(const unsigned char* p) { return (((*p & 0x3f) << 8) | p[1]) + 1; }
inline int ValueOf(const unsigned char* p) { return ((*p >> 2) & 0x1f) + 1; }
inline int ValueRun(const unsigned char* p) { return (*p & 0x3) + 1; }
inline void PutValue(unsigned char* p, int value, int run) {
  *p = static_cast<unsigned char>(((value - 1) << 2 | (run - 1)) | 0x80);
}
inline void PutZero(unsigned char* p, int run) { *p = static_cast<unsigned char>(run - 1); }
inline void PutXzero(unsigned char* p, int run) {
  p[0] = static_cast<unsigned char>(((run - 1) >> 8) | 0x40);
  p[1] = static_cast<unsigned char>((run - 1) & 0xff);
}
// A run of zeros as the shortest opcode that holds it.
inline unsigned char* PutZeros(unsigned char* p, int run) {
  if (run > kZeroRunMax) {
    PutXzero(p, run);
    return p + 2;
  }
  PutZero(p, run);
  return p + 1;
}

inline const unsigned char* Bytes(std::string_view value) {
  return reinterpret_cast<const unsigned char*>(value.data());
}

// Dense registers: register i's 6 bits start at bit 6*i, least significant bit first.
inline int GetDense(const unsigned char* registers, int index) {
  const size_t byte = static_cast<size_t>(index) * kRegisterBits / 8;
  const unsigned shift = static_cast<unsigned>(index) * kRegisterBits & 7;
  const unsigned low = registers[byte] >> shift;
  const unsigned high = shift > 8 - kRegisterBits ? registers[byte + 1] << (8 - shift) : 0;
  return static_cast<int>((low | high) & kRegisterMax);
}
inline void SetDense(unsigned char* registers, int index, int value) {
  const size_t byte = static_cast<size_t>(index) * kRegisterBits / 8;
  const unsigned shift = static_cast<unsigned>(index) * kRegisterBits & 7;
  const auto v = static_cast<unsigned>(value);
  registers[byte] =
      static_cast<unsigned char>((registers[byte] & ~(kRegisterMax << shift)) | (v << shift));
  if (shift > 8 - kRegisterBits) {
    const unsigned spill = 8 - shift;
    registers[byte + 1] =
        static_cast<unsigned char>((registers[byte + 1] & ~(kRegisterMax >> spill)) | (v >> spill));
  }
}

// Every 3 bytes of dense registers hold 4 registers: decoded a group at a time.
template <typename Visit>
void ForEachDense(const unsigned char* registers, Visit&& visit) {
  for (int i = 0; i < kRegisters; i += 4) {
    const unsigned char* b = registers + static_cast<size_t>(i) / 4 * 3;
    visit(i, b[0] & 63);
    visit(i + 1, ((b[0] >> 6) | (b[1] << 2)) & 63);
    visit(i + 2, ((b[1] >> 4) | (b[2] << 4)) & 63);
    visit(i + 3, (b[2] >> 2) & 63);
  }
}

// Walks sparse opcodes: visit(first_register, run, value) for each, value 0 for zero runs.
// False when an XZERO is cut short or the runs do not cover exactly kRegisters registers; runs
// past the end are not visited.
template <typename Visit>
bool WalkSparse(std::string_view value, Visit&& visit) {
  const unsigned char* p = Bytes(value) + kHeaderBytes;
  const unsigned char* end = Bytes(value) + value.size();
  int index = 0;
  while (p < end) {
    int run;
    int register_value = 0;
    if (IsZero(p)) {
      run = ZeroRun(p);
      p++;
    } else if (IsXzero(p)) {
      if (p + 1 >= end) return false;
      run = XzeroRun(p);
      p += 2;
    } else {
      run = ValueRun(p);
      register_value = ValueOf(p);
      p++;
    }
    if (run > kRegisters - index) return false;
    visit(index, run, register_value);
    index += run;
  }
  return index == kRegisters;
}

// Redis's hllSigma and hllTau, the series of Ertl's estimator, computed until they converge.
double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double previous;
  double y = 1;
  double z = x;
  // Converges: x < 1 squares towards 0; bounded all the same.
  for (int i = 0; i < 2000; i++) {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
    if (previous == z) break;
  }
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double previous;
  double y = 1.0;
  double z = 1 - x;
  for (int i = 0; i < 2000; i++) {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
    if (previous == z) break;
  }
  return z / 3;
}

// The estimate from the register histogram (hllCount): registers above kHashBits + 1 (only
// in corrupted values) count nowhere, as in Redis.
uint64_t Estimate(const int* histogram) {
  constexpr double kAlphaInf = 0.721347520444481703680;  // 0.5 / ln(2)
  const double m = kRegisters;
  double z = m * Tau((m - histogram[kHashBits + 1]) / m);
  for (int j = kHashBits; j >= 1; --j) {
    z += histogram[j];
    z *= 0.5;
  }
  z += m * Sigma(histogram[0] / m);
  const auto quotient = static_cast<long double>(kAlphaInf * m * m / z);
  // z is 0 when every register holds more than kHashBits + 1 (only a corrupted value does): the
  // quotient is infinite, Redis's llroundl gives LLONG_MIN on x86-64 and its PFCOUNT replies
  // -9223372036854775808. The same value, without the undefined conversion (the hll_read
  // fuzzer's find).
  if (!(quotient < 9223372036854775807.0L)) return uint64_t{1} << 63;
  return static_cast<uint64_t>(std::llround(quotient));
}

}  // namespace

uint64_t MurmurHash64A(std::string_view bytes, uint32_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const size_t length = bytes.size();
  // Redis passes the length as an int: elements are at most proto-max-bulk-len (< 2^31 by
  // default); the conversion is kept as Redis computes it.
  uint64_t h = seed ^ (static_cast<uint64_t>(static_cast<int>(length)) * m);
  const unsigned char* data = Bytes(bytes);
  const unsigned char* end = data + (length - (length & 7));
  for (; data != end; data += 8) {
    uint64_t k = 0;
    for (int i = 7; i >= 0; i--) k = (k << 8) | data[i];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  switch (length & 7) {
    case 7:
      h ^= static_cast<uint64_t>(data[6]) << 48;
      [[fallthrough]];
    case 6:
      h ^= static_cast<uint64_t>(data[5]) << 40;
      [[fallthrough]];
    case 5:
      h ^= static_cast<uint64_t>(data[4]) << 32;
      [[fallthrough]];
    case 4:
      h ^= static_cast<uint64_t>(data[3]) << 24;
      [[fallthrough]];
    case 3:
      h ^= static_cast<uint64_t>(data[2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint64_t>(data[1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= static_cast<uint64_t>(data[0]);
      h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

void Pattern(std::string_view element, int* index, int* count) {
  uint64_t hash = MurmurHash64A(element, kHashSeed);
  *index = static_cast<int>(hash & (kRegisters - 1));
  // The run of zeros from the least significant bit of the rest, plus one; a sentinel bit caps
  // it at kHashBits + 1.
  hash >>= kPrecision;
  hash |= uint64_t{1} << kHashBits;
  *count = __builtin_ctzll(hash) + 1;
}

bool LooksLikeHll(std::string_view value) {
  if (value.size() < kHeaderBytes || value.substr(0, 4) != "HYLL") return false;
  const auto encoding = static_cast<unsigned char>(value[4]);
  if (encoding > kSparse) return false;
  return encoding != kDense || value.size() == kDenseBytes;
}

bool CacheValid(std::string_view value) {
  return (static_cast<unsigned char>(value[15]) & 0x80) == 0;
}

uint64_t CachedCount(std::string_view value) {
  uint64_t count = 0;
  for (int i = 7; i >= 0; i--) count = (count << 8) | static_cast<unsigned char>(value[8 + i]);
  return count;
}

void StoreCache(char* value, uint64_t count) {
  for (int i = 0; i < 8; i++) value[8 + i] = static_cast<char>((count >> (8 * i)) & 0xff);
}

void InvalidateCache(char* value) { value[15] = static_cast<char>(value[15] | 0x80); }

void WriteEmpty(char* out) {
  std::memset(out, 0, kEmptySparseBytes);
  std::memcpy(out, "HYLL", 4);
  out[4] = kSparse;
  PutXzero(reinterpret_cast<unsigned char*>(out) + kHeaderBytes, kRegisters);
}

bool MergeInto(std::string_view value, uint8_t* max) {
  if (EncodingOf(value) == kDense) {
    ForEachDense(Bytes(value) + kHeaderBytes, [max](int i, int v) {
      if (v > max[i]) max[i] = static_cast<uint8_t>(v);
    });
    return true;
  }
  return WalkSparse(value, [max](int first, int run, int v) {
    for (int i = first; i < first + run; i++) {
      if (v > max[i]) max[i] = static_cast<uint8_t>(v);
    }
  });
}

bool Count(std::string_view value, uint64_t* count) {
  int histogram[64] = {};
  if (EncodingOf(value) == kDense) {
    ForEachDense(Bytes(value) + kHeaderBytes, [&histogram](int, int v) { histogram[v]++; });
  } else if (!WalkSparse(value, [&histogram](int, int run, int v) { histogram[v] += run; })) {
    return false;
  }
  *count = Estimate(histogram);
  return true;
}

uint64_t CountRegisters(const uint8_t* registers) {
  int histogram[256] = {};
  for (int i = 0; i < kRegisters; i++) histogram[registers[i]]++;
  return Estimate(histogram);
}

int DenseRegister(std::string_view value, int index) {
  KEEL_DASSERT(value.size() == kDenseBytes);
  return GetDense(Bytes(value) + kHeaderBytes, index);
}

bool ToDense(Buffer& buffer) {
  KEEL_ASSERT(buffer.capacity >= kDenseBytes);
  std::string_view value(buffer.data, buffer.size);
  if (EncodingOf(value) == kDense) return true;
  uint8_t registers[kRegisters] = {};
  if (!MergeInto(value, registers)) return false;
  auto* dense = reinterpret_cast<unsigned char*>(buffer.data) + kHeaderBytes;
  std::memset(dense, 0, kDenseBytes - kHeaderBytes);
  for (int i = 0; i < kRegisters; i++) {
    if (registers[i] != 0) SetDense(dense, i, registers[i]);
  }
  buffer.data[4] = kDense;
  buffer.size = kDenseBytes;
  return true;
}

namespace {

SetResult SetDenseRegister(Buffer& buffer, int index, int count) {
  auto* registers = reinterpret_cast<unsigned char*>(buffer.data) + kHeaderBytes;
  if (GetDense(registers, index) >= count) return SetResult::kUnchanged;
  SetDense(registers, index, count);
  InvalidateCache(buffer.data);
  return SetResult::kUpdated;
}

SetResult Promote(Buffer& buffer, int index, int count) {
  if (!ToDense(buffer)) return SetResult::kCorrupt;
  // The register needed the change that made the value dense, so it is raised.
  const SetResult result = SetDenseRegister(buffer, index, count);
  KEEL_DASSERT(result == SetResult::kUpdated);
  return result == SetResult::kUnchanged ? SetResult::kUpdated : result;
}

// Redis's step 4: merges adjacent VAL opcodes of one value (up to 5 opcodes from `from`), so
// that the bytes come out as Redis's would.
void MergeAdjacentValues(Buffer& buffer, unsigned char* from) {
  auto* end = reinterpret_cast<unsigned char*>(buffer.data) + buffer.size;
  unsigned char* p = from;
  for (int scan = 5; p < end && scan-- > 0;) {
    if (IsXzero(p)) {
      p += 2;
      continue;
    }
    if (IsZero(p)) {
      p++;
      continue;
    }
    if (p + 1 < end && IsValue(p + 1) && ValueOf(p) == ValueOf(p + 1)) {
      const int run = ValueRun(p) + ValueRun(p + 1);
      if (run <= kValueRunMax) {
        PutValue(p + 1, ValueOf(p), run);
        std::memmove(p, p + 1, static_cast<size_t>(end - p - 1));
        buffer.size--;
        end--;
        continue;  // the merged opcode may merge with the next one too
      }
    }
    p++;
  }
}

SetResult SetSparse(Buffer& buffer, int index, int count, size_t sparse_bytes_max) {
  if (count > kValueMax) return Promote(buffer, index, count);
  KEEL_ASSERT(buffer.size + kSparseGrowthMax <= buffer.capacity);
  auto* sparse = reinterpret_cast<unsigned char*>(buffer.data) + kHeaderBytes;
  auto* end = reinterpret_cast<unsigned char*>(buffer.data) + buffer.size;
  // Step 1: the opcode that covers `index`, and the one before it.
  unsigned char* p = sparse;
  unsigned char* previous = nullptr;
  int first = 0;
  int span = 0;
  while (p < end) {
    int length = 1;
    if (IsZero(p)) {
      span = ZeroRun(p);
    } else if (IsValue(p)) {
      span = ValueRun(p);
    } else {
      if (p + 1 >= end) return SetResult::kCorrupt;
      span = XzeroRun(p);
      length = 2;
    }
    if (index <= first + span - 1) break;
    previous = p;
    p += length;
    first += span;
  }
  if (span == 0 || p >= end) return SetResult::kCorrupt;
  unsigned char* next = IsXzero(p) ? p + 2 : p + 1;
  if (next >= end) next = nullptr;
  // Step 2: the trivial cases edit the opcode where it is.
  const bool is_value = IsValue(p);
  const bool is_xzero = IsXzero(p);
  if (is_value && ValueOf(p) >= count) return SetResult::kUnchanged;
  if (span == 1 && !is_xzero) {
    PutValue(p, count, 1);
  } else {
    // Step 3: split the run around the register: at most XZERO VAL XZERO, five bytes.
    unsigned char sequence[5];
    unsigned char* n = sequence;
    const int last = first + span - 1;
    if (is_value) {
      const int current = ValueOf(p);
      if (index != first) PutValue(n++, current, index - first);
      PutValue(n++, count, 1);
      if (index != last) PutValue(n++, current, last - index);
    } else {
      if (index != first) n = PutZeros(n, index - first);
      PutValue(n++, count, 1);
      if (index != last) n = PutZeros(n, last - index);
    }
    const auto sequence_length = static_cast<ptrdiff_t>(n - sequence);
    const ptrdiff_t delta = sequence_length - (is_xzero ? 2 : 1);
    if (delta > 0 && buffer.size + static_cast<size_t>(delta) > sparse_bytes_max) {
      return Promote(buffer, index, count);
    }
    if (delta != 0 && next != nullptr) {
      std::memmove(next + delta, next, static_cast<size_t>(end - next));
    }
    buffer.size = static_cast<size_t>(static_cast<ptrdiff_t>(buffer.size) + delta);
    std::memcpy(p, sequence, static_cast<size_t>(sequence_length));
  }
  MergeAdjacentValues(buffer, previous != nullptr ? previous : sparse);
  InvalidateCache(buffer.data);
  return SetResult::kUpdated;
}

}  // namespace

SetResult Set(Buffer& buffer, int index, int count, size_t sparse_bytes_max) {
  KEEL_DASSERT(index >= 0 && index < kRegisters);
  KEEL_DASSERT(count >= 1 && count <= kHashBits + 1);
  if (EncodingOf({buffer.data, buffer.size}) == kDense) {
    KEEL_ASSERT(buffer.size == kDenseBytes);
    return SetDenseRegister(buffer, index, count);
  }
  return SetSparse(buffer, index, count, sparse_bytes_max);
}

bool Decode(std::string_view value, char* out, size_t out_capacity, size_t* out_size) {
  const unsigned char* p = Bytes(value) + kHeaderBytes;
  const unsigned char* end = Bytes(value) + value.size();
  size_t size = 0;
  while (p < end) {
    // Each opcode byte yields at most 7 characters ("v:32,4 "), an XZERO's two at most 8.
    KEEL_ASSERT(out_capacity - size >= 9);
    int written;
    if (IsZero(p)) {
      written = std::snprintf(out + size, 9, "z:%d ", ZeroRun(p));
      p++;
    } else if (IsXzero(p)) {
      if (p + 1 >= end) return false;
      written = std::snprintf(out + size, 9, "Z:%d ", XzeroRun(p));
      p += 2;
    } else {
      written = std::snprintf(out + size, 9, "v:%d,%d ", ValueOf(p), ValueRun(p));
      p++;
    }
    size += static_cast<size_t>(written);
  }
  if (size > 0) size--;  // the trailing space (Redis's sdstrim)
  *out_size = size;
  return true;
}

}  // namespace keel::hll
