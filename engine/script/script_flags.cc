#include "engine/script/script_flags.h"

#include <vector>

#include "engine/registry/command_spec.h"
#include "engine/resp/request_parser.h"

namespace keel {

namespace {

constexpr struct {
  std::string_view name;
  uint32_t flag;
} kFlags[] = {
    {"no-writes", kScriptNoWrites},
    {"allow-oom", kScriptAllowOom},
    {"allow-stale", kScriptAllowStale},
    {"no-cluster", kScriptNoCluster},
    {"allow-cross-slot-keys", kScriptAllowCrossSlot},
};

}  // namespace

uint32_t ScriptFlagNamed(std::string_view name) {
  for (const auto& entry : kFlags) {
    if (entry.name == name) return entry.flag;
  }
  return 0;
}

std::string_view ScriptFlagName(uint32_t flag) {
  for (const auto& entry : kFlags) {
    if (entry.flag == flag) return entry.name;
  }
  return {};
}

std::string ParseShebang(std::string_view body, uint32_t* flags, size_t* shebang_bytes) {
  *flags = kScriptEvalCompat;
  *shebang_bytes = 0;
  if (!body.starts_with("#!")) return {};
  const size_t end = body.find('\n');
  if (end == std::string_view::npos) return "ERR Invalid script shebang";
  // sdssplitargs over the line (a C string: it ends at a NUL too).
  std::string line(body.substr(0, end));
  std::vector<std::string_view> parts;
  if (!SplitArgsInPlace(line.data(), line.size(), &parts) || parts.empty()) {
    return "ERR Invalid engine in script shebang";
  }
  if (parts[0] != "#!lua") {
    return "ERR Unexpected engine in script shebang: " + std::string(parts[0]);
  }
  uint32_t declared = 0;
  for (size_t i = 1; i < parts.size(); i++) {
    if (!parts[i].starts_with("flags=")) {
      return "ERR Unknown lua shebang option: " + std::string(parts[i]);
    }
    // sdssplitlen on ",": an empty list has no flag, and empty items are unknown flags.
    const std::string_view list = parts[i].substr(6);
    if (list.empty()) continue;
    size_t start = 0;
    while (true) {
      const size_t comma = list.find(',', start);
      const std::string_view name =
          list.substr(start, comma == std::string_view::npos ? list.npos : comma - start);
      const uint32_t flag = ScriptFlagNamed(name);
      if (flag == 0) return "ERR Unexpected flag in script shebang: " + std::string(name);
      declared |= flag;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  *flags = declared;
  *shebang_bytes = end;
  return {};
}

uint32_t CommandFlagsForScript(uint32_t command_flags, uint32_t script_flags) {
  if (script_flags & kScriptEvalCompat) return command_flags;
  command_flags &= ~(kCmdStale | kCmdDenyOom | kCmdWrite | kCmdMayReplicate);
  if (!(script_flags & (kScriptAllowOom | kScriptNoWrites))) command_flags |= kCmdDenyOom;
  if (!(script_flags & kScriptNoWrites)) command_flags |= kCmdWrite;
  if (script_flags & kScriptAllowStale) command_flags |= kCmdStale;
  return command_flags;
}

}  // namespace keel
