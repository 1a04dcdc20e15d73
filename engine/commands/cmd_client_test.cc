// CLIENT subcommands. Every expected reply was checked against redis-server 7.0.15; most are also
// compared byte for byte by conformance/cases/client.txt.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
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

TEST_F(ClientCommandsTest, HelpListsEverySubcommandKeelHas) {
  // Each subcommand named in HELP exists (HELP never offers an unknown subcommand), and every
  // subcommand Keel has is named.
  const RespValue help = Run({"client", "help"});
  std::vector<std::string> named;
  for (const RespValue& line : help.elements) {
    if (line.text.empty() || line.text[0] == ' ' || line.text.starts_with("CLIENT <")) continue;
    named.push_back(line.text.substr(0, line.text.find(' ')));
  }
  const std::vector<std::string> expected = {
      "CACHING", "GETREDIR", "GETNAME",      "ID",       "INFO",     "KILL",
      "KILL",    "LIST",     "UNPAUSE",      "PAUSE",    "REPLY",    "SETNAME",
      "UNBLOCK", "TRACKING", "TRACKINGINFO", "NO-EVICT", "NO-TOUCH", "HELP"};
  EXPECT_EQ(named, expected);
  const CommandSpec* client = engine_->registry().Find("client");
  ASSERT_NE(client, nullptr);
  for (const auto& sub : client->subcommands) {
    EXPECT_NE(std::find(named.begin(), named.end(), AsciiUppercase(sub->name)), named.end())
        << sub->name;
  }
}

TEST_F(ClientCommandsTest, ReplyOffSkipAndOn) {
  // OFF and SKIP are not answered themselves; SKIP silences exactly the next command, refused
  // or not; ON answers OK.
  EXPECT_EQ(RunRaw({"client", "reply", "off"}), "");
  EXPECT_EQ(RunRaw({"ping"}), "");
  EXPECT_EQ(RunRaw({"get"}), "");
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");  // ignored while OFF
  EXPECT_EQ(RunRaw({"client", "reply", "on"}), "+OK\r\n");
  EXPECT_EQ(RunRaw({"ping"}), "+PONG\r\n");
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");
  EXPECT_EQ(RunRaw({"nosuchcommand"}), "");
  EXPECT_EQ(RunRaw({"ping"}), "+PONG\r\n");
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");
  EXPECT_EQ(RunRaw({"client", "reply", "on"}), "+OK\r\n");  // ON ends the skip at once
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");  // skipped itself, and skips the next
  EXPECT_EQ(RunRaw({"ping"}), "");
  EXPECT_EQ(RunRaw({"ping"}), "+PONG\r\n");
  // Errors that were not sent still count.
  EXPECT_EQ(engine_->stats().total_error_replies, 2u);
  EXPECT_EQ(Run({"client", "reply", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "reply"}),
            Err("ERR wrong number of arguments for 'client|reply' command"));
  EXPECT_EQ(Run({"client", "reply", "on", "x"}),
            Err("ERR wrong number of arguments for 'client|reply' command"));
}

TEST_F(ClientCommandsTest, ResetTurnsRepliesBackOn) {
  EXPECT_EQ(RunRaw({"client", "reply", "off"}), "");
  EXPECT_EQ(RunRaw({"reset"}), "+RESET\r\n");
  EXPECT_EQ(RunRaw({"ping"}), "+PONG\r\n");
  // A skip in force still silences RESET itself, as in Redis.
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");
  EXPECT_EQ(RunRaw({"reset"}), "");
  EXPECT_EQ(RunRaw({"ping"}), "+PONG\r\n");
}

