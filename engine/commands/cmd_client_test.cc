// CLIENT subcommands. Every expected reply was checked against redis-server 7.0.15; most are also
// compared byte for byte by conformance/cases/client.txt.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ClientCommandsTest : public CommandTest {
 protected:
  // The "name=value" fields of one CLIENT INFO/LIST line, in order.
  static std::vector<std::string> FieldNames(std::string_view line) {
    std::vector<std::string> names;
    size_t start = 0;
    while (start < line.size()) {
      size_t end = line.find(' ', start);
      if (end == std::string_view::npos) end = line.size();
      const std::string_view field = line.substr(start, end - start);
      names.emplace_back(field.substr(0, field.find('=')));
      start = end + 1;
    }
    return names;
  }

  static std::string FieldValue(std::string_view line, std::string_view name) {
    const std::string key = " " + std::string(name) + "=";
    const std::string padded = " " + std::string(line);
    const size_t at = padded.find(key);
    if (at == std::string::npos) return "<missing>";
    const size_t begin = at + key.size();
    return padded.substr(begin, padded.find_first_of(" \n", begin) - begin);
  }

  std::string Id(const Client* client) const { return std::to_string(client->id()); }
};

TEST_F(ClientCommandsTest, ContainerErrors) {
  EXPECT_EQ(Run({"client"}), Err("ERR wrong number of arguments for 'client' command"));
  EXPECT_EQ(Run({"client", "foo"}), Err("ERR unknown subcommand 'foo'. Try CLIENT HELP."));
  EXPECT_EQ(Run({"Client", "foo", "bar"}), Err("ERR unknown subcommand 'foo'. Try CLIENT HELP."));
  EXPECT_EQ(Run({"client", "id", "x"}),
            Err("ERR wrong number of arguments for 'client|id' command"));
}

TEST_F(ClientCommandsTest, IdIsTheConnectionId) {
  EXPECT_EQ(Run({"client", "id"}), Int(static_cast<int64_t>(client_->id())));
  Client* other = engine_->NewClient(0, nullptr);
  EXPECT_GT(other->id(), client_->id());
}

TEST_F(ClientCommandsTest, SetnameAndGetname) {
  EXPECT_EQ(Run({"client", "getname"}), NilBulk());
  EXPECT_EQ(Run({"client", "setname", "alice"}), Ok());
  EXPECT_EQ(Run({"client", "getname"}), Bulk("alice"));
  EXPECT_EQ(Run({"client", "setname", "!~{}[]"}), Ok());
  EXPECT_EQ(Run({"client", "getname"}), Bulk("!~{}[]"));
  // An empty name clears it.
  EXPECT_EQ(Run({"client", "setname", ""}), Ok());
  EXPECT_EQ(Run({"client", "getname"}), NilBulk());
}

TEST_F(ClientCommandsTest, SetnameRefusesSpacesAndSpecialCharacters) {
  EXPECT_EQ(Run({"client", "setname", "kept"}), Ok());
  for (std::string_view bad : {"a b", "a\nb", "\x7f", "\x01", "caf\xc3\xa9"}) {
    EXPECT_EQ(Run({"client", "setname", bad}),
              Err("ERR Client names cannot contain spaces, newlines or special characters."))
        << bad;
  }
  EXPECT_EQ(Run({"client", "getname"}), Bulk("kept"));
  EXPECT_EQ(Run({"client", "setname"}),
            Err("ERR wrong number of arguments for 'client|setname' command"));
}

