// Sorted-set commands: ZADD, ZINCRBY, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZREM, ZPOPMIN,
// ZPOPMAX, ZMPOP, ZRANDMEMBER and ZSCAN. The range commands are in cmd_zset_range.cc, the algebra
// in cmd_zset_algebra.cc; the structure is engine/db/types/zset.h.
//
// Writes follow Redis 7.0's t_zset.c: the dirty counter grows by the members added, updated or
// removed, events are "zadd", "zincr", "zrem", "zpopmin", ... (class z), and a sorted set emptied
// by a removal is deleted ("del"). A refused allocation fails the command with the OOM error and
// leaves every key as it was.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/cmd_zset_common.h"

namespace keel {

ZsetValue::Limits ZsetLimits(const CommandContext& context) {
  const ConfigValues& config = context.config();
  return {static_cast<size_t>(config.zset_max_listpack_entries),
          static_cast<size_t>(config.zset_max_listpack_value)};
}

bool LookupZset(CommandContext& context, std::string_view key, const ZsetValue** zset) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), key);
  *zset = nullptr;
  if (entry == nullptr) return true;
  if (entry->type() != ValueType::kZSet) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  *zset = &ZsetOf(*entry);
  return true;
}

namespace {
// strtod over a C string copy of `text` (up to its first NUL, as Redis's C code reads it).
double StrtodPrefix(std::string_view text, size_t* consumed, bool* range_error) {
  std::string copy(text.substr(0, std::min(text.find('\0'), text.size())));
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  *range_error = errno == ERANGE;
  *consumed = static_cast<size_t>(end - copy.c_str());
  return value;
}
}  // namespace

bool ParseScore(std::string_view text, double* score) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  size_t consumed = 0;
  bool range_error = false;
  const double value = StrtodPrefix(text, &consumed, &range_error);
  if (consumed != text.size()) return false;
  if (range_error && (value == HUGE_VAL || value == -HUGE_VAL || value == 0)) return false;
  if (std::isnan(value)) return false;
  *score = value;
  return true;
}

namespace {
bool ParseRangeBound(std::string_view text, double* value, bool* exclusive) {
  *exclusive = !text.empty() && text[0] == '(';
  if (*exclusive) text.remove_prefix(1);
  // strtod must stop at the C string's end: at the first NUL, or the argument's end.
  const size_t c_length = std::min(text.find('\0'), text.size());
  size_t consumed = 0;
  bool range_error = false;
  *value = StrtodPrefix(text, &consumed, &range_error);
  return consumed == c_length && !std::isnan(*value);
}

bool ParseLexBound(std::string_view text, std::string_view* value, LexRange::End* end,
                   bool* exclusive) {
  if (text.empty()) return false;
  const char next = text.size() > 1 ? text[1] : '\0';
  switch (text[0]) {
    case '+':
    case '-':
      if (next != '\0') return false;
      *end = text[0] == '+' ? LexRange::End::kPlusInfinity : LexRange::End::kMinusInfinity;
      *exclusive = true;
      return true;
    case '(':
    case '[':
      *end = LexRange::End::kValue;
      *exclusive = text[0] == '(';
      *value = text.substr(1);
      return true;
    default:
      return false;
  }
}
}  // namespace

bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* range) {
  return ParseRangeBound(min, &range->min, &range->min_exclusive) &&
         ParseRangeBound(max, &range->max, &range->max_exclusive);
}

bool ParseLexRange(std::string_view min, std::string_view max, LexRange* range) {
  return ParseLexBound(min, &range->min, &range->min_end, &range->min_exclusive) &&
         ParseLexBound(max, &range->max, &range->max_end, &range->max_exclusive);
}

bool LexRange::Empty() const {
  // zslIsInLexRange's first test.
  if (min_end == End::kPlusInfinity || max_end == End::kMinusInfinity) return true;
  if (min_end != End::kValue || max_end != End::kValue) return false;
  const int c = min.compare(max);
  return c > 0 || (c == 0 && (min_exclusive || max_exclusive));
}

bool LexRange::AboveMin(std::string_view member) const {
  if (min_end == End::kMinusInfinity) return true;
  if (min_end == End::kPlusInfinity) return false;
  const int c = member.compare(min);
  return min_exclusive ? c > 0 : c >= 0;
}

