// Generic key commands of cmd_keys.cc: DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, COPY,
// MOVE, SWAPDB, DBSIZE, FLUSHDB, FLUSHALL. Every expected reply was checked against
// redis-server 7.0.15 (the expiry cases with active expiry turned off, DEBUG SET-ACTIVE-EXPIRE 0,
// as the simulator's clock only moves when a test moves it); most are also compared by
// conformance/cases/keys.txt and generic.txt.
#include "engine/db/keyspace.h"
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
  // e expires at start + 1000000 ms: still there during that millisecond (Redis's now > when),
  // gone the millisecond after.
  AdvanceMs(1);
  EXPECT_EQ(Run({"exists", "e", "f"}), Int(2));
  AdvanceMs(1);
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

TEST_F(KeyCommandsTest, UnlinkIsDel) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"unlink", "a", "b", "a", "missing"}), Int(1));
  EXPECT_EQ(Run({"dbsize"}), Int(0));  // the expired b was reclaimed, not counted
  EXPECT_EQ(Run({"unlink"}), Err("ERR wrong number of arguments for 'unlink' command"));
}

TEST_F(KeyCommandsTest, ExistsAndTypeDoNotTouchButTouchDoes) {
  for (std::string_view key : {"s", "t", "u"}) EXPECT_EQ(Run({"set", key, "hello"}), Ok());
  AdvanceMs(3000);
  EXPECT_EQ(Run({"exists", "s"}), Int(1));
  EXPECT_EQ(Run({"type", "t"}), Status("string"));
  EXPECT_EQ(Run({"touch", "u", "missing", "u"}), Int(2));
  EXPECT_EQ(Run({"object", "idletime", "s"}), Int(3));
  EXPECT_EQ(Run({"object", "idletime", "t"}), Int(3));
  EXPECT_EQ(Run({"object", "idletime", "u"}), Int(0));
  EXPECT_EQ(Run({"touch"}), Err("ERR wrong number of arguments for 'touch' command"));
}

TEST_F(KeyCommandsTest, TypeNamesTheValueOrNone) {
  EXPECT_EQ(Run({"type", "missing"}), Status("none"));
  EXPECT_EQ(Run({"set", "k", "v", "px", "5"}), Ok());
  EXPECT_EQ(Run({"type", "k"}), Status("string"));
  engine_->keyspace().MutableEntryForTesting(0, "k")->SetTypeForTesting(ValueType::kZSet);
  EXPECT_EQ(Run({"type", "k"}), Status("zset"));
  engine_->keyspace().MutableEntryForTesting(0, "k")->SetTypeForTesting(ValueType::kString);
  AdvanceMs(6);
  EXPECT_EQ(Run({"type", "k"}), Status("none"));
  EXPECT_EQ(Run({"type"}), Err("ERR wrong number of arguments for 'type' command"));
}

TEST_F(KeyCommandsTest, RenameMovesValueAndExpiry) {
  EXPECT_EQ(Run({"rename", "missing", "x"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"rename", "missing", "missing"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"renamenx", "missing", "x"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"pexpire", "a", "100000"}), Int(1));
  EXPECT_EQ(Run({"set", "b", "old"}), Ok());
  EXPECT_EQ(Run({"rename", "a", "b"}), Ok());
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"get", "b"}), Bulk("1"));
  EXPECT_EQ(Run({"pttl", "b"}), Int(100000));
  EXPECT_EQ(Run({"object", "encoding", "b"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "refcount", "b"}), Int(kSharedRefcount));  // the same object moved
  // The same name twice: nothing happens once the key is known to exist.
  EXPECT_EQ(Run({"rename", "b", "b"}), Ok());
  EXPECT_EQ(Run({"renamenx", "b", "b"}), Int(0));
  EXPECT_EQ(Run({"pttl", "b"}), Int(100000));
}

TEST_F(KeyCommandsTest, RenamenxRefusesALiveTargetOnly) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"renamenx", "a", "b"}), Int(0));
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
  EXPECT_EQ(Run({"set", "c", "3", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"renamenx", "a", "c"}), Int(1));  // an expired target is no target
  EXPECT_EQ(Run({"get", "c"}), Bulk("1"));
  EXPECT_EQ(Run({"ttl", "c"}), Int(-1));
}

