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
  // Whatever loaded, every parameter reads back, and its canonical text sets it again unchanged.
  for (const ConfigParam& param : ConfigTable()) {
    const std::string value = config.Get(param);
    Config copy = config;
    std::vector<std::string> words;
    if (param.kind == ConfigKind::kSpecial) {
      if (!SplitConfigArgs(value, &words)) continue;
    } else {
      words.push_back(value);
    }
    std::vector<std::string_view> views(words.begin(), words.end());
    std::string message;
    FUZZ_CHECK(copy.Set(param, views, &message));
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
