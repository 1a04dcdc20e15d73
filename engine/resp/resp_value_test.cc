// Tests for the RESP value codec (EncodeResp / DecodeResp), used by every test client.
#include "engine/resp/resp_value.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/numbers.h"
#include "sim/testing/resp_generators.h"

namespace keel {
namespace {

struct Decoded {
  DecodeStatus status;
  RespValue value;
  size_t consumed = 0;
};

Decoded Decode(std::string_view bytes, const DecodeLimits& limits = DecodeLimits()) {
  Decoded decoded;
  decoded.status = DecodeResp(bytes, &decoded.value, &decoded.consumed, limits);
  return decoded;
}

RespValue Typed(RespType type, std::string_view text = "", int64_t integer = 0,
                std::vector<RespValue> elements = {}) {
  RespValue value;
  value.type = type;
  value.text = text;
  value.integer = integer;
  value.elements = std::move(elements);
  return value;
}

TEST(RespValueTest, DecodesEveryType) {
  struct Case {
    std::string bytes;
    RespValue value;
  };
  const std::vector<Case> cases = {
      {"+OK\r\n", RespValue::Simple("OK")},
      {"+\r\n", RespValue::Simple("")},
      {"-ERR bad\r\n", RespValue::Error("ERR bad")},
      {":-9223372036854775808\r\n", RespValue::Integer(INT64_MIN)},
      {":0\r\n", RespValue::Integer(0)},
      {std::string("$5\r\na\r\nb\0\r\n", 11), RespValue::Bulk(std::string_view("a\r\nb\0", 5))},
      {"$0\r\n\r\n", RespValue::Bulk("")},
      {"$-1\r\n", Typed(RespType::kNullBulk)},
      {"*-1\r\n", Typed(RespType::kNullArray)},
      {"*0\r\n", RespValue::Array({})},
      {"*2\r\n:1\r\n*1\r\n+x\r\n",
       RespValue::Array({RespValue::Integer(1), RespValue::Array({RespValue::Simple("x")})})},
      {"_\r\n", Typed(RespType::kNull)},
      {"#t\r\n", Typed(RespType::kBoolean, "", 1)},
      {"#f\r\n", Typed(RespType::kBoolean, "", 0)},
      {",1.5\r\n", Typed(RespType::kDouble, "1.5")},
      {",-inf\r\n", Typed(RespType::kDouble, "-inf")},
      {",nan\r\n", Typed(RespType::kDouble, "nan")},
      {",1e+300\r\n", Typed(RespType::kDouble, "1e+300")},
      {"(-12345678901234567890123\r\n", Typed(RespType::kBigNumber, "-12345678901234567890123")},
      {"!3\r\nE x\r\n", Typed(RespType::kBlobError, "E x")},
      {"=8\r\ntxt:abcd\r\n", Typed(RespType::kVerbatim, "txt:abcd")},
      {"%1\r\n+k\r\n:1\r\n",
       Typed(RespType::kMap, "", 0, {RespValue::Simple("k"), RespValue::Integer(1)})},
      {"~1\r\n_\r\n", Typed(RespType::kSet, "", 0, {Typed(RespType::kNull)})},
      {"|1\r\n+ttl\r\n:3\r\n",
       Typed(RespType::kAttribute, "", 0, {RespValue::Simple("ttl"), RespValue::Integer(3)})},
      {">2\r\n+message\r\n$1\r\nx\r\n",
       Typed(RespType::kPush, "", 0, {RespValue::Simple("message"), RespValue::Bulk("x")})},
  };
  for (const Case& c : cases) {
    // Trailing bytes belong to the next value and are not consumed.
    const Decoded decoded = Decode(c.bytes + "+next\r\n");
    ASSERT_EQ(decoded.status, DecodeStatus::kOk) << ::testing::PrintToString(c.bytes);
    EXPECT_EQ(decoded.value, c.value) << ::testing::PrintToString(c.bytes);
    EXPECT_EQ(decoded.consumed, c.bytes.size()) << ::testing::PrintToString(c.bytes);
    EXPECT_EQ(EncodeResp(c.value), c.bytes);
  }
}

TEST(RespValueTest, RefusesMalformedValues) {
  for (const std::string bytes :
       {"?\r\n",        ":+1\r\n", ":01\r\n",       ":-0\r\n",        ":1.5\r\n",       ":\r\n",
        "#x\r\n",       "#\r\n",   "#tt\r\n",       "_x\r\n",         "$3\r\nabcd\r\n", "$-2\r\n",
        "$01\r\na\r\n", "!-1\r\n", "=3\r\nabc\r\n", "=4\r\nabcd\r\n", "(1a\r\n",        "(-\r\n",
        "(\r\n",        ",\r\n",   ",abc\r\n",      ", 1\r\n",        "+a\nb\r\n",      "+a\rb\r\n",
        "*-2\r\n",      "%-1\r\n", "~-1\r\n",       "*1\r\n?\r\n",    "+ab\nc",         "+ab\rc"}) {
    EXPECT_EQ(Decode(bytes).status, DecodeStatus::kInvalid) << ::testing::PrintToString(bytes);
  }
}

TEST(RespValueTest, WaitsForIncompleteValues) {
  for (const std::string bytes : {"", "+OK", "+OK\r", "$3\r\nab", "$3\r\nabc\r", "*2\r\n:1\r\n",
                                  "%1\r\n+k\r\n", "=8\r\ntxt:", "$", "*"}) {
    EXPECT_EQ(Decode(bytes).status, DecodeStatus::kIncomplete) << ::testing::PrintToString(bytes);
  }
}

TEST(RespValueTest, HonoursDecodeLimits) {
  DecodeLimits limits;
  limits.depth_max = 2;
  EXPECT_EQ(Decode("*1\r\n*1\r\n:1\r\n", limits).status, DecodeStatus::kOk);
  EXPECT_EQ(Decode("*1\r\n*1\r\n*1\r\n:1\r\n", limits).status, DecodeStatus::kInvalid);
  limits = DecodeLimits();
  limits.elements_max = 2;
  EXPECT_EQ(Decode("*2\r\n:1\r\n:2\r\n", limits).status, DecodeStatus::kOk);
  EXPECT_EQ(Decode("*3\r\n", limits).status, DecodeStatus::kInvalid);
  EXPECT_EQ(Decode("%3\r\n", limits).status, DecodeStatus::kInvalid);
  limits = DecodeLimits();
  limits.bulk_bytes_max = 3;
  EXPECT_EQ(Decode("$3\r\nabc\r\n", limits).status, DecodeStatus::kOk);
  EXPECT_EQ(Decode("$4\r\n", limits).status, DecodeStatus::kInvalid);
  // A deeply nested input is refused, not followed into a stack overflow.
  std::string deep;
  for (int i = 0; i < 100000; i++) deep += "*1\r\n";
  EXPECT_EQ(Decode(deep).status, DecodeStatus::kInvalid);
}

TEST(RespValueTest, ToStringIsReadable) {
  const RespValue value =
      RespValue::Array({RespValue::Simple("OK"), RespValue::Integer(1), Typed(RespType::kNullBulk),
                        RespValue::Bulk("v"), RespValue::Error("ERR x")});
  EXPECT_EQ(value.ToString(), "*[OK, (integer) 1, (nil), \"v\", (error) ERR x]");
}

// ---------------------------------------------------------------------------------------------
// Properties.

RC_GTEST_PROP(RespValueProperty, DecodeInvertsEncode, ()) {
  const RespValue value = *testing::GenRespValue(/*depth=*/3);
  const std::string bytes = EncodeResp(value);
  const Decoded decoded = Decode(bytes);
  RC_ASSERT(decoded.status == DecodeStatus::kOk);
  RC_ASSERT(decoded.consumed == bytes.size());
  RC_ASSERT(decoded.value == value);
  // Decoding stops at the end of the value, whatever follows.
  const Decoded followed = Decode(bytes + *testing::GenRespBytes());
  RC_ASSERT(followed.status == DecodeStatus::kOk);
  RC_ASSERT(followed.consumed == bytes.size());
  RC_ASSERT(followed.value == value);
}

RC_GTEST_PROP(RespValueProperty, EveryStrictPrefixOfAnEncodingIsIncomplete, ()) {
  // Clients read replies as they arrive: a partial reply must never look invalid (or complete).
  const std::string bytes = EncodeResp(*testing::GenRespValue(/*depth=*/2));
  const size_t cut = *rc::gen::inRange<size_t>(0, bytes.size());
  RC_ASSERT(Decode(bytes.substr(0, cut)).status == DecodeStatus::kIncomplete);
}

RC_GTEST_PROP(RespValueProperty, WhatDecodesReencodesToTheConsumedBytes, ()) {
  // Random bytes (shaped to be often valid): never a crash, never a consumed count past the
  // input, and a decoded value encodes back to exactly the bytes it came from.
  const std::string bytes = *testing::GenRespBytes();
  const Decoded decoded = Decode(bytes);
  if (decoded.status != DecodeStatus::kOk) return;
  RC_ASSERT(decoded.consumed > 0);
  RC_ASSERT(decoded.consumed <= bytes.size());
  RC_ASSERT(EncodeResp(decoded.value) == bytes.substr(0, decoded.consumed));
}

}  // namespace
}  // namespace keel
