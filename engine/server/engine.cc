#include "engine/server/engine.h"

#include "engine/base/limits.h"
#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/db/expiry.h"

namespace keel {
namespace {

// printf's "%.Ns" on a C string: at most `bytes_max` bytes, stopping at a NUL.
std::string_view CString(std::string_view text, size_t bytes_max) {
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) text = text.substr(0, nul);
  return text.substr(0, bytes_max);
}

std::string MakeRunId(Random& random) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  while (id.size() < 40) {
    uint64_t bits = random.NextU64();
    for (int i = 0; i < 16 && id.size() < 40; i++) {
      id.push_back(kHex[bits & 15]);
      bits >>= 4;
    }
  }
  return id;
}

// Slots each database's resize moves per cron tick (about a millisecond of work).
constexpr size_t kCronResizeSlots = 8192;

}  // namespace

Engine::Engine(Env& env, Config config, StartupInfo startup)
    : env_(env),
      memory_(env.memory()),
      reply_chunks_(memory_),
      config_(std::move(config)),
      startup_(std::move(startup)),
      registry_(Registry::Builtin()),
      rng_(env.random().NextU64()),
      run_id_(MakeRunId(env.random())),
      slab_(memory_) {
  stats_.commands.resize(registry_.all().size());

  const int64_t databases = settings().databases;
  KEEL_ASSERT(databases >= 1 && databases <= limits::kDatabasesMax);
  for (int64_t i = 0; i < databases; i++) {
    databases_.push_back(std::make_unique<Database>(memory_, slab_, access_clock_, rng_.Next()));
  }
  BeginTimeSlice();
  start_monotonic_us_ = mono_now_us_;
}

Engine::~Engine() {
  clients_.clear();    // returns reply chunks before the pool goes away
  databases_.clear();  // returns entries before the slab goes away
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
  client.reply().Error(error);
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

void Engine::Execute(Client& client, std::span<const std::string_view> args) {
  KEEL_DASSERT(!args.empty());
  if (command_observer_ == nullptr) {
    ExecuteChecked(client, args);
    return;
  }
  command_observer_->BeforeCommand(client, args);
  ExecuteChecked(client, args);
  command_observer_->AfterCommand(client);
}

void Engine::ExecuteChecked(Client& client, std::span<const std::string_view> args) {
  bool unknown_subcommand = false;
  const CommandSpec* spec = registry_.Resolve(args, &unknown_subcommand);
  // As in Redis, the client's last command (CLIENT LIST's cmd=) is what the lookup found, before
  // any check: NULL for an unknown command, the command itself when it is then rejected.
  client.last_command = spec;
  if (spec == nullptr) {
    RejectUnknown(client, args, unknown_subcommand);
    return;
  }
  if (!spec->ArityAccepts(args.size())) {
    Reject(client, spec, WrongArityError(*spec));
    return;
  }
  if (!client.authenticated && !(spec->flags & kCmdNoAuth)) {
    Reject(client, spec, errors::kNoAuth);
    return;
  }
  // With a memory limit, every command first evicts what the policy allows; only commands that
  // may grow memory are refused when that is not enough (Redis's processCommand).
  if (settings().maxmemory > 0 && PerformEvictions(*this) == EvictionResult::kFailed &&
      (spec->flags & kCmdDenyOom)) {
    Reject(client, spec, errors::kOom);
    return;
  }

  // One clock reading per command: it stamps this command (the Redis command-time snapshot) and
  // ends the previous command's duration.
  const int64_t start_us = mono_now_us_;
  command_wall_ms_ = (wall_anchor_us_ + (start_us - mono_anchor_us_)) / 1000;
  // Redis's LRU clock: seconds, 24 bits; LFU's decrement clock: minutes, 16 bits.
  access_clock_.lru_clock = static_cast<uint32_t>(command_wall_ms_ / 1000) & 0xffffff;
  access_clock_.lfu_minutes = static_cast<uint32_t>(command_wall_ms_ / 60000) & 0xffff;
  const auto policy = static_cast<MaxmemoryPolicy>(settings().maxmemory_policy);
  access_clock_.lfu =
      policy == MaxmemoryPolicy::kAllkeysLfu || policy == MaxmemoryPolicy::kVolatileLfu;
  const uint64_t errors_before = client.reply().error_count();
  CommandContext context(*this, client, args, *spec);
  KEEL_ASSERT(spec->handler != nullptr);  // containers have arity -2: they never get here alone
  spec->handler(context);
  mono_now_us_ = env_.clock().MonotonicUs();

  CommandStats& command_stats = stats_.commands[spec->id];
  command_stats.calls++;
  command_stats.usec +=
      static_cast<uint64_t>(mono_now_us_ > start_us ? mono_now_us_ - start_us : 0);
  if (client.reply().error_count() != errors_before) command_stats.failed_calls++;
  stats_.total_commands_processed++;
  client.commands_processed++;
  client.last_interaction_ms = command_wall_ms_;
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
  const int64_t now_ms = wall_ms();
  ActiveExpireCycle(*this);
  if (settings().activerehashing) {
    // Finish running resizes in the background (Redis's incrementallyRehash): a bounded number
    // of slots per database per tick.
    for (auto& database : databases_) database->ResizeStep(kCronResizeSlots);
  }
  stats_.ops_rate.Sample(now_ms, stats_.total_commands_processed);
  stats_.input_rate.Sample(now_ms, stats_.total_net_input_bytes);
  stats_.output_rate.Sample(now_ms, stats_.total_net_output_bytes);
  // Keep enough pooled reply chunks for the clients that exist, return the rest.
  reply_chunks_.Trim(clients_.size() < 64 ? 64 : clients_.size());
}

void Engine::Log(LogLevel level, std::string_view line) {
  if (static_cast<int64_t>(level) < settings().loglevel) return;
  env_.log().Write(level, line.substr(0, limits::kLogLineBytesMax));
}

}  // namespace keel
