// LuaVm: one Lua 5.1 interpreter with Redis 7.0's sandbox (Debian's redis-server 7.0.15).
//
// What a script sees is what redis-server's scripts see: the base library without print,
// loadfile, dofile, module, getfenv, setfenv and newproxy; table, string, math (with Redis's
// deterministic math.random), coroutine; the `redis` table; every global and every library table
// read-only ("Attempt to modify a readonly table") and a read of a missing global an error
// ("Script attempted to access nonexistent global variable 'x'"). Redis gets read-only tables
// from a patch to its bundled Lua; Debian's liblua5.1 has no such flag, so the VM builds the same
// behaviour from metatables: scripts and every chunk they load see a proxy for the globals and
// for each library table (an empty table whose __index is the real one and whose __newindex
// refuses), and rawset, setmetatable, getmetatable, rawget, next and pairs see through (or
// refuse on) the proxies as Redis's read-only tables behave.
//
// Every allocation of the interpreter goes through the MemoryAccountant (MemoryUse::kScripting),
// so used_memory counts it and the environment may refuse it: Lua then raises "not enough
// memory", which fails the script (or, during creation, the creation).
//
// Lua reports errors with longjmp. Every C function the VM registers follows one rule: while it
// may call a Lua function that raises, no local of it owns anything (no std::string, no vector):
// what must outlive a call lives in the VM or its host, so that a jump past the frame leaks
// nothing.
#pragma once

#include <lua.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/memory.h"

namespace keel {

// Redis's rand48 (its rand.c): the generator math.random draws from. One per engine, never
// reseeded except by math.randomseed; it survives SCRIPT FLUSH, as Redis's process-wide state.
class Rand48 {
 public:
  // The state lrand48 starts from without srand48 (0x1234ABCD330E).
  Rand48() = default;
  void Seed(int32_t seed);
  // 31 random bits.
  int32_t Next();

 private:
  uint64_t state_ = 0x1234ABCD330Eull;
};

// What the sandbox's redis.* functions ask of the engine while a script runs (Scripting).
class LuaHost {
 public:
  virtual ~LuaHost() = default;
  // Whether a script (or function) is running: redis.call and friends refuse otherwise.
  virtual bool running() const = 0;
  // redis.call / redis.pcall: runs `args` (args[0] the command) for the running script. Returns
  // "" with the command's reply in `*reply` (RESP bytes, in the protocol the script chose with
  // redis.setresp), or the refusal's error text (an error text of Redis's form, "ERR ..." or
  // "-CODE ...") when the command did not run. `*reply` stays valid until the next Call.
  virtual std::string_view Call(std::span<const std::string_view> args,
                                std::string_view* reply) = 0;
  // redis.setresp: 2 or 3 (checked by the VM).
  virtual void SetResp(int resp) = 0;
  // redis.set_repl: REPL_* bits (checked by the VM).
  virtual void SetRepl(int flags) = 0;
  // redis.log: `level` is 0..3 (debug..warning).
  virtual void Log(int level, std::string_view line) = 0;
  // The script's time limit hook, after `instructions` more Lua instructions (kHookInstructions;
  // 0 when it runs on every line, once the script was killed): true to stop the script with
  // "Script killed by user with SCRIPT KILL...".
  virtual bool Interrupt(int64_t instructions) = 0;
};

// Which of Redis's two interpreters a LuaVm is: EVAL's, or the one functions live in (Redis's
// function_lua.c). The sandbox is the same; the functions' interpreter has no KEYS, ARGV or
// __redis__err__handler globals, and while a library loads (SetLibraryLoading) its code sees only
// the library API: a `redis` table with register_function, log, the LOG_* levels and the versions.
enum class LuaVmKind : uint8_t { kEval, kFunctions };

class LuaVm {
 public:
  // Lua instructions between two calls of LuaHost::Interrupt (Redis's count hook period).
  static constexpr int kHookInstructions = 100000;

  // Creates the interpreter; ok() is false when memory was refused on the way.
  LuaVm(MemoryAccountant& memory, Rand48& rand48, LuaHost& host, LuaVmKind kind = LuaVmKind::kEval);
  ~LuaVm();
  LuaVm(const LuaVm&) = delete;
  LuaVm& operator=(const LuaVm&) = delete;

  bool ok() const { return state_ != nullptr; }
  LuaVmKind kind() const { return kind_; }
  lua_State* state() { return state_; }
  LuaHost& host() { return host_; }
  Rand48& rand48() { return rand48_; }
  // Bytes the interpreter holds now (INFO used_memory_lua).
  size_t used_bytes() const { return used_bytes_; }

  // Compiles `body` as chunk `chunk_name` ("@user_script") and keeps it in the registry under
  // `registry_name`. Returns "" or Lua's compile error.
  std::string Compile(std::string_view registry_name, std::string_view body,
                      std::string_view chunk_name);
  // Forgets a compiled chunk.
  void Forget(std::string_view registry_name);

  // Sets a global table of strings (KEYS, ARGV) behind the read-only globals.
  bool SetGlobalArray(const char* name, std::span<const std::string_view> values);

  // Pushes the error handler scripts run under (Redis's __redis__err__handler): it turns any
  // error into a table {err=..., source=..., line=...}.
  void PushErrorHandler();
  // Functions' interpreter only: while on, code compiled or run sees the library API instead of
  // the globals (Redis's luaEngineCreate swaps the globals' __index the same way); functions
  // registered meanwhile see the real globals once it is off again.
  void SetLibraryLoading(bool on);
  // Turns the time-limit hook on or off for the next run.
  void SetInterruptHook(bool on);
  // SCRIPT KILL: from now on every line raises the kill error, so that a pcall in the script
  // cannot swallow it and go on (Redis's luaMaskCountHook).
  void HookEveryLine();

  // Copies `bytes` of a Lua string on the stack into VM-owned storage (valid until the next call)
  // for a C function that must not hold a std::string itself.
  std::vector<std::string_view>& scratch_args() { return scratch_args_; }
  std::vector<std::string>& scratch_numbers() { return scratch_numbers_; }

 private:
  static void* Allocate(void* self, void* pointer, size_t old_bytes, size_t new_bytes);
  static int Init(lua_State* state);

  MemoryAccountant& memory_;
  Rand48& rand48_;
  LuaHost& host_;
  const LuaVmKind kind_;
  lua_State* state_ = nullptr;
  size_t used_bytes_ = 0;
  std::vector<std::string_view> scratch_args_;
  std::vector<std::string> scratch_numbers_;
  std::string pack_buffer_;  // cmsgpack.pack's output (lua_libs.h)
};

// Registry keys of the VM's own values.
inline constexpr const char* kLuaRealGlobals = "keel_real_globals";
inline constexpr const char* kLuaErrorHandler = "keel_error_handler";
// The functions' interpreter: the library API's globals, and the metatable of the globals proxy
// whose __index is switched between them and the real globals.
inline constexpr const char* kLuaLibraryGlobals = "keel_library_globals";
inline constexpr const char* kLuaGlobalsProxyMeta = "keel_globals_proxy_meta";
// The functions' interpreter: a light userdata of the library being loaded (function_lua.h), or
// nil outside FUNCTION LOAD.
inline constexpr const char* kLuaLoadContext = "keel_load_context";
// The functions' interpreter: the libraries' functions, {[library id] = {[name] = function}}.
inline constexpr const char* kLuaLibraryFunctions = "keel_library_functions";

}  // namespace keel
