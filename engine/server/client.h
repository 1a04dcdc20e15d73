// Client: the state of one connection (or of an internal client without one, as the test fixture,
// the fuzz harnesses and later the AOF loader and Lua use).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "engine/base/limits.h"
#include "engine/env/env.h"
#include "engine/env/memory.h"
#include "engine/resp/output_buffer.h"
#include "engine/resp/reply_builder.h"
#include "engine/resp/request_parser.h"
#include "engine/server/blocked_call.h"
#include "engine/server/pubsub.h"
#include "engine/server/query_buffer.h"
#include "engine/server/transaction.h"

namespace keel {

struct CommandSpec;

enum ClientFlag : uint32_t {
  kClientCloseAfterReply = 1u << 0,  // QUIT, protocol error: close once replies are written
  kClientCloseAsap = 1u << 1,        // CLIENT KILL, limits: close without writing more
  kClientPendingWrite = 1u << 2,     // queued in the server's pending-write list
  kClientWriteInterest = 1u << 3,    // the environment reports kWritable for it
  kClientPendingInput = 1u << 4,     // queued to run commands left in its query buffer
  kClientReadPaused = 1u << 5,       // readable interest off (backpressure)
  kClientNoEvict = 1u << 6,
  kClientNoTouch = 1u << 7,  // CLIENT NO-TOUCH: its commands leave keys' LRU/LFU alone (not TOUCH)
  kClientMonitor = 1u << 8,  // MONITOR: receives every command; may not touch the keyspace
  // CLIENT REPLY: OFF drops every reply until ON; SKIP_NEXT (set by CLIENT REPLY SKIP) becomes
  // SKIP, which drops the replies of the one command after it.
  kClientReplyOff = 1u << 9,
  kClientReplySkipNext = 1u << 10,
  kClientReplySkip = 1u << 11,
  kClientPostponed = 1u << 12,     // a command waits for CLIENT PAUSE to end (CLIENT LIST 'b')
  kClientWakeupQueued = 1u << 13,  // in the engine's output wakeup list
  // MULTI ... EXEC (engine/server/transaction.h, watch.h): in a transaction (CLIENT LIST 'x');
  // a watched key changed (CLIENT LIST 'd'); a command was refused while queuing, so EXEC
  // answers EXECABORT.
  kClientMulti = 1u << 14,
  kClientDirtyCas = 1u << 15,
  kClientDirtyExec = 1u << 16,
  // Waits for a key (BLPOP and friends; `blocked` holds the command): CLIENT LIST 'b', INFO
  // blocked_clients. Its input waits until the command has been served, has timed out or was
  // unblocked.
  kClientBlocked = 1u << 17,
  // Subscribed to a channel or pattern (CLIENT LIST 'P'): in RESP2 it may only (un)subscribe,
  // PING, QUIT and RESET.
  kClientPubSub = 1u << 18,
  // Waits for a save to be durable (SAVE, DEBUG RELOAD, SHUTDOWN): its input waits likewise.
  kClientWaitingSave = 1u << 19,
  // appendfsync always: its replies wait until the AOF bytes they may depend on are durable.
  kClientAofHeld = 1u << 20,
  // CLIENT TRACKING (engine/server/tracking.h): tracking is on (CLIENT LIST 't'); its redirect
  // client went away (CLIENT LIST 'R'); broadcasting mode (CLIENT LIST 'B'); OPTIN, OPTOUT,
  // NOLOOP; CLIENT CACHING YES/NO was given for the next command (or transaction).
  kClientTracking = 1u << 21,
  kClientTrackingBrokenRedirect = 1u << 22,
  kClientTrackingBcast = 1u << 23,
  kClientTrackingOptin = 1u << 24,
  kClientTrackingOptout = 1u << 25,
  kClientTrackingCaching = 1u << 26,
  kClientTrackingNoloop = 1u << 27,
  // A replica, after its SYNC or PSYNC (CLIENT LIST 'S'): it receives the replication stream
  // (engine/server/replication.h), and replies to its own commands are dropped, as Redis drops
  // them, so that they cannot corrupt the stream.
  kClientReplica = 1u << 28,
  // The primary this server replicates from (CLIENT LIST 'M'): its commands apply the stream.
  kClientPrimary = 1u << 29,
};

class Client {
 public:
  Client(uint64_t id, ConnId conn, MemoryAccountant& memory, ReplyChunkPool& pool)
      : id_(id), conn_(conn), query_(memory), output_(pool), reply_(output_) {}
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  uint64_t id() const { return id_; }
  ConnId conn() const { return conn_; }
  bool has_connection() const { return conn_ != 0; }

  QueryBuffer& query() { return query_; }
  RequestParser& parser() { return parser_; }
  OutputBuffer& output() { return output_; }
  const OutputBuffer& output() const { return output_; }
  ReplyBuilder& reply() { return reply_; }
  const ReplyBuilder& reply() const { return reply_; }

  uint32_t flags = 0;
  int db_index = 0;
  bool authenticated = true;
  std::string name;
  std::string peer_address;   // "127.0.0.1:52790"; empty for internal clients
  std::string local_address;  // "127.0.0.1:6379"
  bool peer_is_loopback = true;
  int64_t descriptor = -1;
  int64_t created_ms = 0;           // wall time of creation (CLIENT LIST age)
  int64_t last_interaction_ms = 0;  // wall time of the last command (idle, timeout)
  // The bytes of the read whose commands are running, 0 between reads: Redis's query buffer
  // keeps a batch's commands until the batch ends, so CLIENT LIST's qbuf of the calling client
  // counts them (26 for a lone CLIENT LIST), and clients check it.
  size_t input_batch_bytes = 0;
  const CommandSpec* last_command = nullptr;
  uint64_t commands_processed = 0;
  // The replication offset just after this client's last write reached the stream (WAIT waits
  // for replicas to acknowledge it; Redis's c->woff).
  int64_t repl_write_offset = 0;
  // Wall time when the normal-class soft output limit was first exceeded; 0 while under it.
  int64_t soft_limit_since_ms = 0;
  // appendfsync always: which reply bytes wait for which AOF bytes. A stamp says that the output
  // up to `output_end` (OutputBuffer positions) may be written once the AOF stream is durable up
  // to `aof_offset`, its end when those replies were made; bytes after the newest stamp are not
  // written before the Server stamps them (Server::FlushPendingWrites). Oldest first.
  struct AofStamp {
    uint64_t aof_offset = 0;
    uint64_t output_end = 0;
  };
  std::array<AofStamp, limits::kAofStampsMax> aof_stamps{};
  size_t aof_stamp_count = 0;
  uint64_t aof_released_end = 0;  // output bytes before this position may be written
  // The commands queued since MULTI (created with the first one; null outside a transaction and
  // once the transaction is flagged, since a doomed transaction queues nothing).
  std::unique_ptr<Transaction> transaction;
  // The command it waits with while kClientBlocked; null otherwise.
  std::unique_ptr<BlockedCall> blocked;
  // Its channels and patterns (null until it first subscribes).
  std::unique_ptr<Subscriptions> subscriptions;
  // CLIENT TRACKING: the client its invalidations go to (0: itself), and its BCAST prefixes in
  // byte order (kept until tracking is turned off: ON again adds to them).
  uint64_t tracking_redirect = 0;
  std::set<std::string, std::less<>> tracking_prefixes;

 private:
  uint64_t id_;
  ConnId conn_;
  QueryBuffer query_;
  RequestParser parser_;
  OutputBuffer output_;
  ReplyBuilder reply_;
};

}  // namespace keel
