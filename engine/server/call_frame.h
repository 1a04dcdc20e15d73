// CallFrame: one running command, as Engine::Call runs it. Commands nest (EXEC runs its queued
// commands, a script its redis.call commands), so the engine keeps a stack of these; what a
// handler asks about "the running command" (redaction, how it is propagated) is about its frame.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

class Client;
struct CommandSpec;

// How a call came about; handlers and the call itself ask (Redis's CMD_CALL_* and client flags).
enum CallFlag : uint32_t {
  kCallInMulti = 1u << 0,      // a command of a transaction, run by EXEC
  kCallFromScript = 1u << 1,   // a script's redis.call or redis.pcall
  kCallFromAof = 1u << 2,      // replayed from the AOF at start: nothing is propagated
  kCallFromPrimary = 1u << 3,  // applied from the primary's replication stream
  kCallRetry = 1u << 4,        // a blocked client's command, run again for a ready key
  // A script's command after redis.set_repl: REPL_REPLICA keeps it out of the AOF, REPL_AOF out of
  // the replicas' stream, REPL_NONE out of both.
  kCallNoAof = 1u << 5,
  kCallNoReplicas = 1u << 6,
  kCallNoPropagation = kCallNoAof | kCallNoReplicas,
};

struct CallFrame {
  Client* client = nullptr;
  const CommandSpec* spec = nullptr;
  std::span<const std::string_view> args;
  uint32_t flags = 0;
  // The keyspace's dirty counter when the command started: a command that changed it is
  // propagated (Redis's call()).
  uint64_t dirty_before = 0;
  // The client's error-reply count from which this command's own errors are counted. A
  // command run inside this one on the same client (EXEC's) moves it past the errors that
  // command was accounted for: Redis 7.0's incrCommandStatsOnError counts an error once, so
  // EXEC fails only on an error of its own.
  uint64_t errors_before = 0;
  // Arguments shown as "(redacted)" in the slow log and to MONITOR clients.
  std::vector<size_t> redacted_args;
  // Propagation of this command itself: not at all (a command whose effects are propagated by
  // the commands it ran), also when it changed nothing (FLUSHDB of an empty database, PUBLISH to
  // replicas: PropagationTarget bits), or as other arguments (Redis's
  // rewriteClientCommandVector: SET ... EX as SET ... PXAT).
  bool prevent_propagation = false;
  uint8_t force_targets = 0;
  bool rewritten = false;
  std::vector<std::string> propagated_args;
  // The command blocked its client (Engine::BlockClient): nothing is accounted or propagated
  // until it is served.
  bool blocked = false;

  // Ready for a new command; keeps the vectors' capacity so that a frame costs no allocation
  // on the request path.
  void Reset(Client* new_client, const CommandSpec* new_spec,
             std::span<const std::string_view> new_args, uint32_t new_flags, uint64_t dirty,
             uint64_t errors) {
    client = new_client;
    spec = new_spec;
    args = new_args;
    flags = new_flags;
    dirty_before = dirty;
    errors_before = errors;
    redacted_args.clear();
    prevent_propagation = false;
    force_targets = 0;
    rewritten = false;
    blocked = false;
  }
};

}  // namespace keel
