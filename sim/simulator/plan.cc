#include "sim/simulator/plan.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "engine/base/rng.h"

namespace keel::sim {
namespace {

constexpr const char* kFaultNames[] = {"reset",  "slow",  "delay", "clock", "timers",
                                       "memory", "split", "crash", "disk"};

// A probability that is off for a third of the seeds, and otherwise anywhere from rare to
// frequent on a log scale, so that some seeds are storms and others nearly calm.
uint32_t SwarmPerMillion(Rng& rng, uint32_t per_million_max) {
  if (rng.Below(3) == 0) return 0;
  uint32_t value = per_million_max;
  for (uint64_t halvings = rng.Below(8); halvings > 0; halvings--) value /= 2;
  return std::max<uint32_t>(value, 1);
}

template <typename T, size_t N>
T Pick(Rng& rng, const T (&choices)[N]) {
  return choices[rng.Below(N)];
}

}  // namespace

std::string FaultNames(uint32_t mask) {
  if (mask == 0) return "none";
  if (mask == kFaultAll) return "all";
  std::string names;
  for (size_t i = 0; i < std::size(kFaultNames); i++) {
    if (!(mask & (1u << i))) continue;
    if (!names.empty()) names += ',';
    names += kFaultNames[i];
  }
  return names;
}

bool ParseFaultNames(const std::string& text, uint32_t* mask) {
  if (text == "none") {
    *mask = 0;
    return true;
  }
  if (text == "all") {
    *mask = kFaultAll;
    return true;
  }
  uint32_t parsed = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    bool known = false;
    for (size_t i = 0; i < std::size(kFaultNames); i++) {
      if (name == kFaultNames[i]) {
        parsed |= 1u << i;
        known = true;
      }
    }
    if (!known) return false;
    start = comma + 1;
  }
  *mask = parsed;
  return true;
}

std::string RunPlan::ReplayArgs(const RunOverrides& overrides) const {
  std::string args = "--seed " + std::to_string(seed);
  if (overrides.clients) args += " --clients " + std::to_string(*overrides.clients);
  if (overrides.ops) {
    args += " --ops " + std::to_string(*overrides.ops);
  } else if (overrides.ops_default && *overrides.ops_default != kOpsDefault) {
    args += " --ops " + std::to_string(*overrides.ops_default);
  }
  if (overrides.faults) args += " --faults " + FaultNames(*overrides.faults);
  return args;
}

std::string RunPlan::Describe() const {
  std::string text = "clients " + std::to_string(clients) + ", ops " + std::to_string(ops) +
                     ", faults " + FaultNames(faults) + ", pipelines";
  for (int i = 0; i < clients; i++)
    text += " " + std::to_string(pipeline_max[static_cast<size_t>(i)]);
  text += ", family weights";
  for (uint32_t weight : family_weights) text += " " + std::to_string(weight);
  text += ", keys " + std::to_string(space.keys) + ", databases " +
          std::to_string(space.databases) + ", values up to " +
          std::to_string(space.value_bytes_max) + " B (large " +
          std::to_string(space.large_value_per_million) + "/M), splits read " +
          std::to_string(read_bytes_max) + " write " + std::to_string(write_bytes_max) + " send " +
          std::to_string(send_bytes_max) + ", per million: reset " +
          std::to_string(reset_per_million) + " close " + std::to_string(close_per_million) +
          " slow " + std::to_string(slow_client_per_million) + " delay " +
          std::to_string(delay_per_million) + " clock " + std::to_string(clock_jump_per_million) +
          " refusal " + std::to_string(memory_refusal_per_million) + " above " +
          std::to_string(memory_soft_limit_bytes) + " B, timers late up to " +
          std::to_string(timer_late_us_max) + " us, maxmemory " + std::to_string(maxmemory_bytes) +
          " " + maxmemory_policy + ", output limit " + std::to_string(output_hard_bytes) + ", hz " +
          std::to_string(hz) + ", step up to " + std::to_string(step_us_max) +
          " us, loop iterations per step up to " + std::to_string(server_iterations_max) +
          ", replica lag " + std::to_string(replica_lag_ms) + " ms";
  if (!appendfsync.empty()) {
    text += ", aof " + appendfsync + (aof_rdb_preamble ? " rdb-preamble" : " commands") +
            ", rewrite per million " + std::to_string(aof_rewrite_per_million);
  }
  if (rdb_zstd_level > 0) text += ", rdb zstd level " + std::to_string(rdb_zstd_level);
  if ((faults & kFaultCrash) && crash_at_permille > 0) {
    text += ", power loss after " + std::to_string(crash_at_permille) + " permille of the commands";
  }
  if (faults & kFaultDisk) {
    text += ", disk: sync failures " + std::to_string(disk_sync_failure_per_million) + "/M, full " +
            std::to_string(disk_full_per_million) + "/M steps, freed " +
            std::to_string(disk_free_per_million) + "/M steps";
  }
  return text;
}

