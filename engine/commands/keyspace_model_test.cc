// The keyspace model test: random sequences of every string and generic key command, run through
// CommandTest, each reply checked against the reference model (sim/model/, the simulator's
// oracle's model too: one model, written from Redis's rules without any of the engine's code).
// This file holds only the generators and the step loop. The test moves the virtual clock between
// commands, often exactly onto or just past a key's expiry time: a key lives through its expiry
// millisecond and is gone the millisecond after.
//
// What the model cannot know it predicts as bounds (sim/model/expected.h): which expired keys a
// command has already reclaimed (DBSIZE counts those not yet reclaimed, as Redis's does), which
// key RANDOMKEY draws, in which order KEYS lists keys and which keys a SCAN page holds. Before
// each command the model forgets the expired keys the engine no longer holds. A whole SCAN
// iteration must visit every key that was live when it started.
//
// By default each run checks 100 sequences; ctest's keyspace_model_10000 checks the issue's
// 10,000:
//   RC_PARAMS="max_success=10000" ./build/asan/engine/keel_engine_tests
//       --gtest_filter='KeyspaceModelTest_RapidCheck.*'
// (a failure prints the seed; RC_PARAMS="reproduce=..." replays it).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <climits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/db/database.h"
#include "sim/model/model.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

constexpr int kDatabases = 4;  // the sequences use databases 0..3 of the default 16

// ---------------------------------------------------------------------------------------------
// Generators.

std::string GenKey() { return *rc::gen::element<std::string>("a", "b", "c", ""); }

std::string GenValue() {
  return *rc::gen::element<std::string>(
      "", "0", "7", "9999", "10000", "-3", "007", "9223372036854775807", "-9223372036854775808",
      "9223372036854775808", "3.5", "-0.25", "1e3", "inf", "hello", "abcab", std::string(44, 'x'),
      std::string(45, 'y'), std::string("5\0x", 3), " 1");
}

std::vector<std::string> GenKeys(int count_max) {
  std::vector<std::string> keys;
  const int count = *rc::gen::inRange(1, count_max + 1);
  for (int i = 0; i < count; i++) keys.push_back(GenKey());
  return keys;
}

std::string Number(int64_t value) { return std::to_string(value); }

// An expiry form's name for SET and GETEX: 1 EX, 2 PX, 3 EXAT, 4 PXAT, in varied case.
std::string ExpiryName(int form) {
  return *rc::gen::element<std::string>(form == 1   ? "EX"
                                        : form == 2 ? "px"
                                        : form == 3 ? "EXAT"
                                                    : "pxat");
}

// ---------------------------------------------------------------------------------------------
// The property.

class KeyspaceModelTest : public CommandTest {
 protected:
  int64_t WallMs() { return env_.sim_clock().WallUs() / 1000; }

  // Runs `args` on the engine and in the model and checks the reply against the model's.
  RespValue Check(const std::vector<std::string>& args) {
    const int64_t now_ms = WallMs();
    ForgetReclaimed(now_ms);
    model::Context context;
    context.now_ms = now_ms;
    const model::Expected expected = model_.Execute(session_, args, context);
    const RespValue reply = Run(args);
    if (!expected.Matches(reply)) Fail(args, reply, expected.ToString());
    return reply;
  }

  // The engine reclaims expired keys the model cannot say it did (a SCAN page, RANDOMKEY's
  // draws): the model follows it.
  void ForgetReclaimed(int64_t now_ms) {
    for (int index = 0; index < kDatabases; index++) {
      const Database& db = engine_->database(index);
      model_.ForgetExpired(index, now_ms,
                           [&](const std::string& key) { return db.Find(key) == nullptr; });
    }
  }

  void Fail(const std::vector<std::string>& args, const RespValue& reply,
            const std::string& expected) {
    std::string command;
    for (const std::string& arg : args) command += (command.empty() ? "" : " ") + Quoted(arg);
    RC_FAIL("db " + std::to_string(session_.db) + " at " + std::to_string(WallMs()) + ": " +
            command + "\n  reply:    " + reply.ToString() + "\n  expected: " + expected);
  }

  static std::string Quoted(const std::string& arg) {
    std::string out = "\"";
    for (char c : arg) {
      if (c == '\0') {
        out += "\\0";
      } else {
        out += c;
      }
    }
    return out + "\"";
  }