TEST_F(ClientCommandsTest, InfoDescribesThisConnectionInRedisFieldOrder) {
  EXPECT_EQ(Run({"client", "setname", "me"}), Ok());
  EXPECT_EQ(Run({"select", "3"}), Ok());
  const RespValue info = Run({"client", "info"});
  ASSERT_EQ(info.type, RespType::kBulkString);
  ASSERT_FALSE(info.text.empty());
  EXPECT_EQ(info.text.back(), '\n');
  const std::vector<std::string> expected = {
      "id",        "addr",     "laddr",     "fd",   "name", "age",   "idle",
      "flags",     "db",       "sub",       "psub", "ssub", "multi", "qbuf",
      "qbuf-free", "argv-mem", "multi-mem", "rbs",  "rbp",  "obl",   "oll",
      "omem",      "tot-mem",  "events",    "cmd",  "user", "redir", "resp"};
  EXPECT_EQ(FieldNames(info.text.substr(0, info.text.size() - 1)), expected);
  EXPECT_EQ(FieldValue(info.text, "id"), Id(client_));
  EXPECT_EQ(FieldValue(info.text, "name"), "me");
  EXPECT_EQ(FieldValue(info.text, "db"), "3");
  EXPECT_EQ(FieldValue(info.text, "flags"), "N");
  EXPECT_EQ(FieldValue(info.text, "cmd"), "client|info");
  EXPECT_EQ(FieldValue(info.text, "user"), "default");
  EXPECT_EQ(FieldValue(info.text, "resp"), "2");
}

TEST_F(ClientCommandsTest, InfoIsVerbatimInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"client", "info"}).type, RespType::kVerbatim);
}

TEST_F(ClientCommandsTest, ListShowsEveryClientInIdOrder) {
  Client* other = engine_->NewClient(0, nullptr);
  const RespValue list = Run({"client", "list"});
  ASSERT_EQ(list.type, RespType::kBulkString);
  const size_t newline = list.text.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_EQ(FieldValue(list.text.substr(0, newline), "id"), Id(client_));
  EXPECT_EQ(FieldValue(list.text.substr(newline + 1), "id"), Id(other));
  EXPECT_EQ(FieldValue(list.text.substr(newline + 1), "cmd"), "NULL");
}

TEST_F(ClientCommandsTest, ListShowsTheCommandLookedUpEvenWhenItWasRejected) {
  // Redis records a client's last command (cmd=) when it looks the command up, before checking
  // its arity; a name it does not know records NULL (found by the random differential run,
  // conformance/run).
  Client* other = engine_->NewClient(0, nullptr);
  auto last_command = [&](std::initializer_list<std::string_view> args) {
    engine_->RunCommand(*other, args);
    return FieldValue(Run({"client", "list", "id", Id(other)}).text, "cmd");
  };
  EXPECT_EQ(last_command({"get", "k"}), "get");
  EXPECT_EQ(last_command({"config", "help", "extra"}), "config|help");
  EXPECT_EQ(last_command({"nosuch"}), "NULL");
  EXPECT_EQ(last_command({"set", "k"}), "set");
  EXPECT_EQ(last_command({"client", "nosuch"}), "NULL");
  EXPECT_EQ(last_command({"client", "list", "foo"}), "client|list");
  // The command itself is the last one while it runs.
  EXPECT_EQ(FieldValue(Run({"client", "info"}).text, "cmd"), "client|info");
}

TEST_F(ClientCommandsTest, ListTypeFilter) {
  Client* other = engine_->NewClient(0, nullptr);
  for (std::string_view normal : {"normal", "NORMAL"}) {
    const std::string text = Run({"client", "list", "type", normal}).text;
    const size_t newline = text.find('\n');
    ASSERT_NE(newline, std::string::npos);
    EXPECT_EQ(FieldValue(text.substr(0, newline), "id"), Id(client_));
    EXPECT_EQ(FieldValue(text.substr(newline + 1), "id"), Id(other));
  }
  for (std::string_view type : {"master", "replica", "slave", "pubsub"}) {
    EXPECT_EQ(Run({"client", "list", "type", type}), Bulk("")) << type;
  }
  EXPECT_EQ(Run({"client", "list", "type", "foo"}), Err("ERR Unknown client type 'foo'"));
  // The type is printed as a C string, up to a NUL byte.
  EXPECT_EQ(Run({"client", "list", "type", std::string("foo\0bar", 7)}),
            Err("ERR Unknown client type 'foo'"));
  EXPECT_EQ(Run({"client", "list", "type"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "list", "type", "normal", "extra"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "list", "foo"}), Err("ERR syntax error"));
}

