#include "sim/simulator/invariants.h"

#include "engine/base/limits.h"
#include "sim/workload/workload.h"

namespace keel::sim {
namespace {

// A reply the workload can make: the largest value plus RESP framing and an error text.
constexpr size_t kReplyBytesMax = workload::kLargeValueBytesMax + 1024;

std::string CheckMemory(Engine& engine, SimEnv& env) {
  // The engine holds what the environment handed out (slab pages included), and uses at most
  // that.
  const size_t held = engine.memory().held_bytes();
  const size_t handed_out = env.sim_memory().used_bytes();
  if (held != handed_out) {
    return "memory accounting: the engine holds " + std::to_string(held) +
           " bytes, the environment handed out " + std::to_string(handed_out);
  }
  const size_t used = engine.memory().used_bytes_total();
  if (used > held) {
    return "memory accounting: the engine uses " + std::to_string(used) + " bytes, more than the " +
           std::to_string(held) + " it holds";
  }
  return {};
}

std::string CheckTables(Engine& engine, Oracle& oracle) {
  for (int i = 0; i < engine.database_count(); i++) {
    const Database& db = engine.database(i);
    size_t entries = 0;
    size_t with_expiry = 0;
    db.ForEach([&](const Entry& entry) {
      entries++;
      if (entry.has_expiry()) with_expiry++;
    });
    const std::string where = "db " + std::to_string(i) + ": ";
    if (!db.CheckInvariants()) return where + "Database::CheckInvariants() fails";
    if (entries != db.size()) {
      return where + "size() says " + std::to_string(db.size()) + " keys, the table holds " +
             std::to_string(entries);
    }
    if (with_expiry != db.expires_count()) {
      return where + "expires_count() says " + std::to_string(db.expires_count()) +
             ", the table holds " + std::to_string(with_expiry) + " keys with an expiry";
    }
    std::string difference = CompareKeyspace(engine, oracle.model(), i, oracle.wall_ms_max());
    if (!difference.empty()) return "keyspace differs from the model: " + difference;
  }
  return {};
}

std::string CheckClients(Engine& engine, Server& server, SimEnv& env, size_t internal_clients) {
  if (server.connection_count() + internal_clients != engine.client_count()) {
    return "the server has " + std::to_string(server.connection_count()) + " connections and " +
           std::to_string(internal_clients) + " internal clients, the engine " +
           std::to_string(engine.client_count()) + " clients";
  }
  if (env.sim_network().open_connections() != server.connection_count()) {
    return "the network has " + std::to_string(env.sim_network().open_connections()) +
           " open connections, the server " + std::to_string(server.connection_count());
  }
  const ConfigValues& settings = engine.settings();
  const OutputBufferLimit& limit =
      settings.output_buffer_limits[static_cast<int>(ClientClass::kNormal)];
  for (const auto& [id, owned] : engine.clients()) {
    Client& client = *owned;
    if (client.flags & kClientCloseAsap) continue;
    const size_t pending = client.output().pending_bytes();
    const std::string where = "client " + std::to_string(id) + ": ";
    if (limit.hard_bytes > 0 && pending >= static_cast<size_t>(limit.hard_bytes)) {
      return where + std::to_string(pending) + " reply bytes pending, at or past the hard limit " +
             std::to_string(limit.hard_bytes) + ", and the client is still open";
    }
    if (pending > limits::kReplyBackpressureBytes + kReplyBytesMax) {
      return where + std::to_string(pending) + " reply bytes pending, past the back-pressure point";
    }
    if (client.query().unread_size() >
        static_cast<size_t>(settings.client_query_buffer_limit) + limits::kReadChunkBytes) {
      return where + "query buffer past its limit";
    }
  }
  return {};
}

}  // namespace

std::string CheckInvariants(Engine& engine, Server& server, SimEnv& env, Oracle& oracle,
                            size_t internal_clients) {
  std::string broken = CheckMemory(engine, env);
  if (broken.empty()) broken = CheckTables(engine, oracle);
  if (broken.empty()) broken = CheckClients(engine, server, env, internal_clients);
  return broken;
}

}  // namespace keel::sim
