// The environment seam: the only way the engine reaches the world.
//
// Everything the engine needs from outside itself (time, entropy, memory, the network, files,
// waiting for something to happen, and a place to log) comes through an Env passed in at
// construction. io/ implements it over Linux (readiness polling, sockets, the kernel's clocks and
// entropy, files made durable on a helper thread); sim/ implements it deterministically from one
// seed. The engine never includes an OS header (engine/purity_check.sh, run by ctest, enforces
// it), so the same server loop runs in keel-server, in the simulator and inside fuzz harnesses.
//
// Conventions for every interface below, after LevelDB's Env:
// - Methods are called from the engine's single thread only, unless a comment says otherwise.
// - Non-blocking: no method sleeps except Env::Wait. Operations that cannot progress report
//   StatusCode::kWouldBlock (or IoCode::kWouldBlock) and the engine waits for an Event.
// - Handles (ListenerId, ConnId, FileId) are chosen by the environment, are never 0, and are not
//   reused while the engine may still name them (until Close returns).
// - Nothing here throws. Failures come back as Status / Result / IoResult.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace keel {

using ListenerId = uint64_t;
using ConnId = uint64_t;
using FileId = uint64_t;

// A read-only byte range handed to a gathering write. Does not own the bytes.
struct ConstSlice {
  const char* data;
  size_t size;
};

// ---------------------------------------------------------------------------------------------
// Time.
class Clock {
 public:
  virtual ~Clock() = default;

  // Microseconds on a clock that never goes backwards; its origin is arbitrary. Used for
  // durations, timeouts and the engine's timers. Never fails.
  virtual int64_t MonotonicUs() = 0;

  // Microseconds since the Unix epoch. May jump forwards or backwards (NTP, an operator, the
  // simulator). Used for expiry timestamps and TIME. Never fails.
  virtual int64_t WallUs() = 0;

  // The engine has just done `instructions` more units of pure computation (a script's Lua
  // instructions). Real time passes by itself, so the real clock ignores it; the simulator moves
  // its virtual time, so that a script that computes for long runs past busy-reply-threshold
  // there too.
  virtual void ChargeComputation(int64_t /*instructions*/) {}
};

// ---------------------------------------------------------------------------------------------
// Entropy. The engine draws seeds from here once and runs its own fast generators from them, so
// that a simulated run is fixed by the simulator's seed.
class Random {
 public:
  virtual ~Random() = default;
  // 64 random bits. Never fails. Real: the kernel's entropy source. Sim: the run's seeded
  // generator.
  virtual uint64_t NextU64() = 0;
};

// ---------------------------------------------------------------------------------------------
// Memory. Every keyspace and client-buffer allocation of the engine goes through here, counted by
// the engine's MemoryAccountant (which INFO's used_memory reports).
class MemoryResource {
 public:
  virtual ~MemoryResource() = default;

  // Returns `bytes` (> 0) of storage aligned for any scalar type, or nullptr when the environment
  // refuses (the simulator does so near its limit; the real environment when malloc fails). The
  // caller owns the block and must return it with Deallocate and the same `bytes`.
  virtual void* Allocate(size_t bytes) = 0;

  // Allocate, with every byte of the block zero. The real environment gets a large block as
  // fresh pages that the kernel zeroes on first touch (calloc), so a big table costs no up-front
  // memset: growing the keyspace's table does not stall the loop for milliseconds. The block is
  // returned with Deallocate like any other.
  virtual void* AllocateZeroed(size_t bytes) {
    void* pointer = Allocate(bytes);
    if (pointer != nullptr) std::memset(pointer, 0, bytes);
    return pointer;
  }

  // Returns a block obtained from Allocate(bytes) or AllocateZeroed(bytes). `pointer` must not be
  // null.
  virtual void Deallocate(void* pointer, size_t bytes) = 0;

  // Moves a block of `old_bytes` from Allocate into one of `new_bytes` (both > 0), keeping the
  // first min(old_bytes, new_bytes) bytes, and returns it; the old pointer is then invalid. On
  // refusal returns nullptr and the old block stays as it was. The real environment reallocs:
  // glibc moves a large (mmapped) block by remapping its pages, so growing a value's arena of
  // hundreds of megabytes costs microseconds rather than a copy of tens of milliseconds.
  virtual void* Reallocate(void* pointer, size_t old_bytes, size_t new_bytes) {
    void* grown = Allocate(new_bytes);
    if (grown == nullptr) return nullptr;
    std::memcpy(grown, pointer, old_bytes < new_bytes ? old_bytes : new_bytes);
    Deallocate(pointer, old_bytes);
    return grown;
  }