TEST_F(ClientCommandsTest, NoEvictAndNoTouchAreClientFlags) {
  EXPECT_EQ(Run({"client", "no-evict", "on"}), Ok());
  EXPECT_EQ(FieldValue(Run({"client", "info"}).text, "flags"), "e");
  EXPECT_EQ(Run({"client", "no-touch", "ON"}), Ok());
  EXPECT_EQ(FieldValue(Run({"client", "info"}).text, "flags"), "eT");
  EXPECT_TRUE(client_->flags & kClientNoTouch);
  // RESET keeps NO-EVICT in Redis 7.0.15 and clears NO-TOUCH as Redis 7.2 does.
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(FieldValue(Run({"client", "info"}).text, "flags"), "e");
  EXPECT_EQ(Run({"client", "no-evict", "Off"}), Ok());
  EXPECT_EQ(FieldValue(Run({"client", "info"}).text, "flags"), "N");
  EXPECT_EQ(Run({"client", "no-touch", "on"}), Ok());
  EXPECT_EQ(Run({"client", "no-touch", "off"}), Ok());
  EXPECT_FALSE(client_->flags & kClientNoTouch);
  for (std::string_view sub : {"no-evict", "no-touch"}) {
    EXPECT_EQ(Run({"client", sub, "maybe"}), Err("ERR syntax error"));
    EXPECT_EQ(Run({"client", sub}),
              Err("ERR wrong number of arguments for 'client|" + std::string(sub) + "' command"));
    EXPECT_EQ(Run({"client", sub, "on", "x"}),
              Err("ERR wrong number of arguments for 'client|" + std::string(sub) + "' command"));
  }
}

TEST_F(ClientCommandsTest, NoTouchIsDescribedAsRedis72DescribesIt) {
  const RespValue info = Run({"command", "info", "client|no-touch"});
  ASSERT_EQ(info.elements.size(), 1u);
  EXPECT_EQ(info.elements[0].elements[1], Int(3));
  EXPECT_EQ(info.elements[0].elements[2],
            Array({Status("noscript"), Status("loading"), Status("stale")}));
  EXPECT_EQ(info.elements[0].elements[6], Array({Status("@slow"), Status("@connection")}));
}

TEST_F(ClientCommandsTest, KillErrorsInArgumentOrder) {
  EXPECT_EQ(Run({"client", "kill"}),
            Err("ERR wrong number of arguments for 'client|kill' command"));
  // One argument is the old ip:port form.
  EXPECT_EQ(Run({"client", "kill", "1.2.3.4:5"}), Err("ERR No such client"));
  EXPECT_EQ(Run({"client", "kill", "id"}), Err("ERR No such client"));
  for (std::string_view bad : {"abc", "0", "-1", "1.5", "99999999999999999999"}) {
    EXPECT_EQ(Run({"client", "kill", "id", bad}), Err("ERR client-id should be greater than 0"))
        << bad;
  }
  EXPECT_EQ(Run({"client", "kill", "type", "foo"}), Err("ERR Unknown client type 'foo'"));
  EXPECT_EQ(Run({"client", "kill", "type", std::string("foo\0x", 5)}),
            Err("ERR Unknown client type 'foo'"));
  EXPECT_EQ(Run({"client", "kill", "user", "nosuch"}), Err("ERR No such user 'nosuch'"));
  EXPECT_EQ(Run({"client", "kill", "skipme", "maybe"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "kill", "id", "1", "type"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "kill", "id", "1", "foo", "bar"}), Err("ERR syntax error"));
  // Redis 7.0.15 knows no MAXAGE: every form of it is a syntax error there. Keel takes 7.4's
  // positive age; what 7.4 refuses gets 7.0's answer. "MAXAGE 0" used to kill by age 0, that is
  // nobody or everybody, and replied :0.
  for (std::string_view age : {"0", "-1", "x", "1.5", ""}) {
    EXPECT_EQ(Run({"client", "kill", "maxage", age}), Err("ERR syntax error")) << age;
  }
  EXPECT_EQ(Run({"client", "kill", "id", "1", "maxage", "0"}), Err("ERR syntax error"));
  // The first bad option wins.
  EXPECT_EQ(Run({"client", "kill", "id", "0", "type", "foo"}),
            Err("ERR client-id should be greater than 0"));
  EXPECT_EQ(Run({"client", "kill", "type", "foo", "id", "0"}),
            Err("ERR Unknown client type 'foo'"));
}

