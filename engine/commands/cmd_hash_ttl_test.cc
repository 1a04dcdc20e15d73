// Hash field expiry (cmd_hash_ttl.cc): HEXPIRE and its forms, HTTL and its forms, HPERSIST,
// HGETEX, HSETEX, HGETDEL, and what field TTLs do to the other hash commands, the keyspace
// commands (RENAME, COPY, MOVE, DUMP/RESTORE), propagation and the active expiry cycle. Redis
// 7.0 has none of these commands: each expected reply is the one Redis 8.0's t_hash.c and the
// command documentation give (reply codes -2 no such field, 0 condition not met, 1 set, 2
// deleted because the time is past; HPERSIST -1/1; HTTL -1/-2).
#include <string>
#include <utility>
#include <vector>

#include "engine/base/crc64.h"
#include "engine/db/propagation.h"
#include "engine/db/types/hash.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class CapturedCommands final : public PropagationSink {
 public:
  void Propagate(int /*db*/, std::span<const std::string_view> args) override {
    if (args.size() == 1 && (args[0] == "MULTI" || args[0] == "EXEC")) return;
    commands.emplace_back(args.begin(), args.end());
  }
  std::vector<std::vector<std::string>> commands;
};

using Command = std::vector<std::string>;

class HashTtlTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    StartEngine(ConfigWith({{"enable-debug-command", "yes"}}));
    EXPECT_EQ(Run({"debug", "set-active-expire", "0"}), Ok());
  }
  int64_t NowMs() { return env_.sim_clock().WallUs() / 1000; }
  static std::string Text(int64_t value) { return std::to_string(value); }
  static RespValue Ints(std::initializer_list<int64_t> values) {
    std::vector<RespValue> elements;
    for (int64_t value : values) elements.push_back(Int(value));
    return RespValue::Array(std::move(elements));
  }
  const HashValue* HashAt(std::string_view key) {
    const Entry* entry = engine_->database(0).Find(key);
    if (entry == nullptr || entry->type() != ValueType::kHash) return nullptr;
    return static_cast<const HashValue*>(EntryObject(*entry));
  }
};

TEST_F(HashTtlTest, ExpireReplyCodes) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "2", "a", "x"}), Ints({1, -2}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "3", "a", "b", "x"}), Ints({100, -1, -2}));
  // NX: only without a TTL; XX: only with one.
  EXPECT_EQ(Run({"hexpire", "h", "200", "NX", "FIELDS", "2", "a", "b"}), Ints({0, 1}));
  EXPECT_EQ(Run({"hexpire", "h", "300", "XX", "FIELDS", "2", "a", "c"}), Ints({1, 0}));
  // GT: no TTL counts as infinite, so GT never sets one; LT always does.
  EXPECT_EQ(Run({"hexpire", "h", "400", "GT", "FIELDS", "2", "a", "c"}), Ints({1, 0}));
  EXPECT_EQ(Run({"hexpire", "h", "50", "GT", "FIELDS", "1", "a"}), Ints({0}));
  EXPECT_EQ(Run({"hexpire", "h", "50", "LT", "FIELDS", "2", "a", "c"}), Ints({1, 1}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "3", "a", "b", "c"}), Ints({50, 200, 50}));
  // A time in the past deletes the field (2); the last field deleted deletes the key.
  EXPECT_EQ(Run({"hpexpireat", "h", "1", "FIELDS", "2", "a", "x"}), Ints({2, -2}));
  EXPECT_EQ(Run({"hlen", "h"}), Int(2));
  EXPECT_EQ(Run({"hexpireat", "h", "0", "FIELDS", "2", "b", "c"}), Ints({2, 2}));
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
  // A missing key: every field is missing.
  EXPECT_EQ(Run({"hexpire", "nokey", "10", "FIELDS", "2", "a", "b"}), Ints({-2, -2}));
  EXPECT_EQ(Run({"httl", "nokey", "FIELDS", "1", "a"}), Ints({-2}));
  EXPECT_EQ(Run({"hpersist", "nokey", "FIELDS", "1", "a"}), Ints({-2}));
}

