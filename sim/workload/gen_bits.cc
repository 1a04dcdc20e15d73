// Commands of the bit and HyperLogLog families: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP,
// BITFIELD, BITFIELD_RO over offsets within a few hundred bits (so that strings grow and ranges
// cross bytes and words), with Redis's error cases now and then (negative, '#', huge, not a
// number); PFADD, PFCOUNT, PFMERGE and PFDEBUG over a small pool of elements, with bursts large
// enough to make a HyperLogLog dense, so that sparse edits, promotion, the cache and unions are
// all exercised. Keys are the shared key space: bit commands meet other types and HyperLogLogs.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string RandomOffset(Rng& rng) {
  switch (rng.Below(20)) {
    case 0:
      return "-1";
    case 1:
      return "4294967296";  // past proto-max-bulk-len in bytes
    case 2:
      return "x";
    default:
      return std::to_string(Between(rng, 0, rng.Below(4) == 0 ? 700 : 64));
  }
}

std::string RandomIndex(Rng& rng) { return MaybeBadNumber(rng, Between(rng, -12, 12)); }

std::string RandomFieldType(Rng& rng) {
  static constexpr std::string_view kTypes[] = {"u1",  "u8", "i8", "u16", "i5",  "u63",
                                                "i64", "i1", "u3", "i32", "u64", "x8"};
  return std::string(kTypes[rng.Below(std::size(kTypes))]);
}

std::string RandomFieldOffset(Rng& rng) {
  if (rng.Below(4) == 0) return "#" + std::to_string(Between(rng, 0, 6));
  return RandomOffset(rng);
}

std::string RandomFieldValue(Rng& rng) {
  static constexpr int64_t kValues[] = {0,    1,    -1,    127,       128,       255,  256,
                                        -128, -129, 65535, INT64_MAX, INT64_MIN, 1000, -1000};
  return MaybeBadNumber(rng, kValues[rng.Below(std::size(kValues))]);
}

void GenerateBitfield(Rng& rng, const std::string& key, bool read_only,
                      std::vector<std::string>* args) {
  *args = {RandomCase(rng, read_only ? "bitfield_ro" : "bitfield"), key};
  const int64_t ops = Between(rng, 0, 4);
  for (int64_t i = 0; i < ops; i++) {
    const uint64_t kind = read_only ? rng.Below(8) == 0 ? 1 : 0 : rng.Below(4);
    if (kind == 0) {
      args->insert(args->end(),
                   {RandomCase(rng, "get"), RandomFieldType(rng), RandomFieldOffset(rng)});
    } else if (kind == 1 || kind == 2) {
      args->insert(args->end(),
                   {RandomCase(rng, kind == 1 ? "set" : "incrby"), RandomFieldType(rng),
                    RandomFieldOffset(rng), RandomFieldValue(rng)});
    } else {
      static constexpr std::string_view kOverflows[] = {"wrap", "sat", "fail", "bad"};
      args->insert(args->end(), {RandomCase(rng, "overflow"),
                                 RandomCase(rng, kOverflows[rng.Below(std::size(kOverflows))])});
    }
  }
}

std::string RandomElement(Rng& rng) {
  if (rng.Below(3) == 0) return std::string(1, static_cast<char>('a' + rng.Below(26)));
  return "e" + std::to_string(rng.Below(5000));
}

void GeneratePf(Rng& rng, const KeySpace& space, const std::string& key,
                std::vector<std::string>* args) {
  switch (rng.Below(8)) {
    case 0:
    case 1:
    case 2: {
      *args = {RandomCase(rng, "pfadd"), key};
      // Now and then a burst that passes hll-sparse-max-bytes (about 900 elements).
      const int64_t count = rng.Below(10) == 0 ? Between(rng, 300, 1500) : Between(rng, 0, 6);
      for (int64_t i = 0; i < count; i++) args->push_back(RandomElement(rng));
      break;
    }
    case 3:
    case 4:
      *args = {RandomCase(rng, "pfcount"), key};
      if (rng.Below(3) == 0) AddKeys(rng, space, 3, args);
      break;
    case 5:
      *args = {RandomCase(rng, "pfmerge"), key};
      AddKeys(rng, space, 3, args);
      break;
    default: {
      // Not GETREG: its 16384 registers are a reply past what a simulated reader is given.
      static constexpr std::string_view kSubcommands[] = {"encoding", "decode", "todense", "bogus"};
      *args = {RandomCase(rng, "pfdebug"),
               RandomCase(rng, kSubcommands[rng.Below(std::size(kSubcommands))]), key};
      break;
    }
  }
}

}  // namespace

void GenerateBits(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const std::string key = RandomKey(rng, space);
  switch (rng.Below(16)) {
    case 0:
    case 1:
    case 2:
      *args = {RandomCase(rng, "setbit"), key, RandomOffset(rng),
               rng.Below(10) == 0 ? MaybeBadNumber(rng, 2) : std::to_string(rng.Below(2))};
      break;
    case 3:
      *args = {RandomCase(rng, "getbit"), key, RandomOffset(rng)};
      break;
    case 4:
      *args = {RandomCase(rng, "bitcount"), key};
      if (rng.Below(3) != 0) {
        args->push_back(RandomIndex(rng));
        args->push_back(RandomIndex(rng));
        if (rng.Below(2) == 0) args->push_back(RandomCase(rng, rng.Below(2) ? "bit" : "byte"));
      }
      break;
    case 5:
    case 6: {
      *args = {RandomCase(rng, "bitpos"), key,
               rng.Below(10) == 0 ? "2" : std::to_string(rng.Below(2))};
      const uint64_t extra = rng.Below(4);
      if (extra >= 1) args->push_back(RandomIndex(rng));
      if (extra >= 2) args->push_back(RandomIndex(rng));
      if (extra >= 3) args->push_back(RandomCase(rng, rng.Below(2) ? "bit" : "byte"));
      break;
    }
    case 7: {
      static constexpr std::string_view kOps[] = {"and", "or", "xor", "not", "nand"};
      *args = {RandomCase(rng, "bitop"), std::string(kOps[rng.Below(std::size(kOps))]), key};
      AddKeys(rng, space, 3, args);
      break;
    }
    case 8:
    case 9:
      GenerateBitfield(rng, key, false, args);
      break;
    case 10:
      GenerateBitfield(rng, key, true, args);
      break;
    default:
      GeneratePf(rng, space, key, args);
      break;
  }
}

}  // namespace keel::workload
