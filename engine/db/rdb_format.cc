#include "engine/db/rdb_format.h"

#include <liblzf/lzf.h>

#include <algorithm>
#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/crc64.h"
#include "engine/base/numbers.h"

namespace keel::rdb {
namespace {

// The first byte's two high bits say how a length is written (RDB_6BITLEN ... RDB_ENCVAL);
// 0x80 and 0x81 introduce 32- and 64-bit lengths.
constexpr uint8_t k14BitLength = 0x40;
constexpr uint8_t k32BitLength = 0x80;
constexpr uint8_t k64BitLength = 0x81;
constexpr uint8_t kEncodedValue = 0xc0;
// Special string encodings (RDB_ENC_*), in the low six bits after kEncodedValue.
constexpr uint8_t kEncInt8 = 0;
constexpr uint8_t kEncInt16 = 1;
constexpr uint8_t kEncInt32 = 2;
constexpr uint8_t kEncLzf = 3;
// LZF's best case: a three-byte back reference copies 264 bytes (length 7 + 255 + 2), so no
// compressed input expands by more than 88 times.
constexpr uint64_t kLzfExpansionMax = 88;

void AppendBigEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>(value >> (8 * i)));
}

void AppendLittleEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>(value >> (8 * i)));
}

// rdbTryIntegerEncoding: the integer encoding of `bytes` when it is the canonical text of an
// integer that fits 32 bits.
bool WriteIntegerEncoding(std::string* out, std::string_view bytes) {
  int64_t value = 0;
  if (bytes.size() > 11 || !ParseStrictInt64(bytes, &value)) return false;
  if (value >= INT8_MIN && value <= INT8_MAX) {
    out->push_back(static_cast<char>(kEncodedValue | kEncInt8));
    AppendLittleEndian(out, static_cast<uint64_t>(value), 1);
  } else if (value >= INT16_MIN && value <= INT16_MAX) {
    out->push_back(static_cast<char>(kEncodedValue | kEncInt16));
    AppendLittleEndian(out, static_cast<uint64_t>(value), 2);
  } else if (value >= INT32_MIN && value <= INT32_MAX) {
    out->push_back(static_cast<char>(kEncodedValue | kEncInt32));
    AppendLittleEndian(out, static_cast<uint64_t>(value), 4);
  } else {
    return false;
  }
  return true;
}

// rdbSaveLzfStringObject: only when compression saves more than 4 bytes.
bool WriteCompressed(std::string* out, std::string_view bytes) {
  if (bytes.size() <= 4) return false;
  std::string compressed(bytes.size() - 4, '\0');
  const unsigned int compressed_size =
      lzf_compress(bytes.data(), static_cast<unsigned int>(bytes.size()), compressed.data(),
                   static_cast<unsigned int>(compressed.size()));
  if (compressed_size == 0) return false;
  out->push_back(static_cast<char>(kEncodedValue | kEncLzf));
  WriteLength(out, compressed_size);
  WriteLength(out, bytes.size());
  out->append(compressed.data(), compressed_size);
  return true;
}

}  // namespace

void WriteLength(std::string* out, uint64_t length) {
  if (length < (1u << 6)) {
    out->push_back(static_cast<char>(length));
  } else if (length < (1u << 14)) {
    out->push_back(static_cast<char>(k14BitLength | (length >> 8)));
    out->push_back(static_cast<char>(length & 0xff));
  } else if (length <= UINT32_MAX) {
    out->push_back(static_cast<char>(k32BitLength));
    AppendBigEndian(out, length, 4);
  } else {
    out->push_back(static_cast<char>(k64BitLength));
    AppendBigEndian(out, length, 8);
  }
}

void WriteString(std::string* out, std::string_view bytes, bool compress) {
  if (WriteIntegerEncoding(out, bytes)) return;
  // Lengths fit unsigned int: entries hold at most UINT32_MAX bytes.
  if (compress && bytes.size() > 20 && bytes.size() <= UINT32_MAX && WriteCompressed(out, bytes)) {
    return;
  }
  WriteLength(out, bytes.size());
  out->append(bytes);
}