  // The process's resident set size as the OS counts it (INFO used_memory_rss). The simulator
  // reports the bytes it holds for the engine. May be slow (reads /proc): call it from cron, not
  // per command.
  virtual size_t ResidentBytes() = 0;

  // Hands memory the process holds but no longer uses back to the operating system (MEMORY
  // PURGE, and the cron when much of the resident memory is free). Nothing to do where the
  // environment keeps no such memory.
  virtual void ReleaseFreeMemory() {}
};

// ---------------------------------------------------------------------------------------------
// Network: byte streams with readiness, as non-blocking sockets give them.
enum class IoCode : uint8_t {
  kOk,          // `bytes` > 0 were transferred
  kWouldBlock,  // nothing could be transferred now; wait for readiness
  kClosed,      // Read only: the peer closed its side in order (EOF)
  kReset,       // the connection failed; the engine must Close it
};

struct [[nodiscard]] IoResult {
  IoCode code;
  size_t bytes;  // meaningful only when code == kOk
};

struct ListenOptions {
  std::string address;  // "127.0.0.1", "::1", "0.0.0.0", "*"
  uint16_t port = 0;    // 0 asks for any free port (tests); ListenerPort tells which
  int backlog = 511;    // Redis's tcp-backlog default
};

// What the engine learns about a connection when it accepts it (for CLIENT LIST and for protected
// mode).
struct ConnInfo {
  std::string peer_address;   // "127.0.0.1:52790"
  std::string local_address;  // "127.0.0.1:6379"
  bool peer_is_loopback = false;
  int64_t descriptor = -1;  // the OS's number for it (CLIENT LIST fd=); -1 when there is none
};

// Where an outgoing connection goes. The address is numeric ("127.0.0.1", "::1", "10.0.0.5"): a
// name lookup would block the loop, so resolving names is the caller's business.
struct ConnectOptions {
  std::string address;
  uint16_t port = 0;
};

// The process's descriptor limit, as Network::RaiseDescriptorLimit leaves it.
struct DescriptorLimit {
  bool known = true;    // false: the limit could not be read (`error` says why)
  uint64_t before = 0;  // the limit before the call
  uint64_t after = 0;   // the limit in force after it
  std::string error;    // why it could not be raised to what was asked ("Operation not permitted")
};

class Network {
 public:
  virtual ~Network() = default;

  // Every connection holds a descriptor. Raises the process's limit toward `wanted` where the
  // system allows (the value asked, then 16 less at a time, as Redis's adjustOpenFilesLimit) and
  // reports the limit before and after. An environment without such a limit (the simulator,
  // unless a test sets one) reports `wanted` for both.
  virtual DescriptorLimit RaiseDescriptorLimit(uint64_t wanted) {
    return DescriptorLimit{true, wanted, wanted, {}};
  }

  // Binds and listens. On success the listener reports EventKind::kListenerReady while
  // connections wait. Fails with kAddressInUse (port taken), kPermissionDenied or
  // kInvalidArgument (address not parseable).
  virtual Result<ListenerId> Listen(const ListenOptions& options) = 0;

  // The port a listener is bound to (useful when ListenOptions::port was 0).
  virtual uint16_t ListenerPort(ListenerId listener) = 0;

  // Stops listening; connections already accepted are not affected.
  virtual void CloseListener(ListenerId listener) = 0;

  // Accepts one pending connection, fills `info`, and returns its handle. Fails with kWouldBlock
  // when none is pending. The new connection reports kReadable when it has data or has failed.
  virtual Result<ConnId> Accept(ListenerId listener, ConnInfo* info) = 0;

  // Reads up to `capacity` bytes into `buffer` (which stays the caller's). May return fewer bytes
  // than available: the environment decides how a stream is split (the simulator splits at random).
  virtual IoResult Read(ConnId conn, char* buffer, size_t capacity) = 0;

  // Writes a prefix of the concatenated slices and returns how many bytes it took (possibly fewer
  // than offered). kWouldBlock when none could be written, kReset when the peer is gone. The bytes
  // are copied before the call returns.
  virtual IoResult Write(ConnId conn, const ConstSlice* slices, size_t count) = 0;

  // Chooses which readiness a connection reports. New connections report kReadable only. The
  // engine turns writing on only while a reply is left over after a short write (so a full write
  // costs no registration change) and turns reading off only to push back on a client that does
  // not read its replies.
  virtual void SetInterest(ConnId conn, bool readable, bool writable) = 0;

