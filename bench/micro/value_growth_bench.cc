// Micro-benchmarks of growing one big value (issues 13 and 14): one set, hash or sorted set
// grown from empty to 1,000,000 members, one SADD / HSET / ZADD at a time, as redis-benchmark
// -r 1000000 grows one. Each op is timed alone; the counters are the worst op (worst_op_us), the
// member count before it (worst_op_at), the worst op that started a growth of the member
// index's table (worst_table_growth_us: the table grows past 4/5 load, so at 0.8 * 2^k + 1
// members) and the worst of the others (worst_other_us: the arena's and the tree's growth), and
// the whole growth (total_ms), all in the thread's CPU time (the timing calls included). Memory
// comes from a resource shaped like the real environment's (malloc with a 256 KiB mmap threshold,
// calloc for zeroed blocks), so a large block arrives as fresh pages as it does in keel-server.
//
// Run: cmake --preset release && cmake --build --preset release --target keel_micro_bench &&
//      ./build/release/bench/keel_micro_bench --benchmark_filter=Grow
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/base/rng.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/set.h"
#include "engine/db/types/zset.h"
#include "engine/env/memory.h"

namespace keel {
namespace {

constexpr size_t kMembers = 1000000;

class MallocMemory final : public MemoryResource {
 public:
  MallocMemory() { mallopt(M_MMAP_THRESHOLD, 256 * 1024); }
  void* Allocate(size_t bytes) override { return std::malloc(bytes); }
  void* AllocateZeroed(size_t bytes) override { return std::calloc(1, bytes); }
  void Deallocate(void* pointer, size_t /*bytes*/) override { std::free(pointer); }
  void* Reallocate(void* pointer, size_t /*old_bytes*/, size_t new_bytes) override {
    return std::realloc(pointer, new_bytes);
  }
  size_t ResidentBytes() override { return 0; }
  void ReleaseFreeMemory() override {}
};

// redis-benchmark's members: "element:" and 12 digits, here distinct and in a random order.
std::vector<std::string> Members() {
  std::vector<std::string> members;
  members.reserve(kMembers);
  char text[32];
  for (size_t i = 0; i < kMembers; i++) {
    std::snprintf(text, sizeof(text), "element:%012zu", i * 7919 % 1000003);
    members.emplace_back(text);
  }
  Rng rng(7);
  for (size_t i = members.size() - 1; i > 0; i--) std::swap(members[i], members[rng.Below(i + 1)]);
  return members;
}

// Whether adding the member after `members` makes the index's table grow (4/5 load of 2^k homes).
bool StartsTableGrowth(size_t members) {
  if (members < 16) return false;
  for (size_t homes = 16; homes <= (size_t{1} << 24); homes *= 2) {
    if (members * 5 <= homes * 4 && (members + 1) * 5 > homes * 4) return true;
  }
  return false;
}

struct GrowthTimes {
  double worst_op_us = 0;
  size_t worst_op_at = 0;
  double worst_table_growth_us = 0;
  double worst_other_us = 0;
  double total_ms = 0;
};

// The thread's CPU time (user and system, so page faults count), in microseconds: the machine
// this runs on is shared, and wall time would count other processes' turns as ours.
double ThreadCpuUs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

// Times add(i) for every member i.
template <typename Add>
GrowthTimes TimeGrowth(Add&& add) {
  GrowthTimes times;
  const double begin_us = ThreadCpuUs();
  double before_us = begin_us;
  for (size_t i = 0; i < kMembers; i++) {
    add(i);
    const double after_us = ThreadCpuUs();
    const double op_us = after_us - before_us;
    before_us = after_us;
    if (op_us > times.worst_op_us) {
      times.worst_op_us = op_us;
      times.worst_op_at = i;
    }
    double& worst = StartsTableGrowth(i) ? times.worst_table_growth_us : times.worst_other_us;
    worst = std::max(worst, op_us);
  }
  times.total_ms = (before_us - begin_us) / 1e3;
  return times;
}

void Report(benchmark::State& state, const std::vector<GrowthTimes>& runs) {
  GrowthTimes worst;
  double total_ms = 0;
  for (const GrowthTimes& run : runs) {
    if (run.worst_op_us > worst.worst_op_us) {
      worst.worst_op_us = run.worst_op_us;
      worst.worst_op_at = run.worst_op_at;
    }
    worst.worst_table_growth_us = std::max(worst.worst_table_growth_us, run.worst_table_growth_us);
    worst.worst_other_us = std::max(worst.worst_other_us, run.worst_other_us);
    total_ms += run.total_ms;
  }
  state.counters["worst_op_us"] = worst.worst_op_us;
  state.counters["worst_op_at"] = static_cast<double>(worst.worst_op_at);
  state.counters["worst_table_growth_us"] = worst.worst_table_growth_us;
  state.counters["worst_other_us"] = worst.worst_other_us;
  state.counters["total_ms"] = total_ms / static_cast<double>(runs.size());
}

void BM_GrowSet(benchmark::State& state) {
  const std::vector<std::string> members = Members();
  MallocMemory resource;
  MemoryAccountant memory(resource);
  std::vector<GrowthTimes> runs;
  for (auto _ : state) {
    SetValue* set = SetValue::Create(memory, 42);
    runs.push_back(
        TimeGrowth([&](size_t i) { benchmark::DoNotOptimize(set->Add(members[i], 512, memory)); }));
    state.PauseTiming();
    SetValue::Destroy(set, memory);
    state.ResumeTiming();
  }
  Report(state, runs);
}
BENCHMARK(BM_GrowSet)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_GrowHash(benchmark::State& state) {
  const std::vector<std::string> members = Members();
  MallocMemory resource;
  MemoryAccountant memory(resource);
  std::vector<GrowthTimes> runs;
  for (auto _ : state) {
    HashValue* hash = HashValue::Create(memory, 42);
    runs.push_back(TimeGrowth([&](size_t i) {
      // HSET's conversion, as the command layer decides it (hash-max-listpack-entries 128).
      if (hash->is_listpack() && hash->size() >= 128) {
        benchmark::DoNotOptimize(hash->ConvertToHashtable(129, memory));
      }
      benchmark::DoNotOptimize(hash->Set(members[i], "xxx", memory));
    }));
    state.PauseTiming();
    HashValue::Destroy(hash, memory);
    state.ResumeTiming();
  }
  Report(state, runs);
}
BENCHMARK(BM_GrowHash)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_GrowZset(benchmark::State& state) {
  const std::vector<std::string> members = Members();
  MallocMemory resource;
  MemoryAccountant memory(resource);
  const ZsetValue::Limits limits{128, 64};
  std::vector<GrowthTimes> runs;
  for (auto _ : state) {
    ZsetValue* zset = ZsetValue::CreateListpack(memory, 42);
    Rng rng(11);
    runs.push_back(TimeGrowth([&](size_t i) {
      const auto score = static_cast<double>(rng.Below(1000000));
      benchmark::DoNotOptimize(zset->Set(members[i], score, limits, memory));
    }));
    state.PauseTiming();
    ZsetValue::Destroy(zset, memory);
    state.ResumeTiming();
  }
  Report(state, runs);
}
BENCHMARK(BM_GrowZset)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace keel
