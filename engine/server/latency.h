// Latency records: per-command latency histograms (INFO latencystats, LATENCY HISTOGRAM) and the
// latency monitor's event time series (LATENCY LATEST / HISTORY / RESET).
//
// LatencyHistogram is a log-linear histogram laid out as HdrHistogram lays out Redis's
// (hdr_init(1, 1000000000, 2)): values in nanoseconds from 1 to 1 s, 256 linear sub-buckets per
// power of two, so every value is kept to two significant digits. Keeping Redis's layout is what
// makes the numbers Keel reports fall on the same bucket edges as Redis's ("p50=1.003" for a 1 µs
// command, "16" in a LATENCY HISTOGRAM for 16 µs); the memory is fixed, kCountsLength counters.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace keel {

class LatencyHistogram {
 public:
  // Redis's LATENCY_HISTOGRAM_MIN_VALUE / MAX_VALUE / PRECISION: recorded values are clamped to
  // [1 ns, 1 s], so a command slower than a second counts as taking a second.
  static constexpr int64_t kValueMinNs = 1;
  static constexpr int64_t kValueMaxNs = 1'000'000'000;
  // Two significant digits: 2 * 10^2 = 200 values at unit resolution need 256 sub-buckets.
  static constexpr int kSubBucketHalfCountMagnitude = 7;
  static constexpr int64_t kSubBucketCount = int64_t{1} << (kSubBucketHalfCountMagnitude + 1);
  static constexpr int64_t kSubBucketHalfCount = kSubBucketCount / 2;
  // Buckets needed so that 256 << (buckets - 1) > 1e9: 23, plus one half-bucket of headroom.
  static constexpr int kBucketCount = 23;
  static constexpr size_t kCountsLength = (kBucketCount + 1) * kSubBucketHalfCount;

  // Records one duration, clamped to [kValueMinNs, kValueMaxNs].
  void Record(int64_t duration_ns);

  uint64_t total_count() const { return total_count_; }

  // The value at `percentile` (0..100) as HdrHistogram's hdr_value_at_percentile reports it: the
  // highest value equivalent to the bucket holding that rank (the lowest for percentile 0).
  int64_t ValueAtPercentile(double percentile) const;

  // LATENCY HISTOGRAM's cumulative distribution: (microseconds, cumulative count) at reporting
  // levels 1024 ns, 2048 ns, ... (hdr_iter_log_init(1024, 2)), only where the count grew. The
  // microseconds are the highest equivalent value of the bucket where each level was crossed,
  // divided by 1000, quirks included (a sample above 2^29 ns is reported at 1073741 µs).
  std::vector<std::pair<int64_t, uint64_t>> CumulativeDistribution() const;

  // Bucket arithmetic, exposed for tests.
  static size_t IndexOf(int64_t value);
  static int64_t ValueAtIndex(size_t index);
  static int64_t LowestEquivalent(int64_t value);
  static int64_t HighestEquivalent(int64_t value);

 private:
  std::array<uint64_t, kCountsLength> counts_{};
  uint64_t total_count_ = 0;
};

// The latency monitor (Redis's latency.c): for each event name, the last kSamplesMax samples,
// one per second at most (a later sample in the same second keeps the larger latency), and the
// largest latency ever seen. Samples are in milliseconds, times in Unix seconds.
class LatencyMonitor {
 public:
  // Redis's LATENCY_TS_LEN.
  static constexpr size_t kSamplesMax = 160;
  // Event names come from the engine (command, fast-command, expire-cycle, ...), never from
  // clients, so their number is small; this bounds it anyway.
  static constexpr size_t kEventsMax = 64;

  struct Sample {
    int64_t time_s = 0;  // 0: unused slot
    int64_t latency_ms = 0;
  };
  struct Series {
    std::array<Sample, kSamplesMax> samples{};
    size_t next = 0;  // where the next sample goes
    int64_t max_ms = 0;
    const Sample& latest() const { return samples[(next + kSamplesMax - 1) % kSamplesMax]; }
  };

  void AddSample(std::string_view event, int64_t now_s, int64_t latency_ms);
  // Forgets one event (returns 1 when it existed) or all of them (returns how many there were).
  int64_t Reset(std::string_view event);
  int64_t ResetAll();
  const Series* Find(std::string_view event) const;
  const std::map<std::string, Series, std::less<>>& events() const { return events_; }

 private:
  std::map<std::string, Series, std::less<>> events_;
};

}  // namespace keel
