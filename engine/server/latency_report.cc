#include "engine/server/latency_report.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace keel {
namespace {

// Redis's latencyStats, over the used slots of one event's series.
struct EventStats {
  int64_t samples = 0;
  int64_t average_ms = 0;
  int64_t mean_deviation_ms = 0;
  int64_t period_s = 0;  // seconds since the oldest sample, at least 1
};

EventStats Analyze(const LatencyMonitor::Series& series, int64_t now_s) {
  EventStats stats;
  int64_t sum = 0;
  int64_t oldest_s = 0;
  for (const LatencyMonitor::Sample& sample : series.samples) {
    if (sample.time_s == 0) continue;
    stats.samples++;
    sum += sample.latency_ms;
    if (oldest_s == 0 || sample.time_s < oldest_s) oldest_s = sample.time_s;
  }
  if (stats.samples == 0) return stats;
  stats.average_ms = sum / stats.samples;
  stats.period_s = std::max<int64_t>(now_s - oldest_s, 1);
  int64_t deviations = 0;
  for (const LatencyMonitor::Sample& sample : series.samples) {
    if (sample.time_s == 0) continue;
    deviations += std::abs(stats.average_ms - sample.latency_ms);
  }
  stats.mean_deviation_ms = deviations / stats.samples;
  return stats;
}

// The advice, in the order Redis prints it; each is given once however many events call for it.
enum Advice : uint32_t {
  kSlowlogEnable = 1 << 0,
  kSlowlogTune = 1 << 1,
  kSlowlogInspect = 1 << 2,
  kScheduler = 1 << 3,
  kLocalDisk = 1 << 4,
  kSsd = 1 << 5,
  kDataWriteback = 1 << 6,
  kDiskContention = 1 << 7,
  kNoAppendfsync = 1 << 8,
  kRelaxFsync = 1 << 9,
  kWriteLoadInfo = 1 << 10,
  kHz = 1 << 11,
  kLargeObjects = 1 << 12,
  kMassEviction = 1 << 13,
};

// Which advice an event calls for, and how many pieces Redis counts for it (its count decides
// between "no easy fix" and the list, even where a piece is then not printed).
uint32_t AdviceFor(std::string_view event, const LatencyDoctorSettings& settings, int* count) {
  uint32_t advice = 0;
  auto add = [&](uint32_t pieces) {
    advice |= pieces;
    *count += std::popcount(pieces);
  };
  if (event == "command") {
    if (settings.slowlog_log_slower_than_us < 0) {
      add(kSlowlogEnable);
    } else if (settings.slowlog_log_slower_than_us / 1000 > settings.latency_monitor_threshold_ms) {
      add(kSlowlogTune);
    }
    add(kSlowlogInspect | kLargeObjects);
  } else if (event == "fast-command") {
    add(kScheduler);
  } else if (event == "aof-write-pending-fsync") {
    add(kLocalDisk | kDiskContention | kSsd | kDataWriteback);
  } else if (event == "aof-write-active-child") {
    add(kNoAppendfsync | kDataWriteback | kSsd);
  } else if (event == "aof-write-alone") {
    add(kLocalDisk | kDataWriteback | kSsd);
  } else if (event == "aof-fsync-always") {
    add(kRelaxFsync);
  } else if (event == "aof-fstat" || event == "rdb-unlink-temp-file") {
    add(kDiskContention | kLocalDisk);
  } else if (event == "aof-rewrite-diff-write" || event == "aof-rename") {
    add(kWriteLoadInfo | kDataWriteback | kSsd | kLocalDisk);
  } else if (event == "expire-cycle") {
    add(kHz | kLargeObjects);
  } else if (event == "eviction-del") {
    add(kLargeObjects);
  } else if (event == "eviction-cycle") {
    add(kMassEviction);
  }
  return advice;
}

void AppendAdvice(std::string* report, uint32_t advice, const LatencyDoctorSettings& settings) {
  const std::string threshold_us = std::to_string(settings.latency_monitor_threshold_ms * 1000);
  if (advice & kSlowlogEnable) {
    *report +=
        "- There are latency issues with potentially slow commands you are using. Try to enable "
        "the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than " +
        threshold_us +
        "'. If the Slow log is disabled Redis is not able to log slow commands execution for "
        "you.\n";
  }
  if (advice & kSlowlogTune) {
    *report +=
        "- Your current Slow Log configuration only logs events that are slower than your "
        "configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than " +
        threshold_us + "'.\n";
  }
  if (advice & kSlowlogInspect) {
    *report +=
        "- Check your Slow Log to understand what are the commands you are running which are too "
        "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n";
  }
  if (advice & kScheduler) {
    *report +=
        "- The system is slow to execute Redis code paths not containing system calls. This "
        "usually means the system does not provide Redis CPU time to run for long periods. You "
        "should try to:\n"
        "  1) Lower the system load.\n"
        "  2) Use a computer / VM just for Redis if you are running other software in the same "
        "system.\n"
        "  3) Check if you have a \"noisy neighbour\" problem.\n"
        "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in "
        "your system.\n"
        "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if "
        "you are using Jemalloc. However this may create fragmentation problems.\n";
  }
  if (advice & kLocalDisk) {
    *report +=
        "- It is strongly advised to use local disks for persistence, especially if you are "
        "using AOF. Remote disks provided by platform-as-a-service providers are known to be "
        "slow.\n";
  }
  if (advice & kSsd) {
    *report +=
        "- SSD disks are able to reduce fsync latency, and total time needed for snapshotting "
        "and AOF log rewriting (resulting in smaller memory usage). With extremely high write "
        "load SSD disks can be a good option. However Redis should perform reasonably with high "
        "load using normal disks. Use this advice as a last resort.\n";
  }
  if (advice & kDataWriteback) {
    *report +=
        "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost "
        "compared to data=ordered, however this mode of operation provides less guarantees, and "
        "sometimes it can happen that after a hard crash the AOF file will have a half-written "
        "command at the end and will require to be repaired before Redis restarts.\n";
  }
  if (advice & kDiskContention) {
    *report +=
        "- Try to lower the disk contention. This is often caused by other disk intensive "
        "processes running in the same computer (including other Redis instances).\n";
  }
  if (advice & kNoAppendfsync) {
    *report +=
        "- Assuming from the point of view of data safety this is viable in your environment, "
        "you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not "
        "be performed while there is a child rewriting the AOF file or producing an RDB file "
        "(the moment where there is high disk contention).\n";
  }
  if ((advice & kRelaxFsync) && settings.appendfsync_always) {
    *report +=
        "- Your fsync policy is set to 'always'. It is very hard to get good performances with "
        "such a setup, if possible try to relax the fsync policy to 'onesec'.\n";
  }
  if (advice & kWriteLoadInfo) {
    *report +=
        "- Latency during the AOF atomic rename operation or when the final difference is "
        "flushed to the AOF file at the end of the rewrite, sometimes is caused by very high "
        "write load, causing the AOF buffer to get very large. If possible try to send less "
        "commands to accomplish the same work, or use Lua scripts to group multiple operations "
        "into a single EVALSHA call.\n";
  }
  if ((advice & kHz) && settings.hz < 100) {
    *report +=
        "- In order to make the Redis keys expiring process more incremental, try to set the "
        "'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n";
  }
  if (advice & kLargeObjects) {
    *report +=
        "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
        "blocking operation. If you have very large objects that are often deleted, expired, or "
        "evicted, try to fragment those objects into multiple smaller objects.\n";
  }
  if (advice & kMassEviction) {
    *report +=
        "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large "
        "objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster "
        "large keys migrations (RESTORE command), may create sudden memory pressure forcing the "
        "server to block trying to evict keys. \n";
  }
}

}  // namespace

