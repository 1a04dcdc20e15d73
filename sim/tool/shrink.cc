#include "sim/tool/shrink.h"

#include <vector>

namespace keel::sim {

ShrinkResult Shrink(const SeedOutcome& failed,
                    const std::function<void(const std::string&)>& progress) {
  ShrinkResult best{failed.run, failed, 0};
  // Start from the run's actual size, so every candidate below is strictly smaller.
  const RunPlan plan = DrawPlan(failed.run.seed, failed.run.overrides);
  best.run.overrides.clients = plan.clients;
  best.run.overrides.ops = plan.ops;
  best.run.overrides.faults = plan.faults;

  // Whether `candidate` still fails; if so it becomes the best.
  auto try_run = [&](const RunOverrides& candidate) {
    if (best.attempts >= kShrinkRunsMax) return false;
    best.attempts++;
    SeedRun run = best.run;
    run.overrides = candidate;
    const SeedOutcome outcome = RunInChild(run);
    if (outcome.result.ok) return false;
    best.run = run;
    best.outcome = outcome;
    progress("still fails: " + DrawPlan(run.seed, run.overrides).ReplayArgs(run.overrides));
    return true;
  };

  bool changed = true;
  while (changed && best.attempts < kShrinkRunsMax) {
    changed = false;
    // Fewer clients: one first, then halving, then one less.
    const int clients = *best.run.overrides.clients;
    for (int fewer : {1, clients / 2, clients - 1}) {
      if (fewer < 1 || fewer >= *best.run.overrides.clients) continue;
      RunOverrides candidate = best.run.overrides;
      candidate.clients = fewer;
      if (try_run(candidate)) {
        changed = true;
        break;
      }
    }
    // Fewer commands: halve while it fails, then try shaving a quarter.
    while (*best.run.overrides.ops > 1) {
      RunOverrides candidate = best.run.overrides;
      candidate.ops = *best.run.overrides.ops / 2;
      if (!try_run(candidate)) break;
      changed = true;
    }
    RunOverrides three_quarters = best.run.overrides;
    three_quarters.ops = *best.run.overrides.ops * 3 / 4;
    if (*three_quarters.ops >= 1 && try_run(three_quarters)) changed = true;
    // Fewer fault classes, one at a time.
    for (uint32_t fault = 1; fault < kFaultAll; fault <<= 1) {
      if (!(*best.run.overrides.faults & fault)) continue;
      RunOverrides candidate = best.run.overrides;
      candidate.faults = *best.run.overrides.faults & ~fault;
      if (try_run(candidate)) changed = true;
    }
  }
  return best;
}

}  // namespace keel::sim
