// Scripting: EVAL and its cache of scripts, run by one Lua interpreter (lua_vm.h).
//
// The engine owns one (Engine::scripting(), made by MakeScripting); the interpreter is created
// when the first script is loaded, so an engine that never runs a script holds no Lua memory.
// A script runs inside its EVAL, as EXEC runs its commands: each redis.call goes through
// Engine::Call with kCallFromScript, at the EVAL's command time, with nothing of another client in
// between, and the writes propagate as one unit (MULTI ... EXEC around them when there are
// several), while EVAL itself is never propagated (Redis 7.0's effects replication).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/db/propagation.h"
#include "engine/script/functions.h"
#include "engine/script/lua_reply.h"
#include "engine/script/lua_vm.h"
#include "engine/server/client.h"
#include "engine/server/engine.h"

namespace keel {

class CommandContext;

class Scripting final : public EngineExtension, public LuaHost {
 public:
  explicit Scripting(Engine& engine);
  ~Scripting() override;

  // The Scripting of `engine`.
  static Scripting& Of(Engine& engine) { return static_cast<Scripting&>(engine.scripting()); }

  // EVAL, EVALSHA, EVAL_RO and EVALSHA_RO.
  void Eval(CommandContext& context, bool by_sha, bool read_only);
  // SCRIPT LOAD: caches the script (compiling it) and replies its SHA1.
  void Load(CommandContext& context, std::string_view body);
  bool Exists(std::string_view sha) const;
  // SCRIPT FLUSH: forgets every script and starts a new interpreter.
  void Flush();
  // SCRIPT KILL (`eval`) and FUNCTION KILL: stops the running script or function when it has
  // not written and is of the kind the command kills, or replies why not.
  void Kill(ReplyBuilder& reply, bool eval);

  // FCALL and FCALL_RO.
  void Fcall(CommandContext& context, bool read_only);
  // FUNCTION STATS.
  void FunctionStats(ReplyBuilder& reply);
  // The libraries and their interpreter.
  Functions& functions() { return *functions_; }

  // INFO: scripts cached, the bytes of their bodies, and the interpreter's memory.
  size_t script_count() const { return scripts_.size(); }
  size_t cached_scripts() const override { return scripts_.size(); }
  size_t script_bytes() const { return script_bytes_; }
  size_t vm_bytes() const { return vm_ == nullptr ? 0 : vm_->used_bytes(); }
  size_t function_vm_bytes() const { return functions_->vm_bytes(); }
  bool running() const override { return run_ != nullptr; }

  // EngineExtension: EVAL of a script with a shebang is checked with the flags it declares.
  uint32_t CommandFlags(const CommandSpec& spec, std::span<const std::string_view> args,
                        uint32_t flags) override;
  std::vector<std::string> FunctionLibraryCodes() const override {
    return functions_->LibraryCodes();
  }
  std::string LoadFunctionLibraries(std::span<const std::string> codes, bool replace) override {
    return functions_->LoadFromFile(codes, replace);
  }
  void FlushFunctions() override { functions_->Flush(); }

  // LuaHost.
  std::string_view Call(std::span<const std::string_view> args, std::string_view* reply) override;
  void SetResp(int resp) override;
  void SetRepl(int flags) override;
  void Log(int level, std::string_view line) override;
  bool Interrupt(int64_t instructions) override;

 private:
  // A cached script: its body in memory the accountant counts (used_memory), and its flags.
  class Script {
   public:
    Script(MemoryAccountant& memory, char* bytes, size_t size, uint32_t flags)
        : memory_(&memory), bytes_(bytes), size_(size), flags_(flags) {}
    Script(Script&& other) noexcept
        : memory_(other.memory_), bytes_(other.bytes_), size_(other.size_), flags_(other.flags_) {
      other.bytes_ = nullptr;
    }
    Script(const Script&) = delete;
    Script& operator=(const Script&) = delete;
    Script& operator=(Script&&) = delete;
    ~Script() {
      if (bytes_ != nullptr) memory_->Deallocate(bytes_, size_, MemoryUse::kScripting);
    }
    std::string_view body() const { return {bytes_, size_}; }
    uint32_t flags() const { return flags_; }

   private:
    MemoryAccountant* memory_;
    char* bytes_;
    size_t size_;
    uint32_t flags_;
  };
  // A running script.
  struct Run {
    Client* caller = nullptr;
    std::span<const std::string_view> command;  // the caller's (FUNCTION STATS shows it)
    std::string_view name;  // what errors and logs call it: the SHA1 of an EVAL script
    bool function = false;  // FCALL's (else EVAL's)
    bool read_only = false;
    bool allow_oom = false;
    bool oom_at_start = false;  // memory was over maxmemory when it started
    bool wrote = false;         // a write command ran: it can no longer be killed
    bool killed = false;
    uint8_t repl_targets = kPropagateAll;  // redis.set_repl (PropagationTarget bits)
    bool timed_out = false;                // ran past busy-reply-threshold: other clients get BUSY
    int64_t start_us = 0;                  // monotonic, read from the environment's clock
  };

  // Makes the interpreter if there is none; false when memory was refused.
  bool EnsureVm();
  // Caches `body` under its SHA1 (compiling it) unless it is cached; "" or the error to reply.
  std::string CreateScript(std::string_view body, std::string* sha);
  const Script* Find(std::string_view sha) const;
  // The checks before a script with flags runs (Redis's scriptPrepareForRun); "" or the error.
  std::string CheckRun(const Client& caller, uint32_t script_flags, bool read_only) const;
  // What RunScript runs: EVAL's script `name` (its SHA1), or a function.
  struct Target {
    std::string_view name;
    uint32_t flags = 0;
    const FunctionInfo* function = nullptr;
  };
  // Runs `target` for `context`'s client, with its keys and arguments (KEYS and ARGV for a
  // script, the two arguments of a function), and replies.
  void RunScript(CommandContext& context, const Target& target,
                 std::span<const std::string_view> keys, std::span<const std::string_view> args,
                 bool read_only);

  Engine& engine_;
  Rand48 rand48_;
  std::unique_ptr<LuaVm> vm_;
  std::unique_ptr<Functions> functions_;
  // The client the scripts' commands run as (Redis's lua client): not in the engine's client
  // table; MONITOR shows it as "lua".
  Client client_;
  std::unordered_map<std::string, Script> scripts_;
  size_t script_bytes_ = 0;
  Run* run_ = nullptr;
  uint64_t runs_since_gc_ = 0;
  // Storage that must outlive a Lua call that may raise (lua_vm.h): the last command's reply
  // and refusal, the result's tokens and the error text.
  std::string reply_bytes_;
  std::string refusal_;
  std::vector<ReplyToken> tokens_;
  std::string error_text_;
  std::string scratch_;
};

}  // namespace keel
