// Commands of the string family: GET and SET with every option, mostly valid.
#include <climits>

#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

// An expiry option and its argument, around the current time: relative ones of a few ms to a
// few seconds, absolute ones from just past to a few seconds ahead (so some land exactly on the
// millisecond a later command runs), and now and then an invalid or overflowing value.
void AddExpiry(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  switch (rng.Below(4)) {
    case 0:
      args->push_back(RandomCase(rng, "PX"));
      args->push_back(MaybeBadNumber(rng, Between(rng, 1, 300)));
      break;
    case 1:
      args->push_back(RandomCase(rng, "EX"));
      args->push_back(MaybeBadNumber(rng, Between(rng, 1, 3)));
      break;
    case 2:
      args->push_back(RandomCase(rng, "PXAT"));
      args->push_back(MaybeBadNumber(rng, space.now_ms + Between(rng, -20, 300)));
      break;
    default:
      args->push_back(RandomCase(rng, "EXAT"));
      args->push_back(MaybeBadNumber(rng, space.now_ms / 1000 + Between(rng, 0, 3)));
      break;
  }
  if (rng.Below(60) == 0) {
    // Edges: zero, negative, and values whose sum with the clock overflows.
    static constexpr int64_t kEdges[] = {0, -1, LLONG_MAX / 1000, LLONG_MAX - 5, LLONG_MAX};
    args->back() = std::to_string(kEdges[rng.Below(std::size(kEdges))]);
  }
}

void GenerateSet(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->push_back(RandomCase(rng, "set"));
  args->push_back(RandomKey(rng, space));
  args->push_back(RandomValue(rng, space));
  const uint64_t options = rng.Below(4);  // most SETs carry at most one or two options
  for (uint64_t i = 0; i < options; i++) {
    switch (rng.Below(7)) {
      case 0:
        args->push_back(RandomCase(rng, "NX"));
        break;
      case 1:
        args->push_back(RandomCase(rng, "XX"));
        break;
      case 2:
        args->push_back(RandomCase(rng, "GET"));
        break;
      case 3:
        args->push_back(RandomCase(rng, "KEEPTTL"));
        break;
      case 4:
        if (rng.Below(20) == 0) {
          args->push_back(rng.Below(2) == 0 ? "EX" : "BOGUS");  // missing argument, or unknown
          break;
        }
        [[fallthrough]];
      default:
        AddExpiry(rng, space, args);
        break;
    }
  }
}

}  // namespace

void GenerateString(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "get"));
    args->push_back(RandomKey(rng, space));
    if (rng.Below(100) == 0) args->push_back("extra");  // arity error
    return;
  }
  GenerateSet(rng, space, args);
}

}  // namespace keel::workload
