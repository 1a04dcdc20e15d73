// keel-sim: seeded simulation runs of Keel's engine and server loop (docs/SIMULATOR.md).
//
//   keel-sim --seed N [--trace | --trace-file PATH[.zst]] [--print-hash]   one run, exactly
//   replayed keel-sim --seeds A..B [--jobs J] [--stop-on-failure]                   a sweep
//   keel-sim --seeds-file FILE [--jobs J]                                  listed seeds
//   (regressions) keel-sim --check-determinism N                                         same seed,
//   same trace?
//
// Run options for all: --clients C, --ops K, --faults LIST|all|none, --no-shrink.
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/simulator/plan.h"
#include "sim/simulator/simulation.h"
#include "sim/tool/shrink.h"
#include "sim/tool/sweep.h"
#include "sim/tool/trace_sinks.h"

namespace keel::sim {
namespace {

constexpr char kUsage[] =
    "usage: keel-sim --seed N [--trace | --trace-file PATH[.zst]] [--print-hash] [options]\n"
    "       keel-sim --seeds A..B [--jobs J] [--stop-on-failure] [options]\n"
    "       keel-sim --seeds-file FILE [--jobs J] [options]\n"
    "       keel-sim --check-determinism N [options]\n"
    "options: --clients C  --ops K  --faults reset,slow,delay,clock,timers,memory,split|all|none\n"
    "         --no-shrink\n";

struct Arguments {
  enum class Mode { kNone, kSeed, kSweep, kSeedsFile, kDeterminism } mode = Mode::kNone;
  uint64_t seed = 0;
  uint64_t last = 0;
  std::string seeds_file;
  std::string trace_file;
  bool trace = false;
  bool print_hash = false;
  bool shrink = true;
  bool stop_on_failure = false;
  int jobs = 1;
  RunOverrides overrides;
};

bool ParseU64(const std::string& text, uint64_t* value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  *value = std::strtoull(text.c_str(), nullptr, 10);
  return true;
}

// Parses the run options shared by the command line and the seeds file; `i` is advanced past
// an option's value. Returns false on an unknown option or a bad value.
bool ParseRunOption(const std::vector<std::string>& words, size_t* i, RunOverrides* overrides,
                    std::string* error) {
  const std::string& word = words[*i];
  const bool has_value = *i + 1 < words.size();
  uint64_t number = 0;
  if ((word == "--clients" || word == "--ops") && has_value && ParseU64(words[*i + 1], &number)) {
    (word == "--clients" ? overrides->clients : overrides->ops) = static_cast<int>(number);
    (*i)++;
    return true;
  }
  if (word == "--faults" && has_value) {
    uint32_t mask = 0;
    if (!ParseFaultNames(words[*i + 1], &mask)) {
      *error = "unknown fault in '" + words[*i + 1] + "'";
      return false;
    }
    overrides->faults = mask;
    (*i)++;
    return true;
  }
  *error = "unknown or incomplete option '" + word + "'";
  return false;
}

bool ParseArguments(const std::vector<std::string>& words, Arguments* arguments,
                    std::string* error) {
  for (size_t i = 0; i < words.size(); i++) {
    const std::string& word = words[i];
    const bool has_value = i + 1 < words.size();
    const std::string value = has_value ? words[i + 1] : "";
    if ((word == "--seed" || word == "--check-determinism") && has_value) {
      arguments->mode = word == "--seed" ? Arguments::Mode::kSeed : Arguments::Mode::kDeterminism;
      if (!ParseU64(value, &arguments->seed)) {
        *error = "bad seed '" + value + "'";
        return false;
      }
      i++;
    } else if (word == "--seeds" && has_value) {
      const size_t dots = value.find("..");
      if (dots == std::string::npos || !ParseU64(value.substr(0, dots), &arguments->seed) ||
          !ParseU64(value.substr(dots + 2), &arguments->last) ||
          arguments->last < arguments->seed) {
        *error = "--seeds takes A..B with A <= B";
        return false;
      }
      arguments->mode = Arguments::Mode::kSweep;
      i++;
    } else if (word == "--seeds-file" && has_value) {
      arguments->mode = Arguments::Mode::kSeedsFile;
      arguments->seeds_file = value;
      i++;
    } else if (word == "--jobs" && has_value) {
      uint64_t jobs = 0;
      if (!ParseU64(value, &jobs) || jobs < 1 || jobs > 64) {
        *error = "--jobs takes 1..64";
        return false;
      }
      arguments->jobs = static_cast<int>(jobs);
      i++;
    } else if (word == "--trace-file" && has_value) {
      arguments->trace_file = value;
      i++;
    } else if (word == "--trace") {
      arguments->trace = true;
    } else if (word == "--print-hash") {
      arguments->print_hash = true;
    } else if (word == "--no-shrink") {
      arguments->shrink = false;
    } else if (word == "--stop-on-failure") {
      arguments->stop_on_failure = true;
    } else if (!ParseRunOption(words, &i, &arguments->overrides, error)) {
      return false;
    }
  }
  if (arguments->mode == Arguments::Mode::kNone) {
    *error = "say what to run: --seed, --seeds, --seeds-file or --check-determinism";
    return false;
  }
  return true;
}

// Lines "SEED [run options] # what it found"; blank lines and lines starting with '#' are skipped.
bool ReadSeedsFile(const std::string& path, const RunOverrides& defaults,
                   std::vector<SeedRun>* runs, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); number++) {
    const size_t hash = line.find('#');
    std::string note = hash == std::string::npos ? "" : line.substr(hash + 1);
    note.erase(0, note.find_first_not_of(' '));
    std::istringstream words_in(line.substr(0, hash));
    std::vector<std::string> words;
    for (std::string word; words_in >> word;) words.push_back(word);
    if (words.empty()) continue;
    SeedRun run;
    run.overrides = defaults;
    run.note = note;
    if (!ParseU64(words[0], &run.seed)) {
      *error = path + ":" + std::to_string(number) + ": not a seed: '" + words[0] + "'";
      return false;
    }
    for (size_t i = 1; i < words.size(); i++) {
      if (!ParseRunOption(words, &i, &run.overrides, error)) {
        *error = path + ":" + std::to_string(number) + ": " + *error;
        return false;
      }
    }
    runs->push_back(run);
  }
  return true;
}

