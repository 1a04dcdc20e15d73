#include "engine/base/sha1.h"

#include <cstring>
#include <string>

namespace keel {
namespace {

uint32_t Rotl(uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }

}  // namespace

Sha1::Sha1() : state_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0} {}

void Sha1::Block(const unsigned char* block) {
  uint32_t w[80];
  for (int i = 0; i < 16; i++) {
    w[i] = static_cast<uint32_t>(block[4 * i]) << 24 |
           static_cast<uint32_t>(block[4 * i + 1]) << 16 |
           static_cast<uint32_t>(block[4 * i + 2]) << 8 | static_cast<uint32_t>(block[4 * i + 3]);
  }
  for (int i = 16; i < 80; i++) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4];
  for (int i = 0; i < 80; i++) {
    uint32_t f;
    uint32_t k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const uint32_t next = Rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = Rotl(b, 30);
    b = a;
    a = next;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
}

void Sha1::Update(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  total_bytes_ += size;
  if (pending_bytes_ > 0) {
    const size_t take = std::min(size, sizeof(pending_) - pending_bytes_);
    std::memcpy(pending_ + pending_bytes_, bytes, take);
    pending_bytes_ += take;
    bytes += take;
    size -= take;
    if (pending_bytes_ < sizeof(pending_)) return;
    Block(pending_);
    pending_bytes_ = 0;
  }
  for (; size >= 64; bytes += 64, size -= 64) Block(bytes);
  if (size > 0) {
    std::memcpy(pending_, bytes, size);
    pending_bytes_ = size;
  }
}

Sha1::Digest Sha1::Final() {
  const uint64_t bits = total_bytes_ * 8;
  // Padding: a one bit, zeros up to 56 bytes modulo 64, then the length in bits, big-endian.
  const unsigned char one = 0x80;
  Update(&one, 1);
  const unsigned char zero = 0;
  while (pending_bytes_ != 56) Update(&zero, 1);
  unsigned char length[8];
  for (int i = 0; i < 8; i++) length[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  Update(length, 8);
  Digest digest;
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 4; j++) {
      digest[4 * i + j] = static_cast<unsigned char>(state_[i] >> (24 - 8 * j));
    }
  }
  return digest;
}

std::string HexOf(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(size * 2, '0');
  for (size_t i = 0; i < size; i++) {
    hex[2 * i] = kDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes[i] & 0x0f];
  }
  return hex;
}

}  // namespace keel
