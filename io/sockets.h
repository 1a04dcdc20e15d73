// Socket chores both network backends share (io/epoll_network.cc, io/uring_network.cc): making a
// listener, accepting one connection with its addresses, starting a non-blocking connect, and the
// descriptor limit. Each returns descriptors and errno-derived Statuses; none registers anything
// with a poller, which is the backends' own business.
#pragma once

#include <cstdint>
#include <string>

#include "engine/env/env.h"

namespace keel::io {

// A non-blocking listening socket bound as `options` asks. Fails with kInvalidArgument (address
// not numeric, no IPv6 here), kNotFound ("bind: Cannot assign requested address"), kAddressInUse
// or kPermissionDenied.
Result<int> OpenListener(const ListenOptions& options);

// The port `listen_fd` is bound to; 0 when it cannot be read.
uint16_t BoundPort(int listen_fd);

// Accepts one pending connection from `listen_fd` as a non-blocking socket with TCP_NODELAY and
// keep-alive on, and fills `info`. kWouldBlock when none is pending (or one was aborted before it
// was taken).
Result<int> AcceptOne(int listen_fd, ConnInfo* info);

// Starts a non-blocking connect to `options` and returns the socket. A failure the kernel reports
// at once (refused, unreachable) is not an error here: it comes back in `*connect_error` (errno,
// 0 while the handshake goes on), so that the caller reports it as an event like a later one.
// `*peer` is "address:port" for messages. Fails with kInvalidArgument (address not numeric or of
// no family the machine has) or when no socket can be made.
Result<int> StartConnect(const ConnectOptions& options, int* connect_error, std::string* peer);

// Network::RaiseDescriptorLimit over setrlimit(RLIMIT_NOFILE).
DescriptorLimit RaiseOpenFilesLimit(uint64_t wanted);

}  // namespace keel::io
