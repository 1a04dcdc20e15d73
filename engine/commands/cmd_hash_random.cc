// HRANDFIELD and HSCAN: random draws following t_hash.c's cases for a count, and the cursor
// walk of a hashtable (a listpack comes back whole with cursor 0, as Redis returns it). The
// draws come from the engine's generator (seeded from the environment), so a simulation replays
// them.
#include <string>
#include <vector>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/cmd_hash_common.h"
#include "engine/commands/cmd_set_common.h"

namespace keel {
namespace {

// Redis's HRANDFIELD_SUB_STRATEGY_MUL: when a draw of `count` distinct fields is answered by
// copying the hash and removing from the copy.
constexpr uint64_t kSubtractStrategyFactor = 3;

// Whether a reply of unbounded length (a negative count) should stop: the client is being
// closed or its output could not grow, as Redis stops at CLIENT_CLOSE_ASAP.
bool ReplyShouldStop(const CommandContext& context) {
  return (context.client.flags & kClientCloseAsap) || context.client.output().failed() ||
         context.reply.muted();
}

// One pair of a reply: a field, or (WITHVALUES) a field and its value, nested in RESP3.
void ReplyPair(CommandContext& context, std::string_view field, std::string_view value,
               bool with_values) {
  if (with_values && context.reply.resp() > 2) context.reply.ArrayHeader(2);
  context.reply.Bulk(field);
  if (with_values) context.reply.Bulk(value);
}

void ReplyHeader(CommandContext& context, uint64_t pairs, bool with_values) {
  context.reply.ArrayHeader(with_values && context.reply.resp() == 2 ? pairs * 2 : pairs);
}

// HRANDFIELD key count [WITHVALUES], count != 0 and the hash not empty.
void RandomFieldsWithCount(CommandContext& context, const HashValue& hash, int64_t count,
                           bool with_values) {
  MemoryAccountant& memory = context.memory();
  Rng& rng = context.keyspace.rng();
  const uint64_t size = hash.size();
  std::string_view field;
  std::string_view value;
  // CASE 1: a negative count repeats fields; a count of 1 is one draw.
  if (count < 0 || count == 1) {
    const uint64_t draws = count < 0 ? 0 - static_cast<uint64_t>(count) : 1;
    ReplyHeader(context, draws, with_values);
    for (uint64_t i = 0; i < draws; i++) {
      if (ReplyShouldStop(context)) break;
      hash.RandomPair(rng, &field, &value);
      ReplyPair(context, field, value, with_values);
    }
    return;
  }
  const auto wanted = static_cast<uint64_t>(count);
  // CASE 2: the whole hash.
  if (wanted >= size) {
    ReplyHeader(context, size, with_values);
    hash.ForEach(
        [&](std::string_view f, std::string_view v) { ReplyPair(context, f, v, with_values); });
    return;
  }
  HashValue* drawn = nullptr;
  if (wanted * kSubtractStrategyFactor > size) {
    // CASE 3: a copy, thinned by random removals down to the count.
    drawn = HashValue::Clone(hash, memory);
    while (drawn != nullptr && drawn->size() > wanted) {
      drawn->RandomPair(rng, &field, &value);
      const std::string taken(field);
      drawn->Remove(taken, memory);
    }
  } else {
    // CASE 4: random draws until `count` distinct ones were found.
    drawn = HashValue::CreateHashtable(memory, NewHashSeed(context), static_cast<size_t>(wanted));
    while (drawn != nullptr && drawn->size() < wanted) {
      hash.RandomPair(rng, &field, &value);
      if (drawn->Set(field, value, memory) == HashValue::SetOutcome::kOutOfMemory) {
        HashValue::Destroy(drawn, memory);
        drawn = nullptr;
      }
    }
  }
  if (drawn == nullptr) {
    context.reply.Error(errors::kOom);
    return;
  }
  ReplyHeader(context, drawn->size(), with_values);
  drawn->ForEach(
      [&](std::string_view f, std::string_view v) { ReplyPair(context, f, v, with_values); });
  HashValue::Destroy(drawn, memory);
}

// HRANDFIELD key [count [WITHVALUES]]
void CmdHrandfield(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  if (context.argc() >= 3) {
    int64_t count = 0;
    // The count is read before the key, so its errors come first.
    if (!ParseRangeArg(context, context.arg(2), -INT64_MAX, INT64_MAX, "", &count)) return;
    if (context.argc() > 4 || (context.argc() == 4 && !OptionIs(context.arg(3), "withvalues"))) {
      context.reply.Error(errors::kSyntax);
      return;
    }
    const bool with_values = context.argc() == 4;
    // The reply of a WITHVALUES count holds twice as many strings.
    if (with_values && (count < -INT64_MAX / 2 || count > INT64_MAX / 2)) {
      context.reply.Error("ERR value is out of range");
      return;
    }
    const HashValue* hash = nullptr;
    if (!LookupHash(context, context.arg(1), &hash)) return;
    if (hash == nullptr || count == 0) {
      context.reply.EmptyArray();
      return;
    }
    RandomFieldsWithCount(context, *hash, count, with_values);
    return;
  }
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  if (hash == nullptr) {
    context.reply.NullBulk();
    return;
  }
  std::string_view field;
  std::string_view value;
  hash->RandomPair(context.keyspace.rng(), &field, &value);
  context.reply.Bulk(field);
}

// HSCAN key cursor [MATCH pattern] [COUNT count]. A missing key answers an empty page before the
// options are read. A listpack comes back whole with cursor 0; a table is walked until COUNT
// pairs were collected (before MATCH filters them), its end, or 10 * COUNT steps, as
// scanGenericCommand walks a dict. MATCH tests the field; the value comes with it.
void CmdHscan(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  uint64_t cursor = 0;
  if (!ParseScanCursor(context.arg(2), &cursor)) {
    context.reply.Error("ERR invalid cursor");
    return;
  }
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  if (hash == nullptr) {
    context.reply.ArrayHeader(2);
    context.reply.Bulk("0");
    context.reply.ArrayHeader(0);
    return;
  }
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  for (size_t i = 3; i < context.argc(); i += 2) {
    const std::string_view option = context.arg(i);
    const bool has_value = i + 1 < context.argc();
    if (OptionIs(option, "count") && has_value) {
      if (!ParseStrictInt64(context.arg(i + 1), &count)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 1) {
        context.reply.Error(errors::kSyntax);
        return;
      }
    } else if (OptionIs(option, "match") && has_value) {
      pattern = context.arg(i + 1);
      use_pattern = pattern != "*";
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  // Views into the hash: it does not change while the command runs.
  std::vector<std::string_view> items;
  size_t collected = 0;
  auto visit = [&](std::string_view field, std::string_view value) {
    collected++;
    if (use_pattern && !GlobMatch(pattern, field)) return;
    items.push_back(field);
    items.push_back(value);
  };
  uint64_t position = CursorPosition(cursor);
  if (hash->is_listpack()) {
    position = hash->Scan(position, 1, visit);
  } else {
    int64_t steps_left = count * 10;
    do {
      position = hash->Scan(position, 1, visit);
    } while (position != 0 && steps_left-- > 0 && collected < static_cast<uint64_t>(count));
  }
  char text[kInt64TextMax];
  context.reply.ArrayHeader(2);
  context.reply.Bulk(std::string_view(text, FormatUint64(position >> kCursorShift, text)));
  context.reply.ArrayHeader(items.size());
  for (std::string_view item : items) context.reply.Bulk(item);
}

constexpr CommandDef kHashRandomCommands[] = {
    {.name = "hrandfield",
     .arity = -2,
     .flags = "readonly",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "6.2.0",
     .complexity = "O(N) where N is the number of fields returned",
     .summary = "Get one or multiple random fields from a hash",
     .args = "key:key#0 ?options:block{count:integer ?withvalues=WITHVALUES}",
     .handler = CmdHrandfield,
     .tips = "nondeterministic_output"},
    {.name = "hscan",
     .arity = -3,
     .flags = "readonly",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command "
                   "calls for the cursor to return back to 0. N is the number of elements inside "
                   "the collection..",
     .summary = "Incrementally iterate hash fields and associated values",
     .args = "key:key#0 cursor:integer ?pattern:pattern=MATCH ?count:integer=COUNT",
     .handler = CmdHscan,
     .tips = "nondeterministic_output"},
};

}  // namespace

void RegisterHashRandomCommands(Registry& registry) { registry.Add(kHashRandomCommands); }

}  // namespace keel
