// Replica: the simulator's check of propagation. A second engine, in an environment of its own,
// applies every command the primary propagates, as a replica or an AOF replay would: later than
// the primary ran it (by the run's replica lag), with the primary deciding expiry
// (Engine::Replay with kCallFromPrimary). Its keyspace must then hold what the primary's holds:
// the same keys with the same types, values and expiries in every database. A propagation that
// is missing (a write the dirty counter missed, an expiry not sent as DEL) or that replays
// differently from what the primary did (a relative expiry not rewritten as absolute) shows as a
// difference. Encodings and access clocks are not compared: Redis's replicas differ there too
// (INCRBYFLOAT's embstr "10" is an int on the replica).
//
// Comparing every key after every step made the check most of a sweep's time once streams grew
// long, so Compare looks at the keys either side wrote since the last comparison (each write
// reaches the keyspace's observers: keyspace_observer.h) and at everything after a flush or
// SWAPDB, and every kFullCompareEvery comparisons at everything anyway: a write that reached no
// observer is a bug of its own, which that catches a little later.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "engine/db/keyspace_observer.h"
#include "engine/db/propagation.h"
#include "engine/server/engine.h"
#include "sim/sim_env.h"
#include "sim/simulator/history.h"

namespace keel::sim {

class Replica final : public PropagationSink {
 public:
  // Follows `primary` from now on (its keyspace must be empty); `lag_ms` is how much later than
  // the primary's clock each command is applied.
  Replica(Engine& primary, SimEnv& primary_env, int64_t lag_ms, uint64_t seed);
  ~Replica() override;
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  void Propagate(int db, std::span<const std::string_view> args) override;

  // The first difference between the two keyspaces (or an error the replica replied), or empty.
  std::string Compare();
  uint64_t applied() const { return applied_; }

  // From now on, records every state the replica's keyspace goes through, unit by unit (a
  // command, or MULTI ... EXEC), into `history` (which must outlive the replica).
  void RecordHistory(StateHistory* history);

 private:
  // Collects the keys written in one engine's keyspace since the last comparison.
  class Writes final : public KeyspaceObserver {
   public:
    Writes(Engine& engine, Replica& replica) : engine_(engine), replica_(replica) {}
    void BeforeKeyChange(const Database& db, std::string_view key, uint64_t hash) override;
    void KeyTouched(int db_index, std::string_view key) override;
    void DatabaseFlushed(int db_index) override;
    void DatabasesSwapped(int first, int second) override;

   private:
    Engine& engine_;
    Replica& replica_;
  };
  void NoteWrite(int db, std::string_view key);
  std::string CompareKey(int db, const std::string& key) const;
  std::string CompareAll() const;

  static constexpr uint64_t kFullCompareEvery = 64;
  static constexpr size_t kWrittenKeysMax = 4096;  // more, and the whole keyspace is compared

  Engine& primary_;
  SimEnv& primary_env_;
  int64_t lag_ms_;
  SimEnv env_;
  std::unique_ptr<Engine> engine_;
  Client* client_ = nullptr;
  std::string error_;  // the first error reply to an applied command
  std::string last_applied_;
  uint64_t applied_ = 0;
  StateHistory* history_ = nullptr;
  bool in_transaction_ = false;  // between a propagated MULTI and its EXEC
  std::set<std::pair<int, std::string>> written_;
  bool compare_all_ = true;
  uint64_t compares_ = 0;
  std::unique_ptr<Writes> primary_writes_;
  std::unique_ptr<Writes> replica_writes_;
};

}  // namespace keel::sim
