// PollingNetwork: a Network that also waits for events, the part of Env::Wait that depends on
// how readiness is learned. RealEnv (io/real_env.cc) owns one and chooses which at start: epoll
// (io/epoll_network.h) or io_uring (io/uring_network.h), by the io-backend option.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/env/env.h"

namespace keel::io {

class PollingNetwork : public Network {
 public:
  struct PollOutcome {
    size_t events = 0;    // network events stored
    bool wakeup = false;  // the descriptor given to WatchWakeup became readable
    bool signal = false;  // the descriptor given to WatchSignal became readable
  };

  // Waits until a listener, a connection or a watched descriptor is ready or `timeout_us` has
  // passed (0: do not wait; negative: no limit), and stores at most `capacity` (> 0) network
  // events. Level-triggered, as Env::Wait promises: what is still ready is reported again.
  virtual PollOutcome Poll(int64_t timeout_us, Event* events, size_t capacity) = 0;

  // Watches a descriptor that is not a socket: the eventfd through which file syncs complete, and
  // the signalfd. Their readiness comes back in PollOutcome; reading them is the caller's.
  virtual void WatchWakeup(int fd) = 0;
  virtual void WatchSignal(int fd) = 0;

  // As INFO's multiplexing_api names it: "epoll" or "io_uring".
  virtual std::string_view name() const = 0;
};

}  // namespace keel::io
