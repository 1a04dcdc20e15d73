// Unit tests of the hash family (cmd_hash.cc, cmd_hash_random.cc). The replies, errors and
// encodings named here were first checked against redis-server 7.0.15; the field order of a
// hashtable is Keel's own, so such replies are compared sorted.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"
#include "engine/db/entry.h"
#include "engine/db/propagation.h"

namespace keel::testing {
namespace {

using Strings = std::vector<std::string>;

class HashCommandsTest : public StringTest {
 protected:
  void SetUp() override {
    StringTest::SetUp();
    StartEngine(ConfigWith({{"enable-debug-command", "yes"}}));
  }
  static Strings Texts(const RespValue& reply) {
    Strings texts;
    for (const RespValue& element : reply.elements) texts.push_back(element.text);
    return texts;
  }
  static Strings Sorted(const RespValue& reply) {
    Strings texts = Texts(reply);
    std::sort(texts.begin(), texts.end());
    return texts;
  }
  // HGETALL as a map of field to value.
  std::map<std::string, std::string> All(std::string_view key) {
    const Strings flat = Texts(Run({"hgetall", key}));
    std::map<std::string, std::string> all;
    for (size_t i = 0; i + 1 < flat.size(); i += 2) all[flat[i]] = flat[i + 1];
    return all;
  }
  std::string Encoding(std::string_view key) { return Run({"object", "encoding", key}).text; }
};

class CapturedPropagation final : public PropagationSink {
 public:
  void Propagate(int /*db*/, std::span<const std::string_view> args) override {
    if (args.size() == 1 && (args[0] == "MULTI" || args[0] == "EXEC")) return;
    commands.emplace_back(args.begin(), args.end());
  }
  std::vector<std::vector<std::string>> commands;
};

const RespValue kWrongType =
    Err("WRONGTYPE Operation against a key holding the wrong kind of value");

TEST_F(HashCommandsTest, SetGetDeleteAndCount) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "a", "3"}), Int(2));
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("3"));
  EXPECT_EQ(Run({"hget", "h", "x"}), NilBulk());
  EXPECT_EQ(Run({"hget", "missing", "x"}), NilBulk());
  EXPECT_EQ(Run({"hmset", "h", "c", "33"}), Ok());
  EXPECT_EQ(Run({"hsetnx", "h", "c", "no"}), Int(0));
  EXPECT_EQ(Run({"hsetnx", "h", "d", "4"}), Int(1));
  EXPECT_EQ(Run({"hlen", "h"}), Int(4));
  EXPECT_EQ(Run({"hlen", "missing"}), Int(0));
  EXPECT_EQ(Run({"hstrlen", "h", "c"}), Int(2));
  EXPECT_EQ(Run({"hstrlen", "h", "x"}), Int(0));
  EXPECT_EQ(Run({"hexists", "h", "d"}), Int(1));
  EXPECT_EQ(Run({"hexists", "h", "x"}), Int(0));
  EXPECT_EQ(Run({"hmget", "h", "a", "x", "d"}), Array({Bulk("3"), NilBulk(), Bulk("4")}));
  EXPECT_EQ(Run({"hmget", "missing", "a"}), Array({NilBulk()}));
  // A listpack keeps insertion order, as Redis's does.
  EXPECT_EQ(Texts(Run({"hkeys", "h"})), (Strings{"a", "b", "c", "d"}));
  EXPECT_EQ(Texts(Run({"hvals", "h"})), (Strings{"3", "2", "33", "4"}));
  EXPECT_EQ(Texts(Run({"hgetall", "h"})), (Strings{"a", "3", "b", "2", "c", "33", "d", "4"}));
  EXPECT_EQ(Run({"hgetall", "missing"}), Array({}));
  EXPECT_EQ(Run({"hdel", "h", "a", "x", "a"}), Int(1));
  EXPECT_EQ(Run({"hdel", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"hdel", "h", "b", "c", "d", "e"}), Int(3));
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
  EXPECT_EQ(Run({"hset", "h", "a"}), Err("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b"}),
            Err("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(Run({"HMSET", "h", "a", "1", "b"}),
            Err("ERR wrong number of arguments for 'hmset' command"));
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
}

