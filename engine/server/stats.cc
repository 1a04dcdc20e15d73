#include "engine/server/stats.h"

namespace keel {

void ServerStats::RateSampler::Sample(int64_t now_ms, uint64_t value) {
  const int64_t elapsed_ms = now_ms - last_time_ms;
  const uint64_t delta = value - last_value;
  // The first sample only anchors; a clock that went backwards yields no rate.
  if (last_time_ms != 0 && elapsed_ms > 0) {
    samples[index] = static_cast<int64_t>(delta * 1000 / static_cast<uint64_t>(elapsed_ms));
    index = (index + 1) % kSamples;
  }
  last_time_ms = now_ms;
  last_value = value;
}

int64_t ServerStats::RateSampler::PerSecond() const {
  int64_t sum = 0;
  for (int64_t sample : samples) sum += sample;
  return sum / kSamples;
}

}  // namespace keel
