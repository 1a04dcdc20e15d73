#include "engine/db/notify.h"

namespace keel {
namespace {

struct ClassLetter {
  char letter;
  uint32_t type_class;
};

constexpr ClassLetter kLetters[] = {
    {'K', kNotifyKeyspace}, {'E', kNotifyKeyevent}, {'g', kNotifyGeneric}, {'$', kNotifyString},
    {'l', kNotifyList},     {'s', kNotifySet},      {'h', kNotifyHash},    {'z', kNotifyZset},
    {'x', kNotifyExpired},  {'e', kNotifyEvicted},  {'t', kNotifyStream},  {'m', kNotifyKeyMiss},
    {'d', kNotifyModule},   {'n', kNotifyNew},
};

}  // namespace

uint32_t NotifyClassesFromFlags(std::string_view flags) {
  uint32_t classes = 0;
  for (char c : flags) {
    if (c == 'A') {
      classes |= kNotifyAll;
      continue;
    }
    for (const ClassLetter& entry : kLetters) {
      if (entry.letter == c) classes |= entry.type_class;
    }
  }
  return classes;
}

char NotifyClassLetter(uint32_t type_class) {
  for (const ClassLetter& entry : kLetters) {
    if (entry.type_class == type_class) return entry.letter;
  }
  return 0;
}

}  // namespace keel
