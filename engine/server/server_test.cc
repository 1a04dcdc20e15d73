// Tests for the Server loop over the simulated network: pipelining, byte splits, protocol errors,
// QUIT, connection refusals, idle timeouts, buffer limits, slow readers and memory refusal.
// Reply texts were checked against redis-server 7.0.15.
#include "engine/server/server.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/base/limits.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ServerLoopTest : public ServerTest {
 protected:
  sim::SimNetwork& net() { return env_.sim_network(); }

  void StartWith(std::initializer_list<Setting> settings) { StartServer(ConfigWith(settings)); }

  // Runs the loop and drains the client until `bytes_min` reply bytes arrived, or nothing moves
  // any more (the client was closed, or the server waits for more input).
  std::string ReceiveAtLeast(sim::SimClientId client, size_t bytes_min, int rounds_max = 100000) {
    std::string received;
    int idle_rounds = 0;
    for (int round = 0; round < rounds_max && received.size() < bytes_min && idle_rounds < 3;
         round++) {
      Settle();
      const std::string bytes = net().Receive(client);
      idle_rounds = bytes.empty() ? idle_rounds + 1 : 0;
      received += bytes;
    }
    return received;
  }

  // The replies to `request` as a fresh client on the same server sees them.
  std::vector<RespValue> FreshExchange(std::string_view request) {
    const sim::SimClientId client = Connect();
    std::vector<RespValue> replies = Exchange(client, request);
    net().CloseClient(client);
    Settle();
    return replies;
  }

  void AdvanceSeconds(int64_t seconds) { env_.sim_clock().Advance(seconds * 1'000'000); }
};

// ---------------------------------------------------------------------------------------------
// Pipelines.

TEST_F(ServerLoopTest, RepliesComeInPipelineOrder) {
  const sim::SimClientId client = Connect();
  const std::vector<RespValue> replies = Exchange(
      client, "PING\r\nECHO a\r\n" + Request({"ECHO", "b"}) + "SET k v\r\n" +
                  Request({"GET", "k"}) + "*0\r\n\r\nPING done\r\n" + Request({"DEL", "k"}));
  EXPECT_EQ(replies, (std::vector<RespValue>{Status("PONG"), Bulk("a"), Bulk("b"), Ok(), Bulk("v"),
                                             Bulk("done"), Int(1)}));
  EXPECT_FALSE(net().ClosedByServer(client));
}

// Redis's query buffer holds a read's commands until they all ran, so the caller's own CLIENT
// LIST line counts them (Redis's suite expects qbuf=26 for a lone CLIENT LIST); another, idle
// client holds nothing. Checked against redis-server 7.0.15.
TEST_F(ServerLoopTest, ClientListCountsTheCallersBatchAsQueryBuffer) {
  const sim::SimClientId idle = Connect();
  EXPECT_EQ(Exchange(idle, Request({"CLIENT", "SETNAME", "idle"})), std::vector<RespValue>{Ok()});
  const sim::SimClientId client = Connect();
  const std::string request = Request({"CLIENT", "LIST"});
  ASSERT_EQ(request.size(), 26u);
  for (const std::string& batch : {request, Request({"PING"}) + request}) {
    const std::vector<RespValue> replies = Exchange(client, batch);
    ASSERT_FALSE(replies.empty());
    const std::string& list = replies.back().text;
    const size_t own = list.find("cmd=client|list");
    ASSERT_NE(own, std::string::npos) << list;
    const size_t line_start = list.rfind('\n', own);
    const std::string line = list.substr(line_start == std::string::npos ? 0 : line_start + 1,
                                         list.find('\n', own) - line_start);
    EXPECT_NE(line.find(" qbuf=" + std::to_string(batch.size()) + " "), std::string::npos) << line;
    EXPECT_NE(list.find("name=idle age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 "),
              std::string::npos)
        << list;
  }
}

TEST_F(ServerLoopTest, ACommandSplitAcrossManyReadsRunsOnce) {
  const sim::SimClientId client = Connect();
  const std::string request =
      Request({"SET", "k", std::string(200000, 'v')}) + Request({"GET", "k"});
  for (size_t at = 0; at < request.size(); at += 7001) {
    net().Send(client, request.substr(at, 7001));
    Settle();
  }
  const std::string bytes = ReceiveAtLeast(client, 200000);
  EXPECT_EQ(bytes, "+OK\r\n$200000\r\n" + std::string(200000, 'v') + "\r\n");
  EXPECT_EQ(engine_->stats().total_commands_processed, 2u);
}

