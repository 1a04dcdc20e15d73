// The command fuzzer's dictionary, taken from the registry, the one source of command facts:
// every command's name, every subcommand's name and every option token of every command's
// argument tree (COMMAND DOCS), so that a command a family registers is fuzzed with its options
// from the day it lands. Only values that no definition names (keys, numbers at the edges,
// binary strings, configuration names) are written here.
#pragma once

#include <string>
#include <vector>

namespace keel::fuzz {

struct Dictionary {
  std::vector<std::string> commands;  // top-level command names, lower case, plus an unknown one
  std::vector<std::string> words;     // subcommand names, option tokens, then the values
};

// Built once per process from Registry::Builtin().
const Dictionary& CommandDictionary();

}  // namespace keel::fuzz
