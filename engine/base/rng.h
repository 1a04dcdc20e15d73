// Rng: the engine's fast pseudo-random generator (xoshiro256**), seeded once from the
// environment's entropy, so a simulated run is reproducible from its seed and the request path
// never calls into the environment for randomness.
#pragma once

#include <cstdint>

namespace keel {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    // splitmix64 expands one seed into the four words of state (never all zero).
    for (uint64_t& word : state_) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      word = z ^ (z >> 31);
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotate(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotate(state_[3], 45);
    return result;
  }

  // Uniform in [0, bound) for bound > 0 (Lemire's multiply-shift; the bias is below 2^-64*bound).
  uint64_t Below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<__uint128_t>(Next()) * bound) >> 64);
  }

 private:
  static uint64_t Rotate(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace keel
