// LatencyHistogram, LatencyMonitor and SlowLog. The histogram's expected values are the ones
// redis-server 7.0.15 printed for the same durations (INFO latencystats, LATENCY HISTOGRAM).
#include "engine/server/latency.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/server/slowlog.h"

namespace keel {
namespace {

using Points = std::vector<std::pair<int64_t, uint64_t>>;

TEST(LatencyHistogramTest, BucketsKeepTwoSignificantDigits) {
  // Below 256 every value has its own bucket; above, the resolution doubles with each power of
  // two, so that a bucket is always under 1% of its value wide.
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(1), 1);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(255), 255);
  EXPECT_EQ(LatencyHistogram::LowestEquivalent(1000), 1000);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(1000), 1003);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(2000), 2007);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(4000), 4015);
  EXPECT_EQ(LatencyHistogram::LowestEquivalent(1002), 1000);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(1'000'000'000), 1'002'438'655);
  // Every counter maps back to a value of its own bucket.
  for (size_t index = 0; index < LatencyHistogram::kCountsLength; index++) {
    const int64_t value = LatencyHistogram::ValueAtIndex(index);
    ASSERT_EQ(LatencyHistogram::IndexOf(value), index) << value;
    ASSERT_EQ(LatencyHistogram::IndexOf(LatencyHistogram::HighestEquivalent(value)), index);
  }
  EXPECT_LT(LatencyHistogram::IndexOf(LatencyHistogram::kValueMaxNs),
            LatencyHistogram::kCountsLength);
}

TEST(LatencyHistogramTest, PercentilesAsRedisPrintsThem) {
  LatencyHistogram histogram;
  EXPECT_EQ(histogram.total_count(), 0u);
  histogram.Record(1000);  // a 1 µs PING: Redis prints p50=1.003
  EXPECT_EQ(histogram.ValueAtPercentile(50), 1003);
  EXPECT_EQ(histogram.ValueAtPercentile(0), 1000);  // p0 is the bucket's low end: "p0=1.000"
  histogram.Record(4000);
  EXPECT_EQ(histogram.total_count(), 2u);
  // Ranks are rounded half up: p50 of two samples is the first, p99 the second.
  EXPECT_EQ(histogram.ValueAtPercentile(50), 1003);
  EXPECT_EQ(histogram.ValueAtPercentile(99), 4015);
  EXPECT_EQ(histogram.ValueAtPercentile(99.9), 4015);
  EXPECT_EQ(histogram.ValueAtPercentile(150), 4015);
}

