// Keel's zstd snapshot through the real Server loop (rdb-compression-algorithm zstd): SAVE,
// BGSAVE, SHUTDOWN and DEBUG RELOAD write one zstd frame under dbfilename; the server loads it at
// start whatever the setting is then (the magic decides); a damaged one stops the start; the
// AOF's RDB preamble stays plain RDB.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/db/zstd_frame.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::ConfigWith;
using testing::Ok;
using testing::Request;

class PersistenceZstdTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    StartServer(Zstd());
    client_ = Connect();
  }
  static Config Zstd(std::string_view level = "1") {
    return ConfigWith({{"save", ""},
                       {"enable-debug-command", "yes"},
                       {"rdb-compression-algorithm", "zstd"},
                       {"rdb-zstd-level", level}});
  }
  static Config Lzf() { return ConfigWith({{"save", ""}, {"enable-debug-command", "yes"}}); }

  RespValue Command(std::initializer_list<std::string_view> args) {
    std::vector<RespValue> replies = Exchange(client_, Request(args));
    EXPECT_EQ(replies.size(), 1u);
    return replies.empty() ? RespValue() : replies[0];
  }
  std::string Digest() { return Command({"debug", "digest"}).text; }
  void FinishSave() {
    for (int i = 0; i < 100000 && engine_->persistence().save_in_progress(); i++) {
      server_->RunOnce();
    }
    ASSERT_FALSE(engine_->persistence().save_in_progress());
    Settle();
  }
  void Restart(bool crash, Config config) {
    server_.reset();
    engine_.reset();
    if (crash) env_.sim_files().Crash();
    StartServer(std::move(config));
    client_ = Connect();
  }
  std::string File(std::string_view path) {
    const std::string* content = env_.sim_files().Content(path);
    return content != nullptr ? *content : std::string();
  }
  void WriteFile(std::string_view path, const std::string& bytes) {
    Result<FileId> file = env_.files().Open(path, OpenMode::kCreateTruncate);
    ASSERT_TRUE(file.ok());
    const ConstSlice slice{bytes.data(), bytes.size()};
    ASSERT_TRUE(env_.files().Append(file.value(), &slice, 1).ok());
    ASSERT_TRUE(env_.files().Close(file.value()).ok());
  }
  bool Logged(std::string_view text) {
    for (const std::string& line : env_.sim_log().lines()) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  void Fill(int keys) {
    std::string request;
    for (int i = 0; i < keys; i++) {
      const std::string n = std::to_string(i);
      request += Request({"set", "s:" + n, "value of " + n + std::string(i % 90, 'x')});
      if (i % 10 == 0) request += Request({"hset", "h:" + n, "f", n, "g", "common text"});
      if (i % 10 == 1) request += Request({"zadd", "z:" + n, n, "m", "1.5", "n"});
      if (i % 10 == 2) request += Request({"rpush", "l:" + n, "a", "b", n});
      if (i % 10 == 3) request += Request({"sadd", "t:" + n, "1", "2", n});
      if (i % 500 == 499) {
        Exchange(client_, request);
        request.clear();
      }
    }
    Exchange(client_, request + Request({"function", "load", kLibrary}));
  }

  static constexpr std::string_view kLibrary =
      "#!lua name=zlib\nredis.register_function('zf', function(keys) return 1 end)";
  sim::SimClientId client_ = 0;
};

TEST_F(PersistenceZstdTest, ConfigGetAndSet) {
  EXPECT_EQ(Command({"config", "get", "rdb-compression-algorithm"}).elements.size(), 2u);
  EXPECT_EQ(Command({"config", "get", "rdb-compression-algorithm"}).elements[1].text, "zstd");
  EXPECT_EQ(Command({"config", "set", "rdb-zstd-level", "0"}).text,
            "ERR CONFIG SET failed (possibly related to argument 'rdb-zstd-level') - argument "
            "must be between 1 and 19 inclusive");
  EXPECT_EQ(Command({"config", "set", "rdb-compression-algorithm", "lz4"}).text,
            "ERR CONFIG SET failed (possibly related to argument 'rdb-compression-algorithm') - "
            "argument(s) must be one of the following: lzf, zstd");
  EXPECT_EQ(Command({"config", "set", "rdb-compression-algorithm", "lzf", "rdb-zstd-level", "5"}),
            Ok());
  EXPECT_EQ(Command({"config", "get", "rdb-zstd-level"}).elements[1].text, "5");
  EXPECT_EQ(Command({"save"}), Ok());
  EXPECT_EQ(File("dump.rdb").substr(0, 9), "REDIS0010");
}

