// The primary's side of replication (replication.h) over the simulated network: the bytes a
// replica reads after SYNC and PSYNC, the stream with its SELECTs, the backlog and +CONTINUE,
// REPLCONF, WAIT, ROLE, INFO replication, min-replicas-to-write.
#include "engine/server/replication.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ReplicationTest : public ServerTest {
 protected:
  // Sends `request` and returns the raw bytes that came back.
  std::string Raw(sim::SimClientId client, std::string_view request) {
    env_.sim_network().Send(client, request);
    Settle();
    return env_.sim_network().Receive(client);
  }
  RespValue One(sim::SimClientId client, std::initializer_list<std::string_view> args) {
    std::vector<RespValue> replies = Exchange(client, Request(args));
    EXPECT_EQ(replies.size(), 1u);
    return replies.empty() ? RespValue() : replies.front();
  }
  std::string Info(sim::SimClientId client, std::string_view field) {
    const RespValue info = One(client, {"info", "replication"});
    const std::string text = info.text;
    const std::string prefix = std::string(field) + ":";
    const size_t at = text.find(prefix);
    if (at == std::string::npos) return "<none>";
    const size_t end = text.find("\r\n", at);
    return text.substr(at + prefix.size(), end - at - prefix.size());
  }
  // A replica that did the full handshake; returns what it read after PSYNC.
  std::string Attach(sim::SimClientId replica, bool eof = false) {
    EXPECT_EQ(One(replica, {"replconf", "listening-port", "6380"}), Ok());
    if (eof) {
      EXPECT_EQ(One(replica, {"replconf", "capa", "eof", "capa", "psync2"}), Ok());
    }
    return Raw(replica, Request({"psync", "?", "-1"}));
  }
  const Replication& replication() { return engine_->replication(); }
};

TEST_F(ReplicationTest, FullResyncSendsTheFileThenTheStream) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"}}));
  const sim::SimClientId writer = Connect();
  EXPECT_EQ(One(writer, {"set", "k", "v"}), Ok());
  EXPECT_EQ(Info(writer, "repl_backlog_active"), "0");
  const std::string before_id = replication().replid();

  const sim::SimClientId replica = Connect();
  const std::string sync = Attach(replica);
  // The first replica starts a new history (Redis 7.0's createReplicationBacklog).
  const std::string replid = replication().replid();
  EXPECT_NE(replid, before_id);
  const std::string header = "+FULLRESYNC " + replid + " 0\r\n$";
  ASSERT_EQ(sync.substr(0, header.size()), header);
  const size_t length_end = sync.find("\r\n", header.size());
  const size_t length = std::stoul(sync.substr(header.size(), length_end - header.size()));
  // The file is the whole rest: no CRLF after it, as Redis sends a disk-based transfer.
  EXPECT_EQ(sync.size(), length_end + 2 + length);
  EXPECT_EQ(sync.substr(length_end + 2, 5), "REDIS");
  EXPECT_NE(sync.find("k"), std::string::npos);

  // Writes follow, with a SELECT first (the stream's database is unknown after a full sync).
  EXPECT_EQ(One(writer, {"set", "a", "1"}), Ok());
  EXPECT_EQ(One(writer, {"get", "a"}), Bulk("1"));  // reads are not streamed
  EXPECT_EQ(One(writer, {"set", "b", "2"}), Ok());
  const std::string stream = env_.sim_network().Receive(replica);
  const std::string expected =
      "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n"
      "*3\r\n$3\r\nset\r\n$1\r\nb\r\n$1\r\n2\r\n";
  EXPECT_EQ(stream, expected);
  EXPECT_EQ(replication().offset(), static_cast<int64_t>(expected.size()));
  EXPECT_EQ(Info(writer, "master_repl_offset"), std::to_string(expected.size()));
  EXPECT_EQ(Info(writer, "repl_backlog_active"), "1");
  EXPECT_EQ(Info(writer, "repl_backlog_first_byte_offset"), "1");
  EXPECT_EQ(Info(writer, "repl_backlog_histlen"), std::to_string(expected.size()));
  EXPECT_EQ(Info(writer, "connected_slaves"), "1");
  // lag: seconds since its last ACK (the simulated clock may have crossed a second).
  EXPECT_EQ(Info(writer, "slave0").substr(0, 49),
            "ip=127.0.0.1,port=6380,state=online,offset=0,lag=");

  // Another database: a SELECT again; MULTI/EXEC as one unit.
  EXPECT_EQ(One(writer, {"select", "3"}), Ok());
  Exchange(writer,
           Request({"multi"}) + Request({"incr", "n"}) + Request({"del", "n"}) + Request({"exec"}));
  EXPECT_EQ(env_.sim_network().Receive(replica),
            "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nincr\r\n$1\r\nn\r\n"
            "*2\r\n$3\r\ndel\r\n$1\r\nn\r\n*1\r\n$4\r\nEXEC\r\n");
}

