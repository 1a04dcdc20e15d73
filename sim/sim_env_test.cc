// Tests for the simulated environment's fault hooks: refusals near a memory limit, late timers,
// slow readers' windows, resets, the trace, and files with crash semantics.
#include "sim/sim_env.h"

#include <gtest/gtest.h>

#include <string>
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

class SimFilesTest : public ::testing::Test {
 protected:
  SimFilesTest() : env_(11) {}
  SimFiles& files() { return env_.sim_files(); }
  Status Append(FileId file, std::string_view text) {
    const ConstSlice slice{text.data(), text.size()};
    return files().Append(file, &slice, 1);
  }
  size_t DeliverEvents(std::vector<Event>* out) {
    Event events[8];
    const size_t count = env_.Wait(0, events, 8);
    out->assign(events, events + count);
    return count;
  }

  SimEnv env_;
};

TEST_F(SimFilesTest, ASyncMakesDataDurableWhenItCompletes) {
  Result<FileId> file = files().Open("dir/aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "one").ok());
  ASSERT_TRUE(files().SyncAsync(*file, 77).ok());
  ASSERT_TRUE(Append(*file, "two").ok());
  EXPECT_EQ(files().SyncedSize("dir/aof"), 0u);  // requested, not completed
  std::vector<Event> events;
  ASSERT_EQ(DeliverEvents(&events), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kFileSynced);
  EXPECT_EQ(events[0].handle, 77u);
  EXPECT_EQ(events[0].status, StatusCode::kOk);
  EXPECT_EQ(files().SyncedSize("dir/aof"), 3u);  // "two" came after the sync
}

TEST_F(SimFilesTest, ACrashKeepsSyncedBytesAndAPrefixOfTheRest) {
  bool lost_some = false;
  bool kept_some = false;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    SimEnv env(seed);
    SimFiles& files = env.sim_files();
    Result<FileId> file = files.Open("aof", OpenMode::kAppend);
    ASSERT_TRUE(file.ok());
    const std::string durable = "SET a 1;";
    const std::string unsynced = "SET b 2;SET c 3;";
    ConstSlice slice{durable.data(), durable.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    ASSERT_TRUE(files.SyncAsync(*file, 1).ok());
    Event events[2];
    ASSERT_EQ(env.Wait(0, events, 2), 1u);
    slice = ConstSlice{unsynced.data(), unsynced.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    ASSERT_TRUE(files.SyncAsync(*file, 2).ok());  // never completes: the crash comes first
    files.Crash();
    const std::string* content = files.Content("aof");
    ASSERT_NE(content, nullptr);
    ASSERT_GE(content->size(), durable.size());
    EXPECT_EQ(*content, (durable + unsynced).substr(0, content->size()));
    lost_some = lost_some || content->size() < durable.size() + unsynced.size();
    kept_some = kept_some || content->size() > durable.size();
    EXPECT_EQ(env.Wait(0, events, 2), 0u);  // the pending sync died with the machine
    EXPECT_FALSE(files.Size(*file).ok());   // and so did the handle
  }
  EXPECT_TRUE(lost_some);
  EXPECT_TRUE(kept_some);  // sometimes torn in the middle of the unsynced bytes
}

TEST_F(SimFilesTest, AFullDiskTakesWhatFitsAndFails) {
  files().set_capacity_bytes(10);
  Result<FileId> file = files().Open("aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "12345678").ok());
  const Status full = Append(*file, "abcd");
  EXPECT_EQ(full.code(), StatusCode::kNoSpace);
  EXPECT_EQ(*files().Content("aof"), "12345678ab");
}

TEST_F(SimFilesTest, AFailedSyncReportsAnErrorAndMakesNothingDurable) {
  files().set_sync_failure_per_million(1'000'000);
  Result<FileId> file = files().Open("aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "data").ok());
  ASSERT_TRUE(files().SyncAsync(*file, 5).ok());
  std::vector<Event> events;
  ASSERT_EQ(DeliverEvents(&events), 1u);
  EXPECT_EQ(events[0].status, StatusCode::kIoError);
  EXPECT_EQ(files().SyncedSize("aof"), 0u);
}

}  // namespace
}  // namespace keel::sim
