// The sorted-set family in the model: every non-blocking command of Redis 7.0's t_zset.c, written
// from its rules over a std::map of member -> score (the order, by score then member bytes, is
// computed when asked for).
//
// Encodings: a sorted set is a listpack while it has at most 128 members none longer than 64
// bytes (zset-max-listpack-*, which the workload leaves alone), and once a skiplist stays one;
// results built anew (the STORE forms) are listpacks when they fit.
//
// Lex ranges are Redis's listpack walks (the first member above the minimum, then on while
// below the maximum; backwards from the last below the maximum for the REV forms), which is what
// Redis answers when the scores are mixed in a listpack and the plain lex order when they are
// equal. Random draws (ZRANDMEMBER) are bounds: members of the set, of the right number, distinct
// when the count is positive.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "sim/model/model.h"

namespace keel::model {
namespace {

using Pairs = std::vector<std::pair<std::string, double>>;

constexpr size_t kListpackEntries = 128;
constexpr size_t kListpackValue = 64;

Value NewZset(Encoding encoding) {
  Value value;
  value.type = ValueType::kZSet;
  value.encoding = encoding;
  return value;
}

// The members in Redis's order.
Pairs Ordered(const Value& value) {
  Pairs pairs(value.zset.begin(), value.zset.end());
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
  return pairs;
}

bool Fits(const Value& value) {
  if (value.zset.size() > kListpackEntries) return false;
  return std::all_of(value.zset.begin(), value.zset.end(),
                     [](const auto& pair) { return pair.first.size() <= kListpackValue; });
}

// A listpack holds an integral score as an integer entry, so -0 comes back as 0.
double Stored(const Value& value, double score) {
  return value.encoding == Encoding::kListpack && score == 0 ? 0.0 : score;
}

// zsetAdd's insertion of a new member: converts first when the member passes the limits.
void Insert(Value& value, const std::string& member, double score) {
  if (value.encoding == Encoding::kListpack &&
      (value.zset.size() + 1 > kListpackEntries || member.size() > kListpackValue)) {
    value.encoding = Encoding::kSkiplist;
  }
  value.zset[member] = Stored(value, score);
}

// "%.17g", with inf and -inf as Redis spells them.
std::string ScoreText(double score) {
  if (std::isinf(score)) return score > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof(text), "%.17g", score);
  return text;
}

// A score as a listpack entry holds it: an integer when integral within LLONG_MAX / 2.
std::string ListpackText(double score) {
  const double bound = static_cast<double>(INT64_MAX / 2);
  if (score >= -bound && score <= bound &&
      score == static_cast<double>(static_cast<int64_t>(score))) {
    return std::to_string(static_cast<int64_t>(score));
  }
  return ScoreText(score);
}

RespValue ScoreValue(double score, int resp) {
  if (resp < 3) return RespValue::Bulk(ScoreText(score));
  RespValue value;
  value.type = RespType::kDouble;
  value.text = ScoreText(score);
  return value;
}

// A range reply: RESP2 flat (member, score, ...), RESP3 with scores nested pairs.
Expected PairsReply(const Pairs& pairs, bool with_scores, int resp) {
  std::vector<RespValue> elements;
  for (const auto& [member, score] : pairs) {
    if (with_scores && resp >= 3) {
      elements.push_back(RespValue::Array({RespValue::Bulk(member), ScoreValue(score, resp)}));
      continue;
    }
    elements.push_back(RespValue::Bulk(member));
    if (with_scores) elements.push_back(ScoreValue(score, resp));
  }
  return Array(std::move(elements));
}

bool LookupZset(Call& call, std::string_view key, Value** zset, Expected* error) {
  *zset = call.Lookup(key);
  if (*zset != nullptr && (*zset)->type != ValueType::kZSet) {
    *error = Error(kWrongType);
    return false;
  }
  return true;
}

// C's strtod over the argument up to its first NUL: the value and how many bytes it read.
double Strtod(const std::string& text, size_t* consumed, bool* range_error) {
  const std::string c_string = text.substr(0, text.find('\0'));
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(c_string.c_str(), &end);
  *range_error = errno == ERANGE;
  *consumed = static_cast<size_t>(end - c_string.c_str());
  return value;
}

// getDoubleFromObject.
bool ParseScore(const std::string& text, double* score) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  size_t consumed = 0;
  bool range_error = false;
  const double value = Strtod(text, &consumed, &range_error);
  if (consumed != text.size() || std::isnan(value)) return false;
  if (range_error && (value == HUGE_VAL || value == -HUGE_VAL || value == 0)) return false;
  *score = value;
  return true;
}

struct ScoreRange {
  double min = 0, max = 0;
  bool min_exclusive = false, max_exclusive = false;
  bool AboveMin(double s) const { return min_exclusive ? s > min : s >= min; }
  bool BelowMax(double s) const { return max_exclusive ? s < max : s <= max; }
};

