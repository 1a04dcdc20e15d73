// MemoryAccountant: the engine's view of its memory, counted per purpose.
//
// Every allocation that scales with data or clients (keyspace entries and tables, query and reply
// buffers) goes through here to the Env's MemoryResource. Two exact totals are kept (sized
// deallocation): held bytes, what the environment handed out (the simulator checks it against its
// own count after every step), and used bytes, what is in use (INFO's used_memory, the figure
// maxmemory limits). Small fixed control structures (the registry, config,
// Client objects) use the ordinary heap and are not counted, as they do not grow with load.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "engine/env/env.h"

namespace keel {

enum class MemoryUse : uint8_t {
  kKeyspace = 0,  // entries, values and hash tables of the databases
  kQueryBuffers,  // client input buffers
  kReplyBuffers,  // client output buffers
  kScratch,       // a running command's transient working memory, freed before it returns
  kScripting,     // the Lua interpreter and the scripts it keeps (engine/script/)
  kCount,
};

class MemoryAccountant {
 public:
  explicit MemoryAccountant(MemoryResource& resource) : resource_(resource) {}
  MemoryAccountant(const MemoryAccountant&) = delete;
  MemoryAccountant& operator=(const MemoryAccountant&) = delete;

  // Returns `bytes` (> 0) of storage or nullptr when the environment refuses. The caller must
  // handle nullptr (fail the command with an OOM error, or drop the client), never crash. The
  // bytes count as held and as used.
  void* Allocate(size_t bytes, MemoryUse use) {
    void* pointer = AllocateHeld(bytes);
    if (pointer != nullptr) NoteUsed(use, static_cast<int64_t>(bytes));
    return pointer;
  }

  // Allocate, zero-filled (MemoryResource::AllocateZeroed): for large tables.
  void* AllocateZeroed(size_t bytes, MemoryUse use) {
    KEEL_DASSERT(bytes > 0);
    void* pointer = CountHeld(resource_.AllocateZeroed(bytes), bytes);
    if (pointer != nullptr) NoteUsed(use, static_cast<int64_t>(bytes));
    return pointer;
  }

  // Returns a block from Allocate or AllocateZeroed with the same `bytes` and `use`.
  void Deallocate(void* pointer, size_t bytes, MemoryUse use) {
    NoteUsed(use, -static_cast<int64_t>(bytes));
    DeallocateHeld(pointer, bytes);
  }

  // Moves a block from Allocate(old_bytes, use) into one of `new_bytes` (MemoryResource::
  // Reallocate). On refusal returns nullptr and the old block is untouched.
  void* Reallocate(void* pointer, size_t old_bytes, size_t new_bytes, MemoryUse use) {
    KEEL_DASSERT(pointer != nullptr && old_bytes > 0 && new_bytes > 0);
    KEEL_DASSERT(held_bytes_ >= old_bytes);
    void* moved = resource_.Reallocate(pointer, old_bytes, new_bytes);
    if (moved == nullptr) {
      refused_count_++;
      return nullptr;
    }
    held_bytes_ = held_bytes_ - old_bytes + new_bytes;
    NoteUsed(use, static_cast<int64_t>(new_bytes) - static_cast<int64_t>(old_bytes));
    return moved;
  }

  // For sub-allocators (the keyspace's slab): memory taken from the environment that counts as
  // held only; the sub-allocator reports what of it is in use with NoteUsed. used_memory then
  // falls when keys are deleted even though their pages stay, as Redis's used_memory falls while
  // jemalloc keeps its pages.
  void* AllocateHeld(size_t bytes) {
    KEEL_DASSERT(bytes > 0);
    return CountHeld(resource_.Allocate(bytes), bytes);
  }
  void DeallocateHeld(void* pointer, size_t bytes) {
    KEEL_DASSERT(pointer != nullptr);
    KEEL_DASSERT(held_bytes_ >= bytes);
    held_bytes_ -= bytes;
    resource_.Deallocate(pointer, bytes);
  }
  void NoteUsed(MemoryUse use, int64_t delta_bytes) {
    size_t& used = used_bytes_[static_cast<size_t>(use)];
    KEEL_DASSERT(delta_bytes >= 0 || used >= static_cast<size_t>(-delta_bytes));
    used = static_cast<size_t>(static_cast<int64_t>(used) + delta_bytes);
  }

  // What is in use, per purpose and in total: INFO used_memory, and what maxmemory limits.
  size_t used_bytes(MemoryUse use) const { return used_bytes_[static_cast<size_t>(use)]; }
  size_t used_bytes_total() const {
    size_t total = 0;
    for (size_t bytes : used_bytes_) total += bytes;
    return total;
  }
  // What the environment has handed out and not been given back (always >= used): the simulator
  // checks it against its own count after every step.
  size_t held_bytes() const { return held_bytes_; }
  uint64_t refused_count() const { return refused_count_; }
  MemoryResource& resource() { return resource_; }

 private:
  // Counts a block the environment handed out as held, or a refusal (nullptr), and passes it on.
  void* CountHeld(void* pointer, size_t bytes) {
    if (pointer == nullptr) {
      refused_count_++;
      return nullptr;
    }
    held_bytes_ += bytes;
    return pointer;
  }

  MemoryResource& resource_;
  std::array<size_t, static_cast<size_t>(MemoryUse::kCount)> used_bytes_{};
  size_t held_bytes_ = 0;
  uint64_t refused_count_ = 0;
};

}  // namespace keel
