// The pace of a snapshot walked by the event loop (snapshot_pace.h): one iteration stops at its
// time budget on a clock that moves, and at its byte budget on one that stands still (the
// simulator's), and always makes progress.
#include "engine/server/snapshot_pace.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::CommandTest;

// Counts the keys saved and pretends each produced `bytes_per_key` bytes of output.
class CountingSink final : public SnapshotSink {
 public:
  explicit CountingSink(size_t bytes_per_key) : bytes_per_key_(bytes_per_key) {}
  void Save(int, const Entry&) override {
    keys++;
    bytes += bytes_per_key_;
  }
  size_t keys = 0;
  size_t bytes = 0;

 private:
  size_t bytes_per_key_;
};

// A clock that moves `step_us` at every reading, as if each snapshot step took that long.
class TickingClock final : public Clock {
 public:
  explicit TickingClock(int64_t step_us) : step_us_(step_us) {}
  int64_t MonotonicUs() override {
    readings++;
    return now_us_ += step_us_;
  }
  int64_t WallUs() override { return now_us_; }
  int readings = 0;

 private:
  int64_t step_us_;
  int64_t now_us_ = 0;
};

class SnapshotPaceTest : public CommandTest {
 protected:
  void SetUp() override {
    StartEngine();
    for (int i = 0; i < 20000; i++) Run({"set", "key:" + std::to_string(i), "v"});
  }
};

TEST_F(SnapshotPaceTest, AnIterationStopsAtItsTimeBudget) {
  CountingSink sink(1);  // far below the byte budget
  Snapshot snapshot(engine_->keyspace(), sink);
  // 100 us per step: the budget of 1,000 us allows ten steps (a reading for the deadline, then
  // one after each step).
  TickingClock clock(100);
  EXPECT_TRUE(PumpSnapshot(snapshot, clock, [&] { return sink.bytes; }));
  EXPECT_EQ(clock.readings, 11);
  EXPECT_GT(sink.keys, 0u);
  EXPECT_LT(sink.keys, 20000u);
  // A step slower than the whole budget still moves: one step per iteration.
  const size_t saved = sink.keys;
  TickingClock slow(5000);
  EXPECT_TRUE(PumpSnapshot(snapshot, slow, [&] { return sink.bytes; }));
  EXPECT_GT(sink.keys, saved);
}

TEST_F(SnapshotPaceTest, AnIterationStopsAtItsByteBudgetWhenTheClockStandsStill) {
  CountingSink sink(1024);
  Snapshot snapshot(engine_->keyspace(), sink);
  Clock& still = env_.clock();  // the simulator's clock moves only between events
  EXPECT_TRUE(PumpSnapshot(snapshot, still, [&] { return sink.bytes; }));
  // The budget is checked between steps (about a hundred keys each).
  EXPECT_GE(sink.bytes, kPumpBytesMax);
  EXPECT_LT(sink.bytes, kPumpBytesMax + 1024 * 1024);
  // Iterations go on until every key was saved, each once; between them the output is written
  // (the writer's TakeBytes).
  int iterations = 1;
  do {
    sink.bytes = 0;
    ASSERT_LT(++iterations, 1000);
  } while (PumpSnapshot(snapshot, still, [&] { return sink.bytes; }));
  // Each iteration but the last produced the byte budget, and at most a step (a hundred-odd
  // keys, far below the budget) more.
  const int total_bytes = 20000 * 1024;
  EXPECT_LE(iterations, total_bytes / static_cast<int>(kPumpBytesMax) + 1);
  EXPECT_GT(iterations, total_bytes / static_cast<int>(2 * kPumpBytesMax));
  EXPECT_EQ(sink.keys, 20000u);
}

}  // namespace
}  // namespace keel
