// Sorted-set ranges: ZRANGE (by rank, BYSCORE, BYLEX, REV, LIMIT, WITHSCORES), ZRANGESTORE, the
// older ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX and ZREVRANGE, ZCOUNT,
// ZLEXCOUNT and ZREMRANGEBYRANK/SCORE/LEX, as t_zset.c's zrangeGenericCommand and
// zremrangeGenericCommand parse and answer them.
//
// A range is a span of ranks [first, end). Scores are in order in both encodings. Members are in
// order only when the scores are equal (the lex commands' premise), and then a lex span is found
// by binary search. With mixed scores it is found by Redis's listpack walks (linear), in either
// encoding: a listpack then answers as Redis does, and a skiplist as a listpack would (Redis's own
// skiplist answer depends on its random levels, so there is nothing to match).
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/cmd_zset_common.h"

namespace keel {
namespace {

enum class RangeType : uint8_t { kAuto, kRank, kScore, kLex };
enum class Direction : uint8_t { kAuto, kForward, kReverse };

struct Span {
  size_t first = 0;
  size_t end = 0;  // exclusive
  size_t size() const { return end > first ? end - first : 0; }
};

Span ScoreSpan(const ZsetValue& zset, const ScoreRange& range) {
  if (range.Empty()) return {};
  Span span;
  span.first = zset.CountScoreBelow(range.min, range.min_exclusive);
  span.end = zset.CountScoreBelow(range.max, !range.max_exclusive);
  return span;
}

size_t LexBelow(const ZsetValue& zset, LexRange::End end, std::string_view value, bool exclusive) {
  if (end == LexRange::End::kMinusInfinity) return 0;
  if (end == LexRange::End::kPlusInfinity) return zset.size();
  return zset.CountLexBelow(value, exclusive);
}

// The span a lex range covers walking forward (`reverse` false: the first member above the
// minimum, then on while below the maximum) or backward (the last member below the maximum,
// then back while above the minimum).
// LIMIT offset count applied to `span` walked forward or backward: Redis walks `offset` members
// (a negative one walks off the end) and then takes up to `limit` (negative: all).
Span ApplyLimit(Span span, int64_t offset, int64_t limit, bool reverse) {
  if (offset < 0) return {};
  const size_t size = span.size();
  const size_t skip = static_cast<uint64_t>(offset) >= size ? size : static_cast<size_t>(offset);
  size_t take = size - skip;
  if (limit >= 0 && static_cast<uint64_t>(limit) < take) take = static_cast<size_t>(limit);
  if (reverse) return {span.end - skip - take, span.end - skip};
  return {span.first + skip, span.first + skip + take};
}

// The span a lex range with LIMIT offset count covers (offset 0 and count -1: the whole range).
// With one score, members are in order and the span is found by binary search. Otherwise it is
// Redis's listpack walk: the first member above the minimum (walking forward; backward, the last
// below the maximum), then `offset` members skipped whatever they are, then members taken while
// below the maximum (above the minimum).
Span LexSpan(const ZsetValue& zset, const LexRange& range, bool reverse, int64_t offset = 0,
             int64_t limit = -1) {
  if (range.Empty() || zset.size() == 0 || offset < 0) return {};
  double lowest = 0;
  double highest = 0;
  zset.ForRange(0, 1, false, [&](std::string_view, double score) { lowest = score; });
  zset.ForRange(0, 1, true, [&](std::string_view, double score) { highest = score; });
  if (lowest == highest) {
    Span span;
    span.first = LexBelow(zset, range.min_end, range.min, range.min_exclusive);
    span.end = LexBelow(zset, range.max_end, range.max, !range.max_exclusive);
    return ApplyLimit(span, offset, limit, reverse);
  }
  std::vector<std::string> members;
  zset.ForEach([&](std::string_view member, double) { members.emplace_back(member); });
  const size_t size = members.size();
  if (size == 0) return {};
  // zzlIsInLexRange: the last member must be above the minimum, the first below the maximum.
  if (!range.AboveMin(members[size - 1]) || !range.BelowMax(members[0])) return {};
  const auto skip = static_cast<uint64_t>(offset);
  auto taking = [&](size_t taken) { return limit < 0 || taken < static_cast<uint64_t>(limit); };
  if (!reverse) {
    size_t first = 0;
    while (first < size && !range.AboveMin(members[first])) first++;
    if (first == size || !range.BelowMax(members[first]) || skip >= size - first) return {};
    size_t end = first + static_cast<size_t>(skip);
    const size_t start = end;
    while (end < size && range.BelowMax(members[end]) && taking(end - start)) end++;
    return {start, end};
  }
  size_t last = size;  // one past
  while (last > 0 && !range.BelowMax(members[last - 1])) last--;
  if (last == 0 || !range.AboveMin(members[last - 1]) || skip >= last) return {};
  size_t first = last - static_cast<size_t>(skip);
  const size_t stop = first;
  while (first > 0 && range.AboveMin(members[first - 1]) && taking(stop - first)) first--;
  return {first, stop};
}

// Where a range's result goes: the client, or ZRANGESTORE's destination.
class RangeSink {
 public:
  RangeSink(CommandContext& context, bool store, bool with_scores)
      : context_(context), store_(store), reply_(context, with_scores) {}

