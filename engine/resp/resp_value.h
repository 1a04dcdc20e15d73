// RespValue: a decoded RESP2/RESP3 value, and the codec between values and bytes.
//
// The engine writes replies with ReplyBuilder and never builds values; this model is for the
// clients that read replies: unit tests, the simulator's clients and oracle, the conformance
// tools and the reply-codec fuzz harness. Scalars keep their exact wire text (a double stays
// "1.5", not a rounded binary), so Encode(Decode(bytes)) reproduces the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

enum class RespType : uint8_t {
  kSimpleString,  // +text
  kError,         // -text
  kInteger,       // :n
  kBulkString,    // $n text
  kNullBulk,      // $-1 (RESP2)
  kNullArray,     // *-1 (RESP2)
  kArray,         // *n
  kNull,          // _ (RESP3)
  kBoolean,       // #t / #f
  kDouble,        // ,text
  kBigNumber,     // (digits
  kBlobError,     // !n text
  kVerbatim,      // =n fmt:text (text holds "fmt:text")
  kMap,           // %n (elements hold 2n: key, value, ...)
  kSet,           // ~n
  kAttribute,     // |n (elements hold 2n), followed on the wire by the value it annotates
  kPush,          // >n
};

struct RespValue {
  RespType type = RespType::kNull;
  std::string text;                 // strings, errors, doubles, big numbers, verbatim
  int64_t integer = 0;              // kInteger; kBoolean as 0/1
  std::vector<RespValue> elements;  // aggregates

  static RespValue Simple(std::string_view text);
  static RespValue Error(std::string_view text);
  static RespValue Integer(int64_t value);
  static RespValue Bulk(std::string_view text);
  static RespValue Array(std::vector<RespValue> elements);

  bool is_aggregate() const;
  bool operator==(const RespValue& other) const;
  // A readable one-line form for test failures: ["OK", 1, (nil), ...].
  std::string ToString() const;
};

// Appends the wire form of `value` to `out`.
void EncodeResp(const RespValue& value, std::string* out);
std::string EncodeResp(const RespValue& value);

enum class DecodeStatus : uint8_t { kOk, kIncomplete, kInvalid };

struct DecodeLimits {
  size_t depth_max = 64;               // nesting of aggregates
  int64_t elements_max = 1 << 20;      // per aggregate
  int64_t bulk_bytes_max = 512 << 20;  // per bulk
};

// Decodes one value from the start of `bytes`. On kOk sets *consumed and *value.
DecodeStatus DecodeResp(std::string_view bytes, RespValue* value, size_t* consumed,
                        const DecodeLimits& limits = DecodeLimits());

// Lets GoogleTest print a RespValue in a failed assertion (found by argument-dependent lookup).
void PrintTo(const RespValue& value, std::ostream* out);

}  // namespace keel