TEST_F(ServerLoopTest, DeepPipelineIsServedCompletely) {
  // More commands than one loop turn runs for a client: the rest runs on later turns.
  const sim::SimClientId client = Connect();
  std::string request;
  std::string expected;
  for (int i = 0; i < 10000; i++) {
    request += "ECHO " + std::to_string(i) + "\r\n";
    expected +=
        "$" + std::to_string(std::to_string(i).size()) + "\r\n" + std::to_string(i) + "\r\n";
  }
  net().Send(client, request);
  EXPECT_EQ(ReceiveAtLeast(client, expected.size()), expected);
}

// Commands whose replies depend only on the commands before them in the same pipeline (each
// client works in its own database), so two runs must reply byte for byte the same.
std::string GenerateCommand(size_t* big_values) {
  const std::string key = *rc::gen::element<std::string>("a", "b", "c");
  const std::string value = *rc::gen::weightedOneOf<std::string>(
      {{20, rc::gen::container<std::string>(rc::gen::cast<char>(rc::gen::inRange(0, 256)))},
       // Past 64 KiB (a first read's block), a SET keeps its query buffer's block as the value
       // (engine/db/entry.h).
       {1, rc::gen::element(std::string(30000, 'V'), std::string(100000, 'W'))}});
  if (value.size() >= 30000) ++*big_values;
  switch (*rc::gen::inRange(0, 10)) {
    case 0:
      return "PING\r\n";
    case 1:
      return Request({"PING", value});
    case 2:
      return Request({"ECHO", value});
    case 3:
      return Request({"SET", key, value});
    case 4:
      return Request({"GET", key});
    case 5:
      return "GET " + key + "\r\n";
    case 6:
      return Request({"DEL", key, "b"});
    case 7:
      return "EXISTS a b c\r\n";
    case 8:
      return Request({"NOSUCHCOMMAND", value});
    default:
      return Request({"GET"});  // wrong arity
  }
}

class ServerSplitTest : public ServerLoopTest {};

RC_GTEST_FIXTURE_PROP(ServerSplitTest, AnySplitOfReadsAndWritesGivesTheSameReplies, ()) {
  size_t big_values = 0;
  std::string pipeline;
  const int count = *rc::gen::inRange(1, 25);
  for (int i = 0; i < count; i++) pipeline += GenerateCommand(&big_values);

  // Reference: everything in one read and one write.
  const sim::SimClientId reference = Connect();
  net().Send(reference, "SELECT 1\r\n" + pipeline);
  const std::string expected = ReceiveAtLeast(reference, SIZE_MAX);
  RC_ASSERT(!expected.empty());

  // The same pipeline in another database, with reads, writes and the client's receive buffer
  // cut to random sizes (large replies get larger write sizes, to keep the run short).
  const size_t write_min = big_values > 0 ? 1000 : 1;
  net().set_read_bytes_max(*rc::gen::element<size_t>(1, 2, 3, 7, 64, 1000, 0));
  net().set_write_bytes_max(*rc::gen::inRange<size_t>(write_min, write_min + 100));
  net().set_client_buffer_bytes_max(*rc::gen::element<size_t>(0, write_min, 4 * write_min));
  const sim::SimClientId split = Connect();
  // The request itself also arrives in pieces.
  const std::string request = "SELECT 2\r\n" + pipeline;
  for (size_t at = 0; at < request.size();) {
    const size_t piece = *rc::gen::inRange<size_t>(1, 3000);
    net().Send(split, request.substr(at, piece));
    at += piece;
    Settle();
  }
  const std::string received = ReceiveAtLeast(split, expected.size());
  RC_ASSERT(received == expected);
  RC_ASSERT(!net().ClosedByServer(split));
}

// ---------------------------------------------------------------------------------------------
// Protocol errors and QUIT.

TEST_F(ServerLoopTest, ProtocolErrorRepliesRunsWhatCameBeforeAndCloses) {
  const sim::SimClientId client = Connect();
  const std::vector<RespValue> replies =
      Exchange(client, "PING\r\n" + Request({"SET", "k", "v"}) + "*x\r\nSET k other\r\nPING\r\n");
  EXPECT_EQ(replies, (std::vector<RespValue>{Status("PONG"), Ok(),
                                             Err("ERR Protocol error: invalid multibulk length")}));
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_EQ(FreshExchange(Request({"GET", "k"})), (std::vector<RespValue>{Bulk("v")}));
}

