#include "engine/db/types/record_arena.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/sim_env.h"

namespace keel {
namespace {

TEST(RecordArenaTest, VarintsRoundTripAtEveryLengthBoundary) {
  const std::vector<size_t> values = {
      0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000, 0xffffffff, size_t{1} << 40, SIZE_MAX};
  for (size_t value : values) {
    unsigned char bytes[16] = {};
    const size_t written = WriteVarint(bytes, value);
    EXPECT_EQ(written, VarintBytes(value)) << value;
    size_t read = 0;
    EXPECT_EQ(ReadVarint(bytes, &read), written) << value;
    EXPECT_EQ(read, value);
  }
  EXPECT_EQ(VarintBytes(0x7f), 1u);
  EXPECT_EQ(VarintBytes(0x80), 2u);
  EXPECT_EQ(VarintBytes(SIZE_MAX), 10u);
}

TEST(RecordArenaTest, RecordMemberReadsEachRecordAndPointsPastIt) {
  // Records as a sorted set writes them: the member, then 8 bytes of its own.
  std::string arena;
  std::vector<size_t> offsets;
  for (const std::string& member : {std::string(), std::string("a"), std::string(300, 'x')}) {
    offsets.push_back(arena.size());
    unsigned char length[10];
    arena.append(reinterpret_cast<char*>(length), WriteVarint(length, member.size()));
    arena += member;
    arena += "12345678";
  }
  EXPECT_EQ(RecordMember(arena.data(), offsets[0]), "");
  EXPECT_EQ(RecordMember(arena.data(), offsets[1]), "a");
  const std::string_view last = RecordMember(arena.data(), offsets[2]);
  EXPECT_EQ(last, std::string(300, 'x'));
  EXPECT_EQ(std::string_view(last.data() + last.size(), 8), "12345678");
}

TEST(RecordArenaTest, ResizeKeepsTheUsedBytesAndCountsTheNewSize) {
  sim::SimMemory resource;
  MemoryAccountant memory(resource);
  char* arena = nullptr;
  size_t capacity = 0;
  ASSERT_TRUE(ResizeArena(&arena, &capacity, 0, 100, memory));
  EXPECT_EQ(capacity, 100u);
  EXPECT_EQ(memory.used_bytes(MemoryUse::kKeyspace), 100u);
  for (int i = 0; i < 100; i++) arena[i] = static_cast<char>(i);
  ASSERT_TRUE(ResizeArena(&arena, &capacity, 100, 1 << 20, memory));
  EXPECT_EQ(capacity, size_t{1} << 20);
  EXPECT_EQ(memory.used_bytes(MemoryUse::kKeyspace), size_t{1} << 20);
  EXPECT_EQ(memory.held_bytes(), size_t{1} << 20);
  EXPECT_EQ(resource.live_blocks(), 1u);
  for (int i = 0; i < 100; i++) ASSERT_EQ(arena[i], static_cast<char>(i));
  // A shrink keeps the first `used` bytes too.
  ASSERT_TRUE(ResizeArena(&arena, &capacity, 60, 64, memory));
  for (int i = 0; i < 60; i++) ASSERT_EQ(arena[i], static_cast<char>(i));
  EXPECT_EQ(memory.used_bytes(MemoryUse::kKeyspace), 64u);
  memory.Deallocate(arena, capacity, MemoryUse::kKeyspace);
  EXPECT_EQ(memory.held_bytes(), 0u);
  EXPECT_EQ(resource.live_blocks(), 0u);
}

TEST(RecordArenaTest, ARefusedResizeLeavesTheArenaAndTheCountsAsTheyWere) {
  sim::SimMemory resource;
  MemoryAccountant memory(resource);
  char* arena = nullptr;
  size_t capacity = 0;
  ASSERT_TRUE(ResizeArena(&arena, &capacity, 0, 1000, memory));
  std::memset(arena, 'k', 1000);
  char* const before = arena;
  resource.set_limit_bytes(4000);
  EXPECT_FALSE(ResizeArena(&arena, &capacity, 1000, 5000, memory));
  EXPECT_EQ(arena, before);
  EXPECT_EQ(capacity, 1000u);
  EXPECT_EQ(memory.used_bytes(MemoryUse::kKeyspace), 1000u);
  EXPECT_EQ(memory.held_bytes(), 1000u);
  EXPECT_EQ(memory.refused_count(), 1u);
  for (int i = 0; i < 1000; i++) ASSERT_EQ(arena[i], 'k');
  memory.Deallocate(arena, capacity, MemoryUse::kKeyspace);
}

}  // namespace
}  // namespace keel
