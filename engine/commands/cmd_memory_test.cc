// Unit tests of MEMORY USAGE and MEMORY HELP (cmd_memory.cc), MEMORY STATS, DOCTOR, PURGE and
// MALLOC-STATS (cmd_memory_stats.cc), and the cron's release of free memory.
#include <map>
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"

namespace keel::testing {
namespace {

class MemoryTest : public StringTest {};

TEST_F(MemoryTest, UsageCountsTheEntryAndWhatTheValueHoldsOutsideIt) {
  EXPECT_EQ(Run({"memory", "usage", "missing"}), NilBulk());
  Run({"set", "small", "v"});
  Run({"set", "large", std::string(10000, 'x')});
  const int64_t small = Run({"memory", "usage", "small"}).integer;
  const int64_t large = Run({"memory", "usage", "large"}).integer;
  EXPECT_GT(small, 0);
  EXPECT_GE(large, small + 10000);
  // A list's nodes live outside its entry: they are counted too.
  Run({"rpush", "list", "a"});
  const int64_t one = Run({"memory", "usage", "list"}).integer;
  for (int i = 0; i < 1000; i++) Run({"rpush", "list", std::string(100, 'e')});
  EXPECT_GE(Run({"memory", "usage", "list", "samples", "0"}).integer, one + 100000);
}

TEST_F(MemoryTest, SamplesIsCheckedAsRedisChecksIt) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"memory", "usage", "k", "samples", "-1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage", "k", "samples", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"memory", "usage", "k", "samples"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage", "k", "other"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "stats", "x"}),
            Err("ERR wrong number of arguments for 'memory|stats' command"));
  EXPECT_EQ(Run({"memory", "help"}).elements.size(), 14u);
}

// MEMORY STATS: Redis 7.0's fields in its order, a db.N map for each database with keys, and
// figures that agree with each other and with INFO memory.
TEST_F(MemoryTest, StatsListsRedisFieldsWithConsistentFigures) {
  Run({"set", "a", std::string(1000, 'x')});
  Run({"select", "3"});
  Run({"set", "b", "1", "ex", "100"});
  Run({"select", "0"});
  Run({"script", "load", "return 1"});
  const RespValue stats = Run({"memory", "stats"});
  std::vector<std::string> names;
  std::map<std::string, RespValue> values;
  ASSERT_EQ(stats.elements.size() % 2, 0u);
  for (size_t i = 0; i < stats.elements.size(); i += 2) {
    names.push_back(stats.elements[i].text);
    values[stats.elements[i].text] = stats.elements[i + 1];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"peak.allocated",
                                             "total.allocated",
                                             "startup.allocated",
                                             "replication.backlog",
                                             "clients.slaves",
                                             "clients.normal",
                                             "cluster.links",
                                             "aof.buffer",
                                             "lua.caches",
                                             "functions.caches",
                                             "db.0",
                                             "db.3",
                                             "overhead.total",
                                             "keys.count",
                                             "keys.bytes-per-key",
                                             "dataset.bytes",
                                             "dataset.percentage",
                                             "peak.percentage",
                                             "allocator.allocated",
                                             "allocator.active",
                                             "allocator.resident",
                                             "allocator-fragmentation.ratio",
                                             "allocator-fragmentation.bytes",
                                             "allocator-rss.ratio",
                                             "allocator-rss.bytes",
                                             "rss-overhead.ratio",
                                             "rss-overhead.bytes",
                                             "fragmentation",
                                             "fragmentation.bytes"}));
  EXPECT_EQ(values["keys.count"], Int(2));
  EXPECT_GT(values["lua.caches"].integer, 0);  // the cached script, as INFO's scripts_eval
  EXPECT_EQ(values["functions.caches"], Int(0));
  const int64_t total = values["total.allocated"].integer;
  EXPECT_GE(values["peak.allocated"].integer, total);
  EXPECT_EQ(values["allocator.allocated"].integer, total);
  EXPECT_GE(values["dataset.bytes"].integer, 1000);
  EXPECT_EQ(values["overhead.total"].integer + values["dataset.bytes"].integer, total);
  EXPECT_EQ(values["db.3"].elements.size(), 6u);
  EXPECT_EQ(values["db.3"].elements[0], Bulk("overhead.hashtable.main"));
}

