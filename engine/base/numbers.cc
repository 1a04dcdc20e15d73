#include "engine/base/numbers.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/base/assert.h"

namespace keel {

size_t DecimalDigits(uint64_t value) {
  size_t digits = 1;
  while (value >= 10) {
    value /= 10;
    digits++;
  }
  return digits;
}

namespace {

// The bytes of `word` with 'A'..'Z' lowered to 'a'..'z' and every other byte (bytes of 0x80 and
// up included) left as it is: for each byte below 0x80, adding 0x3f sets its high bit from 'A'
// on and adding 0x25 from '[' on, with no carry into the next byte.
template <typename Word>
Word LowerAsciiWord(Word word) {
  constexpr Word kOnes = static_cast<Word>(~Word{0}) / 0xff;  // 0x0101...
  const Word low_bits = word & static_cast<Word>(kOnes * 0x7f);
  const Word from_a = low_bits + static_cast<Word>(kOnes * 0x3f);
  const Word from_bracket = low_bits + static_cast<Word>(kOnes * 0x25);
  const Word upper = from_a & ~from_bracket & ~word & static_cast<Word>(kOnes * 0x80);
  return word | static_cast<Word>(upper >> 2);
}

template <typename Word>
bool WordsEqualIgnoreCase(const char* a, const char* b) {
  Word x;
  Word y;
  std::memcpy(&x, a, sizeof(x));
  std::memcpy(&y, b, sizeof(y));
  return LowerAsciiWord(x) == LowerAsciiWord(y);
}

}  // namespace

bool EqualsIgnoreCaseWords(const char* a, const char* b, size_t size) {
  // 4-8 bytes as two overlapping 32-bit words; longer in 8-byte steps and a last overlapping one.
  KEEL_DASSERT(size >= 4);
  if (size <= 8) {
    return WordsEqualIgnoreCase<uint32_t>(a, b) &&
           WordsEqualIgnoreCase<uint32_t>(a + size - 4, b + size - 4);
  }
  for (size_t i = 0; i + 8 < size; i += 8) {
    if (!WordsEqualIgnoreCase<uint64_t>(a + i, b + i)) return false;
  }
  return WordsEqualIgnoreCase<uint64_t>(a + size - 8, b + size - 8);
}

size_t FormatUint64(uint64_t value, char* out) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  const size_t length = DecimalDigits(value);
  size_t i = length;
  while (value >= 100) {
    const size_t pair = static_cast<size_t>(value % 100) * 2;
    value /= 100;
    out[--i] = kPairs[pair + 1];
    out[--i] = kPairs[pair];
  }
  if (value >= 10) {
    const size_t pair = static_cast<size_t>(value) * 2;
    out[--i] = kPairs[pair + 1];
    out[--i] = kPairs[pair];
  } else {
    out[--i] = static_cast<char>('0' + value);
  }
  return length;
}

size_t FormatInt64(int64_t value, char* out) {
  if (value >= 0) return FormatUint64(static_cast<uint64_t>(value), out);
  out[0] = '-';
  // Negate in unsigned arithmetic so that INT64_MIN does not overflow.
  return 1 + FormatUint64(0 - static_cast<uint64_t>(value), out + 1);
}

std::string Int64ToString(int64_t value) {
  char text[kInt64TextMax + 1];
  return std::string(text, FormatInt64(value, text));
}

size_t FormatDouble(double value, char* out) {
  if (std::isinf(value)) {
    const char* text = value > 0 ? "inf" : "-inf";
    const size_t length = std::strlen(text);
    std::memcpy(out, text, length);
    return length;
  }
  if (std::isnan(value)) {
    std::memcpy(out, "nan", 3);
    return 3;
  }
  const int length = std::snprintf(out, kDoubleTextMax, "%.17g", value);
  return length > 0 ? static_cast<size_t>(length) : 0;
}

bool ParseLongDouble(std::string_view text, long double* value) {
  if (text.empty() || text.size() >= kLongDoubleTextMax) return false;
  // strtold needs a terminated string; a NUL inside the text stops it short of the end, which
  // the length check below refuses, as Redis does.
  char buffer[kLongDoubleTextMax];
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  errno = 0;
  char* end = nullptr;
  const long double parsed = std::strtold(buffer, &end);
  if (std::isspace(static_cast<unsigned char>(buffer[0])) || end != buffer + text.size()) {
    return false;
  }
  // An overflow (HUGE_VALL) or an underflow to zero is refused; a denormal result is kept.
  if (errno == ERANGE && (std::isinf(parsed) || std::fpclassify(parsed) == FP_ZERO)) return false;
  if (errno == EINVAL || std::isnan(parsed)) return false;
  *value = parsed;
  return true;
}

size_t FormatLongDoubleHuman(long double value, char* out) {
  if (std::isinf(value)) {
    const std::string_view text = value > 0 ? "inf" : "-inf";
    std::memcpy(out, text.data(), text.size());
    return text.size();
  }
  // 17 digits after the point: with Redis's rounding most short decimals read back as typed.
  const int written = std::snprintf(out, kLongDoubleTextMax, "%.17Lf", value);
  KEEL_ASSERT(written > 0);
  KEEL_ASSERT(static_cast<size_t>(written) < kLongDoubleTextMax);
  size_t length = static_cast<size_t>(written);
  if (std::memchr(out, '.', length) != nullptr) {
    while (out[length - 1] == '0') length--;
    if (out[length - 1] == '.') length--;
  }
  if (length == 2 && out[0] == '-' && out[1] == '0') {
    out[0] = '0';
    length = 1;
  }
  return length;
}

std::string AsciiLowercase(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = AsciiToLower(c);
  return result;
}

std::string AsciiUppercase(std::string_view text) {
  std::string result(text);
  for (char& c : result) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  return result;
}

bool ParseStrictInt64(std::string_view text, int64_t* value) {
  // Redis's string2ll refuses anything of 21 characters or more (LONG_STR_SIZE).
  if (text.empty() || text.size() >= 21) return false;
  if (text.size() == 1 && text[0] == '0') {
    *value = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-') {
    negative = true;
    i = 1;
    if (i == text.size()) return false;
  }
  if (text[i] < '1' || text[i] > '9') return false;
  uint64_t magnitude = static_cast<uint64_t>(text[i] - '0');
  for (i++; i < text.size(); i++) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (UINT64_MAX - digit) / 10) return false;
    magnitude = magnitude * 10 + digit;
  }
  if (negative) {
    if (magnitude > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *value = static_cast<int64_t>(0 - magnitude);
  } else {
    if (magnitude > static_cast<uint64_t>(INT64_MAX)) return false;
    *value = static_cast<int64_t>(magnitude);
  }
  return true;
}

}  // namespace keel