TEST_F(ServerLoopTest, ProtocolErrorTextIsSanitised) {
  // "expected '$', got '\r'" goes out with the '\r' as a space, as Redis writes it.
  const sim::SimClientId client = Connect();
  net().Send(client, "*1\r\n\r\n");
  EXPECT_EQ(ReceiveAtLeast(client, 1), "-ERR Protocol error: expected '$', got ' '\r\n");
  EXPECT_TRUE(net().ClosedByServer(client));
}

TEST_F(ServerLoopTest, ProtocolErrorInAPartialCommandAfterSplitReads) {
  const sim::SimClientId client = Connect();
  net().set_read_bytes_max(3);
  net().Send(client, Request({"SET", "k", "v"}) + "*2\r\n$3\r\nGET\r\n$-7\r\n");
  EXPECT_EQ(DecodeAll(ReceiveAtLeast(client, 1000)),
            (std::vector<RespValue>{Ok(), Err("ERR Protocol error: invalid bulk length")}));
  EXPECT_TRUE(net().ClosedByServer(client));
}

TEST_F(ServerLoopTest, QuitClosesAfterItsReplyAndIgnoresTheRest) {
  const sim::SimClientId client = Connect();
  const std::vector<RespValue> replies =
      Exchange(client, "PING\r\nQUIT\r\n" + Request({"SET", "k", "v"}) + "PING\r\n");
  EXPECT_EQ(replies, (std::vector<RespValue>{Status("PONG"), Ok()}));
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_EQ(FreshExchange(Request({"EXISTS", "k"})), (std::vector<RespValue>{Int(0)}));
}

TEST_F(ServerLoopTest, QuitReplyReachesASlowReaderBeforeTheClose) {
  net().set_client_buffer_bytes_max(10);
  const sim::SimClientId client = Connect();
  net().Send(client, Request({"ECHO", std::string(100, 'e')}) + "QUIT\r\n");
  const std::string bytes = ReceiveAtLeast(client, 200);
  EXPECT_EQ(bytes, "$100\r\n" + std::string(100, 'e') + "\r\n+OK\r\n");
  EXPECT_TRUE(net().ClosedByServer(client));
}

// ---------------------------------------------------------------------------------------------
// Cross-protocol scripting: an HTTP request (a web page in a local browser can send one to
// localhost) must not run the commands in its body.

constexpr std::string_view kSecurityAttackLog =
    "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands "
    "to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to "
    "compromise your Redis instance. Connection aborted.";

size_t CountLines(const std::vector<std::string>& lines, std::string_view text) {
  size_t count = 0;
  for (const std::string& line : lines) count += line.find(text) != std::string::npos ? 1 : 0;
  return count;
}

TEST_F(ServerLoopTest, HttpPostIsClosedBeforeItsBodyRuns) {
  const sim::SimClientId client = Connect();
  // The request, one read: redis-server 7.0.15 closes at "POST" without a reply.
  net().Send(client,
             "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 30\r\n\r\nSET pwned 1\r\n"
             "CONFIG SET hz 77\r\n");
  EXPECT_EQ(ReceiveAtLeast(client, 1), "");
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_EQ(CountLines(env_.sim_log().lines(), kSecurityAttackLog), 1u);
  EXPECT_EQ(FreshExchange(Request({"EXISTS", "pwned"})), (std::vector<RespValue>{Int(0)}));
  EXPECT_EQ(engine_->settings().hz, 10);
}

TEST_F(ServerLoopTest, HostHeaderAloneClosesAndRepliesBeforeItAreDropped) {
  // A "Host:" line closes as "POST" does, in any case and in multibulk form too; replies to the
  // commands before it in the same read are not written (Redis frees the client before its
  // writes). The bulk's bytes arrive one at a time here, so the command is parsed from the
  // query buffer.
  const sim::SimClientId inline_client = Connect();
  net().Send(inline_client, "PING\r\nhOsT: example.com\r\nSET pwned 1\r\n");
  EXPECT_EQ(ReceiveAtLeast(inline_client, 1), "");
  EXPECT_TRUE(net().ClosedByServer(inline_client));
  net().set_read_bytes_max(1);
  const sim::SimClientId bulk_client = Connect();
  net().Send(bulk_client, Request({"post", "/"}) + Request({"SET", "pwned", "1"}));
  EXPECT_EQ(ReceiveAtLeast(bulk_client, 1), "");
  EXPECT_TRUE(net().ClosedByServer(bulk_client));
  net().set_read_bytes_max(0);
  EXPECT_EQ(FreshExchange(Request({"EXISTS", "pwned"})), (std::vector<RespValue>{Int(0)}));
  // Neither counts as a command (PING and EXISTS do), and "Host" without the colon is only an
  // unknown command.
  EXPECT_EQ(engine_->stats().total_commands_processed, 2u);
  EXPECT_EQ(
      FreshExchange("HOST x\r\n"),
      (std::vector<RespValue>{Err("ERR unknown command 'HOST', with args beginning with: 'x' ")}));
}

