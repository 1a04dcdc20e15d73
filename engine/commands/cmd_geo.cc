// Geo commands on sorted sets: GEOADD, GEODIST, GEOHASH, GEOPOS, GEORADIUS, GEORADIUSBYMEMBER
// and their _RO forms, GEOSEARCH and GEOSEARCHSTORE, as Redis 7.0's geo.c answers them. A
// position is the member's score: its 52-bit geohash (engine/base/geohash.h).
//
// GEOADD is ZADD with the points' scores, as in Redis: it writes, counts, announces ("zadd")
// and propagates as ZADD. A search visits the nine cells Redis visits, in Redis's order, and
// keeps the members of each cell's score range that lie in the shape; unsorted replies come in
// that order. The STORE forms write the matches as a new sorted set ("georadiusstore" or
// "geosearchstore", one change per member stored) or delete the destination when none match.
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/base/geohash.h"
#include "engine/base/numbers.h"
#include "engine/base/partial_sort.h"
#include "engine/commands/cmd_zset_common.h"

namespace keel {

namespace {

namespace geo_events {
inline constexpr KeyEvent kGeoradiusstore{kNotifyZset, "georadiusstore"};
inline constexpr KeyEvent kGeosearchstore{kNotifyZset, "geosearchstore"};
}  // namespace geo_events

constexpr std::string_view kDecodeError = "ERR could not decode requested zset member";

// A coordinate as addReplyHumanLongDouble writes it: "%.17Lf" trimmed, a bulk string in RESP2
// and a double in RESP3.
void ReplyCoordinate(CommandContext& context, double value) {
  char text[kLongDoubleTextMax + 3];
  const size_t length = FormatLongDoubleHuman(static_cast<long double>(value), text + 1);
  if (context.reply.resp() == 2) {
    context.reply.Bulk(std::string_view(text + 1, length));
    return;
  }
  text[0] = ',';
  text[length + 1] = '\r';
  text[length + 2] = '\n';
  context.reply.Raw(std::string_view(text, length + 3));
}

// A distance: four decimals, a bulk string in both protocols (addReplyDoubleDistance).
void ReplyDistance(CommandContext& context, double value) {
  char text[geo::kDistanceTextMax];
  context.reply.Bulk(std::string_view(text, geo::FormatDistance(value, text)));
}

// extractLongLatOrReply: two doubles, then the indexable limits.
bool ParsePoint(CommandContext& context, size_t index, geo::Point* point) {
  double xy[2];
  for (size_t i = 0; i < 2; i++) {
    if (!ParseScore(context.arg(index + i), &xy[i])) {
      context.reply.Error(zset_errors::kNotFloat);
      return false;
    }
  }
  if (xy[0] < geo::kLongitudeMin || xy[0] > geo::kLongitudeMax || xy[1] < geo::kLatitudeMin ||
      xy[1] > geo::kLatitudeMax) {
    char text[2 * kLongDoubleTextMax];
    const int length = std::snprintf(text, sizeof(text),
                                     "ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
    context.reply.Error(std::string_view(text, static_cast<size_t>(length)));
    return false;
  }
  point->longitude = xy[0];
  point->latitude = xy[1];
  return true;
}

// extractUnitOrReply: meters per unit, or a negative value after replying.
double ParseUnit(CommandContext& context, std::string_view unit) {
  if (OptionIs(unit, "m")) return 1;
  if (OptionIs(unit, "km")) return 1000;
  if (OptionIs(unit, "ft")) return 0.3048;
  if (OptionIs(unit, "mi")) return 1609.34;
  context.reply.Error("ERR unsupported unit provided. please use M, KM, FT, MI");
  return -1;
}

// A non-negative double argument, with Redis's message when it does not parse.
bool ParseLength(CommandContext& context, size_t index, std::string_view not_numeric,
                 double* value) {
  if (!ParseScore(context.arg(index), value)) {
    context.reply.Error(not_numeric);
    return false;
  }
  return true;
}

// extractDistanceOrReply: radius unit.
bool ParseRadius(CommandContext& context, size_t index, geo::Shape* shape) {
  double radius = 0;
  if (!ParseLength(context, index, "ERR need numeric radius", &radius)) return false;
  if (radius < 0) {
    context.reply.Error("ERR radius cannot be negative");
    return false;
  }
  const double conversion = ParseUnit(context, context.arg(index + 1));
  if (conversion < 0) return false;
  shape->kind = geo::Shape::Kind::kCircle;
  shape->radius = radius;
  shape->conversion = conversion;
  return true;
}

// extractBoxOrReply: width height unit.
bool ParseBox(CommandContext& context, size_t index, geo::Shape* shape) {
  double width = 0;
  double height = 0;
  if (!ParseLength(context, index, "ERR need numeric width", &width) ||
      !ParseLength(context, index + 1, "ERR need numeric height", &height)) {
    return false;
  }
  if (height < 0 || width < 0) {
    context.reply.Error("ERR height or width cannot be negative");
    return false;
  }
  const double conversion = ParseUnit(context, context.arg(index + 2));
  if (conversion < 0) return false;
  shape->kind = geo::Shape::Kind::kBox;
  shape->width = width;
  shape->height = height;
  shape->conversion = conversion;
  return true;
}

// The position of `member` in `zset`; false when it is not a member.
bool MemberPoint(const ZsetValue& zset, std::string_view member, geo::Point* point) {
  double score = 0;
  if (!zset.Score(member, &score)) return false;
  *point = geo::DecodeScore(score);
  return true;
}

// --- GEOADD -----------------------------------------------------------------------------------

// GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD with each point's score.
void CmdGeoadd(CommandContext& context) {
  ZaddFlags flags;
  size_t first = 2;
  for (; first < context.argc(); first++) {
    const std::string_view option = context.arg(first);
    if (OptionIs(option, "nx")) {
      flags.nx = true;
    } else if (OptionIs(option, "xx")) {
      flags.xx = true;
    } else if (OptionIs(option, "ch")) {
      flags.ch = true;
    } else {
      break;
    }
  }
  if ((context.argc() - first) % 3 != 0 || (flags.xx && flags.nx)) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  const size_t elements = (context.argc() - first) / 3;
  std::vector<std::string> scores;
  scores.reserve(elements);
  std::vector<std::pair<double, std::string_view>> pairs;
  pairs.reserve(elements);
  for (size_t i = 0; i < elements; i++) {
    geo::Point point;
    if (!ParsePoint(context, first + i * 3, &point)) return;
    const uint64_t score = geo::ScoreOf(point.longitude, point.latitude);
    scores.push_back(std::to_string(score));
    pairs.emplace_back(static_cast<double>(score), context.arg(first + i * 3 + 2));
  }
  // ZADD refuses an empty element list with its syntax error ("GEOADD k CH CH CH").
  if (pairs.empty()) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  ZaddPairs(context, flags, pairs);
  if (!context.propagating()) return;
  // Replayed as the ZADD Redis rewrites it into: the options as given, then score member pairs.
  std::vector<std::string_view> zadd;
  zadd.reserve(first + elements * 2);
  zadd.push_back("zadd");
  for (size_t i = 1; i < first; i++) zadd.push_back(context.arg(i));
  for (size_t i = 0; i < elements; i++) {
    zadd.push_back(scores[i]);
    zadd.push_back(pairs[i].second);
  }
  context.PropagateAs(zadd);
}

// --- GEODIST, GEOHASH, GEOPOS -----------------------------------------------------------------

// GEODIST key member1 member2 [M|KM|FT|MI]
void CmdGeodist(CommandContext& context) {
  double to_meters = 1;
  if (context.argc() == 5) {
    to_meters = ParseUnit(context, context.arg(4));
    if (to_meters < 0) return;
  } else if (context.argc() > 5) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  geo::Point first;
  geo::Point second;
  if (zset == nullptr || !MemberPoint(*zset, context.arg(2), &first) ||
      !MemberPoint(*zset, context.arg(3), &second)) {
    context.reply.NullBulk();
    return;
  }
  ReplyDistance(context,
                geo::Distance(first.longitude, first.latitude, second.longitude, second.latitude) /
                    to_meters);
}

// GEOHASH key [member ...]
void CmdGeohash(CommandContext& context) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    double score = 0;
    if (zset == nullptr || !zset->Score(context.arg(i), &score)) {
      context.reply.NullBulk();
      continue;
    }
    char text[11];
    geo::GeohashText(score, text);
    context.reply.Bulk(std::string_view(text, sizeof(text)));
  }
}

// GEOPOS key [member ...]
void CmdGeopos(CommandContext& context) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(1), &zset)) return;
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    geo::Point point;
    if (zset == nullptr || !MemberPoint(*zset, context.arg(i), &point)) {
      context.reply.NullArray();
      continue;
    }
    context.reply.ArrayHeader(2);
    ReplyCoordinate(context, point.longitude);
    ReplyCoordinate(context, point.latitude);
  }
}

