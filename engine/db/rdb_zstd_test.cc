// Keel's zstd snapshot at the RDB level (rdb_file.h, zstd_frame.h): every type Keel has goes
// through a zstd file and back; a load pulled through windows of 1 and 7 bytes is the whole
// load; a frame that is cut, damaged, followed by bytes or that holds a corrupt RDB is refused
// with its reason and nothing loaded.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/crc64.h"
#include "engine/db/digest.h"
#include "engine/db/rdb_file.h"
#include "engine/db/rdb_format.h"
#include "engine/db/zstd_frame.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(KEEL_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string Zstd(std::string_view plain, int level = 1) {
  std::string frame;
  std::string error;
  EXPECT_TRUE(CompressZstdFrame(plain, level, &frame, &error)) << error;
  return frame;
}

class RdbZstdTest : public testing::CommandTest {
 protected:
  RdbLoadResult Load(std::string_view bytes) {
    return LoadRdb(bytes, engine_->keyspace(), RdbLoadOptions());
  }
  // The same through a source read a window at a time (a zstd frame pulled `input_window`
  // bytes at a time, or the plain file).
  RdbLoadResult LoadStreamed(std::string_view bytes, size_t window, size_t input_window) {
    MemorySource memory(bytes);
    if (!StartsWithZstdFrame(bytes)) {
      return LoadRdbFrom(memory, engine_->keyspace(), RdbLoadOptions(), window);
    }
    ZstdSource zstd(memory, input_window);
    return LoadRdbFrom(zstd, engine_->keyspace(), RdbLoadOptions(), window);
  }
  std::string Digest() { return DatasetDigestHex(engine_->keyspace()); }
  size_t Keys() {
    size_t keys = 0;
    for (int db = 0; db < engine_->database_count(); db++) keys += engine_->database(db).size();
    return keys;
  }
  // Every type and encoding Keel writes: the RDB samples redis-server made, plus what they
  // lack (streams with consumer groups and pending entries, hash field TTLs, big values,
  // function libraries, a second database).
  void FillEveryType() {
    for (const char* name :
         {"strings", "lists", "sets", "hashes", "zsets", "bitmaps_hll", "mixed_expiry"}) {
      RdbLoadOptions merge;
      merge.replace_duplicates = true;
      const std::string bytes = ReadSourceFile(std::string("corpus/rdb/") + name + ".rdb");
      ASSERT_TRUE(LoadRdb(bytes, engine_->keyspace(), merge).ok) << name;
    }
    Run({"select", "5"});
    Run({"xadd", "stream", "1-1", "f", "v", "g", "w"});
    Run({"xadd", "stream", "2-1", "f", "v2"});
    Run({"xgroup", "create", "stream", "group", "0"});
    Run({"xreadgroup", "group", "group", "consumer", "count", "1", "streams", "stream", ">"});
    Run({"hset", "ttl-hash", "a", "1", "b", "2"});
    Run({"hexpire", "ttl-hash", "1000", "fields", "1", "a"});
    Run({"set", "big", std::string(300000, 'b')});
    Run({"rpush", "biglist", std::string(70000, 'l'), "x", "y"});
    Run({"select", "0"});
  }
};

TEST_F(RdbZstdTest, EveryTypeRoundTripsThroughAZstdFile) {
  FillEveryType();
  const std::string digest = Digest();
  const size_t keys = Keys();
  ASSERT_GT(keys, 50u);
  for (bool lzf_inside : {false, true}) {
    RdbWriteOptions options;
    options.compress = lzf_inside;
    const std::string plain = WriteRdb(engine_->keyspace(), options);
    const std::string file = Zstd(plain);
    EXPECT_TRUE(StartsWithZstdFrame(file));
    EXPECT_LT(file.size(), plain.size() / 2);
    engine_->keyspace().FlushAll();
    const RdbLoadResult result = Load(file);
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_TRUE(result.zstd);
    EXPECT_EQ(result.version, 12);  // the hash field TTLs
    EXPECT_EQ(result.keys_loaded, keys);
    EXPECT_EQ(result.bytes_read, file.size());
    EXPECT_EQ(Digest(), digest);
    EXPECT_EQ(engine_->keyspace().dirty(), 0u);
  }
}