TEST_F(HashTtlTest, EachFormSetsTheSameAbsoluteTime) {
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  const int64_t now = NowMs();
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "1", "f"}), Ints({1}));
  EXPECT_EQ(Run({"hpexpiretime", "h", "FIELDS", "1", "f"}), Ints({now + 100000}));
  EXPECT_EQ(Run({"hpexpire", "h", "2500", "FIELDS", "1", "f"}), Ints({1}));
  EXPECT_EQ(Run({"hpexpiretime", "h", "FIELDS", "1", "f"}), Ints({now + 2500}));
  EXPECT_EQ(Run({"hpttl", "h", "FIELDS", "1", "f"}), Ints({2500}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "1", "f"}), Ints({3}));  // rounded up
  EXPECT_EQ(Run({"hexpireat", "h", Text(now / 1000 + 50), "FIELDS", "1", "f"}), Ints({1}));
  EXPECT_EQ(Run({"hexpiretime", "h", "FIELDS", "1", "f"}), Ints({now / 1000 + 50}));
  EXPECT_EQ(Run({"hpexpireat", "h", Text(now + 1234), "FIELDS", "1", "f"}), Ints({1}));
  EXPECT_EQ(Run({"hpexpiretime", "h", "FIELDS", "1", "f"}), Ints({now + 1234}));
  EXPECT_EQ(Run({"hexpiretime", "h", "FIELDS", "1", "f"}), Ints({(now + 1234 + 999) / 1000}));
}

TEST_F(HashTtlTest, ArgumentErrors) {
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  EXPECT_EQ(Run({"hexpire", "h", "10", "FIELDS", "1"}),
            Err("ERR wrong number of arguments for 'hexpire' command"));
  EXPECT_EQ(Run({"hexpire", "h", "10", "FIELD", "1", "f"}),
            Err("ERR Mandatory argument FIELDS is missing or not at the right position"));
  EXPECT_EQ(Run({"hexpire", "h", "10", "NX", "XX", "FIELDS", "1", "f"}),
            Err("ERR Mandatory argument FIELDS is missing or not at the right position"));
  EXPECT_EQ(Run({"hexpire", "h", "10", "FIELDS", "0", "f"}),
            Err("ERR Parameter `numFields` should be greater than 0"));
  EXPECT_EQ(Run({"hexpire", "h", "10", "FIELDS", "abc", "f"}),
            Err("ERR Parameter `numFields` should be greater than 0"));
  EXPECT_EQ(Run({"hexpire", "h", "10", "FIELDS", "2", "f"}),
            Err("ERR The `numfields` parameter must match the number of arguments"));
  EXPECT_EQ(Run({"hexpire", "h", "10", "FIELDS", "1", "f", "g"}),
            Err("ERR The `numfields` parameter must match the number of arguments"));
  EXPECT_EQ(Run({"hexpire", "h", "abc", "FIELDS", "1", "f"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"hexpire", "h", "-1", "FIELDS", "1", "f"}),
            Err("ERR invalid expire time, must be >= 0"));
  EXPECT_EQ(Run({"hexpire", "h", "70368744177", "FIELDS", "1", "f"}),
            Err("ERR invalid expire time in 'hexpire' command"));
  EXPECT_EQ(Run({"hpexpireat", "h", "70368744177664", "FIELDS", "1", "f"}),
            Err("ERR invalid expire time in 'hpexpireat' command"));
  EXPECT_EQ(Run({"hpexpireat", "h", "70368744177663", "FIELDS", "1", "f"}), Ints({1}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "0", "f"}),
            Err("ERR Number of fields must be a positive integer"));
  EXPECT_EQ(Run({"httl", "h", "NOPE", "1", "f"}),
            Err("ERR Mandatory argument FIELDS is missing or not at the right position"));
  EXPECT_EQ(Run({"hpersist", "h", "FIELDS", "3", "f"}),
            Err("ERR The `numfields` parameter must match the number of arguments"));
  EXPECT_EQ(Run({"hgetdel", "h", "FIELDS", "-1", "f"}),
            Err("ERR Number of fields must be a positive integer"));
  // The type is checked first, as Redis looks the key up before parsing.
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"hexpire", "s", "abc", "FIELDS", "1", "f"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"httl", "s", "FIELDS", "0", "f"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_F(HashTtlTest, ExpiredFieldsVanishForEveryCommand) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"hpexpire", "h", "100", "FIELDS", "1", "a"}), Ints({1}));
  AdvanceMs(100);  // still there during its expiry millisecond
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("1"));
  AdvanceMs(1);
  EXPECT_EQ(Run({"hget", "h", "a"}), NilBulk());
  EXPECT_EQ(Run({"hlen", "h"}), Int(1));
  EXPECT_EQ(Run({"hgetall", "h"}), Array({Bulk("b"), Bulk("2")}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "1", "a"}), Ints({-2}));
  // Once the last field expires the key goes.
  EXPECT_EQ(Run({"hpexpire", "h", "10", "FIELDS", "1", "b"}), Ints({1}));
  AdvanceMs(11);
  EXPECT_EQ(Run({"hlen", "h"}), Int(0));
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
  for (std::string_view command : {"hkeys", "hvals", "hexists", "hstrlen", "hrandfield", "hscan"}) {
    EXPECT_EQ(Run({"hset", "k", "a", "1", "b", "2"}), Int(2)) << command;
    EXPECT_EQ(Run({"hpexpire", "k", "5", "FIELDS", "1", "a"}), Ints({1}));
    AdvanceMs(6);
    RespValue reply;
    if (command == "hexists" || command == "hstrlen") {
      reply = Run({command, "k", "a"});
      EXPECT_EQ(reply, Int(0)) << command;
    } else if (command == "hscan") {
      reply = Run({command, "k", "0"});
      EXPECT_EQ(reply.elements.at(1), Array({Bulk("b"), Bulk("2")})) << command;
    } else if (command == "hrandfield") {
      reply = Run({command, "k", "-5"});
      EXPECT_EQ(reply, Array({Bulk("b"), Bulk("b"), Bulk("b"), Bulk("b"), Bulk("b")}));
    } else {
      reply = Run({command, "k"});
      EXPECT_EQ(reply.elements.size(), 1u) << command;
    }
    EXPECT_EQ(Run({"del", "k"}), Int(1));
  }
}

