// COMMAND and its subcommands. Every expected reply was checked against redis-server 7.0.15;
// conformance/cases/command.txt compares COMMAND INFO and DOCS of every command Keel has.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class IntrospectionCommandsTest : public CommandTest {
 protected:
  std::vector<std::string> Names(const RespValue& reply) {
    std::vector<std::string> names;
    for (const RespValue& element : reply.elements) names.push_back(element.text);
    std::sort(names.begin(), names.end());
    return names;
  }
};

TEST_F(IntrospectionCommandsTest, CountIsTheNumberOfTopLevelCommands) {
  EXPECT_EQ(Run({"command", "count"}),
            Int(static_cast<int64_t>(engine_->registry().commands().size())));
  EXPECT_EQ(Run({"command", "count", "x"}),
            Err("ERR wrong number of arguments for 'command|count' command"));
}

TEST_F(IntrospectionCommandsTest, InfoOfGetIsRedisBytes) {
  EXPECT_EQ(RunRaw({"command", "info", "get"}),
            "*1\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n"
            "+@read\r\n+@string\r\n+@fast\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n"
            "+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n"
            "*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n"
            "$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n"
            ":0\r\n*0\r\n");
}

TEST_F(IntrospectionCommandsTest, InfoOfAnUnknownCommandIsANullBulkInResp2) {
  // Redis's addReplyNull: "$-1" in RESP2 (not the null array "*-1"), "_" in RESP3.
  EXPECT_EQ(RunRaw({"command", "info", "foo"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(RunRaw({"command", "info", "client|foo"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(RunRaw({"command", "info", "get|x"}), "*1\r\n$-1\r\n");
  const RespValue mixed = Run({"command", "info", "get", "foo"});
  ASSERT_EQ(mixed.elements.size(), 2u);
  EXPECT_EQ(mixed.elements[1], NilBulk());
  Run({"hello", "3"});
  EXPECT_EQ(RunRaw({"command", "info", "foo"}), "*1\r\n_\r\n");
}

TEST_F(IntrospectionCommandsTest, InfoFindsAnyCaseAndSubcommandsByFullName) {
  const RespValue info = Run({"command", "info", "GET", "Client|Id"});
  ASSERT_EQ(info.elements.size(), 2u);
  EXPECT_EQ(info.elements[0].elements[0], Bulk("get"));
  EXPECT_EQ(info.elements[1].elements[0], Bulk("client|id"));
  // A container lists its subcommands in its last field.
  const RespValue client = Run({"command", "info", "client"});
  ASSERT_EQ(client.elements.size(), 1u);
  ASSERT_EQ(client.elements[0].elements.size(), 10u);
  EXPECT_FALSE(client.elements[0].elements[9].elements.empty());
}

TEST_F(IntrospectionCommandsTest, InfoWithoutNamesListsEveryCommand) {
  EXPECT_EQ(Run({"command", "info"}).elements.size(), engine_->registry().commands().size());
  EXPECT_EQ(Run({"command"}).elements.size(), engine_->registry().commands().size());
}

TEST_F(IntrospectionCommandsTest, DocsOfGetIsRedisBytes) {
  EXPECT_EQ(RunRaw({"command", "docs", "get"}),
            "*2\r\n$3\r\nget\r\n*10\r\n$7\r\nsummary\r\n$22\r\nGet the value of a key\r\n"
            "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n$10\r\ncomplexity\r\n"
            "$4\r\nO(1)\r\n$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n"
            "$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n");
}

TEST_F(IntrospectionCommandsTest, DocsLeavesOutUnknownNames) {
  EXPECT_EQ(RunRaw({"command", "docs", "foo"}), "*0\r\n");
  EXPECT_EQ(Run({"command", "docs", "get", "foo", "set"}).elements.size(), 4u);
  Run({"hello", "3"});
  EXPECT_EQ(RunRaw({"command", "docs", "foo"}), "%0\r\n");
}

TEST_F(IntrospectionCommandsTest, ListNamesEveryCommandAndSubcommand) {
  const std::vector<std::string> names = Names(Run({"command", "list"}));
  EXPECT_EQ(names.size(), engine_->registry().all().size());
  for (std::string_view name : {"get", "set", "client|id", "command|getkeysandflags"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST_F(IntrospectionCommandsTest, ListFilters) {
  EXPECT_EQ(Names(Run({"command", "list", "filterby", "pattern", "flush*"})),
            (std::vector<std::string>{"flushall", "flushdb"}));
  EXPECT_EQ(Names(Run({"command", "list", "FILTERBY", "PATTERN", "CLIENT|*NAME"})),
            (std::vector<std::string>{"client|getname", "client|setname"}));
  EXPECT_EQ(Run({"command", "list", "filterby", "module", "foo"}), Array({}));
  const std::vector<std::string> keyspace =
      Names(Run({"command", "list", "filterby", "aclcat", "KEYSPACE"}));
  EXPECT_NE(std::find(keyspace.begin(), keyspace.end(), "del"), keyspace.end());
  EXPECT_EQ(std::find(keyspace.begin(), keyspace.end(), "get"), keyspace.end());
  EXPECT_EQ(Run({"command", "list", "filterby", "aclcat", "nosuchcategory"}), Array({}));
}

TEST_F(IntrospectionCommandsTest, ListAclcatTakesTheBareCategoryName) {
  EXPECT_FALSE(Run({"command", "list", "filterby", "aclcat", "keyspace"}).elements.empty());
  EXPECT_EQ(Run({"command", "list", "filterby", "aclcat", "@keyspace"}), Array({}));
}

TEST_F(IntrospectionCommandsTest, ListSyntaxErrors) {
  EXPECT_EQ(Run({"command", "list", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "filterby"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "filterby", "pattern"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "filterby", "foo", "bar"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "filterby", "pattern", "a", "b"}), Err("ERR syntax error"));
}

TEST_F(IntrospectionCommandsTest, Getkeys) {
  EXPECT_EQ(Run({"command", "getkeys", "get", "k"}), Array({Bulk("k")}));
  EXPECT_EQ(Run({"command", "getkeys", "set", "k", "v", "ex", "10", "nx", "get"}),
            Array({Bulk("k")}));
  EXPECT_EQ(Run({"command", "getkeys", "del", "a", "b", "c"}),
            Array({Bulk("a"), Bulk("b"), Bulk("c")}));
  EXPECT_EQ(Run({"command", "getkeys", "exists", "a", "b", "a"}),
            Array({Bulk("a"), Bulk("b"), Bulk("a")}));
}

// A keynum that is not a strict integer: Redis falls back to the command's getkeys function,
// which reads it with atoi (redis-server 7.0.15's replies; the random differential run found it).
TEST_F(IntrospectionCommandsTest, GetkeysKeynumReadAsAtoiWhenNotAnInteger) {
  const RespValue invalid = Err("ERR Invalid arguments specified for command");
  EXPECT_EQ(Run({"command", "getkeys", "lmpop", "1e3", "k2", "k2", "left"}), Array({Bulk("k2")}));
  EXPECT_EQ(Run({"command", "getkeys", "lmpop", " 2", "a", "b", "left"}),
            Array({Bulk("a"), Bulk("b")}));
  EXPECT_EQ(Run({"command", "getkeys", "lmpop", "2x", "a", "b", "left"}),
            Array({Bulk("a"), Bulk("b")}));
  EXPECT_EQ(Run({"command", "getkeys", "sintercard", "1.5", "a", "b"}), Array({Bulk("a")}));
  EXPECT_EQ(Run({"command", "getkeys", "lmpop", "x", "k", "left"}), invalid);
  EXPECT_EQ(Run({"command", "getkeys", "lmpop", "5", "k", "left"}), invalid);
  EXPECT_EQ(Run({"command", "getkeys", "lmpop", "-1", "k", "left"}), invalid);
}

TEST_F(IntrospectionCommandsTest, GetkeysErrors) {
  EXPECT_EQ(Run({"command", "getkeys", "foo", "a"}), Err("ERR Invalid command specified"));
  EXPECT_EQ(Run({"command", "getkeys", "client", "foo"}), Err("ERR Invalid command specified"));
  EXPECT_EQ(Run({"command", "getkeys", "ping", "a"}), Err("ERR The command has no key arguments"));
  EXPECT_EQ(Run({"command", "getkeys", "client", "id"}),
            Err("ERR The command has no key arguments"));
  EXPECT_EQ(Run({"command", "getkeys", "get", "a", "b"}),
            Err("ERR Invalid number of arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeys", "set", "k"}),
            Err("ERR Invalid number of arguments specified for command"));
  // GETKEYS itself needs the command and at least one more argument.
  EXPECT_EQ(Run({"command", "getkeys", "dbsize"}),
            Err("ERR wrong number of arguments for 'command|getkeys' command"));
}

TEST_F(IntrospectionCommandsTest, GetkeysandflagsUsesTheSpecFlags) {
  EXPECT_EQ(Run({"command", "getkeysandflags", "get", "k"}),
            Array({Array({Bulk("k"), Array({Status("RO"), Status("access")})})}));
  EXPECT_EQ(Run({"command", "getkeysandflags", "del", "a"}),
            Array({Array({Bulk("a"), Array({Status("RM"), Status("delete")})})}));
}

TEST_F(IntrospectionCommandsTest, GetkeysandflagsOfSetDependsOnGet) {
  // SET's key spec is variable_flags; Redis asks setGetKeys for the flags of these arguments.
  const RespValue overwrite = Array({Status("OW"), Status("update")});
  const RespValue read_write = Array({Status("RW"), Status("access"), Status("update")});
  EXPECT_EQ(Run({"command", "getkeysandflags", "set", "k", "v"}),
            Array({Array({Bulk("k"), overwrite})}));
  EXPECT_EQ(Run({"command", "getkeysandflags", "set", "k", "v", "ex", "10"}),
            Array({Array({Bulk("k"), overwrite})}));
  EXPECT_EQ(Run({"command", "getkeysandflags", "set", "get", "v"}),
            Array({Array({Bulk("get"), overwrite})}));
  EXPECT_EQ(Run({"command", "getkeysandflags", "set", "k", "v", "getx"}),
            Array({Array({Bulk("k"), overwrite})}));
  for (std::string_view get : {"get", "GET"}) {
    EXPECT_EQ(Run({"command", "getkeysandflags", "set", "k", "v", get}),
              Array({Array({Bulk("k"), read_write})}));
  }
  EXPECT_EQ(Run({"command", "getkeysandflags", "set", "k", "v", std::string("get\0x", 5)}),
            Array({Array({Bulk("k"), read_write})}));
  Run({"hello", "3"});
  EXPECT_EQ(RunRaw({"command", "getkeysandflags", "set", "k", "v"}),
            "*1\r\n*2\r\n$1\r\nk\r\n~2\r\n+OW\r\n+update\r\n");
}

TEST_F(IntrospectionCommandsTest, HelpAndUnknownSubcommands) {
  const RespValue help = Run({"command", "help"});
  ASSERT_EQ(help.elements.size(), 21u);
  EXPECT_EQ(help.elements.front(),
            Status("COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements.back(), Status("    Prints this help."));
  EXPECT_EQ(Run({"command", "foo"}), Err("ERR unknown subcommand 'foo'. Try COMMAND HELP."));
  EXPECT_EQ(Run({"command", "help", "x"}),
            Err("ERR wrong number of arguments for 'command|help' command"));
}

}  // namespace
}  // namespace keel::testing
