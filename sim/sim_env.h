// SimEnv: a deterministic Env. One seed fixes every choice it makes.
//
// Time moves only when the simulation says so (Wait advances the virtual clock to the engine's
// next deadline when nothing is ready). Randomness comes from the seed. Memory is counted and can
// be capped, so allocations near the cap are refused. The network is a set of in-memory byte
// streams whose reads and writes are split at chosen sizes; the test or the simulator plays the
// client side through SimNetwork's client API. Files live in memory.
//
// The fault hooks (refusals near a memory limit, late timers, per-connection receive windows for
// slow readers, resets, crash semantics for files) are knobs: the simulator (sim/simulator/)
// decides from its seed when to turn them, and records what happened in a Trace.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/base/rng.h"
#include "engine/env/env.h"
#include "sim/trace.h"

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
  // Computation takes virtual time: a microsecond per kInstructionsPerUs instructions (about
  // what an interpreter does on one core), so that a busy script is busy in a simulation too.
  static constexpr int64_t kInstructionsPerUs = 100;
  void ChargeComputation(int64_t instructions) override {
    Advance(instructions / kInstructionsPerUs);
  }

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
// Near the limit it can also refuse at random: once used bytes plus the request pass
// `soft_limit_bytes`, each allocation is refused with probability per_million / 1,000,000, so
// that every allocation site of the engine meets a refusal sooner or later.
class SimMemory final : public MemoryResource {
 public:
  // Random refusals draw from `rng` (the environment's fault stream); standalone memories used by
  // unit tests draw from their own.
  SimMemory() : rng_(own_rng_) {}
  explicit SimMemory(Rng& rng) : rng_(rng) {}

  void* Allocate(size_t bytes) override;
  void Deallocate(void* pointer, size_t bytes) override;
  // Like glibc's arenas, the simulated process keeps what was freed until it is released: its
  // resident size is the most it used since the last ReleaseFreeMemory.
  size_t ResidentBytes() override { return resident_bytes_; }
  void ReleaseFreeMemory() override {
    resident_bytes_ = used_bytes_;
    releases_++;
  }
  uint64_t releases() const { return releases_; }

  void set_limit_bytes(size_t limit) { limit_bytes_ = limit; }
  void set_refusal(size_t soft_limit_bytes, uint32_t per_million) {
    soft_limit_bytes_ = soft_limit_bytes;
    refusal_per_million_ = per_million;
  }
  void set_trace(Trace* trace) { trace_ = trace; }
  // While suspended, the random refusals near the soft limit stop (the hard limit still holds):
  // the oracle suspends them during EXEC, whose commands' outcomes under a refusal it cannot
  // tell apart from outside.
  void set_random_refusals_suspended(bool suspended) { random_refusals_suspended_ = suspended; }
  size_t used_bytes() const { return used_bytes_; }
  size_t live_blocks() const { return live_blocks_; }
  uint64_t refused_count() const { return refused_count_; }

 private:
  bool Refuses(size_t bytes);

  Rng own_rng_{0};
  Rng& rng_;
  Trace* trace_ = nullptr;
  size_t limit_bytes_ = 0;
  size_t soft_limit_bytes_ = 0;
  uint32_t refusal_per_million_ = 0;
  bool random_refusals_suspended_ = false;
  size_t used_bytes_ = 0;
  size_t resident_bytes_ = 0;
  uint64_t releases_ = 0;
  size_t live_blocks_ = 0;
  uint64_t refused_count_ = 0;
};

// The client side of a simulated connection, as a test or the simulator sees it.
using SimClientId = uint64_t;

class SimNetwork;

// A simulated network between environments: each SimNetwork that joins it has an address, and an
// outgoing connection (Network::Connect) to that address reaches that network's listeners. A
// network must leave (SimNetwork's destructor does) before it is destroyed; connections to a
// network that left fail as reset.
class SimFabric {
 public:
  // Fails (false) when the address is taken.
  bool Attach(const std::string& address, SimNetwork* network);
  void Detach(SimNetwork* network);
  SimNetwork* Find(std::string_view address) const;

 private:
  std::map<std::string, SimNetwork*, std::less<>> hosts_;
};

