#include "io/epoll_network.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/base/assert.h"
#include "io/real_env.h"
#include "io/sockets.h"

namespace keel::io {

EpollNetwork::~EpollNetwork() {
  for (size_t fd = 0; fd < slots_.size(); fd++) {
    if (slots_[fd].kind == Kind::kListener || slots_[fd].kind == Kind::kConnection) {
      ::close(static_cast<int>(fd));
    }
  }
  ::close(epoll_fd_);
}

Result<std::unique_ptr<PollingNetwork>> NewEpollNetwork() {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return ErrnoStatus(errno, "epoll_create1");
  return std::unique_ptr<PollingNetwork>(new EpollNetwork(epoll_fd));
}

EpollNetwork::Kind EpollNetwork::KindOf(uint64_t id) const {
  const int fd = FdOf(id);
  if (fd < 0 || static_cast<size_t>(fd) >= slots_.size()) return Kind::kFree;
  const Slot& slot = slots_[static_cast<size_t>(fd)];
  if (slot.generation != static_cast<uint32_t>(id >> 32)) return Kind::kFree;
  return slot.kind;
}

int EpollNetwork::Resolve(uint64_t id, Kind kind) const {
  return KindOf(id) == kind ? FdOf(id) : -1;
}

uint64_t EpollNetwork::Register(int fd, Kind kind, uint32_t events) {
  KEEL_ASSERT(fd >= 0);
  if (static_cast<size_t>(fd) >= slots_.size()) slots_.resize(static_cast<size_t>(fd) + 1);
  Slot& slot = slots_[static_cast<size_t>(fd)];
  KEEL_ASSERT(slot.kind == Kind::kFree);
  const uint32_t generation = slot.generation;
  slot = Slot{};
  slot.kind = kind;
  slot.generation = generation + 1;
  if (slot.generation == 0) slot.generation = 1;  // ids are never 0
  const uint64_t id = MakeId(fd, slot.generation);
  epoll_event event{};
  event.events = events;
  event.data.u64 = id;
  const int rc = epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event);
  KEEL_ASSERT(rc == 0);
  return id;
}

void EpollNetwork::Forget(int fd) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  slots_[static_cast<size_t>(fd)].kind = Kind::kFree;
}

void EpollNetwork::Watch(int fd, Kind kind) { Register(fd, kind, EPOLLIN); }

Result<ListenerId> EpollNetwork::Listen(const ListenOptions& options) {
  Result<int> fd = OpenListener(options);
  if (!fd.ok()) return fd.status();
  return Register(*fd, Kind::kListener, EPOLLIN);
}

uint16_t EpollNetwork::ListenerPort(ListenerId listener) {
  const int fd = Resolve(listener, Kind::kListener);
  return fd < 0 ? 0 : BoundPort(fd);
}

void EpollNetwork::CloseListener(ListenerId listener) {
  const int fd = Resolve(listener, Kind::kListener);
  if (fd < 0) return;
  Forget(fd);
  ::close(fd);
}

Result<ConnId> EpollNetwork::Accept(ListenerId listener, ConnInfo* info) {
  const int listen_fd = Resolve(listener, Kind::kListener);
  if (listen_fd < 0) return Status(StatusCode::kNotFound, "no such listener");
  Result<int> fd = AcceptOne(listen_fd, info);
  if (!fd.ok()) return fd.status();
  return Register(*fd, Kind::kConnection, EPOLLIN);
}

IoResult EpollNetwork::Read(ConnId conn, char* buffer, size_t capacity) {
  const int fd = Resolve(conn, Kind::kConnection);
  if (fd < 0 || HandshakeFailed(fd)) return {IoCode::kReset, 0};
  while (true) {
    const ssize_t n = ::read(fd, buffer, capacity);
    if (n > 0) {
      NoteTransfer(fd, true, 0);
      return {IoCode::kOk, static_cast<size_t>(n)};
    }
    if (n == 0) return {IoCode::kClosed, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoCode::kWouldBlock, 0};
    NoteTransfer(fd, false, errno);
    return {IoCode::kReset, 0};
  }
}

IoResult EpollNetwork::Write(ConnId conn, const ConstSlice* slices, size_t count) {
  const int fd = Resolve(conn, Kind::kConnection);
  if (fd < 0 || HandshakeFailed(fd)) return {IoCode::kReset, 0};
  iovec vectors[IOV_MAX];
  const size_t used = count < IOV_MAX ? count : IOV_MAX;
  for (size_t i = 0; i < used; i++) {
    vectors[i].iov_base = const_cast<char*>(slices[i].data);
    vectors[i].iov_len = slices[i].size;
  }
  msghdr message{};
  message.msg_iov = vectors;
  message.msg_iovlen = used;
  while (true) {
    // sendmsg with MSG_NOSIGNAL: a peer that went away yields EPIPE, never SIGPIPE.
    const ssize_t n = sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n > 0) {
      NoteTransfer(fd, true, 0);
      return {IoCode::kOk, static_cast<size_t>(n)};
    }
    if (n == 0) return {IoCode::kWouldBlock, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoCode::kWouldBlock, 0};
    NoteTransfer(fd, false, errno);
    return {IoCode::kReset, 0};
  }
}

