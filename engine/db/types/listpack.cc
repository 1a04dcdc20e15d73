#include "engine/db/types/listpack.h"

#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"

namespace keel::listpack {
namespace {

// Encoding bytes (listpack.c's LP_ENCODING_*).
constexpr unsigned char k6BitString = 0x80;
constexpr unsigned char k13BitInt = 0xC0;
constexpr unsigned char k12BitString = 0xE0;
constexpr unsigned char k32BitString = 0xF0;
constexpr unsigned char k16BitInt = 0xF1;
constexpr unsigned char k24BitInt = 0xF2;
constexpr unsigned char k32BitInt = 0xF3;
constexpr unsigned char k64BitInt = 0xF4;

uint32_t Read32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void WriteLittleEndian(unsigned char* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; i++) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

uint64_t ReadLittleEndian(const unsigned char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; i++) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

// Bytes of the back length that records an encoding of `encoded` bytes.
size_t BacklenBytes(uint64_t encoded) {
  if (encoded <= 127) return 1;
  if (encoded < 16383) return 2;
  if (encoded < 2097151) return 3;
  if (encoded < 268435455) return 4;
  return 5;
}

// lpEncodeBacklen: the most significant group first, every byte but the first flagged with
// 0x80, so that reading leftwards from the entry's last byte stops at the first unflagged one.
void WriteBacklen(unsigned char* out, uint64_t encoded) {
  const size_t bytes = BacklenBytes(encoded);
  for (size_t i = 0; i < bytes; i++) {
    const size_t shift = 7 * (bytes - 1 - i);
    out[i] = static_cast<unsigned char>(((encoded >> shift) & 127) | (i == 0 ? 0 : 128));
  }
}

// lpDecodeBacklen, reading leftwards from `last` (the entry's last byte); at most 5 bytes, and
// never before `floor` when one is given. UINT64_MAX when malformed.
uint64_t ReadBacklen(const unsigned char* last, const unsigned char* floor) {
  uint64_t value = 0;
  uint64_t shift = 0;
  const unsigned char* p = last;
  while (true) {
    if (floor != nullptr && p < floor) return UINT64_MAX;
    value |= static_cast<uint64_t>(p[0] & 127) << shift;
    if (!(p[0] & 128)) break;
    shift += 7;
    if (shift > 28) return UINT64_MAX;
    p--;
  }
  return value;
}

// The integer encoding's size (the encoding byte included) for `value`.
size_t IntegerEncodingBytes(int64_t value) {
  if (value >= 0 && value <= 127) return 1;
  if (value >= -4096 && value <= 4095) return 2;
  if (value >= -32768 && value <= 32767) return 3;
  if (value >= -8388608 && value <= 8388607) return 4;
  if (value >= INT32_MIN && value <= INT32_MAX) return 5;
  return 9;
}

size_t StringEncodingBytes(size_t size) {
  if (size < 64) return 1 + size;
  if (size < 4096) return 2 + size;
  return 5 + size;
}

// The encoding's size from its first bytes, or 0 for an invalid encoding byte. `available`
// bytes may be read (a header needing more is reported as 0 too).
uint64_t EncodingSize(const unsigned char* p, size_t available) {
  if (available == 0) return 0;
  const unsigned char first = p[0];
  if ((first & 0x80) == 0) return 1;
  if ((first & 0xC0) == k6BitString) return 1 + static_cast<uint64_t>(first & 0x3F);
  if ((first & 0xE0) == k13BitInt) return 2;
  if ((first & 0xF0) == k12BitString) {
    if (available < 2) return 0;
    return 2 + (static_cast<uint64_t>(first & 0x0F) << 8 | p[1]);
  }
  switch (first) {
    case k32BitString:
      return available < 5 ? 0 : 5 + static_cast<uint64_t>(Read32(p + 1));
    case k16BitInt:
      return 3;
    case k24BitInt:
      return 4;
    case k32BitInt:
      return 5;
    case k64BitInt:
      return 9;
    default:
      return 0;  // 0xF5..0xFE are unused, 0xFF is the end byte
  }
}

int64_t SignExtend(uint64_t value, unsigned bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

// The integer an integer entry holds; false for a string entry (then `*bytes` is its data).
bool Decode(const unsigned char* p, int64_t* value, std::string_view* bytes) {
  const unsigned char first = p[0];
  if ((first & 0x80) == 0) {
    *value = first;
    return true;
  }
  if ((first & 0xC0) == k6BitString) {
    *bytes = {reinterpret_cast<const char*>(p + 1), static_cast<size_t>(first & 0x3F)};
    return false;
  }
  if ((first & 0xE0) == k13BitInt) {
    *value = SignExtend(static_cast<uint64_t>(first & 0x1F) << 8 | p[1], 13);
    return true;
  }
  if ((first & 0xF0) == k12BitString) {
    const size_t size = static_cast<size_t>(first & 0x0F) << 8 | p[1];
    *bytes = {reinterpret_cast<const char*>(p + 2), size};
    return false;
  }
  switch (first) {
    case k32BitString:
      *bytes = {reinterpret_cast<const char*>(p + 5), Read32(p + 1)};
      return false;
    case k16BitInt:
      *value = SignExtend(ReadLittleEndian(p + 1, 2), 16);
      return true;
    case k24BitInt:
      *value = SignExtend(ReadLittleEndian(p + 1, 3), 24);
      return true;
    case k32BitInt:
      *value = SignExtend(ReadLittleEndian(p + 1, 4), 32);
      return true;
    default:
      KEEL_DASSERT(first == k64BitInt);
      *value = static_cast<int64_t>(ReadLittleEndian(p + 1, 8));
      return true;
  }
}

}  // namespace

bool StringToInt64(std::string_view text, int64_t* value) {
  // Redis's string2ll rules, which ParseStrictInt64 follows; lpStringToInt64 adds only the
  // length bound (LONG_STR_SIZE), which the rules already imply for a valid integer.
  if (text.empty() || text.size() > kIntegerTextMax) return false;
  return ParseStrictInt64(text, value);
}

size_t EntryBytes(std::string_view element) {
  int64_t value = 0;
  const size_t encoded = StringToInt64(element, &value) ? IntegerEncodingBytes(value)
                                                        : StringEncodingBytes(element.size());
  return encoded + BacklenBytes(encoded);
}

void WriteEntry(std::string_view element, unsigned char* out) {
  int64_t value = 0;
  size_t encoded = 0;
  if (StringToInt64(element, &value)) {
    encoded = IntegerEncodingBytes(value);
    const auto bits = static_cast<uint64_t>(value);
    switch (encoded) {
      case 1:
        out[0] = static_cast<unsigned char>(value);
        break;
      case 2:
        out[0] = static_cast<unsigned char>(k13BitInt | ((bits >> 8) & 0x1F));
        out[1] = static_cast<unsigned char>(bits);
        break;
      case 3:
        out[0] = k16BitInt;
        WriteLittleEndian(out + 1, bits, 2);
        break;
      case 4:
        out[0] = k24BitInt;
        WriteLittleEndian(out + 1, bits, 3);
        break;
      case 5:
        out[0] = k32BitInt;
        WriteLittleEndian(out + 1, bits, 4);
        break;
      default:
        out[0] = k64BitInt;
        WriteLittleEndian(out + 1, bits, 8);
        break;
    }
  } else {
    const size_t size = element.size();
    encoded = StringEncodingBytes(size);
    size_t header = 1;
    if (size < 64) {
      out[0] = static_cast<unsigned char>(k6BitString | size);
    } else if (size < 4096) {
      out[0] = static_cast<unsigned char>(k12BitString | (size >> 8));
      out[1] = static_cast<unsigned char>(size);
      header = 2;
    } else {
      out[0] = k32BitString;
      WriteLittleEndian(out + 1, size, 4);
      header = 5;
    }
    if (size > 0) std::memcpy(out + header, element.data(), size);
  }
  WriteBacklen(out + encoded, encoded);
}

uint32_t TotalBytes(const unsigned char* listpack) { return Read32(listpack); }

void SetHeader(unsigned char* listpack, uint32_t total_bytes, size_t count) {
  WriteLittleEndian(listpack, total_bytes, 4);
  WriteLittleEndian(listpack + 4, count < kCountUnknown ? count : kCountUnknown, 2);
}

void WriteEmpty(unsigned char* listpack) {
  SetHeader(listpack, kEmptyBytes, 0);
  listpack[kHeaderBytes] = kEnd;
}

void Element::Read(const unsigned char* entry) {
  int64_t value = 0;
  if (Decode(entry, &value, &view_)) view_ = {digits_, FormatInt64(value, digits_)};
}

bool ReadEntry(const unsigned char* entry, int64_t* value, std::string_view* bytes) {
  return Decode(entry, value, bytes);
}

size_t EntrySize(const unsigned char* entry) {
  const uint64_t encoded = EncodingSize(entry, SIZE_MAX);
  KEEL_DASSERT(encoded > 0);
  return static_cast<size_t>(encoded + BacklenBytes(encoded));
}

const unsigned char* PreviousEntry(const unsigned char* entry) {
  const uint64_t encoded = ReadBacklen(entry - 1, nullptr);
  KEEL_DASSERT(encoded != UINT64_MAX);
  return entry - BacklenBytes(encoded) - encoded;
}

bool EntryEquals(const unsigned char* entry, std::string_view element) {
  int64_t value = 0;
  std::string_view bytes;
  if (!Decode(entry, &value, &bytes)) return bytes == element;
  int64_t wanted = 0;
  return StringToInt64(element, &wanted) && wanted == value;
}

bool Validate(const unsigned char* listpack, size_t size, size_t* count) {
  if (size < kEmptyBytes || TotalBytes(listpack) != size) return false;
  if (listpack[size - 1] != kEnd) return false;
  const unsigned char* p = listpack + kHeaderBytes;
  const unsigned char* end = listpack + size - 1;
  size_t seen = 0;
  while (p < end) {
    const auto available = static_cast<size_t>(end - p);
    const uint64_t encoded = EncodingSize(p, available);
    if (encoded == 0 || encoded > available) return false;
    const size_t backlen = BacklenBytes(encoded);
    if (encoded + backlen > available) return false;
    // The back length must say what the encoding says, read as PreviousEntry will read it.
    const unsigned char* last = p + encoded + backlen - 1;
    if (ReadBacklen(last, p + encoded) != encoded) return false;
    p += encoded + backlen;
    seen++;
  }
  const uint16_t header_count = static_cast<uint16_t>(listpack[4] | listpack[5] << 8);
  if (header_count != kCountUnknown && header_count != seen) return false;
  *count = seen;
  return true;
}

bool ReadAll(std::string_view blob, std::vector<std::string>* elements) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(blob.data());
  size_t count = 0;
  if (!Validate(bytes, blob.size(), &count)) return false;
  const unsigned char* entry = bytes + kHeaderBytes;
  Element element;
  for (size_t i = 0; i < count; i++) {
    element.Read(entry);
    elements->emplace_back(element.view());
    entry += EntrySize(entry);
  }
  return *entry == kEnd;
}

}  // namespace keel::listpack