TEST_F(ClientCommandsTest, ListIdFilterFollowsTheArguments) {
  Client* other = engine_->NewClient(0, nullptr);
  const std::string mine = Id(client_);
  const std::string theirs = Id(other);
  const std::string text = Run({"client", "list", "id", theirs, mine}).text;
  const size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_EQ(FieldValue(text.substr(0, newline), "id"), theirs);
  EXPECT_EQ(FieldValue(text.substr(newline + 1), "id"), mine);
  // A repeated id is listed again.
  const std::string twice = Run({"client", "list", "id", mine, mine}).text;
  EXPECT_EQ(std::count(twice.begin(), twice.end(), '\n'), 2);
}

TEST_F(ClientCommandsTest, ListIdFilterTakesAnyIntegerAndSkipsUnknownIds) {
  EXPECT_EQ(Run({"client", "list", "id", "999999"}), Bulk(""));
  EXPECT_EQ(Run({"client", "list", "id", "0"}), Bulk(""));
  EXPECT_EQ(Run({"client", "list", "id", "-1"}), Bulk(""));
  EXPECT_EQ(FieldValue(Run({"client", "list", "id", "999999", Id(client_)}).text, "id"),
            Id(client_));
  for (std::string_view bad : {"abc", "1.5", "+1", "99999999999999999999"}) {
    EXPECT_EQ(Run({"client", "list", "id", bad}), Err("ERR Invalid client ID")) << bad;
  }
  EXPECT_EQ(Run({"client", "list", "id"}), Err("ERR syntax error"));
  // ID takes every argument after it, so a TYPE after it is a bad id.
  EXPECT_EQ(Run({"client", "list", "id", Id(client_), "type", "normal"}),
            Err("ERR Invalid client ID"));
  EXPECT_EQ(Run({"client", "list", "type", "normal", "id", Id(client_)}), Err("ERR syntax error"));
}

TEST_F(ClientCommandsTest, DocsOfListNameItsArgumentsAsRedisDoes) {
  // The TYPE filter is "normal_master_replica_pubsub"; ID is a block holding client-id.
  Run({"hello", "3"});
  const RespValue docs = Run({"command", "docs", "client|list"});
  ASSERT_EQ(docs.type, RespType::kMap);
  ASSERT_EQ(docs.elements.size(), 2u);
  const RespValue& fields = docs.elements[1];
  RespValue arguments;
  for (size_t i = 0; i + 1 < fields.elements.size(); i += 2) {
    if (fields.elements[i] == Bulk("arguments")) arguments = fields.elements[i + 1];
  }
  ASSERT_EQ(arguments.elements.size(), 2u);
  EXPECT_EQ(arguments.elements[0].elements[1], Bulk("normal_master_replica_pubsub"));
  const RespValue& id = arguments.elements[1];
  EXPECT_EQ(id.elements[1], Bulk("id"));
  EXPECT_EQ(id.elements[3], Bulk("block"));
  EXPECT_EQ(id.elements[5], Bulk("ID"));
  const RespValue& nested = id.elements.back();
  ASSERT_EQ(nested.elements.size(), 1u);
  EXPECT_EQ(nested.elements[0].elements[1], Bulk("client-id"));
}

TEST_F(ClientCommandsTest, HelpIsRedisTextForTheSubcommandsKeelHas) {
  const RespValue help = Run({"client", "help"});
  ASSERT_EQ(help.type, RespType::kArray);
  ASSERT_GE(help.elements.size(), 3u);
  EXPECT_EQ(help.elements.front(),
            Status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[help.elements.size() - 2], Status("HELP"));
  EXPECT_EQ(help.elements.back(), Status("    Prints this help."));
  EXPECT_EQ(Run({"client", "help", "x"}),
            Err("ERR wrong number of arguments for 'client|help' command"));
}

}  // namespace
}  // namespace keel::testing
