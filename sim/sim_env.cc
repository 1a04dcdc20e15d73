#include "sim/sim_env.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "engine/base/assert.h"

namespace keel::sim {

// ---------------------------------------------------------------------------------------------
bool SimMemory::Refuses(size_t bytes) {
  if (limit_bytes_ != 0 && used_bytes_ + bytes > limit_bytes_) return true;
  if (refusal_per_million_ == 0 || used_bytes_ + bytes <= soft_limit_bytes_) return false;
  return rng_.Below(1'000'000) < refusal_per_million_;
}

void* SimMemory::Allocate(size_t bytes) {
  KEEL_ASSERT(bytes > 0);
  if (Refuses(bytes)) {
    refused_count_++;
    if (trace_ != nullptr) trace_->Record(TraceKind::kRefusal, bytes, used_bytes_);
    return nullptr;
  }
  void* pointer = std::malloc(bytes);
  if (pointer == nullptr) return nullptr;
  used_bytes_ += bytes;
  live_blocks_++;
  return pointer;
}

void SimMemory::Deallocate(void* pointer, size_t bytes) {
  KEEL_ASSERT(pointer != nullptr);
  KEEL_ASSERT(used_bytes_ >= bytes);
  KEEL_ASSERT(live_blocks_ > 0);
  used_bytes_ -= bytes;
  live_blocks_--;
  std::free(pointer);
}

// ---------------------------------------------------------------------------------------------
SimNetwork::Connection* SimNetwork::FindConnection(ConnId conn) {
  auto it = connections_.find(conn);
  return it == connections_.end() ? nullptr : &it->second;
}

const SimNetwork::Connection* SimNetwork::FindConnection(ConnId conn) const {
  auto it = connections_.find(conn);
  return it == connections_.end() ? nullptr : &it->second;
}

size_t SimNetwork::Chunk(size_t available, size_t limit) {
  if (limit == 0 || available <= 1) return available;
  const size_t cap = available < limit ? available : limit;
  return 1 + static_cast<size_t>(rng_.Below(cap));
}

namespace {

// Whether two listening addresses on the same port collide, as the kernel decides for the sockets
// io/ makes: only within one address family (IPv6 sockets are IPV6_V6ONLY), and only for the same
// address or when one of them is the family's wildcard. So Redis's default "127.0.0.1 -::1" binds
// both, and "0.0.0.0" next to "127.0.0.1" does not.
bool AddressesCollide(const std::string& a, const std::string& b) {
  const bool a_v6 = a.find(':') != std::string::npos;
  const bool b_v6 = b.find(':') != std::string::npos;
  if (a_v6 != b_v6) return false;
  const auto wildcard = [](const std::string& address) {
    return address == "0.0.0.0" || address == "::";
  };
  return a == b || wildcard(a) || wildcard(b);
}

}  // namespace

Result<ListenerId> SimNetwork::Listen(const ListenOptions& options) {
  for (const std::string& address : unavailable_addresses_) {
    if (address == options.address) {
      return Status(StatusCode::kNotFound, "bind: Cannot assign requested address");
    }
  }
  uint16_t port = options.port;
  if (port == 0) port = next_ephemeral_port_++;
  for (const auto& [id, listener] : listeners_) {
    if (listener.port == port && AddressesCollide(listener.address, options.address)) {
      return Status(StatusCode::kAddressInUse, "bind: Address already in use");
    }
  }
  const ListenerId id = next_id_++;
  listeners_[id] = Listener{id, port, options.address, {}};
  return id;
}

uint16_t SimNetwork::ListenerPort(ListenerId listener) {
  auto it = listeners_.find(listener);
  return it == listeners_.end() ? 0 : it->second.port;
}

void SimNetwork::CloseListener(ListenerId listener) {
  auto it = listeners_.find(listener);
  if (it == listeners_.end()) return;
  // Connections never accepted are refused: the clients see their connection closed.
  for (ConnId conn : it->second.backlog) {
    if (Connection* connection = FindConnection(conn)) connection->server_closed = true;
  }
  listeners_.erase(it);
}

Result<ConnId> SimNetwork::Accept(ListenerId listener, ConnInfo* info) {
  auto it = listeners_.find(listener);
  if (it == listeners_.end() || it->second.backlog.empty()) return Status(StatusCode::kWouldBlock);
  const ConnId conn = it->second.backlog.front();
  it->second.backlog.pop_front();
  Connection* connection = FindConnection(conn);
  KEEL_ASSERT(connection != nullptr);
  connection->accepted = true;
  if (trace_ != nullptr) trace_->Record(TraceKind::kAccept, conn, listener);
  const std::string client_host = connection->loopback ? "127.0.0.1" : "10.0.0.2";
  info->peer_address = client_host + ":" + std::to_string(50000 + conn % 10000);
  info->local_address = "127.0.0.1:" + std::to_string(connection->port);
  info->peer_is_loopback = connection->loopback;
  info->descriptor = static_cast<int64_t>(conn);
  return conn;
}

IoResult SimNetwork::Read(ConnId conn, char* buffer, size_t capacity) {
  Connection* connection = FindConnection(conn);
  if (connection == nullptr || connection->server_closed) return {IoCode::kReset, 0};
  if (connection->reset) return {IoCode::kReset, 0};
  if (connection->to_server.empty()) {
    return {connection->client_closed ? IoCode::kClosed : IoCode::kWouldBlock, 0};
  }
  const size_t available =
      connection->to_server.size() < capacity ? connection->to_server.size() : capacity;
  const size_t bytes = Chunk(available, read_bytes_max_);
  connection->to_server.copy(buffer, bytes);
  if (trace_ != nullptr) {
    trace_->Record(TraceKind::kRead, conn, connection->read, std::string_view(buffer, bytes));
  }
  connection->read += bytes;
  connection->to_server.erase(0, bytes);
  return {IoCode::kOk, bytes};
}

IoResult SimNetwork::Write(ConnId conn, const ConstSlice* slices, size_t count) {
  Connection* connection = FindConnection(conn);
  if (connection == nullptr || connection->server_closed || connection->reset ||
      connection->client_closed) {
    return {IoCode::kReset, 0};
  }
  size_t offered = 0;
  for (size_t i = 0; i < count; i++) offered += slices[i].size;
  size_t room = offered;
  const size_t limit = BufferLimit(*connection);
  if (limit != 0) {
    const size_t held = connection->to_client.size();
    room = held >= limit ? 0 : limit - held;
    if (room > offered) room = offered;
  }
  if (room == 0) return {IoCode::kWouldBlock, 0};
  size_t bytes = Chunk(room, write_bytes_max_);
  const size_t taken = bytes;
  const size_t start = connection->to_client.size();
  for (size_t i = 0; i < count && bytes > 0; i++) {
    const size_t part = slices[i].size < bytes ? slices[i].size : bytes;
    connection->to_client.append(slices[i].data, part);
    bytes -= part;
  }
  if (trace_ != nullptr) {
    trace_->Record(TraceKind::kWrite, conn, connection->written,
                   std::string_view(connection->to_client).substr(start));
  }
  connection->written += taken;
  return {IoCode::kOk, taken};
}

void SimNetwork::SetInterest(ConnId conn, bool readable, bool writable) {
  if (Connection* connection = FindConnection(conn)) {
    connection->readable_interest = readable;
    connection->writable_interest = writable;
  }
}

void SimNetwork::Close(ConnId conn) {
  if (Connection* connection = FindConnection(conn)) {
    if (trace_ != nullptr && !connection->server_closed) {
      trace_->Record(TraceKind::kServerClose, conn, connection->to_server.size());
    }
    connection->server_closed = true;
    connection->to_server.clear();
  }
}

SimClientId SimNetwork::Connect(uint16_t port, bool loopback) {
  for (auto& [id, listener] : listeners_) {
    if (listener.port != port) continue;
    const ConnId conn = next_id_++;
    Connection connection;
    connection.id = conn;
    connection.port = port;
    connection.loopback = loopback;
    connections_[conn] = std::move(connection);
    listener.backlog.push_back(conn);
    if (trace_ != nullptr) trace_->Record(TraceKind::kConnect, conn, port);
    return conn;
  }
  return 0;
}

void SimNetwork::Send(SimClientId client, std::string_view bytes) {
  Connection* connection = FindConnection(client);
  KEEL_ASSERT(connection != nullptr);
  if (!connection->server_closed && !connection->client_closed && !connection->reset) {
    if (trace_ != nullptr) trace_->Record(TraceKind::kSend, client, connection->sent, bytes);
    connection->sent += bytes.size();
    connection->to_server.append(bytes);
  }
}

std::string SimNetwork::Receive(SimClientId client, size_t bytes_max) {
  Connection* connection = FindConnection(client);
  if (connection == nullptr || connection->to_client.empty() || bytes_max == 0) return {};
  std::string bytes;
  if (bytes_max >= connection->to_client.size()) {
    bytes.swap(connection->to_client);
  } else {
    bytes = connection->to_client.substr(0, bytes_max);
    connection->to_client.erase(0, bytes_max);
  }
  if (trace_ != nullptr) trace_->Record(TraceKind::kReceive, client, connection->received, bytes);
  connection->received += bytes.size();
  return bytes;
}

void SimNetwork::CloseClient(SimClientId client) {
  Connection* connection = FindConnection(client);
  if (connection == nullptr || connection->client_closed) return;
  if (trace_ != nullptr) trace_->Record(TraceKind::kClientClose, client, 0);
  connection->client_closed = true;
}

void SimNetwork::Reset(SimClientId client) {
  Connection* connection = FindConnection(client);
  if (connection == nullptr || connection->reset) return;
  connection->reset = true;
  // What was in flight either way is lost with the connection.
  connection->to_server.clear();
  connection->to_client.clear();
}

bool SimNetwork::ClosedByServer(SimClientId client) const {
  const Connection* connection = FindConnection(client);
  return connection == nullptr || connection->server_closed;
}

bool SimNetwork::Accepted(SimClientId client) const {
  const Connection* connection = FindConnection(client);
  return connection != nullptr && connection->accepted;
}

size_t SimNetwork::PendingToServer(SimClientId client) const {
  const Connection* connection = FindConnection(client);
  return connection == nullptr ? 0 : connection->to_server.size();
}

size_t SimNetwork::PendingToClient(SimClientId client) const {
  const Connection* connection = FindConnection(client);
  return connection == nullptr ? 0 : connection->to_client.size();
}

void SimNetwork::Forget(SimClientId client) {
  auto it = connections_.find(client);
  if (it == connections_.end()) return;
  KEEL_ASSERT(it->second.server_closed);
  connections_.erase(it);
}

void SimNetwork::SetClientBufferBytesMax(SimClientId client, size_t bytes) {
  if (Connection* connection = FindConnection(client)) connection->buffer_bytes_max = bytes;
}

size_t SimNetwork::open_connections() const {
  size_t open = 0;
  for (const auto& [id, connection] : connections_) {
    if (connection.accepted && !connection.server_closed) open++;
  }
  return open;
}

size_t SimNetwork::CollectEvents(Event* events, size_t capacity) {
  size_t count = 0;
  for (const auto& [id, listener] : listeners_) {
    if (count == capacity) return count;
    if (!listener.backlog.empty())
      events[count++] = {EventKind::kListenerReady, StatusCode::kOk, id};
  }
  for (const auto& [id, connection] : connections_) {
    if (!connection.accepted || connection.server_closed) continue;
    const bool failed = connection.reset;
    const bool readable = failed || !connection.to_server.empty() || connection.client_closed;
    if ((readable && connection.readable_interest) || failed) {
      if (count == capacity) return count;
      events[count++] = {EventKind::kReadable, StatusCode::kOk, id};
    }
    const size_t limit = BufferLimit(connection);
    const bool has_room = limit == 0 || connection.to_client.size() < limit;
    if (connection.writable_interest && (has_room || failed)) {
      if (count == capacity) return count;
      events[count++] = {EventKind::kWritable, StatusCode::kOk, id};
    }
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
Result<FileId> SimFiles::Open(std::string_view path, OpenMode mode) {
  auto it = files_.find(path);
  if (mode == OpenMode::kRead && it == files_.end()) {
    return Status(StatusCode::kNotFound, "open " + std::string(path));
  }
  if (it == files_.end()) it = files_.emplace(std::string(path), File{}).first;
  if (mode == OpenMode::kCreateTruncate) {
    it->second.content.clear();
    it->second.synced_size = 0;
  }
  const FileId id = next_id_++;
  handles_[id] = Handle{std::string(path), mode == OpenMode::kAppend};
  return id;
}

Result<size_t> SimFiles::ReadAt(FileId file, uint64_t offset, char* buffer, size_t capacity) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  const std::string& content = files_[handle->second.path].content;
  if (offset >= content.size()) return size_t{0};
  const size_t bytes = std::min<size_t>(capacity, content.size() - offset);
  content.copy(buffer, bytes, offset);
  return bytes;
}

size_t SimFiles::TotalBytes() const {
  size_t total = 0;
  for (const auto& [path, file] : files_) total += file.content.size();
  return total;
}

Status SimFiles::Append(FileId file, const ConstSlice* slices, size_t count) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  std::string& content = files_[handle->second.path].content;
  size_t total = capacity_bytes_ == 0 ? 0 : TotalBytes();
  for (size_t i = 0; i < count; i++) {
    if (capacity_bytes_ != 0 && total + slices[i].size > capacity_bytes_) {
      // A full disk takes what fits of the write, as write(2) does before failing with ENOSPC.
      content.append(slices[i].data, capacity_bytes_ - total);
      return Status(StatusCode::kNoSpace, "No space left on device");
    }
    content.append(slices[i].data, slices[i].size);
    total += slices[i].size;
  }
  return Status::Ok();
}

Status SimFiles::Truncate(FileId file, uint64_t size) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  File& target = files_[handle->second.path];
  target.content.resize(size);
  if (target.synced_size > size) target.synced_size = size;
  return Status::Ok();
}