// zslParseRange: "(" for exclusive, then strtod to the end of the C string.
bool ParseBound(std::string text, double* value, bool* exclusive) {
  *exclusive = !text.empty() && text[0] == '(';
  if (*exclusive) text.erase(0, 1);
  size_t consumed = 0;
  bool range_error = false;
  *value = Strtod(text, &consumed, &range_error);
  return consumed == text.substr(0, text.find('\0')).size() && !std::isnan(*value);
}

bool ParseScoreRange(const std::string& min, const std::string& max, ScoreRange* range) {
  return ParseBound(min, &range->min, &range->min_exclusive) &&
         ParseBound(max, &range->max, &range->max_exclusive);
}

struct LexBound {
  int end = 0;  // -1: "-", +1: "+", 0: a value
  std::string value;
  bool exclusive = false;
};
struct LexRange {
  LexBound min, max;
  bool AboveMin(const std::string& m) const {
    if (min.end != 0) return min.end < 0;
    return min.exclusive ? m > min.value : m >= min.value;
  }
  bool BelowMax(const std::string& m) const {
    if (max.end != 0) return max.end > 0;
    return max.exclusive ? m < max.value : m <= max.value;
  }
  bool Empty() const {
    if (min.end > 0 || max.end < 0) return true;
    if (min.end != 0 || max.end != 0) return false;
    return min.value > max.value || (min.value == max.value && (min.exclusive || max.exclusive));
  }
};

bool ParseLexBound(const std::string& text, LexBound* bound) {
  if (text.empty()) return false;
  const char next = text.size() > 1 ? text[1] : '\0';
  if (text[0] == '+' || text[0] == '-') {
    if (next != '\0') return false;
    bound->end = text[0] == '+' ? 1 : -1;
    return true;
  }
  if (text[0] != '(' && text[0] != '[') return false;
  bound->exclusive = text[0] == '(';
  bound->value = text.substr(1);
  return true;
}

// Ranks [first, end) of a score range in `pairs` (ordered).
std::pair<size_t, size_t> ScoreSpan(const Pairs& pairs, const ScoreRange& range) {
  if (range.min > range.max ||
      (range.min == range.max && (range.min_exclusive || range.max_exclusive))) {
    return {0, 0};
  }
  size_t first = 0;
  while (first < pairs.size() && !range.AboveMin(pairs[first].second)) first++;
  size_t end = first;
  while (end < pairs.size() && range.BelowMax(pairs[end].second)) end++;
  return {first, end};
}

std::pair<size_t, size_t> LexSpan(const Pairs& pairs, const LexRange& range, bool reverse) {
  if (range.Empty() || pairs.empty()) return {0, 0};
  // zzlIsInLexRange: the last member must be above the minimum, the first below the maximum.
  if (!range.AboveMin(pairs.back().first) || !range.BelowMax(pairs.front().first)) return {0, 0};
  if (!reverse) {
    size_t first = 0;
    while (first < pairs.size() && !range.AboveMin(pairs[first].first)) first++;
    size_t end = first;
    while (end < pairs.size() && range.BelowMax(pairs[end].first)) end++;
    return {first, end};
  }
  size_t end = pairs.size();
  while (end > 0 && !range.BelowMax(pairs[end - 1].first)) end--;
  size_t first = end;
  while (first > 0 && range.AboveMin(pairs[first - 1].first)) first--;
  return {first, end};
}

// Stores a built result as Redis's STORE forms do (deleting the destination when empty).
Expected StoreResult(Call& call, const std::string& destination, Value result) {
  if (result.zset.empty()) {
    call.db().erase(destination);
    return Integer(0);
  }
  result.encoding = Fits(result) ? Encoding::kListpack : Encoding::kSkiplist;
  for (auto& [member, score] : result.zset) score = Stored(result, score);
  const auto size = static_cast<int64_t>(result.zset.size());
  call.Store(destination, std::move(result));
  return Integer(size);
}

// --- ZADD, ZINCRBY ----------------------------------------------------------------------------

struct ZaddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
};

