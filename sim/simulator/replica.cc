#include "sim/simulator/replica.h"

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "engine/db/types/hash.h"
#include "engine/db/types/set.h"
#include "engine/db/types/zset.h"
#include "engine/db/value_ops.h"
#include "engine/resp/resp_value.h"
#include "sim/simulator/stream_canonical.h"
#include "sim/trace.h"

namespace keel::sim {
namespace {

std::string Describe(std::span<const std::string_view> args) {
  std::string text;
  for (std::string_view arg : args) {
    if (!text.empty()) text += ' ';
    text += EscapeBytes(arg, 60);
  }
  return text;
}

using KeyState = std::tuple<int, std::string, int64_t>;  // type, serialised value, expiry

// A set's members in order: a hashtable's serialised order is its own hash order (each set has
// its own seed), which a replica need not share. Nor its encoding: SPOP with a large count
// rebuilds the primary's set (an intset again when integers are left) but replays as SREMs,
// which leave the replica's a hashtable, as between Redis's primaries and replicas.
std::string CanonicalSet(const Entry& entry) {
  std::set<std::string> members;
  static_cast<const SetValue*>(EntryObject(entry))->ForEach([&](std::string_view member) {
    members.emplace(member);
  });
  std::string text = "set";
  for (const std::string& member : members) text += "|" + member;
  return text;
}

// A hashtable hash's pairs sorted (its serialised order is its own table's, as for a set).
std::string CanonicalHash(const Entry& entry) {
  std::set<std::pair<std::string, std::string>> pairs;
  static_cast<const HashValue*>(EntryObject(entry))
      ->ForEach(
          [&](std::string_view field, std::string_view value) { pairs.emplace(field, value); });
  std::string text = "hash";
  for (const auto& [field, value] : pairs) text += "|" + field + "=" + value;
  return text;
}

// A sorted set's members and scores in order, whatever its encoding: SORT turns the primary's
// listpack into a skiplist and, reading only, is not replayed (Redis's replicas keep theirs).
// A score of -0 is written 0: a skiplist keeps the sign, a listpack stores the integer 0, so a
// ZADD of -0 after such a SORT leaves the primary with -0 and the replica with 0, as in Redis.
std::string CanonicalZset(const Entry& entry) {
  std::string text = "zset";
  static_cast<const ZsetValue*>(EntryObject(entry))
      ->ForEach([&](std::string_view member, double score) {
        char number[64];
        std::snprintf(number, sizeof(number), "%.17g", score == 0 ? 0.0 : score);
        text += "|" + std::string(member) + "=" + number;
      });
  return text;
}

// Each value by its serialiser (its RDB encoding, uncompressed so that a difference reads in the
// report): the comparison holds for every type that has one, not only for strings.
KeyState StateOf(const Entry& entry) {
  std::string serialised;
  if (entry.type() == ValueType::kSet) {
    serialised = CanonicalSet(entry);
  } else if (entry.type() == ValueType::kZSet) {
    serialised = CanonicalZset(entry);
  } else if (entry.type() == ValueType::kStream) {
    serialised = CanonicalStreamContent(entry);
  } else if (entry.type() == ValueType::kHash &&
             !static_cast<const HashValue*>(EntryObject(entry))->is_listpack()) {
    serialised = CanonicalHash(entry);
  } else {
    SerialiseValue(entry, {.compress = false}, &serialised);
  }
  return KeyState{static_cast<int>(entry.type()), std::move(serialised), entry.expire_at_ms()};
}

std::map<std::string, KeyState> Contents(const Database& db) {
  std::map<std::string, KeyState> contents;
  db.ForEach(
      [&](const Entry& entry) { contents.emplace(std::string(entry.key()), StateOf(entry)); });
  return contents;
}

std::string DescribeState(const KeyState& state) {
  return "\"" + EscapeBytes(std::get<1>(state), 40) + "\" (type " +
         std::to_string(std::get<0>(state)) + ", expiry " + std::to_string(std::get<2>(state)) +
         ")";
}

// The report of a key on which the two sides differ (nullopt: not held), or empty when they agree.
std::string Difference(int db, std::string_view key, const std::optional<KeyState>& primary,
                       const std::optional<KeyState>& replica, std::string_view last_applied) {
  if (primary == replica) return {};
  std::string text = "replica db " + std::to_string(db) + " key \"" + EscapeBytes(key, 60) + "\": ";
  if (!primary.has_value()) {
    text += "the replica holds " + DescribeState(*replica) + ", the primary nothing";
  } else {
    text += "the primary holds " + DescribeState(*primary) + ", the replica " +
            (replica.has_value() ? DescribeState(*replica) : std::string("nothing"));
  }
  return text + " (last applied: " + std::string(last_applied) + ")";
}

}  // namespace

Replica::Replica(Engine& primary, SimEnv& primary_env, int64_t lag_ms, uint64_t seed)
    : primary_(primary), primary_env_(primary_env), lag_ms_(lag_ms), env_(seed) {
  Config config;
  std::string error;
  const bool databases_set = config.SetFromCommand(
      *Config::Find("databases"), std::to_string(primary.database_count()), &error);
  KEEL_ASSERT(databases_set);
  engine_ = std::make_unique<Engine>(env_, std::move(config));
  client_ = engine_->NewClient(0, nullptr);
  primary_.keyspace().propagation().AddSink(this, kPropagateReplicas);
  primary_writes_ = std::make_unique<Writes>(primary_, *this);
  replica_writes_ = std::make_unique<Writes>(*engine_, *this);
  primary_.keyspace().AddObserver(primary_writes_.get());
  engine_->keyspace().AddObserver(replica_writes_.get());
}

Replica::~Replica() {
  primary_.keyspace().propagation().RemoveSink(this);
  primary_.keyspace().RemoveObserver(primary_writes_.get());
  engine_->keyspace().RemoveObserver(replica_writes_.get());
  if (history_ != nullptr) engine_->keyspace().RemoveObserver(history_);
}

void Replica::RecordHistory(StateHistory* history) {
  KEEL_ASSERT(history_ == nullptr);
  history_ = history;
  engine_->keyspace().AddObserver(history_);
}

void Replica::Propagate(int db, std::span<const std::string_view> args) {
  // Applying a unit's commands in order, with nothing between them, is what its MULTI ... EXEC
  // asks; the history sees the unit end at EXEC only.
  if (args.size() == 1 && EqualsIgnoreCase(args[0], "MULTI")) {
    in_transaction_ = true;
    return;
  }
  if (args.size() == 1 && EqualsIgnoreCase(args[0], "EXEC")) {
    in_transaction_ = false;
    if (history_ != nullptr) history_->EndUnit(*engine_);
    return;
  }
  KEEL_ASSERT(db >= 0 && db < engine_->database_count());
  // The replica's clock: the primary's now, plus the lag (it may step back with the primary's).
  const int64_t target_us = primary_env_.clock().WallUs() + lag_ms_ * 1000;
  env_.sim_clock().JumpWall(target_us - env_.clock().WallUs());
  env_.sim_clock().Advance(1);
  client_->db_index = db;
  const uint64_t errors_before = client_->reply().error_count();
  engine_->Replay(*client_, args, kCallFromPrimary);
  applied_++;
  last_applied_ = Describe(args);
  if (client_->reply().error_count() != errors_before && error_.empty()) {
    error_ = "the replica refused \"" + last_applied_ + "\" (db " + std::to_string(db) + ")";
  }
  // Nobody reads the replica's replies.
  client_->output().Clear();
  if (history_ != nullptr && !in_transaction_) history_->EndUnit(*engine_);
}

void Replica::Writes::BeforeKeyChange(const Database& db, std::string_view key, uint64_t) {
  for (int index = 0; index < engine_.database_count(); index++) {
    if (&engine_.database(index) == &db) {
      replica_.NoteWrite(index, key);
      return;
    }
  }
  replica_.compare_all_ = true;  // a database of no index: nothing to go by
}

void Replica::Writes::KeyTouched(int db_index, std::string_view key) {
  replica_.NoteWrite(db_index, key);
}

void Replica::Writes::DatabaseFlushed(int) { replica_.compare_all_ = true; }

void Replica::Writes::DatabasesSwapped(int, int) { replica_.compare_all_ = true; }

void Replica::NoteWrite(int db, std::string_view key) {
  if (compare_all_) return;
  if (written_.size() >= kWrittenKeysMax) {
    compare_all_ = true;
    written_.clear();
    return;
  }
  written_.emplace(db, std::string(key));
}

std::string Replica::Compare() {
  if (!error_.empty()) return error_;
  compares_++;
  std::string difference;
  if (compare_all_ || compares_ % kFullCompareEvery == 0) {
    difference = CompareAll();
  } else {
    for (const auto& [db, key] : written_) {
      difference = CompareKey(db, key);
      if (!difference.empty()) break;
    }
  }
  // A difference is reported once: the run stops at the first failure.
  written_.clear();
  compare_all_ = false;
  return difference;
}

std::string Replica::CompareKey(int db, const std::string& key) const {
  const Entry* primary = primary_.database(db).Find(key);
  const Entry* replica = engine_->database(db).Find(key);
  if (primary == nullptr && replica == nullptr) return {};
  const std::optional<KeyState> primary_state =
      primary != nullptr ? std::optional<KeyState>(StateOf(*primary)) : std::nullopt;
  const std::optional<KeyState> replica_state =
      replica != nullptr ? std::optional<KeyState>(StateOf(*replica)) : std::nullopt;
  return Difference(db, key, primary_state, replica_state, last_applied_);
}

std::string Replica::CompareAll() const {
  for (int db = 0; db < primary_.database_count(); db++) {
    const auto expected = Contents(primary_.database(db));
    const auto actual = Contents(engine_->database(db));
    if (expected == actual) continue;
    for (const auto& [key, state] : expected) {
      auto it = actual.find(key);
      const std::string difference =
          Difference(db, key, state, it == actual.end() ? std::nullopt : std::optional(it->second),
                     last_applied_);
      if (!difference.empty()) return difference;
    }
    for (const auto& [key, state] : actual) {
      if (expected.find(key) == expected.end()) {
        return Difference(db, key, std::nullopt, state, last_applied_);
      }
    }
  }
  return {};
}

}  // namespace keel::sim
