#include "engine/base/glob.h"

namespace keel {
namespace {

constexpr int kNestingMax = 1000;

// C's tolower in the "C" locale, on the signed char values Redis compares.
int Lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

class Matcher {
 public:
  explicit Matcher(bool nocase) : nocase_(nocase) {}

  bool Match(const char* pattern, int pattern_size, const char* text, int text_size, int nesting) {
    if (nesting > kNestingMax) return false;
    // Bytes past the end read as NUL, as they do in Redis's NUL-terminated sds strings.
    auto p = [&](int i) -> int {
      return i < pattern_size ? static_cast<signed char>(pattern[i]) : 0;
    };
    while (pattern_size > 0 && text_size > 0) {
      const int t = static_cast<signed char>(text[0]);
      switch (p(0)) {
        case '*': {
          while (pattern_size > 1 && p(1) == '*') {
            pattern++;
            pattern_size--;
          }
          if (pattern_size == 1) return true;
          while (text_size > 0) {
            if (Match(pattern + 1, pattern_size - 1, text, text_size, nesting + 1)) return true;
            if (skip_longer_matches_) return false;
            text++;
            text_size--;
          }
          skip_longer_matches_ = true;
          return false;
        }
        case '?':
          text++;
          text_size--;
          break;
        case '[': {
          pattern++;
          pattern_size--;
          const bool negate = p(0) == '^';
          if (negate) {
            pattern++;
            pattern_size--;
          }
          bool match = false;
          while (true) {
            if (p(0) == '\\' && pattern_size >= 2) {
              pattern++;
              pattern_size--;
              if (p(0) == t) match = true;
            } else if (p(0) == ']') {
              break;
            } else if (pattern_size == 0) {
              pattern--;
              pattern_size++;
              break;
            } else if (pattern_size >= 3 && p(1) == '-') {
              int start = p(0);
              int end = p(2);
              int c = t;
              if (start > end) {
                const int swap = start;
                start = end;
                end = swap;
              }
              if (nocase_) {
                start = Lower(start);
                end = Lower(end);
                c = Lower(c);
              }
              pattern += 2;
              pattern_size -= 2;
              if (c >= start && c <= end) match = true;
            } else if (nocase_ ? Lower(p(0)) == Lower(t) : p(0) == t) {
              match = true;
            }
            pattern++;
            pattern_size--;
          }
          if (negate) match = !match;
          if (!match) return false;
          text++;
          text_size--;
          break;
        }
        case '\\':
          if (pattern_size >= 2) {
            pattern++;
            pattern_size--;
          }
          [[fallthrough]];
        default:
          if (nocase_ ? Lower(p(0)) != Lower(t) : p(0) != t) return false;
          text++;
          text_size--;
          break;
      }
      pattern++;
      pattern_size--;
      if (text_size == 0) {
        while (pattern_size > 0 && p(0) == '*') {
          pattern++;
          pattern_size--;
        }
        break;
      }
    }
    return pattern_size == 0 && text_size == 0;
  }

 private:
  bool nocase_;
  bool skip_longer_matches_ = false;
};

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  // Redis takes int lengths; longer inputs cannot reach here (proto-max-bulk-len is below 2 GiB
  // unless raised, and then the match is refused rather than truncated).
  if (pattern.size() > 0x7fffffff || text.size() > 0x7fffffff) return false;
  Matcher matcher(nocase);
  return matcher.Match(pattern.data(), static_cast<int>(pattern.size()), text.data(),
                       static_cast<int>(text.size()), 0);
}

}  // namespace keel
