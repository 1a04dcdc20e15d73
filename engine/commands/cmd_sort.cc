// SORT and SORT_RO (Redis's sort.c): the elements of a list, set or sorted set, sorted as
// numbers or (ALPHA) as strings, by themselves or by the values of other keys (BY pattern,
// where '*' stands for the element and "->field" names a hash field), with LIMIT, ASC/DESC,
// GET patterns (and '#', the element itself) and, for SORT, STORE into a list.
//
// Every rule follows sortCommandGeneric, including its corners: a BY pattern without '*' does
// not sort (a list or sorted set keeps its order, DESC reverses it; a set is sorted as ALPHA
// when STOREd, so that the stored list does not depend on the set's layout); a missing BY value
// sorts as 0 (or first, with ALPHA); equal numbers are ordered by their elements' bytes; a
// value that is not a number fails the whole command after the sort. Strings compare as
// strcoll in the C locale (up to a NUL byte) in replies and as binary strings when STOREd, as
// Redis compares them.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/assert.h"
#include "engine/commands/cmd_hash_common.h"
#include "engine/commands/cmd_set_common.h"
#include "engine/commands/cmd_zset_common.h"
#include "engine/commands/list_access.h"

namespace keel {
namespace {

inline constexpr KeyEvent kSortstore{kNotifyList, "sortstore"};

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::optional<std::string_view> by;
  std::optional<std::string_view> store;
  std::vector<std::string_view> gets;
  bool dont_sort = false;
};

// sortCommandGeneric's option loop; false after replying with the error.
bool ParseSortOptions(CommandContext& context, bool read_only, SortOptions* options) {
  for (size_t i = 2; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const size_t left = context.argc() - i - 1;
    if (OptionIs(option, "asc")) {
      options->desc = false;
    } else if (OptionIs(option, "desc")) {
      options->desc = true;
    } else if (OptionIs(option, "alpha")) {
      options->alpha = true;
    } else if (OptionIs(option, "limit") && left >= 2) {
      if (!ParseStrictInt64(context.arg(i + 1), &options->limit_start) ||
          !ParseStrictInt64(context.arg(i + 2), &options->limit_count)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      i += 2;
    } else if (!read_only && OptionIs(option, "store") && left >= 1) {
      options->store = context.arg(++i);
    } else if (OptionIs(option, "by") && left >= 1) {
      options->by = context.arg(++i);
      // A pattern without '*' names the same key for every element: nothing to sort by.
      options->dont_sort = options->by->find('*') == std::string_view::npos;
    } else if (OptionIs(option, "get") && left >= 1) {
      options->gets.push_back(context.arg(++i));
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// lookupKeyByPattern: the value `pattern` names for `element` ("#": the element; no '*': none;
// "prefix*postfix->field": a field of a hash; otherwise a string key), or nullopt.
std::optional<std::string> LookupByPattern(CommandContext& context, std::string_view pattern,
                                           std::string_view element) {
  if (pattern == "#") return std::string(element);
  // Redis reads the pattern as a C string: bytes after a NUL are not part of it.
  pattern = pattern.substr(0, pattern.find('\0'));
  const size_t star = pattern.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  std::string_view field;
  size_t key_end = pattern.size();
  const size_t arrow = pattern.find("->", star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pattern.size()) {
    field = pattern.substr(arrow + 2);
    key_end = arrow;
  }
  std::string key;
  key.reserve(key_end + element.size());
  key.append(pattern.substr(0, star));
  key.append(element);
  key.append(pattern.substr(star + 1, key_end - star - 1));
  const Entry* entry = context.keyspace.Lookup(context.db_index(), key);
  if (entry == nullptr) return std::nullopt;
  if (!field.empty()) {
    if (entry->type() != ValueType::kHash) return std::nullopt;
    std::string_view value;
    if (!HashOf(*entry).Get(field, &value)) return std::nullopt;
    return std::string(value);
  }
  if (entry->type() != ValueType::kString) return std::nullopt;
  return std::string(entry->value());
}

// Redis's strtod over the value as a C string: the whole text up to a NUL a number, neither NaN
// nor out of range (inf and hex floats are numbers; "" is 0).
bool ParseSortScore(std::string_view text, double* score) {
  const std::string c_string(text.substr(0, text.find('\0')));
  char* end = nullptr;
  errno = 0;
  *score = std::strtod(c_string.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*score);
}

// strcoll in the C locale: unsigned bytes up to the first NUL.
int CollateCStrings(std::string_view a, std::string_view b) {
  a = a.substr(0, a.find('\0'));
  b = b.substr(0, b.find('\0'));
  return a.compare(b);
}

int CompareBinary(std::string_view a, std::string_view b) {
  const int cmp = a.compare(b);
  return cmp < 0 ? -1 : (cmp > 0 ? 1 : 0);
}

struct SortItem {
  std::string element;
  double score = 0;
  std::optional<std::string> by_value;  // ALPHA with BY: what the element sorts by
};

// sortCompare.
int CompareItems(const SortItem& a, const SortItem& b, const SortOptions& options, bool by) {
  int cmp = 0;
  if (!options.alpha) {
    if (a.score > b.score) {
      cmp = 1;
    } else if (a.score < b.score) {
      cmp = -1;
    } else {
      cmp = CompareBinary(a.element, b.element);
    }
  } else if (by) {
    if (!a.by_value || !b.by_value) {
      cmp = a.by_value.has_value() == b.by_value.has_value() ? 0 : (a.by_value ? 1 : -1);
    } else {
      cmp = options.store ? CompareBinary(*a.by_value, *b.by_value)
                          : CollateCStrings(*a.by_value, *b.by_value);
    }
  } else {
    cmp =
        options.store ? CompareBinary(a.element, b.element) : CollateCStrings(a.element, b.element);
  }
  return options.desc ? -cmp : cmp;
}

// The elements of `entry` (a list, set or sorted set) to sort: all of them, or, when there is
// nothing to sort in a list or sorted set, only [start, end] in the order the reply takes
// (which then starts at 0).
std::vector<SortItem> LoadItems(const Entry* entry, const SortOptions& options, int64_t* start,
                                int64_t* end) {
  std::vector<SortItem> items;
  const auto add = [&](std::string_view element) {
    items.push_back(SortItem{std::string(element), 0, std::nullopt});
  };
  if (entry == nullptr) return items;
  const bool range_only = options.dont_sort && entry->type() != ValueType::kSet;
  const size_t first = range_only ? static_cast<size_t>(*start) : 0;
  const size_t count =
      range_only ? (*end >= *start ? static_cast<size_t>(*end - *start + 1) : 0) : 0;
  switch (entry->type()) {
    case ValueType::kList: {
      const List& list = *ListOf(entry);
      if (!range_only) {
        list.ForEachElement(add);
        break;
      }
      // From `first` on towards the tail, or (DESC) from the `first`-th last towards the head.
      if (count == 0) break;
      List::Position at = list.Seek(options.desc ? list.size() - first - 1 : first);
      listpack::Element element;
      for (size_t i = 0; i < count; i++) {
        if (i > 0 && !(options.desc ? list.Previous(&at) : list.Next(&at))) break;
        list.Read(at, &element);
        add(element.view());
      }
      break;
    }
    case ValueType::kSet:
      SetOf(*entry).ForEach(add);
      break;
    case ValueType::kZSet:
      if (range_only) {
        ZsetOf(*entry).ForRange(first, count, options.desc,
                                [&](std::string_view member, double) { add(member); });
      } else {
        ZsetOf(*entry).ForEach([&](std::string_view member, double) { add(member); });
      }
      break;
    default:
      break;
  }
  if (range_only) {
    *end -= *start;
    *start = 0;
  }
  return items;
}

// Redis's sortCommandGeneric "destructively" converts a listpack sorted set to a skiplist before
// reading it, whatever the options (OBJECT ENCODING shows it; no change is announced). Keel
// builds the skiplist first and puts it in place once the command has succeeded (or failed as
// Redis fails after converting), so that memory refused anywhere leaves the set as it was.
class ZsetConversion {
 public:
  ZsetConversion() = default;
  ZsetConversion(const ZsetConversion&) = delete;
  ZsetConversion& operator=(const ZsetConversion&) = delete;
  ~ZsetConversion() {
    if (skiplist_ != nullptr) ZsetValue::Destroy(skiplist_, *memory_);
  }

  // False when memory is refused.
  bool Prepare(CommandContext& context, const ZsetValue& zset) {
    memory_ = &context.memory();
    original_ = &zset;
    skiplist_ = ZsetValue::Clone(zset, *memory_);
    if (skiplist_ != nullptr && skiplist_->ConvertToSkiplist(*memory_)) return true;
    if (skiplist_ != nullptr) ZsetValue::Destroy(skiplist_, *memory_);
    skiplist_ = nullptr;
    return false;
  }

  // Puts the skiplist in place of the set it was built from, if the key still holds that set
  // (SORT k STORE k replaced it; a BY or GET lookup may have moved its entry).
  void Install(CommandContext& context) {
    if (skiplist_ == nullptr) return;
    const int db = context.db_index();
    const std::string_view key = context.arg(1);
    const Entry* found =
        context.keyspace.database(db).FindConst(key, context.keyspace.Hash(db, key));
    if (found == nullptr || found->type() != ValueType::kZSet || &ZsetOf(*found) != original_) {
      return;
    }
    Entry* entry = context.keyspace.LookupWrite(db, key, kLookupNoTouch);
    KEEL_ASSERT(entry != nullptr);
    ZsetValue* replaced = &MutableZsetOf(*entry);
    SetEntryObject(*entry, skiplist_);
    skiplist_ = nullptr;
    ZsetValue::Destroy(replaced, *memory_);
    SyncZsetEncoding(*entry);
  }

 private:
  MemoryAccountant* memory_ = nullptr;
  const ZsetValue* original_ = nullptr;
  ZsetValue* skiplist_ = nullptr;
};

void Sort(CommandContext& context, bool read_only) {
  SortOptions options;
  if (!ParseSortOptions(context, read_only, &options)) return;
  const int db = context.db_index();
  const Entry* entry = context.keyspace.Lookup(db, context.arg(1));
  if (entry != nullptr && entry->type() != ValueType::kSet && entry->type() != ValueType::kList &&
      entry->type() != ValueType::kZSet) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  // A set's own order is its layout's: a stored result is sorted so that it does not depend on it.
  if (options.dont_sort && entry != nullptr && entry->type() == ValueType::kSet && options.store) {
    options.dont_sort = false;
    options.alpha = true;
    options.by.reset();
  }
  ZsetConversion conversion;
  if (entry != nullptr && entry->type() == ValueType::kZSet && ZsetOf(*entry).is_listpack() &&
      !conversion.Prepare(context, ZsetOf(*entry))) {
    context.reply.Error(errors::kOom);
    return;
  }
  int64_t length = 0;
  if (entry != nullptr) {
    length = static_cast<int64_t>(entry->type() == ValueType::kList  ? ListOf(entry)->size()
                                  : entry->type() == ValueType::kSet ? SetOf(*entry).size()
                                                                     : ZsetOf(*entry).size());
  }
  // The LIMIT clamps of sortCommandGeneric.
  int64_t start = std::min(std::max<int64_t>(options.limit_start, 0), length);
  const int64_t limit_count = std::min(std::max<int64_t>(options.limit_count, -1), length);
  int64_t end = limit_count < 0 ? length - 1 : start + limit_count - 1;
  if (start >= length) {
    start = length - 1;
    end = length - 2;
  }
  if (end >= length) end = length - 1;

  // The elements are copied out before any BY or GET lookup, which may reclaim expired keys and
  // so move entries: `entry` is not used after this.
  std::vector<SortItem> items = LoadItems(entry, options, &start, &end);
  const bool source_is_set = entry != nullptr && entry->type() == ValueType::kSet;
  bool not_a_number = false;
  if (!options.dont_sort) {
    for (SortItem& item : items) {
      std::optional<std::string> by_value;
      if (options.by) {
        by_value = LookupByPattern(context, *options.by, item.element);
        if (!by_value) continue;  // a missing value sorts as 0 (or first, with ALPHA)
      }
      if (options.alpha) {
        if (options.by) item.by_value = std::move(by_value);
      } else if (!ParseSortScore(options.by ? *by_value : item.element, &item.score)) {
        not_a_number = true;
      }
    }
    const bool by = options.by.has_value();
    // Elements that compare equal (ALPHA BY values alike, or missing) keep the order they came
    // in: a list's or a sorted set's, and for a set, whose table order Redis leaves unspecified,
    // the order of the members' bytes, so that the reply does not depend on the table.
    if (source_is_set) {
      std::sort(items.begin(), items.end(),
                [](const SortItem& a, const SortItem& b) { return a.element < b.element; });
    }
    std::stable_sort(items.begin(), items.end(), [&](const SortItem& a, const SortItem& b) {
      return CompareItems(a, b, options, by) < 0;
    });
  }

  const size_t taken = end >= start ? static_cast<size_t>(end - start + 1) : 0;
  KEEL_ASSERT(static_cast<size_t>(std::max<int64_t>(start, 0)) + taken <= items.size());
  const size_t output_count = options.gets.empty() ? taken : options.gets.size() * taken;
  if (not_a_number) {
    conversion.Install(context);  // Redis converted before it looked at the scores
    context.reply.Error("ERR One or more scores can't be converted into double");
    return;
  }
  if (!options.store) {
    context.reply.ArrayHeader(output_count);
    for (size_t i = 0; i < taken; i++) {
      const std::string& element = items[static_cast<size_t>(start) + i].element;
      if (options.gets.empty()) context.reply.Bulk(element);
      for (std::string_view pattern : options.gets) {
        const std::optional<std::string> value = LookupByPattern(context, pattern, element);
        if (value) {
          context.reply.Bulk(*value);
        } else {
          context.reply.NullBulk();
        }
      }
    }
    conversion.Install(context);
    return;
  }
  const std::string_view destination = *options.store;
  const uint64_t hash = context.keyspace.Hash(db, destination);
  if (output_count == 0) {
    (void)context.keyspace.LookupWrite(db, destination, hash);
    context.keyspace.Delete(db, destination, hash, events::kDel);
    conversion.Install(context);
    context.reply.Integer(0);
    return;
  }
  List* list = NewList(context);
  bool refused = list == nullptr;
  for (size_t i = 0; i < taken && !refused; i++) {
    const std::string& element = items[static_cast<size_t>(start) + i].element;
    if (options.gets.empty()) {
      refused = !list->Push(context.memory(), List::End::kTail, element);
    }
    for (size_t g = 0; g < options.gets.size() && !refused; g++) {
      const std::optional<std::string> value = LookupByPattern(context, options.gets[g], element);
      refused = !list->Push(context.memory(), List::End::kTail, value ? *value : std::string());
    }
  }
  if (refused) {
    if (list != nullptr) List::Destroy(list, context.memory());
    context.reply.Error(errors::kOom);
    return;
  }
  (void)context.keyspace.LookupWrite(db, destination, hash);
  if (!StoreNewList(context, destination, hash, list, kSortstore, output_count)) return;
  conversion.Install(context);
  context.reply.Integer(static_cast<int64_t>(output_count));
}

void CmdSort(CommandContext& context) { Sort(context, false); }
void CmdSortRo(CommandContext& context) { Sort(context, true); }

// sortGetKeys: the sorted key, and the destination of the last STORE (options with arguments
// are skipped whole, as Redis skips them).
bool FindSortKeys(std::span<const std::string_view> args, std::vector<KeyReference>* keys) {
  keys->push_back(KeyReference{1, kKeyRO | kKeyAccess});
  std::optional<size_t> store;
  for (size_t i = 2; i < args.size(); i++) {
    if (EqualsIgnoreCase(args[i], "limit")) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "get") || EqualsIgnoreCase(args[i], "by")) {
      i += 1;
    } else if (EqualsIgnoreCase(args[i], "store") && i + 1 < args.size()) {
      store = i + 1;
    }
  }
  if (store) keys->push_back(KeyReference{*store, kKeyOW | kKeyUpdate});
  return true;
}

bool FindSortRoKeys(std::span<const std::string_view> /*args*/, std::vector<KeyReference>* keys) {
  keys->push_back(KeyReference{1, kKeyRO | kKeyAccess});
  return true;
}

constexpr std::string_view kSortComplexity =
    "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the "
    "number of returned elements. When the elements are not sorted, complexity is O(N).";
constexpr std::string_view kSortArgs =
    "key:key#0 ?pattern:pattern=BY#1 ?offset_count:block=LIMIT{offset:integer count:integer} "
    "?*+pattern:pattern=GET#1 ?order:oneof{asc=ASC desc=DESC} ?sorting=ALPHA";

constexpr CommandDef kSortCommands[] = {
    {
        .name = "sort",
        .arity = -2,
        .flags = "write denyoom",
        .acl = "@set @sortedset @list @dangerous",
        .keys = "RO access: index 1 range 0 1 0;RO access: unknown unknown | For the optional "
                "BY/GET keyword. It is marked 'unknown' because the key names derive from the "
                "content of the key we sort;OW update: unknown unknown | For the optional STORE "
                "keyword. It is marked 'unknown' because the keyword can appear anywhere in the "
                "argument array",
        .group = "generic",
        .since = "1.0.0",
        .complexity = kSortComplexity,
        .summary = "Sort the elements in a list, set or sorted set",
        .args = "key:key#0 ?pattern:pattern=BY#1 ?offset_count:block=LIMIT{offset:integer "
                "count:integer} ?*+pattern:pattern=GET#1 ?order:oneof{asc=ASC desc=DESC} "
                "?sorting=ALPHA ?destination:key=STORE#2",
        .handler = CmdSort,
        .find_keys = FindSortKeys,
    },
    {
        .name = "sort_ro",
        .arity = -2,
        .flags = "readonly",
        .acl = "@set @sortedset @list @dangerous",
        .keys = "RO access: index 1 range 0 1 0;RO access: unknown unknown | For the optional "
                "BY/GET keyword. It is marked 'unknown' because the key names derive from the "
                "content of the key we sort",
        .group = "generic",
        .since = "7.0.0",
        .complexity = kSortComplexity,
        .summary = "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
        .args = kSortArgs,
        .handler = CmdSortRo,
        .find_keys = FindSortRoKeys,
    },
};

}  // namespace

void RegisterSortCommands(Registry& registry) { registry.Add(kSortCommands); }

}  // namespace keel
