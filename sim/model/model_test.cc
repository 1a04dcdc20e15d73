// Tests for the reference model: the Redis rules it encodes, and (RapidCheck) that the engine and
// the model agree on random command sequences from the workload generators, with the clock
// stepping and jumping between commands.
#include "sim/model/model.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/db/database.h"
#include "engine/db/types/set.h"
#include "engine/db/value_ops.h"
#include "engine/server/engine.h"
#include "sim/sim_env.h"
#include "sim/testing/fixtures.h"
#include "sim/workload/workload.h"

namespace keel::model {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

class ModelTest : public ::testing::Test {
 protected:
  Expected Run(std::vector<std::string> args, int64_t now_ms = kNow) {
    Context context;
    context.now_ms = now_ms;
    return model_.Execute(session_, args, context);
  }

  Model model_;
  Session session_;
};

TEST_F(ModelTest, AKeyLivesThroughItsExpiryMillisecond) {
  EXPECT_TRUE(
      Run({"SET", "k", "v", "PXAT", std::to_string(kNow + 5)}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(Run({"GET", "k"}, kNow + 5).Matches(RespValue::Bulk("v")));
  EXPECT_TRUE(Run({"GET", "k"}, kNow + 6).Matches(testing::NilBulk()));
  EXPECT_TRUE(model_.db(0).empty());  // the lookup reclaimed it
}

// The command fuzzer found the model refusing an SSCAN cursor that strtoul reads as 0 (the text
// ends at its NUL byte); corpus/fuzz/commands/36a90f32... replays it.
TEST_F(ModelTest, SscanCursorIsReadAsACString) {
  Run({"SADD", "s", "a"});
  EXPECT_FALSE(
      Run({"SSCAN", "s", std::string("\0x", 2)}).Matches(RespValue::Error("ERR invalid cursor")));
  EXPECT_TRUE(Run({"SSCAN", "s", "1x"}).Matches(RespValue::Error("ERR invalid cursor")));
  EXPECT_TRUE(Run({"SSCAN", "s", "-1"})
                  .Matches(RespValue::Array(
                      {RespValue::Bulk("0"), RespValue::Array({RespValue::Bulk("a")})})));
}

// Set encodings: an intset converts and stays a hashtable, except SPOP's rebuilt remainder
// (without a driver's Context::set_after the model pops members in order).
TEST_F(ModelTest, SetEncodingsFollowRedisRules) {
  Run({"SADD", "k", "1", "2", "3"});
  EXPECT_EQ(model_.db(0).at("k").encoding, Encoding::kIntset);
  Run({"SADD", "k", "y"});
  Run({"SREM", "k", "y"});
  EXPECT_EQ(model_.db(0).at("k").encoding, Encoding::kHashtable);
  Run({"SADD", "r", "!", "1", "2", "3", "4", "5", "6"});
  EXPECT_EQ(model_.db(0).at("r").encoding, Encoding::kHashtable);
  // A count this large keeps a rebuilt remainder: "6" alone, an intset again.
  EXPECT_TRUE(Run({"SPOP", "r", "6"})
                  .Matches(RespValue::Array({RespValue::Bulk("!"), RespValue::Bulk("1"),
                                             RespValue::Bulk("2"), RespValue::Bulk("3"),
                                             RespValue::Bulk("4"), RespValue::Bulk("5")})));
  EXPECT_EQ(model_.db(0).at("r").set, (Value::SetMembers{"6"}));
  EXPECT_EQ(model_.db(0).at("r").encoding, Encoding::kIntset);
}

TEST_F(ModelTest, DbsizeIsARangeWhileExpiredKeysAreNotReclaimed) {
  Run({"SET", "a", "1", "PX", "10"});
  Run({"SET", "b", "2"});
  const Expected size = Run({"DBSIZE"}, kNow + 100);
  EXPECT_EQ(size.kind, Expected::Kind::kIntegerRange);
  EXPECT_TRUE(size.Matches(RespValue::Integer(1)));
  EXPECT_TRUE(size.Matches(RespValue::Integer(2)));
  EXPECT_FALSE(size.Matches(RespValue::Integer(3)));
  Run({"EXISTS", "a"}, kNow + 100);  // touching it reclaims it
  EXPECT_FALSE(Run({"DBSIZE"}, kNow + 100).Matches(RespValue::Integer(2)));
}

TEST_F(ModelTest, AStepBackwardsRevivesAnExpiredKeyNotYetReclaimed) {
  Run({"SET", "k", "v", "PX", "100"});
  EXPECT_TRUE(Run({"DBSIZE"}, kNow + 500).Matches(RespValue::Integer(0)));
  EXPECT_TRUE(Run({"GET", "k"}, kNow + 50).Matches(RespValue::Bulk("v")));
}

TEST_F(ModelTest, SetOptionsFollowRedis) {
  Run({"SET", "k", "old", "EX", "100"});
  EXPECT_TRUE(Run({"SET", "k", "new", "KEEPTTL", "GET"}).Matches(RespValue::Bulk("old")));
  EXPECT_EQ(model_.db(0).at("k").expire_at_ms, kNow + 100'000);
  EXPECT_TRUE(Run({"SET", "k", "x", "NX"}).Matches(testing::NilBulk()));
  EXPECT_TRUE(Run({"SET", "k", "x", "NX", "XX"}).Matches(RespValue::Error(kSyntaxError)));
  EXPECT_TRUE(Run({"SET", "k", "x", "EX", "1", "PX", "1"}).Matches(RespValue::Error(kSyntaxError)));
  EXPECT_TRUE(Run({"SET", "k", "x", "EX", "1", "EX", "2"}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(Run({"SET", "k", "x", "EX", "01"}).Matches(RespValue::Error(kNotInteger)));
  EXPECT_TRUE(Run({"SET", "k", "x", "PX", "9223372036854775807"})
                  .Matches(RespValue::Error("ERR invalid expire time in 'set' command")));
  EXPECT_TRUE(Run({"SET", "k", "x", "EXAT", "0"})
                  .Matches(RespValue::Error("ERR invalid expire time in 'set' command")));
}

TEST_F(ModelTest, RepliesFollowTheSessionsProtocol) {
  EXPECT_EQ(Run({"GET", "nothing"}).value.type, RespType::kNullBulk);
  const Expected hello = Run({"HELLO", "3"});
  EXPECT_EQ(hello.value.type, RespType::kMap);
  EXPECT_EQ(Run({"GET", "nothing"}).value.type, RespType::kNull);
  EXPECT_TRUE(Run({"RESET"}).Matches(RespValue::Simple("RESET")));
  EXPECT_EQ(session_.resp, 2);
}

TEST_F(ModelTest, RejectionsQuoteTheCommandAsRedisDoes) {
  EXPECT_TRUE(Run({"nosuch", "a", "b"})
                  .Matches(RespValue::Error(
                      "ERR unknown command 'nosuch', with args beginning with: 'a' 'b' ")));
  EXPECT_TRUE(
      Run({"GET"}).Matches(RespValue::Error("ERR wrong number of arguments for 'get' command")));
  EXPECT_TRUE(
      Run({"client", "nosuchsub"})
          .Matches(RespValue::Error("ERR unknown subcommand 'nosuchsub'. Try CLIENT HELP.")));
  EXPECT_TRUE(Run({"client"})
                  .Matches(RespValue::Error("ERR wrong number of arguments for 'client' command")));
}

TEST_F(ModelTest, AHelloOptionIsQuotedUpToItsFirstNulByte) {
  // Found by the commands fuzz harness: Redis formats the option with %s.
  EXPECT_TRUE(Run({"HELLO", "3", std::string("\x01\0\x04", 3)})
                  .Matches(RespValue::Error("ERR Syntax error in HELLO option '\x01'")));
  // And with CR and LF as spaces, as Redis's formatted errors have them.
  EXPECT_TRUE(Run({"HELLO", "2", "a\r\nb"})
                  .Matches(RespValue::Error("ERR Syntax error in HELLO option 'a  b'")));
}

TEST_F(ModelTest, AllocationRefusedLeavesTheKeyUnchanged) {
  Run({"SET", "k", "old"});
  Context context;
  context.now_ms = kNow;
  context.allocation_refused = true;
  const std::vector<std::string> set = {"SET", "k", "longer value"};
  EXPECT_TRUE(model_.Execute(session_, set, context).Matches(RespValue::Error(kOomError)));
  const std::vector<std::string> set_get = {"SET", "k", "longer value", "GET"};
  EXPECT_TRUE(model_.Execute(session_, set_get, context).Matches(RespValue::Error(kOomError)));
  EXPECT_EQ(model_.db(0).at("k").string, "old");
}

// A failing disk (Context::disk_error): writes, EXEC with a write queued and PING are refused,
// reads run, and a write refused while queuing dooms the transaction (Redis's
// writeCommandsDeniedByDiskError in processCommand, then flagTransaction).
TEST_F(ModelTest, ADiskErrorRefusesWritesAndPing) {
  const std::string misconf = "MISCONF Errors writing to the AOF file: fsync failed (IoError)";
  Context failing;
  failing.now_ms = kNow;
  failing.disk_error = misconf;
  Run({"SET", "k", "v"});
  EXPECT_TRUE(model_.Execute(session_, std::vector<std::string>{"SET", "k", "w"}, failing)
                  .Matches(RespValue::Error(misconf)));
  EXPECT_TRUE(model_.Execute(session_, std::vector<std::string>{"PING"}, failing)
                  .Matches(RespValue::Error(misconf)));
  EXPECT_TRUE(model_.Execute(session_, std::vector<std::string>{"GET", "k"}, failing)
                  .Matches(RespValue::Bulk("v")));
  EXPECT_TRUE(Run({"MULTI"}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(model_.Execute(session_, std::vector<std::string>{"INCR", "n"}, failing)
                  .Matches(RespValue::Error(misconf)));
  EXPECT_TRUE(Run({"EXEC"}).Matches(
      RespValue::Error("EXECABORT Transaction discarded because of previous errors.")));
  // Queued while the disk was fine, refused at EXEC once it fails.
  EXPECT_TRUE(Run({"MULTI"}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(Run({"INCR", "n"}).Matches(RespValue::Simple("QUEUED")));
  EXPECT_TRUE(
      model_.Execute(session_, std::vector<std::string>{"EXEC"}, failing)
          .Matches(RespValue::Error("EXECABORT Transaction discarded because of: " + misconf)));
  EXPECT_TRUE(Run({"GET", "n"}).Matches(testing::NilBulk()));
}

TEST_F(ModelTest, ValuesCarryRedisEncodings) {
  auto encoding = [&](const std::string& key) { return Run({"OBJECT", "ENCODING", key}); };
  auto refcount = [&](const std::string& key) { return Run({"OBJECT", "REFCOUNT", key}); };
  Run({"SET", "shared", "12"});
  Run({"SET", "private", "10000"});
  Run({"SET", "text", std::string(44, 'x')});
  Run({"SET", "long", std::string(45, 'x')});
  EXPECT_TRUE(encoding("shared").Matches(RespValue::Bulk("int")));
  EXPECT_TRUE(refcount("shared").Matches(RespValue::Integer(2147483647)));
  EXPECT_TRUE(refcount("private").Matches(RespValue::Integer(1)));
  EXPECT_TRUE(encoding("text").Matches(RespValue::Bulk("embstr")));
  EXPECT_TRUE(encoding("long").Matches(RespValue::Bulk("raw")));
  // A copy is a new object; a rename moves the same one.
  Run({"COPY", "shared", "copied"});
  EXPECT_TRUE(refcount("copied").Matches(RespValue::Integer(1)));
  Run({"RENAME", "shared", "renamed"});
  EXPECT_TRUE(refcount("renamed").Matches(RespValue::Integer(2147483647)));
  // Appending edits in place: raw, even when nothing is appended.
  Run({"APPEND", "private", ""});
  EXPECT_TRUE(encoding("private").Matches(RespValue::Bulk("raw")));
  // INCRBYFLOAT's text is never an int; INCR's result is.
  Run({"INCRBYFLOAT", "float", "10"});
  EXPECT_TRUE(encoding("float").Matches(RespValue::Bulk("embstr")));
  Run({"INCR", "float"});
  EXPECT_TRUE(refcount("float").Matches(RespValue::Integer(2147483647)));
}

TEST(ModelGlobTest, FollowsRedisStringmatchlen) {
  EXPECT_FALSE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("k[0-3]", "k2"));
  EXPECT_TRUE(GlobMatch("k[3-0]", "k2"));  // a range's ends in either order
  EXPECT_FALSE(GlobMatch("k[^0]*", "k0x"));
  EXPECT_TRUE(GlobMatch("k[^0]*", "k1x"));
  EXPECT_TRUE(GlobMatch("\\k*", "k7"));
  EXPECT_TRUE(GlobMatch("k??", "k10"));
  EXPECT_FALSE(GlobMatch("k??", "k1"));
  EXPECT_TRUE(GlobMatch("*1", "k21"));
  EXPECT_TRUE(GlobMatch("k[ab", "ka"));  // an unclosed class still matches its bytes
  EXPECT_FALSE(GlobMatch("k[", "k["));
}

// Found by the command fuzzer once its words came from the registry (corpus/fuzz/commands): an
// option ending in CRLF is quoted by Redis without it (addReplyErrorFormat trims both ends, then
// maps the CR and LF left inside to spaces); the model kept the trailing two spaces.
TEST(ModelExpectedTest, ErrorsTrimLineBreaksAtTheEndsAndMapThoseInside) {
  EXPECT_TRUE(Error("ERR Unsupported option ab\r\n")
                  .Matches(RespValue::Error("ERR Unsupported option ab")));
  EXPECT_TRUE(Error("ERR bad a\r\nb\n").Matches(RespValue::Error("ERR bad a  b")));
  EXPECT_FALSE(Error("ERR Unsupported option ab\r\n")
                   .Matches(RespValue::Error("ERR Unsupported option ab  ")));
}

TEST(ModelExpectedTest, BoundsAcceptWhatTheyShould) {
  const RespValue ab = RespValue::Array({RespValue::Bulk("b"), RespValue::Bulk("a")});
  EXPECT_TRUE(BulkSet({"a", "b"}).Matches(ab));
  EXPECT_FALSE(BulkSet({"a"}).Matches(ab));
  EXPECT_FALSE(BulkSet({"a", "b"})
                   .Matches(RespValue::Array(
                       {RespValue::Bulk("a"), RespValue::Bulk("a"), RespValue::Bulk("b")})));
  EXPECT_TRUE(ScanPage({"a", "b", "c"}).Matches(RespValue::Array({RespValue::Bulk("17"), ab})));
  EXPECT_FALSE(ScanPage({"a"}).Matches(RespValue::Array({RespValue::Bulk("0"), ab})));
  EXPECT_FALSE(ScanPage({"a", "b"}).Matches(RespValue::Array({RespValue::Bulk("x"), ab})));
  EXPECT_TRUE(OneOf({Bulk("a"), Integer(1)}).Matches(RespValue::Integer(1)));
  EXPECT_FALSE(OneOf({Bulk("a"), Integer(1)}).Matches(RespValue::Integer(2)));
}

TEST_F(ModelTest, WalksPredictBoundsAndReclaimWhatIsCertain) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "2", "PX", "10"});
  const Expected drawn = Run({"RANDOMKEY"}, kNow + 100);
  EXPECT_TRUE(drawn.Matches(RespValue::Bulk("a")));
  EXPECT_FALSE(drawn.Matches(RespValue::Bulk("b")));
  EXPECT_TRUE(Run({"SCAN", "0", "TYPE", "none"}, kNow + 100)
                  .Matches(RespValue::Array(
                      {RespValue::Bulk("0"), RespValue::Array({RespValue::Bulk("b")})})));
  EXPECT_TRUE(Run({"KEYS", "*"}, kNow + 100).Matches(RespValue::Array({RespValue::Bulk("a")})));
  Run({"DEL", "a"}, kNow + 100);
  // No live key left: RANDOMKEY drew and reclaimed every expired one.
  EXPECT_TRUE(Run({"RANDOMKEY"}, kNow + 100).Matches(testing::NilBulk()));
  EXPECT_TRUE(model_.db(0).empty());
}

TEST_F(ModelTest, LcsIdxReportsRedisRanges) {
  Run({"SET", "a", "ohmytext"});
  Run({"SET", "b", "mynewtext"});
  const auto range = [](int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t length) {
    return RespValue::Array({RespValue::Array({RespValue::Integer(a0), RespValue::Integer(a1)}),
                             RespValue::Array({RespValue::Integer(b0), RespValue::Integer(b1)}),
                             RespValue::Integer(length)});
  };
  // As redis-server 7.0.15 replies.
  EXPECT_TRUE(
      Run({"LCS", "a", "b", "IDX", "MINMATCHLEN", "2", "WITHMATCHLEN"})
          .Matches(RespValue::Array({RespValue::Bulk("matches"),
                                     RespValue::Array({range(4, 7, 5, 8, 4), range(2, 3, 0, 1, 2)}),
                                     RespValue::Bulk("len"), RespValue::Integer(6)})));
  EXPECT_TRUE(Run({"LCS", "a", "b"}).Matches(RespValue::Bulk("mytext")));
}

// The engine and the model agree, command by command, on what the workload generates. One engine
// client, no network: the Server loop and faults are the simulator's part.
// Transactions: queuing, EXEC's array of predictions, and WATCH broken by another session.
TEST_F(ModelTest, TransactionsQueueAndWatchesBreak) {
  session_.client_id = 1;
  Session other;
  other.client_id = 2;
  Context context;
  context.now_ms = kNow;
  EXPECT_TRUE(Run({"MULTI"}).Matches(RespValue::Simple("OK")));
  EXPECT_TRUE(Run({"SET", "k", "1"}).Matches(RespValue::Simple("QUEUED")));
  EXPECT_TRUE(Run({"INCR", "k"}).Matches(RespValue::Simple("QUEUED")));
  EXPECT_TRUE(model_.db(0).empty());  // nothing ran yet
  EXPECT_TRUE(
      Run({"EXEC"}).Matches(RespValue::Array({RespValue::Simple("OK"), RespValue::Integer(2)})));
  // A queuing error dooms the transaction.
  Run({"MULTI"});
  EXPECT_EQ(Run({"SET", "k"}).value.type, RespType::kError);
  EXPECT_TRUE(Run({"EXEC"}).Matches(RespValue::Error(std::string(kExecAbortError))));
  // Another session's write breaks the watch; a write that changes nothing does not.
  Run({"WATCH", "k"});
  model_.Execute(other, std::vector<std::string>{"SET", "k", "2", "NX"}, context);
  Run({"MULTI"});
  EXPECT_TRUE(Run({"EXEC"}).Matches(RespValue::Array({})));
  Run({"WATCH", "k"});
  model_.Execute(other, std::vector<std::string>{"SET", "k", "2"}, context);
  Run({"MULTI"});
  RespValue null_array;
  null_array.type = RespType::kNullArray;
  EXPECT_TRUE(Run({"EXEC"}).Matches(null_array));
  // COPY ... REPLACE over an equal value changes nothing but still touches the key (seed 998).
  Run({"SET", "src", "word"});
  Run({"SET", "dst", "word"});
  Run({"WATCH", "dst"});
  model_.Execute(other, std::vector<std::string>{"COPY", "src", "dst", "REPLACE"}, context);
  EXPECT_TRUE(model_.IsBroken(1));
  Run({"UNWATCH"});
  // SWAPDB of a key present on one side only breaks it; absent on both sides does not.
  Run({"WATCH", "k", "nowhere"});
  model_.Execute(other, std::vector<std::string>{"SWAPDB", "0", "1"}, context);
  EXPECT_TRUE(model_.IsBroken(1));
  Run({"UNWATCH"});
  Run({"WATCH", "nowhere"});
  model_.Execute(other, std::vector<std::string>{"SWAPDB", "0", "1"}, context);
  EXPECT_FALSE(model_.IsBroken(1));
  // A watched key that expires before EXEC breaks it, even unreclaimed.
  Run({"UNWATCH"});
  Run({"SET", "e", "v", "PX", "10"});
  Run({"WATCH", "e"});
  Run({"MULTI"}, kNow + 100);
  EXPECT_TRUE(Run({"EXEC"}, kNow + 100).Matches(null_array));
}

RC_GTEST_PROP(ModelProperty, EngineAndModelAgreeOnRandomCommands, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  const auto count = *rc::gen::inRange(1, 120);
  sim::SimEnv env(seed);
  Engine engine(env, Config());
  Client* client = engine.NewClient(0, nullptr);
  Model model(static_cast<int>(engine.settings().databases));
  Session session;
  session.client_id = client->id();
  Rng rng(seed);
  workload::KeySpace space;
  space.keys = 1 + static_cast<int>(rng.Below(6));
  space.databases = 2;
  std::vector<std::string> args;
  int64_t wall_ms_max = 0;
  for (int i = 0; i < count; i++) {
    // Time moves a few ms, sometimes across a second, sometimes backwards (wall clock only).
    const uint64_t move = rng.Below(10);
    if (move < 6) env.sim_clock().Advance(static_cast<int64_t>(rng.Below(4000)));
    if (move == 6) env.sim_clock().Advance(1'000'000);
    if (move == 7) env.sim_clock().JumpWall(-static_cast<int64_t>(rng.Below(3'000'000)));
    space.now_ms = env.clock().WallUs() / 1000;
    const auto& families = workload::Families();
    families[rng.Below(families.size())].generate(rng, space, &args);
    // As the simulator's clients do (simulation.cc): inside a transaction SPOP is sent as
    // SRANDMEMBER, since the model reads SPOP's draws from the set after the command, which
    // later queued commands change. The sorted-set family shifted the draws onto such a case.
    if (session.multi && !args.empty() && EqualsIgnoreCase(args[0], "spop")) {
      args[0] = "srandmember";
    }
    Context context;
    context.now_ms = env.clock().WallUs() / 1000;
    // The engine's client has no connection: its blocking commands cannot block.
    context.may_block = false;
    wall_ms_max = std::max(wall_ms_max, context.now_ms);
    // Expired keys the engine reclaimed on its own (SCAN pages, RANDOMKEY's draws) stay gone even
    // when the wall clock steps back, as the oracle's model follows them.
    for (int index = 0; index < model.database_count(); index++) {
      const Database& db = engine.database(index);
      model.ForgetExpired(index, wall_ms_max,
                          [&](const std::string& key) { return db.Find(key) == nullptr; });
    }
    // The engine runs first, so that SPOP's draws (the engine's randomness) can be read from
    // what its set kept, as the simulator's oracle reads them.
    std::vector<std::string_view> views(args.begin(), args.end());
    engine.RunCommand(*client, views);
    context.set_after = [&](std::string_view key, Value::SetMembers* members) {
      const Entry* entry = engine.database(session.db).Find(key);
      members->clear();
      if (entry == nullptr || entry->type() != keel::ValueType::kSet) return false;
      static_cast<const SetValue*>(EntryObject(*entry))->ForEach([&](std::string_view member) {
        members->emplace(member);
      });
      return true;
    };
    const Expected expected = model.Execute(session, args, context);
    const std::vector<RespValue> replies = testing::DecodeAll(client->output().TakeAll());
    RC_ASSERT(replies.size() == 1u);
    if (!expected.Matches(replies[0])) {
      std::string command;
      for (const std::string& arg : args) command += "[" + arg + "] ";
      RC_LOG() << command << "expected " << expected.ToString() << ", the engine replied "
               << replies[0].ToString() << "\n";
    }
    RC_ASSERT(expected.Matches(replies[0]));
  }
}

}  // namespace
}  // namespace keel::model
