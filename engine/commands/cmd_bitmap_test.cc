// Unit tests of the bit commands (cmd_bitmap.cc, cmd_bitfield.cc). Every expectation was first
// checked against redis-server 7.0.15.
#include <string>

#include "engine/commands/string_test_fixture.h"

namespace keel::testing {
namespace {

class BitmapCommandsTest : public StringTest {};

TEST_F(BitmapCommandsTest, SetbitGrowsZeroPaddedAndRepliesWithTheOldBit) {
  EXPECT_EQ(Run({"setbit", "k", "7", "1"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk(std::string("\x01", 1)));
  EXPECT_EQ(Run({"setbit", "k", "7", "0"}), Int(1));
  EXPECT_EQ(Run({"setbit", "k", "23", "1"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk(std::string("\x00\x00\x01", 3)));
  EXPECT_EQ(Run({"getbit", "k", "23"}), Int(1));
  EXPECT_EQ(Run({"getbit", "k", "1000"}), Int(0));
  EXPECT_EQ(Run({"getbit", "missing", "0"}), Int(0));
  EXPECT_EQ(EncodingOf("k"), "raw");
}

TEST_F(BitmapCommandsTest, OffsetAndValueErrors) {
  EXPECT_EQ(Run({"setbit", "k", "-1", "1"}),
            Err("ERR bit offset is not an integer or out of range"));
  EXPECT_EQ(Run({"setbit", "k", "4294967296", "1"}),
            Err("ERR bit offset is not an integer or out of range"));
  EXPECT_EQ(Run({"setbit", "k", "0", "2"}), Err("ERR bit is not an integer or out of range"));
  EXPECT_EQ(Run({"getbit", "k", "#1"}), Err("ERR bit offset is not an integer or out of range"));
  EXPECT_EQ(Run({"config", "set", "proto-max-bulk-len", "1048576"}), Ok());
  EXPECT_EQ(Run({"setbit", "k", "8388608", "1"}),
            Err("ERR bit offset is not an integer or out of range"));
  EXPECT_EQ(Run({"setbit", "k", "8388607", "1"}), Int(0));
  EXPECT_EQ(Run({"strlen", "k"}), Int(1048576));
  PlantList("l");
  EXPECT_EQ(Run({"setbit", "l", "0", "1"}).type, RespType::kError);
}

TEST_F(BitmapCommandsTest, SetbitUnchangedCountsNothingButMakesTheValueRaw) {
  EXPECT_EQ(Run({"set", "k", "abc"}), Ok());
  EXPECT_EQ(EncodingOf("k"), "embstr");
  EXPECT_EQ(Run({"config", "resetstat"}), Ok());
  EXPECT_EQ(Run({"setbit", "k", "1", "1"}), Int(1));  // 'a' is 0x61
  EXPECT_EQ(EncodingOf("k"), "raw");
  EXPECT_EQ(Run({"setbit", "k", "0", "1"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk("\xe1"
                                    "bc"));
}

TEST_F(BitmapCommandsTest, SetbitFarPastTheEndIsOomWhenMemoryIsRefused) {
  // Redis allocates the whole string (up to 512 MB) for one SETBIT and refuses only the
  // commands after it once used memory passes maxmemory; an allocation the environment refuses
  // is the OOM error, never an abort, and leaves the key as it was.
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + (8 << 20));
  EXPECT_EQ(Run({"setbit", "k", "800000000", "1"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "x"}), Ok());
  EXPECT_EQ(Run({"setbit", "k", "800000000", "1"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"get", "k"}), Bulk("x"));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "#100000000", "1"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"get", "k"}), Bulk("x"));
  // Growing one bit at a time stays within room to spare: amortised, not a copy per bit.
  env_.sim_memory().set_limit_bytes(0);
  for (int i = 0; i < 100000; i += 8)
    ASSERT_EQ(Run({"setbit", "g", std::to_string(i), "1"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "g"}), Int(12500));
}

TEST_F(BitmapCommandsTest, BitcountRanges) {
  EXPECT_EQ(Run({"set", "k", "foobar"}), Ok());
  EXPECT_EQ(Run({"bitcount", "k"}), Int(26));
  EXPECT_EQ(Run({"bitcount", "k", "0", "0"}), Int(4));
  EXPECT_EQ(Run({"bitcount", "k", "1", "1"}), Int(6));
  EXPECT_EQ(Run({"bitcount", "k", "1", "1", "BYTE"}), Int(6));
  EXPECT_EQ(Run({"bitcount", "k", "5", "30", "BIT"}), Int(17));
  EXPECT_EQ(Run({"bitcount", "k", "-1", "-2"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "-100", "100"}), Int(26));
  EXPECT_EQ(Run({"bitcount", "k", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"bitcount", "missing", "1"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "0", "1", "bits"}), Err("ERR syntax error"));
  // A reversed range from the end is 0 before the unit is read (the random differential run,
  // seed 1, command 14386).
  EXPECT_EQ(Run({"bitcount", "k", "-2", "-5", "bits"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "a", "1"}), Err("ERR value is not an integer or out of range"));
}

TEST_F(BitmapCommandsTest, BitposRanges) {
  EXPECT_EQ(Run({"set", "k", std::string("\xff\xf0\x00", 3)}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "0"}), Int(12));
  EXPECT_EQ(Run({"bitpos", "k", "1", "2"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "7", "15", "BIT"}), Int(7));
  EXPECT_EQ(Run({"set", "ones", std::string("\xff\xff", 2)}), Ok());
  EXPECT_EQ(Run({"bitpos", "ones", "0"}), Int(16));
  EXPECT_EQ(Run({"bitpos", "ones", "0", "0"}), Int(16));
  EXPECT_EQ(Run({"bitpos", "ones", "0", "0", "-1"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "missing", "0"}), Int(0));
  EXPECT_EQ(Run({"bitpos", "missing", "1"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "2"}), Err("ERR The bit argument must be 1 or 0."));
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "x", "bad"}), Err("ERR syntax error"));
}

