// The RDB string reader's refusals: a claimed length is checked before anything is allocated.
#include "engine/db/rdb_format.h"

#include <gtest/gtest.h>

#include <string>

namespace keel::rdb {
namespace {

TEST(RdbFormatTest, LzfRoundTrip) {
  const std::string value(1000, 'a');
  std::string out;
  WriteString(&out, value, true);
  ASSERT_LT(out.size(), value.size());  // it was compressed
  Reader reader(out);
  std::string back;
  ASSERT_TRUE(reader.ReadString(&back, SIZE_MAX));
  EXPECT_EQ(back, value);
}

// fuzz_set_load found this: an LZF string of two compressed bytes that claims 3.7 GB made the
// reader allocate the claim before decompressing. A claim beyond LZF's 88x expansion is refused.
TEST(RdbFormatTest, LzfClaimBeyondExpansionIsRefusedBeforeAllocating) {
  // 0xc3: LZF-encoded; compressed length 0; 0x80: a 32-bit length follows (big-endian).
  const std::string huge("\xc3\x00\x80\xe0RIG", 7);
  Reader reader(huge);
  std::string bytes;
  EXPECT_FALSE(reader.ReadString(&bytes, SIZE_MAX));
  EXPECT_LT(bytes.capacity(), 1u << 20);
  // 10 compressed bytes cannot hold 881 bytes, even if they were there.
  const std::string over("\xc3\x0a\x43\x71" + std::string(10, '\x01'), 14);
  Reader over_reader(over);
  EXPECT_FALSE(over_reader.ReadString(&bytes, SIZE_MAX));
}

}  // namespace
}  // namespace keel::rdb
