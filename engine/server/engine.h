// Engine: the keyspace, the command registry, the configuration, the clients and the statistics
// of one server, driven through an Env.
//
// The engine executes commands for clients; it does not own the event loop (Server does, over the
// same Env) so that tests and fuzz harnesses can build an engine and run commands in a few lines:
//
//   sim::SimEnv env(/*seed=*/1);
//   Engine engine(env, Config());
//   Client* client = engine.NewClient(/*conn=*/0, nullptr);
//   engine.RunCommand(*client, {"set", "k", "v"});   // reply bytes are in client->output()
//
// Single-threaded: every method runs on the engine's thread.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/limits.h"
#include "engine/base/rng.h"
#include "engine/db/database.h"
#include "engine/db/eviction.h"
#include "engine/db/keyspace.h"
#include "engine/env/env.h"
#include "engine/env/memory.h"
#include "engine/registry/registry.h"
#include "engine/resp/output_buffer.h"
#include "engine/server/aof.h"
#include "engine/server/blocking.h"
#include "engine/server/call_frame.h"
#include "engine/server/client.h"
#include "engine/server/config.h"
#include "engine/server/latency.h"
#include "engine/server/persistence.h"
#include "engine/server/pubsub.h"
#include "engine/server/slowlog.h"
#include "engine/server/stats.h"
#include "engine/server/tracking.h"
#include "engine/server/watch.h"

