// The list family in the model: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LINDEX, LRANGE,
// LSET, LINSERT, LREM, LTRIM, LPOS, LMOVE, RPOPLPUSH, LMPOP and the blocking BLPOP, BRPOP,
// BLMPOP, BLMOVE and BRPOPLPUSH, written from Redis 7.0's t_list.c
// rules over a std::deque: the order each command checks its arguments and the key, what a missing
// key answers, and that a list left empty is deleted. Redis 7.0 reports every list as
// "quicklist". A write that allocates has an out-of-memory outcome after its checks (nothing
// written, the OOM error).
#include <algorithm>
#include <climits>
#include <cmath>

#include "sim/model/model.h"

namespace keel::model {
namespace {

constexpr std::string_view kMustBePositive = "ERR value is out of range, must be positive";

// The live list at `key`, or nullptr when missing; `*wrong_type` when the key holds another type.
Value* FindList(Call& call, const std::string& key, bool* wrong_type) {
  Value* value = call.Lookup(key);
  *wrong_type = value != nullptr && value->type != ValueType::kList;
  return *wrong_type ? nullptr : value;
}

Value NewList() {
  Value value;
  value.type = ValueType::kList;
  value.encoding = Encoding::kQuicklist;
  return value;
}

Expected NullArray(const Call& call) {
  Expected expected;
  expected.value.type = call.session.resp == 2 ? RespType::kNullArray : RespType::kNull;
  return expected;
}

Expected Bulks(const std::deque<std::string>& list, size_t start, size_t count, bool reverse) {
  std::vector<RespValue> elements;
  for (size_t i = 0; i < count; i++) {
    elements.push_back(RespValue::Bulk(list[reverse ? start + count - 1 - i : start + i]));
  }
  return Array(std::move(elements));
}

// Deletes `key` when its list is empty, as every list command does.
void DropIfEmpty(Call& call, const std::string& key) {
  auto it = call.db().find(key);
  if (it != call.db().end() && it->second.type == ValueType::kList && it->second.list.empty()) {
    call.db().erase(it);
  }
}

Expected Push(Call& call, bool head, bool existing_only) {
  bool wrong_type = false;
  Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr && existing_only) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  if (list == nullptr) {
    call.Store(call.args[1], NewList());
    list = &call.db()[call.args[1]];
  }
  for (size_t i = 2; i < call.args.size(); i++) {
    head ? list->list.push_front(call.args[i]) : list->list.push_back(call.args[i]);
  }
  return Integer(static_cast<int64_t>(list->list.size()));
}

Expected Lpush(Call& call) { return Push(call, true, false); }
Expected Rpush(Call& call) { return Push(call, false, false); }
Expected Lpushx(Call& call) { return Push(call, true, true); }
Expected Rpushx(Call& call) { return Push(call, false, true); }

Expected Pop(Call& call, bool head) {
  const std::string prefix = head ? "lpop" : "rpop";
  if (call.args.size() > 3) return Error(WrongArity(prefix));
  const bool has_count = call.args.size() == 3;
  int64_t count = 0;
  if (has_count && (!ParseInt64(call.args[2], &count) || count < 0)) {
    return Error(kMustBePositive);
  }
  bool wrong_type = false;
  Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return has_count ? NullArray(call) : call.Null();
  if (has_count && count == 0) return Array({});
  std::deque<std::string>& items = list->list;
  const size_t taken = has_count ? std::min(static_cast<size_t>(count), items.size()) : 1;
  const size_t start = head ? 0 : items.size() - taken;
  Expected reply =
      has_count ? Bulks(items, start, taken, !head) : Bulk(head ? items.front() : items.back());
  items.erase(items.begin() + static_cast<long>(start),
              items.begin() + static_cast<long>(start + taken));
  DropIfEmpty(call, call.args[1]);
  return reply;
}

Expected Lpop(Call& call) { return Pop(call, true); }
Expected Rpop(Call& call) { return Pop(call, false); }

Expected Llen(Call& call) {
  bool wrong_type = false;
  const Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  return Integer(list == nullptr ? 0 : static_cast<int64_t>(list->list.size()));
}

bool Resolve(int64_t index, size_t size, size_t* at) {
  const auto length = static_cast<int64_t>(size);
  if (index < 0) index += length;
  if (index < 0 || index >= length) return false;
  *at = static_cast<size_t>(index);
  return true;
}

Expected Lindex(Call& call) {
  bool wrong_type = false;
  const Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return call.Null();
  int64_t index = 0;
  if (!ParseInt64(call.args[2], &index)) return Error(kNotInteger);
  size_t at = 0;
  return Resolve(index, list->list.size(), &at) ? Bulk(list->list[at]) : call.Null();
}

Expected Lset(Call& call) {
  bool wrong_type = false;
  Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return Error("ERR no such key");
  int64_t index = 0;
  if (!ParseInt64(call.args[2], &index)) return Error(kNotInteger);
  size_t at = 0;
  if (!Resolve(index, list->list.size(), &at)) return Error("ERR index out of range");
  if (call.context.allocation_refused) return Error(kOomError);
  list->list[at] = call.args[3];
  return Ok();
}

// LRANGE's and LTRIM's clamping; false for an empty range.
bool Range(int64_t start, int64_t end, size_t size, size_t* first, size_t* count) {
  const auto length = static_cast<int64_t>(size);
  if (start < 0) start += length;
  if (end < 0) end += length;
  if (start < 0) start = 0;
  if (start > end || start >= length) return false;
  if (end >= length) end = length - 1;
  *first = static_cast<size_t>(start);
  *count = static_cast<size_t>(end - start + 1);
  return true;
}

Expected Lrange(Call& call) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseInt64(call.args[2], &start) || !ParseInt64(call.args[3], &end)) {
    return Error(kNotInteger);
  }
  bool wrong_type = false;
  const Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  size_t first = 0;
  size_t count = 0;
  if (list == nullptr || !Range(start, end, list->list.size(), &first, &count)) return Array({});
  return Bulks(list->list, first, count, false);
}

