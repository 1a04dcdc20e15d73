// DUMP, RESTORE and DEBUG DIGEST / DIGEST-VALUE. The expected payloads and digests were taken
// from redis-server 7.0.15 (the same values DUMPed there): Keel's serialiser must write the same
// bytes, LZF included, and digest the same data the same way.
#include <gtest/gtest.h>

#include <string>

#include "engine/db/keyspace.h"
#include "engine/server/config.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

std::string Unhex(std::string_view hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return bytes;
}

std::string Hex(const RespValue& value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : value.text) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 0xf]);
  }
  return hex;
}

class DumpTest : public CommandTest {
 protected:
  void SetUp() override {
    Config config;
    std::string error;
    ASSERT_TRUE(config.SetFromCommand(*Config::Find("enable-debug-command"), "yes", &error));
    StartEngine(std::move(config));
  }
};

TEST_F(DumpTest, PayloadsAreRedisBytes) {
  const struct {
    std::string value;
    std::string_view payload_hex;
  } cases[] = {
      {"hello", "000568656c6c6f0a006372df766534200a"},
      {"12345", "00c139300a009d94ea2793fc08b9"},
      {"9999999999", "000a393939393939393939390a00d26ac299df53efd2"},
      {"-5", "00c0fb0a0049c4c6f4d7263f68"},
      {"", "00000a005d9b5c400f7fa2da"},
      {std::string(47, 'a'), "00c3092f016161e022000161610a002660805b8e3a583d"},
      {std::string(100, 'x'), "00c3094064017878e057000178780a005db7f663bb08625f"},
      {"the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog "
       "again and again",
       "00c3404240681f74686520717569636b2062726f776e20666f78206a756d7073206f7665722074201e086c6"
       "17a7920646f672c600de01e2c0920616761696e20616e64400901696e0a00911156409ba5fdd5"},
  };
  for (const auto& c : cases) {
    ASSERT_EQ(Run({"set", "k", c.value}), Ok());
    EXPECT_EQ(Hex(Run({"dump", "k"})), c.payload_hex) << c.value;
    // And Redis's payload restores the value.
    ASSERT_EQ(Run({"del", "k"}), Int(1));
    EXPECT_EQ(Run({"restore", "k", "0", Unhex(c.payload_hex)}), Ok());
    EXPECT_EQ(Run({"get", "k"}), Bulk(c.value));
  }
  EXPECT_EQ(Run({"dump", "missing"}), NilBulk());
  // DEBUG OBJECT's serializedlength is the same serialiser's size (without the type byte).
  ASSERT_EQ(Run({"set", "k", std::string(100, 'x')}), Ok());
  EXPECT_NE(Run({"debug", "object", "k"}).text.find(" serializedlength:13 "), std::string::npos);
}

TEST_F(DumpTest, RdbcompressionOffWritesTheBytes) {
  EXPECT_EQ(Run({"config", "set", "rdbcompression", "no"}), Ok());
  EXPECT_EQ(Run({"set", "k", std::string(100, 'x')}), Ok());
  const std::string payload = Run({"dump", "k"}).text;
  EXPECT_EQ(payload.size(), 113u);  // type, 2-byte length, 100 bytes, version, CRC
  EXPECT_EQ(Hex(Run({"dump", "k"})).substr(0, 20), "00406478787878787878");
}

TEST_F(DumpTest, RestoreRoundTripsEveryByteValue) {
  std::string value;
  for (int round = 0; round < 3; round++) {
    for (int c = 0; c < 256; c++) value.push_back(static_cast<char>(c));
  }
  ASSERT_EQ(Run({"set", "k", value}), Ok());
  const std::string payload = Run({"dump", "k"}).text;
  EXPECT_EQ(Run({"restore", "copy", "0", payload}), Ok());
  EXPECT_EQ(Run({"get", "copy"}), Bulk(value));
  EXPECT_EQ(Run({"object", "encoding", "copy"}), Bulk("raw"));
  // Integers come back as integers.
  ASSERT_EQ(Run({"set", "n", "123"}), Ok());
  EXPECT_EQ(Run({"restore", "n2", "0", Run({"dump", "n"}).text}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "n2"}), Bulk("int"));
}

