// The pace of a snapshot that the event loop walks between the clients' turns (a background save,
// an AOF rewrite): each iteration walks until it has produced kPumpBytesMax bytes or spent
// kPumpTimeMaxUs, whichever comes first.
//
// The time bound is what the clients feel: every command that arrives during a save waits for
// the iteration's walk. A bound in bytes alone (256 KB) cost 7 ms per iteration at a 10M-key
// save's 35 MB per CPU second, and the writes of 50 clients waited that long (bench cell
// snap-BGSAVE-10M). The byte bound keeps the memory of one iteration's output small, and is the
// only bound in the simulator, whose clock stands still while the engine runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/db/snapshot.h"
#include "engine/env/env.h"

namespace keel {

inline constexpr size_t kPumpBytesMax = 256 * 1024;
inline constexpr int64_t kPumpTimeMaxUs = 1000;
// The slots of the hash space one snapshot step covers (about a hundred keys at the key table's
// load): the granularity at which the bounds are checked.
inline constexpr size_t kSnapshotSlotsPerStep = 128;

// One iteration's walk of `snapshot`; `pending_bytes()` says how much output is waiting to be
// written. Takes at least one step unless that output already fills the byte budget (keys saved
// ahead of the walk by writes). Returns false once every key was saved.
template <typename PendingBytes>
bool PumpSnapshot(Snapshot& snapshot, Clock& clock, PendingBytes&& pending_bytes) {
  const int64_t deadline_us = clock.MonotonicUs() + kPumpTimeMaxUs;
  bool more = true;
  while (more && pending_bytes() < kPumpBytesMax) {
    more = snapshot.Step(kSnapshotSlotsPerStep);
    if (clock.MonotonicUs() >= deadline_us) break;
  }
  return more;
}

}  // namespace keel