Result<uint64_t> SimFiles::Size(FileId file) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  return static_cast<uint64_t>(files_[handle->second.path].content.size());
}

Status SimFiles::SyncAsync(FileId file, uint64_t token) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  const File& target = files_[handle->second.path];
  pending_syncs_.push_back(PendingSync{token, handle->second.path, target.content.size()});
  return Status::Ok();
}

Status SimFiles::Close(FileId file) {
  if (handles_.erase(file) == 0) return Status(StatusCode::kNotFound, "no such file handle");
  return Status::Ok();
}

Status SimFiles::Rename(std::string_view from, std::string_view to) {
  auto it = files_.find(from);
  if (it == files_.end()) return Status(StatusCode::kNotFound, "rename " + std::string(from));
  File moved = std::move(it->second);
  files_.erase(it);
  files_[std::string(to)] = std::move(moved);
  for (auto& [id, handle] : handles_) {
    if (handle.path == from) handle.path = std::string(to);
  }
  for (PendingSync& sync : pending_syncs_) {
    if (sync.path == from) sync.path = std::string(to);
  }
  return Status::Ok();
}

Status SimFiles::Remove(std::string_view path) {
  auto it = files_.find(path);
  if (it == files_.end()) return Status(StatusCode::kNotFound, "unlink " + std::string(path));
  files_.erase(it);
  return Status::Ok();
}

