#include "engine/commands/context.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/base/numbers.h"

namespace keel {

void PropagateAsDel(CommandContext& context, std::string_view key, bool lazy) {
  context.PropagateAs({lazy ? "UNLINK" : "DEL", key});
}

void PropagateAsPexpireat(CommandContext& context, std::string_view key, int64_t at_ms,
                          std::span<const std::string_view> options) {
  if (!context.propagating()) return;
  char text[kInt64TextMax];
  const size_t length = FormatInt64(at_ms, text);
  std::vector<std::string_view> args = {"PEXPIREAT", key, std::string_view(text, length)};
  args.insert(args.end(), options.begin(), options.end());
  context.PropagateAs(args);
}

bool ParseIntArg(CommandContext& context, std::string_view text, std::string_view error,
                 int* value) {
  int64_t number = 0;
  if (!ParseStrictInt64(text, &number)) {
    context.reply.Error(error.empty() ? errors::kNotInteger : error);
    return false;
  }
  if (number < INT_MIN || number > INT_MAX) {
    context.reply.Error(error.empty()
                            ? "ERR value is out of range, value must between -2147483648 and "
                              "2147483647"
                            : error);
    return false;
  }
  *value = static_cast<int>(number);
  return true;
}

bool CheckStringLength(CommandContext& context, uint64_t size, uint64_t append) {
  const uint64_t configured = static_cast<uint64_t>(context.config().proto_max_bulk_len);
  const uint64_t limit = std::min<uint64_t>(configured, UINT32_MAX);
  if (size > limit || append > limit - size) {
    context.reply.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    return false;
  }
  return true;
}

bool ParseDbIndexArg(CommandContext& context, std::string_view text, int* index) {
  if (!ParseIntArg(context, text, "", index)) return false;
  if (*index < 0 || *index >= context.database_count()) {
    context.reply.Error(errors::kDbIndexOutOfRange);
    return false;
  }
  return true;
}

bool ParseScanCursor(std::string_view text, uint64_t* cursor) {
  const std::string c_text(text.substr(0, text.find('\0')));
  const char first = c_text.empty() ? '\0' : c_text[0];
  if (first == ' ' || (first >= '\t' && first <= '\r')) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(c_text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
  *cursor = value;
  return true;
}

bool OptionIs(std::string_view arg, std::string_view option) {
  const size_t nul = arg.find('\0');
  if (nul != std::string_view::npos) arg = arg.substr(0, nul);
  return EqualsIgnoreCase(arg, option);
}

bool ParseBlockTimeout(CommandContext& context, std::string_view text, int64_t* timeout_ms) {
  long double seconds = 0;
  if (!ParseLongDouble(text, &seconds)) {
    context.reply.Error("ERR timeout is not a float or out of range");
    return false;
  }
  const long double ms = std::ceil(seconds * 1000.0L);
  // Redis converts to long long as the x86-64 instruction does: a value beyond its range (inf
  // included) becomes LLONG_MIN, so it is refused as negative. -0.0001 rounds up to 0: forever.
  constexpr long double kInt64End = 9223372036854775808.0L;  // 2^63
  if (!(ms >= -kInt64End && ms < kInt64End) || ms < 0) {
    context.reply.Error("ERR timeout is negative");
    return false;
  }
  *timeout_ms = static_cast<int64_t>(ms);
  return true;
}

bool ParseMillisecondTimeout(CommandContext& context, std::string_view text, int64_t* timeout_ms) {
  if (!ParseStrictInt64(text, timeout_ms)) {
    context.reply.Error("ERR timeout is not an integer or out of range");
    return false;
  }
  if (*timeout_ms < 0) {
    context.reply.Error("ERR timeout is negative");
    return false;
  }
  return true;
}

}  // namespace keel
