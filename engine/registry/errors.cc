#include "engine/registry/errors.h"

#include <cstdint>

#include "engine/base/numbers.h"

namespace keel {

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

}  // namespace keel
