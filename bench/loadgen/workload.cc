// Commands and operation streams of keel_loadgen; see workload.h.
#include "bench/loadgen/workload.h"

#include <algorithm>
#include <cmath>

namespace keel::loadgen {
namespace {

void AppendDecimal(int64_t value, std::string* out) {
  char digits[24];
  int length = 0;
  uint64_t rest = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  do {
    digits[length++] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  } while (rest != 0);
  if (value < 0) out->push_back('-');
  while (length > 0) out->push_back(digits[--length]);
}

void AppendBulk(std::string_view text, std::string* out) {
  out->push_back('$');
  AppendDecimal(static_cast<int64_t>(text.size()), out);
  out->append("\r\n");
  out->append(text);
  out->append("\r\n");
}

}  // namespace

void AppendKey(const KeySpace& keys, int64_t id, std::string* out) {
  out->append(keys.prefix);
  char digits[24];
  int length = 0;
  auto rest = static_cast<uint64_t>(id);
  do {
    digits[length++] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  } while (rest != 0);
  for (int pad = length; pad < keys.digits; pad++) out->push_back('0');
  while (length > 0) out->push_back(digits[--length]);
}

void AppendGet(std::string_view key, std::string* out) {
  out->append("*2\r\n$3\r\nGET\r\n");
  AppendBulk(key, out);
}

void AppendSet(std::string_view key, std::string_view value, std::string* out) {
  out->append("*3\r\n$3\r\nSET\r\n");
  AppendBulk(key, out);
  AppendBulk(value, out);
}

OpStream::OpStream(const KeySpace& keys, std::string_view value, int64_t records, uint64_t seed)
    : keys_(keys),
      value_(value),
      records_(records),
      rng_(seed),
      chooser_(records > 0 ? records : 1) {}

OpStream OpStream::Insert(const KeySpace& keys, std::string_view value, int64_t records,
                          int64_t first, int64_t stride) {
  OpStream stream(keys, value, records, 0);
  stream.insert_ = true;
  stream.next_record_ = first;
  stream.stride_ = stride;
  stream.remaining_ = first < records ? (records - first + stride - 1) / stride : 0;
  return stream;
}

OpStream OpStream::Mix(const KeySpace& keys, std::string_view value, int64_t records,
                       int64_t operations, double read_proportion, bool zipfian, uint64_t seed) {
  OpStream stream(keys, value, records, seed);
  stream.remaining_ = records > 0 ? operations : 0;
  stream.read_proportion_ = read_proportion;
  stream.zipfian_ = zipfian;
  return stream;
}

OpKind OpStream::AppendNext(std::string* out) {
  remaining_--;
  key_.clear();
  if (insert_) {
    AppendKey(keys_, next_record_, &key_);
    next_record_ += stride_;
    AppendSet(key_, value_, out);
    return OpKind::kUpdate;
  }
  // The read-or-update draw comes first, then the record, as in YCSB's CoreWorkload.
  const bool read = UniformDouble(rng_) < read_proportion_;
  const int64_t record = zipfian_
                             ? chooser_.Next(rng_)
                             : static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(records_)));
  AppendKey(keys_, record, &key_);
  if (read) {
    AppendGet(key_, out);
    return OpKind::kRead;
  }
  AppendSet(key_, value_, out);
  return OpKind::kUpdate;
}

uint32_t Percentile(std::vector<uint32_t>& samples, double p) {
  if (samples.empty()) return 0;
  auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
  rank = std::clamp<size_t>(rank, 1, samples.size());
  auto nth = samples.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(samples.begin(), nth, samples.end());
  return *nth;
}

}  // namespace keel::loadgen
