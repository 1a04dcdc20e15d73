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

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/memory.h"
#include "engine/base/rng.h"
#include "engine/commands/registry.h"
#include "engine/db/database.h"
#include "engine/db/eviction.h"
#include "engine/db/slab.h"
#include "engine/env/env.h"
#include "engine/server/client.h"
#include "engine/server/config.h"
#include "engine/server/output_buffer.h"
#include "engine/server/stats.h"

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
};

class Engine : public ErrorObserver {
 public:
  Engine(Env& env, Config config, StartupInfo startup = {});
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Env& env() { return env_; }
  MemoryAccountant& memory() { return memory_; }
  ReplyChunkPool& reply_chunks() { return reply_chunks_; }
  Config& config() { return config_; }
  const ConfigValues& settings() const { return config_.values(); }
  const Registry& registry() const { return registry_; }
  ServerStats& stats() { return stats_; }
  Rng& rng() { return rng_; }
  const StartupInfo& startup() const { return startup_; }

  int database_count() const { return static_cast<int>(databases_.size()); }
  SlabAllocator& slab() { return slab_; }
  const AccessClock& access_clock() const { return access_clock_; }

  // Active expiry runs in cron unless turned off (DEBUG SET-ACTIVE-EXPIRE 0).
  bool active_expire_enabled() const { return active_expire_enabled_; }
  void set_active_expire_enabled(bool enabled) { active_expire_enabled_ = enabled; }
  // Eviction state kept across commands: the candidate pool and the round-robin database.
  EvictionPool& eviction_pool() { return eviction_pool_; }
  int next_eviction_database() {
    eviction_database_ = (eviction_database_ + 1) % database_count();
    return eviction_database_;
  }
  Database& database(int index) { return *databases_[static_cast<size_t>(index)]; }

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
  void BeginTimeSlice();
  void Execute(Client& client, std::span<const std::string_view> args);

  // At most one observer (nullptr: none); it must outlive its registration.
  void set_command_observer(CommandObserver* observer) { command_observer_ = observer; }

  // The command-time snapshot: wall-clock milliseconds at the start of the running command (the
  // time all its expiry decisions use), and the monotonic microseconds of the same instant.
  int64_t command_time_ms() const { return command_wall_ms_; }
  int64_t now_monotonic_us() const { return mono_now_us_; }
  // Wall-clock ms derived from the last clock reading (cheap; for INFO, CLIENT LIST, logs).
  int64_t wall_ms() const { return (wall_anchor_us_ + (mono_now_us_ - mono_anchor_us_)) / 1000; }
  int64_t start_monotonic_us() const { return start_monotonic_us_; }
  // Run id: 40 hex characters drawn from the environment's entropy at start (INFO, HELLO).
  const std::string& run_id() const { return run_id_; }

  // Periodic work (Server calls it hz times per second): statistics sampling, pool trimming.
  void Cron();

  // Asks the Server loop to close `client` without sending more (CLIENT KILL, limits). Safe to
  // call while the client is running a command; the client is freed at the end of the iteration.
  void RequestClose(Client* client);
  std::vector<uint64_t> TakeCloseRequests() { return std::move(close_requests_); }

  // The server's listeners, when a Server runs this engine (else nullptr).
  ListenerControl* listener_control() { return listener_control_; }
  void set_listener_control(ListenerControl* control) { listener_control_ = control; }

  // Set by SHUTDOWN or a termination signal; the Server loop stops when it sees it.
  bool shutdown_requested() const { return shutdown_requested_; }
  void RequestShutdown() { shutdown_requested_ = true; }

  // Log through the environment, honouring loglevel.
  void Log(LogLevel level, std::string_view line);

  // ErrorObserver: counts every error reply for INFO errorstats.
  void OnErrorReply(std::string_view code) override;

 private:
  void RejectUnknown(Client& client, std::span<const std::string_view> args,
                     bool unknown_subcommand);
  void Reject(Client& client, const CommandSpec* spec, std::string_view error);
  void ExecuteChecked(Client& client, std::span<const std::string_view> args);

  Env& env_;
  MemoryAccountant memory_;
  ReplyChunkPool reply_chunks_;
  Config config_;
  StartupInfo startup_;
  const Registry& registry_;
  ServerStats stats_;
  Rng rng_;
  std::string run_id_;
  SlabAllocator slab_;        // entries of every database
  AccessClock access_clock_;  // what "now" means for LRU/LFU, updated per command
  std::vector<std::unique_ptr<Database>> databases_;
  bool active_expire_enabled_ = true;
  EvictionPool eviction_pool_;
  int eviction_database_ = 0;
  std::map<uint64_t, std::unique_ptr<Client>> clients_;
  uint64_t next_client_id_ = 1;
  std::vector<uint64_t> close_requests_;
  ListenerControl* listener_control_ = nullptr;
  CommandObserver* command_observer_ = nullptr;

  int64_t mono_anchor_us_ = 0;
  int64_t wall_anchor_us_ = 0;
  int64_t mono_now_us_ = 0;
  int64_t command_wall_ms_ = 0;
  int64_t start_monotonic_us_ = 0;
  bool shutdown_requested_ = false;
};

}  // namespace keel