  // Emits ranks [span.first, span.end) of `zset` in `reverse` order or not.
  void Emit(const ZsetValue* zset, Span span, bool reverse) {
    const size_t count = zset == nullptr ? 0 : span.size();
    if (!store_) {
      reply_.Header(count);
      if (count == 0) return;
      const size_t start = reverse ? zset->size() - span.end : span.first;
      zset->ForRange(start, count, reverse,
                     [&](std::string_view member, double score) { reply_.Pair(member, score); });
      return;
    }
    const std::string_view destination = context_.arg(1);
    if (count == 0) {
      StoreEmptyResult(context_, destination);
      return;
    }
    MemoryAccountant& memory = ZsetMemory(context_);
    const ZsetValue::Limits limits = ZsetLimits(context_);
    ZsetValue* result = ZsetValue::CreateListpack(memory, NewZsetSeed(context_));
    bool refused = result == nullptr;
    if (!refused) {
      zset->ForRange(span.first, count, false, [&](std::string_view member, double score) {
        if (!refused) {
          refused =
              result->Set(member, score, limits, memory) == ZsetValue::SetOutcome::kOutOfMemory;
        }
      });
    }
    if (refused) {
      ZsetValue::Destroy(result, memory);
      context_.reply.Error(errors::kOom);
      return;
    }
    if (StoreZset(context_, destination, result, zset_events::kZrangestore)) {
      context_.reply.Integer(static_cast<int64_t>(count));
    }
  }

