// YCSB's key choosers in C++; see zipfian.h.
#include "bench/loadgen/zipfian.h"

#include <cmath>
#include <cstdlib>

namespace keel::loadgen {

double UniformDouble(Rng& rng) { return static_cast<double>(rng.Next() >> 11) * 0x1.0p-53; }

int64_t FnvHash64(int64_t value) {
  // YCSB computes this on Java longs: wrapping arithmetic, then Math.abs.
  uint64_t hash = 0xCBF29CE484222325ull;
  uint64_t rest = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; i++) {
    hash ^= rest & 0xff;
    rest >>= 8;
    hash *= 1099511628211ull;
  }
  const auto signed_hash = static_cast<int64_t>(hash);
  // Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE in Java; returning 0 keeps the result in range.
  if (signed_hash == INT64_MIN) return 0;
  return std::llabs(signed_hash);
}

ZipfianGenerator::ZipfianGenerator(int64_t items, double theta, double zeta_n)
    : items_(items), theta_(theta), zeta_n_(zeta_n) {
  const double zeta_2 = 1.0 + std::pow(0.5, theta);
  alpha_ = 1.0 / (1.0 - theta);
  eta_ = (1.0 - std::pow(2.0 / static_cast<double>(items), 1.0 - theta)) / (1.0 - zeta_2 / zeta_n);
  half_pow_theta_ = std::pow(0.5, theta);
}

int64_t ZipfianGenerator::Next(Rng& rng) const {
  const double u = UniformDouble(rng);
  const double uz = u * zeta_n_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return 1;
  const auto item =
      static_cast<int64_t>(static_cast<double>(items_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  // Rounding can land exactly on items_ for u close to 1.
  return item < items_ ? item : items_ - 1;
}

double ZipfianGenerator::Zeta(int64_t n, double theta) {
  double sum = 0;
  for (int64_t i = 1; i <= n; i++) sum += 1.0 / std::pow(static_cast<double>(i), theta);
  return sum;
}

ScrambledZipfianGenerator::ScrambledZipfianGenerator(int64_t records)
    : records_(records), zipfian_(kItemCount, kTheta, kZetaN) {}

int64_t ScrambledZipfianGenerator::Next(Rng& rng) const {
  return FnvHash64(zipfian_.Next(rng)) % records_;
}

}  // namespace keel::loadgen
