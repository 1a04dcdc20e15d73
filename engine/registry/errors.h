// Error texts that the server and more than one command family write, as redis-server 7.0
// writes them, and the errors built from a command's definition.
#pragma once

#include <string>
#include <string_view>

#include "engine/registry/command_spec.h"

namespace keel {

namespace errors {
inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kDbIndexOutOfRange = "ERR DB index is out of range";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kMisconf =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB "
    "error.";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kReplicaKeyspace = "ERR Replica can't interact with the keyspace";
inline constexpr std::string_view kNoMulti = "ERR Command not allowed inside a transaction";
}  // namespace errors

// "ERR wrong number of arguments for 'config|set' command".
std::string WrongArityError(const CommandSpec& spec);
// "ERR unknown subcommand 'foo'. Try CONFIG HELP." for the container of `spec`'s family.
std::string UnknownSubcommandError(std::string_view container_as_typed, std::string_view sub);
// Redis's addReplySubcommandSyntaxError: "ERR unknown subcommand or wrong number of arguments for
// 'get'. Try SLOWLOG HELP.", for a known subcommand given arguments its handler refuses.
std::string SubcommandSyntaxError(std::string_view command_as_typed, std::string_view sub);

}  // namespace keel
