// Tests for RequestParser and SplitArgsInPlace.
//
// Every expected reply text and every accept/refuse decision below was checked against
// redis-server 7.0.15 by sending the same raw bytes over a socket (the one deliberate difference,
// header lines longer than 64 KiB, is marked where it is tested).
#include "engine/resp/request_parser.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/limits.h"

namespace keel {
namespace {

using Args = std::vector<std::string>;

constexpr ParserLimits kDefaultLimits{limits::kProtoMaxBulkLenDefault, /*authenticated=*/true};

// What parsing a byte stream produced: the commands in order, the empty commands skipped, and the
// protocol error that ended it (commands.size() says how many commands preceded the error).
struct Outcome {
  std::vector<Args> commands;
  size_t empty_count = 0;
  std::optional<std::string> error;
  size_t consumed = 0;        // bytes consumed by commands and empty commands
  bool contract_ok = true;    // consumed never exceeded the input, and progress was made
  std::string contract_note;  // what went wrong when !contract_ok

  bool operator==(const Outcome& other) const {
    return commands == other.commands && empty_count == other.empty_count && error == other.error &&
           consumed == other.consumed;
  }
};

std::ostream& operator<<(std::ostream& out, const Outcome& outcome) {
  out << "{commands:";
  for (const Args& args : outcome.commands) {
    out << " [";
    for (const std::string& arg : args) out << '"' << arg << "\" ";
    out << "]";
  }
  out << ", empty:" << outcome.empty_count << ", consumed:" << outcome.consumed;
  if (outcome.error) out << ", error:\"" << *outcome.error << '"';
  return out << "}";
}

// Feeds `input` to one parser as a server would: chunk by chunk (sizes from `chunks`, the rest in
// one piece), parsing after each chunk from the start of the unconsumed bytes. The pending bytes
// live in a std::string that reallocates as it grows, so the parser also sees its input move.
Outcome ParseInChunks(std::string_view input, const std::vector<size_t>& chunks,
                      const ParserLimits& limits = kDefaultLimits) {
  RequestParser parser;
  Outcome outcome;
  std::string pending;
  size_t fed = 0;
  size_t chunk_index = 0;
  while (fed < input.size()) {
    size_t take = chunk_index < chunks.size() ? chunks[chunk_index++] : input.size() - fed;
    take = std::clamp<size_t>(take, 1, input.size() - fed);
    pending.append(input.substr(fed, take));
    fed += take;
    while (!pending.empty()) {
      size_t consumed = 12345;
      const ParseResult result = parser.Parse(pending.data(), pending.size(), limits, &consumed);
      if (result == ParseResult::kIncomplete) {
        if (consumed != 0) {
          outcome.contract_ok = false;
          outcome.contract_note = "kIncomplete with consumed != 0";
        }
        break;
      }
      if (result == ParseResult::kError) {
        outcome.error = parser.error();
        return outcome;
      }
      if (consumed == 0 || consumed > pending.size()) {
        outcome.contract_ok = false;
        outcome.contract_note =
            "consumed " + std::to_string(consumed) + " of " + std::to_string(pending.size());
        return outcome;
      }
      if (result == ParseResult::kCommand) {
        if (parser.args().empty()) {
          outcome.contract_ok = false;
          outcome.contract_note = "kCommand without arguments";
        }
        Args args;
        for (std::string_view arg : parser.args()) args.emplace_back(arg);
        outcome.commands.push_back(std::move(args));
      } else {
        outcome.empty_count++;
      }
      outcome.consumed += consumed;
      pending.erase(0, consumed);
    }
  }
  return outcome;
}

Outcome ParseWhole(std::string_view input, const ParserLimits& limits = kDefaultLimits) {
  return ParseInChunks(input, {}, limits);
}

// Every byte fed on its own: the harshest split.
Outcome ParseBytewise(std::string_view input, const ParserLimits& limits = kDefaultLimits) {
  return ParseInChunks(input, std::vector<size_t>(input.size(), 1), limits);
}

// Parses `input` whole and bytewise, checks both agree, and returns the outcome.
Outcome ParseBothWays(std::string_view input, const ParserLimits& limits = kDefaultLimits) {
  const Outcome whole = ParseWhole(input, limits);
  const Outcome bytewise = ParseBytewise(input, limits);
  EXPECT_TRUE(whole.contract_ok) << whole.contract_note;
  EXPECT_TRUE(bytewise.contract_ok) << bytewise.contract_note;
  EXPECT_EQ(whole, bytewise) << "input: " << ::testing::PrintToString(std::string(input));
  return whole;
}

std::string Multibulk(const Args& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& arg : args) {
    out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  }
  return out;
}

std::string ProtocolError(std::string_view what) { return "Protocol error: " + std::string(what); }

// ---------------------------------------------------------------------------------------------
// Multibulk requests.

TEST(RequestParserTest, ParsesOneMultibulkCommand) {
  std::string input = "*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n";
  RequestParser parser;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kCommand);
  EXPECT_EQ(consumed, input.size());
  ASSERT_EQ(parser.args().size(), 2u);
  EXPECT_EQ(parser.args()[0], "ECHO");
  EXPECT_EQ(parser.args()[1], "abc");
  // Multibulk arguments are views into the caller's buffer, not copies.
  EXPECT_EQ(parser.args()[1].data(), input.data() + input.find("abc"));
}

