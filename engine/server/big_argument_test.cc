// A SET of a large argument keeps the block of the query buffer it arrived in as its value (an
// external string, engine/db/entry.h): no copy, no second copy held, and every command that
// reads, edits, moves or copies the value sees an ordinary string.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/limits.h"
#include "engine/db/value_ops.h"
#include "engine/server/server.h"
#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::Bulk;
using testing::Int;
using testing::Ok;
using testing::Request;

class BigArgumentTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    StartServer();
    client_ = Connect();
    // The first key allocates its database's table: measure from after it.
    EXPECT_EQ(Exchange(client_, Request({"SELECT", "1"}) + Request({"SET", "first", "1"}) +
                                    Request({"SELECT", "0"}) + Request({"SET", "first", "1"})),
              (std::vector<RespValue>{Ok(), Ok(), Ok(), Ok()}));
  }

  // A value whose bytes differ along it, so that a shifted or truncated copy shows.
  static std::string Value(size_t size, char seed) {
    std::string value(size, ' ');
    for (size_t i = 0; i < size; i++) value[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
    return value;
  }

  std::vector<RespValue> Run(std::initializer_list<std::string_view> args) {
    return Exchange(client_, Request(args));
  }

  const Entry* Find(std::string_view key, int db = 0) {
    return std::as_const(engine_->database(db)).Find(key);
  }

  MemoryAccountant& memory() { return engine_->memory(); }

  sim::SimClientId client_ = 0;
};

TEST_F(BigArgumentTest, TheValueIsTheQueryBuffersBlockAndNothingIsCopied) {
  const std::string value = Value(4 * 1024 * 1024, 1);
  const size_t keyspace_before = memory().used_bytes(MemoryUse::kKeyspace);
  EXPECT_EQ(Run({"SET", "big", value}), (std::vector<RespValue>{Ok()}));
  const Entry* entry = Find("big");
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->external());
  // The block holds the command's header and the CRLF after the value besides the value.
  EXPECT_LT(entry->external_string().block_bytes, value.size() + 64 + limits::kBigBulkTailBytes);
  EXPECT_EQ(entry->value(), value);
  EXPECT_EQ(memory().used_bytes(MemoryUse::kQueryBuffers), 0u);
  EXPECT_GE(memory().used_bytes(MemoryUse::kKeyspace) - keyspace_before, value.size());
  const QueryBuffer& query = engine_->clients().begin()->second->query();
  EXPECT_LE(query.copied_bytes(), 2 * limits::kReadChunkBytes);

  EXPECT_EQ(Run({"GET", "big"}), (std::vector<RespValue>{Bulk(value)}));
  EXPECT_EQ(Run({"STRLEN", "big"}), (std::vector<RespValue>{Int(4 * 1024 * 1024)}));
  EXPECT_EQ(Run({"GETRANGE", "big", "-5", "-1"}),
            (std::vector<RespValue>{Bulk(value.substr(value.size() - 5))}));
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "big"}), (std::vector<RespValue>{Bulk("raw")}));
  const std::vector<RespValue> usage = Run({"MEMORY", "USAGE", "big"});
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_GE(usage[0].integer, static_cast<int64_t>(value.size()));

  // Deleting it gives every byte back.
  EXPECT_EQ(Run({"DEL", "big"}), (std::vector<RespValue>{Int(1)}));
  EXPECT_EQ(memory().used_bytes(MemoryUse::kKeyspace), keyspace_before);
}

TEST_F(BigArgumentTest, ACommandArrivingInSmallPiecesGivesItsBlockToo) {
  const std::string value = Value(40000, 6);
  const std::string request = Request({"SET", "big", value});
  env_.sim_network().set_read_bytes_max(1000);
  for (size_t at = 0; at < request.size(); at += 700) {
    env_.sim_network().Send(client_, request.substr(at, 700));
    Settle();
  }
  const Entry* entry = Find("big");
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->external());
  EXPECT_EQ(entry->value(), value);
}

