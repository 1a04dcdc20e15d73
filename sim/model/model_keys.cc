// The generic key family in the model: DEL, EXISTS, DBSIZE, FLUSHDB, FLUSHALL.
#include "sim/model/model.h"

namespace keel::model {
namespace {

Expected Del(Call& call) {
  int64_t deleted = 0;
  for (size_t i = 1; i < call.args.size(); i++) {
    // An expired key is removed by the lookup and is not counted.
    if (call.model.Lookup(call.session.db, call.args[i], call.now_ms()) == nullptr) continue;
    call.db().erase(call.args[i]);
    deleted++;
  }
  return Integer(deleted);
}

Expected Exists(Call& call) {
  int64_t found = 0;
  for (size_t i = 1; i < call.args.size(); i++) {
    if (call.model.Lookup(call.session.db, call.args[i], call.now_ms()) != nullptr) found++;
  }
  return Integer(found);
}

// From the keys live now to every key not yet reclaimed: Redis counts expired keys until its lazy
// or active expiry removes them, and when that happens is the engine's choice.
Expected Dbsize(Call& call) {
  const int64_t live = call.model.LiveKeys(call.session.db, call.now_ms());
  return IntegerRange(live, static_cast<int64_t>(call.db().size()));
}

bool FlushOptionValid(Call& call) {
  return call.args.size() == 1 ||
         (call.args.size() == 2 &&
          (EqualsIgnoreCase(call.args[1], "SYNC") || EqualsIgnoreCase(call.args[1], "ASYNC")));
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
    {"del", -2, kWrite, Del},         {"exists", -2, 0, Exists},          {"dbsize", 1, 0, Dbsize},
    {"flushdb", -1, kWrite, Flushdb}, {"flushall", -1, kWrite, Flushall},
};

}  // namespace

std::span<const Command> KeyCommands() { return kCommands; }

}  // namespace keel::model
