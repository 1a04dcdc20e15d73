// RDB files (rdb_file.h): the samples redis-server 7.0 wrote (corpus/rdb/) load with the digest
// Redis gives them; what the writer writes loads back the same; and a damaged file (cut at any
// byte, a byte flipped anywhere) is refused without loading half, or loads whole.
#include "engine/db/rdb_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/db/digest.h"
#include "engine/db/rdb_format.h"
#include "engine/db/types/listpack.h"
#include "engine/server/persistence.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::CommandTest;

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(KEEL_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

const std::vector<std::string> kSamples = {
    "strings", "strings_nocompress", "lists",        "sets",  "hashes",
    "zsets",   "bitmaps_hll",        "mixed_expiry", "empty", "nochecksum"};

class RdbFileTest : public CommandTest {
 protected:
  RdbLoadResult Load(std::string_view bytes) {
    RdbLoadOptions options;
    options.drop_expired_before_ms = engine_->command_time_ms();
    return LoadRdb(bytes, engine_->keyspace(), options);
  }
  std::string Digest() { return DatasetDigestHex(engine_->keyspace()); }
  size_t Keys() {
    size_t keys = 0;
    for (int db = 0; db < engine_->database_count(); db++) keys += engine_->database(db).size();
    return keys;
  }
};

TEST_F(RdbFileTest, RedisSamplesLoadWithRedisDigest) {
  for (const std::string& name : kSamples) {
    const std::string bytes = ReadSourceFile("corpus/rdb/" + name + ".rdb");
    ASSERT_FALSE(bytes.empty()) << name;
    std::string expected = ReadSourceFile("corpus/rdb/" + name + ".digest");
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r')) {
      expected.pop_back();
    }
    const RdbLoadResult result = Load(bytes);
    ASSERT_TRUE(result.ok) << name << ": " << result.error;
    EXPECT_EQ(result.version, 10) << name;
    EXPECT_EQ(result.redis_version, "7.0.15") << name;
    EXPECT_EQ(Digest(), expected) << name;
    EXPECT_EQ(engine_->keyspace().dirty(), 0u);
    engine_->keyspace().FlushAll();
  }
}

TEST_F(RdbFileTest, WhatKeelWritesLoadsBackTheSame) {
  for (const std::string& name : kSamples) {
    ASSERT_TRUE(Load(ReadSourceFile("corpus/rdb/" + name + ".rdb")).ok) << name;
    const std::string digest = Digest();
    const size_t keys = Keys();
    const std::string written = engine_->persistence().SerialiseKeyspace();
    EXPECT_EQ(written.substr(0, 9), "REDIS0010");
    engine_->keyspace().FlushAll();
    const RdbLoadResult result = Load(written);
    ASSERT_TRUE(result.ok) << name << ": " << result.error;
    EXPECT_EQ(Digest(), digest) << name;
    EXPECT_EQ(result.keys_loaded, keys);
    engine_->keyspace().FlushAll();
  }
}

TEST_F(RdbFileTest, ACutFileIsRefusedAtEveryLength) {
  const std::string bytes = ReadSourceFile("corpus/rdb/mixed_expiry.rdb");
  // Every length short of the whole file (the last 8 bytes are the checksum, which a cut
  // inside of also fails).
  for (size_t size = 0; size < bytes.size(); size += (size < 2000 ? 1 : 97)) {
    const RdbLoadResult result = Load(std::string_view(bytes).substr(0, size));
    ASSERT_FALSE(result.ok) << "cut at " << size;
    ASSERT_FALSE(result.error.empty());
    ASSERT_EQ(Keys(), 0u) << "a file cut at " << size << " loaded half";
  }
}

TEST_F(RdbFileTest, AFlippedByteIsRefusedOrLoadsWhole) {
  const std::string original = ReadSourceFile("corpus/rdb/mixed_expiry.rdb");
  // With the checksum, any flip is refused; without it (as DEBUG SET-SKIP-CHECKSUM-VALIDATION
  // allows), the loader must still never crash or load half.
  for (bool verify : {true, false}) {
    for (size_t at = 9; at < original.size(); at += 29) {
      std::string bytes = original;
      bytes[at] = static_cast<char>(bytes[at] ^ (1 << (at % 8)));
      RdbLoadOptions options;
      options.verify_checksum = verify;
      const RdbLoadResult result = LoadRdb(bytes, engine_->keyspace(), options);
      if (verify && at < original.size() - 8) {
        EXPECT_FALSE(result.ok) << "flip at " << at;
      }
      if (!result.ok) {
        EXPECT_EQ(Keys(), 0u) << "flip at " << at;
      }
      engine_->keyspace().FlushAll();
    }
  }
}

