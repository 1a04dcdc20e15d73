// The word-at-a-time kernels against one-bit-at-a-time definitions, over random strings whose
// lengths and ranges cross word boundaries (RapidCheck), plus the overflow rules' edge cases
// checked on redis-server 7.0.15.
#include "engine/db/types/bitmap.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace keel::bitmap {
namespace {

uint64_t SlowCount(const std::string& bytes, uint64_t first, uint64_t last) {
  uint64_t count = 0;
  for (uint64_t i = first; i <= last; i++) count += GetBit(bytes, i);
  return count;
}

int64_t SlowFind(const std::string& bytes, uint64_t first, uint64_t last, bool bit) {
  for (uint64_t i = first; i <= last; i++) {
    if (GetBit(bytes, i) == bit) return static_cast<int64_t>(i);
  }
  return -1;
}

TEST(BitmapTest, BitZeroIsTheMostSignificantBitOfByteZero) {
  const std::string bytes("\x80\x01", 2);
  EXPECT_TRUE(GetBit(bytes, 0));
  EXPECT_FALSE(GetBit(bytes, 1));
  EXPECT_TRUE(GetBit(bytes, 15));
  EXPECT_FALSE(GetBit(bytes, 16));  // past the end
  EXPECT_EQ(CountBits(bytes), 2u);
  EXPECT_EQ(FindBit(bytes, 1, 15, true), 15);
}

RC_GTEST_PROP(BitmapProperty, CountAndFindMatchBitByBit, (const std::string& bytes)) {
  RC_PRE(!bytes.empty());
  const uint64_t bits = 8 * bytes.size();
  const uint64_t first = *rc::gen::inRange<uint64_t>(0, bits);
  const uint64_t last = *rc::gen::inRange<uint64_t>(first, bits);
  RC_ASSERT(CountBits(bytes) == SlowCount(bytes, 0, bits - 1));
  RC_ASSERT(CountBitRange(bytes, first, last) == SlowCount(bytes, first, last));
  RC_ASSERT(FindBit(bytes, first, last, true) == SlowFind(bytes, first, last, true));
  RC_ASSERT(FindBit(bytes, first, last, false) == SlowFind(bytes, first, last, false));
}

TEST(BitmapTest, FindCrossesWordsOfAllOnesAndZeros) {
  std::string ones(40, '\xff');
  ones[33] = '\xfe';
  EXPECT_EQ(FindBit(ones, 3, 8 * 40 - 1, false), 33 * 8 + 7);
  std::string zeros(40, '\0');
  zeros[17] = '\x10';
  EXPECT_EQ(FindBit(zeros, 0, 8 * 40 - 1, true), 17 * 8 + 3);
  EXPECT_EQ(FindBit(zeros, 17 * 8 + 4, 8 * 40 - 1, true), -1);
}

RC_GTEST_PROP(BitmapProperty, CombinePadsWithZeros, (const std::vector<std::string>& sources)) {
  RC_PRE(!sources.empty());
  size_t size = 0;
  for (const std::string& s : sources) size = std::max(size, s.size());
  std::vector<std::string_view> views(sources.begin(), sources.end());
  for (BitOperation operation : {BitOperation::kAnd, BitOperation::kOr, BitOperation::kXor}) {
    std::string out(size, '\0');
    Combine(operation, views, size, reinterpret_cast<unsigned char*>(out.data()));
    for (size_t i = 0; i < size; i++) {
      auto at = [&](size_t s) {
        return i < sources[s].size() ? static_cast<unsigned char>(sources[s][i]) : 0;
      };
      unsigned expected = at(0);
      for (size_t s = 1; s < sources.size(); s++) {
        expected = operation == BitOperation::kAnd  ? expected & at(s)
                   : operation == BitOperation::kOr ? expected | at(s)
                                                    : expected ^ at(s);
      }
      RC_ASSERT(static_cast<unsigned char>(out[i]) == expected);
    }
  }
  std::string out(size, '\0');
  Combine(BitOperation::kNot, std::span(views).first(1), size,
          reinterpret_cast<unsigned char*>(out.data()));
  for (size_t i = 0; i < size; i++) {
    const unsigned char source = i < sources[0].size() ? sources[0][i] : 0;
    RC_ASSERT(static_cast<unsigned char>(out[i]) == static_cast<unsigned char>(~source));
  }
}

TEST(BitmapTest, FieldsReadAndWriteAcrossBytes) {
  std::string bytes(3, '\0');
  SetField(bytes, 5, 10, 0x3ff);
  EXPECT_EQ(bytes, std::string("\x07\xfe\x00", 3));
  EXPECT_EQ(GetField(bytes, 5, 10), 0x3ffu);
  EXPECT_EQ(GetSignedField(bytes, 5, 10), -1);
  EXPECT_EQ(GetField(bytes, 20, 64), 0u);  // past the end reads as zero
  SetField(bytes, 0, 24, 0);
  EXPECT_EQ(bytes, std::string(3, '\0'));
}

TEST(BitmapTest, OverflowRulesAsRedisApplies) {
  // BITFIELD k OVERFLOW ... INCRBY u8 0 ... from 250, and SET's out-of-range values.
  EXPECT_EQ(AddUnsigned(250, 10, 8, Overflow::kWrap).value, 4u);
  EXPECT_EQ(AddUnsigned(250, 10, 8, Overflow::kSat).value, 255u);
  EXPECT_TRUE(AddUnsigned(250, 10, 8, Overflow::kFail).overflowed);
  EXPECT_EQ(AddUnsigned(5, -10, 8, Overflow::kSat).value, 0u);
  EXPECT_EQ(AddUnsigned(5, -10, 8, Overflow::kWrap).value, 251u);
  EXPECT_FALSE(AddUnsigned(5, -5, 8, Overflow::kFail).overflowed);
  // SET u8 0 -5: the value is read as unsigned, so it is too large, and SAT stores 255.
  EXPECT_EQ(AddUnsigned(static_cast<uint64_t>(int64_t{-5}), 0, 8, Overflow::kSat).value, 255u);
  EXPECT_EQ(AddUnsigned(static_cast<uint64_t>(int64_t{-5}), 0, 8, Overflow::kWrap).value, 251u);
  EXPECT_EQ(static_cast<int64_t>(AddSigned(100, 100, 8, Overflow::kWrap).value), -56);
  EXPECT_EQ(static_cast<int64_t>(AddSigned(100, 100, 8, Overflow::kSat).value), 127);
  EXPECT_EQ(static_cast<int64_t>(AddSigned(-100, -100, 8, Overflow::kSat).value), -128);
  EXPECT_EQ(static_cast<int64_t>(AddSigned(INT64_MAX, 1, 64, Overflow::kWrap).value), INT64_MIN);
  EXPECT_EQ(static_cast<int64_t>(AddSigned(INT64_MIN, -1, 64, Overflow::kSat).value), INT64_MIN);
  EXPECT_FALSE(AddSigned(-1, INT64_MAX, 64, Overflow::kFail).overflowed);
  EXPECT_EQ(static_cast<int64_t>(AddSigned(1, 0, 1, Overflow::kWrap).value), -1);
}

}  // namespace
}  // namespace keel::bitmap
