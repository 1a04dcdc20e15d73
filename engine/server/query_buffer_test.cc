// Tests for QueryBuffer: reserving, compacting, growing, refusal, and exact memory accounting.
#include "engine/server/query_buffer.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <string>

#include "engine/env/memory.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

std::string Unread(QueryBuffer& query) { return std::string(query.unread(), query.unread_size()); }

// Writes `bytes` into the tail, as a network read would.
void Produce(QueryBuffer& query, std::string_view bytes) {
  ASSERT_GE(query.tail_room(), bytes.size());
  std::memcpy(query.tail(), bytes.data(), bytes.size());
  query.Produced(bytes.size());
}

class QueryBufferTest : public ::testing::Test {
 protected:
  ~QueryBufferTest() override {
    query_.reset();
    EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), 0u);
    EXPECT_EQ(memory_.live_blocks(), 0u);
  }

  sim::SimMemory memory_;
  MemoryAccountant accountant_{memory_};
  std::unique_ptr<QueryBuffer> query_ = std::make_unique<QueryBuffer>(accountant_);
};

TEST_F(QueryBufferTest, StartsEmptyWithoutMemory) {
  EXPECT_TRUE(query_->empty());
  EXPECT_EQ(query_->unread_size(), 0u);
  EXPECT_EQ(query_->capacity(), 0u);
  EXPECT_EQ(memory_.used_bytes(), 0u);
}

TEST_F(QueryBufferTest, ReserveAllocatesAtLeastAKibibyteAndAccountsIt) {
  ASSERT_TRUE(query_->Reserve(10));
  EXPECT_EQ(query_->capacity(), 1024u);
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), 1024u);
  ASSERT_TRUE(query_->Reserve(5000));
  EXPECT_EQ(query_->capacity(), 5000u);
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), 5000u);
}

TEST_F(QueryBufferTest, PrependPutsBytesBeforeTheUnreadOnes) {
  // Into the room already consumed, without allocating.
  ASSERT_TRUE(query_->Reserve(100));
  Produce(*query_, "set k \"v\"\r\nGET k\r\n");
  query_->Consume(11);  // the first command
  ASSERT_TRUE(query_->Prepend("*1\r\n", 4));
  EXPECT_EQ(Unread(*query_), "*1\r\nGET k\r\n");
  EXPECT_EQ(query_->capacity(), 1024u);
  // Longer than that room: a new block, accounted exactly.
  const std::string longer(2000, 'x');
  ASSERT_TRUE(query_->Prepend(longer.data(), longer.size()));
  EXPECT_EQ(Unread(*query_), longer + "*1\r\nGET k\r\n");
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), query_->capacity());
  // Into an empty buffer.
  QueryBuffer empty(accountant_);
  ASSERT_TRUE(empty.Prepend("abc", 3));
  EXPECT_EQ(Unread(empty), "abc");
  // A refused allocation changes nothing.
  memory_.set_limit_bytes(memory_.used_bytes() + 10);
  const std::string huge(5000, 'y');
  EXPECT_FALSE(query_->Prepend(huge.data(), huge.size()));
  EXPECT_EQ(Unread(*query_), longer + "*1\r\nGET k\r\n");
}

TEST_F(QueryBufferTest, ConsumingEverythingRewindsTheBuffer) {
  ASSERT_TRUE(query_->Reserve(100));
  Produce(*query_, "PING\r\nPI");
  query_->Consume(6);
  EXPECT_EQ(Unread(*query_), "PI");
  query_->Consume(2);
  EXPECT_TRUE(query_->empty());
  EXPECT_EQ(query_->tail_room(), query_->capacity());
}

TEST_F(QueryBufferTest, ReserveCompactsBeforeGrowing) {
  ASSERT_TRUE(query_->Reserve(1024));
  Produce(*query_, std::string(1000, 'a') + "partial");
  query_->Consume(1000);
  ASSERT_EQ(query_->tail_room(), 17u);
  // 1000 bytes fit once the unread ones move to the front: no new block.
  ASSERT_TRUE(query_->Reserve(1000));
  EXPECT_EQ(query_->capacity(), 1024u);
  EXPECT_EQ(Unread(*query_), "partial");
  EXPECT_GE(query_->tail_room(), 1000u);
  EXPECT_EQ(memory_.live_blocks(), 1u);
}