TEST_F(RdbFileTest, HeaderErrorsNameTheProblem) {
  EXPECT_EQ(Load("").error, "Wrong signature trying to load DB from file");
  EXPECT_EQ(Load("REDIX0010").error, "Wrong signature trying to load DB from file");
  EXPECT_EQ(Load("REDIS0013\xff").error, "Can't handle RDB format version 13");
  // A database past `databases`.
  std::string bytes = "REDIS0010";
  bytes += "\xfe\x40\x64";  // SELECTDB 100
  EXPECT_EQ(Load(bytes).error.rfind("FATAL: Data file was created with a Redis server", 0), 0u);
  // A module's aux data cannot be read without the module.
  EXPECT_NE(Load("REDIS0010\xf7\x01").error.find("module"), std::string::npos);
}

// A listpack of `elements`, as Redis 7.2 writes a small set (RDB_TYPE_SET_LISTPACK).
std::string ListpackOf(std::initializer_list<std::string_view> elements) {
  size_t total = listpack::kHeaderBytes + 1;
  for (std::string_view element : elements) total += listpack::EntryBytes(element);
  std::string blob(total, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(blob.data());
  listpack::SetHeader(bytes, static_cast<uint32_t>(total), elements.size());
  unsigned char* at = bytes + listpack::kHeaderBytes;
  for (std::string_view element : elements) {
    listpack::WriteEntry(element, at);
    at += listpack::EntryBytes(element);
  }
  *at = listpack::kEnd;
  return blob;
}

TEST_F(RdbFileTest, Redis72ListpackSetsLoadAsRedis70Sets) {
  std::string bytes = "REDIS0011";
  bytes += "\xfe";
  bytes += '\0';
  for (const auto& [key, blob] :
       {std::pair<std::string, std::string>{"ints", ListpackOf({"1", "2", "3"})},
        {"words", ListpackOf({"a", "b", "7"})}}) {
    bytes += static_cast<char>(rdb::kTypeSetListpack);
    rdb::WriteString(&bytes, key, false);
    rdb::WriteString(&bytes, blob, false);
  }
  const RdbLoadResult result = Load(bytes + "\xff" + std::string(8, '\0'));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.version, 11);
  EXPECT_EQ(Run({"object", "encoding", "ints"}), testing::Bulk("intset"));
  EXPECT_EQ(Run({"object", "encoding", "words"}), testing::Bulk("hashtable"));
  EXPECT_EQ(Run({"sismember", "words", "b"}), testing::Int(1));
  EXPECT_EQ(Run({"scard", "ints"}), testing::Int(3));
  engine_->keyspace().FlushAll();
  // A repeated member is corrupt, as is a malformed listpack.
  std::string repeated = "REDIS0011\xfe";
  repeated += '\0';
  repeated += static_cast<char>(rdb::kTypeSetListpack);
  rdb::WriteString(&repeated, "s", false);
  rdb::WriteString(&repeated, ListpackOf({"x", "x"}), false);
  EXPECT_FALSE(Load(repeated + "\xff" + std::string(8, '\0')).ok);
  EXPECT_EQ(Keys(), 0u);
}

TEST_F(RdbFileTest, ExpiredKeysAreDroppedAndDuplicatesRefused) {
  std::string bytes = "REDIS0010";
  bytes += "\xfe";
  bytes += '\0';
  // k1 expired in 1970 (ms 1000), k2 never.
  bytes += "\xfc";
  bytes += std::string("\xe8\x03\0\0\0\0\0\0", 8);
  bytes += std::string("\0\x02k1\x01v", 6);
  bytes += std::string("\0\x02k2\x01v", 6);
  RdbLoadResult result = Load(bytes + "\xff" + std::string(8, '\0'));
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.keys_loaded, 1u);
  EXPECT_EQ(result.keys_expired, 1u);
  engine_->keyspace().FlushAll();
  result = Load(bytes + std::string("\0\x02k2\x01w", 6) + "\xff" + std::string(8, '\0'));
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "RDB has duplicated key 'k2' in DB 0");
  EXPECT_EQ(Keys(), 0u);
}