// INFO's expired_subkeys (Redis 7.4) counts fields reclaimed past their TTL and fields a past
// time deletes; CONFIG RESETSTAT zeroes it.
TEST_F(HashTtlTest, InfoCountsExpiredFields) {
  const auto expired_subkeys = [&]() -> int64_t {
    const std::string info = Run({"info", "stats"}).text;
    const size_t at = info.find("\r\nexpired_subkeys:");
    EXPECT_NE(at, std::string::npos);
    if (at == std::string::npos) return -1;
    return std::stoll(info.substr(at + std::string_view("\r\nexpired_subkeys:").size()));
  };
  EXPECT_EQ(expired_subkeys(), 0);
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(Run({"hpexpire", "h", "10", "FIELDS", "2", "a", "b"}), Ints({1, 1}));
  AdvanceMs(11);
  EXPECT_EQ(Run({"hlen", "h"}), Int(1));
  EXPECT_EQ(expired_subkeys(), 2);
  EXPECT_EQ(Run({"hexpireat", "h", "1", "FIELDS", "1", "c"}), Ints({2}));
  EXPECT_EQ(expired_subkeys(), 3);
  EXPECT_EQ(Run({"info", "stats"}).text.find("expired_keys:0\r\nexpired_subkeys:3\r\n") !=
                std::string::npos,
            true);
  EXPECT_EQ(Run({"config", "resetstat"}), Ok());
  EXPECT_EQ(expired_subkeys(), 0);
}

TEST_F(HashTtlTest, HsetClearsTheTtlAndCountersKeepIt) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "3", "a", "b", "c"}), Ints({1, 1, 1}));
  EXPECT_EQ(Run({"hset", "h", "a", "9"}), Int(0));
  EXPECT_EQ(Run({"hincrby", "h", "b", "1"}), Int(3));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "c", "0.5"}), Bulk("3.5"));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "3", "a", "b", "c"}), Ints({-1, 100, 100}));
  EXPECT_EQ(Run({"hdel", "h", "b"}), Int(1));
  EXPECT_EQ(Run({"hset", "h", "b", "new"}), Int(1));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "1", "b"}), Ints({-1}));
}

TEST_F(HashTtlTest, Hpersist) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "1", "a"}), Ints({1}));
  EXPECT_EQ(Run({"hpersist", "h", "FIELDS", "3", "a", "b", "x"}), Ints({1, -1, -2}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "1", "a"}), Ints({-1}));
  EXPECT_FALSE(HashAt("h")->has_field_ttls());  // the side table went with the last TTL
}

