#include "sim/simulator/simulation.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/db/digest.h"
#include "engine/server/engine.h"
#include "engine/server/server.h"
#include "sim/simulator/invariants.h"
#include "sim/simulator/oracle.h"
#include "sim/simulator/pubsub_check.h"
#include "sim/simulator/replica.h"
#include "sim/simulator/tracking_check.h"
#include "sim/workload/workload.h"

namespace keel::sim {
namespace {

// A workload phase that has not issued its commands after this many steps per command is stuck
// (the slowest legitimate plans, one-byte sends to slow readers, need a few dozen).
constexpr uint64_t kStepsPerCommandMax = 500;
constexpr uint64_t kStepsBase = 10'000;
// Loop iterations the final shutdown may take to see every client go.
constexpr int kShutdownIterationsMax = 1000;

struct SimulatedClient {
  int index = 0;
  SimClientId conn = 0;  // 0: not connected
  std::string outgoing;  // encoded commands not handed to the network yet
  std::string incoming;  // received bytes not decoded yet
  bool slow = false;
  size_t window_bytes = 0;
  // Between a MULTI it sent and the EXEC or DISCARD that ends it (as far as the client can tell).
  bool in_multi = false;
  bool quit_sent = false;
};

// The client is back to no connection (keeping its place in the plan).
void ForgetConnection(SimulatedClient& client) {
  const int index = client.index;
  client = SimulatedClient();
  client.index = index;
}

// Arguments that an inline command can carry (no spaces, quotes or control bytes, not empty).
bool InlineSafe(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg.empty()) return false;
    for (char c : arg) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (!plain) return false;
    }
  }
  return true;
}

void Encode(const std::vector<std::string>& args, bool as_inline, std::string* out) {
  if (as_inline) {
    for (size_t i = 0; i < args.size(); i++) {
      if (i > 0) *out += ' ';
      *out += args[i];
    }
    *out += "\r\n";
    return;
  }
  *out += "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& arg : args) {
    *out += "$" + std::to_string(arg.size()) + "\r\n";
    *out += arg;
    *out += "\r\n";
  }
}

bool IsQuit(const std::vector<std::string>& args) {
  return args.size() == 1 && model::EqualsIgnoreCase(args[0], "quit");
}

// Inside a transaction SPOP is sent as SRANDMEMBER: the model learns SPOP's draw from the set the
// engine kept, which after EXEC reflects the transaction's later commands too.
void KeepTransactionDrawsKnown(SimulatedClient& client, std::vector<std::string>* args) {
  if (args->empty()) return;
  const std::string& name = (*args)[0];
  if (args->size() == 1 && model::EqualsIgnoreCase(name, "multi")) {
    client.in_multi = true;
  } else if (args->size() == 1 &&
             (model::EqualsIgnoreCase(name, "exec") || model::EqualsIgnoreCase(name, "discard"))) {
    client.in_multi = false;
  } else if (client.in_multi && model::EqualsIgnoreCase(name, "spop")) {
    (*args)[0] = "srandmember";
  }
}

class Simulation {
 public:
  Simulation(const RunPlan& plan, TraceSink* sink)
      : plan_(plan),
        env_(plan.seed),
        workload_rng_(plan.seed ^ 0x776f726b6c6f6164ull),
        client_rng_(plan.seed ^ 0x636c69656e747321ull),
        aof_rng_(plan.seed ^ 0x616f6672657772ull),
        disk_rng_(plan.seed ^ 0x6469736b66756c6cull),
        tracking_rng_(plan.seed ^ 0x747261636b696e67ull) {
    trace_.set_sink(sink);
    env_.set_trace(&trace_);
  }

  RunResult Run();

 private:
  bool faults(uint32_t fault) const { return faults_on_ && (plan_.faults & fault) != 0; }
  bool Chance(uint32_t per_million) { return workload::Chance(client_rng_, per_million); }
  bool failed() const { return !failure_.empty() || !oracle_->failure().empty(); }
  void Fail(std::string message) {
    if (failure_.empty() && oracle_->failure().empty()) failure_ = std::move(message);
  }