namespace keel {

// What the engine should know about how it was started, for INFO server and CONFIG REWRITE.
struct StartupInfo {
  std::string config_file;                // absolute path, or empty when started without one
  std::vector<std::string> command_line;  // argv, for logs
};

// Lets CONFIG SET port/bind move the listeners while the server runs. Implemented by Server.
class ListenerControl {
 public:
  virtual ~ListenerControl() = default;
  // Listens as `next` says and stops listening as before; on failure nothing changes.
  virtual Status Rebind(const ConfigValues& next) = 0;
};

// Lets a command that runs long (a script past busy-reply-threshold) serve the other clients
// meanwhile (Redis's processEventsWhileBlocked). Implemented by Server.
class EventPump {
 public:
  virtual ~EventPump() = default;
  // Serves what is ready now, without waiting and without cron: new connections, the commands
  // of every client but `busy_client` (which runs the long command; its input waits), replies.
  virtual void ProcessEventsWhileBlocked(const Client& busy_client) = 0;
};

// What keeps the server busy (Redis's isInsideYieldingLongCommand): other clients' commands
// are refused with BUSY, but those marked allow_busy.
enum class BusyKind : uint8_t { kNone, kEval, kFunction };

// What Execute did with a command.
enum class ExecuteResult : uint8_t {
  kDone,       // ran, or was refused with an error reply
  kPostponed,  // CLIENT PAUSE holds it: nothing ran and nothing was replied; the caller keeps
               // the command and runs it again once the pause changes (Server does)
  kBlocked,    // it waits for a key (BLPOP...): the engine keeps a copy and replies later; the
               // caller consumes it and runs nothing more for the client until TakeUnblocked
               // names it
};

// CLIENT PAUSE's modes, least restrictive first.
enum class PauseMode : uint8_t { kNone, kWrite, kAll };

// enable-debug-command's values (its choices are "no yes local").
inline constexpr int64_t kProtectedNo = 0;
inline constexpr int64_t kProtectedLocal = 2;

// Watches every command the engine executes, in execution order: the simulator's oracle follows
// the engine's interleaving of clients through it (it checks each command against what its client
// sent, and predicts the reply with a reference model). An observer must not change the engine.
class CommandObserver {
 public:
  virtual ~CommandObserver() = default;
  // Every parsed command, before the arity, authentication and memory checks.
  virtual void BeforeCommand(const Client& client, std::span<const std::string_view> args) = 0;
  // After the command's reply (if any) was added to the client's output.
  virtual void AfterCommand(const Client& client) = 0;
  // Instead of AfterCommand when CLIENT PAUSE held the command back: nothing ran, and the same
  // command comes to BeforeCommand again once the pause lets it run.
  virtual void CommandPostponed(const Client& client) = 0;
  // Instead of AfterCommand when the command blocked (it waits for a key; nothing was replied).
  virtual void CommandBlocked(const Client& client) = 0;
  // A blocked client's command runs again (a key it waits for may serve it): followed by
  // AfterCommand when it was served, or by CommandBlocked when it still waits.
  virtual void BeforeRetry(const Client& client) = 0;
  // A blocked client's wait ended without its command running again: it timed out or CLIENT
  // UNBLOCK ended it (its reply, a timeout's or the UNBLOCKED error, is in its output), or it
  // is being freed (no reply).
  virtual void BlockEnded(const Client& client) = 0;
};

// A part of the engine that lives in a layer above the server (scripting, engine/script/): the
// engine owns it and asks it about the commands it serves.
class EngineExtension {
 public:
  virtual ~EngineExtension() = default;
  // The flags the checks before a script command (EVAL, FCALL...) see: those its script
  // declares (Redis's getCommandFlags).
  virtual uint32_t CommandFlags(const CommandSpec& spec, std::span<const std::string_view> args,
                                uint32_t flags) = 0;
  // Scripts kept by SCRIPT LOAD and EVAL (INFO number_of_cached_scripts, MEMORY DOCTOR).
  virtual size_t cached_scripts() const = 0;
  // The function libraries' codes, for an RDB file or an AOF rewrite.
  virtual std::vector<std::string> FunctionLibraryCodes() const = 0;
  // Creates libraries read from a file (no time limit): one whose name exists replaces it when
  // `replace` (DEBUG RELOAD MERGE), else fails. Returns "" or the error for the log.
  virtual std::string LoadFunctionLibraries(std::span<const std::string> codes, bool replace) = 0;
  // Forgets every library (before a file replaces the dataset: DEBUG RELOAD, DEBUG LOADAOF).
  virtual void FlushFunctions() = 0;
};

class Engine;
class Replication;
// Makes the engine's scripting (defined in engine/script/scripting.cc: the one upward reference,
// a definition, as Registry::AddBuiltins).
std::unique_ptr<EngineExtension> MakeScripting(Engine& engine);

class Engine : public ErrorObserver {
 public:
  Engine(Env& env, Config config, StartupInfo startup = {});
  // With another command table (tests of the call machinery register commands of their own).
  Engine(Env& env, Config config, StartupInfo startup, const Registry& registry);
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Env& env() { return env_; }
  MemoryAccountant& memory() { return memory_; }
  ReplyChunkPool& reply_chunks() { return reply_chunks_; }
  const Config& config() const { return config_; }
  // Makes `config` the live configuration (CONFIG SET) and hands the keyspace its part of it.
  void ReplaceConfig(Config config);
  const ConfigValues& settings() const { return config_.values(); }
  const Registry& registry() const { return registry_; }
  ServerStats& stats() { return stats_; }
  Rng& rng() { return rng_; }
  const StartupInfo& startup() const { return startup_; }

  // The databases, read and written only through the keyspace's write path.
  Keyspace& keyspace() { return keyspace_; }
  const Keyspace& keyspace() const { return keyspace_; }
  int database_count() const { return keyspace_.database_count(); }
  const Database& database(int index) const { return keyspace_.database(index); }

  // Whether `client` must authenticate before it may run commands (Redis's authRequired): it has
  // not, and a password is set now. Clearing requirepass frees every client at once, also from
  // the stricter pre-authentication protocol limits; setting one again binds the clients that
  // never authenticated. (HELLO alone asks the client's own flag, as Redis 7.0's does.)
  bool AuthRequired(const Client& client) const {
    return !client.authenticated && !settings().requirepass.empty();
  }

  // Clients. `conn` is 0 for an internal client; `info` may be null.
  Client* NewClient(ConnId conn, const ConnInfo* info);
  void FreeClient(Client* client);
  Client* FindClient(uint64_t id);
  size_t client_count() const { return clients_.size(); }
  // Clients in creation order (CLIENT LIST order).
  const std::map<uint64_t, std::unique_ptr<Client>>& clients() const { return clients_; }

