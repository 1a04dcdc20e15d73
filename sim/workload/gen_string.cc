// Commands of the string family: GET and SET with every option, SETNX, SETEX, PSETEX, GETEX,
// GETDEL, GETSET, MGET, MSET, MSETNX, APPEND, STRLEN, GETRANGE, SUBSTR, SETRANGE and LCS, mostly
// valid.
#include <climits>

#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

// An expiry option and its argument, around the current time: relative ones of a few ms to a
// few seconds, absolute ones from just past to a few seconds ahead (so some land exactly on the
// millisecond a later command runs), and now and then an invalid or overflowing value.
void AddExpiry(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  switch (rng.Below(4)) {
    case 0:
      args->push_back(RandomCase(rng, "PX"));
      args->push_back(MaybeBadNumber(rng, Between(rng, 1, 300)));
      break;
    case 1:
      args->push_back(RandomCase(rng, "EX"));
      args->push_back(MaybeBadNumber(rng, Between(rng, 1, 3)));
      break;
    case 2:
      args->push_back(RandomCase(rng, "PXAT"));
      args->push_back(MaybeBadNumber(rng, space.now_ms + Between(rng, -20, 300)));
      break;
    default:
      args->push_back(RandomCase(rng, "EXAT"));
      args->push_back(MaybeBadNumber(rng, space.now_ms / 1000 + Between(rng, 0, 3)));
      break;
  }
  if (rng.Below(60) == 0) {
    // Edges: zero, negative, and values whose sum with the clock overflows.
    static constexpr int64_t kEdges[] = {0, -1, LLONG_MAX / 1000, LLONG_MAX - 5, LLONG_MAX};
    args->back() = std::to_string(kEdges[rng.Below(std::size(kEdges))]);
  }
}

void GenerateSet(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->push_back(RandomCase(rng, "set"));
  args->push_back(RandomKey(rng, space));
  args->push_back(RandomStoredValue(rng, space));
  const uint64_t options = rng.Below(4);  // most SETs carry at most one or two options
  for (uint64_t i = 0; i < options; i++) {
    switch (rng.Below(7)) {
      case 0:
        args->push_back(RandomCase(rng, "NX"));
        break;
      case 1:
        args->push_back(RandomCase(rng, "XX"));
        break;
      case 2:
        args->push_back(RandomCase(rng, "GET"));
        break;
      case 3:
        args->push_back(RandomCase(rng, "KEEPTTL"));
        break;
      case 4:
        if (rng.Below(20) == 0) {
          args->push_back(rng.Below(2) == 0 ? "EX" : "BOGUS");  // missing argument, or unknown
          break;
        }
        [[fallthrough]];
      default:
        AddExpiry(rng, space, args);
        break;
    }
  }
}

// GETEX key [EX|PX|EXAT|PXAT n | PERSIST], now and then two options (a syntax error unless they
// are the same form).
void GenerateGetex(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  *args = {RandomCase(rng, "getex"), RandomKey(rng, space)};
  const uint64_t options = rng.Below(8) == 0 ? 2 : rng.Below(2);
  for (uint64_t i = 0; i < options; i++) {
    if (rng.Below(4) == 0) {
      args->push_back(RandomCase(rng, "PERSIST"));
    } else {
      AddExpiry(rng, space, args);
    }
  }
}

// A small patch or tail: APPEND and SETRANGE grow values, and LCS's table grows with them.
std::string SmallValue(Rng& rng) {
  static constexpr std::string_view kValues[] = {"", "Z", "xyz", "12", "a\r\n", "0"};
  return std::string(kValues[rng.Below(std::size(kValues))]);
}

void GenerateOther(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  const std::string key = RandomKey(rng, space);
  switch (rng.Below(13)) {
    case 0:
      *args = {RandomCase(rng, "setnx"), key, RandomStoredValue(rng, space)};
      break;
    case 1: {
      const bool ms = rng.Below(2) == 0;
      const int64_t amount = ms ? Between(rng, 1, 300) : Between(rng, 1, 3);
      *args = {RandomCase(rng, ms ? "psetex" : "setex"), key,
               MaybeBadNumber(rng, rng.Below(30) == 0 ? -amount : amount),
               RandomStoredValue(rng, space)};
      break;
    }
    case 2:
      GenerateGetex(rng, space, args);
      break;
    case 3:
      *args = {RandomCase(rng, "getdel"), key};
      break;
    case 4:
      *args = {RandomCase(rng, "getset"), key, RandomStoredValue(rng, space)};
      break;
    case 5:
      *args = {RandomCase(rng, "mget")};
      AddKeys(rng, space, 4, args);
      break;
    case 6: {
      *args = {RandomCase(rng, rng.Below(2) == 0 ? "mset" : "msetnx")};
      const uint64_t pairs = 1 + rng.Below(3);
      for (uint64_t i = 0; i < pairs; i++) {
        args->push_back(RandomKey(rng, space));
        args->push_back(RandomStoredValue(rng, space));
      }
      if (rng.Below(40) == 0) args->pop_back();  // unpaired: the arity error
      break;
    }
    case 7:
      *args = {RandomCase(rng, "append"), key, SmallValue(rng)};
      break;
    case 8:
      *args = {RandomCase(rng, "strlen"), key};
      break;
    case 9:
      *args = {RandomCase(rng, rng.Below(4) == 0 ? "substr" : "getrange"), key,
               MaybeBadNumber(rng, Between(rng, -6, 6)),
               MaybeBadNumber(rng, rng.Below(8) == 0 ? INT64_MAX : Between(rng, -50, 50))};
      break;
    case 10:
      *args = {RandomCase(rng, "setrange"), key, MaybeBadNumber(rng, Between(rng, -1, 12)),
               SmallValue(rng)};
      break;
    default:
      // LCS only while values stay small: its table is |a| * |b| cells, in the engine and the
      // model alike.
      if (space.large_value_per_million != 0 || space.value_bytes_max > 200) {
        *args = {RandomCase(rng, "strlen"), key};
        break;
      }
      *args = {RandomCase(rng, "lcs"), key, RandomKey(rng, space)};
      switch (rng.Below(6)) {
        case 0:
          args->push_back(RandomCase(rng, "LEN"));
          break;
        case 1:
          args->push_back(RandomCase(rng, "IDX"));
          if (rng.Below(2) == 0) {
            args->push_back(RandomCase(rng, "MINMATCHLEN"));
            args->push_back(MaybeBadNumber(rng, Between(rng, -1, 3)));
          }
          if (rng.Below(2) == 0) args->push_back(RandomCase(rng, "WITHMATCHLEN"));
          break;
        case 2:
          if (rng.Below(4) == 0) args->insert(args->end(), {"LEN", "IDX"});  // refused together
          break;
        default:
          break;
      }
      break;
  }
}

}  // namespace

void GenerateString(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(10);
  if (pick < 3) {
    args->push_back(RandomCase(rng, "get"));
    args->push_back(RandomKey(rng, space));
    if (rng.Below(100) == 0) args->push_back("extra");  // arity error
    return;
  }
  if (pick < 6) {
    GenerateSet(rng, space, args);
    return;
  }
  GenerateOther(rng, space, args);
}

}  // namespace keel::workload
