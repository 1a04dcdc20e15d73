// Tests for number formatting and Redis's strict integer parsing (string2ll). The accept/refuse
// table was checked with INCRBY on redis-server 7.0.15, which parses its argument with string2ll.
#include "engine/base/numbers.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

namespace keel {
namespace {

std::string Format(int64_t value) {
  char text[kInt64TextMax];
  return std::string(text, FormatInt64(value, text));
}

std::string FormatUnsigned(uint64_t value) {
  char text[kInt64TextMax];
  return std::string(text, FormatUint64(value, text));
}

std::string FormatD(double value) {
  char text[kDoubleTextMax];
  return std::string(text, FormatDouble(value, text));
}

std::optional<int64_t> Parse(std::string_view text) {
  int64_t value = 0;
  if (!ParseStrictInt64(text, &value)) return std::nullopt;
  return value;
}

TEST(FormatInt64Test, Extremes) {
  EXPECT_EQ(Format(0), "0");
  EXPECT_EQ(Format(-1), "-1");
  EXPECT_EQ(Format(9), "9");
  EXPECT_EQ(Format(10), "10");
  EXPECT_EQ(Format(99), "99");
  EXPECT_EQ(Format(100), "100");
  EXPECT_EQ(Format(-100), "-100");
  EXPECT_EQ(Format(INT64_MAX), "9223372036854775807");
  EXPECT_EQ(Format(INT64_MIN), "-9223372036854775808");
  static_assert(kInt64TextMax == 20, "INT64_MIN needs 20 bytes");
  EXPECT_EQ(Format(INT64_MIN).size(), kInt64TextMax);
  EXPECT_EQ(FormatUnsigned(UINT64_MAX), "18446744073709551615");
  EXPECT_EQ(Int64ToString(-42), "-42");
}

TEST(FormatInt64Test, DecimalDigits) {
  EXPECT_EQ(DecimalDigits(0), 1u);
  EXPECT_EQ(DecimalDigits(9), 1u);
  EXPECT_EQ(DecimalDigits(10), 2u);
  EXPECT_EQ(DecimalDigits(UINT64_MAX), 20u);
}

TEST(ParseStrictInt64Test, AcceptsExactlyWhatString2llAccepts) {
  EXPECT_EQ(Parse("0"), 0);
  EXPECT_EQ(Parse("1"), 1);
  EXPECT_EQ(Parse("-1"), -1);
  EXPECT_EQ(Parse("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Parse("-9223372036854775808"), INT64_MIN);
  for (std::string_view refused : {"",
                                   "-",
                                   "+1",
                                   "-0",
                                   "-00",
                                   "01",
                                   "00",
                                   "00000000000000000001",
                                   " 1",
                                   "1 ",
                                   "1\n",
                                   "1e3",
                                   "1.0",
                                   "0x10",
                                   "9223372036854775808",
                                   "-9223372036854775809",
                                   "18446744073709551616",
                                   "99999999999999999999",
                                   "abc",
                                   "1a"}) {
    EXPECT_EQ(Parse(refused), std::nullopt) << ::testing::PrintToString(std::string(refused));
  }
  // string2ll refuses any text of 21 bytes or more before looking at it.
  EXPECT_EQ(Parse("-09223372036854775808"), std::nullopt);
  // Bytes after a NUL are not ignored: the length is what counts.
  EXPECT_EQ(Parse(std::string_view("1\0", 2)), std::nullopt);
}

TEST(ParseStrictInt64Test, LeavesTheOutputAloneOnFailure) {
  int64_t value = 77;
  EXPECT_FALSE(ParseStrictInt64("x", &value));
  EXPECT_EQ(value, 77);
}

TEST(FormatDoubleTest, Percent17gWithRedisSpellings) {
  EXPECT_EQ(FormatD(1.5), "1.5");
  EXPECT_EQ(FormatD(0.1), "0.10000000000000001");
  EXPECT_EQ(FormatD(-0.0), "-0");
  EXPECT_EQ(FormatD(1e300), "1.0000000000000001e+300");
  EXPECT_EQ(FormatD(-1.7976931348623157e308), "-1.7976931348623157e+308");
  EXPECT_EQ(FormatD(5e-324), "4.9406564584124654e-324");
  EXPECT_EQ(FormatD(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatD(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatD(std::numeric_limits<double>::quiet_NaN()), "nan");
}

// string2ld as INCRBYFLOAT uses it; each case was checked with INCRBYFLOAT on redis-server 7.0.15.
TEST(ParseLongDoubleTest, AcceptsWhatString2ldAccepts) {
  auto parse = [](std::string_view text, long double* value) {
    return ParseLongDouble(text, value);
  };
  long double value = 0;
  EXPECT_TRUE(parse("1.5", &value));
  EXPECT_EQ(value, 1.5L);
  EXPECT_TRUE(parse("-.5e-3", &value));
  EXPECT_EQ(value, -0.0005L);
  EXPECT_TRUE(parse("0x10", &value));
  EXPECT_EQ(value, 16.0L);
  EXPECT_TRUE(parse("+5", &value));
  EXPECT_EQ(value, 5.0L);
  EXPECT_TRUE(parse("inf", &value));  // refused later, as a result, not as a text
  EXPECT_TRUE(std::isinf(value));
  EXPECT_TRUE(parse("1e4000", &value));   // beyond double, within long double
  EXPECT_TRUE(parse("1e-4940", &value));  // a denormal long double
  EXPECT_GT(value, 0.0L);
  value = 7;
  for (std::string_view text : {"", " 1", "1 ", "abc", "nan", "1e5000", "1e-5000", "--1", "1e"}) {
    EXPECT_FALSE(parse(text, &value)) << text;
  }
  EXPECT_FALSE(parse(std::string_view("1\0"
                                      "2",
                                      3),
                     &value));
  EXPECT_EQ(value, 7);  // left alone on failure
  EXPECT_FALSE(parse(std::string(kLongDoubleTextMax - 1, '0') + "1", &value));
  EXPECT_TRUE(parse(std::string(kLongDoubleTextMax - 2, '0') + "1", &value));
  EXPECT_EQ(value, 1.0L);
}

TEST(FormatLongDoubleHumanTest, SeventeenDecimalsWithoutTrailingZeros) {
  auto format = [](long double value) {
    char text[kLongDoubleTextMax];
    return std::string(text, FormatLongDoubleHuman(value, text));
  };
  EXPECT_EQ(format(1.5L), "1.5");
  EXPECT_EQ(format(0.1L + 0.2L), "0.3");
  EXPECT_EQ(format(10.0L), "10");
  EXPECT_EQ(format(-0.0L), "0");
  EXPECT_EQ(format(-1e-20L), "0");  // rounds to -0.00000000000000000
  EXPECT_EQ(format(-0.0005L), "-0.0005");
  EXPECT_EQ(format(1e17L + 1), "100000000000000001");
  EXPECT_EQ(format(1e50L), "100000000000000000003583830118858923890798487404544");
  EXPECT_EQ(format(std::numeric_limits<long double>::max()).size(), 4933u);
  EXPECT_EQ(format(-std::numeric_limits<long double>::infinity()), "-inf");
}

TEST(CaseTest, AsciiOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("GeT", "get"));
  EXPECT_FALSE(EqualsIgnoreCase("get", "gets"));
  EXPECT_FALSE(EqualsIgnoreCase("[", "{"));  // 0x5b vs 0x7b: not letters, not equal
  EXPECT_EQ(AsciiLowercase("AbC-\xc9"), "abc-\xc9");
  EXPECT_EQ(AsciiUppercase("aBc-\xe9"), "ABC-\xe9");
  EXPECT_EQ(AsciiToLower('@'), '@');
  EXPECT_EQ(AsciiToLower('Z'), 'z');
}

// The byte-at-a-time definition EqualsIgnoreCase's word-at-a-time comparison must agree with.
bool EqualsIgnoreCaseBytewise(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (AsciiToLower(a[i]) != AsciiToLower(b[i])) return false;
  }
  return true;
}

TEST(CaseTest, EveryPairOfBytesComparesAsBytewise) {
  // Each byte pair at every position of every length the word paths treat differently.
  for (size_t size : {3, 4, 7, 8, 9, 17}) {
    for (size_t position : {size_t{0}, size - 1}) {
      for (int x = 0; x < 256; x++) {
        for (int y = 0; y < 256; y++) {
          std::string a(size, 'q');
          std::string b(size, 'Q');
          a[position] = static_cast<char>(x);
          b[position] = static_cast<char>(y);
          ASSERT_EQ(EqualsIgnoreCase(a, b), EqualsIgnoreCaseBytewise(a, b))
              << size << " " << position << " " << x << " " << y;
        }
      }
    }
  }
}

RC_GTEST_PROP(CaseProperty, AgreesWithBytewise, (const std::string& text)) {
  // The same text with some letters' case flipped (equal), and with one byte changed (mostly not).
  std::string flipped = text;
  for (char& c : flipped) {
    if (*rc::gen::arbitrary<bool>()) c = static_cast<char>(c ^ 0x20);
  }
  RC_ASSERT(EqualsIgnoreCase(text, flipped) == EqualsIgnoreCaseBytewise(text, flipped));
  if (!text.empty()) {
    std::string changed = text;
    const size_t at = *rc::gen::inRange<size_t>(0, text.size());
    changed[at] = *rc::gen::arbitrary<char>();
    RC_ASSERT(EqualsIgnoreCase(text, changed) == EqualsIgnoreCaseBytewise(text, changed));
  }
}

// ---------------------------------------------------------------------------------------------
// Properties.

RC_GTEST_PROP(NumbersProperty, FormatInt64MatchesToString, (int64_t value)) {
  RC_ASSERT(Format(value) == std::to_string(value));
  RC_ASSERT(Parse(Format(value)) == value);
}

RC_GTEST_PROP(NumbersProperty, FormatUint64MatchesToString, (uint64_t value)) {
  RC_ASSERT(FormatUnsigned(value) == std::to_string(value));
  RC_ASSERT(DecimalDigits(value) == std::to_string(value).size());
}

RC_GTEST_PROP(NumbersProperty, ParseAcceptsExactlyCanonicalDecimals, ()) {
  // string2ll accepts a text iff it is the canonical decimal form of an int64 (no sign but '-',
  // no leading zero, no "-0", no overflow): from_chars plus a round trip is an independent oracle.
  const std::string text = *rc::gen::oneOf(
      rc::gen::container<std::string>(rc::gen::elementOf(std::string("0123456789-+ "))),
      rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t v) { return std::to_string(v); }),
      rc::gen::map(rc::gen::arbitrary<uint64_t>(), [](uint64_t v) { return std::to_string(v); }));
  int64_t oracle = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), oracle);
  const bool canonical =
      error == std::errc() && end == text.data() + text.size() && std::to_string(oracle) == text;
  const std::optional<int64_t> parsed = Parse(text);
  RC_ASSERT(parsed.has_value() == canonical);
  if (canonical) RC_ASSERT(*parsed == oracle);
}

RC_GTEST_PROP(NumbersProperty, FormatDoubleIsPercent17g, (double value)) {
  std::string expected;
  if (std::isinf(value)) {
    expected = value > 0 ? "inf" : "-inf";
  } else if (std::isnan(value)) {
    expected = "nan";
  } else {
    char text[64];
    expected.assign(text, static_cast<size_t>(std::snprintf(text, sizeof(text), "%.17g", value)));
    // 17 significant digits read back to the same double.
    RC_ASSERT(std::strtod(expected.c_str(), nullptr) == value);
  }
  RC_ASSERT(FormatD(value) == expected);
}

}  // namespace
}  // namespace keel
