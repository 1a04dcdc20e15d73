// Functions in Lua (Redis 7.0's function_lua.c): a library's code runs once, at FUNCTION LOAD,
// in the functions' interpreter (LuaVm of kind kFunctions) with only the library API in sight,
// and registers its functions with redis.register_function. The interpreter keeps each
// library's functions in a table of its registry under the library's id; FCALL takes them from
// there.
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/env/env.h"
#include "engine/script/function_registry.h"
#include "engine/script/lua_vm.h"

namespace keel {

// Redis's LOAD_TIMEOUT_MS: a library's code that runs longer at FUNCTION LOAD is stopped.
inline constexpr int64_t kFunctionLoadTimeoutMs = 500;

// Runs `body` (the library's code from its shebang's newline on, so that line numbers are the
// user's) in `vm`, registering its functions into `library`. `timeout_ms` 0 means no limit (a
// library loaded from an RDB or AOF file, as Redis). Returns "" or Redis's error message without
// its code: "Error compiling function: ..." or "Error registering functions: ...". On failure the
// interpreter keeps nothing of the library.
std::string LoadLibraryCode(LuaVm& vm, FunctionLibrary& library, std::string_view body,
                            Clock& clock, int64_t timeout_ms);

// Drops library `id`'s functions from the interpreter.
void ForgetLibraryFunctions(LuaVm& vm, uint64_t id);

// Pushes function `name` of library `id`, or nil. May raise (a memory error): call protected.
void PushLibraryFunction(lua_State* state, uint64_t id, std::string_view name);

// redis.register_function (the library API's; upvalue 1 is the LuaVm).
int RegisterFunction(lua_State* state);

}  // namespace keel
