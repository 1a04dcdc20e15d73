// Unit tests of LCS (cmd_lcs.cc). The fixed cases were first checked against redis-server
// 7.0.15; the property checks that the three reply forms agree with each other and with the
// definition of a common subsequence on random strings.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "engine/commands/string_test_fixture.h"

namespace keel::testing {
namespace {

class LcsTest : public StringTest {
 protected:
  void SetUp() override {
    StringTest::SetUp();
    ASSERT_EQ(Run({"mset", "key1", "ohmytext", "key2", "mynewtext"}), Ok());
  }
};

// One IDX match as Redis replies it: [[a_start, a_end], [b_start, b_end]] (+ length).
RespValue Match(int64_t a_start, int64_t a_end, int64_t b_start, int64_t b_end) {
  return Array({Array({Int(a_start), Int(a_end)}), Array({Int(b_start), Int(b_end)})});
}
RespValue Match(int64_t a_start, int64_t a_end, int64_t b_start, int64_t b_end, int64_t length) {
  return Array({Array({Int(a_start), Int(a_end)}), Array({Int(b_start), Int(b_end)}), Int(length)});
}
// The IDX reply in RESP2: a map flattened to [matches, [...], len, n].
RespValue IdxReply(RespValue matches, int64_t length) {
  return Array({Bulk("matches"), std::move(matches), Bulk("len"), Int(length)});
}

TEST_F(LcsTest, TheThreeReplyForms) {
  EXPECT_EQ(Run({"lcs", "key1", "key2"}), Bulk("mytext"));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "len"}), Int(6));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "idx"}),
            IdxReply(Array({Match(4, 7, 5, 8), Match(2, 3, 0, 1)}), 6));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "IDX", "WITHMATCHLEN"}),
            IdxReply(Array({Match(4, 7, 5, 8, 4), Match(2, 3, 0, 1, 2)}), 6));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "idx", "minmatchlen", "4", "withmatchlen"}),
            IdxReply(Array({Match(4, 7, 5, 8, 4)}), 6));
  // MINMATCHLEN and WITHMATCHLEN only shape IDX's reply.
  EXPECT_EQ(Run({"lcs", "key1", "key2", "minmatchlen", "4", "withmatchlen"}), Bulk("mytext"));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "len", "withmatchlen"}), Int(6));
  // A negative MINMATCHLEN is 0; the last one given counts.
  EXPECT_EQ(Run({"lcs", "key1", "key2", "minmatchlen", "-5", "idx"}),
            IdxReply(Array({Match(4, 7, 5, 8), Match(2, 3, 0, 1)}), 6));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "minmatchlen", "1", "minmatchlen", "3", "idx"}),
            IdxReply(Array({Match(4, 7, 5, 8)}), 6));
}

TEST_F(LcsTest, IdxIsAMapInResp3) {
  ASSERT_EQ(Run({"hello", "3"}).type, RespType::kMap);
  EXPECT_EQ(RunRaw({"lcs", "key1", "key2", "idx", "minmatchlen", "4"}),
            "%2\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n"
            ":6\r\n");
}

TEST_F(LcsTest, RedisTieBreakPicksTheSameSubsequence) {
  ASSERT_EQ(Run({"mset", "a1", "abcabcabc", "a2", "cbacbacba"}), Ok());
  EXPECT_EQ(Run({"lcs", "a1", "a2"}), Bulk("cbabc"));
  EXPECT_EQ(Run({"lcs", "a1", "a2", "idx", "withmatchlen"}),
            IdxReply(Array({Match(8, 8, 6, 6, 1), Match(7, 7, 4, 4, 1), Match(6, 6, 2, 2, 1),
                            Match(4, 4, 1, 1, 1), Match(2, 2, 0, 0, 1)}),
                     5));
  ASSERT_EQ(Run({"mset", "n1", "12345", "n2", "2345"}), Ok());
  EXPECT_EQ(Run({"lcs", "n1", "n2", "idx"}), IdxReply(Array({Match(1, 4, 0, 3)}), 4));
  EXPECT_EQ(Run({"lcs", "key1", "key1", "idx", "withmatchlen"}),
            IdxReply(Array({Match(0, 7, 0, 7, 8)}), 8));
}

TEST_F(LcsTest, MissingAndEmptyStrings) {
  EXPECT_EQ(Run({"lcs", "key1", "missing"}), Bulk(""));
  EXPECT_EQ(Run({"lcs", "missing", "missing2"}), Bulk(""));
  EXPECT_EQ(Run({"lcs", "missing", "missing2", "len"}), Int(0));
  EXPECT_EQ(Run({"lcs", "missing", "key1", "idx", "withmatchlen"}), IdxReply(Array({}), 0));
  ASSERT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"lcs", "e", "key1"}), Bulk(""));
  EXPECT_EQ(Run({"lcs", "key1", "e", "idx"}), IdxReply(Array({}), 0));
}

TEST_F(LcsTest, Errors) {
  EXPECT_EQ(Run({"lcs", "key1", "key2", "len", "idx"}),
            Err("ERR If you want both the length and indexes, please just use IDX."));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "idx", "minmatchlen", "0", "withmatchlen", "len"}),
            Err("ERR If you want both the length and indexes, please just use IDX."));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "minmatchlen"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "minmatchlen", "abc"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lcs", "key1", "key2", "minmatchlen", "9223372036854775808"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lcs", "key1"}), Err("ERR wrong number of arguments for 'lcs' command"));
  // Another type is an error of its own, reported before the options are read.
  PlantList("l");
  EXPECT_EQ(Run({"lcs", "l", "key1"}), Err("ERR The specified keys must contain string values"));
  EXPECT_EQ(Run({"lcs", "key1", "l", "foo"}),
            Err("ERR The specified keys must contain string values"));
}

