// Oracle: follows the engine command by command and predicts every reply with the reference
// model (sim/model/).
//
// The engine reports each command it executes, in execution order (Engine::CommandObserver). The
// oracle checks that the command is the next one its connection sent (so a command lost,
// duplicated, reordered or corrupted between client and engine shows here), runs the model at
// the same command time, and queues the predicted reply for that connection. Clients compare
// what they receive against that queue, in order.
//
// Connections cut by their client (reset or closed) keep their record: commands already read by
// the server may still execute and change the state, but nothing is expected about their
// replies. Keys that expired and that the engine reclaimed on its own (active expiry) leave the
// model before the next command of their database. When the environment refused memory during a
// command that allocates memory, the model's normal and out-of-memory outcomes are both legal: the
// oracle keeps the one whose changed keys match the engine's (in every database), accepts either
// reply when both match, and fails when neither does.
//
// Under an evicting maxmemory-policy the model cannot know which key goes: the oracle watches the
// engine's evictions (its "evicted" keyspace events) and checks each against the policy's promise
// (never under noeviction, never while used memory is within maxmemory, under a volatile-*
// policy only a key with a TTL), then removes the key from the model too. A command's OOM
// refusal is then predicted from the memory used after the evictions that ran before it.
//
// Keyspace events: every key whose contents a command changed (the model's view: live before,
// different or gone after) must have had a keyspace event from the engine's write path during the
// command (KeyEventFired), which is what notifications, and Redis's users of them, rely on.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/db/keyspace_observer.h"
#include "engine/server/engine.h"
#include "sim/model/model.h"
#include "sim/sim_env.h"
#include "sim/simulator/history.h"
#include "sim/simulator/scan_guarantee.h"
#include "sim/trace.h"

namespace keel::sim {

struct PendingReply {
  model::Expected expected;
  uint64_t number = 0;  // the command's number on its connection, from 1
  std::vector<std::string> args;
  int64_t now_ms = 0;
  int db = 0;
  uint64_t scan_iteration = 0;  // a page of this SCAN iteration (scan_guarantee.h), or 0
  // The propagation units that had ended when it ran (StateHistory::units()): a client that
  // receives the reply may count on every one of them (with appendfsync always, on disk).
  uint64_t units = 0;
};

// A reply received: when, and the units it let its client count on.
struct Acknowledgement {
  int64_t mono_us = 0;
  uint64_t units = 0;
};

// The oracle's record of one connection.
struct ConnectionRecord {
  SimClientId id = 0;
  model::Session session;
  std::deque<std::vector<std::string>> sent;  // handed to the network, not executed yet
  std::deque<PendingReply> replies;           // executed, reply not received yet
  uint64_t executed = 0;
  bool cut = false;     // reset or closed by the client: replies are no longer checked
  bool closed = false;  // the server closed it
  // Why the server closed it, as far as the simulator can tell.
  enum class CloseReason : uint8_t { kNone, kQuit, kFault } close_reason = CloseReason::kNone;

  // The next page of the SCAN iteration the client follows, to send when it next sends.
  std::vector<std::string> scan_next;
  uint64_t scan_next_iteration = 0;

  // The command the engine holds blocked (BLPOP on empty lists...), waiting for its reply.
  bool blocked = false;
  std::vector<std::string> blocked_args;
  uint64_t block_number = 0;  // the order it blocked in, among every connection's
  int64_t blocked_at_us = 0;  // monotonic time when it first blocked

  size_t in_flight() const { return sent.size() + replies.size() + (blocked ? 1 : 0); }
};

class Oracle final : public CommandObserver, public KeyspaceObserver {
 public:
  // Whoever drives the oracle registers it as a keyspace observer of the engine. With
  // `maxmemory_bytes` set the engine must announce evictions (notify-keyspace-events E and e);
  // when it announces every class (A), every change of a key must come with its event.
  Oracle(Engine& engine, SimEnv& env, Trace& trace, int64_t maxmemory_bytes,
         std::string_view maxmemory_policy);

  ConnectionRecord& Open(SimClientId id, uint64_t client_id);
  ConnectionRecord* Find(SimClientId id);
  std::map<SimClientId, ConnectionRecord>& records() { return records_; }
  void Forget(SimClientId id);
  // The client queued `args` on the connection (the bytes may still be on their way).
  void Sent(SimClientId id, std::vector<std::string> args);
  // The client received `actual` on the connection: checks it against the next prediction.
  void Received(SimClientId id, const RespValue& actual, std::string_view bytes);

  // CommandObserver.
  void BeforeCommand(const Client& client, std::span<const std::string_view> args) override;
  void AfterCommand(const Client& client) override;
  void CommandPostponed(const Client& client) override;
  void CommandBlocked(const Client& client) override;
  void BeforeRetry(const Client& client) override;
  void BlockEnded(const Client& client) override;

