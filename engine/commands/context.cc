#include "engine/commands/context.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "engine/base/numbers.h"

namespace keel {

void CommandContext::PropagateAs(std::initializer_list<std::string_view> args) {
  PropagateAs(std::span<const std::string_view>(args.begin(), args.size()));
}

void CommandContext::PropagateAs(std::span<const std::string_view> args) {
  if (!propagating()) return;
  CallFrame& frame = engine.current_call();
  frame.rewritten = true;
  frame.propagated_args.assign(args.begin(), args.end());
}

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

std::string WrongArityError(const CommandSpec& spec) {
  return "ERR wrong number of arguments for '" + spec.full_name + "' command";
}

namespace {

// printf's "%.128s" on a C string: at most 128 bytes, stopping at a NUL.
std::string_view CString(std::string_view text, size_t bytes_max) {
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) text = text.substr(0, nul);
  return text.substr(0, bytes_max);
}

}  // namespace

std::string UnknownSubcommandError(std::string_view container_as_typed, std::string_view sub) {
  std::string error = "ERR unknown subcommand '";
  error += CString(sub, 128);
  error += "'. Try ";
  error += AsciiUppercase(CString(container_as_typed, SIZE_MAX));
  error += " HELP.";
  return error;
}

std::string SubcommandSyntaxError(std::string_view command_as_typed, std::string_view sub) {
  std::string error = "ERR unknown subcommand or wrong number of arguments for '";
  error += CString(sub, 128);
  error += "'. Try ";
  error += AsciiUppercase(CString(command_as_typed, SIZE_MAX));
  error += " HELP.";
  return error;
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
  const uint64_t configured = static_cast<uint64_t>(context.engine.settings().proto_max_bulk_len);
  const uint64_t limit = std::min<uint64_t>(configured, UINT32_MAX);
  if (size > limit || append > limit - size) {
    context.reply.Error("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    return false;
  }
  return true;
}

bool ParseDbIndexArg(CommandContext& context, std::string_view text, int* index) {
  if (!ParseIntArg(context, text, "", index)) return false;
  if (*index < 0 || *index >= context.engine.database_count()) {
    context.reply.Error(errors::kDbIndexOutOfRange);
    return false;
  }
  return true;
}

bool OptionIs(std::string_view arg, std::string_view option) {
  const size_t nul = arg.find('\0');
  if (nul != std::string_view::npos) arg = arg.substr(0, nul);
  return EqualsIgnoreCase(arg, option);
}

}  // namespace keel
