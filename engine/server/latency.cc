#include "engine/server/latency.h"

#include <algorithm>
#include <bit>

#include "engine/base/assert.h"

namespace keel {
namespace {

// HdrHistogram's bucket of a value: bucket b holds [128 << b, 256 << b) at resolution 2^b, and
// bucket 0 also holds [0, 128) at resolution 1.
int BucketOf(int64_t value) {
  const auto bits = static_cast<uint64_t>(value) | (LatencyHistogram::kSubBucketCount - 1);
  const int pow2_ceiling = 64 - std::countl_zero(bits);
  return pow2_ceiling - (LatencyHistogram::kSubBucketHalfCountMagnitude + 1);
}

}  // namespace

size_t LatencyHistogram::IndexOf(int64_t value) {
  KEEL_DASSERT(value >= 0);
  const int bucket = BucketOf(value);
  const int64_t sub_bucket = value >> bucket;
  return static_cast<size_t>(((int64_t{bucket} + 1) << kSubBucketHalfCountMagnitude) +
                             (sub_bucket - kSubBucketHalfCount));
}

int64_t LatencyHistogram::ValueAtIndex(size_t index) {
  int64_t bucket = static_cast<int64_t>(index >> kSubBucketHalfCountMagnitude) - 1;
  int64_t sub_bucket =
      static_cast<int64_t>(index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
  if (bucket < 0) {
    sub_bucket -= kSubBucketHalfCount;
    bucket = 0;
  }
  return sub_bucket << bucket;
}

int64_t LatencyHistogram::LowestEquivalent(int64_t value) {
  const int bucket = BucketOf(value);
  return (value >> bucket) << bucket;
}

int64_t LatencyHistogram::HighestEquivalent(int64_t value) {
  const int bucket = BucketOf(value);
  const int64_t sub_bucket = value >> bucket;
  const int range_bucket = sub_bucket >= kSubBucketCount ? bucket + 1 : bucket;
  return LowestEquivalent(value) + (int64_t{1} << range_bucket) - 1;
}

void LatencyHistogram::Record(int64_t duration_ns) {
  const int64_t value = std::clamp(duration_ns, kValueMinNs, kValueMaxNs);
  const size_t index = IndexOf(value);
  KEEL_DASSERT(index < kCountsLength);
  counts_[index]++;
  total_count_++;
}

int64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  const double requested = percentile < 100.0 ? percentile : 100.0;
  auto rank = static_cast<uint64_t>((requested / 100) * static_cast<double>(total_count_) + 0.5);
  if (rank < 1) rank = 1;
  uint64_t cumulative = 0;
  for (size_t index = 0; index < kCountsLength; index++) {
    cumulative += counts_[index];
    if (cumulative >= rank) {
      const int64_t value = ValueAtIndex(index);
      return percentile == 0.0 ? LowestEquivalent(value) : HighestEquivalent(value);
    }
  }
  return 0;
}

std::vector<std::pair<int64_t, uint64_t>> LatencyHistogram::CumulativeDistribution() const {
  // HdrHistogram's logarithmic iterator, step by step: walk the counters one index at a time and
  // report each time the walk reaches a reporting level (1024 ns, doubling); past the last
  // counter, report once more from where the walk stopped.
  std::vector<std::pair<int64_t, uint64_t>> points;
  int64_t index = -1;
  uint64_t cumulative = 0;
  int64_t value = 0;
  int64_t level = 1024;
  int64_t level_lowest = LowestEquivalent(level);
  uint64_t reported = 0;
  auto report = [&] {
    if (cumulative > reported) {
      points.emplace_back(index >= 0 ? HighestEquivalent(value) / 1000 : 0, cumulative);
    }
    reported = cumulative;
  };
  while (cumulative < total_count_ || ValueAtIndex(static_cast<size_t>(index + 1)) > level_lowest) {
    bool ran_off_end = false;
    while (value < level_lowest) {
      if (index + 1 >= static_cast<int64_t>(kCountsLength)) {
        ran_off_end = true;
        break;
      }
      index++;
      cumulative += counts_[static_cast<size_t>(index)];
      value = ValueAtIndex(static_cast<size_t>(index));
    }
    report();
    // Past the last counter the iterator reports once more and then stops.
    if (ran_off_end) break;
    level *= 2;
    level_lowest = LowestEquivalent(level);
  }
  return points;
}

void LatencyMonitor::AddSample(std::string_view event, int64_t now_s, int64_t latency_ms) {
  auto it = events_.find(event);
  if (it == events_.end()) {
    if (events_.size() >= kEventsMax) return;
    it = events_.emplace(std::string(event), Series()).first;
  }
  Series& series = it->second;
  series.max_ms = std::max(series.max_ms, latency_ms);
  // One sample per second: a later one in the same second only raises it.
  Sample& previous = series.samples[(series.next + kSamplesMax - 1) % kSamplesMax];
  if (previous.time_s == now_s) {
    previous.latency_ms = std::max(previous.latency_ms, latency_ms);
    return;
  }
  series.samples[series.next] = {now_s, latency_ms};
  series.next = (series.next + 1) % kSamplesMax;
}

int64_t LatencyMonitor::Reset(std::string_view event) {
  auto it = events_.find(event);
  if (it == events_.end()) return 0;
  events_.erase(it);
  return 1;
}

int64_t LatencyMonitor::ResetAll() {
  const auto count = static_cast<int64_t>(events_.size());
  events_.clear();
  return count;
}

const LatencyMonitor::Series* LatencyMonitor::Find(std::string_view event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

}  // namespace keel
