// Replication, the primary's side: replicas, the replication stream and its backlog.
//
// A replica connects as a client and asks for the dataset with SYNC (the old protocol) or PSYNC
// <replid> <offset>. The primary answers a full resynchronisation with "+FULLRESYNC <replid>
// <offset>", the dataset as an RDB file ("$<len>\r\n<bytes>", or, when the replica announced
// "capa eof" and repl-diskless-sync is on, "$EOF:<40-byte mark>\r\n<bytes><mark>"), then the
// command stream from that offset on. A replica that had followed this primary (same replication
// id, or the previous one up to where it ended) and whose offset is still in the backlog gets
// "+CONTINUE <replid>" and the stream from its offset on.
//
// The stream is what the propagation sinks get (engine/db/propagation.h), encoded as RESP
// commands, with a SELECT before a command of another database than the previous one (and before
// the first command after every full resynchronisation, as Redis's slaveseldb = -1), PINGs every
// repl-ping-replica-period and "REPLCONF GETACK *" when WAIT needs acknowledgements. Every byte
// moves the replication offset (INFO master_repl_offset) and goes to the backlog, a ring of
// repl-backlog-size bytes, created with the first replica (with a new replication id, as Redis
// 7.0 does) and freed repl-backlog-ttl seconds after the last replica left.
//
// The dataset of a full resynchronisation is serialised inside the SYNC/PSYNC command, so that the
// file is the keyspace at the offset sent and the stream follows it in the replica's output
// without a gap. (Redis forks; streaming the fork-free snapshot (snapshot.h) to the replica
// while the loop goes on is the next step: see docs/REPLICATION.md.) The file's bytes do not count
// against client-output-buffer-limit replica, as the RDB transfer does not count in Redis; the
// stream after them does.
//
// Replicas acknowledge with "REPLCONF ACK <offset>" (once a second); WAIT and
// min-replicas-to-write count the replicas whose acknowledgements are recent or far enough.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/db/propagation.h"
#include "engine/env/env.h"
#include "engine/resp/request_parser.h"

namespace keel {

class Client;
class Engine;

// 40 random hex digits: the server's run id and its replication ids.
std::string MakeRunId(Random& random);

class Replication final : public PropagationSink {
 public:
  Replication(Engine& engine, std::string replid);
  ~Replication() override;
  Replication(const Replication&) = delete;
  Replication& operator=(const Replication&) = delete;

  // The replication id (INFO master_replid), the previous one (master_replid2, all zeros when
  // none) and where the previous one's history ended (second_repl_offset, -1 when none).
  const std::string& replid() const { return replid_; }
  const std::string& replid2() const { return replid2_; }
  int64_t second_replid_offset() const { return second_replid_offset_; }
  // The offset of the last byte of the stream (INFO master_repl_offset).
  int64_t offset() const { return offset_; }
  // A new replication id (DEBUG CHANGE-REPL-ID; the first replica); the previous one is
  // forgotten (Redis's changeReplicationId with clearReplicationId2).
  void ChangeReplicationId();

  // --- Commands ---------------------------------------------------------------------------
  // SYNC (`psync` false) or PSYNC <replid> <offset> from `client`: replies, makes the client a
  // replica and starts its stream. The arguments were checked for arity.
  void Sync(Client& client, std::span<const std::string_view> args, bool psync);
  // REPLCONF's options; replies (nothing for ACK and GETACK, as Redis).
  void Replconf(Client& client, std::span<const std::string_view> args);

  // --- WAIT and min-replicas-to-write -----------------------------------------------------
  // How many replicas acknowledged `offset` or later.
  int64_t CountAcknowledged(int64_t offset) const;
  // Sends "REPLCONF GETACK *" to the replicas, once, before the loop next waits.
  void RequestAcks() { acks_requested_ = true; }
  // WAIT's client `client_id` waits; ServeWaiters runs its WAIT again when acknowledgements
  // arrive.
  void AddWaiter(uint64_t client_id);
  // Runs the waiting WAITs again when acknowledgements arrived (after a top-level command).
  bool has_new_acks() const { return new_acks_ && !waiters_.empty(); }
  void ServeWaiters();
  // Whether writes are refused with NOREPLICAS: min-replicas-to-write and min-replicas-max-lag
  // are both set and fewer replicas than that have acknowledged within the lag.
  bool refuses_writes() const {
    // Inline: every write asks this on the request path, and the rule is rarely set.
    if (settings_.min_replicas_to_write == 0 || settings_.min_replicas_max_lag_s == 0) return false;
    return GoodReplicas() < settings_.min_replicas_to_write;
  }
  // The replicas counted good for min-replicas-to-write (INFO min_slaves_good_slaves).
  int64_t GoodReplicas() const;

