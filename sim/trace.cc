#include "sim/trace.h"

#include "engine/base/hash.h"
#include "engine/base/numbers.h"

namespace keel::sim {
namespace {

// Bytes of a record shown on its line; the hash always covers all of them.
constexpr size_t kLineBytesMax = 160;

}  // namespace

std::string_view TraceKindName(TraceKind kind) {
  switch (kind) {
    case TraceKind::kConnect:
      return "connect";
    case TraceKind::kAccept:
      return "accept";
    case TraceKind::kSend:
      return "send";
    case TraceKind::kRead:
      return "read";
    case TraceKind::kWrite:
      return "write";
    case TraceKind::kReceive:
      return "receive";
    case TraceKind::kServerClose:
      return "server-close";
    case TraceKind::kClientClose:
      return "client-close";
    case TraceKind::kReset:
      return "reset";
    case TraceKind::kClock:
      return "clock";
    case TraceKind::kWallJump:
      return "wall-jump";
    case TraceKind::kTimerLate:
      return "timer-late";
    case TraceKind::kRefusal:
      return "refusal";
    case TraceKind::kExecute:
      return "execute";
    case TraceKind::kReply:
      return "reply";
    case TraceKind::kPhase:
      return "phase";
    case TraceKind::kNote:
      return "note";
  }
  return "?";
}

void Trace::Record(TraceKind kind, uint64_t a, uint64_t b, std::string_view bytes) {
  records_++;
  const uint64_t fields[3] = {static_cast<uint64_t>(kind), a, b};
  hash_ = HashBytes(fields, sizeof(fields), hash_);
  if (!bytes.empty()) hash_ = HashBytes(bytes.data(), bytes.size(), hash_);
  if (sink_ != nullptr) Format(kind, a, b, bytes);
}

void Trace::Format(TraceKind kind, uint64_t a, uint64_t b, std::string_view bytes) {
  line_.clear();
  line_ += Int64ToString(now_us_);
  line_ += ' ';
  line_ += TraceKindName(kind);
  if (kind == TraceKind::kNote) {
    line_ += ' ';
    line_ += bytes;  // free text, shown whole
    sink_->WriteLine(line_);
    return;
  }
  switch (kind) {
    case TraceKind::kSend:
    case TraceKind::kRead:
    case TraceKind::kWrite:
    case TraceKind::kReceive:
      // A byte range of a stream: [offset, offset + size).
      line_ += " c" + Int64ToString(static_cast<int64_t>(a)) + " [" +
               Int64ToString(static_cast<int64_t>(b)) + "," +
               Int64ToString(static_cast<int64_t>(b + bytes.size())) + ")";
      break;
    case TraceKind::kClock:
    case TraceKind::kWallJump:
      line_ += " " + Int64ToString(static_cast<int64_t>(a)) + " " +
               Int64ToString(static_cast<int64_t>(b));
      break;
    case TraceKind::kExecute:
    case TraceKind::kReply:
      line_ += " c" + Int64ToString(static_cast<int64_t>(a)) + " #" +
               Int64ToString(static_cast<int64_t>(b));
      break;
    default:
      line_ += " " + Int64ToString(static_cast<int64_t>(a)) + " " +
               Int64ToString(static_cast<int64_t>(b));
      break;
  }
  if (!bytes.empty()) {
    line_ += " \"";
    line_ += EscapeBytes(bytes, kLineBytesMax);
    line_ += '"';
  }
  sink_->WriteLine(line_);
}

std::string EscapeBytes(std::string_view bytes, size_t bytes_max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t shown = bytes.size() < bytes_max ? bytes.size() : bytes_max;
  for (size_t i = 0; i < shown; i++) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (shown < bytes.size()) {
    out += "...(" + Int64ToString(static_cast<int64_t>(bytes.size())) + " bytes)";
  }
  return out;
}

}  // namespace keel::sim
