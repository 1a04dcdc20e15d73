// Tests for OutputBuffer and ReplyChunkPool: chunking, gathering and consuming across chunks,
// large appends, memory refusal, and exact memory accounting.
#include "engine/resp/output_buffer.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/limits.h"
#include "engine/env/memory.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

constexpr size_t kChunk = limits::kReplyChunkBytes;

// Everything the buffer would write, oldest first, without consuming it.
std::string Pending(const OutputBuffer& out) {
  std::vector<ConstSlice> slices(out.chunk_count() + 1);
  const size_t count = out.Gather(slices.data(), slices.size());
  std::string bytes;
  for (size_t i = 0; i < count; i++) {
    EXPECT_GT(slices[i].size, 0u) << "Gather must not return empty slices";
    bytes.append(slices[i].data, slices[i].size);
  }
  return bytes;
}

std::string Pattern(size_t size, size_t seed = 0) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; i++) bytes[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
  return bytes;
}

class OutputBufferTest : public ::testing::Test {
 protected:
  ~OutputBufferTest() override {
    out_.reset();
    pool_.Trim(0);
    // Every chunk went back: nothing leaks, and the accounting is exact.
    EXPECT_EQ(accountant_.used_bytes(MemoryUse::kReplyBuffers), 0u);
    EXPECT_EQ(memory_.used_bytes(), 0u);
  }

  bool Append(std::string_view bytes) { return out_->Append(bytes.data(), bytes.size()); }

  sim::SimMemory memory_;
  MemoryAccountant accountant_{memory_};
  ReplyChunkPool pool_{accountant_};
  std::unique_ptr<OutputBuffer> out_ = std::make_unique<OutputBuffer>(pool_);
};

TEST_F(OutputBufferTest, StartsEmptyAndHoldsNoMemory) {
  EXPECT_TRUE(out_->empty());
  EXPECT_EQ(out_->pending_bytes(), 0u);
  EXPECT_EQ(out_->chunk_count(), 0u);
  EXPECT_FALSE(out_->failed());
  ConstSlice slice;
  EXPECT_EQ(out_->Gather(&slice, 1), 0u);
  EXPECT_EQ(out_->TryReserve(1), nullptr);
  EXPECT_EQ(memory_.used_bytes(), 0u);
}

TEST_F(OutputBufferTest, SmallRepliesShareOneChunk) {
  std::string expected;
  for (int i = 0; i < 1000; i++) {
    ASSERT_TRUE(Append("+OK\r\n"));
    expected += "+OK\r\n";
  }
  EXPECT_EQ(out_->chunk_count(), 1u);
  EXPECT_EQ(out_->pending_bytes(), expected.size());
  EXPECT_EQ(Pending(*out_), expected);
  EXPECT_EQ(accountant_.used_bytes(MemoryUse::kReplyBuffers), sizeof(ReplyChunk) + kChunk);
}

TEST_F(OutputBufferTest, AppendsSpillIntoNewChunks) {
  const std::string bytes = Pattern(3 * kChunk + 100);
  for (size_t at = 0; at < bytes.size(); at += 100) {
    ASSERT_TRUE(Append(std::string_view(bytes).substr(at, 100)));
  }
  EXPECT_EQ(out_->chunk_count(), 4u);
  EXPECT_EQ(Pending(*out_), bytes);
}

TEST_F(OutputBufferTest, BigAppendUsesChunksOfAtMostOneMebibyte) {
  const std::string bytes = Pattern(3 * limits::kReplyChunkBytesMax + 5);
  ASSERT_TRUE(Append("x"));
  ASSERT_TRUE(Append(bytes));
  // The first chunk takes what fits, then chunks as large as allowed carry the rest.
  EXPECT_EQ(out_->chunk_count(), 4u);
  EXPECT_EQ(out_->pending_bytes(), bytes.size() + 1);
  EXPECT_EQ(Pending(*out_), "x" + bytes);
}

TEST_F(OutputBufferTest, GatherRespectsSlicesMax) {
  ASSERT_TRUE(Append("x"));
  ASSERT_TRUE(Append(Pattern(5 * kChunk)));
  ASSERT_GE(out_->chunk_count(), 2u);
  ConstSlice slice;
  ASSERT_EQ(out_->Gather(&slice, 1), 1u);
  EXPECT_EQ(std::string(slice.data, slice.size), "x" + Pattern(kChunk - 1));
}

