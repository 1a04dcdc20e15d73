// Tests for ReplyBuilder: the bytes of every reply kind in RESP2 and RESP3 (as redis-server 7.0
// writes them), error text sanitising and error codes, muting, and a property that whatever a
// command describes decodes back to the same value in both protocols.
#include "engine/resp/reply_builder.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "engine/env/memory.h"
#include "engine/resp/output_buffer.h"
#include "engine/resp/resp_value.h"
#include "sim/sim_env.h"
#include "sim/testing/resp_generators.h"

namespace keel {
namespace {

class RecordingObserver : public ErrorObserver {
 public:
  void OnErrorReply(std::string_view code) override { codes.emplace_back(code); }
  std::vector<std::string> codes;
};

// A builder writing into a real OutputBuffer over counted simulated memory.
class ReplyHarness {
 public:
  ReplyHarness() { reply.set_error_observer(&observer); }

  // Everything written so far, drained from the buffer.
  std::string Take() { return out.TakeAll(); }

  sim::SimMemory memory;
  MemoryAccountant accountant{memory};
  ReplyChunkPool pool{accountant};
  OutputBuffer out{pool};
  RecordingObserver observer;
  ReplyBuilder reply{out};
};

class ReplyBuilderTest : public ::testing::Test {
 protected:
  // The bytes one reply call produces in `resp`.
  template <typename Write>
  std::string Bytes(int resp, Write write) {
    harness_.reply.set_resp(resp);
    write(harness_.reply);
    return harness_.Take();
  }

  ReplyHarness harness_;
};

TEST_F(ReplyBuilderTest, ScalarsAreTheSameInBothProtocols) {
  for (int resp : {2, 3}) {
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Ok(); }), "+OK\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.SimpleString("PONG"); }), "+PONG\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Integer(0); }), ":0\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Integer(INT64_MIN); }),
              ":-9223372036854775808\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Integer(INT64_MAX); }),
              ":9223372036854775807\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Bulk(""); }), "$0\r\n\r\n");
    // A default string_view has a null data(): no memcpy from it (UBSan's nonnull check).
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Bulk(std::string_view()); }), "$0\r\n\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.SimpleString(std::string_view()); }), "+\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Bulk(std::string("a\0\r\n", 4)); }),
              std::string("$4\r\na\0\r\n\r\n", 10));
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.ArrayHeader(3); }), "*3\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.EmptyArray(); }), "*0\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Error("ERR x"); }), "-ERR x\r\n");
    EXPECT_EQ(Bytes(resp, [](ReplyBuilder& r) { r.Raw("+raw\r\n"); }), "+raw\r\n");
  }
}

TEST_F(ReplyBuilderTest, Resp2LowersResp3Types) {
  // As redis-server 7.0 writes them to a client that has not sent HELLO 3.
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.NullBulk(); }), "$-1\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.NullArray(); }), "*-1\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.MapHeader(2); }), "*4\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.SetHeader(3); }), "*3\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.PushHeader(3); }), "*3\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Boolean(true); }), ":1\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Boolean(false); }), ":0\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.BigNumber("-1234567890123456789012"); }),
            "$23\r\n-1234567890123456789012\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Verbatim("hello\n"); }), "$6\r\nhello\n\r\n");
}

TEST_F(ReplyBuilderTest, Resp3WritesItsOwnTypes) {
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.NullBulk(); }), "_\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.NullArray(); }), "_\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.MapHeader(2); }), "%2\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.SetHeader(3); }), "~3\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.PushHeader(3); }), ">3\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.AttributeHeader(1); }), "|1\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.Boolean(true); }), "#t\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.Boolean(false); }), "#f\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.BigNumber("-1234567890123456789012"); }),
            "(-1234567890123456789012\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.Verbatim("hello\n"); }), "=10\r\ntxt:hello\n\r\n");
  EXPECT_EQ(Bytes(3, [](ReplyBuilder& r) { r.Verbatim("# x", "mkd"); }), "=7\r\nmkd:# x\r\n");
}

TEST_F(ReplyBuilderTest, DoublesUsePercent17g) {
  struct Case {
    double value;
    std::string text;
  };
  const std::vector<Case> cases = {
      {1.5, "1.5"},
      {0.1, "0.10000000000000001"},
      {-0.0, "-0"},
      {1e300, "1.0000000000000001e+300"},
      {3.0, "3"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::numeric_limits<double>::quiet_NaN(), "nan"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Bytes(2, [&](ReplyBuilder& r) { r.Double(c.value); }),
              "$" + std::to_string(c.text.size()) + "\r\n" + c.text + "\r\n");
    EXPECT_EQ(Bytes(3, [&](ReplyBuilder& r) { r.Double(c.value); }), "," + c.text + "\r\n");
  }
}