TEST_F(ReplicationTest, DisklessEofFormWhenTheReplicaCanReadIt) {
  StartServer();  // repl-diskless-sync yes, Redis 7.0's default
  const sim::SimClientId replica = Connect();
  const std::string sync = Attach(replica, /*eof=*/true);
  const std::string header = "+FULLRESYNC " + replication().replid() + " 0\r\n$EOF:";
  ASSERT_EQ(sync.substr(0, header.size()), header);
  const std::string mark = sync.substr(header.size(), 40);
  EXPECT_EQ(sync.substr(header.size() + 40, 2), "\r\n");
  EXPECT_EQ(sync.substr(header.size() + 42, 5), "REDIS");
  EXPECT_EQ(sync.substr(sync.size() - 40), mark);
  // SYNC (no capa): the old form, no +FULLRESYNC line.
  const sim::SimClientId old = Connect();
  const std::string old_sync = Raw(old, Request({"sync"}));
  EXPECT_EQ(old_sync.substr(0, 1), "$");
  EXPECT_EQ(old_sync.substr(old_sync.find("\r\n") + 2, 5), "REDIS");
}

// redis-cli --functions-rdb: REPLCONF rdb-filter-only functions asks for a file without keys.
TEST_F(ReplicationTest, FunctionsOnlyFileLeavesTheKeysOut) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"}}));
  const sim::SimClientId writer = Connect();
  EXPECT_EQ(One(writer, {"set", "some-key", "some-value"}), Ok());
  EXPECT_EQ(One(writer, {"function", "load",
                         "#!lua name=lib1\nredis.register_function('func1', function() return 1 "
                         "end)"}),
            Bulk("lib1"));
  const sim::SimClientId whole = Connect();
  const std::string whole_sync = Raw(whole, Request({"sync"}));
  EXPECT_NE(whole_sync.find("some-key"), std::string::npos);
  EXPECT_NE(whole_sync.find("func1"), std::string::npos);

  const sim::SimClientId filtered = Connect();
  EXPECT_EQ(One(filtered, {"replconf", "rdb-filter-only", "functions"}), Ok());
  const std::string sync = Raw(filtered, Request({"sync"}));
  EXPECT_EQ(sync.substr(sync.find("\r\n") + 2, 5), "REDIS");
  EXPECT_EQ(sync.find("some-key"), std::string::npos);
  EXPECT_NE(sync.find("func1"), std::string::npos);
  // An empty filter asks for everything again.
  const sim::SimClientId unfiltered = Connect();
  EXPECT_EQ(One(unfiltered, {"replconf", "rdb-filter-only", "functions"}), Ok());
  EXPECT_EQ(One(unfiltered, {"replconf", "rdb-filter-only", ""}), Ok());
  EXPECT_NE(Raw(unfiltered, Request({"sync"})).find("some-key"), std::string::npos);
}