TEST_F(ServerLoopTest, SecurityWarningIsLoggedAtMostOncePerMinute) {
  // Redis logs the warning when more than 60 seconds have passed since it last did, so that an
  // attacker cannot flood the log.
  for (int i = 0; i < 3; i++) {
    const sim::SimClientId client = Connect();
    net().Send(client, "POST / HTTP/1.1\r\n");
    Settle();
    EXPECT_TRUE(net().ClosedByServer(client));
  }
  EXPECT_EQ(CountLines(env_.sim_log().lines(), kSecurityAttackLog), 1u);
  AdvanceSeconds(61);
  const sim::SimClientId later = Connect();
  net().Send(later, "POST / HTTP/1.1\r\n");
  Settle();
  EXPECT_TRUE(net().ClosedByServer(later));
  EXPECT_EQ(CountLines(env_.sim_log().lines(), kSecurityAttackLog), 2u);
}

// ---------------------------------------------------------------------------------------------
// Listening.

class ServerStartTest : public ::testing::Test {
 protected:
  // Starts a server with `settings`; returns whether it started. The log is env_'s.
  bool StartsWith(std::initializer_list<Setting> settings) {
    server_.reset();
    engine_ = std::make_unique<Engine>(env_, ConfigWith(settings));
    server_ = std::make_unique<Server>(*engine_);
    return server_->Start().ok();
  }
  bool Logged(std::string_view text) { return CountLines(env_.sim_log().lines(), text) > 0; }

  sim::SimEnv env_{1};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Server> server_;
};

