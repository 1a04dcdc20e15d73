// Every value the config table declares acceptable is one the engine can run with: for each
// parameter, its minimum and maximum (or each of its choices) are set as the config file sets
// them, an engine and its server loop start with the result and serve commands, and the
// parameters CONFIG SET may change are then set to the same values at run time. A declared range
// wider than what the engine takes (databases once said 2147483647 while the keyspace asserted
// at most 65536) fails here instead of aborting keel-server at start.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/server/config.h"
#include "engine/server/engine.h"
#include "engine/server/server.h"
#include "sim/sim_env.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

std::string OctalText(int64_t value) {
  std::string text;
  do {
    text.insert(text.begin(), static_cast<char>('0' + value % 8));
    value /= 8;
  } while (value > 0);
  return text;
}

// The boundary values of a parameter, as a config file spells them ("" when it has none to
// try: strings and special syntaxes have their own tests).
std::vector<std::string> BoundaryValues(const ConfigParam& param) {
  switch (param.kind) {
    case ConfigKind::kBool:
      return {"yes", "no"};
    case ConfigKind::kInteger:
    case ConfigKind::kMemory:
      if (param.flags & kConfigUnsigned) return {"0", "18446744073709551615"};
      // A negative minimum is a percentage of maxmemory, spelled "N%".
      if ((param.flags & kConfigPercent) && param.min < 0) {
        return {"0", Int64ToString(param.max), Int64ToString(-param.min) + "%"};
      }
      return {Int64ToString(param.min), Int64ToString(param.max)};
    case ConfigKind::kOctal:
      return {OctalText(param.min), OctalText(param.max)};
    case ConfigKind::kEnum: {
      std::vector<std::string> choices;
      std::string_view rest = param.choices;
      while (!rest.empty()) {
        const size_t space = rest.find(' ');
        choices.emplace_back(rest.substr(0, space));
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      }
      return choices;
    }
    case ConfigKind::kString:
    case ConfigKind::kSpecial:
      return {};
  }
  return {};
}

// Starts an engine and a server with `config`, serves a few commands over the simulated network,
// and returns the replies (empty when the server refused to start).
std::vector<RespValue> ServeWith(Config config, sim::SimEnv& env, bool* started) {
  Engine engine(env, std::move(config));
  Server server(engine);
  *started = server.Start().ok();
  if (!*started) return {};
  std::vector<RespValue> replies;
  const std::vector<uint16_t> ports = server.listening_ports();
  if (ports.empty()) return replies;
  sim::SimNetwork& net = env.sim_network();
  const sim::SimClientId client = net.Connect(ports.front());
  net.Send(client, Request({"SET", "k", "v"}) + Request({"GET", "k"}) +
                       Request({"SELECT", Int64ToString(engine.database_count() - 1)}) +
                       Request({"DBSIZE"}) + Request({"FLUSHALL"}) + "PING\r\n");
  for (int i = 0; i < 100 && replies.size() < 6; i++) {
    server.RunOnce();
    for (RespValue& reply : DecodeAll(net.Receive(client))) replies.push_back(std::move(reply));
  }
  // INFO and CONFIG GET read every parameter and every database.
  Client* internal = engine.NewClient(0, nullptr);
  engine.RunCommand(*internal, {"INFO", "everything"});
  engine.RunCommand(*internal, {"CONFIG", "GET", "*"});
  EXPECT_FALSE(internal->output().empty());
  internal->output().TakeAll();
  engine.FreeClient(internal);
  for (int i = 0; i < 20; i++) server.RunOnce();  // cron included
  return replies;
}

// Parameters whose values redis-server 7.0.15 refuses when CONFIG SET applies them although
// their syntax is right: TLS without certificates ("Unable to update TLS configuration") and
// active defragmentation without Redis's jemalloc.
bool RefusedWhenAppliedByRedis(std::string_view name) {
  return name == "tls-port" || name == "tls-replication" || name == "tls-cluster" ||
         name == "activedefrag";
}

// A value that makes the server refuse writes as Redis refuses them: min-replicas-to-write above
// 0 with no replica connected (NOREPLICAS; min-replicas-max-lag keeps its default of 10).
bool RefusesWrites(std::string_view name, std::string_view value) {
  return name == "min-replicas-to-write" && value != "0";
}