TEST_F(RdbZstdTest, TinyWindowsLoadWhatTheWholeLoadLoads) {
  FillEveryType();
  const std::string digest = Digest();
  const size_t keys = Keys();
  RdbWriteOptions options;
  options.compress = false;
  const std::string plain = WriteRdb(engine_->keyspace(), options);
  RdbWriteOptions lzf;
  const std::string plain_lzf = WriteRdb(engine_->keyspace(), lzf);
  const std::string file = Zstd(plain, 3);
  struct Case {
    std::string_view bytes;
    size_t window;
    size_t input_window;
  };
  for (const Case& c : {Case{file, 1, 1}, Case{file, 7, 7}, Case{file, 1, 100000}, Case{file, 7, 3},
                        Case{plain, 1, 0}, Case{plain_lzf, 7, 0}}) {
    engine_->keyspace().FlushAll();
    const RdbLoadResult result = LoadStreamed(c.bytes, c.window, c.input_window);
    ASSERT_TRUE(result.ok) << result.error << " (window " << c.window << ")";
    EXPECT_EQ(Digest(), digest) << "window " << c.window << ", input " << c.input_window;
    EXPECT_EQ(result.keys_loaded, keys);
    EXPECT_EQ(Keys(), keys);
  }
}

TEST_F(RdbZstdTest, TheRdbChecksumCoversTheDecompressedStream) {
  Run({"set", "k", "v"});
  const std::string plain = WriteRdb(engine_->keyspace(), RdbWriteOptions());
  engine_->keyspace().FlushAll();
  // A byte of the RDB changed before compression: zstd's frame is whole, the RDB's CRC-64 not.
  std::string damaged = plain;
  damaged[damaged.size() - 12] = static_cast<char>(damaged[damaged.size() - 12] ^ 1);
  RdbLoadResult result = Load(Zstd(damaged));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error.rfind("Wrong RDB checksum", 0), 0u) << result.error;
  EXPECT_EQ(Keys(), 0u);
  // Whole, the same bytes load.
  result = Load(Zstd(plain));
  EXPECT_TRUE(result.ok) << result.error;
}

TEST_F(RdbZstdTest, ACutFrameIsRefusedAndLoadsNothing) {
  FillEveryType();
  const std::string file = Zstd(WriteRdb(engine_->keyspace(), RdbWriteOptions()));
  engine_->keyspace().FlushAll();
  for (size_t size = 4; size < file.size(); size += (size < 300 ? 1 : 211)) {
    const RdbLoadResult result = Load(std::string_view(file).substr(0, size));
    ASSERT_FALSE(result.ok) << "cut at " << size;
    ASSERT_FALSE(result.error.empty());
    ASSERT_EQ(Keys(), 0u) << "a frame cut at " << size << " loaded half";
  }
  const RdbLoadResult result = Load(std::string_view(file).substr(0, file.size() - 1));
  EXPECT_EQ(result.error, "Truncated zstd frame (the file ends inside it)");
}

TEST_F(RdbZstdTest, AFlippedByteIsRefusedOrLoadsWhole) {
  FillEveryType();
  const std::string digest = Digest();
  const std::string file = Zstd(WriteRdb(engine_->keyspace(), RdbWriteOptions()));
  engine_->keyspace().FlushAll();
  for (bool verify : {true, false}) {
    for (size_t at = 4; at < file.size(); at += 37) {
      std::string damaged = file;
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << (at % 8)));
      RdbLoadOptions options;
      options.verify_checksum = verify;
      const RdbLoadResult result = LoadRdb(damaged, engine_->keyspace(), options);
      if (result.ok) {
        EXPECT_EQ(Digest(), digest) << "flip at " << at << " loaded other data";
      } else {
        EXPECT_FALSE(result.error.empty());
        EXPECT_EQ(Keys(), 0u) << "flip at " << at;
      }
      engine_->keyspace().FlushAll();
    }
  }
}

TEST_F(RdbZstdTest, TrailingBytesAreRefused) {
  Run({"set", "k", "v"});
  const std::string plain = WriteRdb(engine_->keyspace(), RdbWriteOptions());
  engine_->keyspace().FlushAll();
  // After the frame.
  RdbLoadResult result = Load(Zstd(plain) + "garbage");
  EXPECT_EQ(result.error, "Bytes follow the zstd frame (the file must be one frame)");
  EXPECT_EQ(Keys(), 0u);
  // Inside the frame, after the RDB's checksum.
  result = Load(Zstd(plain + "more"));
  EXPECT_EQ(result.error, "Bytes follow the RDB file's checksum inside the zstd frame");
  EXPECT_EQ(Keys(), 0u);
  // A second frame.
  result = Load(Zstd(plain) + Zstd(plain));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(Keys(), 0u);
}