  // Runs one command from a client that is not served by the Server loop (tests, fuzzing):
  // refreshes the time anchors, then executes.
  void RunCommand(Client& client, std::span<const std::string_view> args);
  void RunCommand(Client& client, std::initializer_list<std::string_view> args) {
    RunCommand(client, std::span<const std::string_view>(args.begin(), args.size()));
  }

  // The Server loop's path: BeginTimeSlice() after every Env::Wait, then Execute per command.
  // Only clients with a connection can be postponed by CLIENT PAUSE; internal clients (tests,
  // fuzzing, later AOF loading and scripts) always run, as Redis's fake clients do.
  //
  // Execute is the *process* half of a command (Redis's processCommand): it looks the command
  // up, checks arity, authentication, memory (evicting first) and CLIENT PAUSE, then calls it.
  void BeginTimeSlice();
  ExecuteResult Execute(Client& client, std::span<const std::string_view> args);

  // The *call* half (Redis's call()): runs one command that was accepted, with the command time
  // frozen for everything it runs inside it, then accounts it (commandstats, latency, slow log,
  // MONITOR) and propagates it if it changed the keyspace. Re-entrant: EXEC, a script's
  // redis.call, the AOF loader and a replica applying its stream call it, from inside a running
  // command or not, with CallFlag bits saying which. The outermost call ends the execution unit:
  // what it propagated goes to the propagation sinks as one unit (propagation.h). Checks none of
  // what Execute checks; `spec` must be runnable (not a container) and accept args.size().
  void Call(Client& client, const CommandSpec& spec, std::span<const std::string_view> args,
            uint32_t flags = 0);
  // Runs a command read from the AOF or from a primary's replication stream (`flags` says which:
  // kCallFromAof or kCallFromPrimary): refreshes the time anchors, finds the command and calls
  // it, with none of Execute's checks but the lookup and arity, which reply with their errors.
  // The source decides expiry (see Keyspace::set_decides_expiry) and is not propagated again.
  void Replay(Client& client, std::span<const std::string_view> args, uint32_t flags);

  // The innermost running command's frame (REQUIRES: a command is running).
  CallFrame& current_call() {
    KEEL_ASSERT(call_depth_ > 0);
    return frames_[static_cast<size_t>(call_depth_ - 1)];
  }
  int call_depth() const { return call_depth_; }

  // At most one observer (nullptr: none); it must outlive its registration.
  void set_command_observer(CommandObserver* observer) { command_observer_ = observer; }
  CommandObserver* command_observer() const { return command_observer_; }

  // The command-time snapshot: wall-clock milliseconds at the start of the running command (the
  // time all its expiry decisions use), and the monotonic microseconds of the same instant.
  int64_t command_time_ms() const { return command_wall_ms_; }
  int64_t now_monotonic_us() const { return mono_now_us_; }
  // Wall-clock ms derived from the last clock reading (cheap; for INFO, CLIENT LIST, logs).
  int64_t wall_ms() const { return wall_us() / 1000; }
  int64_t wall_us() const { return wall_anchor_us_ + (mono_now_us_ - mono_anchor_us_); }
  int64_t start_monotonic_us() const { return start_monotonic_us_; }
  // Run id: 40 hex characters drawn from the environment's entropy at start (INFO, HELLO).
  const std::string& run_id() const { return run_id_; }
  // The replication id (INFO master_replid), drawn at start like Redis's and replaced by DEBUG
  // CHANGE-REPL-ID.
  const std::string& replication_id() const;  // the replication's (INFO master_replid)
  void ChangeReplicationId();
  // used_memory when the engine had finished starting, and the largest used_memory seen since
  // (checked after every command and in cron, as Redis does).
  size_t startup_memory_bytes() const { return startup_memory_bytes_; }
  size_t peak_memory_bytes();

  // INFO's client_recent_max_input_buffer / output_buffer: the largest client buffers seen in
  // the last few seconds (Redis's CLIENTS_PEAK_MEM_USAGE_SLOTS one-second slots). The Server's
  // client cron starts each round with BeginClientPeakRound and reports each client it visits.
  static constexpr size_t kClientPeakSlots = 8;
  void BeginClientPeakRound();
  void TrackClientBuffers(size_t input_bytes, size_t output_bytes);
  size_t recent_max_input_buffer() const;
  size_t recent_max_output_buffer() const;

