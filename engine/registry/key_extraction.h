// Finding the keys of a command from its key specs (COMMAND GETKEYS now; ACL key permissions and
// client tracking later), as Redis's getKeysUsingKeySpecs does.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/registry/command_spec.h"

namespace keel {

// Whether the command has key arguments at all (specs not all marked not_key).
bool CommandHasKeys(const CommandSpec& spec);

// Fills `keys` from `args` (args[0] is the command name) with the flags of the spec that found
// each key, or through the command's KeyFinder when a spec is marked variable_flags (as Redis
// prefers its getkeys_proc then). Returns false when the arguments do not fit the specs (a key
// position past the end, a bad key count); `keys` is then empty.
bool ExtractKeys(const CommandSpec& spec, std::span<const std::string_view> args,
                 std::vector<KeyReference>* keys);

}  // namespace keel
