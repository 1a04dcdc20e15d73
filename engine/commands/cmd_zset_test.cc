// Unit tests of the sorted-set family (cmd_zset.cc, cmd_zset_range.cc, cmd_zset_algebra.cc). The
// replies, errors and encodings named here were checked against redis-server 7.0.15.
#include <set>
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"
#include "engine/db/entry.h"
#include "engine/db/propagation.h"

namespace keel::testing {
namespace {

class ZsetCommandsTest : public StringTest {
 protected:
  void SetUp() override {
    StringTest::SetUp();
    StartEngine(ConfigWith({{"enable-debug-command", "yes"}}));
  }
  std::string Encoding(std::string_view key) { return Run({"object", "encoding", key}).text; }
  // The texts of an array reply, flattened one level.
  std::vector<std::string> Texts(const RespValue& reply) {
    std::vector<std::string> texts;
    for (const RespValue& element : reply.elements) texts.push_back(element.text);
    return texts;
  }
};

using Strings = std::vector<std::string>;

RespValue Double(std::string_view text) {
  RespValue value;
  value.type = RespType::kDouble;
  value.text = text;
  return value;
}

class CapturedPropagation final : public PropagationSink {
 public:
  void Propagate(int /*db*/, std::span<const std::string_view> args) override {
    if (args.size() == 1 && (args[0] == "MULTI" || args[0] == "EXEC")) return;
    commands.emplace_back(args.begin(), args.end());
  }
  std::vector<std::vector<std::string>> commands;
};

TEST_F(ZsetCommandsTest, ZaddOptionsAndReplies) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "1", "a"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "ch", "3", "a", "2", "b", "4", "c"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "nx", "9", "a", "5", "d"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "xx", "ch", "9", "a", "5", "e"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "gt", "ch", "1", "a", "10", "b"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "lt", "ch", "1", "a", "20", "b"}), Int(1));
  EXPECT_EQ(Run({"zscore", "z", "a"}), Bulk("1"));
  EXPECT_EQ(Run({"zscore", "z", "b"}), Bulk("10"));
  EXPECT_EQ(Run({"zadd", "z", "incr", "0.1", "a"}), Bulk("1.1000000000000001"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "incr", "1", "a"}), NilBulk());
  EXPECT_EQ(Run({"zadd", "z", "xx", "incr", "1", "nope"}), NilBulk());
  EXPECT_EQ(Run({"zincrby", "z", "-inf", "c"}), Bulk("-inf"));
  EXPECT_EQ(Run({"zincrby", "z", "+inf", "c"}), Err("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "xx", "1", "a"}),
            Err("ERR XX and NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "gt", "lt", "1", "a"}),
            Err("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "incr", "1", "a", "2", "b"}),
            Err("ERR INCR option supports a single increment-element pair"));
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zadd", "z", "nan", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", " 1", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "missing", "xx", "1", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  EXPECT_EQ(Run({"zcard", "z"}), Int(4));
  EXPECT_EQ(Run({"zmscore", "z", "a", "x", "c"}),
            Array({Bulk("1.1000000000000001"), NilBulk(), Bulk("-inf")}));
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"zadd", "s", "1", "a"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"zscore", "s", "a"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_F(ZsetCommandsTest, EncodingsFollowRedisRules) {
  ASSERT_EQ(Run({"config", "set", "zset-max-listpack-entries", "4"}), Ok());
  ASSERT_EQ(Run({"config", "set", "zset-max-ziplist-value", "5"}), Ok());
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"}), Int(4));
  EXPECT_EQ(Encoding("z"), "listpack");
  EXPECT_EQ(Run({"zadd", "z", "5", "e"}), Int(1));
  EXPECT_EQ(Encoding("z"), "skiplist");
  EXPECT_EQ(Run({"zrem", "z", "e", "d"}), Int(2));
  EXPECT_EQ(Encoding("z"), "skiplist");  // never back by removals
  EXPECT_EQ(Run({"zadd", "long", "1", "abcdef"}), Int(1));
  EXPECT_EQ(Encoding("long"), "skiplist");
  // A STORE converts its result back when it fits.
  EXPECT_EQ(Run({"zunionstore", "u", "1", "z"}), Int(3));
  EXPECT_EQ(Encoding("u"), "listpack");
  EXPECT_EQ(Run({"zrangestore", "r", "z", "0", "-1"}), Int(3));
  EXPECT_EQ(Encoding("r"), "listpack");
  // DUMP and RESTORE keep the encoding rules and the digest.
  for (const char* key : {"z", "u", "long"}) {
    const std::string payload = Run({"dump", key}).text;
    EXPECT_EQ(Run({"restore", std::string(key) + "2", "0", payload}), Ok());
    EXPECT_EQ(Run({"debug", "digest-value", std::string(key) + "2"}),
              Run({"debug", "digest-value", key}));
    EXPECT_EQ(Run({"zrange", std::string(key) + "2", "0", "-1", "withscores"}),
              Run({"zrange", key, "0", "-1", "withscores"}));
  }
  // A skiplist of 3 that fits the limits loads as a listpack.
  EXPECT_EQ(Encoding("z2"), "listpack");
}

TEST_F(ZsetCommandsTest, RangesByRankScoreAndLex) {
  ASSERT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Texts(Run({"zrange", "z", "1", "-2"})), (Strings{"b", "c", "d"}));
  EXPECT_EQ(Texts(Run({"zrange", "z", "0", "1", "rev", "withscores"})),
            (Strings{"e", "5", "d", "4"}));
  EXPECT_EQ(Texts(Run({"zrevrange", "z", "-2", "-1"})), (Strings{"b", "a"}));
  EXPECT_EQ(Texts(Run({"zrangebyscore", "z", "(1", "4", "limit", "1", "2"})), (Strings{"c", "d"}));
  EXPECT_EQ(Texts(Run({"zrange", "z", "(5", "-inf", "byscore", "rev", "limit", "0", "2"})),
            (Strings{"d", "c"}));
  EXPECT_EQ(Texts(Run({"zrevrangebyscore", "z", "+inf", "(", "limit", "-1", "2"})), Strings{});
  EXPECT_EQ(Run({"zcount", "z", "(1", "+inf"}), Int(4));
  EXPECT_EQ(Run({"zcount", "z", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrank", "z", "c"}), Int(2));
  EXPECT_EQ(Run({"zrevrank", "z", "c"}), Int(2));
  EXPECT_EQ(Run({"zrank", "z", "x"}), NilBulk());
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "limit", "0", "1"}),
            Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE "
                "or BYLEX"));
  ASSERT_EQ(Run({"zadd", "l", "0", "a", "0", "b", "0", "c", "0", "d"}), Int(4));
  EXPECT_EQ(Texts(Run({"zrangebylex", "l", "(a", "[c"})), (Strings{"b", "c"}));
  EXPECT_EQ(Texts(Run({"zrevrangebylex", "l", "+", "-", "limit", "1", "2"})), (Strings{"c", "b"}));
  EXPECT_EQ(Run({"zlexcount", "l", "-", "(c"}), Int(2));
  EXPECT_EQ(Run({"zlexcount", "l", "a", "+"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrange", "l", "-", "+", "bylex", "withscores"}),
            Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
  EXPECT_EQ(Run({"zremrangebylex", "l", "[b", "(d"}), Int(2));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "0", "1"}), Int(2));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "-inf", "(5"}), Int(2));
  EXPECT_EQ(Texts(Run({"zrange", "z", "0", "-1", "withscores"})), (Strings{"e", "5"}));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "5", "5"}), Int(1));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_F(ZsetCommandsTest, Resp3RepliesNestPairs) {
  ASSERT_EQ(Run({"zadd", "z", "1", "a", "2.5", "b"}), Int(2));
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zscore", "z", "b"}), Double("2.5"));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Array({Array({Bulk("a"), Double("1")}), Array({Bulk("b"), Double("2.5")})}));
  EXPECT_EQ(Run({"zpopmin", "z"}), Array({Bulk("a"), Double("1")}));
  EXPECT_EQ(Run({"zpopmax", "z", "5"}), Array({Array({Bulk("b"), Double("2.5")})}));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_F(ZsetCommandsTest, PopsAndZmpop) {
  ASSERT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  EXPECT_EQ(Texts(Run({"zpopmin", "z"})), (Strings{"a", "1"}));
  EXPECT_EQ(Run({"zpopmin", "z", "0"}), Array({}));
  EXPECT_EQ(Run({"zpopmin", "z", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"zpopmin", "missing"}), Array({}));
  CapturedPropagation sink;
  engine_->keyspace().propagation().AddSink(&sink);
  EXPECT_EQ(
      Run({"zmpop", "2", "missing", "z", "max", "count", "5"}),
      Array({Bulk("z"), Array({Array({Bulk("c"), Bulk("3")}), Array({Bulk("b"), Bulk("2")})})}));
  engine_->keyspace().propagation().RemoveSink(&sink);
  ASSERT_EQ(sink.commands.size(), 1u);
  EXPECT_EQ(sink.commands[0], (Strings{"ZPOPMAX", "z", "2"}));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zmpop", "1", "z", "min"}), NullArray());
  EXPECT_EQ(Run({"zmpop", "0", "z", "min"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"zmpop", "1", "z", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zmpop", "1", "z", "min", "count", "0"}),
            Err("ERR count should be greater than 0"));
}

TEST_F(ZsetCommandsTest, Algebra) {
  ASSERT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  ASSERT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  ASSERT_EQ(Run({"sadd", "s", "z", "q"}), Int(2));
  EXPECT_EQ(Texts(Run({"zinter", "2", "a", "b", "withscores"})), (Strings{"y", "12", "z", "23"}));
  EXPECT_EQ(Texts(Run({"zinter", "3", "a", "b", "s", "weights", "1", "0", "5", "aggregate", "max",
                       "withscores"})),
            (Strings{"z", "5"}));
  EXPECT_EQ(Texts(Run({"zunion", "2", "a", "s", "aggregate", "min", "withscores"})),
            (Strings{"q", "1", "x", "1", "z", "1", "y", "2"}));
  EXPECT_EQ(Texts(Run({"zdiff", "2", "a", "b", "withscores"})), (Strings{"x", "1"}));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b", "limit", "1"}), Int(1));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"zinterstore", "d", "2", "a", "b"}), Int(2));
  EXPECT_EQ(Texts(Run({"zrange", "d", "0", "-1", "withscores"})), (Strings{"y", "12", "z", "23"}));
  EXPECT_EQ(Run({"zdiffstore", "d", "2", "a", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"zunion", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zunion' command"));
  EXPECT_EQ(Run({"zunion", "3", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "weights", "x"}), Err("ERR weight value is not a float"));
  EXPECT_EQ(Run({"zdiff", "1", "a", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"set", "str", "v"}), Ok());
  EXPECT_EQ(Run({"zunion", "2", "a", "str", "bogus"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_F(ZsetCommandsTest, ScanAndRandom) {
  ASSERT_EQ(Run({"config", "set", "zset-max-listpack-entries", "8"}), Ok());
  for (int i = 0; i < 200; i++) {
    ASSERT_EQ(Run({"zadd", "z", std::to_string(i) + ".5", "m" + std::to_string(i)}), Int(1));
  }
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    const RespValue page = Run({"zscan", "z", cursor, "count", "20"});
    ASSERT_EQ(page.elements.size(), 2u);
    cursor = page.elements[0].text;
    const auto& items = page.elements[1].elements;
    ASSERT_EQ(items.size() % 2, 0u);
    for (size_t i = 0; i < items.size(); i += 2) {
      seen.insert(items[i].text);
      EXPECT_EQ(items[i + 1].text, items[i].text.substr(1) + ".5");
    }
  } while (cursor != "0" && ++calls < 1000);
  EXPECT_EQ(seen.size(), 200u);
  const RespValue drawn = Run({"zrandmember", "z", "50", "withscores"});
  ASSERT_EQ(drawn.elements.size(), 100u);
  std::set<std::string> distinct;
  for (size_t i = 0; i < drawn.elements.size(); i += 2) distinct.insert(drawn.elements[i].text);
  EXPECT_EQ(distinct.size(), 50u);
  EXPECT_EQ(Run({"zrandmember", "z", "-300"}).elements.size(), 300u);
  EXPECT_EQ(Run({"zrandmember", "z", "1", "withscores", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrandmember", "missing"}), NilBulk());
}

// ZRANDMEMBER with a huge negative count ends when nobody reads its reply (a loop of 2^62 draws
// would never end otherwise).
TEST_F(ZsetCommandsTest, UnboundedDrawsStopWithTheirReader) {
  ASSERT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  EXPECT_EQ(RunRaw({"client", "reply", "off"}), "");
  EXPECT_EQ(RunRaw({"zrandmember", "z", "-4611686018427387903", "withscores"}), "");
  EXPECT_EQ(RunRaw({"zrandmember", "z", "-9223372036854775807"}), "");
  EXPECT_EQ(RunRaw({"client", "reply", "on"}), "+OK\r\n");
  EXPECT_EQ(Run({"zcard", "z"}), Int(2));
}

TEST_F(ZsetCommandsTest, RefusedMemoryChangesNothing) {
  ASSERT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes());
  const RespValue oom = Err("OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_EQ(Run({"zadd", "z", "3", "c", "0", "a"}), oom);
  EXPECT_EQ(Run({"zadd", "new", "1", "a"}), oom);
  EXPECT_EQ(Run({"zunionstore", "u", "1", "z"}), oom);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Texts(Run({"zrange", "z", "0", "-1", "withscores"})), (Strings{"a", "1", "b", "2"}));
  EXPECT_EQ(Run({"exists", "new", "u"}), Int(0));
}

}  // namespace
}  // namespace keel::testing
