#include "engine/resp/resp_value.h"

#include <cstdlib>
#include <ostream>

#include "engine/base/numbers.h"

namespace keel {
namespace {

char TypeByte(RespType type) {
  switch (type) {
    case RespType::kSimpleString:
      return '+';
    case RespType::kError:
      return '-';
    case RespType::kInteger:
      return ':';
    case RespType::kBulkString:
      return '$';
    case RespType::kNullBulk:
      return '$';
    case RespType::kNullArray:
      return '*';
    case RespType::kArray:
      return '*';
    case RespType::kNull:
      return '_';
    case RespType::kBoolean:
      return '#';
    case RespType::kDouble:
      return ',';
    case RespType::kBigNumber:
      return '(';
    case RespType::kBlobError:
      return '!';
    case RespType::kVerbatim:
      return '=';
    case RespType::kMap:
      return '%';
    case RespType::kSet:
      return '~';
    case RespType::kAttribute:
      return '|';
    case RespType::kPush:
      return '>';
  }
  return '?';
}

bool IsMapLike(RespType type) { return type == RespType::kMap || type == RespType::kAttribute; }

bool IsValidDouble(std::string_view text) {
  if (text == "inf" || text == "-inf" || text == "nan" || text == "-nan") return true;
  if (text.empty() || text.size() > 400) return false;
  std::string copy(text);
  char* end = nullptr;
  std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && copy.find_first_of(" \t\r\n") == std::string::npos;
}

bool IsValidBigNumber(std::string_view text) {
  size_t i = (!text.empty() && text[0] == '-') ? 1 : 0;
  if (i >= text.size()) return false;
  for (; i < text.size(); i++) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

class Decoder {
 public:
  Decoder(std::string_view bytes, const DecodeLimits& limits) : bytes_(bytes), limits_(limits) {}

  DecodeStatus Value(RespValue* value, size_t depth) {
    if (depth > limits_.depth_max) return DecodeStatus::kInvalid;
    if (position_ >= bytes_.size()) return DecodeStatus::kIncomplete;
    const char type = bytes_[position_++];
    std::string_view line;
    DecodeStatus status = Line(&line);
    if (status != DecodeStatus::kOk) return status;
    switch (type) {
      case '+':
        return Text(RespType::kSimpleString, line, value);
      case '-':
        return Text(RespType::kError, line, value);
      case ',':
        if (!IsValidDouble(line)) return DecodeStatus::kInvalid;
        return Text(RespType::kDouble, line, value);
      case '(':
        if (!IsValidBigNumber(line)) return DecodeStatus::kInvalid;
        return Text(RespType::kBigNumber, line, value);
      case ':': {
        int64_t number = 0;
        if (!ParseStrictInt64(line, &number)) return DecodeStatus::kInvalid;
        value->type = RespType::kInteger;
        value->integer = number;
        return DecodeStatus::kOk;
      }
      case '_':
        if (!line.empty()) return DecodeStatus::kInvalid;
        value->type = RespType::kNull;
        return DecodeStatus::kOk;
      case '#':
        if (line != "t" && line != "f") return DecodeStatus::kInvalid;
        value->type = RespType::kBoolean;
        value->integer = line == "t" ? 1 : 0;
        return DecodeStatus::kOk;
      case '$':
        return Blob(RespType::kBulkString, line, value);
      case '!':
        return Blob(RespType::kBlobError, line, value);
      case '=':
        return Blob(RespType::kVerbatim, line, value);
      case '*':
        return Aggregate(RespType::kArray, line, value, depth);
      case '%':
        return Aggregate(RespType::kMap, line, value, depth);
      case '~':
        return Aggregate(RespType::kSet, line, value, depth);
      case '|':
        return Aggregate(RespType::kAttribute, line, value, depth);
      case '>':
        return Aggregate(RespType::kPush, line, value, depth);
      default:
        return DecodeStatus::kInvalid;
    }
  }

  size_t position() const { return position_; }

 private:
  DecodeStatus Line(std::string_view* line) {
    const size_t end = bytes_.find("\r\n", position_);
    if (end == std::string_view::npos) {
      // A lone '\n' or a '\r' followed by something else can never become a valid line end.
      const size_t newline = bytes_.find('\n', position_);
      if (newline != std::string_view::npos) return DecodeStatus::kInvalid;
      const size_t cr = bytes_.find('\r', position_);
      if (cr != std::string_view::npos && cr + 1 < bytes_.size()) return DecodeStatus::kInvalid;
      return DecodeStatus::kIncomplete;
    }
    *line = bytes_.substr(position_, end - position_);
    if (line->find('\n') != std::string_view::npos || line->find('\r') != std::string_view::npos) {
      return DecodeStatus::kInvalid;
    }
    position_ = end + 2;
    return DecodeStatus::kOk;
  }

  DecodeStatus Text(RespType type, std::string_view line, RespValue* value) {
    value->type = type;
    value->text.assign(line);
    return DecodeStatus::kOk;
  }

  DecodeStatus Blob(RespType type, std::string_view line, RespValue* value) {
    int64_t size = 0;
    if (!ParseStrictInt64(line, &size)) return DecodeStatus::kInvalid;
    if (size == -1 && type == RespType::kBulkString) {
      value->type = RespType::kNullBulk;
      return DecodeStatus::kOk;
    }
    if (size < 0 || size > limits_.bulk_bytes_max) return DecodeStatus::kInvalid;
    if (type == RespType::kVerbatim && (size < 4)) return DecodeStatus::kInvalid;
    const size_t length = static_cast<size_t>(size);
    if (bytes_.size() - position_ < length + 2) {
      return DecodeStatus::kIncomplete;
    }
    if (bytes_[position_ + length] != '\r' || bytes_[position_ + length + 1] != '\n') {
      return DecodeStatus::kInvalid;
    }
    value->type = type;
    value->text.assign(bytes_.substr(position_, length));
    if (type == RespType::kVerbatim && value->text[3] != ':') return DecodeStatus::kInvalid;
    position_ += length + 2;
    return DecodeStatus::kOk;
  }

  DecodeStatus Aggregate(RespType type, std::string_view line, RespValue* value, size_t depth) {
    int64_t count = 0;
    if (!ParseStrictInt64(line, &count)) return DecodeStatus::kInvalid;
    if (count == -1 && type == RespType::kArray) {
      value->type = RespType::kNullArray;
      return DecodeStatus::kOk;
    }
    if (count < 0 || count > limits_.elements_max) return DecodeStatus::kInvalid;
    const int64_t items = IsMapLike(type) ? count * 2 : count;
    value->type = type;
    value->elements.clear();
    for (int64_t i = 0; i < items; i++) {
      RespValue element;
      DecodeStatus status = Value(&element, depth + 1);
      if (status != DecodeStatus::kOk) return status;
      value->elements.push_back(std::move(element));
    }
    return DecodeStatus::kOk;
  }

  std::string_view bytes_;
  const DecodeLimits& limits_;
  size_t position_ = 0;
};

void AppendLength(std::string* out, char type, int64_t length) {
  out->push_back(type);
  out->append(Int64ToString(length));
  out->append("\r\n");
}

}  // namespace

RespValue RespValue::Simple(std::string_view text) {
  RespValue value;
  value.type = RespType::kSimpleString;
  value.text = text;
  return value;
}

RespValue RespValue::Error(std::string_view text) {
  RespValue value;
  value.type = RespType::kError;
  value.text = text;
  return value;
}

RespValue RespValue::Integer(int64_t number) {
  RespValue value;
  value.type = RespType::kInteger;
  value.integer = number;
  return value;
}

RespValue RespValue::Bulk(std::string_view text) {
  RespValue value;
  value.type = RespType::kBulkString;
  value.text = text;
  return value;
}

RespValue RespValue::Array(std::vector<RespValue> elements) {
  RespValue value;
  value.type = RespType::kArray;
  value.elements = std::move(elements);
  return value;
}

bool RespValue::is_aggregate() const {
  switch (type) {
    case RespType::kArray:
    case RespType::kMap:
    case RespType::kSet:
    case RespType::kAttribute:
    case RespType::kPush:
      return true;
    default:
      return false;
  }
}

bool RespValue::operator==(const RespValue& other) const {
  return type == other.type && text == other.text && integer == other.integer &&
         elements == other.elements;
}

std::string RespValue::ToString() const {
  switch (type) {
    case RespType::kSimpleString:
      return text;
    case RespType::kError:
      return "(error) " + text;
    case RespType::kInteger:
      return "(integer) " + Int64ToString(integer);
    case RespType::kBulkString:
      return "\"" + text + "\"";
    case RespType::kNullBulk:
    case RespType::kNullArray:
    case RespType::kNull:
      return "(nil)";
    case RespType::kBoolean:
      return integer ? "(true)" : "(false)";
    case RespType::kDouble:
      return "(double) " + text;
    case RespType::kBigNumber:
      return "(big number) " + text;
    case RespType::kBlobError:
      return "(blob error) " + text;
    case RespType::kVerbatim:
      return "(verbatim) " + text;
    default:
      break;
  }
  std::string result(1, TypeByte(type));
  result += "[";
  for (size_t i = 0; i < elements.size(); i++) {
    if (i > 0) result += ", ";
    result += elements[i].ToString();
  }
  result += "]";
  return result;
}

void EncodeResp(const RespValue& value, std::string* out) {
  const char type = TypeByte(value.type);
  switch (value.type) {
    case RespType::kSimpleString:
    case RespType::kError:
    case RespType::kDouble:
    case RespType::kBigNumber:
      out->push_back(type);
      out->append(value.text);
      out->append("\r\n");
      return;
    case RespType::kInteger:
      AppendLength(out, ':', value.integer);
      return;
    case RespType::kNullBulk:
      out->append("$-1\r\n");
      return;
    case RespType::kNullArray:
      out->append("*-1\r\n");
      return;
    case RespType::kNull:
      out->append("_\r\n");
      return;
    case RespType::kBoolean:
      out->append(value.integer ? "#t\r\n" : "#f\r\n");
      return;
    case RespType::kBulkString:
    case RespType::kBlobError:
    case RespType::kVerbatim:
      AppendLength(out, type, static_cast<int64_t>(value.text.size()));
      out->append(value.text);
      out->append("\r\n");
      return;
    case RespType::kArray:
    case RespType::kSet:
    case RespType::kPush:
    case RespType::kMap:
    case RespType::kAttribute: {
      const size_t count =
          IsMapLike(value.type) ? value.elements.size() / 2 : value.elements.size();
      AppendLength(out, type, static_cast<int64_t>(count));
      for (const RespValue& element : value.elements) EncodeResp(element, out);
      return;
    }
  }
}

std::string EncodeResp(const RespValue& value) {
  std::string out;
  EncodeResp(value, &out);
  return out;
}

DecodeStatus DecodeResp(std::string_view bytes, RespValue* value, size_t* consumed,
                        const DecodeLimits& limits) {
  Decoder decoder(bytes, limits);
  RespValue result;
  DecodeStatus status = decoder.Value(&result, 0);
  if (status == DecodeStatus::kOk) {
    *value = std::move(result);
    *consumed = decoder.position();
  }
  return status;
}

void PrintTo(const RespValue& value, std::ostream* out) { *out << value.ToString(); }

}  // namespace keel
