// RequestParser: the incremental, zero-copy RESP request parser.
//
// It reads commands as redis-server 7.0 does (networking.c: processMultibulkBuffer and
// processInlineBuffer, with sdssplitargs' quoting rules for inline commands), including its
// leniencies (the two bytes after a bulk are skipped unchecked; a header line may end in "\r" plus
// any byte) and its exact protocol error texts. Arguments are views into the caller's buffer: no
// byte of a multibulk command is copied. Inline arguments with quotes are unescaped in place (the
// unescaped form is never longer), so they are views too.
//
// The parser keeps its position inside a partial command, so a pipeline fed one byte at a time
// costs the same scanning as one fed whole, and every split of the same bytes yields the same
// commands and the same errors (tested by a RapidCheck property). One deliberate difference: Redis
// checks its 64 KiB header-line limit only against what one 16 KiB read happened to deliver, so
// whether a 70 KiB inline line is accepted depends on timing; Keel refuses any header line longer
// than 64 KiB, whatever the split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

struct ParserLimits {
  int64_t bulk_bytes_max;  // proto-max-bulk-len
  bool authenticated;      // false: Redis's stricter pre-AUTH limits apply
};

enum class ParseResult : uint8_t {
  kCommand,     // args() holds a complete command; `consumed` bytes belong to it
  kEmpty,       // an empty command (blank inline line, "*0", "*-1"): skip `consumed` bytes
  kIncomplete,  // more bytes are needed; keep everything from the start of the buffer
  kError,       // protocol error: error() has the text; the connection must be closed
};

class RequestParser {
 public:
  RequestParser() = default;

  // Parses from `data`, which must start where the previous kCommand/kEmpty ended (the start of
  // the unconsumed input). After kIncomplete, call again with the same starting bytes plus more
  // (the buffer may have moved). `data` is writable because inline quoting is decoded in place.
  ParseResult Parse(char* data, size_t size, const ParserLimits& limits, size_t* consumed);

  // The arguments of the last kCommand: views into the buffer passed to Parse, valid until the
  // buffer changes.
  std::span<const std::string_view> args() const { return args_; }

  // The text of the last kError without the "-ERR " prefix, e.g. "Protocol error: invalid bulk
  // length". May contain any byte; the reply writer makes it printable as Redis does.
  const std::string& error() const { return error_; }

  // While a bulk argument is partially received: how many more bytes the buffer must hold (from
  // the start of the command) for it to complete. Lets the caller grow the buffer once. 0 when
  // not in a bulk.
  size_t bytes_wanted() const;

  // While a multibulk command is partially received: how many of its leading bytes (from the
  // start of the command) are already parsed into complete arguments, which stay in the buffer as
  // views. Redis moves such arguments out of its query buffer, so its query-buffer limit counts
  // only the bytes after them; the server uses this to count the same. 0 otherwise.
  size_t parsed_bytes() const { return in_multibulk_ ? position_ : 0; }

  // Forgets any partial command (a new connection, or after an error).
  void Reset();

 private:
  ParseResult ParseMultibulk(char* data, size_t size, const ParserLimits& limits, size_t* consumed);
  // The common case in one pass: a whole multibulk command already in the buffer, with plain
  // decimal headers. Returns false (having changed no state) for anything else, which the
  // general path then handles byte for byte as Redis would.
  bool ParseWholeCommand(const char* data, size_t size, const ParserLimits& limits,
                         size_t* consumed);
  ParseResult ParseInline(char* data, size_t size, size_t* consumed);
  ParseResult Fail(std::string message);
  // Finds the end of the header line starting at `line_start`, as strchr(... '\r') would (a NUL
  // byte stops the search). Returns the offset of '\r' or SIZE_MAX; sets *too_long when the limit
  // was passed without an end.
  size_t FindHeaderEnd(const char* data, size_t size, size_t line_start, bool* too_long);

  struct ArgRef {
    size_t offset;  // from the start of the command
    size_t size;
  };

  // State of a partially received multibulk command; offsets are relative to the command start.
  bool in_multibulk_ = false;
  int64_t bulks_remaining_ = 0;
  int64_t bulk_size_ = -1;  // -1: the next bulk header has not been read yet
  size_t position_ = 0;     // where parsing resumes
  size_t scanned_to_ = 0;   // header-line scan progress, so a slow header is not rescanned
  std::vector<ArgRef> arg_refs_;

  std::vector<std::string_view> args_;
  std::string error_;
};

// Splits a line into arguments with redis-server's quoting rules (sdssplitargs: "..." with \n \r
// \t \b \a \xHH escapes, '...' with \' only, a closing quote must be followed by a space),
// decoding each argument in place (decoded text is never longer than its source). The views point
// into `line`. A NUL byte ends the line, as in Redis's C strings. Returns false on unbalanced
// quotes. Used for inline commands and for config files.
bool SplitArgsInPlace(char* line, size_t size, std::vector<std::string_view>* args);

}  // namespace keel