TEST(RequestParserTest, StopsAtTheEndOfEachPipelinedCommand) {
  std::string input = "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
  RequestParser parser;
  size_t consumed = 0;
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kCommand);
  EXPECT_EQ(consumed, 14u);
  EXPECT_EQ(parser.args()[0], "PING");
  ASSERT_EQ(parser.Parse(input.data() + 14, input.size() - 14, kDefaultLimits, &consumed),
            ParseResult::kCommand);
  EXPECT_EQ(consumed, input.size() - 14);
  EXPECT_EQ(parser.args()[1], "k");
}

TEST(RequestParserTest, MultibulkArgumentsAreBinarySafe) {
  const Args args = {"SET", std::string("k\0\r\n", 4), std::string("\r\n*1\r\n$\0", 8), ""};
  const Outcome outcome = ParseBothWays(Multibulk(args));
  ASSERT_EQ(outcome.commands.size(), 1u);
  EXPECT_EQ(outcome.commands[0], args);
}

TEST(RequestParserTest, IncompleteMultibulkWaitsForEveryByte) {
  const std::string full = Multibulk({"ECHO", "hello"});
  for (size_t size = 1; size < full.size(); size++) {
    std::string prefix = full.substr(0, size);
    RequestParser parser;
    size_t consumed = 7;
    EXPECT_EQ(parser.Parse(prefix.data(), prefix.size(), kDefaultLimits, &consumed),
              ParseResult::kIncomplete)
        << "prefix of " << size << " bytes";
    EXPECT_EQ(consumed, 0u);
  }
}

TEST(RequestParserTest, SkipsTheTwoBytesAfterABulkUnchecked) {
  // Redis does not check that a bulk is followed by "\r\n": it skips two bytes.
  const Outcome outcome = ParseBothWays("*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPINGab");
  EXPECT_EQ(outcome.commands, (std::vector<Args>{{"PING"}, {"PING"}}));
  EXPECT_FALSE(outcome.error);
}

TEST(RequestParserTest, HeaderLineMayEndWithCarriageReturnAndAnyByte) {
  // Only the '\r' is searched for; the byte after it is skipped, whatever it is.
  const Outcome outcome = ParseBothWays("*1\rx$4\r\nPING\r\n");
  EXPECT_EQ(outcome.commands, (std::vector<Args>{{"PING"}}));
}

TEST(RequestParserTest, HeaderNeedsTheByteAfterCarriageReturn) {
  std::string input = "*1\r";
  RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  input = "*1\r\n$4\r";
  EXPECT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
}

TEST(RequestParserTest, EmptyMultibulkCommandsAreSkipped) {
  // "*0", "*-1" and any negative count are empty commands: consumed, nothing run.
  for (const std::string header : {"*0\r\n", "*-1\r\n", "*-5\r\n", "*-9223372036854775808\r\n"}) {
    std::string input = header;
    RequestParser parser;
    size_t consumed = 0;
    EXPECT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
              ParseResult::kEmpty)
        << header;
    EXPECT_EQ(consumed, header.size());
  }
  const Outcome outcome = ParseBothWays("*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n");
  EXPECT_EQ(outcome.empty_count, 2u);
  EXPECT_EQ(outcome.commands, (std::vector<Args>{{"PING"}}));
}

