// Tests for the simulated environment's fault hooks: refusals near a memory limit, late timers,
// slow readers' windows, resets, the trace, and outgoing connections within one environment and
// between environments. Files and their crash model are tested in sim_files_test.cc.
#include "sim/sim_env.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace keel::sim {
namespace {

class RecordingSink final : public TraceSink {
 public:
  void WriteLine(std::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

TEST(SimMemoryTest, RefusesOnlyAboveTheSoftLimit) {
  SimEnv env(1);
  SimMemory& memory = env.sim_memory();
  memory.set_refusal(/*soft_limit_bytes=*/1000, /*per_million=*/1'000'000);
  void* below = memory.Allocate(600);
  ASSERT_NE(below, nullptr);
  EXPECT_EQ(memory.Allocate(600), nullptr);  // 1200 would pass the soft limit
  EXPECT_EQ(memory.refused_count(), 1u);
  void* fits = memory.Allocate(400);  // exactly at the limit is still below it
  ASSERT_NE(fits, nullptr);
  memory.Deallocate(below, 600);
  memory.Deallocate(fits, 400);
  EXPECT_EQ(memory.used_bytes(), 0u);
  EXPECT_EQ(memory.live_blocks(), 0u);
}

TEST(SimMemoryTest, RandomRefusalsAreSomeNotAll) {
  SimEnv env(7);
  SimMemory& memory = env.sim_memory();
  memory.set_refusal(0, 500'000);
  int refused = 0;
  for (int i = 0; i < 200; i++) {
    void* block = memory.Allocate(8);
    if (block == nullptr) {
      refused++;
    } else {
      memory.Deallocate(block, 8);
    }
  }
  EXPECT_GT(refused, 50);
  EXPECT_LT(refused, 150);
}

TEST(SimEnvTest, TimersFireLateByAtMostTheConfiguredLateness) {
  SimEnv env(3);
  Event events[4];
  const int64_t start = env.clock().MonotonicUs();
  EXPECT_EQ(env.Wait(1000, events, 4), 0u);
  EXPECT_EQ(env.clock().MonotonicUs() - start, 1000);  // on time by default
  env.set_timer_late_us_max(500);
  bool late = false;
  for (int i = 0; i < 50; i++) {
    const int64_t before = env.clock().MonotonicUs();
    env.Wait(1000, events, 4);
    const int64_t waited = env.clock().MonotonicUs() - before;
    EXPECT_GE(waited, 1000);
    EXPECT_LE(waited, 1500);
    late = late || waited > 1000;
  }
  EXPECT_TRUE(late);
}

class SimNetworkTest : public ::testing::Test {
 protected:
  SimNetworkTest() : env_(5) {
    Result<ListenerId> listener = net().Listen(ListenOptions{"127.0.0.1", 0, 511});
    EXPECT_TRUE(listener.ok());
    listener_ = *listener;
  }
  SimNetwork& net() { return env_.sim_network(); }
  ConnId AcceptOne(SimClientId client) {
    ConnInfo info;
    Result<ConnId> conn = net().Accept(listener_, &info);
    EXPECT_TRUE(conn.ok());
    EXPECT_EQ(*conn, client);
    return *conn;
  }
  IoResult WriteText(ConnId conn, std::string_view text) {
    const ConstSlice slice{text.data(), text.size()};
    return net().Write(conn, &slice, 1);
  }

  SimEnv env_;
  ListenerId listener_ = 0;
};

TEST_F(SimNetworkTest, ReceiveTakesAtMostWhatTheReaderAsks) {
  const SimClientId client = net().Connect(net().ListenerPort(listener_));
  const ConnId conn = AcceptOne(client);
  ASSERT_EQ(WriteText(conn, "hello world").code, IoCode::kOk);
  EXPECT_EQ(net().Receive(client, 5), "hello");
  EXPECT_EQ(net().PendingToClient(client), 6u);
  EXPECT_EQ(net().Receive(client), " world");
}

TEST_F(SimNetworkTest, AConnectionsWindowBlocksTheServerWhenFull) {
  const SimClientId client = net().Connect(net().ListenerPort(listener_));
  const ConnId conn = AcceptOne(client);
  net().SetClientBufferBytesMax(client, 4);
  const IoResult first = WriteText(conn, "abcdefgh");
  ASSERT_EQ(first.code, IoCode::kOk);
  EXPECT_EQ(first.bytes, 4u);
  EXPECT_EQ(WriteText(conn, "efgh").code, IoCode::kWouldBlock);
  EXPECT_EQ(net().Receive(client, 2), "ab");
  EXPECT_EQ(WriteText(conn, "efgh").bytes, 2u);
}

TEST_F(SimNetworkTest, AResetLosesWhatWasInFlightBothWays) {
  const SimClientId client = net().Connect(net().ListenerPort(listener_));
  const ConnId conn = AcceptOne(client);
  net().Send(client, "PING\r\n");
  ASSERT_EQ(WriteText(conn, "+OK\r\n").code, IoCode::kOk);
  net().Reset(client);
  EXPECT_EQ(net().PendingToServer(client), 0u);
  EXPECT_EQ(net().Receive(client), "");
  char buffer[16];
  EXPECT_EQ(net().Read(conn, buffer, sizeof(buffer)).code, IoCode::kReset);
  net().Send(client, "more");  // a reset connection takes nothing more
  EXPECT_EQ(net().PendingToServer(client), 0u);
  net().Close(conn);
  net().Forget(client);
  EXPECT_TRUE(net().ClosedByServer(client));  // forgotten: as good as closed
  EXPECT_FALSE(net().Accepted(client));
}

TEST_F(SimNetworkTest, TheTraceRecordsByteRangesAndHashesContent) {
  Trace trace;
  RecordingSink sink;
  trace.set_sink(&sink);
  env_.set_trace(&trace);
  const SimClientId client = net().Connect(net().ListenerPort(listener_));
  const ConnId conn = AcceptOne(client);
  net().Send(client, "PING\r\n");
  char buffer[3];
  ASSERT_EQ(net().Read(conn, buffer, sizeof(buffer)).bytes, 3u);
  ASSERT_EQ(net().Read(conn, buffer, sizeof(buffer)).bytes, 3u);
  ASSERT_EQ(sink.lines.size(), 5u);  // connect, accept, send, read, read
  EXPECT_NE(sink.lines[2].find("send c" + std::to_string(client) + " [0,6) \"PING\\r\\n\""),
            std::string::npos);
  EXPECT_NE(sink.lines[4].find("read c" + std::to_string(conn) + " [3,6) \"G\\r\\n\""),
            std::string::npos);

  // The same records give the same hash; one different byte gives another.
  Trace a;
  Trace b;
  Trace c;
  a.Record(TraceKind::kRead, 1, 0, "abc");
  b.Record(TraceKind::kRead, 1, 0, "abc");
  c.Record(TraceKind::kRead, 1, 0, "abd");
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a.hash(), c.hash());
}

// Outgoing connections (Network::Connect): to a listener of the same network, and to one of
// another environment on a fabric, as a replica reaches its primary.
class SimConnectTest : public ::testing::Test {
 protected:
  SimConnectTest() : primary_(21), replica_(22) {
    EXPECT_TRUE(primary_.sim_network().JoinFabric(&fabric_, "10.0.0.1"));
    EXPECT_TRUE(replica_.sim_network().JoinFabric(&fabric_, "10.0.0.2"));
    Result<ListenerId> listener = primary_.network().Listen(ListenOptions{"0.0.0.0", 6379, 511});
    EXPECT_TRUE(listener.ok());
    listener_ = *listener;
  }
  // The events one Wait of `env` reports.
  static std::vector<Event> Events(SimEnv& env) {
    Event events[16];
    const size_t count = env.Wait(0, events, 16);
    return std::vector<Event>(events, events + count);
  }
  static bool Has(const std::vector<Event>& events, EventKind kind, uint64_t handle) {
    for (const Event& event : events) {
      if (event.kind == kind && event.handle == handle) return true;
    }
    return false;
  }
  static IoResult WriteText(Network& net, ConnId conn, std::string_view text) {
    const ConstSlice slice{text.data(), text.size()};
    return net.Write(conn, &slice, 1);
  }
  // Reads everything `conn` has now, in as many reads as the network splits it into.
  static std::string ReadAll(Network& net, ConnId conn) {
    std::string bytes;
    char buffer[64];
    while (true) {
      const IoResult read = net.Read(conn, buffer, sizeof(buffer));
      if (read.code != IoCode::kOk) return bytes;
      bytes.append(buffer, read.bytes);
    }
  }
  // Connects the replica to the primary and accepts on the primary; returns both handles.
  std::pair<ConnId, ConnId> Link() {
    Result<ConnId> conn = replica_.network().Connect(ConnectOptions{"10.0.0.1", 6379});
    EXPECT_TRUE(conn.ok());
    EXPECT_TRUE(Has(Events(replica_), EventKind::kWritable, *conn));
    EXPECT_TRUE(Has(Events(primary_), EventKind::kListenerReady, listener_));
    ConnInfo info;
    Result<ConnId> accepted = primary_.network().Accept(listener_, &info);
    EXPECT_TRUE(accepted.ok());
    EXPECT_FALSE(info.peer_is_loopback);
    return {*conn, *accepted};
  }

  SimFabric fabric_;
  SimEnv primary_;
  SimEnv replica_;
  ListenerId listener_ = 0;
};

TEST_F(SimConnectTest, AConnectionToAnotherEnvironmentCarriesBytesBothWays) {
  Result<ConnId> conn = replica_.network().Connect(ConnectOptions{"10.0.0.1", 6379});
  ASSERT_TRUE(conn.ok());
  // Non-blocking: nothing moves until the handshake ends at the next Wait.
  EXPECT_EQ(replica_.network().ConnectStatus(*conn).code(), StatusCode::kWouldBlock);
  EXPECT_EQ(WriteText(replica_.network(), *conn, "x").code, IoCode::kWouldBlock);
  const std::vector<Event> events = Events(replica_);
  EXPECT_TRUE(Has(events, EventKind::kWritable, *conn));
  EXPECT_FALSE(Has(events, EventKind::kReadable, *conn));
  EXPECT_TRUE(replica_.network().ConnectStatus(*conn).ok());
  ASSERT_TRUE(Has(Events(primary_), EventKind::kListenerReady, listener_));
  ConnInfo info;
  Result<ConnId> accepted = primary_.network().Accept(listener_, &info);
  ASSERT_TRUE(accepted.ok());
  EXPECT_EQ(*accepted, replica_.sim_network().PeerOf(*conn));

  // Both sides split at random: what arrives is still the stream, in order.
  replica_.sim_network().set_read_bytes_max(3);
  replica_.sim_network().set_write_bytes_max(2);
  primary_.sim_network().set_read_bytes_max(1);
  const std::string request = "*1\r\n$4\r\nSYNC\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    const IoResult wrote = WriteText(replica_.network(), *conn, request.substr(sent));
    ASSERT_EQ(wrote.code, IoCode::kOk);
    ASSERT_LE(wrote.bytes, 2u);
    sent += wrote.bytes;
  }
  ASSERT_TRUE(Has(Events(primary_), EventKind::kReadable, *accepted));
  EXPECT_EQ(ReadAll(primary_.network(), *accepted), request);
  ASSERT_EQ(WriteText(primary_.network(), *accepted, "+FULLRESYNC 0 0\r\n").code, IoCode::kOk);
  replica_.network().SetInterest(*conn, true, false);
  ASSERT_TRUE(Has(Events(replica_), EventKind::kReadable, *conn));
  EXPECT_EQ(ReadAll(replica_.network(), *conn), "+FULLRESYNC 0 0\r\n");

  // The primary closes after a last write: the replica reads it, then EOF.
  ASSERT_EQ(WriteText(primary_.network(), *accepted, "bye").code, IoCode::kOk);
  primary_.network().Close(*accepted);
  EXPECT_EQ(ReadAll(replica_.network(), *conn), "bye");
  char byte;
  EXPECT_EQ(replica_.network().Read(*conn, &byte, 1).code, IoCode::kClosed);
  EXPECT_EQ(WriteText(replica_.network(), *conn, "x").code, IoCode::kReset);
  replica_.network().Close(*conn);
  EXPECT_EQ(replica_.network().ConnectStatus(*conn).code(), StatusCode::kNotFound);
}

TEST_F(SimConnectTest, AConnectionToTheSameEnvironmentOverLoopback) {
  SimEnv env(23);
  Result<ListenerId> listener = env.network().Listen(ListenOptions{"127.0.0.1", 0, 511});
  ASSERT_TRUE(listener.ok());
  const uint16_t port = env.network().ListenerPort(*listener);
  Result<ConnId> conn = env.network().Connect(ConnectOptions{"127.0.0.1", port});
  ASSERT_TRUE(conn.ok());
  const std::vector<Event> events = Events(env);
  EXPECT_TRUE(Has(events, EventKind::kWritable, *conn));
  EXPECT_TRUE(Has(events, EventKind::kListenerReady, *listener));
  ConnInfo info;
  Result<ConnId> accepted = env.network().Accept(*listener, &info);
  ASSERT_TRUE(accepted.ok());
  EXPECT_TRUE(info.peer_is_loopback);
  EXPECT_NE(*accepted, *conn);
  ASSERT_EQ(WriteText(env.network(), *conn, "PING\r\n").code, IoCode::kOk);
  EXPECT_EQ(ReadAll(env.network(), *accepted), "PING\r\n");
  ASSERT_EQ(WriteText(env.network(), *accepted, "+PONG\r\n").code, IoCode::kOk);
  EXPECT_EQ(ReadAll(env.network(), *conn), "+PONG\r\n");
  // Closing the outgoing side: the accepted side reads EOF.
  env.network().Close(*conn);
  char byte;
  EXPECT_EQ(env.network().Read(*accepted, &byte, 1).code, IoCode::kClosed);
}

TEST_F(SimConnectTest, NothingListeningIsARefusal) {
  Result<ConnId> conn = replica_.network().Connect(ConnectOptions{"10.0.0.1", 6380});
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(replica_.network().ConnectStatus(*conn).code(), StatusCode::kWouldBlock);
  const std::vector<Event> events = Events(replica_);
  EXPECT_TRUE(Has(events, EventKind::kWritable, *conn));
  EXPECT_TRUE(Has(events, EventKind::kReadable, *conn));
  const Status status = replica_.network().ConnectStatus(*conn);
  EXPECT_EQ(status.code(), StatusCode::kReset);
  EXPECT_EQ(status.message(), "connect 10.0.0.1:6380: Connection refused");
  char byte;
  EXPECT_EQ(replica_.network().Read(*conn, &byte, 1).code, IoCode::kReset);
  EXPECT_EQ(WriteText(replica_.network(), *conn, "x").code, IoCode::kReset);
  EXPECT_EQ(replica_.sim_network().PeerOf(*conn), 0u);
  EXPECT_TRUE(Events(primary_).empty());  // the primary saw nothing

  // A listener that closes refuses too, and an address with no host is unreachable.
  primary_.network().CloseListener(listener_);
  conn = replica_.network().Connect(ConnectOptions{"10.0.0.1", 6379});
  ASSERT_TRUE(conn.ok());
  (void)Events(replica_);
  EXPECT_EQ(replica_.network().ConnectStatus(*conn).code(), StatusCode::kReset);
  conn = replica_.network().Connect(ConnectOptions{"10.0.0.9", 6379});
  ASSERT_TRUE(conn.ok());
  (void)Events(replica_);
  EXPECT_EQ(replica_.network().ConnectStatus(*conn).message(),
            "connect 10.0.0.9:6379: No route to host");
  EXPECT_EQ(replica_.network().Connect(ConnectOptions{"primary.local", 6379}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(SimConnectTest, AResetOnEitherSideFailsBothEnds) {
  auto [conn, accepted] = Link();
  ASSERT_EQ(WriteText(replica_.network(), conn, "REPLCONF").code, IoCode::kOk);
  primary_.sim_network().Reset(accepted);  // the primary's side of the link fails
  char byte;
  EXPECT_EQ(primary_.network().Read(accepted, &byte, 1).code, IoCode::kReset);
  EXPECT_EQ(replica_.network().Read(conn, &byte, 1).code, IoCode::kReset);
  EXPECT_EQ(WriteText(replica_.network(), conn, "x").code, IoCode::kReset);
  EXPECT_TRUE(Has(Events(replica_), EventKind::kReadable, conn));  // reported, so it is closed

  auto [conn2, accepted2] = Link();
  replica_.sim_network().Reset(conn2);  // the replica's side fails
  EXPECT_EQ(primary_.network().Read(accepted2, &byte, 1).code, IoCode::kReset);
  EXPECT_EQ(replica_.network().Read(conn2, &byte, 1).code, IoCode::kReset);
}

TEST_F(SimConnectTest, TheFarSidesWindowAndANetworkThatLeftTheFabric) {
  auto [conn, accepted] = Link();
  // The far end is a simulated client of the primary: its receive window applies.
  primary_.sim_network().SetClientBufferBytesMax(accepted, 4);
  const IoResult first = WriteText(primary_.network(), accepted, "abcdefgh");
  ASSERT_EQ(first.code, IoCode::kOk);
  EXPECT_EQ(first.bytes, 4u);
  EXPECT_EQ(WriteText(primary_.network(), accepted, "efgh").code, IoCode::kWouldBlock);
  EXPECT_EQ(ReadAll(replica_.network(), conn), "abcd");
  EXPECT_EQ(WriteText(primary_.network(), accepted, "efgh").bytes, 4u);

  // A network that is destroyed leaves its fabric; connections to it fail as reset.
  auto other = std::make_unique<SimEnv>(24);
  ASSERT_TRUE(other->sim_network().JoinFabric(&fabric_, "10.0.0.3"));
  ASSERT_TRUE(other->network().Listen(ListenOptions{"*", 7000, 511}).ok());
  Result<ConnId> doomed = replica_.network().Connect(ConnectOptions{"10.0.0.3", 7000});
  ASSERT_TRUE(doomed.ok());
  (void)Events(replica_);
  EXPECT_TRUE(replica_.network().ConnectStatus(*doomed).ok());
  other.reset();
  EXPECT_EQ(fabric_.Find("10.0.0.3"), nullptr);
  char byte;
  EXPECT_EQ(replica_.network().Read(*doomed, &byte, 1).code, IoCode::kReset);
}

TEST(SimFabricTest, AnAddressIsTakenOnce) {
  SimFabric fabric;
  SimEnv a(1);
  SimEnv b(2);
  EXPECT_TRUE(a.sim_network().JoinFabric(&fabric, "10.0.0.1"));
  EXPECT_FALSE(b.sim_network().JoinFabric(&fabric, "10.0.0.1"));
  EXPECT_EQ(fabric.Find("10.0.0.1"), &a.sim_network());
  EXPECT_TRUE(b.sim_network().JoinFabric(&fabric, "10.0.0.2"));
}
}  // namespace
}  // namespace keel::sim
