// Number formatting and parsing shared by replies, INFO and commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace keel {

// Writes the decimal form of `value` to `out` (at least kInt64TextMax bytes) and returns its
// length. No terminating NUL.
inline constexpr size_t kInt64TextMax = 20;
size_t FormatInt64(int64_t value, char* out);
size_t FormatUint64(uint64_t value, char* out);
std::string Int64ToString(int64_t value);

// Digits in the decimal form of `value` (1 for 0).
size_t DecimalDigits(uint64_t value);

// Redis's "%.17g" form of a double as its RESP replies print it ("inf", "-inf" and "nan" spelled
// so). Returns the length written to `out` (at least kDoubleTextMax bytes).
inline constexpr size_t kDoubleTextMax = 40;
size_t FormatDouble(double value, char* out);

// Redis's string2ld / ld2string(LD_STR_HUMAN), as INCRBYFLOAT uses them. kLongDoubleTextMax is
// Redis's MAX_LONG_DOUBLE_CHARS: the longest text parsed (exclusive) and the buffer size for
// formatting, enough for every finite long double in "%.17Lf" form (about 4,950 characters).
inline constexpr size_t kLongDoubleTextMax = 5 * 1024;
// Accepts what strtold accepts (decimal, hex, "inf"), as the whole text with no leading space;
// refuses NaN, an overflow, an underflow to zero, and texts of kLongDoubleTextMax bytes or more.
bool ParseLongDouble(std::string_view text, long double* value);
// "%.17Lf" with the trailing zeros of the fraction (and a bare '.') dropped and "-0" written
// "0". `out` holds kLongDoubleTextMax bytes; returns the length written (no NUL).
size_t FormatLongDoubleHuman(long double value, char* out);

// Case-insensitive ASCII comparison (command names, options, config names). Inline: command
// lookup and option parsing call these once per command.
inline char AsciiToLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// EqualsIgnoreCase for sizes of 4 and more, a word at a time (numbers.cc).
bool EqualsIgnoreCaseWords(const char* a, const char* b, size_t size);

// Inline for the short names that most commands have (a byte at a time is as fast there); longer
// ones are compared a word at a time (the command lookup compares every command's name). Always
// inline: GCC otherwise keeps it out of line in Engine::Dispatch, 10 instructions a request more.
[[gnu::always_inline]] inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  const size_t size = a.size();
  if (size != b.size()) return false;
  if (size >= 4) return EqualsIgnoreCaseWords(a.data(), b.data(), size);
  for (size_t i = 0; i < size; i++) {
    if (AsciiToLower(a[i]) != AsciiToLower(b[i])) return false;
  }
  return true;
}
std::string AsciiLowercase(std::string_view text);
std::string AsciiUppercase(std::string_view text);

// Redis's string2ll: a strict decimal int64 (no "+", no leading zeros, no spaces, "-0" refused,
// at most 20 characters). Returns false when the text is not exactly such a number.
bool ParseStrictInt64(std::string_view text, int64_t* value);

}  // namespace keel
