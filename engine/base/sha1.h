// SHA-1 (FIPS 180-4), for DEBUG DIGEST's dataset digests and, later, script SHAs (EVALSHA).
// Not for security: Redis uses it as a well-spread 160-bit fingerprint, and so does Keel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel {

class Sha1 {
 public:
  static constexpr size_t kDigestBytes = 20;
  using Digest = std::array<unsigned char, kDigestBytes>;

  Sha1();
  void Update(const void* data, size_t size);
  void Update(std::string_view bytes) { Update(bytes.data(), bytes.size()); }
  // The digest of everything given; the object must not be updated afterwards.
  Digest Final();

  static Digest Of(std::string_view bytes) {
    Sha1 sha;
    sha.Update(bytes);
    return sha.Final();
  }

 private:
  void Block(const unsigned char* block);

  uint32_t state_[5];
  uint64_t total_bytes_ = 0;
  unsigned char pending_[64];
  size_t pending_bytes_ = 0;
};

// Lower-case hex of `bytes`, two characters per byte.
std::string HexOf(const unsigned char* bytes, size_t size);

}  // namespace keel
