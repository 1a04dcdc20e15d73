// EVAL and SCRIPT: what the conformance case file (conformance/cases/scripting.txt) cannot show
// from outside: propagation of a script's effects, memory accounting and refusals, error
// statistics, MONITOR, the generator behind math.random, and the shebang parser.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/commands/context.h"
#include "engine/db/propagation.h"
#include "engine/script/lua_vm.h"
#include "engine/script/script_flags.h"
#include "engine/script/scripting.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Array;
using testing::Bulk;
using testing::ConfigWith;
using testing::Err;
using testing::Int;
using testing::NilBulk;
using testing::Ok;
using testing::Status;

class Recording final : public PropagationSink {
 public:
  void Propagate(int db, std::span<const std::string_view> args) override {
    std::string line = std::to_string(db);
    for (std::string_view arg : args) line += " " + std::string(arg);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

class ScriptingTest : public testing::CommandTest {
 protected:
  void SetUp() override { StartEngine(ConfigWith({{"enable-debug-command", "yes"}})); }

  uint64_t Stat(std::string_view name, uint64_t CommandStats::*field) {
    return engine_->stats().commands[engine_->registry().FindByFullName(name)->id].*field;
  }
};

TEST_F(ScriptingTest, RunsCommandsAndConvertsBothWays) {
  EXPECT_EQ(Run({"eval", "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"eval", "return {1, 'x', {2}, nil, 3}", "0"}),
            Array({Int(1), Bulk("x"), Array({Int(2)})}));
  EXPECT_EQ(Run({"eval", "return 3.99", "0"}), Int(3));
  EXPECT_EQ(Run({"eval", "return false", "0"}), NilBulk());
  EXPECT_EQ(Run({"eval", "return redis.status_reply('FINE')", "0"}), Status("FINE"));
  EXPECT_EQ(Run({"eval", "return redis.call('get', 'nosuch')", "0"}), NilBulk());
}

TEST_F(ScriptingTest, ErrorsNameTheScriptAndLine) {
  EXPECT_EQ(Run({"eval", "\n\nerror('boom')", "0"}),
            Err("ERR user_script:3: boom script: 5d281ae492bac8794e282be2db21b8c24cd536a5, on "
                "@user_script:3."))
      << "the SHA1 above is of the script's text";
}

TEST_F(ScriptingTest, EvalshaRunsWhatLoadCached) {
  const RespValue sha = Run({"script", "load", "return 'cached'"});
  ASSERT_EQ(sha.type, RespType::kBulkString);
  EXPECT_EQ(Run({"evalsha", sha.text, "0"}), Bulk("cached"));
  EXPECT_EQ(Run({"script", "exists", sha.text, "0000000000000000000000000000000000000000"}),
            Array({Int(1), Int(0)}));
  EXPECT_EQ(Run({"script", "flush"}), Ok());
  EXPECT_EQ(Run({"evalsha", sha.text, "0"}), Err("NOSCRIPT No matching script. Please use EVAL."));
}

TEST_F(ScriptingTest, EffectsPropagateAsOneUnitAndEvalItselfNever) {
  Recording sink;
  engine_->keyspace().propagation().AddSink(&sink);
  Run({"eval", "redis.call('set', 'a', '1') redis.call('incr', 'a') return 1", "0"});
  Run({"eval", "redis.call('set', 'b', '1') return 1", "0"});
  Run({"eval", "return redis.call('get', 'a')", "0"});
  Run({"eval", "redis.set_repl(redis.REPL_NONE) redis.call('set', 'c', '1') return 1", "0"});
  Run({"eval", "redis.call('set', 'd', '1') error('after')", "0"});
  engine_->keyspace().propagation().RemoveSink(&sink);
  EXPECT_EQ(sink.lines, (std::vector<std::string>{"0 MULTI", "0 set a 1", "0 incr a", "-1 EXEC",
                                                  "0 set b 1", "0 set d 1"}));
  EXPECT_EQ(Run({"get", "c"}), Bulk("1"));  // written, only not propagated
}

// redis.set_repl chooses where the script's next commands go (Redis's PROPAGATE_AOF and
// PROPAGATE_REPL); PUBLISH goes to replicas only, from a script as from a client.
TEST_F(ScriptingTest, SetReplAndPublishChooseTheirTargets) {
  Recording aof;
  Recording replicas;
  engine_->keyspace().propagation().AddSink(&aof, kPropagateAof);
  engine_->keyspace().propagation().AddSink(&replicas, kPropagateReplicas);
  Run({"eval", "redis.set_repl(redis.REPL_AOF) redis.call('set', 'a', '1') return 1", "0"});
  Run({"eval", "redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'b', '1') return 1", "0"});
  Run({"eval", "redis.set_repl(redis.REPL_ALL) redis.call('set', 'c', '1') return 1", "0"});
  Run({"eval", "redis.call('publish', 'ch', 'm') return 1", "0"});
  Run({"eval", "redis.set_repl(redis.REPL_AOF) redis.call('publish', 'ch', 'n') return 1", "0"});
  Run({"publish", "ch", "o"});
  Run({"eval", "redis.call('publish', 'ch', 'p') redis.call('set', 'd', '1') return 1", "0"});
  engine_->keyspace().propagation().RemoveSink(&aof);
  engine_->keyspace().propagation().RemoveSink(&replicas);
  // A unit of several commands is wrapped for every sink, as Redis's propagatePendingCommands.
  EXPECT_EQ(aof.lines, (std::vector<std::string>{"0 set a 1", "0 set c 1", "0 MULTI", "0 set d 1",
                                                 "-1 EXEC"}));
  EXPECT_EQ(replicas.lines,
            (std::vector<std::string>{"0 set b 1", "0 set c 1", "0 publish ch m", "0 publish ch o",
                                      "0 MULTI", "0 publish ch p", "0 set d 1", "-1 EXEC"}));
}

TEST_F(ScriptingTest, ScriptCommandsRunAtTheScriptsCommandTime) {
  Run({"set", "k", "v", "px", "5"});
  AdvanceMs(10);
  // The key expired before the script started: it is gone for every command inside it.
  EXPECT_EQ(Run({"eval", "return {redis.call('exists', 'k'), redis.call('exists', 'k')}", "0"}),
            Array({Int(0), Int(0)}));
}

TEST_F(ScriptingTest, InterpreterMemoryIsCountedAndFreedByFlush) {
  const size_t before = engine_->memory().used_bytes(MemoryUse::kScripting);
  EXPECT_EQ(before, 0u) << "no interpreter until a script runs";
  Run({"eval", "local t = {} for i = 1, 1000 do t[i] = i end return #t", "0"});
  EXPECT_GT(engine_->memory().used_bytes(MemoryUse::kScripting), 10000u);
  EXPECT_EQ(Scripting::Of(*engine_).script_count(), 1u);
  Run({"script", "flush"});
  EXPECT_EQ(engine_->memory().used_bytes(MemoryUse::kScripting), 0u);
  EXPECT_EQ(Scripting::Of(*engine_).script_count(), 0u);
}

TEST_F(ScriptingTest, RefusedMemoryFailsTheScriptNotTheServer) {
  Run({"eval", "return 1", "0"});  // the interpreter exists
  env_.sim_memory().set_limit_bytes(engine_->memory().held_bytes() + 4096);
  const RespValue reply =
      Run({"eval", "local t = {} for i = 1, 100000 do t[i] = tostring(i) end return #t", "0"});
  ASSERT_EQ(reply.type, RespType::kError);
  EXPECT_NE(reply.text.find("not enough memory"), std::string::npos) << reply.text;
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"eval", "return 'alive'", "0"}), Bulk("alive"));
}

TEST_F(ScriptingTest, RefusedInterpreterIsAnOomError) {
  env_.sim_memory().set_limit_bytes(engine_->memory().held_bytes() + 512);
  EXPECT_EQ(Run({"eval", "return 1", "0"}).type, RespType::kError);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(Run({"eval", "return 1", "0"}), Int(1));
}

TEST_F(ScriptingTest, ErrorStatisticsCountARefusedCommandOnce) {
  Run({"set", "s", "text"});
  Run({"config", "resetstat"});
  Run({"eval", "return redis.call('incr', 's')", "0"});
  Run({"eval", "return redis.call('nosuch')", "0"});
  Run({"eval", "return redis.pcall('nosuch')", "0"});
  // As redis-server 7.0.15 counts them: each refusal once, as ERR; every EVAL failed.
  const std::string info = Run({"info", "errorstats"}).text;
  EXPECT_NE(info.find("errorstat_ERR:count=3"), std::string::npos) << info;
  EXPECT_EQ(info.find("errorstat_Unknown"), std::string::npos) << info;
  EXPECT_EQ(Stat("eval", &CommandStats::failed_calls), 3u);
  EXPECT_EQ(Stat("incr", &CommandStats::failed_calls), 1u);
}

TEST_F(ScriptingTest, ReadOnlyScriptsRefuseWritesAndMayReplicate) {
  EXPECT_EQ(Run({"eval_ro", "return redis.pcall('set', 'k', 'v')", "0"}),
            Err("ERR Write commands are not allowed from read-only scripts."));
  EXPECT_EQ(Run({"eval_ro", "return redis.pcall('publish', 'c', 'm')", "0"}),
            Err("ERR Write commands are not allowed from read-only scripts."));
  EXPECT_EQ(Run({"eval", "#!lua flags=no-writes\nreturn redis.pcall('pfcount', 'h')", "0"}),
            Err("ERR Write commands are not allowed from read-only scripts."));
}

TEST_F(ScriptingTest, ShebangFlagsDecideTheOomCheck) {
  Run({"set", "filler", std::string(100000, 'x')});
  Run({"config", "set", "maxmemory", "1"});
  // Without a shebang the script runs, and only its denyoom commands are refused.
  EXPECT_EQ(Run({"eval", "return redis.pcall('set', 'k', 'v')", "0"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"eval", "return redis.call('get', 'filler') ~= nil", "0"}), Int(1));
  // With one, EVAL itself is denyoom unless allow-oom or no-writes.
  EXPECT_EQ(Run({"eval", "#!lua\nreturn 1", "0"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"eval", "#!lua flags=no-writes\nreturn 2", "0"}), Int(2));
  EXPECT_EQ(Run({"eval", "#!lua flags=allow-oom\nreturn redis.call('set', 'k', 'v')", "0"}), Ok());
  Run({"config", "set", "maxmemory", "0"});
}

TEST_F(ScriptingTest, UnpackRefusesRangesTooLargeForTheStack) {
  // Debian's liblua5.1 overflowed here and wrote past the stack; texts as redis-server 7.0.15.
  for (std::string_view script :
       {"return {unpack({1,2,3}, -2, 2147483647)}", "return {unpack({1,2,3}, 0, 2147483647)}",
        "return {unpack({1,2,3}, -2147483648, -2)}"}) {
    const RespValue reply = Run({"eval", script, "0"});
    ASSERT_EQ(reply.type, RespType::kError) << script;
    EXPECT_NE(reply.text.find("too many results to unpack"), std::string::npos) << reply.text;
  }
  EXPECT_EQ(Run({"eval", "return {unpack({1,2,3}, -1, -2)}", "0"}), Array({}));
  EXPECT_EQ(Run({"eval", "return {unpack({1,2,3})}", "0"}), Array({Int(1), Int(2), Int(3)}));
  EXPECT_EQ(Run({"eval", "return {unpack({1,2,3}, 2)}", "0"}), Array({Int(2), Int(3)}));
  EXPECT_EQ(Run({"eval", "return select('#', unpack({1,2,3}, -1, 5))", "0"}), Int(7));
}

TEST_F(ScriptingTest, BitTohexTakesTheSmallestCount) {
  // Debian's BitOp wrote before its buffer here; results as redis-server 7.0.15.
  EXPECT_EQ(Run({"eval", "return bit.tohex(65535, -2147483648)", "0"}), Bulk("0000FFFF"));
  EXPECT_EQ(Run({"eval", "return bit.tohex(65535)", "0"}), Bulk("0000ffff"));
  EXPECT_EQ(Run({"eval", "return bit.tohex(-1, 3)", "0"}), Bulk("fff"));
  EXPECT_EQ(Run({"eval", "return bit.tohex(4294967296 + 10, -2)", "0"}), Bulk("0A"));
  EXPECT_EQ(Run({"eval", "return bit.tohex(1, 20)", "0"}), Bulk("00000001"));
}

TEST_F(ScriptingTest, TheStringAndGlobalsMetatablesAreReadOnly) {
  // A script could otherwise change how strings behave for every script after it.
  for (std::string_view script :
       {"getmetatable('').__index = function() return 1 end",
        "rawset(getmetatable(''), '__index', function() return 1 end)",
        "setmetatable(getmetatable(''), {})", "getmetatable(_G).__index = {}",
        "rawset(getmetatable(_G), '__index', {})"}) {
    const RespValue reply = Run({"eval", script, "0"});
    ASSERT_EQ(reply.type, RespType::kError) << script;
    EXPECT_NE(reply.text.find("Attempt to modify a readonly table"), std::string::npos)
        << reply.text;
  }
  EXPECT_EQ(Run({"eval", "return ('abc'):upper()", "0"}), Bulk("ABC"));
  EXPECT_EQ(Run({"eval", "return getmetatable('').__index == string", "0"}), Int(1));
  EXPECT_EQ(Run({"eval", "return getmetatable(nil)", "0"}), NilBulk());
  EXPECT_EQ(Run({"eval", "return nosuch", "0"}),
            Err("ERR user_script:1: Script attempted to access nonexistent global variable "
                "'nosuch' script: 100e7d6e08587ed416717dc6d703eca312809a20, on @user_script:1."));
}

TEST_F(ScriptingTest, BytecodeIsNeverLoaded) {
  // Precompiled chunks escape any sandbox; Redis's Lua only parses text. Texts as redis-server
  // 7.0.15 gives them.
  EXPECT_EQ(Run({"eval",
                 "local f, e = loadstring(string.dump(function() return 1 end), 'named') "
                 "return {type(f), e}",
                 "0"}),
            Array({Bulk("nil"), Bulk("[string \"named\"]:1: unexpected symbol near 'char(27)'")}));
  EXPECT_EQ(Run({"eval",
                 "local s = string.dump(function() return 1 end) local i = 0 "
                 "local f, e = load(function() i = i + 1 if i == 1 then return s end end) "
                 "return {type(f), e}",
                 "0"}),
            Array({Bulk("nil"), Bulk("(load):1: unexpected symbol near 'char(27)'")}));
  EXPECT_EQ(Run({"eval", "\x1bLuaQ", "0"}),
            Err("ERR Error compiling script (new function): user_script:1: unexpected symbol near "
                "'char(27)'"));
  EXPECT_EQ(Run({"function", "load", "#!lua name=x\n\x1bLuaQ"}),
            Err("ERR Error compiling function: user_function:2: unexpected symbol near "
                "'char(27)'"));
  // Text still loads, from a string or a reader.
  EXPECT_EQ(Run({"eval", "return loadstring('return 8')()", "0"}), Int(8));
  EXPECT_EQ(Run({"eval",
                 "local parts = {'return ', '4', '2'} local i = 0 "
                 "return load(function() i = i + 1 return parts[i] end)()",
                 "0"}),
            Int(42));
}

TEST_F(ScriptingTest, DebugCanLetNoscriptCommandsIntoScripts) {
  const std::string_view script = "return redis.pcall('debug', 'protocol', 'true')";
  EXPECT_EQ(Run({"eval", script, "0"}), Err("ERR This Redis command is not allowed from script"));
  ASSERT_EQ(Run({"debug", "set-disable-deny-scripts", "1"}), Ok());
  EXPECT_EQ(Run({"eval", script, "0"}), Int(1));
  // Never a script or a transaction inside a script.
  EXPECT_EQ(Run({"eval", "return redis.pcall('eval', 'return 1', '0')", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(Run({"eval", "return redis.pcall('multi')", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  ASSERT_EQ(Run({"debug", "set-disable-deny-scripts", "0"}), Ok());
  EXPECT_EQ(Run({"eval", script, "0"}), Err("ERR This Redis command is not allowed from script"));
}

TEST_F(ScriptingTest, ScriptKillWithoutAScript) {
  EXPECT_EQ(Run({"script", "kill"}), Err("NOTBUSY No scripts in execution right now."));
}

TEST_F(ScriptingTest, LogWritesAtTheLevelGiven) {
  Run({"config", "set", "loglevel", "warning"});
  Run({"eval", "redis.log(redis.LOG_NOTICE, 'quiet') redis.log(redis.LOG_WARNING, 'a', 'b')", "0"});
  const std::vector<std::string> lines = env_.sim_log().lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("a b"), std::string::npos) << lines.back();
  for (const std::string& line : lines) EXPECT_EQ(line.find("quiet"), std::string::npos);
}

TEST(Rand48Test, FollowsRedisSequence) {
  // Values redis-server 7.0.15 gave: math.random() after math.randomseed(5), and the first
  // draws of a fresh server (Redis 7.0 does not reseed for every script).
  Rand48 seeded;
  seeded.Seed(5);
  EXPECT_NEAR(static_cast<double>(seeded.Next() % 2147483647) / 2147483647.0, 0.52483957937213,
              1e-13);
  // A fresh redis-server's first four math.random() draws.
  Rand48 fresh;
  for (double expected : {0.39646477363839, 0.84048536971234, 0.35333609737146, 0.44658343468168}) {
    EXPECT_NEAR(static_cast<double>(fresh.Next() % 2147483647) / 2147483647.0, expected, 1e-13);
  }
}

TEST(ShebangTest, ReadsFlagsAndRefusesWhatRedisRefuses) {
  uint32_t flags = 0;
  size_t bytes = 0;
  EXPECT_EQ(ParseShebang("return 1", &flags, &bytes), "");
  EXPECT_EQ(flags, kScriptEvalCompat);
  EXPECT_EQ(ParseShebang("#!lua flags=no-writes,allow-oom\nreturn 1", &flags, &bytes), "");
  EXPECT_EQ(flags, kScriptNoWrites | kScriptAllowOom);
  EXPECT_EQ(bytes, 31u);
  EXPECT_EQ(ParseShebang("#!lua flags=\nreturn 1", &flags, &bytes), "");
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(ParseShebang("#!lua", &flags, &bytes), "ERR Invalid script shebang");
  EXPECT_EQ(ParseShebang("#!js\n", &flags, &bytes),
            "ERR Unexpected engine in script shebang: #!js");
  EXPECT_EQ(ParseShebang("#!lua flags=x\n", &flags, &bytes),
            "ERR Unexpected flag in script shebang: x");
  EXPECT_EQ(ParseShebang("#!lua y=1\n", &flags, &bytes), "ERR Unknown lua shebang option: y=1");
  EXPECT_EQ(CommandFlagsForScript(kCmdNoScript, kScriptNoWrites), kCmdNoScript);
  EXPECT_EQ(CommandFlagsForScript(kCmdMayReplicate, 0), kCmdWrite | kCmdDenyOom);
  EXPECT_EQ(CommandFlagsForScript(kCmdMayReplicate, kScriptEvalCompat), kCmdMayReplicate);
}

}  // namespace
}  // namespace keel