  // The next expiry time at or after now in the model, or INT64_MAX.
  int64_t NextExpiry() {
    const int64_t now_ms = WallMs();
    int64_t next = INT64_MAX;
    for (int index = 0; index < kDatabases; index++) {
      for (const auto& [key, value] : model_.db(index)) {
        if (value.expire_at_ms != model::kNoExpiry && value.expire_at_ms >= now_ms) {
          next = std::min(next, value.expire_at_ms);
        }
      }
    }
    return next;
  }

  void Step();
  void StepString(int op);
  void StepGeneric(int op);
  void StepExpire(int op);
  void WholeScan();
  void MoveClock();

  model::Model model_;
  model::Session session_;
};

void KeyspaceModelTest::MoveClock() {
  const int choice = *rc::gen::inRange(0, 4);
  int64_t advance = 0;
  if (choice == 0) {
    advance = *rc::gen::element<int64_t>(0, 1, 2, 499, 500, 999, 1000, 1500, 3000);
  } else {
    // Onto, or just past, the next expiry.
    const int64_t next = NextExpiry();
    if (next == INT64_MAX) return;
    advance = next - WallMs() + (choice == 1 ? 0 : 1);
  }
  AdvanceMs(advance);
}

void KeyspaceModelTest::StepString(int op) {
  const int64_t now = WallMs();
  const std::string key = GenKey();
  switch (op) {
    case 0:
      Check({"get", key});
      break;
    case 1: {  // SET key value [NX|XX] [GET] [EX|PX|EXAT|PXAT n|KEEPTTL]
      std::vector<std::string> args = {"set", key, GenValue()};
      const int condition = *rc::gen::inRange(0, 3);  // none, NX, XX
      if (condition == 1) args.push_back("NX");
      if (condition == 2) args.push_back("xx");
      if (*rc::gen::arbitrary<bool>()) args.push_back("GET");
      const int form = *rc::gen::inRange(0, 6);  // none, EX, PX, EXAT, PXAT, KEEPTTL
      int64_t amount = 0;
      if (form == 1) amount = *rc::gen::element<int64_t>(-1, 0, 1, 2, 5);
      if (form == 2) amount = *rc::gen::element<int64_t>(0, 1, 10, 500, 1500, 3000);
      if (form == 3) amount = now / 1000 + *rc::gen::element<int64_t>(-1, 0, 1, 3);
      if (form == 4) amount = now + *rc::gen::element<int64_t>(-5, 0, 1, 1000, 2500);
      if (form >= 1 && form <= 4) {
        args.push_back(ExpiryName(form));
        args.push_back(Number(amount));
      }
      if (form == 5) args.push_back("KEEPTTL");
      Check(args);
      break;
    }
    case 2:
      Check({"setnx", key, GenValue()});
      break;
    case 3: {  // SETEX / PSETEX
      const bool ms = *rc::gen::arbitrary<bool>();
      const int64_t amount = ms ? *rc::gen::element<int64_t>(0, 1, 100, 2000)
                                : *rc::gen::element<int64_t>(-1, 0, 1, 3);
      Check({ms ? "psetex" : "setex", key, Number(amount), GenValue()});
      break;
    }
    case 4: {                                    // GETEX key [EX|PX|EXAT|PXAT n|PERSIST]
      const int form = *rc::gen::inRange(0, 6);  // none, EX, PX, EXAT, PXAT, PERSIST
      std::vector<std::string> args = {"getex", key};
      int64_t amount = 0;
      if (form == 1) amount = *rc::gen::element<int64_t>(0, 1, 3);
      if (form == 2) amount = *rc::gen::element<int64_t>(-1, 1, 700, 2000);
      if (form == 3) amount = now / 1000 + *rc::gen::element<int64_t>(-1, 0, 1, 2);
      if (form == 4) amount = now + *rc::gen::element<int64_t>(-1, 0, 1, 1200);
      const char* names[] = {"", "EX", "PX", "exat", "PXAT", "persist"};
      if (form > 0) args.push_back(names[form]);
      if (form >= 1 && form <= 4) args.push_back(Number(amount));
      Check(args);
      break;
    }
    case 5:
      Check({"getdel", key});
      break;
    case 6:
      Check({"getset", key, GenValue()});
      break;
    case 7: {
      std::vector<std::string> args = {"mget"};
      for (const std::string& one : GenKeys(4)) args.push_back(one);
      Check(args);
      break;
    }
    case 8: {  // MSET / MSETNX
      std::vector<std::string> args = {*rc::gen::arbitrary<bool>() ? "msetnx" : "mset"};
      for (const std::string& one : GenKeys(3)) {
        args.push_back(one);
        args.push_back(GenValue());
      }
      Check(args);
      break;
    }
    case 9:
      Check({"append", key, GenValue()});
      break;
    case 10:
      Check({"strlen", key});
      break;
    case 11: {  // GETRANGE / SUBSTR
      const int64_t start = *rc::gen::inRange<int64_t>(-6, 7);
      const int64_t end = *rc::gen::element<int64_t>(-50, -2, -1, 0, 1, 3, 50, INT64_MAX);
      Check(
          {*rc::gen::element<std::string>("getrange", "substr"), key, Number(start), Number(end)});
      break;
    }
    case 12: {  // SETRANGE
      const int64_t offset = *rc::gen::element<int64_t>(-1, 0, 1, 3, 10);
      Check(
          {"setrange", key, Number(offset), *rc::gen::element<std::string>("", "Z", "xyz", "12")});
      break;
    }
    case 13: {  // INCR, DECR, INCRBY, DECRBY
      const int form = *rc::gen::inRange(0, 4);
      const int64_t amount =
          *rc::gen::element<int64_t>(0, 1, -1, 9999, -10000, INT64_MAX, INT64_MIN, 5000000000);
      if (form == 0) Check({"incr", key});
      if (form == 1) Check({"decr", key});
      if (form == 2) Check({"incrby", key, Number(amount)});
      if (form == 3) Check({"decrby", key, Number(amount)});
      break;
    }
    case 14:
      Check(
          {"incrbyfloat", key,
           *rc::gen::element<std::string>("1.5", "-0.25", "3", "1e2", "abc", "inf", "0.1", "-7")});
      break;
    case 15: {  // LCS a b [LEN]
      std::vector<std::string> args = {"lcs", key, GenKey()};
      if (*rc::gen::arbitrary<bool>()) args.push_back("LEN");
      Check(args);
      break;
    }
  }
}