  // --- CLIENT PAUSE ------------------------------------------------------------------------
  // Pauses clients until the wall-clock time `end_ms`. As in Redis 7.0, the new mode replaces
  // the current one and the pause lasts until the later of the two end times.
  void PauseClients(PauseMode mode, int64_t end_ms);
  void UnpauseClients();
  // The pause in force now (a pause whose end time has passed is lifted here).
  PauseMode pause_mode();
  int64_t pause_end_ms() const { return pause_end_ms_; }
  // Counts every change that may let postponed commands run; the Server retries them when it
  // changes.
  uint64_t pause_epoch() const { return pause_epoch_; }
  // Whether writes are paused (CLIENT PAUSE WRITE or ALL). While they are, Redis neither expires
  // nor evicts keys (a key past its time still reads as missing but is not deleted): the
  // keyspace's expiry and eviction must ask this.
  bool writes_paused() { return pause_mode() != PauseMode::kNone; }

  // Evicts keys as maxmemory-policy says until memory is within maxmemory (before every command
  // when maxmemory is set; the evictions are their own execution unit for propagation).
  EvictionResult PerformEvictions();

  // --- MULTI / EXEC / WATCH (engine/commands/cmd_multi.cc) -------------------------------
  // In MULTI, Execute queues every command but EXEC, DISCARD, MULTI, WATCH, QUIT and RESET
  // (after all of its checks: a refusal while queuing dooms the transaction, as Redis's
  // flagTransaction), and EXEC runs the queued commands through Call with kCallInMulti, all at
  // EXEC's command time. EXEC is checked as whatever its commands are (a write when one writes,
  // denyoom when one is: Redis's mstate.cmd_flags), and a refused EXEC ends the transaction
  // with EXECABORT and the reason.
  WatchTable& watches() { return watches_; }
  // Ends `client`'s transaction, if any, and forgets the keys it watches (Redis's
  // discardTransaction): after EXEC, DISCARD, RESET, and when the client goes.
  void DiscardTransaction(Client& client);
  // The error for a transaction that outgrew its bound (transaction.h).
  static constexpr std::string_view kTransactionTooLarge =
      "ERR Transaction discarded: the queued commands and watched keys exceed "
      "client-query-buffer-limit";

  // --- Blocking commands (BLPOP and friends; blocking.h) ---------------------------------
  // Blocks the running command's client on `keys` of its database until one holds a `type`
  // value that serves it, for `timeout_ms` (0: forever). The command replies nothing now; the
  // engine runs it again, as it was sent, whenever a key it waits for may serve it (a write to
  // the key, after the top-level command that wrote it), and the run that does not block again
  // gives the reply. When the running command is such a run, the client stays blocked, where it
  // was in each queue. REQUIRES: the command may block (CommandContext::may_block).
  void BlockClient(std::span<const std::string_view> keys, ValueType type, int64_t timeout_ms);
  // Runs again the commands blocked on `key` of database `db` though nothing wrote it, after the
  // top-level command (Redis's signalKeyAsReady alone: XGROUP DESTROY ends XREADGROUP's wait with
  // NOGROUP, and WATCH is not touched).
  void SignalKeyReady(int db, std::string_view key) { blocking_.KeyTouched(db, key); }
  // Ends `client`'s wait as CLIENT UNBLOCK does: with the timeout's reply, or with the UNBLOCKED
  // error. False when it is not blocked.
  bool UnblockClient(Client& client, bool with_error);
  // Runs again, now, the command of a client that waits for something other than keys (WAIT),
  // which replies or waits on. REQUIRES: no command runs; `client` is blocked.
  void RetryBlockedClient(Client& client);
  // Ends the waits whose timeout has passed (the Server calls it after every wait).
  void ExpireBlockedClients();
  // When the next wait times out (monotonic us), or 0 when none will.
  int64_t next_block_deadline_us() const { return blocking_.next_deadline_us(); }
  size_t blocked_client_count() const { return blocking_.blocked_count(); }
  // Those of them whose wait has a timeout (INFO clients_in_timeout_table).
  size_t timed_blocked_client_count() const { return blocking_.timed_count(); }
  // Clients whose wait ended since the last call (their replies are in their output and they
  // are in the output wakeups): the Server runs what they sent meanwhile.
  std::vector<uint64_t> TakeUnblocked() { return std::move(unblocked_); }
  // While a blocked command runs again: the key that became ready, which it should take from
  // (empty otherwise).
  std::string_view serving_key(const Client& client) const {
    return client.blocked != nullptr ? client.blocked->serving_key : std::string_view();
  }