TEST_F(BigArgumentTest, EditsInPlaceKeepTheBlockAndGrowthCopiesOut) {
  std::string value = Value(100 * 1000, 2);
  EXPECT_EQ(Run({"SET", "big", value}), (std::vector<RespValue>{Ok()}));
  ASSERT_TRUE(Find("big")->external());
  EXPECT_EQ(Run({"SETRANGE", "big", "10", "xyz"}),
            (std::vector<RespValue>{Int(static_cast<int64_t>(value.size()))}));
  value.replace(10, 3, "xyz");
  // SETBIT of bit 7 (the last of byte 0) sets it: 'a'..'z' all have it clear or set as they are.
  const bool bit = (static_cast<unsigned char>(value[0]) & 1) != 0;
  EXPECT_EQ(Run({"SETBIT", "big", "7", bit ? "0" : "1"}), (std::vector<RespValue>{Int(bit)}));
  value[0] = static_cast<char>(value[0] ^ 1);
  EXPECT_TRUE(Find("big")->external());
  EXPECT_EQ(Run({"GET", "big"}), (std::vector<RespValue>{Bulk(value)}));

  // APPEND grows it: the string moves into a growable entry, and the block is freed.
  const size_t keyspace_external = memory().used_bytes(MemoryUse::kKeyspace);
  EXPECT_EQ(Run({"APPEND", "big", "tail"}),
            (std::vector<RespValue>{Int(static_cast<int64_t>(value.size() + 4))}));
  value += "tail";
  EXPECT_TRUE(Find("big")->growable());
  EXPECT_EQ(Run({"GET", "big"}), (std::vector<RespValue>{Bulk(value)}));
  EXPECT_GT(memory().used_bytes(MemoryUse::kKeyspace), keyspace_external);  // the spare
}

TEST_F(BigArgumentTest, MovesCarryTheBlockAndCopiesDuplicateIt) {
  const std::string value = Value(200 * 1000, 3);
  const size_t keyspace_before = memory().used_bytes(MemoryUse::kKeyspace);
  EXPECT_EQ(Run({"SET", "big", value, "EX", "100"}), (std::vector<RespValue>{Ok()}));
  const Entry* entry = Find("big");
  ASSERT_NE(entry, nullptr);
  const char* block = entry->external_string().block;

  // An expiry removed and added moves the entry to a new block, RENAME to another key: the
  // string stays where it is. MOVE copies it for the other database (as it copies any value).
  EXPECT_EQ(Run({"PERSIST", "big"}), (std::vector<RespValue>{Int(1)}));
  EXPECT_EQ(Run({"EXPIRE", "big", "50"}), (std::vector<RespValue>{Int(1)}));
  EXPECT_EQ(Run({"RENAME", "big", "renamed"}), (std::vector<RespValue>{Ok()}));
  entry = Find("renamed");
  ASSERT_NE(entry, nullptr);
  ASSERT_TRUE(entry->external());
  EXPECT_EQ(entry->external_string().block, block);
  EXPECT_EQ(Run({"MOVE", "renamed", "1"}), (std::vector<RespValue>{Int(1)}));
  entry = Find("renamed", 1);
  ASSERT_NE(entry, nullptr);
  ASSERT_TRUE(entry->external());
  EXPECT_EQ(entry->value(), value);
  EXPECT_GT(entry->expire_at_ms(), 0);
  const size_t keyspace_one = memory().used_bytes(MemoryUse::kKeyspace);

  // COPY duplicates it into a block of its own; editing the copy leaves the original alone.
  EXPECT_EQ(Run({"SELECT", "1"}), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Run({"COPY", "renamed", "copied"}), (std::vector<RespValue>{Int(1)}));
  const Entry* copied = Find("copied", 1);
  ASSERT_NE(copied, nullptr);
  ASSERT_TRUE(copied->external());
  EXPECT_NE(copied->external_string().block, block);
  EXPECT_GE(memory().used_bytes(MemoryUse::kKeyspace) - keyspace_one, value.size());
  EXPECT_EQ(Run({"SETRANGE", "copied", "0", "ZZ"}),
            (std::vector<RespValue>{Int(static_cast<int64_t>(value.size()))}));
  EXPECT_EQ(Run({"GET", "renamed"}), (std::vector<RespValue>{Bulk(value)}));
  EXPECT_EQ(Run({"GET", "copied"}), (std::vector<RespValue>{Bulk("ZZ" + value.substr(2))}));

  // DUMP and RESTORE read it as a string; the restored value is an ordinary one.
  const std::vector<RespValue> dumped = Run({"DUMP", "renamed"});
  ASSERT_EQ(dumped.size(), 1u);
  EXPECT_EQ(Run({"RESTORE", "restored", "0", dumped[0].text}), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Run({"GET", "restored"}), (std::vector<RespValue>{Bulk(value)}));

  // A SET over it, of the same size, replaces it (no write into the block) and frees it.
  const std::string other = Value(value.size(), 4);
  EXPECT_EQ(Run({"SET", "renamed", other}), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Run({"GET", "renamed"}), (std::vector<RespValue>{Bulk(other)}));
  for (std::string_view key : {"renamed", "copied", "restored"}) {
    EXPECT_EQ(Run({"DEL", key}), (std::vector<RespValue>{Int(1)}));
  }
  EXPECT_EQ(memory().used_bytes(MemoryUse::kKeyspace), keyspace_before);
}

