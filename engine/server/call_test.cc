// Engine::Call from inside a running command, as EXEC, a script's redis.call, the AOF loader and
// a replica will use it: the command time stays frozen for everything inside one unit, every
// call is accounted on its own, the frames keep their own redaction and propagation, and the
// unit propagates once, as MULTI ... EXEC around what it changed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/commands/context.h"
#include "engine/db/propagation.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Bulk;
using testing::ConfigWith;
using testing::Int;
using testing::Ok;

// NEST cmd args... [-- cmd args...]...: runs each command inside itself (as a script would),
// replying nothing of its own, and propagates only what they changed. NEST-SECRET hides its first
// argument (as AUTH does) before running the rest; NEST-PRIMARY runs them as a replica applies
// its primary's stream.
void CmdNest(CommandContext& context) {
  context.PreventPropagation();
  uint32_t flags = kCallFromScript;
  size_t first = 1;
  if (context.spec.name == "nest-primary") flags = kCallFromPrimary;
  if (context.spec.name == "nest-secret") {
    context.Redact(1);
    first = 2;
  }
  std::vector<std::string_view> inner;
  for (size_t i = first; i <= context.argc(); i++) {
    if (i < context.argc() && context.arg(i) != "--") {
      inner.push_back(context.arg(i));
      continue;
    }
    bool unknown_subcommand = false;
    const CommandSpec* spec = context.server().registry().Resolve(inner, &unknown_subcommand);
    if (spec == nullptr || !spec->ArityAccepts(inner.size())) {
      context.reply.Error("ERR bad nested command");
      return;
    }
    context.server().Call(context.client, *spec, inner, flags);
    inner.clear();
  }
}

constexpr CommandDef kNestCommands[] = {
    {.name = "nest",
     .arity = -2,
     .flags = "write",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Runs commands inside itself",
     .args = "",
     .handler = CmdNest},
    {.name = "nest-secret",
     .arity = -3,
     .flags = "write",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Runs commands inside itself",
     .args = "",
     .handler = CmdNest},
    {.name = "nest-primary",
     .arity = -2,
     .flags = "write",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Runs commands inside itself",
     .args = "",
     .handler = CmdNest},
};

const Registry& NestRegistry() {
  static const Registry* const kRegistry = [] {
    auto* registry = new Registry();
    registry->AddBuiltins();
    registry->Add(kNestCommands);
    return registry;
  }();
  return *kRegistry;
}

class Recording final : public PropagationSink {
 public:
  void Propagate(int db, std::span<const std::string_view> args) override {
    std::string line = std::to_string(db);
    for (std::string_view arg : args) line += " " + std::string(arg);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

class CallTest : public testing::CommandTest {
 protected:
  void SetUp() override {
    engine_ = std::make_unique<Engine>(
        env_, ConfigWith({{"enable-debug-command", "yes"}, {"slowlog-log-slower-than", "0"}}),
        StartupInfo{}, NestRegistry());
    client_ = engine_->NewClient(0, nullptr);
    engine_->keyspace().propagation().AddSink(&sink_);
  }
  void TearDown() override { engine_->keyspace().propagation().RemoveSink(&sink_); }

  uint64_t Calls(std::string_view name) {
    return engine_->stats().commands[engine_->registry().FindByFullName(name)->id].calls;
  }

  Recording sink_;
};

TEST_F(CallTest, InnerCommandsRunAtTheUnitsCommandTime) {
  // DEBUG SLEEP moves the clock by a second inside the unit; the SET after it still runs at the
  // time the unit started, so its 500 ms are over by the time the unit ends.
  const std::string replies = RunRaw(
      {"nest", "debug", "sleep", "1", "--", "set", "k", "v", "px", "500", "--", "pttl", "k"});
  EXPECT_EQ(replies, "+OK\r\n+OK\r\n:500\r\n");
  EXPECT_EQ(Run({"pttl", "k"}), Int(-2));
}

TEST_F(CallTest, TheUnitPropagatesWhatItsCommandsChangedAsOneTransaction) {
  RunRaw({"nest", "set", "a", "1", "--", "incr", "a", "--", "get", "a"});
  EXPECT_EQ(sink_.lines, (std::vector<std::string>{"0 MULTI", "0 set a 1", "0 incr a", "-1 EXEC"}));
  sink_.lines.clear();
  // One change is propagated alone; a unit that changed nothing propagates nothing.
  RunRaw({"nest", "incr", "a", "--", "get", "a"});
  EXPECT_EQ(sink_.lines, (std::vector<std::string>{"0 incr a"}));
  sink_.lines.clear();
  RunRaw({"nest", "get", "a"});
  EXPECT_TRUE(sink_.lines.empty());
  EXPECT_EQ(Run({"get", "a"}), Bulk("3"));
}

TEST_F(CallTest, EveryCallIsAccountedOnItsOwn) {
  RunRaw({"nest", "set", "a", "1", "--", "incr", "a", "--", "incr", "a"});
  EXPECT_EQ(Calls("nest"), 1u);
  EXPECT_EQ(Calls("set"), 1u);
  EXPECT_EQ(Calls("incr"), 2u);
  // The client processed one command, whose name CLIENT LIST shows.
  EXPECT_EQ(client_->commands_processed, 1u);
  EXPECT_EQ(client_->last_command->name, "nest");
}

TEST_F(CallTest, AnInnerCallKeepsTheOuterRedactionApart) {
  // The inner command is logged with its own arguments; the outer one keeps its secret hidden
  // although a command ran between its Redact and its accounting.
  RunRaw({"nest-secret", "hunter2", "set", "a", "1"});
  const RespValue log = Run({"slowlog", "get", "2"});
  ASSERT_EQ(log.elements.size(), 2u);
  const RespValue& outer = log.elements[0].elements[3];
  const RespValue& inner = log.elements[1].elements[3];
  EXPECT_EQ(outer, testing::Array({Bulk("nest-secret"), Bulk("(redacted)"), Bulk("set"), Bulk("a"),
                                   Bulk("1")}));
  EXPECT_EQ(inner, testing::Array({Bulk("set"), Bulk("a"), Bulk("1")}));
}

TEST_F(CallTest, CommandsFromThePrimaryLeaveExpiryToIt) {
  ASSERT_EQ(Run({"set", "k", "v", "px", "10"}), Ok());
  AdvanceMs(20);
  // Past its time, but the primary has not said so: still there, and a past PEXPIREAT sets the
  // time instead of deleting the key.
  EXPECT_EQ(RunRaw({"nest-primary", "get", "k", "--", "pexpireat", "k", "1"}), "$1\r\nv\r\n:1\r\n");
  EXPECT_EQ(engine_->database(0).size(), 1u);
  // A client's own lookup decides again.
  EXPECT_EQ(Run({"get", "k"}), testing::NilBulk());
  EXPECT_EQ(engine_->database(0).size(), 0u);
}

}  // namespace
}  // namespace keel