std::string LatencyDoctorReport(const LatencyMonitor& monitor,
                                const LatencyDoctorSettings& settings, int64_t now_s) {
  if (monitor.events().empty() && settings.latency_monitor_threshold_ms == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a look "
           "at https://redis.io/topics/latency-monitor.\n";
  }
  std::string report;
  uint32_t advice = 0;
  int advice_count = 0;
  int event_number = 0;
  for (const auto& [event, series] : monitor.events()) {
    event_number++;
    if (event_number == 1) {
      report +=
          "Dave, I have observed latency spikes in this Redis instance. You don't mind talking "
          "about it, do you Dave?\n\n";
    }
    const EventStats stats = Analyze(series, now_s);
    char line[512];
    std::snprintf(line, sizeof(line),
                  "%d. %s: %lld latency spikes (average %lldms, mean deviation %lldms, period "
                  "%.2f sec). Worst all time event %lldms.",
                  event_number, event.c_str(), static_cast<long long>(stats.samples),
                  static_cast<long long>(stats.average_ms),
                  static_cast<long long>(stats.mean_deviation_ms),
                  stats.samples == 0
                      ? 0.0
                      : static_cast<double>(stats.period_s) / static_cast<double>(stats.samples),
                  static_cast<long long>(series.max_ms));
    report += line;
    report += '\n';
    advice |= AdviceFor(event, settings, &advice_count);
  }
  if (event_number == 0 && advice_count == 0) {
    report +=
        "Dave, no latency spike was observed during the lifetime of this Redis instance, not in "
        "the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, "
        "and think things over.\n";
  } else if (advice_count == 0) {
    report +=
        "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please "
        "use the Redis community to get some help, providing this report in your help "
        "request.\n";
  } else {
    report += "\nI have a few advices for you:\n\n";
    AppendAdvice(&report, advice, settings);
  }
  return report;
}