Expected ZaddGeneric(Call& call, const ZaddFlags& flags, size_t first) {
  const size_t elements = call.args.size() - first;
  if (elements == 0 || elements % 2 != 0) return Error(kSyntaxError);
  if (flags.nx && flags.xx) {
    return Error("ERR XX and NX options at the same time are not compatible");
  }
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    return Error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (flags.incr && elements > 2) {
    return Error("ERR INCR option supports a single increment-element pair");
  }
  std::vector<double> scores;
  for (size_t i = first; i < call.args.size(); i += 2) {
    double score = 0;
    if (!ParseScore(call.args[i], &score)) return Error("ERR value is not a valid float");
    scores.push_back(score);
  }
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  const bool missing = zset == nullptr;
  Value working = missing
                      ? NewZset(call.args[first + 1].size() > kListpackValue ? Encoding::kSkiplist
                                                                             : Encoding::kListpack)
                      : *zset;
  int64_t added = 0;
  int64_t updated = 0;
  bool processed = false;
  double last = 0;
  for (size_t k = 0; k < scores.size(); k++) {
    const std::string& member = call.args[first + 2 * k + 1];
    double score = scores[k];
    const auto it = working.zset.find(member);
    if (it != working.zset.end()) {
      if (flags.nx) continue;
      if (flags.incr) {
        score += it->second;
        if (std::isnan(score)) return Error("ERR resulting score is not a number (NaN)");
      }
      if ((flags.lt && score >= it->second) || (flags.gt && score <= it->second)) continue;
      processed = true;
      last = score;
      if (score != it->second) {
        it->second = Stored(working, score);
        updated++;
      }
    } else if (!flags.xx) {
      processed = true;
      last = score;
      Insert(working, member, score);
      added++;
    }
  }
  if (added + updated > 0) {
    if (call.context.allocation_refused) return Error(kOomError);
    working.expire_at_ms = missing ? kNoExpiry : zset->expire_at_ms;
    if (missing) {
      call.Store(call.args[1], std::move(working));
    } else {
      *zset = std::move(working);
    }
  }
  if (flags.incr)
    return processed ? Expected{.value = ScoreValue(last, call.session.resp)} : call.Null();
  return Integer(flags.ch ? added + updated : added);
}

Expected Zadd(Call& call) {
  ZaddFlags flags;
  size_t i = 2;
  for (; i < call.args.size(); i++) {
    const std::string& option = call.args[i];
    if (OptionIs(option, "nx")) {
      flags.nx = true;
    } else if (OptionIs(option, "xx")) {
      flags.xx = true;
    } else if (OptionIs(option, "ch")) {
      flags.ch = true;
    } else if (OptionIs(option, "incr")) {
      flags.incr = true;
    } else if (OptionIs(option, "gt")) {
      flags.gt = true;
    } else if (OptionIs(option, "lt")) {
      flags.lt = true;
    } else {
      break;
    }
  }
  return ZaddGeneric(call, flags, i);
}

Expected Zincrby(Call& call) {
  ZaddFlags flags;
  flags.incr = true;
  return ZaddGeneric(call, flags, 2);
}

// --- Reads ------------------------------------------------------------------------------------

Expected Zcard(Call& call) {
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  return Integer(zset == nullptr ? 0 : static_cast<int64_t>(zset->zset.size()));
}

Expected Zscore(Call& call) {
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr || !zset->zset.count(call.args[2])) return call.Null();
  return Expected{.value = ScoreValue(zset->zset.at(call.args[2]), call.session.resp)};
}

Expected Zmscore(Call& call) {
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  std::vector<RespValue> replies;
  for (size_t i = 2; i < call.args.size(); i++) {
    if (zset == nullptr || !zset->zset.count(call.args[i])) {
      replies.push_back(call.Null().value);
    } else {
      replies.push_back(ScoreValue(zset->zset.at(call.args[i]), call.session.resp));
    }
  }
  return Array(std::move(replies));
}

Expected RankGeneric(Call& call, bool reverse) {
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr || !zset->zset.count(call.args[2])) return call.Null();
  const Pairs pairs = Ordered(*zset);
  for (size_t i = 0; i < pairs.size(); i++) {
    if (pairs[i].first == call.args[2]) {
      return Integer(static_cast<int64_t>(reverse ? pairs.size() - 1 - i : i));
    }
  }
  return call.Null();
}

Expected Zrank(Call& call) { return RankGeneric(call, false); }
Expected Zrevrank(Call& call) { return RankGeneric(call, true); }

// --- Ranges -----------------------------------------------------------------------------------

enum class RangeType { kAuto, kRank, kScore, kLex };

