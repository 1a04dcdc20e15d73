// Commands of the set family: writes (SADD, SREM, SMOVE, SPOP, the STORE forms) and reads
// (SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, SRANDMEMBER, SSCAN, SINTER, SINTERCARD, SUNION,
// SDIFF) over members drawn from a small pool of integers and words, so that sets collide,
// convert from intset to hashtable, empty out and get deleted; counts at Redis's case edges
// (negative, zero, one, around the set's size) and now and then one that is not a number.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string RandomMember(Rng& rng) {
  static constexpr std::string_view kWords[] = {"a", "b", "c", "word", "", "x y", "01", "-0"};
  if (rng.Below(2) == 0) return std::to_string(Between(rng, -3, 12));
  return std::string(kWords[rng.Below(std::size(kWords))]);
}

void AddMembers(Rng& rng, int count_max, std::vector<std::string>* args) {
  const int64_t count = Between(rng, 1, count_max);
  for (int64_t i = 0; i < count; i++) args->push_back(RandomMember(rng));
}

std::string RandomCount(Rng& rng) {
  static constexpr int64_t kCounts[] = {0, 1, 2, 3, 5, 8, 20, -1, -3, -20};
  return MaybeBadNumber(rng, kCounts[rng.Below(std::size(kCounts))]);
}

}  // namespace

void GenerateSetFamily(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const std::string key = RandomKey(rng, space);
  switch (rng.Below(16)) {
    case 0:
    case 1:
    case 2:
      *args = {RandomCase(rng, "sadd"), key};
      AddMembers(rng, 6, args);
      break;
    case 3:
      *args = {RandomCase(rng, "srem"), key};
      AddMembers(rng, 4, args);
      break;
    case 4:
      *args = {RandomCase(rng, rng.Below(2) ? "scard" : "smembers"), key};
      break;
    case 5:
      *args = {RandomCase(rng, "sismember"), key, RandomMember(rng)};
      break;
    case 6:
      *args = {RandomCase(rng, "smismember"), key};
      AddMembers(rng, 3, args);
      break;
    case 7:
      *args = {RandomCase(rng, "smove"), key, RandomKey(rng, space), RandomMember(rng)};
      break;
    case 8:
      *args = {RandomCase(rng, "srandmember"), key};
      if (rng.Below(4) != 0) args->push_back(RandomCount(rng));
      break;
    case 9:
      *args = {RandomCase(rng, "spop"), key};
      if (rng.Below(2) != 0) args->push_back(RandomCount(rng));
      break;
    case 10: {
      static constexpr std::string_view kReads[] = {"sinter", "sunion", "sdiff"};
      *args = {RandomCase(rng, kReads[rng.Below(std::size(kReads))]), key};
      AddKeys(rng, space, 3, args);
      break;
    }
    case 11:
    case 12: {
      static constexpr std::string_view kStores[] = {"sinterstore", "sunionstore", "sdiffstore"};
      *args = {RandomCase(rng, kStores[rng.Below(std::size(kStores))]), key};
      AddKeys(rng, space, 3, args);
      break;
    }
    case 13: {
      const int64_t keys = Between(rng, 1, 3);
      *args = {RandomCase(rng, "sintercard"), MaybeBadNumber(rng, keys)};
      for (int64_t i = 0; i < keys; i++) args->push_back(RandomKey(rng, space));
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "limit"));
        args->push_back(MaybeBadNumber(rng, Between(rng, 0, 4)));
      }
      break;
    }
    default: {
      static constexpr std::string_view kCursors[] = {"0", "0", "0", "12345", "x"};
      *args = {RandomCase(rng, "sscan"), key,
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
