// Commands of the geo family: GEOADD with its options over points clustered around one place
// (so that searches find several members, some at equal distances) and now and then anywhere,
// on the limits or outside them; GEOPOS, GEOHASH and GEODIST; and the searches (GEORADIUS,
// GEORADIUSBYMEMBER, their _RO forms, GEOSEARCH, GEOSEARCHSTORE) with every option, radii from
// zero to the whole Earth, and now and then a bad argument. Keys are the shared key space, so
// geo sets meet the other sorted-set commands and keys of other types.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string RandomMember(Rng& rng) {
  static constexpr std::string_view kWords[] = {"a", "b", "c", "d", "e", "city", "", "x y"};
  if (rng.Below(40) == 0) return std::string(65, 'G') + std::to_string(rng.Below(2));
  if (rng.Below(4) == 0) return std::to_string(Between(rng, 0, 9));
  return std::string(kWords[rng.Below(std::size(kWords))]);
}

// A coordinate around `center` within `spread` degrees, with a few decimals.
std::string Near(Rng& rng, int center, int spread_thousandths) {
  const int64_t offset = Between(rng, -spread_thousandths, spread_thousandths);
  const int64_t value = int64_t{center} * 1000 + offset;
  std::string text = value < 0 ? "-" : "";
  const int64_t magnitude = value < 0 ? -value : value;
  text +=
      std::to_string(magnitude / 1000) + "." + std::to_string(1000 + magnitude % 1000).substr(1);
  return text;
}

void AddPoint(Rng& rng, std::vector<std::string>* args) {
  static constexpr std::string_view kEdges[][2] = {{"180", "85.05112878"},
                                                   {"-180", "-85.05112878"},
                                                   {"0", "0"},
                                                   {"-0", "-0"},
                                                   {"181", "0"},
                                                   {"0", "86"},
                                                   {"x", "1"},
                                                   {"1", "nan"},
                                                   {"179.999", "1"},
                                                   {"-179.999", "1"},
                                                   {"10", "45"},
                                                   {"inf", "0"}};
  switch (rng.Below(8)) {
    case 0: {
      const auto& edge = kEdges[rng.Below(std::size(kEdges))];
      args->emplace_back(edge[0]);
      args->emplace_back(edge[1]);
      break;
    }
    case 1:
      args->push_back(std::to_string(Between(rng, -180, 180)));
      args->push_back(std::to_string(Between(rng, -85, 85)));
      break;
    default:
      args->push_back(Near(rng, 10, 500));
      args->push_back(Near(rng, 45, 500));
      break;
  }
}

std::string RandomUnit(Rng& rng) {
  static constexpr std::string_view kUnits[] = {"m", "km", "KM", "mi", "ft", "km", "yd"};
  return std::string(kUnits[rng.Below(std::size(kUnits))]);
}

// A radius or a box side in the unit that usually follows: mostly tens of km.
std::string RandomLength(Rng& rng) {
  static constexpr std::string_view kLengths[] = {"0", "1", "100000", "-1", "x", "inf", "20000"};
  if (rng.Below(4) == 0) return std::string(kLengths[rng.Below(std::size(kLengths))]);
  return std::to_string(Between(rng, 1, 150));
}

void AddOptions(Rng& rng, const KeySpace& space, bool may_store, bool search,
                std::vector<std::string>* args) {
  static constexpr std::string_view kWords[] = {"withdist", "withhash", "withcoord", "asc",
                                                "desc",     "any",      "count"};
  const int options = static_cast<int>(rng.Below(4));
  for (int i = 0; i < options; i++) {
    const std::string_view word = kWords[rng.Below(std::size(kWords))];
    args->push_back(RandomCase(rng, word));
    if (word == "count") args->push_back(MaybeBadNumber(rng, Between(rng, 1, 4)));
  }
  if (may_store && rng.Below(4) == 0) {
    args->push_back(RandomCase(rng, rng.Below(2) == 0 ? "store" : "storedist"));
    args->push_back(RandomKey(rng, space));
  }
  if (search && rng.Below(30) == 0) args->push_back("bogus");
}

void AddSearchShape(Rng& rng, std::vector<std::string>* args) {
  if (rng.Below(40) == 0) return;  // no shape: refused
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "byradius"));
    args->push_back(RandomLength(rng));
  } else {
    args->push_back(RandomCase(rng, "bybox"));
    args->push_back(RandomLength(rng));
    args->push_back(RandomLength(rng));
  }
  args->push_back(RandomUnit(rng));
}

void AddSearchCenter(Rng& rng, std::vector<std::string>* args) {
  if (rng.Below(40) == 0) return;  // no centre: refused
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "frommember"));
    args->push_back(RandomMember(rng));
  } else {
    args->push_back(RandomCase(rng, "fromlonlat"));
    AddPoint(rng, args);
  }
}

}  // namespace

void GenerateGeo(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  const std::string key = RandomKey(rng, space);
  switch (rng.Below(12)) {
    case 0:
    case 1:
    case 2: {
      *args = {RandomCase(rng, "geoadd"), key};
      static constexpr std::string_view kFlags[] = {"nx", "xx", "ch"};
      if (rng.Below(3) == 0) args->push_back(RandomCase(rng, kFlags[rng.Below(3)]));
      const int64_t points = Between(rng, 1, 4);
      for (int64_t i = 0; i < points; i++) {
        AddPoint(rng, args);
        args->push_back(RandomMember(rng));
      }
      if (rng.Below(30) == 0) args->pop_back();  // a point without its member
      return;
    }
    case 3:
      *args = {RandomCase(rng, "geopos"), key, RandomMember(rng), RandomMember(rng)};
      return;
    case 4:
      *args = {RandomCase(rng, "geohash"), key, RandomMember(rng), RandomMember(rng)};
      return;
    case 5:
      *args = {RandomCase(rng, "geodist"), key, RandomMember(rng), RandomMember(rng)};
      if (rng.Below(2) == 0) args->push_back(RandomUnit(rng));
      return;
    case 6:
    case 7: {
      const bool ro = rng.Below(4) == 0;
      *args = {RandomCase(rng, ro ? "georadius_ro" : "georadius"), key};
      AddPoint(rng, args);
      args->push_back(RandomLength(rng));
      args->push_back(RandomUnit(rng));
      AddOptions(rng, space, !ro || rng.Below(10) == 0, false, args);
      return;
    }
    case 8: {
      const bool ro = rng.Below(4) == 0;
      *args = {RandomCase(rng, ro ? "georadiusbymember_ro" : "georadiusbymember"), key,
               RandomMember(rng), RandomLength(rng), RandomUnit(rng)};
      AddOptions(rng, space, !ro || rng.Below(10) == 0, false, args);
      return;
    }
    case 9:
    case 10:
      *args = {RandomCase(rng, "geosearch"), key};
      AddSearchCenter(rng, args);
      AddSearchShape(rng, args);
      AddOptions(rng, space, false, true, args);
      return;
    default:
      *args = {RandomCase(rng, "geosearchstore"), RandomKey(rng, space), key};
      AddSearchCenter(rng, args);
      AddSearchShape(rng, args);
      if (rng.Below(2) == 0) args->push_back(RandomCase(rng, "storedist"));
      AddOptions(rng, space, false, true, args);
      return;
  }
}

}  // namespace keel::workload
