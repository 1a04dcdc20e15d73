// StateHistory: every state the keyspace went through, unit by unit, for the crash check.
//
// The simulated replica (replica.h) applies what the primary propagates, one execution unit at a
// time (a command, or a MULTI ... EXEC block). StateHistory watches the replica's keyspace and,
// at the end of each unit, records the keys the unit changed with their new content: so state N,
// the keyspace after the first N units, can be rebuilt for any N. These are the states that
// replaying a prefix of the AOF (or loading an RDB file saved between two units) may produce,
// and nothing else.
//
// After a simulated crash the recovered keyspace must be one of them (CheckRecovered): a state
// that no prefix of the history explains is a write applied out of order, half a transaction or
// a corrupt load; and it must be a late enough one: with appendfsync always, at least the state
// of every reply a client received (durability); with everysec, of every reply received at least
// a second of running before the crash.
//
// Contents are compared, not encodings or orders a reload may change: a list's elements, a set's
// members and a hash's pairs sorted, a sorted set's members in order with -0 as 0 (digest.h's
// DigestOptions says why), a string's bytes; each with its type and expiry. A key is compared only
// while it is live at the recovery's time (a key past its expiry may or may not be reloaded).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/db/keyspace_observer.h"
#include "engine/server/engine.h"

namespace keel::sim {

class StateHistory final : public KeyspaceObserver {
 public:
  // A key's content as the check compares it: type, a hash of its canonical content, and its
  // expiry (-1: none).
  struct KeyState {
    int type = 0;
    uint64_t content_hash = 0;
    int64_t expire_at_ms = -1;
    bool operator==(const KeyState&) const = default;
  };
  using Key = std::pair<int, std::string>;  // database, key

  // The state of one key of `engine`'s database `db`, or false when it holds no such key.
  static bool StateOf(const Engine& engine, int db, std::string_view key, KeyState* state);

  // KeyspaceObserver (of the replica's keyspace): what the running unit changes.
  void KeyTouched(int db_index, std::string_view key) override;
  // A write lookup: a stream's group commands (XACK, XCLAIM, XGROUP) change it without touching
  // it (Redis signals no modified key for them), so the history looks at every key written to.
  void BeforeKeyChange(const Database& db, std::string_view key, uint64_t hash) override;
  void DatabaseFlushed(int db_index) override;
  void DatabasesSwapped(int first, int second) override;

  // Ends the running unit: records what it changed in `engine` (the replica's), and counts it.
  void EndUnit(const Engine& engine);
  // Units ended so far: state units() is the replica's keyspace now.
  uint64_t units() const { return units_; }

  // What a recovery was checked against, for the report.
  struct Verdict {
    std::string failure;   // empty when the recovered keyspace is a late enough state
    uint64_t matched = 0;  // the latest state it equals (when it equals one)
  };
  // Whether `recovered` holds state N of the history for some N >= units_min, comparing only the
  // keys live at `now_ms` on either side.
  Verdict CheckRecovered(const Engine& recovered, int64_t now_ms, uint64_t units_min) const;

 private:
  struct Change {
    uint64_t unit = 0;  // the unit after which the key holds `state` (or nothing)
    Key key;
    bool present = false;
    KeyState state;
  };
  void Record(Key key, bool present, const KeyState& state);

  std::set<Key> touched_;                                      // keys the running unit changed
  std::set<std::pair<const Database*, std::string>> written_;  // keys it looked up to write
  std::set<int> whole_dbs_;      // databases the running unit flushed or swapped
  std::map<Key, KeyState> now_;  // state units_: what the replica holds
  std::vector<Change> changes_;  // in unit order
  uint64_t units_ = 0;
};

}  // namespace keel::sim
