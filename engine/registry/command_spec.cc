#include "engine/registry/command_spec.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "engine/base/numbers.h"

namespace keel {
namespace {

struct FlagName {
  uint32_t bit;
  std::string_view name;
  bool visible;
};

constexpr FlagName kCommandFlags[] = {
    {kCmdWrite, "write", true},
    {kCmdReadonly, "readonly", true},
    {kCmdDenyOom, "denyoom", true},
    {kCmdModule, "module", true},
    {kCmdAdmin, "admin", true},
    {kCmdPubsub, "pubsub", true},
    {kCmdNoScript, "noscript", true},
    {kCmdBlocking, "blocking", true},
    {kCmdLoading, "loading", true},
    {kCmdStale, "stale", true},
    {kCmdSkipMonitor, "skip_monitor", true},
    {kCmdSkipSlowlog, "skip_slowlog", true},
    {kCmdAsking, "asking", true},
    {kCmdFast, "fast", true},
    {kCmdNoAuth, "no_auth", true},
    {kCmdMayReplicate, "may_replicate", false},
    {kCmdSentinel, "sentinel", false},
    {kCmdOnlySentinel, "only_sentinel", false},
    {kCmdNoMandatoryKeys, "no_mandatory_keys", true},
    {kCmdProtected, "protected", false},
    {kCmdNoAsyncLoading, "no_async_loading", true},
    {kCmdNoMulti, "no_multi", true},
    {kCmdMovableKeys, "movablekeys", true},
    {kCmdAllowBusy, "allow_busy", true},
};

constexpr FlagName kAclCategories[] = {
    {kAclKeyspace, "keyspace", true},
    {kAclRead, "read", true},
    {kAclWrite, "write", true},
    {kAclSet, "set", true},
    {kAclSortedSet, "sortedset", true},
    {kAclList, "list", true},
    {kAclHash, "hash", true},
    {kAclString, "string", true},
    {kAclBitmap, "bitmap", true},
    {kAclHyperLogLog, "hyperloglog", true},
    {kAclGeo, "geo", true},
    {kAclStream, "stream", true},
    {kAclPubsub, "pubsub", true},
    {kAclAdmin, "admin", true},
    {kAclFast, "fast", true},
    {kAclSlow, "slow", true},
    {kAclBlocking, "blocking", true},
    {kAclDangerous, "dangerous", true},
    {kAclConnection, "connection", true},
    {kAclTransaction, "transaction", true},
    {kAclScripting, "scripting", true},
};

constexpr FlagName kKeySpecFlags[] = {
    {kKeyRO, "RO", true},
    {kKeyRW, "RW", true},
    {kKeyOW, "OW", true},
    {kKeyRM, "RM", true},
    {kKeyAccess, "access", true},
    {kKeyUpdate, "update", true},
    {kKeyInsert, "insert", true},
    {kKeyDelete, "delete", true},
    {kKeyNotKey, "not_key", true},
    {kKeyIncomplete, "incomplete", true},
    {kKeyVariableFlags, "variable_flags", true},
};

constexpr std::string_view kArgTypes[] = {"key",       "string",     "integer", "double", "pattern",
                                          "unix-time", "pure-token", "oneof",   "block"};

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') i++;
    size_t start = i;
    while (i < text.size() && text[i] != ' ') i++;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

template <size_t N>
bool ParseFlagWords(std::string_view text, const FlagName (&table)[N], uint32_t* bits,
                    std::string* error) {
  for (std::string_view word : Words(text)) {
    if (!word.empty() && word[0] == '@') word.remove_prefix(1);
    bool known = false;
    for (const FlagName& flag : table) {
      if (flag.name == word) {
        *bits |= flag.bit;
        known = true;
      }
    }
    if (!known) {
      *error = "unknown flag '" + std::string(word) + "'";
      return false;
    }
  }
  return true;
}

template <size_t N>
std::vector<std::string_view> FlagWords(uint32_t bits, const FlagName (&table)[N]) {
  std::vector<std::string_view> names;
  for (const FlagName& flag : table) {
    if ((bits & flag.bit) != 0 && flag.visible) names.push_back(flag.name);
  }
  return names;
}

bool ParseInt(std::string_view text, int* value) {
  int64_t parsed = 0;
  if (!ParseStrictInt64(text, &parsed) || parsed < INT_MIN || parsed > INT_MAX) return false;
  *value = static_cast<int>(parsed);
  return true;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

bool ParseKeySpec(std::string_view text, KeySpec* spec, std::string* error) {
  const size_t bar = text.find('|');
  if (bar != std::string_view::npos) {
    spec->notes = std::string(Trim(text.substr(bar + 1)));
    text = text.substr(0, bar);
  }
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    *error = "key spec without ':'";
    return false;
  }
  if (!ParseFlagWords(text.substr(0, colon), kKeySpecFlags, &spec->flags, error)) return false;
  std::vector<std::string_view> words = Words(text.substr(colon + 1));
  size_t i = 0;
  auto next_int = [&](int* value) { return i < words.size() && ParseInt(words[i++], value); };
  if (i < words.size() && words[i] == "index") {
    i++;
    spec->begin = KeySpec::Begin::kIndex;
    if (!next_int(&spec->index)) {
      *error = "bad 'index'";
      return false;
    }
  } else if (i < words.size() && words[i] == "keyword") {
    i++;
    spec->begin = KeySpec::Begin::kKeyword;
    if (i >= words.size()) {
      *error = "bad 'keyword'";
      return false;
    }
    spec->keyword = std::string(words[i++]);
    if (!next_int(&spec->start_from)) {
      *error = "bad 'keyword' start";
      return false;
    }
  } else if (i < words.size() && words[i] == "unknown") {
    i++;
  } else {
    *error = "bad begin_search";
    return false;
  }
  if (i < words.size() && words[i] == "range") {
    i++;
    spec->find = KeySpec::Find::kRange;
    if (!next_int(&spec->last_key) || !next_int(&spec->key_step) || !next_int(&spec->limit)) {
      *error = "bad 'range'";
      return false;
    }
  } else if (i < words.size() && words[i] == "keynum") {
    i++;
    spec->find = KeySpec::Find::kKeynum;
    if (!next_int(&spec->keynum_index) || !next_int(&spec->first_key) ||
        !next_int(&spec->key_step)) {
      *error = "bad 'keynum'";
      return false;
    }
  } else if (i < words.size() && words[i] == "unknown") {
    i++;
  } else {
    *error = "bad find_keys";
    return false;
  }
  if (i != words.size()) {
    *error = "trailing words in key spec";
    return false;
  }
  return true;
}

// Parses the argument notation (see command_def.h) recursively.
class ArgParser {
 public:
  explicit ArgParser(std::string_view text) : text_(text) {}

