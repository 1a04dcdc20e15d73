// Tests of keel_loadgen's parts that need no server: YCSB's key choosers, the RESP reply scanner,
// command encoding and the operation streams. The binary itself is driven against keel-server by
// bench/tests/test_loadgen.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "bench/loadgen/reply_scanner.h"
#include "bench/loadgen/workload.h"
#include "bench/loadgen/zipfian.h"

namespace keel::loadgen {
namespace {

TEST(Zipfian, FnvHashMatchesYcsb) {
  // YCSB's Utils.fnvhash64 (FNV-1a over eight bytes, absolute value as a Java long), computed
  // independently in Python for 0 and 1.
  EXPECT_EQ(FnvHash64(0), 6284781860667377211LL);
  EXPECT_EQ(FnvHash64(1), 8517097267634966620LL);
  EXPECT_GE(FnvHash64(123456789), 0);
}

TEST(Zipfian, SmallSpaceFollowsTheZipfLaw) {
  // Over 10 items with theta 0.99, item 0 is chosen with probability 1/zeta(10) and item 1 with
  // 2^-0.99 of that.
  const double zeta = ZipfianGenerator::Zeta(10, 0.99);
  ZipfianGenerator zipfian(10, 0.99, zeta);
  Rng rng(7);
  std::vector<int> counts(10);
  constexpr int kSamples = 200'000;
  for (int i = 0; i < kSamples; i++) {
    const int64_t item = zipfian.Next(rng);
    ASSERT_GE(item, 0);
    ASSERT_LT(item, 10);
    counts[static_cast<size_t>(item)]++;
  }
  EXPECT_NEAR(counts[0] / double{kSamples}, 1 / zeta, 0.01);
  EXPECT_NEAR(counts[1] / double{kSamples}, std::pow(0.5, 0.99) / zeta, 0.01);
  EXPECT_GT(counts[1], counts[5]);
}

TEST(Zipfian, ScrambledStaysInRangeAndIsSkewed) {
  constexpr int64_t kRecords = 1'000'000;
  ScrambledZipfianGenerator chooser(kRecords);
  Rng rng(42);
  std::map<int64_t, int> counts;
  constexpr int kSamples = 200'000;
  for (int i = 0; i < kSamples; i++) {
    const int64_t record = chooser.Next(rng);
    ASSERT_GE(record, 0);
    ASSERT_LT(record, kRecords);
    counts[record]++;
  }
  int hottest = 0;
  for (const auto& [record, count] : counts) hottest = std::max(hottest, count);
  // The hottest record is item 0 of the Zipfian: 1 / 26.469 = 3.78% of the choices.
  EXPECT_NEAR(hottest / double{kSamples}, 1 / ScrambledZipfianGenerator::kZetaN, 0.004);
  // Skewed, yet spread: far fewer distinct records than samples, but many of them.
  EXPECT_LT(counts.size(), 150'000u);
  EXPECT_GT(counts.size(), 20'000u);
  // Scrambled: the hottest record is FNV(0) mod records, not record 0.
  EXPECT_EQ(counts[FnvHash64(0) % kRecords], hottest);
}

ScanResult Scan(const std::string& data, size_t replies_max = 1000) {
  return ScanReplies(data.data(), data.size(), replies_max);
}

TEST(ReplyScanner, CountsWholeRepliesErrorsAndNulls) {
  const std::string data =
      "+OK\r\n$5\r\nhello\r\n$-1\r\n-ERR wrong\r\n:42\r\n*2\r\n$1\r\na\r\n:5\r\n*-1\r\n_\r\n"
      "%1\r\n+k\r\n:1\r\n!3\r\nbad\r\n";
  const ScanResult result = Scan(data);
  EXPECT_FALSE(result.malformed);
  EXPECT_EQ(result.replies, 10u);
  EXPECT_EQ(result.bytes, data.size());
  EXPECT_EQ(result.errors, 2u);
  EXPECT_EQ(result.nulls, 3u);
  // A nested array's null element is not a top-level null.
  EXPECT_EQ(Scan("*2\r\n$-1\r\n:1\r\n").nulls, 0u);
}

TEST(ReplyScanner, EveryCutLeavesThePartialReplyWhole) {
  const std::string data = "$5\r\nhello\r\n*2\r\n+a\r\n$3\r\nxyz\r\n:7\r\n";
  const size_t ends[] = {11, 28, 32};
  for (size_t cut = 0; cut <= data.size(); cut++) {
    const ScanResult result = ScanReplies(data.data(), cut, 1000);
    size_t whole = 0;
    size_t bytes = 0;
    for (const size_t end : ends) {
      if (end <= cut) {
        whole++;
        bytes = end;
      }
    }
    EXPECT_FALSE(result.malformed) << cut;
    EXPECT_EQ(result.replies, whole) << "cut at " << cut;
    EXPECT_EQ(result.bytes, bytes) << "cut at " << cut;
  }
}

TEST(ReplyScanner, StopsAtTheLimitAndAtGarbage) {
  EXPECT_EQ(Scan("+a\r\n+b\r\n+c\r\n", 2).replies, 2u);
  EXPECT_EQ(Scan("+a\r\n+b\r\n+c\r\n", 2).bytes, 8u);
  const ScanResult garbage = Scan("+a\r\nhello\r\n");
  EXPECT_TRUE(garbage.malformed);
  EXPECT_EQ(garbage.replies, 1u);
  EXPECT_TRUE(Scan("$3\r\nabcd\r\n").malformed);  // the bulk is longer than announced
  EXPECT_TRUE(Scan("$x\r\n").malformed);
  EXPECT_TRUE(Scan("+a\rb\r\n").malformed);
}

TEST(Workload, EncodesKeysAndCommands) {
  std::string key;
  AppendKey(KeySpace{}, 123, &key);
  EXPECT_EQ(key, "key:000000000123");
  key.clear();
  AppendKey(KeySpace{"user", 2}, 12345, &key);
  EXPECT_EQ(key, "user12345");
  std::string out;
  AppendGet("k1", &out);
  AppendSet("k1", "value", &out);
  EXPECT_EQ(out, "*2\r\n$3\r\nGET\r\n$2\r\nk1\r\n*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$5\r\nvalue\r\n");
}

TEST(Workload, InsertCoversEveryRecordOnceAcrossConnections) {
  constexpr int64_t kRecords = 103;
  constexpr int kConnections = 4;
  std::vector<int> seen(kRecords);
  for (int i = 0; i < kConnections; i++) {
    OpStream stream = OpStream::Insert(KeySpace{"r", 0}, "v", kRecords, i, kConnections);
    while (!stream.Done()) {
      std::string command;
      EXPECT_EQ(stream.AppendNext(&command), OpKind::kUpdate);
      // "*3\r\n$3\r\nSET\r\n$<n>\r\nr<id>\r\n$1\r\nv\r\n"
      const size_t key_start = command.find("\r\nr") + 3;
      seen[static_cast<size_t>(std::stoll(command.substr(key_start)))]++;
    }
  }
  for (int64_t record = 0; record < kRecords; record++) EXPECT_EQ(seen[record], 1) << record;
}

TEST(Workload, MixIsSeededAndKeepsItsProportion) {
  auto commands = [](uint64_t seed) {
    OpStream stream = OpStream::Mix(KeySpace{}, "v", 1000, 20'000, 0.95, true, seed);
    std::string all;
    int reads = 0;
    while (!stream.Done()) reads += stream.AppendNext(&all) == OpKind::kRead;
    return std::make_pair(all, reads);
  };
  const auto [first, reads] = commands(5);
  EXPECT_EQ(first, commands(5).first);
  EXPECT_NE(first, commands(6).first);
  EXPECT_NEAR(reads / 20'000.0, 0.95, 0.01);
  OpStream read_only = OpStream::Mix(KeySpace{}, "v", 1000, 100, 1.0, false, 1);
  std::string ignored;
  while (!read_only.Done()) EXPECT_EQ(read_only.AppendNext(&ignored), OpKind::kRead);
}

TEST(Workload, PercentileIsNearestRank) {
  std::vector<uint32_t> samples;
  for (uint32_t i = 100; i >= 1; i--) samples.push_back(i);
  EXPECT_EQ(Percentile(samples, 0.50), 50u);
  EXPECT_EQ(Percentile(samples, 0.99), 99u);
  EXPECT_EQ(Percentile(samples, 1.0), 100u);
  std::vector<uint32_t> one = {7};
  EXPECT_EQ(Percentile(one, 0.99), 7u);
  std::vector<uint32_t> none;
  EXPECT_EQ(Percentile(none, 0.5), 0u);
}

}  // namespace
}  // namespace keel::loadgen
