#include "engine/base/geohash.h"

#include <cmath>
#include <cstring>

#include "engine/base/assert.h"

namespace keel::geo {

namespace {

// Redis's D_R and its two conversions (geohash_helper.c): the same expression, so the same
// rounding, as the reference.
constexpr double kDegreesToRadians = M_PI / 180.0;
double Radians(double degrees) { return degrees * kDegreesToRadians; }
double Degrees(double radians) { return radians / kDegreesToRadians; }

// Half the Earth's circumference in Web Mercator meters: the step estimate doubles a range until
// it reaches it.
constexpr double kMercatorMax = 20037726.37;

// Moves the low 32 bits of `value` to the even bit positions of the result.
uint64_t Spread(uint32_t value) {
  uint64_t x = value;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// The inverse of Spread: the even bits of `value`, packed into 32 bits.
uint32_t Gather(uint64_t value) {
  uint64_t x = value & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// An offset in [0, 2^step] converted to an integer as C converts a double to uint32_t (the
// offset is never negative and at most 2^32, which only step 32 reaches).
uint32_t OffsetBits(double offset) {
  KEEL_DASSERT(offset >= 0);
  return offset >= 4294967296.0 ? 0 : static_cast<uint32_t>(offset);
}

}  // namespace

bool Encode(Range longitude_range, Range latitude_range, double longitude, double latitude,
            int step, Cell* cell) {
  KEEL_ASSERT(step >= 1 && step <= 32);
  cell->bits = 0;
  cell->step = static_cast<uint8_t>(step);
  if (longitude > kLongitudeMax || longitude < kLongitudeMin || latitude > kLatitudeMax ||
      latitude < kLatitudeMin) {
    return false;
  }
  if (latitude < latitude_range.min || latitude > latitude_range.max ||
      longitude < longitude_range.min || longitude > longitude_range.max) {
    return false;
  }
  double latitude_offset =
      (latitude - latitude_range.min) / (latitude_range.max - latitude_range.min);
  double longitude_offset =
      (longitude - longitude_range.min) / (longitude_range.max - longitude_range.min);
  latitude_offset *= static_cast<double>(uint64_t{1} << step);
  longitude_offset *= static_cast<double>(uint64_t{1} << step);
  cell->bits = Spread(OffsetBits(latitude_offset)) | (Spread(OffsetBits(longitude_offset)) << 1);
  return true;
}

uint64_t Align52(Cell cell) { return cell.bits << (52 - cell.step * 2); }

uint64_t ScoreOf(double longitude, double latitude) {
  Cell cell;
  const bool valid = Encode(kLongitudeRange, kLatitudeRange, longitude, latitude, kStepMax, &cell);
  KEEL_DASSERT(valid);
  (void)valid;
  return Align52(cell);
}

Area Decode(Range longitude_range, Range latitude_range, Cell cell) {
  const uint32_t latitude_index = Gather(cell.bits);
  const uint32_t longitude_index = Gather(cell.bits >> 1);
  const double cells = static_cast<double>(uint64_t{1} << cell.step);
  const double latitude_scale = latitude_range.max - latitude_range.min;
  const double longitude_scale = longitude_range.max - longitude_range.min;
  // The index plus one is 32-bit arithmetic in Redis, so the last index wraps to 0.
  const uint32_t latitude_next = latitude_index + 1;
  const uint32_t longitude_next = longitude_index + 1;
  Area area;
  area.latitude.min = latitude_range.min + (latitude_index * 1.0 / cells) * latitude_scale;
  area.latitude.max = latitude_range.min + (latitude_next * 1.0 / cells) * latitude_scale;
  area.longitude.min = longitude_range.min + (longitude_index * 1.0 / cells) * longitude_scale;
  area.longitude.max = longitude_range.min + (longitude_next * 1.0 / cells) * longitude_scale;
  return area;
}

uint64_t ScoreBits(double score) {
  // What cvttsd2si gives for the two halves gcc splits the conversion into.
  auto truncate_signed = [](double value) -> uint64_t {
    if (std::isnan(value) || value >= 9223372036854775808.0 || value < -9223372036854775808.0) {
      return uint64_t{1} << 63;
    }
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  };
  if (score < 9223372036854775808.0) return truncate_signed(score);
  return truncate_signed(score - 9223372036854775808.0) ^ (uint64_t{1} << 63);
}

int64_t ScoreAsInt64(double score) {
  if (std::isnan(score) || score >= 9223372036854775808.0 || score < -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(score);
}

Point DecodeScore(double score) {
  const Area area = Decode(kLongitudeRange, kLatitudeRange,
                           Cell{ScoreBits(score), static_cast<uint8_t>(kStepMax)});
  Point point;
  point.longitude = (area.longitude.min + area.longitude.max) / 2;
  if (point.longitude > kLongitudeMax) point.longitude = kLongitudeMax;
  if (point.longitude < kLongitudeMin) point.longitude = kLongitudeMin;
  point.latitude = (area.latitude.min + area.latitude.max) / 2;
  if (point.latitude > kLatitudeMax) point.latitude = kLatitudeMax;
  if (point.latitude < kLatitudeMin) point.latitude = kLatitudeMin;
  return point;
}

Cell Move(Cell cell, int dx, int dy) {
  KEEL_DASSERT(cell.step >= 1 && cell.step <= 32);
  // An index moves modulo 2^step and keeps only its step bits; the other coordinate's bits are
  // left as they are, even bits past the step (a point on the upper latitude limit encodes an
  // index of 2^step, and Redis's neighbours keep that bit where they do not move).
  const uint64_t index_mask = cell.step == 32 ? ~uint32_t{0} : (uint64_t{1} << cell.step) - 1;
  constexpr uint64_t kLatitudeBits = 0x5555555555555555ULL;
  constexpr uint64_t kLongitudeBits = 0xAAAAAAAAAAAAAAAAULL;
  if (dx != 0) {
    const uint64_t index =
        (Gather(cell.bits >> 1) + static_cast<uint64_t>(static_cast<int64_t>(dx))) & index_mask;
    cell.bits = (cell.bits & kLatitudeBits) | (Spread(static_cast<uint32_t>(index)) << 1);
  }
  if (dy != 0) {
    const uint64_t index =
        (Gather(cell.bits) + static_cast<uint64_t>(static_cast<int64_t>(dy))) & index_mask;
    cell.bits = (cell.bits & kLongitudeBits) | Spread(static_cast<uint32_t>(index));
  }
  return cell;
}

double LatitudeDistance(double latitude1, double latitude2) {
  return kEarthRadiusMeters * std::fabs(Radians(latitude2) - Radians(latitude1));
}

double Distance(double longitude1, double latitude1, double longitude2, double latitude2) {
  const double longitude1_radians = Radians(longitude1);
  const double longitude2_radians = Radians(longitude2);
  const double v = std::sin((longitude2_radians - longitude1_radians) / 2);
  // Same meridian: the haversine reduces to the latitude difference (and Redis skips it).
  if (v == 0.0) return LatitudeDistance(latitude1, latitude2);
  const double latitude1_radians = Radians(latitude1);
  const double latitude2_radians = Radians(latitude2);
  const double u = std::sin((latitude2_radians - latitude1_radians) / 2);
  const double a = u * u + std::cos(latitude1_radians) * std::cos(latitude2_radians) * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
}

int EstimateSteps(double range_meters, double latitude) {
  if (range_meters == 0) return kStepMax;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    step++;
  }
  // Two steps coarser, so that the nine cells cover the range in most cases.
  step -= 2;
  // Meridians converge towards the poles: cells there are narrower than they are tall.
  if (latitude > 66 || latitude < -66) {
    step--;
    if (latitude > 80 || latitude < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > kStepMax) step = kStepMax;
  return step;
}

namespace {

// The shape's bounding box in degrees (geohashBoundingBox): longitude min/max as the wider of the
// two edges nearer the equator, latitude min/max.
struct Bounds {
  double longitude_min;
  double latitude_min;
  double longitude_max;
  double latitude_max;
};

Bounds BoundingBox(const Shape& shape) {
  const double longitude = shape.center.longitude;
  const double latitude = shape.center.latitude;
  const bool circle = shape.kind == Shape::Kind::kCircle;
  const double height = shape.conversion * (circle ? shape.radius : shape.height / 2);
  const double width = shape.conversion * (circle ? shape.radius : shape.width / 2);
  const double latitude_delta = Degrees(height / kEarthRadiusMeters);
  const double longitude_delta_top =
      Degrees(width / kEarthRadiusMeters / std::cos(Radians(latitude + latitude_delta)));
  const double longitude_delta_bottom =
      Degrees(width / kEarthRadiusMeters / std::cos(Radians(latitude - latitude_delta)));
  const bool southern = latitude < 0;
  Bounds bounds;
  bounds.longitude_min =
      southern ? longitude - longitude_delta_bottom : longitude - longitude_delta_top;
  bounds.longitude_max =
      southern ? longitude + longitude_delta_bottom : longitude + longitude_delta_top;
  bounds.latitude_min = latitude - latitude_delta;
  bounds.latitude_max = latitude + latitude_delta;
  return bounds;
}

// The centre cell and its eight neighbours in search order.
std::array<Cell, 9> Neighbourhood(Cell center) {
  return {center,
          Move(center, 0, 1),     // north
          Move(center, 0, -1),    // south
          Move(center, 1, 0),     // east
          Move(center, -1, 0),    // west
          Move(center, 1, 1),     // north-east
          Move(center, -1, 1),    // north-west
          Move(center, 1, -1),    // south-east
          Move(center, -1, -1)};  // south-west
}

enum Direction : size_t {
  kCenter = 0,
  kNorth,
  kSouth,
  kEast,
  kWest,
  kNorthEast,
  kNorthWest,
  kSouthEast,
  kSouthWest
};

}  // namespace

std::array<Cell, 9> SearchCells(const Shape& shape) {
  const Bounds bounds = BoundingBox(shape);
  const double longitude = shape.center.longitude;
  const double latitude = shape.center.latitude;
  // A box is covered by the circle through its corners.
  double radius_meters = shape.kind == Shape::Kind::kCircle
                             ? shape.radius
                             : std::sqrt((shape.width / 2) * (shape.width / 2) +
                                         (shape.height / 2) * (shape.height / 2));
  radius_meters *= shape.conversion;

  int step = EstimateSteps(radius_meters, latitude);
  Cell center;
  (void)Encode(kLongitudeRange, kLatitudeRange, longitude, latitude, step, &center);
  std::array<Cell, 9> cells = Neighbourhood(center);
  Area area = Decode(kLongitudeRange, kLatitudeRange, center);

  // Near a cell's edge the estimated step can leave a neighbour too small to reach the edge of
  // the search area: then one step coarser.
  const Area north = Decode(kLongitudeRange, kLatitudeRange, cells[kNorth]);
  const Area south = Decode(kLongitudeRange, kLatitudeRange, cells[kSouth]);
  const Area east = Decode(kLongitudeRange, kLatitudeRange, cells[kEast]);
  const Area west = Decode(kLongitudeRange, kLatitudeRange, cells[kWest]);
  const bool coarser =
      north.latitude.max < bounds.latitude_max || south.latitude.min > bounds.latitude_min ||
      east.longitude.max < bounds.longitude_max || west.longitude.min > bounds.longitude_min;
  if (step > 1 && coarser) {
    step--;
    (void)Encode(kLongitudeRange, kLatitudeRange, longitude, latitude, step, &center);
    cells = Neighbourhood(center);
    area = Decode(kLongitudeRange, kLatitudeRange, center);
  }

  // Rule out the neighbours beyond the bounding box.
  if (step >= 2) {
    if (area.latitude.min < bounds.latitude_min) {
      cells[kSouth] = cells[kSouthWest] = cells[kSouthEast] = Cell{};
    }
    if (area.latitude.max > bounds.latitude_max) {
      cells[kNorth] = cells[kNorthEast] = cells[kNorthWest] = Cell{};
    }
    if (area.longitude.min < bounds.longitude_min) {
      cells[kWest] = cells[kSouthWest] = cells[kNorthWest] = Cell{};
    }
    if (area.longitude.max > bounds.longitude_max) {
      cells[kEast] = cells[kSouthEast] = cells[kNorthEast] = Cell{};
    }
  }
  return cells;
}

void ScoreRangeOf(Cell cell, uint64_t* min, uint64_t* max) {
  *min = Align52(cell);
  cell.bits++;
  *max = Align52(cell);
}

bool WithinShape(const Shape& shape, double score, Point* point, double* distance_meters) {
  *point = DecodeScore(score);
  const double x1 = shape.center.longitude;
  const double y1 = shape.center.latitude;
  const double x2 = point->longitude;
  const double y2 = point->latitude;
  if (shape.kind == Shape::Kind::kCircle) {
    *distance_meters = Distance(x1, y1, x2, y2);
    // "Not farther than", so that a NaN distance (asin past 1) counts as inside, as in Redis.
    return !(*distance_meters > shape.radius * shape.conversion);
  }
  // The box: the latitude test first (cheaper), then the width along the point's parallel.
  if (LatitudeDistance(y2, y1) > shape.height * shape.conversion / 2) return false;
  if (Distance(x2, y2, x1, y2) > shape.width * shape.conversion / 2) return false;
  *distance_meters = Distance(x1, y1, x2, y2);
  return true;
}

void GeohashText(double score, char* out) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  const Point point = DecodeScore(score);
  // The standard geohash spans latitudes -90..90, not the indexed -85..85: re-encoded.
  Cell cell;
  (void)Encode(Range{-180, 180}, Range{-90, 90}, point.longitude, point.latitude, kStepMax, &cell);
  for (int i = 0; i < 11; i++) {
    // 52 bits make ten characters and two bits; the eleventh is written as if they were zero.
    const uint64_t index = i == 10 ? 0 : (cell.bits >> (52 - (i + 1) * 5)) & 0x1f;
    out[i] = kAlphabet[index];
  }
}

size_t FormatDistance(double value, char* out) {
  if (value == 0) {
    std::memcpy(out, "0.0000", 6);
    return 6;
  }
  // llrint of the scaled value; x86-64 answers INT64_MIN when it does not fit.
  const double scaled = value * 10000.0;
  int64_t rounded = INT64_MIN;
  if (!std::isnan(scaled) && scaled < 9223372036854775808.0 && scaled >= -9223372036854775808.0) {
    rounded = std::llrint(scaled);
  }
  size_t length = 0;
  uint64_t magnitude = static_cast<uint64_t>(rounded);
  if (rounded < 0) {
    out[length++] = '-';
    magnitude = 0 - magnitude;
  }
  // At least "0.dddd": the digits right-aligned, zero-padded to five.
  char digits[24];
  size_t count = 0;
  do {
    digits[count++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  while (count < 5) digits[count++] = '0';
  for (size_t i = count; i > 0; i--) {
    if (i == 4) out[length++] = '.';
    out[length++] = digits[i - 1];
  }
  return length;
}

}  // namespace keel::geo
