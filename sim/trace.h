// Trace: the record of one simulated run.
//
// Every delivered byte range, fault, executed command and received reply is one record. Each
// record is folded into a 64-bit hash, always, so two runs of the same seed can be compared
// cheaply (the determinism check). When a sink is attached the record is also written as one
// readable line; without a sink nothing is formatted, so sweeps pay only for the hash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace keel::sim {

enum class TraceKind : uint8_t {
  kConnect,      // a: client connection
  kAccept,       // a: connection
  kSend,         // a: connection, b: stream offset; bytes: what the client handed to the network
  kRead,         // a: connection, b: stream offset; bytes: what the server read
  kWrite,        // a: connection, b: stream offset; bytes: what the server wrote
  kReceive,      // a: connection, b: stream offset; bytes: what the client took
  kServerClose,  // a: connection
  kClientClose,  // a: connection (orderly close, EOF)
  kReset,        // a: connection, b: 1 when in the middle of a command, 2 of a reply
  kClock,        // a: monotonic µs, b: wall µs (as two's complement) after the clock moved
  kWallJump,     // a: wall µs before, b: wall µs after
  kTimerLate,    // a: µs past the deadline
  kRefusal,      // a: bytes refused
  kExecute,      // a: connection, b: command number on it; bytes: the command
  kReply,        // a: connection, b: command number; bytes: the reply
  kPhase,        // a: phase number; bytes: its name
  kNote,         // bytes: free text
};

std::string_view TraceKindName(TraceKind kind);

// Where formatted records go (a file, stdout, a zstd stream). Lines have no trailing newline.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void WriteLine(std::string_view line) = 0;
};

class Trace {
 public:
  // Folds the record into the hash and, with a sink, writes it as a line.
  void Record(TraceKind kind, uint64_t a, uint64_t b, std::string_view bytes = {});

  // The simulated monotonic time printed in front of lines (not hashed: clock moves are records).
  void set_now_us(int64_t now_us) { now_us_ = now_us; }
  void set_sink(TraceSink* sink) { sink_ = sink; }
  bool formatting() const { return sink_ != nullptr; }

  uint64_t hash() const { return hash_; }
  uint64_t records() const { return records_; }

 private:
  void Format(TraceKind kind, uint64_t a, uint64_t b, std::string_view bytes);

  TraceSink* sink_ = nullptr;
  uint64_t hash_ = 0x6b65656c2d73696dull;  // "keel-sim"
  uint64_t records_ = 0;
  int64_t now_us_ = 0;
  std::string line_;  // reused for formatting
};

// `bytes` with control and non-ASCII bytes escaped (\r \n \xNN), at most `bytes_max` of them
// followed by "...(N bytes)" when longer.
std::string EscapeBytes(std::string_view bytes, size_t bytes_max);

}  // namespace keel::sim
