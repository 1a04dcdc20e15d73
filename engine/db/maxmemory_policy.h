// maxmemory-policy's choices, shared by the configuration (which parses them) and the keyspace
// (which acts on them).
#pragma once

#include <cstdint>

namespace keel {

// In the order of the parameter's table entry.
enum class MaxmemoryPolicy : int64_t {
  kVolatileLru = 0,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kNoeviction,
};

}  // namespace keel
