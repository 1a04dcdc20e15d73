// Shrinking: from a failing seed, search for a smaller failing run of the same seed (fewer
// clients, fewer commands, fewer fault classes), so that the failure is small enough to read.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sim/tool/runner.h"

namespace keel::sim {

// Runs a shrink attempt costs at most (each is one short simulation in a child process).
inline constexpr int kShrinkRunsMax = 60;

struct ShrinkResult {
  SeedRun run;          // the smallest failing run found (the original when nothing smaller fails)
  SeedOutcome outcome;  // how it failed
  int attempts = 0;
};

// `failed` is the original failing run and its outcome. `progress` hears about each smaller run
// that still fails.
ShrinkResult Shrink(const SeedOutcome& failed,
                    const std::function<void(const std::string&)>& progress);

}  // namespace keel::sim
