// Engine invariants the simulator checks after every step.
#pragma once

#include <string>

#include "engine/server/engine.h"
#include "engine/server/server.h"
#include "sim/simulator/oracle.h"

namespace keel::sim {

// Returns what broke, or empty when everything holds:
// - memory: what the engine accounts is exactly what the environment handed out;
// - keyspace: every table's key and expiry counts match its entries, and the contents match the
//   model (CompareKeyspace);
// - clients: the server's connections, the engine's clients and the network's open connections
//   agree; no client left open holds replies past the hard output limit or past the back-pressure
//   point plus one reply, nor a query buffer past its limit. `internal_clients` of the engine's
//   clients have no connection (the simulator's own, as TrackingCheck's).
std::string CheckInvariants(Engine& engine, Server& server, SimEnv& env, Oracle& oracle,
                            size_t internal_clients = 0);

}  // namespace keel::sim