Expected Ltrim(Call& call) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseInt64(call.args[2], &start) || !ParseInt64(call.args[3], &end)) {
    return Error(kNotInteger);
  }
  bool wrong_type = false;
  Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return Ok();
  size_t first = 0;
  size_t count = 0;
  if (!Range(start, end, list->list.size(), &first, &count)) {
    list->list.clear();
  } else {
    std::deque<std::string> kept(list->list.begin() + static_cast<long>(first),
                                 list->list.begin() + static_cast<long>(first + count));
    list->list = std::move(kept);
  }
  DropIfEmpty(call, call.args[1]);
  return Ok();
}

Expected Linsert(Call& call) {
  bool after = false;
  if (OptionIs(call.args[2], "after")) {
    after = true;
  } else if (!OptionIs(call.args[2], "before")) {
    return Error(kSyntaxError);
  }
  bool wrong_type = false;
  Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return Integer(0);
  auto pivot = std::find(list->list.begin(), list->list.end(), call.args[3]);
  if (pivot == list->list.end()) return Integer(-1);
  if (call.context.allocation_refused) return Error(kOomError);
  list->list.insert(after ? pivot + 1 : pivot, call.args[4]);
  return Integer(static_cast<int64_t>(list->list.size()));
}

Expected Lrem(Call& call) {
  int64_t wanted = 0;
  if (!ParseInt64(call.args[2], &wanted)) return Error(kNotInteger);
  bool wrong_type = false;
  Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return Integer(0);
  std::deque<std::string>& items = list->list;
  // Redis negates in a long: LONG_MIN stays negative and never equals a count, so it means all.
  const uint64_t limit = wanted == INT64_MIN ? 0
                         : wanted < 0        ? static_cast<uint64_t>(-wanted)
                                             : static_cast<uint64_t>(wanted);
  int64_t removed = 0;
  if (wanted >= 0) {
    for (size_t i = 0; i < items.size();) {
      if (items[i] == call.args[3] && (limit == 0 || static_cast<uint64_t>(removed) < limit)) {
        items.erase(items.begin() + static_cast<long>(i));
        removed++;
      } else {
        i++;
      }
    }
  } else {
    for (size_t i = items.size(); i > 0; i--) {
      if (items[i - 1] == call.args[3] && (limit == 0 || static_cast<uint64_t>(removed) < limit)) {
        items.erase(items.begin() + static_cast<long>(i - 1));
        removed++;
      }
    }
  }
  DropIfEmpty(call, call.args[1]);
  return Integer(removed);
}

