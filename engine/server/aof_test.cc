// Tests for the AOF through the real Server loop over the simulated environment: the files Redis
// 7.0 makes (base, incremental file, manifest), replay at start, appendfsync always holding
// replies until the bytes are durable (a crash right after keeps every acknowledged write), the
// rewrite in both base formats with writes going on, a torn tail cut off with
// aof-load-truncated, failures refusing writes (MISCONF) until the disk recovers, turning the
// AOF on at runtime, DEBUG LOADAOF and INFO.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::ConfigWith;
using testing::Int;
using testing::Ok;
using testing::Request;

constexpr std::string_view kDir = "appendonlydir/";

class AofTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    StartServer(Config(Always()));
    client_ = Connect();
  }
  static Config Always() {
    return ConfigWith({{"save", ""},
                       {"appendonly", "yes"},
                       {"appendfsync", "always"},
                       {"enable-debug-command", "yes"}});
  }
  static Config Everysec() {
    return ConfigWith({{"save", ""}, {"appendonly", "yes"}, {"enable-debug-command", "yes"}});
  }
  static Config Off() { return ConfigWith({{"save", ""}, {"enable-debug-command", "yes"}}); }

  RespValue Command(std::initializer_list<std::string_view> args) {
    std::vector<RespValue> replies = Exchange(client_, Request(args));
    EXPECT_EQ(replies.size(), 1u);
    return replies.empty() ? RespValue() : replies[0];
  }
  std::string Digest() { return Command({"debug", "digest"}).text; }
  std::string Info(std::string_view field) {
    const std::string text = Command({"info", "persistence"}).text;
    const std::string key = std::string(field) + ":";
    const size_t at = text.find(key);
    if (at == std::string::npos) return "<missing>";
    return text.substr(at + key.size(), text.find("\r\n", at) - at - key.size());
  }
  const std::string* File(std::string_view name) {
    return env_.sim_files().Content(std::string(kDir) + std::string(name));
  }
  std::vector<std::string> DirNames() {
    Result<std::vector<std::string>> names = env_.files().ListDirectory("appendonlydir");
    return names.ok() ? names.value() : std::vector<std::string>{"<none>"};
  }
  void FinishRewrite() {
    for (int i = 0; i < 10000 && engine_->aof().rewrite_in_progress(); i++) server_->RunOnce();
    ASSERT_FALSE(engine_->aof().rewrite_in_progress());
    Settle();
  }
  void Restart(bool crash, Config config = Always()) {
    server_.reset();
    engine_.reset();
    if (crash) env_.sim_files().Crash();
    StartServer(std::move(config));
    client_ = Connect();
  }
  void Fill() {
    ASSERT_EQ(Command({"set", "s", "hello"}), Ok());
    ASSERT_EQ(Command({"set", "long", std::string(500, 'x')}), Ok());
    ASSERT_EQ(Command({"rpush", "l", "a", "b", "3"}), Int(3));
    ASSERT_EQ(Command({"sadd", "si", "1", "2", "3"}), Int(3));
    ASSERT_EQ(Command({"hset", "h", "f", "v", "g", "w"}), Int(2));
    ASSERT_EQ(Command({"zadd", "z", "1.5", "m", "-inf", "n"}), Int(2));
    ASSERT_EQ(Command({"set", "e", "v", "ex", "1000"}), Ok());
    ASSERT_EQ(Command({"select", "3"}), Ok());
    ASSERT_EQ(Command({"set", "other", "db"}), Ok());
    ASSERT_EQ(Command({"select", "0"}), Ok());
  }

  sim::SimClientId client_ = 0;
};

