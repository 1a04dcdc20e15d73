// Tests for reading AOF commands: whole commands and annotations, and the three ways a file can
// end badly (cut inside a command, a tail of zero bytes, bytes that are not the protocol).
#include "engine/server/aof_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel {
namespace {

const std::string kSet = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n";
const std::string kSelect = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";

std::vector<std::vector<std::string>> ReadAll(std::string_view bytes, AofReadStatus* last,
                                              size_t* offset, size_t start = 0) {
  AofCommandReader reader(bytes, start);
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string_view> args;
  while ((*last = reader.Next(&args)) == AofReadStatus::kCommand) {
    commands.emplace_back(args.begin(), args.end());
  }
  *offset = reader.offset();
  return commands;
}

TEST(AofReaderTest, ReadsCommandsAndSkipsAnnotations) {
  const std::string bytes = "#TS:1700000000\r\n" + kSelect + kSet + "#TS:1700000001\r\n" + kSet;
  AofReadStatus last;
  size_t offset = 0;
  const auto commands = ReadAll(bytes, &last, &offset);
  EXPECT_EQ(last, AofReadStatus::kEnd);
  EXPECT_EQ(offset, bytes.size());
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0], (std::vector<std::string>{"SELECT", "0"}));
  EXPECT_EQ(commands[1], (std::vector<std::string>{"SET", "k", "value"}));
}

TEST(AofReaderTest, BinaryValuesWithNewlinesAndZeros) {
  const std::string value("a\r\n\0b", 5);
  const std::string bytes = "*2\r\n$4\r\nECHO\r\n$5\r\n" + value + "\r\n";
  AofReadStatus last;
  size_t offset = 0;
  const auto commands = ReadAll(bytes, &last, &offset);
  EXPECT_EQ(last, AofReadStatus::kEnd);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0][1], value);
}

TEST(AofReaderTest, StartsAfterAPreamble) {
  const std::string bytes = "REDIS-PREAMBLE" + kSet;
  AofReadStatus last;
  size_t offset = 0;
  const auto commands = ReadAll(bytes, &last, &offset, 14);
  EXPECT_EQ(last, AofReadStatus::kEnd);
  EXPECT_EQ(commands.size(), 1u);
}

TEST(AofReaderTest, EveryCutInsideACommandIsATruncationAtTheLastWholeOne) {
  const std::string whole = kSelect + kSet;
  for (size_t cut = kSelect.size() + 1; cut < whole.size(); cut++) {
    AofReadStatus last;
    size_t offset = 0;
    const auto commands = ReadAll(whole.substr(0, cut), &last, &offset);
    EXPECT_EQ(last, AofReadStatus::kTruncated) << "cut at " << cut;
    EXPECT_EQ(offset, kSelect.size()) << "cut at " << cut;
    EXPECT_EQ(commands.size(), 1u);
  }
}

TEST(AofReaderTest, ZeroTailIsReportedAsSuch) {
  // The file's size reached the disk before its data: zeros where the last write should be.
  const std::string bytes = kSet + std::string(37, '\0');
  AofReadStatus last;
  size_t offset = 0;
  EXPECT_EQ(ReadAll(bytes, &last, &offset).size(), 1u);
  EXPECT_EQ(last, AofReadStatus::kZeroTail);
  EXPECT_EQ(offset, kSet.size());
  // Also when the zeros replace the second half of a command.
  const std::string torn = kSet + kSet.substr(0, 10) + std::string(20, '\0');
  EXPECT_EQ(ReadAll(torn, &last, &offset).size(), 1u);
  EXPECT_EQ(last, AofReadStatus::kZeroTail);
  EXPECT_EQ(offset, kSet.size());
}

TEST(AofReaderTest, GarbageIsAFormatError) {
  for (const std::string& bad :
       {std::string("SET k v\r\n"), std::string("*x\r\n"), std::string("*0\r\n"),
        std::string("*1\r\n+OK\r\n"), std::string("*1\r\n$-1\r\n"),
        // The bytes after a value must be CRLF: a lost sector inside a value is not a value.
        std::string("*1\r\n$3\r\nabcXY*1\r\n$3\r\nabc\r\n")}) {
    AofReadStatus last;
    size_t offset = 0;
    EXPECT_TRUE(ReadAll(kSet + bad, &last, &offset).size() == 1u) << bad;
    EXPECT_EQ(last, AofReadStatus::kFormatError) << bad;
  }
}

TEST(AofReaderTest, EmptyFileEnds) {
  AofReadStatus last;
  size_t offset = 0;
  EXPECT_TRUE(ReadAll("", &last, &offset).empty());
  EXPECT_EQ(last, AofReadStatus::kEnd);
}

}  // namespace
}  // namespace keel