TEST_F(KeyCommandsTest, RenameOfAnExpiredKeyIsNoSuchKey) {
  EXPECT_EQ(Run({"set", "a", "1", "px", "10"}), Ok());
  AdvanceMs(10);
  EXPECT_EQ(Run({"rename", "a", "b"}), Ok());  // still there during its expiry millisecond
  AdvanceMs(1);
  EXPECT_EQ(Run({"rename", "b", "c"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(KeyCommandsTest, CopyOptionsAndErrors) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"copy", "a", "a"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"copy", "a", "a", "db", "0"}),
            Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"copy", "missing", "missing"}),
            Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "abc"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "2147483648"}),
            Err("ERR value is out of range, value must between -2147483648 and 2147483647"));
  EXPECT_EQ(Run({"copy", "a", "b", "db"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "a", "b", "foo"}), Err("ERR syntax error"));
  // Options are read in order: the bad index is reported before the later junk.
  EXPECT_EQ(Run({"copy", "a", "b", "db", "16", "foo"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "foo", "db", "16"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "a"}), Err("ERR wrong number of arguments for 'copy' command"));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(Run({"copy", "missing", "b"}), Int(0));
  EXPECT_EQ(Run({"copy", "a", "b", "replace", "REPLACE"}), Int(1));
  EXPECT_EQ(Run({"copy", "a", "a", "db", "1"}), Int(1));
}

TEST_F(KeyCommandsTest, CopyKeepsTheTargetUnlessReplace) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"pexpire", "a", "100000"}), Int(1));
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"copy", "a", "b"}), Int(0));
  EXPECT_EQ(Run({"get", "b"}), Bulk("2"));
  EXPECT_EQ(Run({"copy", "a", "b", "replace"}), Int(1));
  EXPECT_EQ(Run({"get", "b"}), Bulk("1"));
  EXPECT_EQ(Run({"pttl", "b"}), Int(100000));
  EXPECT_EQ(Run({"copy", "a", "c", "db", "1", "replace"}), Int(1));
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "c"}), Bulk("1"));
  EXPECT_EQ(Run({"pttl", "c"}), Int(100000));
}

TEST_F(KeyCommandsTest, CopyMakesANewValue) {
  // Redis's dupStringObject: a shared integer is copied into a private one, and the copy starts
  // with a fresh access clock while the source is touched by its lookup.
  EXPECT_EQ(Run({"set", "n", "5"}), Ok());
  EXPECT_EQ(Run({"set", "s", "hello"}), Ok());
  AdvanceMs(3000);
  EXPECT_EQ(Run({"copy", "n", "n2"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "n"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"object", "refcount", "n2"}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "n2"}), Bulk("int"));
  EXPECT_EQ(Run({"incr", "n2"}), Int(6));  // and a write makes it shared again
  EXPECT_EQ(Run({"object", "refcount", "n2"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"set", "s2", "x"}), Ok());
  AdvanceMs(2000);
  EXPECT_EQ(Run({"copy", "s", "s2", "replace"}), Int(1));
  EXPECT_EQ(Run({"object", "idletime", "s"}), Int(0));
  EXPECT_EQ(Run({"object", "idletime", "s2"}), Int(0));
  EXPECT_EQ(Run({"object", "encoding", "s2"}), Bulk("embstr"));
}

TEST_F(KeyCommandsTest, MoveToAnotherDatabase) {
  EXPECT_EQ(Run({"move", "a", "0"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"move", "a", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"move", "a", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"move", "a", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"move", "a", "2147483648"}),
            Err("ERR value is out of range, value must between -2147483648 and 2147483647"));
  EXPECT_EQ(Run({"move", "a"}), Err("ERR wrong number of arguments for 'move' command"));
  EXPECT_EQ(Run({"move", "missing", "1"}), Int(0));
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"pexpire", "a", "100000"}), Int(1));
  EXPECT_EQ(Run({"move", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"set", "a", "2"}), Ok());
  EXPECT_EQ(Run({"move", "a", "1"}), Int(0));  // a is in database 1 already
  EXPECT_EQ(Run({"get", "a"}), Bulk("2"));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
  EXPECT_EQ(Run({"pttl", "a"}), Int(100000));
  EXPECT_EQ(Run({"object", "refcount", "a"}), Int(kSharedRefcount));
}

