#include "io/uring_network.h"

#include <liburing.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "engine/base/assert.h"
#include "io/real_env.h"
#include "io/sockets.h"

namespace keel::io {
namespace {

// Submission queue entries: the loop queues at most one send and one receive re-arm per active
// connection per iteration; a full queue is submitted early (GetSqe), so this bounds only how
// many go in one system call.
constexpr unsigned kSubmissionEntries = 1024;
// Completion queue entries. A multishot receive may post several completions per iteration;
// should they overflow, the kernel keeps them (IORING_FEAT_NODROP) until the next enter.
constexpr unsigned kCompletionEntries = 8192;
// Provided receive buffers: 256 of 16 KiB (4 MiB, mapped once). 16 KiB is redis-server's read
// size (PROTO_IOBUF_LEN); a request at pipeline 1 fills a few dozen bytes of one. The count must
// be a power of two (the buffer ring's mask).
constexpr size_t kReceiveBufferBytes = 16 * 1024;
constexpr unsigned kReceiveBufferCount = 256;
static_assert((kReceiveBufferCount & (kReceiveBufferCount - 1)) == 0);
constexpr uint16_t kBufferGroup = 0;
// Received bytes that may wait for Read on one connection before its receive is cancelled (the
// engine reads up to 64 KiB per readable event, so one event takes them all). Bounds what one
// connection holds of the shared buffers: a client whose reads the engine paused holds at most
// this.
constexpr size_t kReceiveQueuedBytesMax = 64 * 1024;
// Reply bytes Write accepts per connection beyond what the kernel took: about what a socket
// buffer holds at most on Linux (net.ipv4.tcp_wmem's 4 MiB), so that a slow reader backs up into
// the engine's output buffer, where client-output-buffer-limit sees it, as with epoll.
constexpr size_t kSendPendingBytesMax = 4 * 1024 * 1024;
// Capacity a drained send buffer keeps for the next reply; more is given back.
constexpr size_t kSendBufferKeepBytes = 64 * 1024;
// How long a closed connection's last bytes (a QUIT's +OK, a refusal) may take to leave before
// they are dropped: the peer is not reading.
constexpr int64_t kCloseDrainSeconds = 5;
// Completions reaped per batch, and batches per Poll (a bound on the loop; what is left waits
// for the next Poll).
constexpr unsigned kReapBatch = 256;
constexpr unsigned kReapBatchesMax = 64;

// What an operation's user data says it was. The rest of the 64 bits name the descriptor and
// its generation, so that a completion finds its slot (which stays allocated, with that
// generation, until every operation on it has completed).
enum class Op : uint8_t {
  kIgnored = 0,    // cancellations and timer removals: their completions carry nothing
  kReceive,        // multishot receive into the provided buffers
  kSend,           // one send of a connection's buffered bytes
  kConnectPoll,    // an outgoing connection's handshake (POLLOUT)
  kAcceptPoll,     // multishot poll of a listener
  kCloseDeadline,  // a closed connection's time to send its last bytes
  kWakeup,         // multishot poll of the file-sync eventfd
  kSignal,         // multishot poll of the signalfd
};

uint64_t Tag(Op op, int fd, uint32_t generation) {
  KEEL_ASSERT(fd >= 0 && fd < (1 << 24));
  return (static_cast<uint64_t>(op) << 56) | (static_cast<uint64_t>(fd) << 32) | generation;
}
Op OpOf(uint64_t tag) { return static_cast<Op>(tag >> 56); }
int FdOfTag(uint64_t tag) { return static_cast<int>((tag >> 32) & 0xffffff); }
uint32_t GenerationOfTag(uint64_t tag) { return static_cast<uint32_t>(tag); }

uint64_t MakeId(int fd, uint32_t generation) {
  return (static_cast<uint64_t>(generation) << 32) | static_cast<uint32_t>(fd);
}
int FdOfId(uint64_t id) { return static_cast<int>(id & 0xffffffffu); }

class UringNetwork final : public PollingNetwork {
 public:
  UringNetwork() = default;
  ~UringNetwork() override;
  Status Init();

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
  DescriptorLimit RaiseDescriptorLimit(uint64_t wanted) override {
    return RaiseOpenFilesLimit(wanted);
  }

  PollOutcome Poll(int64_t timeout_us, Event* events, size_t capacity) override;
  void WatchWakeup(int fd) override;
  void WatchSignal(int fd) override;
  std::string_view name() const override { return "io_uring"; }

