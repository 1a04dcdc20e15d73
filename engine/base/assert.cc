#include "engine/base/assert.h"

#include <cstdio>
#include <cstdlib>

namespace keel {

// Writing to stderr and aborting are the only OS effects the engine allows itself: an assertion
// means the process state can no longer be trusted, so there is no environment left to ask.
void AssertFailed(const char* expression, const char* file, int line) {
  std::fprintf(stderr, "keel: assertion failed: %s at %s:%d\n", expression, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace keel
