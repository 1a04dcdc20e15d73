#include "sim/workload/workload.h"

#include <cctype>

namespace keel::workload {
namespace {

// The string family first: the plan leans on its GETs for output pressure.
constexpr Family kFamilies[] = {
    {"string", GenerateString},   {"keys", GenerateKeys},       {"connection", GenerateConnection},
    {"counter", GenerateCounter}, {"expire", GenerateExpire},   {"scan", GenerateScan},
    {"multi", GenerateMulti},     {"list", GenerateList},       {"set", GenerateSetFamily},
    {"hash", GenerateHashFamily}, {"zset", GenerateZsetFamily}, {"bits", GenerateBits},
    {"geo", GenerateGeo},         {"stream", GenerateStream},
};

}  // namespace

std::span<const Family> Families() { return kFamilies; }

std::string RandomKey(Rng& rng, const KeySpace& space) {
  return "k" + std::to_string(rng.Below(static_cast<uint64_t>(space.keys)));
}

std::string RandomValue(Rng& rng, const KeySpace& space) {
  size_t size = rng.Below(space.value_bytes_max + 1);
  if (Chance(rng, space.large_value_per_million)) size = 1 + rng.Below(kLargeValueBytesMax);
  std::string value(size, ' ');
  // A small alphabet keeps values readable in traces; now and then a byte RESP cares about.
  static constexpr char kAlphabet[] = "abcdefgh\r\n\0*$:+-";
  for (char& c : value) c = kAlphabet[rng.Below(rng.Below(8) == 0 ? sizeof(kAlphabet) - 1 : 8)];
  return value;
}

std::string RandomStoredValue(Rng& rng, const KeySpace& space) {
  if (rng.Below(4) != 0) return RandomValue(rng, space);
  // Shared integers (0..9999) and not, the int64 edges, texts that are not integers to Redis
  // (leading zero, space, a fraction) and floats for INCRBYFLOAT.
  static constexpr std::string_view kNumbers[] = {
      "0",   "7",   "9999", "10000", "-3", "007", "9223372036854775807", "-9223372036854775808",
      "3.5", "1e3", " 1",   "-0",    "42", "100", "12345678901234567890"};
  return std::string(kNumbers[rng.Below(std::size(kNumbers))]);
}

int64_t RandomDb(Rng& rng, const KeySpace& space) {
  if (rng.Below(20) == 0) return rng.Below(2) == 0 ? space.databases_max : -1;
  return static_cast<int64_t>(rng.Below(static_cast<uint64_t>(space.databases)));
}

void AddKeys(Rng& rng, const KeySpace& space, int count_max, std::vector<std::string>* args) {
  // Usually one key, sometimes several (repeats included).
  const uint64_t count = rng.Below(4) == 0 ? 1 + rng.Below(static_cast<uint64_t>(count_max)) : 1;
  for (uint64_t i = 0; i < count; i++) args->push_back(RandomKey(rng, space));
}

std::string MaybeBadNumber(Rng& rng, int64_t valid) {
  switch (rng.Below(40)) {
    case 0:
      return "abc";
    case 1:
      return "";
    case 2:
      return "99999999999999999999";  // past int64
    case 3:
      return "1.5";
    case 4:
      return "0" + std::to_string(valid);  // a leading zero is not an integer to Redis
    default:
      return std::to_string(valid);
  }
}

std::string RandomCase(Rng& rng, std::string_view word) {
  std::string out(word);
  const uint64_t style = rng.Below(4);
  for (char& c : out) {
    const bool upper = style == 0 || (style == 3 && rng.Below(2) == 0);
    c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace keel::workload