Expected RangeGeneric(Call& call, size_t first, bool store, RangeType type, int direction) {
  bool with_scores = false;
  int64_t offset = 0;
  int64_t limit = -1;
  for (size_t i = first + 3; i < call.args.size(); i++) {
    const std::string& option = call.args[i];
    const size_t left = call.args.size() - i - 1;
    if (!store && OptionIs(option, "withscores")) {
      with_scores = true;
    } else if (OptionIs(option, "limit") && left >= 2) {
      if (!ParseInt64(call.args[i + 1], &offset) || !ParseInt64(call.args[i + 2], &limit)) {
        return Error(kNotInteger);
      }
      i += 2;
    } else if (direction == 0 && OptionIs(option, "rev")) {
      direction = -1;
    } else if (type == RangeType::kAuto && OptionIs(option, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && OptionIs(option, "byscore")) {
      type = RangeType::kScore;
    } else {
      return Error(kSyntaxError);
    }
  }
  if (type == RangeType::kAuto) type = RangeType::kRank;
  const bool reverse = direction < 0;
  if (limit != -1 && type == RangeType::kRank) {
    return Error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (with_scores && type == RangeType::kLex) {
    return Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  std::string low = call.args[first + 1];
  std::string high = call.args[first + 2];
  if (reverse && type != RangeType::kRank) std::swap(low, high);
  int64_t start = 0;
  int64_t stop = 0;
  ScoreRange scores;
  LexRange lex;
  if (type == RangeType::kRank) {
    if (!ParseInt64(low, &start) || !ParseInt64(high, &stop)) return Error(kNotInteger);
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(low, high, &scores)) return Error("ERR min or max is not a float");
  } else if (!ParseLexBound(low, &lex.min) || !ParseLexBound(high, &lex.max)) {
    return Error("ERR min or max not valid string range item");
  }
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[first], &zset, &error)) return error;
  const Pairs pairs = zset == nullptr ? Pairs{} : Ordered(*zset);
  const auto size = static_cast<int64_t>(pairs.size());
  size_t from = 0;
  size_t to = 0;  // ranks [from, to) in forward order
  if (type == RangeType::kRank) {
    if (start < 0) start += size;
    if (stop < 0) stop += size;
    if (start < 0) start = 0;
    if (start <= stop && start < size) {
      if (stop >= size) stop = size - 1;
      from = static_cast<size_t>(reverse ? size - 1 - stop : start);
      to = static_cast<size_t>(reverse ? size - start : stop + 1);
    }
  } else if (type == RangeType::kLex && !(offset > 0 && offset >= size)) {
    // Redis's walk: from the first member in range, `offset` members skipped whatever they
    // are, then members taken while still in range.
    const auto span = LexSpan(pairs, lex, reverse);
    const bool found = span.second > span.first;
    const auto skip = static_cast<uint64_t>(offset);
    auto taking = [&](size_t taken) { return limit < 0 || taken < static_cast<uint64_t>(limit); };
    if (offset >= 0 && found && !reverse && skip < pairs.size() - span.first) {
      from = span.first + static_cast<size_t>(skip);
      to = from;
      while (to < pairs.size() && lex.BelowMax(pairs[to].first) && taking(to - from)) to++;
    } else if (offset >= 0 && found && reverse && skip < span.second) {
      to = span.second - static_cast<size_t>(skip);
      from = to;
      while (from > 0 && lex.AboveMin(pairs[from - 1].first) && taking(to - from)) from--;
    }
  } else if (!(offset > 0 && offset >= size)) {
    auto span = ScoreSpan(pairs, scores);
    if (offset >= 0 && span.second > span.first) {
      const size_t count = span.second - span.first;
      const size_t skip = std::min<uint64_t>(static_cast<uint64_t>(offset), count);
      size_t take = count - skip;
      if (limit >= 0 && static_cast<uint64_t>(limit) < take) take = static_cast<size_t>(limit);
      from = reverse ? span.second - skip - take : span.first + skip;
      to = from + take;
    }
  }
  Pairs selected(pairs.begin() + static_cast<ptrdiff_t>(from),
                 pairs.begin() + static_cast<ptrdiff_t>(to));
  if (store) {
    if (!selected.empty() && call.context.allocation_refused) return Error(kOomError);
    Value result = NewZset(Encoding::kListpack);
    for (const auto& [member, score] : selected) result.zset[member] = score;
    return StoreResult(call, call.args[1], std::move(result));
  }
  if (reverse) std::reverse(selected.begin(), selected.end());
  return PairsReply(selected, with_scores, call.session.resp);
}

Expected Zrange(Call& call) { return RangeGeneric(call, 1, false, RangeType::kAuto, 0); }
Expected Zrangestore(Call& call) { return RangeGeneric(call, 2, true, RangeType::kAuto, 0); }
Expected Zrangebyscore(Call& call) { return RangeGeneric(call, 1, false, RangeType::kScore, 1); }
Expected Zrevrangebyscore(Call& call) {
  return RangeGeneric(call, 1, false, RangeType::kScore, -1);
}
Expected Zrangebylex(Call& call) { return RangeGeneric(call, 1, false, RangeType::kLex, 1); }
Expected Zrevrangebylex(Call& call) { return RangeGeneric(call, 1, false, RangeType::kLex, -1); }
Expected Zrevrange(Call& call) { return RangeGeneric(call, 1, false, RangeType::kRank, -1); }

Expected Zcount(Call& call) {
  ScoreRange range;
  if (!ParseScoreRange(call.args[2], call.args[3], &range)) {
    return Error("ERR min or max is not a float");
  }
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr) return Integer(0);
  const auto span = ScoreSpan(Ordered(*zset), range);
  return Integer(static_cast<int64_t>(span.second - span.first));
}

Expected Zlexcount(Call& call) {
  LexRange range;
  if (!ParseLexBound(call.args[2], &range.min) || !ParseLexBound(call.args[3], &range.max)) {
    return Error("ERR min or max not valid string range item");
  }
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr) return Integer(0);
  const auto span = LexSpan(Ordered(*zset), range, false);
  return Integer(static_cast<int64_t>(span.second - span.first));
}