bool LexRange::BelowMax(std::string_view member) const {
  if (max_end == End::kPlusInfinity) return true;
  if (max_end == End::kMinusInfinity) return false;
  const int c = member.compare(max);
  return max_exclusive ? c < 0 : c <= 0;
}

bool ParseLongArg(CommandContext& context, std::string_view text, int64_t* value) {
  if (!ParseStrictInt64(text, value)) {
    context.reply.Error(errors::kNotInteger);
    return false;
  }
  return true;
}

void PairReply::Header(size_t count) {
  context_.reply.ArrayHeader(with_scores_ && context_.reply.resp() == 2 ? count * 2 : count);
}

void PairReply::Pair(std::string_view member, double score) {
  if (with_scores_ && context_.reply.resp() > 2) context_.reply.ArrayHeader(2);
  context_.reply.Bulk(member);
  if (with_scores_) context_.reply.Double(score);
}

bool StoreZset(CommandContext& context, std::string_view key, ZsetValue* zset, KeyEvent event,
               size_t changes) {
  const int db = context.db_index();
  const uint64_t hash = context.keyspace.Hash(db, key);
  (void)context.keyspace.LookupWrite(db, key, hash);
  if (context.keyspace.SetObject(db, key, hash, ValueType::kZSet, ZsetEncodingOf(*zset), zset,
                                 kNoExpiry, event, changes) == Database::SetOutcome::kOutOfMemory) {
    ZsetValue::Destroy(zset, ZsetMemory(context));
    context.reply.Error(errors::kOom);
    return false;
  }
  return true;
}

void StoreEmptyResult(CommandContext& context, std::string_view destination) {
  const int db = context.db_index();
  context.keyspace.Delete(db, destination, context.keyspace.Hash(db, destination), events::kDel);
  context.reply.Integer(0);
}

size_t PopAndReply(CommandContext& context, std::string_view key, size_t count, bool max,
                   PopReply form) {
  const int db = context.db_index();
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = context.keyspace.LookupWrite(db, key, hash);
  KEEL_ASSERT(entry != nullptr && entry->type() == ValueType::kZSet);
  ZsetValue& zset = MutableZsetOf(*entry);
  const size_t popped = std::min(count, zset.size());
  const bool nested = form == PopReply::kNested || form == PopReply::kNestedWithKey;
  switch (form) {
    case PopReply::kFlat:
      context.reply.ArrayHeader(popped * 2);
      break;
    case PopReply::kNested:
      context.reply.ArrayHeader(popped);
      break;
    case PopReply::kFlatWithKey:
      context.reply.ArrayHeader(popped * 2 + 1);
      context.reply.Bulk(key);
      break;
    case PopReply::kNestedWithKey:
      context.reply.ArrayHeader(2);
      context.reply.Bulk(key);
      context.reply.ArrayHeader(popped);
      break;
  }
  std::string member;
  for (size_t i = 0; i < popped; i++) {
    double score = 0;
    zset.ForRange(0, 1, max, [&](std::string_view at, double at_score) {
      member.assign(at);
      score = at_score;
    });
    zset.Remove(member, ZsetMemory(context));
    if (nested) context.reply.ArrayHeader(2);
    context.reply.Bulk(member);
    context.reply.Double(score);
  }
  const KeyEvent event = max ? zset_events::kZpopmax : zset_events::kZpopmin;
  context.keyspace.KeyChanged(db, key, event, popped);
  if (zset.size() == 0) context.keyspace.DeleteEmptied(db, key, hash);
  return popped;
}