TEST(RequestParserTest, ReportsHowManyBytesAPartialBulkNeeds) {
  std::string input = "*2\r\n$4\r\nECHO\r\n$100\r\nab";
  RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.bytes_wanted(), 0u);
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  // The bulk starts after "*2\r\n$4\r\nECHO\r\n$100\r\n" (20 bytes) and ends with "\r\n".
  EXPECT_EQ(parser.bytes_wanted(), 20u + 100u + 2u);
  parser.Reset();
  EXPECT_EQ(parser.bytes_wanted(), 0u);
}

TEST(RequestParserTest, ReportsTheParsedPrefixOfAPartialCommand) {
  RequestParser parser;
  size_t consumed = 0;
  // Complete arguments "SET" and "k" (and the header of the third) are parsed: 24 bytes.
  std::string input = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  EXPECT_EQ(parser.parsed_bytes(), 24u);
  // A partial bulk header is not parsed yet.
  parser.Reset();
  input = "*3\r\n$3\r\nSET\r\n$1";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  EXPECT_EQ(parser.parsed_bytes(), 13u);
  // Nothing is held for inline lines, a partial count line, or between commands.
  parser.Reset();
  input = "SET k";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  EXPECT_EQ(parser.parsed_bytes(), 0u);
  parser.Reset();
  input = "*3";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  EXPECT_EQ(parser.parsed_bytes(), 0u);
  parser.Reset();
  input = "PING\r\n";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kCommand);
  EXPECT_EQ(parser.parsed_bytes(), 0u);
}

TEST(RequestParserTest, AcceptsCountsUpToIntMax) {
  // Redis 7.0 takes counts up to INT_MAX (memory is bounded by the query buffer limit instead).
  std::string input = "*2147483647\r\n$4\r\nPING\r\n";
  RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  EXPECT_EQ(ParseWhole("*2147483648\r\n").error, ProtocolError("invalid multibulk length"));
}

// ---------------------------------------------------------------------------------------------
// Protocol errors: text and the commands that precede them.

struct ErrorCase {
  std::string input;
  std::string error;
};

// Headers of one and two digits take a shortcut in the whole-command parse (ReadHeaderNumber):
// every count and length around those widths parses as the general parser does, including a
// header that ends exactly at the end of the input.
TEST(RequestParserTest, ShortHeaderNumbersParseAsLongOnes) {
  for (size_t count : {1, 2, 9, 10, 11, 99, 100}) {
    for (size_t length : {0, 1, 9, 10, 11, 99, 100, 101}) {
      const Args args(count, std::string(length, 'v'));
      const std::string input = Multibulk(args);
      const Outcome outcome = ParseBothWays(input);
      ASSERT_EQ(outcome.commands.size(), 1u) << count << " x " << length;
      EXPECT_EQ(outcome.commands[0], args);
      EXPECT_EQ(outcome.consumed, input.size());
      // Cut after the last length header: nothing is parsed yet.
      const size_t last_header_end = input.size() - length - 2;
      EXPECT_TRUE(ParseWhole(input.substr(0, last_header_end)).commands.empty());
    }
  }
}

TEST(RequestParserTest, MultibulkErrorsMatchRedis) {
  const std::vector<ErrorCase> cases = {
      {"*x\r\n", ProtocolError("invalid multibulk length")},
      {"*\r\n", ProtocolError("invalid multibulk length")},
      {"*+1\r\n", ProtocolError("invalid multibulk length")},
      {"*01\r\n", ProtocolError("invalid multibulk length")},
      {"*-0\r\n", ProtocolError("invalid multibulk length")},
      {"*1 \r\n", ProtocolError("invalid multibulk length")},
      {"*-1x\r\n", ProtocolError("invalid multibulk length")},
      {"*99999999999999999999\r\n", ProtocolError("invalid multibulk length")},
      {"*1\r\n$x\r\n", ProtocolError("invalid bulk length")},
      {"*1\r\n$\r\n", ProtocolError("invalid bulk length")},
      {"*1\r\n$-1\r\n", ProtocolError("invalid bulk length")},
      {"*1\r\n$04\r\nPING\r\n", ProtocolError("invalid bulk length")},
      {"*1\r\n$+4\r\nPING\r\n", ProtocolError("invalid bulk length")},
      {"*1\r\nx\r\n", ProtocolError("expected '$', got 'x'")},
      {"*1\r\n:1\r\n", ProtocolError("expected '$', got ':'")},
      // An empty bulk header line: the "got" byte is the '\r' itself (the reply turns it into a
      // space, as Redis's does).
      {"*1\r\n\r\n", ProtocolError("expected '$', got '\r'")},
      {"*2\r\n$4\r\nECHO\r\n*1\r\n", ProtocolError("expected '$', got '*'")},
  };
  for (const ErrorCase& c : cases) {
    const Outcome outcome = ParseBothWays(c.input);
    EXPECT_EQ(outcome.error, c.error) << ::testing::PrintToString(c.input);
    EXPECT_TRUE(outcome.commands.empty());
  }
}