 private:
  CommandContext& context_;
  bool store_;
  PairReply reply_;
};

// zrangeGenericCommand: the source key is args[first], its range args[first + 1, first + 2],
// options after them.
void RangeGeneric(CommandContext& context, size_t first, bool store, RangeType type,
                  Direction direction) {
  bool with_scores = false;
  int64_t offset = 0;
  int64_t limit = -1;
  for (size_t i = first + 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const size_t left = context.argc() - i - 1;
    if (!store && OptionIs(option, "withscores")) {
      with_scores = true;
    } else if (OptionIs(option, "limit") && left >= 2) {
      if (!ParseLongArg(context, context.arg(i + 1), &offset) ||
          !ParseLongArg(context, context.arg(i + 2), &limit)) {
        return;
      }
      i += 2;
    } else if (direction == Direction::kAuto && OptionIs(option, "rev")) {
      direction = Direction::kReverse;
    } else if (type == RangeType::kAuto && OptionIs(option, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && OptionIs(option, "byscore")) {
      type = RangeType::kScore;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (direction == Direction::kAuto) direction = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  if (limit != -1 && type == RangeType::kRank) {
    context.reply.Error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return;
  }
  if (with_scores && type == RangeType::kLex) {
    context.reply.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return;
  }
  const bool reverse = direction == Direction::kReverse;
  // BYSCORE and BYLEX take their range as max, min when reversed.
  std::string_view low = context.arg(first + 1);
  std::string_view high = context.arg(first + 2);
  if (reverse && type != RangeType::kRank) std::swap(low, high);
  int64_t start = 0;
  int64_t stop = 0;
  ScoreRange scores;
  LexRange lex;
  if (type == RangeType::kRank) {
    if (!ParseLongArg(context, low, &start) || !ParseLongArg(context, high, &stop)) return;
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(low, high, &scores)) {
      context.reply.Error(zset_errors::kRangeNotFloat);
      return;
    }
  } else if (!ParseLexRange(low, high, &lex)) {
    context.reply.Error(zset_errors::kLexRange);
    return;
  }
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(first), &zset)) return;
  RangeSink sink(context, store, with_scores || store);
  if (zset == nullptr) {
    sink.Emit(nullptr, {}, reverse);
    return;
  }
  const auto size = static_cast<int64_t>(zset->size());
  Span span;
  if (type == RangeType::kRank) {
    if (start < 0) start += size;
    if (stop < 0) stop += size;
    if (start < 0) start = 0;
    if (start <= stop && start < size) {
      if (stop >= size) stop = size - 1;
      // Ranks count from the end when reversed.
      span = reverse ? Span{static_cast<size_t>(size - 1 - stop), static_cast<size_t>(size - start)}
                     : Span{static_cast<size_t>(start), static_cast<size_t>(stop + 1)};
    }
  } else if (offset > 0 && offset >= size) {
    // genericZrangeby*Command: an offset past the end answers at once.
  } else {
    span = type == RangeType::kScore ? ApplyLimit(ScoreSpan(*zset, scores), offset, limit, reverse)
                                     : LexSpan(*zset, lex, reverse, offset, limit);
  }
  sink.Emit(zset, span, reverse);
}

void CmdZrange(CommandContext& context) {
  RangeGeneric(context, 1, false, RangeType::kAuto, Direction::kAuto);
}
void CmdZrangestore(CommandContext& context) {
  RangeGeneric(context, 2, true, RangeType::kAuto, Direction::kAuto);
}
void CmdZrangebyscore(CommandContext& context) {
  RangeGeneric(context, 1, false, RangeType::kScore, Direction::kForward);
}
void CmdZrevrangebyscore(CommandContext& context) {
  RangeGeneric(context, 1, false, RangeType::kScore, Direction::kReverse);
}
void CmdZrangebylex(CommandContext& context) {
  RangeGeneric(context, 1, false, RangeType::kLex, Direction::kForward);
}
void CmdZrevrangebylex(CommandContext& context) {
  RangeGeneric(context, 1, false, RangeType::kLex, Direction::kReverse);
}
void CmdZrevrange(CommandContext& context) {
  RangeGeneric(context, 1, false, RangeType::kRank, Direction::kReverse);
}

// ZCOUNT key min max
void CmdZcount(CommandContext& context) {
  ScoreRange range;
  if (!ParseScoreRange(context.arg(2), context.arg(3), &range)) {
    context.reply.Error(zset_errors::kRangeNotFloat);
    return;
  }
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  context.reply.Integer(zset == nullptr ? 0 : static_cast<int64_t>(ScoreSpan(*zset, range).size()));
}

// ZLEXCOUNT key min max
void CmdZlexcount(CommandContext& context) {
  LexRange range;
  if (!ParseLexRange(context.arg(2), context.arg(3), &range)) {
    context.reply.Error(zset_errors::kLexRange);
    return;
  }
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  context.reply.Integer(
      zset == nullptr ? 0 : static_cast<int64_t>(LexSpan(*zset, range, false).size()));
}

// zremrangeGenericCommand: the range is parsed before the key is looked up.
void RemoveRange(CommandContext& context, RangeType type) {
  int64_t start = 0;
  int64_t stop = 0;
  ScoreRange scores;
  LexRange lex;
  if (type == RangeType::kRank) {
    if (!ParseLongArg(context, context.arg(2), &start) ||
        !ParseLongArg(context, context.arg(3), &stop)) {
      return;
    }
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(context.arg(2), context.arg(3), &scores)) {
      context.reply.Error(zset_errors::kRangeNotFloat);
      return;
    }
  } else if (!ParseLexRange(context.arg(2), context.arg(3), &lex)) {
    context.reply.Error(zset_errors::kLexRange);
    return;
  }
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = context.keyspace.LookupWrite(db, key, hash);
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  if (entry->type() != ValueType::kZSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  ZsetValue& zset = MutableZsetOf(*entry);
  const auto size = static_cast<int64_t>(zset.size());
  Span span;
  KeyEvent event = zset_events::kZremrangebyrank;
  if (type == RangeType::kRank) {
    if (start < 0) start += size;
    if (stop < 0) stop += size;
    if (start < 0) start = 0;
    if (start <= stop && start < size) {
      if (stop >= size) stop = size - 1;
      span = {static_cast<size_t>(start), static_cast<size_t>(stop + 1)};
    }
  } else if (type == RangeType::kScore) {
    span = ScoreSpan(zset, scores);
    event = zset_events::kZremrangebyscore;
  } else {
    span = LexSpan(zset, lex, false);
    event = zset_events::kZremrangebylex;
  }
  std::vector<std::string> doomed;
  doomed.reserve(span.size());
  zset.ForRange(span.first, span.size(), false,
                [&](std::string_view member, double) { doomed.emplace_back(member); });
  for (const std::string& member : doomed) zset.Remove(member, ZsetMemory(context));
  if (!doomed.empty()) {
    context.keyspace.KeyChanged(db, key, event, doomed.size());
    if (zset.size() == 0) context.keyspace.DeleteEmptied(db, key, hash);
  }
  context.reply.Integer(static_cast<int64_t>(doomed.size()));
}

void CmdZremrangebyrank(CommandContext& context) { RemoveRange(context, RangeType::kRank); }
void CmdZremrangebyscore(CommandContext& context) { RemoveRange(context, RangeType::kScore); }
void CmdZremrangebylex(CommandContext& context) { RemoveRange(context, RangeType::kLex); }

constexpr CommandDef kZsetRangeCommands[] = {
    {.name = "zrange",
     .arity = -4,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the "
                   "number of elements returned.",
     .summary = "Return a range of members in a sorted set",
     .args = "key:key#0 start stop ?sortby:oneof@6.2.0{byscore=BYSCORE bylex=BYLEX} "
             "?rev=REV@6.2.0 ?offset_count:block=LIMIT@6.2.0{offset:integer count:integer} "
             "?withscores=WITHSCORES",
     .handler = CmdZrange,
     .history = "6.2.0 Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."},
    {.name = "zrangestore",
     .arity = -5,
     .flags = "write denyoom",
     .acl = "@sortedset",
     .keys = "OW update: index 1 range 0 1 0;RO access: index 2 range 0 1 0",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the "
                   "number of elements stored into the destination key.",
     .summary = "Store a range of members from sorted set into another key",
     .args = "dst:key#0 src:key#1 min max ?sortby:oneof{byscore=BYSCORE bylex=BYLEX} ?rev=REV "
             "?offset_count:block=LIMIT{offset:integer count:integer}",
     .handler = CmdZrangestore},
    {.name = "zrangebyscore",
     .arity = -4,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.0.5",
     .complexity =
         "O(log(N)+M) with N being the number of elements in the sorted set and M the "
         "number of elements being returned. If M is constant (e.g. always asking for the "
         "first 10 elements with LIMIT), you can consider it O(log(N)).",
     .summary = "Return a range of members in a sorted set, by score",
     .args = "key:key#0 min:double max:double ?withscores=WITHSCORES@2.0.0 "
             "?offset_count:block=LIMIT{offset:integer count:integer}",
     .handler = CmdZrangebyscore,
     .history = "2.0.0 Added the `WITHSCORES` modifier.",
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `BYSCORE` argument"},
    {.name = "zrevrangebyscore",
     .arity = -4,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.2.0",
     .complexity =
         "O(log(N)+M) with N being the number of elements in the sorted set and M the "
         "number of elements being returned. If M is constant (e.g. always asking for the "
         "first 10 elements with LIMIT), you can consider it O(log(N)).",
     .summary = "Return a range of members in a sorted set, by score, with scores ordered from "
                "high to low",
     .args = "key:key#0 max:double min:double ?withscores=WITHSCORES "
             "?offset_count:block=LIMIT{offset:integer count:integer}",
     .handler = CmdZrevrangebyscore,
     .history = "2.1.6 `min` and `max` can be exclusive.",
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `REV` and `BYSCORE` arguments"},
    {.name = "zrangebylex",
     .arity = -4,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.8.9",
     .complexity =
         "O(log(N)+M) with N being the number of elements in the sorted set and M the "
         "number of elements being returned. If M is constant (e.g. always asking for the "
         "first 10 elements with LIMIT), you can consider it O(log(N)).",
     .summary = "Return a range of members in a sorted set, by lexicographical range",
     .args = "key:key#0 min max ?offset_count:block=LIMIT{offset:integer count:integer}",
     .handler = CmdZrangebylex,
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `BYLEX` argument"},
    {.name = "zrevrangebylex",
     .arity = -4,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.8.9",
     .complexity =
         "O(log(N)+M) with N being the number of elements in the sorted set and M the "
         "number of elements being returned. If M is constant (e.g. always asking for the "
         "first 10 elements with LIMIT), you can consider it O(log(N)).",
     .summary = "Return a range of members in a sorted set, by lexicographical range, ordered "
                "from higher to lower strings.",
     .args = "key:key#0 max min ?offset_count:block=LIMIT{offset:integer count:integer}",
     .handler = CmdZrevrangebylex,
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `REV` and `BYLEX` arguments"},
    {.name = "zrevrange",
     .arity = -4,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the "
                   "number of elements returned.",
     .summary = "Return a range of members in a sorted set, by index, with scores ordered from "
                "high to low",
     .args = "key:key#0 start:integer stop:integer ?withscores=WITHSCORES",
     .handler = CmdZrevrange,
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `REV` argument"},
    {.name = "zcount",
     .arity = 4,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.0.0",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .summary = "Count the members in a sorted set with scores within the given values",
     .args = "key:key#0 min:double max:double",
     .handler = CmdZcount},
    {.name = "zlexcount",
     .arity = 4,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.8.9",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .summary = "Count the number of members in a sorted set between a given lexicographical range",
     .args = "key:key#0 min max",
     .handler = CmdZlexcount},
    {.name = "zremrangebyrank",
     .arity = 4,
     .flags = "write",
     .acl = "@sortedset",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.0.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the "
                   "number of elements removed by the operation.",
     .summary = "Remove all members in a sorted set within the given indexes",
     .args = "key:key#0 start:integer stop:integer",
     .handler = CmdZremrangebyrank},
    {.name = "zremrangebyscore",
     .arity = 4,
     .flags = "write",
     .acl = "@sortedset",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the "
                   "number of elements removed by the operation.",
     .summary = "Remove all members in a sorted set within the given scores",
     .args = "key:key#0 min:double max:double",
     .handler = CmdZremrangebyscore},
    {.name = "zremrangebylex",
     .arity = 4,
     .flags = "write",
     .acl = "@sortedset",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.8.9",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the "
                   "number of elements removed by the operation.",
     .summary = "Remove all members in a sorted set between the given lexicographical range",
     .args = "key:key#0 min max",
     .handler = CmdZremrangebylex},
};

}  // namespace

void RegisterZsetRangeCommands(Registry& registry) { registry.Add(kZsetRangeCommands); }

}  // namespace keel
