// Commands of the counter part of the string family: INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT,
// with amounts at the int64 edges now and then (overflow errors) and increments that are not
// numbers.
#include <climits>

#include "sim/workload/workload.h"

namespace keel::workload {

void GenerateCounter(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const std::string key = RandomKey(rng, space);
  static constexpr int64_t kAmounts[] = {0,         1,         -1,         9999, -10000,
                                         INT64_MAX, INT64_MIN, 5000000000, 3,    -7};
  const int64_t amount = kAmounts[rng.Below(std::size(kAmounts))];
  switch (rng.Below(5)) {
    case 0:
      *args = {RandomCase(rng, "incr"), key};
      break;
    case 1:
      *args = {RandomCase(rng, "decr"), key};
      break;
    case 2:
      *args = {RandomCase(rng, "incrby"), key, MaybeBadNumber(rng, amount)};
      break;
    case 3:
      *args = {RandomCase(rng, "decrby"), key, MaybeBadNumber(rng, amount)};
      break;
    default: {
      static constexpr std::string_view kIncrements[] = {"1.5", "-0.25", "3",  "1e2", "abc",
                                                         "inf", "0.1",   "-7", "",    "1e20"};
      *args = {RandomCase(rng, "incrbyfloat"), key,
               std::string(kIncrements[rng.Below(std::size(kIncrements))])};
      break;
    }
  }
}

}  // namespace keel::workload
