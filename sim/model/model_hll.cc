// HyperLogLog in the model: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST, written from Redis
// 7.0's documented format and rules (hyperloglog.c) over a decoded form: the 16-byte header, and
// either 16384 registers (dense) or a list of runs (sparse), which is encoded back to bytes after
// every command. The engine edits the bytes in place; the model never does.
//
// Runs are edited as Redis edits its opcodes (so that the bytes come out the same): the run
// holding the register is split around it, then adjacent value runs of one value are merged,
// looking at most five runs from the one before; a sparse value that would pass
// hll-sparse-max-bytes (3000, which the workload leaves alone), or needs a value above 32,
// becomes dense. The estimate is Ertl's, in the same double operations as Redis.
//
// A sparse value is checked whole when read (its runs must cover exactly 16384 registers);
// Redis checks only as far as it reads. The workload never makes corrupt HyperLogLogs.
#include <cmath>
#include <cstring>

#include "sim/model/model.h"

namespace keel::model {
namespace {

constexpr int kRegisters = 16384;
constexpr size_t kHeader = 16;
constexpr size_t kDense = kHeader + kRegisters * 6 / 8;
constexpr size_t kSparseMax = 3000;
constexpr std::string_view kInvalid = "INVALIDOBJ Corrupted HLL object detected";
constexpr std::string_view kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";

struct Run {
  char kind;  // 'z' ZERO (1..64), 'x' XZERO (1..16384), 'v' VAL (1..4 of value 1..32)
  int value;
  int length;
  size_t bytes() const { return kind == 'x' ? 2 : 1; }
};

struct Hll {
  std::string header;  // 16 bytes: magic, encoding, unused, cached count
  bool dense = false;
  std::vector<int> registers;  // dense
  std::vector<Run> runs;       // sparse, as written (they may cover more or fewer registers)
  std::string tail;            // sparse: an XZERO's first byte that ends the value, cut short
};

uint64_t Murmur(const std::string& data) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  uint64_t h = 0xadc83b19ULL ^ (data.size() * m);
  size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    uint64_t k = 0;
    for (int b = 0; b < 8; b++)
      k |= static_cast<uint64_t>(static_cast<unsigned char>(data[i + b])) << (8 * b);
    k *= m;
    k ^= k >> 47;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (i < data.size()) {
    for (size_t b = 0; i + b < data.size(); b++) {
      h ^= static_cast<uint64_t>(static_cast<unsigned char>(data[i + b])) << (8 * b);
    }
    h *= m;
  }
  h ^= h >> 47;
  h *= m;
  h ^= h >> 47;
  return h;
}

// The register an element lands in, and the position of the first 1 bit of the rest (1..51).
void Hash(const std::string& element, int* index, int* count) {
  const uint64_t hash = Murmur(element);
  *index = static_cast<int>(hash % kRegisters);
  uint64_t rest = hash >> 14;
  int position = 1;
  while (position <= 50 && (rest & 1) == 0) {
    rest >>= 1;
    position++;
  }
  *count = position;
}

bool LooksLikeHll(const std::string& s) {
  if (s.size() < kHeader || s.compare(0, 4, "HYLL") != 0) return false;
  if (s[4] != 0 && s[4] != 1) return false;
  return s[4] != 0 || s.size() == kDense;
}

// Decodes a value that LooksLikeHll. Sparse runs are taken as written, whatever they cover;
// Covers() says whether they are sound.
void Decode(const std::string& s, Hll* hll) {
  hll->header = s.substr(0, kHeader);
  hll->dense = s[4] == 0;
  if (hll->dense) {
    hll->registers.assign(kRegisters, 0);
    for (int r = 0; r < kRegisters; r++) {
      int value = 0;
      for (int b = 0; b < 6; b++) {
        const size_t bit = static_cast<size_t>(r) * 6 + b;
        if ((static_cast<unsigned char>(s[kHeader + bit / 8]) >> (bit % 8)) & 1) value |= 1 << b;
      }
      hll->registers[static_cast<size_t>(r)] = value;
    }
    return;
  }
  for (size_t i = kHeader; i < s.size(); i++) {
    const auto byte = static_cast<unsigned char>(s[i]);
    if (byte & 0x80) {
      hll->runs.push_back({'v', ((byte >> 2) & 0x1f) + 1, (byte & 3) + 1});
    } else if (byte & 0x40) {
      if (i + 1 >= s.size()) {
        hll->tail = s.substr(i);
        break;
      }
      hll->runs.push_back({'x', 0, ((byte & 0x3f) << 8 | static_cast<unsigned char>(s[++i])) + 1});
    } else {
      hll->runs.push_back({'z', 0, (byte & 0x3f) + 1});
    }
  }
}

// Whether a sparse value's runs cover exactly the registers (dense ones always do).
bool Covers(const Hll& hll) {
  if (hll.dense) return true;
  if (!hll.tail.empty()) return false;
  int covered = 0;
  for (const Run& run : hll.runs) {
    covered += run.length;
    if (covered > kRegisters) return false;
  }
  return covered == kRegisters;
}

std::string Encode(const Hll& hll) {
  std::string s = hll.header;
  s[4] = hll.dense ? 0 : 1;
  if (hll.dense) {
    s.append(kDense - kHeader, '\0');
    for (int r = 0; r < kRegisters; r++) {
      for (int b = 0; b < 6; b++) {
        if ((hll.registers[static_cast<size_t>(r)] >> b) & 1) {
          const size_t bit = static_cast<size_t>(r) * 6 + b;
          s[kHeader + bit / 8] = static_cast<char>(s[kHeader + bit / 8] | (1 << (bit % 8)));
        }
      }
    }
    return s;
  }
  for (const Run& run : hll.runs) {
    if (run.kind == 'v') {
      s += static_cast<char>(0x80 | (run.value - 1) << 2 | (run.length - 1));
    } else if (run.kind == 'x') {
      s += static_cast<char>(0x40 | (run.length - 1) >> 8);
      s += static_cast<char>((run.length - 1) & 0xff);
    } else {
      s += static_cast<char>(run.length - 1);
    }
  }
  return s + hll.tail;
}

Hll Empty() {
  Hll hll;
  hll.header = std::string("HYLL\x01", 5) + std::string(11, '\0');
  hll.runs = {{'x', 0, kRegisters}};
  return hll;
}

std::vector<int> RegistersOf(const Hll& hll) {
  if (hll.dense) return hll.registers;
  std::vector<int> registers;
  for (const Run& run : hll.runs)
    registers.insert(registers.end(), static_cast<size_t>(run.length), run.value);
  return registers;
}

// False when the sparse runs are not sound (nothing changes then).
bool MakeDense(Hll& hll) {
  if (hll.dense) return true;
  if (!Covers(hll)) return false;
  hll.registers = RegistersOf(hll);
  hll.runs.clear();
  hll.dense = true;
  return true;
}

void InvalidateCache(Hll& hll) { hll.header[15] = static_cast<char>(hll.header[15] | 0x80); }

size_t SparseBytes(const Hll& hll) {
  size_t bytes = kHeader + hll.tail.size();
  for (const Run& run : hll.runs) bytes += run.bytes();
  return bytes;
}

Run Zeros(int length) { return {length > 64 ? 'x' : 'z', 0, length}; }

// Raises register `index` to `count`: 1 when it changed, 0 when not, -1 when the sparse runs
// give out before the register (or must become dense and are not sound).
int Raise(Hll& hll, int index, int count) {
  if (!hll.dense && count > 32 && !MakeDense(hll)) return -1;
  if (hll.dense) {
    int& reg = hll.registers[static_cast<size_t>(index)];
    if (reg >= count) return 0;
    reg = count;
    InvalidateCache(hll);
    return 1;
  }
  size_t at = 0;
  int first = 0;
  while (at < hll.runs.size() && first + hll.runs[at].length <= index)
    first += hll.runs[at++].length;
  if (at == hll.runs.size()) return -1;
  const Run run = hll.runs[at];
  if (run.kind == 'v' && run.value >= count) return 0;
  if (run.length == 1 && run.kind != 'x') {
    hll.runs[at] = {'v', count, 1};
  } else {
    std::vector<Run> split;
    const int before = index - first;
    const int after = first + run.length - 1 - index;
    auto part = [&](int length) {
      return run.kind == 'v' ? Run{'v', run.value, length} : Zeros(length);
    };
    if (before > 0) split.push_back(part(before));
    split.push_back({'v', count, 1});
    if (after > 0) split.push_back(part(after));
    size_t split_bytes = 0;
    for (const Run& r : split) split_bytes += r.bytes();
    if (split_bytes > run.bytes() && SparseBytes(hll) + split_bytes - run.bytes() > kSparseMax) {
      if (!MakeDense(hll)) return -1;
      return Raise(hll, index, count) < 0 ? -1 : 1;
    }
    hll.runs.erase(hll.runs.begin() + static_cast<ptrdiff_t>(at));
    hll.runs.insert(hll.runs.begin() + static_cast<ptrdiff_t>(at), split.begin(), split.end());
  }
  // Merge neighbouring value runs of one value, looking at five runs from the one before.
  size_t j = at > 0 ? at - 1 : 0;
  for (int looks = 0; looks < 5 && j < hll.runs.size(); looks++) {
    const Run& a = hll.runs[j];
    if (a.kind == 'v' && j + 1 < hll.runs.size() && hll.runs[j + 1].kind == 'v' &&
        hll.runs[j + 1].value == a.value && a.length + hll.runs[j + 1].length <= 4) {
      hll.runs[j + 1].length += a.length;
      hll.runs.erase(hll.runs.begin() + static_cast<ptrdiff_t>(j));
      continue;
    }
    j++;
  }
  InvalidateCache(hll);
  return 1;
}

double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double y = 1;
  double z = x;
  while (true) {
    x *= x;
    const double before = z;
    z += x * y;
    y += y;
    if (before == z) return z;
  }
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double y = 1.0;
  double z = 1 - x;
  while (true) {
    x = std::sqrt(x);
    const double before = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
    if (before == z) return z / 3;
  }
}