// --- Removals ---------------------------------------------------------------------------------

Expected Zrem(Call& call) {
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr) return Integer(0);
  int64_t removed = 0;
  for (size_t i = 2; i < call.args.size() && !zset->zset.empty(); i++) {
    removed += static_cast<int64_t>(zset->zset.erase(call.args[i]));
  }
  if (zset->zset.empty()) call.db().erase(call.args[1]);
  return Integer(removed);
}

Expected RemoveRange(Call& call, RangeType type) {
  int64_t start = 0;
  int64_t stop = 0;
  ScoreRange scores;
  LexRange lex;
  if (type == RangeType::kRank) {
    if (!ParseInt64(call.args[2], &start) || !ParseInt64(call.args[3], &stop)) {
      return Error(kNotInteger);
    }
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(call.args[2], call.args[3], &scores)) {
      return Error("ERR min or max is not a float");
    }
  } else if (!ParseLexBound(call.args[2], &lex.min) || !ParseLexBound(call.args[3], &lex.max)) {
    return Error("ERR min or max not valid string range item");
  }
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr) return Integer(0);
  const Pairs pairs = Ordered(*zset);
  const auto size = static_cast<int64_t>(pairs.size());
  std::pair<size_t, size_t> span{0, 0};
  if (type == RangeType::kRank) {
    if (start < 0) start += size;
    if (stop < 0) stop += size;
    if (start < 0) start = 0;
    if (start <= stop && start < size) {
      if (stop >= size) stop = size - 1;
      span = {static_cast<size_t>(start), static_cast<size_t>(stop + 1)};
    }
  } else {
    span = type == RangeType::kScore ? ScoreSpan(pairs, scores) : LexSpan(pairs, lex, false);
  }
  for (size_t i = span.first; i < span.second; i++) zset->zset.erase(pairs[i].first);
  if (zset->zset.empty()) call.db().erase(call.args[1]);
  return Integer(static_cast<int64_t>(span.second > span.first ? span.second - span.first : 0));
}

Expected Zremrangebyrank(Call& call) { return RemoveRange(call, RangeType::kRank); }
Expected Zremrangebyscore(Call& call) { return RemoveRange(call, RangeType::kScore); }
Expected Zremrangebylex(Call& call) { return RemoveRange(call, RangeType::kLex); }

// --- Pops -------------------------------------------------------------------------------------

// Pops up to `count` from `key` (a sorted set), as genericZpopCommand replies.
Expected Pop(Call& call, const std::string& key, Value& zset, int64_t count, bool max, bool nested,
             bool emit_key) {
  Pairs pairs = Ordered(zset);
  if (max) std::reverse(pairs.begin(), pairs.end());
  pairs.resize(std::min<uint64_t>(pairs.size(), static_cast<uint64_t>(count)));
  for (const auto& pair : pairs) zset.zset.erase(pair.first);
  if (zset.zset.empty()) call.db().erase(key);
  std::vector<RespValue> elements;
  for (const auto& [member, score] : pairs) {
    if (nested) {
      elements.push_back(
          RespValue::Array({RespValue::Bulk(member), ScoreValue(score, call.session.resp)}));
    } else {
      elements.push_back(RespValue::Bulk(member));
      elements.push_back(ScoreValue(score, call.session.resp));
    }
  }
  if (!emit_key) return Array(std::move(elements));
  if (!nested) {  // BZPOPMIN/BZPOPMAX: key, member, score
    elements.insert(elements.begin(), RespValue::Bulk(key));
    return Array(std::move(elements));
  }
  return Array({RespValue::Bulk(key), RespValue::Array(std::move(elements))});
}

Expected PopMinMax(Call& call, bool max) {
  if (call.args.size() > 3) return Error(kSyntaxError);
  int64_t count = -1;
  if (call.args.size() == 3 && (!ParseInt64(call.args[2], &count) || count < 0)) {
    return Error("ERR value is out of range, must be positive");
  }
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr || count == 0) return Array({});
  const bool nested = call.session.resp >= 3 && count != -1;
  return Pop(call, call.args[1], *zset, count == -1 ? 1 : count, max, nested, false);
}

Expected Zpopmin(Call& call) { return PopMinMax(call, false); }
Expected Zpopmax(Call& call) { return PopMinMax(call, true); }

