#include "engine/server/replication.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/db/aof_rewrite.h"
#include "engine/registry/errors.h"
#include "engine/server/client.h"
#include "engine/server/config.h"
#include "engine/server/engine.h"

namespace keel {
namespace {

constexpr std::string_view kPing = "*1\r\n$4\r\nPING\r\n";
constexpr std::string_view kGetack = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";

}  // namespace

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

namespace {

int64_t ConfigInt(const Config& config, std::string_view name, int64_t fallback) {
  const ConfigParam* param = Config::Find(name);
  if (param == nullptr) return fallback;
  int64_t value = 0;
  return ParseStrictInt64(config.Get(*param), &value) ? value : fallback;
}

bool ConfigBool(const Config& config, std::string_view name) {
  const ConfigParam* param = Config::Find(name);
  return param != nullptr && config.Get(*param) == "yes";
}

// "127.0.0.1:52790" -> "127.0.0.1" ("[::1]:52790" -> "::1").
std::string HostOf(std::string_view address) {
  const size_t colon = address.rfind(':');
  std::string_view host = colon == std::string_view::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
}

}  // namespace

Replication::Replication(Engine& engine, std::string replid)
    : engine_(engine), replid_(std::move(replid)) {
  RefreshSettings();
}

Replication::~Replication() {
  if (backlog_capacity_ > 0) engine_.keyspace().propagation().RemoveSink(this);
}

void Replication::StartFromConfig() {
  // replicaof <host> <port> from the config file or the command line.
  const ConfigParam* param = Config::Find("replicaof");
  if (param == nullptr) return;
  const std::string& text = engine_.config().Get(*param);
  const size_t space = text.find(' ');
  int64_t port = 0;
  if (text.empty() || space == std::string::npos ||
      !ParseStrictInt64(std::string_view(text).substr(space + 1), &port)) {
    return;
  }
  ReplicaOf(std::string_view(text).substr(0, space), port);
}

void Replication::RefreshSettings() {
  const Config& config = engine_.config();
  settings_.backlog_size_bytes =
      std::max<int64_t>(ConfigInt(config, "repl-backlog-size", 1 << 20), 1);
  settings_.backlog_ttl_s = ConfigInt(config, "repl-backlog-ttl", 3600);
  settings_.ping_period_s = ConfigInt(config, "repl-ping-replica-period", 10);
  settings_.timeout_s = ConfigInt(config, "repl-timeout", 60);
  settings_.min_replicas_to_write = ConfigInt(config, "min-replicas-to-write", 0);
  settings_.min_replicas_max_lag_s = ConfigInt(config, "min-replicas-max-lag", 10);
  settings_.diskless_sync = ConfigBool(config, "repl-diskless-sync");
  settings_.read_only = ConfigBool(config, "replica-read-only");
  settings_.serve_stale_data = ConfigBool(config, "replica-serve-stale-data");
  // A new size applies at once, keeping the newest history that fits (Redis's
  // resizeReplicationBacklog keeps it all until it is trimmed; the offsets it serves are the same).
  const auto capacity = static_cast<size_t>(settings_.backlog_size_bytes);
  if (backlog_capacity_ > 0 && capacity != backlog_capacity_) {
    std::string history = BacklogFrom(backlog_first_offset_);
    if (history.size() > capacity) {
      backlog_first_offset_ += static_cast<int64_t>(history.size() - capacity);
      history.erase(0, history.size() - capacity);
    }
    backlog_ = std::move(history);
    backlog_head_ = 0;
    backlog_capacity_ = capacity;
  }
}

void Replication::ChangeReplicationId() {
  replid_ = MakeRunId(engine_.env().random());
  replid2_ = std::string(40, '0');
  second_replid_offset_ = -1;
}

// --- The backlog ------------------------------------------------------------------------------

void Replication::CreateBacklog() {
  KEEL_ASSERT(backlog_capacity_ == 0);
  backlog_capacity_ = static_cast<size_t>(settings_.backlog_size_bytes);
  backlog_.clear();
  backlog_head_ = 0;
  // The next byte of the stream is the first one the backlog holds (Redis's repl_backlog->offset
  // is master_repl_offset + 1).
  backlog_first_offset_ = offset_ + 1;
  no_replicas_since_ms_ = engine_.wall_ms();
  engine_.keyspace().propagation().AddSink(this, kPropagateReplicas);
}

void Replication::FreeBacklog() {
  if (backlog_capacity_ == 0) return;
  engine_.keyspace().propagation().RemoveSink(this);
  backlog_capacity_ = 0;
  backlog_.clear();
  backlog_.shrink_to_fit();
  backlog_head_ = 0;
  backlog_first_offset_ = 0;
}

void Replication::AppendToBacklog(std::string_view bytes) {
  if (backlog_capacity_ == 0) return;
  // Only the newest `capacity` bytes can stay.
  if (bytes.size() >= backlog_capacity_) {
    const size_t dropped = backlog_.size() + bytes.size() - backlog_capacity_;
    backlog_.assign(bytes.substr(bytes.size() - backlog_capacity_));
    backlog_head_ = 0;
    backlog_first_offset_ += static_cast<int64_t>(dropped);
    return;
  }
  while (!bytes.empty() && backlog_.size() < backlog_capacity_) {
    const size_t take = std::min(bytes.size(), backlog_capacity_ - backlog_.size());
    backlog_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
  }
  // Full: overwrite the oldest bytes, which leave the history.
  while (!bytes.empty()) {
    const size_t take = std::min(bytes.size(), backlog_capacity_ - backlog_head_);
    backlog_.replace(backlog_head_, take, bytes.substr(0, take));
    backlog_head_ = (backlog_head_ + take) % backlog_capacity_;
    backlog_first_offset_ += static_cast<int64_t>(take);
    bytes.remove_prefix(take);
  }
}

std::string Replication::BacklogFrom(int64_t from) const {
  if (backlog_.empty()) return {};
  KEEL_ASSERT(from >= backlog_first_offset_);
  const auto skip = static_cast<size_t>(from - backlog_first_offset_);
  KEEL_ASSERT(skip <= backlog_.size());
  std::string out;
  out.reserve(backlog_.size() - skip);
  // Oldest first: from the head to the end of the buffer, then from its start to the head.
  const std::string_view first = std::string_view(backlog_).substr(backlog_head_);
  const std::string_view second = std::string_view(backlog_).substr(0, backlog_head_);
  if (skip < first.size()) {
    out.append(first.substr(skip));
    out.append(second);
  } else {
    out.append(second.substr(skip - first.size()));
  }
  return out;
}

bool Replication::CanContinue(std::string_view replid, int64_t psync_offset) const {
  // Redis's masterTryPartialResynchronization: our history, or the one we continued from up to
  // where it ended, and an offset the backlog still holds (its end included: nothing to send).
  const bool ours = replid == replid_;
  const bool previous = replid == replid2_ && psync_offset <= second_replid_offset_;
  if (!ours && !previous) return false;
  if (backlog_capacity_ == 0) return false;
  const auto histlen = static_cast<int64_t>(backlog_.size());
  return psync_offset >= backlog_first_offset_ && psync_offset <= backlog_first_offset_ + histlen;
}

// --- The stream -------------------------------------------------------------------------------

void Replication::WriteTo(Client& client, std::string_view bytes) {
  if (client.flags & kClientCloseAsap) return;
  client.output().Append(bytes.data(), bytes.size());
  engine_.QueueOutputWakeup(client);
}

void Replication::Feed(std::string_view bytes) {
  if (backlog_capacity_ == 0) return;
  offset_ += static_cast<int64_t>(bytes.size());
  AppendToBacklog(bytes);
  for (auto& [id, state] : replicas_) {
    if (!state.online) continue;
    if (Client* client = engine_.FindClient(id)) WriteTo(*client, bytes);
  }
}

void Replication::Propagate(int db, std::span<const std::string_view> args) {
  // A replica's stream is its primary's, passed on as it came (ApplyStream); its own writes (a
  // writable replica) stay local, as in Redis.
  if (is_replica()) return;
  std::string bytes;
  // Redis's replicationFeedSlaves: a SELECT when the command's database is not the stream's.
  if (db >= 0 && db != selected_db_) {
    const std::string index = Int64ToString(db);
    const std::string_view select[] = {"SELECT", index};
    AppendAofCommand(&bytes, select);
    selected_db_ = db;
  }
  AppendAofCommand(&bytes, args);
  Feed(bytes);
}

// --- SYNC, PSYNC, REPLCONF --------------------------------------------------------------------

Replication::ReplicaState& Replication::StateOf(const Client& client) {
  return replicas_[client.id()];
}

bool Replication::replica_online(const Client& client) const {
  auto it = replicas_.find(client.id());
  return it != replicas_.end() && it->second.online;
}

void Replication::Sync(Client& client, std::span<const std::string_view> args, bool psync) {
  // A replica that asks again is ignored, as Redis ignores it.
  if (client.flags & kClientReplica) return;
  // A replica passes on only a history it follows now.
  if (is_replica() && !link_up()) {
    client.reply().Error("NOMASTERLINK Can't SYNC while not connected with my master");
    return;
  }
  // Redis's syncCommand: the file must be the first thing the replica reads after its command.
  if (!client.output().empty()) {
    client.reply().Error("ERR SYNC and PSYNC are invalid with pending output");
    return;
  }
  int64_t psync_offset = 0;
  if (psync && !ParseStrictInt64(args[2], &psync_offset)) {
    client.reply().Error(errors::kNotInteger);
    return;
  }
  engine_.Log(LogLevel::kNotice, "Replica " + ReplicaIp(client, StateOf(client)) + ":" +
                                     Int64ToString(StateOf(client).listening_port) +
                                     " asks for synchronization");
  ReplicaState& state = StateOf(client);
  // PINGs start a period after the first replica came (not at once, mid-transfer).
  if (replica_count() == 0) last_ping_ms_ = engine_.wall_ms();
  if (psync && CanContinue(args[1], psync_offset)) {
    client.flags |= kClientReplica | kClientReplyOff;
    state.online = true;
    state.file_end = client.output().end_position();
    state.ack_time_ms = engine_.wall_ms();
    std::string reply = state.capa_psync2 ? "+CONTINUE " + replid_ + "\r\n" : "+CONTINUE\r\n";
    WriteTo(client, reply);
    const std::string history = BacklogFrom(psync_offset);
    WriteTo(client, history);
    sync_partial_ok_++;
    engine_.Log(LogLevel::kNotice,
                "Partial resynchronization request from " + ReplicaIp(client, state) + ":" +
                    Int64ToString(state.listening_port) + " accepted. Sending " +
                    Int64ToString(static_cast<int64_t>(history.size())) +
                    " bytes of backlog starting from offset " + Int64ToString(psync_offset) + ".");
    return;
  }
  if (psync && args[1] != "?") sync_partial_err_++;
  sync_full_++;
  state.pre_psync = !psync;
  // The first replica of a primary without a backlog starts a new history (Redis 7.0).
  if (backlog_capacity_ == 0 && replica_count() == 0) {
    ChangeReplicationId();
    CreateBacklog();
    engine_.Log(LogLevel::kNotice, "Replication backlog created, my new replication IDs are '" +
                                       replid_ + "' and '" + replid2_ + "'");
  }
  client.flags |= kClientReplica | kClientReplyOff;
  const bool eof = state.capa_eof && settings_.diskless_sync;
  engine_.Log(LogLevel::kNotice, std::string("Starting BGSAVE for SYNC with target: ") +
                                     (eof ? "replicas sockets" : "disk"));
  if (psync) WriteTo(client, "+FULLRESYNC " + replid_ + " " + Int64ToString(offset_) + "\r\n");
  // The file is the keyspace at offset_: every later byte of the stream follows it.
  const std::string file = engine_.persistence().SerialiseKeyspace(state.functions_only);
  if (eof) {
    std::string mark;
    mark.reserve(40);
    static constexpr char kHex[] = "0123456789abcdef";
    while (mark.size() < 40) mark.push_back(kHex[engine_.rng().Next() & 15]);
    WriteTo(client, "$EOF:" + mark + "\r\n");
    WriteTo(client, file);
    WriteTo(client, mark);
  } else {
    WriteTo(client, "$" + Int64ToString(static_cast<int64_t>(file.size())) + "\r\n");
    WriteTo(client, file);
  }
  state.file_end = client.output().end_position();
  state.online = true;
  state.ack_time_ms = engine_.wall_ms();
  // The next command of the stream names its database, whatever the stream selected before.
  selected_db_ = -1;
  engine_.Log(LogLevel::kNotice, "Synchronization with replica " + ReplicaIp(client, state) + ":" +
                                     Int64ToString(state.listening_port) + " succeeded");
}

void Replication::Replconf(Client& client, std::span<const std::string_view> args) {
  // Redis's replconfCommand: option/value pairs.
  if (args.size() % 2 == 0) {
    client.reply().Error(errors::kSyntax);
    return;
  }
  for (size_t i = 1; i < args.size(); i += 2) {
    const std::string_view option = args[i];
    const std::string_view value = args[i + 1];
    if (EqualsIgnoreCase(option, "listening-port")) {
      int64_t port = 0;
      if (!ParseStrictInt64(value, &port)) {
        client.reply().Error(errors::kNotInteger);
        return;
      }
      StateOf(client).listening_port = port;
    } else if (EqualsIgnoreCase(option, "ip-address")) {
      if (value.size() >= 256) {
        client.reply().Error("ERR REPLCONF ip-address provided by replica instance is too long: " +
                             Int64ToString(static_cast<int64_t>(value.size())) + " bytes");
        return;
      }
      StateOf(client).announced_ip = std::string(value);
    } else if (EqualsIgnoreCase(option, "capa")) {
      if (EqualsIgnoreCase(value, "eof")) StateOf(client).capa_eof = true;
      if (EqualsIgnoreCase(value, "psync2")) StateOf(client).capa_psync2 = true;
    } else if (EqualsIgnoreCase(option, "ack")) {
      // No reply, ever: the replica's link carries the stream the other way.
      if (!(client.flags & kClientReplica)) return;
      int64_t offset = 0;
      if (!ParseStrictInt64(value, &offset)) return;
      ReplicaState& state = StateOf(client);
      if (offset > state.ack_offset) {
        state.ack_offset = offset;
        new_acks_ = true;
      }
      state.ack_time_ms = engine_.wall_ms();
      return;
    } else if (EqualsIgnoreCase(option, "getack")) {
      // From our primary: acknowledge now. No reply either way.
      if (client.flags & kClientPrimary) SendAck();
      return;
    } else if (EqualsIgnoreCase(option, "rdb-only")) {
      int64_t flag = 0;
      if (!ParseStrictInt64(value, &flag)) {
        client.reply().Error(errors::kNotInteger);
        return;
      }
      if (flag != 0 && flag != 1) {
        client.reply().Error("ERR value is out of range, value must between 0 and 1");
        return;
      }
    } else if (EqualsIgnoreCase(option, "rdb-filter-only")) {
      // Only "" (no filter) and "functions" exist in 7.0.
      const bool functions = EqualsIgnoreCase(value, "functions");
      if (!value.empty() && !functions) {
        client.reply().Error("ERR Unsupported rdb-filter-only option: " + std::string(value));
        return;
      }
      StateOf(client).functions_only = functions;
    } else {
      client.reply().Error("ERR Unrecognized REPLCONF option: " + std::string(option));
      return;
    }
  }
  client.reply().Ok();
}

// --- WAIT and min-replicas-to-write -----------------------------------------------------------

int64_t Replication::CountAcknowledged(int64_t offset) const {
  int64_t count = 0;
  for (const auto& [id, state] : replicas_) {
    if (state.online && state.ack_offset >= offset) count++;
  }
  return count;
}

void Replication::AddWaiter(uint64_t client_id) {
  if (std::find(waiters_.begin(), waiters_.end(), client_id) == waiters_.end()) {
    waiters_.push_back(client_id);
  }
}

void Replication::ServeWaiters() {
  new_acks_ = false;
  std::vector<uint64_t> waiting = std::move(waiters_);
  waiters_.clear();
  for (uint64_t id : waiting) {
    Client* client = engine_.FindClient(id);
    if (client == nullptr || !(client->flags & kClientBlocked)) continue;
    engine_.RetryBlockedClient(*client);
    if (client->flags & kClientBlocked) waiters_.push_back(id);
  }
}

int64_t Replication::GoodReplicas() const {
  const int64_t now_s = engine_.wall_ms() / 1000;
  int64_t good = 0;
  for (const auto& [id, state] : replicas_) {
    if (state.online && now_s - state.ack_time_ms / 1000 <= settings_.min_replicas_max_lag_s) {
      good++;
    }
  }
  return good;
}

// --- The loop ---------------------------------------------------------------------------------

void Replication::Cron() {
  const int64_t now_ms = engine_.wall_ms();
  // The link to our primary: (re)connects once a second, times out after repl-timeout without
  // a byte, acknowledges once a second.
  if (link_state_ == LinkState::kConnect && now_ms - link_connect_started_ms_ >= 1000) {
    link_connect_started_ms_ = now_ms;
    Connect();
  } else if (link_state_ != LinkState::kNone && link_state_ != LinkState::kConnect &&
             now_ms - link_last_io_ms_ > settings_.timeout_s * 1000) {
    engine_.Log(LogLevel::kWarning, link_state_ == LinkState::kConnected
                                        ? "MASTER timeout: no data nor PING received..."
                                        : "Timeout connecting to the MASTER...");
    CloseLink("timeout");
  } else if (link_state_ == LinkState::kConnected && now_ms - last_ack_ms_ >= 1000) {
    SendAck();
  }
  const size_t replicas = replica_count();
  // PINGs keep the replicas' links alive (their repl-timeout), every repl-ping-replica-period,
  // not while writes are paused (Redis's PAUSE_ACTION_REPLICA).
  if (replicas > 0 && now_ms - last_ping_ms_ >= settings_.ping_period_s * 1000 &&
      !engine_.writes_paused()) {
    last_ping_ms_ = now_ms;
    Feed(kPing);
  }
  // A replica that has not acknowledged for repl-timeout seconds is gone.
  for (auto& [id, state] : replicas_) {
    if (!state.online || state.pre_psync) continue;
    if (now_ms - state.ack_time_ms <= settings_.timeout_s * 1000) continue;
    Client* client = engine_.FindClient(id);
    if (client == nullptr || (client->flags & kClientCloseAsap)) continue;
    engine_.Log(LogLevel::kWarning,
                "Disconnecting timedout replica (streaming sync): " + ReplicaIp(*client, state) +
                    ":" + Int64ToString(state.listening_port));
    engine_.RequestClose(client);
  }
  // Without replicas for repl-backlog-ttl seconds, the backlog goes, and with it the history.
  // (A replica keeps its backlog: it is its primary's history, which it may be promoted with.)
  if (replicas == 0 && backlog_capacity_ > 0 && settings_.backlog_ttl_s > 0 && !is_replica() &&
      now_ms - no_replicas_since_ms_ > settings_.backlog_ttl_s * 1000) {
    ChangeReplicationId();
    FreeBacklog();
    engine_.Log(LogLevel::kNotice, "Replication backlog freed after " +
                                       Int64ToString(settings_.backlog_ttl_s) +
                                       " seconds without connected replicas.");
  }
}

void Replication::BeforeSleep() {
  if (!acks_requested_) return;
  acks_requested_ = false;
  if (replica_count() > 0 && !engine_.writes_paused()) Feed(kGetack);
}

void Replication::ForgetClient(const Client& client) {
  auto it = replicas_.find(client.id());
  if (it != replicas_.end()) {
    const bool was_online = it->second.online;
    replicas_.erase(it);
    if (was_online) {
      engine_.Log(LogLevel::kNotice,
                  "Connection with replica " + HostOf(client.peer_address) + " lost.");
      if (replica_count() == 0) no_replicas_since_ms_ = engine_.wall_ms();
    }
  }
  std::erase(waiters_, client.id());
}

// --- Introspection ----------------------------------------------------------------------------

size_t Replication::replica_count() const {
  size_t count = 0;
  for (const auto& [id, state] : replicas_) count += state.online ? 1 : 0;
  return count;
}

std::string Replication::ReplicaIp(const Client& client, const ReplicaState& state) const {
  return state.announced_ip.empty() ? HostOf(client.peer_address) : state.announced_ip;
}

size_t Replication::CountedOutputBytes(const Client& client) const {
  const OutputBuffer& output = client.output();
  auto it = replicas_.find(client.id());
  if (it == replicas_.end() || output.start_position() >= it->second.file_end) {
    return output.pending_bytes();
  }
  return static_cast<size_t>(output.end_position() - it->second.file_end);
}

std::vector<std::pair<std::string, std::string>> Replication::InfoFields() const {
  std::vector<std::pair<std::string, std::string>> fields;
  if (is_replica()) {
    const int64_t now_s = engine_.wall_ms() / 1000;
    fields.emplace_back("master_host", primary_host_);
    fields.emplace_back("master_port", Int64ToString(primary_port_));
    fields.emplace_back("master_link_status", link_up() ? "up" : "down");
    fields.emplace_back("master_last_io_seconds_ago",
                        link_up() ? Int64ToString(now_s - link_last_io_ms_ / 1000) : "-1");
    fields.emplace_back("master_sync_in_progress", link_state_ == LinkState::kTransfer ? "1" : "0");
    const std::string offset = has_history_ ? Int64ToString(offset_) : "0";
    fields.emplace_back("slave_read_repl_offset", offset);
    fields.emplace_back("slave_repl_offset", offset);
    if (!link_up()) {
      fields.emplace_back(
          "master_link_down_since_seconds",
          link_down_since_ms_ == 0 ? "-1" : Int64ToString(now_s - link_down_since_ms_ / 1000));
    }
    fields.emplace_back("slave_priority",
                        Int64ToString(ConfigInt(engine_.config(), "replica-priority", 100)));
    fields.emplace_back("slave_read_only",
                        ConfigBool(engine_.config(), "replica-read-only") ? "1" : "0");
    fields.emplace_back("replica_announced",
                        ConfigBool(engine_.config(), "replica-announced") ? "1" : "0");
  }
  fields.emplace_back("connected_slaves", Int64ToString(static_cast<int64_t>(replica_count())));
  if (settings_.min_replicas_to_write > 0 && settings_.min_replicas_max_lag_s > 0) {
    fields.emplace_back("min_slaves_good_slaves", Int64ToString(GoodReplicas()));
  }
  const int64_t now_s = engine_.wall_ms() / 1000;
  int index = 0;
  for (const auto& [id, state] : replicas_) {
    if (!state.online) continue;
    const Client* client = engine_.FindClient(id);
    if (client == nullptr) continue;
    const bool sending = client->output().start_position() < state.file_end;
    std::string line = "ip=" + ReplicaIp(*client, state) +
                       ",port=" + Int64ToString(state.listening_port) +
                       ",state=" + (sending ? "send_bulk" : "online") +
                       ",offset=" + Int64ToString(state.ack_offset) +
                       ",lag=" + Int64ToString(now_s - state.ack_time_ms / 1000);
    fields.emplace_back("slave" + Int64ToString(index++), std::move(line));
  }
  fields.emplace_back("master_failover_state", "no-failover");
  fields.emplace_back("master_replid", replid_);
  fields.emplace_back("master_replid2", replid2_);
  fields.emplace_back("master_repl_offset", Int64ToString(offset_));
  fields.emplace_back("second_repl_offset", Int64ToString(second_replid_offset_));
  fields.emplace_back("repl_backlog_active", backlog_capacity_ > 0 ? "1" : "0");
  fields.emplace_back("repl_backlog_size", Int64ToString(settings_.backlog_size_bytes));
  fields.emplace_back("repl_backlog_first_byte_offset", Int64ToString(backlog_first_offset_));
  fields.emplace_back("repl_backlog_histlen", Int64ToString(static_cast<int64_t>(backlog_.size())));
  return fields;
}

void Replication::ReplyRole(Client& client) const {
  ReplyBuilder& reply = client.reply();
  if (is_replica()) {
    // Redis's roleCommand for a replica: its primary, the link's state and its offset.
    std::string_view state = "connect";
    switch (link_state_) {
      case LinkState::kNone:
      case LinkState::kConnect:
        state = "connect";
        break;
      case LinkState::kConnecting:
        state = "connecting";
        break;
      case LinkState::kHandshake:
        state = "handshake";
        break;
      case LinkState::kTransfer:
        state = "sync";
        break;
      case LinkState::kConnected:
        state = "connected";
        break;
    }
    reply.ArrayHeader(5);
    reply.Bulk("slave");
    reply.Bulk(primary_host_);
    reply.Integer(primary_port_);
    reply.Bulk(state);
    reply.Integer(link_up() ? offset_ : -1);
    return;
  }
  std::vector<std::pair<const Client*, const ReplicaState*>> shown;
  for (const auto& [id, state] : replicas_) {
    if (!state.online) continue;
    const Client* replica = engine_.FindClient(id);
    if (replica == nullptr || replica->output().start_position() < state.file_end) continue;
    shown.emplace_back(replica, &state);
  }
  reply.ArrayHeader(3);
  reply.Bulk("master");
  reply.Integer(offset_);
  reply.ArrayHeader(shown.size());
  for (const auto& [replica, state] : shown) {
    reply.ArrayHeader(3);
    reply.Bulk(ReplicaIp(*replica, *state));
    reply.Bulk(Int64ToString(state->listening_port));
    reply.Bulk(Int64ToString(state->ack_offset));
  }
}

}  // namespace keel