  void Start();
  void Step();
  void ClientStep(SimulatedClient& client);
  void Connect(SimulatedClient& client);
  void Generate(SimulatedClient& client, ConnectionRecord& record);
  void SendSome(SimulatedClient& client);
  void ReceiveSome(SimulatedClient& client);
  void Cut(SimulatedClient& client, bool reset);
  void FinishConnection(SimulatedClient& client);
  void MoveClock();
  void RunServer(int iterations);
  void NoticeCloses(uint64_t refused_before, uint64_t limit_closes_before);
  void Check();
  std::string Outstanding() const;
  void Drain();
  void Shutdown();
  void CheckAofLoads(const std::string& digest);
  bool CrashDue() const;
  // The units (StateHistory) a recovery must hold at least, from the replies received so far.
  uint64_t UnitsPromised() const;
  void CrashAndRecover();
  void CheckNoLeak();
  // Frees pubsub_'s clients, keeping its count of deliveries.
  void EndPubSub() {
    if (pubsub_ != nullptr) delivered_ = pubsub_->delivered();
    pubsub_.reset();
  }
  // The engine's clients that have no connection: the tracking client and pubsub_'s.
  size_t InternalClients() const {
    return (tracking_ != nullptr ? 1 : 0) + (pubsub_ != nullptr ? pubsub_->clients() : 0);
  }
  void MoveDisk();

  RunPlan plan_;
  Trace trace_;
  SimEnv env_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Oracle> oracle_;
  std::unique_ptr<Replica> replica_;
  // The client-side cache kept by CLIENT TRACKING (tracking_check.h); destroyed before the
  // engine.
  std::unique_ptr<TrackingCheck> tracking_;
  // Subscribers and a publisher whose every delivery is checked (pubsub_check.h); destroyed
  // before the engine.
  std::unique_ptr<PubSubCheck> pubsub_;
  StateHistory history_;  // with kFaultCrash: every state the keyspace went through
  // When the last two server loop iterations started (monotonic µs): a sync everysec requests
  // in one completes at the next one's wait.
  int64_t iteration_started_us_[2] = {0, 0};
  bool crashed_ = false;
  // The disk's failures (kFaultDisk): whether it is full now, and when the last append or sync
  // failed (monotonic µs; an everysec promise does not outlive a failure after it).
  bool disk_full_ = false;
  uint64_t disk_faults_seen_ = 0;
  int64_t last_disk_fault_us_ = INT64_MIN;
  Rng workload_rng_;  // which commands
  Rng client_rng_;    // what the clients do with them, and client-side faults
  Rng aof_rng_;       // when AOF rewrites start
  Rng disk_rng_;      // when the disk fills up and is freed
  Rng tracking_rng_;  // which keys the tracking client reads
  Config config_;     // the server's, for the engine that loads the AOF at the end
  std::vector<SimulatedClient> clients_;
  std::vector<std::string> args_;
  // Output-buffer-limit closes the engine counted that no closed connection has accounted for
  // yet: a limit found while waking outputs (a served waiter's reply) closes in the next loop
  // iteration (seed 629).
  uint64_t limit_closes_unmatched_ = 0;
  uint16_t port_ = 0;
  uint64_t next_client_id_ = 1;
  uint64_t delivered_ = 0;  // pub/sub messages pubsub_ checked, kept once it is gone
  int ops_issued_ = 0;
  uint64_t steps_ = 0;
  bool faults_on_ = true;
  std::string failure_;
  std::string phase_ = "workload";
};

void SetConfig(Config& config, std::string_view name, const std::string& value) {
  const ConfigParam* param = Config::Find(name);
  KEEL_ASSERT(param != nullptr);
  std::string error;
  const bool set = config.SetFromCommand(*param, value, &error);
  KEEL_ASSERT(set);
}

