#include "engine/server/engine.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "engine/base/limits.h"
#include "engine/base/numbers.h"
#include "engine/db/expiry.h"
#include "engine/db/notify.h"
#include "engine/registry/errors.h"
#include "engine/server/command_context.h"
#include "engine/server/replication.h"

namespace keel {
namespace {

// Names `client` in `wakeups` once, for the Server to write out what it was given outside its
// own commands (MONITOR lines, messages, a served BLPOP). An internal client has no connection
// to write to (its output is read in-process): naming it would only make the loop's next wait
// return at once.
void QueueWakeup(Client& client, std::vector<uint64_t>* wakeups) {
  if (!client.has_connection()) return;
  if (client.flags & kClientWakeupQueued) return;
  client.flags |= kClientWakeupQueued;
  wakeups->push_back(client.id());
}

// printf's "%.Ns" on a C string: at most `bytes_max` bytes, stopping at a NUL.
std::string_view CString(std::string_view text, size_t bytes_max) {
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) text = text.substr(0, nul);
  return text.substr(0, bytes_max);
}

// Slots each database's resize moves per cron tick (about a millisecond of work).
constexpr size_t kCronResizeSlots = 8192;

// Redis's sdscatrepr: the argument in double quotes with C escapes, other bytes outside printable
// ASCII as \xHH.
void AppendQuoted(std::string* out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : text) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '"':
        *out += "\\\"";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\a':
        *out += "\\a";
        break;
      case '\b':
        *out += "\\b";
        break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte <= 0x7e) {
          out->push_back(c);
        } else {
          *out += "\\x";
          out->push_back(kHex[byte >> 4]);
          out->push_back(kHex[byte & 15]);
        }
      }
    }
  }
  out->push_back('"');
}

}  // namespace

namespace {

int CheckedDatabaseCount(const Config& config) {
  const int64_t databases = config.values().databases;
  KEEL_ASSERT(databases >= 1 && databases <= limits::kDatabasesMax);
  return static_cast<int>(databases);
}

}  // namespace

Engine::Engine(Env& env, Config config, StartupInfo startup)
    : Engine(env, std::move(config), std::move(startup), Registry::Builtin()) {}