namespace keel {

// --- The replica's side ---------------------------------------------------------------------

void Replication::ReplicaOf(std::string_view host, int64_t port) {
  if (link_state_ != LinkState::kNone) CloseLink("REPLICAOF changed the primary");
  // The replicas of this server follow a new history now: they resync (Redis disconnects them).
  for (auto& [id, state] : replicas_) {
    if (!state.online) continue;
    if (Client* client = engine_.FindClient(id)) engine_.RequestClose(client);
  }
  primary_host_ = host == "localhost" ? "127.0.0.1" : std::string(host);
  primary_port_ = port;
  link_state_ = LinkState::kConnect;
  link_down_since_ms_ = 0;
  // What this server wrote is the history a PSYNC offers to continue (Redis's
  // replicationCacheMasterUsingMyself): a promoted replica re-attached to its new primary
  // continues instead of loading everything again.
  has_history_ = backlog_capacity_ > 0;
  if (primary_client_ == nullptr) {
    primary_client_ = engine_.NewClient(0, nullptr);
    primary_client_->flags |= kClientPrimary;
  }
  // A replica applies its primary's expiries, never its own (the primary's DEL decides).
  engine_.keyspace().set_decides_expiry(false);
}

void Replication::StopReplicating() {
  if (!is_replica()) return;
  CloseLink("REPLICAOF NO ONE");
  link_state_ = LinkState::kNone;
  primary_host_.clear();
  primary_port_ = 0;
  primary_in_multi_ = false;
  primary_queued_.clear();
  if (primary_client_ != nullptr) {
    engine_.FreeClient(primary_client_);
    primary_client_ = nullptr;
  }
  engine_.keyspace().set_decides_expiry(true);
  // Redis's shiftReplicationId: a new history that continues the old one from the next byte,
  // so that replicas of the old primary can continue with this one.
  if (backlog_capacity_ == 0) CreateBacklog();
  replid2_ = replid_;
  second_replid_offset_ = offset_ + 1;
  replid_ = MakeRunId(engine_.env().random());
  engine_.Log(LogLevel::kNotice,
              "Setting secondary replication ID to " + replid2_ + ", valid up to offset: " +
                  Int64ToString(second_replid_offset_) + ". New replication ID is " + replid_);
  engine_.Log(LogLevel::kNotice, "MASTER MODE enabled");
}

void Replication::Connect() {
  ConnectOptions options;
  options.address = primary_host_;
  options.port = static_cast<uint16_t>(primary_port_);
  engine_.Log(LogLevel::kNotice,
              "Connecting to MASTER " + primary_host_ + ":" + Int64ToString(primary_port_));
  Result<ConnId> conn = engine_.env().network().Connect(options);
  if (!conn.ok()) {
    engine_.Log(LogLevel::kWarning, "Unable to connect to MASTER: " + conn.status().ToString());
    return;
  }
  link_ = *conn;
  link_state_ = LinkState::kConnecting;
  link_connect_started_ms_ = engine_.wall_ms();
  link_last_io_ms_ = engine_.wall_ms();
  link_in_.clear();
  link_out_.clear();
  link_parser_ = RequestParser();
  engine_.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync started");
}

void Replication::CloseLink(std::string_view why) {
  if (link_ != 0) {
    engine_.env().network().Close(link_);
    link_ = 0;
    engine_.Log(LogLevel::kNotice, "Connection with master lost (" + std::string(why) + ").");
  }
  if (link_state_ == LinkState::kConnected) {
    // A transaction cut in half never ran: the primary sends it again from its MULTI.
    if (primary_in_multi_) {
      primary_in_multi_ = false;
      primary_queued_.clear();
    }
    link_down_since_ms_ = engine_.wall_ms();
  }
  if (link_state_ != LinkState::kNone) link_state_ = LinkState::kConnect;
  link_in_.clear();
  link_out_.clear();
}

void Replication::FlushLink() {
  while (link_ != 0 && !link_out_.empty()) {
    const ConstSlice slice{link_out_.data(), link_out_.size()};
    const IoResult result = engine_.env().network().Write(link_, &slice, 1);
    if (result.code == IoCode::kOk) {
      link_out_.erase(0, result.bytes);
      continue;
    }
    if (result.code == IoCode::kWouldBlock) {
      engine_.env().network().SetInterest(link_, true, true);
      return;
    }
    CloseLink("write failed");
    return;
  }
  if (link_ != 0) engine_.env().network().SetInterest(link_, true, false);
}

void Replication::SendCommand(std::initializer_list<std::string_view> args) {
  AppendAofCommand(&link_out_, std::span<const std::string_view>(args.begin(), args.size()));
  FlushLink();
}

void Replication::SendAck() {
  if (link_state_ != LinkState::kConnected) return;
  const std::string offset = Int64ToString(offset_);
  SendCommand({"REPLCONF", "ACK", offset});
  last_ack_ms_ = engine_.wall_ms();
}

bool Replication::OnLinkEvent(ConnId conn, EventKind kind) {
  if (conn == 0 || conn != link_) return false;
  if (link_state_ == LinkState::kConnecting) {
    const Status status = engine_.env().network().ConnectStatus(link_);
    if (status.code() == StatusCode::kWouldBlock) return true;
    if (!status.ok()) {
      engine_.Log(LogLevel::kWarning, "Error condition on socket for SYNC: " + status.message());
      CloseLink("connect failed");
      return true;
    }
    engine_.Log(LogLevel::kNotice, "Non blocking connect for SYNC fired the event.");
    link_state_ = LinkState::kHandshake;
    handshake_step_ = 0;
    SendCommand({"PING"});
    return true;
  }
  if (kind == EventKind::kWritable) {
    FlushLink();
    return true;
  }
  ReadLink();
  return true;
}

void Replication::ReadLink() {
  char buffer[16384];
  // A few reads per event at most, so that a fast primary cannot starve the clients.
  for (int round = 0; round < 64 && link_ != 0; round++) {
    const IoResult result = engine_.env().network().Read(link_, buffer, sizeof(buffer));
    if (result.code == IoCode::kWouldBlock) break;
    if (result.code != IoCode::kOk) {
      CloseLink(result.code == IoCode::kClosed ? "closed by the primary" : "connection reset");
      return;
    }
    link_in_.append(buffer, result.bytes);
    link_last_io_ms_ = engine_.wall_ms();
    if (result.bytes < sizeof(buffer)) break;
  }
  while (link_ != 0) {
    const LinkState before = link_state_;
    const size_t unread = link_in_.size();
    if (link_state_ == LinkState::kHandshake) {
      HandshakeStep();
    } else if (link_state_ == LinkState::kTransfer) {
      TransferStep();
    } else if (link_state_ == LinkState::kConnected) {
      ApplyStream();
      break;
    }
    if (link_state_ == before && link_in_.size() == unread) break;
  }
}

bool Replication::TakeLine(std::string* line) {
  // A primary sends bare newlines to keep the link alive while it prepares a reply (Redis does,
  // during repl-diskless-sync-delay): they are no line. A line ends at '\n', its '\r' dropped.
  size_t skip = 0;
  while (skip < link_in_.size() && link_in_[skip] == '\n') skip++;
  link_in_.erase(0, skip);
  const size_t end = link_in_.find('\n');
  if (end == std::string::npos) return false;
  line->assign(link_in_, 0, end > 0 && link_in_[end - 1] == '\r' ? end - 1 : end);
  link_in_.erase(0, end + 1);
  return !line->empty() || TakeLine(line);
}

void Replication::HandshakeStep() {
  std::string line;
  if (!TakeLine(&line)) return;
  const Config& config = engine_.config();
  const auto setting = [&](std::string_view name) -> std::string {
    const ConfigParam* param = Config::Find(name);
    return param == nullptr ? std::string() : config.Get(*param);
  };
  switch (handshake_step_) {
    case 0: {  // PONG (or an authentication error: AUTH follows)
      if (line[0] == '-' && line.rfind("-NOAUTH", 0) != 0 && line.rfind("-NOPERM", 0) != 0 &&
          line.rfind("-ERR operation not permitted", 0) != 0) {
        engine_.Log(LogLevel::kWarning, "Error reply to PING from master: '" + line + "'");
        CloseLink("PING refused");
        return;
      }
      engine_.Log(LogLevel::kNotice, "Master replied to PING, replication can continue...");
      const std::string password = setting("masterauth");
      if (!password.empty()) {
        const std::string user = setting("masteruser");
        handshake_step_ = 1;
        if (user.empty()) {
          SendCommand({"AUTH", password});
        } else {
          SendCommand({"AUTH", user, password});
        }
        return;
      }
      [[fallthrough]];
    }
    case 1: {  // AUTH's reply (or none was sent)
      if (handshake_step_ == 1 && line[0] == '-') {
        engine_.Log(LogLevel::kWarning, "Unable to AUTH to MASTER: " + line);
        CloseLink("AUTH refused");
        return;
      }
      std::string port = setting("replica-announce-port");
      if (port.empty() || port == "0") port = Int64ToString(engine_.settings().port);
      handshake_step_ = 2;
      SendCommand({"REPLCONF", "listening-port", port});
      return;
    }
    case 2:  // REPLCONF listening-port's reply: an error is not fatal (Redis's neither)
      if (line[0] == '-') {
        engine_.Log(LogLevel::kNotice,
                    "(Non critical) Master does not understand REPLCONF "
                    "listening-port: " +
                        line);
      }
      handshake_step_ = 3;
      SendCommand({"REPLCONF", "capa", "eof", "capa", "psync2"});
      return;
    case 3: {
      if (line[0] == '-') {
        engine_.Log(LogLevel::kNotice,
                    "(Non critical) Master does not understand REPLCONF capa: " + line);
      }
      handshake_step_ = 4;
      if (has_history_) {
        const std::string next = Int64ToString(offset_ + 1);
        engine_.Log(LogLevel::kNotice,
                    "Trying a partial resynchronization (request " + replid_ + ":" + next + ").");
        SendCommand({"PSYNC", replid_, next});
      } else {
        engine_.Log(LogLevel::kNotice, "Partial resynchronization not possible (no cached master)");
        SendCommand({"PSYNC", "?", "-1"});
      }
      return;
    }
    case 4: {
      if (line.rfind("+FULLRESYNC ", 0) == 0) {
        const size_t space = line.find(' ', 12);
        transfer_replid_ = line.substr(12, space == std::string::npos ? 40 : space - 12);
        int64_t offset = 0;
        if (space == std::string::npos ||
            !ParseStrictInt64(std::string_view(line).substr(space + 1), &offset)) {
          CloseLink("bad +FULLRESYNC reply");
          return;
        }
        transfer_offset_ = offset;
        transfer_header_read_ = false;
        link_state_ = LinkState::kTransfer;
        engine_.Log(LogLevel::kNotice,
                    "Full resync from master: " + transfer_replid_ + ":" + Int64ToString(offset));
        return;
      }
      if (line.rfind("+CONTINUE", 0) == 0) {
        const std::string new_id = line.size() > 10 ? line.substr(10) : std::string();
        if (!new_id.empty() && new_id != replid_) {
          // The primary's history continues under a new id (it was promoted): ours too.
          replid2_ = replid_;
          second_replid_offset_ = offset_ + 1;
          replid_ = new_id;
        }
        if (backlog_capacity_ == 0) CreateBacklog();
        link_state_ = LinkState::kConnected;
        link_down_since_ms_ = 0;
        engine_.Log(LogLevel::kNotice,
                    "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        SendAck();
        return;
      }
      engine_.Log(LogLevel::kWarning, "Unexpected reply to PSYNC from master: " + line);
      CloseLink("PSYNC refused");
      return;
    }
    default:
      CloseLink("unexpected handshake state");
      return;
  }
}

void Replication::TransferStep() {
  if (!transfer_header_read_) {
    // The primary may send newlines to keep the link alive while it prepares the file.
    size_t skip = 0;
    while (skip < link_in_.size() && link_in_[skip] == '\n') skip++;
    link_in_.erase(0, skip);
    std::string line;
    if (!TakeLine(&line)) return;
    if (line.rfind("$EOF:", 0) == 0 && line.size() == 45) {
      eof_mark_ = line.substr(5);
      transfer_length_ = -1;
    } else if (line.size() > 1 && line[0] == '$' &&
               ParseStrictInt64(std::string_view(line).substr(1), &transfer_length_) &&
               transfer_length_ >= 0) {
      eof_mark_.clear();
    } else {
      engine_.Log(LogLevel::kWarning,
                  "Bad protocol from MASTER, the first byte is not '$' (we "
                  "received '" +
                      line +
                      "'), are you sure the host and port "
                      "are right?");
      CloseLink("bad transfer header");
      return;
    }
    transfer_header_read_ = true;
    engine_.Log(LogLevel::kNotice,
                transfer_length_ < 0
                    ? "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF"
                    : "MASTER <-> REPLICA sync: receiving " + Int64ToString(transfer_length_) +
                          " bytes from master");
  }
  size_t file_bytes = 0;
  size_t consumed = 0;
  if (transfer_length_ >= 0) {
    if (link_in_.size() < static_cast<size_t>(transfer_length_)) return;
    file_bytes = consumed = static_cast<size_t>(transfer_length_);
  } else {
    const size_t at = link_in_.find(eof_mark_);
    if (at == std::string::npos) return;
    file_bytes = at;
    consumed = at + eof_mark_.size();
  }
  std::string file = link_in_.substr(0, file_bytes);
  link_in_.erase(0, consumed);
  engine_.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Flushing old data");
  engine_.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Loading DB in memory");
  RdbLoadResult result;
  if (!engine_.persistence().LoadBytes(file, /*merge=*/false, &result)) {
    engine_.Log(LogLevel::kWarning,
                "Failed trying to load the MASTER synchronization DB from socket");
    CloseLink("the file did not load");
    return;
  }
  FinishFullSync();
}

void Replication::FinishFullSync() {
  // The primary's history is ours from now on, from the offset of the file.
  FreeBacklog();
  replid_ = transfer_replid_;
  replid2_ = std::string(40, '0');
  second_replid_offset_ = -1;
  offset_ = transfer_offset_;
  CreateBacklog();
  has_history_ = true;
  selected_db_ = -1;
  primary_in_multi_ = false;
  primary_queued_.clear();
  if (primary_client_ != nullptr) primary_client_->db_index = 0;
  link_state_ = LinkState::kConnected;
  link_down_since_ms_ = 0;
  engine_.Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Finished with success");
  SendAck();
}

void Replication::ApplyStream() {
  const ParserLimits limits{INT64_MAX, true};
  size_t position = 0;
  while (position < link_in_.size() && link_state_ == LinkState::kConnected) {
    size_t consumed = 0;
    const ParseResult result = link_parser_.Parse(link_in_.data() + position,
                                                  link_in_.size() - position, limits, &consumed);
    if (result == ParseResult::kIncomplete) break;
    if (result == ParseResult::kError) {
      engine_.Log(LogLevel::kWarning, "Protocol error from MASTER: " + link_parser_.error());
      CloseLink("protocol error");
      return;
    }
    const std::string_view bytes(link_in_.data() + position, consumed);
    position += consumed;
    if (result != ParseResult::kCommand) {
      // An empty line or a newline keeping the link alive: part of the stream all the same.
      Feed(bytes);
      continue;
    }
    std::span<const std::string_view> args = link_parser_.args();
    const bool multi = EqualsIgnoreCase(args[0], "multi");
    const bool exec = EqualsIgnoreCase(args[0], "exec");
    applying_primary_ = true;
    if (multi) {
      primary_in_multi_ = true;
      primary_queued_.clear();
    } else if (exec && primary_in_multi_) {
      primary_in_multi_ = false;
      for (const std::vector<std::string>& queued : primary_queued_) {
        std::vector<std::string_view> views(queued.begin(), queued.end());
        engine_.Replay(*primary_client_, views, kCallFromPrimary);
        primary_client_->output().Clear();
      }
      primary_queued_.clear();
    } else if (primary_in_multi_) {
      primary_queued_.emplace_back(args.begin(), args.end());
    } else {
      engine_.Replay(*primary_client_, args, kCallFromPrimary);
      primary_client_->output().Clear();
    }
    applying_primary_ = false;
    // The bytes go on to this server's backlog and replicas as they came, and count in the
    // offset once applied (an ACK sent while applying GETACK does not count GETACK itself).
    Feed(bytes);
  }
  link_in_.erase(0, position);
}

}  // namespace keel