  bool ParseList(std::vector<ArgSpec>* args, bool nested, std::string* error) {
    while (true) {
      while (pos_ < text_.size() && text_[pos_] == ' ') pos_++;
      if (pos_ >= text_.size()) {
        if (nested) {
          *error = "missing '}'";
          return false;
        }
        return true;
      }
      if (text_[pos_] == '}') {
        if (!nested) {
          *error = "unexpected '}'";
          return false;
        }
        pos_++;
        return true;
      }
      ArgSpec arg;
      if (!ParseOne(&arg, error)) return false;
      args->push_back(std::move(arg));
    }
  }

 private:
  static bool IsSpecial(char c) {
    return c == ' ' || c == '{' || c == '}' || c == ':' || c == '=' || c == '@' || c == '#' ||
           c == '^';
  }

  std::string_view Field() {
    size_t start = pos_;
    while (pos_ < text_.size() && !IsSpecial(text_[pos_])) pos_++;
    return text_.substr(start, pos_ - start);
  }

  bool ParseOne(ArgSpec* arg, std::string* error) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '?') {
        arg->flags |= ArgSpec::kOptional;
      } else if (c == '*') {
        arg->flags |= ArgSpec::kMultiple;
      } else if (c == '+') {
        arg->flags |= ArgSpec::kMultipleToken;
      } else {
        break;
      }
      pos_++;
    }
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      // A quoted name may hold the notation's special characters ("ip:port").
      const size_t close = text_.find('\'', pos_ + 1);
      if (close == std::string_view::npos) {
        *error = "unterminated quoted name";
        return false;
      }
      arg->name = std::string(text_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
    } else {
      arg->name = std::string(Field());
    }
    if (arg->name.empty()) {
      *error = "argument without a name";
      return false;
    }
    while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '}') {
      const char c = text_[pos_++];
      if (c == ':') {
        arg->type = std::string(Field());
      } else if (c == '=') {
        if (pos_ < text_.size() && text_[pos_] == '\'') {
          // A quoted token may be one of the notation's special characters (XADD's "=").
          const size_t close = text_.find('\'', pos_ + 1);
          if (close == std::string_view::npos) {
            *error = "unterminated quoted token";
            return false;
          }
          arg->token = std::string(text_.substr(pos_ + 1, close - pos_ - 1));
          pos_ = close + 1;
        } else {
          arg->token = std::string(Field());
        }
      } else if (c == '@') {
        arg->since = std::string(Field());
      } else if (c == '^') {
        arg->deprecated_since = std::string(Field());
      } else if (c == '#') {
        if (!ParseInt(Field(), &arg->key_spec_index)) {
          *error = "bad key spec index";
          return false;
        }
      } else if (c == '{') {
        if (!ParseList(&arg->children, true, error)) return false;
      } else {
        *error = std::string("unexpected '") + c + "'";
        return false;
      }
    }
    if (arg->type.empty()) arg->type = arg->token.empty() ? "string" : "pure-token";
    if (std::find(std::begin(kArgTypes), std::end(kArgTypes), arg->type) == std::end(kArgTypes)) {
      *error = "unknown argument type '" + arg->type + "'";
      return false;
    }
    const bool container = arg->type == "oneof" || arg->type == "block";
    if (container == arg->children.empty()) {
      *error = "argument '" + arg->name + "': only oneof and block have nested arguments";
      return false;
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Redis's populateCommandLegacyRangeSpec: COMMAND INFO's first/last/step come from the key specs
// that are plain ranges, and any spec that is not makes the keys "movable".
void DeriveLegacyRange(CommandSpec* spec) {
  if (spec->key_specs.empty()) return;
  const KeySpec& only = spec->key_specs[0];
  if (spec->key_specs.size() == 1 && only.begin == KeySpec::Begin::kIndex &&
      only.find == KeySpec::Find::kRange) {
    spec->legacy_first_key = only.index;
    spec->legacy_last_key = only.last_key >= 0 ? only.last_key + only.index : only.last_key;
    spec->legacy_key_step = only.key_step;
    if (only.flags & kKeyIncomplete) spec->flags |= kCmdMovableKeys;
    return;
  }
  int first_key = INT_MAX;
  int last_key = 0;
  int previous_last_key = 0;
  for (const KeySpec& key_spec : spec->key_specs) {
    if (key_spec.begin != KeySpec::Begin::kIndex || key_spec.find != KeySpec::Find::kRange) {
      spec->flags |= kCmdMovableKeys;
      continue;
    }
    if (key_spec.key_step != 1 || (previous_last_key && previous_last_key != key_spec.index - 1)) {
      spec->flags |= kCmdMovableKeys;
      continue;
    }
    if (key_spec.flags & kKeyIncomplete) spec->flags |= kCmdMovableKeys;
    first_key = std::min(first_key, key_spec.index);
    int absolute_last = key_spec.last_key;
    if (absolute_last >= 0) absolute_last += key_spec.index;
    // Unsigned comparison, as Redis does, so that -1 ("the last argument") wins.
    last_key = static_cast<int>(
        std::max(static_cast<unsigned>(last_key), static_cast<unsigned>(absolute_last)));
    previous_last_key = last_key;
  }
  if (first_key == INT_MAX) {
    spec->flags |= kCmdMovableKeys;
    return;
  }
  spec->legacy_first_key = first_key;
  spec->legacy_last_key = last_key;  // already absolute (or negative)
  spec->legacy_key_step = 1;
}

// Redis's setImplicitACLCategories.
uint32_t ImpliedCategories(uint32_t flags, uint32_t categories) {
  if (flags & kCmdWrite) categories |= kAclWrite;
  if ((flags & kCmdReadonly) && !(categories & kAclScripting)) categories |= kAclRead;
  if (flags & kCmdAdmin) categories |= kAclAdmin | kAclDangerous;
  if (flags & kCmdPubsub) categories |= kAclPubsub;
  if (flags & kCmdFast) categories |= kAclFast;
  if (flags & kCmdBlocking) categories |= kAclBlocking;
  if (!(categories & kAclFast)) categories |= kAclSlow;
  return categories;
}

}  // namespace

