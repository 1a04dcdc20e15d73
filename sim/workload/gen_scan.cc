// Commands that walk or inspect the keyspace: KEYS, SCAN (with MATCH, COUNT and TYPE), RANDOMKEY,
// OBJECT ENCODING and OBJECT REFCOUNT. The clients do not follow SCAN cursors (they never read
// replies to decide): a page starts at 0 or at a cursor drawn at random, which is just as valid.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string RandomPattern(Rng& rng) {
  static constexpr std::string_view kPatterns[] = {
      "*", "k*", "k?", "k[0-3]", "k1*", "*1", "nomatch", "k[^0]*", "\\k*", "[a-j]?*", "k??", ""};
  return std::string(kPatterns[rng.Below(std::size(kPatterns))]);
}

void GenerateScanPage(Rng& rng, std::vector<std::string>* args) {
  std::string cursor = "0";
  const uint64_t cursor_kind = rng.Below(10);
  if (cursor_kind == 0) cursor = std::to_string(rng.Below(1u << 20));
  if (cursor_kind == 1) cursor = std::to_string(rng.Next());
  if (cursor_kind == 2 && rng.Below(4) == 0) cursor = rng.Below(2) == 0 ? "abc" : "-1";
  *args = {RandomCase(rng, "scan"), cursor};
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "MATCH"));
    args->push_back(RandomPattern(rng));
  }
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "COUNT"));
    args->push_back(MaybeBadNumber(rng, static_cast<int64_t>(rng.Below(20))));
  }
  if (rng.Below(3) == 0) {
    static constexpr std::string_view kTypes[] = {"string", "STRING", "list", "none"};
    args->push_back(RandomCase(rng, "TYPE"));
    args->push_back(std::string(kTypes[rng.Below(std::size(kTypes))]));
  }
  if (rng.Below(40) == 0) args->push_back("MATCH");  // an option without its value
}

}  // namespace

void GenerateScan(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(10);
  if (pick < 2) {
    *args = {RandomCase(rng, "keys"), RandomPattern(rng)};
  } else if (pick < 5) {
    GenerateScanPage(rng, args);
  } else if (pick < 7) {
    *args = {RandomCase(rng, "randomkey")};
  } else {
    *args = {RandomCase(rng, "object"),
             RandomCase(rng, rng.Below(2) == 0 ? "encoding" : "refcount"), RandomKey(rng, space)};
  }
}

}  // namespace keel::workload
