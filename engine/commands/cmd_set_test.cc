// Unit tests of the set family (cmd_set.cc, cmd_set_random.cc, cmd_set_algebra.cc). The replies,
// errors and encodings named here were first checked against redis-server 7.0.15; the member
// order of a hashtable is Keel's own, so members are compared sorted.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"
#include "engine/db/entry.h"
#include "engine/db/propagation.h"

namespace keel::testing {
namespace {

class SetCommandsTest : public StringTest {
 protected:
  void SetUp() override {
    StringTest::SetUp();
    StartEngine(ConfigWith({{"enable-debug-command", "yes"}}));
  }
  // The bulk strings of an array (or set) reply, sorted.
  static std::vector<std::string> Sorted(const RespValue& reply) {
    std::vector<std::string> members;
    for (const RespValue& element : reply.elements) members.push_back(element.text);
    std::sort(members.begin(), members.end());
    return members;
  }
  std::vector<std::string> Members(std::string_view key) { return Sorted(Run({"smembers", key})); }
  std::string Encoding(std::string_view key) { return Run({"object", "encoding", key}).text; }
};

using Strings = std::vector<std::string>;

// What the engine propagates, without MULTI/EXEC.
class CapturedPropagation final : public PropagationSink {
 public:
  void Propagate(int /*db*/, std::span<const std::string_view> args) override {
    if (args.size() == 1 && (args[0] == "MULTI" || args[0] == "EXEC")) return;
    commands.emplace_back(args.begin(), args.end());
  }
  std::vector<std::vector<std::string>> commands;
};

TEST_F(SetCommandsTest, AddRemoveAndCount) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "a"}), Int(2));
  EXPECT_EQ(Run({"sadd", "s", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"scard", "s"}), Int(3));
  EXPECT_EQ(Run({"scard", "missing"}), Int(0));
  EXPECT_EQ(Members("s"), (Strings{"a", "b", "c"}));
  EXPECT_EQ(Run({"srem", "s", "a", "x", "a"}), Int(1));
  EXPECT_EQ(Run({"srem", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"sismember", "s", "b"}), Int(1));
  EXPECT_EQ(Run({"sismember", "s", "a"}), Int(0));
  EXPECT_EQ(Run({"smismember", "s", "a", "b", "c"}), Array({Int(0), Int(1), Int(1)}));
  EXPECT_EQ(Run({"smismember", "missing", "a"}), Array({Int(0)}));
  // Emptied: the key goes.
  EXPECT_EQ(Run({"srem", "s", "b", "c", "d"}), Int(2));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  EXPECT_EQ(Run({"smembers", "s"}), Array({}));
  EXPECT_EQ(Run({"sadd", "s"}), Err("ERR wrong number of arguments for 'sadd' command"));
}

TEST_F(SetCommandsTest, EncodingsFollowRedisRules) {
  EXPECT_EQ(Run({"sadd", "ints", "1", "2", "-3"}), Int(3));
  EXPECT_EQ(Encoding("ints"), "intset");
  EXPECT_EQ(Run({"type", "ints"}), Status("set"));
  EXPECT_EQ(Members("ints"), (Strings{"-3", "1", "2"}));
  EXPECT_EQ(Run({"sadd", "ints", "x"}), Int(1));
  EXPECT_EQ(Encoding("ints"), "hashtable");
  // Back to integers only: still a hashtable.
  EXPECT_EQ(Run({"srem", "ints", "x"}), Int(1));
  EXPECT_EQ(Encoding("ints"), "hashtable");
  EXPECT_EQ(Run({"sadd", "word", "007"}), Int(1));
  EXPECT_EQ(Encoding("word"), "hashtable");
  // Past set-max-intset-entries.
  EXPECT_EQ(Run({"config", "set", "set-max-intset-entries", "3"}), Ok());
  EXPECT_EQ(Run({"sadd", "n", "1", "2", "3"}), Int(3));
  EXPECT_EQ(Encoding("n"), "intset");
  EXPECT_EQ(Run({"sadd", "n", "4"}), Int(1));
  EXPECT_EQ(Encoding("n"), "hashtable");
}