int64_t Estimate(const std::vector<int>& registers) {
  std::vector<int> histogram(64, 0);
  for (int r : registers) histogram[static_cast<size_t>(r)]++;
  const double m = kRegisters;
  double z = m * Tau((m - histogram[51]) / m);
  for (int j = 50; j >= 1; --j) {
    z += histogram[static_cast<size_t>(j)];
    z *= 0.5;
  }
  z += m * Sigma(histogram[0] / m);
  return static_cast<int64_t>(static_cast<double>(
      std::llround(static_cast<long double>(0.721347520444481703680 * m * m / z))));
}

// The HyperLogLog at `key`: false with *error (WRONGTYPE, not an HLL, corrupt).
bool HllAt(Call& call, const std::string& key, Value** value, Hll* hll, Expected* error) {
  *value = call.Lookup(key);
  if (*value == nullptr) return true;
  if (IsOtherType(*value)) {
    *error = Error(kWrongType);
    return false;
  }
  // An int-encoded string is never one; its text cannot start with "HYLL" anyway.
  if (!LooksLikeHll((*value)->string)) {
    *error = Error(kNotHll);
    return false;
  }
  Decode((*value)->string, hll);
  return true;
}

// Stores the HyperLogLog at `key` (raw, with the expiry of `old`); no write when no byte changed
// (Redis does not touch the key then, although it made the value raw).
void Save(Call& call, const std::string& key, const Value* old, const Hll& hll) {
  Value saved = EditedString(Encode(hll), old != nullptr ? old->expire_at_ms : kNoExpiry);
  if (old != nullptr && old->string == saved.string) {
    call.Replace(key, std::move(saved));
    return;
  }
  call.Store(key, std::move(saved));
}

