// What keel_loadgen sends: RESP commands for GET and SET of numbered keys, and the stream of
// operations of one connection (a mass insertion of records, or a seeded YCSB-like mix of reads
// and updates over Zipfian-chosen records). No sockets here, so all of it is unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/loadgen/zipfian.h"
#include "engine/base/rng.h"

namespace keel::loadgen {

struct KeySpace {
  std::string prefix = "key:";  // redis-benchmark's -r keys are "key:" and 12 digits
  int digits = 12;              // the number is zero-padded to this width
};

// Appends `prefix` and `id` zero-padded to `digits` (more digits if the id needs them).
void AppendKey(const KeySpace& keys, int64_t id, std::string* out);

// Appends the RESP2 multibulk encoding of GET key / SET key value.
void AppendGet(std::string_view key, std::string* out);
void AppendSet(std::string_view key, std::string_view value, std::string* out);

enum class OpKind { kRead, kUpdate };

// The operations one connection sends, in order.
class OpStream {
 public:
  OpStream() : OpStream(KeySpace{}, "", 0, 0) {}  // no operations
  // A mass insertion: SET of records first, first + stride, first + 2 * stride, ... below
  // `records`, each with `value`.
  static OpStream Insert(const KeySpace& keys, std::string_view value, int64_t records,
                         int64_t first, int64_t stride);
  // `operations` operations over records [0, records): a read (GET) with probability
  // `read_proportion`, else an update (SET of `value`); records chosen by YCSB's scrambled
  // Zipfian (`zipfian`) or uniformly. The sequence depends only on the arguments.
  static OpStream Mix(const KeySpace& keys, std::string_view value, int64_t records,
                      int64_t operations, double read_proportion, bool zipfian, uint64_t seed);

  bool Done() const { return remaining_ == 0; }
  int64_t remaining() const { return remaining_; }
  // Appends the next operation's command to `out` and says what it was. Requires !Done().
  OpKind AppendNext(std::string* out);

 private:
  OpStream(const KeySpace& keys, std::string_view value, int64_t records, uint64_t seed);

  KeySpace keys_;
  std::string value_;
  int64_t records_;
  int64_t remaining_ = 0;
  // Insert
  bool insert_ = false;
  int64_t next_record_ = 0;
  int64_t stride_ = 1;
  // Mix
  double read_proportion_ = 0;
  bool zipfian_ = true;
  Rng rng_;
  ScrambledZipfianGenerator chooser_;
  std::string key_;  // scratch
};

// The nearest-rank percentile (0 < p <= 1) of `samples`, which it reorders; 0 when empty.
uint32_t Percentile(std::vector<uint32_t>& samples, double p);

}  // namespace keel::loadgen
