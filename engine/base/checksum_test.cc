#include <gtest/gtest.h>

#include <string>

#include "engine/base/crc64.h"
#include "engine/base/sha1.h"

namespace keel {
namespace {

std::string Hex(const Sha1::Digest& digest) { return HexOf(digest.data(), digest.size()); }

TEST(Sha1Test, KnownAnswers) {
  EXPECT_EQ(Hex(Sha1::Of("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Hex(Sha1::Of("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Hex(Sha1::Of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  // A million 'a's, given in uneven pieces: the buffering across blocks must not matter.
  Sha1 sha;
  const std::string piece(997, 'a');
  size_t given = 0;
  while (given < 1000000) {
    const size_t take = std::min(piece.size(), 1000000 - given);
    sha.Update(piece.data(), take);
    given += take;
  }
  EXPECT_EQ(Hex(sha.Final()), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Crc64Test, RedisCheckValues) {
  // The values of Redis's own crc64 self-test.
  EXPECT_EQ(Crc64(0, "123456789", 9), 0xe9c6d914c4b8d9caULL);
  const std::string lorem = "This is a test of the emergency broadcast system.";
  // Continuing over pieces equals one pass.
  EXPECT_EQ(Crc64(Crc64(0, lorem.data(), 10), lorem.data() + 10, lorem.size() - 10),
            Crc64(0, lorem.data(), lorem.size()));
}

}  // namespace
}  // namespace keel