// ZMPOP's and BZMPOP's arguments from numkeys on; false with the error.
bool ParseZmpop(const Call& call, size_t numkeys_at, size_t* first, size_t* end, bool* max,
                int64_t* count, Expected* error) {
  int64_t keys = 0;
  if (!ParseInt64(call.args[numkeys_at], &keys) || keys < 1) {
    *error = Error("ERR numkeys should be greater than 0");
    return false;
  }
  if (keys > static_cast<int64_t>(call.args.size() - numkeys_at) - 2) {
    *error = Error(kSyntaxError);
    return false;
  }
  *first = numkeys_at + 1;
  *end = *first + static_cast<size_t>(keys);
  *max = false;
  if (OptionIs(call.args[*end], "max")) {
    *max = true;
  } else if (!OptionIs(call.args[*end], "min")) {
    *error = Error(kSyntaxError);
    return false;
  }
  *count = -1;
  for (size_t i = *end + 1; i < call.args.size(); i++) {
    if (*count == -1 && OptionIs(call.args[i], "count") && i + 1 < call.args.size()) {
      i++;
      if (!ParseInt64(call.args[i], count) || *count < 1) {
        *error = Error("ERR count should be greater than 0");
        return false;
      }
    } else {
      *error = Error(kSyntaxError);
      return false;
    }
  }
  if (*count == -1) *count = 1;
  return true;
}

Expected Zmpop(Call& call) {
  size_t first = 0;
  size_t end = 0;
  bool max = false;
  int64_t count = 0;
  Expected error;
  if (!ParseZmpop(call, 1, &first, &end, &max, &count, &error)) return error;
  for (size_t i = first; i < end; i++) {
    Value* zset = call.Lookup(call.args[i]);
    if (zset == nullptr) continue;
    if (zset->type != ValueType::kZSet) return Error(kWrongType);
    return Pop(call, call.args[i], *zset, count, max, true, true);
  }
  return NullArray(call.session.resp);
}

// --- The blocking forms: each pops at once when it can, else blocks (inside EXEC it answers as
// a timeout, a null array). A blocked command runs again when a key may serve it, and then pops
// from that key only (Context::serving_key). `count` 0 is BZPOPMIN/BZPOPMAX's single pop.
Expected BlockingPop(Call& call, size_t first, size_t end, bool max, int64_t count) {
  const std::string& serving = call.context.serving_key;
  for (size_t i = first; i < end; i++) {
    const std::string& key = call.args[i];
    if (!serving.empty() && key != serving) continue;
    Value* zset = call.Lookup(key);
    if (zset == nullptr) continue;
    if (zset->type != ValueType::kZSet) return Error(kWrongType);
    return Pop(call, key, *zset, count == 0 ? 1 : count, max, count != 0, true);
  }
  return call.context.may_block ? Blocks() : NullArray(call.session.resp);
}

Expected BzpopMinMax(Call& call, bool max) {
  Expected error;
  if (!ParseBlockTimeout(call.args.back(), &error)) return error;
  return BlockingPop(call, 1, call.args.size() - 1, max, 0);
}

Expected Bzpopmin(Call& call) { return BzpopMinMax(call, false); }
Expected Bzpopmax(Call& call) { return BzpopMinMax(call, true); }

Expected Bzmpop(Call& call) {
  size_t first = 0;
  size_t end = 0;
  bool max = false;
  int64_t count = 0;
  Expected error;
  if (!ParseZmpop(call, 2, &first, &end, &max, &count, &error)) return error;
  if (!ParseBlockTimeout(call.args[1], &error)) return error;
  return BlockingPop(call, first, end, max, count);
}

// --- ZRANDMEMBER, ZSCAN -----------------------------------------------------------------------

Expected Zrandmember(Call& call) {
  Value* zset = nullptr;
  Expected error;
  if (call.args.size() == 2) {
    if (!LookupZset(call, call.args[1], &zset, &error)) return error;
    if (zset == nullptr) return call.Null();
    std::vector<std::string> members;
    for (const auto& [member, score] : zset->zset) members.push_back(member);
    std::vector<Expected> alternatives;
    for (const std::string& member : members) alternatives.push_back(Bulk(member));
    return OneOf(std::move(alternatives));
  }
  int64_t count = 0;
  if (!ParseInt64(call.args[2], &count)) return Error(kNotInteger);
  if (count == INT64_MIN) {
    return Error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
  }
  if (call.args.size() > 4 || (call.args.size() == 4 && !OptionIs(call.args[3], "withscores"))) {
    return Error(kSyntaxError);
  }
  const bool with_scores = call.args.size() == 4;
  if (with_scores && (count < -INT64_MAX / 2 || count > INT64_MAX / 2)) {
    return Error("ERR value is out of range");
  }
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr || count == 0) return Array({});
  const auto size = static_cast<int64_t>(zset->zset.size());
  if (count >= size && count != 1) {
    // The whole set, highest first (Redis's sorted-set iterator walks from the tail).
    Pairs pairs = Ordered(*zset);
    std::reverse(pairs.begin(), pairs.end());
    return PairsReply(pairs, with_scores, call.session.resp);
  }
  std::vector<std::pair<std::string, std::string>> allowed;
  for (const auto& [member, score] : zset->zset) allowed.emplace_back(member, ScoreText(score));
  const int64_t draws = count > 0 ? count : -count;
  return PairDraws(std::move(allowed), draws, count > 0, with_scores, call.session.resp);
}