  // Closes the connection and frees the handle. Bytes already accepted by Write are still
  // delivered when the transport can (as close(2) does); nothing more is reported for `conn`.
  virtual void Close(ConnId conn) = 0;

  // Starts an outgoing connection (a replica reaching its primary) and returns its handle at once:
  // the handshake goes on without blocking, and until it ends Read and Write report kWouldBlock.
  // An outgoing connection starts with readable and writable interest on. When the handshake
  // succeeds the connection reports kWritable. When it fails (nothing listens: refused; the host is
  // unreachable) it reports kReadable, and kWritable while writable interest is on; its Read and
  // Write then return kReset, and ConnectStatus says why. Fails at once only with
  // kInvalidArgument (the address is not numeric, or of no family the machine has) or when no
  // socket can be made. The handle is closed with Close, like an accepted one.
  virtual Result<ConnId> Connect(const ConnectOptions& options) = 0;

  // How an outgoing connection's handshake stands: OK once it succeeded (and for an accepted
  // connection), kWouldBlock while it is in progress, kReset when it failed (the message names the
  // cause: "connect 127.0.0.1:7000: Connection refused"), kNotFound for an unknown handle. A
  // failure after the handshake (a reset) shows in Read and Write, not here.
  virtual Status ConnectStatus(ConnId conn) = 0;
};

// ---------------------------------------------------------------------------------------------
// Files. Writes are appends; durability comes from SyncAsync, whose completion arrives as an
// EventKind::kFileSynced event so that the loop never blocks on a disk flush (Redis's appendfsync
// and BGSAVE both depend on that). Reads are synchronous: they happen while loading at startup.
//
// What survives a crash (a power loss, a kernel panic; not merely the process dying) is only what
// was made durable:
// - a file's bytes, once a SyncAsync requested after they were appended has completed. Unsynced
//   bytes may be lost, kept, or torn: any 512-byte sector of them may be lost while a later one is
//   kept, and a file may come back with its new size but zeros where the data should be;
// - a directory entry (a file created, renamed into or out of a directory, removed from it, or a
//   directory created in it), once a SyncDirectoryAsync of that directory, requested after the
//   change, has completed. Until then a crash may undo it: a new file disappears, a renamed one
//   comes back under its old name, a removed one comes back. Syncing the file itself is not
//   enough. Redis 7.0.3 fixed exactly this (redis/redis#10737): before it, the RDB file, the AOF
//   manifest or the config file renamed into place could be lost in a power failure even though
//   its data had been fsynced. So a new
//   file is made durable by: write it, SyncAsync it, wait, Rename it into place,
//   SyncDirectoryAsync its directory, wait.
// The simulator (sim/sim_env.h, SimFiles::Crash) loses everything this allows it to lose.
enum class OpenMode : uint8_t {
  kRead,            // existing file, read only; kNotFound if absent
  kCreateTruncate,  // create or truncate, write only
  kAppend,          // create if absent, writes go to the end
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Opens `path`. Fails with kNotFound, kPermissionDenied, kNoSpace or kIoError.
  virtual Result<FileId> Open(std::string_view path, OpenMode mode) = 0;

  // Reads up to `capacity` bytes at `offset`; returns how many (0 at end of file).
  virtual Result<size_t> ReadAt(FileId file, uint64_t offset, char* buffer, size_t capacity) = 0;

  // Appends all the bytes (the environment retries short writes). Success means the bytes reached
  // the OS, not the disk. Fails with kNoSpace or kIoError; after a failure, how much of the data
  // was appended is unknown (the caller truncates back, as Redis does after a short AOF write).
  virtual Status Append(FileId file, const ConstSlice* slices, size_t count) = 0;

  // Cuts the file to `size` bytes.
  virtual Status Truncate(FileId file, uint64_t size) = 0;

  // Size of an open file in bytes.
  virtual Result<uint64_t> Size(FileId file) = 0;

  // Starts making everything appended so far durable. Returns at once; when the data is on disk
  // (or the sync failed) Env::Wait reports kFileSynced with `token` and the outcome. Several syncs
  // may be in flight; each completes exactly once, and the file must stay open until they have.
  virtual Status SyncAsync(FileId file, uint64_t token) = 0;

  // Closes the handle. Unsynced data may still be lost in a crash.
  virtual Status Close(FileId file) = 0;

  // Atomically replaces `to` with `from` (rename(2)); durable once the directory (both
  // directories, when they differ) has been synced with SyncDirectoryAsync.
  virtual Status Rename(std::string_view from, std::string_view to) = 0;
  // Removes a file (unlink(2)); durable once its directory has been synced.
  virtual Status Remove(std::string_view path) = 0;

