// SimEnv: a deterministic Env. One seed fixes every choice it makes.
//
// Time moves only when the simulation says so (Wait advances the virtual clock to the engine's
// next deadline when nothing is ready). Randomness comes from the seed. Memory is counted and can
// be capped, so allocations near the cap are refused. The network is a set of in-memory byte
// streams whose reads and writes are split at chosen sizes; the test or the simulator plays the
// client side through SimNetwork's client API. Files live in memory.
//
// This is the foundation's simulator core; the simulator issue adds fault schedules (resets in
// the middle of a command, slow readers, late timers, clock jumps, torn writes) on top of it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/rng.h"
#include "engine/env/env.h"

namespace keel::sim {

class SimClock final : public Clock {
 public:
  int64_t MonotonicUs() override { return monotonic_us_; }
  int64_t WallUs() override { return wall_us_; }

  // Moves both clocks forward.
  void Advance(int64_t us) {
    monotonic_us_ += us;
    wall_us_ += us;
  }
  // Moves only the wall clock, in either direction (an NTP step, an operator).
  void JumpWall(int64_t us) { wall_us_ += us; }

 private:
  int64_t monotonic_us_ = 1'000'000;
  int64_t wall_us_ = 1'700'000'000'000'000;  // 2023-11-14, a fixed and recognisable epoch
};

class SimRandom final : public Random {
 public:
  explicit SimRandom(uint64_t seed) : rng_(seed) {}
  uint64_t NextU64() override { return rng_.Next(); }

 private:
  Rng rng_;
};

// Counts live blocks and bytes; refuses allocations that would pass `limit_bytes` (0: no limit).
class SimMemory final : public MemoryResource {
 public:
  void* Allocate(size_t bytes) override;
  void Deallocate(void* pointer, size_t bytes) override;
  size_t ResidentBytes() override { return used_bytes_; }

  void set_limit_bytes(size_t limit) { limit_bytes_ = limit; }
  size_t used_bytes() const { return used_bytes_; }
  size_t live_blocks() const { return live_blocks_; }
  uint64_t refused_count() const { return refused_count_; }

 private:
  size_t limit_bytes_ = 0;
  size_t used_bytes_ = 0;
  size_t live_blocks_ = 0;
  uint64_t refused_count_ = 0;
};

// The client side of a simulated connection, as a test or the simulator sees it.
using SimClientId = uint64_t;

class SimNetwork final : public Network {
 public:
  explicit SimNetwork(Rng& rng) : rng_(rng) {}

  // Network (the server side).
  Result<ListenerId> Listen(const ListenOptions& options) override;
  uint16_t ListenerPort(ListenerId listener) override;
  void CloseListener(ListenerId listener) override;
  Result<ConnId> Accept(ListenerId listener, ConnInfo* info) override;
  IoResult Read(ConnId conn, char* buffer, size_t capacity) override;
  IoResult Write(ConnId conn, const ConstSlice* slices, size_t count) override;
  void SetInterest(ConnId conn, bool readable, bool writable) override;
  void Close(ConnId conn) override;

  // The client side. Connect queues a connection on the listener bound to `port`; it is accepted
  // when the server next waits. Returns 0 if nothing listens there.
  SimClientId Connect(uint16_t port, bool loopback = true);
  void Send(SimClientId client, std::string_view bytes);
  // Everything the server has written to the client and the client has not taken yet.
  std::string Receive(SimClientId client);
  // The client closes its side (the server reads EOF after the buffered bytes).
  void CloseClient(SimClientId client);
  // The connection fails (the server's next read or write reports a reset).
  void Reset(SimClientId client);
  // Whether the server closed this client's connection.
  bool ClosedByServer(SimClientId client) const;

  // How reads and writes are split. A read returns at most a random size in [1, read_bytes_max];
  // a write takes at most a random size in [1, write_bytes_max]. 0 means unlimited.
  void set_read_bytes_max(size_t bytes) { read_bytes_max_ = bytes; }
  void set_write_bytes_max(size_t bytes) { write_bytes_max_ = bytes; }
  // Bytes a client's receive queue may hold before the server's writes would block (a slow
  // reader). 0 means unlimited.
  void set_client_buffer_bytes_max(size_t bytes) { client_buffer_bytes_max_ = bytes; }