TEST_F(QueryBufferTest, ReserveGrowsAndKeepsTheUnreadBytes) {
  ASSERT_TRUE(query_->Reserve(1024));
  Produce(*query_, "*3\r\n$3\r\nSET\r\n");
  query_->Consume(4);
  ASSERT_TRUE(query_->Reserve(100000));
  EXPECT_EQ(Unread(*query_), "$3\r\nSET\r\n");
  EXPECT_GE(query_->tail_room(), 100000u);
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), query_->capacity());
  EXPECT_EQ(memory_.live_blocks(), 1u);  // the old block was freed
}

TEST_F(QueryBufferTest, GrowingReadByReadCopiesEachByteAConstantNumberOfTimes) {
  // A 16 MiB command arriving 64 KiB at a time: the buffer doubles, so the growths together copy
  // less than the command's size. (Growing by exactly what the next read needs copied everything
  // received so far on every read: about 2 GiB for this command.)
  constexpr size_t kRead = 64 * 1024;
  constexpr size_t kTotal = 16 * 1024 * 1024;
  const std::string chunk(kRead, 'c');
  for (size_t received = 0; received < kTotal; received += kRead) {
    ASSERT_TRUE(query_->Reserve(kRead));
    Produce(*query_, chunk);
  }
  EXPECT_EQ(query_->unread_size(), kTotal);
  EXPECT_LT(query_->copied_bytes(), kTotal);
  EXPECT_LE(query_->allocations(), 16u);  // 1 KiB doubling to 16 MiB, at most
  EXPECT_LE(query_->capacity(), 2 * kTotal);
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), query_->capacity());
}

TEST_F(QueryBufferTest, ReserveExactTakesTheSizeAsked) {
  ASSERT_TRUE(query_->Reserve(1024));
  Produce(*query_, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000000\r\n");
  const size_t unread = query_->unread_size();
  ASSERT_TRUE(query_->ReserveExact(1000002));
  EXPECT_EQ(query_->capacity(), unread + 1000002);
  EXPECT_EQ(query_->copied_bytes(), unread);
  EXPECT_EQ(query_->allocations(), 2u);
  // Room that is already there costs nothing.
  ASSERT_TRUE(query_->ReserveExact(1000));
  EXPECT_EQ(query_->allocations(), 2u);
}

TEST_F(QueryBufferTest, RefusedGrowthLosesNothing) {
  ASSERT_TRUE(query_->Reserve(1024));
  Produce(*query_, "*1\r\n$100000\r\nabc");
  memory_.set_limit_bytes(memory_.used_bytes() + 1000);
  EXPECT_FALSE(query_->Reserve(100000));
  EXPECT_EQ(Unread(*query_), "*1\r\n$100000\r\nabc");
  EXPECT_EQ(query_->capacity(), 1024u);
  EXPECT_EQ(accountant_.refused_count(), 1u);
  memory_.set_limit_bytes(0);
  EXPECT_TRUE(query_->Reserve(100000));
  EXPECT_EQ(Unread(*query_), "*1\r\n$100000\r\nabc");
}

TEST_F(QueryBufferTest, AssignReplacesTheContent) {
  ASSERT_TRUE(query_->Assign("old", 3));
  ASSERT_TRUE(query_->Assign("*2\r\n$3\r\nGET", 11));
  EXPECT_EQ(Unread(*query_), "*2\r\n$3\r\nGET");
  const std::string big(70000, 'b');
  ASSERT_TRUE(query_->Assign(big.data(), big.size()));
  EXPECT_EQ(Unread(*query_), big);
}

TEST_F(QueryBufferTest, AssignOfNothingOnAFreshBufferIsFine) {
  // There is no block yet, so the copy must not be handed a null destination (UBSan flags even a
  // zero-byte memcpy to null).
  ASSERT_TRUE(query_->Assign("", 0));
  EXPECT_TRUE(query_->empty());
}

TEST_F(QueryBufferTest, AssignFailsWhenMemoryIsRefused) {
  memory_.set_limit_bytes(500);
  EXPECT_FALSE(query_->Assign("PING", 4));
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), 0u);
}