TEST(RequestParserTest, CommandsBeforeAnErrorAreParsed) {
  const Outcome outcome = ParseBothWays("PING\r\n*1\r\n$4\r\nECHO\r\n*2\r\n$4\r\nECHO\r\n$-3\r\n");
  EXPECT_EQ(outcome.commands, (std::vector<Args>{{"PING"}, {"ECHO"}}));
  EXPECT_EQ(outcome.error, ProtocolError("invalid bulk length"));
}

TEST(RequestParserTest, ParserStartsAfreshAfterAnError) {
  RequestParser parser;
  size_t consumed = 0;
  std::string bad = "*2\r\n$4\r\nECHO\r\n$x\r\n";
  ASSERT_EQ(parser.Parse(bad.data(), bad.size(), kDefaultLimits, &consumed), ParseResult::kError);
  std::string good = "PING\r\n";
  ASSERT_EQ(parser.Parse(good.data(), good.size(), kDefaultLimits, &consumed),
            ParseResult::kCommand);
  EXPECT_EQ(parser.args().size(), 1u);
  EXPECT_EQ(parser.args()[0], "PING");
}

TEST(RequestParserTest, BulkLengthIsLimitedByProtoMaxBulkLen) {
  const ParserLimits limits{1024 * 1024, /*authenticated=*/true};
  EXPECT_EQ(ParseWhole("*1\r\n$1048577\r\n", limits).error, ProtocolError("invalid bulk length"));
  const Outcome at_limit = ParseWhole("*1\r\n$1048576\r\n", limits);
  EXPECT_FALSE(at_limit.error);
  EXPECT_TRUE(at_limit.commands.empty());
  const std::string value(1024 * 1024, 'v');
  const Outcome big = ParseWhole(Multibulk({"SET", "k", value}), limits);
  ASSERT_EQ(big.commands.size(), 1u);
  EXPECT_EQ(big.commands[0][2], value);
}

TEST(RequestParserTest, UnauthenticatedClientsHaveLowerLimits) {
  const ParserLimits unauthenticated{limits::kProtoMaxBulkLenDefault, /*authenticated=*/false};
  EXPECT_FALSE(ParseWhole("*10\r\n", unauthenticated).error);
  EXPECT_EQ(ParseWhole("*11\r\n", unauthenticated).error,
            ProtocolError("unauthenticated multibulk length"));
  // A malformed count is reported as such, before the authentication check.
  EXPECT_EQ(ParseWhole("*1x\r\n", unauthenticated).error,
            ProtocolError("invalid multibulk length"));
  EXPECT_FALSE(ParseWhole("*1\r\n$16384\r\n", unauthenticated).error);
  EXPECT_EQ(ParseWhole("*1\r\n$16385\r\n", unauthenticated).error,
            ProtocolError("unauthenticated bulk length"));
  EXPECT_EQ(ParseWhole("*1\r\n$-2\r\n", unauthenticated).error,
            ProtocolError("invalid bulk length"));
  // The same requests are fine once authenticated.
  EXPECT_FALSE(ParseWhole("*11\r\n").error);
  EXPECT_FALSE(ParseWhole("*1\r\n$16385\r\n").error);
  // Inline commands have no pre-authentication limit of their own.
  const Outcome inline_command =
      ParseWhole("ECHO " + std::string(20000, 'a') + "\r\n", unauthenticated);
  ASSERT_EQ(inline_command.commands.size(), 1u);
  EXPECT_EQ(inline_command.commands[0][1].size(), 20000u);
}

