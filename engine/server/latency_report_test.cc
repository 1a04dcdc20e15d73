// LATENCY DOCTOR and LATENCY GRAPH texts against redis-server 7.0.15's for the same samples
// (captured from a server with latency-monitor-threshold 1 after scripts that spun for 5 to 40 ms
// a second apart; LATENCY HISTORY gave the samples, TIME the current second).
#include "engine/server/latency_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace keel {
namespace {

constexpr int64_t kNowS = 1796593997;

LatencyMonitor Captured() {
  LatencyMonitor monitor;
  const std::pair<int64_t, int64_t> command[] = {
      {1796593989, 22}, {1796593990, 5}, {1796593991, 20}, {1796593992, 11},
      {1796593994, 40}, {1796593995, 3}, {1796593996, 7}};
  for (const auto& [time_s, latency_ms] : command) {
    monitor.AddSample("command", time_s, latency_ms);
  }
  monitor.AddSample("fast-command", 1796593991, 4);
  return monitor;
}

TEST(LatencyReportTest, GraphMatchesRedis) {
  const LatencyMonitor monitor = Captured();
  EXPECT_EQ(LatencyGraph("command", *monitor.Find("command"), kNowS),
            "command - high 40 ms, low 3 ms (all time high 40 ms)\n" + std::string(80, '-') +
                "\n    #  \n_   |  \n| # |  \n|_|#|_o\n       \n8765321\nsssssss\n");
}

TEST(LatencyReportTest, GraphLabelsUseTheLargestUnitAndWrapAt80Columns) {
  LatencyMonitor monitor;
  // 100 samples, one a minute apart going back: the labels count minutes, hours, then days.
  for (int64_t i = 0; i < 100; i++) monitor.AddSample("e", kNowS - 86400 * 2 + i * 1800, i % 7);
  const std::string graph = LatencyGraph("e", *monitor.Find("e"), kNowS);
  EXPECT_EQ(graph.substr(0, graph.find('\n')), "e - high 6 ms, low 0 ms (all time high 6 ms)");
  // Two bands of 80 and 20 columns, separated by an empty line.
  EXPECT_NE(graph.find("\n\n"), std::string::npos);
  std::vector<std::string> lines;
  for (size_t at = 0, next; at < graph.size(); at = next + 1) {
    next = graph.find('\n', at);
    lines.push_back(graph.substr(at, next - at));
  }
  size_t longest = 0;
  for (const std::string& line : lines) longest = std::max(longest, line.size());
  EXPECT_EQ(longest, 80u);
  // Labels read downwards below the four rows and a blank line: 2 days, then 1 day (47.5
  // hours) ago; the 50th sample is 23.5 hours old.
  ASSERT_GT(lines.size(), 10u);
  EXPECT_EQ(lines[6], std::string(80, ' '));
  EXPECT_EQ(lines[7].substr(0, 2), "21");
  EXPECT_EQ(lines[8].substr(0, 2), "dd");
  EXPECT_EQ(lines[9].substr(0, 2), "  ");
  EXPECT_EQ(std::string({lines[7][49], lines[8][49], lines[9][49]}), "23h");
}

TEST(LatencyReportTest, DoctorMatchesRedis) {
  const LatencyMonitor monitor = Captured();
  const LatencyDoctorSettings settings{.latency_monitor_threshold_ms = 1,
                                       .slowlog_log_slower_than_us = 10000};
  EXPECT_EQ(
      LatencyDoctorReport(monitor, settings, kNowS),
      "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about "
      "it, do you Dave?\n\n1. command: 7 latency spikes (average 15ms, mean deviation 10ms, "
      "period 1.14 sec). Worst all time event 40ms.\n2. fast-command: 1 latency spikes (average "
      "4ms, mean deviation 0ms, period 6.00 sec). Worst all time event 4ms.\n\nI have a few "
      "advices for you:\n\n- Your current Slow Log configuration only logs events that are "
      "slower than your configured latency monitor threshold. Please use 'CONFIG SET "
      "slowlog-log-slower-than 1000'.\n- Check your Slow Log to understand what are the commands "
      "you are running which are too slow to execute. Please check "
      "https://redis.io/commands/slowlog for more information.\n- The system is slow to execute "
      "Redis code paths not containing system calls. This usually means the system does not "
      "provide Redis CPU time to run for long periods. You should try to:\n  1) Lower the system "
      "load.\n  2) Use a computer / VM just for Redis if you are running other software in the "
      "same system.\n  3) Check if you have a \"noisy neighbour\" problem.\n  4) Check with "
      "'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n  5) "
      "Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you "
      "are using Jemalloc. However this may create fragmentation problems.\n- Deleting, expiring "
      "or evicting (because of maxmemory policy) large objects is a blocking operation. If you "
      "have very large objects that are often deleted, expired, or evicted, try to fragment "
      "those objects into multiple smaller objects.\n");
}

TEST(LatencyReportTest, DoctorWithoutEvents) {
  const LatencyMonitor empty;
  EXPECT_EQ(LatencyDoctorReport(empty, {.latency_monitor_threshold_ms = 0}, kNowS).substr(0, 34),
            "I'm sorry, Dave, I can't do that. ");
  EXPECT_EQ(LatencyDoctorReport(empty, {.latency_monitor_threshold_ms = 5}, kNowS),
            "Dave, no latency spike was observed during the lifetime of this Redis instance, not "
            "in the slightest bit. I honestly think you ought to sit down calmly, take a stress "
            "pill, and think things over.\n");
  // An event that calls for no advice.
  LatencyMonitor other;
  other.AddSample("while-blocked-cron", kNowS - 3, 12);
  const std::string report = LatencyDoctorReport(other, {.latency_monitor_threshold_ms = 5}, kNowS);
  EXPECT_NE(report.find("1. while-blocked-cron: 1 latency spikes (average 12ms, mean deviation "
                        "0ms, period 3.00 sec). Worst all time event 12ms.\n\nWhile there are "
                        "latency events logged, I'm not able to suggest any easy fix."),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace keel