  // --- Persistence (persistence.h) --------------------------------------------------------
  Persistence& persistence() { return persistence_; }
  const Persistence& persistence() const { return persistence_; }
  // The append-only file (aof.h).
  Aof& aof() { return aof_; }
  const Aof& aof() const { return aof_; }
  // Makes the running command's client wait for the save that `persistence` runs for it: it
  // gets its reply (EndPersistenceWait) once the save is durable or failed, and runs nothing
  // more meanwhile. REQUIRES: the outermost command of a client served by the loop.
  void WaitForSave(Client& client);
  // The save `client` waited for ended: SAVE and DEBUG RELOAD get +OK or -ERR, SHUTDOWN stops
  // the server (or, having failed without FORCE, gets Redis's error); then the client goes on.
  void EndPersistenceWait(Client& client, Persistence::Trigger trigger, bool ok);

  // --- Replication (replication.h) -------------------------------------------------------
  Replication& replication() { return *replication_; }
  const Replication& replication() const { return *replication_; }
  // Names `client` for the Server to write out what was added to its output outside its own
  // commands (the replication stream).
  void QueueOutputWakeup(Client& client);

  // --- Pub/sub (pubsub.h) -----------------------------------------------------------------
  PubSub& pubsub() { return pubsub_; }
  // Delivers `message` on `channel` (a shard channel for SPUBLISH) to its subscribers and the
  // matching patterns, waking their outputs; returns how many received it.
  size_t Publish(std::string_view channel, std::string_view message, bool shard);

  // --- Client tracking (tracking.h) ----------------------------------------------------------
  Tracking& tracking() { return tracking_; }
  const Tracking& tracking() const { return tracking_; }
  // Redis's server.current_client: the client whose command is being processed (the outermost
  // running command's, or the one being checked before its command runs); null between
  // commands (cron, the loop's own work).
  Client* current_client() { return call_depth_ > 0 ? frames_[0].client : dispatching_client_; }
  // Once per event-loop iteration, before the replies are written (Redis's beforeSleep): the
  // BCAST invalidations.
  void BeforeSleep() { tracking_.Broadcast(); }
  // Names `client` to the Server to write what was added to its output outside its commands.
  void WakeOutput(Client& client);

  // --- MONITOR -----------------------------------------------------------------------------
  // Shows `args` of `client` to the MONITOR clients now: for a command marked skip_monitor that
  // shows itself before what it runs (EVAL).
  void FeedMonitorsNow(const Client& client, std::span<const std::string_view> args) {
    if (!monitors_.empty()) FeedMonitors(client, args);
  }
  void AddMonitor(Client* client);
  void RemoveMonitor(Client* client);
  size_t monitor_count() const { return monitors_.size(); }
  // Clients given replies outside their own commands (MONITOR lines) since the last call: the
  // Server writes them out.
  std::vector<uint64_t> TakeOutputWakeups();
  bool has_output_wakeups() const { return !output_wakeups_.empty(); }

  // --- SLOWLOG, LATENCY --------------------------------------------------------------------
  SlowLog& slowlog() { return slowlog_; }
  LatencyMonitor& latency_monitor() { return latency_monitor_; }
  // Records `latency_ms` for `event` when latency-monitor-threshold is set and reached (Redis's
  // latencyAddSampleIfNeeded). For the engine's own events: "command", "fast-command", and the
  // cycles later issues add ("expire-cycle", "eviction-cycle", ...).
  void AddLatencySampleIfNeeded(std::string_view event, int64_t latency_ms);

  // Asks that argument `index` of the running command be shown as "(redacted)" in the slow log
  // and to MONITOR clients (passwords of AUTH and HELLO, sensitive CONFIG SET values).
  void RedactArgument(size_t index);