TEST_F(QueryBufferTest, ReleaseIfEmptyFreesOnlyAnEmptyBuffer) {
  ASSERT_TRUE(query_->Reserve(10));
  Produce(*query_, "PI");
  query_->ReleaseIfEmpty();
  EXPECT_EQ(Unread(*query_), "PI");
  EXPECT_EQ(memory_.live_blocks(), 1u);
  query_->Consume(2);
  query_->ReleaseIfEmpty();
  EXPECT_EQ(query_->capacity(), 0u);
  EXPECT_EQ(memory_.live_blocks(), 0u);
  // It is usable again afterwards.
  ASSERT_TRUE(query_->Reserve(10));
  Produce(*query_, "NG");
  EXPECT_EQ(Unread(*query_), "NG");
}

// A model-based property: reserves, reads and consumes keep the unread bytes equal to a string's,
// and the accounting equals the one live block.
RC_GTEST_PROP(QueryBufferProperty, BehavesLikeAString, ()) {
  sim::SimMemory memory;
  MemoryAccountant accountant(memory);
  std::string model;
  {
    QueryBuffer query(accountant);
    const int steps = *rc::gen::inRange(1, 60);
    for (int step = 0; step < steps; step++) {
      switch (*rc::gen::inRange(0, 4)) {
        case 0: {
          const size_t room = *rc::gen::inRange<size_t>(0, 70000);
          RC_ASSERT(query.Reserve(room));
          RC_ASSERT(query.tail_room() >= room);
          const size_t read = *rc::gen::inRange<size_t>(0, room + 1);
          const std::string bytes(read, static_cast<char>('a' + step % 26));
          if (read > 0) std::memcpy(query.tail(), bytes.data(), read);
          query.Produced(read);
          model += bytes;
          break;
        }
        case 1:
          if (!model.empty()) {
            const size_t size = *rc::gen::inRange<size_t>(1, model.size() + 1);
            query.Consume(size);
            model.erase(0, size);
          }
          break;
        case 2: {
          const std::string bytes(*rc::gen::inRange<size_t>(1, 3000), 'z');
          RC_ASSERT(query.Assign(bytes.data(), bytes.size()));
          model = bytes;
          break;
        }
        default:
          query.ReleaseIfEmpty();
          break;
      }
      RC_ASSERT(query.unread_size() == model.size());
      RC_ASSERT(query.empty() == model.empty());
      RC_ASSERT(std::string(query.unread(), query.unread_size()) == model);
      RC_ASSERT(accountant.used_bytes(MemoryUse::kQueryBuffers) == query.capacity());
      RC_ASSERT(memory.live_blocks() == (query.capacity() > 0 ? 1u : 0u));
    }
  }
  RC_ASSERT(memory.live_blocks() == 0u);
}

TEST_F(QueryBufferTest, GivesOnlyAnOfferedBlockThatHoldsTheArgumentAndLittleElse) {
  const std::string header = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n";
  const std::string value(100000, 'v');
  ASSERT_TRUE(query_->ReserveExact(header.size() + value.size() + 2));
  Produce(*query_, header + value + "\r\n");
  const std::string_view arg(query_->unread() + header.size(), value.size());
  ExternalString external{};
  EXPECT_FALSE(query_->CanGive(arg, &external));  // not offered
  query_->Offer();
  EXPECT_FALSE(query_->CanGive(std::string_view(value), &external));  // not in the block
  // Reaching past the unread bytes.
  EXPECT_FALSE(query_->CanGive(std::string_view(arg.data() + 3, arg.size()), &external));
  ASSERT_TRUE(query_->CanGive(arg, &external));
  EXPECT_EQ(external.block + external.offset, arg.data());
  EXPECT_EQ(external.size, value.size());
  EXPECT_EQ(external.block_bytes, query_->capacity());
  // A small part of the block is not worth it: the rest would be held for nothing.
  EXPECT_FALSE(query_->CanGive(arg.substr(0, 1000), &external));
  query_->Withdraw();
  EXPECT_FALSE(query_->CanGive(arg, &external));

  query_->Offer();
  ASSERT_TRUE(query_->CanGive(arg, &external));
  const size_t block_bytes = query_->capacity();
  query_->Give();
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kQueryBuffers), 0u);
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kKeyspace), block_bytes);
  EXPECT_EQ(query_->capacity(), 0u);
  // The command is consumed as usual; the bytes stay where they are, the keyspace's now.
  query_->Consume(header.size() + value.size() + 2);
  EXPECT_TRUE(query_->empty());
  EXPECT_EQ(std::string_view(external.block + external.offset, external.size), value);
  accountant_.Deallocate(external.block, external.block_bytes, MemoryUse::kKeyspace);
}

}  // namespace
}  // namespace keel