  // KeyspaceObserver: evictions.
  void BeforeKeyChange(const Database& db, std::string_view key, uint64_t hash) override;
  void KeyEventFired(int db_index, uint32_t type_class, std::string_view event,
                     std::string_view key) override;
  uint64_t evictions() const { return evictions_; }
  // Commands that blocked their client, and those of them another client's write served.
  uint64_t waits() const { return blocks_; }
  uint64_t waits_served() const { return waits_served_; }
  ScanGuarantee& scans() { return scans_; }

  // Units (StateHistory::units()) are counted from `history` from now on: each reply received
  // is then an Acknowledgement.
  void CountUnits(const StateHistory* history) { history_ = history; }
  // Every reply received that let its client count on more units than any before, in order.
  const std::vector<Acknowledgement>& acknowledgements() const { return acknowledgements_; }

  // The first divergence, or empty.
  const std::string& failure() const { return failure_; }
  void Fail(std::string message);
  model::Model& model() { return model_; }
  uint64_t commands() const { return commands_; }
  // The wall clock's highest reading so far (ms): keys that expired before it may be gone.
  int64_t wall_ms_max() const { return wall_ms_max_; }
  void ObserveWall(int64_t wall_ms) { wall_ms_max_ = std::max(wall_ms_max_, wall_ms); }

 private:
  // The command running now (between BeforeCommand and AfterCommand).
  struct Running {
    ConnectionRecord* record = nullptr;
    std::vector<std::string> args;
    model::Context context;
    uint64_t refused_before = 0;
    bool exec = false;   // an EXEC of a transaction: random memory refusals are suspended
    bool retry = false;  // a blocked command run again for a key that became ready
    // The keys the engine fired a keyspace event for while the command ran (database, key).
    std::set<std::pair<int, std::string>> event_keys;
  };
  // Every key the model says the command changed had a keyspace event (Redis notifies every
  // change of a key's contents: a write path that skips its event loses notifications).
  void CheckEventsCoverChanges();
  // Starts following `args`, the command `record`'s client runs now.
  void Begin(ConnectionRecord* record, std::vector<std::string> args);
  // A blocked command's wait ended unserved: no key it waits for may hold a list in the model
  // (that would be a lost wakeup).
  void CheckNothingToServe(const ConnectionRecord& record);
  // A waiter being served for `key` must be the first still waiting for it (first come first
  // served).
  void CheckServedInOrder(const ConnectionRecord& record, const std::string& key);
  // A wait that ended unserved must have lasted its timeout.
  void CheckWaitedItsTimeout(const ConnectionRecord& record);
  model::Expected RunModel(ConnectionRecord& record);
  // A key that expired at a moment the engine has seen (before wall_ms_max) may have been
  // reclaimed by the engine since, whenever it liked (active expiry); if the wall clock then
  // stepped back, the model would still see it alive. The model forgets such keys once the
  // engine no longer holds them, so that it follows the engine's choice.
  void ForgetReclaimed(int db_index);
  std::string ChangedKeysDiffer(const std::vector<model::KeyTable>& before);

  Engine& engine_;
  SimEnv& env_;
  Trace& trace_;
  int64_t maxmemory_bytes_;
  std::string maxmemory_policy_;
  size_t used_before_change_ = 0;  // used memory when the latest write began
  uint64_t evictions_ = 0;
  model::Model model_;
  ScanGuarantee scans_;
  std::map<SimClientId, ConnectionRecord> records_;
  Running running_;
  std::string failure_;
  uint64_t commands_ = 0;
  int64_t wall_ms_max_ = 0;
  uint64_t blocks_ = 0;
  uint64_t waits_served_ = 0;
  const StateHistory* history_ = nullptr;
  std::vector<Acknowledgement> acknowledgements_;
};

// Compares database `index` of the engine with the model: every engine key must be in the model
// with the same value, encoding and expiry, and every model key missing from the engine must have
// expired before `wall_ms_max` (an engine may reclaim expired keys whenever it likes). Returns the
// first difference, or empty.
std::string CompareKeyspace(Engine& engine, const model::Model& model, int index,
                            int64_t wall_ms_max);

// Compares, strictly, the keys of database `index` that differ between `before` and `after` (a
// command's effect in the model) with the engine: present with the same value, encoding and
// expiry, or absent. Returns the first difference, or empty.
std::string CompareChangedKeys(Engine& engine, const model::KeyTable& before,
                               const model::KeyTable& after, int index);

std::string DescribeArgs(std::span<const std::string> args);

}  // namespace keel::sim
