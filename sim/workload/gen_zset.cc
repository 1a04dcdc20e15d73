// Commands of the sorted-set family: writes (ZADD with its options, ZINCRBY, ZREM, the
// ZREMRANGEBY* forms, pops, the STORE forms) and reads (ranks, scores, every range form, counts,
// draws, ZSCAN, the algebra) over members from a small pool (so that sets collide, empty out and
// get deleted) and now and then one longer than zset-max-listpack-value (so that skiplists
// appear); scores at Redis's edges (integers, fractions, -0, inf, texts that are not numbers) and
// ranges with exclusive bounds and the lex ends.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string RandomMember(Rng& rng) {
  static constexpr std::string_view kWords[] = {"a", "b", "c", "d", "word", "", "x y", "01"};
  if (rng.Below(40) == 0) return std::string(65, 'L') + std::to_string(rng.Below(3));
  if (rng.Below(3) == 0) return std::to_string(Between(rng, -3, 12));
  return std::string(kWords[rng.Below(std::size(kWords))]);
}

std::string RandomScore(Rng& rng) {
  static constexpr std::string_view kScores[] = {"0",   "1",    "2",    "-1",  "1.5", "-0", "0.1",
                                                 "inf", "-inf", "+inf", "1e3", "3",   "x",  "nan"};
  if (rng.Below(3) == 0) return std::to_string(Between(rng, -5, 5));
  return std::string(kScores[rng.Below(std::size(kScores))]);
}

// A score range bound: the small integers most scores are, inclusive or exclusive (so that a
// bound often equals a member's score), or an edge.
std::string RandomScoreBound(Rng& rng) {
  static constexpr std::string_view kBounds[] = {"-inf", "+inf", "(-inf", "(1.5", "(", "x"};
  switch (rng.Below(3)) {
    case 0:
      return std::to_string(Between(rng, -3, 5));
    case 1:
      return "(" + std::to_string(Between(rng, -3, 5));
    default:
      return std::string(kBounds[rng.Below(std::size(kBounds))]);
  }
}

std::string RandomLexBound(Rng& rng) {
  static constexpr std::string_view kBounds[] = {"-", "+", "[a", "(b", "[c", "(word", "[", "a"};
  return std::string(kBounds[rng.Below(std::size(kBounds))]);
}

std::string RandomIndex(Rng& rng) { return MaybeBadNumber(rng, Between(rng, -6, 6)); }

void AddPairs(Rng& rng, int count_max, std::vector<std::string>* args) {
  const int64_t count = Between(rng, 1, count_max);
  for (int64_t i = 0; i < count; i++) {
    args->push_back(RandomScore(rng));
    args->push_back(RandomMember(rng));
  }
}

void AddZadd(Rng& rng, const std::string& key, std::vector<std::string>* args) {
  *args = {RandomCase(rng, "zadd"), key};
  static constexpr std::string_view kFlags[] = {"nx", "xx", "gt", "lt", "ch", "incr"};
  for (int i = 0; i < 2; i++) {
    if (rng.Below(3) == 0) args->push_back(RandomCase(rng, kFlags[rng.Below(std::size(kFlags))]));
  }
  AddPairs(rng, rng.Below(3) == 0 ? 1 : 4, args);
}

void AddRange(Rng& rng, const KeySpace& space, bool store, std::vector<std::string>* args) {
  const int kind = static_cast<int>(rng.Below(3));
  if (store) {
    *args = {RandomCase(rng, "zrangestore"), RandomKey(rng, space), RandomKey(rng, space)};
  } else {
    *args = {RandomCase(rng, "zrange"), RandomKey(rng, space)};
  }
  if (kind == 0) {
    args->push_back(RandomIndex(rng));
    args->push_back(RandomIndex(rng));
  } else if (kind == 1) {
    args->push_back(RandomScoreBound(rng));
    args->push_back(RandomScoreBound(rng));
    args->push_back(RandomCase(rng, "byscore"));
  } else {
    args->push_back(RandomLexBound(rng));
    args->push_back(RandomLexBound(rng));
    args->push_back(RandomCase(rng, "bylex"));
  }
  if (rng.Below(3) == 0) args->push_back(RandomCase(rng, "rev"));
  if (rng.Below(3) == 0) {
    args->push_back(RandomCase(rng, "limit"));
    args->push_back(MaybeBadNumber(rng, Between(rng, -1, 3)));
    args->push_back(MaybeBadNumber(rng, Between(rng, -1, 3)));
  }
  if (!store && rng.Below(2) == 0) args->push_back(RandomCase(rng, "withscores"));
}

