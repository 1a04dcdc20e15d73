// CommandContext: what a command handler sees (docs/DESIGN.md section 6, "Narrow rooms").
//
// A handler gets the keyspace it reads and writes, the reply writer, its client, its arguments
// and definition, the command-time clock, the configuration, the memory it may allocate and the
// engine's seeded randomness; and the handles on its own call (redaction, propagation). The Engine
// itself is reachable only through server(), which only the families that administer the server
// may use (engine/layering_check.sh reports a data family that does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "engine/base/limits.h"
#include "engine/base/rng.h"
#include "engine/db/keyspace.h"
#include "engine/env/memory.h"
#include "engine/registry/command_spec.h"
#include "engine/resp/reply_builder.h"
#include "engine/server/call_frame.h"
#include "engine/server/client.h"
#include "engine/server/config.h"
#include "engine/server/engine.h"

namespace keel {

class CommandContext {
 public:
  CommandContext(Engine& engine, Client& client, std::span<const std::string_view> args,
                 const CommandSpec& spec)
      : keyspace(engine.keyspace()),
        client(client),
        reply(client.reply()),
        args(args),
        spec(spec),
        engine_(engine) {}

  size_t argc() const { return args.size(); }
  std::string_view arg(size_t index) const { return args[index]; }
  // The client's database: its index for the keyspace's calls, and its contents to read.
  int db_index() const { return client.db_index; }
  const Database& db() const { return keyspace.database(client.db_index); }
  int database_count() const { return keyspace.database_count(); }
  // The command-time snapshot (wall-clock ms): every expiry decision of this command uses it.
  int64_t now_ms() const { return engine_.command_time_ms(); }
  // The configuration in force (CONFIG SET changes it between commands, never during one).
  const ConfigValues& config() const { return engine_.settings(); }
  // Memory for what the command builds (MemoryUse::kScratch for what it frees before returning).
  MemoryAccountant& memory() const { return engine_.memory(); }
  // The engine's seeded randomness (SRANDMEMBER, SPOP...): a simulation replays what it draws.
  Rng& rng() const { return engine_.rng(); }
  // DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE accepts payloads with a wrong checksum.
  bool skip_checksum_validation() const { return engine_.skip_checksum_validation(); }
  // Shows argument `index` as "(redacted)" in the slow log and to MONITOR clients.
  void Redact(size_t index) { engine_.RedactArgument(index); }

  // A SET of a large argument: whether `arg` can stay in the block of the client's query buffer
  // it arrived in, the block becoming the value (an external string, engine/db/entry.h), and if
  // so where it is. Only an argument of the command the server is running from its query buffer
  // (never one a script or transaction passes), in a block that holds little else, qualifies.
  bool ArgumentBlock(std::string_view arg, ExternalString* external) const {
    return arg.size() >= limits::kBigBulkBytes && client.query().CanGive(arg, external);
  }
  // The value now owns the block ArgumentBlock described.
  void AdoptedArgumentBlock() { client.query().Give(); }

  // --- Propagation of this command (docs/DESIGN.md section 6) ---------------------------
  // Whether anything records what is propagated (an AOF, a replica, a test): a handler may
  // skip building a rewrite when not.
  bool propagating() const { return keyspace.propagation().active(); }
  // Propagate this command as `args` instead of as it was sent, if it changed the keyspace
  // (Redis's rewriteClientCommandVector: SET k v EX 10 as SET k v PXAT <ms>).
  void PropagateAs(std::initializer_list<std::string_view> args);
  void PropagateAs(std::span<const std::string_view> args);
  // Propagate this command to `targets` even if it changed nothing (FLUSHDB of an empty
  // database; PUBLISH to replicas only, as Redis's forceCommandPropagation(c, PROPAGATE_REPL)).
  void ForcePropagation(uint8_t targets = kPropagateAll) {
    engine_.current_call().force_targets |= targets;
  }
  // Do not propagate this command itself: what it ran inside it is propagated instead.
  void PreventPropagation() { engine_.current_call().prevent_propagation = true; }

  // Whether this command may block its client (BLPOP and friends). Not inside a transaction or a
  // script, nor for an internal client (tests, fuzzing, the AOF loader): there a blocking command
  // acts as its non-blocking form and replies at once (its timeout as if expired), as Redis's
  // CLIENT_DENY_BLOCKING for transactions, scripts and fake clients.
  bool may_block() const {
    return (engine_.current_call().flags & (kCallInMulti | kCallFromScript)) == 0 &&
           client.has_connection();
  }

  // Blocks this command's client on `keys` until one holds a `type` value, for `timeout_ms`
  // (0: forever): the handler returns without replying, and runs again when a key may serve it
  // (Engine::BlockClient). REQUIRES: may_block().
  void BlockOn(std::span<const std::string_view> keys, ValueType type, int64_t timeout_ms) {
    engine_.BlockClient(keys, type, timeout_ms);
  }
  // When this run is a blocked command's, for a key that became ready: that key, which Redis
  // 7.0 serves it from (empty otherwise).
  std::string_view serving_key() const { return engine_.serving_key(client); }
  // Runs again the commands blocked on `key` of this database though nothing wrote it.
  void SignalKeyReady(std::string_view key) { engine_.SignalKeyReady(db_index(), key); }

  // FLUSHALL's last step (Redis's flushAllDataAndResetRDB): with save rules, a running save
  // stops and the now empty dataset is saved, so that a restart does not bring the keys back.
  void SaveAfterFlushAll();

  // Whether this command comes from the AOF or the primary (Redis's mustObeyClient): it applies
  // what was already decided (XADD's trim without its LIMIT).
  bool must_obey() const {
    return (engine_.current_call().flags & (kCallFromAof | kCallFromPrimary)) != 0;
  }

  // Whether this command runs inside MULTI/EXEC.
  bool in_transaction() const { return (engine_.current_call().flags & kCallInMulti) != 0; }

  // The whole Engine: for the server families only (CLIENT, CONFIG, INFO, DEBUG, ...).
  Engine& server() const { return engine_; }

  Keyspace& keyspace;
  Client& client;
  ReplyBuilder& reply;
  std::span<const std::string_view> args;
  const CommandSpec& spec;

 private:
  Engine& engine_;
};

}  // namespace keel
