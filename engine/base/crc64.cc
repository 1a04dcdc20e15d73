#include "engine/base/crc64.h"

#include <array>

namespace keel {
namespace {

// The reflected form of the Jones polynomial: the table for one byte at a time.
constexpr uint64_t kReflectedPolynomial = 0x95ac9329ac4bc9b5ULL;

constexpr std::array<uint64_t, 256> MakeTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t byte = 0; byte < 256; byte++) {
    uint64_t crc = byte;
    for (int bit = 0; bit < 8; bit++) {
      crc = (crc & 1) != 0 ? (crc >> 1) ^ kReflectedPolynomial : crc >> 1;
    }
    table[byte] = crc;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kTable = MakeTable();

}  // namespace

uint64_t Crc64(uint64_t crc, const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; i++) crc = kTable[(crc ^ bytes[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace keel