  // Appends the events that are ready now; returns how many were added.
  size_t CollectEvents(Event* events, size_t capacity);
  size_t open_connections() const;

 private:
  struct Connection {
    ConnId id = 0;
    uint16_t port = 0;
    bool loopback = true;
    bool accepted = false;
    bool server_closed = false;
    bool client_closed = false;  // EOF after `to_server` drains
    bool reset = false;
    bool readable_interest = true;
    bool writable_interest = false;
    std::string to_server;
    std::string to_client;
  };
  struct Listener {
    ListenerId id = 0;
    uint16_t port = 0;
    std::string address;
    std::deque<ConnId> backlog;
  };
  Connection* FindConnection(ConnId conn);
  const Connection* FindConnection(ConnId conn) const;
  size_t Chunk(size_t available, size_t limit);

  Rng& rng_;
  std::map<ListenerId, Listener> listeners_;
  std::map<ConnId, Connection> connections_;  // ordered: events come out in a stable order
  uint64_t next_id_ = 1;
  uint16_t next_ephemeral_port_ = 40000;
  size_t read_bytes_max_ = 0;
  size_t write_bytes_max_ = 0;
  size_t client_buffer_bytes_max_ = 0;
};

// Files in memory. Durable content is what was synced; the crash semantics (unsynced bytes lost,
// torn last write) are applied by the simulator issue on top of `synced_size`.
class SimFiles final : public FileSystem {
 public:
  Result<FileId> Open(std::string_view path, OpenMode mode) override;
  Result<size_t> ReadAt(FileId file, uint64_t offset, char* buffer, size_t capacity) override;
  Status Append(FileId file, const ConstSlice* slices, size_t count) override;
  Status Truncate(FileId file, uint64_t size) override;
  Result<uint64_t> Size(FileId file) override;
  Status SyncAsync(FileId file, uint64_t token) override;
  Status Close(FileId file) override;
  Status Rename(std::string_view from, std::string_view to) override;
  Status Remove(std::string_view path) override;
  Result<std::vector<std::string>> ListDirectory(std::string_view directory) override;

  size_t CollectEvents(Event* events, size_t capacity);
  // The content of a file by path, for tests.
  const std::string* Content(std::string_view path) const;

 private:
  struct File {
    std::string content;
    size_t synced_size = 0;
  };
  struct Handle {
    std::string path;
    bool append = false;
  };
  std::map<std::string, File, std::less<>> files_;
  std::map<FileId, Handle> handles_;
  std::deque<std::pair<uint64_t, StatusCode>> completions_;
  FileId next_id_ = 1;
};

class SimLog final : public Log {
 public:
  void Write(LogLevel level, std::string_view line) override;
  const std::vector<std::string>& lines() const { return lines_; }
  void set_echo(bool echo) { echo_ = echo; }

 private:
  std::vector<std::string> lines_;
  bool echo_ = false;
};

class SimEnv final : public Env {
 public:
  explicit SimEnv(uint64_t seed);

  Clock& clock() override { return clock_; }
  Random& random() override { return random_; }
  MemoryResource& memory() override { return memory_; }
  Network& network() override { return network_; }
  FileSystem& files() override { return files_; }
  Log& log() override { return log_; }
  ProcessInfo Process() override;

  // Returns the events ready now. When none is ready, advances the virtual clock by the timeout
  // (a negative timeout advances nothing) and returns 0: simulated time never blocks.
  size_t Wait(int64_t timeout_us, Event* events, size_t capacity) override;

  SimClock& sim_clock() { return clock_; }
  SimMemory& sim_memory() { return memory_; }
  SimNetwork& sim_network() { return network_; }
  SimFiles& sim_files() { return files_; }
  SimLog& sim_log() { return log_; }
  Rng& rng() { return rng_; }

  // The next Wait reports kShutdownRequested (as SIGTERM would).
  void RequestShutdown() { shutdown_pending_ = true; }

 private:
  Rng rng_;  // the simulation's own choices (splits, ports); the engine's entropy is `random_`
  SimClock clock_;
  SimRandom random_;
  SimMemory memory_;
  SimNetwork network_;
  SimFiles files_;
  SimLog log_;
  bool shutdown_pending_ = false;
};

}  // namespace keel::sim