namespace {

// --- ZADD, ZINCRBY ----------------------------------------------------------------------------

// One member's planned change: zsetAdd applied in order, on a view that sees the command's own
// earlier pairs (ZADD z 1 a 2 a sets a to 2 and counts an add and an update).
struct ZaddPlan {
  std::vector<std::pair<std::string_view, double>> changes;  // final score per member
  size_t added = 0;
  size_t updated = 0;
  bool processed = false;
  bool nan = false;
  double last_score = 0;
};

void PlanZadd(const ZsetValue* zset, const ZaddFlags& flags,
              const std::vector<std::pair<double, std::string_view>>& pairs, ZaddPlan* plan) {
  std::map<std::string_view, size_t> planned;  // member -> index in plan->changes
  for (const auto& [given, member] : pairs) {
    double score = given;
    double current = 0;
    bool exists = false;
    const auto it = planned.find(member);
    if (it != planned.end()) {
      exists = true;
      current = plan->changes[it->second].second;
    } else if (zset != nullptr) {
      exists = zset->Score(member, &current);
    }
    if (exists) {
      if (flags.nx) continue;
      if (flags.incr) {
        score += current;
        if (std::isnan(score)) {
          plan->nan = true;
          return;
        }
      }
      if ((flags.lt && score >= current) || (flags.gt && score <= current)) continue;
      plan->processed = true;
      plan->last_score = score;
      if (score == current) continue;
      plan->updated++;
    } else {
      if (flags.xx) continue;
      plan->processed = true;
      plan->last_score = score;
      plan->added++;
    }
    if (it != planned.end()) {
      plan->changes[it->second].second = score;
    } else {
      planned.emplace(member, plan->changes.size());
      plan->changes.emplace_back(member, score);
    }
  }
}

// Applies the plan to `zset`, all or nothing.
bool ApplyZadd(CommandContext& context, ZsetValue& zset, const ZaddPlan& plan) {
  MemoryAccountant& memory = ZsetMemory(context);
  const ZsetValue::Limits limits = ZsetLimits(context);
  if (plan.changes.size() == 1) {
    return zset.Set(plan.changes[0].first, plan.changes[0].second, limits, memory) !=
           ZsetValue::SetOutcome::kOutOfMemory;
  }
  return zset.SetMany(plan.changes, limits, memory);
}

void ZaddGeneric(CommandContext& context, ZaddFlags flags, size_t first_score) {
  const size_t elements = context.argc() - first_score;
  if (elements == 0 || elements % 2 != 0) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  if (flags.nx && flags.xx) {
    context.reply.Error("ERR XX and NX options at the same time are not compatible");
    return;
  }
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    context.reply.Error("ERR GT, LT, and/or NX options at the same time are not compatible");
    return;
  }
  if (flags.incr && elements > 2) {
    context.reply.Error("ERR INCR option supports a single increment-element pair");
    return;
  }
  std::vector<std::pair<double, std::string_view>> pairs;
  pairs.reserve(elements / 2);
  for (size_t i = first_score; i < context.argc(); i += 2) {
    double score = 0;
    if (!ParseScore(context.arg(i), &score)) {
      context.reply.Error(zset_errors::kNotFloat);
      return;
    }
    pairs.emplace_back(score, context.arg(i + 1));
  }
  ZaddPairs(context, flags, pairs);
}

}  // namespace

void ZaddPairs(CommandContext& context, const ZaddFlags& flags,
               const std::vector<std::pair<double, std::string_view>>& pairs) {
  KEEL_ASSERT(!pairs.empty());
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = context.keyspace.LookupWrite(db, key, hash);
  if (entry != nullptr && entry->type() != ValueType::kZSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  ZaddPlan plan;
  PlanZadd(entry == nullptr ? nullptr : &ZsetOf(*entry), flags, pairs, &plan);
  if (plan.nan) {
    context.reply.Error(zset_errors::kNan);
    return;
  }
  const KeyEvent event = flags.incr ? zset_events::kZincr : zset_events::kZadd;
  const size_t changes = plan.added + plan.updated;
  MemoryAccountant& memory = ZsetMemory(context);
  if (entry == nullptr && !plan.changes.empty()) {
    // zaddGenericCommand's choice for a new key: a listpack unless the limits rule one out for
    // the first member.
    const ZsetValue::Limits limits = ZsetLimits(context);
    ZsetValue* zset = limits.entries_max == 0 || limits.value_max < pairs[0].second.size()
                          ? ZsetValue::CreateSkiplist(memory, NewZsetSeed(context), 0)
                          : ZsetValue::CreateListpack(memory, NewZsetSeed(context));
    if (zset == nullptr || !ApplyZadd(context, *zset, plan) ||
        context.keyspace.SetObject(db, key, hash, ValueType::kZSet, ZsetEncodingOf(*zset), zset,
                                   kNoExpiry, event,
                                   changes) == Database::SetOutcome::kOutOfMemory) {
      ZsetValue::Destroy(zset, memory);
      context.reply.Error(errors::kOom);
      return;
    }
  } else if (!plan.changes.empty()) {
    if (!ApplyZadd(context, MutableZsetOf(*entry), plan)) {
      context.reply.Error(errors::kOom);
      return;
    }
    SyncZsetEncoding(*entry);
    if (changes > 0) context.keyspace.KeyChanged(db, key, event, changes);
  }
  if (flags.incr) {
    if (plan.processed) {
      context.reply.Double(plan.last_score);
    } else {
      context.reply.NullBulk();
    }
    return;
  }
  context.reply.Integer(static_cast<int64_t>(flags.ch ? changes : plan.added));
}

namespace {

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
void CmdZadd(CommandContext& context) {
  ZaddFlags flags;
  size_t i = 2;
  for (; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
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
  ZaddGeneric(context, flags, i);
}

// ZINCRBY key increment member: ZADD's INCR.
void CmdZincrby(CommandContext& context) {
  ZaddFlags flags;
  flags.incr = true;
  ZaddGeneric(context, flags, 2);
}

// --- Reads ------------------------------------------------------------------------------------

void CmdZcard(CommandContext& context) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  context.reply.Integer(zset == nullptr ? 0 : static_cast<int64_t>(zset->size()));
}

void CmdZscore(CommandContext& context) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  double score = 0;
  if (zset == nullptr || !zset->Score(context.arg(2), &score)) {
    context.reply.NullBulk();
    return;
  }
  context.reply.Double(score);
}

void CmdZmscore(CommandContext& context) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    double score = 0;
    if (zset == nullptr || !zset->Score(context.arg(i), &score)) {
      context.reply.NullBulk();
    } else {
      context.reply.Double(score);
    }
  }
}

