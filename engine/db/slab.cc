#include "engine/db/slab.h"

#include "engine/base/assert.h"

namespace keel {

SlabAllocator::~SlabAllocator() {
  for (SizeClass& size_class : classes_) {
    for (char* page : size_class.pages) memory_.DeallocateHeld(page, kPageBytes);
  }
}

void* SlabAllocator::Allocate(size_t bytes) {
  KEEL_DASSERT(bytes > 0);
  if (bytes > kSlabBytesMax) {
    void* block = memory_.Allocate(bytes, MemoryUse::kKeyspace);
    if (block != nullptr) {
      live_bytes_ += bytes;
      held_bytes_ += bytes;
    }
    return block;  // counted as used by Allocate itself
  }
  const size_t index = ClassOf(bytes);
  const size_t block_bytes = (index + 1) * kGranularity;
  SizeClass& size_class = classes_[index];
  void* block = nullptr;
  if (size_class.free != nullptr) {
    block = size_class.free;
    size_class.free = size_class.free->next;
  } else {
    if (size_class.bump == nullptr ||
        static_cast<size_t>(size_class.bump_end - size_class.bump) < block_bytes) {
      auto* page = static_cast<char*>(memory_.AllocateHeld(kPageBytes));
      if (page == nullptr) return nullptr;
      size_class.pages.push_back(page);
      held_bytes_ += kPageBytes;
      size_class.bump = page;
      size_class.bump_end = page + (kPageBytes / block_bytes) * block_bytes;
    }
    block = size_class.bump;
    size_class.bump += block_bytes;
  }
  size_class.live_blocks++;
  live_bytes_ += block_bytes;
  memory_.NoteUsed(MemoryUse::kKeyspace, static_cast<int64_t>(block_bytes));
  return block;
}

void SlabAllocator::Deallocate(void* block, size_t bytes) {
  KEEL_DASSERT(block != nullptr);
  if (bytes > kSlabBytesMax) {
    KEEL_DASSERT(live_bytes_ >= bytes);
    live_bytes_ -= bytes;
    held_bytes_ -= bytes;
    memory_.Deallocate(block, bytes, MemoryUse::kKeyspace);
    return;
  }
  const size_t index = ClassOf(bytes);
  SizeClass& size_class = classes_[index];
  KEEL_ASSERT(size_class.live_blocks > 0);
  size_class.live_blocks--;
  live_bytes_ -= (index + 1) * kGranularity;
  memory_.NoteUsed(MemoryUse::kKeyspace, -static_cast<int64_t>((index + 1) * kGranularity));
  auto* free_block = static_cast<FreeBlock*>(block);
  free_block->next = size_class.free;
  size_class.free = free_block;
}

void SlabAllocator::Trim() {
  for (SizeClass& size_class : classes_) {
    if (size_class.live_blocks != 0) continue;
    for (char* page : size_class.pages) {
      memory_.DeallocateHeld(page, kPageBytes);
      held_bytes_ -= kPageBytes;
    }
    size_class.pages.clear();
    size_class.free = nullptr;
    size_class.bump = size_class.bump_end = nullptr;
  }
}

}  // namespace keel
