// Splitting text at a separator byte, without copies.
#pragma once

#include <string_view>
#include <vector>

namespace keel {

// The pieces of `text` between `separator` bytes, empty pieces included ("a,,b" gives "a", "",
// "b"); no pieces for empty text. The views point into `text`.
inline std::vector<std::string_view> SplitOn(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  if (text.empty()) return pieces;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      pieces.push_back(text.substr(start));
      return pieces;
    }
    pieces.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace keel
