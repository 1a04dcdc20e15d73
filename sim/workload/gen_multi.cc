// Commands of the transaction family: MULTI, EXEC, DISCARD, WATCH, UNWATCH. The generator keeps
// no state: a client that drew MULTI queues whatever the families give it next until it draws
// EXEC or DISCARD, so transactions of every length, nested MULTIs, EXEC without MULTI and WATCH
// inside MULTI all occur, and other clients' commands interleave with the queuing (never with
// EXEC, which the oracle checks).
#include "sim/workload/workload.h"

namespace keel::workload {

void GenerateMulti(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(100);
  if (pick < 28) {
    *args = {RandomCase(rng, "multi")};
  } else if (pick < 62) {
    *args = {RandomCase(rng, "exec")};
  } else if (pick < 68) {
    *args = {RandomCase(rng, "discard")};
  } else if (pick < 86) {
    *args = {RandomCase(rng, "watch")};
    AddKeys(rng, space, 3, args);
  } else if (pick < 94) {
    // A key that times out within a few steps: watched keys then expire between WATCH and EXEC,
    // reclaimed or not (both break the transaction).
    *args = {RandomCase(rng, "pexpire"), RandomKey(rng, space), std::to_string(Between(rng, 1, 8))};
  } else {
    *args = {RandomCase(rng, "unwatch")};
  }
  // Now and then a wrong arity: refused, and inside MULTI that dooms the transaction.
  if (rng.Below(40) == 0) {
    if (args->size() > 1) {
      args->resize(1);
    } else {
      args->push_back("extra");
    }
  }
}

}  // namespace keel::workload
