// Reading redis.conf syntax and redis-server's command line into a Config.
//
// Pure text processing, shared by keel-server and the config fuzz harness; reading the file (and
// any "include") is the caller's job, through `read_file`.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "engine/server/config.h"

namespace keel {

struct ConfigLoadError {
  int line_number = 0;  // 1-based; 0 when the error is not tied to a line
  std::string line;
  std::string message;  // Redis's text: "Bad directive or wrong number of arguments"
  // The report redis-server prints before exiting: "*** FATAL CONFIG FILE ERROR ... ***".
  std::string Report() const;
};

// Reads a file's content for "include"; returns false when the file cannot be read.
using ConfigFileReader = std::function<bool(std::string_view path, std::string* content)>;

// Applies every directive of `text` to `config` in order, as redis-server's
// loadServerConfigFromString does (comments, quoting, multi-word parameters, "include",
// directives Redis has retired). Stops at the first error. `include_depth` bounds nested
// includes.
bool LoadConfigText(std::string_view text, Config* config, const ConfigFileReader& read_file,
                    ConfigLoadError* error, int include_depth = 0);

// Turns redis-server's command line after the config file ("--port 7000 --save ''") into config
// text ("port 7000\nsave \"\""), with Redis's special cases for a bare "--save".
std::string CommandLineToConfigText(std::span<const std::string_view> args);

// Redis's sdscatrepr: quotes `text` so that SplitArgsInPlace reads it back unchanged.
std::string QuoteConfigArg(std::string_view text);

}  // namespace keel