TEST_F(ServerStartTest, AServerThatListensNowhereDoesNotStart) {
  // redis-server 7.0.15 exits 1 with this line for each of these.
  constexpr std::string_view kNowhere = "Configured to not listen anywhere, exiting.";
  EXPECT_FALSE(StartsWith({{"port", "0"}}));
  EXPECT_TRUE(Logged(kNowhere));
  env_.sim_network().AddUnavailableAddress("10.99.99.99");
  EXPECT_FALSE(StartsWith({{"bind", "-10.99.99.99"}}));
  EXPECT_EQ(CountLines(env_.sim_log().lines(), kNowhere), 2u);
  // The optional address that failed is logged with the system's reason, as Redis logs it.
  EXPECT_TRUE(
      Logged("Warning: Could not create server TCP listening socket 10.99.99.99:6379: "
             "bind: Cannot assign requested address"));
  EXPECT_FALSE(StartsWith({{"bind", ""}}));
  EXPECT_EQ(CountLines(env_.sim_log().lines(), kNowhere), 3u);
  // A required address that is not there aborts with Redis's other message.
  EXPECT_FALSE(StartsWith({{"bind", "127.0.0.1 10.99.99.99"}}));
  EXPECT_TRUE(Logged("Failed listening on port 6379 (TCP), aborting."));
  // One optional address that works is enough.
  EXPECT_TRUE(StartsWith({{"bind", "-10.99.99.99 -127.0.0.1"}}));
  EXPECT_EQ(server_->listening_ports().size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Connection refusals.

TEST_F(ServerLoopTest, MaxclientsRefusesTheConnectionBeyondTheLimit) {
  StartWith({{"maxclients", "2"}});
  const sim::SimClientId first = Connect();
  const sim::SimClientId second = Connect();
  const sim::SimClientId third = Connect();
  EXPECT_EQ(net().Receive(third), "-ERR max number of clients reached\r\n");
  EXPECT_TRUE(net().ClosedByServer(third));
  EXPECT_EQ(engine_->stats().rejected_connections, 1u);
  EXPECT_EQ(Exchange(first, "PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
  // Once a client leaves, a new one gets in.
  net().CloseClient(second);
  Settle();
  const sim::SimClientId fourth = Connect();
  EXPECT_EQ(Exchange(fourth, "PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
}

constexpr std::string_view kDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same host "
    "the server is running, however MAKE SURE Redis is not publicly accessible from internet if "
    "you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just "
    "disable the protected mode by editing the Redis configuration file, and setting the protected "
    "mode option to 'no', and then restarting the server. 3) If you started the server manually "
    "just for testing, restart it with the '--protected-mode no' option. 4) Setup a an "
    "authentication password for the default user. NOTE: You only need to do one of the above "
    "things in order for the server to start accepting connections from the outside.\r\n";

TEST_F(ServerLoopTest, ProtectedModeRefusesNonLoopbackClients) {
  const sim::SimClientId remote = net().Connect(port_, /*loopback=*/false);
  Settle();
  // The text is redis-server 7.0.15's, byte for byte (captured from a non-loopback connection).
  EXPECT_EQ(net().Receive(remote), kDenied);
  EXPECT_TRUE(net().ClosedByServer(remote));
  EXPECT_EQ(engine_->stats().rejected_connections, 1u);
  // Loopback clients are served.
  EXPECT_EQ(FreshExchange("PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
}

TEST_F(ServerLoopTest, ProtectedModeLetsRemoteClientsInWhenDisabledOrWithAPassword) {
  StartWith({{"protected-mode", "no"}});
  sim::SimClientId remote = net().Connect(port_, /*loopback=*/false);
  Settle();
  EXPECT_EQ(Exchange(remote, "PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
  StartWith({{"requirepass", "secret"}});
  remote = net().Connect(port_, /*loopback=*/false);
  Settle();
  EXPECT_EQ(Exchange(remote, "PING\r\n"),
            (std::vector<RespValue>{Err("NOAUTH Authentication required.")}));
  EXPECT_FALSE(net().ClosedByServer(remote));
}

TEST_F(ServerLoopTest, UnauthenticatedClientsGetTheStricterProtocolLimits) {
  StartWith({{"requirepass", "secret"}});
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Exchange(client, "*11\r\n"),
            (std::vector<RespValue>{Err("ERR Protocol error: unauthenticated multibulk length")}));
  EXPECT_TRUE(net().ClosedByServer(client));
  // Commands pipelined after AUTH are parsed with the authenticated limits, even when they
  // arrived in the same read (redis-server 7.0.15 checks at parse time, command by command).
  const sim::SimClientId authenticated = Connect();
  const std::vector<RespValue> replies = Exchange(
      authenticated, "AUTH secret\r\n" + Request({"ECHO", std::string(16385, 'x')}) + "*11\r\n");
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0], Ok());
  EXPECT_EQ(replies[1].type, RespType::kBulkString) << replies[1].ToString();
  EXPECT_EQ(replies[1].text.size(), 16385u);
  EXPECT_FALSE(net().ClosedByServer(authenticated));
}

TEST_F(ServerLoopTest, ProtoMaxBulkLenAppliesFromTheNextCommandInTheSameRead) {
  // redis-server 7.0.15 replies +OK then the protocol error to this single write.
  const sim::SimClientId client = Connect();
  EXPECT_EQ(
      Exchange(client, "CONFIG SET proto-max-bulk-len 1mb\r\n*2\r\n$4\r\nECHO\r\n$1048577\r\n"),
      (std::vector<RespValue>{Ok(), Err("ERR Protocol error: invalid bulk length")}));
  EXPECT_TRUE(net().ClosedByServer(client));
}

// ---------------------------------------------------------------------------------------------
// Big requests: reading a command costs time linear in its size, however many reads it takes.

TEST_F(ServerLoopTest, ACommandOfManyArgumentsIsCopiedALinearNumberOfTimes) {
  // One MSET of 4 MiB of small pairs, arriving in reads of at most 64 KiB. The query buffer used
  // to grow by what each read needed, re-copying everything received on every read (about 250
  // MB copied for this command, 48 s of CPU for 106 MB); doubling copies less than its size.
  std::string request;
  size_t pairs = 0;
  for (; request.size() < 4 * 1024 * 1024; pairs++) {
    request += Request({"k" + std::to_string(pairs), "value"}).substr(4);  // without "*2\r\n"
  }
  request = "*" + std::to_string(1 + 2 * pairs) + "\r\n$4\r\nMSET\r\n" + request;
  net().set_read_bytes_max(64 * 1024);
  const sim::SimClientId client = Connect();
  net().Send(client, request);
  EXPECT_EQ(DecodeAll(ReceiveAtLeast(client, 5)), (std::vector<RespValue>{Ok()}));
  ASSERT_EQ(engine_->client_count(), 1u);
  const QueryBuffer& query = engine_->clients().begin()->second->query();
  EXPECT_LE(query.copied_bytes(), 2 * request.size());
  EXPECT_LE(query.allocations(), 16u);
  EXPECT_EQ(engine_->database(0).size(), pairs);
  // Its block is freed as soon as the command is done.
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kQueryBuffers), 0u);
}

TEST_F(ServerLoopTest, ALargeBulkIsReadIntoABlockOfItsFinalSize) {
  // As Redis does for bulks of 32 KiB and more: once the bulk's header is read, the rest of the
  // command is read straight into one block of the command's size, and nothing is copied but
  // the first read.
  const std::string value(4 * 1024 * 1024, 'v');
  const std::string request = Request({"SET", "big", value});
  const sim::SimClientId client = Connect();
  net().Send(client, request);
  EXPECT_EQ(DecodeAll(ReceiveAtLeast(client, 5)), (std::vector<RespValue>{Ok()}));
  const QueryBuffer& query = engine_->clients().begin()->second->query();
  EXPECT_EQ(query.allocations(), 2u);  // the first read's partial command, then its final block
  EXPECT_LE(query.copied_bytes(), 2 * limits::kReadChunkBytes);
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kQueryBuffers), 0u);
  EXPECT_EQ(FreshExchange(Request({"STRLEN", "big"})),
            (std::vector<RespValue>{Int(static_cast<int64_t>(value.size()))}));
}

// ---------------------------------------------------------------------------------------------
// Idle timeout.

TEST_F(ServerLoopTest, IdleClientsAreClosedAfterTheTimeout) {
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Exchange(client, "CONFIG SET timeout 2\r\n"), (std::vector<RespValue>{Ok()}));
  const sim::SimClientId active = Connect();
  for (int i = 0; i < 5; i++) {
    AdvanceSeconds(1);
    EXPECT_EQ(Exchange(active, "PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
  }
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_FALSE(net().ClosedByServer(active));
}

TEST_F(ServerLoopTest, AClientStillReceivingItsRepliesIsNotIdle) {
  // Redis counts every successful write to a client as interaction, so a slow reader draining a
  // long reply outlives the timeout (redis-server 7.0.15 with timeout 1 streamed a 24 MB reply to
  // a client reading at 4 MB/s for 6 s without closing it).
  StartWith({{"timeout", "1"}});
  EXPECT_EQ(FreshExchange(Request({"SET", "big", std::string(64000, 'b')})),
            (std::vector<RespValue>{Ok()}));
  net().set_client_buffer_bytes_max(2000);
  const sim::SimClientId client = Connect();
  net().Send(client, "GET big\r\n");
  std::string received;
  for (int round = 0; round < 200 && received.size() < 64010 && !net().ClosedByServer(client);
       round++) {
    env_.sim_clock().Advance(300'000);
    Settle();
    received += net().Receive(client);
  }
  EXPECT_GT(env_.sim_clock().MonotonicUs(), 5'000'000) << "the transfer should outlast the timeout";
  EXPECT_EQ(received.size(), 64000u + 10u);
  EXPECT_TRUE(received == "$64000\r\n" + std::string(64000, 'b') + "\r\n");
  EXPECT_FALSE(net().ClosedByServer(client));
  // Once the reply is out and nothing more happens, the timeout applies again.
  AdvanceSeconds(3);
  Settle();
  EXPECT_TRUE(net().ClosedByServer(client));
}

TEST_F(ServerLoopTest, NoTimeoutByDefault) {
  const sim::SimClientId client = Connect();
  AdvanceSeconds(100000);
  Settle();
  EXPECT_EQ(Exchange(client, "PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
}

// ---------------------------------------------------------------------------------------------
// Buffer limits.

TEST_F(ServerLoopTest, QueryBufferLimitClosesTheClient) {
  StartWith({{"client-query-buffer-limit", "1mb"}});
  const sim::SimClientId client = Connect();
  // One argument larger than the limit: its bytes pile up in the query buffer.
  net().Send(client, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n");
  const std::string chunk(100000, 'x');
  for (int i = 0; i < 15 && !net().ClosedByServer(client); i++) {
    net().Send(client, chunk);
    Settle();
  }
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_EQ(engine_->stats().client_query_buffer_limit_disconnections, 1u);
  EXPECT_EQ(FreshExchange(Request({"EXISTS", "k"})), (std::vector<RespValue>{Int(0)}));
}

TEST_F(ServerLoopTest, QueryBufferLimitCountsOnlyTheUnparsedBytes) {
  // redis-server 7.0.15 moves each complete argument out of its query buffer, so a 2 MB command
  // made of 20 KB arguments passes a 1 MB limit (only one argument larger than it fails, above).
  StartWith({{"client-query-buffer-limit", "1mb"}});
  const sim::SimClientId client = Connect();
  std::string request = "*101\r\n$3\r\nDEL\r\n";
  for (int i = 0; i < 100; i++) {
    const std::string key = std::to_string(i) + std::string(20000, 'k');
    request += "$" + std::to_string(key.size()) + "\r\n" + key + "\r\n";
  }
  for (size_t at = 0; at < request.size(); at += 100000) {
    net().Send(client, request.substr(at, 100000));
    Settle();
  }
  EXPECT_EQ(DecodeAll(ReceiveAtLeast(client, 4)), (std::vector<RespValue>{Int(0)}));
  EXPECT_FALSE(net().ClosedByServer(client));
  EXPECT_EQ(engine_->stats().client_query_buffer_limit_disconnections, 0u);
}

TEST_F(ServerLoopTest, OutputBufferHardLimitClosesTheClient) {
  StartWith({{"client-output-buffer-limit", "normal 100000 0 0"}});
  EXPECT_EQ(FreshExchange(Request({"SET", "big", std::string(60000, 'b')})),
            (std::vector<RespValue>{Ok()}));
  // A client that does not read: its replies stay in the server's output buffer.
  net().set_client_buffer_bytes_max(1000);
  const sim::SimClientId client = Connect();
  net().Send(client, "GET big\r\nGET big\r\nGET big\r\nSET after 1\r\n");
  Settle();
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_EQ(engine_->stats().client_output_buffer_limit_disconnections, 1u);
  // Commands after the one that passed the limit do not run.
  EXPECT_EQ(FreshExchange("EXISTS after\r\n"), (std::vector<RespValue>{Int(0)}));
  // Others are unaffected.
  net().set_client_buffer_bytes_max(0);
  EXPECT_EQ(FreshExchange("PING\r\n"), (std::vector<RespValue>{Status("PONG")}));
}

TEST_F(ServerLoopTest, OutputBufferSoftLimitClosesAfterItsSeconds) {
  StartWith({{"client-output-buffer-limit", "normal 0 100000 2"}});
  EXPECT_EQ(FreshExchange(Request({"SET", "big", std::string(60000, 'b')})),
            (std::vector<RespValue>{Ok()}));
  net().set_client_buffer_bytes_max(1000);
  const sim::SimClientId client = Connect();
  net().Send(client, "GET big\r\nGET big\r\n");
  Settle();
  EXPECT_FALSE(net().ClosedByServer(client));  // over the soft limit, but not for long yet
  AdvanceSeconds(4);
  net().Send(client, "PING\r\n");  // a new reply makes Redis look at the limit again
  Settle();
  EXPECT_TRUE(net().ClosedByServer(client));
  EXPECT_EQ(engine_->stats().client_output_buffer_limit_disconnections, 1u);
}

TEST_F(ServerLoopTest, ProtocolErrorReplyReachesASlowReaderBeforeTheClose) {
  net().set_client_buffer_bytes_max(10);
  const sim::SimClientId client = Connect();
  net().Send(client, Request({"ECHO", std::string(100, 'e')}) + "*1\r\n$x\r\n");
  const std::string bytes = ReceiveAtLeast(client, 1000);
  EXPECT_EQ(bytes, "$100\r\n" + std::string(100, 'e') +
                       "\r\n-ERR Protocol error: invalid bulk length\r\n");
  EXPECT_TRUE(net().ClosedByServer(client));
}

TEST_F(ServerLoopTest, ClientsThatGoAwayAreFreed) {
  const sim::SimClientId closing = Connect();
  const sim::SimClientId resetting = Connect();
  const sim::SimClientId midway = Connect();
  EXPECT_EQ(engine_->client_count(), 3u);
  net().Send(midway, "*2\r\n$4\r\nECHO\r\n$100\r\npartial");
  Settle();
  net().CloseClient(closing);
  net().Reset(resetting);
  net().Reset(midway);
  Settle();
  EXPECT_EQ(engine_->client_count(), 0u);
  EXPECT_EQ(server_->connection_count(), 0u);
  EXPECT_EQ(net().open_connections(), 0u);
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kQueryBuffers), 0u);
}

TEST_F(ServerLoopTest, SlowReaderGetsEveryReplyInOrder) {
  net().set_client_buffer_bytes_max(37);
  net().set_write_bytes_max(11);
  const sim::SimClientId client = Connect();
  std::string request;
  std::string expected;
  for (int i = 0; i < 300; i++) {
    const std::string value = std::string(static_cast<size_t>(i % 50), 'a' + i % 26);
    request += Request({"ECHO", value});
    expected += "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
  }
  net().Send(client, request);
  EXPECT_EQ(ReceiveAtLeast(client, expected.size()), expected);
  EXPECT_FALSE(net().ClosedByServer(client));
}

// ---------------------------------------------------------------------------------------------
// Memory refusal: the environment refuses allocations; the server must survive and keep serving.

TEST_F(ServerLoopTest, RefusedMemoryNeverCrashesTheServer) {
  for (size_t headroom : {1, 100, 2000, 20000, 70000, 200000, 400000}) {
    env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + headroom);
    const sim::SimClientId client = Connect();
    std::string request;
    for (int i = 0; i < 20; i++) {
      request += Request({"SET", "k" + std::to_string(i), std::string(5000, 'v')});
      request += Request({"GET", "k" + std::to_string(i)});
    }
    request += Request({"SET", "big", std::string(300000, 'b')});
    net().Send(client, request);
    Settle();
    // What arrived is whole replies, never a truncated one; and the client either got every
    // reply or was closed, never left waiting.
    const std::string bytes = net().Receive(client);
    std::string_view rest = bytes;
    size_t replies = 0;
    RespValue reply;
    size_t consumed = 0;
    while (!rest.empty() && DecodeResp(rest, &reply, &consumed) == DecodeStatus::kOk) {
      rest.remove_prefix(consumed);
      replies++;
    }
    EXPECT_TRUE(rest.empty()) << "headroom " << headroom << ": a reply was cut short";
    EXPECT_TRUE(replies == 41 || net().ClosedByServer(client))
        << "headroom " << headroom << ": " << replies << " replies and still open";
    net().CloseClient(client);
    Settle();
  }
  // The limits did bite: allocations were refused along the way.
  EXPECT_GT(env_.sim_memory().refused_count(), 0u);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(FreshExchange("SET after ok\r\nGET after\r\n"),
            (std::vector<RespValue>{Ok(), Bulk("ok")}));
}

// Counts the complete replies at the start of `bytes`; *whole is false if bytes are left over.
size_t CountReplies(std::string_view bytes, bool* whole) {
  size_t replies = 0;
  RespValue reply;
  size_t consumed = 0;
  while (!bytes.empty() && DecodeResp(bytes, &reply, &consumed) == DecodeStatus::kOk) {
    bytes.remove_prefix(consumed);
    replies++;
  }
  *whole = bytes.empty();
  return replies;
}

class ServerMemoryTest : public ServerLoopTest {};

RC_GTEST_FIXTURE_PROP(ServerMemoryTest, RefusedMemoryKeepsRepliesWholeAndAccountingExact, ()) {
  const size_t headroom = *rc::gen::inRange<size_t>(1, 400000);
  const int count = *rc::gen::inRange(1, 30);
  std::string request;
  for (int i = 0; i < count; i++) {
    const std::string key = "k" + std::to_string(*rc::gen::inRange(0, 5));
    if (*rc::gen::arbitrary<bool>()) {
      request += Request({"SET", key, std::string(*rc::gen::inRange<size_t>(0, 40000), 'v')});
    } else {
      request += Request({"GET", key});
    }
  }
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes() + headroom);
  net().set_read_bytes_max(*rc::gen::element<size_t>(0, 100, 5000));
  const sim::SimClientId client = Connect();
  net().Send(client, request);
  const std::string bytes = ReceiveAtLeast(client, SIZE_MAX);
  bool whole = false;
  const size_t replies = CountReplies(bytes, &whole);
  RC_ASSERT(whole);
  RC_ASSERT(replies == static_cast<size_t>(count) || net().ClosedByServer(client));
  // Every byte the environment handed out is accounted for by the engine.
  RC_ASSERT(env_.sim_memory().used_bytes() == engine_->memory().held_bytes());
  RC_ASSERT(engine_->memory().used_bytes_total() <= engine_->memory().held_bytes());
  // With the limit lifted, the server serves as before.
  env_.sim_memory().set_limit_bytes(0);
  RC_ASSERT(FreshExchange("PING\r\n") == std::vector<RespValue>{Status("PONG")});
}

}  // namespace
}  // namespace keel::testing