void AddOlderRange(Rng& rng, const std::string& key, std::vector<std::string>* args) {
  static constexpr std::string_view kNames[] = {"zrangebyscore",  "zrevrangebyscore", "zrangebylex",
                                                "zrevrangebylex", "zrevrange",        "zcount",
                                                "zlexcount"};
  const std::string_view name = kNames[rng.Below(std::size(kNames))];
  *args = {RandomCase(rng, name), key};
  const bool lex = name.find("lex") != std::string_view::npos;
  if (name == "zrevrange") {
    args->push_back(RandomIndex(rng));
    args->push_back(RandomIndex(rng));
  } else {
    args->push_back(lex ? RandomLexBound(rng) : RandomScoreBound(rng));
    args->push_back(lex ? RandomLexBound(rng) : RandomScoreBound(rng));
  }
  if (name == "zcount" || name == "zlexcount") return;
  if (!lex && rng.Below(2) == 0) args->push_back(RandomCase(rng, "withscores"));
  if (name != "zrevrange" && rng.Below(3) == 0) {
    args->push_back(RandomCase(rng, "limit"));
    args->push_back(MaybeBadNumber(rng, Between(rng, -1, 3)));
    args->push_back(MaybeBadNumber(rng, Between(rng, -1, 3)));
  }
}

void AddAlgebra(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  static constexpr std::string_view kNames[] = {
      "zinter", "zunion", "zdiff", "zinterstore", "zunionstore", "zdiffstore", "zintercard"};
  const std::string_view name = kNames[rng.Below(std::size(kNames))];
  const bool store = name.find("store") != std::string_view::npos;
  *args = {RandomCase(rng, name)};
  if (store) args->push_back(RandomKey(rng, space));
  const int64_t keys = Between(rng, 1, 3);
  args->push_back(MaybeBadNumber(rng, keys));
  for (int64_t i = 0; i < keys; i++) args->push_back(RandomKey(rng, space));
  if (name == "zintercard") {
    if (rng.Below(2) == 0) {
      args->push_back(RandomCase(rng, "limit"));
      args->push_back(MaybeBadNumber(rng, Between(rng, 0, 3)));
    }
    return;
  }
  if (name != "zdiff" && name != "zdiffstore" && rng.Below(3) == 0) {
    args->push_back(RandomCase(rng, "weights"));
    for (int64_t i = 0; i < keys; i++) args->push_back(RandomScore(rng));
  }
  if (name != "zdiff" && name != "zdiffstore" && rng.Below(3) == 0) {
    static constexpr std::string_view kAggregates[] = {"sum", "min", "max", "avg"};
    args->push_back(RandomCase(rng, "aggregate"));
    args->push_back(RandomCase(rng, kAggregates[rng.Below(std::size(kAggregates))]));
  }
  if (!store && rng.Below(2) == 0) args->push_back(RandomCase(rng, "withscores"));
}

}  // namespace