Result<std::vector<std::string>> SimFiles::ListDirectory(std::string_view directory) {
  std::string prefix(directory);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  std::vector<std::string> names;
  for (const auto& [path, file] : files_) {
    if (path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = path.substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string::npos) names.push_back(rest);
  }
  return names;  // std::map order: already sorted
}

size_t SimFiles::CollectEvents(Event* events, size_t capacity) {
  size_t count = 0;
  while (count < capacity && !pending_syncs_.empty()) {
    const PendingSync sync = std::move(pending_syncs_.front());
    pending_syncs_.pop_front();
    StatusCode outcome = StatusCode::kOk;
    if (sync_failure_per_million_ != 0 && rng_.Below(1'000'000) < sync_failure_per_million_) {
      outcome = StatusCode::kIoError;
    } else if (auto it = files_.find(sync.path); it != files_.end()) {
      // The file may have been truncated or renamed since: only bytes that still exist become
      // durable, and a renamed file's sync covers it under its new name.
      File& file = it->second;
      const size_t size = std::min(sync.size, file.content.size());
      if (size > file.synced_size) file.synced_size = size;
    }
    events[count++] = {EventKind::kFileSynced, outcome, sync.token};
  }
  return count;
}

const std::string* SimFiles::Content(std::string_view path) const {
  auto it = files_.find(path);
  return it == files_.end() ? nullptr : &it->second.content;
}

