// LCS in the model: LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN] (Redis 7.0's
// lcsCommand): the textbook table, walked back with Redis's tie-break (up only when that keeps a
// strictly longer subsequence), so that the subsequence and the IDX ranges are the ones Redis
// reports. Its working memory is transient: when the environment refuses it the reply is an
// error and the keyspace is unchanged (Context::allocation_refused).
#include <algorithm>

#include "sim/model/model.h"

namespace keel::model {
namespace {

struct Range {
  int64_t a_start, a_end, b_start, b_end;
};

struct Walk {
  std::string subsequence;
  std::vector<Range> ranges;  // maximal runs of matches, last first
};

Walk LongestCommon(const std::string& a, const std::string& b) {
  std::vector<std::vector<uint32_t>> table(a.size() + 1, std::vector<uint32_t>(b.size() + 1));
  for (size_t i = 1; i <= a.size(); i++) {
    for (size_t j = 1; j <= b.size(); j++) {
      table[i][j] = a[i - 1] == b[j - 1] ? table[i - 1][j - 1] + 1
                                         : std::max(table[i - 1][j], table[i][j - 1]);
    }
  }
  Walk walk;
  walk.subsequence.assign(table[a.size()][b.size()], '\0');
  size_t index = walk.subsequence.size();
  size_t i = a.size();
  size_t j = b.size();
  bool in_range = false;
  Range range{};
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      walk.subsequence[--index] = a[i - 1];
      const auto ai = static_cast<int64_t>(i - 1);
      const auto bj = static_cast<int64_t>(j - 1);
      if (!in_range) {
        range = {ai, ai, bj, bj};
        in_range = true;
      } else {
        // Diagonal steps one after the other are contiguous: the range grows backwards.
        range.a_start = ai;
        range.b_start = bj;
      }
      // A match with the first byte of either string ends the walk: emit now.
      if (range.a_start == 0 || range.b_start == 0) emit = true;
      i--;
      j--;
    } else {
      if (table[i - 1][j] > table[i][j - 1]) {
        i--;
      } else {
        j--;
      }
      if (in_range) emit = true;
    }
    if (emit) {
      walk.ranges.push_back(range);
      in_range = false;
    }
  }
  return walk;
}

Expected Lcs(Call& call) {
  const Value* first = call.Lookup(call.args[1]);
  const Value* second = call.Lookup(call.args[2]);
  if (IsOtherType(first) || IsOtherType(second)) {
    return Error("ERR The specified keys must contain string values");
  }
  const std::string a = first != nullptr ? first->string : "";
  const std::string b = second != nullptr ? second->string : "";
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
  for (size_t i = 3; i < call.args.size(); i++) {
    const std::string& option = call.args[i];
    if (OptionIs(option, "IDX")) {
      idx = true;
    } else if (OptionIs(option, "LEN")) {
      len = true;
    } else if (OptionIs(option, "WITHMATCHLEN")) {
      with_match_len = true;
    } else if (OptionIs(option, "MINMATCHLEN") && i + 1 < call.args.size()) {
      if (!ParseInt64(call.args[++i], &min_match_len)) return Error(kNotInteger);
      min_match_len = std::max<int64_t>(min_match_len, 0);
    } else {
      return Error(kSyntaxError);
    }
  }
  if (len && idx) {
    return Error("ERR If you want both the length and indexes, please just use IDX.");
  }
  // The table of (|a|+1)*(|b|+1) uint32 cells may not pass proto-max-bulk-len (512 MB).
  const auto cells = static_cast<__uint128_t>(a.size() + 1) * (b.size() + 1);
  if (cells > (512u * 1024 * 1024) / sizeof(uint32_t)) {
    return Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  if (call.context.allocation_refused) {
    return Error("ERR Insufficient memory, failed allocating transient memory for LCS");
  }
  const Walk walk = LongestCommon(a, b);
  if (len) return Integer(static_cast<int64_t>(walk.subsequence.size()));
  if (!idx) return Bulk(walk.subsequence);
  std::vector<RespValue> matches;
  for (const Range& range : walk.ranges) {
    const int64_t length = range.a_end - range.a_start + 1;
    if (min_match_len != 0 && length < min_match_len) continue;
    std::vector<RespValue> match = {
        RespValue::Array({RespValue::Integer(range.a_start), RespValue::Integer(range.a_end)}),
        RespValue::Array({RespValue::Integer(range.b_start), RespValue::Integer(range.b_end)}),
    };
    if (with_match_len) match.push_back(RespValue::Integer(length));
    matches.push_back(RespValue::Array(std::move(match)));
  }
  return Map(
      {RespValue::Bulk("matches"), RespValue::Array(std::move(matches)), RespValue::Bulk("len"),
       RespValue::Integer(static_cast<int64_t>(walk.subsequence.size()))},
      call.session.resp);
}

constexpr Command kCommands[] = {
    {"lcs", kAllocates, Lcs},
};

}  // namespace

std::span<const Command> LcsCommands() { return kCommands; }

}  // namespace keel::model