TEST_F(OutputBufferTest, ConsumeWorksWithinAndAcrossChunks) {
  const std::string bytes = Pattern(3 * kChunk + 10);
  for (size_t at = 0; at < bytes.size(); at += 1000) {
    ASSERT_TRUE(Append(std::string_view(bytes).substr(at, 1000)));
  }
  size_t sent = 0;
  for (size_t step : {size_t{1}, size_t{5}, kChunk - 6, size_t{1}, kChunk + 7, size_t{3}}) {
    out_->Consume(step);
    sent += step;
    EXPECT_EQ(out_->pending_bytes(), bytes.size() - sent);
    EXPECT_EQ(Pending(*out_), bytes.substr(sent));
  }
  EXPECT_EQ(out_->chunk_count(), 2u);
  out_->Consume(out_->pending_bytes());
  EXPECT_TRUE(out_->empty());
  // A fully written buffer keeps no chunk: an idle client holds no reply memory.
  EXPECT_EQ(out_->chunk_count(), 0u);
  EXPECT_EQ(pool_.free_count(), 4u);
  // The buffer is usable again, from a pooled chunk.
  ASSERT_TRUE(Append("+again\r\n"));
  EXPECT_EQ(Pending(*out_), "+again\r\n");
  EXPECT_EQ(pool_.free_count(), 3u);
}

TEST_F(OutputBufferTest, ReserveAndCommitWriteInPlace) {
  ASSERT_TRUE(Append("+"));
  char* slot = out_->TryReserve(4);
  ASSERT_NE(slot, nullptr);
  std::memcpy(slot, "OK\r\n", 4);
  out_->Commit(4);
  EXPECT_EQ(Pending(*out_), "+OK\r\n");
  // No room in the tail: TryReserve never allocates, EnsureContiguous does.
  EXPECT_EQ(out_->TryReserve(kChunk), nullptr);
  ASSERT_TRUE(out_->EnsureContiguous(kChunk));
  slot = out_->TryReserve(kChunk);
  ASSERT_NE(slot, nullptr);
  std::memset(slot, 'z', kChunk);
  out_->Commit(kChunk);
  EXPECT_EQ(Pending(*out_), "+OK\r\n" + std::string(kChunk, 'z'));
  EXPECT_EQ(out_->chunk_count(), 2u);
}

TEST_F(OutputBufferTest, NearTheLimitASmallerChunkCarriesTheReply) {
  ASSERT_TRUE(Append("+first\r\n"));
  // No room for another standard chunk, but enough for the few bytes that overflow the first:
  // the pool falls back to a chunk of the size needed (found by the command fuzz harness, where
  // a 50-byte error reply could not be written at all near the limit).
  memory_.set_limit_bytes(memory_.used_bytes() + kChunk);
  const std::string reply = Pattern(kChunk + 1);
  EXPECT_TRUE(Append(reply));
  EXPECT_FALSE(out_->failed());
  EXPECT_EQ(Pending(*out_), "+first\r\n" + reply);
  EXPECT_EQ(out_->chunk_count(), 2u);
}

TEST_F(OutputBufferTest, RefusedMemoryMarksTheBufferFailedAndDropsEverything) {
  ASSERT_TRUE(Append("+first\r\n"));
  memory_.set_limit_bytes(memory_.used_bytes() + 64);  // not enough even for a small chunk
  EXPECT_FALSE(Append(Pattern(kChunk + 1)));
  EXPECT_TRUE(out_->failed());
  // No partial reply is kept: a client must never receive a truncated stream.
  EXPECT_TRUE(out_->empty());
  EXPECT_EQ(out_->chunk_count(), 0u);
  EXPECT_EQ(Pending(*out_), "");
  // Once failed, the buffer refuses everything, even what would fit.
  memory_.set_limit_bytes(0);
  EXPECT_FALSE(Append("+x\r\n"));
  EXPECT_FALSE(out_->EnsureContiguous(10));
  EXPECT_EQ(out_->TryReserve(1), nullptr);
  EXPECT_TRUE(out_->empty());
}

TEST_F(OutputBufferTest, RefusalOfTheFirstChunkFailsCleanly) {
  memory_.set_limit_bytes(100);
  EXPECT_FALSE(Append("+OK\r\n"));
  EXPECT_TRUE(out_->failed());
  // Two refusals: the standard chunk, then the smaller fallback.
  EXPECT_EQ(memory_.refused_count(), 2u);
  EXPECT_EQ(accountant_.refused_count(), 2u);
}

TEST_F(OutputBufferTest, TakeAllReturnsWhatIsPendingAcrossChunks) {
  const std::string reply = Pattern(3 * kChunk + 7);
  ASSERT_TRUE(Append(reply));
  out_->Consume(5);  // as after a short write
  EXPECT_EQ(out_->TakeAll(), reply.substr(5));
  EXPECT_TRUE(out_->empty());
  EXPECT_EQ(out_->chunk_count(), 0u);
  EXPECT_EQ(out_->TakeAll(), "");
}

TEST_F(OutputBufferTest, ClearDropsPendingBytes) {
  ASSERT_TRUE(Append(Pattern(2 * kChunk)));
  out_->Clear();
  EXPECT_TRUE(out_->empty());
  EXPECT_EQ(out_->chunk_count(), 0u);
  EXPECT_EQ(Pending(*out_), "");
  EXPECT_FALSE(out_->failed());
}