TEST(RequestParserTest, TooLongHeaderLinesAreRefused) {
  constexpr size_t kMax = limits::kInlineBytesMax;
  static_assert(kMax == 64 * 1024, "Redis's PROTO_INLINE_MAX_SIZE");
  // A count line without its '\r' is tolerated up to 64 KiB of buffered bytes, not one more.
  EXPECT_EQ(ParseWhole("*" + std::string(kMax - 1, '1')), Outcome{});
  EXPECT_EQ(ParseWhole("*" + std::string(kMax, '1')).error,
            ProtocolError("too big mbulk count string"));
  EXPECT_EQ(ParseWhole("*1\r\n$" + std::string(kMax - 1, '1')), Outcome{});
  EXPECT_EQ(ParseWhole("*1\r\n$" + std::string(kMax, '1')).error,
            ProtocolError("too big bulk count string"));
  // Deliberate difference: Redis would find a '\r' that arrives in the same read as the byte that
  // crosses 64 KiB and then call the count invalid; Keel refuses the line whatever the split.
  EXPECT_EQ(ParseWhole("*" + std::string(kMax + 1, '1') + "\r\n").error,
            ProtocolError("too big mbulk count string"));
}

TEST(RequestParserTest, LongHeaderErrorDoesNotDependOnTheSplit) {
  constexpr size_t kMax = limits::kInlineBytesMax;
  const std::string input = "*1\r\n$" + std::string(kMax + 10, '1') + "\r\n";
  const Outcome whole = ParseWhole(input);
  EXPECT_EQ(whole.error, ProtocolError("too big bulk count string"));
  for (size_t first : {size_t{1}, size_t{5}, size_t{4000}, kMax - 1, kMax + 4, kMax + 6}) {
    EXPECT_EQ(ParseInChunks(input, {first, 1, 7, 16384}), whole) << "first chunk " << first;
  }
}

// ---------------------------------------------------------------------------------------------
// Inline requests.

TEST(RequestParserTest, ParsesInlineCommands) {
  const Outcome outcome = ParseBothWays("SET k v\r\nGET k\nPING\r\n");
  EXPECT_EQ(outcome.commands, (std::vector<Args>{{"SET", "k", "v"}, {"GET", "k"}, {"PING"}}));
  EXPECT_EQ(outcome.consumed, 21u);
}

TEST(RequestParserTest, BlankInlineLinesAreEmptyCommands) {
  const Outcome outcome = ParseBothWays("\r\n\n   \r\n\t\r\n\x0b\x0c\r\nPING\r\n");
  EXPECT_EQ(outcome.empty_count, 5u);
  EXPECT_EQ(outcome.commands, (std::vector<Args>{{"PING"}}));
}

TEST(RequestParserTest, InlineLineWaitsForItsNewline) {
  std::string input = "PING\r";
  RequestParser parser;
  size_t consumed = 0;
  EXPECT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kIncomplete);
  input += '\n';
  EXPECT_EQ(parser.Parse(input.data(), input.size(), kDefaultLimits, &consumed),
            ParseResult::kCommand);
  EXPECT_EQ(consumed, 6u);
}

struct InlineCase {
  std::string line;
  Args args;  // empty: an empty command
};

TEST(RequestParserTest, InlineQuotingFollowsSdssplitargs) {
  const std::vector<InlineCase> cases = {
      // Double quotes: \xHH, \n \r \t \b \a, any other escaped byte stands for itself.
      {"ECHO \"a\\x41\\x4g\\n\\r\\t\\b\\a\\z\\\\\\\"\"", {"ECHO", "aAx4g\n\r\t\b\az\\\""}},
      {"ECHO \"\\xff\\x00\"", {"ECHO", std::string("\xff\0", 2)}},
      {"ECHO \"\\x\"", {"ECHO", "x"}},
      {"ECHO \"\\xZZ\"", {"ECHO", "xZZ"}},
      {"ECHO \"\\x4\"", {"ECHO", "x4"}},
      // Single quotes: only \' is an escape.
      {"ECHO 'a\\'b\\n'", {"ECHO", "a'b\\n"}},
      {"ECHO ''", {"ECHO", ""}},
      {"ECHO \"\"", {"ECHO", ""}},
      {"ECHO 'a' \"b c\"  d", {"ECHO", "a", "b c", "d"}},
      // A quote inside a word starts a quoted part of the same word.
      {"ECHO a\"b c\" d", {"ECHO", "ab c", "d"}},
      {"ECHO a'b c' d", {"ECHO", "ab c", "d"}},
      // A closing quote may be followed by any whitespace.
      {"ECHO \"a\"\tPING", {"ECHO", "a", "PING"}},
      {"ECHO \"a\"\x0b"
       "b",
       {"ECHO", "a", "b"}},
      // Only space, \t, \n, \r end a word; \v and \f are skipped between words only.
      {"ECHO\x0b"
       "foo",
       {"ECHO\x0b"
        "foo"}},
      {"\x0b"
       "ECHO foo",
       {"ECHO", "foo"}},
      {"ECHO foo\x0c ", {"ECHO", "foo\x0c"}},
      {"ECHO x\x0cy", {"ECHO", "x\x0cy"}},
      {"ECHO a\rb", {"ECHO", "a", "b"}},
      {"  ECHO   a  ", {"ECHO", "a"}},
      {"ECHO a\r", {"ECHO", "a"}},  // the line is "ECHO a\r" before "\r\n" is cut
      {"ECHO \"a\"\r", {"ECHO", "a"}},
  };
  for (const InlineCase& c : cases) {
    const Outcome outcome = ParseBothWays(c.line + "\r\n");
    EXPECT_FALSE(outcome.error) << ::testing::PrintToString(c.line);
    ASSERT_EQ(outcome.commands.size(), 1u) << ::testing::PrintToString(c.line);
    EXPECT_EQ(outcome.commands[0], c.args) << ::testing::PrintToString(c.line);
  }
}

