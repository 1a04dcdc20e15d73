// UringNetwork: Network over io_uring (Debian's liburing), behind the same readiness interface as
// EpollNetwork, so that the engine and the simulator do not change.
//
// Every connection has a multishot receive in flight that lands bytes in a shared ring of provided
// buffers; Read copies them out without a system call. Write copies the reply into the
// connection's send buffer; at the next Poll every connection's buffered bytes go out as one send
// each. Poll submits everything the loop queued and reaps completions in one io_uring_enter, then
// reports readiness from what the completions left: readable while received bytes (or EOF, or an
// error) wait, writable while the send buffer has room. Listeners and outgoing connects use poll
// operations and the same accept4 and connect as epoll (io/sockets.h).
//
// Limits: 64 KiB of received bytes wait per connection (past it the receive is cancelled until
// Read drains them), 4 MiB of accepted reply bytes per connection (past it Write takes fewer
// bytes or none, and writability returns once half has gone out), and a closed connection's last
// bytes get 5 seconds to leave.
#pragma once

#include <memory>

#include "io/polling_network.h"

namespace keel::io {

// Creates an io_uring and the network over it. Fails when the kernel refuses io_uring (ENOSYS on
// old kernels or under seccomp, EPERM when kernel.io_uring_disabled forbids it) or lacks what the
// backend needs (Linux 6.0: single-issuer rings, multishot receive, provided buffer rings); the
// message names the call and the reason.
Result<std::unique_ptr<PollingNetwork>> NewUringNetwork();

}  // namespace keel::io