namespace {

constexpr int kGraphColumns = 80;
constexpr int kGraphRows = 4;
// Redis's sparkline characters with SPARKLINE_FILL, low to high within a row; a column whose
// value lies above a row is filled with '|'.
constexpr std::string_view kFillCharacters = "_o#";

struct GraphSample {
  int64_t value = 0;
  std::string label;
};

// One band of at most kGraphColumns samples (Redis's sparklineRenderRange with SPARKLINE_FILL):
// kGraphRows rows of the sparkline, a blank line, then the labels written downwards.
void RenderBand(std::string* output, const std::vector<GraphSample>& samples, size_t offset,
                size_t length, int64_t min, int64_t max) {
  const int charset = static_cast<int>(kFillCharacters.size());
  const int steps = charset * kGraphRows;
  const double range = max == min ? 1.0 : static_cast<double>(max - min);
  std::string line;
  for (int row = 0;; row++) {
    line.assign(length, ' ');
    bool more = false;
    for (size_t j = 0; j < length; j++) {
      const GraphSample& sample = samples[offset + j];
      if (row < kGraphRows) {
        more = true;
        // Redis truncates the scaled value to an integer before dividing by the range.
        const auto scaled = static_cast<int>(static_cast<double>(sample.value - min) * steps);
        int step = static_cast<int>(scaled / range);
        step = std::clamp(step, 0, steps - 1);
        const int index = step - (kGraphRows - row - 1) * charset;
        if (index >= 0 && index < charset) {
          line[j] = kFillCharacters[static_cast<size_t>(index)];
        } else if (index >= charset) {
          line[j] = '|';
        }
      } else if (row == kGraphRows) {
        more = true;  // the margin between the sparkline and the labels
        break;
      } else {
        const size_t at = static_cast<size_t>(row - kGraphRows - 1);
        if (at < sample.label.size()) {
          more = true;
          line[j] = sample.label[at];
        }
      }
    }
    if (!more) break;
    *output += line;
    *output += '\n';
  }
}

}  // namespace

std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         int64_t now_s) {
  std::vector<GraphSample> samples;
  int64_t min = 0;
  int64_t max = 0;
  for (size_t j = 0; j < LatencyMonitor::kSamplesMax; j++) {
    const LatencyMonitor::Sample& sample =
        series.samples[(series.next + j) % LatencyMonitor::kSamplesMax];
    if (sample.time_s == 0) continue;
    if (samples.empty()) {
      min = max = sample.latency_ms;
    } else {
      min = std::min(min, sample.latency_ms);
      max = std::max(max, sample.latency_ms);
    }
    // How long ago, in the largest unit that fits.
    const int64_t elapsed_s = now_s - sample.time_s;
    std::string label;
    if (elapsed_s < 60) {
      label = std::to_string(elapsed_s) + "s";
    } else if (elapsed_s < 3600) {
      label = std::to_string(elapsed_s / 60) + "m";
    } else if (elapsed_s < 3600 * 24) {
      label = std::to_string(elapsed_s / 3600) + "h";
    } else {
      label = std::to_string(elapsed_s / (3600 * 24)) + "d";
    }
    samples.push_back({sample.latency_ms, std::move(label)});
  }
  std::string graph = std::string(event) + " - high " + std::to_string(max) + " ms, low " +
                      std::to_string(min) + " ms (all time high " + std::to_string(series.max_ms) +
                      " ms)\n";
  graph.append(kGraphColumns, '-');
  graph += '\n';
  for (size_t offset = 0; offset < samples.size(); offset += kGraphColumns) {
    if (offset != 0) graph += '\n';
    RenderBand(&graph, samples, offset, std::min<size_t>(kGraphColumns, samples.size() - offset),
               min, max);
  }
  return graph;
}

}  // namespace keel