 private:
  enum class Kind : uint8_t { kFree = 0, kListener, kConnection };
  enum class ReceiveState : uint8_t { kIdle, kArmed, kCancelling };
  // Bytes of one provided buffer that wait for Read.
  struct Chunk {
    uint16_t buffer;
    uint32_t offset;
    uint32_t size;
  };
  struct Slot {
    Kind kind = Kind::kFree;
    uint32_t generation = 0;
    uint32_t ops_in_flight = 0;  // operations whose completion has not been reaped
    bool closing = false;        // Close was called; the descriptor closes once ops end
    bool in_ready_list = false;  // listed in ready_
    bool in_flush_list = false;  // listed in flush_
    bool accept_ready = false;   // a listener: connections may be waiting
    bool outgoing = false;       // made by Connect
    bool connecting = false;     // an outgoing handshake goes on
    int connect_error = 0;       // its failure (errno)
    std::string peer;            // an outgoing connection's "address:port"
    bool readable_interest = true;
    bool writable_interest = false;
    ReceiveState receive = ReceiveState::kIdle;
    bool starved = false;   // the receive ended for want of buffers (listed in starved_)
    bool eof = false;       // the peer closed its side: Read reports it after the bytes
    int receive_error = 0;  // the receive failed (ECONNRESET...): Read reports a reset
    // Received bytes wait in `parked` (from parked_head on), then in `chunks` (from chunk_head
    // on). While the engine has reading off, they are copied out of the shared buffers into
    // `parked` (at most kReceiveQueuedBytesMax), so that a client which does not read its
    // replies holds none of them.
    std::vector<char> parked;
    size_t parked_head = 0;
    std::vector<Chunk> chunks;
    size_t chunk_head = 0;
    size_t received_bytes = 0;  // total bytes waiting in both
    // Sending: `flight` is what the send in flight (or the next one) covers, from flight_sent
    // on; it never changes while a send is in flight, since the kernel reads it. Writes append
    // to `staging`, which follows `flight` once it has gone.
    std::vector<char> flight;
    size_t flight_sent = 0;
    bool send_in_flight = false;
    std::vector<char> staging;
    int send_error = 0;           // a send failed (EPIPE, ECONNRESET): Write reports a reset
    bool deadline_armed = false;  // kCloseDeadline in flight
    bool deadline_removing = false;
  };

  // The slot behind `id` if it is a current, open handle of `kind`, else nullptr.
  Slot* Resolve(uint64_t id, Kind kind);
  uint64_t Register(int fd, Kind kind);
  io_uring_sqe* GetSqe();
  void Cancel(uint64_t tag);
  void ArmPoll(int fd, Op op, uint32_t generation, unsigned mask, bool multishot);
  void MaybeArmReceive(Slot& slot, int fd);
  void StartSend(Slot& slot, int fd);
  void DropSendBuffers(Slot& slot);
  void ReturnBuffer(uint16_t buffer);
  void DropChunks(Slot& slot);
  void ParkChunks(Slot& slot);
  void MarkReady(Slot& slot, int fd);
  void MaybeFinishClose(Slot& slot, int fd);
  size_t PendingSendBytes(const Slot& slot) const {
    return slot.flight.size() - slot.flight_sent + slot.staging.size();
  }
  bool Readable(const Slot& slot) const;
  bool Writable(const Slot& slot) const;

  void FlushSends();
  void RearmStarved();
  void Reap();
  void Dispatch(uint64_t tag, int32_t result, uint32_t flags);
  void OnReceive(Slot& slot, int fd, int32_t result, uint32_t flags);
  void OnSend(Slot& slot, int fd, int32_t result);
  void OnConnect(Slot& slot, int fd, int32_t result);
  void OnAcceptPoll(Slot& slot, int fd, int32_t result, uint32_t flags);
  void OnCloseDeadline(Slot& slot, int fd, int32_t result);
  // Readiness of a listed handle, as bits; 0 once it is stale, closed or no longer ready.
  static constexpr unsigned kReadableBit = 1, kWritableBit = 2, kListenerBit = 4;
  unsigned ReadyEvents(uint64_t id) const;
  void Unlist(uint64_t id);
  // Drops what is no longer ready from ready_, so that Poll waits when nothing is.
  void PruneReady();
  size_t Collect(Event* events, size_t capacity);