  // Creates the directory `path` (mkdir(2), mode 0755). Fails with kAlreadyExists when something
  // exists at `path`, kNotFound when its parent does not exist, kPermissionDenied or kNoSpace. The
  // new directory is durable once its parent directory has been synced.
  virtual Status CreateDirectory(std::string_view path) = 0;

  // Starts making the entries of `directory` durable (fsync(2) of the directory): files created in
  // it, renamed into or out of it, removed from it, directories created in it, as they are when
  // the call is made. Returns at once; the outcome arrives as a kFileSynced event with `token`, as
  // for SyncAsync (a directory can be slow to sync: on ext4 it commits the journal). Fails at once
  // with kNotFound when the directory does not exist, kInvalidArgument when `directory` is not one.
  virtual Status SyncDirectoryAsync(std::string_view directory, uint64_t token) = 0;

  // Names (not paths) of the entries in `directory`, sorted so that results are deterministic.
  virtual Result<std::vector<std::string>> ListDirectory(std::string_view directory) = 0;
};

// ---------------------------------------------------------------------------------------------
// Logging: the server log that redis-server writes. The environment adds the prefix
// ("pid:M 30 Nov 2026 04:23:39.123 * ") and decides where it goes.
enum class LogLevel : uint8_t { kDebug, kVerbose, kNotice, kWarning };

class Log {
 public:
  virtual ~Log() = default;
  // `line` has no trailing newline. Must not fail visibly: a lost log line is not an engine error.
  virtual void Write(LogLevel level, std::string_view line) = 0;
};

// ---------------------------------------------------------------------------------------------
// Events: what Env::Wait reports.
enum class EventKind : uint8_t {
  kListenerReady,      // handle: ListenerId; at least one connection is waiting for Accept
  kReadable,           // handle: ConnId; Read will return data, EOF or a failure
  kWritable,           // handle: ConnId; only while writable interest is on
  kFileSynced,         // handle: the token of SyncAsync or SyncDirectoryAsync; status: its outcome
  kShutdownRequested,  // handle: the signal number, SIGTERM 15 or SIGINT 2 (the simulator: 15)
};

struct Event {
  EventKind kind;
  StatusCode status;  // kOk except for a failed kFileSynced
  uint64_t handle;
};

// ---------------------------------------------------------------------------------------------
// Facts about the process, for INFO server and INFO cpu.
struct ProcessInfo {
  int64_t pid = 0;
  std::string os;           // "Linux 6.1.0-18-amd64 x86_64"
  std::string executable;   // absolute path of the server binary
  int64_t cpu_user_us = 0;  // CPU time used so far, user and system
  int64_t cpu_system_us = 0;
  int64_t total_system_memory_bytes = 0;  // the machine's physical memory; 0 when unknown
  // How the environment reads the monotonic clock and waits for sockets, as INFO's server
  // section names them (monotonic_clock, multiplexing_api).
  std::string monotonic_clock;
  std::string multiplexing_api;
};

// ---------------------------------------------------------------------------------------------
// The environment: the parts above plus the one blocking call.
class Env {
 public:
  virtual ~Env() = default;

  virtual Clock& clock() = 0;
  virtual Random& random() = 0;
  virtual MemoryResource& memory() = 0;
  virtual Network& network() = 0;
  virtual FileSystem& files() = 0;
  virtual Log& log() = 0;

  // Facts about the process (may read /proc: call it from INFO or cron, not per command).
  virtual ProcessInfo Process() = 0;

  // Waits until at least one event is ready or `timeout_us` has passed (0: poll without waiting;
  // negative: no timeout), stores at most `capacity` events into `events` and returns how many.
  // With `capacity` 0 it reports nothing and returns once `timeout_us` has passed, leaving every
  // event pending: the whole process stops for a while, as DEBUG SLEEP asks (the real
  // environment sleeps, the simulator moves its clock). A shutdown request (SIGTERM, SIGINT)
  // ends it early, as a signal interrupts Redis's nanosleep; the request stays pending for the
  // next Wait with room to report it.
  // Timers are the engine's: it passes the time until its next deadline. An environment may
  // return later than the deadline (the simulator does, to model late timers) or early with no
  // event; the engine re-reads the clock after every Wait. Level-triggered: a connection that
  // still has unread data is reported again by the next Wait.
  virtual size_t Wait(int64_t timeout_us, Event* events, size_t capacity) = 0;
};

}  // namespace keel
