// Sorted-set algebra: ZINTER, ZINTERCARD, ZINTERSTORE, ZUNION, ZUNIONSTORE, ZDIFF and ZDIFFSTORE,
// as t_zset.c's zunionInterDiffGenericCommand computes them. Sets count as sorted sets whose
// scores are all 1; a missing key is empty; any other type is WRONGTYPE, answered before the
// options are read.
//
// Scores are combined in Redis's order (the inputs sorted by size, smallest first, stably), so
// that sums round as Redis's do: weight * score with NaN taken as 0, SUM with inf + -inf taken
// as 0, MIN and MAX keeping the current score against NaN.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/cmd_zset_common.h"
#include "engine/db/types/set.h"

namespace keel {
namespace {

enum class Op : uint8_t { kUnion, kInter, kDiff };
enum class Aggregate : uint8_t { kSum, kMin, kMax };

// One input: a sorted set, a set, or nothing, with its weight.
struct Source {
  const ZsetValue* zset = nullptr;
  const SetValue* set = nullptr;
  double weight = 1;
  size_t size() const {
    return zset != nullptr ? zset->size() : (set != nullptr ? set->size() : 0);
  }
  bool Find(std::string_view member, double* score) const {
    if (zset != nullptr) return zset->Score(member, score);
    if (set != nullptr && set->Contains(member)) {
      *score = 1;
      return true;
    }
    return false;
  }
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    if (zset != nullptr) {
      zset->ForEach(visit);
    } else if (set != nullptr) {
      set->ForEach([&](std::string_view member) { visit(member, 1.0); });
    }
  }
  bool same_as(const Source& other) const {
    return (zset != nullptr && zset == other.zset) || (set != nullptr && set == other.set);
  }
};

void Combine(double* target, double value, Aggregate aggregate) {
  switch (aggregate) {
    case Aggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0;
      break;
    case Aggregate::kMin:
      *target = value < *target ? value : *target;
      break;
    case Aggregate::kMax:
      *target = value > *target ? value : *target;
      break;
  }
}

double Weighted(double weight, double score) {
  const double value = weight * score;
  return std::isnan(value) ? 0 : value;
}

struct Request {
  Op op;
  bool store = false;
  bool cardinality = false;
  bool with_scores = false;
  Aggregate aggregate = Aggregate::kSum;
  int64_t limit = 0;
  std::vector<Source> sources;
};

// Parses numkeys, looks the keys up and reads the options. False after replying.
bool ParseRequest(CommandContext& context, size_t numkeys_at, Request* request) {
  int64_t count = 0;
  if (!ParseLongArg(context, context.arg(numkeys_at), &count)) return false;
  if (count < 1) {
    context.reply.Error("ERR at least 1 input key is needed for '" + context.spec.full_name +
                        "' command");
    return false;
  }
  if (count > static_cast<int64_t>(context.argc() - numkeys_at - 1)) {
    context.reply.Error(errors::kSyntax);
    return false;
  }
  size_t i = numkeys_at + 1;
  for (int64_t k = 0; k < count; k++, i++) {
    const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(i));
    Source source;
    if (entry != nullptr) {
      if (entry->type() == ValueType::kZSet) {
        source.zset = &ZsetOf(*entry);
      } else if (entry->type() == ValueType::kSet) {
        source.set = static_cast<const SetValue*>(EntryObject(*entry));
      } else {
        context.reply.Error(errors::kWrongType);
        return false;
      }
    }
    request->sources.push_back(source);
  }
  const bool scored = request->op != Op::kDiff && !request->cardinality;
  while (i < context.argc()) {
    const size_t remaining = context.argc() - i;
    const std::string_view option = context.arg(i);
    if (scored && remaining >= request->sources.size() + 1 && OptionIs(option, "weights")) {
      i++;
      for (Source& source : request->sources) {
        if (!ParseScore(context.arg(i++), &source.weight)) {
          context.reply.Error("ERR weight value is not a float");
          return false;
        }
      }
    } else if (scored && remaining >= 2 && OptionIs(option, "aggregate")) {
      const std::string_view name = context.arg(i + 1);
      if (OptionIs(name, "sum")) {
        request->aggregate = Aggregate::kSum;
      } else if (OptionIs(name, "min")) {
        request->aggregate = Aggregate::kMin;
      } else if (OptionIs(name, "max")) {
        request->aggregate = Aggregate::kMax;
      } else {
        context.reply.Error(errors::kSyntax);
        return false;
      }
      i += 2;
    } else if (!request->store && !request->cardinality && OptionIs(option, "withscores")) {
      request->with_scores = true;
      i++;
    } else if (request->cardinality && remaining >= 2 && OptionIs(option, "limit")) {
      if (!ParseStrictInt64(context.arg(i + 1), &request->limit) || request->limit < 0) {
        context.reply.Error("ERR LIMIT can't be negative");
        return false;
      }
      i += 2;
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

using Accumulator = std::map<std::string, double>;

// The result as member -> score. Intersections and unions walk the inputs smallest first.
void Compute(Request& request, Accumulator* result, size_t* cardinality) {
  std::vector<Source>& sources = request.sources;
  if (request.op == Op::kDiff) {
    const Source& first = sources[0];
    first.ForEach([&](std::string_view member, double score) {
      double ignored = 0;
      for (size_t j = 1; j < sources.size(); j++) {
        if (sources[j].same_as(first) || sources[j].Find(member, &ignored)) return;
      }
      result->emplace(std::string(member), score);
    });
    *cardinality = result->size();
    return;
  }
  std::stable_sort(sources.begin(), sources.end(),
                   [](const Source& a, const Source& b) { return a.size() < b.size(); });
  if (request.op == Op::kInter) {
    if (sources[0].size() == 0) return;
    bool done = false;
    sources[0].ForEach([&](std::string_view member, double score) {
      if (done) return;
      double combined = Weighted(sources[0].weight, score);
      for (size_t j = 1; j < sources.size(); j++) {
        double value = 0;
        if (sources[j].same_as(sources[0])) {
          value = score;
        } else if (!sources[j].Find(member, &value)) {
          return;
        }
        Combine(&combined, value * sources[j].weight, request.aggregate);
      }
      ++*cardinality;
      if (request.cardinality) {
        done = request.limit != 0 && *cardinality >= static_cast<uint64_t>(request.limit);
        return;
      }
      result->emplace(std::string(member), combined);
    });
    return;
  }
  for (const Source& source : sources) {
    source.ForEach([&](std::string_view member, double score) {
      const double value = Weighted(source.weight, score);
      auto [it, inserted] = result->emplace(std::string(member), value);
      if (!inserted) Combine(&it->second, value, request.aggregate);
    });
  }
  *cardinality = result->size();
}

void AlgebraGeneric(CommandContext& context, Op op, bool store, bool cardinality) {
  Request request;
  request.op = op;
  request.store = store;
  request.cardinality = cardinality;
  if (!ParseRequest(context, store ? 2 : 1, &request)) return;
  Accumulator result;
  size_t count = 0;
  Compute(request, &result, &count);
  if (cardinality) {
    context.reply.Integer(static_cast<int64_t>(count));
    return;
  }
  if (!store) {
    // In Redis's result order: by score, then member.
    std::vector<std::pair<double, const std::string*>> ordered;
    ordered.reserve(result.size());
    for (const auto& [member, score] : result) ordered.emplace_back(score, &member);
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first == b.first && *a.second < *b.second);
    });
    PairReply reply(context, request.with_scores);
    reply.Header(ordered.size());
    for (const auto& [score, member] : ordered) reply.Pair(*member, score);
    return;
  }
  const std::string_view destination = context.arg(1);
  if (result.empty()) {
    StoreEmptyResult(context, destination);
    return;
  }
  // Built as a skiplist and converted when it fits, as Redis builds the destination.
  MemoryAccountant& memory = ZsetMemory(context);
  ZsetValue* zset = ZsetValue::CreateSkiplist(memory, NewZsetSeed(context), result.size());
  bool refused = zset == nullptr;
  const ZsetValue::Limits unlimited{0, 0};
  for (auto it = result.begin(); !refused && it != result.end(); ++it) {
    refused =
        zset->Set(it->first, it->second, unlimited, memory) == ZsetValue::SetOutcome::kOutOfMemory;
  }
  if (!refused && zset->FitsListpack(ZsetLimits(context))) {
    refused = !zset->ConvertToListpack(memory);
  }
  if (refused) {
    ZsetValue::Destroy(zset, memory);
    context.reply.Error(errors::kOom);
    return;
  }
  const KeyEvent event = op == Op::kUnion   ? zset_events::kZunionstore
                         : op == Op::kInter ? zset_events::kZinterstore
                                            : zset_events::kZdiffstore;
  const auto size = static_cast<int64_t>(zset->size());
  if (StoreZset(context, destination, zset, event)) context.reply.Integer(size);
}