  io_uring ring_{};
  bool ring_ready_ = false;
  io_uring_buf_ring* buffer_ring_ = nullptr;
  char* buffer_memory_ = nullptr;
  unsigned buffers_held_ = 0;  // provided buffers the kernel filled that wait in chunks
  std::vector<Slot> slots_;    // by descriptor number
  // Descriptors (with their generation, as handles) that may be ready, that have bytes to send,
  // or whose receive waits for buffers. Each slot is listed at most once in each.
  std::vector<uint64_t> ready_;
  std::vector<uint64_t> flush_;
  std::vector<uint64_t> starved_;
  int wakeup_fd_ = -1;
  int signal_fd_ = -1;
  bool wakeup_pending_ = false;
  bool signal_pending_ = false;
  // The timers' duration; the kernel reads it at submission, so it lives as long as the ring.
  __kernel_timespec close_drain_{kCloseDrainSeconds, 0};
};

UringNetwork::~UringNetwork() {
  if (ring_ready_) io_uring_queue_exit(&ring_);  // cancels what is in flight
  for (size_t fd = 0; fd < slots_.size(); fd++) {
    if (slots_[fd].kind != Kind::kFree) ::close(static_cast<int>(fd));
  }
  if (buffer_ring_ != nullptr) munmap(buffer_ring_, kReceiveBufferCount * sizeof(io_uring_buf));
  if (buffer_memory_ != nullptr) munmap(buffer_memory_, kReceiveBufferCount * kReceiveBufferBytes);
}

Status UringNetwork::Init() {
  // Single issuer (6.0) lets the kernel skip locking; deferred task work (6.1) runs completions
  // only when the loop enters the kernel to wait, so a busy loop is never interrupted for them.
  // Without single-issuer rings the kernel is too old for multishot receive as well: refuse.
  constexpr unsigned kFlagSets[] = {
      IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
      IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN};
  int rc = -EINVAL;
  for (unsigned flags : kFlagSets) {
    io_uring_params params{};
    params.flags = flags;
    params.cq_entries = kCompletionEntries;
    rc = io_uring_queue_init_params(kSubmissionEntries, &ring_, &params);
    if (rc != -EINVAL) break;
  }
  if (rc < 0) return ErrnoStatus(-rc, "io_uring_queue_init");
  ring_ready_ = true;
  // One descriptor lookup fewer per io_uring_enter; optional (Linux 5.18).
  (void)io_uring_register_ring_fd(&ring_);

  const size_t ring_bytes = kReceiveBufferCount * sizeof(io_uring_buf);
  void* ring_memory =
      mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ring_memory == MAP_FAILED) return ErrnoStatus(errno, "mmap");
  buffer_ring_ = static_cast<io_uring_buf_ring*>(ring_memory);
  void* buffers = mmap(nullptr, kReceiveBufferCount * kReceiveBufferBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buffers == MAP_FAILED) return ErrnoStatus(errno, "mmap");
  buffer_memory_ = static_cast<char*>(buffers);
  io_uring_buf_reg registration{};
  registration.ring_addr = reinterpret_cast<uint64_t>(ring_memory);
  registration.ring_entries = kReceiveBufferCount;
  registration.bgid = kBufferGroup;
  rc = io_uring_register_buf_ring(&ring_, &registration, 0);
  if (rc < 0) return ErrnoStatus(-rc, "io_uring_register_buf_ring");
  io_uring_buf_ring_init(buffer_ring_);
  const int mask = io_uring_buf_ring_mask(kReceiveBufferCount);
  for (unsigned i = 0; i < kReceiveBufferCount; i++) {
    io_uring_buf_ring_add(buffer_ring_, buffer_memory_ + i * kReceiveBufferBytes,
                          kReceiveBufferBytes, static_cast<uint16_t>(i), mask, static_cast<int>(i));
  }
  io_uring_buf_ring_advance(buffer_ring_, kReceiveBufferCount);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Slots and submissions.

UringNetwork::Slot* UringNetwork::Resolve(uint64_t id, Kind kind) {
  const int fd = FdOfId(id);
  if (fd < 0 || static_cast<size_t>(fd) >= slots_.size()) return nullptr;
  Slot& slot = slots_[static_cast<size_t>(fd)];
  if (slot.kind != kind || slot.closing) return nullptr;
  if (slot.generation != static_cast<uint32_t>(id >> 32)) return nullptr;
  return &slot;
}

uint64_t UringNetwork::Register(int fd, Kind kind) {
  KEEL_ASSERT(fd >= 0);
  if (static_cast<size_t>(fd) >= slots_.size()) slots_.resize(static_cast<size_t>(fd) + 1);
  Slot& slot = slots_[static_cast<size_t>(fd)];
  // The descriptor number is free, so the kernel closed it, so its slot had finished closing.
  KEEL_ASSERT(slot.kind == Kind::kFree);
  KEEL_ASSERT(slot.ops_in_flight == 0);
  const uint32_t generation = slot.generation + 1 == 0 ? 1 : slot.generation + 1;
  slot = Slot{};
  slot.kind = kind;
  slot.generation = generation;
  return MakeId(fd, generation);
}

io_uring_sqe* UringNetwork::GetSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    // The queue is full: hand it to the kernel now and take a fresh entry.
    (void)io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  KEEL_ASSERT(sqe != nullptr);
  return sqe;
}

void UringNetwork::Cancel(uint64_t tag) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_cancel64(sqe, tag, 0);
  io_uring_sqe_set_data64(sqe, Tag(Op::kIgnored, 0, 0));
}

void UringNetwork::ArmPoll(int fd, Op op, uint32_t generation, unsigned mask, bool multishot) {
  io_uring_sqe* sqe = GetSqe();
  if (multishot) {
    io_uring_prep_poll_multishot(sqe, fd, mask);
  } else {
    io_uring_prep_poll_add(sqe, fd, mask);
  }
  io_uring_sqe_set_data64(sqe, Tag(op, fd, generation));
}

void UringNetwork::MaybeArmReceive(Slot& slot, int fd) {
  if (slot.kind != Kind::kConnection || slot.closing || slot.connecting) return;
  if (slot.receive != ReceiveState::kIdle || slot.starved || !slot.readable_interest) return;
  if (slot.connect_error != 0 || slot.eof || slot.receive_error != 0) return;
  if (slot.received_bytes >= kReceiveQueuedBytesMax) return;
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, Tag(Op::kReceive, fd, slot.generation));
  slot.receive = ReceiveState::kArmed;
  slot.ops_in_flight++;
}