TEST(LatencyHistogramTest, ValuesAreClampedToOneNanosecondAndOneSecond) {
  LatencyHistogram histogram;
  histogram.Record(0);
  histogram.Record(-5);
  EXPECT_EQ(histogram.ValueAtPercentile(100), 1);
  histogram.Record(3'800'000'000);  // a 3.8 s DEBUG STRINGMATCH-TEST counts as 1 s
  EXPECT_EQ(histogram.ValueAtPercentile(100), 1'002'438'655);
}

TEST(LatencyHistogramTest, CumulativeDistributionAtPowersOfTwo) {
  LatencyHistogram histogram;
  EXPECT_EQ(histogram.CumulativeDistribution(), Points{});
  histogram.Record(1000);
  EXPECT_EQ(histogram.CumulativeDistribution(), (Points{{1, 1}}));
  // Reporting levels are 1024 ns doubling; a level is printed at the highest value of the first
  // bucket reaching it, and only where the count grew (2, 4, 8, 16, 33, 66, 132, ... µs).
  histogram.Record(1500);
  histogram.Record(3000);
  histogram.Record(3000);
  histogram.Record(20'000);
  histogram.Record(100'000);
  EXPECT_EQ(histogram.CumulativeDistribution(),
            (Points{{1, 1}, {2, 2}, {4, 4}, {33, 5}, {132, 6}}));
}

TEST(LatencyHistogramTest, CumulativeDistributionPastTheLastBucket) {
  // Redis 7.0.15 listed a 3.8 s command as "1073741" with the count of all samples: the walk
  // runs off the last counter before reaching the next level and reports from there.
  LatencyHistogram histogram;
  histogram.Record(3000);
  histogram.Record(3'800'000'000);
  EXPECT_EQ(histogram.CumulativeDistribution(), (Points{{4, 1}, {1073741, 2}}));
}

TEST(LatencyMonitorTest, OneSamplePerSecondKeepingTheLargest) {
  LatencyMonitor monitor;
  monitor.AddSample("command", 100, 5);
  monitor.AddSample("command", 100, 3);  // same second, smaller: ignored
  monitor.AddSample("command", 100, 9);  // same second, larger: replaces
  monitor.AddSample("command", 101, 2);
  const LatencyMonitor::Series* series = monitor.Find("command");
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->max_ms, 9);
  EXPECT_EQ(series->latest().time_s, 101);
  EXPECT_EQ(series->latest().latency_ms, 2);
  EXPECT_EQ(series->samples[0].latency_ms, 9);
  EXPECT_EQ(monitor.Find("fast-command"), nullptr);
}

TEST(LatencyMonitorTest, KeepsTheLast160Samples) {
  LatencyMonitor monitor;
  for (int64_t second = 1; second <= 200; second++) monitor.AddSample("e", second, second);
  const LatencyMonitor::Series* series = monitor.Find("e");
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->latest().time_s, 200);
  EXPECT_EQ(series->samples[series->next].time_s, 41);  // the oldest kept
  EXPECT_EQ(series->max_ms, 200);
}

TEST(LatencyMonitorTest, ResetOneOrAll) {
  LatencyMonitor monitor;
  monitor.AddSample("a", 1, 1);
  monitor.AddSample("b", 1, 1);
  EXPECT_EQ(monitor.Reset("nosuch"), 0);
  EXPECT_EQ(monitor.Reset("a"), 1);
  EXPECT_EQ(monitor.Reset("a"), 0);
  EXPECT_EQ(monitor.ResetAll(), 1);
  EXPECT_TRUE(monitor.events().empty());
}

TEST(LatencyMonitorTest, EventNamesAreBounded) {
  LatencyMonitor monitor;
  for (size_t i = 0; i < LatencyMonitor::kEventsMax + 10; i++) {
    monitor.AddSample("event" + std::to_string(i), 1, 1);
  }
  EXPECT_EQ(monitor.events().size(), LatencyMonitor::kEventsMax);
}

std::vector<std::string_view> Args(const std::vector<std::string>& args) {
  return std::vector<std::string_view>(args.begin(), args.end());
}

TEST(SlowLogTest, ThresholdAndLength) {
  SlowLog log;
  const std::vector<std::string> command = {"get", "k"};
  log.Push(Args(command), 9, 100, "1.2.3.4:5", "name", 10, 128);  // faster than the threshold
  EXPECT_TRUE(log.entries().empty());
  log.Push(Args(command), 10, 100, "1.2.3.4:5", "name", 10, 128);
  log.Push(Args(command), 50, 101, "1.2.3.4:5", "", 10, 128);
  log.Push(Args(command), 50, 101, "1.2.3.4:5", "", -1, 128);  // disabled
  ASSERT_EQ(log.entries().size(), 2u);
  EXPECT_EQ(log.entries()[0].id, 1u);  // newest first
  EXPECT_EQ(log.entries()[0].time_s, 101);
  EXPECT_EQ(log.entries()[1].duration_us, 10);
  EXPECT_EQ(log.entries()[1].client_name, "name");
  EXPECT_EQ(log.entries()[1].peer, "1.2.3.4:5");
  // A lower max length applies at the next push; ids keep counting across RESET.
  log.Push(Args(command), 50, 102, "", "", 0, 1);
  ASSERT_EQ(log.entries().size(), 1u);
  EXPECT_EQ(log.entries()[0].id, 2u);
  log.Reset();
  EXPECT_TRUE(log.entries().empty());
  log.Push(Args(command), 50, 102, "", "", 0, 0);
  EXPECT_TRUE(log.entries().empty());
  log.Push(Args(command), 50, 102, "", "", 0, 5);
  EXPECT_EQ(log.entries()[0].id, 4u);
}

TEST(SlowLogTest, LongCommandsAreCutAsRedisCutsThem) {
  SlowLog log;
  std::vector<std::string> command = {"rpush", "lst"};
  for (int i = 0; i < 40; i++) command.push_back("e" + std::to_string(i));
  command[1] = std::string(200, 'x');
  log.Push(Args(command), 1, 1, "", "", 0, 128);
  const SlowLog::Entry& entry = log.entries()[0];
  ASSERT_EQ(entry.args.size(), SlowLog::kArgsMax);
  EXPECT_EQ(entry.args[1], std::string(128, 'x') + "... (72 more bytes)");
  EXPECT_EQ(entry.args[30], "e28");
  EXPECT_EQ(entry.args[31], "... (11 more arguments)");
  // Exactly 32 arguments are all kept.
  command.resize(32);
  log.Push(Args(command), 1, 1, "", "", 0, 128);
  EXPECT_EQ(log.entries()[0].args.back(), "e29");
}

}  // namespace
}  // namespace keel
