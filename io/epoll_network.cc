#include "io/epoll_network.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/base/assert.h"
#include "io/real_env.h"

namespace keel::io {
namespace {

std::string FormatAddress(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = {};
  uint16_t port = 0;
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
    port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
    port = ntohs(v6->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

bool IsLoopback(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr)) return true;
    // An IPv4 loopback client seen on a dual-stack socket (::ffff:127.x.x.x).
    return IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && v6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

// A numeric address and port as getaddrinfo resolves them, never by a name lookup (the loop must
// not block); `passive` for a listener. The caller frees `*found` with freeaddrinfo.
Status ResolveNumeric(const std::string& address, const std::string& port, bool passive,
                      addrinfo** found) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  const int gai = getaddrinfo(address.c_str(), port.c_str(), &hints, found);
  if (gai != 0) {
    return Status(StatusCode::kInvalidArgument,
                  "bad address '" + address + "': " + gai_strerror(gai));
  }
  return Status();
}

}  // namespace

EpollNetwork::~EpollNetwork() {
  for (size_t fd = 0; fd < slots_.size(); fd++) {
    if (slots_[fd].kind == Kind::kListener || slots_[fd].kind == Kind::kConnection) {
      ::close(static_cast<int>(fd));
    }
  }
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
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  if (Status status = ResolveNumeric(options.address, port, true, &found); !status.ok()) {
    return status;
  }
  const std::string where = options.address + ":" + port;
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    const int error = errno;
    freeaddrinfo(found);
    // No IPv6 on this machine: report it as an unavailable address, which "-::1" may skip.
    if (error == EAFNOSUPPORT) {
      return Status(StatusCode::kInvalidArgument, std::string("socket: ") + std::strerror(error));
    }
    return ErrnoStatus(error, "socket " + where);
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (found->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  if (bind(fd, found->ai_addr, found->ai_addrlen) != 0) {
    const int error = errno;
    freeaddrinfo(found);
    ::close(fd);
    // Redis's message: "bind: Cannot assign requested address".
    if (error == EADDRNOTAVAIL) {
      return Status(StatusCode::kNotFound, std::string("bind: ") + std::strerror(error));
    }
    return ErrnoStatus(error, "bind");
  }
  freeaddrinfo(found);
  if (listen(fd, options.backlog) != 0) {
    const int error = errno;
    ::close(fd);
    return ErrnoStatus(error, "listen");
  }
  return Register(fd, Kind::kListener, EPOLLIN);
}

uint16_t EpollNetwork::ListenerPort(ListenerId listener) {
  const int fd = Resolve(listener, Kind::kListener);
  if (fd < 0) return 0;
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
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
  sockaddr_storage peer{};
  socklen_t peer_length = sizeof(peer);
  const int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &peer_length,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == EAGAIN || error == EWOULDBLOCK || error == ECONNABORTED || error == EINTR) {
      return Status(StatusCode::kWouldBlock);
    }
    return ErrnoStatus(error, "accept");
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  sockaddr_storage local{};
  socklen_t local_length = sizeof(local);
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length);
  info->peer_address = FormatAddress(peer);
  info->local_address = FormatAddress(local);
  info->peer_is_loopback = IsLoopback(peer);
  info->descriptor = fd;
  return Register(fd, Kind::kConnection, EPOLLIN);
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
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  if (Status status = ResolveNumeric(options.address, port, false, &found); !status.ok()) {
    return status;
  }
  const std::string where = options.address + ":" + port;
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    const int error = errno;
    freeaddrinfo(found);
    if (error == EAFNOSUPPORT) return Status(StatusCode::kInvalidArgument, where + ": no IPv6");
    return ErrnoStatus(error, "socket " + where);
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  int error = 0;
  // A non-blocking connect returns EINPROGRESS and finishes in the kernel; EINTR means the same.
  if (::connect(fd, found->ai_addr, found->ai_addrlen) != 0 && errno != EINPROGRESS &&
      errno != EINTR) {
    error = errno;
  }
  freeaddrinfo(found);
  if (error == EAFNOSUPPORT || error == EINVAL) {
    ::close(fd);
    return ErrnoStatus(error, "connect " + where);
  }
  // Registered even when connect failed at once (unreachable, refused): a socket that is closed
  // reports EPOLLHUP, so the failure arrives as an event, the same way as one found later.
  const uint64_t id = Register(fd, Kind::kConnection, EPOLLIN | EPOLLOUT);
  Slot& slot = slots_[static_cast<size_t>(fd)];
  slot.outgoing = true;
  slot.writable_interest = true;
  slot.error = error;
  slot.peer = where;
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
  DescriptorLimit result;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == -1) {
    result.known = false;
    result.error = std::strerror(errno);
    return result;
  }
  result.before = limit.rlim_cur;
  result.after = limit.rlim_cur;
  if (result.before >= wanted) return result;
  // The limit asked, then 16 less at a time down to the current one, as Redis tries.
  uint64_t best = wanted;
  int error = 0;
  while (best > result.before) {
    limit.rlim_cur = best;
    limit.rlim_max = best;
    if (setrlimit(RLIMIT_NOFILE, &limit) != -1) {
      result.after = best;
      break;
    }
    error = errno;
    if (best < 16) break;
    best -= 16;
  }
  if (error != 0) result.error = std::strerror(error);
  return result;
}

}  // namespace keel::io