size_t SimFiles::SyncedSize(std::string_view path) const {
  auto it = files_.find(path);
  return it == files_.end() ? 0 : it->second.synced_size;
}

void SimFiles::Crash() {
  for (auto& [path, file] : files_) {
    KEEL_ASSERT(file.synced_size <= file.content.size());
    const size_t unsynced = file.content.size() - file.synced_size;
    // The kernel may have written back any prefix of the unsynced bytes before the crash.
    const size_t kept = unsynced == 0 ? 0 : static_cast<size_t>(rng_.Below(unsynced + 1));
    file.content.resize(file.synced_size + kept);
    file.synced_size = file.content.size();
  }
  pending_syncs_.clear();
  handles_.clear();
}

// ---------------------------------------------------------------------------------------------
void SimLog::Write(LogLevel /*level*/, std::string_view line) {
  // Keep a bounded tail: a long simulation must not grow the log without limit.
  if (lines_.size() >= 10000) lines_.erase(lines_.begin(), lines_.begin() + 5000);
  lines_.emplace_back(line);
  if (echo_) std::fprintf(stderr, "[sim log] %.*s\n", static_cast<int>(line.size()), line.data());
}

// ---------------------------------------------------------------------------------------------
SimEnv::SimEnv(uint64_t seed)
    : rng_(seed),
      fault_rng_(seed ^ 0xfa017fa017fa017full),
      random_(seed ^ 0x5eed5eed5eed5eedull),
      memory_(fault_rng_),
      network_(rng_),
      files_(fault_rng_) {}

