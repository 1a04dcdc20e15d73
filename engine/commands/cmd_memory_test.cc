// Unit tests of MEMORY USAGE and MEMORY HELP (cmd_memory.cc).
#include <string>

#include "engine/commands/string_test_fixture.h"

namespace keel::testing {
namespace {

class MemoryTest : public StringTest {};

TEST_F(MemoryTest, UsageCountsTheEntryAndWhatTheValueHoldsOutsideIt) {
  EXPECT_EQ(Run({"memory", "usage", "missing"}), NilBulk());
  Run({"set", "small", "v"});
  Run({"set", "large", std::string(10000, 'x')});
  const int64_t small = Run({"memory", "usage", "small"}).integer;
  const int64_t large = Run({"memory", "usage", "large"}).integer;
  EXPECT_GT(small, 0);
  EXPECT_GE(large, small + 10000);
  // A list's nodes live outside its entry: they are counted too.
  Run({"rpush", "list", "a"});
  const int64_t one = Run({"memory", "usage", "list"}).integer;
  for (int i = 0; i < 1000; i++) Run({"rpush", "list", std::string(100, 'e')});
  EXPECT_GE(Run({"memory", "usage", "list", "samples", "0"}).integer, one + 100000);
}

TEST_F(MemoryTest, SamplesIsCheckedAsRedisChecksIt) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"memory", "usage", "k", "samples", "-1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage", "k", "samples", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"memory", "usage", "k", "samples"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage", "k", "other"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "stats"}), Err("ERR unknown subcommand 'stats'. Try MEMORY HELP."));
  EXPECT_EQ(Run({"memory", "help"}).elements.size(), 6u);
}

}  // namespace
}  // namespace keel::testing
