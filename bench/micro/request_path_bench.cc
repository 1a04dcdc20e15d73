// Micro-benchmarks of the request path: parsing a pipelined batch, dispatch, keyspace lookup and
// insert, reply writing, and the whole engine path for a pipelined SET/GET batch.
//
// Run: cmake --preset release && cmake --build --preset release &&
//      ./build/release/bench/keel_micro_bench
// These measure Keel alone; comparisons with redis-server live in bench/run (the benchmarks
// issue), where both engines run side by side.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/database.h"
#include "engine/resp/reply_builder.h"
#include "engine/resp/request_parser.h"
#include "engine/server/engine.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

std::string Multibulk(const std::vector<std::string>& args) {
  std::string out = "*" + Int64ToString(static_cast<int64_t>(args.size())) + "\r\n";
  for (const std::string& arg : args) {
    out += "$" + Int64ToString(static_cast<int64_t>(arg.size())) + "\r\n" + arg + "\r\n";
  }
  return out;
}

// A pipeline of `count` SETs of 16-byte keys and `value_bytes` values, as redis-benchmark sends.
std::string SetPipeline(int count, size_t value_bytes) {
  std::string pipeline;
  const std::string value(value_bytes, 'x');
  for (int i = 0; i < count; i++) {
    char key[32];
    std::snprintf(key, sizeof(key), "key:%012d", i);
    pipeline += Multibulk({"SET", key, value});
  }
  return pipeline;
}

void BM_ParsePipeline(benchmark::State& state) {
  const std::string pipeline = SetPipeline(static_cast<int>(state.range(0)), 3);
  std::string buffer = pipeline;
  RequestParser parser;
  const ParserLimits limits{512LL << 20, true};
  for (auto _ : state) {
    size_t position = 0;
    size_t commands = 0;
    while (position < buffer.size()) {
      size_t consumed = 0;
      if (parser.Parse(buffer.data() + position, buffer.size() - position, limits, &consumed) !=
          ParseResult::kCommand) {
        break;
      }
      commands++;
      position += consumed;
    }
    benchmark::DoNotOptimize(commands);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParsePipeline)->Arg(32)->Arg(1000);

void BM_RegistryLookup(benchmark::State& state) {
  sim::SimEnv env(1);
  Engine engine(env, Config());
  const std::string_view names[] = {"SET", "get", "Ping", "EXISTS", "dbsize", "del"};
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine.registry().Find(names[i++ % std::size(names)]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RegistryLookup);

void BM_KeyspaceSetExisting(benchmark::State& state) {
  sim::SimEnv env(1);
  MemoryAccountant memory(env.memory());
  SlabAllocator slab(memory);
  AccessClock clock;
  Database db(memory, slab, clock, 42);
  const int keys = static_cast<int>(state.range(0));
  std::vector<std::string> names;
  for (int i = 0; i < keys; i++) names.push_back("key:" + std::to_string(100000000000 + i));
  for (const std::string& name : names) (void)db.SetString(name, "xyz", kNoExpiry);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(db.SetString(names[i++ % names.size()], "abc", kNoExpiry));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KeyspaceSetExisting)->Arg(1000)->Arg(1000000);

void BM_KeyspaceFind(benchmark::State& state) {
  sim::SimEnv env(1);
  MemoryAccountant memory(env.memory());
  SlabAllocator slab(memory);
  AccessClock clock;
  Database db(memory, slab, clock, 42);
  const int keys = static_cast<int>(state.range(0));
  std::vector<std::string> names;
  for (int i = 0; i < keys; i++) names.push_back("key:" + std::to_string(100000000000 + i));
  for (const std::string& name : names) (void)db.SetString(name, "xyz", kNoExpiry);
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(db.Find(names[i++ % names.size()]));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KeyspaceFind)->Arg(1000)->Arg(1000000);

void BM_ReplyBulk(benchmark::State& state) {
  sim::SimEnv env(1);
  MemoryAccountant memory(env.memory());
  ReplyChunkPool pool(memory);
  OutputBuffer out(pool);
  ReplyBuilder reply(out);
  const std::string value(static_cast<size_t>(state.range(0)), 'v');
  ConstSlice slices[64];
  for (auto _ : state) {
    for (int i = 0; i < 32; i++) reply.Bulk(value);
    const size_t count = out.Gather(slices, 64);
    size_t bytes = 0;
    for (size_t s = 0; s < count; s++) bytes += slices[s].size;
    out.Consume(bytes);
  }
  state.SetItemsProcessed(state.iterations() * 32);
}
BENCHMARK(BM_ReplyBulk)->Arg(3)->Arg(64)->Arg(1024);

// The engine path without the network: parse a pipelined batch and execute every command.
void BM_EnginePipeline(benchmark::State& state, const char* command) {
  sim::SimEnv env(1);
  Engine engine(env, Config());
  Client* client = engine.NewClient(0, nullptr);
  std::string pipeline;
  for (int i = 0; i < 32; i++) {
    char key[32];
    std::snprintf(key, sizeof(key), "key:%012d", i);
    pipeline += std::string(command) == "GET" ? Multibulk({"GET", key})
                                              : Multibulk({"SET", key, std::string(3, 'x')});
  }
  std::string buffer = pipeline;
  const ParserLimits limits{512LL << 20, true};
  ConstSlice slices[64];
  engine.BeginTimeSlice();
  for (auto _ : state) {
    size_t position = 0;
    while (position < buffer.size()) {
      size_t consumed = 0;
      if (client->parser().Parse(buffer.data() + position, buffer.size() - position, limits,
                                 &consumed) != ParseResult::kCommand) {
        break;
      }
      engine.Execute(*client, client->parser().args());
      position += consumed;
    }
    const size_t count = client->output().Gather(slices, 64);
    size_t bytes = 0;
    for (size_t s = 0; s < count; s++) bytes += slices[s].size;
    client->output().Consume(bytes);
  }
  state.SetItemsProcessed(state.iterations() * 32);
}
BENCHMARK_CAPTURE(BM_EnginePipeline, set, "SET");
BENCHMARK_CAPTURE(BM_EnginePipeline, get, "GET");

}  // namespace
}  // namespace keel

BENCHMARK_MAIN();
