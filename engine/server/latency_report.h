// The latency monitor's two human-readable replies, with Redis 7.0's texts: LATENCY DOCTOR's
// analysis of the recorded events with advice, and LATENCY GRAPH's ASCII sparkline of one event.
// Pure functions of the monitor, the settings the advice depends on and the current time, so
// that they are tested without a server.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/server/latency.h"

namespace keel {

// What LATENCY DOCTOR's advice reads from the configuration.
struct LatencyDoctorSettings {
  int64_t latency_monitor_threshold_ms = 0;
  int64_t slowlog_log_slower_than_us = 10000;
  bool appendfsync_always = false;
  int64_t hz = 10;
};

// Redis's createLatencyReport: per event, its spikes (count, average, mean absolute deviation,
// period), then the advice that applies. Events are reported in name order.
std::string LatencyDoctorReport(const LatencyMonitor& monitor,
                                const LatencyDoctorSettings& settings, int64_t now_s);

// Redis's latencyCommandGenSparkeline: a title line, 80 dashes, and the samples as a four-row
// sparkline (80 columns per band) labelled with how long ago each was taken.
std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         int64_t now_s);

}  // namespace keel