void UringNetwork::StartSend(Slot& slot, int fd) {
  KEEL_ASSERT(!slot.send_in_flight);
  if (slot.flight_sent == slot.flight.size()) {
    // The flight has gone: the staged bytes become the next one, and the emptied buffer takes
    // the writes that follow (keeping a modest capacity for them).
    slot.flight.clear();
    slot.flight_sent = 0;
    std::swap(slot.flight, slot.staging);
    if (slot.staging.capacity() > kSendBufferKeepBytes) std::vector<char>().swap(slot.staging);
  }
  if (slot.flight.empty()) return;
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_send(sqe, fd, slot.flight.data() + slot.flight_sent,
                     slot.flight.size() - slot.flight_sent, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, Tag(Op::kSend, fd, slot.generation));
  slot.send_in_flight = true;
  slot.ops_in_flight++;
}

void UringNetwork::DropSendBuffers(Slot& slot) {
  // Never the flight while the kernel may still read it.
  if (!slot.send_in_flight) {
    std::vector<char>().swap(slot.flight);
    slot.flight_sent = 0;
  }
  std::vector<char>().swap(slot.staging);
}

void UringNetwork::ReturnBuffer(uint16_t buffer) {
  KEEL_ASSERT(buffer < kReceiveBufferCount);
  KEEL_ASSERT(buffers_held_ > 0);
  io_uring_buf_ring_add(buffer_ring_, buffer_memory_ + buffer * kReceiveBufferBytes,
                        kReceiveBufferBytes, buffer, io_uring_buf_ring_mask(kReceiveBufferCount),
                        0);
  io_uring_buf_ring_advance(buffer_ring_, 1);
  buffers_held_--;
}

void UringNetwork::DropChunks(Slot& slot) {
  for (size_t i = slot.chunk_head; i < slot.chunks.size(); i++) ReturnBuffer(slot.chunks[i].buffer);
  slot.chunks.clear();
  slot.chunk_head = 0;
  std::vector<char>().swap(slot.parked);
  slot.parked_head = 0;
  slot.received_bytes = 0;
}

void UringNetwork::ParkChunks(Slot& slot) {
  for (size_t i = slot.chunk_head; i < slot.chunks.size(); i++) {
    const Chunk& chunk = slot.chunks[i];
    const char* bytes = buffer_memory_ + chunk.buffer * kReceiveBufferBytes + chunk.offset;
    slot.parked.insert(slot.parked.end(), bytes, bytes + chunk.size);
    ReturnBuffer(chunk.buffer);
  }
  slot.chunks.clear();
  slot.chunk_head = 0;
}

void UringNetwork::MarkReady(Slot& slot, int fd) {
  if (slot.in_ready_list) return;
  slot.in_ready_list = true;
  ready_.push_back(MakeId(fd, slot.generation));
}

void UringNetwork::MaybeFinishClose(Slot& slot, int fd) {
  if (!slot.closing) return;
  if (slot.ops_in_flight == 0) {
    ::close(fd);
    DropSendBuffers(slot);
    DropChunks(slot);
    slot.kind = Kind::kFree;
    return;
  }
  // Only the deadline is left (the last bytes went out): take it back, its completion ends it.
  const bool sending = slot.send_in_flight || PendingSendBytes(slot) > 0;
  if (slot.deadline_armed && !slot.deadline_removing && !sending && slot.ops_in_flight == 1) {
    io_uring_sqe* sqe = GetSqe();
    io_uring_prep_timeout_remove(sqe, Tag(Op::kCloseDeadline, fd, slot.generation), 0);
    io_uring_sqe_set_data64(sqe, Tag(Op::kIgnored, 0, 0));
    slot.deadline_removing = true;
  }
}

bool UringNetwork::Readable(const Slot& slot) const {
  if (!slot.readable_interest) return false;
  return slot.received_bytes > 0 || slot.eof || slot.receive_error != 0 || slot.send_error != 0 ||
         slot.connect_error != 0;
}

bool UringNetwork::Writable(const Slot& slot) const {
  if (!slot.writable_interest) return false;
  if (slot.connect_error != 0 || slot.send_error != 0) return true;
  return !slot.connecting && PendingSendBytes(slot) <= kSendPendingBytesMax / 2;
}

// ---------------------------------------------------------------------------------------------
// Listeners.

Result<ListenerId> UringNetwork::Listen(const ListenOptions& options) {
  Result<int> fd = OpenListener(options);
  if (!fd.ok()) return fd.status();
  const uint64_t id = Register(*fd, Kind::kListener);
  Slot& slot = slots_[static_cast<size_t>(*fd)];
  ArmPoll(*fd, Op::kAcceptPoll, slot.generation, POLLIN, true);
  slot.ops_in_flight++;
  return id;
}

uint16_t UringNetwork::ListenerPort(ListenerId listener) {
  return Resolve(listener, Kind::kListener) == nullptr ? 0 : BoundPort(FdOfId(listener));
}

