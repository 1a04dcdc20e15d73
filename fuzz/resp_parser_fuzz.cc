#include <cstring>
#include <string>
#include <vector>

#include "engine/resp/request_parser.h"
#include "fuzz/harnesses.h"

namespace keel::fuzz {
namespace {

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  std::string error;  // empty when no protocol error
  bool operator==(const Outcome& other) const {
    return commands == other.commands && error == other.error;
  }
};

// Feeds `input` to a parser in chunks whose sizes come from `splits` (cycled), the way the server
// does: unconsumed bytes stay at the front of the buffer, new bytes are appended after them.
Outcome ParseInChunks(std::string_view input, std::string_view splits, bool authenticated) {
  Outcome outcome;
  RequestParser parser;
  const ParserLimits limits{1 << 20, authenticated};
  std::string buffer;
  size_t fed = 0;
  size_t split_index = 0;
  while (true) {
    // Parse everything complete in the buffer.
    size_t position = 0;
    while (position < buffer.size()) {
      size_t consumed = 0;
      const ParseResult result =
          parser.Parse(buffer.data() + position, buffer.size() - position, limits, &consumed);
      FUZZ_CHECK(consumed <= buffer.size() - position);
      if (result == ParseResult::kIncomplete) {
        FUZZ_CHECK(consumed == 0);
        break;
      }
      if (result == ParseResult::kError) {
        outcome.error = parser.error();
        FUZZ_CHECK(!outcome.error.empty());
        return outcome;
      }
      FUZZ_CHECK(consumed > 0);
      if (result == ParseResult::kCommand) {
        std::vector<std::string> args;
        for (std::string_view arg : parser.args()) {
          FUZZ_CHECK(arg.data() >= buffer.data() + position);
          FUZZ_CHECK(arg.data() + arg.size() <= buffer.data() + position + consumed);
          args.emplace_back(arg);
        }
        FUZZ_CHECK(!args.empty());
        outcome.commands.push_back(std::move(args));
      }
      position += consumed;
    }
    buffer.erase(0, position);
    if (fed == input.size()) return outcome;
    size_t chunk = input.size() - fed;
    if (!splits.empty()) {
      chunk = 1 + static_cast<unsigned char>(splits[split_index++ % splits.size()]) % 64;
      if (chunk > input.size() - fed) chunk = input.size() - fed;
    }
    buffer.append(input.substr(fed, chunk));
    fed += chunk;
  }
}

}  // namespace

void RespParserOneInput(const uint8_t* data, size_t size) {
  // Layout: [flags][split count N][N split bytes][payload]. Short inputs are all payload.
  std::string_view input(reinterpret_cast<const char*>(data), size);
  bool authenticated = true;
  std::string_view splits;
  if (input.size() >= 2) {
    authenticated = (input[0] & 1) == 0;
    const size_t count = static_cast<unsigned char>(input[1]) % 16;
    if (input.size() >= 2 + count) {
      splits = input.substr(2, count);
      input.remove_prefix(2 + count);
    }
  }
  const Outcome whole = ParseInChunks(input, {}, authenticated);
  const Outcome chunked = ParseInChunks(input, splits, authenticated);
  const Outcome bytewise = ParseInChunks(input, std::string_view("\0", 1), authenticated);
  FUZZ_CHECK(whole == chunked);
  FUZZ_CHECK(whole == bytewise);
}

}  // namespace keel::fuzz
