// GlobMatch: Redis 7.0's stringmatchlen (util.c), case-sensitive, written from its rules: the
// patterns of KEYS and SCAN MATCH.
#include <algorithm>
#include <utility>

#include "sim/model/model.h"

namespace keel::model {
namespace {

// The byte at `i`, or NUL past the end: Redis reads its patterns as NUL-terminated strings and
// looks one byte ahead at a few places.
char At(std::string_view text, size_t i) { return i < text.size() ? text[i] : '\0'; }

// Matches one bracket class starting after '[' at pattern[p] against `c`; sets *next to the
// index of the closing ']' (or of the last byte when the class is not closed, as Redis does).
bool MatchClass(std::string_view pattern, size_t p, char c, size_t* next) {
  const bool negate = At(pattern, p) == '^';
  if (negate) p++;
  bool match = false;
  while (true) {
    const size_t left = pattern.size() - std::min(p, pattern.size());
    if (At(pattern, p) == '\\' && left >= 2) {
      p++;
      if (pattern[p] == c) match = true;
    } else if (left > 0 && pattern[p] == ']') {
      break;
    } else if (left == 0) {
      p--;  // Redis steps back onto the last byte: the class ends the pattern.
      break;
    } else if (left >= 3 && pattern[p + 1] == '-') {
      // Signed chars, as Redis compares them; the range's ends may come in either order.
      int start = static_cast<signed char>(pattern[p]);
      int end = static_cast<signed char>(pattern[p + 2]);
      if (start > end) std::swap(start, end);
      const int value = static_cast<signed char>(c);
      p += 2;
      if (value >= start && value <= end) match = true;
    } else if (pattern[p] == c) {
      match = true;
    }
    p++;
  }
  *next = p;
  return negate ? !match : match;
}

bool Match(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  while (p < pattern.size() && t < text.size()) {
    switch (pattern[p]) {
      case '*': {
        while (p + 1 < pattern.size() && pattern[p + 1] == '*') p++;
        if (p + 1 == pattern.size()) return true;
        for (; t < text.size(); t++) {
          if (Match(pattern.substr(p + 1), text.substr(t))) return true;
        }
        return false;
      }
      case '?':
        t++;
        break;
      case '[': {
        size_t next = 0;
        if (!MatchClass(pattern, p + 1, text[t], &next)) return false;
        p = next;
        t++;
        break;
      }
      case '\\':
        if (pattern.size() - p >= 2) p++;
        [[fallthrough]];
      default:
        if (pattern[p] != text[t]) return false;
        t++;
        break;
    }
    p++;
    if (t == text.size()) {
      while (At(pattern, p) == '*') p++;
      break;
    }
  }
  return p >= pattern.size() && t == text.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) { return Match(pattern, text); }

}  // namespace keel::model
