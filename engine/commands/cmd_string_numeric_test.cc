// Unit tests of INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT (cmd_string_numeric.cc). Every
// expectation, including each OBJECT ENCODING, was first checked against redis-server 7.0.15.
#include <string>

#include "engine/commands/string_test_fixture.h"

namespace keel::testing {
namespace {

class CounterCommandsTest : public StringTest {};

const RespValue kNotInteger = RespValue::Error("ERR value is not an integer or out of range");
const RespValue kOverflow = RespValue::Error("ERR increment or decrement would overflow");
const RespValue kNotFloat = RespValue::Error("ERR value is not a valid float");
const RespValue kNanOrInf = RespValue::Error("ERR increment would produce NaN or Infinity");
const RespValue kWrongType =
    RespValue::Error("WRONGTYPE Operation against a key holding the wrong kind of value");

TEST_F(CounterCommandsTest, IncrAndDecrStartFromZero) {
  EXPECT_EQ(Run({"incr", "a"}), Int(1));
  EXPECT_EQ(Run({"incr", "a"}), Int(2));
  EXPECT_EQ(Run({"decr", "b"}), Int(-1));
  EXPECT_EQ(Run({"incrby", "c", "10"}), Int(10));
  EXPECT_EQ(Run({"decrby", "c", "25"}), Int(-15));
  EXPECT_EQ(Run({"incrby", "c", "-5"}), Int(-20));
  EXPECT_EQ(Run({"decrby", "c", "-20"}), Int(0));
  EXPECT_EQ(Run({"get", "c"}), Bulk("0"));
  EXPECT_EQ(EncodingOf("a"), "int");
  EXPECT_EQ(EncodingOf("c"), "int");
}

TEST_F(CounterCommandsTest, IncrReadsStrictDecimalsOnly) {
  ASSERT_EQ(Run({"set", "k", "41"}), Ok());
  EXPECT_EQ(Run({"incr", "k"}), Int(42));
  // Any string that reads as an int64 counts, also one made raw by APPEND; the result is int.
  ASSERT_EQ(Run({"set", "r", "1"}), Ok());
  ASSERT_EQ(Run({"append", "r", "0"}), Int(2));
  ASSERT_EQ(EncodingOf("r"), "raw");
  EXPECT_EQ(Run({"incr", "r"}), Int(11));
  EXPECT_EQ(EncodingOf("r"), "int");
  for (const char* text : {" 1", "1 ", "+1", "01", "1.5", "-0", "abc", "", "99999999999999999999",
                           "9223372036854775808"}) {
    ASSERT_EQ(Run({"set", "bad", text}), Ok());
    EXPECT_EQ(Run({"incr", "bad"}), kNotInteger) << text;
    EXPECT_EQ(Run({"get", "bad"}), Bulk(text)) << text;
  }
  for (const char* text : {"1.0", "x", "", "+1", "9223372036854775808"}) {
    EXPECT_EQ(Run({"incrby", "k", text}), kNotInteger) << text;
    EXPECT_EQ(Run({"decrby", "k", text}), kNotInteger) << text;
  }
  EXPECT_EQ(Run({"get", "k"}), Bulk("42"));
}

TEST_F(CounterCommandsTest, OverflowIsRefusedAndChangesNothing) {
  ASSERT_EQ(Run({"set", "max", "9223372036854775807"}), Ok());
  EXPECT_EQ(Run({"incr", "max"}), kOverflow);
  EXPECT_EQ(Run({"incrby", "max", "9223372036854775807"}), kOverflow);
  EXPECT_EQ(Run({"decrby", "max", "-1"}), kOverflow);
  EXPECT_EQ(Run({"get", "max"}), Bulk("9223372036854775807"));
  ASSERT_EQ(Run({"set", "min", "-9223372036854775808"}), Ok());
  EXPECT_EQ(Run({"decr", "min"}), kOverflow);
  EXPECT_EQ(Run({"decrby", "min", "1"}), kOverflow);
  EXPECT_EQ(Run({"incrby", "min", "0"}), Int(INT64_MIN));
  EXPECT_EQ(Run({"incrby", "min", "9223372036854775807"}), Int(-1));
  // Reaching either end exactly is fine.
  EXPECT_EQ(Run({"incrby", "x", "-9223372036854775808"}), Int(INT64_MIN));
  EXPECT_EQ(Run({"decrby", "x", "9223372036854775807"}), kOverflow);
  EXPECT_EQ(Run({"incrby", "y", "9223372036854775807"}), Int(INT64_MAX));
}

TEST_F(CounterCommandsTest, DecrbyOfTheSmallestInt64IsItsOwnError) {
  // Its negation is not an int64; the check comes before the key is even looked at.
  EXPECT_EQ(Run({"decrby", "k", "-9223372036854775808"}), Err("ERR decrement would overflow"));
  PlantList("l");
  EXPECT_EQ(Run({"decrby", "l", "-9223372036854775808"}), Err("ERR decrement would overflow"));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(CounterCommandsTest, CountersKeepTheExpiry) {
  ASSERT_EQ(Run({"set", "k", "1", "px", "100"}), Ok());
  EXPECT_EQ(Run({"incr", "k"}), Int(2));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 100);
  EXPECT_EQ(Run({"incrbyfloat", "k", "0.5"}), Bulk("2.5"));
  EXPECT_EQ(ExpireAtMs("k"), NowMs() + 100);
  AdvanceMs(101);
  EXPECT_EQ(Run({"incr", "k"}), Int(1));  // expired: counts from 0, no expiry
  EXPECT_EQ(ExpireAtMs("k"), kNoExpiry);
}

TEST_F(CounterCommandsTest, WrongTypeComesBeforeTheValueChecks) {
  PlantList("l");
  EXPECT_EQ(Run({"incr", "l"}), kWrongType);
  EXPECT_EQ(Run({"decr", "l"}), kWrongType);
  EXPECT_EQ(Run({"incrby", "l", "2"}), kWrongType);
  EXPECT_EQ(Run({"decrby", "l", "2"}), kWrongType);
  EXPECT_EQ(Run({"incrbyfloat", "l", "1"}), kWrongType);
  EXPECT_EQ(Run({"incrbyfloat", "l", "abc"}), kWrongType);
  // The integer commands parse their increment first.
  EXPECT_EQ(Run({"incrby", "l", "abc"}), kNotInteger);
}

TEST_F(CounterCommandsTest, CountersUnderMemoryPressureChangeNothing) {
  // A first reply takes a reply chunk, kept for the replies below.
  ASSERT_EQ(Run({"dbsize"}), Int(0));
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 16);
  EXPECT_EQ(Run({"incr", "k"}), Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"incrbyfloat", "f", "1.5"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(CounterCommandsTest, IncrbyfloatFormatsAsRedisDoes) {
  EXPECT_EQ(Run({"incrbyfloat", "f", "1.5"}), Bulk("1.5"));
  EXPECT_EQ(Run({"incrbyfloat", "f", "0.1"}), Bulk("1.6"));
  EXPECT_EQ(Run({"incrbyfloat", "f", "-1.6"}), Bulk("0"));
  EXPECT_EQ(Run({"incrbyfloat", "g", "0.1"}), Bulk("0.1"));
  EXPECT_EQ(Run({"incrbyfloat", "g", "0.2"}), Bulk("0.3"));
  EXPECT_EQ(Run({"incrbyfloat", "h", "5.0e3"}), Bulk("5000"));
  EXPECT_EQ(Run({"incrbyfloat", "h", "0x10"}), Bulk("5016"));
  EXPECT_EQ(Run({"incrbyfloat", "i", "1.23456789012345678901234567890"}),
            Bulk("1.23456789012345679"));
  EXPECT_EQ(Run({"incrbyfloat", "j", "1e-20"}), Bulk("0"));
  EXPECT_EQ(Run({"incrbyfloat", "k", "-.5e-3"}), Bulk("-0.0005"));
  EXPECT_EQ(Run({"incrbyfloat", "l", "5."}), Bulk("5"));
  EXPECT_EQ(Run({"incrbyfloat", "m", "+5"}), Bulk("5"));
  EXPECT_EQ(Run({"incrbyfloat", "n", "1e17"}), Bulk("100000000000000000"));
  EXPECT_EQ(Run({"incrbyfloat", "n", "1"}), Bulk("100000000000000001"));  // long double
  EXPECT_EQ(Run({"incrbyfloat", "o", "123456789012345678901234567890"}),
            Bulk("123456789012345678899921813504"));
  // Negative zero is written "0".
  EXPECT_EQ(Run({"incrbyfloat", "z", "-0.0"}), Bulk("0"));
  ASSERT_EQ(Run({"set", "e", "1e3"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "e", "1"}), Bulk("1001"));
}

TEST_F(CounterCommandsTest, IncrbyfloatPrintsEveryDigitOfLargeValues) {
  const RespValue reply = Run({"incrbyfloat", "f", "1e308"});
  ASSERT_EQ(reply.type, RespType::kBulkString);
  EXPECT_EQ(reply.text.size(), 308u);  // 1e308 is a little less in binary: 308 digits
  EXPECT_EQ(reply.text.substr(0, 24), "999999999999999999966858");
  // Beyond double's range, long double still holds it.
  const RespValue huge = Run({"incrbyfloat", "h", "1e4000"});
  ASSERT_EQ(huge.type, RespType::kBulkString);
  EXPECT_EQ(huge.text.size(), 4000u);
  EXPECT_EQ(huge.text.substr(0, 20), "99999999999999999999");
}

TEST_F(CounterCommandsTest, IncrbyfloatStoresEmbstrOrRawNeverInt) {
  EXPECT_EQ(Run({"incrbyfloat", "a", "10"}), Bulk("10"));
  EXPECT_EQ(EncodingOf("a"), "embstr");
  EXPECT_EQ(Run({"incrbyfloat", "b", "123456789012345678901234567890"}),
            Bulk("123456789012345678899921813504"));
  EXPECT_EQ(EncodingOf("b"), "embstr");  // 30 bytes
  EXPECT_EQ(Run({"incrbyfloat", "c", "1e50"}),
            Bulk("100000000000000000003583830118858923890798487404544"));
  EXPECT_EQ(EncodingOf("c"), "raw");  // 51 bytes
}

TEST_F(CounterCommandsTest, IncrbyfloatRefusesInfinityAndNan) {
  EXPECT_EQ(Run({"incrbyfloat", "k", "inf"}), kNanOrInf);
  EXPECT_EQ(Run({"incrbyfloat", "k", "-inf"}), kNanOrInf);
  EXPECT_EQ(Run({"incrbyfloat", "k", "nan"}), kNotFloat);
  ASSERT_EQ(Run({"set", "i", "inf"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "i", "1"}), kNanOrInf);
  // inf + -inf is NaN.
  EXPECT_EQ(Run({"incrbyfloat", "i", "-inf"}), kNanOrInf);
  // The sum overflowing long double.
  ASSERT_EQ(Run({"set", "big", "1e4932"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "big", "1e4932"}), kNanOrInf);
  EXPECT_EQ(Run({"get", "big"}), Bulk("1e4932"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(CounterCommandsTest, IncrbyfloatParsesAsString2ld) {
  for (const char* text : {"abc", " 1", "1 ", "", "1e5000", "1e-5000", "--1", "1e"}) {
    EXPECT_EQ(Run({"incrbyfloat", "k", text}), kNotFloat) << text;
  }
  EXPECT_EQ(Run({"incrbyfloat", "k",
                 std::string("1\0"
                             "2",
                             3)}),
            kNotFloat);
  // Texts of 5120 bytes or more are refused whatever they say (MAX_LONG_DOUBLE_CHARS).
  EXPECT_EQ(Run({"incrbyfloat", "k", std::string(5119, '0') + "1"}), kNotFloat);
  EXPECT_EQ(Run({"incrbyfloat", "k", std::string(5118, '0') + "1"}), Bulk("1"));
  // An underflow to a denormal is kept (and prints as 0); one to zero is refused above.
  EXPECT_EQ(Run({"incrbyfloat", "d", "1e-4940"}), Bulk("0"));
  ASSERT_EQ(Run({"set", "s", " 1.5"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "s", "1"}), kNotFloat);
  ASSERT_EQ(Run({"set", "s", "hello"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "s", "1"}), kNotFloat);
  EXPECT_EQ(Run({"get", "s"}), Bulk("hello"));
}

TEST_F(CounterCommandsTest, ArityErrors) {
  EXPECT_EQ(Run({"incr"}), Err("ERR wrong number of arguments for 'incr' command"));
  EXPECT_EQ(Run({"incr", "a", "b"}), Err("ERR wrong number of arguments for 'incr' command"));
  EXPECT_EQ(Run({"incrby", "a"}), Err("ERR wrong number of arguments for 'incrby' command"));
  EXPECT_EQ(Run({"incrbyfloat", "a"}),
            Err("ERR wrong number of arguments for 'incrbyfloat' command"));
}

}  // namespace
}  // namespace keel::testing