const CommandSpec* CommandSpec::FindSubcommand(std::string_view sub_name) const {
  for (const auto& sub : subcommands) {
    if (EqualsIgnoreCase(sub->name, sub_name)) return sub.get();
  }
  return nullptr;
}

std::string ParseCommandDef(const CommandDef& def, CommandSpec* spec) {
  std::string error;
  spec->def = &def;
  spec->full_name = std::string(def.name);
  const size_t bar = def.name.find('|');
  spec->name = std::string(bar == std::string_view::npos ? def.name : def.name.substr(bar + 1));
  spec->arity = def.arity;
  spec->handler = def.handler;
  if (def.arity == 0) return "arity 0";
  if (!ParseFlagWords(def.flags, kCommandFlags, &spec->flags, &error)) return error;
  if (spec->flags & kCmdMovableKeys) return "movablekeys is derived, not written";
  uint32_t categories = 0;
  if (!ParseFlagWords(def.acl, kAclCategories, &categories, &error)) return error;
  spec->acl = ImpliedCategories(spec->flags, categories);
  size_t start = 0;
  while (start < def.keys.size()) {
    size_t end = def.keys.find(';', start);
    if (end == std::string_view::npos) end = def.keys.size();
    KeySpec key_spec;
    if (!ParseKeySpec(def.keys.substr(start, end - start), &key_spec, &error)) {
      return "key spec: " + error;
    }
    if ((key_spec.flags & kKeyVariableFlags) && def.find_keys == nullptr) {
      return "a variable_flags key spec needs find_keys";
    }
    spec->key_specs.push_back(std::move(key_spec));
    start = end + 1;
  }
  DeriveLegacyRange(spec);
  for (std::string_view tip : Words(def.tips)) spec->tips.emplace_back(tip);
  for (std::string_view flag : Words(def.doc_flags)) spec->doc_flags.emplace_back(flag);
  ArgParser parser(def.args);
  if (!parser.ParseList(&spec->args, false, &error)) return "args: " + error;
  start = 0;
  while (start < def.history.size()) {
    // An entry ends at a '|' that a version follows: a '|' inside the text ("the `BYTE|BIT`
    // option") stays in it.
    size_t end = def.history.find('|', start);
    while (end != std::string_view::npos &&
           (end + 1 >= def.history.size() || def.history[end + 1] < '0' ||
            def.history[end + 1] > '9')) {
      end = def.history.find('|', end + 1);
    }
    if (end == std::string_view::npos) end = def.history.size();
    std::string_view entry = Trim(def.history.substr(start, end - start));
    const size_t space = entry.find(' ');
    if (space == std::string_view::npos) return "history entry without text";
    spec->history.emplace_back(std::string(entry.substr(0, space)),
                               std::string(entry.substr(space + 1)));
    start = end + 1;
  }
  return "";
}

std::vector<std::string_view> CommandFlagNames(uint32_t flags) {
  return FlagWords(flags, kCommandFlags);
}

std::vector<std::string_view> AclCategoryNames(uint32_t categories) {
  return FlagWords(categories, kAclCategories);
}

std::vector<std::string_view> KeySpecFlagNames(uint32_t flags) {
  return FlagWords(flags, kKeySpecFlags);
}

uint32_t AclCategoryFromName(std::string_view name) {
  for (const FlagName& category : kAclCategories) {
    if (EqualsIgnoreCase(category.name, name)) return category.bit;
  }
  return 0;
}

}  // namespace keel
