#include "engine/registry/key_extraction.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"

namespace keel {
namespace {

// C's atoi as glibc computes it for the texts that matter here: leading white space, a sign,
// then digits up to the first other byte (saturated instead of overflowing).
int64_t AtoiPrefix(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r'))) i++;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  int64_t value = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; i++) {
    value = value > INT32_MAX ? value : value * 10 + (text[i] - '0');
  }
  return negative ? -value : value;
}

}  // namespace

bool CommandHasKeys(const CommandSpec& spec) {
  if (spec.key_specs.empty()) return false;
  for (const KeySpec& key_spec : spec.key_specs) {
    if (!(key_spec.flags & kKeyNotKey)) return true;
  }
  return false;
}

bool ExtractKeys(const CommandSpec& spec, std::span<const std::string_view> args,
                 std::vector<KeyReference>* keys) {
  keys->clear();
  for (const KeySpec& key_spec : spec.key_specs) {
    if (key_spec.flags & kKeyVariableFlags) {
      // The specs' flags are not the flags of these arguments; ParseCommandDef guarantees a
      // finder for such a command.
      KEEL_ASSERT(spec.def != nullptr && spec.def->find_keys != nullptr);
      if (spec.def->find_keys(args, keys)) return true;
      keys->clear();
      return false;
    }
  }
  // A spec Redis cannot follow ("unknown": SORT's BY, GET and STORE) sends it to the command's
  // getkeys function, when it has one (getKeysFromCommandWithSpecs).
  const auto unknown_spec = [&] {
    keys->clear();
    return spec.def != nullptr && spec.def->find_keys != nullptr && spec.def->find_keys(args, keys);
  };
  const int argc = static_cast<int>(args.size());
  for (const KeySpec& key_spec : spec.key_specs) {
    if (key_spec.flags & kKeyNotKey) continue;
    int first = 0;
    if (key_spec.begin == KeySpec::Begin::kIndex) {
      first = key_spec.index;
    } else if (key_spec.begin == KeySpec::Begin::kKeyword) {
      const int start = key_spec.start_from > 0 ? key_spec.start_from : argc + key_spec.start_from;
      const int end = key_spec.start_from > 0 ? argc - 1 : 1;
      for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (EqualsIgnoreCase(args[static_cast<size_t>(i)], key_spec.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (first == 0) continue;  // keyword absent: this spec names no key
    } else {
      return unknown_spec();
    }
    int last = 0;
    int step = 1;
    if (key_spec.find == KeySpec::Find::kRange) {
      step = key_spec.key_step;
      if (key_spec.last_key >= 0) {
        last = first + key_spec.last_key;
      } else if (key_spec.limit == 0) {
        last = argc + key_spec.last_key;
      } else {
        last = first + ((argc - first) / key_spec.limit + key_spec.last_key);
      }
    } else if (key_spec.find == KeySpec::Find::kKeynum) {
      step = key_spec.key_step;
      const int count_index = first + key_spec.keynum_index;
      int64_t count = 0;
      if (key_spec.keynum_index >= argc || count_index >= argc) {
        keys->clear();
        return false;
      }
      if (!ParseStrictInt64(args[static_cast<size_t>(count_index)], &count) || count < 0 ||
          count > argc) {
        // Redis falls back to the command's getkeys function when the spec's count does not
        // parse; every command with a keynum spec has one, and they read the count with atoi
        // and take 1..(what follows) keys ("LMPOP 1e3 k left" names k).
        count = AtoiPrefix(args[static_cast<size_t>(count_index)]);
        const int first_key = first + key_spec.first_key;
        if (count < 1 || count > (argc - first_key) / std::max(key_spec.key_step, 1)) {
          keys->clear();
          return false;
        }
      }
      first += key_spec.first_key;
      last = first + static_cast<int>(count) - 1;
    } else {
      return unknown_spec();
    }
    if (last >= argc || last < first || first >= argc) {
      keys->clear();
      return false;
    }
    for (int i = first; i <= last; i += step) {
      keys->push_back({static_cast<size_t>(i), key_spec.flags});
    }
  }
  return true;
}

}  // namespace keel
