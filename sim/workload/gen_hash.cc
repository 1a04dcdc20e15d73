// Commands of the hash family: writes (HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT) and
// reads (HGET, HMGET, HLEN, HSTRLEN, HEXISTS, HKEYS, HVALS, HGETALL, HRANDFIELD, HSCAN) over
// fields drawn from a small pool, so that hashes collide, empty out and get deleted; values long
// enough now and then to convert a listpack (more than 64 bytes), and rarely a burst of fields
// from a wide pool that takes one past 512 fields; numbers for the counters, good and bad.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string RandomField(Rng& rng) {
  static constexpr std::string_view kFields[] = {"a", "b", "c", "name", "", "x y", "01", "n"};
  if (rng.Below(3) == 0) return "f" + std::to_string(rng.Below(12));
  return std::string(kFields[rng.Below(std::size(kFields))]);
}

std::string RandomHashValue(Rng& rng, const KeySpace& space) {
  static constexpr std::string_view kNumbers[] = {"0",   "7",   "-3", "007", "9223372036854775807",
                                                  "1.5", "1e3", " 1", "-0",  "abc"};
  switch (rng.Below(8)) {
    case 0:
    case 1:
      return std::string(kNumbers[rng.Below(std::size(kNumbers))]);
    case 2:
      if (rng.Below(4) == 0) return std::string(65 + rng.Below(20), 'L');
      return std::string(rng.Below(66), 'v');
    default:
      return RandomValue(rng, space).substr(0, 32);
  }
}

void AddPairs(Rng& rng, const KeySpace& space, int count_max, std::vector<std::string>* args) {
  // Rarely a burst from a wide pool, which grows a hash past hash-max-listpack-entries.
  if (rng.Below(40) == 0) {
    for (int i = 0; i < 120; i++) {
      args->push_back("w" + std::to_string(rng.Below(700)));
      args->push_back(std::to_string(i));
    }
    return;
  }
  const int64_t count = Between(rng, 1, count_max);
  for (int64_t i = 0; i < count; i++) {
    args->push_back(RandomField(rng));
    args->push_back(RandomHashValue(rng, space));
  }
}

void AddFields(Rng& rng, int count_max, std::vector<std::string>* args) {
  const int64_t count = Between(rng, 1, count_max);
  for (int64_t i = 0; i < count; i++) args->push_back(RandomField(rng));
}

std::string RandomCount(Rng& rng) {
  static constexpr int64_t kCounts[] = {0, 1, 2, 3, 5, 8, 20, -1, -3, -20};
  return MaybeBadNumber(rng, kCounts[rng.Below(std::size(kCounts))]);
}

}  // namespace

void GenerateHashFamily(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const std::string key = RandomKey(rng, space);
  switch (rng.Below(16)) {
    case 0:
    case 1:
    case 2:
      *args = {RandomCase(rng, rng.Below(5) == 0 ? "hmset" : "hset"), key};
      AddPairs(rng, space, 4, args);
      // Now and then a field without its value (the arity error).
      if (rng.Below(30) == 0) args->push_back(RandomField(rng));
      break;
    case 3:
      *args = {RandomCase(rng, "hsetnx"), key, RandomField(rng), RandomHashValue(rng, space)};
      break;
    case 4:
      *args = {RandomCase(rng, "hdel"), key};
      AddFields(rng, 4, args);
      break;
    case 5: {
      static constexpr std::string_view kOne[] = {"hget", "hstrlen", "hexists"};
      *args = {RandomCase(rng, kOne[rng.Below(std::size(kOne))]), key, RandomField(rng)};
      break;
    }
    case 6:
      *args = {RandomCase(rng, "hmget"), key};
      AddFields(rng, 3, args);
      break;
    case 7: {
      static constexpr std::string_view kAll[] = {"hlen", "hkeys", "hvals", "hgetall"};
      *args = {RandomCase(rng, kAll[rng.Below(std::size(kAll))]), key};
      break;
    }
    case 8:
    case 9:
      *args = {RandomCase(rng, "hincrby"), key, RandomField(rng),
               MaybeBadNumber(rng, Between(rng, -5, 5))};
      break;
    case 10: {
      static constexpr std::string_view kIncrements[] = {"1.5", "-0.25", "3", "1e3", "x", "inf"};
      *args = {RandomCase(rng, "hincrbyfloat"), key, RandomField(rng),
               std::string(kIncrements[rng.Below(std::size(kIncrements))])};
      break;
    }
    case 11:
    case 12:
      *args = {RandomCase(rng, "hrandfield"), key};
      if (rng.Below(4) != 0) {
        args->push_back(RandomCount(rng));
        if (rng.Below(2) == 0) args->push_back(RandomCase(rng, "withvalues"));
      }
      break;
    default: {
      static constexpr std::string_view kCursors[] = {"0", "0", "0", "12345", "x"};
      *args = {RandomCase(rng, "hscan"), key,
               std::string(kCursors[rng.Below(std::size(kCursors))])};
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "count"));
        args->push_back(MaybeBadNumber(rng, Between(rng, 1, 5)));
      }
      if (rng.Below(3) == 0) {
        args->push_back(RandomCase(rng, "match"));
        args->push_back(rng.Below(2) ? "*" : "[a-c]*");
      }
      break;
    }
  }
}

}  // namespace keel::workload