// A valid sparse value has at most one two-byte opcode per register; the engine refuses a
// longer one before reading it.
constexpr size_t kSparseBytesValidMax = kHeader + 2 * kRegisters;

Expected Pfadd(Call& call) {
  const std::string& key = call.args[1];
  Value* value = nullptr;
  Hll hll;
  Expected error;
  if (!HllAt(call, key, &value, &hll, &error)) return error;
  const bool created = value == nullptr;
  if (!created && !hll.dense && value->string.size() > kSparseBytesValidMax) {
    return Error(kInvalid);
  }
  // The engine edits a dense value in place; anything else goes through a working buffer.
  if (call.context.allocation_refused && (created || !hll.dense)) return Error(kOomError);
  if (created) hll = Empty();
  bool updated = created;
  for (size_t i = 2; i < call.args.size(); i++) {
    int index = 0;
    int count = 0;
    Hash(call.args[i], &index, &count);
    const int raised = Raise(hll, index, count);
    if (raised < 0) return Error(kInvalid);  // nothing is kept
    updated = raised > 0 || updated;
  }
  if (updated) InvalidateCache(hll);
  Save(call, key, value, hll);
  return Integer(updated ? 1 : 0);
}

// Raises `max` to the registers of the HyperLogLog at args[i]: false with *error.
bool MergeArg(Call& call, size_t i, std::vector<int>& max, bool* dense, Expected* error) {
  Value* value = nullptr;
  Hll hll;
  if (!HllAt(call, call.args[i], &value, &hll, error)) return false;
  if (value == nullptr) return true;
  if (!Covers(hll)) {
    *error = Error(kInvalid);
    return false;
  }
  *dense = *dense || hll.dense;
  const std::vector<int> registers = RegistersOf(hll);
  for (size_t r = 0; r < max.size(); r++) max[r] = std::max(max[r], registers[r]);
  return true;
}

