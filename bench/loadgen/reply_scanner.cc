// RESP reply boundaries; see reply_scanner.h.
#include "bench/loadgen/reply_scanner.h"

#include <cstdint>
#include <cstring>

namespace keel::loadgen {
namespace {

// Nesting deeper than this is treated as malformed: no server sends it to GET or SET, and the
// bound keeps the recursion small.
constexpr int kDepthMax = 32;

enum class Step { kDone, kIncomplete, kMalformed };

struct Reply {
  const char* end = nullptr;
  bool error = false;
  bool null = false;
};

// Reads the line starting at `p` (after the type byte): sets *line_end to the '\r' of its CRLF.
Step FindLine(const char* p, const char* end, const char** line_end) {
  const void* cr = std::memchr(p, '\r', static_cast<size_t>(end - p));
  if (cr == nullptr) return Step::kIncomplete;
  const char* at = static_cast<const char*>(cr);
  if (at + 1 >= end) return Step::kIncomplete;
  if (at[1] != '\n') return Step::kMalformed;
  *line_end = at;
  return Step::kDone;
}

bool ParseLength(const char* p, const char* line_end, int64_t* value) {
  bool negative = false;
  if (p < line_end && *p == '-') {
    negative = true;
    p++;
  }
  if (p == line_end || line_end - p > 18) return false;
  int64_t number = 0;
  for (; p < line_end; p++) {
    if (*p < '0' || *p > '9') return false;
    number = number * 10 + (*p - '0');
  }
  *value = negative ? -number : number;
  return true;
}

Step ScanOne(const char* p, const char* end, int depth, Reply* reply) {
  if (p >= end) return Step::kIncomplete;
  if (depth > kDepthMax) return Step::kMalformed;
  const char type = *p;
  const char* line_end = nullptr;
  const Step line = FindLine(p + 1, end, &line_end);
  if (line != Step::kDone) return line;
  const char* after_line = line_end + 2;
  *reply = Reply{};
  switch (type) {
    case '+':  // simple string
    case ':':  // integer
    case ',':  // RESP3 double
    case '#':  // RESP3 boolean
    case '(':  // RESP3 big number
      reply->end = after_line;
      return Step::kDone;
    case '-':
      reply->end = after_line;
      reply->error = true;
      return Step::kDone;
    case '_':
      reply->end = after_line;
      reply->null = true;
      return Step::kDone;
    case '$':    // bulk string
    case '!':    // RESP3 bulk error
    case '=': {  // RESP3 verbatim string
      int64_t length = 0;
      if (!ParseLength(p + 1, line_end, &length) || length < -1) return Step::kMalformed;
      if (length == -1) {
        if (type != '$') return Step::kMalformed;
        reply->end = after_line;
        reply->null = true;
        return Step::kDone;
      }
      if (end - after_line < length + 2) return Step::kIncomplete;
      const char* data_end = after_line + length;
      if (data_end[0] != '\r' || data_end[1] != '\n') return Step::kMalformed;
      reply->end = data_end + 2;
      reply->error = type == '!';
      return Step::kDone;
    }
    case '*':    // array
    case '~':    // RESP3 set
    case '>':    // RESP3 push
    case '%':    // RESP3 map: two elements per entry
    case '|': {  // RESP3 attribute: a map, then the reply it annotates
      int64_t count = 0;
      if (!ParseLength(p + 1, line_end, &count) || count < -1) return Step::kMalformed;
      if (count == -1) {
        if (type != '*') return Step::kMalformed;
        reply->end = after_line;
        reply->null = true;
        return Step::kDone;
      }
      const int64_t elements = (type == '%' || type == '|') ? count * 2 : count;
      const char* at = after_line;
      for (int64_t i = 0; i < elements; i++) {
        Reply element;
        const Step step = ScanOne(at, end, depth + 1, &element);
        if (step != Step::kDone) return step;
        at = element.end;
      }
      if (type == '|') return ScanOne(at, end, depth + 1, reply);
      reply->end = at;
      return Step::kDone;
    }
    default:
      return Step::kMalformed;
  }
}

}  // namespace

ScanResult ScanReplies(const char* data, size_t size, size_t replies_max) {
  ScanResult result;
  const char* at = data;
  const char* end = data + size;
  while (result.replies < replies_max) {
    Reply reply;
    const Step step = ScanOne(at, end, 0, &reply);
    if (step == Step::kIncomplete) break;
    if (step == Step::kMalformed) {
      result.malformed = true;
      break;
    }
    at = reply.end;
    result.replies++;
    if (reply.error) result.errors++;
    if (reply.null) result.nulls++;
  }
  result.bytes = static_cast<size_t>(at - data);
  return result;
}

}  // namespace keel::loadgen