TEST_F(ClientCommandsTest, KillFilters) {
  Client* other = engine_->NewClient(0, nullptr);
  other->peer_address = "10.0.0.2:4000";
  other->local_address = "127.0.0.1:6379";
  client_->peer_address = "127.0.0.1:5000";
  client_->local_address = "127.0.0.1:6380";
  // Nothing matches: no kill.
  EXPECT_EQ(Run({"client", "kill", "id", "999999"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "addr", "10.0.0.2:4001"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "laddr", "127.0.0.1:6380"}), Int(0));  // only me: skipped
  for (std::string_view type : {"master", "replica", "slave", "pubsub"}) {
    EXPECT_EQ(Run({"client", "kill", "type", type}), Int(0));
  }
  EXPECT_EQ(Run({"client", "kill", "id", Id(other), "addr", "1.1.1.1:1"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "maxage", "10"}), Int(0));  // nobody is 10 s old yet
  EXPECT_FALSE(other->flags & kClientCloseAsap);
  AdvanceMs(11000);
  EXPECT_EQ(Run({"client", "kill", "maxage", "10", "addr", "10.0.0.2:4000", "laddr",
                 "127.0.0.1:6379", "user", "default", "type", "NORMAL", "id", Id(other)}),
            Int(1));
  EXPECT_TRUE(other->flags & kClientCloseAsap);
  EXPECT_FALSE(client_->flags & kClientCloseAfterReply);
  // A client already being closed is not killed twice.
  EXPECT_EQ(Run({"client", "kill", "id", Id(other)}), Int(0));
}

TEST_F(ClientCommandsTest, KillSkipsTheCallerUnlessAsked) {
  Client* other = engine_->NewClient(0, nullptr);
  EXPECT_EQ(Run({"client", "kill", "type", "normal"}), Int(1));
  EXPECT_TRUE(other->flags & kClientCloseAsap);
  EXPECT_FALSE(client_->flags & kClientCloseAfterReply);
  // SKIPME NO kills the caller too: after its reply.
  EXPECT_EQ(Run({"client", "kill", "type", "normal", "skipme", "no"}), Int(1));
  EXPECT_TRUE(client_->flags & kClientCloseAfterReply);
  EXPECT_FALSE(client_->flags & kClientCloseAsap);
}

TEST_F(ClientCommandsTest, KillOldFormMayKillTheCaller) {
  Client* other = engine_->NewClient(0, nullptr);
  other->peer_address = "10.0.0.2:4000";
  client_->peer_address = "127.0.0.1:5000";
  EXPECT_EQ(Run({"client", "kill", "10.0.0.2:4000"}), Ok());
  EXPECT_TRUE(other->flags & kClientCloseAsap);
  // The address is compared as a C string, up to a NUL byte.
  EXPECT_EQ(Run({"client", "kill", std::string("127.0.0.1:5000\0junk", 19)}), Ok());
  EXPECT_TRUE(client_->flags & kClientCloseAfterReply);
}

TEST_F(ClientCommandsTest, PauseArgumentErrors) {
  EXPECT_EQ(Run({"client", "pause"}),
            Err("ERR wrong number of arguments for 'client|pause' command"));
  for (std::string_view bad : {"abc", "1.5", "99999999999999999999", ""}) {
    EXPECT_EQ(Run({"client", "pause", bad}), Err("ERR timeout is not an integer or out of range"))
        << bad;
  }
  EXPECT_EQ(Run({"client", "pause", "-1"}), Err("ERR timeout is negative"));
  // The mode is checked first.
  EXPECT_EQ(Run({"client", "pause", "abc", "foo"}),
            Err("ERR CLIENT PAUSE mode must be WRITE or ALL"));
  EXPECT_EQ(Run({"client", "pause", "10", "write", "extra"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT "
                "HELP."));
  EXPECT_EQ(Run({"client", "unpause", "x"}),
            Err("ERR wrong number of arguments for 'client|unpause' command"));
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kNone);
}