void EpollNetwork::SetInterest(ConnId conn, bool readable, bool writable) {
  const int fd = Resolve(conn, Kind::kConnection);
  if (fd < 0) return;
  epoll_event event{};
  event.events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u);
  event.data.u64 = conn;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &event);
  slots_[static_cast<size_t>(fd)].writable_interest = writable;
}

void EpollNetwork::Close(ConnId conn) {
  const int fd = Resolve(conn, Kind::kConnection);
  if (fd < 0) return;
  Forget(fd);
  ::close(fd);
}

}  // namespace keel::io

namespace keel::io {

bool EpollNetwork::HandshakeFailed(int fd) const {
  // Once ConnectStatus has taken the error (reading SO_ERROR clears it), the socket reads as if
  // at EOF: the failure must still show as a reset.
  const Slot& slot = slots_[static_cast<size_t>(fd)];
  return slot.outgoing && !slot.established && slot.error != 0;
}

void EpollNetwork::NoteTransfer(int fd, bool moved, int error) {
  Slot& slot = slots_[static_cast<size_t>(fd)];
  if (!slot.outgoing || slot.established) return;
  if (moved) {
    slot.established = true;
  } else if (slot.error == 0) {
    // A read or write is the first to see a failed handshake's error (it clears SO_ERROR), so
    // ConnectStatus must learn it from here.
    slot.error = error;
  }
}

bool EpollNetwork::ReportsFailureAsWritable(uint64_t id) const {
  if (KindOf(id) != Kind::kConnection) return false;
  const Slot& slot = slots_[static_cast<size_t>(FdOf(id))];
  return slot.outgoing && !slot.established && slot.writable_interest;
}

Result<ConnId> EpollNetwork::Connect(const ConnectOptions& options) {
  int error = 0;
  std::string peer;
  Result<int> fd = StartConnect(options, &error, &peer);
  if (!fd.ok()) return fd.status();
  // Registered even when connect failed at once (unreachable, refused): a socket that is closed
  // reports EPOLLHUP, so the failure arrives as an event, the same way as one found later.
  const uint64_t id = Register(*fd, Kind::kConnection, EPOLLIN | EPOLLOUT);
  Slot& slot = slots_[static_cast<size_t>(*fd)];
  slot.outgoing = true;
  slot.writable_interest = true;
  slot.error = error;
  slot.peer = std::move(peer);
  return id;
}

Status EpollNetwork::ConnectStatus(ConnId conn) {
  const int fd = Resolve(conn, Kind::kConnection);
  if (fd < 0) return Status(StatusCode::kNotFound, "no such connection");
  Slot& slot = slots_[static_cast<size_t>(fd)];
  if (!slot.outgoing || slot.established) return Status::Ok();
  if (slot.error == 0) {
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    slot.error = error;
  }
  if (slot.error != 0) {
    return Status(StatusCode::kReset, "connect " + slot.peer + ": " + std::strerror(slot.error));
  }
  tcp_info info{};
  socklen_t length = sizeof(info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) == 0 &&
      info.tcpi_state == TCP_SYN_SENT) {
    return Status(StatusCode::kWouldBlock);
  }
  slot.established = true;
  return Status::Ok();
}

DescriptorLimit EpollNetwork::RaiseDescriptorLimit(uint64_t wanted) {
  return RaiseOpenFilesLimit(wanted);
}

void EpollNetwork::WatchWakeup(int fd) { Watch(fd, Kind::kWakeup); }
void EpollNetwork::WatchSignal(int fd) { Watch(fd, Kind::kSignal); }

PollingNetwork::PollOutcome EpollNetwork::Poll(int64_t timeout_us, Event* events, size_t capacity) {
  PollOutcome outcome;
  constexpr int kBatch = 256;
  epoll_event ready[kBatch];
  int timeout_ms = -1;
  if (timeout_us >= 0) timeout_ms = static_cast<int>((timeout_us + 999) / 1000);
  const int room = static_cast<int>(std::min<size_t>(capacity, kBatch));
  const int n = epoll_wait(epoll_fd_, ready, room, timeout_ms);
  size_t count = 0;
  for (int i = 0; i < n && count < capacity; i++) {
    const uint64_t id = ready[i].data.u64;
    const uint32_t flags = ready[i].events;
    switch (KindOf(id)) {
      case Kind::kListener:
        events[count++] = {EventKind::kListenerReady, StatusCode::kOk, id};
        break;
      case Kind::kConnection:
        // A hang-up or error is reported as readable: the read then sees EOF or the failure.
        if (flags & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
          events[count++] = {EventKind::kReadable, StatusCode::kOk, id};
        }
        if (count < capacity && ((flags & EPOLLOUT) || ((flags & (EPOLLHUP | EPOLLERR)) &&
                                                        ReportsFailureAsWritable(id)))) {
          events[count++] = {EventKind::kWritable, StatusCode::kOk, id};
        }
        break;
      case Kind::kWakeup:
        outcome.wakeup = true;
        break;
      case Kind::kSignal:
        outcome.signal = true;
        break;
      case Kind::kFree:
        break;  // closed earlier in this batch
    }
  }
  outcome.events = count;
  return outcome;
}

}  // namespace keel::io