// SCAN, a whole iteration: every page is checked against the model, and together the pages must
// list every key that was live when the iteration began.
void KeyspaceModelTest::WholeScan() {
  std::vector<std::string> options;
  const std::string pattern = *rc::gen::element<std::string>("", "*", "a*", "?", "[bc]", "nomatch");
  if (!pattern.empty()) options.insert(options.end(), {"MATCH", pattern});
  if (*rc::gen::arbitrary<bool>()) {
    options.insert(options.end(), {"count", Number(*rc::gen::inRange(1, 20))});
  }
  const std::string type = *rc::gen::element<std::string>("", "string", "STRING", "list");
  if (!type.empty()) options.insert(options.end(), {"TYPE", type});
  // KEYS in the model lists the live keys a pattern lets through, and changes nothing.
  std::set<std::string> expected;
  if (type != "list") {
    model::Context context;
    context.now_ms = WallMs();
    const std::vector<std::string> keys = {"keys", pattern.empty() ? "*" : pattern};
    const model::Expected listed = model_.Execute(session_, keys, context);
    expected.insert(listed.strings.begin(), listed.strings.end());
  }
  std::set<std::string> seen;
  std::string cursor = "0";
  for (int call = 0; call < 100; call++) {
    std::vector<std::string> args = {"scan", cursor};
    args.insert(args.end(), options.begin(), options.end());
    const RespValue reply = Check(args);
    cursor = reply.elements[0].text;
    for (const RespValue& element : reply.elements[1].elements) seen.insert(element.text);
    if (cursor == "0") break;
  }
  RC_ASSERT(cursor == "0");
  if (seen != expected) {
    Fail({"scan", "...", pattern, type}, RespValue::Array({}),
         "a whole iteration giving the " + std::to_string(expected.size()) + " live keys");
  }
}

