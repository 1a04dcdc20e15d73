#include "engine/resp/reply_builder.h"

#include <cstring>

namespace keel {

std::string_view ErrorCodeOf(std::string_view text) {
  // Redis (afterErrorReply) searches "-CODE ..." for a space within its first 32 bytes, the '-'
  // included: that is 31 bytes of our text, and a space at the very start gives an empty code. It
  // searches the sanitised text, where CR and LF have already become spaces.
  const size_t window = text.size() < 31 ? text.size() : 31;
  const size_t space = text.substr(0, window).find_first_of(" \r\n");
  if (space == std::string_view::npos) return "ERR";
  return text.substr(0, space);
}

void ReplyBuilder::Raw(std::string_view bytes) {
  if (muted_) return;
  out_.Append(bytes.data(), bytes.size());
}

void ReplyBuilder::Header(char type, uint64_t count) {
  if (muted_) return;
  char text[2 + kInt64TextMax + 2];
  text[0] = type;
  size_t length = 1 + FormatUint64(count, text + 1);
  text[length++] = '\r';
  text[length++] = '\n';
  out_.Append(text, length);
}

void ReplyBuilder::SignedHeader(char type, int64_t count) {
  if (muted_) return;
  char text[2 + kInt64TextMax + 2];
  text[0] = type;
  size_t length = 1 + FormatInt64(count, text + 1);
  text[length++] = '\r';
  text[length++] = '\n';
  out_.Append(text, length);
}

void ReplyBuilder::SimpleString(std::string_view text) {
  if (muted_) return;
  if (char* slot = out_.TryReserve(text.size() + 3)) {
    slot[0] = '+';
    if (!text.empty()) std::memcpy(slot + 1, text.data(), text.size());
    slot[text.size() + 1] = '\r';
    slot[text.size() + 2] = '\n';
    out_.Commit(text.size() + 3);
    return;
  }
  out_.Append("+", 1);
  out_.Append(text.data(), text.size());
  out_.Append("\r\n", 2);
}

void ReplyBuilder::Error(std::string_view text, bool count_in_stats) {
  // Redis's addReplyErrorFormat trims CR and LF from the ends of the text (the reply adds its
  // own), then turns the ones inside into spaces. Our texts start with the code, so only the end
  // can carry them.
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
  error_count_++;
  if (count_in_stats && error_observer_ != nullptr) {
    error_observer_->OnErrorReply(ErrorCodeOf(text));
  }
  if (muted_) return;
  out_.Append("-", 1);
  size_t start = 0;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '\r' || text[i] == '\n') {
      out_.Append(text.data() + start, i - start);
      out_.Append(" ", 1);
      start = i + 1;
    }
  }
  out_.Append(text.data() + start, text.size() - start);
  out_.Append("\r\n", 2);
}

void ReplyBuilder::Integer(int64_t value) { SignedHeader(':', value); }

void ReplyBuilder::Bulk(std::string_view value) {
  if (muted_) return;
  const size_t total = 1 + kInt64TextMax + 2 + value.size() + 2;
  char* slot = out_.TryReserve(total);
  if (slot == nullptr && value.size() < 4096) {
    // Start a fresh chunk rather than splitting a small reply across two.
    if (out_.EnsureContiguous(total)) slot = out_.TryReserve(total);
  }
  if (slot != nullptr) {
    size_t length = 0;
    slot[length++] = '$';
    length += FormatUint64(value.size(), slot + length);
    slot[length++] = '\r';
    slot[length++] = '\n';
    // An empty string_view may have a null data(); memcpy from null is undefined even for 0.
    if (!value.empty()) std::memcpy(slot + length, value.data(), value.size());
    length += value.size();
    slot[length++] = '\r';
    slot[length++] = '\n';
    out_.Commit(length);
    return;
  }
  Header('$', value.size());
  out_.Append(value.data(), value.size());
  out_.Append("\r\n", 2);
}

void ReplyBuilder::NullBulk() { Raw(resp_ >= 3 ? std::string_view("_\r\n") : "$-1\r\n"); }
void ReplyBuilder::NullArray() { Raw(resp_ >= 3 ? std::string_view("_\r\n") : "*-1\r\n"); }
void ReplyBuilder::ArrayHeader(size_t count) { Header('*', count); }
void ReplyBuilder::MapHeader(size_t pairs) {
  if (resp_ >= 3) {
    Header('%', pairs);
  } else {
    Header('*', pairs * 2);
  }
}
void ReplyBuilder::SetHeader(size_t count) { Header(resp_ >= 3 ? '~' : '*', count); }
void ReplyBuilder::PushHeader(size_t count) { Header(resp_ >= 3 ? '>' : '*', count); }

void ReplyBuilder::AttributeHeader(size_t pairs) {
  KEEL_ASSERT(resp_ >= 3);
  Header('|', pairs);
}

void ReplyBuilder::Double(double value) {
  char text[kDoubleTextMax];
  const size_t length = FormatDouble(value, text);
  if (resp_ >= 3) {
    if (muted_) return;
    out_.Append(",", 1);
    out_.Append(text, length);
    out_.Append("\r\n", 2);
  } else {
    Bulk(std::string_view(text, length));
  }
}

void ReplyBuilder::Boolean(bool value) {
  if (resp_ >= 3) {
    Raw(value ? std::string_view("#t\r\n") : "#f\r\n");
  } else {
    Raw(value ? std::string_view(":1\r\n") : ":0\r\n");
  }
}

void ReplyBuilder::BigNumber(std::string_view digits) {
  if (resp_ < 3) {
    Bulk(digits);
    return;
  }
  if (muted_) return;
  out_.Append("(", 1);
  out_.Append(digits.data(), digits.size());
  out_.Append("\r\n", 2);
}

void ReplyBuilder::Verbatim(std::string_view text, std::string_view format) {
  if (resp_ < 3) {
    Bulk(text);
    return;
  }
  KEEL_ASSERT(format.size() == 3);
  Header('=', text.size() + 4);
  if (muted_) return;
  out_.Append(format.data(), 3);
  out_.Append(":", 1);
  out_.Append(text.data(), text.size());
  out_.Append("\r\n", 2);
}

}  // namespace keel
