#include "sim/sim_env.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "engine/base/assert.h"

namespace keel::sim {

// ---------------------------------------------------------------------------------------------
bool SimMemory::Refuses(size_t bytes) {
  if (limit_bytes_ != 0 && used_bytes_ + bytes > limit_bytes_) return true;
  if (refusal_per_million_ == 0 || random_refusals_suspended_) return false;
  if (used_bytes_ + bytes <= soft_limit_bytes_) return false;
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
  if (used_bytes_ > resident_bytes_) resident_bytes_ = used_bytes_;
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
  if (connection->outgoing) return ReadOutgoing(*connection, buffer, capacity);
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
  if (connection != nullptr && connection->outgoing && !connection->server_closed) {
    return WriteOutgoing(*connection, slices, count);
  }
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
    // The far end of an outgoing connection reads EOF after what was sent.
    if (connection->outgoing) {
      if (SimNetwork* peer = PeerNetwork(*connection)) peer->CloseClient(connection->peer_id);
    }
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
  if (connection->outgoing) {
    if (SimNetwork* peer = PeerNetwork(*connection)) peer->Reset(connection->peer_id);
  }
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
  for (auto& [id, connection] : connections_) {
    if (connection.outgoing && !connection.server_closed) {
      const size_t added = CollectOutgoing(connection, events + count, capacity - count);
      count += added;
      if (count == capacity) return count;
      continue;
    }
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
// Outgoing connections and the fabric between networks.
bool SimFabric::Attach(const std::string& address, SimNetwork* network) {
  return hosts_.emplace(address, network).second;
}

void SimFabric::Detach(SimNetwork* network) {
  for (auto it = hosts_.begin(); it != hosts_.end();) {
    it = it->second == network ? hosts_.erase(it) : std::next(it);
  }
}

SimNetwork* SimFabric::Find(std::string_view address) const {
  auto it = hosts_.find(address);
  return it == hosts_.end() ? nullptr : it->second;
}

SimNetwork::~SimNetwork() {
  if (fabric_ != nullptr) fabric_->Detach(this);
}

bool SimNetwork::JoinFabric(SimFabric* fabric, const std::string& address) {
  KEEL_ASSERT(fabric_ == nullptr);
  if (!fabric->Attach(address, this)) return false;
  fabric_ = fabric;
  address_ = address;
  return true;
}

namespace {

bool IsLoopbackAddress(std::string_view address) {
  return address == "::1" || address.substr(0, 4) == "127.";
}

}  // namespace

SimNetwork* SimNetwork::PeerNetwork(const Connection& connection) const {
  if (connection.peer_address.empty()) return const_cast<SimNetwork*>(this);
  return fabric_ == nullptr ? nullptr : fabric_->Find(connection.peer_address);
}

SimNetwork::Connection* SimNetwork::PeerEnd(const Connection& connection) const {
  if (connection.peer_id == 0) return nullptr;
  SimNetwork* peer = PeerNetwork(connection);
  return peer == nullptr ? nullptr : peer->FindConnection(connection.peer_id);
}

Result<ConnId> SimNetwork::Connect(const ConnectOptions& options) {
  const std::string& address = options.address;
  if (address.empty() ||
      address.find_first_not_of("0123456789abcdefABCDEF.:") != std::string::npos) {
    return Status(StatusCode::kInvalidArgument, "bad address '" + address + "'");
  }
  const bool self = IsLoopbackAddress(address) || (!address_.empty() && address == address_);
  SimNetwork* target = self ? this : (fabric_ == nullptr ? nullptr : fabric_->Find(address));
  const ConnId conn = next_id_++;
  Connection connection;
  connection.id = conn;
  connection.port = options.port;
  connection.outgoing = true;
  connection.connecting = true;
  connection.writable_interest = true;
  connection.peer_address = self ? std::string() : address;
  const std::string where = "connect " + address + ":" + std::to_string(options.port);
  if (target == nullptr) {
    connection.failure = where + ": No route to host";
  } else {
    connection.peer_id = target->Connect(options.port, /*loopback=*/self);
    if (connection.peer_id == 0) connection.failure = where + ": Connection refused";
  }
  if (trace_ != nullptr) trace_->Record(TraceKind::kConnect, conn, options.port);
  connections_[conn] = std::move(connection);
  return conn;
}

Status SimNetwork::ConnectStatus(ConnId conn) {
  const Connection* connection = FindConnection(conn);
  if (connection == nullptr || connection->server_closed) {
    return Status(StatusCode::kNotFound, "no such connection");
  }
  if (!connection->outgoing) return Status::Ok();
  if (connection->connecting) return Status(StatusCode::kWouldBlock);
  if (!connection->failure.empty()) return Status(StatusCode::kReset, connection->failure);
  return Status::Ok();
}

SimClientId SimNetwork::PeerOf(ConnId conn) const {
  const Connection* connection = FindConnection(conn);
  return connection == nullptr || !connection->outgoing ? 0 : connection->peer_id;
}

IoResult SimNetwork::ReadOutgoing(Connection& connection, char* buffer, size_t capacity) {
  if (connection.connecting) return {IoCode::kWouldBlock, 0};
  if (!connection.failure.empty() || connection.reset) return {IoCode::kReset, 0};
  Connection* far = PeerEnd(connection);
  if (far == nullptr || far->reset) return {IoCode::kReset, 0};
  if (far->to_client.empty()) {
    // The far side closed after writing: EOF once its bytes are read.
    return {far->server_closed ? IoCode::kClosed : IoCode::kWouldBlock, 0};
  }
  const size_t available = std::min(far->to_client.size(), capacity);
  const size_t bytes = Chunk(available, read_bytes_max_);
  const std::string taken = PeerNetwork(connection)->Receive(connection.peer_id, bytes);
  KEEL_ASSERT(taken.size() == bytes);
  taken.copy(buffer, bytes);
  if (trace_ != nullptr) {
    trace_->Record(TraceKind::kRead, connection.id, connection.read, std::string_view(taken));
  }
  connection.read += bytes;
  return {IoCode::kOk, bytes};
}

IoResult SimNetwork::WriteOutgoing(Connection& connection, const ConstSlice* slices, size_t count) {
  if (connection.connecting) return {IoCode::kWouldBlock, 0};
  if (!connection.failure.empty() || connection.reset) return {IoCode::kReset, 0};
  Connection* far = PeerEnd(connection);
  if (far == nullptr || far->reset || far->server_closed) return {IoCode::kReset, 0};
  size_t offered = 0;
  for (size_t i = 0; i < count; i++) offered += slices[i].size;
  if (offered == 0) return {IoCode::kWouldBlock, 0};
  size_t bytes = Chunk(offered, write_bytes_max_);
  const size_t taken = bytes;
  std::string sent;
  for (size_t i = 0; i < count && bytes > 0; i++) {
    const size_t part = std::min(slices[i].size, bytes);
    sent.append(slices[i].data, part);
    bytes -= part;
  }
  if (trace_ != nullptr) trace_->Record(TraceKind::kWrite, connection.id, connection.written, sent);
  connection.written += taken;
  PeerNetwork(connection)->Send(connection.peer_id, sent);
  return {IoCode::kOk, taken};
}

size_t SimNetwork::CollectOutgoing(Connection& connection, Event* events, size_t capacity) {
  // The handshake ends at the first Wait after Connect, so that its outcome is always an event.
  connection.connecting = false;
  const Connection* far = PeerEnd(connection);
  const bool failed =
      !connection.failure.empty() || connection.reset || far == nullptr || far->reset;
  const bool readable = failed || !far->to_client.empty() || far->server_closed;
  size_t count = 0;
  if (count < capacity && ((readable && connection.readable_interest) || failed)) {
    events[count++] = {EventKind::kReadable, StatusCode::kOk, connection.id};
  }
  if (count < capacity && connection.writable_interest) {
    events[count++] = {EventKind::kWritable, StatusCode::kOk, connection.id};
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
namespace {

// Paths as SimFiles keeps them: no trailing slash (except the root), "." for the working
// directory spelled "".
std::string Normalize(std::string_view path) {
  std::string normal(path);
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  if (normal == ".") normal.clear();
  return normal;
}

// The directory holding `path`: "" (the working directory) for a bare name, "/" for "/name".
std::string_view Parent(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  if (slash == 0) return path.size() == 1 ? std::string_view() : path.substr(0, 1);
  return path.substr(0, slash);
}

// The prefix every path inside `directory` starts with.
std::string InsidePrefix(std::string_view directory) {
  if (directory.empty()) return {};
  std::string prefix(directory);
  if (prefix.back() != '/') prefix += '/';
  return prefix;
}

}  // namespace

SimFiles::Inode* SimFiles::FindInode(std::string_view path) {
  auto name = names_.find(Normalize(path));
  return name == names_.end() ? nullptr : &inodes_.at(name->second);
}

const SimFiles::Inode* SimFiles::FindInode(std::string_view path) const {
  auto name = names_.find(Normalize(path));
  return name == names_.end() ? nullptr : &inodes_.at(name->second);
}

SimFiles::Inode* SimFiles::HandleInode(FileId file) {
  auto handle = handles_.find(file);
  return handle == handles_.end() ? nullptr : &inodes_.at(handle->second);
}

bool SimFiles::DirectoryExists(std::string_view path) const {
  const std::string directory = Normalize(path);
  return directory.empty() || directory == "/" || directories_.count(directory) != 0 ||
         implicit_directories_.count(directory) != 0;
}

void SimFiles::NoteAncestors(std::string_view path) {
  for (std::string_view dir = Parent(path); !dir.empty() && dir != "/"; dir = Parent(dir)) {
    if (directories_.count(dir) == 0) implicit_directories_.emplace(dir);
  }
}

Result<FileId> SimFiles::Open(std::string_view path, OpenMode mode) {
  const std::string name = Normalize(path);
  auto it = names_.find(name);
  if (it == names_.end() && (name.empty() || DirectoryExists(name))) {
    return Status(StatusCode::kInvalidArgument, "open " + name + ": Is a directory");
  }
  if (mode == OpenMode::kRead && it == names_.end()) {
    return Status(StatusCode::kNotFound, "open " + name);
  }
  if (it == names_.end()) {
    const InodeId id = next_inode_++;
    inodes_.emplace(id, Inode{});
    it = names_.emplace(name, id).first;
    NoteAncestors(name);
  }
  if (mode == OpenMode::kCreateTruncate) TruncateInode(it->second, inodes_.at(it->second), 0);
  const FileId file = next_id_++;
  handles_[file] = it->second;
  return file;
}

Result<size_t> SimFiles::ReadAt(FileId file, uint64_t offset, char* buffer, size_t capacity) {
  const Inode* inode = HandleInode(file);
  if (inode == nullptr) return Status(StatusCode::kNotFound, "no such file handle");
  const std::string& content = inode->content;
  if (offset >= content.size()) return size_t{0};
  const size_t bytes = std::min<size_t>(capacity, content.size() - offset);
  content.copy(buffer, bytes, offset);
  return bytes;
}

size_t SimFiles::TotalBytes() const {
  size_t total = 0;
  for (const auto& [id, inode] : inodes_) total += inode.content.size();
  return total;
}

Status SimFiles::Append(FileId file, const ConstSlice* slices, size_t count) {
  Inode* inode = HandleInode(file);
  if (inode == nullptr) return Status(StatusCode::kNotFound, "no such file handle");
  std::string& content = inode->content;
  size_t total = capacity_bytes_ == 0 ? 0 : TotalBytes();
  for (size_t i = 0; i < count; i++) {
    if (capacity_bytes_ != 0 && total + slices[i].size > capacity_bytes_) {
      // A full disk takes what fits of the write, as write(2) does before failing with ENOSPC.
      content.append(slices[i].data, capacity_bytes_ - total);
      faults_++;
      return Status(StatusCode::kNoSpace, "No space left on device");
    }
    content.append(slices[i].data, slices[i].size);
    total += slices[i].size;
  }
  return Status::Ok();
}

void SimFiles::TruncateInode(InodeId id, Inode& inode, size_t size) {
  inode.content.resize(size);  // growing fills with zeros, as ftruncate(2) does
  inode.stable = std::min(inode.stable, size);
  // A sync still pending can only make durable what is left of the bytes it covered.
  for (PendingSync& sync : pending_syncs_) {
    if (!sync.directory && sync.inode == id) sync.size = std::min(sync.size, size);
  }
}

Status SimFiles::Truncate(FileId file, uint64_t size) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  TruncateInode(handle->second, inodes_.at(handle->second), static_cast<size_t>(size));
  return Status::Ok();
}

Result<uint64_t> SimFiles::Size(FileId file) {
  const Inode* inode = HandleInode(file);
  if (inode == nullptr) return Status(StatusCode::kNotFound, "no such file handle");
  return static_cast<uint64_t>(inode->content.size());
}

Status SimFiles::SyncAsync(FileId file, uint64_t token) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  PendingSync sync;
  sync.token = token;
  sync.directory = false;
  sync.inode = handle->second;
  sync.size = inodes_.at(handle->second).content.size();
  pending_syncs_.push_back(std::move(sync));
  return Status::Ok();
}

Status SimFiles::Close(FileId file) {
  auto handle = handles_.find(file);
  if (handle == handles_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  const InodeId id = handle->second;
  handles_.erase(handle);
  Collect(id);
  return Status::Ok();
}

Status SimFiles::Rename(std::string_view from, std::string_view to) {
  const std::string source = Normalize(from);
  const std::string target = Normalize(to);
  auto it = names_.find(source);
  if (it == names_.end()) return Status(StatusCode::kNotFound, "rename " + source);
  if (source == target) return Status::Ok();
  if (target.empty() || DirectoryExists(target)) {
    return Status(StatusCode::kInvalidArgument,
                  "rename " + source + " " + target + ": Is a directory");
  }
  const InodeId moved = it->second;
  names_.erase(it);
  auto replaced = names_.find(target);
  if (replaced == names_.end()) {
    names_.emplace(target, moved);
    NoteAncestors(target);
  } else {
    const InodeId old = replaced->second;
    replaced->second = moved;
    Collect(old);
  }
  return Status::Ok();
}

Status SimFiles::Remove(std::string_view path) {
  const std::string name = Normalize(path);
  auto it = names_.find(name);
  if (it == names_.end()) return Status(StatusCode::kNotFound, "unlink " + name);
  const InodeId id = it->second;
  names_.erase(it);
  Collect(id);
  return Status::Ok();
}

Result<std::vector<std::string>> SimFiles::ListDirectory(std::string_view directory) {
  const std::string dir = Normalize(directory);
  if (names_.count(dir) != 0) {
    return Status(StatusCode::kInvalidArgument, "opendir " + dir + ": Not a directory");
  }
  const std::string prefix = InsidePrefix(dir);
  std::set<std::string> entries;
  // The first component after the prefix names an entry: a file, or a directory (made, or named
  // in a longer path).
  const auto add = [&](const std::string& path) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return;
    if (prefix.empty() && path[0] == '/') return;  // absolute paths are not in ""
    const std::string rest = path.substr(prefix.size());
    entries.insert(rest.substr(0, rest.find('/')));
  };
  for (const auto& [path, id] : names_) add(path);
  for (const std::string& path : directories_) add(path);
  for (const std::string& path : implicit_directories_) add(path);
  return std::vector<std::string>(entries.begin(), entries.end());  // sorted: deterministic
}

Status SimFiles::CreateDirectory(std::string_view path) {
  const std::string dir = Normalize(path);
  if (names_.count(dir) != 0 || DirectoryExists(dir)) {
    return Status(StatusCode::kAlreadyExists, "mkdir " + dir + ": File exists");
  }
  if (names_.count(std::string(Parent(dir))) != 0) {
    return Status(StatusCode::kInvalidArgument, "mkdir " + dir + ": Not a directory");
  }
  directories_.insert(dir);
  NoteAncestors(dir);
  return Status::Ok();
}

Status SimFiles::SyncDirectoryAsync(std::string_view directory, uint64_t token) {
  const std::string dir = Normalize(directory);
  if (names_.count(dir) != 0) {
    return Status(StatusCode::kInvalidArgument, "open " + dir + ": Not a directory");
  }
  if (!DirectoryExists(dir)) return Status(StatusCode::kNotFound, "open " + dir);
  PendingSync sync;
  sync.token = token;
  sync.directory = true;
  sync.inode = 0;
  sync.size = 0;
  sync.path = dir;
  // What the sync will make durable is the directory as it is now: later changes may or may not
  // reach the disk with it, so they are not counted on.
  for (const auto& [path, id] : names_) {
    if (Parent(path) == dir) sync.entries.emplace(path, id);
  }
  for (const std::string& path : directories_) {
    if (Parent(path) == dir) sync.subdirectories.insert(path);
  }
  pending_syncs_.push_back(std::move(sync));
  return Status::Ok();
}

void SimFiles::Collect(InodeId id) {
  const auto names = [id](const Names& table) {
    return std::any_of(table.begin(), table.end(), [id](const auto& e) { return e.second == id; });
  };
  if (names(names_) || names(durable_names_)) return;
  for (const auto& [file, inode] : handles_) {
    if (inode == id) return;
  }
  for (const PendingSync& sync : pending_syncs_) {
    if (sync.directory ? names(sync.entries) : sync.inode == id) return;
  }
  inodes_.erase(id);
}

void SimFiles::CompleteSync(PendingSync& sync) {
  if (!sync.directory) {
    Inode& inode = inodes_.at(sync.inode);
    // The bytes it covered that are still there become the durable content. `stable` bytes are
    // already in `durable`: copy only the rest, so a sync costs what was appended since the last.
    const size_t size = std::min(sync.size, inode.content.size());
    const size_t keep = std::min(inode.stable, size);
    inode.durable.resize(keep);
    inode.durable.append(inode.content, keep, size - keep);
    inode.stable = size;
    return;
  }
  // The directory's entries on disk become what they were when the sync was requested.
  std::vector<InodeId> dropped;
  for (auto it = durable_names_.begin(); it != durable_names_.end();) {
    if (Parent(it->first) == sync.path) {
      dropped.push_back(it->second);
      it = durable_names_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [path, id] : sync.entries) durable_names_.emplace(path, id);
  for (auto it = durable_directories_.begin(); it != durable_directories_.end();) {
    it = Parent(*it) == sync.path ? durable_directories_.erase(it) : std::next(it);
  }
  durable_directories_.insert(sync.subdirectories.begin(), sync.subdirectories.end());
  for (InodeId id : dropped) Collect(id);
}

size_t SimFiles::CollectEvents(Event* events, size_t capacity) {
  size_t count = 0;
  while (count < capacity && !pending_syncs_.empty()) {
    PendingSync sync = std::move(pending_syncs_.front());
    pending_syncs_.pop_front();
    StatusCode outcome = StatusCode::kOk;
    if (sync_failure_per_million_ != 0 && rng_.Below(1'000'000) < sync_failure_per_million_) {
      outcome = StatusCode::kIoError;
      faults_++;
    } else {
      CompleteSync(sync);
    }
    // The sync no longer holds what it referred to.
    if (!sync.directory) Collect(sync.inode);
    for (const auto& [path, id] : sync.entries) Collect(id);
    events[count++] = {EventKind::kFileSynced, outcome, sync.token};
  }
  return count;
}

const std::string* SimFiles::Content(std::string_view path) const {
  const Inode* inode = FindInode(path);
  return inode == nullptr ? nullptr : &inode->content;
}

size_t SimFiles::SyncedSize(std::string_view path) const {
  const Inode* inode = FindInode(path);
  return inode == nullptr ? 0 : inode->durable.size();
}

bool SimFiles::EntryDurable(std::string_view path) const {
  const std::string name = Normalize(path);
  auto now = names_.find(name);
  auto disk = durable_names_.find(name);
  if (now == names_.end() || disk == durable_names_.end() || now->second != disk->second) {
    return false;
  }
  for (std::string_view dir = Parent(name); !dir.empty() && dir != "/"; dir = Parent(dir)) {
    if (directories_.count(dir) != 0 && durable_directories_.count(dir) == 0) return false;
  }
  return true;
}

void SimFiles::KeepPrefixWithTears(Inode& inode, size_t synced) {
  std::string& content = inode.content;
  KEEL_ASSERT(synced <= content.size());
  const size_t unsynced = content.size() - synced;
  if (unsynced == 0) return;
  // How much of the unsynced tail the file keeps: none, all, or any length in between.
  size_t length = content.size();
  switch (rng_.Below(4)) {
    case 0:
      length = synced;
      break;
    case 1:
      break;
    default:
      length = synced + static_cast<size_t>(rng_.Below(unsynced + 1));
      break;
  }
  content.resize(length);
  if (length == synced) return;
  // Within that length, sectors the disk did not write read as zeros. Synced bytes sharing a
  // sector with unsynced ones stay: the sector held them already.
  const size_t first_sector = synced / kSectorBytes;
  const size_t end_sector = (length + kSectorBytes - 1) / kSectorBytes;
  const auto zero_sector = [&](size_t sector) {
    const size_t from = std::max(synced, sector * kSectorBytes);
    const size_t to = std::min(length, (sector + 1) * kSectorBytes);
    std::fill(content.begin() + static_cast<ptrdiff_t>(from),
              content.begin() + static_cast<ptrdiff_t>(to), '\0');
  };
  switch (rng_.Below(3)) {
    case 0:  // a clean prefix
      break;
    case 1:  // torn: each sector kept or lost on its own
      if (sector_holes_) {
        for (size_t sector = first_sector; sector < end_sector; sector++) {
          if (rng_.Below(2) == 0) zero_sector(sector);
        }
        break;
      }
      [[fallthrough]];
    default: {  // a zero-filled tail: the size reached the disk, the last sectors did not
      const size_t from = first_sector + static_cast<size_t>(rng_.Below(end_sector - first_sector));
      for (size_t sector = from; sector < end_sector; sector++) zero_sector(sector);
      break;
    }
  }
}

void SimFiles::CrashData(Inode& inode) {
  KEEL_ASSERT(inode.stable <= inode.content.size());
  KEEL_ASSERT(inode.stable <= inode.durable.size());
  if (inode.stable < inode.durable.size()) {
    // Truncated since the last sync: the truncation is undone (the durable content comes back
    // whole, and what was appended since is lost), or it reached the disk and the bytes after it
    // are unsynced like any others.
    if (rng_.Below(2) == 0) {
      inode.content = inode.durable;
      return;
    }
  }
  KeepPrefixWithTears(inode, inode.stable);
}

void SimFiles::Crash() {
  // A path is lost with a directory made and never made durable in its parent.
  const auto lost_with_directory = [this](std::string_view path) {
    for (std::string_view dir = Parent(path); !dir.empty() && dir != "/"; dir = Parent(dir)) {
      if (directories_.count(dir) != 0 && durable_directories_.count(dir) == 0) return true;
    }
    return false;
  };
  Names names;
  for (const auto& [path, id] : durable_names_) {
    if (!lost_with_directory(path)) names.emplace(path, id);
  }
  std::set<std::string, std::less<>> directories;
  for (const std::string& path : durable_directories_) {
    if (!lost_with_directory(path)) directories.insert(path);
  }
  for (auto it = implicit_directories_.begin(); it != implicit_directories_.end();) {
    it = lost_with_directory(*it) ? implicit_directories_.erase(it) : std::next(it);
  }
  names_ = names;
  durable_names_ = std::move(names);
  directories_ = directories;
  durable_directories_ = std::move(directories);
  pending_syncs_.clear();
  handles_.clear();
  std::set<InodeId> named;
  for (const auto& [path, id] : names_) named.insert(id);
  for (auto it = inodes_.begin(); it != inodes_.end();) {
    if (named.count(it->first) == 0) {
      it = inodes_.erase(it);
      continue;
    }
    Inode& inode = it->second;
    CrashData(inode);
    inode.durable = inode.content;
    inode.stable = inode.content.size();
    ++it;
  }
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