constexpr std::string_view kNoReplicas = "NOREPLICAS Not enough good replicas to write.";

TEST(ConfigRangeTest, EveryDeclaredValueStartsAServerThatServes) {
  size_t tried = 0;
  for (const ConfigParam& param : ConfigTable()) {
    for (const std::string& value : BoundaryValues(param)) {
      SCOPED_TRACE(std::string(param.name) + " " + value);
      Config config;
      // A port for the test's client, unless the parameter under test is the port.
      if (param.name != "port") {
        const std::string_view port[] = {"7000"};
        std::string ignored;
        ASSERT_TRUE(config.Set(*Config::Find("port"), port, &ignored));
      }
      const std::string_view words[] = {value};
      std::string error;
      if (!config.Set(param, words, &error)) {
        // The one refusal of a declared value: active defragmentation, as a Redis built
        // without its jemalloc refuses it (TLS values are only checked when applied).
        EXPECT_TRUE(RefusedWhenAppliedByRedis(param.name)) << error;
        continue;
      }
      sim::SimEnv env(/*seed=*/1);
      bool started = false;
      const std::vector<RespValue> replies = ServeWith(std::move(config), env, &started);
      tried++;
      if (param.name == "port" && value == "0") {
        // No TCP listener (and Keel has no unix socket): refused at start, as redis-server
        // refuses it (ServerStartTest covers the message).
        EXPECT_FALSE(started);
        continue;
      }
      ASSERT_TRUE(started);
      ASSERT_EQ(replies.size(), 6u);
      if (RefusesWrites(param.name, value)) {
        EXPECT_EQ(replies[0], Err(kNoReplicas));
        EXPECT_EQ(replies[5], Status("PONG"));
        continue;
      }
      EXPECT_EQ(replies[0], Ok());
      EXPECT_EQ(replies[1], Bulk("v"));
      EXPECT_EQ(replies[2], Ok());
      EXPECT_EQ(replies[5], Status("PONG"));
    }
  }
  EXPECT_GT(tried, 300u);
}

TEST(ConfigRangeTest, EveryMutableValueIsTakenByConfigSetAtRunTime) {
  sim::SimEnv env(/*seed=*/1);
  Engine engine(env, Config());
  Client* client = engine.NewClient(0, nullptr);
  size_t tried = 0;
  for (const ConfigParam& param : ConfigTable()) {
    if (param.flags & (kConfigImmutable | kConfigProtected)) continue;
    for (const std::string& value : BoundaryValues(param)) {
      SCOPED_TRACE(std::string(param.name) + " " + value);
      engine.RunCommand(*client, {"CONFIG", "SET", param.name, value});
      const std::string reply = client->output().TakeAll();
      if (RefusedWhenAppliedByRedis(param.name)) {
        // Accepted by the table, refused when applied, with redis-server 7.0.15's words.
        EXPECT_TRUE(reply == "+OK\r\n" ||
                    reply.starts_with("-ERR CONFIG SET failed (possibly related to argument '" +
                                      std::string(param.name) + "') - "))
            << reply;
      } else {
        EXPECT_EQ(reply, "+OK\r\n");
      }
      engine.RunCommand(*client, {"SET", "k", "v"});
      engine.RunCommand(*client, {"GET", "k"});
      engine.RunCommand(*client, {"DEL", "k"});
      const std::string served = client->output().TakeAll();
      if (RefusesWrites(param.name, value)) {
        const std::string refused = "-" + std::string(kNoReplicas) + "\r\n";
        EXPECT_EQ(served, refused + "$-1\r\n" + refused);
      } else {
        EXPECT_EQ(served, "+OK\r\n$1\r\nv\r\n:1\r\n");
      }
      engine.Cron();
      tried++;
      // Back to the default, so that one parameter's extreme does not hide another's.
      engine.RunCommand(*client, {"CONFIG", "SET", param.name, param.default_value});
      client->output().TakeAll();
    }
  }
  EXPECT_GT(tried, 200u);
}

}  // namespace
}  // namespace keel::testing
