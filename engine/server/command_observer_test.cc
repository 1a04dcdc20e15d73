// Tests for Engine::CommandObserver: it sees every command the loop parses, in execution order,
// rejected ones included, and hears about each after its reply is in the client's output.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class RecordingObserver final : public CommandObserver {
 public:
  void BeforeCommand(const Client& client, std::span<const std::string_view> args) override {
    std::string line = std::to_string(client.id()) + ":";
    for (std::string_view arg : args) line += " " + std::string(arg);
    events.push_back(line);
    pending_before = client_output(client);
  }
  void AfterCommand(const Client& client) override {
    events.push_back("after, reply bytes " +
                     std::to_string(client_output(client) - pending_before));
  }
  std::vector<std::string> events;

 private:
  static size_t client_output(const Client& client) { return client.output().pending_bytes(); }
  size_t pending_before = 0;
};

class CommandObserverTest : public ServerTest {};

TEST_F(CommandObserverTest, SeesEveryCommandInOrderWithItsReply) {
  RecordingObserver observer;
  engine_->set_command_observer(&observer);
  const sim::SimClientId first = Connect();
  const sim::SimClientId second = Connect();
  env_.sim_network().Send(first, Request({"SET", "k", "v"}) + "NOSUCH a\r\n");
  env_.sim_network().Send(second, "GET k\r\nGET\r\n");
  Settle();
  engine_->set_command_observer(nullptr);
  EXPECT_EQ(observer.events,
            (std::vector<std::string>{"1: SET k v", "after, reply bytes 5", "1: NOSUCH a",
                                      "after, reply bytes 63", "2: GET k", "after, reply bytes 7",
                                      "2: GET", "after, reply bytes 50"}));
}

}  // namespace
}  // namespace keel::testing
