// Registry: every command Keel knows, looked up by name without copying or lowercasing it.
//
// Families add their CommandDefs at engine construction (Register* functions, one per cmd_*.cc).
// Lookup hashes the argument with ASCII case folding on the fly and compares case-insensitively,
// so dispatch costs one short hash and one compare per command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "engine/registry/command_spec.h"

namespace keel {

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Adds commands; a subcommand ("config|get") must come after its container. A malformed
  // definition is a programming error: it stops the process with the reason (registry_test checks
  // every definition at build time, so this never fires in a release).
  void Add(std::span<const CommandDef> defs);

  // The top-level command named `name` (any case), or nullptr.
  const CommandSpec* Find(std::string_view name) const;

  // What a request invokes: the subcommand when args[0] is a container and args[1] names one of
  // its children; the container itself when there is no args[1]; nullptr when unknown (for a
  // container with an unknown args[1], *unknown_subcommand is set).
  const CommandSpec* Resolve(std::span<const std::string_view> args,
                             bool* unknown_subcommand) const;

  // "parent|child" or "name", any case.
  const CommandSpec* FindByFullName(std::string_view full_name) const;

  // Adds every command of every family (Builtin's table; tests add commands of their own after).
  // Defined with the families, in engine/commands/builtins.cc: the registry is below them.
  void AddBuiltins();

  // Every command of every family, parsed once per process. Constant after construction, so
  // engines share it (building it costs more than building the rest of an engine).
  static const Registry& Builtin();

  // Top-level commands in registration order.
  const std::vector<const CommandSpec*>& commands() const { return ordered_; }
  // Every command and subcommand, indexed by CommandSpec::id.
  const std::vector<const CommandSpec*>& all() const { return all_; }

 private:
  void Insert(std::unique_ptr<CommandSpec> spec);
  static uint64_t HashName(std::string_view name);
  void Rehash();

  std::vector<std::unique_ptr<CommandSpec>> owned_;
  std::vector<const CommandSpec*> ordered_;
  std::vector<const CommandSpec*> all_;
  std::vector<const CommandSpec*> table_;  // open addressing over top-level commands
};

}  // namespace keel
