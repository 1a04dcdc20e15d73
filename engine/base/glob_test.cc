// Tests for GlobMatch. The case-sensitive table was checked with KEYS on redis-server 7.0.15 (and
// GlobMatch agreed with KEYS on 600,000 random pattern/key pairs over a glob-heavy alphabet); the
// case-insensitive cases were checked with CONFIG GET, which matches names without case.
#include "engine/base/glob.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "engine/base/numbers.h"

namespace keel {
namespace {

struct GlobCase {
  std::string pattern;
  std::string text;
  bool match;
};

void ExpectCases(const std::vector<GlobCase>& cases, bool nocase) {
  for (const GlobCase& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.text, nocase), c.match)
        << "pattern " << ::testing::PrintToString(c.pattern) << " text "
        << ::testing::PrintToString(c.text) << (nocase ? " nocase" : "");
  }
}

TEST(GlobMatchTest, StarAndQuestionMark) {
  ExpectCases({{"*", "anything", true},
               {"a*", "abc", true},
               {"a*", "ba", false},
               {"a*", "a", true},
               {"*c", "abc", true},
               {"*a", "ba", true},
               {"a*c", "ac", true},
               {"a*c", "abbbc", true},
               {"a*c", "abcd", false},
               {"a**c", "abc", true},
               {"***", "x", true},
               {"a*b*c", "axxbyyc", true},
               {"a*b*c", "acb", false},
               {"?", "a", true},
               {"?", "ab", false},
               {"a?c", "abc", true},
               {"a?c", "ac", false},
               {"??", "\xff\x01", true}},
              false);
}

