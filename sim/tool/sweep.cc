#include "sim/tool/sweep.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "sim/tool/shrink.h"

namespace keel::sim {
namespace {

// Without a terminal (CI logs), a progress line at most this often.
constexpr double kProgressLogSeconds = 15.0;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

void ReportFailure(const SeedOutcome& outcome, const std::string& program) {
  const RunPlan plan = DrawPlan(outcome.run.seed, outcome.run.overrides);
  std::fprintf(stderr, "FAIL seed %llu (%s)%s%s: %s\n",
               static_cast<unsigned long long>(outcome.run.seed), outcome.result.phase.c_str(),
               outcome.run.note.empty() ? "" : " regression: ", outcome.run.note.c_str(),
               outcome.result.failure.c_str());
  if (!outcome.output.empty()) {
    // What the run wrote to stderr (an assertion, a sanitizer report): its end says the most.
    const size_t keep = 4000;
    const std::string& text = outcome.output;
    std::fprintf(stderr, "  output of the run%s:\n%s\n", text.size() > keep ? " (end)" : "",
                 text.substr(text.size() > keep ? text.size() - keep : 0).c_str());
  }
  std::fprintf(stderr, "  replay: %s %s\n", program.c_str(),
               plan.ReplayArgs(outcome.run.overrides).c_str());
}

int Sweep(const std::vector<SeedRun>& runs, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const bool terminal = isatty(STDERR_FILENO) != 0;
  size_t done = 0;
  uint64_t commands = 0;
  uint64_t evictions = 0;
  uint64_t scan_iterations = 0;
  uint64_t waits = 0;
  uint64_t waits_served = 0;
  uint64_t crashes = 0;
  uint64_t disk_faults = 0;
  uint64_t messages = 0;
  std::vector<SeedOutcome> failures;
  double last_log = 0;
  auto progress = [&](bool final_line) {
    const double elapsed = Seconds(start);
    if (!terminal && !final_line && elapsed - last_log < kProgressLogSeconds) return;
    last_log = elapsed;
    std::fprintf(stderr, "%s[%zu/%zu seeds] failures %zu, %llu commands, %.1f s, %.0f commands/s%s",
                 terminal ? "\r" : "", done, runs.size(), failures.size(),
                 static_cast<unsigned long long>(commands), elapsed,
                 elapsed > 0 ? static_cast<double>(commands) / elapsed : 0.0,
                 terminal && !final_line ? "" : "\n");
  };
  RunInChildren(
      runs, options.jobs,
      [&](const SeedOutcome& outcome) {
        done++;
        commands += outcome.result.commands;
        evictions += outcome.result.evictions;
        scan_iterations += outcome.result.scan_iterations;
        waits += outcome.result.waits;
        waits_served += outcome.result.waits_served;
        crashes += outcome.result.crashes;
        disk_faults += outcome.result.disk_faults;
        messages += outcome.result.messages_delivered;
        if (!outcome.result.ok) {
          if (terminal) std::fprintf(stderr, "\n");
          ReportFailure(outcome, options.program);
          failures.push_back(outcome);
        }
        progress(false);
      },
      [&] { return options.stop_on_failure && !failures.empty(); });
  progress(true);

  const double elapsed = Seconds(start);
  std::fprintf(
      stderr,
      "keel-sim: %zu seeds (%s), %zu failures, %llu simulated commands in %.1f s: %.0f "
      "simulated commands/s with %d jobs; %llu keys evicted, %llu SCAN iterations "
      "followed to the end, %llu blocked commands (%llu served by another client), %llu power "
      "losses recovered, %llu disk faults (failed appends and syncs), %llu pub/sub deliveries "
      "checked\n",
      done, options.description.c_str(), failures.size(), static_cast<unsigned long long>(commands),
      elapsed, elapsed > 0 ? static_cast<double>(commands) / elapsed : 0.0, options.jobs,
      static_cast<unsigned long long>(evictions), static_cast<unsigned long long>(scan_iterations),
      static_cast<unsigned long long>(waits), static_cast<unsigned long long>(waits_served),
      static_cast<unsigned long long>(crashes), static_cast<unsigned long long>(disk_faults),
      static_cast<unsigned long long>(messages));
  if (!options.shrink) return static_cast<int>(failures.size());
  for (size_t i = 0; i < failures.size() && i < kShrinkFailuresMax; i++) {
    std::fprintf(stderr, "shrinking seed %llu...\n",
                 static_cast<unsigned long long>(failures[i].run.seed));
    const ShrinkResult shrunk = Shrink(
        failures[i], [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); });
    const RunPlan plan = DrawPlan(shrunk.run.seed, shrunk.run.overrides);
    std::fprintf(stderr, "smallest failing run found (%d attempts): %s %s\n  fails with: %s\n",
                 shrunk.attempts, options.program.c_str(),
                 plan.ReplayArgs(shrunk.run.overrides).c_str(),
                 shrunk.outcome.result.failure.c_str());
  }
  return static_cast<int>(failures.size());
}

}  // namespace keel::sim