TEST_F(BitmapCommandsTest, BitopPadsAndDeletesAnEmptyResult) {
  EXPECT_EQ(Run({"set", "a", "abc"}), Ok());
  EXPECT_EQ(Run({"set", "b", "a"}), Ok());
  EXPECT_EQ(Run({"bitop", "and", "d", "a", "b"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(std::string("a\0\0", 3)));
  EXPECT_EQ(Run({"bitop", "OR", "d", "a", "missing"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk("abc"));
  EXPECT_EQ(Run({"bitop", "not", "d", "b"}), Int(1));
  EXPECT_EQ(Run({"get", "d"}), Bulk("\x9e"));
  EXPECT_EQ(Run({"bitop", "not", "d", "a", "b"}),
            Err("ERR BITOP NOT must be called with a single source key."));
  EXPECT_EQ(Run({"bitop", "nand", "d", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"bitop", "xor", "d", "missing"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
}

TEST_F(BitmapCommandsTest, BitfieldSubcommandsAndOverflow) {
  EXPECT_EQ(Run({"bitfield", "k",        "set",  "u8",     "0",        "255", "get",    "u8", "0",
                 "incrby",   "u8",       "0",    "10",     "overflow", "sat", "incrby", "u8", "0",
                 "300",      "overflow", "fail", "incrby", "u8",       "0",   "1"}),
            Array({Int(0), Int(255), Int(9), Int(255), NilBulk()}));
  EXPECT_EQ(Run({"bitfield", "k", "set", "i8", "#1", "-128", "get", "i8", "#1", "get", "u4", "8"}),
            Array({Int(0), Int(-128), Int(8)}));
  EXPECT_EQ(Run({"strlen", "k"}), Int(2));
  EXPECT_EQ(Run({"bitfield", "k", "get", "i64", "0", "get", "u63", "1"}).type, RespType::kArray);
  EXPECT_EQ(Run({"bitfield", "k", "get", "u64", "0"}),
            Err("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not "
                "supported but i64 is."));
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "maybe"}),
            Err("ERR Invalid OVERFLOW type specified"));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "0", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"bitfield_ro", "k", "set", "u8", "0", "1"}),
            Err("ERR BITFIELD_RO only supports the GET subcommand"));
  EXPECT_EQ(Run({"bitfield_ro", "k", "get", "u8", "0"}), Array({Int(255)}));
  EXPECT_EQ(Run({"bitfield", "missing", "get", "u8", "0"}), Array({Int(0)}));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  // A refused write still creates the key, as long as its farthest write.
  EXPECT_EQ(Run({"bitfield", "new", "overflow", "fail", "set", "u8", "8", "999"}),
            Array({NilBulk()}));
  EXPECT_EQ(Run({"get", "new"}), Bulk(std::string(2, '\0')));
}

}  // namespace
}  // namespace keel::testing