TEST(GlobMatchTest, EmptyTextMatchesOnlyTheEmptyPattern) {
  // stringmatchlen never enters its loop for an empty string, so even "*" does not match it
  // (KEYS special-cases the pattern "*" before matching, which is how it lists the key "").
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("*", ""));
  EXPECT_FALSE(GlobMatch("**", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
}

TEST(GlobMatchTest, CharacterClasses) {
  ExpectCases({{"[abc]", "b", true},    {"[abc]", "d", false},  {"[^abc]", "d", true},
               {"[^abc]", "a", false},  {"[a-c]", "b", true},   {"[a-c]", "d", false},
               {"[^a-c]", "d", true},   {"[a-]", "-", false},   {"[a-]", "a", true},
               {"[-a]", "-", true},     {"[]]", "]", false},    {"[]a]", "a", false},
               {"[\\]]", "]", true},    {"[\\-]", "-", true},   {"[\\a-c]", "b", false},
               {"[a\\-c]", "b", false}, {"[a\\-c]", "-", true}, {"[^]", "a", true},
               {"[]", "a", false},      {"[abc]x", "bx", true}, {"x[abc]", "x", false}},
              false);
}

TEST(GlobMatchTest, ReversedRangesAreSwapped) {
  ExpectCases({{"[c-a]", "b", true}, {"[c-a]", "d", false}, {"[z-a]x", "mx", true}}, false);
}

TEST(GlobMatchTest, UnterminatedClasses) {
  // A class without ']' runs to the end of the pattern; "[^" then matches any one byte.
  ExpectCases({{"[", "[", false},
               {"[", "a", false},
               {"[a", "a", true},
               {"[a", "[", false},
               {"[ab", "a", true},
               {"[^", "a", true},
               {"[^", "^", true},
               {"a[", "a[", false}},
              false);
}

TEST(GlobMatchTest, Escapes) {
  ExpectCases({{"\\*", "*", true},
               {"\\*", "a", false},
               {"\\?", "?", true},
               {"\\?", "a", false},
               {"\\[a]", "[a]", true},
               {"\\\\", "\\", true},
               {"\\a", "a", true},
               // A trailing backslash stands for itself.
               {"a\\", "a\\", true},
               {"a\\", "a", false},
               {"\\", "\\", true}},
              false);
}

TEST(GlobMatchTest, BytesCompareAsSignedChars) {
  // Redis compares C chars, signed on x86: bytes >= 0x80 sort below '\0' in ranges.
  ExpectCases({{"[\xff]", "\xff", true},
               {"[a-\xff]", "z", false},
               {"[\x80-\xff]", "\x90", true},
               {"[\x80-\xff]", "a", false},
               {"[\x01-\x80]", "a", false},
               {"[\x01-\x80]", "\x90", true}},
              false);
}

TEST(GlobMatchTest, NulBytesAreOrdinary) {
  using std::string_literals::operator""s;
  ExpectCases({{"a\0b"s, "a\0b"s, true},
               {"a?b", "a\0b"s, true},
               {"*\0"s, "x\0"s, true},
               {"[\0-a]"s, "Z", true},
               {"a\0b"s, "a", false}},
              false);
}

TEST(GlobMatchTest, CaseSensitiveByDefault) {
  ExpectCases({{"A", "a", false}, {"[A-Z]", "a", false}, {"p?rt", "PORT", false}}, false);
}

TEST(GlobMatchTest, NocaseFoldsLettersButNotEscapesInClasses) {
  ExpectCases({{"PORT", "port", true},
               {"P?RT", "port", true},
               {"[A-Z]ort", "port", true},
               {"[P]ort", "port", true},
               {"[^P]ort", "port", false},
               {"[O-P]ort", "port", true},
               {"[o-p]ORT", "port", true},
               {"p[!-~]rt", "port", true},
               {"\\Por?", "port", true},
               {"p\\O?t", "port", true},
               // An escaped byte inside a class is compared exactly, even without case.
               {"[\\P]ort", "port", false},
               // Ranges are swapped before folding: [a-Z] is 'Z'..'a', folded to 'z'..'a', empty.
               {"[a-Z]ort", "port", false},
               {"[Z-a]ort", "port", false}},
              true);
}

TEST(GlobMatchTest, NestingDeeperThanAThousandStarsIsRefused) {
  // redis-server 7.0.15: KEYS with 1000 "*a" groups finds a 1100-byte key of 'a's, 1001 do not.
  const std::string text(1100, 'a');
  std::string pattern;
  for (int i = 0; i < 1000; i++) pattern += "*a";
  EXPECT_TRUE(GlobMatch(pattern, text));
  pattern += "*a";
  EXPECT_FALSE(GlobMatch(pattern, text));
}

TEST(GlobMatchTest, PathologicalPatternsFinishQuickly) {
  // Without giving up on longer '*' matches this takes exponential time (CVE-2022-36021).
  const std::string text(20000, 'a');
  std::string pattern;
  for (int i = 0; i < 30; i++) pattern += "a*";
  pattern += "b";
  EXPECT_FALSE(GlobMatch(pattern, text));
  EXPECT_FALSE(GlobMatch(pattern, text, /*nocase=*/true));
  EXPECT_TRUE(GlobMatch(pattern.substr(0, pattern.size() - 1), text));
}

// ---------------------------------------------------------------------------------------------
// Properties.

rc::Gen<std::string> GlobText() {
  return rc::gen::container<std::string>(
      rc::gen::oneOf(rc::gen::elementOf(std::string("aAbB*?[]^-\\")),
                     rc::gen::cast<char>(rc::gen::inRange(0, 256))));
}

std::string EscapeAll(const std::string& text) {
  std::string pattern;
  for (char c : text) {
    pattern += '\\';
    pattern += c;
  }
  return pattern;
}

RC_GTEST_PROP(GlobMatchProperty, EscapedTextMatchesExactlyItself, ()) {
  const std::string text = *GlobText();
  const std::string other = *GlobText();
  RC_ASSERT(GlobMatch(EscapeAll(text), text));
  RC_ASSERT(GlobMatch(EscapeAll(text), other) == (text == other));
}

RC_GTEST_PROP(GlobMatchProperty, StarsAndQuestionMarksMatchByLength, ()) {
  const std::string text = *rc::gen::nonEmpty(GlobText());
  RC_ASSERT(GlobMatch("*", text));
  RC_ASSERT(GlobMatch(std::string(text.size(), '?'), text));
  RC_ASSERT(!GlobMatch(std::string(text.size() + 1, '?'), text));
  RC_ASSERT(GlobMatch(EscapeAll(text.substr(0, 1)) + "*", text));
}

RC_GTEST_PROP(GlobMatchProperty, NocaseWithoutClassesIsMatchingLowercased, ()) {
  // Outside classes, nocase compares tolower() of both sides; classes have their own rules.
  const std::string pattern =
      *rc::gen::suchThat(GlobText(), [](const std::string& p) { return p.find('[') == p.npos; });
  const std::string text = *GlobText();
  RC_ASSERT(GlobMatch(pattern, text, true) ==
            GlobMatch(AsciiLowercase(pattern), AsciiLowercase(text), false));
}

}  // namespace
}  // namespace keel