Expected Zscan(Call& call) {
  if (!ValidCursor(call.args[2])) return Error("ERR invalid cursor");
  Value* zset = nullptr;
  Expected error;
  if (!LookupZset(call, call.args[1], &zset, &error)) return error;
  if (zset == nullptr) return Array({RespValue::Bulk("0"), RespValue::Array({})});
  std::string pattern = "*";
  for (size_t i = 3; i < call.args.size(); i += 2) {
    const bool has_value = i + 1 < call.args.size();
    if (OptionIs(call.args[i], "count") && has_value) {
      int64_t count = 0;
      if (!ParseInt64(call.args[i + 1], &count)) return Error(kNotInteger);
      if (count < 1) return Error(kSyntaxError);
    } else if (OptionIs(call.args[i], "match") && has_value) {
      pattern = call.args[i + 1];
    } else {
      return Error(kSyntaxError);
    }
  }
  std::vector<std::pair<std::string, std::string>> allowed;
  for (const auto& [member, score] : Ordered(*zset)) {
    if (pattern == "*" || GlobMatch(pattern, member))
      allowed.emplace_back(member, ScoreText(score));
  }
  if (zset->encoding == Encoding::kListpack) {
    // A listpack comes back whole, in order, with cursor 0.
    std::vector<RespValue> items;
    for (const auto& [member, score] : Ordered(*zset)) {
      if (pattern != "*" && !GlobMatch(pattern, member)) continue;
      items.push_back(RespValue::Bulk(member));
      items.push_back(RespValue::Bulk(ListpackText(score)));
    }
    return Array({RespValue::Bulk("0"), RespValue::Array(std::move(items))});
  }
  return ScanPairs(std::move(allowed));
}

// --- Algebra ----------------------------------------------------------------------------------

enum class Op { kUnion, kInter, kDiff };

struct Source {
  const Value* value = nullptr;  // a sorted set or a set; null when missing
  double weight = 1;
  size_t size() const {
    if (value == nullptr) return 0;
    return value->type == ValueType::kZSet ? value->zset.size() : value->set.size();
  }
  bool Find(const std::string& member, double* score) const {
    if (value == nullptr) return false;
    if (value->type == ValueType::kSet) {
      *score = 1;
      return value->set.count(member) != 0;
    }
    const auto it = value->zset.find(member);
    if (it == value->zset.end()) return false;
    *score = it->second;
    return true;
  }
  Pairs Members() const {
    Pairs pairs;
    if (value == nullptr) return pairs;
    if (value->type == ValueType::kSet) {
      for (const std::string& member : value->set) pairs.emplace_back(member, 1.0);
    } else {
      // A loop, not assign(begin, end): GCC 12 at -O3 warns (null-dereference)
      // inside the range copy.
      for (const auto& [member, score] : value->zset) pairs.emplace_back(member, score);
    }
    return pairs;
  }
};

void Combine(double* target, double value, int aggregate) {
  if (aggregate == 0) {
    *target += value;
    if (std::isnan(*target)) *target = 0;
  } else if (aggregate < 0) {
    *target = value < *target ? value : *target;
  } else {
    *target = value > *target ? value : *target;
  }
}

