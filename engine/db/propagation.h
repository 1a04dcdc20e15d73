// Propagation: what the AOF and replicas must replay, collected per execution unit.
//
// An execution unit is one command from a client with everything it ran inside it (later: the
// commands of EXEC and of a script), or one step of the server's own work (active expiry,
// eviction before a command). While it runs, the command layer adds the commands it made as
// Redis 7.0 propagates them (rewritten where the command as written would replay differently:
// relative expiries as absolute PXAT/PEXPIREAT, GETSET as SET, INCRBYFLOAT as SET ... KEEPTTL),
// and the keyspace adds a DEL (or UNLINK) for every key that expiry or eviction removed. At the
// end of the unit the commands go to every sink in order, wrapped in MULTI ... EXEC when there is
// more than one, so that a replica or an AOF replay applies the unit atomically, as Redis's
// propagatePendingCommands does.
//
// Nothing is recorded while no sink is registered: the request path pays one test per write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

// Where a propagated command goes (Redis's PROPAGATE_AOF and PROPAGATE_REPL): a command that
// changed the keyspace goes to both; PUBLISH only to replicas, whose subscribers must see it.
enum PropagationTarget : uint8_t {
  kPropagateAof = 1u << 0,
  kPropagateReplicas = 1u << 1,
  kPropagateAll = kPropagateAof | kPropagateReplicas,
};

class PropagationSink {
 public:
  virtual ~PropagationSink() = default;
  // One command to replay, in order. `db` is the database it applies to; -1 for EXEC, which
  // applies to none (a sink that writes SELECT when the database changes writes none for it).
  virtual void Propagate(int db, std::span<const std::string_view> args) = 0;
};

class Propagation {
 public:
  Propagation() = default;
  Propagation(const Propagation&) = delete;
  Propagation& operator=(const Propagation&) = delete;

  // A sink must outlive its registration. `targets`: which commands it receives (an AOF
  // kPropagateAof, a replica link kPropagateReplicas; a test all of them).
  void AddSink(PropagationSink* sink, uint8_t targets = kPropagateAll);
  void RemoveSink(PropagationSink* sink);
  bool active() const { return !sinks_.empty(); }

  // Adds a command to the running unit for `targets` (the arguments are copied). No-op
  // without a sink for any of them.
  void Add(int db, std::span<const std::string_view> args, uint8_t targets = kPropagateAll);
  void Add(int db, std::initializer_list<std::string_view> args) {
    Add(db, std::span<const std::string_view>(args.begin(), args.size()));
  }

  // Ends the unit: hands its commands to the sinks (as one MULTI ... EXEC when `transaction` and
  // there are several) and starts an empty one. `transaction` is false for work that touches
  // keys one by one on its own behalf (active expiry), which Redis propagates unwrapped.
  // Inline: every command ends a unit, and most units are empty (reads, or nothing recording).
  void EndUnit(bool transaction = true) {
    if (!ops_.empty()) FlushUnit(transaction);
  }

  size_t pending() const { return ops_.size(); }

 private:
  void FlushUnit(bool transaction);
  struct Op {
    int db;
    uint8_t targets;
    size_t first_arg;
    size_t arg_count;
  };
  struct Registration {
    PropagationSink* sink;
    uint8_t targets;
  };
  void Emit(int db, std::span<const std::string_view> args, uint8_t targets);

  std::vector<Registration> sinks_;
  uint8_t sink_targets_ = 0;  // the union of the registered sinks' targets
  // The running unit: bounded by what one command writes (its arguments, or one DEL per key it
  // expired or evicted, which the eviction budget and the keys it names bound).
  std::vector<Op> ops_;
  std::vector<std::string> args_;
};

}  // namespace keel
