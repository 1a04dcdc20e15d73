// The list commands through the engine: replies as redis-server 7.0 gives them (its replies were
// checked by hand against it; conformance/cases/list.txt compares byte for byte), the generic
// commands on lists, and refused memory leaving every list as it was.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/crc64.h"
#include "engine/db/keyspace.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Array;
using testing::Bulk;
using testing::Err;
using testing::Int;
using testing::NilBulk;
using testing::Ok;

class ListCommandsTest : public testing::CommandTest {
 protected:
  void SetUp() override { StartEngine(testing::ConfigWith({{"enable-debug-command", "yes"}})); }
  RespValue Range(std::string_view key) { return Run({"lrange", key, "0", "-1"}); }
  static RespValue Bulks(std::initializer_list<const char*> items) {
    RespValue array = Array({});
    for (const char* item : items) array.elements.push_back(Bulk(item));
    return array;
  }
};

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

TEST_F(ListCommandsTest, PushesAndRanges) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"lpush", "l", "x", "y"}), Int(5));
  EXPECT_EQ(Range("l"), Bulks({"y", "x", "a", "b", "c"}));
  EXPECT_EQ(Run({"lrange", "l", "-2", "100"}), Bulks({"b", "c"}));
  EXPECT_EQ(Run({"lrange", "l", "3", "1"}), Array({}));
  EXPECT_EQ(Run({"lrange", "l", "a", "1"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lrange", "missing", "0", "-1"}), Array({}));
  EXPECT_EQ(Run({"lpushx", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  EXPECT_EQ(Run({"rpushx", "l", "z"}), Int(6));
  EXPECT_EQ(Run({"llen", "l"}), Int(6));
  EXPECT_EQ(Run({"type", "l"}), RespValue::Simple("list"));
  EXPECT_EQ(Run({"object", "encoding", "l"}), Bulk("quicklist"));
}

TEST_F(ListCommandsTest, PopsWithAndWithoutCount) {
  Run({"rpush", "l", "a", "b", "c", "d"});
  EXPECT_EQ(Run({"lpop", "l"}), Bulk("a"));
  EXPECT_EQ(Run({"rpop", "l", "2"}), Bulks({"d", "c"}));
  EXPECT_EQ(Run({"lpop", "l", "0"}), Array({}));
  EXPECT_EQ(Run({"lpop", "l", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"lpop", "l", "1", "2"}), Err("ERR wrong number of arguments for 'lpop' command"));
  EXPECT_EQ(Run({"lpop", "l", "10"}), Bulks({"b"}));
  // The emptied list is gone.
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
  EXPECT_EQ(Run({"lpop", "l"}), NilBulk());
  RespValue null_array;
  null_array.type = RespType::kNullArray;
  EXPECT_EQ(Run({"lpop", "l", "1"}), null_array);
}

TEST_F(ListCommandsTest, IndexSetInsert) {
  Run({"rpush", "l", "a", "b", "c"});
  EXPECT_EQ(Run({"lindex", "l", "-1"}), Bulk("c"));
  EXPECT_EQ(Run({"lindex", "l", "3"}), NilBulk());
  EXPECT_EQ(Run({"lindex", "missing", "x"}), NilBulk());  // the lookup comes first
  EXPECT_EQ(Run({"lindex", "l", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lset", "l", "1", "B"}), Ok());
  EXPECT_EQ(Run({"lset", "l", "5", "B"}), Err("ERR index out of range"));
  EXPECT_EQ(Run({"lset", "missing", "0", "B"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"linsert", "l", "before", "B", "x"}), Int(4));
  EXPECT_EQ(Run({"linsert", "l", "AFTER", "c", "y"}), Int(5));
  EXPECT_EQ(Run({"linsert", "l", "after", "nope", "y"}), Int(-1));
  EXPECT_EQ(Run({"linsert", "l", "middle", "c", "y"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"linsert", "missing", "after", "c", "y"}), Int(0));
  EXPECT_EQ(Range("l"), Bulks({"a", "x", "B", "c", "y"}));
}

TEST_F(ListCommandsTest, RemTrimPos) {
  Run({"rpush", "l", "a", "b", "a", "c", "a", "b"});
  EXPECT_EQ(Run({"lpos", "l", "a"}), Int(0));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "-1"}), Int(4));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "0"}), Array({Int(0), Int(2), Int(4)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "2", "count", "1"}), Array({Int(2)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "0", "maxlen", "3"}), Array({Int(0), Int(2)}));
  EXPECT_EQ(Run({"lpos", "l", "zz"}), NilBulk());
  EXPECT_EQ(Run({"lpos", "missing", "a", "count", "2"}), Array({}));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "0"}).type, RespType::kError);
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "x"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "a", "maxlen"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lrem", "l", "-1", "a"}), Int(1));
  EXPECT_EQ(Range("l"), Bulks({"a", "b", "a", "c", "b"}));
  EXPECT_EQ(Run({"lrem", "l", "0", "a"}), Int(2));
  EXPECT_EQ(Range("l"), Bulks({"b", "c", "b"}));
  EXPECT_EQ(Run({"ltrim", "l", "1", "-1"}), Ok());
  EXPECT_EQ(Range("l"), Bulks({"c", "b"}));
  EXPECT_EQ(Run({"ltrim", "l", "5", "10"}), Ok());
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
  EXPECT_EQ(Run({"ltrim", "missing", "0", "1"}), Ok());
}