TEST_F(ReplicationTest, PartialResyncFromTheBacklog) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"}}));
  const sim::SimClientId writer = Connect();
  const sim::SimClientId replica = Connect();
  Attach(replica);
  EXPECT_EQ(One(writer, {"set", "a", "1"}), Ok());
  const std::string first = env_.sim_network().Receive(replica);
  const int64_t seen = replication().offset();
  EXPECT_EQ(static_cast<int64_t>(first.size()), seen);
  env_.sim_network().CloseClient(replica);
  Settle();
  EXPECT_EQ(Info(writer, "connected_slaves"), "0");
  EXPECT_EQ(One(writer, {"set", "b", "2"}), Ok());  // into the backlog only
  const std::string missed = "*3\r\n$3\r\nset\r\n$1\r\nb\r\n$1\r\n2\r\n";

  const std::string replid = replication().replid();
  const sim::SimClientId again = Connect();
  EXPECT_EQ(One(again, {"replconf", "capa", "psync2"}), Ok());
  EXPECT_EQ(Raw(again, Request({"psync", replid, std::to_string(seen + 1)})),
            "+CONTINUE " + replid + "\r\n" + missed);
  EXPECT_EQ(One(writer, {"info", "stats"}).text.find("sync_partial_ok:1") != std::string::npos,
            true);
  // A history we do not have, or an offset past ours: a full resync.
  const sim::SimClientId stranger = Connect();
  EXPECT_EQ(Raw(stranger, Request({"psync", std::string(40, 'a'), "1"})).substr(0, 12),
            "+FULLRESYNC ");
  const sim::SimClientId ahead = Connect();
  EXPECT_EQ(Raw(ahead, Request({"psync", replid, std::to_string(replication().offset() + 2)}))
                .substr(0, 12),
            "+FULLRESYNC ");
  // Without capa psync2, +CONTINUE has no id.
  const sim::SimClientId old = Connect();
  EXPECT_EQ(Raw(old, Request({"psync", replid, std::to_string(replication().offset() + 1)})),
            "+CONTINUE\r\n");
}

TEST_F(ReplicationTest, BacklogKeepsOnlyItsSize) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"}, {"repl-backlog-size", "100"}}));
  const sim::SimClientId writer = Connect();
  const sim::SimClientId replica = Connect();
  Attach(replica);
  for (int i = 0; i < 20; i++) EXPECT_EQ(One(writer, {"set", "key", std::to_string(i)}), Ok());
  const std::string stream = env_.sim_network().Receive(replica);
  EXPECT_EQ(Info(writer, "repl_backlog_histlen"), "100");
  const int64_t first = replication().offset() - 100 + 1;
  EXPECT_EQ(Info(writer, "repl_backlog_first_byte_offset"), std::to_string(first));
  const std::string replid = replication().replid();
  // The oldest byte kept can be continued from; the one before it cannot.
  const sim::SimClientId kept = Connect();
  EXPECT_EQ(Raw(kept, Request({"psync", replid, std::to_string(first)})),
            "+CONTINUE\r\n" + stream.substr(stream.size() - 100));
  const sim::SimClientId lost = Connect();
  EXPECT_EQ(Raw(lost, Request({"psync", replid, std::to_string(first - 1)})).substr(0, 12),
            "+FULLRESYNC ");
}