TEST_F(ClientCommandsTest, PauseModesAndEndTimes) {
  const int64_t now_ms = env_.sim_clock().WallUs() / 1000;
  EXPECT_EQ(Run({"client", "pause", "1000", "WRITE"}), Ok());
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kWrite);
  EXPECT_EQ(engine_->pause_end_ms(), now_ms + 1000);
  // A later pause takes its mode and the later end time (Redis 7.0).
  EXPECT_EQ(Run({"client", "pause", "300", "all"}), Ok());
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kAll);
  EXPECT_EQ(engine_->pause_end_ms(), now_ms + 1000);
  AdvanceMs(1000);
  EXPECT_EQ(Run({"ping"}), Status("PONG"));           // an internal client is never paused
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kAll);  // ends once the end time is past
  AdvanceMs(1);
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kNone);
  EXPECT_EQ(Run({"client", "pause", "1000"}), Ok());  // ALL by default
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kAll);
  EXPECT_EQ(Run({"client", "unpause"}), Ok());
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kNone);
  // 0 pauses nothing; a timeout that overflows the end time wraps into the past in Redis
  // 7.0.15, which then pauses nothing either.
  EXPECT_EQ(Run({"client", "pause", "0"}), Ok());
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kNone);
  EXPECT_EQ(Run({"client", "pause", "9223372036854775807"}), Ok());
  EXPECT_EQ(engine_->pause_mode(), PauseMode::kNone);
  EXPECT_FALSE(engine_->writes_paused());
}

class ClientServerTest : public ServerTest {
 protected:
  sim::SimNetwork& net() { return env_.sim_network(); }
  std::vector<RespValue> Replies(sim::SimClientId client) {
    return DecodeAll(net().Receive(client));
  }
  std::string ClientField(sim::SimClientId asker, std::string_view field, uint64_t id) {
    const std::vector<RespValue> list =
        Exchange(asker, Request({"client", "list", "id", std::to_string(id)}));
    const std::string& line = list.at(0).text;
    const std::string key = " " + std::string(field) + "=";
    const size_t at = line.find(key);
    if (at == std::string::npos) return "<missing>";
    const size_t begin = at + key.size();
    return line.substr(begin, line.find(' ', begin) - begin);
  }
  uint64_t IdOf(sim::SimClientId client) {
    return static_cast<uint64_t>(Exchange(client, Request({"client", "id"})).at(0).integer);
  }
};

TEST_F(ClientServerTest, PauseWriteHoldsWritesUntilItEnds) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId writer = Connect();
  const uint64_t writer_id = IdOf(writer);
  // The virtual clock stands still while there is work, so the pause starts now. Its end is off
  // the grid of cron ticks (every 100 ms), to show that the loop wakes up for it.
  const int64_t paused_at_us = env_.sim_clock().MonotonicUs();
  EXPECT_EQ(Exchange(admin, Request({"client", "pause", "10050", "write"})),
            (std::vector<RespValue>{Ok()}));
  // The SET waits; the commands pipelined after it wait behind it, reads included.
  net().Send(writer, Request({"set", "k", "v"}) + Request({"get", "k"}));
  Settle();
  EXPECT_EQ(Replies(writer), std::vector<RespValue>{});
  // Other clients read; wrong commands are refused at once even when they would write.
  EXPECT_EQ(Exchange(admin, Request({"get", "k"})), (std::vector<RespValue>{NilBulk()}));
  EXPECT_EQ(Exchange(admin, Request({"set", "k"})),
            (std::vector<RespValue>{Err("ERR wrong number of arguments for 'set' command")}));
  EXPECT_EQ(ClientField(admin, "flags", writer_id), "b");
  EXPECT_EQ(ClientField(admin, "cmd", writer_id), "set");
  const std::string info = Exchange(admin, Request({"info", "clients"})).at(0).text;
  EXPECT_NE(info.find("blocked_clients:1\r\n"), std::string::npos) << info;
  // The loop sleeps until the pause ends, then the held commands run in order.
  std::vector<RespValue> replies;
  for (int i = 0; i < 1000 && replies.empty(); i++) {
    server_->RunOnce();
    replies = Replies(writer);
  }
  EXPECT_EQ(replies, (std::vector<RespValue>{Ok(), Bulk("v")}));
  const int64_t waited_us = env_.sim_clock().MonotonicUs() - paused_at_us;
  EXPECT_GE(waited_us, 10'050'000);
  EXPECT_LE(waited_us, 10'052'000);  // not at the next cron tick, 10.1 s
  EXPECT_EQ(ClientField(admin, "flags", writer_id), "N");
}

