#include "engine/script/scripting.h"

#include <cstring>

#include "engine/base/numbers.h"
#include "engine/base/sha1.h"
#include "engine/registry/errors.h"
#include "engine/script/function_lua.h"
#include "engine/script/script_flags.h"
#include "engine/server/command_context.h"
#include "engine/server/replication.h"

namespace keel {

std::unique_ptr<EngineExtension> MakeScripting(Engine& engine) {
  return std::make_unique<Scripting>(engine);
}

namespace {

constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";

// Lua's garbage collector takes a step every this many script runs (Redis's LUA_GC_CYCLE_PERIOD):
// a full cycle at once would add latency, a step on every run costs too much CPU.
constexpr uint64_t kGcPeriodRuns = 50;

std::string Sha1Hex(std::string_view bytes) {
  const Sha1::Digest digest = Sha1::Of(bytes);
  return HexOf(digest.data(), digest.size());
}

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

bool RunsScriptsOrTransactions(const CommandSpec& spec) {
  const std::string_view name = spec.full_name;
  for (std::string_view prefix :
       {"eval", "fcall", "script", "function", "multi", "exec", "discard", "watch", "unwatch"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

bool IsEvalSha(const CommandSpec& spec) {
  return spec.full_name == "evalsha" || spec.full_name == "evalsha_ro";
}

}  // namespace

Scripting::Scripting(Engine& engine)
    : engine_(engine), client_(/*id=*/0, /*conn=*/0, engine.memory(), engine.reply_chunks()) {
  client_.peer_address = "lua";
  client_.reply().set_error_observer(&engine);
  functions_ = std::make_unique<Functions>(engine.memory(), engine.env().clock(), rand48_, *this);
}

Scripting::~Scripting() {
  KEEL_ASSERT(run_ == nullptr);
  functions_.reset();
  vm_.reset();
  scripts_.clear();
}

bool Scripting::EnsureVm() {
  if (vm_ != nullptr) return true;
  auto vm = std::make_unique<LuaVm>(engine_.memory(), rand48_, *this);
  if (!vm->ok()) return false;
  vm_ = std::move(vm);
  // A new interpreter knows no script: compile the cached ones again when they run.
  return true;
}

const Scripting::Script* Scripting::Find(std::string_view sha) const {
  auto it = scripts_.find(std::string(sha));
  return it == scripts_.end() ? nullptr : &it->second;
}

bool Scripting::Exists(std::string_view sha) const { return Find(Lowercase(sha)) != nullptr; }

std::string Scripting::CreateScript(std::string_view body, std::string* sha) {
  *sha = Sha1Hex(body);
  if (Find(*sha) != nullptr) return {};
  uint32_t flags = 0;
  size_t shebang_bytes = 0;
  std::string error = ParseShebang(body, &flags, &shebang_bytes);
  if (!error.empty()) return error;
  if (!EnsureVm()) return std::string(errors::kOom);
  // The shebang line is left out but its newline kept, so that line numbers stay the user's.
  const std::string compile_error =
      vm_->Compile("f_" + *sha, body.substr(shebang_bytes), "@user_script");
  if (!compile_error.empty()) {
    if (compile_error == "not enough memory") return std::string(errors::kOom);
    return "ERR Error compiling script (new function): " + compile_error;
  }
  const size_t bytes = body.empty() ? 1 : body.size();
  auto* storage = static_cast<char*>(engine_.memory().Allocate(bytes, MemoryUse::kScripting));
  if (storage == nullptr) {
    vm_->Forget("f_" + *sha);
    return std::string(errors::kOom);
  }
  if (!body.empty()) std::memcpy(storage, body.data(), body.size());
  scripts_.emplace(*sha, Script(engine_.memory(), storage, body.size(), flags));
  script_bytes_ += body.size() + sha->size();
  return {};
}

void Scripting::Load(CommandContext& context, std::string_view body) {
  std::string sha;
  const std::string error = CreateScript(body, &sha);
  if (!error.empty()) {
    context.reply.Error(error);
    return;
  }
  context.reply.Bulk(sha);
}

void Scripting::Flush() {
  KEEL_ASSERT(run_ == nullptr);
  vm_.reset();
  scripts_.clear();
  script_bytes_ = 0;
}

void Scripting::Kill(ReplyBuilder& reply, bool eval) {
  if (run_ == nullptr) {
    reply.Error("NOTBUSY No scripts in execution right now.");
    return;
  }
  if (run_->wrote) {
    reply.Error(
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You "
        "can either wait the script termination or kill the server in a hard way using the "
        "SHUTDOWN NOSAVE command.");
    return;
  }
  // SCRIPT KILL kills scripts and FUNCTION KILL functions (Redis's scriptKill).
  if (eval && run_->function) {
    reply.Error(Engine::kBusyFunction);
    return;
  }
  if (!eval && !run_->function) {
    reply.Error(Engine::kBusyEval);
    return;
  }
  run_->killed = true;
  reply.Ok();
}

uint32_t Scripting::CommandFlags(const CommandSpec& spec, std::span<const std::string_view> args,
                                 uint32_t flags) {
  if (args.size() < 2) return flags;
  if (spec.full_name == "fcall" || spec.full_name == "fcall_ro") {
    // Redis's fcallGetCommandFlags: the function's flags, when there is such a function.
    const FunctionInfo* function = functions_->Find(args[1]);
    return function == nullptr ? flags : CommandFlagsForScript(flags, function->flags);
  }
  // Redis's evalGetCommandFlags: the cached script's flags, or the shebang of a new EVAL body.
  const bool by_sha = IsEvalSha(spec);
  if (by_sha && args[1].size() != 40) return flags;
  const std::string sha = by_sha ? Lowercase(args[1]) : Sha1Hex(args[1]);
  uint32_t script_flags = 0;
  if (const Script* script = Find(sha)) {
    script_flags = script->flags();
  } else {
    if (by_sha) return flags;
    size_t shebang_bytes = 0;
    if (!ParseShebang(args[1], &script_flags, &shebang_bytes).empty()) return flags;
  }
  return CommandFlagsForScript(flags, script_flags);
}

std::string Scripting::CheckRun(const Client& /*caller*/, uint32_t script_flags,
                                bool read_only) const {
  if (script_flags & kScriptEvalCompat) return {};
  if (!(script_flags & kScriptNoWrites)) {
    if (engine_.persistence().writes_denied()) {
      return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
             "persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only "
             "scripts.";
    }
    if (engine_.aof().writes_denied()) {
      return "MISCONF Redis is configured to persist data to AOF, but it's currently unable to "
             "persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only "
             "scripts. AOF error: " +
             engine_.aof().last_write_error();
    }
    if (read_only) return "ERR Can not execute a script with write flag using *_ro command.";
  }
  const int64_t maxmemory = engine_.settings().maxmemory;
  if (maxmemory > 0 && engine_.memory().used_bytes_total() > static_cast<size_t>(maxmemory) &&
      !(script_flags & (kScriptAllowOom | kScriptNoWrites))) {
    return "OOM allow-oom flag is not set on the script, can not run it when used memory > "
           "'maxmemory'";
  }
  return {};
}

void Scripting::Eval(CommandContext& context, bool by_sha, bool read_only) {
  // Redis feeds MONITOR before the script runs, so that its commands show after it.
  engine_.FeedMonitorsNow(context.client, context.args);
  const std::string_view target = context.arg(1);
  if (by_sha && target.size() != 40) {
    context.reply.Error(kNoScript);
    return;
  }
  int64_t key_count = 0;
  if (!ParseStrictInt64(context.arg(2), &key_count)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  const auto extra = static_cast<int64_t>(context.argc() - 3);
  if (key_count > extra) {
    context.reply.Error("ERR Number of keys can't be greater than number of args");
    return;
  }
  if (key_count < 0) {
    context.reply.Error("ERR Number of keys can't be negative");
    return;
  }
  std::string sha;
  if (by_sha) {
    sha = Lowercase(target);
    if (Find(sha) == nullptr) {
      context.reply.Error(kNoScript);
      return;
    }
  } else {
    const std::string error = CreateScript(target, &sha);
    if (!error.empty()) {
      context.reply.Error(error);
      return;
    }
  }
  const Script& script = *Find(sha);
  const std::string refusal = CheckRun(context.client, script.flags(), read_only);
  if (!refusal.empty()) {
    context.reply.Error(refusal);
    return;
  }
  if (!EnsureVm()) {
    context.reply.Error(errors::kOom);
    return;
  }
  const auto first_arg = static_cast<size_t>(3 + key_count);
  RunScript(context, Target{.name = sha, .flags = script.flags()},
            context.args.subspan(3, static_cast<size_t>(key_count)),
            context.args.subspan(first_arg), read_only);
}

void Scripting::Fcall(CommandContext& context, bool read_only) {
  // Redis feeds MONITOR before the function runs, so that its commands show after it.
  engine_.FeedMonitorsNow(context.client, context.args);
  const FunctionInfo* function = functions_->Find(context.arg(1));
  if (function == nullptr) {
    context.reply.Error("ERR Function not found");
    return;
  }
  int64_t key_count = 0;
  if (!ParseStrictInt64(context.arg(2), &key_count)) {
    context.reply.Error("ERR Bad number of keys provided");
    return;
  }
  const auto extra = static_cast<int64_t>(context.argc() - 3);
  if (key_count > extra) {
    context.reply.Error("ERR Number of keys can't be greater than number of args");
    return;
  }
  if (key_count < 0) {
    context.reply.Error("ERR Number of keys can't be negative");
    return;
  }
  const std::string refusal = CheckRun(context.client, function->flags, read_only);
  if (!refusal.empty()) {
    context.reply.Error(refusal);
    return;
  }
  const auto first_arg = static_cast<size_t>(3 + key_count);
  RunScript(context, Target{.name = function->name, .flags = function->flags, .function = function},
            context.args.subspan(3, static_cast<size_t>(key_count)),
            context.args.subspan(first_arg), read_only);
}

void Scripting::FunctionStats(ReplyBuilder& reply) {
  // Redis's functionStatsCommand: while an EVAL script runs, the answer is EVAL's BUSY.
  if (run_ != nullptr && !run_->function) {
    reply.Error(Engine::kBusyEval);
    return;
  }
  reply.MapHeader(2);
  reply.Bulk("running_script");
  if (run_ == nullptr) {
    reply.NullBulk();
  } else {
    reply.MapHeader(3);
    reply.Bulk("name");
    reply.Bulk(run_->name);
    reply.Bulk("command");
    reply.ArrayHeader(run_->command.size());
    for (std::string_view arg : run_->command) reply.Bulk(arg);
    reply.Bulk("duration_ms");
    reply.Integer((engine_.env().clock().MonotonicUs() - run_->start_us) / 1000);
  }
  reply.Bulk("engines");
  reply.MapHeader(1);
  reply.Bulk("LUA");
  reply.MapHeader(2);
  reply.Bulk("libraries_count");
  reply.Integer(static_cast<int64_t>(functions_->registry().library_count()));
  reply.Bulk("functions_count");
  reply.Integer(static_cast<int64_t>(functions_->registry().function_count()));
}

namespace {

struct RunArgs {
  std::string_view function;             // the registry name, "f_<sha>" (EVAL)
  const FunctionInfo* library_function;  // or a library's function (FCALL)
  std::string_view name;                 // the SHA1, for the error text
  std::span<const std::string_view> keys;
  std::span<const std::string_view> args;
  Client* script_client;
  std::vector<ReplyToken>* tokens;
  std::string* error;
  bool failed = false;
  bool counted = false;
  bool missing = false;  // the interpreter did not know the script
};

void PushArray(lua_State* state, std::span<const std::string_view> values) {
  lua_createtable(state, static_cast<int>(values.size()), 0);
  int index = 1;
  for (std::string_view value : values) {
    lua_pushlstring(state, value.data(), value.size());
    lua_rawseti(state, -2, index++);
  }
}

void SetArray(lua_State* state, int globals, const char* name,
              std::span<const std::string_view> values) {
  lua_pushstring(state, name);
  PushArray(state, values);
  lua_rawset(state, globals);
}

// Runs a script under Lua's protection: every Lua call here may raise a memory error, which
// ends this function and makes lua_cpcall report it. Only the caller's storage is written.
int RunProtected(lua_State* state) {
  auto* run = static_cast<RunArgs*>(lua_touserdata(state, 1));
  lua_pop(state, 1);
  int argc = 0;
  if (run->library_function == nullptr) {
    lua_getfield(state, LUA_REGISTRYINDEX, kLuaRealGlobals);
    SetArray(state, 1, "KEYS", run->keys);
    SetArray(state, 1, "ARGV", run->args);
    lua_pop(state, 1);
  }
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaErrorHandler);
  if (run->library_function == nullptr) {
    lua_pushlstring(state, run->function.data(), run->function.size());
    lua_rawget(state, LUA_REGISTRYINDEX);
  } else {
    // A function gets its keys and arguments as its two arguments (Redis's luaCallFunction).
    PushLibraryFunction(state, run->library_function->library->id(), run->library_function->name);
  }
  if (lua_isnil(state, -1)) {
    run->missing = true;
    return 0;
  }
  if (run->library_function != nullptr) {
    PushArray(state, run->keys);
    PushArray(state, run->args);
    argc = 2;
  }
  // The stack is [handler, function]: the result's conversion starts as Redis's does, two
  // values deep, so that it reaches Lua's stack limit at the same depth.
  if (lua_pcall(state, argc, 1, 1) != 0) {
    run->failed = true;
    ScriptErrorText(state, run->name, run->error, &run->counted);
    return 0;
  }
  // The tokens point into Lua strings until they are written (RunScript restarts the collector).
  lua_gc(state, LUA_GCSTOP, 0);
  LuaValueToTokens(state, run->script_client->reply().resp(), run->tokens);
  return 0;
}

}  // namespace

void Scripting::RunScript(CommandContext& context, const Target& target,
                          std::span<const std::string_view> keys,
                          std::span<const std::string_view> args, bool read_only) {
  Client& caller = context.client;
  // The writes happen in the commands the script runs: EVAL itself is not propagated.
  context.PreventPropagation();
  const std::string_view sha = target.name;
  const uint32_t flags = target.flags;
  const bool compat = (flags & kScriptEvalCompat) != 0;
  LuaVm* vm = target.function == nullptr ? vm_.get() : functions_->vm();
  KEEL_ASSERT(vm != nullptr);
  Run run;
  run.caller = &caller;
  run.command = context.args;
  run.name = sha;
  run.function = target.function != nullptr;
  run.read_only = read_only || (!compat && (flags & kScriptNoWrites));
  run.allow_oom = !compat && (flags & kScriptAllowOom);
  const int64_t maxmemory = engine_.settings().maxmemory;
  run.oom_at_start =
      maxmemory > 0 && engine_.memory().used_bytes_total() > static_cast<size_t>(maxmemory);
  run.start_us = engine_.env().clock().MonotonicUs();

  client_.db_index = caller.db_index;
  client_.reply().set_resp(2);
  client_.output().Clear();
  const std::string function = target.function == nullptr ? "f_" + std::string(sha) : "";
  RunArgs run_args{.function = function,
                   .library_function = target.function,
                   .name = sha,
                   .keys = keys,
                   .args = args,
                   .script_client = &client_,
                   .tokens = &tokens_,
                   .error = &error_text_};
  tokens_.clear();
  lua_State* state = vm->state();
  const int top = lua_gettop(state);
  run_ = &run;
  vm->SetInterruptHook(engine_.settings().busy_reply_threshold_ms > 0);
  const int status = lua_cpcall(state, RunProtected, &run_args);
  // Every cached script was compiled into the interpreter that runs it (they go together).
  KEEL_ASSERT(!run_args.missing);
  vm->SetInterruptHook(false);
  if (run.timed_out) engine_.set_busy(BusyKind::kNone);
  run_ = nullptr;
  client_.output().Clear();
  if (status != 0) {
    // Memory was refused outside the script's own protection (its KEYS, its result).
    lua_settop(state, top);
    context.reply.Error("ERR Error running script " + std::string(sha) + ", not enough memory");
  } else if (run_args.failed) {
    context.reply.Error(error_text_, /*count_in_stats=*/!run_args.counted);
  } else {
    WriteTokens(tokens_, context.reply, &scratch_);
  }
  lua_settop(state, top);
  lua_gc(state, LUA_GCRESTART, 0);
  if (++runs_since_gc_ == kGcPeriodRuns) {
    runs_since_gc_ = 0;
    lua_gc(state, LUA_GCSTEP, static_cast<int>(kGcPeriodRuns));
  }
}

std::string_view Scripting::Call(std::span<const std::string_view> args, std::string_view* reply) {
  KEEL_ASSERT(run_ != nullptr);
  client_.output().Clear();
  client_.output().ClearFailure();
  bool unknown_subcommand = false;
  const CommandSpec* spec = engine_.registry().Resolve(args, &unknown_subcommand);
  // Redis's scriptCall: a refusal is counted as the command's rejected call and in the error
  // statistics, then handed to the script as an error.
  const auto refuse = [&](std::string_view error) -> std::string_view {
    refusal_.assign(error);
    if (spec != nullptr) engine_.stats().commands[spec->id].rejected_calls++;
    // A text without its own "-CODE" counts as ERR (Redis's afterErrorReply).
    engine_.OnErrorReply(error.starts_with('-') ? ErrorCodeOf(error.substr(1)) : "ERR");
    return refusal_;
  };
  if (spec == nullptr) return refuse("Unknown Redis command called from script");
  if (!spec->ArityAccepts(args.size()) || spec->handler == nullptr) {
    return refuse("Wrong number of args calling Redis command from script");
  }
  // DEBUG SET-DISABLE-DENY-SCRIPTS lets noscript commands in, but never a script inside a script
  // or a transaction inside one: the run and the unit they make are not re-entrant.
  if ((spec->flags & kCmdNoScript) &&
      (!engine_.scripts_run_noscript_commands() || RunsScriptsOrTransactions(*spec))) {
    return refuse("This Redis command is not allowed from script");
  }
  if (run_->read_only && (spec->flags & (kCmdWrite | kCmdMayReplicate))) {
    return refuse("Write commands are not allowed from read-only scripts.");
  }
  if ((spec->flags & kCmdWrite) && !run_->wrote) {
    // Until the script wrote, a state that refuses writes fails the command; after, the script
    // must be able to finish what it started (Redis's scriptVerifyWriteCommandAllow, in its
    // order). A script without flags is not refused before it runs, so these are its checks.
    const Replication& replication = engine_.replication();
    const bool obeys = (engine_.current_call().flags & (kCallFromAof | kCallFromPrimary)) != 0;
    if (replication.is_replica() && replication.read_only() && !obeys) {
      return refuse("-READONLY You can't write against a read only replica.");
    }
    if (engine_.persistence().writes_denied()) return refuse("-" + std::string(errors::kMisconf));
    if (engine_.aof().writes_denied()) return refuse("-" + engine_.aof().MisconfError());
    if (replication.refuses_writes())
      return refuse("-NOREPLICAS Not enough good replicas to write.");
  }
  if (!run_->allow_oom && !run_->wrote && run_->oom_at_start && (spec->flags & kCmdDenyOom)) {
    return refuse(std::string("-") + std::string(errors::kOom));
  }
  if (spec->flags & kCmdWrite) run_->wrote = true;
  uint32_t flags = kCallFromScript;
  if (run_->caller->flags & kClientMulti) flags |= kCallInMulti;
  if (!(run_->repl_targets & kPropagateAof)) flags |= kCallNoAof;
  if (!(run_->repl_targets & kPropagateReplicas)) flags |= kCallNoReplicas;
  engine_.Call(client_, *spec, args, flags);
  client_.last_command = spec;
  OutputBuffer& output = client_.output();
  if (output.failed()) {
    // The reply could not be kept: the command ran, but its result is lost to the script.
    output.Clear();
    output.ClearFailure();
    return refuse(std::string("-") + std::string(errors::kOom));
  }
  ConstSlice slice{};
  if (output.Gather(&slice, 1) == 1 && slice.size == output.pending_bytes()) {
    *reply = std::string_view(slice.data, slice.size);
  } else {
    reply_bytes_ = output.TakeAll();
    *reply = reply_bytes_;
  }
  return {};
}

void Scripting::SetResp(int resp) { client_.reply().set_resp(resp); }

void Scripting::SetRepl(int flags) {
  // REPL_AOF (1) and REPL_REPLICA (2) are the PropagationTarget bits: the script's next commands
  // go to those only (REPL_NONE: to neither).
  static_assert(kPropagateAof == 1 && kPropagateReplicas == 2);
  run_->repl_targets = static_cast<uint8_t>(flags);
}

void Scripting::Log(int level, std::string_view line) {
  engine_.Log(static_cast<LogLevel>(level), line);
}

bool Scripting::Interrupt(int64_t instructions) {
  if (run_ == nullptr) return false;
  Clock& clock = engine_.env().clock();
  clock.ChargeComputation(instructions);
  if (!run_->timed_out) {
    // Redis's scriptInterrupt: past busy-reply-threshold the script goes on, but the server
    // serves the others (with BUSY for most commands) every time the hook runs.
    const int64_t elapsed_ms = (clock.MonotonicUs() - run_->start_us) / 1000;
    const int64_t threshold_ms = engine_.settings().busy_reply_threshold_ms;
    if (threshold_ms <= 0 || elapsed_ms < threshold_ms) return false;
    engine_.Log(LogLevel::kWarning,
                "Slow script detected: still in execution after " + Int64ToString(elapsed_ms) +
                    " milliseconds. You can try killing the script using the " +
                    (run_->function ? "FUNCTION KILL" : "SCRIPT KILL") +
                    " command. Script name is: " + std::string(run_->name) + ".");
    run_->timed_out = true;
    engine_.set_busy(run_->function ? BusyKind::kFunction : BusyKind::kEval);
  }
  engine_.ProcessEventsWhileBlocked(*run_->caller);
  if (engine_.shutdown_requested() && !run_->killed) {
    // SHUTDOWN NOSAVE: Redis exits at once and the script's client hears nothing.
    run_->killed = true;
    engine_.RequestClose(run_->caller);
  }
  if (run_->killed && instructions > 0) {
    engine_.Log(LogLevel::kWarning, "Lua script killed by user with SCRIPT KILL.");
  }
  return run_->killed;
}

}  // namespace keel