TEST_F(RdbZstdTest, AFrameOfACorruptRdbIsRefused) {
  const std::string mixed = ReadSourceFile("corpus/rdb/mixed_expiry.rdb");
  ASSERT_TRUE(Load(mixed).ok);
  engine_->keyspace().FlushAll();
  // Cut inside the RDB (the frame itself is whole): the RDB's own error, where it was cut.
  RdbLoadResult result = Load(Zstd(mixed.substr(0, mixed.size() / 2)));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error.find("zstd"), std::string::npos) << result.error;
  EXPECT_EQ(Keys(), 0u);
  result = Load(Zstd(mixed.substr(0, mixed.size() - 4)));  // inside the checksum
  EXPECT_EQ(result.error, "Short read or corrupt RDB file");
  EXPECT_EQ(Keys(), 0u);
  // Not an RDB at all.
  result = Load(Zstd("REDIX0010"));
  EXPECT_EQ(result.error, "Wrong signature trying to load DB from file");
  // A frame inside a frame is not Keel's format.
  result = Load(Zstd(Zstd(mixed)));
  EXPECT_EQ(result.error, "Wrong signature trying to load DB from file");
  EXPECT_EQ(Keys(), 0u);
}

// A corrupt count inside a compressed file (where the bytes left are only bounded) sizes no
// table past the allowance: the keys' table grows as keys arrive.
TEST_F(RdbZstdTest, ACountInAZstdFileSizesNoHugeTable) {
  std::string bytes = "REDIS0010";
  bytes += "\xfe";
  bytes += '\0';
  bytes += "\xfb";
  bytes += std::string("\x81\0\0\x01\0\0\0\0\0", 9);  // 2^40 keys
  bytes += '\0';
  bytes += std::string("\0\x02k1\x01v", 6);
  bytes += "\xff" + std::string(8, '\0');
  const RdbLoadResult result = Load(Zstd(bytes));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.keys_loaded, 1u);
  // At most the allowance's worth of keys (3 bytes each) in slots of a few words.
  EXPECT_LT(engine_->database(0).table_bytes(), rdb::Reader::kPresizeAllowanceBytes / 3 * 64);
  EXPECT_GT(engine_->database(0).table_bytes(), 0u);
}

TEST(RdbReaderStreamTest, ReadsAcrossWindowsAsFromABuffer) {
  std::string bytes;
  rdb::WriteString(&bytes, "hello", false);
  rdb::WriteString(&bytes, std::string(1000, 'a'), true);  // LZF
  rdb::WriteString(&bytes, "-12345", false);               // an integer encoding
  rdb::WriteLength(&bytes, 1ull << 40);
  bytes += "0123456789abcdef";
  for (size_t window : {1, 2, 7, 4096}) {
    MemorySource source(bytes);
    rdb::Reader reader(source, window);
    std::string text;
    ASSERT_TRUE(reader.ReadString(&text, 100));
    EXPECT_EQ(text, "hello");
    ASSERT_TRUE(reader.ReadString(&text, 2000));
    EXPECT_EQ(text, std::string(1000, 'a'));
    ASSERT_TRUE(reader.ReadString(&text, 100));
    EXPECT_EQ(text, "-12345");
    uint64_t length = 0;
    ASSERT_TRUE(reader.ReadLength(&length));
    EXPECT_EQ(length, 1ull << 40);
    std::string_view raw;
    ASSERT_TRUE(reader.ReadRaw(16, &raw));
    EXPECT_EQ(raw, "0123456789abcdef");
    EXPECT_EQ(reader.position(), bytes.size());
    EXPECT_EQ(reader.ConsumedCrc64(), Crc64(0, bytes.data(), bytes.size()));
    EXPECT_TRUE(reader.at_end());
    EXPECT_FALSE(reader.ReadRaw(1, &raw));
  }
}

}  // namespace
}  // namespace keel