Reader::Reader(ByteSource& source, size_t window_bytes)
    : base_(nullptr),
      source_(&source),
      window_(std::max<size_t>(window_bytes, 1), '\0'),
      crc_from_(nullptr) {
  base_ = crc_from_ = window_.data();
  in_ = std::string_view(window_.data(), 0);
}

bool Reader::Refill(size_t wanted) {
  if (source_ == nullptr || wanted > window_.size()) return false;
  char* window = window_.data();
  // What was read leaves the window: into the checksum and the position first.
  crc_ = Crc64(crc_, crc_from_, static_cast<size_t>(in_.data() - crc_from_));
  consumed_before_ += static_cast<uint64_t>(in_.data() - base_);
  const size_t kept = in_.size();
  if (kept > 0) std::memmove(window, in_.data(), kept);
  size_t filled = kept;
  // Each Read adds bytes or reports the end, so the loop ends.
  while (filled < wanted) {
    const size_t got = source_->Read(window + filled, window_.size() - filled);
    if (got == 0) break;
    filled += got;
  }
  base_ = crc_from_ = window;
  in_ = std::string_view(window, filled);
  return filled >= wanted;
}

bool Reader::ReadInto(char* out, size_t size) {
  // Each turn copies what the window holds, then refills it (or fails at the end).
  while (size > 0) {
    if (in_.empty() && !Refill(1)) return false;
    const size_t taken = std::min(size, in_.size());
    std::memcpy(out, in_.data(), taken);
    in_.remove_prefix(taken);
    out += taken;
    size -= taken;
  }
  return true;
}

bool Reader::AppendInto(std::string* out, size_t size) {
  if (source_ == nullptr) {
    if (in_.size() < size) return false;
    out->append(in_.data(), size);
    in_.remove_prefix(size);
    return true;
  }
  // The string grows with the bytes that actually arrive, never by a claimed length alone.
  while (size > 0) {
    if (in_.empty() && !Refill(1)) return false;
    const size_t taken = std::min(size, in_.size());
    out->append(in_.data(), taken);
    in_.remove_prefix(taken);
    size -= taken;
  }
  return true;
}

size_t Reader::remaining() const {
  if (source_ == nullptr) return in_.size();
  const uint64_t left = source_->BytesLeftMax();
  return left > SIZE_MAX - in_.size() ? SIZE_MAX : in_.size() + static_cast<size_t>(left);
}

size_t Reader::PresizeFor(uint64_t count, size_t item_bytes_min) const {
  KEEL_DASSERT(item_bytes_min > 0);
  size_t bound = remaining();
  if (source_ != nullptr) bound = std::min(bound, in_.size() + kPresizeAllowanceBytes);
  return static_cast<size_t>(std::min<uint64_t>(count, bound / item_bytes_min));
}

uint64_t Reader::ConsumedCrc64() const {
  return Crc64(crc_, crc_from_, static_cast<size_t>(in_.data() - crc_from_));
}

std::string_view Reader::source_error() const {
  return source_ != nullptr ? std::string_view(source_->error()) : std::string_view();
}

bool Reader::ReadRaw(size_t size, std::string_view* bytes) {
  if (in_.size() >= size) {
    *bytes = in_.substr(0, size);
    in_.remove_prefix(size);
    return true;
  }
  if (source_ == nullptr) return false;
  raw_.resize(size);
  if (!ReadInto(raw_.data(), size)) return false;
  *bytes = raw_;
  return true;
}

bool Reader::ReadLengthOrEncoding(uint64_t* length, bool* encoded) {
  uint8_t first = 0;
  if (!ReadByte(&first)) return false;
  *encoded = false;
  switch (first >> 6) {
    case 0:
      *length = first & 0x3f;
      return true;
    case 1: {
      uint8_t second = 0;
      if (!ReadByte(&second)) return false;
      *length = static_cast<uint64_t>(first & 0x3f) << 8 | second;
      return true;
    }
    case 3:
      *encoded = true;
      *length = first & 0x3f;
      return true;
    default:
      break;
  }
  size_t bytes = 0;
  if (first == k32BitLength) {
    bytes = 4;
  } else if (first == k64BitLength) {
    bytes = 8;
  } else {
    return false;
  }
  unsigned char raw[8];
  if (!ReadInto(reinterpret_cast<char*>(raw), bytes)) return false;
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; i++) value = value << 8 | raw[i];
  *length = value;
  return true;
}

