// The geo family in the model: GEOADD, GEODIST, GEOHASH, GEOPOS, GEORADIUS, GEORADIUSBYMEMBER,
// their _RO forms, GEOSEARCH and GEOSEARCHSTORE, written from Redis 7.0's geo.c and
// geohash*.c over the sorted-set model (a std::map of member -> score).
//
// The arithmetic is written here again, plainly (bit loops rather than the engine's masks), so
// that a slip in either shows as a difference: a position is the score's 52-bit interleaving of
// a latitude and a longitude cell index; a search visits the centre cell of the estimated step
// and its eight neighbours, in Redis's order, and keeps the members of each cell's score range
// that lie in the shape.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sim/model/model.h"

namespace keel::model {
namespace {

constexpr double kLonMin = -180;
constexpr double kLonMax = 180;
constexpr double kLatMin = -85.05112878;
constexpr double kLatMax = 85.05112878;
constexpr double kEarthRadius = 6372797.560856;
constexpr double kMercatorMax = 20037726.37;
constexpr size_t kListpackEntries = 128;
constexpr size_t kListpackValue = 64;

double ToRadians(double degrees) { return degrees * (M_PI / 180.0); }
double ToDegrees(double radians) { return radians / (M_PI / 180.0); }

// A grid cell: the latitude and longitude indexes at `step`; step 0 is "none".
struct GridCell {
  uint32_t lat = 0;
  uint32_t lon = 0;
  int step = 0;
  uint64_t Bits() const {
    uint64_t bits = 0;
    for (int i = 0; i < 32; i++) {
      bits |= static_cast<uint64_t>((lat >> i) & 1) << (2 * i);
      bits |= static_cast<uint64_t>((lon >> i) & 1) << (2 * i + 1);
    }
    return bits;
  }
};

GridCell FromBits(uint64_t bits, int step) {
  GridCell cell;
  cell.step = step;
  for (int i = 0; i < 32; i++) {
    cell.lat |= static_cast<uint32_t>((bits >> (2 * i)) & 1) << i;
    cell.lon |= static_cast<uint32_t>((bits >> (2 * i + 1)) & 1) << i;
  }
  return cell;
}

GridCell EncodeCell(double lon, double lat, int step, double lon_min, double lon_max,
                    double lat_min, double lat_max) {
  GridCell cell;
  cell.step = step;
  double lat_offset = (lat - lat_min) / (lat_max - lat_min);
  double lon_offset = (lon - lon_min) / (lon_max - lon_min);
  lat_offset *= static_cast<double>(1ULL << step);
  lon_offset *= static_cast<double>(1ULL << step);
  cell.lat = static_cast<uint32_t>(lat_offset);
  cell.lon = static_cast<uint32_t>(lon_offset);
  return cell;
}

uint64_t Score52(const GridCell& cell) { return cell.Bits() << (52 - cell.step * 2); }

struct Box {
  double lon_min, lon_max, lat_min, lat_max;
};

Box CellBox(const GridCell& cell, double lon_min, double lon_max, double lat_min, double lat_max) {
  const double n = static_cast<double>(1ULL << cell.step);
  const uint32_t lat_next = cell.lat + 1;  // 32-bit, as in Redis
  const uint32_t lon_next = cell.lon + 1;
  return Box{lon_min + (cell.lon * 1.0 / n) * (lon_max - lon_min),
             lon_min + (lon_next * 1.0 / n) * (lon_max - lon_min),
             lat_min + (cell.lat * 1.0 / n) * (lat_max - lat_min),
             lat_min + (lat_next * 1.0 / n) * (lat_max - lat_min)};
}

// (uint64_t)score on x86-64.
uint64_t X86Unsigned(double score) {
  auto cvt = [](double v) -> uint64_t {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return 1ULL << 63;
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  };
  return score < 9223372036854775808.0 ? cvt(score)
                                       : cvt(score - 9223372036854775808.0) ^ (1ULL << 63);
}

struct LonLat {
  double lon, lat;
};

LonLat Position(double score) {
  const Box box = CellBox(FromBits(X86Unsigned(score), 26), kLonMin, kLonMax, kLatMin, kLatMax);
  LonLat p{(box.lon_min + box.lon_max) / 2, (box.lat_min + box.lat_max) / 2};
  p.lon = std::min(std::max(p.lon, kLonMin), kLonMax);
  p.lat = std::min(std::max(p.lat, kLatMin), kLatMax);
  return p;
}

double MeridianDistance(double lat1, double lat2) {
  return kEarthRadius * std::fabs(ToRadians(lat2) - ToRadians(lat1));
}

double Haversine(double lon1, double lat1, double lon2, double lat2) {
  const double v = std::sin((ToRadians(lon2) - ToRadians(lon1)) / 2);
  if (v == 0.0) return MeridianDistance(lat1, lat2);
  const double u = std::sin((ToRadians(lat2) - ToRadians(lat1)) / 2);
  const double a = u * u + std::cos(ToRadians(lat1)) * std::cos(ToRadians(lat2)) * v * v;
  return 2.0 * kEarthRadius * std::asin(std::sqrt(a));
}

std::string HumanText(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[5200];
  std::snprintf(text, sizeof(text), "%.17Lf", static_cast<long double>(value));
  std::string s = text;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

RespValue Coordinate(double value, int resp) {
  if (resp < 3) return RespValue::Bulk(HumanText(value));
  RespValue v;
  v.type = RespType::kDouble;
  v.text = HumanText(value);
  return v;
}

std::string DistanceText(double value) {
  if (value == 0) return "0.0000";
  const double scaled = value * 10000.0;
  long long n = INT64_MIN;
  if (scaled >= -9223372036854775808.0 && scaled < 9223372036854775808.0) n = std::llrint(scaled);
  const bool negative = n < 0;
  unsigned long long magnitude =
      negative ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
  std::string digits = std::to_string(magnitude);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
  digits.insert(digits.size() - 4, ".");
  return negative ? "-" + digits : digits;
}

// --- Arguments ----------------------------------------------------------------------------

bool ParseDouble(const std::string& text, double* value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  if (text.find('\0') != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(text.c_str(), &end);
  if (static_cast<size_t>(end - text.c_str()) != text.size() || std::isnan(parsed)) return false;
  if (errno == ERANGE && (parsed == HUGE_VAL || parsed == -HUGE_VAL || parsed == 0)) return false;
  *value = parsed;
  return true;
}

bool ParsePoint(const std::string& lon_text, const std::string& lat_text, LonLat* point,
                Expected* error) {
  double lon = 0;
  double lat = 0;
  if (!ParseDouble(lon_text, &lon) || !ParseDouble(lat_text, &lat)) {
    *error = Error("ERR value is not a valid float");
    return false;
  }
  if (lon < kLonMin || lon > kLonMax || lat < kLatMin || lat > kLatMax) {
    char text[12000];
    std::snprintf(text, sizeof(text), "ERR invalid longitude,latitude pair %f,%f", lon, lat);
    *error = Error(text);
    return false;
  }
  *point = LonLat{lon, lat};
  return true;
}

bool ParseUnit(const std::string& unit, double* meters, Expected* error) {
  if (OptionIs(unit, "m")) {
    *meters = 1;
  } else if (OptionIs(unit, "km")) {
    *meters = 1000;
  } else if (OptionIs(unit, "ft")) {
    *meters = 0.3048;
  } else if (OptionIs(unit, "mi")) {
    *meters = 1609.34;
  } else {
    *error = Error("ERR unsupported unit provided. please use M, KM, FT, MI");
    return false;
  }
  return true;
}

Value* LookupZset(Call& call, const std::string& key, Expected* error) {
  Value* value = call.Lookup(key);
  if (value != nullptr && value->type != ValueType::kZSet) *error = Error(kWrongType);
  return value;
}

bool MemberPosition(const Value& zset, const std::string& member, LonLat* point) {
  const auto it = zset.zset.find(member);
  if (it == zset.zset.end()) return false;
  *point = Position(it->second);
  return true;
}

// --- GEOADD, GEODIST, GEOHASH, GEOPOS -----------------------------------------------------

Expected Geoadd(Call& call) {
  size_t first = 2;
  bool nx = false;
  bool xx = false;
  while (first < call.args.size()) {
    const std::string& option = call.args[first];
    if (OptionIs(option, "nx")) {
      nx = true;
    } else if (OptionIs(option, "xx")) {
      xx = true;
    } else if (!OptionIs(option, "ch")) {
      break;
    }
    first++;
  }
  if ((call.args.size() - first) % 3 != 0 || (nx && xx)) return Error(kSyntaxError);
  // ZADD over the points' scores, as Redis rewrites the command.
  std::vector<std::string> zadd(call.args.begin(), call.args.begin() + first);
  zadd[0] = "zadd";
  for (size_t i = first; i < call.args.size(); i += 3) {
    LonLat point;
    Expected error;
    if (!ParsePoint(call.args[i], call.args[i + 1], &point, &error)) return error;
    const GridCell cell = EncodeCell(point.lon, point.lat, 26, kLonMin, kLonMax, kLatMin, kLatMax);
    zadd.push_back(std::to_string(Score52(cell)));
    zadd.push_back(call.args[i + 2]);
  }
  for (const Command& command : ZsetCommands()) {
    if (command.name != "zadd") continue;
    Call zadd_call{call.model, call.session, zadd, call.context};
    return command.run(zadd_call);
  }
  return Error("ERR the model has no ZADD");
}

Expected Geodist(Call& call) {
  double meters = 1;
  Expected error;
  if (call.args.size() == 5 && !ParseUnit(call.args[4], &meters, &error)) return error;
  if (call.args.size() > 5) return Error(kSyntaxError);
  Value* zset = LookupZset(call, call.args[1], &error);
  if (zset != nullptr && zset->type != ValueType::kZSet) return error;
  LonLat a;
  LonLat b;
  if (zset == nullptr || !MemberPosition(*zset, call.args[2], &a) ||
      !MemberPosition(*zset, call.args[3], &b)) {
    return call.Null();
  }
  return Bulk(DistanceText(Haversine(a.lon, a.lat, b.lon, b.lat) / meters));
}

Expected Geohash(Call& call) {
  Expected error;
  Value* zset = LookupZset(call, call.args[1], &error);
  if (zset != nullptr && zset->type != ValueType::kZSet) return error;
  static const char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  std::vector<RespValue> hashes;
  for (size_t i = 2; i < call.args.size(); i++) {
    LonLat point;
    if (zset == nullptr || !MemberPosition(*zset, call.args[i], &point)) {
      hashes.push_back(call.Null().value);
      continue;
    }
    const uint64_t bits = EncodeCell(point.lon, point.lat, 26, -180, 180, -90, 90).Bits();
    std::string text;
    for (int c = 0; c < 10; c++) text += kAlphabet[(bits >> (52 - (c + 1) * 5)) & 0x1f];
    text += '0';
    hashes.push_back(RespValue::Bulk(text));
  }
  return Array(std::move(hashes));
}

Expected Geopos(Call& call) {
  Expected error;
  Value* zset = LookupZset(call, call.args[1], &error);
  if (zset != nullptr && zset->type != ValueType::kZSet) return error;
  std::vector<RespValue> positions;
  for (size_t i = 2; i < call.args.size(); i++) {
    LonLat point;
    if (zset == nullptr || !MemberPosition(*zset, call.args[i], &point)) {
      RespValue null;
      null.type = call.session.resp >= 3 ? RespType::kNull : RespType::kNullArray;
      positions.push_back(null);
      continue;
    }
    positions.push_back(RespValue::Array(
        {Coordinate(point.lon, call.session.resp), Coordinate(point.lat, call.session.resp)}));
  }
  return Array(std::move(positions));
}

// --- Searches -----------------------------------------------------------------------------

struct Search {
  bool box = false;
  LonLat center{0, 0};
  double radius = 0, width = 0, height = 0, unit = 1;
  bool store = false, store_dist = false;
  std::string store_key;
  bool with_dist = false, with_hash = false, with_coord = false, any = false;
  bool from_member = false, from_point = false, by_radius = false, by_box = false;
  int order = 0;  // 0 none, 1 ascending, 2 descending
  int64_t count = 0;
};

struct Found {
  std::string member;
  double score;
  LonLat point;
  double distance;
};

int Steps(double meters, double lat) {
  if (meters == 0) return 26;
  int step = 1;
  while (meters < kMercatorMax) {
    meters *= 2;
    step++;
  }
  step -= 2;
  if (lat > 66 || lat < -66) step -= (lat > 80 || lat < -80) ? 2 : 1;
  return std::clamp(step, 1, 26);
}

// Redis's geohash_move_x/_y: only the index that moves is reduced to its step bits (a point on
// the upper latitude limit has an index of 2^step, which a move east or west keeps).
GridCell Shifted(GridCell cell, int dlon, int dlat) {
  const uint64_t mask = cell.step == 32 ? 0xffffffffULL : (1ULL << cell.step) - 1;
  if (dlon != 0) {
    cell.lon = static_cast<uint32_t>((cell.lon + static_cast<uint64_t>(int64_t{dlon})) & mask);
  }
  if (dlat != 0) {
    cell.lat = static_cast<uint32_t>((cell.lat + static_cast<uint64_t>(int64_t{dlat})) & mask);
  }
  return cell;
}

// The nine cells in Redis's order: centre, N, S, E, W, NE, NW, SE, SW; none as step 0.
std::array<GridCell, 9> Cells(const Search& s) {
  const double half_h = s.unit * (s.box ? s.height / 2 : s.radius);
  const double half_w = s.unit * (s.box ? s.width / 2 : s.radius);
  const double dlat = ToDegrees(half_h / kEarthRadius);
  const double dlon_top =
      ToDegrees(half_w / kEarthRadius / std::cos(ToRadians(s.center.lat + dlat)));
  const double dlon_bottom =
      ToDegrees(half_w / kEarthRadius / std::cos(ToRadians(s.center.lat - dlat)));
  const double dlon = s.center.lat < 0 ? dlon_bottom : dlon_top;
  const Box bounds{s.center.lon - dlon, s.center.lon + dlon, s.center.lat - dlat,
                   s.center.lat + dlat};
  double meters =
      s.box ? std::sqrt((s.width / 2) * (s.width / 2) + (s.height / 2) * (s.height / 2)) : s.radius;
  meters *= s.unit;
  int step = Steps(meters, s.center.lat);
  auto around = [&](int at) {
    const GridCell c =
        EncodeCell(s.center.lon, s.center.lat, at, kLonMin, kLonMax, kLatMin, kLatMax);
    return std::array<GridCell, 9>{c,
                                   Shifted(c, 0, 1),
                                   Shifted(c, 0, -1),
                                   Shifted(c, 1, 0),
                                   Shifted(c, -1, 0),
                                   Shifted(c, 1, 1),
                                   Shifted(c, -1, 1),
                                   Shifted(c, 1, -1),
                                   Shifted(c, -1, -1)};
  };
  std::array<GridCell, 9> cells = around(step);
  auto box_of = [](const GridCell& c) { return CellBox(c, kLonMin, kLonMax, kLatMin, kLatMax); };
  if (step > 1 &&
      (box_of(cells[1]).lat_max < bounds.lat_max || box_of(cells[2]).lat_min > bounds.lat_min ||
       box_of(cells[3]).lon_max < bounds.lon_max || box_of(cells[4]).lon_min > bounds.lon_min)) {
    step--;
    cells = around(step);
  }
  if (step >= 2) {
    const Box area = box_of(cells[0]);
    auto drop = [&](std::initializer_list<int> which) {
      for (int i : which) cells[i] = GridCell{};
    };
    if (area.lat_min < bounds.lat_min) drop({2, 8, 7});
    if (area.lat_max > bounds.lat_max) drop({1, 5, 6});
    if (area.lon_min < bounds.lon_min) drop({4, 8, 6});
    if (area.lon_max > bounds.lon_max) drop({3, 7, 5});
  }
  return cells;
}

bool Inside(const Search& s, double score, Found* found) {
  found->point = Position(score);
  const LonLat& p = found->point;
  if (!s.box) {
    found->distance = Haversine(s.center.lon, s.center.lat, p.lon, p.lat);
    return !(found->distance > s.radius * s.unit);  // a NaN distance is inside, as in Redis
  }
  if (MeridianDistance(p.lat, s.center.lat) > s.height * s.unit / 2) return false;
  if (Haversine(p.lon, p.lat, s.center.lon, p.lat) > s.width * s.unit / 2) return false;
  found->distance = Haversine(s.center.lon, s.center.lat, p.lon, p.lat);
  return true;
}

std::vector<Found> Collect(const Value& zset, const Search& s) {
  std::vector<std::pair<std::string, double>> ordered(zset.zset.begin(), zset.zset.end());
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
  const size_t limit = s.any ? static_cast<size_t>(s.count) : 0;
  const std::array<GridCell, 9> cells = Cells(s);
  std::vector<Found> found;
  int last = 0;
  for (int i = 0; i < 9; i++) {
    const uint64_t bits = cells[i].Bits();
    if (cells[i].step == 0 && bits == 0) continue;
    if (last != 0 && bits == cells[last].Bits() && cells[i].step == cells[last].step) continue;
    if (limit != 0 && found.size() >= limit) break;
    const double min = static_cast<double>(Score52(cells[i]));
    const double max = static_cast<double>((bits + 1) << (52 - cells[i].step * 2));
    for (const auto& [member, score] : ordered) {
      if (score < min || score >= max) continue;
      Found f{member, score, {0, 0}, 0};
      if (Inside(s, score, &f)) found.push_back(f);
      if (limit != 0 && found.size() >= limit) break;
    }
    last = i;
  }
  return found;
}

// georadiusGeneric's option loop and checks; false with *error set.
bool ParseOptions(Call& call, size_t first, bool search, bool search_store, bool no_store,
                  const Value* zset, Search* s, Expected* error) {
  const auto& args = call.args;
  for (size_t i = first; i < args.size(); i++) {
    const std::string& a = args[i];
    const size_t left = args.size() - i - 1;
    if (OptionIs(a, "withdist")) {
      s->with_dist = true;
    } else if (OptionIs(a, "withhash")) {
      s->with_hash = true;
    } else if (OptionIs(a, "withcoord")) {
      s->with_coord = true;
    } else if (OptionIs(a, "any")) {
      s->any = true;
    } else if (OptionIs(a, "asc")) {
      s->order = 1;
    } else if (OptionIs(a, "desc")) {
      s->order = 2;
    } else if (OptionIs(a, "count") && left >= 1) {
      if (!ParseInt64(args[i + 1], &s->count)) {
        *error = Error(kNotInteger);
        return false;
      }
      if (s->count <= 0) {
        *error = Error("ERR COUNT must be > 0");
        return false;
      }
      i++;
    } else if ((OptionIs(a, "store") || OptionIs(a, "storedist")) && left >= 1 && !no_store &&
               !search) {
      s->store = true;
      s->store_key = args[i + 1];
      s->store_dist = OptionIs(a, "storedist");
      i++;
    } else if (OptionIs(a, "storedist") && search && search_store) {
      s->store_dist = true;
    } else if (OptionIs(a, "frommember") && left >= 1 && search && !s->from_point) {
      if (zset != nullptr && !MemberPosition(*zset, args[i + 1], &s->center)) {
        *error = Error("ERR could not decode requested zset member");
        return false;
      }
      s->from_member = true;
      i++;
    } else if (OptionIs(a, "fromlonlat") && left >= 2 && search && !s->from_member) {
      if (!ParsePoint(args[i + 1], args[i + 2], &s->center, error)) return false;
      s->from_point = true;
      i += 2;
    } else if (OptionIs(a, "byradius") && left >= 2 && search && !s->by_box) {
      if (!ParseDouble(args[i + 1], &s->radius)) {
        *error = Error("ERR need numeric radius");
        return false;
      }
      if (s->radius < 0) {
        *error = Error("ERR radius cannot be negative");
        return false;
      }
      if (!ParseUnit(args[i + 2], &s->unit, error)) return false;
      s->box = false;
      s->by_radius = true;
      i += 2;
    } else if (OptionIs(a, "bybox") && left >= 3 && search && !s->by_radius) {
      if (!ParseDouble(args[i + 1], &s->width)) {
        *error = Error("ERR need numeric width");
        return false;
      }
      if (!ParseDouble(args[i + 2], &s->height)) {
        *error = Error("ERR need numeric height");
        return false;
      }
      if (s->width < 0 || s->height < 0) {
        *error = Error("ERR height or width cannot be negative");
        return false;
      }
      if (!ParseUnit(args[i + 3], &s->unit, error)) return false;
      s->box = true;
      s->by_box = true;
      i += 3;
    } else {
      *error = Error(kSyntaxError);
      return false;
    }
  }
  if (s->store && (s->with_dist || s->with_hash || s->with_coord)) {
    *error = Error(search_store ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH "
                                  "and WITHCOORD options"
                                : "ERR STORE option in GEORADIUS is not compatible with WITHDIST, "
                                  "WITHHASH and WITHCOORD options");
    return false;
  }
  if (search && !s->from_member && !s->from_point) {
    *error = Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + args[0]);
    return false;
  }
  if (search && !s->by_radius && !s->by_box) {
    *error = Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + args[0]);
    return false;
  }
  if (s->any && s->count == 0) {
    *error = Error("ERR the ANY argument requires COUNT argument");
    return false;
  }
  return true;
}

Expected StoreFound(Call& call, const Search& s, const std::vector<Found>& found, size_t n) {
  if (n == 0) {
    call.db().erase(s.store_key);
    return Integer(0);
  }
  if (call.context.allocation_refused) return Error(kOomError);
  Value result;
  result.type = ValueType::kZSet;
  bool fits = n <= kListpackEntries;
  for (size_t i = 0; i < n; i++) {
    result.zset[found[i].member] = s.store_dist ? found[i].distance / s.unit : found[i].score;
    fits = fits && found[i].member.size() <= kListpackValue;
  }
  result.encoding = fits ? Encoding::kListpack : Encoding::kSkiplist;
  if (fits) {
    for (auto& [member, score] : result.zset) score = score == 0 ? 0.0 : score;
  }
  call.Store(s.store_key, std::move(result));
  return Integer(static_cast<int64_t>(n));
}

// Redis's pqsort (BSD qsort with range pruning), over indexes: unstable, so equal distances
// come out in its order.
void Pqsort(std::vector<Found>& v, size_t lo, size_t n, size_t want_lo, size_t want_hi,
            int (*cmp)(const Found&, const Found&, int), int order) {
  auto c = [&](size_t i, size_t j) { return cmp(v[i], v[j], order); };
  auto med3 = [&](size_t a, size_t b, size_t d) {
    return c(a, b) < 0 ? (c(b, d) < 0 ? b : (c(a, d) < 0 ? d : a))
                       : (c(b, d) > 0 ? b : (c(a, d) < 0 ? a : d));
  };
  while (true) {
    if (n < 7) {
      for (size_t m = lo + 1; m < lo + n; m++) {
        for (size_t l = m; l > lo && c(l - 1, l) > 0; l--) std::swap(v[l], v[l - 1]);
      }
      return;
    }
    size_t m = lo + n / 2;
    if (n > 7) {
      size_t l = lo, h = lo + n - 1;
      if (n > 40) {
        const size_t d = n / 8;
        l = med3(l, l + d, l + 2 * d);
        m = med3(m - d, m, m + d);
        h = med3(h - 2 * d, h - d, h);
      }
      m = med3(l, m, h);
    }
    std::swap(v[lo], v[m]);
    // Signed indexes: pc may pass below pb by one.
    long pa = static_cast<long>(lo) + 1, pb = pa, pc = static_cast<long>(lo + n) - 1, pd = pc;
    const long base = static_cast<long>(lo);
    while (true) {
      int r = 0;
      while (pb <= pc && (r = c(static_cast<size_t>(pb), lo)) <= 0) {
        if (r == 0) std::swap(v[static_cast<size_t>(pa++)], v[static_cast<size_t>(pb)]);
        pb++;
      }
      while (pb <= pc && (r = c(static_cast<size_t>(pc), lo)) >= 0) {
        if (r == 0) std::swap(v[static_cast<size_t>(pc)], v[static_cast<size_t>(pd--)]);
        pc--;
      }
      if (pb > pc) break;
      std::swap(v[static_cast<size_t>(pb++)], v[static_cast<size_t>(pc--)]);
    }
    const long end = base + static_cast<long>(n);
    long run = std::min(pa - base, pb - pa);
    for (long i = 0; i < run; i++)
      std::swap(v[static_cast<size_t>(base + i)], v[static_cast<size_t>(pb - run + i)]);
    run = std::min(pd - pc, end - pd - 1);
    for (long i = 0; i < run; i++)
      std::swap(v[static_cast<size_t>(pb + i)], v[static_cast<size_t>(end - run + i)]);
    auto overlaps = [&](long from, long count) {
      return !(static_cast<long>(want_hi) < from || static_cast<long>(want_lo) >= from + count);
    };
    if (pb - pa > 1 && overlaps(base, pb - pa)) {
      Pqsort(v, lo, static_cast<size_t>(pb - pa), want_lo, want_hi, cmp, order);
    }
    if (pd - pc <= 1 || !overlaps(end - (pd - pc), pd - pc)) return;
    lo = static_cast<size_t>(end - (pd - pc));
    n = static_cast<size_t>(pd - pc);
  }
}

int CompareDistance(const Found& a, const Found& b, int order) {
  const int asc = a.distance > b.distance ? 1 : a.distance == b.distance ? 0 : -1;
  return order == 1 ? asc : -asc;
}

// glibc's qsort is a merge sort (stable) when it sorts everything; COUNT uses pqsort.
void SortFound(int order, size_t n, std::vector<Found>* found) {
  if (n == found->size()) {
    std::stable_sort(found->begin(), found->end(), [&](const Found& a, const Found& b) {
      return CompareDistance(a, b, order) < 0;
    });
    return;
  }
  Pqsort(*found, 0, found->size(), 0, n - 1, CompareDistance, order);
}

enum Form { kRadius, kByMember, kRadiusRo, kByMemberRo, kSearchForm, kSearchStoreForm };

Expected SearchGeneric(Call& call, Form form) {
  const bool search = form == kSearchForm || form == kSearchStoreForm;
  const bool by_member = form == kByMember || form == kByMemberRo;
  const size_t source = form == kSearchStoreForm ? 2 : 1;
  Expected error;
  Value* zset = LookupZset(call, call.args[source], &error);
  if (zset != nullptr && zset->type != ValueType::kZSet) return error;
  Search s;
  size_t first = source + 1;
  if (form == kRadius || form == kRadiusRo) {
    first = 6;
    if (!ParsePoint(call.args[2], call.args[3], &s.center, &error)) return error;
  }
  if (form == kRadius || form == kRadiusRo || (by_member && zset != nullptr)) {
    if (by_member) {
      first = 5;
      if (!MemberPosition(*zset, call.args[2], &s.center)) {
        return Error("ERR could not decode requested zset member");
      }
    }
    const size_t at = by_member ? 3 : 4;
    if (!ParseDouble(call.args[at], &s.radius)) return Error("ERR need numeric radius");
    if (s.radius < 0) return Error("ERR radius cannot be negative");
    if (!ParseUnit(call.args[at + 1], &s.unit, &error)) return error;
  }
  if (by_member) first = 5;
  if (form == kSearchStoreForm) {
    s.store = true;
    s.store_key = call.args[1];
  }
  const bool no_store = form == kRadiusRo || form == kByMemberRo;
  if (!ParseOptions(call, first, search, form == kSearchStoreForm, no_store, zset, &s, &error)) {
    return error;
  }
  if (zset == nullptr) {
    if (s.store) {
      call.db().erase(s.store_key);
      return Integer(0);
    }
    return Array({});
  }
  if (s.count != 0 && s.order == 0 && !s.any) s.order = 1;
  std::vector<Found> found = Collect(*zset, s);
  if (found.empty() && !s.store) return Array({});
  const size_t n = s.count == 0 || found.size() < static_cast<size_t>(s.count)
                       ? found.size()
                       : static_cast<size_t>(s.count);
  if (s.order != 0) SortFound(s.order, n, &found);
  if (s.store) return StoreFound(call, s, found, n);
  const int resp = call.session.resp;
  std::vector<RespValue> reply;
  for (size_t i = 0; i < n; i++) {
    const Found& f = found[i];
    if (!s.with_dist && !s.with_hash && !s.with_coord) {
      reply.push_back(RespValue::Bulk(f.member));
      continue;
    }
    std::vector<RespValue> item{RespValue::Bulk(f.member)};
    if (s.with_dist) item.push_back(RespValue::Bulk(DistanceText(f.distance / s.unit)));
    if (s.with_hash) {
      const bool fits = f.score >= -9223372036854775808.0 && f.score < 9223372036854775808.0;
      item.push_back(RespValue::Integer(fits ? static_cast<int64_t>(f.score) : INT64_MIN));
    }
    if (s.with_coord) {
      item.push_back(
          RespValue::Array({Coordinate(f.point.lon, resp), Coordinate(f.point.lat, resp)}));
    }
    reply.push_back(RespValue::Array(std::move(item)));
  }
  return Array(std::move(reply));
}

Expected Georadius(Call& call) { return SearchGeneric(call, kRadius); }
Expected GeoradiusRo(Call& call) { return SearchGeneric(call, kRadiusRo); }
Expected Georadiusbymember(Call& call) { return SearchGeneric(call, kByMember); }
Expected GeoradiusbymemberRo(Call& call) { return SearchGeneric(call, kByMemberRo); }
Expected Geosearch(Call& call) { return SearchGeneric(call, kSearchForm); }
Expected Geosearchstore(Call& call) { return SearchGeneric(call, kSearchStoreForm); }

constexpr Command kCommands[] = {
    {"geoadd", kAllocates, Geoadd},
    {"geodist", 0, Geodist},
    {"geohash", 0, Geohash},
    {"geopos", 0, Geopos},
    {"georadius", kAllocates, Georadius},
    {"georadius_ro", 0, GeoradiusRo},
    {"georadiusbymember", kAllocates, Georadiusbymember},
    {"georadiusbymember_ro", 0, GeoradiusbymemberRo},
    {"geosearch", 0, Geosearch},
    {"geosearchstore", kAllocates, Geosearchstore},
};

}  // namespace

std::span<const Command> GeoCommands() { return kCommands; }

}  // namespace keel::model
