// SORT and SORT_RO, from Redis's sort.c and its documentation: options parsed left to right,
// LIMIT clamped as sortCommandGeneric clamps it, numbers compared as doubles (ties by the
// elements' bytes), ALPHA as C strings (binary when STOREd), BY and GET patterns looked up in
// the session's database. A set that is not sorted (BY a constant) replies in the engine's table
// order, which the model does not know: it predicts which groups of replies may appear.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "sim/model/model.h"

namespace keel::model {
namespace {

struct Options {
  bool desc = false;
  bool alpha = false;
  int64_t start = 0;
  int64_t count = -1;
  std::optional<std::string> by;
  std::optional<std::string> store;
  std::vector<std::string> gets;
  bool dont_sort = false;
};

std::optional<std::string> ByPattern(Call& call, const std::string& pattern,
                                     const std::string& element) {
  if (pattern == "#") return element;
  const std::string text = pattern.substr(0, pattern.find('\0'));
  const size_t star = text.find('*');
  if (star == std::string::npos) return std::nullopt;
  const size_t arrow = text.find("->", star + 1);
  const bool field = arrow != std::string::npos && arrow + 2 < text.size();
  const size_t key_end = field ? arrow : text.size();
  const std::string key =
      text.substr(0, star) + element + text.substr(star + 1, key_end - star - 1);
  Value* value = call.Lookup(key);
  if (value == nullptr) return std::nullopt;
  if (field) {
    if (value->type != ValueType::kHash) return std::nullopt;
    const std::string name = text.substr(arrow + 2);
    for (const auto& [f, v] : value->hash) {
      if (f == name) return v;
    }
    return std::nullopt;
  }
  if (value->type != ValueType::kString) return std::nullopt;
  return value->string;
}

bool Score(const std::string& text, double* score) {
  const std::string c_string = text.substr(0, text.find('\0'));
  char* end = nullptr;
  errno = 0;
  *score = std::strtod(c_string.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*score);
}

std::string CString(const std::string& text) { return text.substr(0, text.find('\0')); }

struct Item {
  std::string element;
  double score = 0;
  std::optional<std::string> by;
};

int Sign(int cmp) { return cmp < 0 ? -1 : (cmp > 0 ? 1 : 0); }

int Compare(const Item& a, const Item& b, const Options& options) {
  int cmp = 0;
  if (!options.alpha) {
    cmp = a.score < b.score ? -1 : (a.score > b.score ? 1 : Sign(a.element.compare(b.element)));
  } else if (options.by) {
    if (!a.by || !b.by) {
      cmp = a.by.has_value() == b.by.has_value() ? 0 : (a.by ? 1 : -1);
    } else {
      cmp =
          options.store ? Sign(a.by->compare(*b.by)) : Sign(CString(*a.by).compare(CString(*b.by)));
    }
  } else {
    cmp = options.store ? Sign(a.element.compare(b.element))
                        : Sign(CString(a.element).compare(CString(b.element)));
  }
  return options.desc ? -cmp : cmp;
}

// The replies of one element: itself, or one per GET pattern.
std::vector<RespValue> Outputs(Call& call, const Options& options, const std::string& element,
                               bool stored) {
  std::vector<RespValue> out;
  if (options.gets.empty()) out.push_back(RespValue::Bulk(element));
  for (const std::string& pattern : options.gets) {
    const std::optional<std::string> value = ByPattern(call, pattern, element);
    if (value || stored) {
      out.push_back(RespValue::Bulk(value ? *value : std::string()));
    } else {
      out.push_back(NullBulk(call.session.resp).value);
    }
  }
  return out;
}

Expected Sort(Call& call, bool read_only) {
  Options options;
  const auto& args = call.args;
  for (size_t i = 2; i < args.size(); i++) {
    const size_t left = args.size() - i - 1;
    if (OptionIs(args[i], "asc")) {
      options.desc = false;
    } else if (OptionIs(args[i], "desc")) {
      options.desc = true;
    } else if (OptionIs(args[i], "alpha")) {
      options.alpha = true;
    } else if (OptionIs(args[i], "limit") && left >= 2) {
      if (!ParseInt64(args[i + 1], &options.start) || !ParseInt64(args[i + 2], &options.count)) {
        return Error(kNotInteger);
      }
      i += 2;
    } else if (!read_only && OptionIs(args[i], "store") && left >= 1) {
      options.store = args[++i];
    } else if (OptionIs(args[i], "by") && left >= 1) {
      options.by = args[++i];
      options.dont_sort = options.by->find('*') == std::string::npos;
    } else if (OptionIs(args[i], "get") && left >= 1) {
      options.gets.push_back(args[++i]);
    } else {
      return Error(kSyntaxError);
    }
  }
  Value* source = call.Lookup(args[1]);
  if (source != nullptr && source->type != ValueType::kList && source->type != ValueType::kSet &&
      source->type != ValueType::kZSet) {
    return Error(kWrongType);
  }
  // Redis converts a listpack sorted set to a skiplist before sorting it; when memory is refused
  // Keel leaves it a listpack and replies the OOM error.
  if (source != nullptr && source->type == ValueType::kZSet &&
      source->encoding == Encoding::kListpack) {
    if (call.context.allocation_refused) return Error(kOomError);
    source->encoding = Encoding::kSkiplist;
  }
  const bool is_set = source != nullptr && source->type == ValueType::kSet;
  if (options.dont_sort && is_set && options.store) {
    options.dont_sort = false;
    options.alpha = true;
    options.by.reset();
  }
  // The elements in the source's own order (a set's: unknown, see below).
  std::vector<Item> items;
  if (source != nullptr) {
    if (source->type == ValueType::kList) {
      for (const std::string& element : source->list)
        items.push_back(Item{element, 0, std::nullopt});
    } else if (is_set) {
      for (const std::string& member : source->set) items.push_back(Item{member, 0, std::nullopt});
    } else {
      std::vector<std::pair<double, std::string>> ranked;
      for (const auto& [member, score] : source->zset) ranked.emplace_back(score, member);
      std::sort(ranked.begin(), ranked.end());
      for (auto& [score, member] : ranked) items.push_back(Item{member, 0, std::nullopt});
    }
  }
  const auto length = static_cast<int64_t>(items.size());
  int64_t start = std::min(std::max<int64_t>(options.start, 0), length);
  const int64_t count = std::min(std::max<int64_t>(options.count, -1), length);
  int64_t end = count < 0 ? length - 1 : start + count - 1;
  if (start >= length) {
    start = length - 1;
    end = length - 2;
  }
  if (end >= length) end = length - 1;
  const size_t taken = end >= start ? static_cast<size_t>(end - start + 1) : 0;

  bool not_a_number = false;
  if (options.dont_sort) {
    // A list or sorted set keeps its order; DESC reads it from the end.
    if (options.desc) std::reverse(items.begin(), items.end());
  } else {
    for (Item& item : items) {
      std::optional<std::string> by;
      if (options.by) {
        by = ByPattern(call, *options.by, item.element);
        if (!by) continue;
      }
      if (options.alpha) {
        if (options.by) item.by = by;
      } else if (!Score(options.by ? *by : item.element, &item.score)) {
        not_a_number = true;
      }
    }
    std::stable_sort(items.begin(), items.end(),
                     [&](const Item& a, const Item& b) { return Compare(a, b, options) < 0; });
  }
  if (not_a_number) return Error("ERR One or more scores can't be converted into double");
  const size_t width = options.gets.empty() ? 1 : options.gets.size();

  if (options.dont_sort && is_set) {
    // Not STOREd (that case sorts): `taken` members in the engine's table order, each with its
    // replies.
    std::vector<Expected> groups;
    for (const Item& item : items) {
      groups.push_back(Array(Outputs(call, options, item.element, false)));
    }
    return Groups(std::move(groups), static_cast<int64_t>(taken), static_cast<int64_t>(width));
  }
  std::vector<RespValue> out;
  for (size_t i = 0; i < taken; i++) {
    std::vector<RespValue> one = Outputs(
        call, options, items[static_cast<size_t>(start) + i].element, options.store.has_value());
    out.insert(out.end(), one.begin(), one.end());
  }
  if (!options.store) return Array(std::move(out));
  if (out.empty()) {
    call.db().erase(*options.store);
    return Integer(0);
  }
  // The list's memory refused: nothing is stored (the BY and GET lookups' lazy expiry stays).
  if (call.context.allocation_refused) return Error(kOomError);
  Value list;
  list.type = ValueType::kList;
  list.encoding = Encoding::kQuicklist;
  for (const RespValue& value : out) list.list.push_back(value.text);
  const auto stored = static_cast<int64_t>(list.list.size());
  call.Store(*options.store, std::move(list));
  return Integer(stored);
}

Expected SortCommand(Call& call) { return Sort(call, false); }
Expected SortRo(Call& call) { return Sort(call, true); }

constexpr Command kCommands[] = {
    {"sort", kAllocates, SortCommand},
    {"sort_ro", kAllocates, SortRo},
};

}  // namespace

std::span<const Command> SortCommands() { return kCommands; }

}  // namespace keel::model