void CmdZinter(CommandContext& context) { AlgebraGeneric(context, Op::kInter, false, false); }
void CmdZintercard(CommandContext& context) { AlgebraGeneric(context, Op::kInter, false, true); }
void CmdZinterstore(CommandContext& context) { AlgebraGeneric(context, Op::kInter, true, false); }
void CmdZunion(CommandContext& context) { AlgebraGeneric(context, Op::kUnion, false, false); }
void CmdZunionstore(CommandContext& context) { AlgebraGeneric(context, Op::kUnion, true, false); }
void CmdZdiff(CommandContext& context) { AlgebraGeneric(context, Op::kDiff, false, false); }
void CmdZdiffstore(CommandContext& context) { AlgebraGeneric(context, Op::kDiff, true, false); }

constexpr CommandDef kZsetAlgebraCommands[] = {
    {.name = "zinter",
     .arity = -3,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 keynum 0 1 1",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity =
         "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K "
         "being the number of input sorted sets and M being the number of elements in the "
         "resulting sorted set.",
     .summary = "Intersect multiple sorted sets",
     .args = "numkeys:integer *key:key#0 ?*weight:integer=WEIGHTS "
             "?aggregate:oneof=AGGREGATE{sum=SUM min=MIN max=MAX} ?withscores=WITHSCORES",
     .handler = CmdZinter},
    {.name = "zintercard",
     .arity = -3,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 keynum 0 1 1",
     .group = "sorted-set",
     .since = "7.0.0",
     .complexity =
         "O(N*K) worst case with N being the smallest input sorted set, K being the number "
         "of input sorted sets.",
     .summary = "Intersect multiple sorted sets and return the cardinality of the result",
     .args = "numkeys:integer *key:key#0 ?limit:integer=LIMIT",
     .handler = CmdZintercard},
    {.name = "zinterstore",
     .arity = -4,
     .flags = "write denyoom",
     .acl = "@sortedset",
     .keys = "OW update: index 1 range 0 1 0;RO access: index 2 keynum 0 1 1",
     .group = "sorted-set",
     .since = "2.0.0",
     .complexity =
         "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K "
         "being the number of input sorted sets and M being the number of elements in the "
         "resulting sorted set.",
     .summary = "Intersect multiple sorted sets and store the resulting sorted set in a new key",
     .args = "destination:key#0 numkeys:integer *key:key#1 ?*weight:integer=WEIGHTS "
             "?aggregate:oneof=AGGREGATE{sum=SUM min=MIN max=MAX}",
     .handler = CmdZinterstore},
    {.name = "zunion",
     .arity = -3,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 keynum 0 1 1",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity =
         "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and "
         "M being the number of elements in the resulting sorted set.",
     .summary = "Add multiple sorted sets",
     .args = "numkeys:integer *key:key#0 ?*weight:integer=WEIGHTS "
             "?aggregate:oneof=AGGREGATE{sum=SUM min=MIN max=MAX} ?withscores=WITHSCORES",
     .handler = CmdZunion},
    {.name = "zunionstore",
     .arity = -4,
     .flags = "write denyoom",
     .acl = "@sortedset",
     .keys = "OW update: index 1 range 0 1 0;RO access: index 2 keynum 0 1 1",
     .group = "sorted-set",
     .since = "2.0.0",
     .complexity =
         "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and "
         "M being the number of elements in the resulting sorted set.",
     .summary = "Add multiple sorted sets and store the resulting sorted set in a new key",
     .args = "destination:key#0 numkeys:integer *key:key#1 ?*weight:integer=WEIGHTS "
             "?aggregate:oneof=AGGREGATE{sum=SUM min=MIN max=MAX}",
     .handler = CmdZunionstore},
    {.name = "zdiff",
     .arity = -3,
     .flags = "readonly",
     .acl = "@sortedset",
     .keys = "RO access: index 1 keynum 0 1 1",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity =
         "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the "
         "sets, N is the size of the first set, and K is the size of the result set.",
     .summary = "Subtract multiple sorted sets",
     .args = "numkeys:integer *key:key#0 ?withscores=WITHSCORES",
     .handler = CmdZdiff},
    {.name = "zdiffstore",
     .arity = -4,
     .flags = "write denyoom",
     .acl = "@sortedset",
     .keys = "OW update: index 1 range 0 1 0;RO access: index 2 keynum 0 1 1",
     .group = "sorted-set",
     .since = "6.2.0",
     .complexity =
         "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the "
         "sets, N is the size of the first set, and K is the size of the result set.",
     .summary = "Subtract multiple sorted sets and store the resulting sorted set in a new key",
     .args = "destination:key#0 numkeys:integer *key:key#1",
     .handler = CmdZdiffstore},
};

}  // namespace

void RegisterZsetAlgebraCommands(Registry& registry) { registry.Add(kZsetAlgebraCommands); }

}  // namespace keel
