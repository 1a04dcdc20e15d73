// Commands of the expiry part of the generic family: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with
// NX, XX, GT and LT, TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST. Times land around the current
// wall clock, some already past (the key is deleted at once), some overflowing.
#include <climits>

#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

void GenerateExpireCommand(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  static constexpr std::string_view kNames[] = {"expire", "pexpire", "expireat", "pexpireat"};
  const uint64_t form = rng.Below(std::size(kNames));
  int64_t amount = 0;
  if (form == 0) amount = Between(rng, -1, 3);
  if (form == 1) amount = Between(rng, -10, 3000);
  if (form == 2) amount = space.now_ms / 1000 + Between(rng, -2, 3);
  if (form == 3) amount = space.now_ms + Between(rng, -20, 3000);
  *args = {RandomCase(rng, kNames[form]), RandomKey(rng, space), MaybeBadNumber(rng, amount)};
  if (rng.Below(40) == 0) {
    // Seconds past LLONG_MAX ms, or a relative time whose sum passes it.
    args->back() = form == 1 ? "9223372036854775807" : "9223372036854776";
  }
  const uint64_t options = rng.Below(3) == 0 ? 1 + rng.Below(2) : 0;
  static constexpr std::string_view kOptions[] = {"NX", "XX", "GT", "LT"};
  for (uint64_t i = 0; i < options; i++) {
    args->push_back(RandomCase(rng, kOptions[rng.Below(std::size(kOptions))]));
  }
  if (rng.Below(60) == 0) args->push_back("FOO");  // unsupported option
}

}  // namespace

void GenerateExpire(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(10);
  if (pick < 5) {
    GenerateExpireCommand(rng, space, args);
  } else if (pick < 9) {
    static constexpr std::string_view kNames[] = {"ttl", "pttl", "expiretime", "pexpiretime"};
    *args = {RandomCase(rng, kNames[rng.Below(std::size(kNames))]), RandomKey(rng, space)};
  } else {
    *args = {RandomCase(rng, "persist"), RandomKey(rng, space)};
  }
}

}  // namespace keel::workload
