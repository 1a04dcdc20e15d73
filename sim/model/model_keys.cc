// The generic key family in the model: DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, COPY,
// MOVE, SWAPDB, DBSIZE, FLUSHDB and FLUSHALL. The expiry commands are in model_expire.cc, KEYS,
// SCAN and RANDOMKEY in model_scan.cc, OBJECT in model_object.cc.
#include "sim/model/model.h"

namespace keel::model {
namespace {

// DEL and UNLINK: an expired key is removed by the lookup and is not counted.
Expected Del(Call& call) {
  int64_t deleted = 0;
  for (size_t i = 1; i < call.args.size(); i++) {
    if (call.Lookup(call.args[i]) == nullptr) continue;
    call.db().erase(call.args[i]);
    deleted++;
  }
  return Integer(deleted);
}

// EXISTS and TOUCH count the live keys named, repeats included.
Expected Exists(Call& call) {
  int64_t found = 0;
  for (size_t i = 1; i < call.args.size(); i++) {
    if (call.Lookup(call.args[i]) != nullptr) found++;
  }
  return Integer(found);
}

Expected Type(Call& call) {
  const Value* value = call.Lookup(call.args[1]);
  return Simple(value != nullptr ? TypeName(value->type) : "none");
}

// RENAME and RENAMENX: the same name twice is a no-op once the key is known to exist; the value
// moves with its expiry and encoding.
Expected RenameGeneric(Call& call, bool nx) {
  const std::string& from = call.args[1];
  const std::string& to = call.args[2];
  const Value* source = call.Lookup(from);
  if (source == nullptr) return Error("ERR no such key");
  if (from == to) return nx ? Integer(0) : Ok();
  if (call.Lookup(to) != nullptr && nx) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  Value moved = *source;
  call.db().erase(from);
  call.Store(to, std::move(moved));
  return nx ? Integer(1) : Ok();
}

Expected Rename(Call& call) { return RenameGeneric(call, false); }
Expected Renamenx(Call& call) { return RenameGeneric(call, true); }

// COPY source destination [DB index] [REPLACE]: options left to right (a bad DB index is reported
// before a later syntax error). The copy is a new object: never a shared integer.
Expected Copy(Call& call) {
  int target = call.session.db;
  bool replace = false;
  for (size_t i = 3; i < call.args.size(); i++) {
    if (OptionIs(call.args[i], "REPLACE")) {
      replace = true;
    } else if (OptionIs(call.args[i], "DB") && i + 1 < call.args.size()) {
      Expected error;
      if (!ParseDbIndex(call, call.args[++i], &target, &error)) return error;
    } else {
      return Error(kSyntaxError);
    }
  }
  const std::string& from = call.args[1];
  const std::string& to = call.args[2];
  if (target == call.session.db && from == to) return Error(kSameObject);
  const Value* source = call.Lookup(from);
  if (source == nullptr) return Integer(0);
  Value copy = *source;
  if (call.model.Lookup(target, to, call.now_ms()) != nullptr && !replace) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  copy.shared = false;
  call.model.db(target)[to] = std::move(copy);
  // A copy over an equal value changes nothing the model sees, but Redis touches the key.
  call.model.MarkWritten(target, to);
  return Integer(1);
}

// MOVE key db: the value and its expiry go to the other database unless the key lives there.
Expected Move(Call& call) {
  int target = 0;
  Expected error;
  if (!ParseDbIndex(call, call.args[2], &target, &error)) return error;
  if (target == call.session.db) return Error(kSameObject);
  const std::string& key = call.args[1];
  const Value* source = call.Lookup(key);
  if (source == nullptr) return Integer(0);
  Value moved = *source;
  if (call.model.Lookup(target, key, call.now_ms()) != nullptr) return Integer(0);
  if (call.context.allocation_refused) return Error(kOomError);
  call.db().erase(key);
  call.model.db(target)[key] = std::move(moved);
  return Integer(1);
}

// SWAPDB: each index is checked as a C int with its own error text, then both against the
// database count.
bool ParseSwapIndex(const std::string& text, std::string_view error, int* index, Expected* reply) {
  int64_t value = 0;
  if (!ParseInt64(text, &value) || value < INT32_MIN || value > INT32_MAX) {
    *reply = Error(error);
    return false;
  }
  *index = static_cast<int>(value);
  return true;
}

Expected Swapdb(Call& call) {
  int first = 0;
  int second = 0;
  Expected error;
  if (!ParseSwapIndex(call.args[1], "ERR invalid first DB index", &first, &error) ||
      !ParseSwapIndex(call.args[2], "ERR invalid second DB index", &second, &error)) {
    return error;
  }
  const int count = call.model.database_count();
  if (first < 0 || first >= count || second < 0 || second >= count) {
    return Error(kDbIndexOutOfRange);
  }
  call.model.SwapDatabases(first, second);
  return Ok();
}

// From the keys live now to every key not yet reclaimed: Redis counts expired keys until its lazy
// or active expiry removes them, and when that happens is the engine's choice.
Expected Dbsize(Call& call) {
  const int64_t live = call.model.LiveKeys(call.session.db, call.now_ms());
  return IntegerRange(live, static_cast<int64_t>(call.db().size()));
}

bool FlushOptionValid(Call& call) {
  return call.args.size() == 1 || (call.args.size() == 2 && (OptionIs(call.args[1], "SYNC") ||
                                                             OptionIs(call.args[1], "ASYNC")));
}

Expected Flushdb(Call& call) {
  if (!FlushOptionValid(call)) return Error(kSyntaxError);
  call.db().clear();
  return Ok();
}

Expected Flushall(Call& call) {
  if (!FlushOptionValid(call)) return Error(kSyntaxError);
  for (int i = 0; i < call.model.database_count(); i++) call.model.db(i).clear();
  return Ok();
}

constexpr Command kCommands[] = {
    {"del", 0, Del},
    {"unlink", 0, Del},
    {"exists", 0, Exists},
    {"touch", 0, Exists},
    {"type", 0, Type},
    {"rename", kAllocates, Rename},
    {"renamenx", kAllocates, Renamenx},
    {"copy", kAllocates, Copy},
    {"move", kAllocates, Move},
    {"swapdb", 0, Swapdb},
    {"dbsize", 0, Dbsize},
    {"flushdb", 0, Flushdb},
    {"flushall", 0, Flushall},
};

}  // namespace

std::span<const Command> KeyCommands() { return kCommands; }

}  // namespace keel::model