// --- The searches -----------------------------------------------------------------------------

// Which command runs the search (georadiusGeneric's flags).
enum SearchFlag : unsigned {
  kFromCoordinates = 1 << 0,  // GEORADIUS: key longitude latitude radius unit
  kFromMember = 1 << 1,       // GEORADIUSBYMEMBER: key member radius unit
  kNoStore = 1 << 2,          // the _RO forms: no STORE, no STOREDIST
  kSearch = 1 << 3,           // GEOSEARCH's argument syntax
  kSearchStore = 1 << 4,      // GEOSEARCHSTORE: destination first, STOREDIST a flag
};

enum class Order : uint8_t { kNone, kAscending, kDescending };

struct SearchRequest {
  geo::Shape shape;
  std::string_view store_key;
  bool store = false;
  bool store_distance = false;
  bool with_distance = false;
  bool with_hash = false;
  bool with_coordinates = false;
  bool from_member = false;
  bool from_point = false;
  bool by_radius = false;
  bool by_box = false;
  bool any = false;
  Order order = Order::kNone;
  int64_t count = 0;  // 0: unlimited
};

struct Match {
  std::string member;
  double score;
  geo::Point point;
  double distance;  // meters until the reply or the store divides it by the unit
};

// The options after the fixed arguments, in georadiusGeneric's loop: false after replying.
// `zset` null (a missing key) skips FROMMEMBER's lookup, so that the other errors still show.
bool ParseSearchOptions(CommandContext& context, size_t first, unsigned flags,
                        const ZsetValue* zset, SearchRequest* request) {
  const size_t end = context.argc();
  const bool search = (flags & kSearch) != 0;
  const bool may_store = (flags & (kNoStore | kSearch)) == 0;
  for (size_t i = first; i < end; i++) {
    const std::string_view option = context.arg(i);
    const size_t remaining = end - i - 1;  // arguments after this one
    if (OptionIs(option, "withdist")) {
      request->with_distance = true;
    } else if (OptionIs(option, "withhash")) {
      request->with_hash = true;
    } else if (OptionIs(option, "withcoord")) {
      request->with_coordinates = true;
    } else if (OptionIs(option, "any")) {
      request->any = true;
    } else if (OptionIs(option, "asc")) {
      request->order = Order::kAscending;
    } else if (OptionIs(option, "desc")) {
      request->order = Order::kDescending;
    } else if (OptionIs(option, "count") && remaining >= 1) {
      if (!ParseStrictInt64(context.arg(i + 1), &request->count)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      if (request->count <= 0) {
        context.reply.Error("ERR COUNT must be > 0");
        return false;
      }
      i++;
    } else if ((OptionIs(option, "store") || OptionIs(option, "storedist")) && remaining >= 1 &&
               may_store) {
      request->store = true;
      request->store_key = context.arg(i + 1);
      request->store_distance = OptionIs(option, "storedist");
      i++;
    } else if (OptionIs(option, "storedist") && search && (flags & kSearchStore) != 0) {
      request->store_distance = true;
    } else if (OptionIs(option, "frommember") && remaining >= 1 && search && !request->from_point) {
      if (zset != nullptr && !MemberPoint(*zset, context.arg(i + 1), &request->shape.center)) {
        context.reply.Error(kDecodeError);
        return false;
      }
      request->from_member = true;
      i++;
    } else if (OptionIs(option, "fromlonlat") && remaining >= 2 && search &&
               !request->from_member) {
      if (!ParsePoint(context, i + 1, &request->shape.center)) return false;
      request->from_point = true;
      i += 2;
    } else if (OptionIs(option, "byradius") && remaining >= 2 && search && !request->by_box) {
      if (!ParseRadius(context, i + 1, &request->shape)) return false;
      request->by_radius = true;
      i += 2;
    } else if (OptionIs(option, "bybox") && remaining >= 3 && search && !request->by_radius) {
      if (!ParseBox(context, i + 1, &request->shape)) return false;
      request->by_box = true;
      i += 3;
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// The checks after the options (georadiusGeneric, in its order): false after replying.
bool CheckSearchRequest(CommandContext& context, unsigned flags, const SearchRequest& request) {
  if (request.store && (request.with_distance || request.with_hash || request.with_coordinates)) {
    context.reply.Error((flags & kSearchStore) != 0
                            ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and "
                              "WITHCOORD options"
                            : "ERR STORE option in GEORADIUS is not compatible with WITHDIST, "
                              "WITHHASH and WITHCOORD options");
    return false;
  }
  // The command's name as the client typed it.
  const std::string name(context.arg(0));
  if ((flags & kSearch) != 0 && !(request.from_member || request.from_point)) {
    context.reply.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name);
    return false;
  }
  if ((flags & kSearch) != 0 && !(request.by_radius || request.by_box)) {
    context.reply.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name);
    return false;
  }
  if (request.any && request.count == 0) {
    context.reply.Error("ERR the ANY argument requires COUNT argument");
    return false;
  }
  return true;
}

// The members of `cell`'s score range that lie in the shape, appended to *matches in score
// order, until *matches holds `limit` (0: no limit) (membersOfGeoHashBox).
void CollectCell(const ZsetValue& zset, geo::Cell cell, const geo::Shape& shape, size_t limit,
                 std::vector<Match>* matches) {
  uint64_t min = 0;
  uint64_t max = 0;
  geo::ScoreRangeOf(cell, &min, &max);
  // Scores in [min, max), as doubles, as Redis compares them.
  size_t rank = zset.CountScoreBelow(static_cast<double>(min), false);
  const size_t end = zset.CountScoreBelow(static_cast<double>(max), false);
  bool full = false;
  // With ANY in slices, so that it stops without walking the rest of a large cell; otherwise in
  // one walk (a listpack's ForRange walks from its start each time).
  constexpr size_t kSlice = 64;
  while (rank < end && !full) {
    const size_t slice = limit == 0 ? end - rank : std::min(kSlice, end - rank);
    zset.ForRange(rank, slice, false, [&](std::string_view member, double score) {
      if (full) return;
      geo::Point point;
      double distance = 0;
      if (geo::WithinShape(shape, score, &point, &distance)) {
        matches->push_back(Match{std::string(member), score, point, distance});
      }
      full = limit != 0 && matches->size() >= limit;
    });
    rank += slice;
  }
}

// The matches in Redis's visiting order (membersOfAllNeighbors): a cell equal to the last one
// searched is skipped (large radii make neighbours coincide).
std::vector<Match> CollectMatches(const ZsetValue& zset, const geo::Shape& shape, size_t limit) {
  const std::array<geo::Cell, 9> cells = geo::SearchCells(shape);
  std::vector<Match> matches;
  size_t last = 0;  // Redis's last_processed: 0 until a neighbour was searched
  for (size_t i = 0; i < cells.size(); i++) {
    if (cells[i].none()) continue;
    if (last != 0 && cells[i].bits == cells[last].bits && cells[i].step == cells[last].step) {
      continue;
    }
    if (limit != 0 && matches.size() >= limit) break;
    CollectCell(zset, cells[i], shape, limit, &matches);
    last = i;
  }
  return matches;
}

void ReplyMatches(CommandContext& context, const SearchRequest& request,
                  std::vector<Match>& matches, size_t returned) {
  const size_t options = static_cast<size_t>(request.with_distance) +
                         static_cast<size_t>(request.with_hash) +
                         static_cast<size_t>(request.with_coordinates);
  context.reply.ArrayHeader(returned);
  for (size_t i = 0; i < returned; i++) {
    const Match& match = matches[i];
    if (options > 0) context.reply.ArrayHeader(options + 1);
    context.reply.Bulk(match.member);
    if (request.with_distance) ReplyDistance(context, match.distance / request.shape.conversion);
    if (request.with_hash) context.reply.Integer(geo::ScoreAsInt64(match.score));
    if (request.with_coordinates) {
      context.reply.ArrayHeader(2);
      ReplyCoordinate(context, match.point.longitude);
      ReplyCoordinate(context, match.point.latitude);
    }
  }
}

void StoreMatches(CommandContext& context, unsigned flags, const SearchRequest& request,
                  const std::vector<Match>& matches, size_t returned) {
  if (returned == 0) {
    StoreEmptyResult(context, request.store_key);
    return;
  }
  // Built as a skiplist and converted when it fits, as Redis builds the destination.
  MemoryAccountant& memory = ZsetMemory(context);
  ZsetValue* zset = ZsetValue::CreateSkiplist(memory, NewZsetSeed(context), returned);
  bool refused = zset == nullptr;
  const ZsetValue::Limits unlimited{0, 0};
  for (size_t i = 0; i < returned && !refused; i++) {
    const Match& match = matches[i];
    const double score =
        request.store_distance ? match.distance / request.shape.conversion : match.score;
    refused =
        zset->Set(match.member, score, unlimited, memory) == ZsetValue::SetOutcome::kOutOfMemory;
  }
  if (!refused && zset->FitsListpack(ZsetLimits(context))) {
    refused = !zset->ConvertToListpack(memory);
  }
  if (refused) {
    ZsetValue::Destroy(zset, memory);
    context.reply.Error(errors::kOom);
    return;
  }
  const KeyEvent event =
      (flags & kSearch) != 0 ? geo_events::kGeosearchstore : geo_events::kGeoradiusstore;
  if (StoreZset(context, request.store_key, zset, event, returned)) {
    context.reply.Integer(static_cast<int64_t>(returned));
  }
}

// Orders the matches by distance as Redis does: the whole list with glibc's qsort, a merge sort
// (stable: equal distances keep the visiting order), or, when COUNT keeps fewer, only the first
// `returned` with pqsort, whose order of equal distances is its own.
void SortMatches(Order order, size_t returned, std::vector<Match>* matches) {
  const int sign = order == Order::kAscending ? 1 : -1;
  auto compare = [sign](const Match& a, const Match& b) {
    return sign * (a.distance > b.distance ? 1 : a.distance == b.distance ? 0 : -1);
  };
  if (returned == matches->size()) {
    std::stable_sort(matches->begin(), matches->end(),
                     [&](const Match& a, const Match& b) { return compare(a, b) < 0; });
    return;
  }
  PartialQuicksort(matches->data(), matches->size(), 0, returned - 1, compare);
}

// georadiusGeneric: `source_index` is the sorted set's argument.
void SearchGeneric(CommandContext& context, size_t source_index, unsigned flags) {
  const ZsetValue* zset = nullptr;
  if (!LookupZset(context, context.arg(source_index), &zset)) return;
  SearchRequest request;
  size_t first_option = 0;
  if ((flags & kFromCoordinates) != 0) {
    first_option = 6;
    if (!ParsePoint(context, 2, &request.shape.center) ||
        !ParseRadius(context, 4, &request.shape)) {
      return;
    }
  } else if ((flags & kFromMember) != 0) {
    // A missing key still parses the options, so that the reply depends on STORE.
    first_option = 5;
    if (zset != nullptr) {
      if (!MemberPoint(*zset, context.arg(2), &request.shape.center)) {
        context.reply.Error(kDecodeError);
        return;
      }
      if (!ParseRadius(context, 3, &request.shape)) return;
    }
  } else {
    first_option = source_index + 1;
    if ((flags & kSearchStore) != 0) {
      request.store = true;
      request.store_key = context.arg(1);
    }
  }
  if (!ParseSearchOptions(context, first_option, flags, zset, &request) ||
      !CheckSearchRequest(context, flags, request)) {
    return;
  }
  if (zset == nullptr) {
    if (request.store) {
      StoreEmptyResult(context, request.store_key);
    } else {
      context.reply.EmptyArray();
    }
    return;
  }
  // COUNT picks the nearest: it sorts unless ANY took the first found.
  if (request.count != 0 && request.order == Order::kNone && !request.any) {
    request.order = Order::kAscending;
  }
  std::vector<Match> matches = CollectMatches(
      *zset, request.shape, request.any ? static_cast<size_t>(request.count) : size_t{0});
  if (matches.empty() && !request.store) {
    context.reply.EmptyArray();
    return;
  }
  const size_t returned = request.count == 0 || matches.size() < static_cast<size_t>(request.count)
                              ? matches.size()
                              : static_cast<size_t>(request.count);
  if (request.order != Order::kNone) SortMatches(request.order, returned, &matches);
  if (request.store) {
    StoreMatches(context, flags, request, matches, returned);
  } else {
    ReplyMatches(context, request, matches, returned);
  }
}

void CmdGeoradius(CommandContext& context) { SearchGeneric(context, 1, kFromCoordinates); }
void CmdGeoradiusbymember(CommandContext& context) { SearchGeneric(context, 1, kFromMember); }
void CmdGeoradiusRo(CommandContext& context) {
  SearchGeneric(context, 1, kFromCoordinates | kNoStore);
}
void CmdGeoradiusbymemberRo(CommandContext& context) {
  SearchGeneric(context, 1, kFromMember | kNoStore);
}
void CmdGeosearch(CommandContext& context) { SearchGeneric(context, 1, kSearch); }
void CmdGeosearchstore(CommandContext& context) {
  SearchGeneric(context, 2, kSearch | kSearchStore);
}

constexpr std::string_view kRadiusComplexity =
    "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area "
    "delimited by center and radius and M is the number of items inside the index.";
constexpr std::string_view kSearchComplexity =
    "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around "
    "the shape provided as the filter and M is the number of items inside the shape";
constexpr std::string_view kUppercaseUnits = "7.0.0 Added support for uppercase unit names.";

constexpr CommandDef kGeoCommands[] = {
    {.name = "geoadd",
     .arity = -5,
     .flags = "write denyoom",
     .acl = "@geo",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "geo",
     .since = "3.2.0",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted "
                   "set.",
     .summary = "Add one or more geospatial items in the geospatial index represented using a "
                "sorted set",
     .args = "key:key#0 ?condition:oneof@6.2.0{nx=NX xx=XX} ?change=CH@6.2.0 "
             "*longitude_latitude_member:block{longitude:double latitude:double member}",
     .handler = CmdGeoadd,
     .history = "6.2.0 Added the `CH`, `NX` and `XX` options."},
    {.name = "geodist",
     .arity = -4,
     .flags = "readonly",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "geo",
     .since = "3.2.0",
     .complexity = "O(log(N))",
     .summary = "Returns the distance between two members of a geospatial index",
     .args = "key:key#0 member1 member2 ?unit:oneof{m=M km=KM ft=FT mi=MI}",
     .handler = CmdGeodist},
    {.name = "geohash",
     .arity = -2,
     .flags = "readonly",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "geo",
     .since = "3.2.0",
     .complexity = "O(log(N)) for each member requested, where N is the number of elements in the "
                   "sorted set.",
     .summary = "Returns members of a geospatial index as standard geohash strings",
     .args = "key:key#0 *member",
     .handler = CmdGeohash},
    {.name = "geopos",
     .arity = -2,
     .flags = "readonly",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "geo",
     .since = "3.2.0",
     .complexity = "O(N) where N is the number of members requested.",
     .summary = "Returns longitude and latitude of members of a geospatial index",
     .args = "key:key#0 *member",
     .handler = CmdGeopos},
    {.name = "georadius",
     .arity = -6,
     .flags = "write denyoom",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0;OW update: keyword STORE 6 range 0 1 0;OW update: "
             "keyword STOREDIST 6 range 0 1 0",
     .group = "geo",
     .since = "3.2.0",
     .complexity = kRadiusComplexity,
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a "
                "given maximum distance from a point",
     .args = "key:key#0 longitude:double latitude:double radius:double "
             "unit:oneof{m=M km=KM ft=FT mi=MI} ?withcoord=WITHCOORD ?withdist=WITHDIST "
             "?withhash=WITHHASH ?count:block{count:integer=COUNT ?any=ANY@6.2.0} "
             "?order:oneof{asc=ASC desc=DESC} ?key:key=STORE#1 ?key:key=STOREDIST#2",
     .handler = CmdGeoradius,
     .history = "6.2.0 Added the `ANY` option for `COUNT`.|7.0.0 Added support for uppercase unit "
                "names.",
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument"},
    {.name = "georadius_ro",
     .arity = -6,
     .flags = "readonly",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "geo",
     .since = "3.2.10",
     .complexity = kRadiusComplexity,
     .summary = "A read-only variant for GEORADIUS",
     .args = "key:key#0 longitude:double latitude:double radius:double "
             "unit:oneof{m=M km=KM ft=FT mi=MI} ?withcoord=WITHCOORD ?withdist=WITHDIST "
             "?withhash=WITHHASH ?count:block{count:integer=COUNT ?any=ANY@6.2.0} "
             "?order:oneof{asc=ASC desc=DESC}",
     .handler = CmdGeoradiusRo,
     .history = "6.2.0 Added the `ANY` option for `COUNT`.",
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` with the `BYRADIUS` argument"},
    {.name = "georadiusbymember",
     .arity = -5,
     .flags = "write denyoom",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0;OW update: keyword STORE 5 range 0 1 0;OW update: "
             "keyword STOREDIST 5 range 0 1 0",
     .group = "geo",
     .since = "3.2.0",
     .complexity = kRadiusComplexity,
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a "
                "given maximum distance from a member",
     .args = "key:key#0 member radius:double unit:oneof{m=M km=KM ft=FT mi=MI} "
             "?withcoord=WITHCOORD ?withdist=WITHDIST ?withhash=WITHHASH "
             "?count:block{count:integer=COUNT ?any=ANY} ?order:oneof{asc=ASC desc=DESC} "
             "?key:key=STORE#1 ?key:key=STOREDIST#2",
     .handler = CmdGeoradiusbymember,
     .history = kUppercaseUnits,
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` "
                    "arguments"},
    {.name = "georadiusbymember_ro",
     .arity = -5,
     .flags = "readonly",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "geo",
     .since = "3.2.10",
     .complexity = kRadiusComplexity,
     .summary = "A read-only variant for GEORADIUSBYMEMBER",
     .args = "key:key#0 member radius:double unit:oneof{m=M km=KM ft=FT mi=MI} "
             "?withcoord=WITHCOORD ?withdist=WITHDIST ?withhash=WITHHASH "
             "?count:block{count:integer=COUNT ?any=ANY} ?order:oneof{asc=ASC desc=DESC}",
     .handler = CmdGeoradiusbymemberRo,
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments"},
    {.name = "geosearch",
     .arity = -7,
     .flags = "readonly",
     .acl = "@geo",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "geo",
     .since = "6.2.0",
     .complexity = kSearchComplexity,
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an "
                "area of a box or a circle.",
     .args = "key:key#0 from:oneof{member:string=FROMMEMBER "
             "longitude_latitude:block=FROMLONLAT{longitude:double latitude:double}} "
             "by:oneof{circle:block{radius:double=BYRADIUS unit:oneof{m=M km=KM ft=FT mi=MI}} "
             "box:block{width:double=BYBOX height:double unit:oneof{m=M km=KM ft=FT mi=MI}}} "
             "?order:oneof{asc=ASC desc=DESC} ?count:block{count:integer=COUNT ?any=ANY} "
             "?withcoord=WITHCOORD ?withdist=WITHDIST ?withhash=WITHHASH",
     .handler = CmdGeosearch,
     .history = kUppercaseUnits},
    {.name = "geosearchstore",
     .arity = -8,
     .flags = "write denyoom",
     .acl = "@geo",
     .keys = "OW update: index 1 range 0 1 0;RO access: index 2 range 0 1 0",
     .group = "geo",
     .since = "6.2.0",
     .complexity = kSearchComplexity,
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an "
                "area of a box or a circle, and store the result in another key.",
     .args = "destination:key#0 source:key#1 from:oneof{member:string=FROMMEMBER "
             "longitude_latitude:block=FROMLONLAT{longitude:double latitude:double}} "
             "by:oneof{circle:block{radius:double=BYRADIUS unit:oneof{m=M km=KM ft=FT mi=MI}} "
             "box:block{width:double=BYBOX height:double unit:oneof{m=M km=KM ft=FT mi=MI}}} "
             "?order:oneof{asc=ASC desc=DESC} ?count:block{count:integer=COUNT ?any=ANY} "
             "?storedist=STOREDIST",
     .handler = CmdGeosearchstore,
     .history = kUppercaseUnits},
};

}  // namespace

void RegisterGeoCommands(Registry& registry) { registry.Add(kGeoCommands); }

}  // namespace keel