TEST_F(SetCommandsTest, WrongType) {
  ASSERT_EQ(Run({"set", "str", "v"}), Ok());
  const RespValue wrong = Err("WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(Run({"sadd", "str", "a"}), wrong);
  EXPECT_EQ(Run({"srem", "str", "a"}), wrong);
  EXPECT_EQ(Run({"scard", "str"}), wrong);
  EXPECT_EQ(Run({"smembers", "str"}), wrong);
  EXPECT_EQ(Run({"spop", "str"}), wrong);
  EXPECT_EQ(Run({"srandmember", "str", "2"}), wrong);
  EXPECT_EQ(Run({"sinter", "missing", "str"}), wrong);
  EXPECT_EQ(Run({"sunionstore", "d", "str"}), wrong);
  EXPECT_EQ(Run({"sscan", "str", "0"}), wrong);
  ASSERT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"get", "s"}), wrong);
  EXPECT_EQ(Run({"append", "s", "x"}), wrong);
  EXPECT_EQ(Run({"smove", "s", "str", "a"}), wrong);
  EXPECT_EQ(Members("s"), (Strings{"a"}));
}

TEST_F(SetCommandsTest, RandomMembersWithCounts) {
  for (int i = 0; i < 50; i++) ASSERT_EQ(Run({"sadd", "s", "m" + std::to_string(i)}), Int(1));
  const std::set<std::string> all = [&] {
    const Strings members = Members("s");
    return std::set<std::string>(members.begin(), members.end());
  }();
  // Positive counts: distinct members, at most the set's size (cases 2, 3 and 4).
  for (const char* count : {"1", "5", "20", "49", "50", "200"}) {
    SCOPED_TRACE(count);
    const Strings drawn = Sorted(Run({"srandmember", "s", count}));
    EXPECT_EQ(drawn.size(), std::min<size_t>(std::stoul(count), 50));
    EXPECT_EQ(std::set<std::string>(drawn.begin(), drawn.end()).size(), drawn.size());
    for (const std::string& member : drawn) EXPECT_TRUE(all.count(member)) << member;
  }
  // Negative counts repeat members.
  const Strings repeated = Sorted(Run({"srandmember", "s", "-200"}));
  EXPECT_EQ(repeated.size(), 200u);
  EXPECT_LT(std::set<std::string>(repeated.begin(), repeated.end()).size(), 200u);
  EXPECT_EQ(Run({"srandmember", "s", "0"}), Array({}));
  EXPECT_EQ(Run({"srandmember", "missing", "3"}), Array({}));
  EXPECT_EQ(Run({"srandmember", "missing"}), NilBulk());
  EXPECT_TRUE(all.count(Run({"srandmember", "s"}).text));
  EXPECT_EQ(Run({"srandmember", "s", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"srandmember", "s", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"srandmember", "s", "1", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scard", "s"}), Int(50));
}

TEST_F(SetCommandsTest, PopRemovesWhatItReturns) {
  for (int i = 0; i < 30; i++) ASSERT_EQ(Run({"sadd", "s", std::to_string(i)}), Int(1));
  std::set<std::string> popped;
  const std::string one = Run({"spop", "s"}).text;
  popped.insert(one);
  EXPECT_EQ(Run({"sismember", "s", one}), Int(0));
  // A small count (members drawn one by one), then a large one (the remainder kept).
  for (const char* count : {"3", "20"}) {
    const Strings drawn = Sorted(Run({"spop", "s", count}));
    EXPECT_EQ(drawn.size(), std::stoul(count));
    for (const std::string& member : drawn) {
      EXPECT_TRUE(popped.insert(member).second) << member;
      EXPECT_EQ(Run({"sismember", "s", member}), Int(0));
    }
  }
  EXPECT_EQ(Run({"scard", "s"}), Int(6));
  EXPECT_EQ(Encoding("s"), "intset");
  const Strings rest = Sorted(Run({"spop", "s", "100"}));
  EXPECT_EQ(rest.size(), 6u);
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  EXPECT_EQ(Run({"spop", "s"}), NilBulk());
  EXPECT_EQ(Run({"spop", "s", "0"}), Array({}));
  EXPECT_EQ(Run({"spop", "s", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"spop", "s", "x"}), Err("ERR value is out of range, must be positive"));
}

TEST_F(SetCommandsTest, PopPropagatesWhatItRemoved) {
  CapturedPropagation sink;
  engine_->keyspace().propagation().AddSink(&sink);
  for (int i = 0; i < 10; i++) ASSERT_EQ(Run({"sadd", "s", "m" + std::to_string(i)}), Int(1));
  // One member: SREM of it. A small count (drawn one by one) and a large one (the remainder
  // kept): one SREM per popped member. The whole set: DEL.
  for (const char* count : {"", "2", "6"}) {
    SCOPED_TRACE(count);
    sink.commands.clear();
    const RespValue reply = *count == 0 ? Run({"spop", "s"}) : Run({"spop", "s", count});
    const Strings popped = *count == 0 ? Strings{reply.text} : Sorted(reply);
    Strings removed;
    for (const std::vector<std::string>& command : sink.commands) {
      ASSERT_EQ(command.size(), 3u);
      EXPECT_EQ(command[0], "SREM");
      EXPECT_EQ(command[1], "s");
      removed.push_back(command[2]);
    }
    std::sort(removed.begin(), removed.end());
    EXPECT_EQ(removed, popped);
  }
  sink.commands.clear();
  EXPECT_EQ(Sorted(Run({"spop", "s", "10"})).size(), 1u);
  EXPECT_EQ(sink.commands, (std::vector<std::vector<std::string>>{{"DEL", "s"}}));
  engine_->keyspace().propagation().RemoveSink(&sink);
}

TEST_F(SetCommandsTest, PopWithLargeCountRebuildsTheEncoding) {
  // Redis builds the kept remainder as a new set: integers only make it an intset again.
  ASSERT_EQ(Run({"sadd", "s", "a", "1", "2", "3", "4", "5", "6", "7", "8", "9"}), Int(10));
  ASSERT_EQ(Encoding("s"), "hashtable");
  std::string kept_word;
  const Strings popped = Sorted(Run({"spop", "s", "9"}));
  ASSERT_EQ(popped.size(), 9u);
  const bool word_kept = std::find(popped.begin(), popped.end(), "a") == popped.end();
  EXPECT_EQ(Encoding("s"), word_kept ? "hashtable" : "intset");
}

TEST_F(SetCommandsTest, Smove) {
  ASSERT_EQ(Run({"sadd", "src", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"smove", "src", "dst", "a"}), Int(1));
  EXPECT_EQ(Members("src"), (Strings{"b"}));
  EXPECT_EQ(Members("dst"), (Strings{"a"}));
  EXPECT_EQ(Run({"smove", "src", "dst", "x"}), Int(0));
  EXPECT_EQ(Run({"smove", "missing", "dst", "a"}), Int(0));
  EXPECT_EQ(Run({"smove", "src", "src", "b"}), Int(1));
  EXPECT_EQ(Run({"smove", "src", "src", "z"}), Int(0));
  // The last member moves: the source goes.
  EXPECT_EQ(Run({"smove", "src", "dst", "b"}), Int(1));
  EXPECT_EQ(Run({"exists", "src"}), Int(0));
  EXPECT_EQ(Members("dst"), (Strings{"a", "b"}));
  // Into an intset: a word converts it.
  ASSERT_EQ(Run({"sadd", "ints", "1"}), Int(1));
  EXPECT_EQ(Run({"smove", "dst", "ints", "a"}), Int(1));
  EXPECT_EQ(Encoding("ints"), "hashtable");
}

TEST_F(SetCommandsTest, Algebra) {
  ASSERT_EQ(Run({"sadd", "a", "1", "2", "3", "x"}), Int(4));
  ASSERT_EQ(Run({"sadd", "b", "2", "3", "4"}), Int(3));
  ASSERT_EQ(Run({"sadd", "c", "3", "x", "y"}), Int(3));
  EXPECT_EQ(Sorted(Run({"sinter", "a", "b"})), (Strings{"2", "3"}));
  EXPECT_EQ(Sorted(Run({"sinter", "a", "b", "c"})), (Strings{"3"}));
  EXPECT_EQ(Run({"sinter", "a", "missing"}), Array({}));
  EXPECT_EQ(Sorted(Run({"sunion", "a", "missing", "b"})), (Strings{"1", "2", "3", "4", "x"}));
  EXPECT_EQ(Sorted(Run({"sdiff", "a", "b"})), (Strings{"1", "x"}));
  EXPECT_EQ(Sorted(Run({"sdiff", "a", "b", "c"})), (Strings{"1"}));
  EXPECT_EQ(Run({"sdiff", "a", "a"}), Array({}));
  EXPECT_EQ(Run({"sdiff", "missing", "a"}), Array({}));
  EXPECT_EQ(Run({"sinterstore", "d", "a", "b"}), Int(2));
  EXPECT_EQ(Members("d"), (Strings{"2", "3"}));
  EXPECT_EQ(Encoding("d"), "intset");
  EXPECT_EQ(Run({"sunionstore", "d", "a", "c"}), Int(5));
  EXPECT_EQ(Encoding("d"), "hashtable");
  EXPECT_EQ(Run({"sdiffstore", "d", "b", "a"}), Int(1));
  EXPECT_EQ(Members("d"), (Strings{"4"}));
  // An empty result deletes the destination.
  EXPECT_EQ(Run({"sinterstore", "d", "a", "missing"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  ASSERT_EQ(Run({"set", "d", "string"}), Ok());
  EXPECT_EQ(Run({"sdiffstore", "d", "a", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  // A destination that is also a source.
  EXPECT_EQ(Run({"sunionstore", "a", "a", "b"}), Int(5));
}

TEST_F(SetCommandsTest, Sintercard) {
  ASSERT_EQ(Run({"sadd", "a", "1", "2", "3", "4"}), Int(4));
  ASSERT_EQ(Run({"sadd", "b", "2", "3", "4", "5"}), Int(4));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b"}), Int(3));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "limit", "2"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "LIMIT", "0"}), Int(3));
  EXPECT_EQ(Run({"sintercard", "1", "a"}), Int(4));
  EXPECT_EQ(Run({"sintercard", "2", "a", "missing"}), Int(0));
  EXPECT_EQ(Run({"sintercard", "0", "a"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "x", "a"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "3", "a", "b"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "limit", "-1"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "limit"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "b"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "getkeys", "sintercard", "2", "a", "b", "limit", "1"}),
            Array({Bulk("a"), Bulk("b")}));
}

TEST_F(SetCommandsTest, SscanVisitsEveryMember) {
  for (int i = 0; i < 300; i++) ASSERT_EQ(Run({"sadd", "s", "k" + std::to_string(i)}), Int(1));
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    const RespValue page = Run({"sscan", "s", cursor, "count", "7"});
    ASSERT_EQ(page.elements.size(), 2u);
    cursor = page.elements[0].text;
    for (const RespValue& member : page.elements[1].elements) seen.insert(member.text);
    calls++;
  } while (cursor != "0" && calls < 1000);
  EXPECT_EQ(seen.size(), 300u);
  EXPECT_GT(calls, 10);
  // MATCH filters; an intset comes back whole with cursor 0.
  ASSERT_EQ(Run({"sadd", "ints", "1", "10", "2"}), Int(3));
  EXPECT_EQ(Run({"sscan", "ints", "0", "match", "1*"}),
            Array({Bulk("0"), Array({Bulk("1"), Bulk("10")})}));
  EXPECT_EQ(Run({"sscan", "missing", "0", "count", "x"}), Array({Bulk("0"), Array({})}));
  EXPECT_EQ(Run({"sscan", "ints", "0", "count", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sscan", "ints", "0", "type", "set"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sscan", "ints", "x"}), Err("ERR invalid cursor"));
}

TEST_F(SetCommandsTest, GenericCommandsOnSets) {
  ASSERT_EQ(Run({"sadd", "s", "a", "b", "c"}), Int(3));
  ASSERT_EQ(Run({"sadd", "i", "5", "-7"}), Int(2));
  const RespValue digest = Run({"debug", "digest-value", "s"});
  // DUMP and RESTORE round trip, for both encodings.
  for (const char* key : {"s", "i"}) {
    const std::string payload = Run({"dump", key}).text;
    const std::string copy = std::string(key) + "-copy";
    EXPECT_EQ(Run({"restore", copy, "0", payload}), Ok());
    EXPECT_EQ(Members(copy), Members(key));
    EXPECT_EQ(Encoding(copy), Encoding(key));
    EXPECT_EQ(Run({"debug", "digest-value", copy}), Run({"debug", "digest-value", key}));
  }
  EXPECT_EQ(Run({"copy", "s", "s2"}), Int(1));
  EXPECT_EQ(Run({"srem", "s2", "a"}), Int(1));
  EXPECT_EQ(Members("s"), (Strings{"a", "b", "c"}));
  EXPECT_EQ(Run({"rename", "s2", "s3"}), Ok());
  EXPECT_EQ(Members("s3"), (Strings{"b", "c"}));
  EXPECT_EQ(Run({"move", "s3", "1"}), Int(1));
  EXPECT_EQ(Run({"del", "s", "i"}), Int(2));
  EXPECT_EQ(Run({"sadd", "s", "c", "b", "a"}), Int(3));
  // The digest does not depend on the order the members came in.
  EXPECT_EQ(Run({"debug", "digest-value", "s"}), digest);
  EXPECT_EQ(Run({"scan", "0", "type", "set", "count", "100"}).elements[1].elements.size(), 3u);
}

TEST_F(SetCommandsTest, RestoreRefusesCorruptPayloads) {
  ASSERT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  std::string payload = Run({"dump", "s"}).text;
  ASSERT_EQ(Run({"debug", "set-skip-checksum-validation", "1"}), Ok());
  // The member count claims more members than follow, and a set of none.
  std::string more = payload;
  more[1] = 9;
  EXPECT_EQ(Run({"restore", "x", "0", more}), Err("ERR Bad data format"));
  std::string none = payload;
  none[1] = 0;
  EXPECT_EQ(Run({"restore", "x", "0", none}), Err("ERR Bad data format"));
  // A repeated member.
  ASSERT_EQ(Run({"sadd", "t", "aa", "bb"}), Int(2));
  std::string twice = Run({"dump", "t"}).text;
  const size_t second = twice.find("bb");
  ASSERT_NE(second, std::string::npos);
  twice.replace(second, 2, "aa");
  EXPECT_EQ(Run({"restore", "x", "0", twice}), Err("ERR Bad data format"));
  EXPECT_EQ(Run({"exists", "x"}), Int(0));
}

TEST_F(SetCommandsTest, RefusedMemoryChangesNothing) {
  ASSERT_EQ(Run({"sadd", "s", "1", "2", "3"}), Int(3));
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes());
  const RespValue oom = Err("OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_EQ(Run({"sadd", "s", "4", "word"}), oom);
  EXPECT_EQ(Run({"sadd", "new", "a"}), oom);
  EXPECT_EQ(Run({"sunionstore", "u", "s", "s"}), oom);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Members("s"), (Strings{"1", "2", "3"}));
  EXPECT_EQ(Encoding("s"), "intset");
  EXPECT_EQ(Run({"exists", "new", "u"}), Int(0));
}

}  // namespace
}  // namespace keel::testing