TEST_F(MemoryTest, DoctorAndMallocStatsAnswerAsRedisWithLibcMalloc) {
  const RespValue doctor = Run({"memory", "doctor"});
  EXPECT_EQ(doctor.text.substr(0, 58),
            "Hi Sam, this instance is empty or is using very little mem");
  EXPECT_EQ(Run({"memory", "malloc-stats"}).text, "Stats not supported for the current allocator");
  // 6 MB of data, then a peak of twice as much: the doctor names the peak.
  for (int i = 0; i < 12; i++) Run({"set", "k" + std::to_string(i), std::string(1 << 20, 'x')});
  for (int i = 6; i < 12; i++) Run({"del", "k" + std::to_string(i)});
  EXPECT_EQ(Run({"memory", "purge"}), Ok());
  const std::string report = Run({"memory", "doctor"}).text;
  EXPECT_EQ(report.substr(0, 68),
            "Sam, I detected a few issues in this Redis instance memory implants:");
  EXPECT_NE(report.find(" * Peak memory: In the past this instance used more than 150%"),
            std::string::npos)
      << report;
}

// The simulated process keeps freed memory resident, as glibc does, until it is released: by
// MEMORY PURGE, or by the cron once at least 64 MiB (and half of what is used) is free.
TEST_F(MemoryTest, FreeMemoryIsReleasedByPurgeAndByTheCron) {
  sim::SimMemory& memory = env_.sim_memory();
  auto resident = [&] { return memory.ResidentBytes(); };
  for (int i = 0; i < 100; i++) Run({"set", "k" + std::to_string(i), std::string(1 << 20, 'x')});
  const size_t full = resident();
  Run({"flushall"});
  EXPECT_EQ(resident(), full);  // freed, still held
  EXPECT_EQ(Run({"memory", "purge"}), Ok());
  EXPECT_EQ(memory.releases(), 1u);
  EXPECT_LT(resident(), full / 10);

  for (int i = 0; i < 100; i++) Run({"set", "k" + std::to_string(i), std::string(1 << 20, 'x')});
  for (int i = 0; i < 40; i++) Run({"del", "k" + std::to_string(i)});
  engine_->ReleaseFreeMemoryIfWorthIt();  // 40 MiB free: not worth it
  EXPECT_EQ(memory.releases(), 1u);
  env_.sim_clock().Advance(1'000'000);
  Run({"flushall"});
  engine_->ReleaseFreeMemoryIfWorthIt();  // a second later, 100 MiB free
  EXPECT_EQ(memory.releases(), 2u);
  EXPECT_LT(resident(), full / 10);
  // Nothing more to give back: no release, however often the cron asks.
  for (int i = 0; i < 5; i++) {
    env_.sim_clock().Advance(1'000'000);
    Run({"ping"});
    engine_->ReleaseFreeMemoryIfWorthIt();
  }
  EXPECT_EQ(memory.releases(), 2u);
}

// Small values live in the keyspace's slab pages, which a flush frees block by block but does
// not give back: the release returns the pages whose blocks are all free first (bench cell
// churn-FLUSHALL-1000MB kept 1 GB resident after FLUSHALL before it did).
TEST_F(MemoryTest, ReleaseReturnsTheSlabPagesAFlushEmptied) {
  sim::SimMemory& memory = env_.sim_memory();
  const std::string value(700, 'v');
  for (int i = 0; i < 120'000; i++) Run({"set", "key:" + std::to_string(i), value});
  const size_t full = memory.ResidentBytes();
  ASSERT_GT(full, size_t{80} << 20);
  Run({"flushall"});
  EXPECT_GT(engine_->keyspace().slab().held_bytes(), size_t{80} << 20);  // freed, still held
  env_.sim_clock().Advance(1'000'000);
  engine_->ReleaseFreeMemoryIfWorthIt();
  EXPECT_EQ(engine_->keyspace().slab().held_bytes(), 0u);
  EXPECT_LT(memory.ResidentBytes(), full / 10);
  // MEMORY PURGE does the same.
  for (int i = 0; i < 1000; i++) Run({"set", "key:" + std::to_string(i), value});
  Run({"flushall"});
  EXPECT_GT(engine_->keyspace().slab().held_bytes(), 0u);
  EXPECT_EQ(Run({"memory", "purge"}), Ok());
  EXPECT_EQ(engine_->keyspace().slab().held_bytes(), 0u);
}

}  // namespace
}  // namespace keel::testing