TEST_F(ClientServerTest, PauseAllHoldsEveryClientButUnpauseFreesThem) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId other = Connect();
  const sim::SimClientId third = Connect();
  // The pausing client's own next commands wait as well, and so does CLIENT UNPAUSE.
  EXPECT_EQ(Exchange(admin, Request({"client", "pause", "100000"}) + Request({"ping"})),
            (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Exchange(other, Request({"client", "unpause"})), std::vector<RespValue>{});
  // Refused commands are answered at once.
  EXPECT_EQ(
      Exchange(third, Request({"nosuch"})),
      (std::vector<RespValue>{Err("ERR unknown command 'nosuch', with args beginning with: ")}));
  env_.sim_clock().Advance(50'000'000);
  Settle();
  EXPECT_EQ(Replies(admin), std::vector<RespValue>{});
  EXPECT_EQ(Replies(other), std::vector<RespValue>{});
  env_.sim_clock().Advance(50'000'000);
  Settle();
  EXPECT_EQ(Replies(admin), (std::vector<RespValue>{Status("PONG")}));
  EXPECT_EQ(Replies(other), (std::vector<RespValue>{Ok()}));
}

TEST_F(ClientServerTest, UnpauseReleasesHeldCommandsAtOnce) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId writer = Connect();
  EXPECT_EQ(Exchange(admin, Request({"client", "pause", "100000", "write"})),
            (std::vector<RespValue>{Ok()}));
  // An inline command with quotes is held as its arguments, not as its (unescaped) bytes.
  net().Send(writer, "SET k \"a b\\x41\"\r\n");
  Settle();
  EXPECT_EQ(Replies(writer), std::vector<RespValue>{});
  // The same arriving in two reads, so that it is parsed from the client's own query buffer,
  // with more commands behind it.
  const sim::SimClientId splitter = Connect();
  net().Send(splitter, "SET j \"c ");
  Settle();
  net().Send(splitter, "d\\x42\"\r\nGET j\r\n" + Request({"get", "j"}).substr(0, 3));
  Settle();
  EXPECT_EQ(Replies(splitter), std::vector<RespValue>{});
  net().Send(splitter, Request({"get", "j"}).substr(3));
  Settle();
  EXPECT_EQ(Exchange(admin, Request({"client", "unpause"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Replies(writer), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Replies(splitter), (std::vector<RespValue>{Ok(), Bulk("c dB"), Bulk("c dB")}));
  EXPECT_EQ(Exchange(writer, Request({"get", "k"})), (std::vector<RespValue>{Bulk("a bA")}));
}

TEST_F(ClientServerTest, HeldClientsKeepReadingAndMayDisconnect) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId writer = Connect();
  const sim::SimClientId leaver = Connect();
  EXPECT_EQ(Exchange(admin, Request({"client", "pause", "100000", "write"})),
            (std::vector<RespValue>{Ok()}));
  net().Send(writer, Request({"set", "a", "1"}));
  net().Send(leaver, Request({"set", "b", "1"}));
  Settle();
  // More input arrives while held, in pieces; a held client that leaves is forgotten.
  net().Send(writer, Request({"get", "a"}).substr(0, 5));
  Settle();
  net().Send(writer, Request({"get", "a"}).substr(5));
  net().CloseClient(leaver);
  Settle();
  EXPECT_EQ(Replies(writer), std::vector<RespValue>{});
  EXPECT_EQ(Exchange(admin, Request({"client", "unpause"})), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Replies(writer), (std::vector<RespValue>{Ok(), Bulk("1")}));
  EXPECT_EQ(Exchange(admin, Request({"exists", "b"})), (std::vector<RespValue>{Int(0)}));
}

TEST_F(ClientServerTest, HeldClientsAreNeverIdle) {
  Config config;
  std::string error;
  ASSERT_TRUE(config.SetFromCommand(*Config::Find("timeout"), "1", &error)) << error;
  StartServer(std::move(config));
  const sim::SimClientId admin = Connect();
  const sim::SimClientId writer = Connect();
  EXPECT_EQ(Exchange(admin, Request({"client", "pause", "5000", "write"})),
            (std::vector<RespValue>{Ok()}));
  net().Send(writer, Request({"set", "a", "1"}));
  Settle();
  env_.sim_clock().Advance(3'000'000);
  Settle();
  EXPECT_TRUE(net().ClosedByServer(admin));  // idle for 3 s
  EXPECT_FALSE(net().ClosedByServer(writer));
  env_.sim_clock().Advance(3'000'000);
  Settle();
  EXPECT_EQ(Replies(writer), (std::vector<RespValue>{Ok()}));
}

TEST_F(ClientServerTest, KillClosesOthersAndTheCallerAfterItsReply) {
  const sim::SimClientId killer = Connect();
  const sim::SimClientId victim = Connect();
  const uint64_t victim_id = IdOf(victim);
  EXPECT_EQ(Exchange(killer, Request({"client", "kill", "id", std::to_string(victim_id)})),
            (std::vector<RespValue>{Int(1)}));
  EXPECT_TRUE(net().ClosedByServer(victim));
  EXPECT_EQ(Exchange(killer, Request({"client", "kill", "id", std::to_string(victim_id)})),
            (std::vector<RespValue>{Int(0)}));
  // Old form on itself: +OK, then the connection closes and nothing after it runs.
  const std::string me = Exchange(killer, Request({"client", "info"})).at(0).text.substr(0, 200);
  const size_t at = me.find("addr=") + 5;
  const std::string addr = me.substr(at, me.find(' ', at) - at);
  EXPECT_EQ(Exchange(killer, Request({"client", "kill", addr}) + Request({"set", "x", "1"})),
            (std::vector<RespValue>{Ok()}));
  EXPECT_TRUE(net().ClosedByServer(killer));
  EXPECT_EQ(engine_->database(0).size(), 0u);
}

TEST_F(ClientServerTest, KillByLocalAddressAndMaxAge) {
  const sim::SimClientId young = Connect();
  env_.sim_clock().Advance(5'000'000);
  const sim::SimClientId old = Connect();  // connected later, so younger: named for the test
  EXPECT_EQ(Exchange(old, Request({"client", "kill", "maxage", "3"})),
            (std::vector<RespValue>{Int(1)}));
  EXPECT_TRUE(net().ClosedByServer(young));
  EXPECT_EQ(Exchange(old, Request({"client", "kill", "laddr", "127.0.0.1:" + std::to_string(port_),
                                   "skipme", "no"})),
            (std::vector<RespValue>{Int(1)}));
  EXPECT_TRUE(net().ClosedByServer(old));
}

}  // namespace
}  // namespace keel::testing
