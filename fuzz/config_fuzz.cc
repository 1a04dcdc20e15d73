#include <algorithm>
#include <string>
#include <vector>

#include "engine/server/config.h"
#include "engine/server/config_file.h"
#include "fuzz/harnesses.h"

namespace keel::fuzz {

void ConfigOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // As a config file. The first few includes resolve to the same text (so nesting and the depth
  // limit are exercised) and later ones fail, which bounds the work on inputs full of includes.
  Config config;
  ConfigLoadError error;
  int includes_left = 4;
  auto read_file = [&](std::string_view /*path*/, std::string* content) {
    if (includes_left-- <= 0) return false;
    *content = std::string(text);
    return true;
  };
  if (!LoadConfigText(text, &config, read_file, &error)) {
    FUZZ_CHECK(!error.message.empty());
    FUZZ_CHECK(!error.Report().empty());
  }
  // Whatever loaded, every parameter reads back, and CONFIG SET of the value CONFIG GET printed
  // is accepted and changes nothing.
  // One copy serves every parameter: setting a value that was just read back changes nothing
  // (which is what is checked), and a refused set changes nothing either.
  Config copy = config;
  for (const ConfigParam& param : ConfigTable()) {
    const std::string value = config.Get(param);
    // "dir" is "" until keel-server fills in its working directory (the engine cannot ask the
    // OS), and "" itself is refused as redis-server refuses chdir(""): no round trip to check.
    if (param.name == "dir" && value.empty()) continue;
    // Immutable parameters are refused by CONFIG SET whatever the value.
    if (param.flags & kConfigImmutable) continue;
    // redis-server keeps a save rule's change count in an int, so a count past INT32_MAX from a
    // config file reads back negative ("1 99999999999999999999" as "1 -1"), and CONFIG SET
    // refuses that in redis-server as in Keel (config_test.cc pins both). Seconds are never
    // negative, so " -" marks exactly this case.
    if (param.name == "save" && value.find(" -") != std::string::npos) continue;
    // A quoted bind address with a space in it ("bind 1.2.3.4 \"a b\"") loads, and CONFIG GET
    // joins the addresses with spaces, so CONFIG SET reads more addresses than were loaded (past
    // 16, "Too many bind addresses"): redis-server does the same, then exits when it cannot
    // listen on such an address, as keel-server does.
    if (param.name == "bind" &&
        std::any_of(
            config.values().bind.begin(), config.values().bind.end(),
            [](const std::string& address) { return address.find(' ') != std::string::npos; })) {
      continue;
    }
    std::string message;
    const bool accepted = copy.SetFromCommand(param, value, &message);
    if (!accepted) {
      std::fprintf(stderr, "CONFIG SET %.*s '%s' refused: %s\n",
                   static_cast<int>(param.name.size()), param.name.data(), value.c_str(),
                   message.c_str());
    }
    FUZZ_CHECK(accepted);
    FUZZ_CHECK(copy.Get(param) == value);
  }

  // As a command line: split on NUL bytes into arguments.
  std::vector<std::string> args;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string_view> views(args.begin(), args.end());
  const std::string converted = CommandLineToConfigText(views);
  Config from_command_line;
  ConfigLoadError command_line_error;
  (void)LoadConfigText(converted, &from_command_line, read_file, &command_line_error);
}

}  // namespace keel::fuzz
