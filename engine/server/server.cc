#include "engine/server/server.h"

#include <algorithm>

#include "engine/base/limits.h"
#include "engine/base/numbers.h"
#include "engine/server/replication.h"

namespace keel {
namespace {

constexpr std::string_view kMaxClientsError = "-ERR max number of clients reached\r\n";

constexpr std::string_view kProtectedModeError =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from the "
    "outside.\r\n";

// Redis spells "listen on every IPv4/IPv6 address" as "*" and "::*".
std::string ListenAddress(std::string_view address) {
  if (address == "*") return "0.0.0.0";
  if (address == "::*") return "::";
  return std::string(address);
}

}  // namespace

Server::Server(Engine& engine)
    : engine_(engine),
      network_(engine.env().network()),
      events_(limits::kEventsPerWaitMax),
      read_buffer_(new char[limits::kReadChunkBytes]),
      nested_events_(limits::kEventsPerWaitMax),
      nested_read_buffer_(new char[limits::kReadChunkBytes]) {}

Server::~Server() { Shutdown(); }

Status Server::Start() {
  std::vector<BoundListener> none;
  Status status = OpenListeners(engine_.settings(), &none, &listeners_, /*at_startup=*/true);
  if (!status.ok()) return status;
  // Port 0, no bind address, or only optional ones that failed: Redis exits rather than run a
  // server nobody can reach (Keel has no unix socket or TLS listener yet).
  if (listeners_.empty()) {
    engine_.Log(LogLevel::kWarning, "Configured to not listen anywhere, exiting.");
    return Status(StatusCode::kInvalidArgument, "Configured to not listen anywhere");
  }
  engine_.set_listener_control(this);
  engine_.set_event_pump(this);
  engine_.replication().StartFromConfig();
  // As redis-server: listening first, then the dataset (a failed load exits before serving):
  // from the AOF when it is on, as Redis prefers it to the RDB.
  if (!engine_.settings().appendonly) return engine_.persistence().LoadAtStartup();
  status = engine_.aof().LoadAtStartup();
  if (!status.ok()) return status;
  return engine_.aof().OpenAtStartup();
}

Status Server::Rebind(const ConfigValues& next) {
  // Listeners whose address and port do not change are kept as they are; new ones are opened
  // before any old one closes, so a failure leaves the server listening exactly as before.
  std::vector<BoundListener> old = std::move(listeners_);
  std::vector<BoundListener> opened;
  Status status = OpenListeners(next, &old, &opened, /*at_startup=*/false);
  if (!status.ok()) {
    // `old` got back everything OpenListeners had taken from it.
    listeners_ = std::move(old);
    return status;
  }
  for (const BoundListener& listener : old) network_.CloseListener(listener.id);
  listeners_ = std::move(opened);
  return Status::Ok();
}

Status Server::OpenListeners(const ConfigValues& settings, std::vector<BoundListener>* keep,
                             std::vector<BoundListener>* opened, bool at_startup) {
  if (settings.port == 0) return Status::Ok();
  const auto port = static_cast<uint16_t>(settings.port);
  std::vector<BoundListener> fresh;  // opened here
  std::vector<BoundListener> taken;  // reused from `keep`
  for (const std::string& configured : settings.bind) {
    const bool optional = !configured.empty() && configured[0] == '-';
    const std::string address = optional ? configured.substr(1) : configured;
    auto same = std::find_if(keep->begin(), keep->end(), [&](const BoundListener& listener) {
      return listener.address == address && listener.port == port;
    });
    if (same != keep->end()) {
      taken.push_back(*same);
      keep->erase(same);
      continue;
    }
    ListenOptions options;
    options.address = ListenAddress(address);
    options.port = port;
    options.backlog = static_cast<int>(settings.tcp_backlog);
    Result<ListenerId> listener = network_.Listen(options);
    if (listener.ok()) {
      fresh.push_back({*listener, address, port});
      continue;
    }
    // Logged for an optional address too, with the system's reason, as Redis logs it.
    engine_.Log(LogLevel::kWarning, "Warning: Could not create server TCP listening socket " +
                                        address + ":" + Int64ToString(port) + ": " +
                                        listener.status().message());
    const StatusCode code = listener.status().code();
    if (optional && (code == StatusCode::kInvalidArgument || code == StatusCode::kNotFound)) {
      continue;  // e.g. "-::1" on a machine without IPv6
    }
    if (at_startup) {
      engine_.Log(LogLevel::kWarning,
                  "Failed listening on port " + Int64ToString(port) + " (TCP), aborting.");
    }
    for (const BoundListener& opened_here : fresh) network_.CloseListener(opened_here.id);
    keep->insert(keep->end(), taken.begin(), taken.end());
    return listener.status();
  }
  opened->insert(opened->end(), taken.begin(), taken.end());
  opened->insert(opened->end(), fresh.begin(), fresh.end());
  return Status::Ok();
}

std::vector<uint16_t> Server::listening_ports() const {
  std::vector<uint16_t> ports;
  for (const BoundListener& listener : listeners_) {
    ports.push_back(network_.ListenerPort(listener.id));
  }
  return ports;
}

int64_t Server::WaitTimeoutUs() {
  if (!pending_input_.empty() || engine_.shutdown_requested() ||
      engine_.persistence().wants_pump() || engine_.aof().wants_pump() ||
      engine_.has_output_wakeups()) {
    return 0;
  }
  int64_t timeout_us = next_cron_us_ - engine_.now_monotonic_us();
  if (const int64_t deadline_us = engine_.next_block_deadline_us(); deadline_us != 0) {
    // A wait ends once its deadline is in the past.
    const int64_t until_us = deadline_us - engine_.now_monotonic_us() + 1;
    timeout_us = std::min(timeout_us, until_us);
  }
  if (!postponed_.empty()) {
    if (engine_.pause_epoch() != resumed_pause_epoch_) return 0;
    // Wake when the pause ends (Redis notices only at its next cron tick): a pause ends once its
    // end time is in the past, that is one millisecond after it.
    if (engine_.pause_mode() != PauseMode::kNone) {
      const int64_t until_end_us = (engine_.pause_end_ms() + 1) * 1000 - engine_.wall_us();
      timeout_us = std::min(timeout_us, until_end_us);
    }
  }
  return timeout_us > 0 ? timeout_us : 0;
}

void Server::Run() {
  while (RunOnce()) {
  }
}

bool Server::RunOnce() {
  if (stopped_) return false;
  const size_t count = engine_.env().Wait(WaitTimeoutUs(), events_.data(), events_.size());
  engine_.BeginTimeSlice();
  // Waits that timed out end before anything else runs (Redis's handleBlockedClientsTimeout in
  // beforeSleep).
  if (engine_.blocked_client_count() > 0) engine_.ExpireBlockedClients();
  KEEL_ASSERT(count <= events_.size());

  for (size_t i = 0; i < count; i++) HandleEvent(events_[i]);

  // Clients held by CLIENT PAUSE retry once it changed, before those cut short by the per-turn
  // limit continue.
  ResumePostponed();
  ResumeUnblocked();
  input_turn_.swap(pending_input_);
  for (Client* client : input_turn_) {
    client->flags &= ~kClientPendingInput;
    if (!(client->flags & kClientCloseAsap)) ProcessPendingInput(client);
  }
  input_turn_.clear();
  // Clients served during this turn run what they sent meanwhile in the next one.
  ResumeUnblocked();

  for (uint64_t id : engine_.TakeCloseRequests()) {
    if (Client* client = engine_.FindClient(id)) Close(client, "killed");
  }
  // A background save writes its next part between the clients' turns.
  engine_.persistence().Pump();
  engine_.aof().Pump();
  engine_.BeforeSleep();
  engine_.replication().BeforeSleep();
  WakeOutputs();
  // The AOF gets this iteration's writes before any reply leaves (Redis's beforeSleep).
  engine_.aof().FlushBuffer();
  ReleaseAofHeld();
  FlushPendingWrites();

  if (engine_.now_monotonic_us() >= next_cron_us_) {
    const int64_t hz = std::clamp<int64_t>(engine_.settings().hz, 1, 500);
    next_cron_us_ = engine_.now_monotonic_us() + 1000000 / hz;
    // DEBUG PAUSE-CRON stops the periodic work, as Redis's serverCron returns early.
    if (!engine_.cron_paused()) {
      engine_.Cron();
      ClientsCron();
      engine_.aof().FlushBuffer();
      // What the cron changed (active expiry) reaches BCAST clients now, not a tick later.
      engine_.BeforeSleep();
    }
  }
  FreeClosed();

  if (engine_.shutdown_requested()) {
    engine_.Log(LogLevel::kWarning, "User requested shutdown...");
    DrainAof();
    Shutdown();
    engine_.Log(LogLevel::kWarning, "Keel is now ready to exit, bye bye...");
    return false;
  }
  return true;
}

void Server::HandleEvent(const Event& event) {
  switch (event.kind) {
    case EventKind::kListenerReady:
      Accept(event.handle);
      break;
    case EventKind::kReadable:
    case EventKind::kWritable: {
      auto it = clients_by_conn_.find(event.handle);
      if (it == clients_by_conn_.end()) {
        // The link to our primary, or a client closed earlier in this iteration.
        engine_.replication().OnLinkEvent(event.handle, event.kind);
        break;
      }
      Client* client = it->second;
      if (client->flags & kClientCloseAsap) break;
      if (event.kind == EventKind::kWritable) {
        OnWritable(client);
      } else if (client != busy_client_) {
        // A busy script's own client waits: its command is the one running.
        OnReadable(client);
      }
      break;
    }
    case EventKind::kFileSynced:
      FileSynced(event);
      break;
    case EventKind::kShutdownRequested:
      // The handle is the signal number (2 is SIGINT; anything else is reported as SIGTERM).
      engine_.Log(LogLevel::kWarning, event.handle == 2
                                          ? "Received SIGINT scheduling shutdown..."
                                          : "Received SIGTERM scheduling shutdown...");
      engine_.persistence().BeginShutdown();
      break;
  }
}

void Server::ProcessEventsWhileBlocked(const Client& busy_client) {
  // Redis's processEventsWhileBlocked: a few rounds of file events, no timers and no cron. The
  // busy client's input waits (its command is the one running); the outer iteration's events,
  // read buffer and input turn are left as they are.
  KEEL_ASSERT(busy_client_ == nullptr);
  busy_client_ = &busy_client;
  std::swap(read_buffer_, nested_read_buffer_);
  const bool input_replaced = input_replaced_;
  std::vector<Client*> turn;
  for (int round = 0; round < limits::kBusyEventRoundsMax; round++) {
    const size_t count =
        engine_.env().Wait(/*timeout_us=*/0, nested_events_.data(), nested_events_.size());
    KEEL_ASSERT(count <= nested_events_.size());
    for (size_t i = 0; i < count; i++) HandleEvent(nested_events_[i]);
    // Clients whose turn the per-turn limit cut short go on (with BUSY replies), but the busy
    // one, which stays queued for the outer iteration.
    turn.swap(pending_input_);
    for (Client* client : turn) {
      if (client == busy_client_) {
        pending_input_.push_back(client);
        continue;
      }
      client->flags &= ~kClientPendingInput;
      if (!(client->flags & kClientCloseAsap)) ProcessPendingInput(client);
    }
    turn.clear();
    WakeOutputs();
    engine_.aof().FlushBuffer();
    ReleaseAofHeld();
    FlushPendingWrites();
    if (count == 0) break;
  }
  input_replaced_ = input_replaced;
  std::swap(read_buffer_, nested_read_buffer_);
  busy_client_ = nullptr;
}

void Server::Accept(ListenerId listener) {
  const ConfigValues& settings = engine_.settings();
  for (size_t i = 0; i < limits::kAcceptsPerEventMax; i++) {
    ConnInfo info;
    Result<ConnId> conn = network_.Accept(listener, &info);
    if (!conn.ok()) {
      if (conn.status().code() != StatusCode::kWouldBlock) {
        engine_.Log(LogLevel::kVerbose, "Accepting client connection: " + conn.status().ToString());
      }
      return;
    }
    engine_.stats().total_connections_received++;
    std::string_view refusal;
    if (engine_.client_count() >= static_cast<size_t>(settings.maxclients)) {
      refusal = kMaxClientsError;
    } else if (settings.protected_mode && settings.requirepass.empty() && !info.peer_is_loopback) {
      refusal = kProtectedModeError;
    }
    if (!refusal.empty()) {
      // Best effort, as Redis: the refusal is written once and the connection closed.
      const ConstSlice slice{refusal.data(), refusal.size()};
      (void)network_.Write(*conn, &slice, 1);
      network_.Close(*conn);
      engine_.stats().rejected_connections++;
      continue;
    }
    Client* client = engine_.NewClient(*conn, &info);
    clients_by_conn_.emplace(*conn, client);
    engine_.Log(LogLevel::kVerbose, "Accepted " + info.peer_address);
  }
}

void Server::OnReadable(Client* client) {
  engine_.stats().total_reads_processed++;
  QueryBuffer& query = client->query();
  const size_t limit = static_cast<size_t>(engine_.settings().client_query_buffer_limit);
  char* target = read_buffer_.get();
  size_t room = limits::kReadChunkBytes;
  const bool into_query = !query.empty();
  if (into_query) {
    // A partial command is waiting: read after it. The buffer doubles as a command of many
    // arguments arrives (linear cost, however many reads it takes); a large bulk whose size the
    // parser knows is read straight into a block of the command's final size, as Redis reads
    // bulks of PROTO_MBULK_BIG_ARG bytes and more, and the reads then stop exactly at its end.
    // The block keeps kBigBulkTailBytes after the bulk, where the short arguments that may follow
    // it are read without growing it (a SET can then keep the block as its value).
    const size_t unread = query.unread_size();
    const size_t wanted = client->parser().bytes_wanted();
    bool reserved = false;
    size_t read_max = SIZE_MAX;
    if (wanted >= unread + limits::kBigBulkBytes) {
      read_max = wanted - unread;
      reserved = query.ReserveExact(read_max + limits::kBigBulkTailBytes);
    } else if (query.capacity() >= limits::kBigBulkBytes &&
               query.tail_room() >= limits::kBigBulkTailBytes) {
      reserved = true;  // the tail of a large bulk's block
    } else {
      reserved = query.Reserve(limits::kReadChunkBytes);
    }
    if (!reserved) {
      Close(client, "out of memory for its query buffer");
      return;
    }
    target = query.tail();
    room = std::min(query.tail_room(), read_max);
  }
  const IoResult result = network_.Read(client->conn(), target, room);
  switch (result.code) {
    case IoCode::kWouldBlock:
      return;
    case IoCode::kClosed:
      Close(client, "client closed connection");
      return;
    case IoCode::kReset:
      Close(client, "connection reset");
      return;
    case IoCode::kOk:
      break;
  }
  KEEL_ASSERT(result.bytes > 0);
  KEEL_ASSERT(result.bytes <= room);
  engine_.stats().total_net_input_bytes += result.bytes;
  client->last_interaction_ms = engine_.wall_ms();

  if (into_query) {
    query.Produced(result.bytes);
    // Count what Redis's query buffer would hold: the complete arguments of a partial command
    // have left Redis's buffer (they stay in ours, as views), so a long command of many modest
    // arguments passes a limit that one oversized argument fails.
    const size_t parsed = client->parser().parsed_bytes();
    KEEL_DASSERT(parsed <= query.unread_size());
    if (query.unread_size() - parsed > limit) {
      engine_.stats().client_query_buffer_limit_disconnections++;
      engine_.Log(LogLevel::kWarning, "Closing client that reached max query buffer length");
      Close(client, "query buffer limit");
      return;
    }
    ProcessPendingInput(client);
    return;
  }
  const size_t consumed = ProcessCommands(client, target, result.bytes);
  // A held inline command has already put what was left into the query buffer.
  if (consumed < result.bytes && !input_replaced_ &&
      !(client->flags & (kClientCloseAsap | kClientCloseAfterReply))) {
    if (!query.Assign(target + consumed, result.bytes - consumed)) {
      Close(client, "out of memory for its query buffer");
    }
  }
}

void Server::ProcessPendingInput(Client* client) {
  QueryBuffer& query = client->query();
  if (query.empty()) return;
  const size_t consumed = ProcessCommands(client, query.unread(), query.unread_size());
  if (input_replaced_) return;
  query.Consume(consumed);
  // A block grown for a large command goes back at once, not at the client's next cron visit:
  // a 512 MB SET must not leave 512 MB behind it.
  if (query.capacity() > limits::kQueryBufferKeepBytes) query.ReleaseIfEmpty();
}

size_t Server::ProcessCommands(Client* client, char* data, size_t size) {
  input_replaced_ = false;
  if (client->flags & (kClientPostponed | kClientBlocked | kClientWaitingSave)) return 0;
  const ConfigValues& settings = engine_.settings();
  size_t position = 0;
  size_t commands = 0;
  client->input_batch_bytes = size;
  while (position < size) {
    if (client->flags & (kClientCloseAsap | kClientCloseAfterReply)) break;
    if (client->output().pending_bytes() > limits::kReplyBackpressureBytes) {
      // Stop reading until the client drains its replies (Flush resumes it).
      UpdateInterest(client, false, true);
      client->flags |= kClientReadPaused;
      break;
    }
    if (commands == limits::kCommandsPerTurnMax) {
      if (!(client->flags & kClientPendingInput)) {
        client->flags |= kClientPendingInput;
        pending_input_.push_back(client);
      }
      break;
    }
    // Read the limits afresh for every command, as Redis does at parse time: an AUTH earlier in
    // this same read lifts the pre-authentication limits for the commands after it, and a CONFIG
    // SET proto-max-bulk-len applies from the next command on.
    const ParserLimits parser_limits{settings.proto_max_bulk_len, !engine_.AuthRequired(*client)};
    size_t consumed = 0;
    const ParseResult result =
        client->parser().Parse(data + position, size - position, parser_limits, &consumed);
    if (result == ParseResult::kIncomplete) break;
    if (result == ParseResult::kError) {
      client->reply().Error("ERR " + client->parser().error());
      client->flags |= kClientCloseAfterReply;
      engine_.Log(LogLevel::kVerbose, "Protocol error (" + client->parser().error() +
                                          ") from client: " + client->peer_address);
      position = size;
      break;
    }
    if (result == ParseResult::kCommand) {
      // A large command that the query buffer holds to its last byte may give a SET its block
      // (QueryBuffer::Offer): nothing after the command is read from the block once given.
      QueryBuffer& query = client->query();
      const bool lends = consumed >= limits::kBigBulkBytes && position + consumed == size &&
                         data == query.unread();
      if (lends) query.Offer();
      const ExecuteResult executed = engine_.Execute(*client, client->parser().args());
      if (lends) query.Withdraw();
      if (executed == ExecuteResult::kBlocked) {
        // The engine keeps the command; what the client sends after it waits for its reply.
        position += consumed;
        break;
      }
      if (executed == ExecuteResult::kPostponed) {
        client->flags |= kClientPostponed;
        postponed_.push_back(client);
        // A multibulk command's bytes are intact: left unconsumed, they stay for the retry like a
        // partial command. An inline one was unescaped in place and is kept re-encoded.
        if (data[position] != '*') {
          HoldInline(client, client->parser().args(), data, position + consumed, size);
        }
        break;
      }
      commands++;
      CheckOutputLimits(client);
    }
    position += consumed;
  }
  client->input_batch_bytes = 0;
  if (!client->output().empty()) QueueWrite(client);
  return position;
}

void Server::HoldInline(Client* client, std::span<const std::string_view> args, char* data,
                        size_t rest_at, size_t size) {
  // Multibulk parses back to the same arguments; an inline line is at most 64 KiB, so this is
  // small.
  std::string command = "*" + Int64ToString(static_cast<int64_t>(args.size())) + "\r\n";
  for (std::string_view arg : args) {
    command += "$" + Int64ToString(static_cast<int64_t>(arg.size())) + "\r\n";
    command.append(arg);
    command += "\r\n";
  }
  QueryBuffer& query = client->query();
  bool kept = false;
  if (data == query.unread()) {
    query.Consume(rest_at);
    kept = query.Prepend(command.data(), command.size());
  } else {
    // From the shared read buffer: what follows is at most one read.
    command.append(data + rest_at, size - rest_at);
    kept = query.Assign(command.data(), command.size());
  }
  input_replaced_ = true;
  if (!kept) Close(client, "out of memory for its query buffer");
}

void Server::ResumePostponed() {
  engine_.pause_mode();  // lifts a pause whose time has passed
  if (postponed_.empty() || engine_.pause_epoch() == resumed_pause_epoch_) return;
  resumed_pause_epoch_ = engine_.pause_epoch();
  for (Client* client : postponed_) {
    client->flags &= ~kClientPostponed;
    if (client->flags & kClientCloseAsap) continue;
    if (!(client->flags & kClientPendingInput)) {
      client->flags |= kClientPendingInput;
      pending_input_.push_back(client);
    }
  }
  postponed_.clear();
}

void Server::ResumeUnblocked() {
  for (uint64_t id : engine_.TakeUnblocked()) {
    Client* client = engine_.FindClient(id);
    if (client == nullptr || (client->flags & kClientCloseAsap)) continue;
    if (client->query().empty() || (client->flags & kClientPendingInput)) continue;
    client->flags |= kClientPendingInput;
    pending_input_.push_back(client);
  }
}

void Server::WakeOutputs() {
  for (uint64_t id : engine_.TakeOutputWakeups()) {
    Client* client = engine_.FindClient(id);
    if (client == nullptr || !client->has_connection()) continue;
    if (client->flags & kClientCloseAsap) continue;
    CheckOutputLimits(client);
    if (!client->output().empty()) QueueWrite(client);
  }
}

void Server::CheckOutputLimits(Client* client) {
  const OutputBuffer& output = client->output();
  if (output.failed()) {
    engine_.Log(LogLevel::kWarning,
                "Client " + client->peer_address + " closed: out of memory for its replies");
    engine_.RequestClose(client);
    return;
  }
  // A replica's limits are the replica class's, and the RDB file it is sent does not count
  // (Redis's getClientOutputBufferMemoryUsage counts the stream, not the transfer).
  const bool replica = (client->flags & kClientReplica) != 0;
  const OutputBufferLimit& limit = engine_.settings().output_buffer_limits[static_cast<int>(
      replica ? ClientClass::kReplica : ClientClass::kNormal)];
  if (limit.hard_bytes == 0 && limit.soft_bytes == 0) {
    // No limit (the normal class's default): nothing to count, after every command.
    client->soft_limit_since_ms = 0;
    return;
  }
  const auto pending = static_cast<int64_t>(
      replica ? engine_.replication().CountedOutputBytes(*client) : output.pending_bytes());
  bool exceeded = limit.hard_bytes > 0 && pending >= limit.hard_bytes;
  if (!exceeded && limit.soft_bytes > 0 && pending >= limit.soft_bytes) {
    const int64_t now_ms = engine_.wall_ms();
    if (client->soft_limit_since_ms == 0) client->soft_limit_since_ms = now_ms;
    exceeded = now_ms - client->soft_limit_since_ms > limit.soft_seconds * 1000;
  } else if (limit.soft_bytes == 0 || pending < limit.soft_bytes) {
    client->soft_limit_since_ms = 0;
  }
  if (exceeded) {
    engine_.stats().client_output_buffer_limit_disconnections++;
    engine_.Log(LogLevel::kWarning,
                "Client " + client->peer_address +
                    " scheduled to be closed ASAP for overcoming of output buffer limits.");
    engine_.RequestClose(client);
  }
}

void Server::QueueWrite(Client* client) {
  if (client->flags & kClientPendingWrite) return;
  client->flags |= kClientPendingWrite;
  pending_writes_.push_back(client);
}

void Server::FlushPendingWrites() {
  const bool aof_holds = engine_.aof().HoldsReplies();
  const uint64_t aof_offset = engine_.aof().written_offset();
  // Flushing never queues new writes, so the list can be walked in place.
  for (Client* client : pending_writes_) {
    client->flags &= ~kClientPendingWrite;
    if (client->flags & kClientCloseAsap) continue;
    // A reply may depend on anything written before it, by any client.
    if (aof_holds) StampForAof(client, aof_offset);
    // A client waiting for writability is flushed by its kWritable event instead.
    if (client->flags & kClientWriteInterest) continue;
    Flush(client);
  }
  pending_writes_.clear();
}

void Server::OnWritable(Client* client) { Flush(client); }

void Server::StampForAof(Client* client, uint64_t aof_offset) {
  const uint64_t end = client->output().end_position();
  const size_t count = client->aof_stamp_count;
  const uint64_t stamped_end =
      count > 0 ? client->aof_stamps[count - 1].output_end : client->aof_released_end;
  if (end <= stamped_end) return;  // no reply since the last stamp
  if (count == client->aof_stamps.size()) {
    // Full (syncs are failing): the newest group takes these replies and their later offset.
    client->aof_stamps[count - 1] = Client::AofStamp{aof_offset, end};
    return;
  }
  client->aof_stamps[count] = Client::AofStamp{aof_offset, end};
  client->aof_stamp_count++;
}

uint64_t Server::AofWritableEnd(Client* client) {
  Aof& aof = engine_.aof();
  const OutputBuffer& output = client->output();
  if (!aof.HoldsReplies()) {
    client->aof_stamp_count = 0;
    return UINT64_MAX;  // every reply may leave
  }
  // Replies made before the mode changed to always, or before a kill left them: nobody stamped
  // them, and no FlushPendingWrites will (the client has no new reply queued). They may depend
  // on anything written so far.
  if (!(client->flags & kClientPendingWrite)) StampForAof(client, aof.written_offset());
  const uint64_t durable = aof.durable_offset();
  size_t released = 0;
  while (released < client->aof_stamp_count && client->aof_stamps[released].aof_offset <= durable) {
    client->aof_released_end =
        std::max(client->aof_released_end, client->aof_stamps[released].output_end);
    released++;
  }
  if (released > 0) {
    std::copy(client->aof_stamps.begin() + static_cast<ptrdiff_t>(released),
              client->aof_stamps.begin() + static_cast<ptrdiff_t>(client->aof_stamp_count),
              client->aof_stamps.begin());
    client->aof_stamp_count -= released;
  }
  return std::max(client->aof_released_end, output.start_position());
}

void Server::HoldForAof(Client* client) {
  if (client->flags & kClientAofHeld) return;
  client->flags |= kClientAofHeld;
  aof_held_.push_back(client);
}

void Server::ReleaseAofHeld() {
  if (aof_held_.empty()) return;
  Aof& aof = engine_.aof();
  const uint64_t durable = aof.durable_offset();
  std::vector<Client*> released;
  std::erase_if(aof_held_, [&](Client* client) {
    // Turned off, or the oldest group's AOF bytes are durable: (some of) the replies go.
    const bool ready = client->aof_stamp_count > 0 && client->aof_stamps[0].aof_offset <= durable;
    if (aof.HoldsReplies() && !ready) return false;
    client->flags &= ~kClientAofHeld;
    released.push_back(client);
    return true;
  });
  for (Client* client : released) {
    if (!(client->flags & kClientCloseAsap)) Flush(client);
  }
}

void Server::FileSynced(const Event& event) {
  // The AOF's tokens carry a bit of their own; every other sync is a save's.
  if (!engine_.aof().OnFileSynced(event.handle, event.status)) {
    engine_.persistence().OnFileSynced(event.handle, event.status);
  }
}

void Server::DrainAof() {
  Aof& aof = engine_.aof();
  aof.BeginShutdown();
  // Redis fsyncs the AOF before exiting; the loop waits for the syncs in flight, for at most
  // a bound (a disk that never answers must not keep the process).
  constexpr int64_t kDrainLimitUs = 10 * 1000 * 1000;
  constexpr int64_t kDrainWaitUs = 100 * 1000;
  const int64_t start_us = engine_.env().clock().MonotonicUs();
  while (aof.pending_syncs() > 0 &&
         engine_.env().clock().MonotonicUs() - start_us < kDrainLimitUs) {
    const size_t count = engine_.env().Wait(kDrainWaitUs, events_.data(), events_.size());
    for (size_t i = 0; i < count; i++) {
      const Event& event = events_[i];
      if (event.kind == EventKind::kFileSynced) FileSynced(event);
    }
  }
  if (aof.pending_syncs() > 0) {
    engine_.Log(LogLevel::kWarning, "The AOF's last sync did not complete before exiting");
  }
}

void Server::Flush(Client* client) {
  OutputBuffer& output = client->output();
  // appendfsync always: only replies whose AOF bytes are durable leave.
  const uint64_t writable_end = AofWritableEnd(client);
  if (!output.empty() && output.start_position() < writable_end) {
    engine_.stats().total_writes_processed++;
  }
  ConstSlice slices[limits::kWriteSlicesMax];
  while (!output.empty() && output.start_position() < writable_end) {
    size_t count = output.Gather(slices, limits::kWriteSlicesMax);
    size_t offered = 0;
    const uint64_t offer_max = writable_end - output.start_position();
    for (size_t i = 0; i < count; i++) {
      if (offered + slices[i].size >= offer_max) {
        slices[i].size = static_cast<size_t>(offer_max - offered);
        count = i + 1;
      }
      offered += slices[i].size;
    }
    const IoResult result = network_.Write(client->conn(), slices, count);
    if (result.code == IoCode::kWouldBlock) break;
    if (result.code != IoCode::kOk) {
      Close(client, "write error");
      return;
    }
    KEEL_ASSERT(result.bytes > 0);
    KEEL_ASSERT(result.bytes <= offered);
    output.Consume(result.bytes);
    engine_.stats().total_net_output_bytes += result.bytes;
    // As in Redis, a client that takes its replies is not idle: a slow reader draining a long
    // reply must not hit the idle timeout while the transfer is still moving.
    client->last_interaction_ms = engine_.wall_ms();
    if (result.bytes < offered) break;  // the socket is full; wait for writability
  }
  // Replies left that wait for the AOF, not for the socket: no writability events meanwhile;
  // ReleaseAofHeld flushes the client when their bytes are durable.
  const bool waits_for_aof = !output.empty() && output.start_position() >= writable_end;
  if (waits_for_aof) HoldForAof(client);
  const bool pending = !output.empty() && !waits_for_aof;
  if (output.empty() && (client->flags & kClientCloseAfterReply)) {
    Close(client, "close after reply");
    return;
  }
  bool readable = !(client->flags & kClientReadPaused);
  if ((client->flags & kClientReadPaused) &&
      output.pending_bytes() <= limits::kReplyBackpressureBytes / 2) {
    client->flags &= ~kClientReadPaused;
    readable = true;
    if (!client->query().empty() && !(client->flags & kClientPendingInput)) {
      client->flags |= kClientPendingInput;
      pending_input_.push_back(client);
    }
  }
  UpdateInterest(client, readable, pending);
}

void Server::UpdateInterest(Client* client, bool readable, bool writable) {
  const bool was_readable = !(client->flags & kClientReadPaused);
  const bool was_writable = (client->flags & kClientWriteInterest) != 0;
  if (readable == was_readable && writable == was_writable) return;
  if (writable) {
    client->flags |= kClientWriteInterest;
  } else {
    client->flags &= ~kClientWriteInterest;
  }
  network_.SetInterest(client->conn(), readable, writable);
}

void Server::Close(Client* client, std::string_view reason) {
  if (client->flags & kClientCloseAsap) {
    // Already requested (CLIENT KILL): make sure it is on the close list exactly once.
    if (std::find(closed_.begin(), closed_.end(), client) != closed_.end()) return;
  }
  client->flags |= kClientCloseAsap;
  engine_.Log(LogLevel::kVerbose, "Client closed (" + std::string(reason) + ")");
  closed_.push_back(client);
}

void Server::FreeClosed() {
  for (Client* client : closed_) {
    clients_by_conn_.erase(client->conn());
    network_.Close(client->conn());
    std::erase(pending_writes_, client);
    std::erase(pending_input_, client);
    std::erase(postponed_, client);
    std::erase(aof_held_, client);
    engine_.FreeClient(client);
  }
  closed_.clear();
}

void Server::ClientsCron() {
  // Visit about 1/hz of the clients per call, so that every client is checked once per second.
  const ConfigValues& settings = engine_.settings();
  const auto& clients = engine_.clients();
  const size_t hz = static_cast<size_t>(std::clamp<int64_t>(settings.hz, 1, 500));
  const size_t budget = std::min(clients.size(), std::max<size_t>(clients.size() / hz, 5));
  const int64_t now_ms = engine_.wall_ms();
  engine_.BeginClientPeakRound();
  auto it = clients.upper_bound(cron_cursor_client_id_);
  for (size_t visited = 0; visited < budget; visited++) {
    if (it == clients.end()) it = clients.begin();
    Client* client = it->second.get();
    ++it;
    cron_cursor_client_id_ = client->id();
    if (!client->has_connection() || (client->flags & kClientCloseAsap)) continue;
    // Clients waiting on CLIENT PAUSE and MONITOR clients are never idle, as in Redis (blocked
    // clients and replicas are exempt from the timeout).
    const bool exempt = (client->flags & (kClientPostponed | kClientBlocked | kClientMonitor |
                                          kClientReplica | kClientPrimary)) != 0;
    if (!exempt && settings.timeout_seconds > 0 &&
        now_ms - client->last_interaction_ms > settings.timeout_seconds * 1000) {
      engine_.Log(LogLevel::kVerbose, "Closing idle client");
      Close(client, "idle timeout");
      continue;
    }
    client->query().ReleaseIfEmpty();
    // Input: the query buffer's allocation; output: the replies held (INFO
    // client_recent_max_input_buffer / output_buffer).
    engine_.TrackClientBuffers(client->query().capacity(), client->output().pending_bytes());
    if (!client->output().empty()) CheckOutputLimits(client);
  }
}

void Server::Shutdown() {
  if (stopped_) return;
  stopped_ = true;
  if (engine_.listener_control() == this) engine_.set_listener_control(nullptr);
  for (const BoundListener& listener : listeners_) network_.CloseListener(listener.id);
  listeners_.clear();
  for (auto& [conn, client] : clients_by_conn_) {
    network_.Close(conn);
    engine_.FreeClient(client);
  }
  clients_by_conn_.clear();
  pending_writes_.clear();
  pending_input_.clear();
  postponed_.clear();
  aof_held_.clear();
  closed_.clear();
}

}  // namespace keel