TEST(RequestParserTest, UnbalancedQuotesAreAProtocolError) {
  for (const std::string line :
       {"ECHO \"abc\"def", "ECHO 'abc'def", "ECHO \"abc", "ECHO 'abc", "ECHO \"a\\", "ECHO \"a\\\"",
        "ECHO 'a\\\\'", "ECHO a\"b", "\"", "'"}) {
    const Outcome outcome = ParseBothWays("PING\r\n" + line + "\r\nPING\r\n");
    EXPECT_EQ(outcome.error, ProtocolError("unbalanced quotes in request"))
        << ::testing::PrintToString(line);
    EXPECT_EQ(outcome.commands, (std::vector<Args>{{"PING"}}));
  }
}

TEST(RequestParserTest, InlineLinesAreLimitedTo64KiB) {
  constexpr size_t kMax = limits::kInlineBytesMax;
  EXPECT_EQ(ParseWhole(std::string(kMax, 'a')), Outcome{});
  EXPECT_EQ(ParseWhole(std::string(kMax + 1, 'a')).error, ProtocolError("too big inline request"));
  // A newline within the first 64 KiB + 1 bytes ends the line in time.
  const Outcome longest = ParseWhole("ECHO " + std::string(kMax - 5, 'a') + "\n");
  ASSERT_EQ(longest.commands.size(), 1u);
  EXPECT_EQ(longest.commands[0][1].size(), kMax - 5);
  // Deliberate difference: Redis's verdict on a longer line depends on how reads split it.
  EXPECT_EQ(ParseWhole("ECHO " + std::string(kMax - 4, 'a') + "\n").error,
            ProtocolError("too big inline request"));
}

// ---------------------------------------------------------------------------------------------
// NUL bytes: Redis searches header lines with strchr, which stops at a NUL.

TEST(RequestParserTest, NulByteKeepsAHeaderOrInlineLineOpen) {
  for (const std::string& input :
       {std::string("PING\0\r\nPING\r\n", 12), std::string("*1\r\n$4\0\r\nPING\r\n", 15),
        std::string("*1\0\r\n", 5), std::string("ECHO \"a\0b\"\r\n", 12),
        std::string("*1\r\n\0\r\n", 7)}) {
    const Outcome outcome = ParseBothWays(input);
    EXPECT_TRUE(outcome.commands.empty()) << ::testing::PrintToString(input);
    EXPECT_FALSE(outcome.error) << ::testing::PrintToString(input);
    EXPECT_EQ(outcome.consumed, 0u);
  }
}

TEST(RequestParserTest, NulByteLineEndsInTheSizeError) {
  constexpr size_t kMax = limits::kInlineBytesMax;
  std::string inline_line("PING\0", 5);
  inline_line += std::string(kMax - 5, 'a');
  EXPECT_EQ(ParseWhole(inline_line), Outcome{});
  inline_line += 'a';
  EXPECT_EQ(ParseWhole(inline_line).error, ProtocolError("too big inline request"));
  std::string bulk_header("*1\r\n$4\0", 7);
  bulk_header += std::string(kMax, '\n');
  EXPECT_EQ(ParseWhole(bulk_header).error, ProtocolError("too big bulk count string"));
}

