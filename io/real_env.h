// RealEnv: the Env over Linux. epoll (level-triggered) or io_uring for the network (io-backend),
// non-blocking TCP sockets, clock_gettime, getrandom, malloc, POSIX files with fsync on a helper
// thread that reports back through an eventfd, signalfd for SIGTERM/SIGINT, and a log in
// redis-server's line format.
//
// This is the only code in Keel that makes system calls. It holds no command or connection logic:
// it moves bytes and reports readiness, and errno becomes a Status in one place (ErrnoStatus).
#pragma once

#include <memory>
#include <string>

#include "engine/env/env.h"

namespace keel::io {

// How the network waits and moves bytes (the io-backend option).
enum class IoBackend : uint8_t {
  kEpoll,    // readiness from epoll_wait; a read(2) or sendmsg(2) per Read and Write
  kIoUring,  // completions from io_uring (io/uring_network.h): one system call per Wait
};

struct RealEnvOptions {
  std::string log_path;        // empty: standard output
  bool handle_signals = true;  // SIGTERM/SIGINT become kShutdownRequested
  IoBackend io_backend = IoBackend::kEpoll;
};

// Creates the real environment. Fails if the network backend (epoll, or io_uring where the kernel
// or a seccomp policy refuses it: the caller may then try epoll), eventfd or signalfd cannot be
// created.
Result<std::unique_ptr<Env>> NewRealEnv(const RealEnvOptions& options);

// errno as a Status: "bind 127.0.0.1:6379: Address already in use" with the matching code.
Status ErrnoStatus(int error_number, std::string_view context);

}  // namespace keel::io