TEST_F(ReplicationTest, ReplconfWaitRole) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"}}));
  const sim::SimClientId client = Connect();
  EXPECT_EQ(One(client, {"replconf"}), Ok());
  EXPECT_EQ(One(client, {"replconf", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(One(client, {"replconf", "foo", "bar"}), Err("ERR Unrecognized REPLCONF option: foo"));
  EXPECT_EQ(One(client, {"replconf", "listening-port", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(One(client, {"replconf", "rdb-filter-only", "x"}),
            Err("ERR Unsupported rdb-filter-only option: x"));
  EXPECT_EQ(One(client, {"wait", "0", "0"}), Int(0));
  EXPECT_EQ(One(client, {"wait", "a", "0"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(One(client, {"wait", "1", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(One(client, {"wait", "1", "a"}), Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(One(client, {"role"}), Array({Bulk("master"), Int(0), Array({})}));

  const sim::SimClientId replica = Connect();
  Attach(replica);
  EXPECT_EQ(One(client, {"set", "k", "v"}), Ok());
  const int64_t offset = replication().offset();
  // WAIT blocks until the replica acknowledges the client's write (a GETACK asks it to).
  env_.sim_network().Send(client, Request({"wait", "1", "0"}));
  Settle();
  EXPECT_EQ(env_.sim_network().Receive(client), "");
  EXPECT_NE(env_.sim_network().Receive(replica).find("GETACK"), std::string::npos);
  // ACK gets no reply, ever.
  EXPECT_EQ(Raw(replica, Request({"replconf", "ack", std::to_string(offset)})), "");
  EXPECT_EQ(env_.sim_network().Receive(client), ":1\r\n");
  EXPECT_EQ(
      One(client, {"role"}),
      Array({Bulk("master"), Int(replication().offset()),
             Array({Array({Bulk("127.0.0.1"), Bulk("6380"), Bulk(std::to_string(offset))})})}));
  // WAIT for more replicas than there are times out with the count (Settle lets the simulated
  // time run past the timeout).
  const int64_t before_us = env_.sim_clock().MonotonicUs();
  env_.sim_network().Send(client, Request({"wait", "2", "100"}));
  Settle();
  EXPECT_EQ(env_.sim_network().Receive(client), ":1\r\n");
  EXPECT_GE(env_.sim_clock().MonotonicUs() - before_us, 100 * 1000);
  EXPECT_NE(env_.sim_network().Receive(replica).find("GETACK"), std::string::npos);
  // Two WAITs of one database at once (they wait for no key): both time out with the count.
  const sim::SimClientId other = Connect();
  env_.sim_network().Send(client, Request({"wait", "3", "50"}));
  env_.sim_network().Send(other, Request({"wait", "3", "80"}));
  Settle();
  EXPECT_EQ(env_.sim_network().Receive(client), ":1\r\n");  // the replica acknowledged its write
  EXPECT_EQ(env_.sim_network().Receive(other), ":1\r\n");   // it wrote nothing
  env_.sim_network().Receive(replica);
  // The replica's own PING gets no reply (its replies would corrupt its stream).
  EXPECT_EQ(Raw(replica, Request({"ping"})), "");
  // CLIENT LIST shows it with flags=S.
  const RespValue list = One(client, {"client", "list", "type", "replica"});
  EXPECT_NE(list.text.find("flags=S"), std::string::npos) << list.text;
}

TEST_F(ReplicationTest, MinReplicasToWrite) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"},
                          {"min-replicas-to-write", "1"},
                          {"min-replicas-max-lag", "10"}}));
  const sim::SimClientId client = Connect();
  EXPECT_EQ(One(client, {"set", "k", "v"}), Err("NOREPLICAS Not enough good replicas to write."));
  EXPECT_EQ(One(client, {"get", "k"}), NilBulk());
  // A script without flags is let in, and its first write is refused inside it (Redis's
  // scriptVerifyWriteCommandAllow); its reads are not.
  const RespValue script_write = One(client, {"eval", "return redis.call('set','k','v')", "0"});
  EXPECT_EQ(script_write.text.rfind("NOREPLICAS Not enough good replicas to write.", 0), 0u)
      << script_write.text;
  EXPECT_EQ(One(client, {"eval", "return redis.call('get','k')", "0"}), NilBulk());
  const sim::SimClientId replica = Connect();
  Attach(replica);
  EXPECT_EQ(One(client, {"set", "k", "v"}), Ok());
  EXPECT_NE(One(client, {"info", "replication"}).text.find("min_slaves_good_slaves:1"),
            std::string::npos);
}

TEST_F(ReplicationTest, PingsEveryPeriod) {
  StartServer(ConfigWith({{"repl-diskless-sync", "no"}, {"repl-ping-replica-period", "1"}}));
  const sim::SimClientId replica = Connect();
  Attach(replica);
  env_.sim_clock().Advance(1100 * 1000);
  Settle();
  EXPECT_EQ(env_.sim_network().Receive(replica), "*1\r\n$4\r\nPING\r\n");
}

// Keel replicating from Keel over the simulated fabric: the replica's side end to end (REPLICAOF,
// handshake, the file, the stream, ACKs, a cut link continued, READONLY, promotion).
class TwoNodeTest : public ::testing::Test {
 protected:
  struct Node {
    explicit Node(uint64_t seed) : env(seed) {}
    sim::SimEnv env;
    std::unique_ptr<Engine> engine;
    std::unique_ptr<Server> server;
    uint16_t port = 0;
    sim::SimClientId client = 0;
  };
  TwoNodeTest() : primary_(31), replica_(32) {
    Start(primary_, "10.0.0.1");
    Start(replica_, "10.0.0.2");
  }
  void Start(Node& node, const std::string& address) {
    EXPECT_TRUE(node.env.sim_network().JoinFabric(&fabric_, address));
    // Not on loopback: protected mode would refuse the replica (as Redis's does).
    node.engine = std::make_unique<Engine>(node.env, ConfigWith({{"protected-mode", "no"}}));
    node.server = std::make_unique<Server>(*node.engine);
    ASSERT_TRUE(node.server->Start().ok());
    node.port = node.server->listening_ports().front();
    node.client = node.env.sim_network().Connect(node.port);
  }
  // Runs both loops for a while (each environment moves its own virtual time).
  void Run(int iterations = 200) {
    for (int i = 0; i < iterations; i++) {
      primary_.server->RunOnce();
      replica_.server->RunOnce();
    }
  }
  RespValue Command(Node& node, std::initializer_list<std::string_view> args) {
    node.env.sim_network().Send(node.client, Request(args));
    for (int i = 0; i < 50; i++) {
      primary_.server->RunOnce();
      replica_.server->RunOnce();
      const std::vector<RespValue> replies = DecodeAll(node.env.sim_network().Receive(node.client));
      if (!replies.empty()) return replies.front();
    }
    ADD_FAILURE() << "no reply";
    return RespValue();
  }
  sim::SimFabric fabric_;
  Node primary_;
  Node replica_;
};

TEST_F(TwoNodeTest, KeelFollowsKeel) {
  EXPECT_EQ(Command(primary_, {"set", "before", "1"}), Ok());
  EXPECT_EQ(Command(primary_, {"rpush", "list", "a", "b"}), Int(2));
  EXPECT_EQ(Command(replica_, {"replicaof", "10.0.0.1", std::to_string(primary_.port)}), Ok());
  Run();
  const Replication& on_replica = replica_.engine->replication();
  const Replication& on_primary = primary_.engine->replication();
  EXPECT_TRUE(on_replica.link_up());
  if (!on_replica.link_up()) {
    for (const std::string& line : replica_.env.sim_log().lines()) ADD_FAILURE() << line;
  }
  EXPECT_EQ(on_replica.replid(), on_primary.replid());
  EXPECT_EQ(Command(replica_, {"get", "before"}), Bulk("1"));
  EXPECT_EQ(Command(replica_, {"lrange", "list", "0", "-1"}), Array({Bulk("a"), Bulk("b")}));
  // The stream, with a transaction and another database.
  EXPECT_EQ(Command(primary_, {"select", "2"}), Ok());
  EXPECT_EQ(Command(primary_, {"multi"}), Ok());
  EXPECT_EQ(Command(primary_, {"incr", "n"}), Status("QUEUED"));
  EXPECT_EQ(Command(primary_, {"incr", "n"}), Status("QUEUED"));
  EXPECT_EQ(Command(primary_, {"exec"}), Array({Int(1), Int(2)}));
  EXPECT_EQ(Command(primary_, {"wait", "1", "0"}), Int(1));
  EXPECT_EQ(Command(replica_, {"select", "2"}), Ok());
  EXPECT_EQ(Command(replica_, {"get", "n"}), Bulk("2"));
  EXPECT_EQ(Command(replica_, {"set", "n", "9"}),
            Err("READONLY You can't write against a read only replica."));
  // Nor through a script without flags (refused inside it, as Redis does), which may still read.
  const RespValue script_write =
      Command(replica_, {"eval", "return redis.call('set','n','9')", "0"});
  EXPECT_EQ(script_write.text.rfind("READONLY You can't write against a read only replica.", 0), 0u)
      << script_write.text;
  EXPECT_EQ(Command(replica_, {"eval", "return redis.call('get','n')", "0"}), Bulk("2"));
  Run();
  EXPECT_EQ(on_replica.offset(), on_primary.offset());
  // A cut link continues from the backlog.
  EXPECT_EQ(Command(primary_, {"client", "kill", "type", "replica"}), Int(1));
  EXPECT_EQ(Command(primary_, {"set", "during", "cut"}), Ok());
  Run(400);
  EXPECT_TRUE(on_replica.link_up());
  EXPECT_EQ(on_primary.sync_full(), 1u);
  EXPECT_EQ(on_primary.sync_partial_ok(), 1u);
  EXPECT_EQ(Command(replica_, {"get", "during"}), Bulk("cut"));
  EXPECT_EQ(on_replica.offset(), on_primary.offset());
  // Promotion: a new history that continues the old one.
  const std::string old_id = on_replica.replid();
  EXPECT_EQ(Command(replica_, {"replicaof", "no", "one"}), Ok());
  EXPECT_EQ(on_replica.replid2(), old_id);
  EXPECT_EQ(on_replica.second_replid_offset(), on_primary.offset() + 1);
  EXPECT_EQ(Command(replica_, {"set", "n", "9"}), Ok());
}

}  // namespace
}  // namespace keel::testing
