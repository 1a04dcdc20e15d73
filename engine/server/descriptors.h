// Redis's adjustOpenFilesLimit, shared by the start (io/main.cc) and CONFIG SET maxclients: every
// client needs a descriptor, plus 32 for the server's own (listeners, logs, files). The limit is
// raised where the system allows it; otherwise fewer clients fit, and the caller lowers
// maxclients (at start) or refuses the new value (CONFIG SET), as Redis does.
#pragma once

#include <cstdint>

namespace keel {

class Engine;

inline constexpr uint64_t kReservedDescriptors = 32;  // Redis's CONFIG_MIN_RESERVED_FDS

struct MaxclientsFit {
  bool possible = true;     // false: not even the reserved descriptors fit (Redis exits at start)
  uint64_t maxclients = 0;  // the clients that fit: the value asked when all of them do
};

// Raises the environment's descriptor limit for `maxclients` clients where it can, logging
// Redis's lines (raised, or why not and what maxclients would fit).
MaxclientsFit FitMaxclientsToDescriptors(Engine& engine, uint64_t maxclients);

}  // namespace keel
