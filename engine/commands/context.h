// CommandContext: what a command handler sees, and the error texts shared across families.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "engine/commands/command_spec.h"
#include "engine/server/client.h"
#include "engine/server/engine.h"
#include "engine/server/version.h"

namespace keel {

class CommandContext {
 public:
  CommandContext(Engine& engine, Client& client, std::span<const std::string_view> args,
                 const CommandSpec& spec)
      : engine(engine),
        keyspace(engine.keyspace()),
        client(client),
        reply(client.reply()),
        args(args),
        spec(spec) {}

  size_t argc() const { return args.size(); }
  std::string_view arg(size_t index) const { return args[index]; }
  // The client's database: its index for the keyspace's calls, and its contents to read.
  int db_index() const { return client.db_index; }
  const Database& db() const { return keyspace.database(client.db_index); }
  // The command-time snapshot (wall-clock ms): every expiry decision of this command uses it.
  int64_t now_ms() const { return engine.command_time_ms(); }
  // Shows argument `index` as "(redacted)" in the slow log and to MONITOR clients.
  void Redact(size_t index) { engine.RedactArgument(index); }

  // --- Propagation of this command (docs/DESIGN.md section 6) ---------------------------
  // Whether anything records what is propagated (an AOF, a replica, a test): a handler may
  // skip building a rewrite when not.
  bool propagating() const { return keyspace.propagation().active(); }
  // Propagate this command as `args` instead of as it was sent, if it changed the keyspace
  // (Redis's rewriteClientCommandVector: SET k v EX 10 as SET k v PXAT <ms>).
  void PropagateAs(std::initializer_list<std::string_view> args);
  void PropagateAs(std::span<const std::string_view> args);
  // Propagate this command even if it changed nothing (FLUSHDB of an empty database).
  void ForcePropagation() { engine.current_call().force_propagation = true; }
  // Do not propagate this command itself: what it ran inside it is propagated instead.
  void PreventPropagation() { engine.current_call().prevent_propagation = true; }

  Engine& engine;
  Keyspace& keyspace;
  Client& client;
  ReplyBuilder& reply;
  std::span<const std::string_view> args;
  const CommandSpec& spec;
};

// Error texts used by more than one family, as redis-server 7.0 writes them.
namespace errors {
inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kDbIndexOutOfRange = "ERR DB index is out of range";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kReplicaKeyspace = "ERR Replica can't interact with the keyspace";
}  // namespace errors

// "ERR wrong number of arguments for 'config|set' command".
std::string WrongArityError(const CommandSpec& spec);
// "ERR unknown subcommand 'foo'. Try CONFIG HELP." for the container of `spec`'s family.
std::string UnknownSubcommandError(std::string_view container_as_typed, std::string_view sub);
// Redis's addReplySubcommandSyntaxError: "ERR unknown subcommand or wrong number of arguments for
// 'get'. Try SLOWLOG HELP.", for a known subcommand given arguments its handler refuses.
std::string SubcommandSyntaxError(std::string_view command_as_typed, std::string_view sub);

// Client names (CLIENT SETNAME, HELLO SETNAME) may hold printable ASCII without spaces only, so
// that CLIENT LIST stays parseable; empty clears the name.
inline bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}
inline constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// Redis's getIntFromObjectOrReply: a strict decimal int64 within the range of a C int. On failure
// replies with `error` when one is given (SWAPDB's "ERR invalid first DB index"), else with
// Redis's own texts, and returns false.
bool ParseIntArg(CommandContext& context, std::string_view text, std::string_view error,
                 int* value);
// A database index (SELECT, MOVE, COPY ... DB): ParseIntArg, then within the configured count or
// "ERR DB index is out of range".
bool ParseDbIndexArg(CommandContext& context, std::string_view text, int* index);

// Redis's checkStringLength: a string of `size` bytes may not grow by `append` past
// proto-max-bulk-len. Keel's entries hold at most UINT32_MAX bytes, so that is the limit when
// proto-max-bulk-len is set higher (the same error then names a limit that is not the configured
// one). Replies with the error and returns false when it would.
bool CheckStringLength(CommandContext& context, uint64_t size, uint64_t append);

// Propagation rewrites shared by families. A command whose new expiry was already past deleted
// the key: it replays as DEL, or as UNLINK with lazyfree-lazy-expire (`lazy`). One that set an
// expiry replays as PEXPIREAT key <absolute ms>, followed by `options` (EXPIRE's NX, XX, GT, LT
// as sent).
void PropagateAsDel(CommandContext& context, std::string_view key, bool lazy);
void PropagateAsPexpireat(CommandContext& context, std::string_view key, int64_t at_ms,
                          std::span<const std::string_view> options);

// Option matching as Redis's C code compares: the argument up to its first NUL byte, any case.
bool OptionIs(std::string_view arg, std::string_view option);

// The families' registration functions (one per cmd_*.cc), called by the Engine.
void RegisterConnectionCommands(Registry& registry);
void RegisterClientCommands(Registry& registry);
void RegisterKeyCommands(Registry& registry);
void RegisterExpireCommands(Registry& registry);  // EXPIRE, TTL, PERSIST, ...
void RegisterDumpCommands(Registry& registry);    // DUMP, RESTORE
void RegisterScanCommands(Registry& registry);    // KEYS, SCAN, RANDOMKEY
void RegisterObjectCommands(Registry& registry);  // OBJECT
void RegisterStringCommands(Registry& registry);
void RegisterStringCounterCommands(Registry& registry);  // INCR, DECR, INCRBY, ...
void RegisterLcsCommands(Registry& registry);
void RegisterSetCommands(Registry& registry);
void RegisterServerCommands(Registry& registry);
void RegisterConfigCommands(Registry& registry);
void RegisterIntrospectionCommands(Registry& registry);  // COMMAND
void RegisterDiagnosticCommands(Registry& registry);     // TIME, MONITOR, SLOWLOG, LATENCY
void RegisterDebugCommands(Registry& registry);          // DEBUG

}  // namespace keel
