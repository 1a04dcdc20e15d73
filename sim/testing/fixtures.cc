#include "sim/testing/fixtures.h"

#include "engine/base/numbers.h"

namespace keel::testing {

RespValue Array(std::initializer_list<RespValue> elements) {
  return RespValue::Array(std::vector<RespValue>(elements));
}

std::vector<RespValue> DecodeAll(std::string_view bytes) {
  std::vector<RespValue> values;
  while (!bytes.empty()) {
    RespValue value;
    size_t consumed = 0;
    const DecodeStatus status = DecodeResp(bytes, &value, &consumed);
    EXPECT_NE(status, DecodeStatus::kInvalid) << "invalid RESP: " << bytes;
    if (status != DecodeStatus::kOk) break;
    values.push_back(std::move(value));
    bytes.remove_prefix(consumed);
  }
  return values;
}

std::string Request(std::initializer_list<std::string_view> args) {
  std::string request = "*" + Int64ToString(static_cast<int64_t>(args.size())) + "\r\n";
  for (std::string_view arg : args) {
    request += "$" + Int64ToString(static_cast<int64_t>(arg.size())) + "\r\n";
    request.append(arg);
    request += "\r\n";
  }
  return request;
}

void CommandTest::SetUp() { StartEngine(); }

void CommandTest::StartEngine(Config config) {
  client_ = nullptr;
  engine_.reset();
  engine_ = std::make_unique<Engine>(env_, std::move(config));
  client_ = engine_->NewClient(0, nullptr);
}

std::string CommandTest::RunArgs(std::span<const std::string_view> args) {
  engine_->RunCommand(*client_, args);
  return client_->output().TakeAll();
}

std::string CommandTest::RunRaw(std::initializer_list<std::string_view> args) {
  return RunArgs(std::span<const std::string_view>(args.begin(), args.size()));
}

RespValue CommandTest::DecodeOne(const std::string& bytes) {
  std::vector<RespValue> replies = DecodeAll(bytes);
  EXPECT_EQ(replies.size(), 1u) << "expected exactly one reply, got: " << bytes;
  return replies.empty() ? RespValue() : replies.front();
}

RespValue CommandTest::Run(std::initializer_list<std::string_view> args) {
  return DecodeOne(RunRaw(args));
}

RespValue CommandTest::Run(const std::vector<std::string>& args) {
  std::vector<std::string_view> views(args.begin(), args.end());
  return DecodeOne(RunArgs(views));
}

void ServerTest::SetUp() { StartServer(); }

void ServerTest::TearDown() {
  server_.reset();
  engine_.reset();
}

void ServerTest::StartServer(Config config) {
  server_.reset();
  engine_.reset();
  engine_ = std::make_unique<Engine>(env_, std::move(config));
  server_ = std::make_unique<Server>(*engine_);
  ASSERT_TRUE(server_->Start().ok());
  ASSERT_FALSE(server_->listening_ports().empty());
  port_ = server_->listening_ports().front();
}

sim::SimClientId ServerTest::Connect() {
  const sim::SimClientId client = env_.sim_network().Connect(port_);
  EXPECT_NE(client, 0u);
  Settle();
  return client;
}

void ServerTest::Settle(int iterations_max) {
  // Each iteration either handles ready events or, when none is ready, lets virtual time reach
  // the next cron tick; two idle iterations in a row mean nothing is left to do.
  int idle = 0;
  for (int i = 0; i < iterations_max && idle < 2; i++) {
    const uint64_t before = engine_->stats().total_net_input_bytes +
                            engine_->stats().total_net_output_bytes +
                            engine_->stats().total_connections_received;
    if (!server_->RunOnce()) return;
    const uint64_t after = engine_->stats().total_net_input_bytes +
                           engine_->stats().total_net_output_bytes +
                           engine_->stats().total_connections_received;
    // The AOF's syncs make no traffic, but replies may wait for them (appendfsync always).
    const bool aof_busy = engine_->aof().pending_syncs() > 0 || engine_->aof().wants_pump();
    idle = after == before && !aof_busy ? idle + 1 : 0;
  }
}

std::vector<RespValue> ServerTest::Exchange(sim::SimClientId client, std::string_view request) {
  env_.sim_network().Send(client, request);
  Settle();
  return DecodeAll(env_.sim_network().Receive(client));
}

std::vector<RespValue> ServerTest::Ask(sim::SimClientId client,
                                       std::initializer_list<std::string_view> args) {
  return Exchange(client, Request(args));
}

void ServerTest::Send(sim::SimClientId client, std::initializer_list<std::string_view> args) {
  env_.sim_network().Send(client, Request(args));
  Settle();
}

std::vector<RespValue> ServerTest::Received(sim::SimClientId client) {
  return DecodeAll(env_.sim_network().Receive(client));
}

Config ConfigWith(std::initializer_list<Setting> settings) {
  Config config;
  for (const auto& [name, value] : settings) {
    const ConfigParam* param = Config::Find(name);
    EXPECT_NE(param, nullptr) << name;
    if (param == nullptr) continue;
    std::string error;
    EXPECT_TRUE(config.SetFromCommand(*param, value, &error)) << name << ": " << error;
  }
  return config;
}

}  // namespace keel::testing
