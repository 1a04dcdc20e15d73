// What the sorted-set family's files share (cmd_zset.cc, cmd_zset_range.cc,
// cmd_zset_algebra.cc): the events, the lookups that answer WRONGTYPE, the argument parsers with
// Redis's error texts, score replies, and the pop core that ZPOPMIN, ZPOPMAX and ZMPOP use (and
// the blocking pops will).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/zset.h"
#include "engine/db/types/zset_ops.h"

namespace keel {

// The sorted-set family's keyspace events, as t_zset.c names them (class 'z').
namespace zset_events {
inline constexpr KeyEvent kZadd{kNotifyZset, "zadd"};
inline constexpr KeyEvent kZincr{kNotifyZset, "zincr"};
inline constexpr KeyEvent kZrem{kNotifyZset, "zrem"};
inline constexpr KeyEvent kZremrangebyrank{kNotifyZset, "zremrangebyrank"};
inline constexpr KeyEvent kZremrangebyscore{kNotifyZset, "zremrangebyscore"};
inline constexpr KeyEvent kZremrangebylex{kNotifyZset, "zremrangebylex"};
inline constexpr KeyEvent kZpopmin{kNotifyZset, "zpopmin"};
inline constexpr KeyEvent kZpopmax{kNotifyZset, "zpopmax"};
inline constexpr KeyEvent kZrangestore{kNotifyZset, "zrangestore"};
inline constexpr KeyEvent kZinterstore{kNotifyZset, "zinterstore"};
inline constexpr KeyEvent kZunionstore{kNotifyZset, "zunionstore"};
inline constexpr KeyEvent kZdiffstore{kNotifyZset, "zdiffstore"};
}  // namespace zset_events

namespace zset_errors {
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kRangeNotFloat = "ERR min or max is not a float";
inline constexpr std::string_view kLexRange = "ERR min or max not valid string range item";
inline constexpr std::string_view kNan = "ERR resulting score is not a number (NaN)";
}  // namespace zset_errors

inline const ZsetValue& ZsetOf(const Entry& entry) {
  return *static_cast<const ZsetValue*>(EntryObject(entry));
}
inline ZsetValue& MutableZsetOf(Entry& entry) {
  return *static_cast<ZsetValue*>(EntryObject(entry));
}

// The family's reaches beyond the keyspace: its memory and its listpack limits.
inline MemoryAccountant& ZsetMemory(CommandContext& context) { return context.memory(); }
ZsetValue::Limits ZsetLimits(const CommandContext& context);
inline uint64_t NewZsetSeed(CommandContext& context) { return context.keyspace.rng().Next(); }

// A read lookup of `key` as a sorted set: false after replying WRONGTYPE; *zset null when missing.
bool LookupZset(CommandContext& context, std::string_view key, const ZsetValue** zset);

inline void SyncZsetEncoding(Entry& entry) {
  entry.set_encoding(ZsetEncodingOf(MutableZsetOf(entry)));
}

// Redis's getDoubleFromObject: strtod over the whole argument, "inf" allowed, NaN, overflow,
// underflow to zero, empty and leading space refused.
bool ParseScore(std::string_view text, double* score);

// A score range (zslParseRange): "(" makes a bound exclusive; strtod of the rest must reach the
// end of the C string (so "(" alone is 0 and " 1" is 1); NaN refused.
struct ScoreRange {
  double min = 0;
  double max = 0;
  bool min_exclusive = false;
  bool max_exclusive = false;
  bool Empty() const { return min > max || (min == max && (min_exclusive || max_exclusive)); }
  bool AboveMin(double score) const { return min_exclusive ? score > min : score >= min; }
  bool BelowMax(double score) const { return max_exclusive ? score < max : score <= max; }
};
bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* range);

// A lex range (zslParseLexRange): "[x" inclusive, "(x" exclusive, "-" and "+" the ends.
struct LexRange {
  enum class End : uint8_t { kValue, kMinusInfinity, kPlusInfinity };
  std::string_view min;
  std::string_view max;
  End min_end = End::kValue;
  End max_end = End::kValue;
  bool min_exclusive = false;
  bool max_exclusive = false;
  bool Empty() const;
  bool AboveMin(std::string_view member) const;
  bool BelowMax(std::string_view member) const;
};
bool ParseLexRange(std::string_view min, std::string_view max, LexRange* range);