class SimNetwork final : public Network {
 public:
  explicit SimNetwork(Rng& rng) : rng_(rng) {}
  ~SimNetwork() override;
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  // Network (the server side).
  Result<ListenerId> Listen(const ListenOptions& options) override;
  uint16_t ListenerPort(ListenerId listener) override;
  void CloseListener(ListenerId listener) override;
  Result<ConnId> Accept(ListenerId listener, ConnInfo* info) override;
  IoResult Read(ConnId conn, char* buffer, size_t capacity) override;
  IoResult Write(ConnId conn, const ConstSlice* slices, size_t count) override;
  void SetInterest(ConnId conn, bool readable, bool writable) override;
  void Close(ConnId conn) override;
  // An outgoing connection, to a listener of this network (a loopback address, or this network's
  // own address on its fabric) or of another network on the same fabric. The far end is played
  // by that network as if a simulated client had connected (Connect(port) below), so that the
  // far side's faults apply to it (Reset, CloseClient, SetClientBufferBytesMax on its id, and its
  // read and write splits); this side's reads and writes are split by this network's sizes. The
  // handshake ends at the next CollectEvents (the next Wait): the connection then reports
  // kWritable, or, when nothing listened at the port when Connect was called or the address has
  // no host, kReadable and kWritable, and ConnectStatus says "Connection refused" or "No route to
  // host". Reset(conn) on this side's handle resets both ends.
  Result<ConnId> Connect(const ConnectOptions& options) override;
  Status ConnectStatus(ConnId conn) override;
  // No limit unless a test sets one (set_descriptor_limit): then it cannot be raised, as for a
  // process whose hard limit is reached.
  DescriptorLimit RaiseDescriptorLimit(uint64_t wanted) override {
    if (descriptor_limit_ == 0 || descriptor_limit_ >= wanted) {
      return DescriptorLimit{true, wanted, wanted, {}};
    }
    return DescriptorLimit{true, descriptor_limit_, descriptor_limit_, "Operation not permitted"};
  }
  void set_descriptor_limit(uint64_t limit) { descriptor_limit_ = limit; }

  // Joins `fabric` under `address` (e.g. "10.0.0.1"). Fails when the address is taken.
  bool JoinFabric(SimFabric* fabric, const std::string& address);
  const std::string& address() const { return address_; }
  // The far end's id, in the network that holds it, of an outgoing connection (0 when it was
  // refused or `conn` is not one): the handle that network's client API takes.
  SimClientId PeerOf(ConnId conn) const;

  // The client side. Connect queues a connection on the listener bound to `port`; it is accepted
  // when the server next waits. Returns 0 if nothing listens there.
  SimClientId Connect(uint16_t port, bool loopback = true);
  void Send(SimClientId client, std::string_view bytes);
  // Everything the server has written to the client and the client has not taken yet.
  std::string Receive(SimClientId client) { return Receive(client, SIZE_MAX); }
  // At most `bytes_max` of it (a slow reader).
  std::string Receive(SimClientId client, size_t bytes_max);
  // The client closes its side (the server reads EOF after the buffered bytes).
  void CloseClient(SimClientId client);
  // The connection fails (the server's next read or write reports a reset).
  void Reset(SimClientId client);
  // Whether the server closed this client's connection.
  bool ClosedByServer(SimClientId client) const;
  // Whether the server accepted it.
  bool Accepted(SimClientId client) const;
  // Bytes sent by the client that the server has not read yet, and bytes written by the server
  // that the client has not taken yet.
  size_t PendingToServer(SimClientId client) const;
  size_t PendingToClient(SimClientId client) const;
  // Drops the record of a connection the server has closed (the client is done with it), so that
  // a long simulation does not accumulate dead connections.
  void Forget(SimClientId client);
  // This client's receive window (see set_client_buffer_bytes_max); 0 goes back to the default.
  void SetClientBufferBytesMax(SimClientId client, size_t bytes);

  // How reads and writes are split. A read returns at most a random size in [1, read_bytes_max];
  // a write takes at most a random size in [1, write_bytes_max]. 0 means unlimited.
  // An address this machine does not have: listening on it fails as bind(2) fails with
  // EADDRNOTAVAIL.
  void AddUnavailableAddress(std::string address) {
    unavailable_addresses_.push_back(std::move(address));
  }
  void set_read_bytes_max(size_t bytes) { read_bytes_max_ = bytes; }
  void set_write_bytes_max(size_t bytes) { write_bytes_max_ = bytes; }
  // Bytes a client's receive queue may hold before the server's writes would block (a slow
  // reader). 0 means unlimited.
  void set_client_buffer_bytes_max(size_t bytes) { client_buffer_bytes_max_ = bytes; }

  // Appends the events that are ready now; returns how many were added.
  size_t CollectEvents(Event* events, size_t capacity);
  size_t open_connections() const;
  void set_trace(Trace* trace) { trace_ = trace; }

