// The command form of an AOF rewrite (aof_rewrite.h): a keyspace of every type and encoding,
// written through a Snapshot and replayed into a fresh engine as the AOF loader replays it,
// comes back with the same DEBUG DIGEST and the same expiries; small cases give Redis's exact
// bytes; large values are cut into commands of 64 items.
#include "engine/db/aof_rewrite.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/db/snapshot.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Bulk;
using testing::CommandTest;
using testing::ConfigWith;
using testing::Int;
using testing::Ok;

// A far-future absolute expiry (2100-01-01), so that no key expires while a test runs.
constexpr std::string_view kFarExpiryMs = "4102444800000";

Config TestConfig() { return ConfigWith({{"enable-debug-command", "yes"}}); }

// Every key's expiry (kNoExpiry when none), by database and key.
using Expiries = std::map<std::pair<int, std::string>, int64_t>;

Expiries ExpiriesOf(const Engine& engine) {
  Expiries expiries;
  for (int db = 0; db < engine.database_count(); db++) {
    engine.database(db).ForEach([&](const Entry& entry) {
      expiries.emplace(std::pair(db, std::string(entry.key())), entry.expire_at_ms());
    });
  }
  return expiries;
}

// The commands in `bytes`, each as its arguments; fails the test on anything but arrays of
// bulk strings.
std::vector<std::vector<std::string>> ParseCommands(std::string_view bytes) {
  std::vector<std::vector<std::string>> commands;
  for (const RespValue& value : testing::DecodeAll(bytes)) {
    EXPECT_EQ(value.type, RespType::kArray);
    std::vector<std::string> args;
    for (const RespValue& arg : value.elements) {
      EXPECT_EQ(arg.type, RespType::kBulkString);
      args.push_back(arg.text);
    }
    commands.push_back(std::move(args));
  }
  return commands;
}

class AofRewriteTest : public CommandTest {
 protected:
  void SetUp() override { StartEngine(TestConfig()); }

  // Runs a snapshot to its end with an AofCommandWriter, taking the bytes after every step (as
  // the rewrite writes them out), and returns them all.
  std::string Rewrite(uint64_t* keys_written = nullptr) {
    AofCommandWriter writer;
    std::string bytes;
    {
      Snapshot snapshot(engine_->keyspace(), writer);
      while (snapshot.Step(16)) {
        bytes += writer.TakeBytes();
        EXPECT_EQ(writer.pending_bytes(), 0u);
      }
    }
    writer.Finish();
    bytes += writer.TakeBytes();
    if (keys_written != nullptr) *keys_written = writer.keys_written();
    return bytes;
  }

  // Replays `bytes` into a new engine (its own simulated environment) as the AOF loader does:
  // each command through Engine::Replay with kCallFromAof, on one client whose database SELECT
  // moves. Every command must succeed.
  std::unique_ptr<Engine> Replay(std::string_view bytes) {
    auto engine = std::make_unique<Engine>(replay_env_, TestConfig());
    Client* client = engine->NewClient(0, nullptr);
    for (const std::vector<std::string>& command : ParseCommands(bytes)) {
      const std::vector<std::string_view> args(command.begin(), command.end());
      engine->Replay(*client, args, kCallFromAof);
      for (const RespValue& reply : testing::DecodeAll(client->output().TakeAll())) {
        EXPECT_NE(reply.type, RespType::kError) << command[0] << ": " << reply.text;
      }
    }
    return engine;
  }

  static std::string DigestOf(Engine& engine) {
    Client* client = engine.NewClient(0, nullptr);
    engine.RunCommand(*client, {"debug", "digest"});
    std::vector<RespValue> replies = testing::DecodeAll(client->output().TakeAll());
    engine.FreeClient(client);
    EXPECT_EQ(replies.size(), 1u);
    return replies.empty() ? std::string() : replies[0].text;
  }

