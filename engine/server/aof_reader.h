// Reading the commands of an AOF file, as Redis 7.0's loadSingleAppendOnlyFile parses them.
//
// A file is a sequence of RESP multibulk commands ("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"), with
// annotation lines starting with '#' between them (aof-timestamp-enabled's "#TS:1700000000").
// The reader tells a damaged tail from a damaged file: a command cut short by the end of the file
// (the torn last write of a crash) and a tail of zero bytes (a file whose new size reached the
// disk before its data did) are a truncation, which aof-load-truncated may cut off; anything else
// that is not the protocol is a format error. Redis treats the zero tail as a format error and
// refuses to start (an open upstream issue); Keel cuts it off like any other torn tail.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace keel {

enum class AofReadStatus {
  kCommand,      // `args` holds the next command
  kEnd,          // the file ended after a whole command (or was empty)
  kTruncated,    // the file ends inside a command
  kZeroTail,     // the rest of the file is zero bytes
  kFormatError,  // something that is not a command where one should start
};

class AofCommandReader {
 public:
  // Reads `bytes` from `offset` (past an RDB preamble, when the file has one).
  explicit AofCommandReader(std::string_view bytes, size_t offset = 0)
      : bytes_(bytes), offset_(offset) {
    FindZeroTail();
  }

  // The next command; its arguments are views into the bytes.
  AofReadStatus Next(std::vector<std::string_view>* args);
  // Where the last whole command (or annotation) ended: the offset to truncate a torn tail at.
  size_t offset() const { return offset_; }

 private:
  // Reads a line as fgets would (up to and with its '\n', at most `max` bytes); false at the end.
  bool ReadLine(size_t* at, std::string_view* line, size_t max) const;
  // Finds where the run of zero bytes that ends the file (if any) begins: the file is parsed as
  // if it ended there.
  void FindZeroTail();

  std::string_view bytes_;
  size_t offset_;
  size_t end_ = 0;
  bool zero_tail_ = false;
};

}  // namespace keel
