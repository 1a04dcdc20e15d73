// MemoryAccountant: the engine's view of its memory, counted per purpose.
//
// Every allocation that scales with data or clients (keyspace entries and tables, query and reply
// buffers) goes through here to the Env's MemoryResource. The totals are exact (sized
// deallocation), so INFO's used_memory is the sum of live blocks and the simulator can check it
// against its own count after every step. Small fixed control structures (the registry, config,
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
  kCount,
};

class MemoryAccountant {
 public:
  explicit MemoryAccountant(MemoryResource& resource) : resource_(resource) {}
  MemoryAccountant(const MemoryAccountant&) = delete;
  MemoryAccountant& operator=(const MemoryAccountant&) = delete;

  // Returns `bytes` (> 0) of storage or nullptr when the environment refuses. The caller must
  // handle nullptr (fail the command with an OOM error, or drop the client), never crash.
  void* Allocate(size_t bytes, MemoryUse use) {
    KEEL_DASSERT(bytes > 0);
    void* pointer = resource_.Allocate(bytes);
    if (pointer == nullptr) {
      refused_count_++;
      return nullptr;
    }
    used_bytes_[static_cast<size_t>(use)] += bytes;
    return pointer;
  }

  // Returns a block from Allocate with the same `bytes` and `use`.
  void Deallocate(void* pointer, size_t bytes, MemoryUse use) {
    KEEL_DASSERT(pointer != nullptr);
    KEEL_DASSERT(used_bytes_[static_cast<size_t>(use)] >= bytes);
    used_bytes_[static_cast<size_t>(use)] -= bytes;
    resource_.Deallocate(pointer, bytes);
  }

  size_t used_bytes(MemoryUse use) const { return used_bytes_[static_cast<size_t>(use)]; }
  size_t used_bytes_total() const {
    size_t total = 0;
    for (size_t bytes : used_bytes_) total += bytes;
    return total;
  }
  uint64_t refused_count() const { return refused_count_; }
  MemoryResource& resource() { return resource_; }

 private:
  MemoryResource& resource_;
  std::array<size_t, static_cast<size_t>(MemoryUse::kCount)> used_bytes_{};
  uint64_t refused_count_ = 0;
};

}  // namespace keel
