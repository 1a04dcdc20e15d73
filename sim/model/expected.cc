#include "sim/model/expected.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/base/numbers.h"

namespace keel::model {
namespace {

bool IsBulk(const RespValue& value) { return value.type == RespType::kBulkString; }

// The texts of an array of bulk strings, or false when it is not one or repeats a text.
bool DistinctBulkTexts(const RespValue& array, std::set<std::string>* texts,
                       RespType type = RespType::kArray) {
  if (array.type != type) return false;
  for (const RespValue& element : array.elements) {
    if (!IsBulk(element) || !texts->insert(element.text).second) return false;
  }
  return true;
}

bool IsUnsignedDecimal(std::string_view text) {
  return !text.empty() && text.size() <= 20 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         (text.size() == 1 || text[0] != '0');
}

std::string Listed(const std::vector<std::string>& strings) {
  std::string text;
  for (const std::string& one : strings) {
    if (!text.empty()) text += ", ";
    text += "\"" + one + "\"";
  }
  return "{" + text + "}";
}

// The pairs of `actual` as kPairs reads them; false when its shape is not `shape`'s.
bool PairsOf(const RespValue& actual, uint8_t shape,
             std::vector<std::pair<std::string, std::string>>* pairs) {
  const RespValue* items = &actual;
  if (shape & kPairsScanPage) {
    if (actual.type != RespType::kArray || actual.elements.size() != 2) return false;
    const RespValue& cursor = actual.elements[0];
    if (!IsBulk(cursor) || !IsUnsignedDecimal(cursor.text)) return false;
    items = &actual.elements[1];
  }
  if (items->type != ((shape & kPairsMap) ? RespType::kMap : RespType::kArray)) return false;
  if (shape & kPairsNested) {
    for (const RespValue& pair : items->elements) {
      if (pair.type != RespType::kArray || pair.elements.size() != 2 || !IsBulk(pair.elements[0]) ||
          !IsBulk(pair.elements[1])) {
        return false;
      }
      pairs->emplace_back(pair.elements[0].text, pair.elements[1].text);
    }
    return true;
  }
  if (items->elements.size() % 2 != 0) return false;
  for (size_t i = 0; i < items->elements.size(); i += 2) {
    if (!IsBulk(items->elements[i]) || !IsBulk(items->elements[i + 1])) return false;
    pairs->emplace_back(items->elements[i].text, items->elements[i + 1].text);
  }
  return true;
}

// kScoredPairs: the reply's (member, score) pairs, each allowed, with its allowed score text.
bool ScoredPairsMatch(const Expected& expected, const RespValue& actual) {
  const bool scan = (expected.max & kScoredScanPage) != 0;
  const bool with_scores = (expected.max & kScoredWithScores) != 0;
  const bool nested = with_scores && !scan && (expected.max & kScoredResp3) != 0;
  const RespValue* items = &actual;
  if (scan) {
    if (actual.type != RespType::kArray || actual.elements.size() != 2) return false;
    if (!IsBulk(actual.elements[0]) || !IsUnsignedDecimal(actual.elements[0].text)) return false;
    items = &actual.elements[1];
  }
  if (items->type != RespType::kArray) return false;
  std::map<std::string, std::string> allowed;
  for (size_t i = 0; i + 1 < expected.strings.size(); i += 2) {
    allowed.emplace(expected.strings[i], expected.strings[i + 1]);
  }
  std::vector<std::pair<const RespValue*, const RespValue*>> pairs;
  const std::vector<RespValue>& elements = items->elements;
  if (with_scores && !nested) {
    if (elements.size() % 2 != 0) return false;
    for (size_t i = 0; i < elements.size(); i += 2)
      pairs.emplace_back(&elements[i], &elements[i + 1]);
  } else {
    for (const RespValue& element : elements) {
      if (!nested) {
        pairs.emplace_back(&element, nullptr);
        continue;
      }
      if (element.type != RespType::kArray || element.elements.size() != 2) return false;
      pairs.emplace_back(&element.elements[0], &element.elements[1]);
    }
  }
  if (!scan && static_cast<int64_t>(pairs.size()) != expected.min) return false;
  std::set<std::string> seen;
  for (const auto& [member, score] : pairs) {
    if (!IsBulk(*member)) return false;
    const auto it = allowed.find(member->text);
    if (it == allowed.end()) return false;
    if (!seen.insert(member->text).second && (expected.max & kScoredDistinct) != 0) return false;
    if (score == nullptr) continue;
    const RespType type = nested ? RespType::kDouble : RespType::kBulkString;
    if (score->type != type || score->text != it->second) return false;
  }
  return true;
}

}  // namespace

bool Expected::Matches(const RespValue& actual) const {
  switch (kind) {
    case Kind::kExact:
      return actual == value;
    case Kind::kIntegerRange:
      return actual.type == RespType::kInteger && actual.integer >= min && actual.integer <= max;
    case Kind::kBulkSet: {
      std::set<std::string> texts;
      // A set reply in RESP3 (BulkSetReply), an array otherwise.
      const RespType type = value.type == RespType::kSet ? RespType::kSet : RespType::kArray;
      return DistinctBulkTexts(actual, &texts, type) &&
             texts == std::set<std::string>(strings.begin(), strings.end());
    }
    case Kind::kScanPage: {
      if (actual.type != RespType::kArray || actual.elements.size() != 2) return false;
      const RespValue& cursor = actual.elements[0];
      if (!IsBulk(cursor) || !IsUnsignedDecimal(cursor.text)) return false;
      std::set<std::string> texts;
      if (!DistinctBulkTexts(actual.elements[1], &texts)) return false;
      return std::all_of(texts.begin(), texts.end(), [&](const std::string& text) {
        return std::find(strings.begin(), strings.end(), text) != strings.end();
      });
    }
    case Kind::kOneOf:
      return std::any_of(alternatives.begin(), alternatives.end(),
                         [&](const Expected& one) { return one.Matches(actual); });
    case Kind::kArrayOf: {
      if (actual.type != RespType::kArray || actual.elements.size() != alternatives.size()) {
        return false;
      }
      for (size_t i = 0; i < alternatives.size(); i++) {
        if (!alternatives[i].Matches(actual.elements[i])) return false;
      }
      return true;
    }
    case Kind::kBlocks:
      return false;
    case Kind::kGroups: {
      if (actual.type != RespType::kArray || max < 1 ||
          static_cast<int64_t>(actual.elements.size()) != min * max) {
        return false;
      }
      std::vector<bool> used(alternatives.size(), false);
      const auto width = static_cast<size_t>(max);
      for (size_t at = 0; at < actual.elements.size(); at += width) {
        const std::vector<RespValue> group(
            actual.elements.begin() + static_cast<ptrdiff_t>(at),
            actual.elements.begin() + static_cast<ptrdiff_t>(at + width));
        bool found = false;
        for (size_t i = 0; i < alternatives.size() && !found; i++) {
          if (used[i] || alternatives[i].value.elements != group) continue;
          used[i] = true;
          found = true;
        }
        if (!found) return false;
      }
      return true;
    }
    case Kind::kScoredPairs:
      return ScoredPairsMatch(*this, actual);
    case Kind::kDraw: {
      if (actual.type != RespType::kArray || static_cast<int64_t>(actual.elements.size()) != min)
        return false;
      const std::set<std::string> allowed(strings.begin(), strings.end());
      std::set<std::string> seen;
      for (const RespValue& element : actual.elements) {
        if (!IsBulk(element) || allowed.count(element.text) == 0) return false;
        if (!seen.insert(element.text).second && max == 1) return false;
      }
      return true;
    }
    case Kind::kPairs: {
      std::vector<std::pair<std::string, std::string>> pairs;
      const auto shape = static_cast<uint8_t>(max);
      if (!PairsOf(actual, shape, &pairs)) return false;
      if (!(shape & kPairsScanPage) && static_cast<int64_t>(pairs.size()) != min) return false;
      std::set<std::pair<std::string, std::string>> allowed;
      for (size_t i = 0; i + 1 < strings.size(); i += 2)
        allowed.emplace(strings[i], strings[i + 1]);
      std::set<std::string> fields;
      for (const auto& pair : pairs) {
        if (allowed.count(pair) == 0) return false;
        if (!fields.insert(pair.first).second && (shape & kPairsDistinct)) return false;
      }
      return true;
    }
  }
  return false;
}

std::string Expected::ToString() const {
  switch (kind) {
    case Kind::kExact:
      return value.ToString();
    case Kind::kIntegerRange:
      return "an integer in [" + Int64ToString(min) + ", " + Int64ToString(max) + "]";
    case Kind::kBulkSet:
      return "the bulk strings " + Listed(strings) + " in any order";
    case Kind::kScanPage:
      return "a SCAN page [cursor, keys] with keys from " + Listed(strings);
    case Kind::kPairs:
      return ((max & kPairsScanPage) ? "a scan page of pairs" : Int64ToString(min) + " pairs") +
             std::string((max & kPairsDistinct) ? " (distinct fields)" : "") + " from " +
             Listed(strings);
    case Kind::kBlocks:
      return "no reply (the command blocks)";
    case Kind::kGroups: {
      std::string text;
      for (const Expected& one : alternatives) text += (text.empty() ? "" : ", ") + one.ToString();
      return Int64ToString(min) + " groups of " + Int64ToString(max) + " from [" + text + "]";
    }
    case Kind::kDraw:
      return Int64ToString(min) + (max == 1 ? " distinct" : "") + " draws from " + Listed(strings);
    case Kind::kScoredPairs:
      return ((max & kScoredScanPage) ? std::string("a ZSCAN page of pairs from ")
                                      : Int64ToString(min) + " pair draws from ") +
             Listed(strings);
    case Kind::kOneOf: {
      std::string text;
      for (const Expected& one : alternatives)
        text += (text.empty() ? "" : " or ") + one.ToString();
      return "one of: " + text;
    }
    case Kind::kArrayOf: {
      std::string text;
      for (const Expected& one : alternatives) text += (text.empty() ? "" : ", ") + one.ToString();
      return "an array of [" + text + "]";
    }
  }
  return "?";
}

Expected Ok() { return Simple("OK"); }

Expected Simple(std::string_view text) { return Expected{.value = RespValue::Simple(text)}; }

Expected Error(std::string_view text) {
  // Redis's formatted errors (addReplyErrorFormat) first trim CR and LF from both ends, then
  // replace those left inside with spaces, so that client bytes quoted in the message cannot
  // break the protocol.
  const size_t first = text.find_first_not_of("\r\n");
  text = first == std::string_view::npos ? std::string_view() : text.substr(first);
  text = text.substr(0, text.find_last_not_of("\r\n") + 1);
  std::string line(text);
  for (char& c : line) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return Expected{.value = RespValue::Error(line)};
}

Expected Integer(int64_t value) { return Expected{.value = RespValue::Integer(value)}; }

Expected IntegerRange(int64_t min, int64_t max) {
  return Expected{.kind = Expected::Kind::kIntegerRange, .min = min, .max = max};
}

Expected Bulk(std::string_view text) { return Expected{.value = RespValue::Bulk(text)}; }

Expected NullBulk(int resp) {
  RespValue value;
  value.type = resp == 3 ? RespType::kNull : RespType::kNullBulk;
  return Expected{.value = value};
}

Expected Map(std::vector<RespValue> pairs, int resp) {
  RespValue value = RespValue::Array(std::move(pairs));
  if (resp == 3) value.type = RespType::kMap;
  return Expected{.value = value};
}

Expected Array(std::vector<RespValue> elements) {
  return Expected{.value = RespValue::Array(std::move(elements))};
}

Expected BulkSet(std::vector<std::string> strings) {
  return Expected{.kind = Expected::Kind::kBulkSet, .strings = std::move(strings)};
}

Expected BulkSetReply(std::vector<std::string> strings, int resp) {
  Expected expected = BulkSet(std::move(strings));
  if (resp == 3) expected.value.type = RespType::kSet;
  return expected;
}

Expected Draws(std::vector<std::string> allowed, int64_t count, bool distinct) {
  return Expected{.kind = Expected::Kind::kDraw,
                  .min = count,
                  .max = distinct ? 1 : 0,
                  .strings = std::move(allowed)};
}

Expected PairDraws(std::vector<std::pair<std::string, std::string>> allowed, int64_t count,
                   bool distinct, bool with_scores, int resp) {
  std::vector<std::string> flat;
  for (auto& [member, score] : allowed) {
    flat.push_back(std::move(member));
    flat.push_back(std::move(score));
  }
  return Expected{.kind = Expected::Kind::kScoredPairs,
                  .min = count,
                  .max = (distinct ? kScoredDistinct : 0) | (with_scores ? kScoredWithScores : 0) |
                         (resp >= 3 ? kScoredResp3 : 0),
                  .strings = std::move(flat)};
}

Expected ScanPairs(std::vector<std::pair<std::string, std::string>> allowed) {
  Expected expected = PairDraws(std::move(allowed), -1, true, true, 2);
  expected.max |= kScoredScanPage;
  return expected;
}

Expected ScanPage(std::vector<std::string> allowed) {
  return Expected{.kind = Expected::Kind::kScanPage, .strings = std::move(allowed)};
}

Expected ArrayOf(std::vector<Expected> elements) {
  return Expected{.kind = Expected::Kind::kArrayOf, .alternatives = std::move(elements)};
}

Expected NullArray(int resp) {
  RespValue value;
  value.type = resp >= 3 ? RespType::kNull : RespType::kNullArray;
  return Expected{.value = value};
}

Expected OneOf(std::vector<Expected> alternatives) {
  return Expected{.kind = Expected::Kind::kOneOf, .alternatives = std::move(alternatives)};
}

Expected Pairs(std::vector<std::string> allowed, int64_t count, uint8_t shape) {
  return Expected{
      .kind = Expected::Kind::kPairs, .min = count, .max = shape, .strings = std::move(allowed)};
}

Expected Blocks() { return Expected{.kind = Expected::Kind::kBlocks}; }

Expected Groups(std::vector<Expected> groups, int64_t count, int64_t width) {
  return Expected{.kind = Expected::Kind::kGroups,
                  .min = count,
                  .max = width,
                  .alternatives = std::move(groups)};
}

}  // namespace keel::model
