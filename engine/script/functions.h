// Functions: the libraries FUNCTION LOAD creates and the interpreter they live in, separate from
// EVAL's (Redis 7.0's functions.c over function_lua.c). Scripting owns one and runs its functions
// (FCALL) as it runs EVAL's scripts; this class keeps the libraries: loading, deleting, flushing,
// listing, and the payloads of FUNCTION DUMP / RESTORE, RDB files and AOF rewrites.
//
// The interpreter is made when the first library is loaded, so an engine that never loads one
// holds no Lua memory for functions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/env.h"
#include "engine/script/function_registry.h"
#include "engine/script/lua_vm.h"

namespace keel {

// FUNCTION RESTORE's policies.
enum class RestorePolicy : uint8_t { kAppend, kReplace, kFlush };

class Functions {
 public:
  Functions(MemoryAccountant& memory, Clock& clock, Rand48& rand48, LuaHost& host);
  ~Functions();
  Functions(const Functions&) = delete;
  Functions& operator=(const Functions&) = delete;

  // FUNCTION LOAD [REPLACE]: creates the library `code` declares (Redis's
  // functionsCreateWithLibraryCtx). Returns "" and sets `*library_name`, or the error to reply
  // ("ERR ..."). `timeout_ms` 0: no limit on the code's run (loading from a file).
  std::string Load(std::string_view code, bool replace, int64_t timeout_ms,
                   std::string* library_name);
  // FUNCTION DELETE: false when there is no such library.
  bool Delete(std::string_view library_name);
  // FUNCTION FLUSH.
  void Flush();

  const FunctionRegistry& registry() const { return registry_; }
  const FunctionInfo* Find(std::string_view name) const { return registry_.FindFunction(name); }
  // The interpreter (null before the first library).
  LuaVm* vm() { return vm_.get(); }
  size_t vm_bytes() const { return vm_ == nullptr ? 0 : vm_->used_bytes(); }
  // The libraries' own bytes (their codes, names and descriptions; INFO used_memory_functions).
  size_t library_bytes() const;

  // FUNCTION DUMP's payload: an RDB function opcode and the code per library, then the RDB
  // version and a CRC-64 (Redis's functionDumpCommand).
  std::string Dump(bool compress) const;
  // FUNCTION RESTORE: "" or the error to reply. `verify_checksum` false under DEBUG
  // SET-SKIP-CHECKSUM-VALIDATION.
  std::string Restore(std::string_view payload, RestorePolicy policy, bool verify_checksum);

  // The libraries' codes, for an RDB file or an AOF rewrite.
  std::vector<std::string> LibraryCodes() const;
  // Loads libraries read from an RDB file (Redis's rdbFunctionLoad, no time limit): a library
  // whose name exists replaces it when `replace` (DEBUG RELOAD MERGE), else fails the load.
  // Returns "" or the error for the log; on failure the libraries loaded before stay.
  std::string LoadFromFile(std::span<const std::string> codes, bool replace);

 private:
  // Creates the library `code` declares into `target` (the live registry, or one being built by
  // RESTORE). Returns "" and the name, or the error message without its code.
  std::string Create(std::string_view code, bool replace, int64_t timeout_ms,
                     FunctionRegistry& target, std::string* library_name);
  bool EnsureVm();

  MemoryAccountant& memory_;
  Clock& clock_;
  Rand48& rand48_;
  LuaHost& host_;
  // Declared before the registries: their libraries forget their functions in it as they go.
  std::unique_ptr<LuaVm> vm_;
  FunctionRegistry registry_;
  uint64_t next_library_id_ = 1;
};

}  // namespace keel
