#include "engine/server/aof_reader.h"

#include <cctype>
#include <cstdint>

namespace keel {
namespace {

// Redis reads the header lines with fgets into AOF_ANNOTATION_LINE_MAX_LEN (1024) bytes.
constexpr size_t kLineBytesMax = 1023;

// atoi / strtol as Redis applies them to "*<count>" and "$<length>": leading digits, a sign,
// and nothing beyond what fits (a count or length that large cannot be in the file anyway).
bool LeadingInteger(std::string_view text, int64_t* value) {
  size_t at = 0;
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) at++;
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
  int64_t result = 0;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); at++) {
    if (result > (INT64_MAX - 9) / 10) return false;
    result = result * 10 + (text[at] - '0');
  }
  *value = negative ? -result : result;
  return true;
}

}  // namespace

bool AofCommandReader::ReadLine(size_t* at, std::string_view* line, size_t max) const {
  if (*at >= end_) return false;
  const size_t limit = std::min(end_, *at + max);
  size_t stop = *at;
  while (stop < limit && bytes_[stop] != '\n') stop++;
  if (stop < limit) stop++;  // the '\n' belongs to the line
  *line = bytes_.substr(*at, stop - *at);
  *at = stop;
  return true;
}

void AofCommandReader::FindZeroTail() {
  end_ = bytes_.size();
  while (end_ > offset_ && bytes_[end_ - 1] == '\0') end_--;
  zero_tail_ = end_ < bytes_.size();
}

AofReadStatus AofCommandReader::Next(std::vector<std::string_view>* args) {
  args->clear();
  // Where the file stops making sense at its end: a whole command, never part of one, ends a
  // file that is not damaged, and every command ends in "\r\n", never in a zero byte.
  const AofReadStatus cut_short = zero_tail_ ? AofReadStatus::kZeroTail : AofReadStatus::kTruncated;
  while (true) {
    size_t at = offset_;
    std::string_view line;
    if (!ReadLine(&at, &line, kLineBytesMax)) {
      return zero_tail_ ? AofReadStatus::kZeroTail : AofReadStatus::kEnd;
    }
    if (line[0] == '#') {  // an annotation: skipped, and a place a torn tail may be cut at
      offset_ = at;
      continue;
    }
    if (line[0] != '*') return AofReadStatus::kFormatError;
    if (line.size() == 1) return cut_short;  // "*" and the end of the file
    int64_t count = 0;
    if (!LeadingInteger(line.substr(1), &count) || count < 1) return AofReadStatus::kFormatError;
    // Each argument takes at least "$0\r\n\r\n": a count beyond that is a torn or bad file, and
    // the loop below finds which without reserving room for it.
    for (int64_t i = 0; i < count; i++) {
      if (!ReadLine(&at, &line, kLineBytesMax)) return cut_short;
      if (line[0] != '$') return AofReadStatus::kFormatError;
      int64_t length = 0;
      if (!LeadingInteger(line.substr(1), &length) || length < 0) {
        return AofReadStatus::kFormatError;
      }
      if (static_cast<uint64_t>(length) > end_ - at || end_ - at - length < 2) return cut_short;
      args->push_back(bytes_.substr(at, static_cast<size_t>(length)));
      at += static_cast<size_t>(length);
      // Redis skips these two bytes unread; Keel checks them, so that a sector lost in the middle
      // of a value is not taken for the value.
      if (bytes_[at] != '\r' || bytes_[at + 1] != '\n') return AofReadStatus::kFormatError;
      at += 2;
    }
    offset_ = at;
    return AofReadStatus::kCommand;
  }
}

}  // namespace keel
