// Expected: a reply as the reference model predicts it.
//
// Usually an exact RESP value. Where a reply depends on something the model deliberately does not
// know, it is a bound instead, and each kind says what it allows:
//
//   kExact         exactly `value`.
//   kIntegerRange  an integer within [min, max]. DBSIZE counts keys that expired but were not
//                  reclaimed yet, and when the engine reclaims them is its choice.
//   kBulkSet       an array of bulk strings holding exactly `strings`, each once, in any order.
//                  KEYS lists the matching keys in hash-table order, which the model has not.
//   kScanPage      a SCAN page: an array of a bulk-string cursor (an unsigned decimal) and an
//                  array of bulk strings, each one of `strings` and none twice. Which keys a page
//                  holds and what the cursor is depend on the engine's table; a whole iteration
//                  is checked by whoever drives the model (the union must be every live key).
//   kOneOf         any one of `alternatives`. RANDOMKEY's draw (one of the live keys, or null
//                  when there is none), and a command whose transient memory was refused, which
//                  may reply its normal reply or its out-of-memory error with the same keyspace.
//   kArrayOf       an array whose elements match `alternatives` one by one: EXEC's reply, whose
//                  elements are the predictions of the commands it ran.
//   kBlocks        no reply now: the command blocks its client (BLPOP on empty lists). It
//                  matches no reply; whoever drives the model checks that the engine blocked.
//   kGroups        an array of `min` groups of `max` elements, each group one of `alternatives`
//                  (each used at most as often as it is listed): SORT of a set it does not
//                  sort, which replies in the set's table order, each member with its GETs.
//   kScoredPairs   (member, score) pairs drawn from `strings` (member, score text, member, ...):
//                  ZRANDMEMBER's draws (`min` of them) and a ZSCAN page of a skiplist (any
//                  number, inside [cursor, page]); `max` holds kScored* flags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/resp/resp_value.h"

namespace keel::model {

struct Expected {
  enum class Kind : uint8_t {
    kExact,
    kIntegerRange,
    kBulkSet,
    kScanPage,
    kOneOf,
    kArrayOf,
    kDraw,
    kBlocks,
    kPairs,
    kScoredPairs,
    kGroups,
  };

  Kind kind = Kind::kExact;
  RespValue value{};                     // kExact
  int64_t min = 0;                       // kIntegerRange; kDraw: the number of draws
  int64_t max = 0;                       // kIntegerRange; kDraw: 1 when draws are distinct
  std::vector<std::string> strings{};    // kBulkSet, kScanPage, kDraw (what may be drawn)
  std::vector<Expected> alternatives{};  // kOneOf; kArrayOf: the elements

  bool Matches(const RespValue& actual) const;
  std::string ToString() const;
};

// Builders, in the client's protocol where it matters (2 or 3).
Expected Ok();
Expected Simple(std::string_view text);
Expected Error(std::string_view text);
Expected Integer(int64_t value);
Expected IntegerRange(int64_t min, int64_t max);
Expected Bulk(std::string_view text);
Expected NullBulk(int resp);  // RESP2 $-1, RESP3 _
// A map of `pairs` (key, value, key, value, ...): RESP3 %n, RESP2 a flat array.
Expected Map(std::vector<RespValue> pairs, int resp);
Expected Array(std::vector<RespValue> elements);
Expected BulkSet(std::vector<std::string> strings);
// BulkSet as a set reply: RESP3 ~n, RESP2 an array (SMEMBERS, SINTER, SPOP with a count).
Expected BulkSetReply(std::vector<std::string> strings, int resp);
// An array of `count` bulk strings drawn from `allowed`, each at most once when `distinct`
// (SRANDMEMBER with a count: the draws are the engine's randomness, so only their bounds are
// known).
Expected Draws(std::vector<std::string> allowed, int64_t count, bool distinct);
Expected ScanPage(std::vector<std::string> allowed);
// Field-value pairs from `allowed` (field, value, field, value, ...) in any order: a hashtable's
// HGETALL, HRANDFIELD WITHVALUES and HSCAN pages, whose order is the engine's table.
enum PairShape : uint8_t {
  kPairsDistinct = 1,  // no field twice
  kPairsNested = 2,    // an array of [field, value] arrays (RESP3 HRANDFIELD WITHVALUES)
  kPairsMap = 4,       // a RESP3 map
  kPairsScanPage = 8,  // [cursor, flat pairs] with any number of them (`count` ignored)
};
Expected Pairs(std::vector<std::string> allowed, int64_t count, uint8_t shape);
Expected OneOf(std::vector<Expected> alternatives);
Expected ArrayOf(std::vector<Expected> elements);
Expected NullArray(int resp);  // RESP2 *-1, RESP3 _
Expected Blocks();
// kGroups: `count` of `groups` (exact arrays of `width` elements), in any order.
Expected Groups(std::vector<Expected> groups, int64_t count, int64_t width);

// kScoredPairs: `count` draws of `allowed` (member, score text) pairs, distinct members when
// `distinct`, replied as ZRANDMEMBER replies (members only without scores; RESP3 nests pairs).
inline constexpr int64_t kScoredDistinct = 1, kScoredWithScores = 2, kScoredResp3 = 4,
                         kScoredScanPage = 8;
Expected PairDraws(std::vector<std::pair<std::string, std::string>> allowed, int64_t count,
                   bool distinct, bool with_scores, int resp);
// kScoredPairs: a ZSCAN page [cursor, member, score, ...] of distinct members from `allowed`.
Expected ScanPairs(std::vector<std::pair<std::string, std::string>> allowed);

}  // namespace keel::model