// RESIZEDB sizes the table before the keys come (Redis's dictExpand), but a file cannot claim
// more keys than its bytes could hold: a hint of 2^40 keys in a 40-byte file reserves next to
// nothing (believed, it would ask for 10 TB).
TEST_F(RdbFileTest, ResizeDbSizesTheTableWithinWhatTheFileCanHold) {
  auto file = [](std::string_view keys_hint) {
    std::string bytes = "REDIS0010";
    bytes += "\xfe";
    bytes += '\0';
    bytes += "\xfb";
    bytes += keys_hint;
    bytes += '\0';  // volatile keys
    bytes += std::string("\0\x02k1\x01v", 6);
    bytes += std::string("\0\x02k2\x01v", 6);
    return bytes + "\xff" + std::string(8, '\0');
  };
  const size_t empty_table_bytes = engine_->database(0).table_bytes();
  RdbLoadResult result = Load(file(std::string("\x81\0\0\x01\0\0\0\0\0", 9)));  // 2^40
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.keys_loaded, 2u);
  EXPECT_LT(engine_->database(0).table_bytes(), empty_table_bytes + 4096);
  engine_->keyspace().FlushAll();

  // A true hint: a file of 20,000 keys that Keel wrote loads into a table of their size at once.
  for (int i = 0; i < 20000; i++) Run({"set", "key:" + std::to_string(i), "v"});
  const std::string written = WriteRdb(engine_->keyspace(), RdbWriteOptions{});
  engine_->keyspace().FlushAll();
  result = Load(written);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.keys_loaded, 20000u);
  EXPECT_FALSE(engine_->database(0).resizing());
  EXPECT_GE(engine_->database(0).table_bytes(), 20000u * 8);
  EXPECT_TRUE(engine_->database(0).CheckInvariants());
}

TEST_F(RdbFileTest, FunctionLibrariesAreReadInFileOrderAndWrittenBeforeTheKeys) {
  const std::string bytes = ReadSourceFile("corpus/functions/redis_7_0_two_libraries.rdb");
  ASSERT_FALSE(bytes.empty());
  const RdbLoadResult result = Load(bytes);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(result.function_libraries.size(), 2u);
  EXPECT_TRUE(result.function_libraries[0].starts_with("#!lua name=")) << "codes, shebang kept";
  EXPECT_EQ(Keys(), 1u);

  RdbWriteOptions options;
  options.function_libraries = {"#!lua name=a\nreturn 1", std::string(100, 'x')};
  const std::string written = WriteRdb(engine_->keyspace(), options);
  engine_->keyspace().FlushAll();
  const size_t at = written.find(static_cast<char>(rdb::kOpFunction2));
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(at, written.find(static_cast<char>(rdb::kOpSelectDb))) << "before the databases";
  const RdbLoadResult again = Load(written);
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(again.function_libraries, options.function_libraries) << "LZF-compressed one too";
}

TEST_F(RdbFileTest, ReleaseCandidateFunctionRecordsBecomeCode) {
  // Redis 7.0 rc1/rc2's RDB_OPCODE_FUNCTION: name, engine, a description flag and description,
  // and the body; Redis 7.0.15 loads it as the code "#!<engine> name=<name>\n<body>".
  std::string record;
  rdb::WriteString(&record, "old", false);
  rdb::WriteString(&record, "LUA", false);
  rdb::WriteLength(&record, 1);
  rdb::WriteString(&record, "a description", false);
  rdb::WriteString(&record, "redis.register_function('f', function() return 1 end)", false);
  rdb::Reader reader(record);
  std::string code;
  EXPECT_EQ(rdb::ReadFunctionLibrary(reader, rdb::kOpFunctionPreGa, &code), "");
  EXPECT_EQ(code, "#!LUA name=old\nredis.register_function('f', function() return 1 end)");
  EXPECT_TRUE(reader.at_end());
  rdb::Reader cut(std::string_view(record).substr(0, 6));
  EXPECT_EQ(rdb::ReadFunctionLibrary(cut, rdb::kOpFunctionPreGa, &code),
            "Failed loading engine name");
}

}  // namespace
}  // namespace keel