Engine::Engine(Env& env, Config config, StartupInfo startup, const Registry& registry)
    : env_(env),
      memory_(env.memory()),
      reply_chunks_(memory_),
      config_(std::move(config)),
      startup_(std::move(startup)),
      registry_(registry),
      rng_(env.random().NextU64()),
      run_id_(MakeRunId(env.random())),
      keyspace_(memory_, rng_, CheckedDatabaseCount(config_)),
      watches_(keyspace_),
      blocking_(keyspace_) {
  stats_.commands.resize(registry_.all().size());
  replication_ = std::make_unique<Replication>(*this, MakeRunId(env.random()));
  multi_roles_.assign(registry_.all().size(), MultiRole::kQueued);
  for (const CommandSpec* spec : registry_.all()) {
    const std::string_view name = spec->full_name;
    if (name == "exec") {
      multi_roles_[spec->id] = MultiRole::kExec;
    } else if (name == "multi" || name == "watch") {
      multi_roles_[spec->id] = MultiRole::kRunsNow;
    } else if (name == "discard" || name == "quit" || name == "reset") {
      multi_roles_[spec->id] = MultiRole::kOomExempt;
    }
  }
  script_commands_.assign(registry_.all().size(), false);
  for (const CommandSpec* spec : registry_.all()) {
    for (std::string_view name :
         {"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}) {
      if (spec->full_name == name) script_commands_[spec->id] = true;
    }
  }
  scripting_ = MakeScripting(*this);
  // Redis's processCommand: what a RESP2 client may run while subscribed.
  pubsub_allowed_.assign(registry_.all().size(), false);
  for (const CommandSpec* spec : registry_.all()) {
    static constexpr std::string_view kAllowed[] = {"ping",         "subscribe",    "ssubscribe",
                                                    "unsubscribe",  "sunsubscribe", "psubscribe",
                                                    "punsubscribe", "quit",         "reset"};
    for (std::string_view name : kAllowed) {
      if (spec->full_name == name) pubsub_allowed_[spec->id] = true;
    }
  }
  RefreshKeyspaceSettings();
  BeginTimeSlice();
  start_monotonic_us_ = mono_now_us_;
  // Like Redis, a server that never saved counts its start as its last save.
  persistence_.set_last_save_s(wall_ms() / 1000);
  startup_memory_bytes_ = memory_.used_bytes_total();
  peak_memory_bytes_ = startup_memory_bytes_;
}

Engine::~Engine() {
  scripting_.reset();  // its client returns reply chunks, its interpreter memory
  if (notifier_observing_) keyspace_.RemoveObserver(&notifier_);
  clients_.clear();  // returns reply chunks before the pool goes away
}

void Engine::ReplaceConfig(Config config) {
  const int64_t maxmemory_before = settings().maxmemory;
  config_ = std::move(config);
  RefreshKeyspaceSettings();
  replication_->RefreshSettings();
  // A new limit evicts at once, not only before the next command (Redis's updateMaxmemory
  // starts its eviction timer): after the command that set it (Execute).
  if (settings().maxmemory != maxmemory_before && settings().maxmemory > 0) {
    evictions_pending_ = true;
  }
}

void Engine::RefreshKeyspaceSettings() {
  const ConfigValues& values = settings();
  KeyspaceSettings next;
  next.maxmemory_bytes = values.maxmemory;
  next.maxmemory_policy = static_cast<MaxmemoryPolicy>(values.maxmemory_policy);
  next.maxmemory_samples = values.maxmemory_samples;
  next.maxmemory_eviction_tenacity = values.maxmemory_eviction_tenacity;
  next.lfu_log_factor = values.lfu_log_factor;
  next.lfu_decay_time_minutes = values.lfu_decay_time_minutes;
  next.active_expire_effort = values.active_expire_effort;
  next.hz = values.hz;
  next.lazyfree_lazy_expire = values.lazyfree_lazy_expire;
  next.lazyfree_lazy_eviction = values.lazyfree_lazy_eviction;
  // Redis publishes nothing unless K or E is set, whatever classes are.
  const uint32_t classes = values.notify_keyspace_classes;
  next.notify_classes = (classes & (kNotifyKeyspace | kNotifyKeyevent)) != 0 ? classes : 0;
  keyspace_.set_settings(next);
  const bool notify = next.notify_classes != 0;
  if (notify != notifier_observing_) {
    if (notify) {
      keyspace_.AddObserver(&notifier_);
    } else {
      keyspace_.RemoveObserver(&notifier_);
    }
    notifier_observing_ = notify;
  }
}

void Engine::BeginTimeSlice() {
  Clock& clock = env_.clock();
  mono_anchor_us_ = clock.MonotonicUs();
  wall_anchor_us_ = clock.WallUs();
  mono_now_us_ = mono_anchor_us_;
  command_wall_ms_ = wall_anchor_us_ / 1000;
}

Client* Engine::NewClient(ConnId conn, const ConnInfo* info) {
  const uint64_t id = next_client_id_++;
  auto client = std::make_unique<Client>(id, conn, memory_, reply_chunks_);
  client->reply().set_error_observer(this);
  client->created_ms = wall_ms();
  client->last_interaction_ms = client->created_ms;
  client->authenticated = settings().requirepass.empty();
  if (info != nullptr) {
    client->peer_address = info->peer_address;
    client->local_address = info->local_address;
    client->peer_is_loopback = info->peer_is_loopback;
    client->descriptor = info->descriptor;
  }
  Client* raw = client.get();
  clients_.emplace(id, std::move(client));
  return raw;
}

void Engine::FreeClient(Client* client) {
  KEEL_ASSERT(client != nullptr);
  if (client->flags & kClientMonitor) RemoveMonitor(client);
  replication_->ForgetClient(*client);
  if (client->flags & kClientBlocked) {
    // A waiter that disconnects leaves its queues; nothing is replied or accounted.
    if (command_observer_ != nullptr) command_observer_->BlockEnded(*client);
    blocking_.Remove(*client);
    client->blocked.reset();
    client->flags &= ~kClientBlocked;
  }
  if (client->flags & kClientWaitingSave) {
    // The save goes on; only its reply has nobody to go to.
    if (command_observer_ != nullptr) command_observer_->BlockEnded(*client);
    persistence_.ForgetClient(*client);
    client->flags &= ~kClientWaitingSave;
  }
  DiscardTransaction(*client);
  pubsub_.Forget(*client);
  // Clients that redirect to it find it gone at their next invalidation (broken redirect).
  if (client->flags & kClientTracking) tracking_.Disable(*client);
  if (dispatching_client_ == client) dispatching_client_ = nullptr;
  const size_t erased = clients_.erase(client->id());
  KEEL_ASSERT(erased == 1);
}

Client* Engine::FindClient(uint64_t id) {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second.get();
}

void Engine::RequestClose(Client* client) {
  if (client->flags & kClientCloseAsap) return;
  client->flags |= kClientCloseAsap;
  close_requests_.push_back(client->id());
}

void Engine::RunCommand(Client& client, std::span<const std::string_view> args) {
  BeginTimeSlice();
  Execute(client, args);
}

void Engine::Reject(Client& client, const CommandSpec* spec, std::string_view error) {
  if (spec != nullptr) stats_.commands[spec->id].rejected_calls++;
  // Redis's flagTransaction: a command refused while queuing (unknown, wrong arity, denied, out
  // of memory) makes EXEC answer EXECABORT.
  if (client.flags & kClientMulti) client.flags |= kClientDirtyExec;
  client.reply().Error(error);
}

void Engine::RejectCommand(Client& client, const CommandSpec& spec,
                           std::span<const std::string_view> args, std::string_view error) {
  if (RoleInMulti(spec) == MultiRole::kExec) {
    AbortExec(client, spec, args, error);
  } else {
    Reject(client, &spec, error);
  }
}

void Engine::AbortExec(Client& client, const CommandSpec& spec,
                       std::span<const std::string_view> args, std::string_view error) {
  stats_.commands[spec.id].rejected_calls++;
  DiscardTransaction(client);
  // Redis formats the reason without its own "-ERR " (a refusal written as plain text, as the
  // arity error) but keeps other codes: "...because of: OOM command not allowed ...".
  if (error.starts_with("ERR ")) error.remove_prefix(4);
  std::string reply = "EXECABORT Transaction discarded because of: ";
  reply += error;
  client.reply().Error(reply);
  // MONITOR clients saw MULTI; they see the EXEC that ends it, as in Redis.
  if (!monitors_.empty()) FeedMonitors(client, args);
}

void Engine::DiscardTransaction(Client& client) {
  client.transaction.reset();
  client.flags &= ~(kClientMulti | kClientDirtyCas | kClientDirtyExec);
  watches_.UnwatchAll(client);
}

void Engine::QueueCommand(Client& client, const CommandSpec& spec,
                          std::span<const std::string_view> args) {
  // As Redis, a doomed transaction queues nothing more (its EXEC fails whatever it holds) but
  // still answers QUEUED.
  if (!(client.flags & (kClientDirtyCas | kClientDirtyExec))) {
    if (client.transaction == nullptr) client.transaction = std::make_unique<Transaction>(memory_);
    Transaction& transaction = *client.transaction;
    size_t bytes = Transaction::kCommandOverheadBytes;
    for (std::string_view arg : args) bytes += arg.size() + Transaction::kArgOverheadBytes;
    const auto limit_bytes = static_cast<size_t>(settings().client_query_buffer_limit);
    if (transaction.bytes() + watches_.watched_bytes(client) + bytes > limit_bytes) {
      Reject(client, &spec, kTransactionTooLarge);
      return;
    }
    if (!transaction.Queue(spec, args)) {
      Reject(client, &spec, errors::kOom);
      return;
    }
  }
  client.reply().SimpleString("QUEUED");
}

uint32_t Engine::EffectiveFlags(const Client& client, const CommandSpec& spec,
                                std::span<const std::string_view> args) const {
  uint32_t flags = spec.flags;
  if (script_commands_[spec.id]) flags = scripting_->CommandFlags(spec, args, flags);
  if (RoleInMulti(spec) == MultiRole::kExec && client.transaction != nullptr) {
    flags |= client.transaction->command_flags();
  }
  return flags;
}

void Engine::RejectUnknown(Client& client, std::span<const std::string_view> args,
                           bool unknown_subcommand) {
  if (unknown_subcommand) {
    Reject(client, nullptr, UnknownSubcommandError(args[0], args[1]));
    return;
  }
  // Redis quotes up to about 128 bytes of the arguments, each cut to what was left of that budget
  // before its opening quote (conformance/cases/server.txt).
  std::string quoted;
  for (size_t i = 1; i < args.size() && quoted.size() < 128; i++) {
    const size_t budget = 128 - quoted.size();
    quoted += '\'';
    quoted += CString(args[i], budget);
    quoted += "' ";
  }
  std::string error = "ERR unknown command '";
  error += CString(args[0], 128);
  error += "', with args beginning with: ";
  error += quoted;
  Reject(client, nullptr, error);
}

std::string_view Engine::CheckAllowed(const Client& client, const CommandSpec& spec,
                                      std::span<const std::string_view> args) {
  // DEBUG is Keel's only protected command (Redis's other one is MODULE).
  if (spec.flags & kCmdProtected) {
    const int64_t allowed = settings().enable_debug_command;
    if (allowed == kProtectedNo || (allowed == kProtectedLocal && !client.peer_is_loopback)) {
      return errors::kDebugNotAllowed;
    }
  }
  if (AuthRequired(client) && !(spec.flags & kCmdNoAuth)) return errors::kNoAuth;
  const bool in_multi = (client.flags & kClientMulti) != 0;
  if (in_multi && (spec.flags & kCmdNoMulti)) return errors::kNoMulti;
  // With a memory limit, every command first evicts what the policy allows (not while writes
  // are paused: evicting is writing); only commands that may grow memory are refused when that
  // is not enough (Redis's processCommand and performEvictions). Within the limit there is
  // nothing to evict or refuse: the request path's common case costs one sum and a compare.
  const int64_t maxmemory = settings().maxmemory;
  if (maxmemory > 0 && memory_.used_bytes_total() > static_cast<size_t>(maxmemory)) {
    // Nothing is evicted while a busy script lets another client in: the script's command is
    // not over, and evicting would end its propagation unit early.
    const bool over =
        writes_paused() || call_depth_ > 0 || PerformEvictions() == EvictionResult::kFailed;
    // Queuing takes memory too: inside MULTI every command is refused but those that end the
    // transaction or the connection (EXEC only when one of its commands is denyoom).
    const MultiRole role = RoleInMulti(spec);
    const bool deny = (EffectiveFlags(client, spec, args) & kCmdDenyOom) ||
                      (in_multi && role != MultiRole::kExec && role != MultiRole::kOomExempt);
    if (over && deny) return errors::kOom;
  }
  // Client tracking's table stays within tracking-table-max-keys (Redis's processCommand).
  if (tracking_.client_count() > 0) tracking_.LimitUsedSlots(settings().tracking_table_max_keys);
  // Redis's writeCommandsDeniedByDiskError: after a failed background save, with
  // stop-writes-on-bgsave-error, writes (and PING) are refused until a save succeeds.
  if (persistence_.writes_denied() &&
      ((EffectiveFlags(client, spec, args) & kCmdWrite) || spec.full_name == "ping")) {
    return errors::kMisconf;
  }
  // The same for the AOF (Redis: "-MISCONF Errors writing to the AOF file: ..."), while a write,
  // a sync or the manifest of the AOF is failing.
  if (aof_.writes_denied() &&
      ((EffectiveFlags(client, spec, args) & kCmdWrite) || spec.full_name == "ping")) {
    refusal_ = aof_.MisconfError();
    return refusal_;
  }
  // Redis's checkGoodReplicasStatus: with min-replicas-to-write, writes need that many replicas
  // that acknowledged within min-replicas-max-lag seconds.
  if (replication_->refuses_writes() && (EffectiveFlags(client, spec, args) & kCmdWrite)) {
    return "NOREPLICAS Not enough good replicas to write.";
  }
  if (replication_->is_replica()) {
    // Redis's processCommand on a replica: a stale link refuses what needs fresh data
    // (replica-serve-stale-data no), and a read-only replica refuses writes.
    if (!replication_->link_up() && !replication_->serve_stale_data() &&
        !(spec.flags & kCmdStale)) {
      return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
    }
    if (replication_->read_only() && (EffectiveFlags(client, spec, args) & kCmdWrite)) {
      return "READONLY You can't write against a read only replica.";
    }
  }
  // A MONITOR client is a replica to Redis, and replicas may not use the keyspace (that would
  // let them dodge CLIENT PAUSE, which never holds them).
  if ((client.flags & kClientMonitor) &&
      (EffectiveFlags(client, spec, args) & (kCmdWrite | kCmdReadonly | kCmdMayReplicate))) {
    return errors::kReplicaKeyspace;
  }
  // A script past busy-reply-threshold serves others only what may run meanwhile (Redis's
  // processCommand: SCRIPT KILL, SHUTDOWN NOSAVE, the transaction commands, AUTH, HELLO...).
  if (busy_ != BusyKind::kNone && !(spec.flags & kCmdAllowBusy)) {
    return busy_ == BusyKind::kEval ? kBusyEval : kBusyFunction;
  }
  // A RESP2 connection in subscribed mode reads only pushes: it may only change its
  // subscriptions, PING, QUIT and RESET. RESP3 has no such limit.
  if ((client.flags & kClientPubSub) && client.reply().resp() == 2 && !pubsub_allowed_[spec.id]) {
    refusal_ = "ERR Can't execute '";
    refusal_ += spec.full_name;
    refusal_ +=
        "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
        "context";
    return refusal_;
  }
  return {};
}

bool Engine::PausedFor(const Client& client, const CommandSpec& spec,
                       std::span<const std::string_view> args) {
  if (pause_mode_ == PauseMode::kNone) return false;
  if (!client.has_connection() || (client.flags & kClientMonitor)) return false;
  switch (pause_mode()) {
    case PauseMode::kNone:
      return false;
    case PauseMode::kAll:
      return true;
    case PauseMode::kWrite:
      return (EffectiveFlags(client, spec, args) & (kCmdWrite | kCmdMayReplicate)) != 0;
  }
  return false;
}

ExecuteResult Engine::Execute(Client& client, std::span<const std::string_view> args) {
  KEEL_DASSERT(!args.empty());
  // CLIENT REPLY: OFF silences everything, SKIP the one command after CLIENT REPLY SKIP, refused
  // or not; errors are still counted, as Redis counts them.
  ReplyBuilder& reply = client.reply();
  reply.set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  Client* const dispatching_before = dispatching_client_;
  dispatching_client_ = &client;
  const ExecuteResult result = DispatchObserved(client, args);
  dispatching_client_ = dispatching_before;
  // A blocked command's reply comes later: the skip waits for it (FinishBlocked).
  if (result == ExecuteResult::kDone) {
    EndReplySkip(client);
    if (client.flags & kClientTrackingCaching) EndTrackingCaching(client);
  }
  // Replies that reach this client between its commands (MONITOR lines) obey the same switches.
  reply.set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  // Redis's handleClientsBlockedOnKeys after every top-level command: the keys it made ready
  // serve their waiters now, before any other client's command. Not while a busy script lets
  // this command in: the script's own command is not over.
  if (call_depth_ > 0) return result;
  if (blocking_.has_ready()) ServeReadyKeys();
  // WAIT's clients, when replicas acknowledged more (Redis's processClientsWaitingReplicas).
  if (replication_->has_new_acks()) replication_->ServeWaiters();
  if (evictions_pending_) {
    evictions_pending_ = false;
    PerformEvictions();
  }
  return result;
}

void Engine::EndReplySkip(Client& client) {
  // Redis's resetClient: the skip applies to exactly one processed command.
  client.flags &= ~kClientReplySkip;
  if (client.flags & kClientReplySkipNext) {
    client.flags = (client.flags & ~kClientReplySkipNext) | kClientReplySkip;
  }
}

ExecuteResult Engine::DispatchObserved(Client& client, std::span<const std::string_view> args) {
  if (command_observer_ == nullptr) return Dispatch(client, args);
  command_observer_->BeforeCommand(client, args);
  const ExecuteResult result = Dispatch(client, args);
  switch (result) {
    case ExecuteResult::kDone:
      command_observer_->AfterCommand(client);
      break;
    case ExecuteResult::kPostponed:
      command_observer_->CommandPostponed(client);
      break;
    case ExecuteResult::kBlocked:
      command_observer_->CommandBlocked(client);
      break;
  }
  return result;
}

void Engine::AbortCrossProtocolClient(Client& client) {
  // Redis's securityWarningCommand: at most one log line a minute (by the wall clock, as Redis's
  // time(NULL)), so that an attacker cannot flood the log.
  const int64_t now_s = wall_ms() / 1000;
  if (!security_warning_logged_ || now_s - security_warning_logged_s_ > 60 ||
      security_warning_logged_s_ - now_s > 60) {
    Log(LogLevel::kWarning,
        "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: "
        "commands to Redis. This is likely due to an attacker attempting to use Cross Protocol "
        "Scripting to compromise your Redis instance. Connection aborted.");
    security_warning_logged_ = true;
    security_warning_logged_s_ = now_s;
  }
  RequestClose(&client);
}

ExecuteResult Engine::Dispatch(Client& client, std::span<const std::string_view> args) {
  // Cross-protocol scripting: an HTTP request sent to the port (a web page in a local browser can
  // send one to localhost) would otherwise run the commands in its body, since the header lines
  // before it are only unknown commands. As Redis's processCommand, before the lookup and every
  // other check: a "POST" or "Host:" command closes the connection without a reply, and the
  // commands after it in the same read never run (the Server stops at a client closing).
  const size_t name_bytes = args[0].size();
  if ((name_bytes == 4 && EqualsIgnoreCase(args[0], "post")) ||
      (name_bytes == 5 && EqualsIgnoreCase(args[0], "host:"))) {
    AbortCrossProtocolClient(client);
    return ExecuteResult::kDone;
  }
  bool unknown_subcommand = false;
  // Pipelines repeat a command: one comparison with the client's previous command (a plain,
  // top-level one) saves the hash lookup.
  const CommandSpec* spec = client.last_command;
  if (spec == nullptr || spec->parent != nullptr || spec->is_container() ||
      !EqualsIgnoreCase(spec->name, args[0])) {
    spec = registry_.Resolve(args, &unknown_subcommand);
  }
  // As in Redis, the client's last command (CLIENT LIST's cmd=) is what the lookup found, before
  // any check: NULL for an unknown command, the command itself when it is then rejected.
  client.last_command = spec;
  if (spec == nullptr) {
    RejectUnknown(client, args, unknown_subcommand);
    return ExecuteResult::kDone;
  }
  if (!spec->ArityAccepts(args.size())) {
    RejectCommand(client, *spec, args, WrongArityError(*spec));
    return ExecuteResult::kDone;
  }
  const std::string_view refusal = CheckAllowed(client, *spec, args);
  if (!refusal.empty()) {
    RejectCommand(client, *spec, args, refusal);
    return ExecuteResult::kDone;
  }
  if (pause_mode_ != PauseMode::kNone && PausedFor(client, *spec, args)) {
    client.last_command = spec;  // CLIENT LIST shows the command it waits with
    return ExecuteResult::kPostponed;
  }
  if ((client.flags & kClientMulti) && RoleInMulti(*spec) == MultiRole::kQueued) {
    QueueCommand(client, *spec, args);
    client.commands_processed++;
    client.last_interaction_ms = wall_ms();
    return ExecuteResult::kDone;
  }

  Call(client, *spec, args);
  client.last_command = spec;
  client.commands_processed++;
  client.last_interaction_ms = command_wall_ms_;
  return (client.flags & (kClientBlocked | kClientWaitingSave)) ? ExecuteResult::kBlocked
                                                                : ExecuteResult::kDone;
}

void Engine::Replay(Client& client, std::span<const std::string_view> args, uint32_t flags) {
  KEEL_ASSERT(!args.empty());
  KEEL_ASSERT((flags & (kCallFromAof | kCallFromPrimary)) != 0);
  BeginTimeSlice();
  bool unknown_subcommand = false;
  const CommandSpec* spec = registry_.Resolve(args, &unknown_subcommand);
  if (spec == nullptr) {
    RejectUnknown(client, args, unknown_subcommand);
    return;
  }
  if (!spec->ArityAccepts(args.size())) {
    Reject(client, spec, WrongArityError(*spec));
    return;
  }
  Call(client, *spec, args, flags);
  // A replica's stream is replayed at top level: its waiters are served after each command. DEBUG
  // LOADAOF replays inside its own command: they are served once it ends (Execute), as Redis
  // serves them after the command that loaded (the upstream stream-cgroups test aborted here).
  if (call_depth_ == 0 && blocking_.has_ready()) ServeReadyKeys();
}

EvictionResult Engine::PerformEvictions() {
  const EvictionResult result = evictor_.Perform(keyspace_, memory_);
  // Each eviction is its own change: Redis propagates the DELs outside the command's unit.
  keyspace_.propagation().EndUnit(/*transaction=*/false);
  return result;
}

void Engine::Call(Client& client, const CommandSpec& spec, std::span<const std::string_view> args,
                  uint32_t flags) {
  KEEL_ASSERT(spec.handler != nullptr);  // containers have arity -2: they never get here alone
  KEEL_ASSERT(call_depth_ < limits::kCallDepthMax);
  KEEL_DASSERT(spec.ArityAccepts(args.size()));
  const bool outermost = call_depth_ == 0;
  const int64_t repl_offset_before = replication_->offset();
  // One clock reading per command: the reading that ended the previous command stamps this one
  // (the Redis command-time snapshot). Commands run inside another keep its time, as every
  // command of an EXEC or a script sees the time the unit started.
  const int64_t start_us = mono_now_us_;
  if (outermost) {
    command_wall_ms_ = (wall_anchor_us_ + (start_us - mono_anchor_us_)) / 1000;
    keyspace_.SetCommandTime(command_wall_ms_);
  }
  CallFrame& frame = frames_[static_cast<size_t>(call_depth_++)];
  frame.Reset(&client, &spec, args, flags, keyspace_.dirty(), client.reply().error_count());
  // A primary's stream and the AOF say when keys expire: their commands neither expire keys on
  // lookup nor take a past expiry for a deletion (Redis's replicas and loading).
  const bool decided_elsewhere = (flags & (kCallFromPrimary | kCallFromAof)) != 0;
  const bool decided_before = keyspace_.decides_expiry();
  if (decided_elsewhere) keyspace_.set_decides_expiry(false);
  CommandContext context(*this, client, args, spec);
  spec.handler(context);
  mono_now_us_ = env_.clock().MonotonicUs();
  const int64_t duration_us = mono_now_us_ > start_us ? mono_now_us_ - start_us : 0;
  const uint64_t errors_after = client.reply().error_count();
  AccountCall(client, frame, duration_us, errors_after != frame.errors_before);
  if (!outermost) {
    CallFrame& caller = frames_[static_cast<size_t>(call_depth_ - 2)];
    if (caller.client == &client) caller.errors_before = errors_after;
  }
  if (!frame.blocked) PropagateCall(client, frame);
  keyspace_.set_decides_expiry(decided_before);
  if (tracking_.client_count() > 0 && (spec.flags & kCmdReadonly)) RememberTrackedKeys(frame);
  call_depth_--;
  if (outermost) {
    keyspace_.propagation().EndUnit();
    // Invalidations for the client's own keys follow its reply (and, in EXEC or a script, the
    // whole command's), as Redis's afterCommand.
    if (tracking_.has_pending()) tracking_.FlushPending(&client);
    // Redis's c->woff: where this client's last write ended in the replication stream (WAIT).
    if (replication_->offset() != repl_offset_before) {
      client.repl_write_offset = replication_->offset();
    }
  }
}

void Engine::RememberTrackedKeys(const CallFrame& frame) {
  // Redis's call(): a read-only command remembers its keys for its client; a script's read
  // remembers the keys the script declared (EVAL's or FCALL's own keys) for the script's
  // caller. EVAL_RO, EVALSHA_RO and FCALL_RO, though read-only, remember nothing themselves.
  const CommandSpec& spec = *frame.spec;
  if (script_commands_[spec.id]) return;
  const CallFrame* reader = &frame;
  if ((frame.flags & kCallFromScript) && call_depth_ >= 2) {
    reader = &frames_[static_cast<size_t>(call_depth_ - 2)];
  }
  Client& caller = *reader->client;
  if (!(caller.flags & kClientTracking) || (caller.flags & kClientTrackingBcast)) return;
  tracking_.RememberKeys(caller, *reader->spec, reader->args);
}

void Engine::EndTrackingCaching(Client& client) {
  // Redis's resetClient: CLIENT CACHING applies to the next command, or to the transaction it
  // starts; any CLIENT subcommand in between keeps it.
  if (client.flags & kClientMulti) return;
  const CommandSpec* last = client.last_command;
  if (last != nullptr && last->parent != nullptr) last = last->parent;
  if (last != nullptr && last->full_name == "client") return;
  client.flags &= ~kClientTrackingCaching;
}

void Engine::WakeOutput(Client& client) { QueueWakeup(client, &output_wakeups_); }

void Engine::PropagateCall(const Client& client, const CallFrame& frame) {
  Propagation& propagation = keyspace_.propagation();
  if (!propagation.active() || (frame.flags & kCallFromAof) || frame.prevent_propagation) return;
  // Redis's call(): a command that changed the keyspace is replayed by the AOF and the replicas,
  // one that asked to be by those it asked for, whatever it changed (less what a script's
  // redis.set_repl excluded); as it was sent, or as it rewrote itself.
  uint8_t targets = frame.force_targets;
  if (keyspace_.dirty() != frame.dirty_before) targets = kPropagateAll;
  if (frame.flags & kCallNoAof) targets &= static_cast<uint8_t>(~kPropagateAof);
  if (frame.flags & kCallNoReplicas) targets &= static_cast<uint8_t>(~kPropagateReplicas);
  if (targets == 0) return;
  if (!frame.rewritten) {
    propagation.Add(client.db_index, frame.args, targets);
    return;
  }
  std::vector<std::string_view> args(frame.propagated_args.begin(), frame.propagated_args.end());
  propagation.Add(client.db_index, args, targets);
}

void Engine::RedactArgument(size_t index) { current_call().redacted_args.push_back(index); }

void Engine::AccountCall(Client& client, const CallFrame& frame, int64_t duration_us, bool failed) {
  // Redis 7.0's call() and updateStatsOnUnblock: a command that blocks is counted as a call and
  // shown to MONITOR when it starts, and timed (latency, slow log) when it is served; a run
  // that leaves it waiting is not accounted at all.
  const bool retry = (frame.flags & kCallRetry) != 0;
  if (retry && frame.blocked) return;
  // WAIT answering when replicas acknowledged or its timeout came: Redis 7.0 replies and unblocks
  // without updateStatsOnUnblock, so nothing more is accounted (no latency, no slow log).
  if (retry && client.blocked && client.blocked->retry_on_timeout) return;
  const CommandSpec& spec = *frame.spec;
  CommandStats& command_stats = stats_.commands[spec.id];
  command_stats.usec += static_cast<uint64_t>(duration_us);
  if (!retry) {
    command_stats.calls++;
    stats_.total_commands_processed++;
  }
  if (failed) command_stats.failed_calls++;
  const bool to_monitors =
      !retry && !monitors_.empty() && !(spec.flags & (kCmdSkipMonitor | kCmdAdmin));
  if (!frame.blocked) {
    // The request path's common case: no MONITOR and faster than the latency monitor's and the
    // slow log's thresholds, so only the latency histogram records the call.
    if (!to_monitors && !ReachesDurationThresholds(duration_us)) {
      RecordLatencyHistogram(command_stats, duration_us);
    } else {
      RecordDuration(client, spec, frame.args, frame.redacted_args, duration_us,
                     retry ? "command-unblocking" : std::string_view(), to_monitors);
    }
  } else if (to_monitors) {
    RecordDuration(client, spec, frame.args, frame.redacted_args, -1, {}, true);
  }
  peak_memory_bytes();  // Redis records the peak after every command
}

bool Engine::ReachesDurationThresholds(int64_t duration_us) const {
  // As RecordDuration decides: a latency-monitor sample from latency-monitor-threshold (ms), a
  // slow-log entry from slowlog-log-slower-than (us; negative: never).
  const ConfigValues& values = settings();
  const int64_t latency_threshold_ms = values.latency_monitor_threshold_ms;
  if (latency_threshold_ms != 0 && duration_us / 1000 >= latency_threshold_ms) return true;
  return values.slowlog_log_slower_than >= 0 && duration_us >= values.slowlog_log_slower_than;
}

void Engine::RecordLatencyHistogram(CommandStats& command_stats, int64_t duration_us) {
  if (!settings().latency_tracking) return;
  if (command_stats.latency == nullptr)
    command_stats.latency = std::make_unique<LatencyHistogram>();
  command_stats.latency->Record(duration_us * 1000);
}

void Engine::RecordDuration(Client& client, const CommandSpec& spec,
                            std::span<const std::string_view> args,
                            std::span<const size_t> redacted_args, int64_t duration_us,
                            std::string_view latency_event, bool to_monitors) {
  const ConfigValues& values = settings();
  const bool timed = duration_us >= 0;
  if (timed) {
    RecordLatencyHistogram(stats_.commands[spec.id], duration_us);
    if (latency_event.empty()) {
      latency_event = (spec.flags & kCmdFast) ? "fast-command" : "command";
    }
    AddLatencySampleIfNeeded(latency_event, duration_us / 1000);
  }

  // The slow log and MONITOR show what the client sent, with secrets (AUTH and HELLO passwords,
  // sensitive CONFIG SET values) replaced as the handler asked.
  const bool to_slowlog = timed && !(spec.flags & kCmdSkipSlowlog) &&
                          values.slowlog_log_slower_than >= 0 &&
                          duration_us >= values.slowlog_log_slower_than;
  if (to_slowlog || to_monitors) {
    std::span<const std::string_view> shown = args;
    std::vector<std::string_view> redacted;
    if (!redacted_args.empty()) {
      redacted.assign(args.begin(), args.end());
      for (size_t index : redacted_args) {
        if (index < redacted.size()) redacted[index] = "(redacted)";
      }
      shown = redacted;
    }
    if (to_slowlog) {
      slowlog_.Push(shown, duration_us, wall_ms() / 1000, client.peer_address, client.name,
                    values.slowlog_log_slower_than, values.slowlog_max_len);
    }
    if (to_monitors) FeedMonitors(client, shown);
  }
}

// --- Pub/sub ----------------------------------------------------------------------------------

size_t Engine::Publish(std::string_view channel, std::string_view message, bool shard) {
  return pubsub_.Publish(channel, message, shard,
                         [this](Client& receiver) { QueueWakeup(receiver, &output_wakeups_); });
}

void Engine::Notifier::KeyEventFired(int db_index, uint32_t /*type_class*/, std::string_view event,
                                     std::string_view key) {
  // Redis's notifyKeyspaceEvent: __keyspace@<db>__:<key> carries the event, then
  // __keyevent@<db>__:<event> carries the key, as K and E ask.
  const uint32_t classes = engine_.keyspace_.settings().notify_classes;
  const std::string db = Int64ToString(db_index);
  if (classes & kNotifyKeyspace) {
    std::string channel = "__keyspace@" + db + "__:";
    channel.append(key);
    engine_.Publish(channel, event, false);
  }
  if (classes & kNotifyKeyevent) {
    std::string channel = "__keyevent@" + db + "__:";
    channel.append(event);
    engine_.Publish(channel, key, false);
  }
}

// --- Blocking commands ------------------------------------------------------------------------

void Engine::BlockClient(std::span<const std::string_view> keys, ValueType type,
                         int64_t timeout_ms) {
  CallFrame& frame = current_call();
  KEEL_ASSERT(call_depth_ == 1 && (frame.flags & (kCallInMulti | kCallFromScript)) == 0);
  frame.blocked = true;
  Client& client = *frame.client;
  // A run for a ready key that finds nothing after all: the client keeps its place and its
  // deadline.
  if (client.flags & kClientBlocked) return;
  auto call = std::make_unique<BlockedCall>();
  call->spec = frame.spec;
  call->args.assign(frame.args.begin(), frame.args.end());
  call->arg_views.assign(call->args.begin(), call->args.end());
  call->db = client.db_index;
  // Each key once (BLPOP k k 0 waits on k once), in argument order.
  std::set<std::string_view> seen;
  for (std::string_view key : keys) {
    if (seen.insert(key).second) call->keys.emplace_back(key);
  }
  call->type = type;
  if (timeout_ms > 0) {
    const int64_t start_us = mono_now_us_;  // the command's start: the handler reads no clock
    const int64_t room_ms = (INT64_MAX - start_us) / 1000;
    call->deadline_us = timeout_ms >= room_ms ? INT64_MAX : start_us + timeout_ms * 1000;
  }
  client.blocked = std::move(call);
  client.flags |= kClientBlocked;
  blocking_.Add(client);
}

void Engine::ServeReadyKeys() {
  // Each round serves or leaves waiting the waiters of the keys that were ready; serving one
  // may make others ready (a BLMOVE's push). A run that leaves its client waiting writes
  // nothing, so the rounds end once every waiter that can be served has been.
  KEEL_ASSERT(call_depth_ == 0);
  while (blocking_.has_ready()) {
    for (const BlockingTable::ReadyKey& ready : blocking_.TakeReady()) {
      for (Client* waiter : blocking_.WaitersOf(ready.db, ready.key)) {
        if (!(waiter->flags & kClientBlocked)) continue;  // served for another key just now
        // A client on its way out would take an element nobody receives.
        if (waiter->flags & kClientCloseAsap) continue;
        // Only a value of the type it waits for can serve it (a SET on a key BLPOP waits for
        // leaves it waiting, as in Redis 7.0).
        const Entry* entry = keyspace_.database(ready.db).Find(ready.key);
        if ((entry == nullptr || entry->type() != waiter->blocked->type) &&
            !waiter->blocked->serve_when_gone) {
          continue;
        }
        RetryBlocked(*waiter, ready.key);
      }
    }
  }
}

bool Engine::RetryBlocked(Client& client, std::string_view key) {
  BlockedCall& call = *client.blocked;
  call.serving_key = key;
  if (command_observer_ != nullptr) command_observer_->BeforeRetry(client);
  ReplyBuilder& reply = client.reply();
  reply.set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  Call(client, *call.spec, call.arg_views, kCallRetry);
  const bool served = !frames_[0].blocked;
  if (!served) {
    call.serving_key = {};
    if (command_observer_ != nullptr) command_observer_->CommandBlocked(client);
    return false;
  }
  client.last_interaction_ms = command_wall_ms_;
  EndWait(client);
  if (command_observer_ != nullptr) command_observer_->AfterCommand(client);
  return true;
}

void Engine::WaitForSave(Client& client) {
  KEEL_ASSERT(call_depth_ == 1);
  client.flags |= kClientWaitingSave;
}

void Engine::EndPersistenceWait(Client& client, Persistence::Trigger trigger, bool ok) {
  KEEL_ASSERT(client.flags & kClientWaitingSave);
  client.flags &= ~kClientWaitingSave;
  ReplyBuilder& reply = client.reply();
  reply.set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  if (trigger == Persistence::Trigger::kShutdown) {
    if (ok || persistence_.shutdown_force()) {
      // Redis closes the connection without a reply when it exits.
      RequestShutdown();
      client.flags |= kClientCloseAfterReply;
    } else {
      Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
      reply.Error("ERR Errors trying to SHUTDOWN. Check logs.");
    }
  } else if (ok) {
    reply.Ok();
  } else {
    reply.Error("ERR");
  }
  if (command_observer_ != nullptr) command_observer_->BlockEnded(client);
  EndReplySkip(client);
  reply.set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  QueueWakeup(client, &output_wakeups_);
  unblocked_.push_back(client.id());
}

void Engine::EndWait(Client& client) {
  blocking_.Remove(client);
  client.blocked.reset();
  client.flags &= ~kClientBlocked;
  EndReplySkip(client);
  client.reply().set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  QueueWakeup(client, &output_wakeups_);
  unblocked_.push_back(client.id());
}

void Engine::EndWaitUnserved(Client& client, bool by_client_unblock, bool with_error) {
  // Redis's replyToBlockedClientTimedOut (a null array for every kind of key wait, BLMOVE's
  // included) or CLIENT UNBLOCK's error. Only CLIENT UNBLOCK then runs updateStatsOnUnblock in
  // Redis 7.0 (a failed call whatever the reason, timed, in the slow log); a timeout adds
  // nothing to what the call counted when it blocked.
  ReplyBuilder& reply = client.reply();
  reply.set_muted((client.flags & (kClientReplyOff | kClientReplySkip)) != 0);
  if (with_error) {
    reply.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
  } else {
    reply.NullArray();
  }
  if (by_client_unblock) {
    const CommandSpec& spec = *client.blocked->spec;
    stats_.commands[spec.id].failed_calls++;
    RecordDuration(client, spec, client.blocked->arg_views, {}, 0, "command-unblocking", false);
  }
  if (command_observer_ != nullptr) command_observer_->BlockEnded(client);
  EndWait(client);
}

bool Engine::UnblockClient(Client& client, bool with_error) {
  if (!(client.flags & kClientBlocked)) return false;
  EndWaitUnserved(client, /*by_client_unblock=*/true, with_error);
  return true;
}

void Engine::RetryBlockedClient(Client& client) {
  KEEL_ASSERT(call_depth_ == 0);
  KEEL_ASSERT(client.flags & kClientBlocked);
  RetryBlocked(client, {});
}

void Engine::QueueOutputWakeup(Client& client) { QueueWakeup(client, &output_wakeups_); }

void Engine::ExpireBlockedClients() {
  // Each turn ends one wait, so the loop is bounded by the blocked clients.
  while (const uint64_t id = blocking_.FirstExpired(mono_now_us_)) {
    Client* client = FindClient(id);
    KEEL_ASSERT(client != nullptr && (client->flags & kClientBlocked));
    // A wait that is not for keys (WAIT) replies from its own command, run once more.
    if (client->blocked->retry_on_timeout) {
      RetryBlocked(*client, {});
      if (!(client->flags & kClientBlocked)) continue;
    }
    EndWaitUnserved(*client, /*by_client_unblock=*/false, /*with_error=*/false);
  }
}

void Engine::ReleaseFreeMemoryIfWorthIt() {
  // Free memory worth a release: 64 MiB, and half of what is in use (less is the allocator's
  // normal slack, which it would take back at once).
  constexpr size_t kFreeBytesMin = size_t{64} << 20;
  constexpr int64_t kCheckIntervalUs = 1'000'000;  // reading the resident size reads /proc
  constexpr int64_t kRetryIntervalUs = 60'000'000;
  if (mono_now_us_ < next_release_check_us_) return;
  next_release_check_us_ = mono_now_us_ + kCheckIntervalUs;
  MemoryResource& resource = memory_.resource();
  const size_t resident = resource.ResidentBytes();
  const size_t used = memory_.used_bytes_total();
  const size_t free_bytes = resident > used ? resident - used : 0;
  if (free_bytes < kFreeBytesMin || free_bytes < used / 2) return;
  // Fragmented memory that a release could not return is not tried again every second: only once
  // another 64 MiB is held, or after a minute.
  if (resident < resident_after_release_ + kFreeBytesMin &&
      mono_now_us_ - last_release_us_ < kRetryIntervalUs) {
    return;
  }
  // Slab pages whose blocks are all free (a flush, a big delete) go back to the allocator first,
  // which can then return them.
  keyspace_.slab().Trim();
  resource.ReleaseFreeMemory();
  last_release_us_ = mono_now_us_;
  resident_after_release_ = resource.ResidentBytes();
}

void Engine::AddLatencySampleIfNeeded(std::string_view event, int64_t latency_ms) {
  const int64_t threshold_ms = settings().latency_monitor_threshold_ms;
  if (threshold_ms == 0 || latency_ms < threshold_ms) return;
  latency_monitor_.AddSample(event, wall_ms() / 1000, latency_ms);
}

void Engine::FeedMonitors(const Client& client, std::span<const std::string_view> args) {
  // "+1700000000.123456 [0 127.0.0.1:52790] "set" "k" "v"": a status line, in RESP3 as well,
  // stamped with the time of the feed (Redis reads the clock there, not the command time).
  const int64_t now_us = wall_us();
  char stamp[64];
  const int length = std::snprintf(stamp, sizeof(stamp), "+%lld.%06lld [%d ",
                                   static_cast<long long>(now_us / 1000000),
                                   static_cast<long long>(now_us % 1000000), client.db_index);
  std::string line(stamp, static_cast<size_t>(length));
  line += client.peer_address;
  line += "] ";
  for (size_t i = 0; i < args.size(); i++) {
    if (i > 0) line.push_back(' ');
    AppendQuoted(&line, args[i]);
  }
  line += "\r\n";
  for (Client* monitor : monitors_) {
    // As for any reply: CLIENT REPLY OFF, or SKIP in force, drops the line. The flags decide, not
    // the builder's state, since a monitor may have just switched (CLIENT REPLY OFF is fed to
    // monitors after it ran, and its own line must not reach it).
    // Nothing is added for a client about to close either (Redis drops replies after QUIT).
    if (monitor->flags &
        (kClientReplyOff | kClientReplySkip | kClientCloseAfterReply | kClientCloseAsap)) {
      continue;
    }
    monitor->reply().Raw(line);
    QueueWakeup(*monitor, &output_wakeups_);
  }
}

void Engine::AddMonitor(Client* client) {
  KEEL_DASSERT(!(client->flags & kClientMonitor));
  client->flags |= kClientMonitor;
  monitors_.push_back(client);
}

void Engine::RemoveMonitor(Client* client) {
  client->flags &= ~kClientMonitor;
  std::erase(monitors_, client);
}

std::vector<uint64_t> Engine::TakeOutputWakeups() {
  for (uint64_t id : output_wakeups_) {
    if (Client* client = FindClient(id)) client->flags &= ~kClientWakeupQueued;
  }
  return std::move(output_wakeups_);
}

void Engine::PauseClients(PauseMode mode, int64_t end_ms) {
  pause_mode();  // lift a pause whose time has passed first: its end time no longer counts
  pause_mode_ = mode;
  pause_end_ms_ = std::max(pause_end_ms_, end_ms);
  pause_epoch_++;
  keyspace_.set_writes_paused(pause_mode_ != PauseMode::kNone);
}

void Engine::UnpauseClients() {
  if (pause_mode_ == PauseMode::kNone) return;
  pause_mode_ = PauseMode::kNone;
  pause_end_ms_ = 0;
  pause_epoch_++;
  keyspace_.set_writes_paused(false);
}

PauseMode Engine::pause_mode() {
  // As Redis, a pause ends once its end time is in the past.
  if (pause_mode_ != PauseMode::kNone && pause_end_ms_ < wall_ms()) UnpauseClients();
  return pause_mode_;
}

size_t Engine::peak_memory_bytes() {
  const size_t used = memory_.used_bytes_total();
  if (used > peak_memory_bytes_) peak_memory_bytes_ = used;
  return peak_memory_bytes_;
}

void Engine::BeginClientPeakRound() {
  // Redis's clientsCron: the slot of this second collects peaks, and the next one is cleared so
  // that it starts afresh when its second comes (after a long stall a slot may hold older peaks,
  // which Redis accepts: this only tells whether there were expensive clients recently).
  peak_slot_ = static_cast<size_t>((wall_ms() / 1000) % kClientPeakSlots);
  const size_t next = (peak_slot_ + 1) % kClientPeakSlots;
  peak_input_bytes_[next] = 0;
  peak_output_bytes_[next] = 0;
}

void Engine::TrackClientBuffers(size_t input_bytes, size_t output_bytes) {
  peak_input_bytes_[peak_slot_] = std::max(peak_input_bytes_[peak_slot_], input_bytes);
  peak_output_bytes_[peak_slot_] = std::max(peak_output_bytes_[peak_slot_], output_bytes);
}

size_t Engine::recent_max_input_buffer() const {
  return *std::max_element(peak_input_bytes_.begin(), peak_input_bytes_.end());
}

size_t Engine::recent_max_output_buffer() const {
  return *std::max_element(peak_output_bytes_.begin(), peak_output_bytes_.end());
}

const std::string& Engine::replication_id() const { return replication_->replid(); }

void Engine::ChangeReplicationId() {
  replication_->ChangeReplicationId();
  Log(LogLevel::kNotice, "Changing replication IDs after receiving DEBUG change-repl-id");
}

void Engine::OnErrorReply(std::string_view code) {
  stats_.total_error_replies++;
  auto it = stats_.errors.find(code);
  if (it != stats_.errors.end()) {
    it->second++;
  } else if (stats_.errors.size() < 128) {
    // Redis caps errorstats at 128 distinct codes so that a client cannot grow it without bound.
    stats_.errors.emplace(std::string(code), 1);
  }
}

void Engine::Cron() {
  peak_memory_bytes();
  replication_->Cron();
  pause_mode();
  const int64_t now_ms = wall_ms();
  // A replica leaves expiry to its primary's DELs.
  if (active_expire_enabled_ && !replication_->is_replica()) {
    // The cycle's length is a latency event as in Redis ("expire-cycle"): freeing a large value
    // that expired stalls the server for as long, and LATENCY LATEST should say so.
    const int64_t cycle_start_us = env_.clock().MonotonicUs();
    ActiveExpireCycle(keyspace_, env_.clock(), now_ms);
    AddLatencySampleIfNeeded("expire-cycle", (env_.clock().MonotonicUs() - cycle_start_us) / 1000);
    // Redis propagates each key active expiry deletes on its own, not as a transaction.
    keyspace_.propagation().EndUnit(/*transaction=*/false);
  }
  if (tracking_.client_count() > 0) tracking_.LimitUsedSlots(settings().tracking_table_max_keys);
  if (settings().activerehashing) {
    // Finish running resizes in the background (Redis's incrementallyRehash): a bounded number
    // of slots per database per tick.
    keyspace_.ResizeStep(kCronResizeSlots);
  }
  stats_.ops_rate.Sample(now_ms, stats_.total_commands_processed);
  stats_.input_rate.Sample(now_ms, stats_.total_net_input_bytes);
  stats_.output_rate.Sample(now_ms, stats_.total_net_output_bytes);
  persistence_.Cron();
  aof_.Cron();
  ReleaseFreeMemoryIfWorthIt();
  // Keep enough pooled reply chunks for the clients that exist, return the rest.
  reply_chunks_.Trim(clients_.size() < 64 ? 64 : clients_.size());
}

void Engine::Log(LogLevel level, std::string_view line) {
  if (static_cast<int64_t>(level) < settings().loglevel) return;
  env_.log().Write(level, line.substr(0, limits::kLogLineBytesMax));
}

}  // namespace keel