  // Rewrites the keyspace, replays it, and checks that both hold the same data and expiries.
  void ExpectReplaysTheSame(const std::string& bytes) {
    std::unique_ptr<Engine> replayed = Replay(bytes);
    const std::string digest = DigestOf(*engine_);
    EXPECT_NE(digest, std::string(40, '0'));
    EXPECT_EQ(DigestOf(*replayed), digest);
    EXPECT_EQ(ExpiriesOf(*replayed), ExpiriesOf(*engine_));
  }

  void ExpectEncoding(std::string_view key, std::string_view encoding) {
    EXPECT_EQ(Run({"object", "encoding", key}), Bulk(encoding)) << key;
  }

  // Pushes `count` elements to list `key`: integers, short strings and, every 7th, one of 100
  // bytes, so that nodes hold both integer and string entries.
  void FillList(std::string_view key, int count) {
    for (int i = 0; i < count; i++) {
      const std::string element = i % 3 == 0   ? std::to_string(i - 50)
                                  : i % 7 == 0 ? std::string(100, static_cast<char>('a' + i % 26))
                                               : "e" + std::to_string(i);
      ASSERT_EQ(Run({"rpush", key, element}), Int(i + 1));
    }
  }

  // Every type in every encoding, int-encoded strings, expiries, several databases.
  void FillEverything() {
    // Strings: embstr, int (shared and not, the extremes), raw, appended-to (growable), empty,
    // binary, a bitmap and a HyperLogLog.
    ASSERT_EQ(Run({"set", "str", "hello"}), Ok());
    ASSERT_EQ(Run({"set", "int", "123456789"}), Ok());
    ASSERT_EQ(Run({"set", "shared", "7"}), Ok());
    ASSERT_EQ(Run({"set", "min", "-9223372036854775808"}), Ok());
    ASSERT_EQ(Run({"set", "raw", std::string(100, 'x')}), Ok());
    ASSERT_EQ(Run({"set", "appended", "abc"}), Ok());
    ASSERT_EQ(Run({"append", "appended", "defghij"}), Int(10));
    ASSERT_EQ(Run({"set", "empty", ""}), Ok());
    ASSERT_EQ(Run({"set", "binary", std::string("a\0b\r\n$3\r\n", 10)}), Ok());
    ASSERT_EQ(Run({"setbit", "bits", "1000", "1"}), Int(0));
    ASSERT_EQ(Run({"pfadd", "hll", "a", "b", "c"}), Int(1));
    ExpectEncoding("str", "embstr");
    ExpectEncoding("int", "int");
    ExpectEncoding("shared", "int");
    ExpectEncoding("min", "int");
    ExpectEncoding("raw", "raw");
    ExpectEncoding("appended", "raw");

    // Lists: one node, and many nodes past a batch (200 elements of mixed kinds).
    ASSERT_EQ(Run({"rpush", "list", "a", "1", "-5", "b\r\n", ""}), Int(5));
    FillList("biglist", 200);
    ExpectEncoding("biglist", "quicklist");

    // Sets: intset (with the int64 extremes), a small hashtable, a large one, an intset grown
    // past set-max-intset-entries.
    ASSERT_EQ(Run({"sadd", "intset", "1", "-3", "9223372036854775807", "-9223372036854775808"}),
              Int(4));
    ASSERT_EQ(Run({"sadd", "smallset", "a", "b", "1"}), Int(3));
    for (int i = 0; i < 300; i++) {
      ASSERT_EQ(Run({"sadd", "bigset", "m" + std::to_string(i)}), Int(1));
    }
    for (int i = 0; i < 600; i++) {
      ASSERT_EQ(Run({"sadd", "bigintset", std::to_string(i * 7 - 1000)}), Int(1));
    }
    ExpectEncoding("intset", "intset");
    ExpectEncoding("smallset", "hashtable");
    ExpectEncoding("bigset", "hashtable");
    ExpectEncoding("bigintset", "hashtable");

    // Sorted sets: a listpack with awkward scores and an integer member, a skiplist past the
    // entry limit with the same scores, and one made a skiplist by a long member.
    ASSERT_EQ(Run({"zadd", "zlist", "1.5", "a", "-0", "b", "inf", "c", "-inf", "d", "1e300", "e",
                   "3", "123", "0.1", "f", "-2.5e-300", "g"}),
              Int(8));
    ASSERT_EQ(Run({"zadd", "zskip", "1.5", "a", "-0", "b", "inf", "c", "-inf", "d", "1e300", "e",
                   "3", "123", "0.1", "f"}),
              Int(7));
    for (int i = 0; i < 200; i++) {
      ASSERT_EQ(Run({"zadd", "zskip", std::to_string(i * 0.37 - 20), "m" + std::to_string(i)}),
                Int(1));
    }
    ASSERT_EQ(Run({"zadd", "zlong", "1", std::string(100, 'z'), "2", "short"}), Int(2));
    ExpectEncoding("zlist", "listpack");
    ExpectEncoding("zskip", "skiplist");
    ExpectEncoding("zlong", "skiplist");

    // Hashes: a listpack with integer fields and values, a hashtable past the entry limit, and
    // one made a hashtable by a long value.
    ASSERT_EQ(Run({"hset", "hsmall", "f", "v", "1", "2", "n", "-42", "e", ""}), Int(4));
    for (int i = 0; i < 600; i++) {
      ASSERT_EQ(Run({"hset", "hbig", "f" + std::to_string(i), std::to_string(i)}), Int(1));
    }
    ASSERT_EQ(Run({"hset", "hlong", "f", std::string(100, 'v'), "g", "w"}), Int(2));
    ExpectEncoding("hsmall", "listpack");
    ExpectEncoding("hbig", "hashtable");
    ExpectEncoding("hlong", "hashtable");

    // Expiries on several types, absolute and relative.
    ASSERT_EQ(Run({"pexpireat", "str", kFarExpiryMs}), Int(1));
    ASSERT_EQ(Run({"pexpireat", "shared", kFarExpiryMs}), Int(1));
    ASSERT_EQ(Run({"expire", "biglist", "1000"}), Int(1));
    ASSERT_EQ(Run({"pexpire", "intset", "123456"}), Int(1));
    ASSERT_EQ(Run({"expire", "zskip", "5000"}), Int(1));
    ASSERT_EQ(Run({"pexpireat", "hsmall", "4102444800123"}), Int(1));

    // Other databases, with a key name that db 0 has too.
    ASSERT_EQ(Run({"select", "3"}), Ok());
    ASSERT_EQ(Run({"set", "str", "in db 3"}), Ok());
    ASSERT_EQ(Run({"rpush", "list", "x", "y"}), Int(2));
    ASSERT_EQ(Run({"zadd", "z", "2", "two"}), Int(1));
    ASSERT_EQ(Run({"pexpireat", "z", kFarExpiryMs}), Int(1));
    ASSERT_EQ(Run({"select", "15"}), Ok());
    ASSERT_EQ(Run({"sadd", "s", "a"}), Int(1));
    ASSERT_EQ(Run({"hset", "h", "a", "b"}), Int(1));
    ASSERT_EQ(Run({"select", "0"}), Ok());
  }

