// Unit tests of SORT and SORT_RO (cmd_sort.cc). The replies were first checked against
// redis-server 7.0.15 (conformance/cases/sort.txt holds the same cases and more).
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"
#include "engine/registry/errors.h"

namespace keel::testing {
namespace {

class SortTest : public StringTest {
 protected:
  static RespValue Bulks(std::initializer_list<std::string_view> texts) {
    std::vector<RespValue> elements;
    for (std::string_view text : texts) elements.push_back(Bulk(text));
    return RespValue::Array(std::move(elements));
  }
};

TEST_F(SortTest, ASortedSetBecomesASkiplistUnlessMemoryIsRefused) {
  ASSERT_EQ(Run({"zadd", "z", "2", "b", "1", "a"}), Int(2));
  ASSERT_EQ(Run({"object", "encoding", "z"}), Bulk("listpack"));
  // Memory refused for the skiplist: the OOM error, and the set as it was.
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes());
  EXPECT_EQ(Run({"sort", "z", "alpha"}), Err(errors::kOom));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("listpack"));
  EXPECT_EQ(Run({"sort", "z", "alpha"}), Bulks({"a", "b"}));
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Bulks({"a", "1", "b", "2"}));
  // SORT k STORE k replaces the set with the list: nothing is put in place of it.
  ASSERT_EQ(Run({"zadd", "y", "1", "3"}), Int(1));
  EXPECT_EQ(Run({"sort", "y", "store", "y"}), Int(1));
  EXPECT_EQ(Run({"type", "y"}), Status("list"));
  // A score that is no number fails, after the conversion, as in Redis.
  ASSERT_EQ(Run({"zadd", "x", "1", "notanumber"}), Int(1));
  EXPECT_EQ(Run({"sort", "x"}), Err("ERR One or more scores can't be converted into double"));
  EXPECT_EQ(Run({"object", "encoding", "x"}), Bulk("skiplist"));
}

TEST_F(SortTest, NumbersByDefaultAlphaAndDescAndLimit) {
  Run({"rpush", "l", "3", "1", "2", "10", "0x10"});
  EXPECT_EQ(Run({"sort", "l"}), Bulks({"1", "2", "3", "10", "0x10"}));
  EXPECT_EQ(Run({"sort", "l", "desc"}), Bulks({"0x10", "10", "3", "2", "1"}));
  EXPECT_EQ(Run({"sort", "l", "alpha"}), Bulks({"0x10", "1", "10", "2", "3"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "1", "2"}), Bulks({"2", "3"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "-5", "2"}), Bulks({"1", "2"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "9", "2"}), Bulks({}));
  EXPECT_EQ(Run({"sort", "l", "limit", "1", "-1"}), Bulks({"2", "3", "10", "0x10"}));
}

TEST_F(SortTest, AValueThatIsNotANumberFailsTheCommand) {
  Run({"rpush", "l", "1", "x"});
  EXPECT_EQ(Run({"sort", "l"}), Err("ERR One or more scores can't be converted into double"));
  Run({"rpush", "n", "1", "nan"});
  EXPECT_EQ(Run({"sort", "n"}), Err("ERR One or more scores can't be converted into double"));
  // Equal numbers are ordered by their bytes.
  Run({"rpush", "eq", "1.0", "1", "01"});
  EXPECT_EQ(Run({"sort", "eq"}), Bulks({"01", "1", "1.0"}));
}

TEST_F(SortTest, ByAndGetPatternsReachStringsAndHashFields) {
  Run({"rpush", "ids", "1", "2", "3"});
  Run({"mset", "w_1", "30", "w_2", "10", "name_1", "one", "name_3", "three"});
  Run({"hset", "h_3", "f", "-1"});
  // A missing weight sorts as 0.
  EXPECT_EQ(Run({"sort", "ids", "by", "w_*"}), Bulks({"3", "2", "1"}));
  EXPECT_EQ(Run({"sort", "ids", "by", "h_*->f"}), Bulks({"3", "1", "2"}));
  EXPECT_EQ(Run({"sort", "ids", "by", "w_*", "get", "#", "get", "name_*"}),
            Array({Bulk("3"), Bulk("three"), Bulk("2"), NilBulk(), Bulk("1"), Bulk("one")}));
  // BY a constant: the list's own order, reversed by DESC.
  EXPECT_EQ(Run({"sort", "ids", "by", "nosort", "desc", "limit", "0", "2"}), Bulks({"3", "2"}));
  EXPECT_EQ(Run({"sort", "ids", "get", "constant"}), Array({NilBulk(), NilBulk(), NilBulk()}));
}

TEST_F(SortTest, StoreWritesAListAndSortRoRefusesIt) {
  Run({"sadd", "s", "b", "c", "a"});
  Run({"set", "dst", "x", "ex", "100"});
  // BY a constant and STORE: a set is sorted (ALPHA), so that the list does not depend on its
  // table.
  EXPECT_EQ(Run({"sort", "s", "by", "nosort", "store", "dst"}), Int(3));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Bulks({"a", "b", "c"}));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
  EXPECT_EQ(Run({"sort", "s", "alpha", "get", "missing_*", "store", "dst"}), Int(3));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Bulks({"", "", ""}));
  EXPECT_EQ(Run({"sort", "nothing", "store", "dst"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"sort_ro", "s", "alpha", "store", "dst"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sort_ro", "s", "alpha"}), Bulks({"a", "b", "c"}));
}

TEST_F(SortTest, SortedSetsKeepTheirOrderByAConstant) {
  Run({"zadd", "z", "3", "c", "1", "a", "2", "b"});
  EXPECT_EQ(Run({"sort", "z", "by", "nosort"}), Bulks({"a", "b", "c"}));
  EXPECT_EQ(Run({"sort", "z", "by", "nosort", "desc", "limit", "1", "5"}), Bulks({"b", "a"}));
  EXPECT_EQ(Run({"sort", "z", "alpha", "desc"}), Bulks({"c", "b", "a"}));
}

TEST_F(SortTest, ErrorsAsRedisGivesThem) {
  Run({"set", "str", "v"});
  EXPECT_EQ(Run({"sort", "str"}), Err(errors::kWrongType));
  Run({"rpush", "l", "1"});
  EXPECT_EQ(Run({"sort", "l", "limit", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sort", "l", "limit", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"sort", "l", "by"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "l", "store", "d", "get", "x", "store", "e"}),
            Bulks({"l", "e"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort_ro", "l", "get", "x"}), Bulks({"l"}));
}

}  // namespace
}  // namespace keel::testing
