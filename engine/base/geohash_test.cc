// Tests of the geohash arithmetic. The expected scores, positions, texts and distances are what
// redis-server 7.0.15 answers (GEOADD's scores, GEOPOS, GEOHASH, GEODIST).
#include "engine/base/geohash.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/base/numbers.h"

namespace keel::geo {
namespace {

std::string Human(double value) {
  char text[kLongDoubleTextMax];
  return std::string(text, FormatLongDoubleHuman(static_cast<long double>(value), text));
}

std::string DistanceText(double value) {
  char text[kDistanceTextMax];
  return std::string(text, FormatDistance(value, text));
}

TEST(GeohashTest, ScoresAreRedisScores) {
  EXPECT_EQ(ScoreOf(13.361389, 38.115556), 3479099956230698u);
  EXPECT_EQ(ScoreOf(15.087269, 37.502669), 3479447370796909u);
  EXPECT_EQ(ScoreOf(-180, -85.05112878), 0u);
  // The upper limits give a 53-bit score, as in Redis.
  EXPECT_EQ(ScoreOf(180, 85.05112878), 13510798882111488u);
}

TEST(GeohashTest, DecodedPositionsPrintRedisDigits) {
  const Point palermo = DecodeScore(3479099956230698.0);
  EXPECT_EQ(Human(palermo.longitude), "13.36138933897018433");
  EXPECT_EQ(Human(palermo.latitude), "38.11555639549629859");
  const Point edge = DecodeScore(13510798882111488.0);
  EXPECT_EQ(Human(edge.longitude), "180");
  EXPECT_EQ(Human(edge.latitude), "85.0511287799999991");
}

TEST(GeohashTest, AnyScoreDecodesAsX86ConvertsIt) {
  // ZADD g -1 neg ... GEOPOS g neg: every bit set, clamped to the limits.
  EXPECT_EQ(ScoreBits(-1), ~uint64_t{0});
  EXPECT_EQ(ScoreBits(1e30), 0u);
  EXPECT_EQ(ScoreBits(-1e30), uint64_t{1} << 63);
  EXPECT_EQ(ScoreBits(1.0 / 0.0), 0u);
  EXPECT_EQ(ScoreBits(-1.0 / 0.0), uint64_t{1} << 63);
  EXPECT_EQ(ScoreBits(1.5), 1u);
  const Point negative = DecodeScore(-1);
  EXPECT_EQ(Human(negative.longitude), "180");
  EXPECT_EQ(Human(negative.latitude), "85.0511287799999991");
  const Point zero = DecodeScore(1e30);
  EXPECT_EQ(Human(zero.longitude), "-179.99999731779098511");
  EXPECT_EQ(Human(zero.latitude), "-85.05112751263942528");
  const Point sign = DecodeScore(-1e30);
  EXPECT_EQ(Human(sign.longitude), "180");
  EXPECT_EQ(Human(sign.latitude), "-85.05112751263942528");
  EXPECT_EQ(ScoreAsInt64(3479099956230698.5), 3479099956230698);
  EXPECT_EQ(ScoreAsInt64(1e30), INT64_MIN);
}

TEST(GeohashTest, GeohashTextIsRedisText) {
  char text[11];
  GeohashText(3479099956230698.0, text);
  EXPECT_EQ(std::string(text, 11), "sqc8b49rny0");
  GeohashText(3479447370796909.0, text);
  EXPECT_EQ(std::string(text, 11), "sqdtr74hyu0");
  GeohashText(-1, text);
  EXPECT_EQ(std::string(text, 11), "bp05b5048p0");
  GeohashText(1.5, text);
  EXPECT_EQ(std::string(text, 11), "00bh0hbj210");
}

TEST(GeohashTest, DistancesAreRedisDistances) {
  const Point palermo = DecodeScore(3479099956230698.0);
  const Point catania = DecodeScore(3479447370796909.0);
  const double meters =
      Distance(palermo.longitude, palermo.latitude, catania.longitude, catania.latitude);
  EXPECT_EQ(DistanceText(meters), "166274.1516");
  EXPECT_EQ(DistanceText(meters / 1000), "166.2742");
  const Point edge = DecodeScore(13510798882111488.0);
  const Point origin = DecodeScore(0);
  EXPECT_EQ(DistanceText(
                Distance(edge.longitude, edge.latitude, origin.longitude, origin.latitude) / 1000),
            "18919.8446");
  // The same meridian takes the latitude-only path.
  EXPECT_EQ(Distance(10, 20, 10, 21), LatitudeDistance(20, 21));
}

TEST(GeohashTest, DistanceTextRoundsToFourDecimals) {
  EXPECT_EQ(DistanceText(0), "0.0000");
  // Halves round to even: 0.03125 and 0.09375 are exact in binary.
  EXPECT_EQ(DistanceText(0.03125), "0.0312");
  EXPECT_EQ(DistanceText(0.09375), "0.0938");
  EXPECT_EQ(DistanceText(0.00004), "0.0000");
  EXPECT_EQ(DistanceText(0.0005), "0.0005");
  EXPECT_EQ(DistanceText(12.3456), "12.3456");
  EXPECT_EQ(DistanceText(56.441257870158204), "56.4413");
  EXPECT_EQ(DistanceText(-1.5), "-1.5000");
}

TEST(GeohashTest, NeighboursWrapAroundTheGrid) {
  Cell cell;
  ASSERT_TRUE(Encode(kLongitudeRange, kLatitudeRange, -179.9, 0, 3, &cell));
  const Cell west = Move(cell, -1, 0);
  const Area area = Decode(kLongitudeRange, kLatitudeRange, west);
  EXPECT_DOUBLE_EQ(area.longitude.max, 180);
  EXPECT_EQ(Move(west, 1, 0).bits, cell.bits);
  EXPECT_EQ(Move(Move(cell, 1, 1), -1, -1).bits, cell.bits);
}

TEST(GeohashTest, StepsFollowTheRadius) {
  EXPECT_EQ(EstimateSteps(0, 0), 26);
  EXPECT_EQ(EstimateSteps(200000, 0), 6);
  EXPECT_EQ(EstimateSteps(200000, 70), 5);
  EXPECT_EQ(EstimateSteps(200000, -85), 4);
  EXPECT_EQ(EstimateSteps(1e9, 0), 1);
  EXPECT_EQ(EstimateSteps(1.0 / 0.0, 0), 1);
}

TEST(GeohashTest, SearchCellsCoverTheShape) {
  Shape shape;
  shape.center = Point{15, 37};
  shape.radius = 200;
  shape.conversion = 1000;
  const std::array<Cell, 9> cells = SearchCells(shape);
  EXPECT_FALSE(cells[0].none());
  // Both members lie within the union of the cells' score ranges.
  for (const uint64_t score : {3479099956230698u, 3479447370796909u}) {
    bool covered = false;
    for (const Cell& cell : cells) {
      if (cell.none()) continue;
      uint64_t min = 0;
      uint64_t max = 0;
      ScoreRangeOf(cell, &min, &max);
      covered = covered || (score >= min && score < max);
    }
    EXPECT_TRUE(covered) << score;
  }
}

}  // namespace
}  // namespace keel::geo