TEST_F(HashTtlTest, HgetdelHgetexHsetex) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(Run({"hgetdel", "h", "FIELDS", "2", "a", "x"}), Array({Bulk("1"), NilBulk()}));
  EXPECT_EQ(Run({"hgetdel", "nokey", "FIELDS", "1", "a"}), Array({NilBulk()}));
  EXPECT_EQ(Run({"hgetex", "h", "EX", "100", "FIELDS", "2", "b", "x"}),
            Array({Bulk("2"), NilBulk()}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "1", "b"}), Ints({100}));
  EXPECT_EQ(Run({"hgetex", "h", "PERSIST", "FIELDS", "1", "b"}), Array({Bulk("2")}));
  EXPECT_EQ(Run({"httl", "h", "FIELDS", "1", "b"}), Ints({-1}));
  EXPECT_EQ(Run({"hgetex", "h", "FIELDS", "1", "c"}), Array({Bulk("3")}));
  // Field by field: a field named twice after a past time reads as missing the second time.
  EXPECT_EQ(Run({"hgetex", "h", "PXAT", "1", "FIELDS", "2", "c", "c"}),
            Array({Bulk("3"), NilBulk()}));
  EXPECT_EQ(Run({"hexists", "h", "c"}), Int(0));
  EXPECT_EQ(Run({"hgetex", "nokey", "EX", "1", "FIELDS", "1", "a"}), Array({NilBulk()}));
  EXPECT_EQ(Run({"hgetex", "h", "EX", "-1", "FIELDS", "1", "b"}),
            Err("ERR invalid expire time, must be >= 0"));
  EXPECT_EQ(Run({"hgetex", "h", "EX", "1", "FIELDS", "2", "b"}),
            Err("ERR The `numfields` parameter must match the number of arguments"));
  // HSETEX: 1 when set, 0 when FNX/FXX refuse; KEEPTTL keeps, plain clears.
  EXPECT_EQ(Run({"hsetex", "s", "EX", "100", "FIELDS", "2", "a", "1", "b", "2"}), Int(1));
  EXPECT_EQ(Run({"httl", "s", "FIELDS", "2", "a", "b"}), Ints({100, 100}));
  EXPECT_EQ(Run({"hsetex", "s", "FNX", "FIELDS", "2", "a", "9", "z", "9"}), Int(0));
  EXPECT_EQ(Run({"hsetex", "s", "FXX", "FIELDS", "2", "a", "9", "z", "9"}), Int(0));
  EXPECT_EQ(Run({"hsetex", "s", "FXX", "KEEPTTL", "FIELDS", "1", "a", "8"}), Int(1));
  EXPECT_EQ(Run({"hsetex", "s", "FIELDS", "1", "b", "7"}), Int(1));
  EXPECT_EQ(Run({"httl", "s", "FIELDS", "2", "a", "b"}), Ints({100, -1}));
  EXPECT_EQ(Run({"hsetex", "nokey", "FXX", "FIELDS", "1", "a", "1"}), Int(0));
  EXPECT_EQ(Run({"exists", "nokey"}), Int(0));
  EXPECT_EQ(Run({"hsetex", "s", "PXAT", "1", "FIELDS", "2", "a", "1", "b", "2"}), Int(1));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  EXPECT_EQ(Run({"hsetex", "s", "FIELDS", "1", "a"}),
            Err("ERR wrong number of arguments for 'hsetex' command"));
  EXPECT_EQ(Run({"hsetex", "s", "FIELDS", "0", "a", "1"}), Err("ERR invalid number of fields"));
  EXPECT_EQ(Run({"hsetex", "s", "EX", "1", "PX", "1", "FIELDS", "1", "a", "1"}),
            Err("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"));
  EXPECT_EQ(Run({"hsetex", "s", "FNX", "FXX", "FIELDS", "1", "a", "1"}),
            Err("ERR Only one of FXX or FNX arguments can be specified"));
  EXPECT_EQ(Run({"hsetex", "s", "BOGUS", "FIELDS", "1", "a", "1"}),
            Err("ERR unknown argument: BOGUS"));
}

TEST_F(HashTtlTest, KeyspaceCommandsKeepTheTtls) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "1", "a"}), Ints({1}));
  EXPECT_EQ(Run({"rename", "h", "r"}), Ok());
  EXPECT_EQ(Run({"httl", "r", "FIELDS", "2", "a", "b"}), Ints({100, -1}));
  EXPECT_EQ(Run({"copy", "r", "c"}), Int(1));
  EXPECT_EQ(Run({"httl", "c", "FIELDS", "2", "a", "b"}), Ints({100, -1}));
  EXPECT_EQ(Run({"move", "c", "1"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"httl", "c", "FIELDS", "2", "a", "b"}), Ints({100, -1}));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  const RespValue dump = Run({"dump", "r"});
  ASSERT_EQ(dump.type, RespType::kBulkString);
  // Redis 7.4's RDB_TYPE_HASH_METADATA, and the payload says RDB 12.
  EXPECT_EQ(static_cast<uint8_t>(dump.text[0]), 24);
  EXPECT_EQ(static_cast<uint8_t>(dump.text[dump.text.size() - 10]), 12);
  EXPECT_EQ(Run({"restore", "d", "0", dump.text}), Ok());
  EXPECT_EQ(Run({"httl", "d", "FIELDS", "2", "a", "b"}), Ints({100, -1}));
  EXPECT_EQ(Run({"hgetall", "d"}), Array({Bulk("a"), Bulk("1"), Bulk("b"), Bulk("2")}));
  // A hash without TTLs is still dumped as Redis 7.0 dumps it.
  EXPECT_EQ(Run({"hset", "plain", "a", "1"}), Int(1));
  std::string plain = Run({"dump", "plain"}).text;
  EXPECT_EQ(static_cast<uint8_t>(plain[0]), 16);
  // Version 12 is taken only for a hash with field TTLs: Redis 7.0 refuses any newer payload.
  plain[plain.size() - 10] = 12;
  const uint64_t crc = Crc64(0, plain.data(), plain.size() - 8);
  for (int i = 0; i < 8; i++) plain[plain.size() - 8 + i] = static_cast<char>(crc >> (8 * i));
  EXPECT_EQ(Run({"restore", "p2", "0", plain}),
            Err("ERR DUMP payload version or checksum are wrong"));
  // The renamed hash's fields still expire.
  AdvanceMs(100001);
  EXPECT_EQ(Run({"hgetall", "r"}), Array({Bulk("b"), Bulk("2")}));
}

