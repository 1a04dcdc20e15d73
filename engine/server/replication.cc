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

std::string NewReplid(Random& random) {
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

Replication::Replication(Engine& engine) : engine_(engine), replid_(engine.replication_id()) {
  RefreshSettings();
}

Replication::~Replication() {
  if (backlog_capacity_ > 0) engine_.keyspace().propagation().RemoveSink(this);
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
  replid_ = NewReplid(engine_.env().random());
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
  engine_.keyspace().propagation().AddSink(this);
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
  const std::string file = engine_.persistence().SerialiseKeyspace();
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
      // For a replica to answer (this server follows no primary yet); no reply.
      return;
    } else if (EqualsIgnoreCase(option, "rdb-only")) {
      int64_t flag = 0;
      if (!ParseStrictInt64(value, &flag) || (flag != 0 && flag != 1)) {
        client.reply().Error(errors::kNotInteger);
        return;
      }
    } else if (EqualsIgnoreCase(option, "rdb-filter-only")) {
      // Only "" (no filter) and "functions" exist in 7.0; Keel sends every file whole.
      if (!value.empty() && !EqualsIgnoreCase(value, "functions")) {
        client.reply().Error("ERR Unsupported rdb-filter-only option: " + std::string(value));
        return;
      }
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

bool Replication::refuses_writes() const {
  if (settings_.min_replicas_to_write == 0 || settings_.min_replicas_max_lag_s == 0) return false;
  return GoodReplicas() < settings_.min_replicas_to_write;
}

// --- The loop ---------------------------------------------------------------------------------

void Replication::Cron() {
  const int64_t now_ms = engine_.wall_ms();
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
  if (replicas == 0 && backlog_capacity_ > 0 && settings_.backlog_ttl_s > 0 &&
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
