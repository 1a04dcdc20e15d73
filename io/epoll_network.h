// EpollNetwork: Network over non-blocking TCP sockets and one level-triggered epoll instance.
// Each Read and Write is a system call (read, sendmsg); Poll is one epoll_wait.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/env/env.h"
#include "io/polling_network.h"

namespace keel::io {

class EpollNetwork final : public PollingNetwork {
 public:
  // Tags in the epoll user data that tell which kind of descriptor an event is for.
  enum class Kind : uint8_t { kFree = 0, kListener, kConnection, kWakeup, kSignal };

  // Takes ownership of `epoll_fd`.
  explicit EpollNetwork(int epoll_fd) : epoll_fd_(epoll_fd) {}
  ~EpollNetwork() override;

  Result<ListenerId> Listen(const ListenOptions& options) override;
  uint16_t ListenerPort(ListenerId listener) override;
  void CloseListener(ListenerId listener) override;
  Result<ConnId> Accept(ListenerId listener, ConnInfo* info) override;
  IoResult Read(ConnId conn, char* buffer, size_t capacity) override;
  IoResult Write(ConnId conn, const ConstSlice* slices, size_t count) override;
  void SetInterest(ConnId conn, bool readable, bool writable) override;
  void Close(ConnId conn) override;
  Result<ConnId> Connect(const ConnectOptions& options) override;
  Status ConnectStatus(ConnId conn) override;
  DescriptorLimit RaiseDescriptorLimit(uint64_t wanted) override;

  PollOutcome Poll(int64_t timeout_us, Event* events, size_t capacity) override;
  void WatchWakeup(int fd) override;
  void WatchSignal(int fd) override;
  std::string_view name() const override { return "epoll"; }

 private:
  // Whether an event with EPOLLERR or EPOLLHUP for this connection must also be reported as
  // kWritable: an outgoing connection whose handshake failed, while writable interest is on (the
  // kernel reports a failed connect without EPOLLOUT).
  bool ReportsFailureAsWritable(uint64_t id) const;

  // Registers a descriptor that is not a socket (eventfd, signalfd) under `kind`.
  void Watch(int fd, Kind kind);

  // Decodes epoll user data into a handle: the descriptor's kind and its current id.
  static uint64_t MakeId(int fd, uint32_t generation) {
    return (static_cast<uint64_t>(generation) << 32) | static_cast<uint32_t>(fd);
  }
  static int FdOf(uint64_t id) { return static_cast<int>(id & 0xffffffffu); }
  Kind KindOf(uint64_t id) const;

  struct Slot {
    Kind kind = Kind::kFree;
    uint32_t generation = 0;
    bool outgoing = false;           // made by Connect
    bool writable_interest = false;  // as SetInterest last set it
    bool established = false;        // an outgoing connection's handshake is known to be done
    int error = 0;     // an outgoing connection's handshake failure (errno), once seen
    std::string peer;  // an outgoing connection's "address:port", for messages
  };
  // The descriptor behind `id` if the id is still current for a descriptor of `kind`, else -1.
  int Resolve(uint64_t id, Kind kind) const;
  uint64_t Register(int fd, Kind kind, uint32_t events);
  // Notes what a read or write on an outgoing connection tells about its handshake: bytes moved
  // (done) or an error seen before it was known to be done (the handshake failed with it).
  void NoteTransfer(int fd, bool moved, int error);
  bool HandshakeFailed(int fd) const;
  void Forget(int fd);

  int epoll_fd_;
  std::vector<Slot> slots_;  // by descriptor number
};

// Creates an epoll instance and the network over it. Fails only if epoll_create1 fails.
Result<std::unique_ptr<PollingNetwork>> NewEpollNetwork();

}  // namespace keel::io