void SimEnv::set_trace(Trace* trace) {
  trace_ = trace;
  memory_.set_trace(trace);
  network_.set_trace(trace);
}

ProcessInfo SimEnv::Process() {
  ProcessInfo info;
  info.pid = 4242;
  info.os = "Simulated";
  info.executable = "/sim/keel-server";
  info.monotonic_clock = "simulated";
  info.multiplexing_api = "simulated";
  return info;
}

size_t SimEnv::Wait(int64_t timeout_us, Event* events, size_t capacity) {
  if (shutdown_at_us_ >= 0 && clock_.MonotonicUs() >= shutdown_at_us_) {
    shutdown_at_us_ = -1;
    shutdown_pending_ = true;
  }
  if (capacity == 0) {
    // A sleep: a pending shutdown request ends it at once, and one due during it ends it then.
    if (shutdown_pending_ || timeout_us <= 0) return 0;
    if (shutdown_at_us_ >= 0 && clock_.MonotonicUs() + timeout_us >= shutdown_at_us_) {
      timeout_us = shutdown_at_us_ - clock_.MonotonicUs();
      shutdown_at_us_ = -1;
      shutdown_pending_ = true;
      clock_.Advance(timeout_us);
      return 0;
    }
  }
  size_t count = 0;
  if (shutdown_pending_ && capacity > 0) {
    shutdown_pending_ = false;
    events[count++] = {EventKind::kShutdownRequested, StatusCode::kOk, 15};
  }
  count += files_.CollectEvents(events + count, capacity - count);
  count += network_.CollectEvents(events + count, capacity - count);
  if (count == 0 && timeout_us > 0) {
    int64_t late_us = 0;
    if (timer_late_us_max_ > 0) {
      late_us =
          static_cast<int64_t>(fault_rng_.Below(static_cast<uint64_t>(timer_late_us_max_) + 1));
    }
    clock_.Advance(timeout_us + late_us);
    if (trace_ != nullptr) {
      if (late_us > 0) trace_->Record(TraceKind::kTimerLate, static_cast<uint64_t>(late_us), 0);
      trace_->Record(TraceKind::kClock, static_cast<uint64_t>(clock_.MonotonicUs()),
                     static_cast<uint64_t>(clock_.WallUs()));
      trace_->set_now_us(clock_.MonotonicUs());
    }
  }
  return count;
}

}  // namespace keel::sim