bool Reader::ReadLength(uint64_t* length) {
  bool encoded = false;
  return ReadLengthOrEncoding(length, &encoded) && !encoded;
}

bool Reader::ReadString(std::string* bytes, size_t size_max) {
  uint64_t length = 0;
  bool encoded = false;
  if (!ReadLengthOrEncoding(&length, &encoded)) return false;
  if (!encoded) {
    if (length > remaining() || length > size_max) return false;
    bytes->clear();
    return AppendInto(bytes, static_cast<size_t>(length));
  }
  if (length <= kEncInt32) {
    const size_t width = size_t{1} << length;  // 1, 2 or 4 bytes, little-endian, signed
    unsigned char raw_bytes[4];
    if (!ReadInto(reinterpret_cast<char*>(raw_bytes), width)) return false;
    uint64_t raw = 0;
    for (size_t i = 0; i < width; i++) raw |= static_cast<uint64_t>(raw_bytes[i]) << (8 * i);
    int64_t value = 0;
    if (width == 1) value = static_cast<int8_t>(raw);
    if (width == 2) value = static_cast<int16_t>(raw);
    if (width == 4) value = static_cast<int32_t>(raw);
    *bytes = std::to_string(value);
    return true;
  }
  if (length != kEncLzf) return false;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  if (!ReadLength(&compressed_size) || !ReadLength(&size)) return false;
  if (compressed_size > remaining() || compressed_size > UINT32_MAX) return false;
  if (size > size_max || size > UINT32_MAX) return false;
  // A zero-length value cannot be compressed, so it is never written this way.
  if (size == 0) return false;
  // The claimed length is checked against what the compressed bytes can expand to before it is
  // allocated, so that a few bytes cannot ask for gigabytes (found by fuzz_set_load).
  if (size > compressed_size * kLzfExpansionMax) return false;
  // LZF needs its input in one piece: a buffer's bytes are, a source's are gathered first.
  std::string_view compressed;
  if (source_ == nullptr) {
    compressed = in_.substr(0, compressed_size);
  } else {
    lzf_in_.clear();
    if (!AppendInto(&lzf_in_, static_cast<size_t>(compressed_size))) return false;
    compressed = lzf_in_;
  }
  bytes->assign(size, '\0');
  const unsigned int decompressed =
      lzf_decompress(compressed.data(), static_cast<unsigned int>(compressed_size), bytes->data(),
                     static_cast<unsigned int>(size));
  if (decompressed != size) return false;
  if (source_ == nullptr) in_.remove_prefix(compressed_size);
  return true;
}

void AppendPayloadFooter(std::string* payload, uint16_t version) {
  payload->push_back(static_cast<char>(version & 0xff));
  payload->push_back(static_cast<char>(version >> 8));
  const uint64_t crc = Crc64(0, payload->data(), payload->size());
  for (int i = 0; i < 8; i++) payload->push_back(static_cast<char>(crc >> (8 * i)));
}

bool PayloadFooterValid(std::string_view payload, bool verify_checksum) {
  if (payload.size() < kPayloadFooterBytes) return false;
  const auto* footer =
      reinterpret_cast<const unsigned char*>(payload.data() + payload.size() - kPayloadFooterBytes);
  const auto version = static_cast<uint16_t>(footer[0] | footer[1] << 8);
  // Redis 7.0 refuses a newer payload; one holding a hash with field TTLs (Redis 7.4's types,
  // which Keel writes with version 12) is taken up to that version.
  const auto type = static_cast<uint8_t>(payload[0]);
  const bool field_ttls = type >= kTypeHashMetadataPreGa && type <= kTypeHashListpackEx;
  if (version > (field_ttls ? kVersionFieldExpiry : kVersion)) return false;
  if (!verify_checksum) return true;
  uint64_t crc = 0;
  for (int i = 0; i < 8; i++) crc |= static_cast<uint64_t>(footer[2 + i]) << (8 * i);
  return Crc64(0, payload.data(), payload.size() - 8) == crc;
}

}  // namespace keel::rdb
