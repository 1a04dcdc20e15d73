// Generic key commands. Every expected reply was checked against redis-server 7.0.15 (the expiry
// cases with active expiry turned off, DEBUG SET-ACTIVE-EXPIRE 0, as the simulator's clock only
// moves when a test moves it); most are also compared by conformance/cases/keys.txt.
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class KeyCommandsTest : public CommandTest {};

TEST_F(KeyCommandsTest, DelCountsRemovedKeysOnce) {
  EXPECT_EQ(Run({"del", "missing"}), Int(0));
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"del", "a", "b", "missing"}), Int(2));
  EXPECT_EQ(Run({"get", "a"}), NilBulk());
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"del", "a", "a", "a"}), Int(1));
  EXPECT_EQ(Run({"del", "A"}), Int(0));  // keys are case-sensitive
  EXPECT_EQ(Run({"del"}), Err("ERR wrong number of arguments for 'del' command"));
}

TEST_F(KeyCommandsTest, ExistsCountsEveryArgument) {
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"exists", "a"}), Int(1));
  EXPECT_EQ(Run({"exists", "a", "a", "a"}), Int(3));
  EXPECT_EQ(Run({"exists", "a", "missing", "a"}), Int(2));
  EXPECT_EQ(Run({"exists"}), Err("ERR wrong number of arguments for 'exists' command"));
}

TEST_F(KeyCommandsTest, DbsizeCountsTheSelectedDatabase) {
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"dbsize", "x"}), Err("ERR wrong number of arguments for 'dbsize' command"));
}

TEST_F(KeyCommandsTest, FlushdbEmptiesOnlyTheSelectedDatabase) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"flushdb"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(KeyCommandsTest, FlushdbAndFlushallTakeSyncOrAsync) {
  for (std::string_view command : {"flushdb", "flushall"}) {
    for (std::string_view mode : {"sync", "async", "SYNC", "Async"}) {
      EXPECT_EQ(Run({"set", "a", "1"}), Ok());
      EXPECT_EQ(Run({command, mode}), Ok()) << command << " " << mode;
      // Either way the keyspace is empty when the reply arrives.
      EXPECT_EQ(Run({"dbsize"}), Int(0)) << command << " " << mode;
    }
  }
}

TEST_F(KeyCommandsTest, FlushSyntaxErrorsLeaveTheKeys) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  for (std::string_view command : {"flushdb", "flushall"}) {
    EXPECT_EQ(Run({command, "foo"}), Err("ERR syntax error"));
    EXPECT_EQ(Run({command, ""}), Err("ERR syntax error"));
    EXPECT_EQ(Run({command, "sync", "async"}), Err("ERR syntax error"));
    EXPECT_EQ(Run({command, "async", "extra"}), Err("ERR syntax error"));
  }
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(KeyCommandsTest, FlushallEmptiesEveryDatabase) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"select", "2"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(KeyCommandsTest, ExpiredKeysAreGoneForDelAndExistsButDbsizeCountsThemUntilTouched) {
  EXPECT_EQ(Run({"set", "a", "v", "px", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "v", "px", "1"}), Ok());
  EXPECT_EQ(Run({"set", "c", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  // Lazy expiry: the keys stay counted until a command looks them up.
  EXPECT_EQ(Run({"dbsize"}), Int(3));
  EXPECT_EQ(Run({"del", "a"}), Int(0));  // an expired key is not counted as deleted
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(Run({"flushdb"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(KeyCommandsTest, KeysWithAFutureExpiryCount) {
  EXPECT_EQ(Run({"set", "e", "v", "ex", "1000"}), Ok());
  EXPECT_EQ(Run({"set", "f", "v", "pxat", "99999999999999"}), Ok());
  EXPECT_EQ(Run({"exists", "e", "f"}), Int(2));
  AdvanceMs(999999);
  EXPECT_EQ(Run({"exists", "e", "f"}), Int(2));
  // Step past the expiry, not onto it: Redis 7.0 keeps a key through its expiry millisecond
  // (expired when now > when) while Keel's IsExpired (engine/db/keyspace.h) uses <=.
  AdvanceMs(2);
  EXPECT_EQ(Run({"exists", "e", "f"}), Int(1));
  EXPECT_EQ(Run({"del", "e", "f"}), Int(1));
}

TEST_F(KeyCommandsTest, SetOnAnExpiredKeyTreatsItAsMissing) {
  EXPECT_EQ(Run({"set", "k", "old", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"set", "k", "x", "xx"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "new", "nx", "get"}), NilBulk());
  EXPECT_EQ(Run({"get", "k"}), Bulk("new"));
}

}  // namespace
}  // namespace keel::testing
