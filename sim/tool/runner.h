// Runs seeds in child processes, so that a crash (an assertion, a sanitizer report) is one seed's
// failure and not the end of a sweep, and so that two seeds can run at once on two cores.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/simulator/plan.h"
#include "sim/simulator/simulation.h"

namespace keel::sim {

struct SeedRun {
  uint64_t seed = 0;
  RunOverrides overrides;
  std::string note;  // why this run is here (a regression file's comment), for reports
};

struct SeedOutcome {
  SeedRun run;
  RunResult result;
  bool crashed = false;  // the child died or exited non-zero (its output says why)
  std::string output;    // what the child wrote to stderr (assertion texts, sanitizer reports)
};

// Runs `runs` on up to `jobs` children at a time and calls `done` for each as it finishes (in
// completion order). `stop` is asked before each start: when it returns true no more runs start.
void RunInChildren(
    const std::vector<SeedRun>& runs, int jobs, const std::function<void(const SeedOutcome&)>& done,
    const std::function<bool()>& stop = [] { return false; });

// One run in one child.
SeedOutcome RunInChild(const SeedRun& run);

}  // namespace keel::sim
