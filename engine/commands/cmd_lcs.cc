// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the longest common subsequence of
// two strings, by the textbook dynamic programme Redis uses, walked back with Redis's tie-break so
// that the subsequence and the IDX ranges are the ones Redis reports.
//
// Working memory. The table holds (|a|+1)*(|b|+1) uint32 cells. As in Redis 7.0.15, a table
// larger than proto-max-bulk-len (512 MB by default) is refused before anything is allocated,
// with Redis's error; the table is then taken from the MemoryAccountant (MemoryUse::kScratch), so
// it is counted while the command runs and a refusal is an error reply, never a crash. LEN alone
// needs no walk back, so it keeps two rows of the table (2*(|b|+1) cells) instead of all of it;
// it still gives the proto-max-bulk-len error wherever Redis does, so replies do not depend on
// the option.
#include <algorithm>
#include <cstring>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/commands/scratch.h"
#include "engine/db/keyspace.h"

namespace keel {
namespace {

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

// Parses args[3...]. Returns false after an error reply.
bool ParseLcsOptions(CommandContext& context, LcsOptions* options) {
  for (size_t i = 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    if (OptionIs(option, "IDX")) {
      options->idx = true;
    } else if (OptionIs(option, "LEN")) {
      options->len = true;
    } else if (OptionIs(option, "WITHMATCHLEN")) {
      options->with_match_len = true;
    } else if (OptionIs(option, "MINMATCHLEN") && i + 1 < context.argc()) {
      if (!ParseStrictInt64(context.arg(++i), &options->min_match_len)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      options->min_match_len = std::max<int64_t>(options->min_match_len, 0);
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  if (options->len && options->idx) {
    context.reply.Error("ERR If you want both the length and indexes, please just use IDX.");
    return false;
  }
  return true;
}

// Fills `table` (|a|+1 rows of |b|+1 cells): cell (i, j) is the LCS length of a[0, i) and
// b[0, j).
void FillTable(std::string_view a, std::string_view b, uint32_t* table) {
  const size_t width = b.size() + 1;
  std::fill(table, table + width, 0u);
  for (size_t i = 1; i <= a.size(); i++) {
    uint32_t* row = table + i * width;
    const uint32_t* above = row - width;
    row[0] = 0;
    for (size_t j = 1; j <= b.size(); j++) {
      row[j] = a[i - 1] == b[j - 1] ? above[j - 1] + 1 : std::max(above[j], row[j - 1]);
    }
  }
}

// The LCS length with two rows of the table.
uint32_t LengthOnly(std::string_view a, std::string_view b, uint32_t* rows) {
  const size_t width = b.size() + 1;
  uint32_t* above = rows;
  uint32_t* row = rows + width;
  std::fill(above, above + width, 0u);
  row[0] = 0;
  for (size_t i = 1; i <= a.size(); i++) {
    for (size_t j = 1; j <= b.size(); j++) {
      row[j] = a[i - 1] == b[j - 1] ? above[j - 1] + 1 : std::max(above[j], row[j - 1]);
    }
    std::swap(above, row);
  }
  return above[b.size()];
}

// One run of matching bytes: a[a_start, a_end] equals b[b_start, b_end] (inclusive).
struct MatchRange {
  uint32_t a_start;
  uint32_t a_end;
  uint32_t b_start;
  uint32_t b_end;
  uint32_t length() const { return a_end - a_start + 1; }
};

// Walks the table back from the end as Redis does: on equal bytes take the diagonal, otherwise go
// up when that keeps a strictly longer LCS and left when not. Calls `on_byte(position, byte)`
// for every byte of the LCS (positions from the last down to 0) and `on_range(range)` for every
// maximal run of matches, last first.
template <typename OnByte, typename OnRange>
void WalkBack(std::string_view a, std::string_view b, const uint32_t* table, OnByte&& on_byte,
              OnRange&& on_range) {
  const size_t width = b.size() + 1;
  size_t i = a.size();
  size_t j = b.size();
  uint32_t position = table[i * width + j];
  bool in_range = false;
  MatchRange range{};
  while (i > 0 && j > 0) {
    bool ends_range = false;
    if (a[i - 1] == b[j - 1]) {
      on_byte(--position, a[i - 1]);
      if (!in_range) {
        range = {static_cast<uint32_t>(i - 1), static_cast<uint32_t>(i - 1),
                 static_cast<uint32_t>(j - 1), static_cast<uint32_t>(j - 1)};
        in_range = true;
      } else {
        // Matches met one after the other are always contiguous: any other step ends the range.
        range.a_start = static_cast<uint32_t>(i - 1);
        range.b_start = static_cast<uint32_t>(j - 1);
      }
      // A range touching the start of either string cannot grow further.
      ends_range = range.a_start == 0 || range.b_start == 0;
      i--;
      j--;
    } else {
      if (table[(i - 1) * width + j] > table[i * width + j - 1]) {
        i--;
      } else {
        j--;
      }
      ends_range = in_range;
    }
    if (ends_range) {
      on_range(range);
      in_range = false;
    }
  }
}

void CmdLcs(CommandContext& context) {
  const Entry* first = context.keyspace.Lookup(context.db_index(), context.arg(1));
  const Entry* second = context.keyspace.Lookup(context.db_index(), context.arg(2));
  // The second lookup may have reclaimed an expired key; look the first up again rather than
  // rely on its entry staying where it was.
  if (first != nullptr) {
    first = context.keyspace.Peek(context.db_index(), context.arg(1),
                                  context.keyspace.Hash(context.db_index(), context.arg(1)));
  }
  if ((first != nullptr && first->type() != ValueType::kString) ||
      (second != nullptr && second->type() != ValueType::kString)) {
    context.reply.Error("ERR The specified keys must contain string values");
    return;
  }
  LcsOptions options;
  if (!ParseLcsOptions(context, &options)) return;
  const std::string_view a = first != nullptr ? first->value() : std::string_view();
  const std::string_view b = second != nullptr ? second->value() : std::string_view();
  // Lengths and positions are uint32 in the table and the ranges, as in Redis.
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    context.reply.Error("ERR String too long for LCS");
    return;
  }
  // Below 2^32 each, the cell count fits in 64 bits; its size in bytes is compared without
  // multiplying, which could overflow.
  const uint64_t table_cells = static_cast<uint64_t>(a.size() + 1) * (b.size() + 1);
  const auto bytes_max = static_cast<uint64_t>(context.config().proto_max_bulk_len);
  if (table_cells > bytes_max / sizeof(uint32_t)) {
    context.reply.Error(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    return;
  }
  const size_t cells = options.len ? 2 * (b.size() + 1) : table_cells;
  ScratchBuffer table_memory(context.memory());
  if (!table_memory.Allocate(cells * sizeof(uint32_t))) {
    context.reply.Error("ERR Insufficient memory, failed allocating transient memory for LCS");
    return;
  }
  auto* table = reinterpret_cast<uint32_t*>(table_memory.data());
  if (options.len) {
    context.reply.Integer(LengthOnly(a, b, table));
    return;
  }
  FillTable(a, b, table);
  const uint32_t length = table[a.size() * (b.size() + 1) + b.size()];
  auto no_byte = [](uint32_t, char) {};
  if (!options.idx) {
    ScratchBuffer subsequence(context.memory());
    if (!subsequence.Allocate(length)) {
      context.reply.Error("ERR Insufficient memory, failed allocating transient memory for LCS");
      return;
    }
    char* out = subsequence.data();
    WalkBack(
        a, b, table, [out](uint32_t position, char byte) { out[position] = byte; },
        [](const MatchRange&) {});
    context.reply.Bulk(subsequence.view());
    return;
  }
  // IDX: the ranges are counted in a first walk so that the array header comes first (Redis
  // defers it; walking twice costs O(|a|+|b|) next to the table's O(|a|*|b|)).
  auto kept = [&](const MatchRange& range) {
    return options.min_match_len == 0 || range.length() >= options.min_match_len;
  };
  size_t ranges = 0;
  WalkBack(a, b, table, no_byte, [&](const MatchRange& range) { ranges += kept(range); });
  context.reply.MapHeader(2);
  context.reply.Bulk("matches");
  context.reply.ArrayHeader(ranges);
  WalkBack(a, b, table, no_byte, [&](const MatchRange& range) {
    if (!kept(range)) return;
    context.reply.ArrayHeader(options.with_match_len ? 3 : 2);
    context.reply.ArrayHeader(2);
    context.reply.Integer(range.a_start);
    context.reply.Integer(range.a_end);
    context.reply.ArrayHeader(2);
    context.reply.Integer(range.b_start);
    context.reply.Integer(range.b_end);
    if (options.with_match_len) context.reply.Integer(range.length());
  });
  context.reply.Bulk("len");
  context.reply.Integer(length);
}

// Copied from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS.
constexpr CommandDef kLcsCommands[] = {
    {.name = "lcs",
     .arity = -3,
     .flags = "readonly",
     .acl = "@string",
     .keys = "RO access: index 1 range 1 1 0",
     .group = "string",
     .since = "7.0.0",
     .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
     .summary = "Find longest common substring",
     .args = "key1:key#0 key2:key#0 ?len=LEN ?idx=IDX ?len:integer=MINMATCHLEN "
             "?withmatchlen=WITHMATCHLEN",
     .handler = CmdLcs},
};

}  // namespace

void RegisterLcsCommands(Registry& registry) { registry.Add(kLcsCommands); }

}  // namespace keel
