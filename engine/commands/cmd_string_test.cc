// Unit tests of the string family's GET/SET side (cmd_string.cc). Every expectation was first
// checked against redis-server 7.0.15, including each OBJECT ENCODING named here.
#include <string>

#include "engine/commands/string_test_fixture.h"
#include "engine/db/entry.h"

namespace keel::testing {
namespace {

class StringCommandsTest : public StringTest {};

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

TEST_F(StringCommandsTest, SetGetOnAnotherTypeIsWrongTypeAndWritesNothing) {
  PlantList("l");
  EXPECT_EQ(Run({"get", "l"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"set", "l", "v", "get"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(engine_->database(0).Find("l")->type(), ValueType::kList);
}

TEST_F(StringCommandsTest, SetStoresTheEncodingRedisReports) {
  EXPECT_EQ(Run({"set", "i", "12345"}), Ok());
  EXPECT_EQ(EncodingOf("i"), "int");
  EXPECT_EQ(Run({"set", "e", "abc"}), Ok());
  EXPECT_EQ(EncodingOf("e"), "embstr");
  EXPECT_EQ(Run({"set", "r", std::string(45, 'a')}), Ok());
  EXPECT_EQ(EncodingOf("r"), "raw");
}

TEST_F(StringCommandsTest, SetGetUnderMemoryPressureFailsWholeAndKeepsTheOldValue) {
  // Redis cannot fail here; Keel can, and must then report the OOM as the only reply, keeping
  // the old value (the GET reply is sent only after the write succeeded).
  ASSERT_EQ(Run({"set", "k", "old"}), Ok());
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 64);
  EXPECT_EQ(Run({"set", "k", std::string(1000, 'x'), "get"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"get", "k"}), Bulk("old"));
}

// --- SETNX, SETEX, PSETEX ---

TEST_F(StringCommandsTest, SetnxWritesOnlyAMissingKey) {
  EXPECT_EQ(Run({"setnx", "k", "99"}), Int(1));
  EXPECT_EQ(Run({"get", "k"}), Bulk("99"));
  EXPECT_EQ(EncodingOf("k"), "int");
  EXPECT_EQ(Run({"setnx", "k", "other"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk("99"));
  // A failed SETNX leaves the expiry alone.
  EXPECT_EQ(Run({"set", "t", "v", "px", "500"}), Ok());
  EXPECT_EQ(Run({"setnx", "t", "w"}), Int(0));
  EXPECT_EQ(ExpireAtMs("t"), NowMs() + 500);
  // An expired key is missing.
  AdvanceMs(501);
  EXPECT_EQ(Run({"setnx", "t", "w"}), Int(1));
  EXPECT_EQ(ExpireAtMs("t"), kNoExpiry);
  PlantList("l");
  EXPECT_EQ(Run({"setnx", "l", "v"}), Int(0));
  EXPECT_EQ(Run({"setnx", "k"}), Err("ERR wrong number of arguments for 'setnx' command"));
}

TEST_F(StringCommandsTest, SetexAndPsetexSetAValueWithARelativeExpiry) {
  EXPECT_EQ(Run({"setex", "k", "10", "123"}), Ok());
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 10000);
  EXPECT_EQ(EncodingOf("k"), "int");
  EXPECT_EQ(Run({"psetex", "p", "1500", "abc"}), Ok());
  EXPECT_EQ(ExpireAtMs("p"), NowMs() + 1500);
  EXPECT_EQ(EncodingOf("p"), "embstr");
  AdvanceMs(1500);
  EXPECT_EQ(Run({"get", "p"}), Bulk("abc"));
  AdvanceMs(1);
  EXPECT_EQ(Run({"get", "p"}), NilBulk());
  EXPECT_EQ(Run({"get", "k"}), Bulk("123"));
}

TEST_F(StringCommandsTest, SetexAndPsetexErrors) {
  EXPECT_EQ(Run({"setex", "k", "0", "v"}), Err("ERR invalid expire time in 'setex' command"));
  EXPECT_EQ(Run({"setex", "k", "-1", "v"}), Err("ERR invalid expire time in 'setex' command"));
  // Seconds times 1000 plus now overflows.
  EXPECT_EQ(Run({"setex", "k", "9223372036854775", "v"}),
            Err("ERR invalid expire time in 'setex' command"));
  EXPECT_EQ(Run({"setex", "k", "9223372036854774", "v"}),
            Err("ERR invalid expire time in 'setex' command"));
  EXPECT_EQ(Run({"setex", "k", "abc", "v"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"setex", "k", "1.5", "v"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"psetex", "k", "0", "v"}), Err("ERR invalid expire time in 'psetex' command"));
  EXPECT_EQ(Run({"psetex", "k", "9223372036854775807", "v"}),
            Err("ERR invalid expire time in 'psetex' command"));
  EXPECT_EQ(Run({"psetex", "k", "x", "v"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"setex", "k", "10"}), Err("ERR wrong number of arguments for 'setex' command"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

// --- GETEX ---

TEST_F(StringCommandsTest, GetexWithoutOptionsIsGet) {
  EXPECT_EQ(Run({"getex", "missing"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "v", "px", "100"}), Ok());
  EXPECT_EQ(Run({"getex", "k"}), Bulk("v"));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 100);
}

TEST_F(StringCommandsTest, GetexSetsEachFormOfExpiry) {
  EXPECT_EQ(Run({"set", "k", "12"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "ex", "100"}), Bulk("12"));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 100000);
  EXPECT_EQ(Run({"getex", "k", "PX", "2500"}), Bulk("12"));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 2500);
  EXPECT_EQ(Run({"getex", "k", "exat", "99999999999"}), Bulk("12"));
  EXPECT_EQ(ExpireAtMs("k"), 99999999999000);
  EXPECT_EQ(Run({"getex", "k", "pxat", "99999999999999"}), Bulk("12"));
  EXPECT_EQ(ExpireAtMs("k"), 99999999999999);
  // The same form repeated: the last one wins.
  EXPECT_EQ(Run({"getex", "k", "ex", "10", "ex", "20"}), Bulk("12"));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 20000);
  // The value and its encoding are untouched.
  EXPECT_EQ(EncodingOf("k"), "int");
  EXPECT_EQ(engine_->database(0).expires_count(), 1u);
}

TEST_F(StringCommandsTest, GetexPersistRemovesTheExpiry) {
  EXPECT_EQ(Run({"set", "k", "v", "px", "100"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "persist"}), Bulk("v"));
  EXPECT_EQ(ExpireAtMs("k"), kNoExpiry);
  EXPECT_EQ(engine_->database(0).expires_count(), 0u);
  AdvanceMs(1000);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  // On a key without expiry, and repeated, PERSIST is accepted and changes nothing.
  EXPECT_EQ(Run({"getex", "k", "PERSIST", "persist"}), Bulk("v"));
  EXPECT_EQ(ExpireAtMs("k"), kNoExpiry);
}

TEST_F(StringCommandsTest, GetexAbsoluteTimeInThePastDeletesAfterReplying) {
  // Unlike SET EXAT in the past (stored, then lazily expired), GETEX deletes at once.
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "exat", "1"}), Bulk("v"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "pxat", "1"}), Bulk("v"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  // Exactly now is "already expired" for GETEX (Redis's checkAlreadyExpired: when <= now).
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  const std::string now = std::to_string(NowMs());
  EXPECT_EQ(Run({"getex", "k", "pxat", now}), Bulk("v"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  const std::string next = std::to_string(NowMs() + 1);
  EXPECT_EQ(Run({"getex", "k", "pxat", next}), Bulk("v"));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(StringCommandsTest, GetexErrorsInRedisOrder) {
  // Option syntax is checked first, even for a missing key.
  EXPECT_EQ(Run({"getex", "missing", "foo"}), Err("ERR syntax error"));
  // A missing key replies null before the expiry value is parsed.
  EXPECT_EQ(Run({"getex", "missing", "ex", "abc"}), NilBulk());
  EXPECT_EQ(Run({"getex", "missing", "ex", "0"}), NilBulk());
  ASSERT_EQ(Run({"set", "k", "v", "px", "100"}), Ok());
  const int64_t expire_at_ms = ExpireAtMs("k");
  for (const char* option : {"ex", "px", "exat", "pxat"}) {
    const std::string invalid = "ERR invalid expire time in 'getex' command";
    EXPECT_EQ(Run({"getex", "k", option, "0"}), Err(invalid)) << option;
    EXPECT_EQ(Run({"getex", "k", option, "-5"}), Err(invalid)) << option;
    EXPECT_EQ(Run({"getex", "k", option, "1.5"}),
              Err("ERR value is not an integer or out of range"))
        << option;
    EXPECT_EQ(Run({"getex", "k", option}), Err("ERR syntax error")) << option;
  }
  EXPECT_EQ(Run({"getex", "k", "ex", "9223372036854775807"}),
            Err("ERR invalid expire time in 'getex' command"));
  EXPECT_EQ(Run({"getex", "k", "px", "9223372036854775807"}),
            Err("ERR invalid expire time in 'getex' command"));
  // One form of expiry at most, and none with PERSIST; SET's own options are not GETEX's.
  for (std::initializer_list<std::string_view> args :
       {std::initializer_list<std::string_view>{"getex", "k", "ex", "10", "px", "100"},
        {"getex", "k", "persist", "ex", "10"},
        {"getex", "k", "ex", "10", "persist"},
        {"getex", "k", "keepttl"},
        {"getex", "k", "nx"},
        {"getex", "k", "xx"},
        {"getex", "k", "get"},
        {"getex", "k", "ex", "abc", "foo"}}) {
    EXPECT_EQ(Run(args), Err("ERR syntax error"));
  }
  // Nothing above changed the key.
  EXPECT_EQ(ExpireAtMs("k"), expire_at_ms);
  PlantList("l");
  EXPECT_EQ(Run({"getex", "l", "ex", "abc"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"getex", "l", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"getex"}), Err("ERR wrong number of arguments for 'getex' command"));
}

// --- GETDEL, GETSET ---

TEST_F(StringCommandsTest, GetdelRepliesAndDeletes) {
  EXPECT_EQ(Run({"getdel", "k"}), NilBulk());
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"getdel", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(engine_->database(0).expires_count(), 0u);
  EXPECT_EQ(Run({"getdel", "k"}), NilBulk());
  PlantList("l");
  EXPECT_EQ(Run({"getdel", "l"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"exists", "l"}), Int(1));
}

TEST_F(StringCommandsTest, GetsetRepliesWithTheOldValueAndClearsTheExpiry) {
  EXPECT_EQ(Run({"getset", "k", "5"}), NilBulk());
  EXPECT_EQ(EncodingOf("k"), "int");
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"getset", "k", "abc"}), Bulk("v"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("abc"));
  EXPECT_EQ(EncodingOf("k"), "embstr");
  EXPECT_EQ(ExpireAtMs("k"), kNoExpiry);
  PlantList("l");
  EXPECT_EQ(Run({"getset", "l", "v"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(engine_->database(0).Find("l")->type(), ValueType::kList);
}

TEST_F(StringCommandsTest, GetsetUnderMemoryPressureKeepsTheOldValue) {
  ASSERT_EQ(Run({"set", "k", "old"}), Ok());
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 64);
  EXPECT_EQ(Run({"getset", "k", std::string(1000, 'x')}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"get", "k"}), Bulk("old"));
}

// --- MGET, MSET, MSETNX ---

TEST_F(StringCommandsTest, MgetRepliesNullForMissingAndOtherTypes) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  PlantList("l");
  EXPECT_EQ(Run({"mget", "a", "l", "missing", "b", "a"}),
            Array({Bulk("1"), NilBulk(), NilBulk(), Bulk("2"), Bulk("1")}));
  EXPECT_EQ(Run({"mget"}), Err("ERR wrong number of arguments for 'mget' command"));
}

TEST_F(StringCommandsTest, MsetWritesEveryPairAndClearsExpiries) {
  EXPECT_EQ(Run({"set", "a", "old", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"mset", "a", "1", "b", std::string(50, 'z'), "c", "x"}), Ok());
  EXPECT_EQ(Run({"mget", "a", "b", "c"}),
            Array({Bulk("1"), Bulk(std::string(50, 'z')), Bulk("x")}));
  EXPECT_EQ(ExpireAtMs("a"), kNoExpiry);
  EXPECT_EQ(EncodingOf("a"), "int");
  EXPECT_EQ(EncodingOf("b"), "raw");
  EXPECT_EQ(EncodingOf("c"), "embstr");
  // A key given twice ends with its last value.
  EXPECT_EQ(Run({"mset", "d", "1", "a", "2", "d", "3"}), Ok());
  EXPECT_EQ(Run({"mget", "d", "a"}), Array({Bulk("3"), Bulk("2")}));
  // MSET replaces keys of any type.
  PlantList("l");
  EXPECT_EQ(Run({"mset", "l", "s"}), Ok());
  EXPECT_EQ(Run({"get", "l"}), Bulk("s"));
}

TEST_F(StringCommandsTest, MsetWithAnOddCountIsAnArityError) {
  EXPECT_EQ(Run({"mset", "a"}), Err("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(Run({"mset", "a", "1", "b"}), Err("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(Run({"msetnx", "a", "1", "b"}),
            Err("ERR wrong number of arguments for 'msetnx' command"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(StringCommandsTest, MsetnxWritesAllOrNothing) {
  EXPECT_EQ(Run({"msetnx", "a", "1", "b", "2"}), Int(1));
  EXPECT_EQ(Run({"msetnx", "c", "3", "a", "9"}), Int(0));
  EXPECT_EQ(Run({"exists", "c"}), Int(0));
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
  // The same new key twice: both writes happen, the last wins.
  EXPECT_EQ(Run({"msetnx", "z", "1", "z", "2"}), Int(1));
  EXPECT_EQ(Run({"get", "z"}), Bulk("2"));
  // An expired key counts as missing.
  EXPECT_EQ(Run({"set", "t", "v", "px", "10"}), Ok());
  AdvanceMs(11);
  EXPECT_EQ(Run({"msetnx", "t", "w", "u", "x"}), Int(1));
  PlantList("l");
  EXPECT_EQ(Run({"msetnx", "l", "v", "n", "v"}), Int(0));
  EXPECT_EQ(Run({"exists", "n"}), Int(0));
}

TEST_F(StringCommandsTest, MsetUnderMemoryPressureChangesNothing) {
  ASSERT_EQ(Run({"mset", "old1", "a", "old2", "b"}), Ok());
  const std::string big(2000, 'x');
  // New keys: the first fits, the second does not; the first is taken back.
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 3000);
  EXPECT_EQ(Run({"mset", "new1", big, "new2", big}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  EXPECT_EQ(Run({"msetnx", "new1", big, "new2", big}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  // Replacements are checked before any is written; the new key written first is taken back.
  EXPECT_EQ(Run({"mset", "new1", "small", "old1", big, "old2", big}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"mget", "old1", "old2", "new1"}), Array({Bulk("a"), Bulk("b"), NilBulk()}));
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  // A new key named twice is created once and replaced once; a refusal after both takes it back
  // and uncounts both writes (found by keel-sim, seed 185 of the transactions branch).
  const uint64_t dirty_before = engine_->keyspace().dirty();
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 3000);
  EXPECT_EQ(Run({"mset", "twice", "a", "twice", "b", "new2", big, "new3", big}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"exists", "twice"}), Int(0));
  EXPECT_EQ(engine_->keyspace().dirty(), dirty_before);
}

// Found by keel-sim (corpus/sim/regressions, seeds 493, 546, 965 and 1741): with refusals at
// random, a replacement could be refused after MSET's old reservation had succeeded, leaving some
// pairs written (new keys of the first phase too) while replying OOM. Whatever the environment
// refuses, MSET now writes every pair or none.
TEST_F(StringCommandsTest, MsetWritesAllOrNothingWhateverIsRefused) {
  const std::string big(3000, 'x');
  for (int round = 0; round < 300; round++) {
    env_.sim_memory().set_refusal(0, 0);
    ASSERT_EQ(Run({"mset", "old1", "a", "old2", std::to_string(round)}), Ok());
    Run({"del", "new1"});
    const std::vector<std::string> mset = {"mset",
                                           "new1",
                                           "n" + std::to_string(round),
                                           "old1",
                                           big + std::to_string(round),
                                           "old2",
                                           big,
                                           "old1",
                                           "last" + std::string(round % 50, 'y')};
    env_.sim_memory().set_refusal(env_.sim_memory().used_bytes(), 300'000);
    const RespValue reply = Run(mset);
    env_.sim_memory().set_refusal(0, 0);
    const RespValue values = Run({"mget", "old1", "old2", "new1"});
    if (reply == Ok()) {
      EXPECT_EQ(values, Array({Bulk("last" + std::string(round % 50, 'y')), Bulk(big),
                               Bulk("n" + std::to_string(round))}));
    } else {
      ASSERT_EQ(reply, Err("OOM command not allowed when used memory > 'maxmemory'."));
      EXPECT_EQ(values, Array({Bulk("a"), Bulk(std::to_string(round)), NilBulk()}))
          << "round " << round;
    }
  }
}

// --- APPEND, STRLEN ---

TEST_F(StringCommandsTest, AppendCreatesOrExtendsAndLeavesRaw) {
  EXPECT_EQ(Run({"append", "k", "12"}), Int(2));
  EXPECT_EQ(EncodingOf("k"), "int");  // a new key is stored as SET stores it
  EXPECT_EQ(Run({"append", "k", "34"}), Int(4));
  EXPECT_EQ(Run({"get", "k"}), Bulk("1234"));
  EXPECT_EQ(EncodingOf("k"), "raw");
  EXPECT_EQ(Run({"append", "e", "abc"}), Int(3));
  EXPECT_EQ(EncodingOf("e"), "embstr");
  // Appending nothing still makes an existing value raw; to a missing key it stores "".
  EXPECT_EQ(Run({"append", "e", ""}), Int(3));
  EXPECT_EQ(EncodingOf("e"), "raw");
  EXPECT_EQ(Run({"append", "empty", ""}), Int(0));
  EXPECT_EQ(Run({"exists", "empty"}), Int(1));
  EXPECT_EQ(EncodingOf("empty"), "embstr");
  const std::string binary("\0\r\n", 3);
  EXPECT_EQ(Run({"append", "k", binary}), Int(7));
  EXPECT_EQ(Run({"get", "k"}), Bulk("1234" + binary));
}

// A value built by many appends: every step right, and the memory held stays within the doubling
// bound (the entry grows in place into the room its last move left, as an sds string does).
TEST_F(StringCommandsTest, ManyAppendsBuildTheValueWithBoundedSlack) {
  ASSERT_EQ(Run({"set", "log", "start"}), Ok());
  ASSERT_EQ(Run({"expire", "log", "100"}), Int(1));
  std::string expected = "start";
  for (int i = 0; i < 3000; i++) {
    const std::string line = "line " + std::to_string(i) + "\n";
    expected += line;
    ASSERT_EQ(Run({"append", "log", line}), Int(static_cast<int64_t>(expected.size())));
  }
  EXPECT_EQ(Run({"get", "log"}), Bulk(expected));
  EXPECT_EQ(EncodingOf("log"), "raw");
  EXPECT_EQ(Run({"ttl", "log"}), Int(100));
  EXPECT_EQ(Run({"getrange", "log", "0", "9"}), Bulk("startline "));
  const size_t keyspace_bytes = engine_->memory().used_bytes(MemoryUse::kKeyspace);
  EXPECT_GE(keyspace_bytes, expected.size());
  EXPECT_LE(keyspace_bytes, 2 * expected.size() + 4096);
  // SETRANGE inside the value and past its end goes through the same entry.
  EXPECT_EQ(Run({"setrange", "log", "0", "START"}), Int(static_cast<int64_t>(expected.size())));
  EXPECT_EQ(Run({"setrange", "log", std::to_string(expected.size() + 2), "!"}),
            Int(static_cast<int64_t>(expected.size() + 3)));
  expected.replace(0, 5, "START");
  expected += std::string("\0\0!", 3);
  EXPECT_EQ(Run({"get", "log"}), Bulk(expected));
  // COPY and SET give exact, ordinary values again.
  EXPECT_EQ(Run({"copy", "log", "copy"}), Int(1));
  EXPECT_EQ(Run({"get", "copy"}), Bulk(expected));
  EXPECT_EQ(Run({"set", "log", "x"}), Ok());
  EXPECT_EQ(EncodingOf("log"), "embstr");
}

TEST_F(StringCommandsTest, AppendKeepsTheExpiry) {
  EXPECT_EQ(Run({"set", "k", "a", "px", "100"}), Ok());
  EXPECT_EQ(Run({"append", "k", "b"}), Int(2));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 100);
  AdvanceMs(101);
  EXPECT_EQ(Run({"append", "k", "c"}), Int(1));  // expired: a new key
  EXPECT_EQ(ExpireAtMs("k"), kNoExpiry);
}

TEST_F(StringCommandsTest, AppendPastProtoMaxBulkLenIsRefused) {
  ASSERT_EQ(Run({"config", "set", "proto-max-bulk-len", "1mb"}), Ok());
  ASSERT_EQ(Run({"setrange", "k", "1048574", "a"}), Int(1048575));
  EXPECT_EQ(Run({"append", "k", "b"}), Int(1048576));
  EXPECT_EQ(Run({"append", "k", "c"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"strlen", "k"}), Int(1048576));
}

TEST_F(StringCommandsTest, AppendUnderMemoryPressureKeepsTheValue) {
  ASSERT_EQ(Run({"set", "k", "abc"}), Ok());
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 64);
  EXPECT_EQ(Run({"append", "k", std::string(1000, 'x')}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"append", "new", std::string(1000, 'x')}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"get", "k"}), Bulk("abc"));
  EXPECT_EQ(EncodingOf("k"), "embstr");
  EXPECT_EQ(Run({"exists", "new"}), Int(0));
}

TEST_F(StringCommandsTest, StrlenCountsBytes) {
  EXPECT_EQ(Run({"strlen", "missing"}), Int(0));
  EXPECT_EQ(Run({"set", "n", "-123"}), Ok());
  EXPECT_EQ(Run({"strlen", "n"}), Int(4));
  EXPECT_EQ(Run({"set", "b", std::string("a\0b", 3)}), Ok());
  EXPECT_EQ(Run({"strlen", "b"}), Int(3));
  PlantList("l");
  EXPECT_EQ(Run({"strlen", "l"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

// --- GETRANGE, SUBSTR ---

TEST_F(StringCommandsTest, GetrangeIndicesAsRedisClampsThem) {
  ASSERT_EQ(Run({"set", "s", "hello"}), Ok());
  EXPECT_EQ(Run({"getrange", "s", "0", "-1"}), Bulk("hello"));
  EXPECT_EQ(Run({"getrange", "s", "-5", "-1"}), Bulk("hello"));
  EXPECT_EQ(Run({"getrange", "s", "1", "3"}), Bulk("ell"));
  EXPECT_EQ(Run({"getrange", "s", "0", "0"}), Bulk("h"));
  EXPECT_EQ(Run({"getrange", "s", "-1", "-1"}), Bulk("o"));
  EXPECT_EQ(Run({"getrange", "s", "-100", "100"}), Bulk("hello"));
  EXPECT_EQ(Run({"getrange", "s", "2", "1"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "10", "20"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "-1", "-5"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "3", "-20"}), Bulk(""));
  // Both negative with start after end is empty even though both would clamp to 0...
  EXPECT_EQ(Run({"getrange", "s", "-10", "-20"}), Bulk(""));
  // ...while start before end clamps to the first byte.
  EXPECT_EQ(Run({"getrange", "s", "-20", "-10"}), Bulk("h"));
  EXPECT_EQ(Run({"getrange", "s", "9223372036854775807", "9223372036854775807"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "-9223372036854775808", "-9223372036854775808"}), Bulk("h"));
  EXPECT_EQ(Run({"substr", "s", "1", "-2"}), Bulk("ell"));
}

TEST_F(StringCommandsTest, GetrangeOfEmptyMissingAndIntegerValues) {
  EXPECT_EQ(Run({"getrange", "missing", "0", "-1"}), Bulk(""));
  ASSERT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"getrange", "e", "0", "-1"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "e", "-1", "-1"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "e", "0", "0"}), Bulk(""));
  ASSERT_EQ(Run({"set", "i", "12345"}), Ok());
  EXPECT_EQ(Run({"getrange", "i", "1", "-2"}), Bulk("234"));
}

TEST_F(StringCommandsTest, GetrangeErrors) {
  // The indices are parsed before the key is looked up.
  EXPECT_EQ(Run({"getrange", "missing", "a", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"getrange", "missing", "0", "9223372036854775808"}),
            Err("ERR value is not an integer or out of range"));
  PlantList("l");
  EXPECT_EQ(Run({"getrange", "l", "0", "1"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"getrange", "l", "x", "1"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"getrange", "l", "0"}),
            Err("ERR wrong number of arguments for 'getrange' command"));
  EXPECT_EQ(Run({"substr", "l", "0"}), Err("ERR wrong number of arguments for 'substr' command"));
}

// --- SETRANGE ---

TEST_F(StringCommandsTest, SetrangeOverwritesAndPadsWithZeros) {
  ASSERT_EQ(Run({"set", "k", "abc"}), Ok());
  EXPECT_EQ(Run({"setrange", "k", "1", "X"}), Int(3));
  EXPECT_EQ(Run({"get", "k"}), Bulk("aXc"));
  EXPECT_EQ(EncodingOf("k"), "raw");
  EXPECT_EQ(Run({"setrange", "k", "2", "YZ"}), Int(4));
  EXPECT_EQ(Run({"get", "k"}), Bulk("aXYZ"));
  EXPECT_EQ(Run({"setrange", "k", "6", "!"}), Int(7));
  EXPECT_EQ(Run({"get", "k"}), Bulk(std::string("aXYZ\0\0!", 7)));
  EXPECT_EQ(Run({"setrange", "new", "3", "ab"}), Int(5));
  EXPECT_EQ(Run({"get", "new"}), Bulk(std::string("\0\0\0ab", 5)));
  EXPECT_EQ(EncodingOf("new"), "raw");
  ASSERT_EQ(Run({"set", "n", "12"}), Ok());
  EXPECT_EQ(Run({"setrange", "n", "0", "3"}), Int(2));
  EXPECT_EQ(Run({"get", "n"}), Bulk("32"));
  EXPECT_EQ(EncodingOf("n"), "raw");
}

TEST_F(StringCommandsTest, SetrangeWithNothingToWriteChangesNothing) {
  EXPECT_EQ(Run({"setrange", "missing", "0", ""}), Int(0));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  // No length check when nothing is written.
  EXPECT_EQ(Run({"setrange", "missing", "9223372036854775807", ""}), Int(0));
  ASSERT_EQ(Run({"set", "k", "abc"}), Ok());
  EXPECT_EQ(Run({"setrange", "k", "100", ""}), Int(3));
  EXPECT_EQ(EncodingOf("k"), "embstr");
}

TEST_F(StringCommandsTest, SetrangeKeepsTheExpiry) {
  ASSERT_EQ(Run({"set", "k", "abc", "px", "100"}), Ok());
  EXPECT_EQ(Run({"setrange", "k", "0", "z"}), Int(3));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 100);
}

TEST_F(StringCommandsTest, SetrangePast512MbIsRefused) {
  // proto-max-bulk-len is 512 MB by default: offset + length may reach it, not pass it. Checked
  // without allocating anything.
  EXPECT_EQ(Run({"setrange", "k", "536870912", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"setrange", "k", "536870911", "ab"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  // Sums that overflow int64 are refused too.
  EXPECT_EQ(Run({"setrange", "k", "9223372036854775807", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  // The limit follows the configuration; a string of exactly the limit is allowed.
  ASSERT_EQ(Run({"config", "set", "proto-max-bulk-len", "1mb"}), Ok());
  EXPECT_EQ(Run({"setrange", "k", "1048575", "a"}), Int(1048576));
  EXPECT_EQ(Run({"setrange", "k", "1048576", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"setrange", "k", "1048575", "aa"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"strlen", "k"}), Int(1048576));
}

TEST_F(StringCommandsTest, SetrangeAboveFourGigabytesIsRefusedEvenWhenConfiguredHigher) {
  // Keel's entries hold at most UINT32_MAX bytes; Redis would try to allocate the string.
  ASSERT_EQ(Run({"config", "set", "proto-max-bulk-len", "8gb"}), Ok());
  EXPECT_EQ(Run({"setrange", "k", "4294967295", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(StringCommandsTest, SetrangeErrors) {
  EXPECT_EQ(Run({"setrange", "k", "-1", "a"}), Err("ERR offset is out of range"));
  EXPECT_EQ(Run({"setrange", "k", "-1", ""}), Err("ERR offset is out of range"));
  EXPECT_EQ(Run({"setrange", "k", "a", "a"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"setrange", "k", "9223372036854775808", "a"}),
            Err("ERR value is not an integer or out of range"));
  PlantList("l");
  EXPECT_EQ(Run({"setrange", "l", "0", "a"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"setrange", "l", "0", ""}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"setrange", "l", "-1", "a"}), Err("ERR offset is out of range"));
}

TEST_F(StringCommandsTest, SetrangeUnderMemoryPressureKeepsTheValue) {
  ASSERT_EQ(Run({"set", "k", "abc"}), Ok());
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 64);
  EXPECT_EQ(Run({"setrange", "k", "1000", "x"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"get", "k"}), Bulk("abc"));
}

}  // namespace
}  // namespace keel::testing
