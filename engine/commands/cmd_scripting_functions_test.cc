// FUNCTION and FCALL: what the conformance case file (conformance/cases/functions.txt) cannot
// show from outside: propagation and the dirty counter, the load time limit on the simulated
// clock, a failed REPLACE keeping the old library, DUMP and RESTORE payloads and policies, and
// the functions' own interpreter. Texts checked against redis-server 7.0.15.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/db/propagation.h"
#include "engine/script/scripting.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Array;
using testing::Bulk;
using testing::Err;
using testing::Int;
using testing::NilBulk;
using testing::Ok;

class Recording final : public PropagationSink {
 public:
  void Propagate(int db, std::span<const std::string_view> args) override {
    std::string line = std::to_string(db);
    for (std::string_view arg : args) line += " " + std::string(arg);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

constexpr std::string_view kLibrary =
    "#!lua name=lib\n"
    "redis.register_function('setter', function(keys, args)\n"
    "  return redis.call('set', keys[1], args[1])\n"
    "end)\n"
    "redis.register_function{function_name='getter', flags={'no-writes'},\n"
    "  description='reads', callback=function(keys) return redis.call('get', keys[1]) end}\n";

class FunctionsTest : public testing::CommandTest {
 protected:
  std::string Load(std::string_view code) { return Run({"function", "load", code}).text; }
};

TEST_F(FunctionsTest, LoadsCallsAndLists) {
  EXPECT_EQ(Run({"function", "load", kLibrary}), Bulk("lib"));
  EXPECT_EQ(Run({"fcall", "setter", "1", "k", "v"}), Ok());
  EXPECT_EQ(Run({"fcall", "GETTER", "1", "k"}), Bulk("v")) << "function names ignore case";
  EXPECT_EQ(Run({"fcall_ro", "getter", "1", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"fcall_ro", "setter", "1", "k", "v"}),
            Err("ERR Can not execute a script with write flag using *_ro command."));
  EXPECT_EQ(Run({"function", "list", "libraryname", "L*"}),
            Array({Array(
                {Bulk("library_name"), Bulk("lib"), Bulk("engine"), Bulk("LUA"), Bulk("functions"),
                 Array({Array({Bulk("name"), Bulk("getter"), Bulk("description"), Bulk("reads"),
                               Bulk("flags"), Array({testing::Status("no-writes")})}),
                        Array({Bulk("name"), Bulk("setter"), Bulk("description"), NilBulk(),
                               Bulk("flags"), Array({})})})})}));
  EXPECT_EQ(Run({"function", "load", kLibrary}), Err("ERR Library 'lib' already exists"));
  EXPECT_EQ(Run({"function", "delete", "lib"}), Ok());
  EXPECT_EQ(Run({"fcall", "setter", "1", "k", "v"}), Err("ERR Function not found"));
}

TEST_F(FunctionsTest, FunctionsSeeTheirArgumentsNotKeysAndArgv) {
  Load(
      "#!lua name=args\n"
      "redis.register_function('both', function(keys, args) return {#keys, #args, keys[1], "
      "args[1]} end)\n"
      "redis.register_function('globals', function() return KEYS end)\n"
      "redis.register_function('nested', function() redis.register_function('x', "
      "function() end) end)\n");
  EXPECT_EQ(Run({"fcall", "both", "1", "k", "a", "b"}),
            Array({Int(1), Int(2), Bulk("k"), Bulk("a")}));
  EXPECT_EQ(Run({"fcall", "globals", "0"}),
            Err("ERR user_function:3: Script attempted to access nonexistent global variable "
                "'KEYS' script: globals, on @user_function:3."));
  EXPECT_EQ(Run({"fcall", "nested", "0"}),
            Err("ERR user_function:4: attempt to call field 'register_function' (a nil value) "
                "script: nested, on @user_function:4."));
}

TEST_F(FunctionsTest, LoadSeesOnlyTheLibraryApi) {
  EXPECT_EQ(Run({"function", "load", "#!lua name=x\nreturn redis.call('ping')"}),
            Err("ERR Error registering functions: ERR user_function:2: Script attempted to "
                "access nonexistent global variable 'call'"));
  EXPECT_EQ(Run({"function", "load", "#!lua name=x\nlocal s = string.rep('a', 2)"}),
            Err("ERR Error registering functions: ERR user_function:2: Script attempted to "
                "access nonexistent global variable 'string'"));
  EXPECT_EQ(Run({"function", "load", "#!lua name=x\nreturn 1"}),
            Err("ERR No functions registered"));
  // Once loaded, a function sees the full sandbox.
  Load("#!lua name=x\nredis.register_function('rep', function() return string.rep('a', 3) end)");
  EXPECT_EQ(Run({"fcall", "rep", "0"}), Bulk("aaa"));
}

TEST_F(FunctionsTest, LoadTimesOutOnTheEnvironmentsClock) {
  // The simulated clock advances with the instructions the code runs (Clock::ChargeComputation).
  EXPECT_EQ(Run({"function", "load", "#!lua name=slow\nlocal a = 1\nwhile 1 do a = a + 1 end"}),
            Err("ERR Error registering functions: ERR FUNCTION LOAD timeout"));
  EXPECT_EQ(Run({"function", "list"}), Array({}));
}

TEST_F(FunctionsTest, FailedReplaceKeepsTheOldLibrary) {
  Load(kLibrary);
  Load("#!lua name=other\nredis.register_function('taken', function() return 1 end)");
  EXPECT_EQ(Run({"function", "load", "replace",
                 "#!lua name=lib\nredis.register_function('taken', function() return 2 end)"}),
            Err("ERR Function taken already exists"));
  EXPECT_EQ(Run({"fcall", "setter", "1", "k", "v"}), Ok());
  EXPECT_EQ(Run({"function", "load", "REPLACE",
                 "#!lua name=lib\nredis.register_function('setter', function() return 2 end)"}),
            Bulk("lib"));
  EXPECT_EQ(Run({"fcall", "setter", "0"}), Int(2));
  EXPECT_EQ(Run({"fcall", "getter", "1", "k"}), Err("ERR Function not found"));
}

TEST_F(FunctionsTest, LibraryCommandsPropagateAndCountAsChangesFcallOnlyItsEffects) {
  Recording sink;
  engine_->keyspace().propagation().AddSink(&sink);
  const uint64_t dirty_before = engine_->keyspace().dirty();
  Run({"function", "load", kLibrary});
  Run({"function", "load", kLibrary});  // refused: nothing changed
  Run({"fcall", "setter", "1", "k", "v"});
  Run({"fcall", "getter", "1", "k"});
  Run({"function", "delete", "lib"});
  Run({"function", "flush", "async"});
  engine_->keyspace().propagation().RemoveSink(&sink);
  EXPECT_EQ(sink.lines,
            (std::vector<std::string>{"0 function load " + std::string(kLibrary), "0 set k v",
                                      "0 function delete lib", "0 function flush async"}));
  EXPECT_EQ(engine_->keyspace().dirty() - dirty_before, 4u);
}

TEST_F(FunctionsTest, DumpRestoresUnderEachPolicy) {
  Load(kLibrary);
  const std::string payload = Run({"function", "dump"}).text;
  ASSERT_GT(payload.size(), 10u);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), 245) << "RDB_OPCODE_FUNCTION2";
  EXPECT_EQ(Run({"function", "restore", payload}), Err("ERR Library lib already exists"));
  EXPECT_EQ(Run({"function", "restore", payload, "replace"}), Ok());
  Load("#!lua name=extra\nredis.register_function('extra', function() return 1 end)");
  EXPECT_EQ(Run({"function", "restore", payload, "FLUSH"}), Ok());
  EXPECT_EQ(Run({"fcall", "extra", "0"}), Err("ERR Function not found"));
  EXPECT_EQ(Run({"fcall", "setter", "1", "k", "v"}), Ok());
  EXPECT_EQ(
      Run({"function", "restore", payload, "bad"}),
      Err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."));
  std::string corrupt = payload;
  corrupt[3] ^= 1;
  EXPECT_EQ(Run({"function", "restore", corrupt}),
            Err("ERR DUMP payload version or checksum are wrong"));
  Run({"function", "flush"});
  EXPECT_EQ(Run({"function", "dump"}).text.size(), 10u) << "footer only";
  EXPECT_EQ(Run({"function", "restore", payload}), Ok());
  EXPECT_EQ(Run({"fcall", "getter", "1", "k"}), Bulk("v"));
}

TEST_F(FunctionsTest, RestoreRefusesWhatIsNotALibrary) {
  StartEngine(testing::ConfigWith({{"enable-debug-command", "yes"}}));
  ASSERT_EQ(Run({"debug", "set-skip-checksum-validation", "1"}), Ok());
  const std::string footer(10, '\0');
  EXPECT_EQ(Run({"function", "restore", std::string("\x00", 1) + footer}),
            Err("ERR given type is not a function"));
  // The library's length reaches into the footer, whose bytes are read as its code (as Redis).
  EXPECT_EQ(Run({"function", "restore", "\xf5\x05hel" + footer}),
            Err("ERR Missing library metadata"));
  EXPECT_EQ(Run({"function", "restore", "\xf5\x7f" + footer}),
            Err("ERR Failed loading library payload"));
}

TEST_F(FunctionsTest, StatsAndKillWithoutARunningFunction) {
  Load(kLibrary);
  EXPECT_EQ(Run({"function", "stats"}),
            Array({Bulk("running_script"), NilBulk(), Bulk("engines"),
                   Array({Bulk("LUA"), Array({Bulk("libraries_count"), Int(1),
                                              Bulk("functions_count"), Int(2)})})}));
  EXPECT_EQ(Run({"function", "kill"}), Err("NOTBUSY No scripts in execution right now."));
}

TEST_F(FunctionsTest, InfoCountsLibrariesFunctionsAndTheirInterpreter) {
  Load(kLibrary);
  const std::string info = Run({"info", "memory"}).text;
  EXPECT_NE(info.find("number_of_functions:2\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("number_of_libraries:1\r\n"), std::string::npos);
  EXPECT_NE(info.find("used_memory_vm_eval:0\r\n"), std::string::npos);
  EXPECT_EQ(info.find("used_memory_vm_functions:0\r\n"), std::string::npos);
  EXPECT_EQ(info.find("used_memory_functions:0\r\n"), std::string::npos);
}

TEST_F(FunctionsTest, FunctionsLiveInTheirOwnInterpreter) {
  EXPECT_EQ(Scripting::Of(*engine_).function_vm_bytes(), 0u) << "none before the first library";
  Load(kLibrary);
  EXPECT_GT(Scripting::Of(*engine_).function_vm_bytes(), 0u);
  EXPECT_EQ(Scripting::Of(*engine_).vm_bytes(), 0u) << "EVAL's interpreter is not made";
  Run({"script", "flush"});
  EXPECT_EQ(Run({"fcall", "setter", "1", "k", "v"}), Ok()) << "SCRIPT FLUSH leaves functions";
}

}  // namespace
}  // namespace keel