Expected Lpos(Call& call) {
  int64_t rank = 1;
  int64_t count = -1;
  int64_t maxlen = 0;
  for (size_t i = 3; i < call.args.size(); i++) {
    const bool has_value = i + 1 < call.args.size();
    if (OptionIs(call.args[i], "RANK") && has_value) {
      if (!ParseInt64(call.args[++i], &rank)) return Error(kNotInteger);
      if (rank == 0) {
        return Error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
      }
    } else if (OptionIs(call.args[i], "COUNT") && has_value) {
      if (!ParseInt64(call.args[++i], &count) || count < 0) {
        return Error("ERR COUNT can't be negative");
      }
    } else if (OptionIs(call.args[i], "MAXLEN") && has_value) {
      if (!ParseInt64(call.args[++i], &maxlen) || maxlen < 0) {
        return Error("ERR MAXLEN can't be negative");
      }
    } else {
      return Error(kSyntaxError);
    }
  }
  bool wrong_type = false;
  const Value* list = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (list == nullptr) return count != -1 ? Array({}) : call.Null();
  const bool from_tail = rank < 0;
  const uint64_t skip = from_tail ? (rank == INT64_MIN ? 1 : static_cast<uint64_t>(-rank))
                                  : static_cast<uint64_t>(rank);
  const size_t length = list->list.size();
  std::vector<RespValue> found;
  uint64_t matches = 0;
  for (size_t scanned = 0; scanned < length; scanned++) {
    if (maxlen != 0 && scanned >= static_cast<uint64_t>(maxlen)) break;
    const size_t index = from_tail ? length - 1 - scanned : scanned;
    if (list->list[index] != call.args[2] || ++matches < skip) continue;
    found.push_back(RespValue::Integer(static_cast<int64_t>(index)));
    if (count == -1) break;
    if (count != 0 && found.size() >= static_cast<uint64_t>(count)) break;
  }
  if (count != -1) return Array(std::move(found));
  return found.empty() ? call.Null() : Expected{.value = found.front()};
}

bool ParseEnd(const std::string& arg, bool* head) {
  if (OptionIs(arg, "right")) {
    *head = false;
    return true;
  }
  *head = true;
  return OptionIs(arg, "left");
}