TEST_F(HashTtlTest, PropagationIsAbsoluteAndExpiredFieldsGoAsHdel) {
  CapturedCommands sink;
  engine_->keyspace().propagation().AddSink(&sink);
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  const int64_t now = NowMs();
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "3", "a", "x", "b"}), Ints({1, -2, 1}));
  EXPECT_EQ(Run({"hexpire", "h", "100", "NX", "FIELDS", "1", "a"}), Ints({0}));
  EXPECT_EQ(Run({"hpexpireat", "h", "1", "FIELDS", "1", "c"}), Ints({2}));
  EXPECT_EQ(Run({"hgetex", "h", "PX", "50", "FIELDS", "1", "b"}), Array({Bulk("2")}));
  AdvanceMs(51);
  EXPECT_EQ(Run({"hget", "h", "b"}), NilBulk());
  engine_->keyspace().propagation().RemoveSink(&sink);
  const std::vector<Command> expected = {
      {"hset", "h", "a", "1", "b", "2", "c", "3"},
      {"HPEXPIREAT", "h", Text(now + 100000), "FIELDS", "2", "a", "b"},
      {"HDEL", "h", "c"},
      {"HPEXPIREAT", "h", Text(now + 50), "FIELDS", "1", "b"},
      {"HDEL", "h", "b"},
  };
  EXPECT_EQ(sink.commands, expected);
}

TEST_F(HashTtlTest, ActiveExpiryReclaimsFieldsUntouched) {
  EXPECT_EQ(Run({"debug", "set-active-expire", "1"}), Ok());
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"hset", "gone", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"hpexpire", "h", "10", "FIELDS", "1", "a"}), Ints({1}));
  EXPECT_EQ(Run({"hpexpire", "gone", "10", "FIELDS", "1", "a"}), Ints({1}));
  AdvanceMs(20);
  EXPECT_EQ(Run({"ping"}), Status("PONG"));  // a command moves the engine's clock on
  engine_->Cron();
  // Looked at without a hash command: the cycle removed the field and the emptied key.
  EXPECT_EQ(HashAt("h")->size(), 1u);
  EXPECT_EQ(HashAt("gone"), nullptr);
  EXPECT_EQ(engine_->database(0).field_expiry_key_count(), 0u);
}

TEST_F(HashTtlTest, ClockJumpsBackAndForth) {
  EXPECT_EQ(Run({"hset", "h", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"hpexpire", "h", "1000", "FIELDS", "1", "a"}), Ints({1}));
  env_.sim_clock().JumpWall(-500000);  // back 0.5 s: more time left
  EXPECT_EQ(Run({"hpttl", "h", "FIELDS", "1", "a"}), Ints({1500}));
  env_.sim_clock().JumpWall(2000000);  // forward 2 s: past its time
  EXPECT_EQ(Run({"hget", "h", "a"}), NilBulk());
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
}

TEST_F(HashTtlTest, NoCostWithoutTtls) {
  EXPECT_EQ(Run({"hset", "h", "a", "1"}), Int(1));
  const size_t without = HashAt("h")->allocated_bytes();
  EXPECT_EQ(Run({"hexpire", "h", "100", "FIELDS", "1", "a"}), Ints({1}));
  EXPECT_GT(HashAt("h")->allocated_bytes(), without);
  EXPECT_EQ(Run({"hpersist", "h", "FIELDS", "1", "a"}), Ints({1}));
  EXPECT_EQ(HashAt("h")->allocated_bytes(), without);
  EXPECT_TRUE(HashAt("h")->CheckInvariants());
}

}  // namespace
}  // namespace keel::testing
