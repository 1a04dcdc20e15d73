#include "engine/server/config_file.h"

#include <cstdio>

#include "engine/base/numbers.h"
#include "engine/server/version.h"

namespace keel {
namespace {

constexpr int kIncludeDepthMax = 16;

// Directives Redis has retired but still accepts and ignores, with their accepted word counts
// (including the name).
struct RetiredDirective {
  std::string_view name;
  int words_min;
  int words_max;
};
constexpr RetiredDirective kRetired[] = {
    {"list-max-ziplist-entries", 2, 2},
    {"list-max-ziplist-value", 2, 2},
    {"lua-replicate-commands", 2, 2},
};

std::string_view TrimLine(std::string_view line) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && blank(line.back())) line.remove_suffix(1);
  return line;
}

}  // namespace

std::string ConfigLoadError::Report() const {
  std::string report = "\n*** FATAL CONFIG FILE ERROR (Redis ";
  report += kRedisCompatibleVersion;
  report += ") ***\n";
  if (line_number > 0) {
    report += "Reading the configuration file, at line " + Int64ToString(line_number) + "\n";
    report += ">>> '" + line + "'\n";
  }
  report += message + "\n";
  return report;
}

bool LoadConfigText(std::string_view text, Config* config, const ConfigFileReader& read_file,
                    ConfigLoadError* error, int include_depth) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  for (size_t index = 0; index < lines.size(); index++) {
    const std::string_view line = TrimLine(lines[index]);
    auto fail = [&](std::string message) {
      error->line_number = static_cast<int>(index + 1);
      error->line = std::string(line);
      error->message = std::move(message);
      return false;
    };
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> words;
    if (!SplitConfigArgs(line, &words)) return fail("Unbalanced quotes in configuration line");
    if (words.empty()) continue;
    const std::string name = AsciiLowercase(words[0]);
    if (const ConfigParam* param = Config::Find(name)) {
      const bool multi = (param->flags & kConfigMultiArg) != 0;
      if (!multi && words.size() != 2) return fail("wrong number of arguments");
      std::vector<std::string_view> values(words.begin() + 1, words.end());
      std::string message;
      if (!config->Set(*param, values, &message)) return fail(message);
    } else if (name == "include" && words.size() == 2) {
      if (include_depth >= kIncludeDepthMax) return fail("Too many nested includes");
      std::string content;
      if (!read_file(words[1], &content)) {
        return fail("Fatal error, can't open config file '" + words[1] + "'");
      }
      if (!LoadConfigText(content, config, read_file, error, include_depth + 1)) return false;
    } else {
      bool retired = false;
      for (const RetiredDirective& directive : kRetired) {
        const int count = static_cast<int>(words.size());
        retired |= name == directive.name && count >= directive.words_min &&
                   count <= directive.words_max;
      }
      if (!retired) return fail("Bad directive or wrong number of arguments");
    }
  }
  return true;
}

std::string QuoteConfigArg(std::string_view text) {
  std::string quoted = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '\\': quoted += "\\\\"; break;
      case '"': quoted += "\\\""; break;
      case '\n': quoted += "\\n"; break;
      case '\r': quoted += "\\r"; break;
      case '\t': quoted += "\\t"; break;
      case '\a': quoted += "\\a"; break;
      case '\b': quoted += "\\b"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          quoted += static_cast<char>(c);
        } else {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
          quoted += escaped;
        }
    }
  }
  quoted += '"';
  return quoted;
}

std::string CommandLineToConfigText(std::span<const std::string_view> args) {
  // Each "--name" starts a line; following words are its (quoted) arguments. A bare "--save"
  // followed by another option, or last, means save "" (Redis 7.0.1 kept that old behaviour).
  std::string text;
  bool last_option_has_argument = true;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string_view arg = args[i];
    if (last_option_has_argument && arg.size() >= 2 && arg[0] == '-' && arg[1] == '-') {
      if (!text.empty()) text += '\n';
      text.append(arg.substr(2));
      text += ' ';
      std::vector<std::string> words;
      if (SplitConfigArgs(arg, &words) && words.size() == 1) {
        last_option_has_argument = false;
        const bool next_is_option =
            i + 1 < args.size() && args[i + 1].size() >= 2 && args[i + 1].substr(0, 2) == "--";
        if (EqualsIgnoreCase(arg, "--save") && (next_is_option || i + 1 == args.size())) {
          text += "\"\"";
          last_option_has_argument = true;
        }
      } else {
        last_option_has_argument = true;
      }
    } else {
      text += QuoteConfigArg(arg);
      text += ' ';
      last_option_has_argument = true;
    }
  }
  return text;
}

}  // namespace keel
