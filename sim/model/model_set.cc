// The set family in the model: SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, SMOVE, SSCAN,
// SRANDMEMBER, SPOP, SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF and SDIFFSTORE,
// written from Redis 7.0's t_set.c rules over a std::set.
//
// Encodings: a set is an intset while every member is an integer and there are at most 512
// (set-max-intset-entries, which the workload leaves alone), and once a hashtable stays one;
// results built anew (the STORE forms, SPOP's kept remainder) follow the members they end with,
// except SDIFFSTORE's second algorithm, which adds the first set whole before removing.
//
// Random draws are bounds: SRANDMEMBER's must be members, of the right number, distinct when the
// count is positive; SPOP's are learned from what the engine's set kept (Context::set_after).
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "sim/model/model.h"

namespace keel::model {
namespace {

using Members = std::set<std::string, std::less<>>;

constexpr size_t kIntsetMax = 512;

bool IsInteger(std::string_view text) {
  int64_t ignored = 0;
  return ParseInt64(text, &ignored);
}

// The encoding Redis gives a set built from nothing that ends with `members`.
Encoding BuiltEncoding(const Members& members) {
  if (members.size() > kIntsetMax) return Encoding::kHashtable;
  return std::all_of(members.begin(), members.end(), IsInteger) ? Encoding::kIntset
                                                                : Encoding::kHashtable;
}

Value NewSet(Members members) {
  Value value;
  value.type = ValueType::kSet;
  value.encoding = BuiltEncoding(members);
  value.set = std::move(members);
  return value;
}

// Adds `member` to a set value, converting it as setTypeAdd does. Returns whether it was new.
bool AddMember(Value& value, const std::string& member) {
  if (!value.set.insert(member).second) return false;
  if (value.encoding == Encoding::kIntset &&
      (!IsInteger(member) || value.set.size() > kIntsetMax)) {
    value.encoding = Encoding::kHashtable;
  }
  return true;
}

std::vector<std::string> Listed(const Members& members) {
  return std::vector<std::string>(members.begin(), members.end());
}

// The set at `key` (nullptr when missing); false with *error when another type is there.
bool LookupSet(Call& call, std::string_view key, Value** set, Expected* error) {
  *set = call.Lookup(key);
  if (*set != nullptr && (*set)->type != ValueType::kSet) {
    *error = Error(kWrongType);
    return false;
  }
  return true;
}

// Redis's getRangeLongFromObjectOrReply, with `message` (empty: Redis's own texts).
bool ParseRange(const std::string& text, int64_t min, int64_t max, std::string_view message,
                int64_t* value, Expected* error) {
  if (!ParseInt64(text, value)) {
    *error = Error(message.empty() ? std::string(kNotInteger) : "ERR " + std::string(message));
    return false;
  }
  if (*value < min || *value > max) {
    *error = Error(message.empty() ? "ERR value is out of range, value must between " +
                                         std::to_string(min) + " and " + std::to_string(max)
                                   : "ERR " + std::string(message));
    return false;
  }
  return true;
}

Expected Sadd(Call& call) {
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  if (call.context.allocation_refused) return Error(kOomError);
  if (set == nullptr) {
    call.Store(call.args[1], NewSet({}));
    set = call.Lookup(call.args[1]);
  }
  int64_t added = 0;
  for (size_t i = 2; i < call.args.size(); i++) added += AddMember(*set, call.args[i]) ? 1 : 0;
  return Integer(added);
}

Expected Srem(Call& call) {
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  if (set == nullptr) return Integer(0);
  int64_t removed = 0;
  for (size_t i = 2; i < call.args.size() && !set->set.empty(); i++) {
    removed += static_cast<int64_t>(set->set.erase(call.args[i]));
  }
  if (set->set.empty()) call.db().erase(call.args[1]);
  return Integer(removed);
}

Expected Scard(Call& call) {
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  return Integer(set == nullptr ? 0 : static_cast<int64_t>(set->set.size()));
}

Expected Sismember(Call& call) {
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  return Integer(set != nullptr && set->set.count(call.args[2]) ? 1 : 0);
}

Expected Smismember(Call& call) {
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  std::vector<RespValue> replies;
  for (size_t i = 2; i < call.args.size(); i++) {
    replies.push_back(RespValue::Integer(set != nullptr && set->set.count(call.args[i]) ? 1 : 0));
  }
  return Array(std::move(replies));
}

Expected Smembers(Call& call) {
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  return BulkSetReply(set == nullptr ? std::vector<std::string>{} : Listed(set->set),
                      call.session.resp);
}

Expected Smove(Call& call) {
  Value* source = call.Lookup(call.args[1]);
  Value* destination = call.Lookup(call.args[2]);
  const std::string& member = call.args[3];
  if (source == nullptr) return Integer(0);
  if (source->type != ValueType::kSet ||
      (destination != nullptr && destination->type != ValueType::kSet)) {
    return Error(kWrongType);
  }
  if (call.args[1] == call.args[2]) return Integer(source->set.count(member) ? 1 : 0);
  if (!source->set.count(member)) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  source->set.erase(member);
  if (source->set.empty()) call.db().erase(call.args[1]);
  if (destination == nullptr) {
    call.Store(call.args[2], NewSet({member}));
  } else {
    AddMember(*destination, member);
  }
  return Integer(1);
}

// SSCAN: a page of members (which ones, the model cannot tell: any matching members).
Expected Sscan(Call& call) {
  if (!ValidCursor(call.args[2])) return Error("ERR invalid cursor");
  Value* set = nullptr;
  Expected error;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  if (set == nullptr) {
    return Array({RespValue::Bulk("0"), RespValue::Array({})});
  }
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
  std::vector<std::string> allowed;
  for (const std::string& member : set->set) {
    if (pattern == "*" || GlobMatch(pattern, member)) allowed.push_back(member);
  }
  return ScanPage(std::move(allowed));
}

Expected Srandmember(Call& call) {
  if (call.args.size() > 3) return Error(kSyntaxError);
  int64_t count = 0;
  Expected error;
  if (call.args.size() == 3 &&
      !ParseRange(call.args[2], -LLONG_MAX, LLONG_MAX, "", &count, &error)) {
    return error;
  }
  Value* set = nullptr;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  if (call.args.size() == 2) {
    if (set == nullptr) return call.Null();
    std::vector<Expected> one;
    for (const std::string& member : set->set) one.push_back(Bulk(member));
    return OneOf(std::move(one));
  }
  if (set == nullptr || count == 0) return Array({});
  const auto size = static_cast<int64_t>(set->set.size());
  // Draws that need a temporary set (a positive count below the size) can be refused.
  if (count > 1 && count < size && call.context.allocation_refused) return Error(kOomError);
  if (count < 0) return Draws(Listed(set->set), -count, false);
  return Draws(Listed(set->set), std::min(count, size), true);
}

Expected Spop(Call& call) {
  if (call.args.size() > 3) return Error(kSyntaxError);
  int64_t count = 1;
  Expected error;
  const bool with_count = call.args.size() == 3;
  if (with_count && !ParseRange(call.args[2], 0, LLONG_MAX,
                                "value is out of range, must be positive", &count, &error)) {
    return error;
  }
  Value* set = nullptr;
  if (!LookupSet(call, call.args[1], &set, &error)) return error;
  if (set == nullptr) return with_count ? BulkSetReply({}, call.session.resp) : call.Null();
  if (count == 0) return BulkSetReply({}, call.session.resp);
  const auto size = static_cast<int64_t>(set->set.size());
  const int64_t popped_count = std::min(count, size);
  const int64_t remaining = size - popped_count;
  // Only the large-count case builds a new set, which memory may refuse.
  const bool rebuilds = with_count && count < size && remaining * 5 <= count;
  if (rebuilds && call.context.allocation_refused) return Error(kOomError);
  // What stayed: the engine's set after the command (or, without a driver that can look, the
  // members after the first ones).
  Members kept;
  if (call.context.set_after) {
    call.context.set_after(call.args[1], &kept);
  } else {
    auto it = set->set.begin();
    std::advance(it, popped_count);
    kept.insert(it, set->set.end());
  }
  const bool subset = std::includes(set->set.begin(), set->set.end(), kept.begin(), kept.end());
  if (!subset || static_cast<int64_t>(kept.size()) != remaining) {
    return Error("(model) SPOP must leave " + std::to_string(remaining) +
                 " of the set's members in it");
  }
  std::vector<std::string> popped;
  std::set_difference(set->set.begin(), set->set.end(), kept.begin(), kept.end(),
                      std::back_inserter(popped));
  if (remaining == 0) {
    call.db().erase(call.args[1]);
  } else {
    set->set = std::move(kept);
    if (rebuilds) set->encoding = BuiltEncoding(set->set);
  }
  if (!with_count) return Bulk(popped.front());
  return BulkSetReply(std::move(popped), call.session.resp);
}

// The sets named by args[first..last), nullptr for missing ones; false after WRONGTYPE.
bool LookupSets(Call& call, size_t first, size_t last, std::vector<const Value*>* sets,
                Expected* error) {
  for (size_t i = first; i < last; i++) {
    Value* set = nullptr;
    if (!LookupSet(call, call.args[i], &set, error)) return false;
    sets->push_back(set);
  }
  return true;
}

Members Intersection(const std::vector<const Value*>& sets) {
  for (const Value* set : sets) {
    if (set == nullptr) return {};
  }
  Members result = sets[0]->set;
  for (size_t i = 1; i < sets.size(); i++) {
    Members next;
    std::set_intersection(result.begin(), result.end(), sets[i]->set.begin(), sets[i]->set.end(),
                          std::inserter(next, next.end()));
    result = std::move(next);
  }
  return result;
}

// The STORE forms' write: `result` replaces the destination, or an empty one deletes it.
Expected StoreResult(Call& call, Value value) {
  const std::string& destination = call.args[1];
  const auto size = static_cast<int64_t>(value.set.size());
  call.Lookup(destination);  // setKey's lookup reclaims an expired destination
  if (size == 0) {
    call.db().erase(destination);
  } else {
    call.Store(destination, std::move(value));
  }
  return Integer(size);
}

Expected Sinter(Call& call) {
  std::vector<const Value*> sets;
  Expected error;
  if (!LookupSets(call, 1, call.args.size(), &sets, &error)) return error;
  return BulkSetReply(Listed(Intersection(sets)), call.session.resp);
}

Expected Sinterstore(Call& call) {
  std::vector<const Value*> sets;
  Expected error;
  if (!LookupSets(call, 2, call.args.size(), &sets, &error)) return error;
  // The result is built (allocated) unless a source is missing.
  const bool any_missing = std::find(sets.begin(), sets.end(), nullptr) != sets.end();
  if (!any_missing && call.context.allocation_refused) return Error(kOomError);
  Members result = Intersection(sets);
  return StoreResult(call, NewSet(std::move(result)));
}

Expected Sintercard(Call& call) {
  int64_t keys = 0;
  Expected error;
  if (!ParseRange(call.args[1], 1, LLONG_MAX, "numkeys should be greater than 0", &keys, &error))
    return error;
  if (keys > static_cast<int64_t>(call.args.size()) - 2) {
    return Error("ERR Number of keys can't be greater than number of args");
  }
  int64_t limit = 0;
  for (size_t i = 2 + static_cast<size_t>(keys); i < call.args.size(); i++) {
    if (OptionIs(call.args[i], "limit") && i + 1 < call.args.size()) {
      if (!ParseRange(call.args[++i], 0, LLONG_MAX, "LIMIT can't be negative", &limit, &error))
        return error;
    } else {
      return Error(kSyntaxError);
    }
  }
  std::vector<const Value*> sets;
  if (!LookupSets(call, 2, 2 + static_cast<size_t>(keys), &sets, &error)) return error;
  const auto cardinality = static_cast<int64_t>(Intersection(sets).size());
  return Integer(limit == 0 ? cardinality : std::min(cardinality, limit));
}

// SUNION and SDIFF (and their STORE forms), with SDIFF's choice of algorithm, which decides the
// encoding of a stored result.
Value UnionOrDiff(const std::vector<const Value*>& sets, bool diff) {
  Members result;
  if (!diff) {
    for (const Value* set : sets) {
      if (set != nullptr) result.insert(set->set.begin(), set->set.end());
    }
    return NewSet(std::move(result));
  }
  if (sets[0] == nullptr) return NewSet({});
  for (size_t j = 1; j < sets.size(); j++) {
    if (sets[j] == sets[0]) return NewSet({});
  }
  int64_t one_work = 0;
  int64_t two_work = 0;
  for (const Value* set : sets) {
    if (set == nullptr) continue;
    one_work += static_cast<int64_t>(sets[0]->set.size());
    two_work += static_cast<int64_t>(set->set.size());
  }
  result = sets[0]->set;
  for (size_t j = 1; j < sets.size() && !result.empty(); j++) {
    if (sets[j] == nullptr) continue;
    for (const std::string& member : sets[j]->set) result.erase(member);
  }
  Value value = NewSet(std::move(result));
  // The second algorithm adds the first set whole: an encoding it converted stays converted.
  if (one_work / 2 > two_work && BuiltEncoding(sets[0]->set) == Encoding::kHashtable) {
    value.encoding = Encoding::kHashtable;
  }
  return value;
}

Expected Sunion(Call& call) {
  std::vector<const Value*> sets;
  Expected error;
  if (!LookupSets(call, 1, call.args.size(), &sets, &error)) return error;
  if (call.context.allocation_refused) return Error(kOomError);
  return BulkSetReply(Listed(UnionOrDiff(sets, false).set), call.session.resp);
}

Expected Sdiff(Call& call) {
  std::vector<const Value*> sets;
  Expected error;
  if (!LookupSets(call, 1, call.args.size(), &sets, &error)) return error;
  if (call.context.allocation_refused) return Error(kOomError);
  return BulkSetReply(Listed(UnionOrDiff(sets, true).set), call.session.resp);
}

Expected StoreUnionOrDiff(Call& call, bool diff) {
  std::vector<const Value*> sets;
  Expected error;
  if (!LookupSets(call, 2, call.args.size(), &sets, &error)) return error;
  if (call.context.allocation_refused) return Error(kOomError);
  return StoreResult(call, UnionOrDiff(sets, diff));
}

Expected Sunionstore(Call& call) { return StoreUnionOrDiff(call, false); }
Expected Sdiffstore(Call& call) { return StoreUnionOrDiff(call, true); }

constexpr Command kCommands[] = {
    {"sadd", kAllocates, Sadd},
    {"srem", 0, Srem},
    {"scard", 0, Scard},
    {"sismember", 0, Sismember},
    {"smismember", 0, Smismember},
    {"smembers", 0, Smembers},
    {"smove", kAllocates, Smove},
    {"sscan", 0, Sscan},
    {"srandmember", kAllocates, Srandmember},
    {"spop", kAllocates, Spop},
    {"sinter", 0, Sinter},
    {"sintercard", 0, Sintercard},
    {"sinterstore", kAllocates, Sinterstore},
    {"sunion", kAllocates, Sunion},
    {"sunionstore", kAllocates, Sunionstore},
    {"sdiff", kAllocates, Sdiff},
    {"sdiffstore", kAllocates, Sdiffstore},
};

}  // namespace

std::span<const Command> SetCommands() { return kCommands; }

}  // namespace keel::model
