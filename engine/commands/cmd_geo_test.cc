// Unit tests of the geo family (cmd_geo.cc). The replies, errors, events and propagation named
// here were checked against redis-server 7.0.15.
#include <string>
#include <vector>

#include "engine/commands/string_test_fixture.h"
#include "engine/db/propagation.h"
#include "engine/registry/errors.h"

namespace keel::testing {
namespace {

class GeoCommandsTest : public StringTest {
 protected:
  void AddSicily() {
    ASSERT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269",
                   "37.502669", "Catania"}),
              Int(2));
  }
};

class CapturedPropagation final : public PropagationSink {
 public:
  void Propagate(int /*db*/, std::span<const std::string_view> args) override {
    if (args.size() == 1 && (args[0] == "MULTI" || args[0] == "EXEC")) return;
    commands.emplace_back(args.begin(), args.end());
  }
  std::vector<std::vector<std::string>> commands;
};

TEST_F(GeoCommandsTest, GeoaddStoresGeohashScores) {
  AddSicily();
  EXPECT_EQ(Run({"zscore", "Sicily", "Palermo"}), Bulk("3479099956230698"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "nx", "13.361389", "38.115556", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "Sicily", "xx", "ch", "15", "37", "Palermo", "1", "1", "new"}), Int(1));
  EXPECT_EQ(Run({"zcard", "Sicily"}), Int(2));
  EXPECT_EQ(Run({"geoadd", "Sicily", "ch", "15", "37", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "Sicily", "nx", "xx", "1", "1", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "1", "1"}),
            Err("ERR wrong number of arguments for 'geoadd' command"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "1", "1", "a", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "ch", "ch", "ch"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "gt", "1", "1", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "x", "1", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "200", "100", "a"}),
            Err("ERR invalid longitude,latitude pair 200.000000,100.000000"));
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"geoadd", "s", "1", "1", "a"}), Err(errors::kWrongType));
  // The coordinates are checked before the key's type.
  EXPECT_EQ(Run({"geoadd", "s", "1", "100", "a"}),
            Err("ERR invalid longitude,latitude pair 1.000000,100.000000"));
}

TEST_F(GeoCommandsTest, GeoaddPropagatesAsZadd) {
  CapturedPropagation sink;
  engine_->keyspace().propagation().AddSink(&sink);
  EXPECT_EQ(Run({"geoadd", "g", "CH", "13.361389", "38.115556", "Palermo"}), Int(1));
  EXPECT_EQ(Run({"geoadd", "g", "nx", "13.361389", "38.115556", "Palermo"}), Int(0));
  ASSERT_EQ(sink.commands.size(), 1u);
  EXPECT_EQ(sink.commands[0],
            (std::vector<std::string>{"zadd", "g", "CH", "3479099956230698", "Palermo"}));
  engine_->keyspace().propagation().RemoveSink(&sink);
}

TEST_F(GeoCommandsTest, PositionsHashesAndDistances) {
  AddSicily();
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania"}), Bulk("166274.1516"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "KM"}), Bulk("166.2742"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "nope"}), NilBulk());
  EXPECT_EQ(Run({"geodist", "nokey", "Palermo", "Catania"}), NilBulk());
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "yd"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "m", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geohash", "Sicily", "Palermo", "Catania", "nope"}),
            Array({Bulk("sqc8b49rny0"), Bulk("sqdtr74hyu0"), NilBulk()}));
  EXPECT_EQ(Run({"geohash", "nokey", "a"}), Array({NilBulk()}));
  EXPECT_EQ(
      Run({"geopos", "Sicily", "Palermo", "nope"}),
      Array({Array({Bulk("13.36138933897018433"), Bulk("38.11555639549629859")}), NullArray()}));
  EXPECT_EQ(Run({"geopos", "nokey"}), Array({}));
}

TEST_F(GeoCommandsTest, RadiusSearchOptions) {
  AddSicily();
  EXPECT_EQ(
      Run({"georadius", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "withhash"}),
      Array({Array({Bulk("Palermo"), Bulk("190.4424"), Int(3479099956230698),
                    Array({Bulk("13.36138933897018433"), Bulk("38.11555639549629859")})}),
             Array({Bulk("Catania"), Bulk("56.4413"), Int(3479447370796909),
                    Array({Bulk("15.08726745843887329"), Bulk("37.50266842333162032")})})}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "count", "1", "desc"}),
            Array({Bulk("Palermo")}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "count", "1"}),
            Array({Bulk("Catania")}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "400", "400", "km",
                 "asc", "withdist"}),
            Array({Array({Bulk("Catania"), Bulk("56.4413")}),
                   Array({Bulk("Palermo"), Bulk("190.4424")})}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "byradius", "1", "m"}),
            Array({Bulk("Palermo")}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "km"}), Array({}));
  EXPECT_EQ(Run({"georadius_ro", "Sicily", "15", "37", "200", "km", "store", "x"}),
            Err("ERR syntax error"));
}