TEST_F(LcsTest, TableLargerThanProtoMaxBulkLenIsRefused) {
  // 601 * 601 cells of 4 bytes = 1.44 MB > 1 MB; 601 * 291 * 4 = 0.7 MB fits.
  ASSERT_EQ(Run({"config", "set", "proto-max-bulk-len", "1mb"}), Ok());
  ASSERT_EQ(Run({"mset", "x", std::string(600, 'a'), "y", std::string(600, 'a'), "z",
                 std::string(290, 'a')}),
            Ok());
  const RespValue too_big =
      Err("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  EXPECT_EQ(Run({"lcs", "x", "y"}), too_big);
  EXPECT_EQ(Run({"lcs", "x", "y", "len"}), too_big);  // even though LEN needs two rows only
  EXPECT_EQ(Run({"lcs", "x", "y", "idx"}), too_big);
  EXPECT_EQ(Run({"lcs", "x", "z", "len"}), Int(290));
  EXPECT_EQ(Run({"lcs", "x", "z"}), Bulk(std::string(290, 'a')));
}

TEST_F(LcsTest, RefusedWorkingMemoryIsAnErrorAndIsGivenBack) {
  ASSERT_EQ(Run({"mset", "x", std::string(300, 'a'), "y", std::string(300, 'b')}), Ok());
  const size_t used = engine_->memory().used_bytes_total();
  // Room for LEN's two rows (2.4 KB), not for the whole table (362 KB).
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + 64 * 1024);
  EXPECT_EQ(Run({"lcs", "x", "y"}),
            Err("ERR Insufficient memory, failed allocating transient memory for LCS"));
  EXPECT_EQ(Run({"lcs", "x", "y", "len"}), Int(0));
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kScratch), 0u);
  EXPECT_EQ(engine_->memory().used_bytes_total(), used);
}

bool IsSubsequence(const std::string& needle, const std::string& haystack) {
  size_t at = 0;
  for (char c : haystack) {
    if (at < needle.size() && needle[at] == c) at++;
  }
  return at == needle.size();
}

// Random strings over a small alphabet (so that matches are common): the subsequence is common
// to both strings and as long as LEN says; IDX's ranges are equal substrings, run backwards
// through both strings, spell the subsequence, and MINMATCHLEN keeps exactly the long enough ones.
RC_GTEST_FIXTURE_PROP(LcsTest, RepliesAgreeWithEachOtherAndTheDefinition, ()) {
  const auto text = rc::gen::container<std::string>(rc::gen::elementOf(std::string("abc")));
  const std::string a = *rc::gen::resize(40, text);
  const std::string b = *rc::gen::resize(40, text);
  const int64_t min_match_len = *rc::gen::inRange<int64_t>(1, 4);
  RC_ASSERT(Run({"mset", "a", a, "b", b}) == Ok());
  const RespValue length = Run({"lcs", "a", "b", "len"});
  RC_ASSERT(length.type == RespType::kInteger);
  const RespValue subsequence = Run({"lcs", "a", "b"});
  RC_ASSERT(static_cast<int64_t>(subsequence.text.size()) == length.integer);
  RC_ASSERT(IsSubsequence(subsequence.text, a));
  RC_ASSERT(IsSubsequence(subsequence.text, b));
  const RespValue all = Run({"lcs", "a", "b", "idx", "withmatchlen"});
  RC_ASSERT(all.elements.size() == 4u);
  RC_ASSERT(all.elements[3] == length);
  int64_t long_enough = 0;
  int64_t previous_a = static_cast<int64_t>(a.size());
  int64_t previous_b = static_cast<int64_t>(b.size());
  std::string joined;
  for (const RespValue& match : all.elements[1].elements) {
    RC_ASSERT(match.elements.size() == 3u);
    const int64_t a_start = match.elements[0].elements[0].integer;
    const int64_t a_end = match.elements[0].elements[1].integer;
    const int64_t b_start = match.elements[1].elements[0].integer;
    const int64_t b_end = match.elements[1].elements[1].integer;
    const int64_t run = match.elements[2].integer;
    RC_ASSERT(a_end - a_start + 1 == run);
    RC_ASSERT(b_end - b_start + 1 == run);
    RC_ASSERT(a_end < previous_a);
    RC_ASSERT(b_end < previous_b);
    const std::string piece = a.substr(static_cast<size_t>(a_start), static_cast<size_t>(run));
    RC_ASSERT(piece == b.substr(static_cast<size_t>(b_start), static_cast<size_t>(run)));
    joined.insert(0, piece);
    previous_a = a_start;
    previous_b = b_start;
    if (run >= min_match_len) long_enough++;
  }
  RC_ASSERT(joined == subsequence.text);
  const RespValue kept =
      Run({"lcs", "a", "b", "idx", "minmatchlen", std::to_string(min_match_len)});
  RC_ASSERT(static_cast<int64_t>(kept.elements[1].elements.size()) == long_enough);
}

}  // namespace
}  // namespace keel::testing