  // --- DEBUG switches ----------------------------------------------------------------------
  // DEBUG SET-ACTIVE-EXPIRE: whether the active expiry cycle may run (ActiveExpireCycle checks
  // it; lazy expiry on access is not affected).
  bool active_expire_enabled() const { return active_expire_enabled_; }
  void set_active_expire_enabled(bool enabled) { active_expire_enabled_ = enabled; }
  // DEBUG QUICKLIST-PACKED-THRESHOLD: list elements at least this large are stored as plain
  // nodes rather than inside packed ones (Redis's default 1 GiB). For the list type to read.
  static constexpr uint64_t kQuicklistPackedThresholdDefault = 1ull << 30;
  uint64_t quicklist_packed_threshold_bytes() const { return quicklist_packed_threshold_bytes_; }
  void set_quicklist_packed_threshold_bytes(uint64_t bytes) {
    quicklist_packed_threshold_bytes_ = bytes;
  }
  // DEBUG SET-SKIP-CHECKSUM-VALIDATION: RDB loading and RESTORE skip payload checksums.
  bool skip_checksum_validation() const { return skip_checksum_validation_; }
  void set_skip_checksum_validation(bool skip) { skip_checksum_validation_ = skip; }
  // DEBUG SET-DISABLE-DENY-SCRIPTS: while set, scripts may run commands marked noscript (Redis's
  // script_disable_deny_script; its tests use it to call CLIENT LIST or DEBUG from a script).
  bool scripts_run_noscript_commands() const { return scripts_run_noscript_commands_; }
  void set_scripts_run_noscript_commands(bool allowed) { scripts_run_noscript_commands_ = allowed; }
  // DEBUG PAUSE-CRON: while set, the Server does not run cron (statistics sampling, client
  // timeouts, and the periodic work later issues add).
  bool cron_paused() const { return cron_paused_; }
  void set_cron_paused(bool paused) { cron_paused_ = paused; }

  // Periodic work (Server calls it hz times per second): statistics sampling, pool trimming.
  void Cron();
  // Once a second from Cron: when much of what the process holds is free (after a FLUSHALL, a
  // large DEL, a burst of big replies), hands it back to the system, as Redis's jemalloc does
  // by itself. Public for tests.
  void ReleaseFreeMemoryIfWorthIt();

  // Asks the Server loop to close `client` without sending more (CLIENT KILL, limits). Safe to
  // call while the client is running a command; the client is freed at the end of the iteration.
  void RequestClose(Client* client);
  std::vector<uint64_t> TakeCloseRequests() { return std::move(close_requests_); }

  // --- Long commands (scripts past busy-reply-threshold) --------------------------------
  void set_event_pump(EventPump* pump) { event_pump_ = pump; }
  // Serves the other clients' events now (nothing without a Server).
  void ProcessEventsWhileBlocked(const Client& busy_client) {
    if (event_pump_ != nullptr) event_pump_->ProcessEventsWhileBlocked(busy_client);
  }
  BusyKind busy() const { return busy_; }
  void set_busy(BusyKind kind) { busy_ = kind; }
  static constexpr std::string_view kBusyEval =
      "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
  static constexpr std::string_view kBusyFunction =
      "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

  // The server's listeners, when a Server runs this engine (else nullptr).
  ListenerControl* listener_control() { return listener_control_; }
  void set_listener_control(ListenerControl* control) { listener_control_ = control; }

  // Scripting (engine/script/scripting.h): EVAL's scripts and their interpreter.
  EngineExtension& scripting() { return *scripting_; }

  // Set by SHUTDOWN or a termination signal; the Server loop stops when it sees it.
  bool shutdown_requested() const { return shutdown_requested_; }
  void RequestShutdown() { shutdown_requested_ = true; }

  // Log through the environment, honouring loglevel.
  void Log(LogLevel level, std::string_view line);

  // ErrorObserver: counts every error reply for INFO errorstats.
  void OnErrorReply(std::string_view code) override;

