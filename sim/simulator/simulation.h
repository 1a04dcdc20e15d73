// Simulation: one seeded run of the real server loop against simulated clients.
//
// The engine and its Server loop run exactly as in keel-server, over SimEnv. Simulated clients
// pipeline random commands (sim/workload/), split and delay what they send, read slowly, get cut
// mid-command or mid-reply and reconnect, while the clock steps and jumps and memory runs short,
// as the run's plan (sim/simulator/plan.h) says. The oracle checks every reply of every client
// that was not cut, and the engine's invariants are checked after every step. When the plan's
// commands are all issued, faults stop and every pending request must get its reply within a
// bounded number of loop iterations and simulated time (liveness); then every client leaves, the
// engine is destroyed, and it must have returned all its memory. A plan with kFaultCrash ends
// instead with a power loss part-way: the server restarts from what the simulated disk kept, and
// its keyspace must be a state of the history that every reply received allows (history.h).
#pragma once

#include <cstdint>
#include <string>

#include "sim/simulator/plan.h"
#include "sim/trace.h"

namespace keel::sim {

// Liveness bounds once faults stop.
inline constexpr int kDrainIterationsMax = 20000;
inline constexpr int64_t kDrainSimulatedUsMax = 30'000'000;

struct RunResult {
  bool ok = true;
  std::string failure;  // what diverged or broke
  std::string phase;    // "workload", "drain" or "shutdown" when it failed
  uint64_t trace_hash = 0;
  uint64_t trace_records = 0;
  uint64_t commands = 0;            // commands the engine executed
  uint64_t evictions = 0;           // keys evicted under an evicting maxmemory-policy
  uint64_t scan_iterations = 0;     // SCAN iterations followed to the end and checked
  uint64_t waits = 0;               // commands that blocked their client (BLPOP...)
  uint64_t waits_served = 0;        // of them, served by another client's write
  uint64_t crashes = 0;             // power losses the run recovered from (0 or 1)
  uint64_t disk_faults = 0;         // appends (ENOSPC) and syncs (EIO) the disk failed
  uint64_t messages_delivered = 0;  // pub/sub deliveries checked (pubsub_check.h)
  uint64_t steps = 0;
  int64_t simulated_us = 0;
};

// Runs `plan`. With `sink`, the trace's lines go there too.
RunResult Simulate(const RunPlan& plan, TraceSink* sink = nullptr);

}  // namespace keel::sim