void UringNetwork::CloseListener(ListenerId listener) {
  Slot* slot = Resolve(listener, Kind::kListener);
  if (slot == nullptr) return;
  const int fd = FdOfId(listener);
  slot->closing = true;
  // The poll in flight holds the socket open until its cancellation is reaped; shutting the
  // listener down frees the port now, as close(2) does with epoll (CONFIG SET port rebinds it).
  shutdown(fd, SHUT_RDWR);
  if (slot->ops_in_flight > 0) Cancel(Tag(Op::kAcceptPoll, fd, slot->generation));
  MaybeFinishClose(*slot, fd);
}

Result<ConnId> UringNetwork::Accept(ListenerId listener, ConnInfo* info) {
  Slot* slot = Resolve(listener, Kind::kListener);
  if (slot == nullptr) return Status(StatusCode::kNotFound, "no such listener");
  Result<int> fd = AcceptOne(FdOfId(listener), info);
  if (!fd.ok()) {
    // Nothing waits any more: the listener's poll reports the next arrival.
    if (fd.status().code() == StatusCode::kWouldBlock) slot->accept_ready = false;
    return fd.status();
  }
  const uint64_t id = Register(*fd, Kind::kConnection);  // may move slots_: `slot` is stale
  MaybeArmReceive(slots_[static_cast<size_t>(*fd)], *fd);
  return id;
}

// ---------------------------------------------------------------------------------------------
// Connections.

IoResult UringNetwork::Read(ConnId conn, char* buffer, size_t capacity) {
  Slot* slot = Resolve(conn, Kind::kConnection);
  if (slot == nullptr || slot->connect_error != 0) return {IoCode::kReset, 0};
  if (slot->connecting) return {IoCode::kWouldBlock, 0};
  size_t copied = std::min(capacity, slot->parked.size() - slot->parked_head);
  if (copied > 0) {
    std::memcpy(buffer, slot->parked.data() + slot->parked_head, copied);
    slot->parked_head += copied;
    if (slot->parked_head == slot->parked.size()) {
      std::vector<char>().swap(slot->parked);
      slot->parked_head = 0;
    }
  }
  while (copied < capacity && slot->chunk_head < slot->chunks.size()) {
    Chunk& chunk = slot->chunks[slot->chunk_head];
    const size_t take = std::min<size_t>(chunk.size, capacity - copied);
    std::memcpy(buffer + copied, buffer_memory_ + chunk.buffer * kReceiveBufferBytes + chunk.offset,
                take);
    copied += take;
    chunk.offset += static_cast<uint32_t>(take);
    chunk.size -= static_cast<uint32_t>(take);
    if (chunk.size == 0) {
      ReturnBuffer(chunk.buffer);
      slot->chunk_head++;
    }
  }
  if (slot->chunk_head == slot->chunks.size()) {
    slot->chunks.clear();
    slot->chunk_head = 0;
  }
  slot->received_bytes -= copied;
  if (copied > 0) {
    MaybeArmReceive(*slot, FdOfId(conn));  // below the limit again after a cancelled receive
    return {IoCode::kOk, copied};
  }
  // The bytes received before an EOF or a failure have been read: now report it, as read(2).
  if (slot->receive_error != 0 || slot->send_error != 0) return {IoCode::kReset, 0};
  if (slot->eof) return {IoCode::kClosed, 0};
  return {IoCode::kWouldBlock, 0};
}

IoResult UringNetwork::Write(ConnId conn, const ConstSlice* slices, size_t count) {
  Slot* slot = Resolve(conn, Kind::kConnection);
  if (slot == nullptr || slot->connect_error != 0 || slot->send_error != 0) {
    return {IoCode::kReset, 0};
  }
  if (slot->connecting) return {IoCode::kWouldBlock, 0};
  const size_t pending = PendingSendBytes(*slot);
  if (pending >= kSendPendingBytesMax) return {IoCode::kWouldBlock, 0};
  size_t room = kSendPendingBytesMax - pending;
  size_t taken = 0;
  for (size_t i = 0; i < count && room > 0; i++) {
    const size_t take = std::min(slices[i].size, room);
    slot->staging.insert(slot->staging.end(), slices[i].data, slices[i].data + take);
    taken += take;
    room -= take;
  }
  if (taken == 0) return {IoCode::kWouldBlock, 0};
  // The send goes at the next Poll, with every other byte written to this connection until then.
  if (!slot->send_in_flight && !slot->in_flush_list) {
    slot->in_flush_list = true;
    flush_.push_back(conn);
  }
  return {IoCode::kOk, taken};
}

void UringNetwork::SetInterest(ConnId conn, bool readable, bool writable) {
  Slot* slot = Resolve(conn, Kind::kConnection);
  if (slot == nullptr) return;
  slot->readable_interest = readable;
  slot->writable_interest = writable;
  const int fd = FdOfId(conn);
  if (!readable) {
    // Reading paused (the client does not take its replies): stop receiving, and give the
    // shared buffers back.
    ParkChunks(*slot);
    if (slot->receive == ReceiveState::kArmed) {
      Cancel(Tag(Op::kReceive, fd, slot->generation));
      slot->receive = ReceiveState::kCancelling;
    }
  } else {
    MaybeArmReceive(*slot, fd);
  }
  if (Readable(*slot) || Writable(*slot)) MarkReady(*slot, fd);
}