TEST(RequestParserTest, NulByteInsideABulkIsData) {
  const Outcome outcome = ParseBothWays(std::string("*1\r\n$3\r\na\0b\r\n", 13));
  ASSERT_EQ(outcome.commands.size(), 1u);
  EXPECT_EQ(outcome.commands[0][0], std::string("a\0b", 3));
}

// ---------------------------------------------------------------------------------------------
// SplitArgsInPlace on its own (config files use it too).

std::optional<Args> Split(std::string line) {
  std::vector<std::string_view> views;
  if (!SplitArgsInPlace(line.data(), line.size(), &views)) return std::nullopt;
  return Args(views.begin(), views.end());
}

TEST(SplitArgsInPlaceTest, SplitsAndDecodes) {
  EXPECT_EQ(Split(""), Args{});
  EXPECT_EQ(Split("   "), Args{});
  EXPECT_EQ(Split("save 900 1"), (Args{"save", "900", "1"}));
  EXPECT_EQ(Split("bind \"127.0.0.1 -::1\""), (Args{"bind", "127.0.0.1 -::1"}));
  EXPECT_EQ(Split("a \"\\x41\" 'b\\'c'"), (Args{"a", "A", "b'c"}));
  EXPECT_EQ(Split("\"abc"), std::nullopt);
  EXPECT_EQ(Split("'abc'x"), std::nullopt);
}

TEST(SplitArgsInPlaceTest, NulByteEndsTheLine) {
  // The contract (and sdssplitargs on a C string): nothing after a NUL byte is read. Inline
  // requests never reach here with a NUL (the line search stops there), so this pins the function
  // for its other callers.
  EXPECT_EQ(Split(std::string("a\0b", 3)), (Args{"a"}));
  EXPECT_EQ(Split(std::string("a \0 b", 5)), (Args{"a"}));
  EXPECT_EQ(Split(std::string("\"a\"\0", 4)), (Args{"a"}));
  EXPECT_EQ(Split(std::string("'a'\0'", 4)), (Args{"a"}));
  EXPECT_EQ(Split(std::string("\0a", 2)), Args{});
  EXPECT_EQ(Split(std::string("\"a\0\"", 4)), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// Properties.

// Bytes with every value, biased towards the ones the protocol gives meaning to.
rc::Gen<std::string> ArbitraryBytes(int size_max) {
  return rc::gen::resize(size_max, rc::gen::container<std::string>(rc::gen::oneOf(
                                       rc::gen::cast<char>(rc::gen::inRange(0, 256)),
                                       rc::gen::elementOf(std::string("\r\n\0$*\"'\\ x", 10)))));
}

// How an inline argument is written: bare, double-quoted with escapes, or single-quoted.
std::string QuoteInline(const std::string& arg, int style, bool first) {
  const bool bare_ok = !arg.empty() && !(first && arg[0] == '*') &&
                       arg.find_first_of(std::string(" \t\r\n\v\f\"'\0", 9)) == std::string::npos;
  const bool single_ok = arg.find_first_of(std::string("\\\r\n\0", 4)) == std::string::npos;
  if (style == 0 && bare_ok) return arg;
  if (style == 1 && single_ok) {
    std::string out = "'";
    for (char c : arg) {
      if (c == '\'') out += '\\';
      out += c;
    }
    return out + "'";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : arg) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

struct Pipeline {
  std::string bytes;
  std::vector<Args> commands;
  size_t empty_count = 0;
};

// A valid pipeline: multibulk commands with arbitrary binary arguments, inline commands in every
// quoting style, and empty commands of both kinds.
Pipeline GeneratePipeline() {
  Pipeline pipeline;
  const int count = *rc::gen::inRange(0, 12);
  for (int i = 0; i < count; i++) {
    const int kind = *rc::gen::inRange(0, 10);
    if (kind == 0) {
      pipeline.bytes += *rc::gen::element<std::string>("*0\r\n", "*-1\r\n", "\r\n", "\n", " \r\n");
      pipeline.empty_count++;
      continue;
    }
    const auto args =
        *rc::gen::resize(6, rc::gen::nonEmpty(rc::gen::container<Args>(ArbitraryBytes(40))));
    if (kind <= 5) {
      pipeline.bytes += Multibulk(args);
    } else {
      pipeline.bytes += *rc::gen::element<std::string>("", " ", "\t ");
      for (size_t a = 0; a < args.size(); a++) {
        if (a > 0) pipeline.bytes += *rc::gen::element<std::string>(" ", "  ", "\t");
        pipeline.bytes += QuoteInline(args[a], *rc::gen::inRange(0, 3), a == 0);
      }
      pipeline.bytes += *rc::gen::element<std::string>("\r\n", "\n", " \r\n");
    }
    pipeline.commands.push_back(args);
  }
  return pipeline;
}

RC_GTEST_PROP(RequestParserProperty, AnySplitOfAValidPipelineYieldsTheSameCommands, ()) {
  const Pipeline pipeline = GeneratePipeline();
  const auto chunks = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(1, 9));
  const Outcome whole = ParseWhole(pipeline.bytes);
  RC_ASSERT(whole.contract_ok);
  RC_ASSERT(!whole.error);
  RC_ASSERT(whole.commands == pipeline.commands);
  RC_ASSERT(whole.empty_count == pipeline.empty_count);
  RC_ASSERT(whole.consumed == pipeline.bytes.size());
  const Outcome split = ParseInChunks(pipeline.bytes, chunks);
  RC_ASSERT(split.contract_ok);
  RC_ASSERT(split == whole);
  RC_ASSERT(ParseBytewise(pipeline.bytes) == whole);
}

// Byte strings made of protocol fragments and random bytes, so that random input reaches deep
// into multibulk parsing (plain random bytes rarely get past the first header).
rc::Gen<std::string> ProtocolishBytes() {
  static const std::vector<std::string> kTokens = {"*1\r\n",
                                                   "*2\r\n",
                                                   "*3\r\n",
                                                   "*0\r\n",
                                                   "*-1\r\n",
                                                   "$0\r\n",
                                                   "$1\r\n",
                                                   "$3\r\n",
                                                   "$4\r\n",
                                                   "$-1\r\n",
                                                   "*",
                                                   "$",
                                                   "\r\n",
                                                   "\r",
                                                   "\n",
                                                   "0",
                                                   "1",
                                                   "4",
                                                   "-",
                                                   "+",
                                                   "PING",
                                                   "a",
                                                   "\"",
                                                   "'",
                                                   "\\",
                                                   "\\x4",
                                                   " ",
                                                   "\t",
                                                   std::string(1, '\0'),
                                                   "*11\r\n",
                                                   "$16385\r\n",
                                                   "$101\r\n"};
  return rc::gen::map(
      rc::gen::resize(80, rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
                              rc::gen::elementOf(kTokens),
                              rc::gen::map(rc::gen::cast<char>(rc::gen::inRange(0, 256)),
                                           [](char c) { return std::string(1, c); })))),
      [](const std::vector<std::string>& tokens) {
        std::string out;
        for (const std::string& token : tokens) out += token;
        return out;
      });
}

