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
  void CommandPostponed(const Client& client) override {
    events.push_back(std::to_string(client.id()) + " postponed");
  }
  void CommandBlocked(const Client& client) override {
    events.push_back(std::to_string(client.id()) + " blocked");
  }
  void BeforeRetry(const Client& client) override {
    events.push_back(std::to_string(client.id()) + " retry");
    pending_before = client_output(client);
  }
  void BlockEnded(const Client& client) override {
    events.push_back(std::to_string(client.id()) + " wait ended");
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

TEST_F(CommandObserverTest, HearsOfACommandThatClientPauseHoldsBackAndSeesItAgainWhenItRuns) {
  RecordingObserver observer;
  engine_->set_command_observer(&observer);
  const sim::SimClientId pauser = Connect();
  const sim::SimClientId writer = Connect();
  env_.sim_network().Send(pauser, "CLIENT PAUSE 100000 WRITE\r\n");
  Settle();
  env_.sim_network().Send(writer, "SET k v\r\n");
  Settle();
  env_.sim_network().Send(pauser, "CLIENT UNPAUSE\r\n");
  Settle();
  engine_->set_command_observer(nullptr);
  // The loop may retry the held command on every tick; each try is seen and then postponed.
  const std::vector<std::string>& events = observer.events;
  ASSERT_GE(events.size(), 8u);
  EXPECT_EQ(std::vector<std::string>(events.begin(), events.begin() + 2),
            (std::vector<std::string>{"1: CLIENT PAUSE 100000 WRITE", "after, reply bytes 5"}));
  size_t i = 2;
  while (i + 1 < events.size() && events[i] == "2: SET k v" && events[i + 1] == "2 postponed") {
    i += 2;
  }
  EXPECT_GT(i, 2u) << "the paused SET was never postponed";
  EXPECT_EQ(std::vector<std::string>(events.begin() + static_cast<std::ptrdiff_t>(i), events.end()),
            (std::vector<std::string>{"1: CLIENT UNPAUSE", "after, reply bytes 5", "2: SET k v",
                                      "after, reply bytes 5"}));
}

TEST_F(CommandObserverTest, HearsOfABlockedCommandAndSeesItRunAgainWhenServed) {
  RecordingObserver observer;
  engine_->set_command_observer(&observer);
  const sim::SimClientId waiter = Connect();
  const sim::SimClientId pusher = Connect();
  env_.sim_network().Send(waiter, Request({"BLPOP", "q", "0"}));
  Settle();
  env_.sim_network().Send(pusher, Request({"RPUSH", "q", "a"}));
  Settle();
  engine_->set_command_observer(nullptr);
  EXPECT_EQ(observer.events,
            (std::vector<std::string>{"1: BLPOP q 0", "1 blocked", "2: RPUSH q a",
                                      "after, reply bytes 4", "1 retry", "after, reply bytes 18"}));
}

}  // namespace
}  // namespace keel::testing
