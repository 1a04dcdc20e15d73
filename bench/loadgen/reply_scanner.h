// Finds the ends of RESP2/RESP3 replies in a byte stream, so that keel_loadgen can count replies,
// errors and nulls without building values. Stateless: a reply cut by the end of the data is left
// whole for the next call, which scans it again from its start (replies here are small).
#pragma once

#include <cstddef>

namespace keel::loadgen {

struct ScanResult {
  size_t bytes = 0;        // bytes of whole top-level replies, from the start of the data
  size_t replies = 0;      // whole top-level replies
  size_t errors = 0;       // top-level error replies ("-..." or RESP3 "!<len>")
  size_t nulls = 0;        // top-level nulls ("$-1", "*-1" or RESP3 "_")
  bool malformed = false;  // the data is not RESP; `bytes` and the counts stop before it
};

// Scans at most `replies_max` whole top-level replies from data[0, size).
ScanResult ScanReplies(const char* data, size_t size, size_t replies_max);

}  // namespace keel::loadgen