TEST_F(DumpTest, RestoreErrorsInRedisOrder) {
  ASSERT_EQ(Run({"set", "a", "hello"}), Ok());
  const std::string payload = Run({"dump", "a"}).text;
  // Options first, then the key, then the TTL, then the payload.
  EXPECT_EQ(Run({"restore", "a", "-1", "x", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"restore", "b", "0", "x", "idletime"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"restore", "b", "0", "x", "idletime", "-1"}),
            Err("ERR Invalid IDLETIME value, must be >= 0"));
  EXPECT_EQ(Run({"restore", "b", "0", "x", "freq", "256"}),
            Err("ERR Invalid FREQ value, must be >= 0 and <= 255"));
  EXPECT_EQ(Run({"restore", "b", "0", "x", "freq", "1", "idletime", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"restore", "a", "0", "xxxxxxxxxxxx"}),
            Err("BUSYKEY Target key name already exists."));
  EXPECT_EQ(Run({"restore", "b", "-1", "x"}), Err("ERR Invalid TTL value, must be >= 0"));
  EXPECT_EQ(Run({"restore", "b", "abc", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"restore", "b", "0", "x"}), Err("ERR DUMP payload version or checksum are wrong"));
  std::string corrupt = payload;
  corrupt[2] ^= 1;
  EXPECT_EQ(Run({"restore", "b", "0", corrupt}),
            Err("ERR DUMP payload version or checksum are wrong"));
  // A version from the future.
  std::string future = payload;
  future[future.size() - 10] = 11;
  EXPECT_EQ(Run({"restore", "b", "0", future}),
            Err("ERR DUMP payload version or checksum are wrong"));
  // Without checksum validation, the damage is seen by the loader.
  EXPECT_EQ(Run({"debug", "set-skip-checksum-validation", "1"}), Ok());
  // A length past the end of the payload (footer included).
  std::string truncated =
      std::string("\x00\x80\x7f\xff\xff\xff", 6) + payload.substr(payload.size() - 10);
  EXPECT_EQ(Run({"restore", "b", "0", truncated}), Err("ERR Bad data format"));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
}

TEST_F(DumpTest, RestoreTtlReplaceAndPropagation) {
  ASSERT_EQ(Run({"set", "a", "hello"}), Ok());
  const std::string payload = Run({"dump", "a"}).text;
  EXPECT_EQ(Run({"restore", "a", "0", payload, "replace"}), Ok());
  EXPECT_EQ(Run({"ttl", "a"}), Int(-1));
  EXPECT_EQ(Run({"restore", "t", "5000", payload}), Ok());
  EXPECT_EQ(Run({"pttl", "t"}), Int(5000));
  EXPECT_EQ(Run({"restore", "abs", "99999999999999", payload, "absttl"}), Ok());
  EXPECT_EQ(Run({"pexpiretime", "abs"}), Int(99999999999999));
  // Already expired: the key is not created; with REPLACE the old one is deleted.
  EXPECT_EQ(Run({"restore", "gone", "1", payload, "absttl"}), Ok());
  EXPECT_EQ(Run({"exists", "gone"}), Int(0));
  EXPECT_EQ(Run({"restore", "a", "1", payload, "absttl", "replace"}), Ok());
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  // A relative TTL that overflows wraps into the past, as in Redis: nothing is created.
  EXPECT_EQ(Run({"restore", "huge", "9223372036854775807", payload}), Ok());
  EXPECT_EQ(Run({"exists", "huge"}), Int(0));
}

TEST_F(DumpTest, IdletimeSetsTheClock) {
  ASSERT_EQ(Run({"set", "a", "hello"}), Ok());
  const std::string payload = Run({"dump", "a"}).text;
  AdvanceMs(2000000);
  EXPECT_EQ(Run({"restore", "b", "0", payload, "idletime", "1000"}), Ok());
  EXPECT_EQ(Run({"object", "idletime", "b"}), Int(1000));
}

TEST_F(DumpTest, DigestsAreRedisDigests) {
  EXPECT_EQ(Run({"debug", "digest"}), Status("0000000000000000000000000000000000000000"));
  ASSERT_EQ(Run({"set", "hello", "hello"}), Ok());
  ASSERT_EQ(Run({"set", "int", "12345"}), Ok());
  const RespValue values = Run({"debug", "digest-value", "hello", "int", "missing"});
  ASSERT_EQ(values.elements.size(), 3u);
  EXPECT_EQ(values.elements[0], Status("36b23a1456b2dce2c3ed252c456761301dba8060"));
  EXPECT_EQ(values.elements[1], Status("e1cf90774e995ae03de66e8109dc5cb9d9c2dc83"));
  EXPECT_EQ(values.elements[2], Status("0000000000000000000000000000000000000000"));
  EXPECT_EQ(Run({"expire", "hello", "100"}), Int(1));
  EXPECT_EQ(Run({"debug", "digest-value", "hello"}).elements.at(0),
            Status("d037c4eb8a8b36b602fbced4000daeab0714c1e3"));
  EXPECT_EQ(Run({"debug", "digest-value"}).elements.size(), 0u);
}

TEST_F(DumpTest, DatasetDigestCountsTheDatabase) {
  // Redis 7.0.15: {hello: hello (with a TTL), int: 12345} in db 0 and the same plus db 3's
  // hello.
  ASSERT_EQ(Run({"set", "hello", "hello", "ex", "100"}), Ok());
  ASSERT_EQ(Run({"set", "int", "12345"}), Ok());
  EXPECT_EQ(Run({"debug", "digest"}), Status("2baac505417117942c928ee7a7ba05b6fb5d8bb8"));
  ASSERT_EQ(Run({"select", "3"}), Ok());
  ASSERT_EQ(Run({"set", "hello", "hello"}), Ok());
  EXPECT_EQ(Run({"debug", "digest"}), Status("035848d7492c02f838c45a67112bb468cd4965ff"));
}

}  // namespace
}  // namespace keel::testing