namespace {

// Two sorted sets that are mostly empty, as priority queues are: the blocking pops wait on them,
// and ZADDs to them (now and then) serve the waiters. Now and then the list family's queues
// instead, where a list waiter and a sorted-set waiter meet on one key.
std::string QueueKey(Rng& rng) {
  return (rng.Below(4) == 0 ? "q" : "zq") + std::to_string(rng.Below(2));
}

void AddBlocking(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  const int64_t keys = Between(rng, 1, 3);
  const auto add_keys = [&] {
    for (int64_t i = 0; i < keys; i++) {
      args->push_back(rng.Below(3) == 0 ? RandomKey(rng, space) : QueueKey(rng));
    }
  };
  if (rng.Below(3) != 0) {
    *args = {RandomCase(rng, rng.Below(2) ? "bzpopmin" : "bzpopmax")};
    add_keys();
    args->push_back(BlockTimeout(rng));
    return;
  }
  *args = {RandomCase(rng, "bzmpop"), BlockTimeout(rng),
           MaybeBadNumber(rng, rng.Below(20) == 0 ? 0 : keys)};
  add_keys();
  args->push_back(RandomCase(rng, rng.Below(2) ? "min" : "max"));
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "count"));
    args->push_back(MaybeBadNumber(rng, Between(rng, 0, 4)));
  }
}

}  // namespace

void GenerateZsetFamily(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const std::string key = RandomKey(rng, space);
  switch (rng.Below(22)) {
    case 0:
    case 1:
    case 2:
    case 3:
      AddZadd(rng, rng.Below(4) == 0 ? QueueKey(rng) : key, args);
      break;
    case 20:
    case 21:
      AddBlocking(rng, space, args);
      break;
    case 4:
      *args = {RandomCase(rng, "zincrby"), key, RandomScore(rng), RandomMember(rng)};
      break;
    case 5: {
      *args = {RandomCase(rng, "zrem"), key};
      const int64_t count = Between(rng, 1, 3);
      for (int64_t i = 0; i < count; i++) args->push_back(RandomMember(rng));
      break;
    }
    case 6: {
      static constexpr std::string_view kNames[] = {"zcard", "zscore", "zrank", "zrevrank"};
      const std::string_view name = kNames[rng.Below(std::size(kNames))];
      *args = {RandomCase(rng, name), key};
      if (name != "zcard") args->push_back(RandomMember(rng));
      break;
    }
    case 7:
      *args = {RandomCase(rng, "zmscore"), key, RandomMember(rng), RandomMember(rng)};
      break;
    case 8:
    case 9:
      AddRange(rng, space, false, args);
      break;
    case 10:
      AddRange(rng, space, true, args);
      break;
    case 11:
    case 12:
      AddOlderRange(rng, key, args);
      break;
    case 13: {
      static constexpr std::string_view kNames[] = {"zremrangebyrank", "zremrangebyscore",
                                                    "zremrangebylex"};
      const size_t which = rng.Below(std::size(kNames));
      *args = {RandomCase(rng, kNames[which]), key};
      for (int i = 0; i < 2; i++) {
        args->push_back(which == 0   ? RandomIndex(rng)
                        : which == 1 ? RandomScoreBound(rng)
                                     : RandomLexBound(rng));
      }
      break;
    }
    case 14:
      *args = {RandomCase(rng, rng.Below(2) ? "zpopmin" : "zpopmax"), key};
      if (rng.Below(2) == 0) args->push_back(MaybeBadNumber(rng, Between(rng, -1, 4)));
      break;
    case 15: {
      const int64_t keys = Between(rng, 1, 3);
      *args = {RandomCase(rng, "zmpop"), MaybeBadNumber(rng, keys)};
      for (int64_t i = 0; i < keys; i++) args->push_back(RandomKey(rng, space));
      args->push_back(RandomCase(rng, rng.Below(2) ? "min" : "max"));
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "count"));
        args->push_back(MaybeBadNumber(rng, Between(rng, 0, 4)));
      }
      break;
    }
    case 16:
      *args = {RandomCase(rng, "zrandmember"), key};
      if (rng.Below(3) != 0) {
        static constexpr int64_t kCounts[] = {0, 1, 2, 3, 5, 20, -1, -3, -20};
        args->push_back(MaybeBadNumber(rng, kCounts[rng.Below(std::size(kCounts))]));
        if (rng.Below(2) == 0) args->push_back(RandomCase(rng, "withscores"));
      }
      break;
    case 17:
    case 18:
      AddAlgebra(rng, space, args);
      break;
    default: {
      static constexpr std::string_view kCursors[] = {"0", "0", "0", "12345", "x"};
      *args = {RandomCase(rng, "zscan"), key,
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