RC_GTEST_PROP(RequestParserProperty, ArbitraryBytesParseTheSameWhateverTheSplit, ()) {
  const std::string bytes =
      *rc::gen::weightedOneOf<std::string>({{1, ArbitraryBytes(200)}, {3, ProtocolishBytes()}});
  const auto chunks = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(1, 9));
  // Small bulk limits and the pre-authentication limits get exercised too.
  const ParserLimits limits{*rc::gen::element<int64_t>(3, 100, limits::kProtoMaxBulkLenDefault),
                            *rc::gen::arbitrary<bool>()};
  const Outcome whole = ParseWhole(bytes, limits);
  RC_ASSERT(whole.contract_ok);
  RC_ASSERT(whole.consumed <= bytes.size());
  const Outcome split = ParseInChunks(bytes, chunks, limits);
  RC_ASSERT(split.contract_ok);
  RC_ASSERT(split == whole);
  RC_ASSERT(ParseBytewise(bytes, limits) == whole);
}

// A valid pipeline followed by garbage: the commands before the garbage survive every split.
RC_GTEST_PROP(RequestParserProperty, CommandsBeforeGarbageSurviveEverySplit, ()) {
  const Pipeline pipeline = GeneratePipeline();
  const std::string garbage = *ArbitraryBytes(60);
  const std::string bytes = pipeline.bytes + garbage;
  const auto chunks = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(1, 17));
  const Outcome whole = ParseWhole(bytes);
  RC_ASSERT(whole.commands.size() >= pipeline.commands.size());
  RC_ASSERT(std::equal(pipeline.commands.begin(), pipeline.commands.end(), whole.commands.begin()));
  RC_ASSERT(ParseInChunks(bytes, chunks) == whole);
}

}  // namespace
}  // namespace keel
