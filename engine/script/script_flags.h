// Script flags: what a script declares about itself in its shebang line
// ("#!lua flags=no-writes,allow-oom") or a function in redis.register_function, and what they do
// to the checks a command goes through (Redis 7.0's script.c).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace keel {

enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1u << 0,
  kScriptAllowOom = 1u << 1,
  kScriptAllowStale = 1u << 2,
  kScriptNoCluster = 1u << 3,
  kScriptAllowCrossSlot = 1u << 4,
  // An EVAL script without a shebang: it runs under the rules from before flags existed (may
  // write, checked command by command).
  kScriptEvalCompat = 1u << 5,
};

// The flag named `name` ("no-writes", ...), or 0.
uint32_t ScriptFlagNamed(std::string_view name);
// The flags that have names, in Redis's order (FUNCTION LIST shows them so), and their names.
inline constexpr uint32_t kNamedScriptFlags[] = {
    kScriptNoWrites, kScriptAllowOom, kScriptAllowStale, kScriptNoCluster, kScriptAllowCrossSlot};
std::string_view ScriptFlagName(uint32_t flag);

// Reads the shebang of an EVAL script. Returns "" and sets `*flags` (kScriptEvalCompat when
// there is no shebang) and `*shebang_bytes` (the first line's length, to be left out of what is
// compiled, its newline kept so that line numbers stay the user's), or Redis's error text.
std::string ParseShebang(std::string_view body, uint32_t* flags, size_t* shebang_bytes);

// The command flags the checks apply to a script command (EVAL, FCALL...) whose script declared
// `script_flags`: a script without a shebang keeps the command's own; one with flags is a
// write (and denyoom) unless no-writes (allow-oom), and stale only with allow-stale (Redis's
// scriptFlagsToCmdFlags).
uint32_t CommandFlagsForScript(uint32_t command_flags, uint32_t script_flags);

}  // namespace keel