// LMOVE and RPOPLPUSH: the source's end to the destination's, one list or two.
Expected Move(Call& call, bool from_head, bool to_head) {
  bool wrong_type = false;
  Value* source = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (source == nullptr) return call.Null();
  Value* target = FindList(call, call.args[2], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (call.context.allocation_refused) return Error(kOomError);
  std::string value = from_head ? source->list.front() : source->list.back();
  from_head ? source->list.pop_front() : source->list.pop_back();
  if (target == nullptr) {
    call.Store(call.args[2], NewList());
    target = &call.db()[call.args[2]];
  }
  to_head ? target->list.push_front(value) : target->list.push_back(value);
  DropIfEmpty(call, call.args[1]);
  return Bulk(value);
}

Expected Lmove(Call& call) {
  bool from_head = false;
  bool to_head = false;
  if (!ParseEnd(call.args[3], &from_head) || !ParseEnd(call.args[4], &to_head)) {
    return Error(kSyntaxError);
  }
  return Move(call, from_head, to_head);
}

Expected Rpoplpush(Call& call) { return Move(call, false, true); }

// LMPOP's and BLMPOP's numkeys key... LEFT|RIGHT [COUNT n] from `numkeys_at`: the keys are
// [*first, *end); false with the error in `*error`.
bool ParseMpop(const Call& call, size_t numkeys_at, size_t* first, size_t* end, bool* head,
               int64_t* count, Expected* error) {
  int64_t keys = 0;
  if (!ParseInt64(call.args[numkeys_at], &keys) || keys < 1) {
    *error = Error("ERR numkeys should be greater than 0");
    return false;
  }
  if (static_cast<uint64_t>(keys) >= call.args.size() - numkeys_at - 1) {
    *error = Error(kSyntaxError);
    return false;
  }
  *first = numkeys_at + 1;
  *end = *first + static_cast<size_t>(keys);
  if (!ParseEnd(call.args[*end], head)) {
    *error = Error(kSyntaxError);
    return false;
  }
  *count = -1;
  for (size_t i = *end + 1; i < call.args.size(); i++) {
    if (*count == -1 && OptionIs(call.args[i], "COUNT") && i + 1 < call.args.size()) {
      if (!ParseInt64(call.args[++i], count) || *count < 1) {
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

// Pops up to `count` elements of `key`'s list: [key, [elements]].
Expected PopRange(Call& call, const std::string& key, Value* list, bool head, int64_t count) {
  std::deque<std::string>& items = list->list;
  const size_t taken = std::min(static_cast<size_t>(count), items.size());
  const size_t start = head ? 0 : items.size() - taken;
  Expected popped = Bulks(items, start, taken, !head);
  items.erase(items.begin() + static_cast<long>(start),
              items.begin() + static_cast<long>(start + taken));
  DropIfEmpty(call, key);
  return Array({RespValue::Bulk(key), popped.value});
}

Expected Lmpop(Call& call) {
  size_t first = 0;
  size_t end = 0;
  bool head = false;
  int64_t count = 0;
  Expected error;
  if (!ParseMpop(call, 1, &first, &end, &head, &count, &error)) return error;
  for (size_t i = first; i < end; i++) {
    bool wrong_type = false;
    Value* list = FindList(call, call.args[i], &wrong_type);
    if (wrong_type) return Error(kWrongType);
    if (list == nullptr) continue;
    return PopRange(call, call.args[i], list, head, count);
  }
  return NullArray(call);
}

// --- The blocking forms ---------------------------------------------------------------------
// Each takes at once when it can; otherwise it blocks (inside EXEC it answers as a timeout: a
// null array, or BLMOVE's null). A blocked command runs again when a key may serve it, and then
// takes from that key only (Context::serving_key).

// BLPOP/BRPOP (`count` 0: the reply is [key, element]) and BLMPOP.
Expected BlockingPop(Call& call, size_t first, size_t end, bool head, int64_t count,
                     const std::string& timeout) {
  Expected error;
  if (!ParseBlockTimeout(timeout, &error)) return error;
  const std::string& serving = call.context.serving_key;
  for (size_t i = first; i < end; i++) {
    const std::string& key = call.args[i];
    if (!serving.empty() && key != serving) continue;
    bool wrong_type = false;
    Value* list = FindList(call, key, &wrong_type);
    if (wrong_type) return Error(kWrongType);
    if (list == nullptr) continue;
    if (count > 0) return PopRange(call, key, list, head, count);
    std::string value = head ? list->list.front() : list->list.back();
    head ? list->list.pop_front() : list->list.pop_back();
    DropIfEmpty(call, key);
    return Array({RespValue::Bulk(key), RespValue::Bulk(value)});
  }
  return call.context.may_block ? Blocks() : NullArray(call);
}

Expected Blpop(Call& call) {
  return BlockingPop(call, 1, call.args.size() - 1, true, 0, call.args.back());
}

Expected Brpop(Call& call) {
  return BlockingPop(call, 1, call.args.size() - 1, false, 0, call.args.back());
}

Expected Blmpop(Call& call) {
  size_t first = 0;
  size_t end = 0;
  bool head = false;
  int64_t count = 0;
  Expected error;
  if (!ParseMpop(call, 2, &first, &end, &head, &count, &error)) return error;
  return BlockingPop(call, first, end, head, count, call.args[1]);
}

Expected BlockingMove(Call& call, bool from_head, bool to_head, const std::string& timeout) {
  Expected error;
  if (!ParseBlockTimeout(timeout, &error)) return error;
  bool wrong_type = false;
  Value* source = FindList(call, call.args[1], &wrong_type);
  if (wrong_type) return Error(kWrongType);
  if (source == nullptr) return call.context.may_block ? Blocks() : call.Null();
  return Move(call, from_head, to_head);
}

Expected Blmove(Call& call) {
  bool from_head = false;
  bool to_head = false;
  if (!ParseEnd(call.args[3], &from_head) || !ParseEnd(call.args[4], &to_head)) {
    return Error(kSyntaxError);
  }
  return BlockingMove(call, from_head, to_head, call.args[5]);
}

Expected Brpoplpush(Call& call) { return BlockingMove(call, false, true, call.args[3]); }

constexpr uint32_t kPushFlags = kAllocates;  // write and denyoom come from the registry

constexpr Command kCommands[] = {
    {"lpush", kPushFlags, Lpush},
    {"rpush", kPushFlags, Rpush},
    {"lpushx", kPushFlags, Lpushx},
    {"rpushx", kPushFlags, Rpushx},
    {"lpop", 0, Lpop},
    {"rpop", 0, Rpop},
    {"llen", 0, Llen},
    {"lindex", 0, Lindex},
    {"lrange", 0, Lrange},
    {"lset", kPushFlags, Lset},
    {"linsert", kPushFlags, Linsert},
    {"lrem", 0, Lrem},
    {"ltrim", 0, Ltrim},
    {"lpos", 0, Lpos},
    {"lmove", kPushFlags, Lmove},
    {"rpoplpush", kPushFlags, Rpoplpush},
    {"lmpop", 0, Lmpop},
    {"blpop", 0, Blpop},
    {"brpop", 0, Brpop},
    {"blmpop", 0, Blmpop},
    {"blmove", kPushFlags, Blmove},
    {"brpoplpush", kPushFlags, Brpoplpush},
};

}  // namespace

bool ParseBlockTimeout(const std::string& text, Expected* error) {
  long double seconds = 0;
  if (!ParseLongDouble(text, &seconds)) {
    *error = Error("ERR timeout is not a float or out of range");
    return false;
  }
  const long double ms = std::ceil(seconds * 1000.0L);
  // Beyond int64 the conversion gives INT64_MIN: negative.
  if (!(ms >= -9223372036854775808.0L && ms < 9223372036854775808.0L) || ms < 0) {
    *error = Error("ERR timeout is negative");
    return false;
  }
  return true;
}

std::span<const Command> ListCommands() { return kCommands; }

}  // namespace keel::model