 private:
  void RefreshKeyspaceSettings();
  void RejectUnknown(Client& client, std::span<const std::string_view> args,
                     bool unknown_subcommand);
  void Reject(Client& client, const CommandSpec* spec, std::string_view error);
  // Reject for a command that was looked up: EXEC's refusal ends its transaction (AbortExec).
  void RejectCommand(Client& client, const CommandSpec& spec,
                     std::span<const std::string_view> args, std::string_view error);
  // Redis's execCommandAbort: discards the transaction and replies EXECABORT with `error`.
  void AbortExec(Client& client, const CommandSpec& spec, std::span<const std::string_view> args,
                 std::string_view error);
  // In MULTI: queues the command and replies +QUEUED, or refuses it (dooming the transaction).
  void QueueCommand(Client& client, const CommandSpec& spec,
                    std::span<const std::string_view> args);
  // How a command behaves inside MULTI (Redis's processCommand lists them by function).
  enum class MultiRole : uint8_t {
    kQueued,     // queued until EXEC
    kRunsNow,    // MULTI, WATCH: run at once (and refused over maxmemory, as a queued one)
    kOomExempt,  // DISCARD, QUIT, RESET: run at once, never refused for memory
    kExec,
  };
  MultiRole RoleInMulti(const CommandSpec& spec) const { return multi_roles_[spec.id]; }
  // The command's flags as the checks see them: EXEC's include its queued commands'.
  uint32_t EffectiveFlags(const Client& client, const CommandSpec& spec,
                          std::span<const std::string_view> args) const;
  // A "POST" or "Host:" command (an HTTP request): logs Redis's security warning, at most once
  // a minute, and closes the client without a reply.
  void AbortCrossProtocolClient(Client& client);
  // Dispatch, told to the command observer if there is one.
  ExecuteResult DispatchObserved(Client& client, std::span<const std::string_view> args);
  // Execute without the CLIENT REPLY bookkeeping around it.
  ExecuteResult Dispatch(Client& client, std::span<const std::string_view> args);
  // The checks between a command's lookup and its run, in Redis's order; returns the error to
  // reply, or "" when the command may run.
  std::string_view CheckAllowed(const Client& client, const CommandSpec& spec,
                                std::span<const std::string_view> args);
  bool PausedFor(const Client& client, const CommandSpec& spec,
                 std::span<const std::string_view> args);
  // After a command ran: statistics, slow log, latency, MONITOR.
  void AccountCall(Client& client, const CallFrame& frame, int64_t duration_us, bool failed);
  // After a command ran: adds it, as it must be replayed, to the execution unit.
  void PropagateCall(const Client& client, const CallFrame& frame);
  void FeedMonitors(const Client& client, std::span<const std::string_view> args);
  // Redis's resetClient for CLIENT REPLY SKIP: the skip applies to exactly one command.
  void EndReplySkip(Client& client);
  // Statistics after a command's run or wait: the latency histogram and `latency_event` (the
  // command's own when empty), the slow log, and MONITOR when `to_monitors`; `duration_us` < 0
  // feeds MONITOR only.
  void RecordDuration(Client& client, const CommandSpec& spec,
                      std::span<const std::string_view> args, std::span<const size_t> redacted_args,
                      int64_t duration_us, std::string_view latency_event, bool to_monitors);
  // Whether a call of `duration_us` reaches the latency monitor's or the slow log's threshold.
  bool ReachesDurationThresholds(int64_t duration_us) const;
  // latency-tracking: INFO latencystats' per-command histogram.
  void RecordLatencyHistogram(CommandStats& command_stats, int64_t duration_us);
  // After a read-only command: client tracking remembers the keys it (or its script) read.
  void RememberTrackedKeys(const CallFrame& frame);
  // After a command: CLIENT CACHING's flag ends unless the command keeps it.
  void EndTrackingCaching(Client& client);
  // Runs the commands of the clients waiting for keys that became ready, until none is.
  void ServeReadyKeys();
  // Runs a blocked client's command again for `key`; true when it was served.
  bool RetryBlocked(Client& client, std::string_view key);
  // Ends a wait: out of the table, the reply skip, its output and input woken.
  void EndWait(Client& client);
  // Ends a wait without running the command again: the timeout's reply, or CLIENT UNBLOCK's
  // (`with_error`: the UNBLOCKED error) with its statistics, then EndWait.
  void EndWaitUnserved(Client& client, bool by_client_unblock, bool with_error);

