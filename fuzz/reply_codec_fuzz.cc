#include <string>

#include "engine/base/numbers.h"
#include "engine/resp/resp_value.h"
#include "fuzz/harnesses.h"

namespace keel::fuzz {
namespace {

// Reads bytes from the input as a stream of choices; past the end every choice is 0.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return position_ < size_ ? data_[position_++] : 0; }
  std::string Text(size_t length_max, bool line_safe) {
    const size_t length = Byte() % (length_max + 1);
    std::string text;
    for (size_t i = 0; i < length; i++) {
      char c = static_cast<char>(Byte());
      // Simple strings, errors, doubles and big numbers are lines: no CR or LF inside.
      if (line_safe && (c == '\r' || c == '\n')) c = ' ';
      text.push_back(c);
    }
    return text;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

RespValue BuildValue(Choices& choices, int depth) {
  RespValue value;
  const uint8_t kind = choices.Byte() % 17;
  switch (kind) {
    case 0:
      value.type = RespType::kSimpleString;
      value.text = choices.Text(16, true);
      break;
    case 1:
      value.type = RespType::kError;
      value.text = choices.Text(16, true);
      break;
    case 2: {
      // Bytes read one statement each: operands of one expression are read in an unspecified
      // order, and a corpus file must mean the same value to every compiler. Unsigned
      // arithmetic: subtracting from a value near INT64_MIN wraps instead of being undefined,
      // and the wrap still lands on the extremes the codec must carry.
      const uint64_t high = choices.Byte();
      const uint64_t middle = choices.Byte();
      const uint64_t low = choices.Byte();
      const uint64_t offset = choices.Byte() & 1 ? 1000 : 0;
      value.type = RespType::kInteger;
      value.integer = static_cast<int64_t>((high << 56 | middle << 8 | low) - offset);
      break;
    }
    case 3:
      value.type = RespType::kBulkString;
      value.text = choices.Text(40, false);
      break;
    case 4:
      value.type = RespType::kNullBulk;
      break;
    case 5:
      value.type = RespType::kNullArray;
      break;
    case 6:
      value.type = RespType::kNull;
      break;
    case 7:
      value.type = RespType::kBoolean;
      value.integer = choices.Byte() & 1;
      break;
    case 8: {
      static constexpr const char* kDoubles[] = {"1.5", "-0.25", "inf",   "-inf",
                                                 "nan", "3",     "1e+300"};
      value.type = RespType::kDouble;
      value.text = kDoubles[choices.Byte() % 7];
      break;
    }
    case 9: {
      const bool negative = choices.Byte() & 1;  // its own statement: see case 2
      value.type = RespType::kBigNumber;
      value.text =
          (negative ? "-" : "") + Int64ToString(choices.Byte() + 1) + "1234567890123456789012345";
      break;
    }
    case 10:
      value.type = RespType::kBlobError;
      value.text = choices.Text(20, false);
      break;
    case 11:
      value.type = RespType::kVerbatim;
      value.text = "txt:" + choices.Text(20, false);
      break;
    default: {
      static constexpr RespType kAggregates[] = {RespType::kArray, RespType::kMap, RespType::kSet,
                                                 RespType::kAttribute, RespType::kPush};
      value.type = kAggregates[(kind - 12) % 5];
      if (depth >= 4) {
        value.type = RespType::kArray;
        break;
      }
      size_t count = choices.Byte() % 5;
      if (value.type == RespType::kMap || value.type == RespType::kAttribute) count *= 2;
      for (size_t i = 0; i < count; i++) value.elements.push_back(BuildValue(choices, depth + 1));
      break;
    }
  }
  return value;
}

}  // namespace

void ReplyCodecOneInput(const uint8_t* data, size_t size) {
  // Property 1: any value built from the input survives encode then decode.
  Choices choices(data, size);
  const RespValue built = BuildValue(choices, 0);
  const std::string encoded = EncodeResp(built);
  RespValue decoded;
  size_t consumed = 0;
  FUZZ_CHECK(DecodeResp(encoded, &decoded, &consumed) == DecodeStatus::kOk);
  FUZZ_CHECK(consumed == encoded.size());
  FUZZ_CHECK(decoded == built);

  // Property 2: raw input that decodes re-encodes to exactly the bytes it consumed, and a
  // prefix of it never decodes to something else.
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  RespValue parsed;
  size_t parsed_size = 0;
  const DecodeStatus status = DecodeResp(raw, &parsed, &parsed_size);
  if (status == DecodeStatus::kOk) {
    FUZZ_CHECK(parsed_size <= raw.size());
    FUZZ_CHECK(EncodeResp(parsed) == raw.substr(0, parsed_size));
    if (parsed_size > 0) {
      RespValue partial;
      size_t partial_size = 0;
      FUZZ_CHECK(DecodeResp(raw.substr(0, parsed_size - 1), &partial, &partial_size) ==
                 DecodeStatus::kIncomplete);
    }
  }
}

}  // namespace keel::fuzz
