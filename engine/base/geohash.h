// Geohash arithmetic for the geo commands: Redis's 52-bit interleaved geohash of a longitude and
// latitude (the score GEOADD stores in a sorted set), its decoding, the nine cells a radius or
// box search visits, great-circle distances, and the text forms GEOHASH and the distances use.
//
// Every result must be the bits Redis 7.0 computes (geohash.c, geohash_helper.c, geo.c), because
// scores, coordinates and distances are printed to 17 significant digits and compared byte for
// byte: the same operations in the same order, the same constants, the same libm calls. Where
// Redis's C relies on x86-64's conversions of out-of-range doubles to integers, those are
// written out (ScoreBits, ScoreAsInt64), so that the engine's behaviour does not rest on
// undefined behaviour.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace keel::geo {

// The limits of EPSG:3857 that Redis indexes (geohash.h): no geocoding at the poles.
inline constexpr double kLongitudeMin = -180;
inline constexpr double kLongitudeMax = 180;
inline constexpr double kLatitudeMin = -85.05112878;
inline constexpr double kLatitudeMax = 85.05112878;
// 26 steps of two bits: a 52-bit score, exactly representable in a double.
inline constexpr int kStepMax = 26;
// The Earth's quadratic mean radius for WGS-84, as Redis uses it for every distance.
inline constexpr double kEarthRadiusMeters = 6372797.560856;

struct Range {
  double min;
  double max;
};
inline constexpr Range kLongitudeRange{kLongitudeMin, kLongitudeMax};
inline constexpr Range kLatitudeRange{kLatitudeMin, kLatitudeMax};

// A cell of the grid at `step` (1..32): 2*step interleaved bits, latitude in the even
// positions and longitude in the odd ones. bits 0 with step 0 is "no cell" (a search area
// that was ruled out).
struct Cell {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool none() const { return bits == 0 && step == 0; }
};

struct Point {
  double longitude = 0;
  double latitude = 0;
};

struct Area {
  Range longitude;
  Range latitude;
};

// The cell of (longitude, latitude) at `step` within the given ranges (geohashEncode). False,
// with *cell {0, step}, when the point is outside the indexable limits or the ranges.
bool Encode(Range longitude_range, Range latitude_range, double longitude, double latitude,
            int step, Cell* cell);
// The bits of `cell` shifted to a 52-bit score (geohashAlign52Bits).
uint64_t Align52(Cell cell);
// GEOADD's score of a valid point (within the limits): its cell at kStepMax, aligned. A point
// on the upper limits gets a 53-bit score, as in Redis.
uint64_t ScoreOf(double longitude, double latitude);

// The area `cell` covers (geohashDecode). Works on every cell, even "no cell".
Area Decode(Range longitude_range, Range latitude_range, Cell cell);
// The position a sorted-set score stands for (decodeGeohash): the centre of its 52-bit cell,
// clamped to the limits. Any score decodes, as in Redis: the score is first converted to an
// unsigned 64-bit integer as x86-64 converts (ScoreBits).
Point DecodeScore(double score);
// (uint64_t)score as gcc compiles it for x86-64: truncation within [0, 2^64), 2^64 - 1 - ...
// wrap-around for negative values of int64 range, 0x8000000000000000 for those below it and
// -inf, and 0 for +inf and values of 2^64 and more.
uint64_t ScoreBits(double score);
// (long long)score as x86-64 converts it: truncation, INT64_MIN when out of range.
int64_t ScoreAsInt64(double score);

// The neighbour of `cell` `dx` cells east (-1 west) and `dy` cells north (-1 south), wrapping
// around the grid (geohash_move_x/geohash_move_y).
Cell Move(Cell cell, int dx, int dy);

// Great-circle distance in meters between two points (geohashGetDistance: haversine).
double Distance(double longitude1, double latitude1, double longitude2, double latitude2);
// The distance along a meridian between two latitudes (geohashGetLatDistance).
double LatitudeDistance(double latitude1, double latitude2);

// A search area: a circle of `radius`, or an axis-aligned box of `width` x `height`, around
// `center`, in units of `conversion` meters.
struct Shape {
  enum class Kind : uint8_t { kCircle, kBox };
  Kind kind = Kind::kCircle;
  Point center;
  double radius = 0;
  double width = 0;
  double height = 0;
  double conversion = 1;  // meters per unit
};

// The cells a search visits, in the order Redis visits them: the centre's cell, then north,
// south, east, west, north-east, north-west, south-east, south-west (geohashCalculateAreas-
// ByShapeWGS84). Cells that cannot hold a match are "no cell".
std::array<Cell, 9> SearchCells(const Shape& shape);
// The step the search's cells have before the edge check (geohashEstimateStepsByRadius).
int EstimateSteps(double range_meters, double latitude);
// The score range [*min, *max) the points of `cell` have (scoresOfGeoHashBox).
void ScoreRangeOf(Cell cell, uint64_t* min, uint64_t* max);
// Whether the point of `score` lies in `shape` (geoWithinShape): its position and its distance
// from the centre in meters when it does.
bool WithinShape(const Shape& shape, double score, Point* point, double* distance_meters);

// GEOHASH's 11-character standard geohash of the point of `score` (re-encoded over latitudes
// -90..90, the last character always '0'). Writes 11 bytes.
void GeohashText(double score, char* out);
// A distance as the geo commands print it (fixedpoint_d2string with 4 decimals: the value
// times 10^4 rounded to nearest-even). `out` holds at least kDistanceTextMax bytes; returns
// the length.
inline constexpr size_t kDistanceTextMax = 32;
size_t FormatDistance(double value, char* out);

}  // namespace keel::geo