Expected Algebra(Call& call, Op op, bool store, bool cardinality) {
  const size_t numkeys_at = store ? 2 : 1;
  int64_t count = 0;
  if (!ParseInt64(call.args[numkeys_at], &count)) return Error(kNotInteger);
  if (count < 1) {
    std::string name = call.args[0];
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return Error("ERR at least 1 input key is needed for '" + name + "' command");
  }
  if (count > static_cast<int64_t>(call.args.size() - numkeys_at - 1)) return Error(kSyntaxError);
  std::vector<Source> sources;
  size_t i = numkeys_at + 1;
  for (int64_t k = 0; k < count; k++, i++) {
    Source source;
    source.value = call.Lookup(call.args[i]);
    if (source.value != nullptr && source.value->type != ValueType::kZSet &&
        source.value->type != ValueType::kSet) {
      return Error(kWrongType);
    }
    sources.push_back(source);
  }
  const bool scored = op != Op::kDiff && !cardinality;
  int aggregate = 0;
  bool with_scores = false;
  int64_t limit = 0;
  while (i < call.args.size()) {
    const size_t remaining = call.args.size() - i;
    const std::string& option = call.args[i];
    if (scored && remaining >= sources.size() + 1 && OptionIs(option, "weights")) {
      i++;
      for (Source& source : sources) {
        if (!ParseScore(call.args[i++], &source.weight)) {
          return Error("ERR weight value is not a float");
        }
      }
    } else if (scored && remaining >= 2 && OptionIs(option, "aggregate")) {
      const std::string& name = call.args[i + 1];
      if (OptionIs(name, "sum")) {
        aggregate = 0;
      } else if (OptionIs(name, "min")) {
        aggregate = -1;
      } else if (OptionIs(name, "max")) {
        aggregate = 1;
      } else {
        return Error(kSyntaxError);
      }
      i += 2;
    } else if (!store && !cardinality && OptionIs(option, "withscores")) {
      with_scores = true;
      i++;
    } else if (cardinality && remaining >= 2 && OptionIs(option, "limit")) {
      if (!ParseInt64(call.args[i + 1], &limit) || limit < 0) {
        return Error("ERR LIMIT can't be negative");
      }
      i += 2;
    } else {
      return Error(kSyntaxError);
    }
  }
  std::map<std::string, double> result;
  if (op == Op::kDiff) {
    for (const auto& [member, score] : sources[0].Members()) {
      bool elsewhere = false;
      for (size_t j = 1; j < sources.size() && !elsewhere; j++) {
        double ignored = 0;
        elsewhere = sources[j].value == sources[0].value || sources[j].Find(member, &ignored);
      }
      if (!elsewhere) result[member] = score;
    }
  } else {
    std::stable_sort(sources.begin(), sources.end(),
                     [](const Source& a, const Source& b) { return a.size() < b.size(); });
    auto weighted = [](double weight, double score) {
      const double value = weight * score;
      return std::isnan(value) ? 0.0 : value;
    };
    if (op == Op::kInter) {
      for (const auto& [member, score] : sources[0].Members()) {
        double combined = weighted(sources[0].weight, score);
        bool everywhere = true;
        for (size_t j = 1; j < sources.size() && everywhere; j++) {
          double value = 0;
          everywhere = sources[j].Find(member, &value);
          if (everywhere) Combine(&combined, value * sources[j].weight, aggregate);
        }
        if (everywhere) result[member] = combined;
      }
    } else {
      for (const Source& source : sources) {
        for (const auto& [member, score] : source.Members()) {
          const double value = weighted(source.weight, score);
          auto [it, inserted] = result.emplace(member, value);
          if (!inserted) Combine(&it->second, value, aggregate);
        }
      }
    }
  }
  if (cardinality) {
    const auto size = static_cast<int64_t>(result.size());
    return Integer(limit != 0 && size > limit ? limit : size);
  }
  Value built = NewZset(Encoding::kSkiplist);
  built.zset = std::move(result);
  if (store) {
    if (!built.zset.empty() && call.context.allocation_refused) return Error(kOomError);
    return StoreResult(call, call.args[1], std::move(built));
  }
  return PairsReply(Ordered(built), with_scores, call.session.resp);
}

Expected Zinter(Call& call) { return Algebra(call, Op::kInter, false, false); }
Expected Zintercard(Call& call) { return Algebra(call, Op::kInter, false, true); }
Expected Zinterstore(Call& call) { return Algebra(call, Op::kInter, true, false); }
Expected Zunion(Call& call) { return Algebra(call, Op::kUnion, false, false); }
Expected Zunionstore(Call& call) { return Algebra(call, Op::kUnion, true, false); }
Expected Zdiff(Call& call) { return Algebra(call, Op::kDiff, false, false); }
Expected Zdiffstore(Call& call) { return Algebra(call, Op::kDiff, true, false); }

constexpr Command kCommands[] = {
    {"zadd", kAllocates, Zadd},
    {"zincrby", kAllocates, Zincrby},
    {"zcard", 0, Zcard},
    {"zscore", 0, Zscore},
    {"zmscore", 0, Zmscore},
    {"zrank", 0, Zrank},
    {"zrevrank", 0, Zrevrank},
    {"zrange", 0, Zrange},
    {"zrangestore", kAllocates, Zrangestore},
    {"zrangebyscore", 0, Zrangebyscore},
    {"zrevrangebyscore", 0, Zrevrangebyscore},
    {"zrangebylex", 0, Zrangebylex},
    {"zrevrangebylex", 0, Zrevrangebylex},
    {"zrevrange", 0, Zrevrange},
    {"zcount", 0, Zcount},
    {"zlexcount", 0, Zlexcount},
    {"zrem", 0, Zrem},
    {"zremrangebyrank", 0, Zremrangebyrank},
    {"zremrangebyscore", 0, Zremrangebyscore},
    {"zremrangebylex", 0, Zremrangebylex},
    {"zpopmin", 0, Zpopmin},
    {"zpopmax", 0, Zpopmax},
    {"zmpop", 0, Zmpop},
    {"bzpopmin", 0, Bzpopmin},
    {"bzpopmax", 0, Bzpopmax},
    {"bzmpop", 0, Bzmpop},
    {"zrandmember", 0, Zrandmember},
    {"zscan", 0, Zscan},
    {"zinter", 0, Zinter},
    {"zintercard", 0, Zintercard},
    {"zinterstore", kAllocates, Zinterstore},
    {"zunion", 0, Zunion},
    {"zunionstore", kAllocates, Zunionstore},
    {"zdiff", 0, Zdiff},
    {"zdiffstore", kAllocates, Zdiffstore},
};

}  // namespace

std::span<const Command> ZsetCommands() { return kCommands; }

}  // namespace keel::model