  // --- The loop ---------------------------------------------------------------------------
  // From the engine's cron: PINGs to replicas, timeouts, the backlog's TTL, acknowledgement
  // requests.
  void Cron();
  // Before the loop sleeps: the acknowledgement request WAIT asked for.
  void BeforeSleep();
  // `client` is going: it is no replica any more.
  void ForgetClient(const Client& client);

  // Reads the settings it acts on from the configuration (at start and after CONFIG SET).
  void RefreshSettings();

  // --- Introspection ----------------------------------------------------------------------
  size_t replica_count() const;
  // INFO replication's fields for a primary, in Redis's order, from connected_slaves to
  // repl_backlog_histlen.
  std::vector<std::pair<std::string, std::string>> InfoFields() const;
  // ROLE's reply for a primary.
  void ReplyRole(Client& client) const;
  // The output bytes of `client` that count against client-output-buffer-limit replica (the
  // RDB file's bytes do not).
  size_t CountedOutputBytes(const Client& client) const;
  // INFO stats: full resynchronisations, partial ones accepted and refused.
  uint64_t sync_full() const { return sync_full_; }
  uint64_t sync_partial_ok() const { return sync_partial_ok_; }
  uint64_t sync_partial_err() const { return sync_partial_err_; }
  bool backlog_active() const { return backlog_capacity_ > 0; }
  size_t backlog_bytes() const { return backlog_.size(); }

  // --- The replica's side -----------------------------------------------------------------
  // REPLICAOF host port: follows that primary from now on. The link connects from the next cron
  // tick: PING, AUTH (masterauth, masteruser), REPLCONF listening-port and capa eof psync2, then
  // PSYNC with the history it has (+CONTINUE) or "? -1"; a full sync loads the RDB file the
  // primary sends (either form) in place of the dataset, then the stream is applied through
  // Engine::Replay with kCallFromPrimary, and acknowledged (REPLCONF ACK) every second and on
  // GETACK. A cut link reconnects and asks to continue. `host` must be numeric ("localhost" is
  // read as 127.0.0.1).
  void ReplicaOf(std::string_view host, int64_t port);
  // REPLICAOF NO ONE: stops following and starts a new history that continues the primary's
  // (the old id becomes master_replid2, so its replicas can continue with PSYNC).
  void StopReplicating();
  // Follows the primary named by the replicaof parameter, if any (at start).
  void StartFromConfig();
  bool is_replica() const { return !primary_host_.empty(); }
  // replica-read-only and replica-serve-stale-data.
  bool read_only() const { return settings_.read_only; }
  bool serve_stale_data() const { return settings_.serve_stale_data; }
  bool link_up() const { return link_state_ == LinkState::kConnected; }
  const std::string& primary_host() const { return primary_host_; }
  int64_t primary_port() const { return primary_port_; }
  // An event of a connection the Server does not know: the link's, if it is (true).
  bool OnLinkEvent(ConnId conn, EventKind kind);
  // "REPLCONF GETACK" from the primary: acknowledges now.
  void SendAck();

  // PropagationSink: one command of the stream.
  void Propagate(int db, std::span<const std::string_view> args) override;

 private:
  enum class LinkState : uint8_t {
    kNone,        // not a replica
    kConnect,     // to connect at the next cron tick
    kConnecting,  // the TCP handshake runs
    kHandshake,   // PING ... PSYNC sent, replies awaited (handshake_step_)
    kTransfer,    // reading the RDB file
    kConnected,   // applying the stream
  };
  void Connect();
  void CloseLink(std::string_view why);
  // Sends what `link_out_` holds (what the socket takes now).
  void FlushLink();
  void SendCommand(std::initializer_list<std::string_view> args);
  // Reads what the link has and acts on it.
  void ReadLink();
  // The handshake's next reply line is in link_in_ (returns false while incomplete).
  bool TakeLine(std::string* line);
  void HandshakeStep();
  void TransferStep();
  void ApplyStream();
  void FinishFullSync();

