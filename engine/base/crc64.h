// CRC-64 as Redis computes it for DUMP payloads and RDB files: the Jones polynomial
// (0xad93d23594c935a9), reflected, initial value 0, no final xor ("123456789" ->
// 0xe9c6d914c4b8d9ca, the check value Redis's crc64 test uses).
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel {

// Continues `crc` over `size` bytes (start with 0).
uint64_t Crc64(uint64_t crc, const void* data, size_t size);

}  // namespace keel
