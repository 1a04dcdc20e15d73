// ReplyBuilder: writes RESP2 or RESP3 replies into a client's OutputBuffer.
//
// Commands describe their reply in RESP3 terms (maps, sets, doubles, nulls, booleans, big
// numbers, verbatim strings, push) and the builder lowers them to RESP2 when the connection has
// not switched with HELLO 3, exactly as redis-server does: a map becomes a flat array of 2*n, a
// set an array, a double a bulk string, a boolean an integer, null a null bulk ($-1) or a null
// array (*-1) depending on which the command means. Attributes exist only in RESP3.
//
// The common replies (+OK, :n, $n bulk) are written straight into the tail chunk when it has room:
// no allocation and one length check per reply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/base/numbers.h"
#include "engine/resp/output_buffer.h"

namespace keel {

// Receives the code of every error reply ("ERR", "WRONGTYPE", ...) for INFO errorstats.
class ErrorObserver {
 public:
  virtual ~ErrorObserver() = default;
  virtual void OnErrorReply(std::string_view code) = 0;
};

class ReplyBuilder {
 public:
  explicit ReplyBuilder(OutputBuffer& out) : out_(out) {}

  int resp() const { return resp_; }
  void set_resp(int resp) { resp_ = resp; }
  void set_error_observer(ErrorObserver* observer) { error_observer_ = observer; }

  // While muted (CLIENT REPLY OFF/SKIP), replies are counted but not written.
  void set_muted(bool muted) { muted_ = muted; }
  bool muted() const { return muted_; }

  void Ok() { Raw("+OK\r\n"); }
  void SimpleString(std::string_view text);
  // `text` starts with the error code: "ERR unknown command ...", "WRONGTYPE Operation ...".
  // As Redis's addReplyErrorFormat does, carriage returns and newlines at the end are dropped and
  // those inside become spaces, so client bytes quoted in an error cannot break the protocol.
  void Error(std::string_view text) { Error(text, /*count_in_stats=*/true); }
  // Error, counted as an error of the command (error_count) but not in the error statistics when
  // `count_in_stats` is false: a script's error that was counted when the command inside it
  // failed (Redis's ERR_REPLY_FLAG_NO_STATS_UPDATE).
  void Error(std::string_view text, bool count_in_stats);
  void Integer(int64_t value);
  void Bulk(std::string_view value);
  void NullBulk();   // RESP2 "$-1", RESP3 "_"
  void NullArray();  // RESP2 "*-1", RESP3 "_"
  void ArrayHeader(size_t count);
  void EmptyArray() { ArrayHeader(0); }
  void MapHeader(size_t pairs);             // RESP2: an array of 2*pairs
  void SetHeader(size_t count);             // RESP2: an array
  void PushHeader(size_t count);            // RESP2: an array
  void AttributeHeader(size_t pairs);       // RESP3 only (callers check resp())
  void Double(double value);                // RESP2: bulk string in %.17g form
  void Boolean(bool value);                 // RESP2: :1 / :0
  void BigNumber(std::string_view digits);  // RESP2: bulk string
  // RESP3 "=len\r\ntxt:...": `format` is three characters ("txt", "mkd"). RESP2: bulk string.
  void Verbatim(std::string_view text, std::string_view format = "txt");
  // Preformatted protocol bytes.
  void Raw(std::string_view bytes);

  uint64_t error_count() const { return error_count_; }

 private:
  void Header(char type, uint64_t count);
  void SignedHeader(char type, int64_t count);

  OutputBuffer& out_;
  ErrorObserver* error_observer_ = nullptr;
  uint64_t error_count_ = 0;
  int resp_ = 2;
  bool muted_ = false;
};

// The error code of an error text as Redis counts it in errorstats: what precedes the first space
// (or CR or LF, which the reply turns into spaces) within the first 31 bytes, possibly empty; "ERR"
// when there is none.
std::string_view ErrorCodeOf(std::string_view text);

}  // namespace keel