TEST_F(HashCommandsTest, EncodingsFollowRedisRules) {
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  EXPECT_EQ(Encoding("h"), "listpack");
  EXPECT_EQ(Run({"type", "h"}), Status("hash"));
  // A value longer than hash-max-listpack-value converts before the write.
  EXPECT_EQ(Run({"hset", "h", "long", std::string(65, 'x')}), Int(1));
  EXPECT_EQ(Encoding("h"), "hashtable");
  EXPECT_EQ(Run({"hdel", "h", "long"}), Int(1));
  EXPECT_EQ(Encoding("h"), "hashtable");
  EXPECT_EQ(Run({"hset", "f64", "f", std::string(64, 'x')}), Int(1));
  EXPECT_EQ(Encoding("f64"), "listpack");
  // Past hash-max-listpack-entries (and its ziplist alias).
  EXPECT_EQ(Run({"config", "set", "hash-max-ziplist-entries", "3"}), Ok());
  EXPECT_EQ(Run({"config", "get", "hash-max-listpack-entries"}),
            Array({Bulk("hash-max-listpack-entries"), Bulk("3")}));
  EXPECT_EQ(Run({"hset", "n", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(Encoding("n"), "listpack");
  EXPECT_EQ(Run({"hset", "n", "c", "4"}), Int(0));
  EXPECT_EQ(Encoding("n"), "listpack");
  EXPECT_EQ(Run({"hset", "n", "d", "4"}), Int(1));
  EXPECT_EQ(Encoding("n"), "hashtable");
  EXPECT_EQ(All("n"),
            (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}, {"c", "4"}, {"d", "4"}}));
  // HINCRBY with a long field converts too (hashTypeSet's check).
  EXPECT_EQ(Run({"hincrby", "i", std::string(70, 'f'), "1"}), Int(1));
  EXPECT_EQ(Encoding("i"), "hashtable");
  EXPECT_EQ(Run({"config", "set", "hash-max-listpack-value", "0"}), Ok());
  EXPECT_EQ(Run({"hset", "z", "", ""}), Int(1));
  EXPECT_EQ(Encoding("z"), "listpack");
}

TEST_F(HashCommandsTest, WrongType) {
  ASSERT_EQ(Run({"set", "s", "x"}), Ok());
  for (const Strings& command :
       {Strings{"hset", "s", "a", "1"}, Strings{"hsetnx", "s", "a", "1"}, Strings{"hget", "s", "a"},
        Strings{"hmget", "s", "a"}, Strings{"hdel", "s", "a"}, Strings{"hlen", "s"},
        Strings{"hstrlen", "s", "a"}, Strings{"hexists", "s", "a"}, Strings{"hkeys", "s"},
        Strings{"hvals", "s"}, Strings{"hgetall", "s"}, Strings{"hincrby", "s", "a", "1"},
        Strings{"hincrbyfloat", "s", "a", "1"}, Strings{"hrandfield", "s"},
        Strings{"hrandfield", "s", "2"}, Strings{"hscan", "s", "0"}}) {
    EXPECT_EQ(Run(command), kWrongType) << command[0];
  }
  ASSERT_EQ(Run({"hset", "h", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"get", "h"}), kWrongType);
  EXPECT_EQ(Run({"sadd", "h", "a"}), kWrongType);
}

TEST_F(HashCommandsTest, Counters) {
  EXPECT_EQ(Run({"hincrby", "h", "n", "5"}), Int(5));
  EXPECT_EQ(Run({"hincrby", "h", "n", "-7"}), Int(-2));
  EXPECT_EQ(Run({"hincrby", "h", "n", "x"}), Err("ERR value is not an integer or out of range"));
  ASSERT_EQ(Run({"hset", "h", "s", "abc", "big", "9223372036854775807"}), Int(2));
  EXPECT_EQ(Run({"hincrby", "h", "s", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(Run({"hincrby", "h", "big", "1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "f", "1.5"}), Bulk("1.5"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "f", "0.1"}), Bulk("1.6"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "n", "2"}), Bulk("0"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "s", "1"}), Err("ERR hash value is not a float"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "f", "x"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "f", "inf"}), Err("ERR value is NaN or Infinity"));
  ASSERT_EQ(Run({"hset", "h", "huge", "1e4932"}), Int(1));
  // A value that is not an integer cannot be added to, nor go past the long double range.
  EXPECT_EQ(Run({"hincrbyfloat", "h", "huge", "1e4932"}),
            Err("ERR increment would produce NaN or Infinity"));
}

TEST_F(HashCommandsTest, IncrbyfloatPropagatesAsHset) {
  CapturedPropagation sink;
  engine_->keyspace().propagation().AddSink(&sink);
  ASSERT_EQ(Run({"hincrbyfloat", "h", "f", "2.50"}), Bulk("2.5"));
  ASSERT_EQ(Run({"hincrby", "h", "i", "3"}), Int(3));
  engine_->keyspace().propagation().RemoveSink(&sink);
  ASSERT_EQ(sink.commands.size(), 2u);
  EXPECT_EQ(sink.commands[0], (Strings{"HSET", "h", "f", "2.5"}));
  EXPECT_EQ(sink.commands[1], (Strings{"hincrby", "h", "i", "3"}));
}

TEST_F(HashCommandsTest, RandomFieldsWithCounts) {
  ASSERT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"}), Int(5));
  const std::set<std::string> fields = {"a", "b", "c", "d", "e"};
  EXPECT_TRUE(fields.count(Run({"hrandfield", "h"}).text));
  EXPECT_EQ(Run({"hrandfield", "missing"}), NilBulk());
  EXPECT_EQ(Run({"hrandfield", "missing", "3"}), Array({}));
  EXPECT_EQ(Run({"hrandfield", "h", "0"}), Array({}));
  // Positive: distinct, at most the hash.
  for (int count : {1, 2, 4, 5, 9}) {
    const Strings drawn = Sorted(Run({"hrandfield", "h", std::to_string(count)}));
    EXPECT_EQ(drawn.size(), static_cast<size_t>(std::min(count, 5)));
    EXPECT_EQ(std::set<std::string>(drawn.begin(), drawn.end()).size(), drawn.size());
  }
  // Negative: repeats allowed, exactly the count.
  EXPECT_EQ(Run({"hrandfield", "h", "-20"}).elements.size(), 20u);
  // WITHVALUES: flat in RESP2, pairs in RESP3; the value is the field's.
  const RespValue flat = Run({"hrandfield", "h", "-3", "withvalues"});
  ASSERT_EQ(flat.elements.size(), 6u);
  for (size_t i = 0; i < 6; i += 2) {
    EXPECT_EQ(static_cast<char>(flat.elements[i].text[0] - 'a' + '1'),
              flat.elements[i + 1].text[0]);
  }
  EXPECT_EQ(Run({"hrandfield", "h", "3", "withvalues"}).elements.size(), 6u);
  ASSERT_EQ(Run({"hello", "3"}).type, RespType::kMap);
  const RespValue nested = Run({"hrandfield", "h", "2", "withvalues"});
  ASSERT_EQ(nested.elements.size(), 2u);
  EXPECT_EQ(nested.elements[0].elements.size(), 2u);
  EXPECT_EQ(Run({"hrandfield", "h", "1", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hrandfield", "h", "1", "withvalues", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hrandfield", "h", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"hrandfield", "h", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"hrandfield", "h", "-9223372036854775807", "withvalues"}),
            Err("ERR value is out of range"));
}

TEST_F(HashCommandsTest, HscanVisitsEveryPair) {
  ASSERT_EQ(Run({"hset", "small", "a", "1", "b", "2"}), Int(2));
  // A listpack comes back whole with cursor 0, whatever COUNT says.
  EXPECT_EQ(Run({"hscan", "small", "0", "count", "1"}),
            Array({Bulk("0"), Array({Bulk("a"), Bulk("1"), Bulk("b"), Bulk("2")})}));
  EXPECT_EQ(Run({"hscan", "small", "0", "match", "b*"}),
            Array({Bulk("0"), Array({Bulk("b"), Bulk("2")})}));
  std::vector<std::string> args = {"hset", "big"};
  for (int i = 0; i < 1000; i++) {
    args.push_back("f" + std::to_string(i));
    args.push_back("v" + std::to_string(i));
  }
  ASSERT_EQ(Run(args), Int(1000));
  ASSERT_EQ(Encoding("big"), "hashtable");
  std::map<std::string, std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    const RespValue page = Run({"hscan", "big", cursor, "count", "50"});
    cursor = page.elements[0].text;
    const Strings items = Texts(page.elements[1]);
    ASSERT_EQ(items.size() % 2, 0u);
    for (size_t i = 0; i < items.size(); i += 2) seen[items[i]] = items[i + 1];
  } while (cursor != "0" && ++calls < 1000);
  EXPECT_GT(calls, 1);
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(seen["f7"], "v7");
  EXPECT_EQ(Run({"hscan", "missing", "0", "bad"}), Array({Bulk("0"), Array({})}));
  EXPECT_EQ(Run({"hscan", "small", "0", "count", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hscan", "small", "0", "count", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"hscan", "small", "x"}), Err("ERR invalid cursor"));
}

// The bytes of redis-server 7.0.15's DUMP of HSET h a 1 bb xyz (a listpack), in both directions.
TEST_F(HashCommandsTest, DumpMatchesRedisAndRestoresBothEncodings) {
  const std::string redis_dump(
      "\x10\x15\x15\x00\x00\x00\x04\x00\x81\x61\x02\x01\x01\x82\x62\x62\x03\x83\x78\x79\x7a\x04"
      "\xff\x0a\x00\xf3\x34\x16\x7f\x09\x9a\xc1\x37",
      33);
  ASSERT_EQ(Run({"hset", "h", "a", "1", "bb", "xyz"}), Int(2));
  EXPECT_EQ(Run({"dump", "h"}), Bulk(redis_dump));
  EXPECT_EQ(Run({"restore", "r", "0", redis_dump}), Ok());
  EXPECT_EQ(Texts(Run({"hgetall", "r"})), (Strings{"a", "1", "bb", "xyz"}));
  EXPECT_EQ(Encoding("r"), "listpack");
  EXPECT_EQ(Run({"debug", "digest-value", "r"}), Run({"debug", "digest-value", "h"}));
  ASSERT_EQ(Run({"hset", "t", "long", std::string(100, 'v'), "n", "12"}), Int(2));
  const std::string payload = Run({"dump", "t"}).text;
  EXPECT_EQ(payload[0], 4);  // RDB_TYPE_HASH
  EXPECT_EQ(Run({"restore", "t2", "0", payload}), Ok());
  EXPECT_EQ(Encoding("t2"), "hashtable");
  EXPECT_EQ(All("t2"), All("t"));
  EXPECT_EQ(Run({"debug", "digest-value", "t2"}), Run({"debug", "digest-value", "t"}));
  // The digest does not depend on the order the fields came in.
  ASSERT_EQ(Run({"hset", "h2", "bb", "xyz", "a", "1"}), Int(2));
  EXPECT_EQ(Run({"debug", "digest-value", "h2"}), Run({"debug", "digest-value", "h"}));
  // The values redis-server 7.0.15 gives (xorDigest hashes each pair's digest before xor-ing
  // it: Keel once xor-ed the pair digests themselves, and every hash digested differently).
  ASSERT_EQ(Run({"hset", "f", "f", "v"}), Int(1));
  ASSERT_EQ(Run({"hset", "ab", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"debug", "digest-value", "f"}),
            Array({Status("90c76e9e9f4c62d642a34fc97c7dad503b51f906")}));
  EXPECT_EQ(Run({"debug", "digest-value", "ab"}),
            Array({Status("6c8f22b3bf510fdcfd6122dd0f908a80e88243bf")}));
  EXPECT_EQ(Run({"copy", "t", "t3"}), Int(1));
  EXPECT_EQ(All("t3"), All("t"));
}

// redis-server 7.0.15 restores these payloads of older versions: a ziplist (RDB_TYPE_HASH_ZIPLIST
// from Redis 6.2, HSET h a 1 bb xyz) and a zipmap (RDB_TYPE_HASH_ZIPMAP, Redis 2.4).
TEST_F(HashCommandsTest, RestoresOlderEncodings) {
  ASSERT_EQ(Run({"debug", "set-skip-checksum-validation", "1"}), Ok());
  const std::string ziplist(
      "\x0d\x19\x19\x00\x00\x00\x13\x00\x00\x00\x04\x00\x00\x01\x61\x03\xf2\x02\x02\x62\x62\x04"
      "\x03\x78\x79\x7a\xff\x09\x00\x00\x00\x00\x00\x00\x00\x00\x00",
      37);
  EXPECT_EQ(Run({"restore", "z", "0", ziplist}), Ok());
  EXPECT_EQ(Texts(Run({"hgetall", "z"})), (Strings{"a", "1", "bb", "xyz"}));
  EXPECT_EQ(Encoding("z"), "listpack");
  const std::string zipmap(
      "\x09\x0f\x02\x01\x61\x01\x00\x31\x02\x62\x62\x03\x00\x78\x79\x7a\xff\x09\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00",
      27);
  EXPECT_EQ(Run({"restore", "m", "0", zipmap}), Ok());
  EXPECT_EQ(Texts(Run({"hgetall", "m"})), (Strings{"a", "1", "bb", "xyz"}));
}

TEST_F(HashCommandsTest, RestoreRefusesCorruptPayloads) {
  ASSERT_EQ(Run({"hset", "h", "long", std::string(100, 'v'), "aa", "1"}), Int(2));
  const std::string payload = Run({"dump", "h"}).text;
  ASSERT_EQ(Run({"debug", "set-skip-checksum-validation", "1"}), Ok());
  std::string more = payload;
  more[1] = 9;
  EXPECT_EQ(Run({"restore", "x", "0", more}), Err("ERR Bad data format"));
  std::string none = payload;
  none[1] = 0;
  EXPECT_EQ(Run({"restore", "x", "0", none}), Err("ERR Bad data format"));
  // RDB_TYPE_HASH with field "aa" twice (refused as redis-server refuses it with
  // sanitize-dump-payload yes: Keel always sanitises), and with a value missing.
  const std::string footer("\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10);
  const std::string twice =
      std::string("\x04\x02\x02\x61\x61\x01\x31\x02\x61\x61\x01\x32", 12) + footer;
  EXPECT_EQ(Run({"restore", "x", "0", std::string("\x04\x01\x02\x61\x61", 5) + footer}),
            Err("ERR Bad data format"));
  EXPECT_EQ(Run({"restore", "x", "0", twice}), Err("ERR Bad data format"));
  EXPECT_EQ(Run({"exists", "x"}), Int(0));
}

TEST_F(HashCommandsTest, RefusedMemoryChangesNothing) {
  ASSERT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  std::vector<std::string> args = {"hset", "t"};
  for (int i = 0; i < 600; i++) {
    args.push_back("f" + std::to_string(i));
    args.push_back("v");
  }
  ASSERT_EQ(Run(args), Int(600));
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes());
  const RespValue oom = Err("OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_EQ(Run({"hset", "h", "c", "3", "d", std::string(100, 'x')}), oom);
  EXPECT_EQ(Run({"hset", "h", "a", "a longer value"}), oom);
  EXPECT_EQ(Run({"hset", "new", "a", "1"}), oom);
  EXPECT_EQ(Run({"hincrbyfloat", "h", std::string(80, 'f'), "1"}), oom);
  std::vector<std::string> many = {"hset", "t", "f1", "changed", "f2", "changed too"};
  for (int i = 600; i < 700; i++) {
    many.push_back("f" + std::to_string(i));
    many.push_back("v");
  }
  EXPECT_EQ(Run(many), oom);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Texts(Run({"hgetall", "h"})), (Strings{"a", "1", "b", "2"}));
  EXPECT_EQ(Encoding("h"), "listpack");
  EXPECT_EQ(Run({"exists", "new"}), Int(0));
  EXPECT_EQ(Run({"hlen", "t"}), Int(600));
  EXPECT_EQ(Run({"hget", "t", "f1"}), Bulk("v"));
}

}  // namespace
// The rdb_load fuzzer's find: updating the one large field of a hashtable hash with a value of
// another size compacted the arena, found the old record still most of it, and compacted again
// until the stack overflowed (two HSETs crashed the server).
TEST_F(HashCommandsTest, UpdatingALargeFieldWithAnotherSizeDoesNotRecurse) {
  ASSERT_EQ(Run({"hset", "h", "f", std::string(5000, 'a')}), Int(1));
  EXPECT_EQ(Run({"hset", "h", "f", std::string(6000, 'b')}), Int(0));
  EXPECT_EQ(Run({"hget", "h", "f"}), Bulk(std::string(6000, 'b')));
  EXPECT_EQ(Run({"hset", "h", "f", std::string(4097, 'c'), "g", "1"}), Int(1));
  EXPECT_EQ(Run({"hset", "h", "f", std::string(9000, 'd')}), Int(0));
  EXPECT_EQ(Run({"hstrlen", "h", "f"}), Int(9000));
  EXPECT_EQ(Run({"hget", "h", "g"}), Bulk("1"));
  EXPECT_EQ(Run({"hlen", "h"}), Int(2));
}

}  // namespace keel::testing