TEST_F(GeoCommandsTest, SearchErrorsInRedisOrder) {
  AddSicily();
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "-1", "km"}),
            Err("ERR radius cannot be negative"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "r", "km"}), Err("ERR need numeric radius"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "km", "count", "0"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "km", "count", "x"}),
            Err(errors::kNotInteger));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "km", "any"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "km", "withdist", "store", "d"}),
            Err("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
                "WITHCOORD options"));
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "nope", "1", "km"}),
            Err("ERR could not decode requested zset member"));
  EXPECT_EQ(Run({"GeoSearch", "Sicily", "byradius", "1", "km", "withdist", "asc"}),
            Err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "1", "1", "asc", "desc"}),
            Err("ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "1", "1", "frommember", "Palermo", "byradius",
                 "1", "m"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "1", "1", "bybox", "-1", "1", "m"}),
            Err("ERR height or width cannot be negative"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "1", "1", "bybox", "w", "1", "m"}),
            Err("ERR need numeric width"));
  EXPECT_EQ(Run({"geosearchstore", "d", "Sicily", "fromlonlat", "1", "1", "byradius", "1", "m",
                 "withcoord"}),
            Err("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD "
                "options"));
  EXPECT_EQ(Run({"geosearchstore", "d", "Sicily", "fromlonlat", "1", "1", "byradius", "1", "m",
                 "store", "x"}),
            Err("ERR syntax error"));
  // A missing key: the options are still checked, the member is not.
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "x", "y", "z"}), Array({}));
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "x", "y", "z", "any"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(Run({"geosearch", "nokey", "frommember", "x", "byradius", "1", "m"}), Array({}));
}

TEST_F(GeoCommandsTest, StoreFormsWriteSortedSets) {
  AddSicily();
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "Palermo", "200", "km", "store", "dst"}), Int(2));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Array({Bulk("Palermo"), Bulk("3479099956230698"), Bulk("Catania"),
                   Bulk("3479447370796909")}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "storedist", "dd"}), Int(2));
  EXPECT_EQ(Run({"zrange", "dd", "0", "-1", "withscores"}),
            Array({Bulk("Catania"), Bulk("56.441257870158204"), Bulk("Palermo"),
                   Bulk("190.44242984775784")}));
  EXPECT_EQ(Run({"object", "encoding", "dd"}), Bulk("listpack"));
  EXPECT_EQ(Run({"geosearchstore", "dd", "Sicily", "fromlonlat", "15", "37", "byradius", "100",
                 "km", "storedist"}),
            Int(1));
  EXPECT_EQ(Run({"zrange", "dd", "0", "-1"}), Array({Bulk("Catania")}));
  // Nothing found: the destination is deleted.
  EXPECT_EQ(Run({"geosearchstore", "dd", "Sicily", "fromlonlat", "0", "0", "byradius", "1", "km"}),
            Int(0));
  EXPECT_EQ(Run({"exists", "dd"}), Int(0));
  EXPECT_EQ(Run({"set", "dst", "x"}), Ok());
  EXPECT_EQ(Run({"georadius", "nokey", "15", "37", "200", "km", "store", "dst"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
}

TEST_F(GeoCommandsTest, AnyStopsAtTheFirstMatches) {
  for (int i = 0; i < 50; i++) {
    const std::string lon = std::to_string(10 + i * 0.001);
    ASSERT_EQ(Run({"geoadd", "g", lon, "10", "m" + std::to_string(i)}), Int(1));
  }
  const RespValue any = Run(
      {"geosearch", "g", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "3", "any"});
  EXPECT_EQ(any.elements.size(), 3u);
  const RespValue nearest =
      Run({"geosearch", "g", "fromlonlat", "10.049", "10", "byradius", "100", "km", "count", "2"});
  EXPECT_EQ(nearest, Array({Bulk("m49"), Bulk("m48")}));
}

}  // namespace
}  // namespace keel::testing
