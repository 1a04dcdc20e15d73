// Connection commands. Every expected reply was checked against redis-server 7.0.15; most are
// also compared byte for byte by conformance/cases/connection.txt.
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ConnectionCommandsTest : public CommandTest {
 protected:
  // Restarts the engine with `requirepass` set, as `--requirepass` would.
  void RequirePassword(std::string_view password) {
    Config config;
    std::string error;
    const std::string_view words[] = {password};
    ASSERT_TRUE(config.Set(*Config::Find("requirepass"), words, &error)) << error;
    StartEngine(std::move(config));
  }

  // The value after `key` in a HELLO reply (a map in RESP3, a flat array in RESP2).
  static RespValue Field(const RespValue& hello, std::string_view key) {
    for (size_t i = 0; i + 1 < hello.elements.size(); i += 2) {
      if (hello.elements[i] == Bulk(key)) return hello.elements[i + 1];
    }
    return Err("no field " + std::string(key));
  }
};

TEST_F(ConnectionCommandsTest, Ping) {
  EXPECT_EQ(RunRaw({"ping"}), "+PONG\r\n");
  EXPECT_EQ(RunRaw({"ping", "hello"}), "$5\r\nhello\r\n");
  EXPECT_EQ(RunRaw({"ping", ""}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"ping", "a", "b"}), Err("ERR wrong number of arguments for 'ping' command"));
}

TEST_F(ConnectionCommandsTest, EchoReturnsAnyBytes) {
  const std::string binary("a\0b\r\n\xff", 6);
  EXPECT_EQ(Run({"echo", binary}), Bulk(binary));
  EXPECT_EQ(Run({"echo", ""}), Bulk(""));
  EXPECT_EQ(Run({"echo"}), Err("ERR wrong number of arguments for 'echo' command"));
  EXPECT_EQ(Run({"echo", "a", "b"}), Err("ERR wrong number of arguments for 'echo' command"));
}