  struct ReplicaState {
    int64_t listening_port = 0;
    std::string announced_ip;
    bool capa_eof = false;
    bool capa_psync2 = false;
    bool functions_only = false;  // REPLCONF rdb-filter-only functions (redis-cli --functions-rdb)
    bool online = false;          // past SYNC/PSYNC: receives the stream
    bool pre_psync = false;       // came with SYNC: no GETACK for it
    uint64_t file_end = 0;        // output position where the RDB file ends
    int64_t ack_offset = 0;       // REPLCONF ACK
    int64_t ack_time_ms = 0;      // wall time of the last ACK (or of the sync)
  };
  ReplicaState& StateOf(const Client& client);
  void CreateBacklog();
  void FreeBacklog();
  // Adds bytes to the stream: the offset, the backlog and every replica's output.
  void Feed(std::string_view bytes);
  void AppendToBacklog(std::string_view bytes);
  // The backlog's bytes from stream offset `from` (1-based, as Redis counts) to the end.
  std::string BacklogFrom(int64_t from) const;
  // Whether PSYNC <replid> <offset> can continue from the backlog.
  bool CanContinue(std::string_view replid, int64_t psync_offset) const;
  void WriteTo(Client& client, std::string_view bytes);
  std::string ReplicaIp(const Client& client, const ReplicaState& state) const;
  bool replica_online(const Client& client) const;

  struct Settings {
    int64_t backlog_size_bytes = 1 << 20;
    int64_t backlog_ttl_s = 3600;
    int64_t ping_period_s = 10;
    int64_t timeout_s = 60;
    int64_t min_replicas_to_write = 0;
    int64_t min_replicas_max_lag_s = 10;
    bool diskless_sync = true;
    bool read_only = true;
    bool serve_stale_data = true;
  };
  Settings settings_;

  Engine& engine_;
  std::string replid_;
  std::string replid2_ = std::string(40, '0');
  int64_t second_replid_offset_ = -1;
  int64_t offset_ = 0;
  // The backlog ring: `backlog_` grows to `backlog_capacity_` bytes, then `backlog_head_` is
  // where the oldest byte is (and the next one goes).
  std::string backlog_;
  size_t backlog_capacity_ = 0;
  size_t backlog_head_ = 0;
  int64_t backlog_first_offset_ = 0;  // the stream offset of the oldest byte (0: none)
  int selected_db_ = -1;              // the stream's database; -1: SELECT before the next command
  // By client id: every client that sent REPLCONF or became a replica.
  std::map<uint64_t, ReplicaState> replicas_;
  std::vector<uint64_t> waiters_;  // WAIT clients
  bool new_acks_ = false;
  bool acks_requested_ = false;
  int64_t no_replicas_since_ms_ = 0;  // wall time the last replica left (backlog TTL)
  int64_t last_ping_ms_ = 0;
  // The replica's side.
  std::string primary_host_;
  int64_t primary_port_ = 0;
  LinkState link_state_ = LinkState::kNone;
  ConnId link_ = 0;
  int handshake_step_ = 0;
  std::string link_in_;   // bytes read from the primary, not yet used
  std::string link_out_;  // bytes for the primary, not yet written
  int64_t link_last_io_ms_ = 0;
  int64_t link_down_since_ms_ = 0;
  int64_t link_connect_started_ms_ = 0;
  // The transfer: the file's length ($len form; -1 for the EOF form with `eof_mark_`).
  int64_t transfer_length_ = 0;
  bool transfer_header_read_ = false;
  std::string eof_mark_;
  std::string transfer_replid_;
  int64_t transfer_offset_ = 0;
  // Whether this replica has a history to continue (PSYNC replid_ offset_+1).
  bool has_history_ = false;
  bool applying_primary_ = false;
  Client* primary_client_ = nullptr;
  // A transaction from the primary runs at its EXEC, whole (its commands, copied).
  bool primary_in_multi_ = false;
  std::vector<std::vector<std::string>> primary_queued_;
  RequestParser link_parser_;
  int64_t last_ack_ms_ = 0;
  uint64_t sync_full_ = 0;
  uint64_t sync_partial_ok_ = 0;
  uint64_t sync_partial_err_ = 0;
};

}  // namespace keel