void UringNetwork::Close(ConnId conn) {
  Slot* slot = Resolve(conn, Kind::kConnection);
  if (slot == nullptr) return;
  const int fd = FdOfId(conn);
  slot->closing = true;
  DropChunks(*slot);
  if (slot->receive == ReceiveState::kArmed) {
    Cancel(Tag(Op::kReceive, fd, slot->generation));
    slot->receive = ReceiveState::kCancelling;
  }
  if (slot->connecting) Cancel(Tag(Op::kConnectPoll, fd, slot->generation));
  // Bytes Write took still go out, as close(2) would still send them, but within a deadline.
  if (slot->send_error == 0 && !slot->connecting && slot->connect_error == 0 &&
      (slot->send_in_flight || PendingSendBytes(*slot) > 0)) {
    io_uring_sqe* sqe = GetSqe();
    io_uring_prep_timeout(sqe, &close_drain_, 0, 0);
    io_uring_sqe_set_data64(sqe, Tag(Op::kCloseDeadline, fd, slot->generation));
    slot->deadline_armed = true;
    slot->ops_in_flight++;
  } else {
    DropSendBuffers(*slot);
  }
  MaybeFinishClose(*slot, fd);
}

Result<ConnId> UringNetwork::Connect(const ConnectOptions& options) {
  int error = 0;
  std::string peer;
  Result<int> fd = StartConnect(options, &error, &peer);
  if (!fd.ok()) return fd.status();
  const uint64_t id = Register(*fd, Kind::kConnection);
  Slot& slot = slots_[static_cast<size_t>(*fd)];
  slot.outgoing = true;
  slot.writable_interest = true;
  slot.peer = std::move(peer);
  slot.connect_error = error;
  if (error != 0) {
    // Refused or unreachable at once: reported like a failure found later.
    MarkReady(slot, *fd);
  } else {
    slot.connecting = true;
    ArmPoll(*fd, Op::kConnectPoll, slot.generation, POLLOUT, false);
    slot.ops_in_flight++;
  }
  return id;
}

Status UringNetwork::ConnectStatus(ConnId conn) {
  Slot* slot = Resolve(conn, Kind::kConnection);
  if (slot == nullptr) return Status(StatusCode::kNotFound, "no such connection");
  if (slot->connect_error != 0) {
    return Status(StatusCode::kReset,
                  "connect " + slot->peer + ": " + std::strerror(slot->connect_error));
  }
  if (slot->connecting) return Status(StatusCode::kWouldBlock);
  return Status::Ok();
}

void UringNetwork::WatchWakeup(int fd) {
  wakeup_fd_ = fd;
  ArmPoll(fd, Op::kWakeup, 0, POLLIN, true);
}

void UringNetwork::WatchSignal(int fd) {
  signal_fd_ = fd;
  ArmPoll(fd, Op::kSignal, 0, POLLIN, true);
}

// ---------------------------------------------------------------------------------------------
// The loop's side: submit, wait, reap, report.

PollingNetwork::PollOutcome UringNetwork::Poll(int64_t timeout_us, Event* events, size_t capacity) {
  KEEL_ASSERT(capacity > 0);
  FlushSends();
  RearmStarved();
  PruneReady();
  // One io_uring_enter: it submits what this iteration queued and, with deferred task work,
  // runs the completions that arrived. It waits only when nothing is known to be ready.
  const bool ready = !ready_.empty() || wakeup_pending_ || signal_pending_;
  if (ready || timeout_us == 0) {
    (void)io_uring_submit_and_get_events(&ring_);
  } else if (timeout_us < 0) {
    (void)io_uring_submit_and_wait(&ring_, 1);
  } else {
    __kernel_timespec timeout{timeout_us / 1000000, (timeout_us % 1000000) * 1000};
    io_uring_cqe* cqe = nullptr;
    (void)io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &timeout, nullptr);
  }
  Reap();
  PollOutcome outcome;
  outcome.events = Collect(events, capacity);
  outcome.wakeup = wakeup_pending_;
  outcome.signal = signal_pending_;
  wakeup_pending_ = false;
  signal_pending_ = false;
  return outcome;
}

void UringNetwork::FlushSends() {
  for (const uint64_t id : flush_) {
    const int fd = FdOfId(id);
    Slot& slot = slots_[static_cast<size_t>(fd)];
    // A connection closed since its Write is flushed too (its last bytes); one whose descriptor
    // was reused is not this one.
    if (slot.kind != Kind::kConnection || slot.generation != static_cast<uint32_t>(id >> 32)) {
      continue;
    }
    slot.in_flush_list = false;
    if (!slot.send_in_flight && slot.send_error == 0) StartSend(slot, fd);
  }
  flush_.clear();
}

void UringNetwork::RearmStarved() {
  size_t kept = 0;
  for (const uint64_t id : starved_) {
    const int fd = FdOfId(id);
    Slot& slot = slots_[static_cast<size_t>(fd)];
    if (slot.kind != Kind::kConnection || slot.generation != static_cast<uint32_t>(id >> 32)) {
      continue;
    }
    if (buffers_held_ >= kReceiveBufferCount) {
      starved_[kept++] = id;  // still none free: wait for Reads to return some
      continue;
    }
    slot.starved = false;
    MaybeArmReceive(slot, fd);
  }
  starved_.resize(kept);
}

