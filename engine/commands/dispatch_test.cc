// The errors of dispatch (Engine::Execute): unknown commands, unknown subcommands, wrong arity.
// Every expected text was checked against redis-server 7.0.15; conformance/cases/server.txt
// compares them byte for byte.
#include <string>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class DispatchTest : public CommandTest {};

TEST_F(DispatchTest, UnknownCommandQuotesItsArguments) {
  EXPECT_EQ(Run({"foo"}), Err("ERR unknown command 'foo', with args beginning with: "));
  EXPECT_EQ(Run({"FOO", "a b", "c"}),
            Err("ERR unknown command 'FOO', with args beginning with: 'a b' 'c' "));
  // Names and arguments are C strings to Redis: they end at a NUL byte.
  EXPECT_EQ(Run({std::string("foo\0bar", 7), "x"}),
            Err("ERR unknown command 'foo', with args beginning with: 'x' "));
  EXPECT_EQ(Run({"foo", std::string("a\0b", 3), "c"}),
            Err("ERR unknown command 'foo', with args beginning with: 'a' 'c' "));
  // Newlines in an error become spaces.
  EXPECT_EQ(Run({"foo", "a\r\nb"}),
            Err("ERR unknown command 'foo', with args beginning with: 'a  b' "));
}

TEST_F(DispatchTest, UnknownCommandCutsArgumentsAt128Bytes) {
  // Each argument gets what is left of 128 bytes before its opening quote.
  const std::string long_arg(140, 'a');
  EXPECT_EQ(Run({"foo", long_arg}), Err("ERR unknown command 'foo', with args beginning with: '" +
                                        std::string(128, 'a') + "' "));
  // 122 bytes quoted take 125 ("'...' "): the next argument gets 3 bytes, and that ends it.
  EXPECT_EQ(Run({"foo", std::string(122, 'a'), "bbbb", "c"}),
            Err("ERR unknown command 'foo', with args beginning with: '" + std::string(122, 'a') +
                "' 'bbb' "));
  const std::string long_name(140, 'x');
  EXPECT_EQ(Run({long_name}),
            Err("ERR unknown command '" + std::string(128, 'x') + "', with args beginning with: "));
}

TEST_F(DispatchTest, UnknownSubcommand) {
  EXPECT_EQ(Run({"client", "nosuch", "a"}),
            Err("ERR unknown subcommand 'nosuch'. Try CLIENT HELP."));
  EXPECT_EQ(Run({"Command", "nosuch"}), Err("ERR unknown subcommand 'nosuch'. Try COMMAND HELP."));
  EXPECT_EQ(Run({"client", std::string("sub\0cmd", 7)}),
            Err("ERR unknown subcommand 'sub'. Try CLIENT HELP."));
  EXPECT_EQ(Run({"client", std::string(140, 'a')}),
            Err("ERR unknown subcommand '" + std::string(128, 'a') + "'. Try CLIENT HELP."));
}

TEST_F(DispatchTest, WrongArityNamesTheCommandAsRedisDoes) {
  EXPECT_EQ(Run({"GET"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"set", "k"}), Err("ERR wrong number of arguments for 'set' command"));
  EXPECT_EQ(Run({"client"}), Err("ERR wrong number of arguments for 'client' command"));
  EXPECT_EQ(Run({"Client", "ID", "x"}),
            Err("ERR wrong number of arguments for 'client|id' command"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "get"}),
            Err("ERR wrong number of arguments for 'command|getkeysandflags' command"));
}

TEST_F(DispatchTest, RejectedCommandsCountAsRejectedNotCalled) {
  Run({"get"});
  Run({"get", "k"});
  const CommandStats& stats = engine_->stats().commands[engine_->registry().Find("get")->id];
  EXPECT_EQ(stats.calls, 1u);
  EXPECT_EQ(stats.rejected_calls, 1u);
  EXPECT_EQ(stats.failed_calls, 0u);
}

}  // namespace
}  // namespace keel::testing