TEST_F(PersistenceZstdTest, SaveWritesOneFrameThatLoadsAfterSwitchingBackToLzf) {
  Fill(3000);
  const std::string digest = Digest();
  EXPECT_EQ(Command({"save"}), Ok());
  const std::string file = File("dump.rdb");
  EXPECT_TRUE(StartsWithZstdFrame(file));
  EXPECT_TRUE(env_.sim_files().EntryDurable("dump.rdb"));
  Result<std::vector<std::string>> names = env_.files().ListDirectory(".");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names.value(), std::vector<std::string>{"dump.rdb"});
  // The same dataset as Redis's file is larger.
  ASSERT_EQ(Command({"config", "set", "rdb-compression-algorithm", "lzf"}), Ok());
  ASSERT_EQ(Command({"save"}), Ok());
  const std::string lzf_file = File("dump.rdb");
  EXPECT_EQ(lzf_file.substr(0, 9), "REDIS0010");
  EXPECT_LT(file.size() * 2, lzf_file.size());
  WriteFile("dump.rdb", file);
  // Detection is by the file's first bytes, not by the setting.
  Restart(/*crash=*/false, Lzf());
  EXPECT_EQ(Digest(), digest);
  EXPECT_TRUE(Logged("Loading a zstd-compressed RDB file"));
  EXPECT_EQ(Command({"fcall", "zf", "0"}), testing::Int(1));
}

TEST_F(PersistenceZstdTest, BgsaveCompressesAsTheLoopWalksAndSurvivesACrash) {
  Restart(false, Zstd("19"));
  Fill(6000);
  const std::string digest = Digest();
  std::string request = Request({"bgsave"});
  for (int i = 0; i < 6000; i += 7) request += Request({"set", "s:" + std::to_string(i), "new"});
  request += Request({"flushall"});
  const std::vector<RespValue> replies = Exchange(client_, request);
  ASSERT_FALSE(replies.empty());
  EXPECT_EQ(replies[0], testing::Status("Background saving started"));
  FinishSave();
  EXPECT_NE(Command({"info", "persistence"}).text.find("rdb_last_bgsave_status:ok"),
            std::string::npos);
  EXPECT_TRUE(StartsWithZstdFrame(File("dump.rdb")));
  Restart(/*crash=*/true, Zstd());
  EXPECT_EQ(Digest(), digest);
}

TEST_F(PersistenceZstdTest, ShutdownAndDebugReloadWriteZstd) {
  Fill(500);
  const std::string digest = Digest();
  EXPECT_EQ(Command({"debug", "reload"}), Ok());
  EXPECT_EQ(Digest(), digest);
  EXPECT_TRUE(StartsWithZstdFrame(File("dump.rdb")));
  // NOSAVE loads the zstd file on disk, pulled from the file a window at a time.
  ASSERT_EQ(Command({"set", "since", "1"}), Ok());
  EXPECT_EQ(Command({"debug", "reload", "nosave"}), Ok());
  EXPECT_EQ(Digest(), digest);
  ASSERT_EQ(Command({"set", "since", "2"}), Ok());
  const std::string after = Digest();
  env_.sim_network().Send(client_, Request({"shutdown", "save"}));
  bool stopped = false;
  for (int i = 0; i < 10000 && !stopped; i++) stopped = !server_->RunOnce();
  EXPECT_TRUE(stopped);
  EXPECT_TRUE(StartsWithZstdFrame(File("dump.rdb")));
  Restart(/*crash=*/true, Zstd());
  EXPECT_EQ(Digest(), after);
}

TEST_F(PersistenceZstdTest, ADamagedZstdFileStopsTheStart) {
  Fill(800);
  ASSERT_EQ(Command({"save"}), Ok());
  const std::string file = File("dump.rdb");
  struct Case {
    std::string bytes;
    std::string logged;
  };
  std::string flipped = file;
  flipped[file.size() / 2] = static_cast<char>(flipped[file.size() / 2] ^ 0x10);
  for (const Case& c :
       {Case{file.substr(0, file.size() - 3), "Truncated zstd frame (the file ends inside it)"},
        Case{file + "junk", "Bytes follow the zstd frame (the file must be one frame)"},
        Case{flipped, "zstd frame"}}) {
    server_.reset();
    engine_.reset();
    WriteFile("dump.rdb", c.bytes);
    engine_ = std::make_unique<Engine>(env_, Zstd());
    server_ = std::make_unique<Server>(*engine_);
    EXPECT_FALSE(server_->Start().ok()) << c.logged;
    EXPECT_TRUE(Logged(c.logged)) << c.logged;
    EXPECT_TRUE(Logged("Terminating server after rdb file reading failure."));
    EXPECT_EQ(engine_->keyspace().database(0).size(), 0u);
  }
}

TEST_F(PersistenceZstdTest, TheAofPreambleStaysPlainRdb) {
  Fill(200);
  ASSERT_EQ(Command({"config", "set", "appendonly", "yes"}), Ok());
  for (int i = 0; i < 100000 && engine_->aof().rewrite_in_progress(); i++) server_->RunOnce();
  Settle();
  const std::string base = File("appendonlydir/appendonly.aof.1.base.rdb");
  ASSERT_FALSE(base.empty());
  EXPECT_EQ(base.substr(0, 9), "REDIS0010");
}

}  // namespace
}  // namespace keel