TEST_F(BigArgumentTest, OnlyABlockThatHoldsTheCommandAloneIsGiven) {
  const std::string value = Value(100 * 1000, 5);
  // Pipelined: reads stop where a large bulk's command ends, so each SET's block is its own and
  // is given; the DEL between them frees the first while the next is read into a new block.
  EXPECT_EQ(Exchange(client_, Request({"SET", "a", value}) + Request({"DEL", "a"}) +
                                  Request({"SET", "b", value})),
            (std::vector<RespValue>{Ok(), Int(1), Ok()}));
  EXPECT_EQ(Run({"GET", "b"}), (std::vector<RespValue>{Bulk(value)}));
  // Arguments of a transaction or a script are not the query buffer's.
  EXPECT_EQ(Run({"MULTI"}), (std::vector<RespValue>{testing::Status("OK")}));
  EXPECT_EQ(Run({"SET", "c", value}), (std::vector<RespValue>{testing::Status("QUEUED")}));
  const std::vector<RespValue> executed = Run({"EXEC"});
  ASSERT_EQ(executed.size(), 1u);
  EXPECT_FALSE(Find("c")->external());
  EXPECT_EQ(Run({"EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", "d", value}),
            (std::vector<RespValue>{Ok()}));
  EXPECT_FALSE(Find("d")->external());
  EXPECT_EQ(Run({"GET", "d"}), (std::vector<RespValue>{Bulk(value)}));
  // A small value is stored inline however it arrived.
  EXPECT_EQ(Run({"SET", "e", std::string(1000, 'e')}), (std::vector<RespValue>{Ok()}));
  EXPECT_FALSE(Find("e")->external());
  // Every SET form adopts: SETNX, SETEX, PSETEX, GETSET, SET ... GET.
  EXPECT_EQ(Run({"SETNX", "f", value}), (std::vector<RespValue>{Int(1)}));
  EXPECT_EQ(Run({"SETEX", "g", "100", value}), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Run({"PSETEX", "h", "100000", value}), (std::vector<RespValue>{Ok()}));
  EXPECT_EQ(Run({"GETSET", "g", value}), (std::vector<RespValue>{Bulk(value)}));
  EXPECT_EQ(Run({"SET", "f", value, "GET"}), (std::vector<RespValue>{Bulk(value)}));
  for (std::string_view key : {"b", "f", "g", "h"}) {
    ASSERT_NE(Find(key), nullptr) << key;
    EXPECT_TRUE(Find(key)->external()) << key;
    EXPECT_EQ(Find(key)->value(), value) << key;
  }
  EXPECT_EQ(Find("g")->expire_at_ms(), kNoExpiry);  // GETSET drops the TTL SETEX gave
  EXPECT_GT(Find("h")->expire_at_ms(), 0);
}

}  // namespace
}  // namespace keel