void UringNetwork::Reap() {
  struct Completion {
    uint64_t tag;
    int32_t result;
    uint32_t flags;
  };
  for (unsigned batch = 0; batch < kReapBatchesMax; batch++) {
    io_uring_cqe* cqes[kReapBatch];
    const unsigned count = io_uring_peek_batch_cqe(&ring_, cqes, kReapBatch);
    if (count == 0) return;
    // Copied out and released before they are handled: handling queues new submissions, whose
    // inline completions must find room in the completion queue.
    Completion done[kReapBatch];
    for (unsigned i = 0; i < count; i++) {
      done[i] = {io_uring_cqe_get_data64(cqes[i]), cqes[i]->res, cqes[i]->flags};
    }
    io_uring_cq_advance(&ring_, count);
    for (unsigned i = 0; i < count; i++) Dispatch(done[i].tag, done[i].result, done[i].flags);
  }
}

void UringNetwork::Dispatch(uint64_t tag, int32_t result, uint32_t flags) {
  const Op op = OpOf(tag);
  switch (op) {
    case Op::kIgnored:
      return;
    case Op::kWakeup:
    case Op::kSignal: {
      const int fd = op == Op::kWakeup ? wakeup_fd_ : signal_fd_;
      if (result > 0) (op == Op::kWakeup ? wakeup_pending_ : signal_pending_) = true;
      // A multishot poll the kernel ended (it may, under memory pressure) is armed again; the
      // descriptor may have become readable meanwhile, so it counts as ready once.
      if (!(flags & IORING_CQE_F_MORE)) {
        (op == Op::kWakeup ? wakeup_pending_ : signal_pending_) = true;
        ArmPoll(fd, op, 0, POLLIN, true);
      }
      return;
    }
    default:
      break;
  }
  const int fd = FdOfTag(tag);
  KEEL_ASSERT(static_cast<size_t>(fd) < slots_.size());
  Slot& slot = slots_[static_cast<size_t>(fd)];
  // A slot stays allocated, with its generation, until its last operation completes.
  KEEL_ASSERT(slot.kind != Kind::kFree);
  KEEL_ASSERT(slot.generation == GenerationOfTag(tag));
  switch (op) {
    case Op::kReceive:
      OnReceive(slot, fd, result, flags);
      break;
    case Op::kSend:
      OnSend(slot, fd, result);
      break;
    case Op::kConnectPoll:
      OnConnect(slot, fd, result);
      break;
    case Op::kAcceptPoll:
      OnAcceptPoll(slot, fd, result, flags);
      break;
    case Op::kCloseDeadline:
      OnCloseDeadline(slot, fd, result);
      break;
    default:
      KEEL_ASSERT(false);
  }
}

void UringNetwork::OnReceive(Slot& slot, int fd, int32_t result, uint32_t flags) {
  if (flags & IORING_CQE_F_BUFFER) {
    const auto buffer = static_cast<uint16_t>(flags >> IORING_CQE_BUFFER_SHIFT);
    buffers_held_++;
    if (result > 0 && !slot.closing) {
      slot.chunks.push_back(Chunk{buffer, 0, static_cast<uint32_t>(result)});
      slot.received_bytes += static_cast<size_t>(result);
    } else {
      ReturnBuffer(buffer);
    }
  }
  if (result == 0) {
    slot.eof = true;
  } else if (result == -ENOBUFS) {
    // Every buffer waits in some connection: this one receives again once Reads return some.
    if (!slot.starved && !slot.closing) {
      slot.starved = true;
      starved_.push_back(MakeId(fd, slot.generation));
    }
  } else if (result < 0 && result != -ECANCELED) {
    slot.receive_error = -result;
  }
  if (!(flags & IORING_CQE_F_MORE)) {
    slot.receive = ReceiveState::kIdle;
    slot.ops_in_flight--;
  }
  if (slot.closing) {
    MaybeFinishClose(slot, fd);
    return;
  }
  if (!slot.readable_interest) ParkChunks(slot);  // what arrived before the cancellation
  if (slot.receive == ReceiveState::kArmed && slot.received_bytes >= kReceiveQueuedBytesMax) {
    Cancel(Tag(Op::kReceive, fd, slot.generation));
    slot.receive = ReceiveState::kCancelling;
  } else {
    MaybeArmReceive(slot, fd);  // a multishot receive the kernel ended by itself
  }
  if (Readable(slot)) MarkReady(slot, fd);
}

