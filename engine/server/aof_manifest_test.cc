// Tests for the AOF manifest: the text Redis 7.0 writes and reads, the files a rewrite makes,
// and the checks that refuse a damaged manifest with Redis's messages.
#include "engine/server/aof_manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace keel {
namespace {

TEST(AofManifestTest, FormatsAsRedisAndParsesBack) {
  AofManifest manifest;
  EXPECT_TRUE(manifest.empty());
  EXPECT_EQ(manifest.NewBase("appendonly.aof", true), "appendonly.aof.1.base.rdb");
  EXPECT_EQ(manifest.NewIncr("appendonly.aof"), "appendonly.aof.1.incr.aof");
  EXPECT_EQ(manifest.Format(),
            "file appendonly.aof.1.base.rdb seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
  // A rewrite: a new incremental file, then a new base; the old files become history.
  manifest.NewIncr("appendonly.aof");
  EXPECT_EQ(manifest.NewBase("appendonly.aof", false), "appendonly.aof.2.base.aof");
  manifest.MarkRewrittenIncrsAsHistory();
  const std::string text = manifest.Format();
  EXPECT_EQ(text,
            "file appendonly.aof.2.base.aof seq 2 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type h\n"
            "file appendonly.aof.1.base.rdb seq 1 type h\n"
            "file appendonly.aof.2.incr.aof seq 2 type i\n");
  AofManifest parsed;
  AofManifestError error;
  ASSERT_TRUE(ParseAofManifest(text, &parsed, &error)) << error.message;
  EXPECT_EQ(parsed.Format(), text);
  EXPECT_EQ(parsed.base_seq, 2);
  EXPECT_EQ(parsed.incr_seq, 2);
  ASSERT_EQ(parsed.incrs.size(), 1u);
  EXPECT_EQ(parsed.incrs[0].name, "appendonly.aof.2.incr.aof");
}

TEST(AofManifestTest, NamesThatNeedQuotingRoundTrip) {
  AofManifest manifest;
  manifest.NewBase("my file", true);
  const std::string text = manifest.Format();
  EXPECT_EQ(text, "file \"my file.1.base.rdb\" seq 1 type b\n");
  AofManifest parsed;
  AofManifestError error;
  ASSERT_TRUE(ParseAofManifest(text, &parsed, &error)) << error.message;
  EXPECT_EQ(parsed.base->name, "my file.1.base.rdb");
}

TEST(AofManifestTest, AcceptsCommentsAnyKeyOrderAndUnknownKeys) {
  AofManifest parsed;
  AofManifestError error;
  ASSERT_TRUE(
      ParseAofManifest("# a comment\n"
                       "seq 3 type b file a.3.base.rdb\r\n"
                       "file a.4.incr.aof seq 4 type i future x\n",
                       &parsed, &error))
      << error.message;
  EXPECT_EQ(parsed.base->name, "a.3.base.rdb");
  EXPECT_EQ(parsed.incrs.at(0).seq, 4);
}

TEST(AofManifestTest, RefusesDamagedManifestsWithRedisMessages) {
  struct Case {
    std::string text;
    std::string message;
    int line_number;
  };
  const Case cases[] = {
      {"", "Found an empty AOF manifest", 0},
      {"file a seq 1\n", "Invalid AOF manifest file format", 1},
      {"file a seq 1 type b\n\n", "Invalid AOF manifest file format", 2},
      {"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information", 2},
      {"file a/b seq 1 type b\n", "File can't be a path, just a filename", 1},
      {"file a seq 2 type i\nfile b seq 1 type i\n", "Found a non-monotonic sequence number", 2},
      {"file a seq 1 type x\n", "Unknown AOF file type", 1},
      {"file a seq 0 type i\n", "Invalid AOF manifest file format", 1},
      {"file \"a seq 1 type i\n", "Invalid AOF manifest file format", 1},
      {"file a seq 1 type i", "The AOF manifest file contains too long line", 0},
      {"file " + std::string(2000, 'a') + " seq 1 type i\n",
       "The AOF manifest file contains too long line", 0},
  };
  for (const Case& c : cases) {
    AofManifest parsed;
    AofManifestError error;
    EXPECT_FALSE(ParseAofManifest(c.text, &parsed, &error)) << c.text;
    EXPECT_EQ(error.message, c.message) << c.text;
    EXPECT_EQ(error.line_number, c.line_number) << c.text;
  }
}

}  // namespace
}  // namespace keel
