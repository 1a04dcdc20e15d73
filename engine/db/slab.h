// SlabAllocator: exact-size blocks for keyspace entries.
//
// A general-purpose allocator rounds a block up to its next size class and adds its own header:
// glibc turns an 86-byte entry into a 96-byte chunk, jemalloc into a 96-byte region. The
// keyspace's per-key budget (docs/KEYSPACE.md) cannot afford that, so entries of up to
// kSlabBytesMax come from pages carved into blocks of 8-byte granularity: an 86-byte entry costs
// 88. Larger blocks go straight to the MemoryAccountant.
//
// Pages (64 KiB) come from the MemoryAccountant as held memory, and each block handed out counts
// as used (MemoryUse::kKeyspace), so used_memory falls when keys go even though their pages stay;
// a freed block goes on its class's free list and is reused by the next allocation of that class
// (last freed, first reused). Pages are not returned while any of their blocks is live;
// Trim() returns pages whose blocks are all free. Nothing here depends on pointer values for
// order: blocks are handed out in a deterministic sequence for a deterministic history.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/env/memory.h"

namespace keel {

class SlabAllocator {
 public:
  static constexpr size_t kGranularity = 8;
  static constexpr size_t kSlabBytesMax = 1024;
  static constexpr size_t kPageBytes = 64 * 1024;

  explicit SlabAllocator(MemoryAccountant& memory) : memory_(memory) {}
  ~SlabAllocator();
  SlabAllocator(const SlabAllocator&) = delete;
  SlabAllocator& operator=(const SlabAllocator&) = delete;

  // A block of at least `bytes` (> 0), 8-byte aligned, or nullptr when memory is refused.
  void* Allocate(size_t bytes);
  // Returns a block from Allocate with the same `bytes`.
  void Deallocate(void* block, size_t bytes);

  // The bytes a request of `bytes` really occupies.
  static size_t RoundedBytes(size_t bytes) {
    return bytes > kSlabBytesMax ? bytes : (bytes + kGranularity - 1) & ~(kGranularity - 1);
  }

  // Bytes handed out (rounded) and bytes held (pages plus large blocks).
  size_t live_bytes() const { return live_bytes_; }
  size_t held_bytes() const { return held_bytes_; }

  // Frees the pages of the classes whose blocks are all free (after FLUSHALL, say).
  void Trim();

 private:
  static constexpr size_t kClasses = kSlabBytesMax / kGranularity;  // class i holds (i+1)*8 bytes

  struct FreeBlock {
    FreeBlock* next;
  };
  struct SizeClass {
    FreeBlock* free = nullptr;
    char* bump = nullptr;  // next never-used block of the newest page
    char* bump_end = nullptr;
    size_t live_blocks = 0;
    std::vector<char*> pages;  // owned, MemoryUse::kKeyspace, kPageBytes each
  };

  static size_t ClassOf(size_t bytes) { return (bytes - 1) / kGranularity; }

  MemoryAccountant& memory_;
  std::array<SizeClass, kClasses> classes_{};
  size_t live_bytes_ = 0;
  size_t held_bytes_ = 0;
};

}  // namespace keel
