#include "io/sockets.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// Both ends of a client connection: replies go out at once (no Nagle delay on small replies),
// and a peer that vanished is found by keep-alive probes.
void SetConnectionOptions(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
}

}  // namespace

Result<int> OpenListener(const ListenOptions& options) {
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
  return fd;
}

uint16_t BoundPort(int listen_fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
}

Result<int> AcceptOne(int listen_fd, ConnInfo* info) {
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
  SetConnectionOptions(fd);
  sockaddr_storage local{};
  socklen_t local_length = sizeof(local);
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length);
  info->peer_address = FormatAddress(peer);
  info->local_address = FormatAddress(local);
  info->peer_is_loopback = IsLoopback(peer);
  info->descriptor = fd;
  return fd;
}

Result<int> StartConnect(const ConnectOptions& options, int* connect_error, std::string* peer) {
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
  SetConnectionOptions(fd);
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
  *connect_error = error;
  *peer = where;
  return fd;
}

DescriptorLimit RaiseOpenFilesLimit(uint64_t wanted) {
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