 private:
  uint64_t descriptor_limit_ = 0;  // 0: none
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
    size_t buffer_bytes_max = 0;  // this connection's receive window; 0: the network's default
    std::string to_server;
    std::string to_client;
    // Stream offsets, for the trace: bytes sent, read, written and received so far.
    uint64_t sent = 0;
    uint64_t read = 0;
    uint64_t written = 0;
    uint64_t received = 0;
    // An outgoing connection (Network::Connect): its far end is `peer_id` in the network at
    // `peer_address` (empty: this network).
    bool outgoing = false;
    bool connecting = false;  // the handshake has not ended yet (until the next CollectEvents)
    std::string failure;      // why the handshake failed; empty when it succeeded
    std::string peer_address;
    SimClientId peer_id = 0;
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
  // The network that holds an outgoing connection's far end, and that end (nullptr when gone).
  SimNetwork* PeerNetwork(const Connection& connection) const;
  Connection* PeerEnd(const Connection& connection) const;
  IoResult ReadOutgoing(Connection& connection, char* buffer, size_t capacity);
  IoResult WriteOutgoing(Connection& connection, const ConstSlice* slices, size_t count);
  size_t CollectOutgoing(Connection& connection, Event* events, size_t capacity);
  size_t BufferLimit(const Connection& connection) const {
    return connection.buffer_bytes_max != 0 ? connection.buffer_bytes_max
                                            : client_buffer_bytes_max_;
  }

  Rng& rng_;
  Trace* trace_ = nullptr;
  SimFabric* fabric_ = nullptr;
  std::string address_;
  std::map<ListenerId, Listener> listeners_;
  std::map<ConnId, Connection> connections_;  // ordered: events come out in a stable order
  uint64_t next_id_ = 1;
  uint16_t next_ephemeral_port_ = 40000;
  std::vector<std::string> unavailable_addresses_;
  size_t read_bytes_max_ = 0;
  size_t write_bytes_max_ = 0;
  size_t client_buffer_bytes_max_ = 0;
};

// Files in memory with the crash model of engine/env/env.h: Crash() keeps what was made durable
// and, of everything else, only what a real disk might have kept, drawn from the environment's
// fault stream (so a run stays fixed by its seed).
//
// Each file is an inode with two versions: what reads see now, and what is durable (its content
// as of the last completed SyncAsync). The namespace also has two versions: the names now, and the
// names as the disk has them (as of each directory's last completed SyncDirectoryAsync, which
// takes the directory's entries as they were when it was requested). A crash:
// - puts the durable namespace back: files created and not yet in a synced directory vanish,
//   renames and removals not followed by a sync of the directory revert (a file renamed from one
//   directory to another and only one of them synced is found under both names or under neither:
//   the two entries are independent), directories created and not synced vanish with everything
//   in them;
// - keeps every durable byte of every file left, and of the bytes appended since (unsynced), a
//   length anywhere between none and all of them, within which each 512-byte sector (kSectorBytes)
//   is kept or reads as zeros: untouched (a clean prefix), torn (each sector independently), or a
//   zero-filled tail (the new size reached the disk, the last sectors did not). A truncation not
//   yet synced is either undone (the durable content comes back whole) or kept;
// - ends every pending sync (it never completes) and every handle.
// This follows FoundationDB's AsyncFileNonDurable (on a kill, each unsynced page is written,
// dropped or torn) and TigerBeetle's simulated storage (faults per sector, from the seed).
//
// Directories: a directory named in the path of a file (or directory) made in it exists from then
// on, as if made before the run and durable, so that tests and the engine need not create one;
// CreateDirectory makes one explicitly, and that one is subject to the crash model (it needs its
// parent synced). ListDirectory of a directory never named succeeds with no names (CONFIG SET dir
// relies on that); SyncDirectoryAsync of one fails with kNotFound.
//
// Other faults: a capacity past which appends fail with kNoSpace, and syncs (of files and
// directories) that fail at random.
class SimFiles final : public FileSystem {
 public:
  static constexpr size_t kSectorBytes = 512;

  explicit SimFiles(Rng& rng) : rng_(rng) {}

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
  Status CreateDirectory(std::string_view path) override;
  Status SyncDirectoryAsync(std::string_view directory, uint64_t token) override;

  size_t CollectEvents(Event* events, size_t capacity);
  // The content of a file by path, for tests (nullptr when nothing is named `path` now).
  const std::string* Content(std::string_view path) const;
  // Bytes of the file named `path` known to be durable (0 for a file that does not exist).
  size_t SyncedSize(std::string_view path) const;
  // Whether the disk has `path` naming the file it names now (its entry is durable).
  bool EntryDurable(std::string_view path) const;
  bool DirectoryExists(std::string_view path) const;