void UringNetwork::OnSend(Slot& slot, int fd, int32_t result) {
  KEEL_ASSERT(slot.send_in_flight);
  slot.send_in_flight = false;
  slot.ops_in_flight--;
  if (result > 0) {
    slot.flight_sent += static_cast<size_t>(result);
    KEEL_ASSERT(slot.flight_sent <= slot.flight.size());
  } else if (result < 0 && result != -EINTR && result != -EAGAIN) {
    // Cancelled at a closed connection's deadline, or failed (EPIPE, ECONNRESET): the rest can
    // never be delivered.
    if (result != -ECANCELED) slot.send_error = -result;
    slot.flight_sent = slot.flight.size();
    DropSendBuffers(slot);
  }
  // What is left of the flight first (a partial send), then whatever was staged meanwhile.
  if (slot.send_error == 0 && (slot.flight_sent < slot.flight.size() || !slot.staging.empty())) {
    StartSend(slot, fd);
  } else if (slot.flight_sent == slot.flight.size() && !slot.send_in_flight) {
    slot.flight.clear();
    slot.flight_sent = 0;
    if (slot.flight.capacity() > kSendBufferKeepBytes) std::vector<char>().swap(slot.flight);
  }
  if (slot.closing) {
    MaybeFinishClose(slot, fd);
    return;
  }
  if (Writable(slot) || Readable(slot)) MarkReady(slot, fd);
}

void UringNetwork::OnConnect(Slot& slot, int fd, int32_t result) {
  slot.ops_in_flight--;
  slot.connecting = false;
  if (slot.closing) {
    MaybeFinishClose(slot, fd);
    return;
  }
  int error = result < 0 ? -result : 0;
  if (error == 0) {
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
  }
  slot.connect_error = error;
  MaybeArmReceive(slot, fd);
  MarkReady(slot, fd);
}

void UringNetwork::OnAcceptPoll(Slot& slot, int fd, int32_t result, uint32_t flags) {
  const bool ended = !(flags & IORING_CQE_F_MORE);
  if (ended) slot.ops_in_flight--;
  if (slot.closing) {
    MaybeFinishClose(slot, fd);
    return;
  }
  if (result > 0 || ended) {
    // Connections wait (or may, when the kernel ended the poll by itself): Accept finds out.
    slot.accept_ready = true;
    MarkReady(slot, fd);
  }
  if (ended) {
    ArmPoll(fd, Op::kAcceptPoll, slot.generation, POLLIN, true);
    slot.ops_in_flight++;
  }
}

void UringNetwork::OnCloseDeadline(Slot& slot, int fd, int32_t result) {
  KEEL_ASSERT(slot.closing);
  slot.ops_in_flight--;
  slot.deadline_armed = false;
  if (result == -ETIME) {
    // The peer did not take the last bytes in time: drop them, and send nothing more (a send
    // that completes partially meanwhile is not resumed).
    slot.send_error = ETIMEDOUT;
    std::vector<char>().swap(slot.staging);
    if (slot.send_in_flight) Cancel(Tag(Op::kSend, fd, slot.generation));
  }
  MaybeFinishClose(slot, fd);
}

unsigned UringNetwork::ReadyEvents(uint64_t id) const {
  const Slot& slot = slots_[static_cast<size_t>(FdOfId(id))];
  if (slot.generation != static_cast<uint32_t>(id >> 32) || slot.closing) return 0;
  if (slot.kind == Kind::kListener) return slot.accept_ready ? kListenerBit : 0;
  if (slot.kind != Kind::kConnection) return 0;
  return (Readable(slot) ? kReadableBit : 0) | (Writable(slot) ? kWritableBit : 0);
}

void UringNetwork::Unlist(uint64_t id) {
  Slot& slot = slots_[static_cast<size_t>(FdOfId(id))];
  // An entry left from an earlier use of the descriptor must not unlist the current one.
  if (slot.generation == static_cast<uint32_t>(id >> 32)) slot.in_ready_list = false;
}

void UringNetwork::PruneReady() {
  size_t kept = 0;
  for (const uint64_t id : ready_) {
    if (ReadyEvents(id) != 0) {
      ready_[kept++] = id;
    } else {
      Unlist(id);
    }
  }
  ready_.resize(kept);
}

size_t UringNetwork::Collect(Event* events, size_t capacity) {
  size_t count = 0;
  size_t kept = 0;
  size_t i = 0;
  for (; i < ready_.size(); i++) {
    const uint64_t id = ready_[i];
    const unsigned ready = ReadyEvents(id);
    if (ready == 0) {
      Unlist(id);
      continue;
    }
    const size_t needed = static_cast<size_t>(std::popcount(ready));
    if (count + needed > capacity) break;  // this one and the rest wait for the next Poll
    if (ready & kListenerBit) events[count++] = {EventKind::kListenerReady, StatusCode::kOk, id};
    if (ready & kReadableBit) events[count++] = {EventKind::kReadable, StatusCode::kOk, id};
    if (ready & kWritableBit) events[count++] = {EventKind::kWritable, StatusCode::kOk, id};
    // Level-triggered: what was reported stays listed and is checked again at the next Poll.
    ready_[kept++] = id;
  }
  for (; i < ready_.size(); i++) ready_[kept++] = ready_[i];
  ready_.resize(kept);
  return count;
}

}  // namespace

Result<std::unique_ptr<PollingNetwork>> NewUringNetwork() {
  auto network = std::make_unique<UringNetwork>();
  if (Status status = network->Init(); !status.ok()) return status;
  return std::unique_ptr<PollingNetwork>(std::move(network));
}

}  // namespace keel::io