Expected Pfcount(Call& call) {
  Expected error;
  if (call.args.size() > 2) {
    std::vector<int> max(kRegisters, 0);
    bool dense = false;
    for (size_t i = 1; i < call.args.size(); i++) {
      if (!MergeArg(call, i, max, &dense, &error)) return error;
    }
    return Integer(Estimate(max));
  }
  const std::string& key = call.args[1];
  Value* value = nullptr;
  Hll hll;
  if (!HllAt(call, key, &value, &hll, &error)) return error;
  if (value == nullptr) return Integer(0);
  int64_t count = 0;
  if ((static_cast<unsigned char>(hll.header[15]) & 0x80) == 0) {
    for (int i = 7; i >= 0; i--) {
      count = count * 256 + static_cast<unsigned char>(hll.header[8 + static_cast<size_t>(i)]);
    }
  } else {
    if (!Covers(hll)) {
      Save(call, key, value, hll);  // unshared before it was read
      return Error(kInvalid);
    }
    count = Estimate(RegistersOf(hll));
    for (int i = 0; i < 8; i++) {
      hll.header[8 + static_cast<size_t>(i)] =
          static_cast<char>((static_cast<uint64_t>(count) >> (8 * i)) & 0xff);
    }
  }
  Save(call, key, value, hll);
  return Integer(count);
}

Expected Pfmerge(Call& call) {
  std::vector<int> max(kRegisters, 0);
  bool dense = false;
  Expected error;
  for (size_t i = 1; i < call.args.size(); i++) {
    if (!MergeArg(call, i, max, &dense, &error)) return error;
  }
  if (call.context.allocation_refused) return Error(kOomError);
  const std::string& key = call.args[1];
  Value* value = call.Lookup(key);
  Hll hll;
  if (value == nullptr) {
    hll = Empty();
  } else {
    Decode(value->string, &hll);  // sound: it was merged as a source
  }
  if (dense) MakeDense(hll);
  for (int r = 0; r < kRegisters; r++) {
    if (max[static_cast<size_t>(r)] != 0) Raise(hll, r, max[static_cast<size_t>(r)]);
  }
  InvalidateCache(hll);
  Save(call, key, value, hll);
  call.model.MarkWritten(call.session.db, key);
  return Ok();
}

Expected Pfdebug(Call& call) {
  const std::string& name = call.args[1];
  const std::string& key = call.args[2];
  Value* value = nullptr;
  Hll hll;
  Expected error;
  if (call.Lookup(key) == nullptr) return Error("ERR The specified key does not exist");
  if (!HllAt(call, key, &value, &hll, &error)) return error;
  const bool sparse = !hll.dense;
  Save(call, key, value, hll);  // unshared (raw) whatever the subcommand
  value = call.Lookup(key);
  if (OptionIs(name, "GETREG") || OptionIs(name, "TODENSE")) {
    if (sparse && value->string.size() > kSparseBytesValidMax) return Error(kInvalid);
    if (sparse && call.context.allocation_refused) return Error(kOomError);
    if (!MakeDense(hll)) return Error(kInvalid);
    Save(call, key, value, hll);
    if (OptionIs(name, "TODENSE")) return Integer(sparse ? 1 : 0);
    std::vector<RespValue> registers;
    for (int r : hll.registers) registers.push_back(RespValue::Integer(r));
    return Array(std::move(registers));
  }
  if (OptionIs(name, "DECODE")) {
    if (!sparse) return Error("ERR HLL encoding is not sparse");
    if (call.context.allocation_refused) return Error(kOomError);  // the text's buffer first
    if (!hll.tail.empty()) return Error(kInvalid);
    std::string text;
    for (const Run& run : hll.runs) {
      if (!text.empty()) text += ' ';
      text += run.kind == 'v' ? "v:" + std::to_string(run.value) + "," + std::to_string(run.length)
              : run.kind == 'x' ? "Z:" + std::to_string(run.length)
                                : "z:" + std::to_string(run.length);
    }
    return Bulk(text);
  }
  if (OptionIs(name, "ENCODING")) return Simple(sparse ? "sparse" : "dense");
  return Error("ERR Unknown PFDEBUG subcommand '" + name + "'");
}

Expected Pfselftest(Call& call) {
  return call.context.allocation_refused ? Error(kOomError) : Ok();
}

constexpr Command kCommands[] = {
    {"pfadd", kAllocates, Pfadd},           {"pfcount", 0, Pfcount},
    {"pfmerge", kAllocates, Pfmerge},       {"pfdebug", kAllocates, Pfdebug},
    {"pfselftest", kAllocates, Pfselftest},
};

}  // namespace

std::span<const Command> HllCommands() { return kCommands; }

}  // namespace keel::model