  // The machine stops (a power loss): see the class comment. Unsynced data and directory changes
  // are lost as the seed decides, pending syncs never complete, every handle is gone.
  void Crash();
  // Appends fail with kNoSpace once the files would hold more than `bytes` (0: no limit).
  void set_capacity_bytes(size_t bytes) { capacity_bytes_ = bytes; }
  // Bytes all files hold now (what a full disk's capacity is set from).
  size_t used_bytes() const { return TotalBytes(); }
  // Appends and syncs failed so far (kNoSpace, kIoError).
  uint64_t faults() const { return faults_; }
  // Each sync fails (kIoError, nothing made durable) with probability per_million / 1,000,000.
  void set_sync_failure_per_million(uint32_t per_million) {
    sync_failure_per_million_ = per_million;
  }
  // Whether a crash may lose sectors of an unsynced append on their own, leaving holes of zeros
  // before bytes it kept (true), or only a tail: a clean prefix, or zeros from some sector to the
  // end (false). The simulator's power losses use false: Redis's AOF format has no checksum, so
  // a zeroed sector inside a bulk payload whose line end survived parses as a value, and no
  // reader of the format could tell; a filesystem that orders data before size (ext4's
  // data=ordered) leaves no such holes.
  void set_sector_holes(bool holes) { sector_holes_ = holes; }

 private:
  using InodeId = uint64_t;
  struct Inode {
    std::string content;  // what reads see
    std::string durable;  // what a crash keeps for sure
    // content[0, stable) == durable[0, stable): the bytes no truncation has touched since the
    // last completed sync. Appends leave it; a truncation lowers it.
    size_t stable = 0;
  };
  using Names = std::map<std::string, InodeId, std::less<>>;
  struct PendingSync {
    uint64_t token;
    bool directory;
    InodeId inode;     // a file's sync
    size_t size;       // the bytes it covers, lowered by truncations while it is pending
    std::string path;  // a directory's sync: the directory
    Names entries;     // and its files as they were when requested
    std::set<std::string, std::less<>> subdirectories;  // and its directories
  };
  Inode* FindInode(std::string_view path);
  const Inode* FindInode(std::string_view path) const;
  Inode* HandleInode(FileId file);
  void TruncateInode(InodeId id, Inode& inode, size_t size);
  void CompleteSync(PendingSync& sync);
  // Records the directories `path` lies in that were never made as existing from the start.
  void NoteAncestors(std::string_view path);
  // Drops an inode nothing names (now or on disk) and no handle or pending sync refers to.
  void Collect(InodeId id);
  // A crash's effect on one file's bytes (see the class comment).
  void CrashData(Inode& inode);
  void KeepPrefixWithTears(Inode& inode, size_t synced);
  size_t TotalBytes() const;

  Rng& rng_;
  std::map<InodeId, Inode> inodes_;
  Names names_;                                     // the namespace now
  Names durable_names_;                             // the namespace on disk
  std::set<std::string, std::less<>> directories_;  // made by CreateDirectory, now
  std::set<std::string, std::less<>> durable_directories_;
  // Directories named in a path and never made: taken to exist (and be durable) from the start.
  std::set<std::string, std::less<>> implicit_directories_;
  std::map<FileId, InodeId> handles_;
  std::deque<PendingSync> pending_syncs_;
  FileId next_id_ = 1;
  InodeId next_inode_ = 1;
  size_t capacity_bytes_ = 0;
  uint32_t sync_failure_per_million_ = 0;
  bool sector_holes_ = true;
  uint64_t faults_ = 0;
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
  // (a negative timeout advances nothing), plus a random lateness up to timer_late_us_max, and
  // returns 0: simulated time never blocks.
  size_t Wait(int64_t timeout_us, Event* events, size_t capacity) override;

  // Timers fire up to this late (0: exactly on time).
  void set_timer_late_us_max(int64_t us) { timer_late_us_max_ = us; }
  // Records network, memory and clock events of this environment (nullptr: none).
  void set_trace(Trace* trace);

  SimClock& sim_clock() { return clock_; }
  SimMemory& sim_memory() { return memory_; }
  SimNetwork& sim_network() { return network_; }
  SimFiles& sim_files() { return files_; }
  SimLog& sim_log() { return log_; }
  Rng& rng() { return rng_; }
  Rng& fault_rng() { return fault_rng_; }

  // The next Wait reports kShutdownRequested (as SIGTERM would).
  void RequestShutdown() { shutdown_pending_ = true; }
  // SIGTERM arrives when the monotonic clock reaches `monotonic_us`: a sleep (Wait with no room)
  // ends there, and the next Wait with room reports it.
  void RequestShutdownAt(int64_t monotonic_us) { shutdown_at_us_ = monotonic_us; }

 private:
  Rng rng_;  // the simulation's own choices (splits, ports); the engine's entropy is `random_`
  // Fault decisions (refusals, lateness, sync failures) draw from their own stream, so that
  // turning a fault off does not move every later network split.
  Rng fault_rng_;
  SimClock clock_;
  SimRandom random_;
  SimMemory memory_;
  SimNetwork network_;
  SimFiles files_;
  SimLog log_;
  Trace* trace_ = nullptr;
  int64_t timer_late_us_max_ = 0;
  bool shutdown_pending_ = false;
  int64_t shutdown_at_us_ = -1;  // -1: no signal scheduled
};

}  // namespace keel::sim