void KeyspaceModelTest::StepExpire(int op) {
  const int64_t now = WallMs();
  const std::string key = GenKey();
  switch (op) {
    case 0: {  // EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT [NX|XX|GT|LT]
      const int form = *rc::gen::inRange(0, 4);
      const char* names[] = {"expire", "pexpire", "expireat", "pexpireat"};
      int64_t amount = 0;
      if (form == 0) amount = *rc::gen::element<int64_t>(-2, -1, 0, 1, 2, 5);
      if (form == 1) amount = *rc::gen::element<int64_t>(-1000, 0, 1, 999, 1000, 2500);
      if (form == 2) amount = now / 1000 + *rc::gen::element<int64_t>(-2, 0, 1, 2, 5);
      if (form == 3) amount = now + *rc::gen::element<int64_t>(-1, 0, 1, 1500, 4000);
      std::string amount_text = Number(amount);
      // Overflow: seconds past LLONG_MAX ms, or a relative time whose sum passes it. (PEXPIREAT
      // adds nothing, so it has no overflow.)
      if (form != 3 && *rc::gen::weightedElement<bool>({{1, true}, {15, false}})) {
        amount_text = form == 1 ? "9223372036854775807" : "9223372036854776";
      }
      std::vector<std::string> args = {names[form], key, amount_text};
      const std::vector<std::string> options = *rc::gen::weightedOneOf<std::vector<std::string>>(
          {{6, rc::gen::just(std::vector<std::string>{})},
           {6, rc::gen::container<std::vector<std::string>>(
                   1, rc::gen::element<std::string>("NX", "xx", "GT", "lt"))},
           {2, rc::gen::container<std::vector<std::string>>(
                   2, rc::gen::element<std::string>("NX", "xx", "GT", "lt"))},
           {1, rc::gen::just(std::vector<std::string>{"FOO"})}});
      args.insert(args.end(), options.begin(), options.end());
      Check(args);
      break;
    }
    case 1: {  // TTL, PTTL, EXPIRETIME, PEXPIRETIME
      const char* names[] = {"ttl", "pttl", "expiretime", "pexpiretime"};
      Check({names[*rc::gen::inRange(0, 4)], key});
      break;
    }
    case 2:
      Check({"persist", key});
      break;
  }
}

void KeyspaceModelTest::StepGeneric(int op) {
  const std::string key = GenKey();
  switch (op) {
    case 0: {  // DEL / UNLINK
      std::vector<std::string> args = {*rc::gen::element<std::string>("del", "unlink")};
      for (const std::string& one : GenKeys(3)) args.push_back(one);
      Check(args);
      break;
    }
    case 1: {  // EXISTS / TOUCH
      std::vector<std::string> args = {*rc::gen::element<std::string>("exists", "touch")};
      for (const std::string& one : GenKeys(4)) args.push_back(one);
      Check(args);
      break;
    }
    case 2:
      Check({"type", key});
      break;
    case 3:
      StepExpire(0);
      break;
    case 4:
      StepExpire(1);
      break;
    case 5:
      StepExpire(2);
      break;
    case 6:  // RENAME / RENAMENX
      Check({*rc::gen::arbitrary<bool>() ? "renamenx" : "rename", key, GenKey()});
      break;
    case 7:
      Check({"keys", *rc::gen::element<std::string>("*", "a*", "?", "[ab]", "", "*b*", "nomatch")});
      break;
    case 8:
      WholeScan();
      break;
    case 9:
      Check({"randomkey"});
      break;
    case 10:
      Check({"dbsize"});
      break;
    case 11:
      Check({"select", Number(*rc::gen::inRange(0, kDatabases))});
      break;
    case 12:
      Check({"move", key, Number(*rc::gen::element(0, 1, 2, 3, 16))});
      break;
    case 13: {  // COPY source destination [DB n] [REPLACE]
      std::vector<std::string> args = {"copy", key, GenKey()};
      if (*rc::gen::arbitrary<bool>()) {
        args.insert(args.end(), {"DB", Number(*rc::gen::element(0, 1, 2, 3, 16))});
      }
      if (*rc::gen::arbitrary<bool>()) args.push_back("replace");
      Check(args);
      break;
    }
    case 14:
      Check({"swapdb", Number(*rc::gen::inRange(0, kDatabases)),
             Number(*rc::gen::inRange(0, kDatabases))});
      break;
    case 15:
      if (*rc::gen::weightedElement<bool>({{3, true}, {1, false}})) {
        Check({"flushdb"});
      } else {
        Check({"flushall", "sync"});
      }
      break;
    case 16:  // OBJECT ENCODING / REFCOUNT
      Check({"object", *rc::gen::arbitrary<bool>() ? "refcount" : "encoding", key});
      break;
  }
}

constexpr int kStringOps = 16;
constexpr int kGenericOps = 17;

void KeyspaceModelTest::Step() {
  const int op = *rc::gen::inRange(0, kStringOps + kGenericOps + 4);
  if (op < kStringOps) {
    StepString(op);
  } else if (op < kStringOps + kGenericOps) {
    StepGeneric(op - kStringOps);
  } else {
    MoveClock();
  }
}

RC_GTEST_FIXTURE_PROP(KeyspaceModelTest, RepliesMatchTheModel, ()) {
  const int steps = *rc::gen::inRange(1, 80);
  for (int i = 0; i < steps; i++) Step();
  for (int index = 0; index < engine_->database_count(); index++) {
    RC_ASSERT(engine_->database(index).CheckInvariants());
  }
}

}  // namespace
}  // namespace keel::testing
