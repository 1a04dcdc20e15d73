// Sweeps: many seeds, a progress line, a report for each failure, a summary.
#pragma once

#include <string>
#include <vector>

#include "sim/tool/runner.h"

namespace keel::sim {

struct SweepOptions {
  int jobs = 1;
  bool shrink = true;            // shrink the first failures after the sweep
  bool stop_on_failure = false;  // start no new seed after the first failure (mutation testing)
  std::string program;           // how this tool was invoked, for replay commands
  std::string description;       // "1..2000", "corpus/sim/regressions", for the summary
};

// Failing seeds shrunk after a sweep (each shrink costs up to kShrinkRunsMax runs).
inline constexpr int kShrinkFailuresMax = 3;

// Returns the number of failing runs.
int Sweep(const std::vector<SeedRun>& runs, const SweepOptions& options);

// Prints one failure: seed, phase, what diverged, and the command that replays it.
void ReportFailure(const SeedOutcome& outcome, const std::string& program);

}  // namespace keel::sim
