// Commands of the generic key family: DEL, EXISTS, DBSIZE, FLUSHDB, FLUSHALL.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

void AddKeys(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  // Usually one key, sometimes several (repeats included: EXISTS counts each).
  const uint64_t count = rng.Below(4) == 0 ? 1 + rng.Below(4) : 1;
  for (uint64_t i = 0; i < count; i++) args->push_back(RandomKey(rng, space));
}

}  // namespace

void GenerateKeys(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(100);
  if (pick < 35) {
    args->push_back(RandomCase(rng, "del"));
    AddKeys(rng, space, args);
  } else if (pick < 75) {
    args->push_back(RandomCase(rng, "exists"));
    AddKeys(rng, space, args);
  } else if (pick < 96) {
    args->push_back(RandomCase(rng, "dbsize"));
  } else {
    // Rare: a flush empties what the other commands build up.
    args->push_back(RandomCase(rng, pick < 99 ? "flushdb" : "flushall"));
    const uint64_t option = rng.Below(8);
    if (option == 0) args->push_back(RandomCase(rng, "async"));
    if (option == 1) args->push_back(RandomCase(rng, "sync"));
    if (option == 2) args->push_back("now");  // syntax error
  }
}

}  // namespace keel::workload