TEST_F(ConnectionCommandsTest, SelectSwitchesDatabases) {
  EXPECT_EQ(Run({"select", "15"}), Ok());
  EXPECT_EQ(Run({"set", "k", "in15"}), Ok());
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), NilBulk());
  EXPECT_EQ(Run({"select", "15"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("in15"));
}

TEST_F(ConnectionCommandsTest, SelectErrors) {
  EXPECT_EQ(Run({"select", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"select", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"select", "2147483647"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"select", "2147483648"}),
            Err("ERR value is out of range, value must between -2147483648 and 2147483647"));
  for (std::string_view bad : {"abc", "1.5", "", " 1", "01", "+1"}) {
    EXPECT_EQ(Run({"select", bad}), Err("ERR value is not an integer or out of range")) << bad;
  }
  EXPECT_EQ(Run({"select"}), Err("ERR wrong number of arguments for 'select' command"));
}

TEST_F(ConnectionCommandsTest, AuthWithoutRequirepass) {
  EXPECT_EQ(Run({"auth", "secret"}),
            Err("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?"));
  // The default user has no password (nopass): any password is accepted.
  EXPECT_EQ(Run({"auth", "default", "secret"}), Ok());
  EXPECT_EQ(Run({"auth", "alice", "secret"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "a", "b", "c"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"auth"}), Err("ERR wrong number of arguments for 'auth' command"));
}

TEST_F(ConnectionCommandsTest, RequirepassGatesCommandsUntilAuth) {
  RequirePassword("pw");
  EXPECT_EQ(Run({"get", "k"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(Run({"ping"}), Err("NOAUTH Authentication required."));
  // Unknown commands and arity errors are reported before the authentication check.
  EXPECT_EQ(Run({"foo"}), Err("ERR unknown command 'foo', with args beginning with: "));
  EXPECT_EQ(Run({"get"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"auth", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "pw"}), Ok());
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  // A failed AUTH after a good one keeps the connection authenticated.
  EXPECT_EQ(Run({"auth", "default", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
}

TEST_F(ConnectionCommandsTest, HelloReportsTheConnection) {
  const RespValue hello = Run({"hello"});
  ASSERT_EQ(hello.type, RespType::kArray);  // RESP2: the map as a flat array
  ASSERT_EQ(hello.elements.size(), 14u);
  EXPECT_EQ(Field(hello, "server"), Bulk("redis"));
  EXPECT_EQ(Field(hello, "version"), Bulk("7.0.15"));
  EXPECT_EQ(Field(hello, "proto"), Int(2));
  EXPECT_EQ(Field(hello, "id"), Int(static_cast<int64_t>(client_->id())));
  EXPECT_EQ(Field(hello, "mode"), Bulk("standalone"));
  EXPECT_EQ(Field(hello, "role"), Bulk("master"));
  EXPECT_EQ(Field(hello, "modules"), Array({}));
  const RespValue hello3 = Run({"hello", "3"});
  EXPECT_EQ(hello3.type, RespType::kMap);
  EXPECT_EQ(Field(hello3, "proto"), Int(3));
  EXPECT_EQ(Run({"client", "getname"}), Null());  // RESP3 null
  EXPECT_EQ(Field(Run({"hello", "2"}), "proto"), Int(2));
}

TEST_F(ConnectionCommandsTest, HelloErrors) {
  EXPECT_EQ(Run({"hello", "1"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(Run({"hello", "4"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(Run({"hello", "abc"}), Err("ERR Protocol version is not an integer or out of range"));
  EXPECT_EQ(Run({"hello", "2", "foo"}), Err("ERR Syntax error in HELLO option 'foo'"));
  EXPECT_EQ(Run({"hello", "2", "auth", "default"}), Err("ERR Syntax error in HELLO option 'auth'"));
  EXPECT_EQ(Run({"hello", "2", "setname"}), Err("ERR Syntax error in HELLO option 'setname'"));
  EXPECT_EQ(Run({"hello", "2", "auth", "alice", "x"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"hello", "2", "setname", "a b"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
}

TEST_F(ConnectionCommandsTest, HelloSetnameStaysWhenALaterOptionFails) {
  // Redis 7.0 applies SETNAME while it parses the options.
  EXPECT_EQ(Run({"hello", "2", "setname", "ok", "foo"}),
            Err("ERR Syntax error in HELLO option 'foo'"));
  EXPECT_EQ(Run({"client", "getname"}), Bulk("ok"));
  EXPECT_EQ(Run({"hello", "2", "setname", "n", "auth", "alice", "x"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"client", "getname"}), Bulk("n"));
  EXPECT_EQ(Run({"hello", "2", "setname", "good", "setname", "bad name"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(Run({"client", "getname"}), Bulk("good"));
  // The protocol version is checked before any option.
  EXPECT_EQ(Run({"hello", "4", "setname", "zzz"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(Run({"client", "getname"}), Bulk("good"));
}

TEST_F(ConnectionCommandsTest, HelloAppliesOptionsInOrder) {
  // A failed AUTH is reported before a bad name or a bad option after it (found by the random
  // differential run, conformance/run).
  EXPECT_EQ(Run({"hello", "3", "auth", "alice", "x", "setname", "a b"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"hello", "3", "auth", "alice", "x", "foo"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"hello", "3", "auth", "alice", "x", "setname"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"hello", "2", "auth", "alice", "x", "auth", "default", "x"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(client_->reply().resp(), 2);
  // A bad name before the AUTH is reported first.
  EXPECT_EQ(Run({"hello", "3", "setname", "a b", "auth", "alice", "x"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(Run({"client", "getname"}), NilBulk());
}

TEST_F(ConnectionCommandsTest, HelloAuthStaysWhenALaterOptionFails) {
  RequirePassword("pw");
  EXPECT_EQ(Run({"hello", "3", "auth", "default", "pw", "foo"}),
            Err("ERR Syntax error in HELLO option 'foo'"));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(client_->reply().resp(), 2);
}

TEST_F(ConnectionCommandsTest, HelloWithRequirepass) {
  RequirePassword("pw");
  EXPECT_EQ(Run({"hello", "3", "setname", "early"}),
            Err("NOAUTH HELLO must be called with the client already authenticated, otherwise "
                "the HELLO AUTH <user> <pass> option can be used to authenticate the client and "
                "select the RESP protocol version at the same time"));
  EXPECT_EQ(Run({"hello", "2", "auth", "default", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  const RespValue hello = Run({"hello", "3", "auth", "default", "pw"});
  EXPECT_EQ(Field(hello, "proto"), Int(3));
  // The name given before authenticating was kept.
  EXPECT_EQ(Run({"client", "getname"}), Bulk("early"));
}

TEST_F(ConnectionCommandsTest, ResetRestoresTheConnectionDefaults) {
  EXPECT_EQ(Run({"select", "5"}), Ok());
  EXPECT_EQ(Run({"client", "setname", "before"}), Ok());
  EXPECT_EQ(Run({"hello", "3"}).type, RespType::kMap);
  EXPECT_EQ(RunRaw({"reset"}), "+RESET\r\n");
  EXPECT_EQ(client_->reply().resp(), 2);
  EXPECT_EQ(client_->db_index, 0);
  EXPECT_EQ(Run({"client", "getname"}), NilBulk());
  EXPECT_EQ(Run({"reset", "x"}), Err("ERR wrong number of arguments for 'reset' command"));
}

TEST_F(ConnectionCommandsTest, ResetDeauthenticatesWithRequirepass) {
  RequirePassword("pw");
  EXPECT_EQ(Run({"auth", "pw"}), Ok());
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(Run({"ping"}), Err("NOAUTH Authentication required."));
}

TEST_F(ConnectionCommandsTest, QuitRepliesThenCloses) {
  EXPECT_EQ(client_->flags & kClientCloseAfterReply, 0u);
  EXPECT_EQ(Run({"quit"}), Ok());
  EXPECT_NE(client_->flags & kClientCloseAfterReply, 0u);
}

TEST_F(ConnectionCommandsTest, QuitNeedsNoAuthentication) {
  RequirePassword("pw");
  EXPECT_EQ(Run({"quit"}), Ok());
}

}  // namespace
}  // namespace keel::testing