void RankGeneric(CommandContext& context, bool reverse) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  double score = 0;
  if (zset == nullptr || !zset->Score(context.arg(2), &score)) {
    context.reply.NullBulk();
    return;
  }
  const size_t rank = zset->RankOf(context.arg(2), score);
  context.reply.Integer(static_cast<int64_t>(reverse ? zset->size() - 1 - rank : rank));
}

void CmdZrank(CommandContext& context) { RankGeneric(context, false); }
void CmdZrevrank(CommandContext& context) { RankGeneric(context, true); }

// --- ZREM -------------------------------------------------------------------------------------

// ZREM key member [member ...]: stops at the member that empties the set, as Redis does.
void CmdZrem(CommandContext& context) {
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
  size_t deleted = 0;
  for (size_t i = 2; i < context.argc() && zset.size() > 0; i++) {
    if (zset.Remove(context.arg(i), ZsetMemory(context))) deleted++;
  }
  if (deleted > 0) {
    context.keyspace.KeyChanged(db, key, zset_events::kZrem, deleted);
    if (zset.size() == 0) context.keyspace.DeleteEmptied(db, key, hash);
  }
  context.reply.Integer(static_cast<int64_t>(deleted));
}

// --- ZPOPMIN, ZPOPMAX, ZMPOP -----------------------------------------------------------------

void PopMinMax(CommandContext& context, bool max) {
  if (context.argc() > 3) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  int64_t count = -1;
  if (context.argc() == 3) {
    // getPositiveLongFromObjectOrReply: one text for both failures.
    if (!ParseStrictInt64(context.arg(2), &count) || count < 0) {
      context.reply.Error("ERR value is out of range, must be positive");
      return;
    }
  }
  const std::string_view key = context.arg(1);
  Entry* entry = context.keyspace.LookupWrite(context.db_index(), key);
  if (entry == nullptr) {
    context.reply.EmptyArray();
    return;
  }
  if (entry->type() != ValueType::kZSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  if (count == 0) {
    context.reply.EmptyArray();
    return;
  }
  // RESP3 with a COUNT answers nested pairs; otherwise a flat array.
  const bool nested = context.reply.resp() > 2 && count != -1;
  PopAndReply(context, key, count == -1 ? 1 : static_cast<size_t>(count), max,
              nested ? PopReply::kNested : PopReply::kFlat);
}

void CmdZpopmin(CommandContext& context) { PopMinMax(context, false); }
void CmdZpopmax(CommandContext& context) { PopMinMax(context, true); }

}  // namespace