  // The rewrite of a keyspace whose only key is in db 0, without its leading SELECT 0.
  std::string RewriteOneKey() {
    const std::string bytes = Rewrite();
    const std::string select = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";
    EXPECT_EQ(bytes.substr(0, select.size()), select);
    return bytes.substr(select.size());
  }

  sim::SimEnv replay_env_{1};
};

TEST_F(AofRewriteTest, EveryTypeAndEncodingReplaysToTheSameKeyspace) {
  FillEverything();
  uint64_t keys_written = 0;
  const std::string bytes = Rewrite(&keys_written);
  uint64_t keys = 0;
  for (int db = 0; db < engine_->database_count(); db++) keys += engine_->database(db).size();
  EXPECT_EQ(keys_written, keys);
  ExpectReplaysTheSame(bytes);
}

TEST_F(AofRewriteTest, AnEmptyKeyspaceWritesNothing) {
  uint64_t keys_written = 1;
  EXPECT_EQ(Rewrite(&keys_written), "");
  EXPECT_EQ(keys_written, 0u);
}

TEST_F(AofRewriteTest, ACommandIsRespMultibulk) {
  std::string out = "before";
  const std::string_view args[] = {"SET", "k", ""};
  AppendAofCommand(&out, args);
  EXPECT_EQ(out, "before*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
}

TEST_F(AofRewriteTest, AStringWithExpiryHasRedisBytes) {
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  ASSERT_EQ(Run({"pexpireat", "k", kFarExpiryMs}), Int(1));
  EXPECT_EQ(Rewrite(),
            "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
            "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
            "*3\r\n$9\r\nPEXPIREAT\r\n$1\r\nk\r\n$13\r\n4102444800000\r\n");
}

TEST_F(AofRewriteTest, IntegerEncodingsComeOutAsDecimalText) {
  ASSERT_EQ(Run({"set", "n", "-12"}), Ok());
  EXPECT_EQ(RewriteOneKey(), "*3\r\n$3\r\nSET\r\n$1\r\nn\r\n$3\r\n-12\r\n");
  ASSERT_EQ(Run({"flushall"}), Ok());
  // An intset, ascending.
  ASSERT_EQ(Run({"sadd", "s", "30", "-1"}), Int(2));
  EXPECT_EQ(RewriteOneKey(), "*4\r\n$4\r\nSADD\r\n$1\r\ns\r\n$2\r\n-1\r\n$2\r\n30\r\n");
  ASSERT_EQ(Run({"flushall"}), Ok());
  // A list node's integer entries.
  ASSERT_EQ(Run({"rpush", "l", "a", "1234567890123"}), Int(2));
  EXPECT_EQ(RewriteOneKey(), "*4\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n$13\r\n1234567890123\r\n");
}

TEST_F(AofRewriteTest, SortedSetsAndHashesHaveRedisBytes) {
  // Score before member, "%.17g", lowest first for a listpack.
  ASSERT_EQ(Run({"zadd", "z", "1.5", "m", "-inf", "n", "0.1", "7"}), Int(3));
  EXPECT_EQ(RewriteOneKey(),
            "*8\r\n$4\r\nZADD\r\n$1\r\nz\r\n$4\r\n-inf\r\n$1\r\nn\r\n"
            "$19\r\n0.10000000000000001\r\n$1\r\n7\r\n$3\r\n1.5\r\n$1\r\nm\r\n");
  ASSERT_EQ(Run({"flushall"}), Ok());
  // A skiplist keeps -0 as it is; inf and 1e300 as "%.17g" prints them.
  ASSERT_EQ(Run({"config", "set", "zset-max-listpack-entries", "0"}), Ok());
  ASSERT_EQ(Run({"zadd", "z", "-0", "a", "inf", "b", "1e300", "c"}), Int(3));
  ExpectEncoding("z", "skiplist");
  EXPECT_EQ(RewriteOneKey(),
            "*8\r\n$4\r\nZADD\r\n$1\r\nz\r\n$2\r\n-0\r\n$1\r\na\r\n"
            "$23\r\n1.0000000000000001e+300\r\n$1\r\nc\r\n$3\r\ninf\r\n$1\r\nb\r\n");
  ASSERT_EQ(Run({"flushall"}), Ok());
  // A listpack hash in insertion order, as HMSET.
  ASSERT_EQ(Run({"hset", "h", "f", "v", "g", "10"}), Int(2));
  EXPECT_EQ(RewriteOneKey(),
            "*6\r\n$5\r\nHMSET\r\n$1\r\nh\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$2\r\n10\r\n");
}

TEST_F(AofRewriteTest, LargeValuesAreCutIntoCommandsOf64Items) {
  // 64 items fit one command; 65 need two; 130 need three (64, 64, 2).
  FillList("l64", 64);
  FillList("l65", 65);
  FillList("l130", 130);
  for (int i = 0; i < 130; i++) {
    ASSERT_EQ(Run({"zadd", "z130", std::to_string(i), "m" + std::to_string(i)}), Int(1));
    ASSERT_EQ(Run({"hset", "h130", "f" + std::to_string(i), "v"}), Int(1));
    ASSERT_EQ(Run({"sadd", "s130", std::to_string(i)}), Int(1));
  }
  const std::string bytes = Rewrite();
  // The argument counts of each key's commands, in order, and their command names.
  std::map<std::string, std::vector<size_t>> arg_counts;
  for (const std::vector<std::string>& command : ParseCommands(bytes)) {
    ASSERT_GE(command.size(), 2u);
    if (command[0] == "SELECT") continue;
    const std::string& key = command[1];
    const std::string expected_name = key[0] == 'l'   ? "RPUSH"
                                      : key[0] == 'z' ? "ZADD"
                                      : key[0] == 'h' ? "HMSET"
                                                      : "SADD";
    EXPECT_EQ(command[0], expected_name) << key;
    arg_counts[key].push_back(command.size());
  }
  EXPECT_EQ(arg_counts["l64"], (std::vector<size_t>{66}));
  EXPECT_EQ(arg_counts["l65"], (std::vector<size_t>{66, 3}));
  EXPECT_EQ(arg_counts["l130"], (std::vector<size_t>{66, 66, 4}));
  EXPECT_EQ(arg_counts["s130"], (std::vector<size_t>{66, 66, 4}));
  EXPECT_EQ(arg_counts["z130"], (std::vector<size_t>{130, 130, 6}));
  EXPECT_EQ(arg_counts["h130"], (std::vector<size_t>{130, 130, 6}));
  ExpectReplaysTheSame(bytes);
}

TEST_F(AofRewriteTest, EachDatabaseIsSelectedBeforeItsKeys) {
  ASSERT_EQ(Run({"set", "a", "0"}), Ok());
  ASSERT_EQ(Run({"select", "12"}), Ok());
  ASSERT_EQ(Run({"set", "a", "12"}), Ok());
  ASSERT_EQ(Run({"select", "0"}), Ok());
  const std::vector<std::vector<std::string>> commands = ParseCommands(Rewrite());
  const std::vector<std::vector<std::string>> expected = {
      {"SELECT", "0"}, {"SET", "a", "0"}, {"SELECT", "12"}, {"SET", "a", "12"}};
  EXPECT_EQ(commands, expected);
}

// Keys changed while the snapshot walks are saved as they were when it began, possibly in
// another database than the one the walk is in: the writer selects back and forth, and the
// replay still gives the keyspace of the snapshot's start.
TEST_F(AofRewriteTest, WritesDuringTheRewriteDoNotReachIt) {
  FillEverything();
  const std::string digest = DigestOf(*engine_);
  const Expiries expiries = ExpiriesOf(*engine_);
  AofCommandWriter writer;
  std::string bytes;
  {
    Snapshot snapshot(engine_->keyspace(), writer);
    ASSERT_TRUE(snapshot.Step(1));
    ASSERT_EQ(Run({"select", "15"}), Ok());
    ASSERT_EQ(Run({"del", "s"}), Int(1));
    ASSERT_EQ(Run({"select", "3"}), Ok());
    ASSERT_EQ(Run({"rpush", "list", "z"}), Int(3));
    ASSERT_EQ(Run({"persist", "z"}), Int(1));
    ASSERT_EQ(Run({"select", "0"}), Ok());
    ASSERT_EQ(Run({"zadd", "zskip", "99", "new"}), Int(1));
    ASSERT_EQ(Run({"set", "str", "changed"}), Ok());
    ASSERT_EQ(Run({"flushdb"}), Ok());
    while (snapshot.Step(16)) bytes += writer.TakeBytes();
  }
  bytes += writer.TakeBytes();
  // The keys saved ahead of the walk were in databases 15 and 3 (and 0): the writer selected
  // those before db 0's walk went on, so some database is selected more than once.
  size_t selects = 0;
  for (const std::vector<std::string>& command : ParseCommands(bytes)) {
    if (command[0] == "SELECT") selects++;
  }
  EXPECT_GT(selects, 3u);
  std::unique_ptr<Engine> replayed = Replay(bytes);
  EXPECT_EQ(DigestOf(*replayed), digest);
  EXPECT_EQ(ExpiriesOf(*replayed), expiries);
}

}  // namespace
}  // namespace keel
