// Unit tests of the HyperLogLog commands (cmd_hyperloglog.cc): the HyperLogLogs redis-server
// made (corpus/hll/, by corpus/hll/make.py) must RESTORE into Keel and count exactly what
// redis-server counted, and Keel must build byte-identical ones from the same elements.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"
#include "engine/db/types/hyperloglog.h"

namespace keel::testing {
namespace {

class HyperLogLogTest : public StringTest {};

struct CorpusEntry {
  std::string name;
  int64_t count;
  std::string encoding;
  std::string payload;
};

std::vector<CorpusEntry> ReadCorpus() {
  const std::string dir = std::string(KEEL_SOURCE_DIR) + "/corpus/hll/";
  std::ifstream manifest(dir + "expected.txt");
  std::vector<CorpusEntry> entries;
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    CorpusEntry entry;
    fields >> entry.name >> entry.count >> entry.encoding;
    std::ifstream dump(dir + entry.name + ".dump", std::ios::binary);
    // Read through a string stream: GCC 12 at -O3 warns (null-dereference)
    // inside istreambuf_iterator, and warnings are errors.
    std::ostringstream bytes;
    bytes << dump.rdbuf();
    entry.payload = bytes.str();
    entries.push_back(entry);
  }
  return entries;
}

TEST_F(HyperLogLogTest, RedisMadeHyperLogLogsCountTheSame) {
  const std::vector<CorpusEntry> corpus = ReadCorpus();
  ASSERT_GE(corpus.size(), 15u);
  for (const CorpusEntry& entry : corpus) {
    SCOPED_TRACE(entry.name);
    ASSERT_FALSE(entry.payload.empty());
    EXPECT_EQ(Run({"restore", entry.name, "0", entry.payload}), Ok());
    EXPECT_EQ(Run({"dump", entry.name}), Bulk(entry.payload));
    EXPECT_EQ(Run({"pfdebug", "encoding", entry.name}).text, entry.encoding);
    EXPECT_EQ(Run({"pfcount", entry.name}), Int(entry.count));
    EXPECT_EQ(Run({"pfcount", entry.name}), Int(entry.count));  // now from the cache
  }
  // The union of two of them, against the union redis-server merged.
  EXPECT_EQ(Run({"pfcount", "n1000", "n3000"}), Int(2981));
}

std::vector<std::string> Elements(const std::string& prefix, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; i++) out.push_back(prefix + ":" + std::to_string(i));
  return out;
}

TEST_F(HyperLogLogTest, KeelBuildsTheSameBytesFromTheSameElements) {
  const std::vector<CorpusEntry> corpus = ReadCorpus();
  for (const CorpusEntry& entry : corpus) {
    if (entry.name[0] != 'n') continue;  // the "n<count>" ones: elements e:0 .. e:<count-1>
    SCOPED_TRACE(entry.name);
    const int count = std::stoi(entry.name.substr(1));
    const std::string key = "keel:" + entry.name;
    if (count == 0) {
      EXPECT_EQ(Run({"pfadd", key}), Int(1));
    }
    const std::vector<std::string> elements = Elements("e", count);
    for (size_t i = 0; i < elements.size(); i += 500) {
      std::vector<std::string> args = {"pfadd", key};
      for (size_t j = i; j < std::min(elements.size(), i + 500); j++) args.push_back(elements[j]);
      Run(args);
    }
    EXPECT_EQ(Run({"dump", key}), Bulk(entry.payload));
    EXPECT_EQ(Run({"pfcount", key}), Int(entry.count));
  }
}

// The hll_read fuzzer's find (corpus/fuzz/hll_read/dense_all_registers_63): a dense value
// whose every register is 63 makes the estimator divide by zero; redis-server 7.0 answers
// PFCOUNT with -9223372036854775808 (its llroundl of infinity on x86-64), and so does Keel,
// without an undefined conversion.
TEST_F(HyperLogLogTest, RegistersPastTheHashBitsCountAsRedisCountsThem) {
  std::string value("HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80", 16);
  value.append(12288, '\xff');
  EXPECT_EQ(Run({"set", "h", value}), Ok());
  EXPECT_EQ(Run({"pfcount", "h"}), Int(INT64_MIN));
}

TEST_F(HyperLogLogTest, AddCountAndCache) {
  EXPECT_EQ(Run({"pfadd", "h", "a", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"pfadd", "h", "a"}), Int(0));
  EXPECT_EQ(Run({"pfcount", "h"}), Int(3));
  const std::string value = Run({"get", "h"}).text;
  ASSERT_EQ(value.substr(0, 5), std::string("HYLL\x01", 5));
  EXPECT_EQ(static_cast<unsigned char>(value[8]), 3);  // the cached count
  EXPECT_EQ(Run({"pfadd", "h", "d"}), Int(1));
  EXPECT_EQ(static_cast<unsigned char>(Run({"get", "h"}).text[15]) & 0x80, 0x80);
  EXPECT_EQ(Run({"pfcount", "h", "missing"}), Int(4));
  EXPECT_EQ(Run({"pfcount", "missing"}), Int(0));
}

TEST_F(HyperLogLogTest, CorruptAndForeignValues) {
  EXPECT_EQ(Run({"set", "s", "abc"}), Ok());
  EXPECT_EQ(Run({"pfadd", "s", "a"}), Err(hll::kNotHll));
  EXPECT_EQ(Run({"pfcount", "s"}), Err(hll::kNotHll));
  // A sparse value whose runs cover 16383 registers, with an invalid cache.
  const std::string corrupt("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xfe", 18);
  EXPECT_EQ(Run({"set", "c", corrupt}), Ok());
  EXPECT_EQ(Run({"pfcount", "c"}), Err(hll::kInvalidHll));
  EXPECT_EQ(Run({"pfmerge", "d", "c"}), Err(hll::kInvalidHll));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  // An XZERO cut short by the end of the value.
  EXPECT_EQ(Run({"set", "cut", std::string("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f", 17)}), Ok());
  EXPECT_EQ(Run({"pfcount", "cut"}), Err(hll::kInvalidHll));
  EXPECT_EQ(Run({"pfadd", "cut", "x"}), Err(hll::kInvalidHll));
  PlantList("l");
  EXPECT_EQ(Run({"pfadd", "l", "a"}).type, RespType::kError);
}

TEST_F(HyperLogLogTest, SparseBecomesDensePastTheConfiguredBytes) {
  EXPECT_EQ(Run({"config", "set", "hll-sparse-max-bytes", "100"}), Ok());
  std::vector<std::string> args = {"pfadd", "h"};
  for (const std::string& e : Elements("x", 200)) args.push_back(e);
  EXPECT_EQ(Run(args), Int(1));
  EXPECT_EQ(Run({"pfdebug", "encoding", "h"}), RespValue::Simple("dense"));
  EXPECT_EQ(Run({"strlen", "h"}), Int(static_cast<int64_t>(hll::kDenseBytes)));
  EXPECT_EQ(Run({"pfselftest"}), Ok());
}

}  // namespace
}  // namespace keel::testing