// getLongFromObjectOrReply with Redis's text; false after replying.
bool ParseLongArg(CommandContext& context, std::string_view text, int64_t* value);

// Replies with (member, score) pairs as Redis's range commands do: RESP2 a flat array of 2n
// (n when !with_scores), RESP3 with scores an array of n two-element arrays.
class PairReply {
 public:
  PairReply(CommandContext& context, bool with_scores)
      : context_(context), with_scores_(with_scores) {}
  void Header(size_t count);
  void Pair(std::string_view member, double score);

 private:
  CommandContext& context_;
  bool with_scores_;
};

// Stores `zset` (owned by the key on success) as `key`, replacing what it held, announced as
// `event` and counted as `changes` in the dirty counter. On refused memory replies with the OOM
// error, frees `zset` and returns false.
bool StoreZset(CommandContext& context, std::string_view key, ZsetValue* zset, KeyEvent event,
               size_t changes = 1);

// ZADD's options.
struct ZaddFlags {
  bool nx = false;
  bool xx = false;
  bool gt = false;
  bool lt = false;
  bool ch = false;
  bool incr = false;
};
// ZADD after its arguments parsed (zaddGenericCommand from the key lookup on): applies `pairs`
// (score, member; at least one) to the sorted set at context.arg(1) as `flags` say and replies.
// GEOADD calls it with the scores of its points, as Redis's GEOADD calls ZADD.
void ZaddPairs(CommandContext& context, const ZaddFlags& flags,
               const std::vector<std::pair<double, std::string_view>>& pairs);
// A STORE form whose result is empty: the destination is deleted ("del") and 0 replied.
void StoreEmptyResult(CommandContext& context, std::string_view destination);

// How the pop core replies (genericZpopCommand's use_nested_array and emitkey).
enum class PopReply {
  kFlat,           // ZPOPMIN/ZPOPMAX: member, score, member, score ...
  kNested,         // ZPOPMIN/ZPOPMAX with COUNT in RESP3: [member, score] ...
  kFlatWithKey,    // BZPOPMIN/BZPOPMAX: key, member, score
  kNestedWithKey,  // ZMPOP/BZMPOP: [key, [[member, score] ...]]
};

// The pop core (genericZpopCommand): pops up to `count` (>= 1) members of the sorted set at
// `key` (which must exist and be a sorted set) from the lowest (`max` false) or the highest end,
// replies with them as `form` says, announces zpopmin/zpopmax (and del when emptied) and returns
// how many it popped.
size_t PopAndReply(CommandContext& context, std::string_view key, size_t count, bool max,
                   PopReply form);

// ZMPOP's and BZMPOP's arguments after the timeout: numkeys key [key ...] MIN|MAX [COUNT n].
struct ZmpopArgs {
  size_t first_key = 0;
  size_t end_key = 0;
  bool max = false;
  size_t count = 1;
};
// Parses them from `numkeys_index` on, as zmpopGenericCommand (numkeys, then the side, then the
// options); replies with the error and returns false when they do not parse.
bool ParseZmpopArgs(CommandContext& context, size_t numkeys_index, ZmpopArgs* parsed);

// The family's registration (Registry::AddBuiltins), declared here rather than in context.h so
// that adding the family recompiled only what uses it.
void RegisterZsetCommands(Registry& registry);
void RegisterZsetRangeCommands(Registry& registry);     // ZRANGE family, ZCOUNT, ZREMRANGEBY*
void RegisterZsetAlgebraCommands(Registry& registry);   // ZINTER*, ZUNION*, ZDIFF*
void RegisterZsetBlockingCommands(Registry& registry);  // BZPOPMIN, BZPOPMAX, BZMPOP
void RegisterGeoCommands(Registry& registry);           // GEOADD, GEOSEARCH, ... (cmd_geo.cc)

}  // namespace keel