TEST(ReplyChunkPoolTest, KeepsStandardChunksAndFreesOthers) {
  sim::SimMemory memory;
  MemoryAccountant accountant(memory);
  {
    ReplyChunkPool pool(accountant);
    ReplyChunk* standard = pool.Take(10);
    ASSERT_NE(standard, nullptr);
    EXPECT_EQ(standard->capacity, kChunk);
    ReplyChunk* large = pool.Take(kChunk * 4);
    ASSERT_NE(large, nullptr);
    EXPECT_EQ(large->capacity, kChunk * 4);
    ReplyChunk* capped = pool.Take(limits::kReplyChunkBytesMax * 3);
    ASSERT_NE(capped, nullptr);
    EXPECT_EQ(capped->capacity, limits::kReplyChunkBytesMax);
    pool.Give(large);
    pool.Give(capped);
    EXPECT_EQ(pool.free_count(), 0u);  // non-standard chunks go back to the environment
    pool.Give(standard);
    EXPECT_EQ(pool.free_count(), 1u);
    EXPECT_EQ(accountant.used_bytes(MemoryUse::kReplyBuffers), sizeof(ReplyChunk) + kChunk);
    // A pooled chunk is reused, emptied.
    ReplyChunk* again = pool.Take(100);
    EXPECT_EQ(again, standard);
    EXPECT_EQ(again->used, 0u);
    EXPECT_EQ(again->next, nullptr);
    pool.Give(again);
    pool.Trim(0);
    EXPECT_EQ(pool.free_count(), 0u);
    EXPECT_EQ(accountant.used_bytes(MemoryUse::kReplyBuffers), 0u);
  }
  EXPECT_EQ(memory.live_blocks(), 0u);
}

TEST(ReplyChunkPoolTest, PoolSizeIsBounded) {
  sim::SimMemory memory;
  MemoryAccountant accountant(memory);
  ReplyChunkPool pool(accountant);
  std::vector<ReplyChunk*> chunks;
  for (size_t i = 0; i < limits::kReplyChunkPoolCountMax + 10; i++) chunks.push_back(pool.Take(1));
  for (ReplyChunk* chunk : chunks) pool.Give(chunk);
  EXPECT_EQ(pool.free_count(), limits::kReplyChunkPoolCountMax);
  EXPECT_EQ(memory.live_blocks(), limits::kReplyChunkPoolCountMax);
}

// A model-based property: any sequence of appends (small, chunk-sized, huge), reserved writes and
// partial consumes keeps the pending bytes equal to a plain string's, and leaks nothing.
RC_GTEST_PROP(OutputBufferProperty, BehavesLikeAString, ()) {
  sim::SimMemory memory;
  MemoryAccountant accountant(memory);
  ReplyChunkPool pool(accountant);
  std::string model;
  {
    OutputBuffer out(pool);
    const int steps = *rc::gen::inRange(1, 40);
    for (int step = 0; step < steps; step++) {
      const int action = *rc::gen::inRange(0, 4);
      if (action == 0) {
        const size_t size = *rc::gen::weightedOneOf<size_t>(
            {{8, rc::gen::inRange<size_t>(0, 64)},
             {4, rc::gen::inRange<size_t>(kChunk - 64, kChunk + 64)},
             {2, rc::gen::inRange<size_t>(0, 200000)},
             {1, rc::gen::inRange<size_t>(1024 * 1024 - 64, 2 * 1024 * 1024 + 64)}});
        const std::string bytes = Pattern(size, static_cast<size_t>(step));
        RC_ASSERT(out.Append(bytes.data(), bytes.size()));
        model += bytes;
      } else if (action == 1) {
        const size_t size = *rc::gen::inRange<size_t>(1, 200);
        if (!out.EnsureContiguous(size)) RC_FAIL("EnsureContiguous refused without a limit");
        char* slot = out.TryReserve(size);
        RC_ASSERT(slot != nullptr);
        const std::string bytes = Pattern(size, 3);
        std::memcpy(slot, bytes.data(), size);
        out.Commit(size);
        model += bytes;
      } else if (!model.empty()) {
        const size_t size = *rc::gen::inRange<size_t>(1, model.size() + 1);
        out.Consume(size);
        model.erase(0, size);
      }
      RC_ASSERT(out.pending_bytes() == model.size());
      RC_ASSERT(out.empty() == model.empty());
      RC_ASSERT(Pending(out) == model);
    }
  }
  pool.Trim(0);
  RC_ASSERT(accountant.used_bytes(MemoryUse::kReplyBuffers) == 0u);
  RC_ASSERT(memory.live_blocks() == 0u);
}

}  // namespace
}  // namespace keel
