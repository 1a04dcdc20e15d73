#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class StringCommandsTest : public CommandTest {};

TEST_F(StringCommandsTest, SetThenGet) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"get", "missing"}), NilBulk());
}

TEST_F(StringCommandsTest, SetReplacesAndKeepsBinaryValues) {
  const std::string binary("a\0b\r\nc", 6);
  EXPECT_EQ(Run({"set", "k", binary}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk(binary));
  EXPECT_EQ(Run({"set", "k", ""}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk(""));
}

TEST_F(StringCommandsTest, NxAndXx) {
  EXPECT_EQ(Run({"set", "k", "1", "xx"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "1", "nx"}), Ok());
  EXPECT_EQ(Run({"set", "k", "2", "NX"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "3", "XX"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("3"));
  EXPECT_EQ(Run({"set", "k", "4", "nx", "xx"}), Err("ERR syntax error"));
}

TEST_F(StringCommandsTest, GetOptionReturnsOldValue) {
  EXPECT_EQ(Run({"set", "k", "old", "get"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "new", "get"}), Bulk("old"));
  // NX with GET (allowed since 7.0): the old value comes back and nothing is written.
  EXPECT_EQ(Run({"set", "k", "newer", "nx", "get"}), Bulk("new"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("new"));
}

TEST_F(StringCommandsTest, RelativeExpiryPassesWithTheClock) {
  // Redis keeps a key through its expiry millisecond (now > when expires it): checked on
  // redis-server 7.0 by reading keys at exactly their expiry millisecond.
  EXPECT_EQ(Run({"set", "k", "v", "px", "100"}), Ok());
  AdvanceMs(100);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  AdvanceMs(1);
  EXPECT_EQ(Run({"get", "k"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "v", "ex", "2"}), Ok());
  AdvanceMs(2000);
  EXPECT_EQ(Run({"exists", "k"}), Int(1));
  AdvanceMs(1);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(StringCommandsTest, AbsoluteExpiryInThePastHidesTheKeyButDbsizeCountsIt) {
  // Redis 7.0 stores the key and lets lazy expiry remove it: DBSIZE still counts it until then.
  EXPECT_EQ(Run({"set", "k", "v", "exat", "1"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(StringCommandsTest, KeepTtlKeepsTheExpiry) {
  EXPECT_EQ(Run({"set", "k", "v", "px", "100"}), Ok());
  EXPECT_EQ(Run({"set", "k", "w", "keepttl"}), Ok());
  AdvanceMs(101);
  EXPECT_EQ(Run({"get", "k"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "v", "px", "100"}), Ok());
  EXPECT_EQ(Run({"set", "k", "w"}), Ok());  // a plain SET clears the expiry
  AdvanceMs(1000);
  EXPECT_EQ(Run({"get", "k"}), Bulk("w"));
}

TEST_F(StringCommandsTest, ExpiryOptionErrorsMatchRedis) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "0"}), Err("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Run({"set", "k", "v", "px", "-5"}), Err("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "9223372036854775"}),
            Err("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Run({"set", "k", "v", "px", "9223372036854775807"}),
            Err("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "abc"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"set", "k", "v", "ex"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "10", "px", "100"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"set", "k", "v", "keepttl", "ex", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "1", "keepttl"}), Err("ERR syntax error"));
  // EX twice is accepted, the last one wins (Redis's parser does not exclude EX after EX).
  EXPECT_EQ(Run({"set", "k", "v", "ex", "1", "ex", "20"}), Ok());
  AdvanceMs(5000);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

TEST_F(StringCommandsTest, ArityErrors) {
  EXPECT_EQ(Run({"get"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"get", "a", "b"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"set", "k"}), Err("ERR wrong number of arguments for 'set' command"));
}

}  // namespace
}  // namespace keel::testing
