// EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST. Every
// expected reply was checked against redis-server 7.0.15 (with DEBUG SET-ACTIVE-EXPIRE 0 where
// time passes); conformance/cases/generic.txt compares the clock-free ones byte for byte.
#include <string>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ExpireTest : public CommandTest {
 protected:
  // The command time of the next command, in ms (the simulated wall clock).
  int64_t NowMs() { return env_.sim_clock().WallUs() / 1000; }
  std::string At(int64_t ms) { return std::to_string(ms); }
};

TEST_F(ExpireTest, EachFormSetsTheSameAbsoluteTime) {
  const int64_t now = NowMs();
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(now + 100000));
  EXPECT_EQ(Run({"pexpire", "k", "2500"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(now + 2500));
  EXPECT_EQ(Run({"expireat", "k", At(now / 1000 + 50)}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int((now / 1000 + 50) * 1000));
  EXPECT_EQ(Run({"pexpireat", "k", At(now + 1234)}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(now + 1234));
  EXPECT_EQ(Run({"expire", "missing", "100"}), Int(0));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
}

TEST_F(ExpireTest, TtlFormsAndRounding) {
  EXPECT_EQ(Run({"ttl", "missing"}), Int(-2));
  EXPECT_EQ(Run({"pttl", "missing"}), Int(-2));
  EXPECT_EQ(Run({"expiretime", "missing"}), Int(-2));
  EXPECT_EQ(Run({"pexpiretime", "missing"}), Int(-2));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"pttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(-1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(-1));
  // Seconds are rounded to the nearest: 1499 ms is 1 s, 1500 ms is 2 s.
  EXPECT_EQ(Run({"pexpire", "k", "1499"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(1));
  EXPECT_EQ(Run({"pexpire", "k", "1500"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(2));
  EXPECT_EQ(Run({"pexpireat", "k", "4102444800499"}), Int(1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(4102444800));
  EXPECT_EQ(Run({"pexpireat", "k", "4102444800500"}), Int(1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(4102444801));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(4102444800500));
  EXPECT_EQ(Run({"ttl"}), Err("ERR wrong number of arguments for 'ttl' command"));
  EXPECT_EQ(Run({"pexpiretime", "k", "x"}),
            Err("ERR wrong number of arguments for 'pexpiretime' command"));
}

TEST_F(ExpireTest, AKeyLivesThroughItsExpiryMillisecond) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpire", "k", "10"}), Int(1));
  AdvanceMs(9);
  EXPECT_EQ(Run({"pttl", "k"}), Int(1));
  AdvanceMs(1);
  EXPECT_EQ(Run({"pttl", "k"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(0));
  AdvanceMs(1);
  EXPECT_EQ(Run({"pttl", "k"}), Int(-2));
  EXPECT_EQ(engine_->keyspace().stats().expired_keys, 1u);
}

TEST_F(ExpireTest, PastAndNegativeTimesDeleteAtOnce) {
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"expire", "k", "0"},
                                             {"expire", "k", "-5"},
                                             {"pexpire", "k", "0"},
                                             {"expireat", "k", "1"},
                                             {"pexpireat", "k", "-1"},
                                             {"pexpireat", "k", At(NowMs())},
                                             {"expire", "k", "-9223372036854775"},
                                             {"pexpire", "k", "-9223372036854775807"}}) {
    EXPECT_EQ(Run({"set", "k", "v"}), Ok());
    EXPECT_EQ(Run(command), Int(1)) << command[0] << " " << command[2];
    EXPECT_EQ(Run({"exists", "k"}), Int(0)) << command[0] << " " << command[2];
  }
  // Deleted by the command, not expired: INFO's expired_keys does not count them.
  EXPECT_EQ(engine_->keyspace().stats().expired_keys, 0u);
  EXPECT_EQ(Run({"pexpireat", "k", At(NowMs() + 1)}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpireat", "k", At(NowMs() + 1)}), Int(1));
  EXPECT_EQ(Run({"pttl", "k"}), Int(1));
}

TEST_F(ExpireTest, OverflowIsAnError) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  const auto invalid = [](std::string_view command) {
    return Err("ERR invalid expire time in '" + std::string(command) + "' command");
  };
  // Seconds that do not fit in milliseconds, or a sum past the int64 range.
  EXPECT_EQ(Run({"expire", "k", "9223372036854776"}), invalid("expire"));
  EXPECT_EQ(Run({"expire", "k", "9223372036854775"}), invalid("expire"));
  EXPECT_EQ(Run({"expire", "k", "-9223372036854776"}), invalid("expire"));
  EXPECT_EQ(Run({"pexpire", "k", "9223372036854775807"}), invalid("pexpire"));
  EXPECT_EQ(Run({"EXPIREAT", "k", "9223372036854776"}), invalid("expireat"));
  // An absolute time has no base to add: the largest ones are accepted.
  EXPECT_EQ(Run({"pexpireat", "k", "9223372036854775807"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(9223372036854775807));
  EXPECT_EQ(Run({"expireat", "k", "9223372036854775"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(9223372036854775000));
  // The check comes before the key is looked up.
  EXPECT_EQ(Run({"expire", "missing", "9223372036854776"}), invalid("expire"));
  for (std::string_view bad : {"abc", "", "1.5", " 1", "9223372036854775808", "+1"}) {
    EXPECT_EQ(Run({"expire", "k", bad}), Err("ERR value is not an integer or out of range"));
  }
}

TEST_F(ExpireTest, OptionErrorsComeFirst) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  const RespValue nx_error =
      Err("ERR NX and XX, GT or LT options at the same time are not compatible");
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "xx"}), nx_error);
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "gt"}), nx_error);
  EXPECT_EQ(Run({"expire", "k", "100", "lt", "nx"}), nx_error);
  EXPECT_EQ(Run({"expire", "k", "100", "gt", "lt"}),
            Err("ERR GT and LT options at the same time are not compatible"));
  EXPECT_EQ(Run({"expire", "k", "100", "foo"}), Err("ERR Unsupported option foo"));
  // Before the number is read; an option is quoted up to a NUL, newlines made spaces.
  EXPECT_EQ(Run({"expire", "k", "abc", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"expire", "k", "100", std::string_view("foo\0bar", 7)}),
            Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"expire", "k", "100", "foo\r\nbar"}), Err("ERR Unsupported option foo  bar"));
  EXPECT_EQ(Run({"expire", "k", "abc", "nx"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"expire", "k"}), Err("ERR wrong number of arguments for 'expire' command"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  // Repeats are fine.
  EXPECT_EQ(Run({"expire", "k", "100", "NX", "nX"}), Int(1));
}

TEST_F(ExpireTest, NxAndXx) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "xx"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "100", "nx"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "200", "nx"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"expire", "k", "200", "xx"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(200));
  EXPECT_EQ(Run({"expire", "missing", "100", "nx"}), Int(0));
}

TEST_F(ExpireTest, GtAndLtTreatNoExpiryAsInfinite) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  // No expiry is forever: nothing is greater, everything is less.
  EXPECT_EQ(Run({"expire", "k", "100", "gt"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "-5", "gt"}), Int(0));
  EXPECT_EQ(Run({"exists", "k"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "100", "lt"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"expire", "k", "50", "gt"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "100", "gt"}), Int(0));  // equal is not greater
  EXPECT_EQ(Run({"expire", "k", "200", "gt"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "300", "lt"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "200", "lt"}), Int(0));  // equal is not less
  EXPECT_EQ(Run({"expire", "k", "100", "lt", "xx"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  // A negative time passes LT and deletes the key.
  EXPECT_EQ(Run({"expire", "k", "-1", "lt"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpire", "k", "0", "lt"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(ExpireTest, PersistRemovesTheExpiry) {
  EXPECT_EQ(Run({"persist", "missing"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"persist", "k"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "100"}), Int(1));
  EXPECT_EQ(Run({"persist", "k"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"persist", "k"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "100", "xx"}), Int(0));
  EXPECT_TRUE(engine_->database(0).CheckInvariants());
  EXPECT_EQ(engine_->database(0).expires_count(), 0u);
}

TEST_F(ExpireTest, AnExpiredKeyIsMissingForEveryExpiryCommand) {
  for (std::string_view command : {"expire", "pexpire", "persist", "ttl", "pexpiretime"}) {
    EXPECT_EQ(Run({"set", "k", "v", "px", "1"}), Ok());
    AdvanceMs(2);
    const RespValue reply = command == "persist" || command == "ttl" || command == "pexpiretime"
                                ? Run({command, "k"})
                                : Run({command, "k", "100"});
    EXPECT_EQ(reply, command == "ttl" || command == "pexpiretime" ? Int(-2) : Int(0)) << command;
    EXPECT_EQ(Run({"dbsize"}), Int(0)) << command;  // the lookup reclaimed it
  }
}

TEST_F(ExpireTest, ReadingTheTtlDoesNotTouchTheKey) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  AdvanceMs(5000);
  EXPECT_EQ(Run({"ttl", "k"}), Int(95));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(NowMs() + 95000));
  EXPECT_EQ(Run({"object", "idletime", "k"}), Int(5));
  EXPECT_EQ(Run({"expire", "k", "100"}), Int(1));  // a write lookup does touch
  EXPECT_EQ(Run({"object", "idletime", "k"}), Int(0));
}

TEST_F(ExpireTest, RefusedMemoryChangesNothing) {
  // Values past the slab's largest class, so that every entry is an allocation of its own.
  const std::string value(2000, 'x');
  EXPECT_EQ(Run({"set", "k", value}), Ok());
  EXPECT_EQ(Run({"set", "t", value, "ex", "100"}), Ok());
  // Adding or removing an expiry needs a new entry: with no memory left the command fails.
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 16);
  const RespValue oom = Err("OOM command not allowed when used memory > 'maxmemory'.");
  EXPECT_EQ(Run({"expire", "k", "100"}), oom);
  EXPECT_EQ(Run({"persist", "t"}), oom);
  EXPECT_EQ(Run({"getex", "k", "ex", "5"}), oom);
  EXPECT_EQ(Run({"getex", "t", "persist"}), oom);
  // Changing an existing expiry needs nothing new; neither does deleting.
  EXPECT_EQ(Run({"expire", "t", "50"}), Int(1));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"ttl", "t"}), Int(50));
  EXPECT_TRUE(engine_->database(0).CheckInvariants());
}

TEST_F(ExpireTest, AnExpiryAtTheEndOfTimeRoundsAsRedisDoes) {
  // Found by the random differential run (seed 21): the seconds rounding overflowed int64.
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpireat", "k", "9223372036854775807"}), Int(1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(9223372036854776));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(9223372036854775807));
  EXPECT_EQ(Run({"pexpireat", "k", "9223372036854775300"}), Int(1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(9223372036854775));
}

}  // namespace
}  // namespace keel::testing
