// What every command family includes: the handler's context (engine/server/command_context.h),
// the shared error texts (engine/registry/errors.h), and the argument helpers shared by families.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "engine/registry/command_spec.h"
#include "engine/registry/errors.h"
#include "engine/registry/registry.h"
#include "engine/server/client.h"
#include "engine/server/command_context.h"
#include "engine/server/engine.h"
#include "engine/server/version.h"

namespace keel {

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

// SCAN cursors (SCAN, SSCAN and the later *SCANs): the client's cursor is the hash-space position
// / 2^kCursorShift, so that it stays exact in a JavaScript Number; a cursor resumes at or before
// where the last call stopped. CursorPosition maps a cursor past any Keel returns to the end.
inline constexpr int kCursorShift = 11;
inline constexpr uint64_t kCursorMax = UINT64_MAX >> kCursorShift;
inline uint64_t CursorPosition(uint64_t cursor) {
  return cursor > kCursorMax ? UINT64_MAX : cursor << kCursorShift;
}
// Redis's parseScanCursorOrReply: strtoul over the argument as a C string, so "" is 0, a sign is
// allowed ("-1" wraps around), and leading space, trailing bytes or overflow are refused.
bool ParseScanCursor(std::string_view text, uint64_t* cursor);

// Option matching as Redis's C code compares: the argument up to its first NUL byte, any case.
bool OptionIs(std::string_view arg, std::string_view option);

// Redis's getTimeoutFromObjectOrReply in seconds, for the blocking commands: a decimal number of
// seconds rounded up to whole milliseconds into `timeout_ms` (0: wait forever). False after
// replying with Redis's error.
bool ParseBlockTimeout(CommandContext& context, std::string_view text, int64_t* timeout_ms);

// The same in milliseconds (CLIENT PAUSE, WAIT, XREAD BLOCK): an integer, not negative. False
// after replying with Redis's error.
bool ParseMillisecondTimeout(CommandContext& context, std::string_view text, int64_t* timeout_ms);

// The families' registration functions (one per cmd_*.cc), called by the Engine.
void RegisterConnectionCommands(Registry& registry);
void RegisterClientCommands(Registry& registry);
void RegisterKeyCommands(Registry& registry);
void RegisterExpireCommands(Registry& registry);       // EXPIRE, TTL, PERSIST, ...
void RegisterDumpCommands(Registry& registry);         // DUMP, RESTORE
void RegisterScanCommands(Registry& registry);         // KEYS, SCAN, RANDOMKEY
void RegisterObjectCommands(Registry& registry);       // OBJECT
void RegisterMemoryCommands(Registry& registry);       // MEMORY USAGE, MEMORY HELP
void RegisterMemoryStatsCommands(Registry& registry);  // MEMORY STATS/DOCTOR/PURGE/MALLOC-STATS
void RegisterStringCommands(Registry& registry);
void RegisterStringCounterCommands(Registry& registry);  // INCR, DECR, INCRBY, ...
void RegisterLcsCommands(Registry& registry);
void RegisterListCommands(Registry& registry);
void RegisterListMoveCommands(Registry& registry);      // LMOVE, RPOPLPUSH, LMPOP
void RegisterListBlockingCommands(Registry& registry);  // BLPOP, BRPOP, BLMOVE, ...
void RegisterSortCommands(Registry& registry);          // SORT, SORT_RO
void RegisterSetCommands(Registry& registry);
void RegisterHashCommands(Registry& registry);
void RegisterBitmapCommands(Registry& registry);       // SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP
void RegisterBitfieldCommands(Registry& registry);     // BITFIELD, BITFIELD_RO
void RegisterHyperLogLogCommands(Registry& registry);  // PF*
void RegisterStreamCommands(Registry& registry);       // X*
void RegisterServerCommands(Registry& registry);
void RegisterPersistCommands(Registry& registry);
void RegisterConfigCommands(Registry& registry);
void RegisterIntrospectionCommands(Registry& registry);  // COMMAND
void RegisterDiagnosticCommands(Registry& registry);     // TIME, MONITOR, SLOWLOG, LATENCY
void RegisterDebugCommands(Registry& registry);          // DEBUG
void RegisterScriptingCommands(Registry& registry);      // EVAL and friends, SCRIPT
void RegisterFunctionCommands(Registry& registry);       // FCALL, FCALL_RO, FUNCTION
void RegisterMultiCommands(Registry& registry);          // MULTI, EXEC, DISCARD, WATCH, UNWATCH
void RegisterPubsubCommands(Registry& registry);         // SUBSCRIBE, PUBLISH, PUBSUB, ...

}  // namespace keel
