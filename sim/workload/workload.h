// Workload: random commands for the simulated clients, one generator per command family.
//
// Commands draw from a small key space (so that clients collide on keys), a few databases, short
// values with now and then a large one (so that replies span reply chunks and fill slow readers'
// windows), and expiry times around the current wall clock (so that keys expire during the run,
// some exactly at a command's millisecond). Families are rows of a table: a family added to the
// engine adds its generator here and its model functions in sim/model/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/rng.h"

namespace keel::workload {

// Bytes of the largest value a command carries: past one 16 KiB reply chunk, well below any
// buffer limit the simulator configures.
inline constexpr size_t kLargeValueBytesMax = 40 * 1024;

// What the commands of one run draw from (chosen per seed).
struct KeySpace {
  int keys = 8;            // k0 .. k{keys-1}
  int databases = 2;       // SELECT 0 .. databases-1, and now and then one out of range
  int databases_max = 16;  // the server's "databases"
  size_t value_bytes_max = 16;
  uint32_t large_value_per_million = 0;
  int64_t now_ms = 0;  // the wall clock when generating, for EXAT/PXAT near now
};

struct Family {
  std::string_view name;
  // Replaces `args` with one random command of the family.
  void (*generate)(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
};

std::span<const Family> Families();

// Helpers shared by the generators.
inline bool Chance(Rng& rng, uint32_t per_million) { return rng.Below(1'000'000) < per_million; }
inline int64_t Between(Rng& rng, int64_t low, int64_t high) {  // inclusive
  return low + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(high - low) + 1));
}
std::string RandomKey(Rng& rng, const KeySpace& space);
std::string RandomValue(Rng& rng, const KeySpace& space);
// A value to store: now and then an integer's or a float's text (so that counters, encodings and
// shared integers have something to work on), otherwise RandomValue.
std::string RandomStoredValue(Rng& rng, const KeySpace& space);
// A database index: mostly one in use, sometimes the first out of range or a negative one.
int64_t RandomDb(Rng& rng, const KeySpace& space);
// One to `count_max` keys.
void AddKeys(Rng& rng, const KeySpace& space, int count_max, std::vector<std::string>* args);
// An argument where a number is expected: mostly valid, sometimes not a number or out of range.
std::string MaybeBadNumber(Rng& rng, int64_t valid);
// A blocking command's timeout: short enough that a client left waiting is answered well within
// the drain's bound (never 0, which waits forever), and now and then a bad one (gen_list.cc).
std::string BlockTimeout(Rng& rng);
// `word` in a random letter case (options and names are case-insensitive).
std::string RandomCase(Rng& rng, std::string_view word);

// The families.
void GenerateString(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateKeys(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateConnection(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateCounter(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateExpire(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateScan(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateMulti(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateList(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateSetFamily(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateHashFamily(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateZsetFamily(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateBits(Rng& rng, const KeySpace& space, std::vector<std::string>* args);  // + PF*
void GenerateGeo(Rng& rng, const KeySpace& space, std::vector<std::string>* args);
void GenerateStream(Rng& rng, const KeySpace& space, std::vector<std::string>* args);

}  // namespace keel::workload