TEST_F(ListCommandsTest, MoveAndMpop) {
  Run({"rpush", "src", "a", "b", "c"});
  EXPECT_EQ(Run({"lmove", "src", "dst", "left", "right"}), Bulk("a"));
  EXPECT_EQ(Run({"rpoplpush", "src", "dst"}), Bulk("c"));
  EXPECT_EQ(Range("dst"), Bulks({"c", "a"}));
  // The same list: a rotation.
  EXPECT_EQ(Run({"lmove", "dst", "dst", "left", "right"}), Bulk("c"));
  EXPECT_EQ(Range("dst"), Bulks({"a", "c"}));
  EXPECT_EQ(Run({"lmove", "src", "dst", "up", "right"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmove", "missing", "dst", "left", "right"}), NilBulk());
  EXPECT_EQ(Run({"lmpop", "2", "missing", "dst", "right", "count", "5"}),
            Array({Bulk("dst"), Bulks({"c", "a"})}));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"lmpop", "0", "a", "left"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"lmpop", "2", "a", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "1", "src", "left", "count", "0"}),
            Err("ERR count should be greater than 0"));
  EXPECT_EQ(Run({"lmpop", "1", "src", "left", "count", "1", "count", "1"}),
            Err("ERR syntax error"));
}

TEST_F(ListCommandsTest, WrongTypeBothWays) {
  Run({"set", "s", "v"});
  Run({"rpush", "l", "a"});
  for (const auto& command :
       std::vector<std::vector<std::string>>{{"lpush", "s", "a"},
                                             {"lpop", "s"},
                                             {"llen", "s"},
                                             {"lrange", "s", "0", "1"},
                                             {"lmove", "l", "s", "left", "left"},
                                             {"lmpop", "2", "missing", "s", "left"},
                                             {"get", "l"},
                                             {"append", "l", "x"},
                                             {"incr", "l"}}) {
    EXPECT_EQ(Run(command), Err(kWrongType)) << command[0];
  }
  EXPECT_EQ(Range("l"), Bulks({"a"}));
}

TEST_F(ListCommandsTest, GenericCommandsOnLists) {
  Run({"rpush", "l", "a", "b", "c"});
  EXPECT_EQ(Run({"copy", "l", "c"}), Int(1));
  EXPECT_EQ(Run({"rename", "l", "r"}), Ok());
  EXPECT_EQ(Run({"rpush", "c", "d"}), Int(4));
  EXPECT_EQ(Range("r"), Bulks({"a", "b", "c"}));
  const RespValue dump = Run({"dump", "r"});
  ASSERT_EQ(dump.type, RespType::kBulkString);
  EXPECT_EQ(Run({"restore", "n", "0", dump.text}), Ok());
  EXPECT_EQ(Range("n"), Bulks({"a", "b", "c"}));
  const RespValue digest = Run({"debug", "digest-value", "n"});
  ASSERT_EQ(digest.type, RespType::kArray);
  EXPECT_EQ(digest, Run({"debug", "digest-value", "r"}));
  EXPECT_NE(digest, Run({"debug", "digest-value", "c"}));
  EXPECT_EQ(Run({"move", "n", "1"}), Int(1));
  EXPECT_EQ(Run({"scan", "0", "type", "list"}).elements[1].elements.size(), 2u);
  EXPECT_EQ(Run({"del", "r", "c"}), Int(2));
  EXPECT_TRUE(engine_->keyspace().CheckInvariants());
}