bool ParseZmpopArgs(CommandContext& context, size_t numkeys_index, ZmpopArgs* parsed) {
  int64_t key_count = 0;
  if (!ParseStrictInt64(context.arg(numkeys_index), &key_count) || key_count < 1) {
    context.reply.Error("ERR numkeys should be greater than 0");
    return false;
  }
  if (key_count > static_cast<int64_t>(context.argc() - numkeys_index) - 2) {
    context.reply.Error(errors::kSyntax);
    return false;
  }
  parsed->first_key = numkeys_index + 1;
  parsed->end_key = parsed->first_key + static_cast<size_t>(key_count);
  const std::string_view where = context.arg(parsed->end_key);
  if (OptionIs(where, "max")) {
    parsed->max = true;
  } else if (!OptionIs(where, "min")) {
    context.reply.Error(errors::kSyntax);
    return false;
  }
  int64_t count = -1;
  for (size_t i = parsed->end_key + 1; i < context.argc(); i++) {
    if (count == -1 && OptionIs(context.arg(i), "count") && i + 1 < context.argc()) {
      i++;
      if (!ParseStrictInt64(context.arg(i), &count) || count < 1) {
        context.reply.Error("ERR count should be greater than 0");
        return false;
      }
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  parsed->count = count == -1 ? 1 : static_cast<size_t>(count);
  return true;
}

namespace {

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]: pops from the first non-empty key, and
// propagates as ZPOPMIN/ZPOPMAX key <members popped>.
void CmdZmpop(CommandContext& context) {
  ZmpopArgs parsed;
  if (!ParseZmpopArgs(context, 1, &parsed)) return;
  for (size_t i = parsed.first_key; i < parsed.end_key; i++) {
    const std::string_view key = context.arg(i);
    const Entry* entry = context.keyspace.LookupWrite(context.db_index(), key);
    if (entry == nullptr) continue;
    if (entry->type() != ValueType::kZSet) {
      context.reply.Error(errors::kWrongType);
      return;
    }
    const size_t popped =
        PopAndReply(context, key, parsed.count, parsed.max, PopReply::kNestedWithKey);
    // Replayed as the pop of what it took (Redis rewrites with the popped count).
    char text[kInt64TextMax];
    context.PropagateAs({parsed.max ? "ZPOPMAX" : "ZPOPMIN", key,
                         std::string_view(text, FormatInt64(static_cast<int64_t>(popped), text))});
    return;
  }
  context.reply.NullArray();
}

// --- ZRANDMEMBER ------------------------------------------------------------------------------

void RandomWithCount(CommandContext& context, int64_t count_signed, bool with_scores) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  if (zset == nullptr || count_signed == 0) {
    context.reply.EmptyArray();
    return;
  }
  const bool unique = count_signed > 0;
  const uint64_t count =
      unique ? static_cast<uint64_t>(count_signed) : 0 - static_cast<uint64_t>(count_signed);
  const size_t size = zset->size();
  PairReply reply(context, with_scores);
  Rng& rng = context.rng();
  auto reply_rank = [&](size_t rank) {
    zset->ForRange(rank, 1, false,
                   [&](std::string_view member, double score) { reply.Pair(member, score); });
  };
  if (!unique || count == 1) {
    // CASE 1: independent draws, repeats allowed. A negative count's reply has no bound but
    // the client's: it stops when the client is being closed, its output could not grow, or
    // nobody reads it (CLIENT REPLY OFF), as Redis stops at CLIENT_CLOSE_ASAP.
    reply.Header(count);
    for (uint64_t i = 0; i < count; i++) {
      if ((context.client.flags & kClientCloseAsap) || context.client.output().failed() ||
          context.reply.muted()) {
        break;
      }
      reply_rank(rng.Below(size));
    }
    return;
  }
  if (count >= size) {
    // CASE 2: the whole set, highest first (Redis's sorted-set iterator walks from the tail).
    reply.Header(size);
    zset->ForRange(0, size, true,
                   [&](std::string_view member, double score) { reply.Pair(member, score); });
    return;
  }
  // CASES 3 and 4: `count` distinct members. Few of many are drawn until distinct; many of
  // them are the whole set less random removals, so neither loops for long.
  std::vector<size_t> ranks;
  if (count * 3 > size) {
    std::vector<size_t> all(size);
    for (size_t i = 0; i < size; i++) all[i] = i;
    while (all.size() > count) {
      const size_t drop = rng.Below(all.size());
      all[drop] = all.back();
      all.pop_back();
    }
    ranks = std::move(all);
  } else {
    std::set<size_t> drawn;
    while (drawn.size() < count) {
      const size_t rank = rng.Below(size);
      if (drawn.insert(rank).second) ranks.push_back(rank);
    }
  }
  reply.Header(ranks.size());
  for (size_t rank : ranks) reply_rank(rank);
}

// ZRANDMEMBER key [count [WITHSCORES]]
void CmdZrandmember(CommandContext& context) {
  if (context.argc() >= 3) {
    int64_t count = 0;
    if (!ParseStrictInt64(context.arg(2), &count) || count == INT64_MIN) {
      context.reply.Error(count == INT64_MIN ? "ERR value is out of range, value must between "
                                               "-9223372036854775807 and 9223372036854775807"
                                             : errors::kNotInteger);
      return;
    }
    if (context.argc() > 4 || (context.argc() == 4 && !OptionIs(context.arg(3), "withscores"))) {
      context.reply.Error(errors::kSyntax);
      return;
    }
    const bool with_scores = context.argc() == 4;
    if (with_scores && (count < -INT64_MAX / 2 || count > INT64_MAX / 2)) {
      context.reply.Error("ERR value is out of range");
      return;
    }
    RandomWithCount(context, count, with_scores);
    return;
  }
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  if (zset == nullptr) {
    context.reply.NullBulk();
    return;
  }
  zset->ForRange(context.rng().Below(zset->size()), 1, false,
                 [&](std::string_view member, double) { context.reply.Bulk(member); });
}

// --- ZSCAN ------------------------------------------------------------------------------------

// ZSCAN key cursor [MATCH pattern] [COUNT count]: as SSCAN (cmd_set.cc). A listpack comes back
// whole with cursor 0. Scores are bulk strings in both protocols.
void CmdZscan(CommandContext& context) {
  uint64_t cursor = 0;
  if (!ParseScanCursor(context.arg(2), &cursor)) {
    context.reply.Error("ERR invalid cursor");
    return;
  }
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  if (zset == nullptr) {
    context.reply.ArrayHeader(2);
    context.reply.Bulk("0");
    context.reply.ArrayHeader(0);
    return;
  }
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  for (size_t i = 3; i < context.argc(); i += 2) {
    const std::string_view option = context.arg(i);
    const bool has_value = i + 1 < context.argc();
    if (OptionIs(option, "count") && has_value) {
      if (!ParseStrictInt64(context.arg(i + 1), &count)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 1) {
        context.reply.Error(errors::kSyntax);
        return;
      }
    } else if (OptionIs(option, "match") && has_value) {
      pattern = context.arg(i + 1);
      use_pattern = pattern != "*";
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  // Copies: a listpack's integer members are formatted into a buffer each visit reuses.
  std::vector<std::pair<std::string, double>> found;
  size_t collected = 0;
  auto visit = [&](std::string_view member, double score) {
    collected++;
    if (use_pattern && !GlobMatch(pattern, member)) return;
    found.emplace_back(std::string(member), score);
  };
  uint64_t position = CursorPosition(cursor);
  if (zset->is_listpack()) {
    position = zset->Scan(position, 1, visit);
  } else {
    int64_t steps_left = count * 10;
    do {
      position = zset->Scan(position, 1, visit);
    } while (position != 0 && steps_left-- > 0 && collected < static_cast<uint64_t>(count));
  }
  char text[kDoubleTextMax];
  context.reply.ArrayHeader(2);
  context.reply.Bulk(std::string_view(text, FormatUint64(position >> kCursorShift, text)));
  context.reply.ArrayHeader(found.size() * 2);
  // A listpack's scores come back as its entries hold them (an integral score as an integer),
  // a skiplist's in "%.17g" form.
  const bool listpack = zset->is_listpack();
  for (const auto& [member, score] : found) {
    context.reply.Bulk(member);
    context.reply.Bulk(
        std::string_view(text, listpack ? ZsetScoreText(score, text) : FormatDouble(score, text)));
  }
}

constexpr CommandDef kZsetCommands[] = {
    {.name = "zadd",
     .arity = -4,
     .flags = "write denyoom fast",
     .acl = "@sortedset",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted "
                   "set.",
     .summary = "Add one or more members to a sorted set, or update its score if it already exists",
     .args = "key:key#0 ?condition:oneof@3.0.2{nx=NX xx=XX} ?comparison:oneof@6.2.0{gt=GT "
             "lt=LT} ?change=CH@3.0.2 ?increment=INCR@3.0.2 *score_member:block{score:double "
             "member}",
     .handler = CmdZadd,
     .history = "2.4.0 Accepts multiple elements.|3.0.2 Added the `XX`, `NX`, `CH` and `INCR` "
                "options.|6.2.0 Added the `GT` and `LT` options."},
    {.name = "zincrby",
     .arity = 4,
     .flags = "write denyoom fast",
     .acl = "@sortedset",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(log(N)) where N is the number of elements in the sorted set.",
     .summary = "Increment the score of a member in a sorted set",
     .args = "key:key#0 increment:integer member",
     .handler = CmdZincrby},
    {.name = "zcard",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(1)",
     .summary = "Get the number of members in a sorted set",
     .args = "key:key#0",
     .handler = CmdZcard},
    {.name = "zscore",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(1)",
     .summary = "Get the score associated with the given member in a sorted set",
     .args = "key:key#0 member",
     .handler = CmdZscore},
    {.name = "zmscore",
     .arity = -3,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity = "O(N) where N is the number of members being requested.",
     .summary = "Get the score associated with the given members in a sorted set",
     .args = "key:key#0 *member",
     .handler = CmdZmscore},
    {.name = "zrank",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.0.0",
     .complexity = "O(log(N))",
     .summary = "Determine the index of a member in a sorted set",
     .args = "key:key#0 member",
     .handler = CmdZrank},
    {.name = "zrevrank",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.0.0",
     .complexity = "O(log(N))",
     .summary = "Determine the index of a member in a sorted set, with scores ordered from high "
                "to low",
     .args = "key:key#0 member",
     .handler = CmdZrevrank},
    {.name = "zrem",
     .arity = -3,
     .flags = "write fast",
     .acl = "@sortedset",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "1.2.0",
     .complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the "
                   "number of elements to be removed.",
     .summary = "Remove one or more members from a sorted set",
     .args = "key:key#0 *member",
     .handler = CmdZrem,
     .history = "2.4.0 Accepts multiple elements."},
    {.name = "zpopmin",
     .arity = -2,
     .flags = "write fast",
     .acl = "@sortedset",
     .keys = "RW access delete: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "5.0.0",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being "
                   "the number of elements popped.",
     .summary = "Remove and return members with the lowest scores in a sorted set",
     .args = "key:key#0 ?count:integer",
     .handler = CmdZpopmin},
    {.name = "zpopmax",
     .arity = -2,
     .flags = "write fast",
     .acl = "@sortedset",
     .keys = "RW access delete: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "5.0.0",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being "
                   "the number of elements popped.",
     .summary = "Remove and return members with the highest scores in a sorted set",
     .args = "key:key#0 ?count:integer",
     .handler = CmdZpopmax},
    {.name = "zmpop",
     .arity = -4,
     .flags = "write",
     .acl = "@sortedset",
     .keys = "RW access delete: index 1 keynum 0 1 1",
     .group = "sorted-set",
     .since = "7.0.0",
     .complexity =
         "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of "
         "elements in the sorted set, and M being the number of elements popped.",
     .summary = "Remove and return members with scores in a sorted set",
     .args = "numkeys:integer *key:key#0 where:oneof{min=MIN max=MAX} ?count:integer=COUNT",
     .handler = CmdZmpop},
    {.name = "zrandmember",
     .arity = -2,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity = "O(N) where N is the number of elements returned",
     .summary = "Get one or multiple random elements from a sorted set",
     .args = "key:key#0 ?options:block{count:integer ?withscores=WITHSCORES}",
     .handler = CmdZrandmember,
     .tips = "nondeterministic_output"},
    {.name = "zscan",
     .arity = -3,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "sorted-set",
     .since = "2.8.0",
     .complexity =
         "O(1) for every call. O(N) for a complete iteration, including enough command "
         "calls for the cursor to return back to 0. N is the number of elements inside the "
         "collection..",
     .summary = "Incrementally iterate sorted sets elements and associated scores",
     .args = "key:key#0 cursor:integer ?pattern:pattern=MATCH ?count:integer=COUNT",
     .handler = CmdZscan,
     .tips = "nondeterministic_output"},
};

}  // namespace

void RegisterZsetCommands(Registry& registry) {
  registry.Add(kZsetCommands);
  RegisterZsetRangeCommands(registry);
  RegisterZsetAlgebraCommands(registry);
  RegisterZsetBlockingCommands(registry);
}

}  // namespace keel