void Simulation::Start() {
  Config config;
  SetConfig(config, "hz", std::to_string(plan_.hz));
  if (plan_.maxmemory_bytes > 0) {
    SetConfig(config, "maxmemory", std::to_string(plan_.maxmemory_bytes));
    SetConfig(config, "maxmemory-policy", plan_.maxmemory_policy);
  }
  // Every class of keyspace event, published on the keyevent channels: the oracle learns of
  // evictions from their events, and requires an event for every change of a key (no workload
  // subscribes to them; the pub/sub check's patterns match none).
  SetConfig(config, "notify-keyspace-events", "EA");
  if (plan_.output_hard_bytes > 0) {
    SetConfig(config, "client-output-buffer-limit",
              "normal " + std::to_string(plan_.output_hard_bytes) + " 0 0");
  }
  if (!plan_.appendfsync.empty()) {
    SetConfig(config, "appendonly", "yes");
    SetConfig(config, "appendfsync", plan_.appendfsync);
    SetConfig(config, "aof-use-rdb-preamble", plan_.aof_rdb_preamble ? "yes" : "no");
    SetConfig(config, "auto-aof-rewrite-percentage", "0");
  }
  if (plan_.rdb_zstd_level > 0) {
    SetConfig(config, "rdb-compression-algorithm", "zstd");
    SetConfig(config, "rdb-zstd-level", std::to_string(plan_.rdb_zstd_level));
  }
  config_ = config;
  engine_ = std::make_unique<Engine>(env_, std::move(config));
  server_ = std::make_unique<Server>(*engine_);
  const Status started = server_->Start();
  KEEL_ASSERT(started.ok());
  port_ = server_->listening_ports().front();
  oracle_ = std::make_unique<Oracle>(*engine_, env_, trace_, plan_.maxmemory_bytes,
                                     plan_.maxmemory_policy);
  engine_->set_command_observer(oracle_.get());
  engine_->keyspace().AddObserver(oracle_.get());
  // The tracking client takes the first client id: the connections' ids follow it.
  tracking_ = std::make_unique<TrackingCheck>(*engine_);
  pubsub_ = std::make_unique<PubSubCheck>(*engine_, plan_.seed ^ 0x7075627375627321ull);
  next_client_id_ = 2 + pubsub_->clients();
  replica_ = std::make_unique<Replica>(*engine_, env_, plan_.replica_lag_ms,
                                       plan_.seed ^ 0x7265706c696361ull);
  if (plan_.faults & kFaultCrash) {
    replica_->RecordHistory(&history_);
    oracle_->CountUnits(&history_);
  }

  env_.sim_files().set_sector_holes(false);  // sim_env.h says why
  if (faults(kFaultDisk)) {
    env_.sim_files().set_sync_failure_per_million(plan_.disk_sync_failure_per_million);
  }
  env_.sim_network().set_read_bytes_max(plan_.read_bytes_max);
  env_.sim_network().set_write_bytes_max(plan_.write_bytes_max);
  if (faults(kFaultTimers)) env_.set_timer_late_us_max(plan_.timer_late_us_max);
  if (faults(kFaultMemory)) {
    env_.sim_memory().set_refusal(env_.sim_memory().used_bytes() + plan_.memory_soft_limit_bytes,
                                  plan_.memory_refusal_per_million);
  }
  clients_.resize(static_cast<size_t>(plan_.clients));
  for (size_t i = 0; i < clients_.size(); i++) clients_[i].index = static_cast<int>(i);
  oracle_->ObserveWall(env_.clock().WallUs() / 1000);
  trace_.Record(TraceKind::kNote, 0, 0, plan_.Describe());
  trace_.Record(TraceKind::kPhase, 0, plan_.seed, "workload");
}

void Simulation::Connect(SimulatedClient& client) {
  ForgetConnection(client);
  client.conn = env_.sim_network().Connect(port_);
  KEEL_ASSERT(client.conn != 0);
  // The engine numbers clients in the order it accepts them, which is connection order.
  oracle_->Open(client.conn, next_client_id_++);
  client.slow = faults(kFaultSlow) && Chance(plan_.slow_client_per_million);
  if (client.slow) {
    // From a few replies' worth to a few large values' worth (a log-uniform choice).
    client.window_bytes = size_t{256} << (2 * client_rng_.Below(4));
    env_.sim_network().SetClientBufferBytesMax(client.conn, client.window_bytes);
  }
}

void Simulation::Generate(SimulatedClient& client, ConnectionRecord& record) {
  const int depth = plan_.pipeline_max[static_cast<size_t>(client.index)];
  const int room = depth - static_cast<int>(record.in_flight());
  if (room <= 0) return;
  const int batch = 1 + static_cast<int>(client_rng_.Below(static_cast<uint64_t>(room)));
  uint64_t weight_total = 0;
  for (uint32_t weight : plan_.family_weights) weight_total += weight;
  workload::KeySpace space = plan_.space;
  space.now_ms = env_.clock().WallUs() / 1000;
  for (int i = 0; i < batch && ops_issued_ < plan_.ops && !client.quit_sent; i++) {
    if (!record.scan_next.empty()) {
      // The client follows the SCAN iteration it started: the next page comes first.
      args_ = std::move(record.scan_next);
      record.scan_next.clear();
      const uint64_t number = record.executed + record.sent.size() + 1;
      oracle_->scans().FollowUpSent(client.conn, number, record.scan_next_iteration);
    } else {
      uint64_t pick = workload_rng_.Below(weight_total);
      size_t family = 0;
      while (pick >= plan_.family_weights[family]) pick -= plan_.family_weights[family++];
      workload::Families()[family].generate(workload_rng_, space, &args_);
      KeepTransactionDrawsKnown(client, &args_);
    }
    Encode(args_, InlineSafe(args_) && client_rng_.Below(10) == 0, &client.outgoing);
    client.quit_sent = IsQuit(args_);
    oracle_->Sent(client.conn, args_);
    ops_issued_++;
  }
}