  Env& env_;
  MemoryAccountant memory_;
  ReplyChunkPool reply_chunks_;
  Config config_;
  StartupInfo startup_;
  const Registry& registry_;
  ServerStats stats_;
  Rng rng_;
  std::string run_id_;
  Keyspace keyspace_;
  bool active_expire_enabled_ = true;
  Evictor evictor_;
  WatchTable watches_;
  BlockingTable blocking_;
  std::vector<uint64_t> unblocked_;
  PubSub pubsub_;
  Tracking tracking_{*this};
  Client* dispatching_client_ = nullptr;  // the client Execute is serving (current_client)
  Persistence persistence_{*this};
  Aof aof_{*this};
  std::unique_ptr<Replication> replication_;
  // Publishes keyspace notifications (notify-keyspace-events with K or E); a keyspace observer
  // only while they are enabled, so that writes pay nothing for them otherwise.
  class Notifier final : public KeyspaceObserver {
   public:
    explicit Notifier(Engine& engine) : engine_(engine) {}
    void KeyEventFired(int db_index, uint32_t type_class, std::string_view event,
                       std::string_view key) override;

   private:
    Engine& engine_;
  };
  Notifier notifier_{*this};
  bool notifier_observing_ = false;
  bool evictions_pending_ = false;      // CONFIG SET lowered maxmemory: evict after the command
  std::vector<bool> pubsub_allowed_;    // by CommandSpec::id: runs in RESP2's subscribed mode
  std::string refusal_;                 // a formatted refusal CheckAllowed returns a view of
  std::vector<MultiRole> multi_roles_;  // by CommandSpec::id
  std::vector<bool> script_commands_;   // by CommandSpec::id: EVAL and friends
  std::unique_ptr<EngineExtension> scripting_;
  std::map<uint64_t, std::unique_ptr<Client>> clients_;
  uint64_t next_client_id_ = 1;
  std::vector<uint64_t> close_requests_;
  ListenerControl* listener_control_ = nullptr;
  EventPump* event_pump_ = nullptr;
  BusyKind busy_ = BusyKind::kNone;
  std::vector<Client*> monitors_;  // in MONITOR order
  std::vector<uint64_t> output_wakeups_;
  // The running commands, outermost first (frames past call_depth_ are kept for their capacity).
  std::array<CallFrame, limits::kCallDepthMax> frames_;
  int call_depth_ = 0;
  SlowLog slowlog_;
  LatencyMonitor latency_monitor_;
  size_t startup_memory_bytes_ = 0;
  size_t peak_memory_bytes_ = 0;
  // ReleaseFreeMemoryIfWorthIt's pacing: when it next reads the resident size, and what a
  // release last left resident and when.
  int64_t next_release_check_us_ = 0;
  int64_t last_release_us_ = INT64_MIN / 2;
  size_t resident_after_release_ = 0;
  std::array<size_t, kClientPeakSlots> peak_input_bytes_{};
  std::array<size_t, kClientPeakSlots> peak_output_bytes_{};
  size_t peak_slot_ = 0;

  PauseMode pause_mode_ = PauseMode::kNone;
  int64_t pause_end_ms_ = 0;
  uint64_t pause_epoch_ = 0;

  bool skip_checksum_validation_ = false;
  bool scripts_run_noscript_commands_ = false;
  bool cron_paused_ = false;
  uint64_t quicklist_packed_threshold_bytes_ = kQuicklistPackedThresholdDefault;
  CommandObserver* command_observer_ = nullptr;

  int64_t mono_anchor_us_ = 0;
  int64_t wall_anchor_us_ = 0;
  int64_t mono_now_us_ = 0;
  int64_t command_wall_ms_ = 0;
  int64_t start_monotonic_us_ = 0;
  bool shutdown_requested_ = false;
  bool security_warning_logged_ = false;
  int64_t security_warning_logged_s_ = 0;  // wall-clock seconds of the last security warning
};

}  // namespace keel
