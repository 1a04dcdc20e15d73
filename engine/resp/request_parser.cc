#include "engine/resp/request_parser.h"

#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/limits.h"
#include "engine/base/numbers.h"

namespace keel {
namespace {

constexpr size_t kNotFound = SIZE_MAX;

bool IsCSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

bool SplitArgsInPlace(char* line, size_t size, std::vector<std::string_view>* args) {
  // sdssplitargs reads a C string: a NUL byte ends the line. Cutting here keeps the loops below
  // from stepping over a NUL and reading on (they would make "a\0b" two arguments).
  const void* nul = size > 0 ? std::memchr(line, '\0', size) : nullptr;
  if (nul != nullptr) size = static_cast<size_t>(static_cast<const char*>(nul) - line);
  size_t read = 0;
  auto at = [&](size_t i) -> char { return i < size ? line[i] : '\0'; };
  while (true) {
    while (read < size && IsCSpace(line[read])) read++;
    if (read >= size) return true;
    size_t write = read;  // the decoded token overwrites its own source, never overtaking it
    const size_t token_start = write;
    bool in_double = false;
    bool in_single = false;
    bool done = false;
    while (!done) {
      const char c = at(read);
      if (in_double) {
        if (c == '\\' && at(read + 1) == 'x' && IsHexDigit(at(read + 2)) &&
            IsHexDigit(at(read + 3))) {
          line[write++] = static_cast<char>(HexValue(at(read + 2)) * 16 + HexValue(at(read + 3)));
          read += 3;
        } else if (c == '\\' && at(read + 1) != '\0') {
          read++;
          char decoded = at(read);
          switch (decoded) {
            case 'n':
              decoded = '\n';
              break;
            case 'r':
              decoded = '\r';
              break;
            case 't':
              decoded = '\t';
              break;
            case 'b':
              decoded = '\b';
              break;
            case 'a':
              decoded = '\a';
              break;
            default:
              break;
          }
          line[write++] = decoded;
        } else if (c == '"') {
          // A closing quote must be followed by a space or by the end of the line.
          if (at(read + 1) != '\0' && !IsCSpace(at(read + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          line[write++] = c;
        }
      } else if (in_single) {
        if (c == '\\' && at(read + 1) == '\'') {
          read++;
          line[write++] = '\'';
        } else if (c == '\'') {
          if (at(read + 1) != '\0' && !IsCSpace(at(read + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          line[write++] = c;
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_double = true;
            break;
          case '\'':
            in_single = true;
            break;
          default:
            line[write++] = c;
            break;
        }
      }
      if (read < size) read++;
    }
    KEEL_DASSERT(write <= read);
    args->emplace_back(line + token_start, write - token_start);
  }
}

void RequestParser::Reset() {
  in_multibulk_ = false;
  bulks_remaining_ = 0;
  bulk_size_ = -1;
  position_ = 0;
  scanned_to_ = 0;
  arg_refs_.clear();
}

size_t RequestParser::bytes_wanted() const {
  if (!in_multibulk_ || bulk_size_ < 0) return 0;
  return position_ + static_cast<size_t>(bulk_size_) + 2;
}

ParseResult RequestParser::Fail(std::string message) {
  error_ = std::move(message);
  Reset();
  return ParseResult::kError;
}

size_t RequestParser::FindHeaderEnd(const char* data, size_t size, size_t line_start,
                                    bool* too_long) {
  *too_long = false;
  size_t i = scanned_to_ > line_start ? scanned_to_ : line_start;
  const size_t limit = line_start + limits::kInlineBytesMax;
  for (; i < size && i <= limit; i++) {
    if (data[i] == '\r') return i;
    if (data[i] == '\0') break;  // strchr stops here: the line can only end by the size limit
  }
  scanned_to_ = i;
  if (size - line_start > limits::kInlineBytesMax) *too_long = true;
  return kNotFound;
}

ParseResult RequestParser::Parse(char* data, size_t size, const ParserLimits& limits,
                                 size_t* consumed) {
  *consumed = 0;
  if (size == 0) return ParseResult::kIncomplete;
  if (in_multibulk_ || data[0] == '*') return ParseMultibulk(data, size, limits, consumed);
  return ParseInline(data, size, consumed);
}

namespace {

// Reads a header number in its canonical form: "0", or 1 to 18 digits without a leading zero,
// ended by '\r' and at least one more byte (Redis skips that byte unchecked). Moves `p` past
// both. Any other form is left to the general parser, which reproduces Redis's errors.
inline bool ReadHeaderNumber(const char*& p, const char* end, int64_t* value) {
  // Most headers are an argument count or a key's length: one or two digits, read without the
  // general loop (the request path's parse is measured in bench/'s callgrind cells).
  if (end - p >= 4) {
    const unsigned first = static_cast<unsigned char>(p[0]) - unsigned{'0'};
    const unsigned second = static_cast<unsigned char>(p[1]) - unsigned{'0'};
    if (first <= 9 && p[1] == '\r') {
      *value = first;
      p += 3;
      return true;
    }
    if (first - 1 <= 8 && second <= 9 && p[2] == '\r') {
      *value = first * 10 + second;
      p += 4;
      return true;
    }
  }
  if (p >= end) return false;
  int64_t number = *p - '0';
  if (number < 0 || number > 9) return false;
  const char* digits_end = p + 18 < end ? p + 18 : end;
  const char* q = p + 1;
  if (number != 0) {
    while (q < digits_end && *q >= '0' && *q <= '9') number = number * 10 + (*q++ - '0');
  }
  if (end - q < 2 || *q != '\r') return false;
  p = q + 2;
  *value = number;
  return true;
}

}  // namespace

bool RequestParser::ParseWholeCommand(const char* data, size_t size, const ParserLimits& limits,
                                      size_t* consumed) {
  KEEL_DASSERT(size > 0 && data[0] == '*');
  const char* p = data + 1;
  const char* const end = data + size;
  int64_t count = 0;
  if (!ReadHeaderNumber(p, end, &count) || count <= 0) return false;
  if (count > limits::kUnauthMultibulkCountMax && !limits.authenticated) return false;
  // More bulks than bytes left cannot all be here; this also bounds the reservation below.
  if (static_cast<size_t>(count) > static_cast<size_t>(end - p) / 4) return false;
  args_.clear();
  for (int64_t i = 0; i < count; i++) {
    if (p >= end || *p != '$') return false;
    p++;
    int64_t bulk_size = 0;
    if (!ReadHeaderNumber(p, end, &bulk_size)) return false;
    if (bulk_size > limits.bulk_bytes_max) return false;
    if (bulk_size > limits::kUnauthBulkBytesMax && !limits.authenticated) return false;
    if (static_cast<size_t>(end - p) < static_cast<size_t>(bulk_size) + 2) return false;
    args_.emplace_back(p, static_cast<size_t>(bulk_size));
    p += bulk_size + 2;  // Redis skips the two bytes after a bulk without checking them
  }
  *consumed = static_cast<size_t>(p - data);
  return true;
}

ParseResult RequestParser::ParseMultibulk(char* data, size_t size, const ParserLimits& limits,
                                          size_t* consumed) {
  if (!in_multibulk_ && scanned_to_ == 0 && ParseWholeCommand(data, size, limits, consumed)) {
    return ParseResult::kCommand;
  }
  bool too_long = false;
  if (!in_multibulk_) {
    const size_t cr = FindHeaderEnd(data, size, 0, &too_long);
    if (cr == kNotFound) {
      if (too_long) return Fail("Protocol error: too big mbulk count string");
      return ParseResult::kIncomplete;
    }
    if (cr + 1 >= size) return ParseResult::kIncomplete;  // the byte after '\r' is needed too
    int64_t count = 0;
    if (!ParseStrictInt64(std::string_view(data + 1, cr - 1), &count) ||
        count > limits::kMultibulkCountMax) {
      return Fail("Protocol error: invalid multibulk length");
    }
    if (count > limits::kUnauthMultibulkCountMax && !limits.authenticated) {
      return Fail("Protocol error: unauthenticated multibulk length");
    }
    if (count <= 0) {
      Reset();
      *consumed = cr + 2;
      return ParseResult::kEmpty;
    }
    in_multibulk_ = true;
    bulks_remaining_ = count;
    bulk_size_ = -1;
    position_ = cr + 2;
    scanned_to_ = position_;
    arg_refs_.clear();
  }

  while (bulks_remaining_ > 0) {
    if (bulk_size_ < 0) {
      const size_t cr = FindHeaderEnd(data, size, position_, &too_long);
      if (cr == kNotFound) {
        if (too_long) return Fail("Protocol error: too big bulk count string");
        return ParseResult::kIncomplete;
      }
      if (cr + 1 >= size) return ParseResult::kIncomplete;
      if (data[position_] != '$') {
        std::string message = "Protocol error: expected '$', got '";
        message.push_back(data[position_]);
        message.push_back('\'');
        return Fail(std::move(message));
      }
      int64_t bulk_size = 0;
      if (!ParseStrictInt64(std::string_view(data + position_ + 1, cr - position_ - 1),
                            &bulk_size) ||
          bulk_size < 0 || bulk_size > limits.bulk_bytes_max) {
        return Fail("Protocol error: invalid bulk length");
      }
      if (bulk_size > limits::kUnauthBulkBytesMax && !limits.authenticated) {
        return Fail("Protocol error: unauthenticated bulk length");
      }
      bulk_size_ = bulk_size;
      position_ = cr + 2;
      scanned_to_ = position_;
    }
    const size_t bulk_end = position_ + static_cast<size_t>(bulk_size_);
    if (size < bulk_end + 2) return ParseResult::kIncomplete;
    arg_refs_.push_back({position_, static_cast<size_t>(bulk_size_)});
    position_ = bulk_end + 2;  // Redis skips the two bytes after a bulk without checking them
    scanned_to_ = position_;
    bulk_size_ = -1;
    bulks_remaining_--;
  }

  args_.clear();
  for (const ArgRef& ref : arg_refs_) args_.emplace_back(data + ref.offset, ref.size);
  *consumed = position_;
  Reset();
  return ParseResult::kCommand;
}

ParseResult RequestParser::ParseInline(char* data, size_t size, size_t* consumed) {
  // strchr(querybuf, '\n'): the search stops at a NUL byte, which leaves the line unfinished.
  size_t newline = kNotFound;
  size_t i = scanned_to_;
  const size_t scan_end = size < limits::kInlineBytesMax + 1 ? size : limits::kInlineBytesMax + 1;
  for (; i < scan_end; i++) {
    if (data[i] == '\n') {
      newline = i;
      break;
    }
    if (data[i] == '\0') break;
  }
  if (newline == kNotFound) {
    scanned_to_ = i;
    if (size > limits::kInlineBytesMax) return Fail("Protocol error: too big inline request");
    return ParseResult::kIncomplete;
  }
  scanned_to_ = 0;
  size_t line_size = newline;
  if (line_size > 0 && data[line_size - 1] == '\r') line_size--;
  args_.clear();
  if (!SplitArgsInPlace(data, line_size, &args_)) {
    return Fail("Protocol error: unbalanced quotes in request");
  }
  *consumed = newline + 1;
  return args_.empty() ? ParseResult::kEmpty : ParseResult::kCommand;
}

}  // namespace keel