// MOVE hands the value's structure to the other database, as RENAME does: the memory in use
// never holds two of it, and the moved value keeps working there after the source database goes.
TEST_F(KeyCommandsTest, MoveTransfersEachTypeWithoutCopyingIt) {
  std::vector<std::string> sadd = {"sadd", "set"};
  std::vector<std::string> hset = {"hset", "hash"};
  std::vector<std::string> zadd = {"zadd", "zset"};
  std::vector<std::string> rpush = {"rpush", "list"};
  for (int i = 0; i < 5000; i++) {
    const std::string member = "member:" + std::to_string(i) + std::string(40, 'm');
    sadd.push_back(member);
    hset.insert(hset.end(), {member, "v"});
    zadd.insert(zadd.end(), {std::to_string(i), member});
    rpush.push_back(member);
  }
  ASSERT_EQ(Run(sadd), Int(5000));
  ASSERT_EQ(Run(hset), Int(5000));
  ASSERT_EQ(Run(zadd), Int(5000));
  ASSERT_EQ(Run(rpush), Int(5000));
  ASSERT_EQ(Run({"xadd", "stream", "1-1", "f", "v"}), Bulk("1-1"));
  ASSERT_EQ(Run({"hset", "ttl", "a", "1", "b", "2"}), Int(2));
  ASSERT_EQ(Run({"hpexpire", "ttl", "50", "fields", "1", "a"}), Array({Int(1)}));
  sim::SimMemory& memory = env_.sim_memory();
  for (const char* key : {"set", "hash", "zset", "list", "stream", "ttl"}) {
    // ResidentBytes is the most used since the last release: a copy of a value of 5,000 members
    // (over 250 KB) would raise it; the command's own buffers take a few KB.
    memory.ReleaseFreeMemory();
    const size_t used_before = memory.used_bytes();
    ASSERT_EQ(Run({"move", key, "3"}), Int(1)) << key;
    EXPECT_LE(memory.ResidentBytes(), used_before + 16 * 1024) << key;
  }
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"flushdb"}), Ok());
  ASSERT_EQ(Run({"select", "3"}), Ok());
  EXPECT_EQ(Run({"scard", "set"}), Int(5000));
  EXPECT_EQ(Run({"sadd", "set", "one more"}), Int(1));
  EXPECT_EQ(Run({"hget", "hash", "member:4999" + std::string(40, 'm')}), Bulk("v"));
  EXPECT_EQ(Run({"zscore", "zset", "member:17" + std::string(40, 'm')}), Bulk("17"));
  EXPECT_EQ(Run({"lindex", "list", "-1"}), Bulk("member:4999" + std::string(40, 'm')));
  EXPECT_EQ(Run({"xlen", "stream"}), Int(1));
  // The moved hash keeps its field's expiry.
  AdvanceMs(100);
  EXPECT_EQ(Run({"hexists", "ttl", "a"}), Int(0));
  EXPECT_EQ(Run({"hexists", "ttl", "b"}), Int(1));
  EXPECT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(KeyCommandsTest, MoveOverAnExpiredKey) {
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"set", "a", "old", "px", "1"}), Ok());
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"set", "a", "new"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"move", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("new"));
  EXPECT_EQ(Run({"ttl", "a"}), Int(-1));
}

TEST_F(KeyCommandsTest, SwapdbSwapsContentsNotClients) {
  EXPECT_EQ(Run({"set", "a", "in0"}), Ok());
  EXPECT_EQ(Run({"pexpire", "a", "100000"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "in1"}), Ok());
  EXPECT_EQ(Run({"set", "c", "in1"}), Ok());
  EXPECT_EQ(Run({"swapdb", "0", "1"}), Ok());
  // This client stays on database 1, which now holds what was database 0's.
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(Run({"get", "a"}), Bulk("in0"));
  EXPECT_EQ(Run({"pttl", "a"}), Int(100000));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  EXPECT_EQ(Run({"swapdb", "0", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  EXPECT_TRUE(engine_->database(0).CheckInvariants());
  EXPECT_TRUE(engine_->database(1).CheckInvariants());
}

TEST_F(KeyCommandsTest, SwapdbErrors) {
  EXPECT_EQ(Run({"swapdb", "0", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "-1", "0"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "abc", "0"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "0", "abc"}), Err("ERR invalid second DB index"));
  // The indexes are read before the range is checked.
  EXPECT_EQ(Run({"swapdb", "16", "abc"}), Err("ERR invalid second DB index"));
  EXPECT_EQ(Run({"swapdb", "2147483648", "0"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "0", "2147483648"}), Err("ERR invalid second DB index"));
  EXPECT_EQ(Run({"swapdb", "0"}), Err("ERR wrong number of arguments for 'swapdb' command"));
}

TEST_F(KeyCommandsTest, DbsizeCountsExpiredKeysUntilActiveExpiryReclaimsThem) {
  EXPECT_EQ(Run({"set", "a", "v", "px", "100"}), Ok());
  EXPECT_EQ(Run({"set", "b", "v"}), Ok());
  AdvanceMs(101);
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  engine_->Cron();  // the active expiry cycle samples the keys with an expiry
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(engine_->keyspace().stats().expired_keys, 1u);
}

}  // namespace
}  // namespace keel::testing
