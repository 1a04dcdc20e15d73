// Test fixtures that speak commands, over the simulated environment.
//
//   CommandTest: one engine and one internal client; Run({"set","k","v"}) returns the decoded
//     reply, with the virtual clock moved by AdvanceMs.
//   ServerTest: the engine's real Server loop over SimNetwork; tests connect clients, send bytes
//     (split as they like) and step the loop.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/resp/resp_value.h"
#include "engine/server/engine.h"
#include "engine/server/server.h"
#include "sim/sim_env.h"

namespace keel::testing {

// Expected replies, for EXPECT_EQ(Run(...), Ok()).
inline RespValue Ok() { return RespValue::Simple("OK"); }
inline RespValue Status(std::string_view text) { return RespValue::Simple(text); }
inline RespValue Int(int64_t value) { return RespValue::Integer(value); }
inline RespValue Bulk(std::string_view text) { return RespValue::Bulk(text); }
inline RespValue Err(std::string_view text) { return RespValue::Error(text); }
inline RespValue NilBulk() {
  RespValue value;
  value.type = RespType::kNullBulk;
  return value;
}
inline RespValue Null() {
  RespValue value;
  value.type = RespType::kNull;
  return value;
}
inline RespValue NullArray() {  // RESP2 "*-1"
  RespValue value;
  value.type = RespType::kNullArray;
  return value;
}
RespValue Array(std::initializer_list<RespValue> elements);

// Decodes every complete reply in `bytes`; fails the test on bytes that are not RESP.
std::vector<RespValue> DecodeAll(std::string_view bytes);

class CommandTest : public ::testing::Test {
 protected:
  explicit CommandTest(uint64_t seed = 1) : env_(seed) {}
  void SetUp() override;

  // Builds the engine (called by SetUp with a default Config; call again to use another).
  void StartEngine(Config config = Config());

  RespValue Run(std::initializer_list<std::string_view> args);
  RespValue Run(const std::vector<std::string>& args);
  // The raw reply bytes of one command.
  std::string RunRaw(std::initializer_list<std::string_view> args);
  void AdvanceMs(int64_t ms) { env_.sim_clock().Advance(ms * 1000); }
  std::string RunArgs(std::span<const std::string_view> args);
  RespValue DecodeOne(const std::string& bytes);

  sim::SimEnv env_;
  std::unique_ptr<Engine> engine_;
  Client* client_ = nullptr;
};

class ServerTest : public ::testing::Test {
 protected:
  explicit ServerTest(uint64_t seed = 1) : env_(seed) {}
  void SetUp() override;
  void TearDown() override;

  void StartServer(Config config = Config());
  sim::SimClientId Connect();
  // Runs loop iterations until no event is ready (at most `iterations_max`).
  void Settle(int iterations_max = 10000);
  // Sends `request`, settles, and returns every reply the client received.
  std::vector<RespValue> Exchange(sim::SimClientId client, std::string_view request);
  // The same for the command `args`.
  std::vector<RespValue> Ask(sim::SimClientId client, std::initializer_list<std::string_view> args);
  // For tests of several clients (blocking commands, pub/sub): sends `args` and settles without
  // reading a reply, and returns what a client received since the last look.
  void Send(sim::SimClientId client, std::initializer_list<std::string_view> args);
  std::vector<RespValue> Received(sim::SimClientId client);

  sim::SimEnv env_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Server> server_;
  uint16_t port_ = 0;
};

// A RESP multibulk request for `args`.
std::string Request(std::initializer_list<std::string_view> args);

// A Config with `settings` applied as CONFIG SET gives them (one value, split by the parameter
// when it takes several words); a name or value it refuses fails the test.
using Setting = std::pair<std::string_view, std::string_view>;
Config ConfigWith(std::initializer_list<Setting> settings);

}  // namespace keel::testing