int RunOne(const Arguments& arguments, const std::string& program) {
  std::unique_ptr<TraceSink> sink;
  if (arguments.trace) sink = std::make_unique<TextSink>(stdout, /*owned=*/false);
  if (!arguments.trace_file.empty()) {
    std::string error;
    sink = OpenTraceFile(arguments.trace_file, &error);
    if (sink == nullptr) {
      std::fprintf(stderr, "keel-sim: %s\n", error.c_str());
      return 2;
    }
  }
  const RunPlan plan = DrawPlan(arguments.seed, arguments.overrides);
  const RunResult result = Simulate(plan, sink.get());
  sink.reset();  // finishes a compressed trace before anything else is printed
  if (arguments.print_hash) {
    std::printf("trace-hash %016" PRIx64 " records %" PRIu64 "\n", result.trace_hash,
                result.trace_records);
  }
  std::fprintf(stderr,
               "seed %" PRIu64 ": %s, %d clients, %" PRIu64 " commands, %" PRIu64
               " steps, %.3f s simulated, faults %s, trace hash %016" PRIx64 "\n",
               plan.seed, result.ok ? "ok" : "FAILED", plan.clients, result.commands, result.steps,
               static_cast<double>(result.simulated_us) / 1e6, FaultNames(plan.faults).c_str(),
               result.trace_hash);
  if (result.ok) return 0;
  SeedOutcome outcome;
  outcome.run = SeedRun{arguments.seed, arguments.overrides, ""};
  outcome.result = result;
  ReportFailure(outcome, program);
  if (arguments.shrink) {
    const ShrinkResult shrunk = Shrink(
        outcome, [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); });
    std::fprintf(
        stderr, "smallest failing run found (%d attempts): %s %s\n  fails with: %s\n",
        shrunk.attempts, program.c_str(),
        DrawPlan(shrunk.run.seed, shrunk.run.overrides).ReplayArgs(shrunk.run.overrides).c_str(),
        shrunk.outcome.result.failure.c_str());
  }
  return 1;
}

// The seed twice in this process, then once in a fresh process: the three traces must agree.
int CheckDeterminism(const Arguments& arguments) {
  const RunPlan plan = DrawPlan(arguments.seed, arguments.overrides);
  const RunResult first = Simulate(plan);
  const RunResult second = Simulate(plan);
  // This very binary (popen's shell would be /proc/self/exe for the child).
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) {
    std::fprintf(stderr, "keel-sim: cannot find its own executable\n");
    return 2;
  }
  const std::string command = std::string(self, static_cast<size_t>(length)) + " " +
                              plan.ReplayArgs(arguments.overrides) +
                              " --print-hash --no-shrink 2>/dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  uint64_t hash = 0;
  uint64_t records = 0;
  const bool parsed =
      pipe != nullptr &&
      std::fscanf(pipe, "trace-hash %" SCNx64 " records %" SCNu64, &hash, &records) == 2;
  if (pipe != nullptr) pclose(pipe);
  std::fprintf(stderr,
               "seed %" PRIu64 ": trace hash %016" PRIx64 " (%" PRIu64
               " records), again in-process %016" PRIx64 " (%" PRIu64
               "), in a new process %016" PRIx64 " (%" PRIu64 ")\n",
               plan.seed, first.trace_hash, first.trace_records, second.trace_hash,
               second.trace_records, hash, records);
  const bool same = parsed && first.trace_hash == second.trace_hash &&
                    first.trace_records == second.trace_records && first.trace_hash == hash &&
                    first.trace_records == records;
  std::fprintf(stderr, "determinism: %s\n", same ? "the traces are identical" : "FAILED");
  return same ? 0 : 1;
}

int Main(int argc, char** argv) {
  const std::vector<std::string> words(argv + 1, argv + argc);
  Arguments arguments;
  std::string error;
  if (!ParseArguments(words, &arguments, &error)) {
    std::fprintf(stderr, "keel-sim: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  const std::string program = argv[0];
  switch (arguments.mode) {
    case Arguments::Mode::kSeed:
      return RunOne(arguments, program);
    case Arguments::Mode::kDeterminism:
      return CheckDeterminism(arguments);
    default:
      break;
  }
  std::vector<SeedRun> runs;
  SweepOptions options;
  options.jobs = arguments.jobs;
  options.shrink = arguments.shrink;
  options.stop_on_failure = arguments.stop_on_failure;
  options.program = program;
  if (arguments.mode == Arguments::Mode::kSweep) {
    for (uint64_t seed = arguments.seed; seed <= arguments.last; seed++) {
      runs.push_back(SeedRun{seed, arguments.overrides, ""});
    }
    options.description = std::to_string(arguments.seed) + ".." + std::to_string(arguments.last);
  } else {
    if (!ReadSeedsFile(arguments.seeds_file, arguments.overrides, &runs, &error)) {
      std::fprintf(stderr, "keel-sim: %s\n", error.c_str());
      return 2;
    }
    options.description = arguments.seeds_file;
  }
  return Sweep(runs, options) == 0 ? 0 : 1;
}

}  // namespace
}  // namespace keel::sim

int main(int argc, char** argv) { return keel::sim::Main(argc, argv); }
