// Counters that INFO stats, INFO commandstats and INFO errorstats report.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/server/latency.h"

namespace keel {

struct CommandStats {
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t rejected_calls = 0;  // refused before running (arity, auth, OOM)
  uint64_t failed_calls = 0;    // ran and replied with an error
  // Created at the first call while latency-tracking is on (INFO latencystats, LATENCY
  // HISTOGRAM); freed by CONFIG RESETSTAT.
  std::unique_ptr<LatencyHistogram> latency;
};

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_net_input_bytes = 0;
  uint64_t total_net_output_bytes = 0;
  uint64_t total_error_replies = 0;
  // keyspace_hits, keyspace_misses, expired_keys and evicted_keys are the keyspace's
  // (KeyspaceStats, engine/db/keyspace.h).
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  uint64_t unexpected_error_replies = 0;
  uint64_t total_reads_processed = 0;   // reads from client connections, counted by the Server
  uint64_t total_writes_processed = 0;  // writes to client connections, counted by the Server
  std::vector<CommandStats> commands;   // by CommandSpec::id
  std::map<std::string, uint64_t, std::less<>> errors;  // by error code, sorted as INFO prints

  // Instantaneous rates, sampled by cron over the last 16 samples as Redis does.
  struct RateSampler {
    static constexpr int kSamples = 16;
    int64_t samples[kSamples] = {};
    int index = 0;
    int64_t last_time_ms = 0;
    uint64_t last_value = 0;
    void Sample(int64_t now_ms, uint64_t value);
    int64_t PerSecond() const;
  };
  RateSampler ops_rate;
  RateSampler input_rate;   // bytes
  RateSampler output_rate;  // bytes
};

}  // namespace keel