void Simulation::SendSome(SimulatedClient& client) {
  if (client.outgoing.empty()) return;
  if (faults(kFaultDelay) && Chance(plan_.delay_per_million)) return;  // held back this step
  size_t bytes = client.outgoing.size();
  if (faults(kFaultSplit) && plan_.send_bytes_max != 0) {
    bytes = std::min<size_t>(bytes, 1 + client_rng_.Below(plan_.send_bytes_max));
  }
  env_.sim_network().Send(client.conn, std::string_view(client.outgoing).substr(0, bytes));
  client.outgoing.erase(0, bytes);
}

void Simulation::ReceiveSome(SimulatedClient& client) {
  size_t bytes_max = SIZE_MAX;
  if (client.slow && faults(kFaultSlow)) {
    bytes_max = Chance(400'000) ? 1 + client_rng_.Below(client.window_bytes) : 0;
  }
  const std::string bytes = env_.sim_network().Receive(client.conn, bytes_max);
  if (bytes.empty()) return;
  client.incoming += bytes;
  std::string_view rest = client.incoming;
  while (!rest.empty() && !failed()) {
    RespValue value;
    size_t consumed = 0;
    const DecodeStatus status = DecodeResp(rest, &value, &consumed);
    if (status == DecodeStatus::kIncomplete) break;
    if (status == DecodeStatus::kInvalid) {
      Fail("connection " + std::to_string(client.conn) + " received bytes that are not RESP: \"" +
           EscapeBytes(rest, 200) + "\"");
      return;
    }
    oracle_->Received(client.conn, value, rest.substr(0, consumed));
    rest.remove_prefix(consumed);
  }
  client.incoming.erase(0, client.incoming.size() - rest.size());
}

void Simulation::Cut(SimulatedClient& client, bool reset) {
  ConnectionRecord* record = oracle_->Find(client.conn);
  KEEL_ASSERT(record != nullptr);
  SimNetwork& network = env_.sim_network();
  // Where the cut falls, for the trace: 1 inside a command, 2 inside a reply.
  const bool mid_command = !client.outgoing.empty() || network.PendingToServer(client.conn) > 0;
  const bool mid_reply = !client.incoming.empty() || network.PendingToClient(client.conn) > 0;
  trace_.Record(reset ? TraceKind::kReset : TraceKind::kClientClose, client.conn,
                mid_command ? 1
                : mid_reply ? 2
                            : 0);
  if (reset) {
    network.Reset(client.conn);
  } else {
    network.CloseClient(client.conn);
  }
  // Nothing may be assumed about the commands in flight: they may or may not run.
  record->cut = true;
  record->replies.clear();
  record->scan_next.clear();
  oracle_->scans().Drop(client.conn);
  ForgetConnection(client);
}

void Simulation::FinishConnection(SimulatedClient& client) {
  ConnectionRecord* record = oracle_->Find(client.conn);
  KEEL_ASSERT(record != nullptr);
  if (record->close_reason == ConnectionRecord::CloseReason::kQuit &&
      (!record->replies.empty() || !client.incoming.empty())) {
    Fail("connection " + std::to_string(client.conn) +
         " was closed after QUIT before the replies of the commands before it arrived: " +
         Outstanding());
    return;
  }
  env_.sim_network().Forget(client.conn);
  oracle_->Forget(client.conn);
  ForgetConnection(client);
}

void Simulation::ClientStep(SimulatedClient& client) {
  if (client.conn == 0) {
    if (ops_issued_ < plan_.ops) Connect(client);
    return;
  }
  ConnectionRecord* record = oracle_->Find(client.conn);
  KEEL_ASSERT(record != nullptr);
  if (record->closed) {
    // The server closed it: take what it wrote before, then the connection is over.
    client.slow = false;
    ReceiveSome(client);
    if (!failed() && env_.sim_network().PendingToClient(client.conn) == 0) {
      FinishConnection(client);
    }
    return;
  }
  if (!client.quit_sent && ops_issued_ < plan_.ops) Generate(client, *record);
  SendSome(client);
  ReceiveSome(client);
  if (failed() || !faults(kFaultReset)) return;
  if (Chance(plan_.reset_per_million)) {
    Cut(client, /*reset=*/true);
  } else if (Chance(plan_.close_per_million)) {
    Cut(client, /*reset=*/false);
  }
}

void Simulation::MoveClock() {
  SimClock& clock = env_.sim_clock();
  clock.Advance(
      static_cast<int64_t>(client_rng_.Below(static_cast<uint64_t>(plan_.step_us_max) + 1)));
  if (faults(kFaultClock) && Chance(plan_.clock_jump_per_million)) {
    const int64_t before = clock.WallUs();
    switch (client_rng_.Below(4)) {
      case 0:  // an NTP step forwards
        clock.JumpWall(workload::Between(client_rng_, 1, 5000) * 1000);
        break;
      case 1:  // a large step forwards: everything with an expiry is gone
        clock.JumpWall(workload::Between(client_rng_, 3600, 86400) * 1'000'000);
        break;
      case 2:  // a step backwards: expired keys that were not reclaimed come back, as in Redis
        clock.JumpWall(-workload::Between(client_rng_, 1, 3000) * 1000);
        break;
      default:  // the process stalls: both clocks move
        clock.Advance(workload::Between(client_rng_, 100, 3000) * 1000);
        break;
    }
    trace_.Record(TraceKind::kWallJump, static_cast<uint64_t>(before),
                  static_cast<uint64_t>(clock.WallUs()));
  }
  trace_.set_now_us(clock.MonotonicUs());
  oracle_->ObserveWall(clock.WallUs() / 1000);
}

void Simulation::NoticeCloses(uint64_t refused_before, uint64_t limit_closes_before) {
  const bool refused = env_.sim_memory().refused_count() != refused_before;
  limit_closes_unmatched_ +=
      engine_->stats().client_output_buffer_limit_disconnections - limit_closes_before;
  std::vector<SimClientId> finished;
  for (auto& [id, record] : oracle_->records()) {
    if (record.closed || !env_.sim_network().ClosedByServer(id)) continue;
    record.closed = true;
    if (record.cut) {
      finished.push_back(id);  // its client left it already
    } else if (record.session.quit && !refused) {
      record.close_reason = ConnectionRecord::CloseReason::kQuit;
    } else if (refused) {
      // Also after a QUIT: a refused allocation may have taken its reply (seed 1919: the
      // reply chunk for QUIT's +OK was refused, and the connection closed without it).
      record.close_reason = ConnectionRecord::CloseReason::kFault;
      trace_.Record(TraceKind::kNote, id, 0, "closed by the server after a refused allocation");
    } else if (limit_closes_unmatched_ > 0) {
      limit_closes_unmatched_--;
      record.close_reason = ConnectionRecord::CloseReason::kFault;
      trace_.Record(TraceKind::kNote, id, 0, "closed by the server: output buffer limit");
    } else {
      Fail("the server closed connection " + std::to_string(id) +
           " without a reason: no QUIT, no refused allocation, no output buffer limit");
      return;
    }
  }
  for (SimClientId id : finished) {
    env_.sim_network().Forget(id);
    oracle_->Forget(id);
  }
}

void Simulation::RunServer(int iterations) {
  for (int i = 0; i < iterations && !failed(); i++) {
    const uint64_t refused_before = env_.sim_memory().refused_count();
    const uint64_t limit_closes_before = engine_->stats().client_output_buffer_limit_disconnections;
    iteration_started_us_[0] = iteration_started_us_[1];
    iteration_started_us_[1] = env_.clock().MonotonicUs();
    const bool running = server_->RunOnce();
    KEEL_ASSERT(running);
    if (env_.sim_files().faults() != disk_faults_seen_) {
      disk_faults_seen_ = env_.sim_files().faults();
      last_disk_fault_us_ = env_.clock().MonotonicUs();
    }
    oracle_->ObserveWall(env_.clock().WallUs() / 1000);
    NoticeCloses(refused_before, limit_closes_before);
  }
}

void Simulation::Check() {
  if (failed()) return;
  const std::string broken = CheckInvariants(*engine_, *server_, env_, *oracle_, InternalClients());
  if (!broken.empty()) Fail("invariant broken: " + broken);
  if (tracking_ != nullptr && !failed()) {
    const std::string stale = tracking_->Check();
    if (!stale.empty()) Fail(stale);
  }
  const std::string diverged = replica_->Compare();
  if (!diverged.empty()) Fail("propagation: " + diverged);
}

void Simulation::Step() {
  steps_++;
  for (SimulatedClient& client : clients_) {
    ClientStep(client);
    if (failed()) return;
  }
  // A rewrite now and then, while the clients go on writing (refused while one runs).
  if (!plan_.appendfsync.empty() && workload::Chance(aof_rng_, plan_.aof_rewrite_per_million)) {
    const std::string outcome = engine_->aof().StartRewrite(/*in_exec=*/false);
    trace_.Record(TraceKind::kNote, 0, 0,
                  "BGREWRITEAOF: " + (outcome.empty() ? std::string("started") : outcome));
  }
  MoveDisk();
  MoveClock();
  RunServer(
      1 + static_cast<int>(client_rng_.Below(static_cast<uint64_t>(plan_.server_iterations_max))));
  Check();
  if (tracking_ != nullptr && !failed()) {
    tracking_->Read(workload::RandomKey(tracking_rng_, plan_.space));
  }
  if (pubsub_ != nullptr && !failed()) {
    const std::string broken = pubsub_->Act();
    if (!broken.empty()) Fail(broken);
  }
}

void Simulation::MoveDisk() {
  if (!faults(kFaultDisk)) return;
  if (!disk_full_ && workload::Chance(disk_rng_, plan_.disk_full_per_million)) {
    // Full from now on, give or take the last few kilobytes.
    disk_full_ = true;
    const size_t room = static_cast<size_t>(disk_rng_.Below(4096));
    env_.sim_files().set_capacity_bytes(env_.sim_files().used_bytes() + room + 1);
    trace_.Record(TraceKind::kNote, 0, 0, "disk full, " + std::to_string(room) + " B left");
  } else if (disk_full_ && workload::Chance(disk_rng_, plan_.disk_free_per_million)) {
    disk_full_ = false;
    env_.sim_files().set_capacity_bytes(0);
    trace_.Record(TraceKind::kNote, 0, 0, "disk freed");
  }
}

// What a reload may change and nothing else: a sorted-set score of -0 can come back as 0, as it
// does across redis-server 7.0's own DEBUG RELOAD (DigestOptions). Seed 1892 found it.
constexpr DigestOptions kReloadDigest{.zset_negative_zero_as_zero = true};

void Simulation::CheckAofLoads(const std::string& digest) {
  // What the AOF files hold, loaded by a new engine on the same disk, is what the server held.
  Engine loader(env_, config_);
  const Status loaded = loader.aof().LoadAtStartup();
  if (!loaded.ok()) {
    Fail("aof: the files do not load: " + loaded.ToString());
    return;
  }
  const std::string reloaded = DatasetDigestHex(loader.keyspace(), kReloadDigest);
  if (reloaded != digest) {
    Fail("aof: the files load to digest " + reloaded + ", the server held " + digest);
  }
}

// What the connections still wait for, for liveness failures.
std::string Simulation::Outstanding() const {
  std::string text;
  for (const auto& [id, record] : oracle_->records()) {
    if (record.cut || (record.sent.empty() && record.replies.empty())) continue;
    text += "\n  connection " + std::to_string(id) + ": " + std::to_string(record.sent.size()) +
            " commands not executed";
    if (!record.sent.empty()) text += " (first: " + DescribeArgs(record.sent.front()) + ")";
    text += ", " + std::to_string(record.replies.size()) + " replies not received";
    if (!record.replies.empty()) {
      const PendingReply& first = record.replies.front();
      text += " (first: #" + std::to_string(first.number) + " " + DescribeArgs(first.args) + ")";
    }
    if (record.closed) text += ", closed by the server";
  }
  return text;
}

void Simulation::Drain() {
  // Faults stop: every request still pending must now be answered, in bounded time.
  phase_ = "drain";
  trace_.Record(TraceKind::kPhase, 1, 0, "drain");
  faults_on_ = false;
  env_.set_timer_late_us_max(0);
  env_.sim_memory().set_refusal(0, 0);
  // The disk recovers: failed writes and syncs are retried, and what waited for them goes out.
  env_.sim_files().set_sync_failure_per_million(0);
  env_.sim_files().set_capacity_bytes(0);
  // Reads and writes of a byte or a few stop too: at one byte per loop iteration, a command of
  // some kilobytes (PFADD of a thousand elements) would take longer than the drain allows, which
  // says nothing about the server.
  env_.sim_network().set_read_bytes_max(0);
  env_.sim_network().set_write_bytes_max(0);
  for (SimulatedClient& client : clients_) {
    client.slow = false;
    if (client.conn != 0) env_.sim_network().SetClientBufferBytesMax(client.conn, 0);
  }
  const int64_t start_us = env_.clock().MonotonicUs();
  for (int iteration = 0;; iteration++) {
    bool drained = true;
    for (const SimulatedClient& client : clients_) drained = drained && client.outgoing.empty();
    for (const auto& [id, record] : oracle_->records()) {
      drained = drained && !record.cut && !record.closed && record.in_flight() == 0;
    }
    if (drained) return;
    const int64_t waited_us = env_.clock().MonotonicUs() - start_us;
    if (iteration >= kDrainIterationsMax || waited_us > kDrainSimulatedUsMax) {
      Fail("liveness: " + std::to_string(iteration) + " loop iterations and " +
           std::to_string(waited_us / 1000) + " ms of simulated time after faults stopped, " +
           "requests are still pending:" + Outstanding());
      return;
    }
    for (SimulatedClient& client : clients_) {
      if (client.conn != 0) ClientStep(client);
      if (failed()) return;
    }
    MoveClock();
    RunServer(1);
    Check();
    if (failed()) return;
  }
}

void Simulation::Shutdown() {
  // Every client leaves; the server must free them all, and the engine all its memory.
  phase_ = "shutdown";
  trace_.Record(TraceKind::kPhase, 2, 0, "shutdown");
  // The tracking client's last check, then it leaves first: it has no connection to cut.
  if (tracking_ != nullptr) {
    const std::string stale = tracking_->Check();
    if (!stale.empty()) Fail(stale);
    tracking_.reset();
  }
  EndPubSub();
  if (failed()) return;
  for (SimulatedClient& client : clients_) {
    if (client.conn != 0) Cut(client, /*reset=*/false);
  }
  for (int i = 0; i < kShutdownIterationsMax && engine_->client_count() > 0 && !failed(); i++) {
    RunServer(1);
  }
  if (failed()) return;
  if (engine_->client_count() != 0) {
    Fail(std::to_string(engine_->client_count()) + " clients are still open " +
         std::to_string(kShutdownIterationsMax) + " iterations after every client closed");
    return;
  }
  // As keel-server does before it exits (Server::DrainAof): the AOF's buffer is appended and a
  // last sync requested, and the syncs in flight (a manifest naming a new incremental file
  // among them) complete.
  engine_->aof().BeginShutdown();
  for (int i = 0; i < kShutdownIterationsMax && engine_->aof().pending_syncs() > 0 && !failed();
       i++) {
    RunServer(1);
  }
  Check();
  if (failed()) return;
  const std::string digest = DatasetDigestHex(engine_->keyspace(), kReloadDigest);
  engine_->set_command_observer(nullptr);
  engine_->keyspace().RemoveObserver(oracle_.get());
  replica_.reset();
  tracking_.reset();
  EndPubSub();
  server_.reset();
  engine_.reset();
  CheckNoLeak();
  if (!failed() && !plan_.appendfsync.empty()) CheckAofLoads(digest);
}

void Simulation::CheckNoLeak() {
  const SimMemory& memory = env_.sim_memory();
  if (memory.used_bytes() != 0 || memory.live_blocks() != 0) {
    Fail("leak: after the engine was destroyed the environment still holds " +
         std::to_string(memory.used_bytes()) + " bytes in " + std::to_string(memory.live_blocks()) +
         " blocks");
  }
}

bool Simulation::CrashDue() const {
  if (!(plan_.faults & kFaultCrash) || plan_.crash_at_permille <= 0) return false;
  return static_cast<int64_t>(ops_issued_) * 1000 >=
         static_cast<int64_t>(plan_.ops) * plan_.crash_at_permille;
}

uint64_t Simulation::UnitsPromised() const {
  const std::vector<Acknowledgement>& acks = oracle_->acknowledgements();
  if (acks.empty() || plan_.appendfsync.empty()) return 0;      // an RDB file promises no reply
  if (plan_.appendfsync == "always") return acks.back().units;  // no reply before its sync
  if (plan_.appendfsync != "everysec") return 0;
  // everysec: a reply received at t counts once the loop ran an iteration at t + 1 s or later
  // (which requests a sync of everything appended before the reply was sent) and one more (whose
  // wait completes it). Iterations that did not run (a stalled process) promise nothing, and
  // neither does a reply received before a write or sync of the disk failed.
  const int64_t threshold_us = iteration_started_us_[0] - 1'000'000;
  uint64_t units = 0;
  int64_t received_us = INT64_MIN;
  for (const Acknowledgement& ack : acks) {
    if (ack.mono_us > threshold_us) break;
    units = ack.units;
    received_us = ack.mono_us;
  }
  return received_us > last_disk_fault_us_ ? units : 0;
}

void Simulation::CrashAndRecover() {
  phase_ = "recovery";
  crashed_ = true;
  const uint64_t promised = UnitsPromised();
  trace_.Record(TraceKind::kPhase, 3, 0, "power loss");
  // The disk keeps what its fault model allows; nothing the process does after this reaches it.
  env_.sim_files().Crash();
  engine_->set_command_observer(nullptr);
  engine_->keyspace().RemoveObserver(oracle_.get());
  replica_.reset();
  tracking_.reset();
  EndPubSub();
  server_.reset();
  engine_.reset();
  CheckNoLeak();
  if (failed()) return;
  // A new process on the same disk, as keel-server starts; memory is not refused while it loads.
  env_.sim_memory().set_refusal(0, 0);
  StateHistory::Verdict verdict;
  {
    Engine recovered(env_, config_);
    Server server(recovered);
    const Status started = server.Start();
    if (!started.ok()) {
      Fail("recovery: the server does not start from what the disk kept: " + started.ToString());
      return;
    }
    const int64_t now_ms = env_.clock().WallUs() / 1000;
    verdict = history_.CheckRecovered(recovered, now_ms, promised);
  }
  CheckNoLeak();
  trace_.Record(TraceKind::kNote, 0, 0,
                "recovered state " + std::to_string(verdict.matched) + " of " +
                    std::to_string(history_.units()) + " (at least " + std::to_string(promised) +
                    " promised by the replies received)");
  if (!verdict.failure.empty()) {
    Fail("recovery (" +
         (plan_.appendfsync.empty() ? std::string("rdb") : "aof " + plan_.appendfsync) +
         "): " + verdict.failure);
  }
}

RunResult Simulation::Run() {
  Start();
  const uint64_t steps_max = kStepsBase + kStepsPerCommandMax * static_cast<uint64_t>(plan_.ops);
  while (!failed() && ops_issued_ < plan_.ops) {
    if (steps_ >= steps_max) {
      Fail("no progress: " + std::to_string(ops_issued_) + " of " + std::to_string(plan_.ops) +
           " commands issued after " + std::to_string(steps_) + " steps");
      break;
    }
    Step();
    if (!failed() && CrashDue()) {
      CrashAndRecover();
      break;
    }
  }
  if (!failed() && !crashed_) Drain();
  if (!failed() && !crashed_) Shutdown();

  RunResult result;
  result.ok = !failed();
  result.failure = failure_.empty() ? oracle_->failure() : failure_;
  if (!result.ok) result.phase = phase_;
  result.trace_hash = trace_.hash();
  result.trace_records = trace_.records();
  result.commands = oracle_->commands();
  result.evictions = oracle_->evictions();
  result.scan_iterations = oracle_->scans().completed();
  result.waits = oracle_->waits();
  result.waits_served = oracle_->waits_served();
  result.crashes = crashed_ ? 1 : 0;
  result.disk_faults = env_.sim_files().faults();
  result.steps = steps_;
  result.simulated_us = env_.clock().MonotonicUs();
  // A failed run may leave the engine mid-way; it is destroyed here, observer first.
  tracking_.reset();
  EndPubSub();
  result.messages_delivered = delivered_;
  if (engine_ != nullptr) {
    engine_->set_command_observer(nullptr);
    engine_->keyspace().RemoveObserver(oracle_.get());
  }
  return result;
}

}  // namespace

RunResult Simulate(const RunPlan& plan, TraceSink* sink) {
  Simulation simulation(plan, sink);
  return simulation.Run();
}

}  // namespace keel::sim