TEST_F(ReplyBuilderTest, ErrorTextCannotBreakTheProtocol) {
  // Client bytes inside an error text (a command name, an argument) must not end the line.
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Error("ERR unknown command 'a\r\nb'"); }),
            "-ERR unknown command 'a  b'\r\n");
  for (const std::string text : {"ERR a\n\n\rb\r", "ERR \r\n", "\nERR x", "ERR x\n"}) {
    const std::string bytes = Bytes(2, [&](ReplyBuilder& r) { r.Error(text); });
    EXPECT_EQ(bytes.find_first_of("\r\n"), bytes.size() - 2) << ::testing::PrintToString(text);
    EXPECT_EQ(bytes.substr(bytes.size() - 2), "\r\n");
  }
}

TEST_F(ReplyBuilderTest, ErrorsAreCountedAndReportedWithTheirCode) {
  harness_.reply.Error("WRONGTYPE Operation against a key holding the wrong kind of value");
  harness_.reply.Error("ERR syntax error");
  harness_.reply.Error("NOSPACE");
  EXPECT_EQ(harness_.reply.error_count(), 3u);
  EXPECT_EQ(harness_.observer.codes, (std::vector<std::string>{"WRONGTYPE", "ERR", "ERR"}));
}

TEST_F(ReplyBuilderTest, MutedBuilderWritesNothingButStillCountsErrors) {
  ReplyBuilder& reply = harness_.reply;
  reply.set_muted(true);
  for (int resp : {2, 3}) {
    reply.set_resp(resp);
    reply.Ok();
    reply.SimpleString("x");
    reply.Integer(1);
    reply.Bulk("v");
    reply.Bulk(std::string(100000, 'v'));
    reply.NullBulk();
    reply.NullArray();
    reply.ArrayHeader(1);
    reply.MapHeader(1);
    reply.SetHeader(1);
    reply.PushHeader(1);
    reply.Double(1.5);
    reply.Boolean(true);
    reply.BigNumber("1");
    reply.Verbatim("v");
    reply.Raw("+raw\r\n");
    reply.Error("ERR muted");
  }
  EXPECT_TRUE(harness_.out.empty());
  EXPECT_EQ(reply.error_count(), 2u);
  EXPECT_EQ(harness_.observer.codes.size(), 2u);
  reply.set_muted(false);
  reply.Ok();
  EXPECT_EQ(harness_.Take(), "+OK\r\n");
}

TEST_F(ReplyBuilderTest, LargeAndManyRepliesSpanChunksIntact) {
  std::string expected;
  for (int i = 0; i < 2000; i++) {
    const std::string value(static_cast<size_t>(i * 37 % 5000), static_cast<char>('a' + i % 26));
    harness_.reply.Bulk(value);
    harness_.reply.Integer(i);
    expected +=
        "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n:" + std::to_string(i) + "\r\n";
  }
  const std::string huge(3 * 1024 * 1024 + 7, 'h');
  harness_.reply.Bulk(huge);
  expected += "$" + std::to_string(huge.size()) + "\r\n" + huge + "\r\n";
  EXPECT_GT(harness_.out.chunk_count(), 2u);
  EXPECT_EQ(harness_.out.pending_bytes(), expected.size());
  EXPECT_EQ(harness_.Take(), expected);
}

TEST(ErrorCodeOfTest, TakesTheWordBeforeTheFirstSpace) {
  EXPECT_EQ(ErrorCodeOf("ERR syntax error"), "ERR");
  EXPECT_EQ(ErrorCodeOf("WRONGTYPE Operation"), "WRONGTYPE");
  EXPECT_EQ(ErrorCodeOf("NOAUTH Authentication required."), "NOAUTH");
  // Without a space there is no code: Redis counts it as ERR.
  EXPECT_EQ(ErrorCodeOf("NOSPACE"), "ERR");
  EXPECT_EQ(ErrorCodeOf(""), "ERR");
  // A code of 30 bytes is still a code.
  EXPECT_EQ(ErrorCodeOf(std::string(30, 'A') + " x"), std::string(30, 'A'));
  EXPECT_EQ(ErrorCodeOf(std::string(40, 'A') + " x"), "ERR");
}

TEST(ErrorCodeOfTest, MatchesRedisAtTheEdges) {
  // Redis looks for the space within the first 32 bytes of "-CODE ...": 31 bytes of our text
  // (checked with EVAL "return {err='...'}" and INFO errorstats on redis-server 7.0.15).
  EXPECT_EQ(ErrorCodeOf(std::string(31, 'B') + " x"), "ERR");
  // A leading space gives an empty code (Redis reports it as "errorstat_").
  EXPECT_EQ(ErrorCodeOf(" lead"), "");
  // Redis takes the code after turning CR and LF into spaces.
  EXPECT_EQ(ErrorCodeOf("GHI\nJ x"), "GHI");
  EXPECT_EQ(ErrorCodeOf("NOP\r x"), "NOP");
}

TEST_F(ReplyBuilderTest, ErrorTextIsTrimmedAndSanitisedAsRedisDoes) {
  // addReplyErrorFormat trims CR/LF from the ends, then maps the inner ones to spaces; the error
  // code is taken from the result (checked with EVAL error replies on redis-server 7.0.15).
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Error("ABC x\n"); }), "-ABC x\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Error("ABC x\r\n\n"); }), "-ABC x\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Error("DEF\n"); }), "-DEF\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Error("GHI\nJ x"); }), "-GHI J x\r\n");
  EXPECT_EQ(Bytes(2, [](ReplyBuilder& r) { r.Error("NOP\r x"); }), "-NOP  x\r\n");
  EXPECT_EQ(harness_.observer.codes, (std::vector<std::string>{"ABC", "ABC", "ERR", "GHI", "NOP"}));
}