namespace {

// Who runs what: clients, fault classes, pipelines, command mix, key space.
void DrawWorkload(Rng& rng, RunPlan& plan) {
  plan.clients = static_cast<int>(1 + rng.Below(rng.Below(4) == 0 ? 12 : 5));
  plan.faults = static_cast<uint32_t>(rng.Below(kFaultClassic + 1));
  // A quarter of the seeds get every fault class.
  if (rng.Below(4) == 0) plan.faults = kFaultClassic;
  const int depth_max = Pick(rng, {1, 2, 4, 16, 64});
  for (int i = 0; i < kClientsMax; i++) {
    plan.pipeline_max.push_back(static_cast<int>(1 + rng.Below(depth_max)));
  }
  for (size_t i = 0; i < workload::Families().size(); i++) {
    plan.family_weights.push_back(static_cast<uint32_t>(rng.Below(4) == 0 ? 0 : 1 + rng.Below(10)));
  }
  if (*std::max_element(plan.family_weights.begin(), plan.family_weights.end()) == 0) {
    plan.family_weights[0] = 1;
  }
  plan.space.keys = static_cast<int>(1 + rng.Below(Pick(rng, {2, 8, 32})));
  plan.space.databases = static_cast<int>(1 + rng.Below(3));
  plan.space.value_bytes_max = Pick(rng, {size_t{0}, size_t{4}, size_t{16}, size_t{200}});
  plan.space.large_value_per_million = SwarmPerMillion(rng, 50'000);
  plan.server_iterations_max = static_cast<int>(1 + rng.Below(3));
}

// How the network splits bytes, and how often each fault fires.
void DrawFaults(Rng& rng, RunPlan& plan) {
  plan.read_bytes_max = Pick(rng, {size_t{1}, size_t{3}, size_t{7}, size_t{64}, size_t{1000}});
  plan.write_bytes_max = Pick(rng, {size_t{1}, size_t{5}, size_t{16}, size_t{300}, size_t{5000}});
  plan.send_bytes_max = Pick(rng, {size_t{1}, size_t{4}, size_t{50}, size_t{1000}});
  plan.reset_per_million = SwarmPerMillion(rng, 20'000);
  plan.close_per_million = SwarmPerMillion(rng, 5'000);
  plan.slow_client_per_million = SwarmPerMillion(rng, 500'000);
  plan.delay_per_million = SwarmPerMillion(rng, 300'000);
  plan.clock_jump_per_million = SwarmPerMillion(rng, 30'000);
  plan.timer_late_us_max = static_cast<int64_t>(rng.Below(2) == 0 ? 0 : 1 + rng.Below(300'000));
  plan.memory_soft_limit_bytes = 1 + rng.Below(512 * 1024);
  plan.memory_refusal_per_million = SwarmPerMillion(rng, 200'000);
}

// The server's configuration and how time moves.
void DrawServer(Rng& rng, RunPlan& plan) {
  plan.maxmemory_bytes =
      rng.Below(5) == 0 ? static_cast<int64_t>(64 * 1024 + rng.Below(512 * 1024)) : 0;
  // A hard output limit low enough that a pipeline of GETs, or a slow reader, passes it.
  if (rng.Below(4) == 0) {
    plan.output_hard_bytes =
        Pick(rng, {int64_t{512}, int64_t{2048}, int64_t{8192}, int64_t{32768}}) +
        static_cast<int64_t>(rng.Below(1024));
    plan.space.value_bytes_max = std::max<size_t>(plan.space.value_bytes_max, 200);
  }
  plan.hz = Pick(rng, {int64_t{1}, int64_t{10}, int64_t{100}});
  plan.step_us_max = Pick(rng, {int64_t{100}, int64_t{1000}, int64_t{5000}});
  // Drawn last, so that adding it moved none of the draws before it.
  plan.replica_lag_ms = Pick(rng, {int64_t{1}, int64_t{100}, int64_t{1500}, int64_t{60000}});
  static constexpr std::string_view kPolicies[] = {
      "noeviction",   "allkeys-lru",  "allkeys-lfu",     "allkeys-random",
      "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"};
  plan.maxmemory_policy = std::string(Pick(rng, kPolicies));
  // An evicting policy needs something to evict: more keys, some of them large, so that the
  // keyspace itself passes the limit (not only the clients' buffers).
  if (plan.maxmemory_bytes > 0 && plan.maxmemory_policy != "noeviction") {
    plan.space.keys = std::max(plan.space.keys, 16);
    plan.space.large_value_per_million =
        std::max<uint32_t>(plan.space.large_value_per_million, 50'000);
  }
}

// The AOF, drawn after everything else so that adding it moved none of the earlier draws.
void DrawPersistence(Rng& rng, RunPlan& plan) {
  if (rng.Below(2) == 0) return;
  plan.appendfsync = std::string(Pick(
      rng, {std::string_view("everysec"), std::string_view("always"), std::string_view("no")}));
  plan.aof_rdb_preamble = rng.Below(2) == 0;
  plan.aof_rewrite_per_million = SwarmPerMillion(rng, 20'000);
}

// A quarter of the seeds write Keel's zstd snapshot, from a stream of its own so that adding it
// moved no draw of the plan's; mostly level 1 (the one to use), sometimes zstd's slow levels.
void DrawSnapshotCompression(uint64_t seed, RunPlan& plan) {
  Rng rng(seed ^ 0x7a737464736e6170ull);
  if (rng.Below(4) != 0) return;
  plan.rdb_zstd_level = Pick(rng, {1, 1, 3, 19});
}

// The power loss and the disk's faults, from a stream of their own so that adding them moved no
// draw of the plan's. Half the seeds lose power once, anywhere in the run (a quarter of those
// near its start, where the first files are being made); a third have a failing disk.
void DrawDisk(uint64_t seed, RunPlan& plan) {
  Rng rng(seed ^ 0x6372617368ull);
  if (rng.Below(2) != 0) {
    plan.faults |= kFaultCrash;
    plan.crash_at_permille =
        static_cast<int>(rng.Below(4) == 0 ? 1 + rng.Below(50) : 1 + rng.Below(1000));
  }
  Rng disk(seed ^ 0x6469736b6469736bull);
  if (disk.Below(3) != 0) return;
  plan.faults |= kFaultDisk;
  plan.disk_sync_failure_per_million = SwarmPerMillion(disk, 300'000);
  plan.disk_full_per_million = SwarmPerMillion(disk, 20'000);
  plan.disk_free_per_million = std::max<uint32_t>(SwarmPerMillion(disk, 100'000), 1000);
}

// With an output limit, make sure something pushes against it: slow readers, pipelines deep
// enough and values large enough that replies pile up past the limit.
void AddOutputPressure(RunPlan& plan) {
  if (plan.output_hard_bytes == 0) return;
  plan.faults |= kFaultSlow;
  plan.slow_client_per_million = std::max<uint32_t>(plan.slow_client_per_million, 500'000);
  for (int& depth : plan.pipeline_max) depth = std::max(depth, 8 + depth % 24);
  plan.space.large_value_per_million =
      std::max<uint32_t>(plan.space.large_value_per_million, 100'000);
  plan.family_weights[0] = std::max<uint32_t>(plan.family_weights[0], 5);  // GETs of them
  // Splits small enough to forbid large values would take the pressure away.
  for (size_t* split : {&plan.read_bytes_max, &plan.write_bytes_max, &plan.send_bytes_max}) {
    if (*split != 0 && *split < 256) *split = 256 + *split * 100;
  }
}

}  // namespace

RunPlan DrawPlan(uint64_t seed, const RunOverrides& overrides) {
  // The plan has its own stream: the run's other streams (network splits, faults, workload) start
  // from the seed too but never depend on how many draws the plan made.
  Rng rng(seed ^ 0x706c616e706c616eull);
  RunPlan plan;
  plan.seed = seed;
  plan.ops = overrides.ops_default.value_or(kOpsDefault);
  DrawWorkload(rng, plan);
  DrawFaults(rng, plan);
  DrawServer(rng, plan);
  AddOutputPressure(plan);
  DrawPersistence(rng, plan);
  DrawDisk(seed, plan);
  DrawSnapshotCompression(seed, plan);

  if (overrides.clients) plan.clients = std::clamp(*overrides.clients, 1, kClientsMax);
  if (overrides.ops) plan.ops = std::max(*overrides.ops, 0);
  if (overrides.faults) plan.faults &= *overrides.faults;
  // Large values only travel with splits of a few hundred bytes or more: a 40 KiB reply written a
  // byte per loop iteration would take longer than the liveness bound allows for any reply.
  const auto tiny = [](size_t split) { return split != 0 && split < 256; };
  if ((plan.faults & kFaultSplit) &&
      (tiny(plan.read_bytes_max) || tiny(plan.write_bytes_max) || tiny(plan.send_bytes_max))) {
    plan.space.large_value_per_million = 0;
  }
  if (!(plan.faults & kFaultSplit)) {
    plan.read_bytes_max = plan.write_bytes_max = plan.send_bytes_max = 0;
  }
  return plan;
}

}  // namespace keel::sim