TEST_F(ListCommandsTest, RestoreTakesRedisPayloadsAndRefusesCorruptOnes) {
  // redis-server 7.0: RPUSH l a b c; DUMP l.
  const std::string payload(
      "\x12\x01\x02\x10\x10\x00\x00\x00\x03\x00\x81"
      "a\x02\x81"
      "b\x02\x81"
      "c\x02\xff\n\x00\xc8\x18\xb9\x0c\x95\x33\x52\x9e",
      30);
  EXPECT_EQ(Run({"restore", "l", "0", payload}), Ok());
  EXPECT_EQ(Range("l"), Bulks({"a", "b", "c"}));
  EXPECT_EQ(Run({"dump", "l"}), Bulk(payload));
  std::string corrupt = payload.substr(0, payload.size() - 8);
  corrupt[12] = '\x7f';  // an element's back length no longer matches
  const uint64_t crc = Crc64(0, corrupt.data(), corrupt.size());
  for (int i = 0; i < 8; i++) corrupt.push_back(static_cast<char>(crc >> (8 * i)));
  EXPECT_EQ(Run({"restore", "m", "0", corrupt}), Err("ERR Bad data format"));
  EXPECT_EQ(Run({"exists", "m"}), Int(0));
}

TEST_F(ListCommandsTest, RefusedMemoryLeavesListsAsTheyWere) {
  Run({"rpush", "l", "a", "b"});
  const RespValue before = Range("l");
  const std::string big(20000, 'x');
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes());
  const std::string oom = "OOM command not allowed when used memory > 'maxmemory'.";
  EXPECT_EQ(Run({"rpush", "l", "c", big, "d"}), Err(oom));
  EXPECT_EQ(Run({"lpush", "new", big}), Err(oom));
  EXPECT_EQ(Run({"lset", "l", "0", big}), Err(oom));
  EXPECT_EQ(Run({"linsert", "l", "after", "a", big}), Err(oom));
  EXPECT_EQ(Run({"lmove", "l", "other", "left", "left"}).type, RespType::kError);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Range("l"), before);
  EXPECT_EQ(Run({"exists", "new", "other"}), Int(0));
  EXPECT_TRUE(engine_->keyspace().CheckInvariants());
}

TEST_F(ListCommandsTest, DigestIsRedisDigest) {
  // redis-server 7.0: RPUSH dl a b c 1; DEBUG DIGEST-VALUE dl (the integer is mixed as text).
  Run({"rpush", "dl", "a", "b", "c", "1"});
  EXPECT_EQ(Run({"debug", "digest-value", "dl"}),
            Array({RespValue::Simple("e093abdde6c4844ba87b7ed2172d25e2334a432b")}));
}

TEST_F(ListCommandsTest, DebugObjectReportsTheQuicklistAsRedisDoes) {
  // redis-server 7.0: CONFIG SET list-max-listpack-size 5; RPUSH small 1..12; LINSERT small
  // AFTER 3 x; DEBUG OBJECT small: "... ql_nodes:4 ql_avg_node:3.25 ql_listpack_max:5
  // ql_compressed:0 ql_uncompressed_size:55" (serializedlength:64).
  EXPECT_EQ(Run({"config", "set", "list-max-listpack-size", "5"}), Ok());
  Run({"rpush", "small", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"});
  EXPECT_EQ(Run({"linsert", "small", "after", "3", "x"}), Int(13));
  const std::string line = Run({"debug", "object", "small"}).text;
  EXPECT_NE(line.find(" encoding:quicklist serializedlength:64 "), std::string::npos) << line;
  EXPECT_NE(line.find(" ql_nodes:4 ql_avg_node:3.25 ql_listpack_max:5 ql_compressed:0 "
                      "ql_uncompressed_size:55"),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace keel
