// Key choosers of the YCSB kind, so that keel_loadgen's workloads A, B and C pick keys as YCSB's
// core workloads do (requestdistribution=zipfian): a Zipfian over a very large item space,
// scrambled by FNV-1a onto the records so that the hot keys are spread over the keyspace.
// Deterministic: the same seed gives the same sequence on every machine.
#pragma once

#include <cstdint>

#include "engine/base/rng.h"

namespace keel::loadgen {

// Uniform double in [0, 1) from 53 random bits.
double UniformDouble(Rng& rng);

// YCSB's fnvhash64 (FNV-1a over the 8 little-endian bytes of `value`, then the absolute value of
// the result read as a signed 64-bit number).
int64_t FnvHash64(int64_t value);

// Gray et al.'s Zipfian generator ("Quickly generating billion-record synthetic databases"), as
// YCSB's ZipfianGenerator implements it: item i in [0, items) has probability proportional to
// 1 / (i + 1)^theta. `zeta_n` is the zeta constant of (items, theta), passed in because computing
// it takes O(items) time.
class ZipfianGenerator {
 public:
  ZipfianGenerator(int64_t items, double theta, double zeta_n);
  int64_t Next(Rng& rng) const;

  // zeta(n, theta) = sum over i in [1, n] of 1 / i^theta, in O(n): for tests and small spaces.
  static double Zeta(int64_t n, double theta);

 private:
  int64_t items_;
  double theta_;
  double zeta_n_;
  double alpha_;
  double eta_;
  double half_pow_theta_;
};

// YCSB's ScrambledZipfianGenerator: a Zipfian over 10^10 items with theta 0.99, each item hashed
// onto [0, records). The hottest record gets about 1/26.5 (3.8%) of the choices.
class ScrambledZipfianGenerator {
 public:
  explicit ScrambledZipfianGenerator(int64_t records);
  int64_t Next(Rng& rng) const;

  static constexpr int64_t kItemCount = 10'000'000'000LL;
  static constexpr double kTheta = 0.99;
  static constexpr double kZetaN = 26.46902820178302;  // zeta(10^10, 0.99), YCSB's constant

 private:
  int64_t records_;
  ZipfianGenerator zipfian_;
};

}  // namespace keel::loadgen