// ---------------------------------------------------------------------------------------------
// Property: what a command describes comes out as the same value (RESP3) or as Redis's RESP2
// lowering of it.

// Replaces what ReplyBuilder cannot write (RESP3 null and blob errors: no command writes them) and,
// for RESP2, attributes (RESP3 only; callers check resp()).
RespValue Writable(const RespValue& value, int resp) {
  RespValue result = value;
  if (result.type == RespType::kNull) result.type = RespType::kNullBulk;
  if (result.type == RespType::kBlobError) result.type = RespType::kBulkString;
  if (result.type == RespType::kAttribute && resp == 2) result.type = RespType::kMap;
  for (RespValue& element : result.elements) element = Writable(element, resp);
  return result;
}

void Write(ReplyBuilder& reply, const RespValue& value) {
  switch (value.type) {
    case RespType::kSimpleString:
      reply.SimpleString(value.text);
      break;
    case RespType::kError:
      reply.Error(value.text);
      break;
    case RespType::kInteger:
      reply.Integer(value.integer);
      break;
    case RespType::kBulkString:
      reply.Bulk(value.text);
      break;
    case RespType::kNullBulk:
      reply.NullBulk();
      break;
    case RespType::kNullArray:
      reply.NullArray();
      break;
    case RespType::kBoolean:
      reply.Boolean(value.integer != 0);
      break;
    case RespType::kDouble:
      reply.Double(std::strtod(value.text.c_str(), nullptr));
      break;
    case RespType::kBigNumber:
      reply.BigNumber(value.text);
      break;
    case RespType::kVerbatim:
      reply.Verbatim(std::string_view(value.text).substr(4),
                     std::string_view(value.text).substr(0, 3));
      break;
    case RespType::kArray:
      reply.ArrayHeader(value.elements.size());
      break;
    case RespType::kMap:
      reply.MapHeader(value.elements.size() / 2);
      break;
    case RespType::kSet:
      reply.SetHeader(value.elements.size());
      break;
    case RespType::kPush:
      reply.PushHeader(value.elements.size());
      break;
    case RespType::kAttribute:
      reply.AttributeHeader(value.elements.size() / 2);
      break;
    case RespType::kNull:
    case RespType::kBlobError:
      RC_FAIL("not writable");
      break;
  }
  for (const RespValue& element : value.elements) Write(reply, element);
}

// What a client reading `resp` receives for a value written with the builder.
RespValue Expected(const RespValue& value, int resp) {
  RespValue result = value;
  for (RespValue& element : result.elements) element = Expected(element, resp);
  if (resp == 3) {
    if (result.type == RespType::kNullBulk || result.type == RespType::kNullArray) {
      result.type = RespType::kNull;
    }
    return result;
  }
  switch (result.type) {
    case RespType::kMap:
    case RespType::kSet:
    case RespType::kPush:
      result.type = RespType::kArray;
      break;
    case RespType::kDouble:
    case RespType::kBigNumber:
      result.type = RespType::kBulkString;
      break;
    case RespType::kVerbatim:
      result.type = RespType::kBulkString;
      result.text = result.text.substr(4);
      break;
    case RespType::kBoolean:
      result.type = RespType::kInteger;
      break;
    default:
      break;
  }
  return result;
}

RC_GTEST_PROP(ReplyBuilderProperty, WrittenValuesDecodeToTheirProtocolForm, ()) {
  const int resp = *rc::gen::element(2, 3);
  const RespValue value = Writable(*testing::GenRespValue(/*depth=*/3), resp);
  const RespValue expected = Expected(value, resp);
  // Repeat with filler of random sizes so that replies start at every offset of a chunk.
  const int repeats = *rc::gen::inRange(1, 40);
  ReplyHarness harness;
  harness.reply.set_resp(resp);
  std::string filler_bytes;
  for (int i = 0; i < repeats; i++) {
    Write(harness.reply, value);
    const std::string filler(*rc::gen::inRange<size_t>(0, 3000), 'f');
    harness.reply.Bulk(filler);
  }
  const std::string bytes = harness.Take();
  std::string_view rest = bytes;
  for (int i = 0; i < repeats; i++) {
    RespValue decoded;
    size_t consumed = 0;
    RC_ASSERT(DecodeResp(rest, &decoded, &consumed) == DecodeStatus::kOk);
    RC_ASSERT(decoded == expected);
    rest.remove_prefix(consumed);
    RC_ASSERT(DecodeResp(rest, &decoded, &consumed) == DecodeStatus::kOk);
    RC_ASSERT(decoded.type == RespType::kBulkString);
    rest.remove_prefix(consumed);
  }
  RC_ASSERT(rest.empty());
}

}  // namespace
}  // namespace keel
