// Server: the event loop that serves clients over the Env's network.
//
// One iteration (RunOnce) is: wait for events (until the next cron tick at most), read every
// readable connection once, run every complete command in what was read, then write each client's
// replies with one gathering write, and run cron when due. The same code runs in keel-server
// (io/) and in the simulator (sim/): everything about connections and commands is here, and the
// environment only moves bytes and reports readiness.
//
// The request path avoids per-command costs: reads land in one shared buffer and commands run on
// views into it (only a partial command at the end is copied to the client), replies accumulate
// in pooled chunks, and a connection's interest set changes only when a write is short.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/status.h"
#include "engine/env/env.h"
#include "engine/server/engine.h"

namespace keel {

class Server final : public ListenerControl, public EventPump {
 public:
  explicit Server(Engine& engine);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Listens on every address of `bind` at `port` (an address with a leading '-' is skipped if
  // unavailable; port 0 means no TCP listener, as in Redis). Fails with the first listener error
  // and logs Redis's messages.
  Status Start();

  // ListenerControl: CONFIG SET port/bind.
  Status Rebind(const ConfigValues& next) override;
  // EventPump: a few rounds of what is ready now, from inside a long command.
  void ProcessEventsWhileBlocked(const Client& busy_client) override;

  // One loop iteration; returns false once shutdown was requested and everything is closed.
  bool RunOnce();
  // Iterates until shutdown.
  void Run();

  // Ports actually bound (for tests that listen on an ephemeral port in the simulator).
  std::vector<uint16_t> listening_ports() const;
  size_t connection_count() const { return clients_by_conn_.size(); }

 private:
  struct BoundListener {
    ListenerId id;
    std::string address;  // as configured, without the leading '-'
    uint16_t port;
  };
  // Listens as `settings` say, reusing the listeners of `keep` that match an address and port
  // (moved out of it); on failure closes only what it opened and logs Redis's warning (and, at
  // startup, the "aborting" line).
  Status OpenListeners(const ConfigValues& settings, std::vector<BoundListener>* keep,
                       std::vector<BoundListener>* opened, bool at_startup);
  void Accept(ListenerId listener);
  void OnReadable(Client* client);
  void OnWritable(Client* client);
  // Runs the complete commands in data[0, size); returns the bytes consumed.
  size_t ProcessCommands(Client* client, char* data, size_t size);
  void ProcessPendingInput(Client* client);
  // CLIENT PAUSE holds the inline command `args`, parsed from data[0, rest_at) and unescaped in
  // place: the client's query buffer becomes that command re-encoded as multibulk followed by
  // data[rest_at, size). Sets input_replaced_ so that the caller leaves the buffer alone.
  void HoldInline(Client* client, std::span<const std::string_view> args, char* data,
                  size_t rest_at, size_t size);
  // Lets the postponed clients try their commands again once the pause has changed.
  void ResumePostponed();
  // Lets the clients whose wait ended (BLPOP served, timed out or unblocked) run the commands
  // they sent meanwhile.
  void ResumeUnblocked();
  // Queues the writes of clients that got replies outside their own commands (MONITOR lines).
  void WakeOutputs();
  void QueueWrite(Client* client);
  void FlushPendingWrites();
  void Flush(Client* client);
  // appendfsync always (Client::aof_stamps): the replies `client` got since its last stamp wait
  // for the AOF stream up to `aof_offset`; the output position before which its replies may be
  // written now; holding a client whose next replies wait for the AOF, and releasing the held
  // clients whose oldest wait is over. A reply never leaves before the AOF bytes of every write
  // made before it are durable, even when its client's socket turns writable in the iteration
  // that made it (Redis orders a client's write before its read with AE_BARRIER for this).
  void StampForAof(Client* client, uint64_t aof_offset);
  uint64_t AofWritableEnd(Client* client);
  void HoldForAof(Client* client);
  void ReleaseAofHeld();
  // Before exiting: the AOF's last bytes are written and synced (within a bound).
  void DrainAof();
  // One event of a wait, in the loop or while a busy script lets others in.
  void HandleEvent(const Event& event);
  // A kFileSynced event, for the AOF or a save.
  void FileSynced(const Event& event);
  void CheckOutputLimits(Client* client);
  void UpdateInterest(Client* client, bool readable, bool writable);
  void Close(Client* client, std::string_view reason);
  void FreeClosed();
  void ClientsCron();
  void Shutdown();
  int64_t WaitTimeoutUs();

  Engine& engine_;
  Network& network_;
  std::vector<BoundListener> listeners_;
  std::unordered_map<ConnId, Client*> clients_by_conn_;
  std::vector<Client*> pending_writes_;
  std::vector<Client*> pending_input_;
  std::vector<Client*> input_turn_;  // pending_input_ being served (kept for its capacity)
  std::vector<Client*> closed_;
  std::vector<Client*> postponed_;  // in the order their commands were held
  std::vector<Client*> aof_held_;   // kClientAofHeld
  bool input_replaced_ = false;     // the last ProcessCommands rebuilt the client's query buffer
  uint64_t resumed_pause_epoch_ = 0;
  std::vector<Event> events_;
  std::unique_ptr<char[]> read_buffer_;  // shared by all clients: reads land here first
  // What ProcessEventsWhileBlocked uses instead, since the running command's arguments and the
  // rest of its client's read still live in the outer ones.
  std::vector<Event> nested_events_;
  std::unique_ptr<char[]> nested_read_buffer_;
  const Client* busy_client_ = nullptr;
  int64_t next_cron_us_ = 0;
  uint64_t cron_cursor_client_id_ = 0;
  bool stopped_ = false;
};

}  // namespace keel
