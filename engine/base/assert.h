// Assertions that stay on in every build.
//
// KEEL_ASSERT checks cheap preconditions, postconditions and invariants: a failure is a bug in
// Keel, never a reaction to client input, and it stops the process with the location. KEEL_DASSERT
// is for checks too costly for production; it is on in Debug, sanitizer, simulator and fuzz builds
// (KEEL_DEBUG_CHECKS). Split compound conditions so that a failure names the part that failed.
#pragma once

namespace keel {

[[noreturn]] void AssertFailed(const char* expression, const char* file, int line);

}  // namespace keel

#define KEEL_ASSERT(condition) \
  ((condition) ? static_cast<void>(0) : ::keel::AssertFailed(#condition, __FILE__, __LINE__))

#ifdef KEEL_DEBUG_CHECKS
#define KEEL_DASSERT(condition) KEEL_ASSERT(condition)
#else
#define KEEL_DASSERT(condition) static_cast<void>(0)
#endif
