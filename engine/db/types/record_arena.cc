#include "engine/db/types/record_arena.h"

#include "engine/base/assert.h"

namespace keel {

bool ResizeArena(char** arena, size_t* capacity, [[maybe_unused]] size_t used, size_t new_capacity,
                 MemoryAccountant& memory) {
  KEEL_DASSERT(new_capacity > 0 && used <= new_capacity && used <= *capacity);
  void* moved = *arena == nullptr
                    ? memory.Allocate(new_capacity, MemoryUse::kKeyspace)
                    : memory.Reallocate(*arena, *capacity, new_capacity, MemoryUse::kKeyspace);
  if (moved == nullptr) return false;
  *arena = static_cast<char*>(moved);
  *capacity = new_capacity;
  return true;
}

}  // namespace keel
