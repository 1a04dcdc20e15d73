// RunPlan: everything one simulated run does, drawn from its seed (swarm testing).
//
// Each seed draws its own client count, pipeline depths, command mix, key space, byte splits and
// fault probabilities, so that different seeds stress different corners instead of every seed
// averaging over all of them. Overrides (fewer clients, fewer commands, some faults off) keep the
// rest of the draw, which is how a failing run is shrunk and replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/workload/workload.h"

namespace keel::sim {

// The fault classes; each can be switched off.
enum Fault : uint32_t {
  kFaultReset = 1 << 0,   // connections reset mid-command or mid-reply, or closed by the client
  kFaultSlow = 1 << 1,    // slow readers: small receive windows, rare reads
  kFaultDelay = 1 << 2,   // clients hold bytes back for a while
  kFaultClock = 1 << 3,   // wall-clock steps forwards and backwards, stalls
  kFaultTimers = 1 << 4,  // timers fire late
  kFaultMemory = 1 << 5,  // allocations refused near a limit
  kFaultSplit = 1 << 6,   // reads and writes split at random sizes
  // The classes the plan draws as a mask (their draw must not move: every seed would change).
  kFaultClassic = (1 << 7) - 1,
  kFaultCrash = 1 << 7,  // the machine loses power mid-run; the server restarts from its files
  kFaultDisk = 1 << 8,   // syncs fail (EIO) and the disk fills up (ENOSPC) now and then
  kFaultAll = (1 << 9) - 1,
};

// "reset,slow,..." for a mask; "none" for 0, "all" for kFaultAll.
std::string FaultNames(uint32_t mask);
// Parses FaultNames' output (and "none"/"all"); returns false on an unknown name.
bool ParseFaultNames(const std::string& text, uint32_t* mask);

// What a command line may change of a seed's draw.
struct RunOverrides {
  std::optional<int> clients;
  std::optional<int> ops;
  std::optional<uint32_t> faults;  // the enabled fault classes (a subset of the drawn ones)
  std::optional<int> ops_default;  // the run size when the seed does not say (sweeps)
};

struct RunPlan {
  uint64_t seed = 0;
  int clients = 1;
  int ops = 0;                           // commands the clients issue in total
  uint32_t faults = 0;                   // enabled fault classes
  std::vector<int> pipeline_max;         // per client: commands in flight at most
  std::vector<uint32_t> family_weights;  // per workload family, same order as Families()
  workload::KeySpace space;
  int server_iterations_max = 1;  // server loop iterations per step, 1..this

  // Network.
  size_t read_bytes_max = 0;   // 0: whole reads
  size_t write_bytes_max = 0;  // 0: whole writes
  size_t send_bytes_max = 0;   // client sends per step; 0: everything queued
  // Faults (per million, per client per step unless said otherwise).
  uint32_t reset_per_million = 0;
  uint32_t close_per_million = 0;
  uint32_t slow_client_per_million = 0;  // chance a new connection is a slow reader
  uint32_t delay_per_million = 0;
  uint32_t clock_jump_per_million = 0;  // per step
  int64_t timer_late_us_max = 0;
  size_t memory_soft_limit_bytes = 0;  // above the engine's starting use; 0: no refusals
  uint32_t memory_refusal_per_million = 0;
  // Server configuration.
  int64_t maxmemory_bytes = 0;  // above the engine's starting use; 0: off
  // maxmemory-policy, one of Redis's eight; the oracle checks the policy's promise.
  std::string maxmemory_policy = "noeviction";
  int64_t output_hard_bytes = 0;  // client-output-buffer-limit normal; 0: none
  int64_t hz = 10;
  int64_t step_us_max = 2000;  // virtual time a step moves, at most
  // How much later than the primary the simulated replica applies what it propagates
  // (sim/simulator/replica.h).
  int64_t replica_lag_ms = 1;
  // The AOF: "" (off), "everysec", "always" or "no" (appendfsync), its base format, and how
  // often (per million steps) the simulation starts a rewrite. At the end the files are loaded
  // into a new engine, which must hold what the server held.
  std::string appendfsync;
  bool aof_rdb_preamble = true;
  uint32_t aof_rewrite_per_million = 0;
  // The RDB snapshot's form: 0 for Redis's file (rdb-compression-algorithm lzf), else Keel's
  // zstd snapshot at this level, so that crash recovery loads zstd files too.
  int rdb_zstd_level = 0;
  // With kFaultCrash: once this share (per mille) of the commands was issued, the machine loses
  // power (SimFiles::Crash) and the run ends with a restart from the files, whose keyspace must
  // be a state of the history that every reply received allows (history.h); 0: no crash.
  int crash_at_permille = 0;
  // With kFaultDisk: how often a sync fails (per million syncs), and how often (per million
  // steps) the disk fills up (appends fail with ENOSPC from then on) or is freed again.
  uint32_t disk_sync_failure_per_million = 0;
  uint32_t disk_full_per_million = 0;
  uint32_t disk_free_per_million = 0;

  // Every parameter on one line, for traces and reports.
  std::string Describe() const;
  // The command line that replays this run: "--seed N" plus any overrides.
  std::string ReplayArgs(const RunOverrides& overrides) const;
};

// Clients a run may have (the plan draws a pipeline depth for each).
inline constexpr int kClientsMax = 16;

// The default run size of a seed when nothing overrides it (the CI sweep's size).
inline constexpr int kOpsDefault = 1000;

RunPlan DrawPlan(uint64_t seed, const RunOverrides& overrides);

}  // namespace keel::sim
