// ModelShadow: the reference model (sim/model) run beside the engine in the command-sequence
// harness, so that fuzzed sequences check replies and not only invariants.
//
// The harness sends any command, the model covers some. For a covered command the shadow predicts
// the reply and the keyspace; an uncovered one may change anything, so afterwards the shadow
// copies the engine's keyspace into the model (the model then follows from the engine's state,
// which the invariants have already checked). The session facts (database, protocol, client id,
// name) are taken from the engine's client before every command for the same reason. A command
// during which memory was refused or keys were evicted is not compared either: its outcome is
// the engine's choice (the simulator's oracle decides those cases; here they are rare).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "engine/resp/resp_value.h"
#include "engine/server/engine.h"
#include "sim/model/model.h"
#include "sim/sim_env.h"

namespace keel::fuzz {

class ModelShadow {
 public:
  ModelShadow(Engine& engine, sim::SimEnv& env);

  // Before the engine runs `args` for `client`.
  void Before(const Client& client, std::span<const std::string> args);
  // After it ran: `reply` is the command's one reply, or nullptr when the client was silenced
  // (CLIENT REPLY, MONITOR). Returns "" or what diverged.
  std::string After(const Client& client, const RespValue* reply);

  // Whether the model predicts `args`'s reply.
  bool Covers(std::span<const std::string> args) const;
  uint64_t compared() const { return compared_; }

 private:
  // Makes the model's keyspace a copy of the engine's.
  void CopyEngineKeyspace();
  // The difference between the engine's and the model's live keys of database `index`, or "".
  std::string CompareDatabase(int index) const;

  Engine& engine_;
  sim::SimEnv& env_;
  model::Model model_;
  model::Session session_;
  model::Context context_;
  std::span<const std::string> args_;
  bool covered_ = false;
  uint64_t refused_before_ = 0;
  uint64_t evicted_before_ = 0;
  uint64_t compared_ = 0;
};

}  // namespace keel::fuzz
