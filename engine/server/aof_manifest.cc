#include "engine/server/aof_manifest.h"

#include <cctype>

#include "engine/base/numbers.h"
#include "engine/resp/request_parser.h"
#include "engine/server/config_file.h"

namespace keel {
namespace {

// Redis's MANIFEST_MAX_LINE.
constexpr size_t kLineBytesMax = 1024;

// Redis's sdsneedsrepr: a name with any of these is written quoted.
bool NeedsQuoting(std::string_view name) {
  for (unsigned char c : name) {
    if (c == '\\' || c == '"' || !std::isprint(c) || std::isspace(c)) return true;
  }
  return false;
}

void AppendLine(std::string* out, const AofFileInfo& info) {
  out->append("file ");
  out->append(NeedsQuoting(info.name) ? QuoteConfigArg(info.name) : info.name);
  out->append(" seq ");
  out->append(Int64ToString(info.seq));
  out->append(" type ");
  out->push_back(info.type);
  out->push_back('\n');
}

// atoll's reading of a sequence number: leading digits, anything else ends it.
int64_t LeadingNumber(std::string_view text) {
  size_t at = 0;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) at++;
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
  int64_t value = 0;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); at++) {
    if (value > (INT64_MAX - 9) / 10) break;  // atoll overflows; a sequence never gets there
    value = value * 10 + (text[at] - '0');
  }
  return negative ? -value : value;
}

bool EqualsIgnoreCaseAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string AofManifest::Format() const {
  std::string text;
  if (base.has_value()) AppendLine(&text, *base);
  for (const AofFileInfo& info : history) AppendLine(&text, info);
  for (const AofFileInfo& info : incrs) AppendLine(&text, info);
  return text;
}

std::string AofManifest::NewBase(std::string_view filename, bool rdb) {
  if (base.has_value()) {
    base->type = 'h';
    history.insert(history.begin(), std::move(*base));
  }
  AofFileInfo info;
  info.seq = ++base_seq;
  info.name =
      std::string(filename) + "." + Int64ToString(info.seq) + ".base" + (rdb ? ".rdb" : ".aof");
  info.type = 'b';
  base = info;
  return info.name;
}

std::string AofManifest::NewIncr(std::string_view filename) {
  AofFileInfo info;
  info.seq = ++incr_seq;
  info.name = std::string(filename) + "." + Int64ToString(info.seq) + ".incr.aof";
  info.type = 'i';
  incrs.push_back(info);
  return info.name;
}

void AofManifest::MarkRewrittenIncrsAsHistory() {
  if (incrs.size() <= 1) return;
  // Redis walks them from the newest and puts each at the head of the history.
  for (size_t i = incrs.size() - 1; i-- > 0;) {
    AofFileInfo info = incrs[i];
    info.type = 'h';
    history.insert(history.begin(), std::move(info));
  }
  incrs.erase(incrs.begin(), incrs.end() - 1);
}

bool ParseAofManifest(std::string_view text, AofManifest* manifest, AofManifestError* error) {
  *manifest = AofManifest();
  *error = AofManifestError();
  int line_number = 0;
  int64_t max_incr_seq = 0;
  size_t at = 0;
  std::vector<std::string_view> words;
  std::string line;
  const auto fail = [&](std::string_view message, bool with_line) {
    error->message = std::string(message);
    if (with_line) {
      error->line_number = line_number;
      error->line = line;
    }
    return false;
  };
  if (text.empty()) return fail("Found an empty AOF manifest", false);
  while (at < text.size()) {
    // fgets reads at most kLineBytesMax bytes of a line at once.
    const size_t newline = text.find('\n', at);
    const size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    const size_t take = std::min(end - at, kLineBytesMax);
    std::string_view raw = text.substr(at, take);
    at += take;
    line_number++;
    if (raw.front() == '#') continue;
    if (raw.back() != '\n') {
      line.assign(raw);
      return fail("The AOF manifest file contains too long line", false);
    }
    // sdstrim(" \t\r\n").
    size_t first = 0;
    size_t last = raw.size();
    const auto trimmed = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (first < last && trimmed(raw[first])) first++;
    while (last > first && trimmed(raw[last - 1])) last--;
    line.assign(raw.substr(first, last - first));
    if (line.empty()) return fail("Invalid AOF manifest file format", true);
    std::string decoded = line;
    words.clear();
    if (!SplitArgsInPlace(decoded.data(), decoded.size(), &words) || words.size() < 6 ||
        words.size() % 2 != 0) {
      return fail("Invalid AOF manifest file format", true);
    }
    AofFileInfo info;
    info.type = '\0';
    for (size_t i = 0; i < words.size(); i += 2) {
      if (EqualsIgnoreCaseAscii(words[i], "file")) {
        info.name.assign(words[i + 1]);
        if (info.name.find('/') != std::string::npos) {
          return fail("File can't be a path, just a filename", true);
        }
      } else if (EqualsIgnoreCaseAscii(words[i], "seq")) {
        info.seq = LeadingNumber(words[i + 1]);
      } else if (EqualsIgnoreCaseAscii(words[i], "type")) {
        info.type = words[i + 1].empty() ? '\0' : words[i + 1][0];
      }
    }
    if (info.name.empty() || info.seq == 0 || info.type == '\0') {
      return fail("Invalid AOF manifest file format", true);
    }
    if (info.type == 'b') {
      if (manifest->base.has_value()) return fail("Found duplicate base file information", true);
      manifest->base_seq = info.seq;
      manifest->base = std::move(info);
    } else if (info.type == 'h') {
      manifest->history.push_back(std::move(info));
    } else if (info.type == 'i') {
      if (info.seq <= max_incr_seq) return fail("Found a non-monotonic sequence number", true);
      max_incr_seq = info.seq;
      manifest->incr_seq = info.seq;
      manifest->incrs.push_back(std::move(info));
    } else {
      return fail("Unknown AOF file type", true);
    }
  }
  return true;
}

}  // namespace keel