TEST_F(AofTest, StartMakesTheFilesRedisMakes) {
  EXPECT_EQ(*File("appendonly.aof.manifest"),
            "file appendonly.aof.1.base.rdb seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
  EXPECT_TRUE(env_.sim_files().EntryDurable("appendonlydir/appendonly.aof.manifest"));
  EXPECT_TRUE(env_.sim_files().EntryDurable("appendonlydir/appendonly.aof.1.base.rdb"));
  EXPECT_EQ(File("appendonly.aof.1.base.rdb")->substr(0, 9), "REDIS0010");
  EXPECT_EQ(DirNames(),
            (std::vector<std::string>{"appendonly.aof.1.base.rdb", "appendonly.aof.1.incr.aof",
                                      "appendonly.aof.manifest"}));
  ASSERT_EQ(Command({"set", "k", "v"}), Ok());
  EXPECT_EQ(*File("appendonly.aof.1.incr.aof"),
            "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n");
  EXPECT_EQ(Info("aof_enabled"), "1");
  EXPECT_EQ(Info("aof_last_write_status"), "ok");
}

// Redis makes the first base before it serves anyone; Keel's loop may still be writing it when
// the first client asks for a rewrite, which must start then as on Redis, not fail as a second
// rewrite would (the interop test's BGREWRITEAOF right after the start failed so on a busy
// machine).
TEST_F(AofTest, BgrewriteaofWhileTheFirstBaseIsWrittenStarts) {
  // A directory no AOF was ever written to, and a client there before the loop first runs.
  StartServer(ConfigWith(
      {{"save", ""}, {"appendonly", "yes"}, {"appendfsync", "always"}, {"dir", "fresh"}}));
  ASSERT_TRUE(engine_->aof().rewrite_in_progress());  // the first base, not yet written
  client_ = env_.sim_network().Connect(port_);
  env_.sim_network().Send(client_, Request({"bgrewriteaof"}));
  std::string received;
  for (int i = 0; i < 10 && received.empty(); i++) {
    server_->RunOnce();
    received = env_.sim_network().Receive(client_);
  }
  EXPECT_EQ(
      testing::DecodeAll(received),
      std::vector<RespValue>{testing::Status("Background append only file rewriting started")});
  for (int i = 0;
       i < 1000 && (engine_->aof().rewrite_in_progress() || engine_->aof().rewrite_scheduled());
       i++) {
    server_->RunOnce();
  }
  EXPECT_FALSE(engine_->aof().rewrite_in_progress() || engine_->aof().rewrite_scheduled());
  EXPECT_EQ(Info("aof_rewrites"), "1");
  EXPECT_EQ(Info("aof_last_bgrewrite_status"), "ok");
}

TEST_F(AofTest, EveryTypeReplaysAfterARestart) {
  Fill();
  const std::string digest = Digest();
  Restart(/*crash=*/false);
  EXPECT_EQ(Digest(), digest);
  EXPECT_EQ(Command({"dbsize"}), Int(7));
  // The second run appends to the same incremental file.
  ASSERT_EQ(Command({"set", "after", "restart"}), Ok());
  Restart(/*crash=*/false, Everysec());
  EXPECT_EQ(Command({"get", "after"}), testing::Bulk("restart"));
  EXPECT_EQ(*File("appendonly.aof.manifest"),
            "file appendonly.aof.1.base.rdb seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
}

TEST_F(AofTest, AlwaysKeepsEveryAcknowledgedWriteThroughCrashes) {
  // The crash model draws what it loses from the seed: no acknowledged write may be lost.
  for (int round = 0; round < 15; round++) {
    const std::string key = "k" + std::to_string(round);
    ASSERT_EQ(Command({"set", key, std::string(static_cast<size_t>(round) * 97, 'v')}), Ok());
    ASSERT_EQ(Command({"incr", "counter"}), Int(round + 1));
    const std::string digest = Digest();
    Restart(/*crash=*/true);
    ASSERT_EQ(Digest(), digest) << "round " << round;
  }
}

TEST_F(AofTest, AlwaysHoldsTheReplyUntilTheSyncCompletes) {
  env_.sim_network().Send(client_, Request({"set", "held", "1"}));
  // One iteration reads and runs the command and requests the sync; the reply waits for it.
  server_->RunOnce();
  EXPECT_TRUE(env_.sim_network().Receive(client_).empty());
  EXPECT_GT(engine_->aof().written_offset(), engine_->aof().durable_offset());
  Settle();
  EXPECT_EQ(testing::DecodeAll(env_.sim_network().Receive(client_)), std::vector<RespValue>{Ok()});
  EXPECT_EQ(engine_->aof().written_offset(), engine_->aof().durable_offset());
}

// A client whose earlier replies are still being written (its socket was full) turns writable
// in the same iteration that runs its next command: that command's reply must
// still wait for its sync. It left with the earlier bytes before, and a power loss could then
// lose a write its client had seen acknowledged (the crash sweep's seed 1241). Redis orders a
// client's write before its read with AE_BARRIER for this; Keel names reply bytes by position.
TEST_F(AofTest, AlwaysHoldsANewReplyOfAClientBeingWritten) {
  env_.sim_network().set_write_bytes_max(1);
  ASSERT_GT(Command({"set", "big", std::string(100, 'v')}).text.size(), 0u);
  env_.sim_network().Send(client_, Request({"get", "big"}));
  server_->RunOnce();  // the GET's reply starts leaving a byte per write
  std::string received = env_.sim_network().Receive(client_);
  // The socket takes everything from now on: the rest goes at the next writable event, which
  // comes in the iteration that also reads and runs the INCR.
  env_.sim_network().set_write_bytes_max(0);
  env_.sim_network().Send(client_, Request({"incr", "acked"}));
  const std::string path = "appendonlydir/appendonly.aof.1.incr.aof";
  const std::string incr = Request({"incr", "acked"});
  for (int i = 0; i < 1000 && received.find(":1\r\n") == std::string::npos; i++) {
    server_->RunOnce();
    received += env_.sim_network().Receive(client_);
    if (received.find(":1\r\n") == std::string::npos) continue;
    // The reply arrived: its write must be on disk (synced), not only in the file.
    const std::string* content = env_.sim_files().Content(path);
    ASSERT_NE(content, nullptr);
    const std::string synced = content->substr(0, env_.sim_files().SyncedSize(path));
    EXPECT_NE(synced.find(incr), std::string::npos) << "iteration " << i;
  }
  EXPECT_NE(received.find(":1\r\n"), std::string::npos);
  EXPECT_NE(received.find(std::string(100, 'v')), std::string::npos);
}

TEST_F(AofTest, EverysecLosesAtMostTheLastSecond) {
  Restart(/*crash=*/false, Everysec());
  ASSERT_EQ(Command({"set", "old", "1"}), Ok());
  // More than a second later, the write is durable without any new one.
  for (int i = 0; i < 30; i++) server_->RunOnce();
  Settle();
  Restart(/*crash=*/true, Everysec());
  EXPECT_EQ(Command({"get", "old"}), testing::Bulk("1"));
}

// The second counts on the monotonic clock: a wall clock stepped back (NTP) must not hold the
// next sync back for as long as it stepped. Redis measures it on the wall clock (unixtime).
TEST_F(AofTest, EverysecSyncsWithinASecondWhenTheWallClockStepsBack) {
  Restart(/*crash=*/false, Everysec());
  ASSERT_EQ(Command({"set", "first", "1"}), Ok());  // a sync is requested now
  env_.sim_clock().JumpWall(-3'000'000);
  ASSERT_EQ(Command({"set", "second", "2"}), Ok());
  const int64_t start_us = env_.clock().MonotonicUs();
  while (env_.clock().MonotonicUs() - start_us < 1'300'000) server_->RunOnce();
  server_->RunOnce();  // completes the sync requested in the last one
  EXPECT_EQ(engine_->aof().durable_offset(), engine_->aof().written_offset());
  Restart(/*crash=*/true, Everysec());
  EXPECT_EQ(Command({"get", "second"}), testing::Bulk("2"));
}

class AofRewriteTest : public AofTest, public ::testing::WithParamInterface<bool> {};

TEST_P(AofRewriteTest, RewriteReplacesTheFilesAndKeepsWritesMadeMeanwhile) {
  const bool rdb = GetParam();
  ASSERT_EQ(Command({"config", "set", "aof-use-rdb-preamble", rdb ? "yes" : "no"}), Ok());
  Fill();
  for (int i = 0; i < 300; i++) {
    ASSERT_EQ(Command({"rpush", "big", std::to_string(i)}), Int(i + 1));
  }
  // One pipeline: everything after BGREWRITEAOF runs while the rewrite does.
  const std::vector<RespValue> replies = Exchange(
      client_, Request({"bgrewriteaof"}) + Request({"bgrewriteaof"}) + Request({"bgsave"}) +
                   Request({"set", "during", "rewrite"}) + Request({"del", "s"}));
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[0], testing::Status("Background append only file rewriting started"));
  EXPECT_EQ(replies[1],
            testing::Err("ERR Background append only file rewriting already in progress"));
  EXPECT_EQ(replies[2],
            testing::Err("ERR Another child process is active (AOF?): can't BGSAVE right now. "
                         "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."));
  // Writes while the rewrite runs go to the new incremental file.
  EXPECT_EQ(replies[3], Ok());
  EXPECT_EQ(replies[4], Int(1));
  FinishRewrite();
  EXPECT_EQ(Info("aof_last_bgrewrite_status"), "ok");
  EXPECT_EQ(Info("aof_rewrites"), "1");
  const std::string base = rdb ? "appendonly.aof.2.base.rdb" : "appendonly.aof.2.base.aof";
  EXPECT_EQ(*File("appendonly.aof.manifest"),
            "file " + base + " seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n");
  // The history files are gone; nothing temporary stays.
  EXPECT_EQ(DirNames(), (std::vector<std::string>{base, "appendonly.aof.2.incr.aof",
                                                  "appendonly.aof.manifest"}));
  EXPECT_EQ(File(base)->substr(0, 5) == "REDIS", rdb);
  const std::string digest = Digest();
  Restart(/*crash=*/true);
  EXPECT_EQ(Digest(), digest);
  EXPECT_EQ(Command({"get", "during"}), testing::Bulk("rewrite"));
  EXPECT_EQ(Command({"exists", "s"}), Int(0));
}

INSTANTIATE_TEST_SUITE_P(Formats, AofRewriteTest, ::testing::Bool());

// The AOF gets FUNCTION LOAD, DELETE and FLUSH as they were sent (Redis propagates them so), a
// rewrite writes each library as FUNCTION LOAD (command form, Redis's rewriteFunctions) or in its
// RDB preamble, and a restart loads them back either way.
TEST_P(AofRewriteTest, FunctionLibrariesReplayAndSurviveARewrite) {
  const bool rdb = GetParam();
  ASSERT_EQ(Command({"config", "set", "aof-use-rdb-preamble", rdb ? "yes" : "no"}), Ok());
  const std::string kept =
      "#!lua name=kept\nredis.register_function('kf', function() return 'k' end)";
  const std::string gone =
      "#!lua name=gone\nredis.register_function('gf', function() return 'g' end)";
  ASSERT_EQ(Command({"function", "load", kept}), testing::Bulk("kept"));
  ASSERT_EQ(Command({"function", "load", gone}), testing::Bulk("gone"));
  ASSERT_EQ(Command({"function", "delete", "gone"}), Ok());
  const std::string* incr = File("appendonly.aof.1.incr.aof");
  ASSERT_NE(incr, nullptr);
  EXPECT_NE(incr->find("$8\r\nfunction\r\n$6\r\ndelete\r\n$4\r\ngone\r\n"), std::string::npos);
  Restart(/*crash=*/true);
  EXPECT_EQ(Command({"fcall", "kf", "0"}), testing::Bulk("k"));
  EXPECT_EQ(Command({"fcall", "gf", "0"}), testing::Err("ERR Function not found"));
  // The restart took the default configuration back.
  ASSERT_EQ(Command({"config", "set", "aof-use-rdb-preamble", rdb ? "yes" : "no"}), Ok());
  ASSERT_EQ(Command({"bgrewriteaof"}),
            testing::Status("Background append only file rewriting started"));
  FinishRewrite();
  const std::string base = rdb ? "appendonly.aof.2.base.rdb" : "appendonly.aof.2.base.aof";
  const std::string* written = File(base);
  ASSERT_NE(written, nullptr);
  if (!rdb) {
    EXPECT_EQ(written->find("*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$" +
                            std::to_string(kept.size()) + "\r\n" + kept + "\r\n"),
              0u)
        << "the libraries come first";
  }
  Restart(/*crash=*/true);
  EXPECT_EQ(Command({"fcall", "kf", "0"}), testing::Bulk("k"));
  EXPECT_EQ(Command({"function", "list"}).elements.size(), 1u);
}

TEST_F(AofTest, TornTailIsCutWhenAofLoadTruncatedAllowsIt) {
  ASSERT_EQ(Command({"set", "kept", "1"}), Ok());
  const size_t whole = File("appendonly.aof.1.incr.aof")->size();
  server_.reset();
  engine_.reset();
  // A torn last write: half a command.
  Result<FileId> file =
      env_.files().Open("appendonlydir/appendonly.aof.1.incr.aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  const std::string torn = "*3\r\n$3\r\nset\r\n$4\r\nlost";
  const ConstSlice slice{torn.data(), torn.size()};
  ASSERT_TRUE(env_.files().Append(*file, &slice, 1).ok());
  ASSERT_TRUE(env_.files().Close(*file).ok());
  // Refused without aof-load-truncated.
  Config strict = ConfigWith({{"save", ""}, {"appendonly", "yes"}, {"aof-load-truncated", "no"}});
  {
    Engine engine(env_, std::move(strict));
    Server server(engine);
    EXPECT_FALSE(server.Start().ok());
  }
  StartServer(Always());
  client_ = Connect();
  EXPECT_EQ(Command({"get", "kept"}), testing::Bulk("1"));
  EXPECT_EQ(Command({"exists", "lost"}), Int(0));
  // Cut back to the last whole command, then appended to as usual (a new process selects its
  // database first).
  ASSERT_EQ(Command({"set", "next", "2"}), Ok());
  EXPECT_EQ(File("appendonly.aof.1.incr.aof")->substr(whole, 16), "*2\r\n$6\r\nSELECT\r\n");
  Restart(/*crash=*/false);
  EXPECT_EQ(Command({"get", "next"}), testing::Bulk("2"));
}

TEST_F(AofTest, BadFormatAndUnknownCommandsStopTheStart) {
  for (const std::string& bad :
       {std::string("garbage\r\n"), std::string("*1\r\n$7\r\nNOTACMD\r\n")}) {
    server_.reset();
    engine_.reset();
    Result<FileId> file =
        env_.files().Open("appendonlydir/appendonly.aof.1.incr.aof", OpenMode::kCreateTruncate);
    ASSERT_TRUE(file.ok());
    const ConstSlice slice{bad.data(), bad.size()};
    ASSERT_TRUE(env_.files().Append(*file, &slice, 1).ok());
    ASSERT_TRUE(env_.files().Close(*file).ok());
    {
      Engine engine(env_, Always());
      Server server(engine);
      EXPECT_FALSE(server.Start().ok()) << bad;
    }
    StartServer(Off());  // the fixture needs a server to tear down
  }
}

TEST_F(AofTest, FailedSyncsRefuseWritesUntilTheDiskRecovers) {
  env_.sim_files().set_sync_failure_per_million(1'000'000);
  env_.sim_network().Send(client_, Request({"set", "k", "v"}));
  for (int i = 0; i < 50; i++) server_->RunOnce();
  // appendfsync always: the reply of a write that may not be durable is not sent.
  EXPECT_TRUE(env_.sim_network().Receive(client_).empty());
  const sim::SimClientId other = Connect();
  EXPECT_EQ(testing::DecodeAll([&] {
              env_.sim_network().Send(other, Request({"set", "x", "y"}));
              for (int i = 0; i < 50; i++) server_->RunOnce();
              return env_.sim_network().Receive(other);
            }()),
            std::vector<RespValue>{});
  EXPECT_TRUE(engine_->aof().writes_denied());
  env_.sim_files().set_sync_failure_per_million(0);
  Settle();
  // Cron retried the sync: the held reply goes out, and writes are accepted again.
  EXPECT_EQ(testing::DecodeAll(env_.sim_network().Receive(client_)), std::vector<RespValue>{Ok()});
  EXPECT_FALSE(engine_->aof().writes_denied());
  EXPECT_EQ(Command({"set", "after", "recovery"}), Ok());
}

TEST_F(AofTest, FullDiskRefusesWritesWithMisconf) {
  Restart(/*crash=*/false, Everysec());
  // Room for 10 more bytes than the files hold now.
  size_t total = 0;
  for (const std::string& name : DirNames()) total += File(name)->size();
  env_.sim_files().set_capacity_bytes(total + 10);
  EXPECT_EQ(Command({"set", "k", std::string(4096, 'v')}), Ok());  // accepted before the append
  const RespValue refused = Command({"set", "k2", "v"});
  EXPECT_EQ(refused.type, RespType::kError);
  EXPECT_EQ(refused.text.rfind("MISCONF Errors writing to the AOF file: ", 0), 0u) << refused.text;
  EXPECT_EQ(Info("aof_last_write_status"), "err");
  EXPECT_EQ(Command({"get", "k"}).text.size(), 4096u);  // reads go on
  env_.sim_files().set_capacity_bytes(0);
  for (int i = 0; i < 20; i++) server_->RunOnce();
  Settle();
  EXPECT_EQ(Command({"set", "k2", "v"}), Ok());
  EXPECT_EQ(Info("aof_last_write_status"), "ok");
  Restart(/*crash=*/false, Everysec());
  EXPECT_EQ(Command({"strlen", "k"}), Int(4096));
  EXPECT_EQ(Command({"get", "k2"}), testing::Bulk("v"));
}

// Simulator seed 971: writes the full disk refused were carried into the rewrite's new
// incremental file, without the SELECT before them and on top of a base that held them. The
// rewrite now waits until the disk takes them.
TEST_F(AofTest, ARewriteWaitsForWritesTheDiskRefused) {
  Restart(/*crash=*/false, Everysec());
  ASSERT_EQ(Command({"select", "2"}), Ok());
  ASSERT_EQ(Command({"set", "before", "1"}), Ok());
  Settle();
  size_t total = 0;
  for (const std::string& name : DirNames()) total += File(name)->size();
  env_.sim_files().set_capacity_bytes(total + 10);
  ASSERT_EQ(Command({"incr", "counter"}), Int(1));  // accepted, then refused by the disk
  EXPECT_EQ(Command({"bgrewriteaof"}),
            testing::Status("Background append only file rewriting scheduled"));
  EXPECT_FALSE(engine_->aof().rewrite_in_progress());
  env_.sim_files().set_capacity_bytes(0);
  for (int i = 0; i < 20; i++) server_->RunOnce();
  FinishRewrite();
  EXPECT_EQ(Info("aof_rewrites"), "1");
  Restart(/*crash=*/false, Everysec());
  ASSERT_EQ(Command({"select", "2"}), Ok());
  EXPECT_EQ(Command({"get", "counter"}), testing::Bulk("1"));
  ASSERT_EQ(Command({"select", "0"}), Ok());
  EXPECT_EQ(Command({"exists", "counter"}), Int(0));
}

TEST_F(AofTest, TurningTheAofOnAtRuntimeWritesTheKeyspace) {
  Restart(/*crash=*/false, Off());
  Fill();
  const std::string digest = Digest();
  EXPECT_EQ(Info("aof_enabled"), "0");
  ASSERT_EQ(Command({"config", "set", "appendonly", "yes"}), Ok());
  ASSERT_EQ(Command({"set", "while", "enabling"}), Ok());
  FinishRewrite();
  const std::string with_write = Digest();
  EXPECT_NE(with_write, digest);
  // The first run (the fixture's) left files: the new ones follow them in numbering, and the
  // old ones are gone.
  EXPECT_EQ(*File("appendonly.aof.manifest"),
            "file appendonly.aof.2.base.rdb seq 2 type b\n"
            "file appendonly.aof.2.incr.aof seq 2 type i\n");
  EXPECT_EQ(DirNames(),
            (std::vector<std::string>{"appendonly.aof.2.base.rdb", "appendonly.aof.2.incr.aof",
                                      "appendonly.aof.manifest"}));
  Restart(/*crash=*/true, Everysec());
  EXPECT_EQ(Digest(), with_write);
  // And off again: writes no longer reach the files.
  ASSERT_EQ(Command({"config", "set", "appendonly", "no"}), Ok());
  const size_t size_before = File("appendonly.aof.2.incr.aof")->size();
  ASSERT_EQ(Command({"set", "not", "logged"}), Ok());
  EXPECT_EQ(File("appendonly.aof.2.incr.aof")->size(), size_before);
}

TEST_F(AofTest, DebugLoadaofReplacesTheKeyspaceWithTheFiles) {
  Fill();
  const std::string digest = Digest();
  EXPECT_EQ(Command({"debug", "loadaof"}), Ok());
  EXPECT_EQ(Digest(), digest);
  // Transactions are replayed whole.
  ASSERT_EQ(Command({"multi"}), Ok());
  ASSERT_EQ(Command({"incr", "tx"}), testing::Status("QUEUED"));
  ASSERT_EQ(Command({"incr", "tx"}), testing::Status("QUEUED"));
  ASSERT_EQ(Command({"exec"}), testing::Array({Int(1), Int(2)}));
  EXPECT_EQ(Command({"debug", "loadaof"}), Ok());
  EXPECT_EQ(Command({"get", "tx"}), testing::Bulk("2"));
}

TEST_F(AofTest, ShutdownSyncsTheLastWritesInEverysec) {
  Restart(/*crash=*/false, Everysec());
  ASSERT_EQ(Command({"set", "last", "write"}), Ok());
  env_.sim_network().Send(client_, Request({"shutdown", "nosave"}));
  Settle();
  server_.reset();
  engine_.reset();
  env_.sim_files().Crash();
  StartServer(Everysec());
  client_ = Connect();
  EXPECT_EQ(Command({"get", "last"}), testing::Bulk("write"));
}

}  // namespace
}  // namespace keel
