// MEMORY STATS, DOCTOR, PURGE and MALLOC-STATS (Redis's object.c memoryCommand), over Keel's
// accountant. Keel's accountant plays the allocator's part, as in INFO memory: the allocator
// figures are its totals, and what the process holds beyond them is the RSS overhead that
// MEMORY PURGE (and the cron, Engine::ReleaseFreeMemoryIfWorthIt) hands back to the system.
#include <cstdint>
#include <string>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/script/scripting.h"

namespace keel {
namespace {

// Redis's redisMemOverhead, the figures STATS shows and DOCTOR reasons about.
struct MemoryOverhead {
  size_t peak = 0;
  size_t total = 0;
  size_t startup = 0;
  size_t clients_normal = 0;
  size_t scripts = 0;    // what EVAL's script cache keeps (Redis's lua.caches)
  size_t functions = 0;  // the function libraries' code (Redis's functions.caches)
  size_t dataset = 0;
  size_t overhead = 0;
  size_t keys = 0;
  size_t resident = 0;
  size_t clients = 0;
  size_t cached_scripts = 0;
};

MemoryOverhead Measure(CommandContext& context) {
  Engine& engine = context.server();
  MemoryAccountant& memory = engine.memory();
  MemoryOverhead overhead;
  overhead.peak = engine.peak_memory_bytes();
  overhead.total = memory.used_bytes_total();
  overhead.startup = engine.startup_memory_bytes();
  overhead.clients_normal =
      memory.used_bytes(MemoryUse::kQueryBuffers) + memory.used_bytes(MemoryUse::kReplyBuffers);
  Scripting& scripting = Scripting::Of(engine);
  overhead.scripts = scripting.script_bytes();
  overhead.functions = scripting.functions().library_bytes();
  overhead.dataset = memory.used_bytes(MemoryUse::kKeyspace);
  overhead.overhead = overhead.total - overhead.dataset;
  for (int db = 0; db < context.keyspace.database_count(); db++) {
    overhead.keys += context.keyspace.database(db).size();
  }
  overhead.resident = memory.resource().ResidentBytes();
  overhead.clients = engine.client_count();
  overhead.cached_scripts = engine.scripting().cached_scripts();
  return overhead;
}

// Redis computes its ratios in single precision and prints them as doubles.
double Ratio(double part, double whole) {
  return static_cast<double>(static_cast<float>(whole > 0 ? part / whole : 0));
}

void CmdMemoryStats(CommandContext& context) {
  const MemoryOverhead m = Measure(context);
  ReplyBuilder& reply = context.reply;
  size_t databases = 0;
  for (int db = 0; db < context.keyspace.database_count(); db++) {
    databases += context.keyspace.database(db).size() > 0;
  }
  const size_t net = m.total > m.startup ? m.total - m.startup : 0;
  const auto rss_extra = static_cast<int64_t>(m.resident) - static_cast<int64_t>(m.total);
  reply.MapHeader(27 + databases);
  auto integer = [&](std::string_view name, int64_t value) {
    reply.Bulk(name);
    reply.Integer(value);
  };
  auto real = [&](std::string_view name, double value) {
    reply.Bulk(name);
    reply.Double(value);
  };
  integer("peak.allocated", static_cast<int64_t>(m.peak));
  integer("total.allocated", static_cast<int64_t>(m.total));
  integer("startup.allocated", static_cast<int64_t>(m.startup));
  integer("replication.backlog", 0);
  integer("clients.slaves", 0);
  integer("clients.normal", static_cast<int64_t>(m.clients_normal));
  integer("cluster.links", 0);
  integer("aof.buffer", 0);
  integer("lua.caches", static_cast<int64_t>(m.scripts));
  integer("functions.caches", static_cast<int64_t>(m.functions));
  for (int db = 0; db < context.keyspace.database_count(); db++) {
    const Database& database = context.keyspace.database(db);
    if (database.size() == 0) continue;
    reply.Bulk("db." + std::to_string(db));
    reply.MapHeader(3);
    // Keel keeps a key's expiry in its entry: the expires figure is the volatile keys' index.
    integer("overhead.hashtable.main", static_cast<int64_t>(database.table_bytes()));
    integer("overhead.hashtable.expires",
            static_cast<int64_t>(database.expires_count() * sizeof(void*)));
    integer("overhead.hashtable.slot-to-keys", 0);
  }
  integer("overhead.total", static_cast<int64_t>(m.overhead));
  integer("keys.count", static_cast<int64_t>(m.keys));
  integer("keys.bytes-per-key", static_cast<int64_t>(m.keys > 0 ? net / m.keys : 0));
  integer("dataset.bytes", static_cast<int64_t>(m.dataset));
  real("dataset.percentage",
       Ratio(static_cast<double>(m.dataset) * 100, static_cast<double>(net > 0 ? net : 1)));
  real("peak.percentage",
       Ratio(static_cast<double>(m.total) * 100, static_cast<double>(m.peak > 0 ? m.peak : 1)));
  integer("allocator.allocated", static_cast<int64_t>(m.total));
  integer("allocator.active", static_cast<int64_t>(m.total));
  integer("allocator.resident", static_cast<int64_t>(m.resident));
  real("allocator-fragmentation.ratio", 1.0);
  integer("allocator-fragmentation.bytes", 0);
  real("allocator-rss.ratio", Ratio(static_cast<double>(m.resident), static_cast<double>(m.total)));
  integer("allocator-rss.bytes", rss_extra);
  real("rss-overhead.ratio", 1.0);
  integer("rss-overhead.bytes", 0);
  real("fragmentation", Ratio(static_cast<double>(m.resident), static_cast<double>(m.total)));
  integer("fragmentation.bytes", rss_extra);
}

// Redis's getMemoryDoctorReport, with Keel's figures: the allocator's fragmentation is the
// process's (Keel's accountant is the allocator), so the total and allocator RSS checks read the
// same numbers and Redis's separate allocator-fragmentation check never fires.
std::string MemoryDoctorReport(const MemoryOverhead& m) {
  constexpr size_t kTenMegabytes = size_t{10} << 20;
  if (m.total < size_t{5} << 20) {
    return "Hi Sam, this instance is empty or is using very little memory, my issues detector "
           "can't be used in these conditions. Please, leave for your mission on Earth and fill "
           "it with some data. The new Sam and I will be back to our programming as soon as I "
           "finished rebooting.\n";
  }
  const auto total = static_cast<float>(m.total);
  const bool big_peak = static_cast<float>(m.peak) / total > 1.5f;
  const float rss_ratio = static_cast<float>(m.resident) / total;
  const size_t rss_extra = m.resident > m.total ? m.resident - m.total : 0;
  const bool high_frag = rss_ratio > 1.4f && rss_extra > kTenMegabytes;
  const bool high_alloc_rss = rss_ratio > 1.1f && rss_extra > kTenMegabytes;
  const bool big_client_buf = m.clients > 0 && m.clients_normal / m.clients > 1024 * 200;
  const bool many_scripts = m.cached_scripts > 1000;
  if (!big_peak && !high_frag && !high_alloc_rss && !big_client_buf && !many_scripts) {
    return "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
           "occurs on this base.\n";
  }
  std::string s = "Sam, I detected a few issues in this Redis instance memory implants:\n\n";
  if (big_peak) {
    s += " * Peak memory: In the past this instance used more than 150% the memory that is "
         "currently using. The allocator is normally not able to release memory after a peak, so "
         "you can expect to see a big fragmentation ratio, however this is actually harmless and "
         "is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is "
         "currently bigger than expected, the memory will be used as soon as you fill the Redis "
         "instance with more data. If the memory peak was only occasional and you want to try to "
         "reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is "
         "to shutdown and restart the instance.\n\n";
  }
  if (high_frag) {
    s += " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
         "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
         "than the sum of the logical allocations Redis performed). This problem is usually due "
         "either to a large peak memory (check if there is a peak memory entry above in the "
         "report) or may result from a workload that causes the allocator to fragment memory a "
         "lot. If the problem is a large peak memory, then there is no issue. Otherwise, make "
         "sure you are using the Jemalloc allocator and not the default libc malloc. Note: The "
         "currently used allocator is \"libc\".\n\n";
  }
  if (high_alloc_rss) {
    s += " * High allocator RSS overhead: This instance has an RSS memory overhead is greater "
         "than 1.1 (this means that the Resident Set Size of the allocator is much larger than "
         "the sum what the allocator actually holds). This problem is usually due to a large "
         "peak memory (check if there is a peak memory entry above in the report), you can try "
         "the MEMORY PURGE command to reclaim it.\n\n";
  }
  if (big_client_buf) {
    s += " * Big client buffers: The clients output buffers in this instance are greater than "
         "200K per client (on average). This may result from different causes, like Pub/Sub "
         "clients subscribed to channels bot not receiving data fast enough, so that data piles "
         "on the Redis instance output buffer, or clients sending commands with large replies or "
         "very large sequences of commands in the same pipeline. Please use the CLIENT LIST "
         "command in order to investigate the issue if it causes problems in your instance, or "
         "to understand better why certain clients are using a big amount of memory.\n\n";
  }
  if (many_scripts) {
    s += " * Many scripts: There seem to be many cached scripts in this instance (more than "
         "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
         "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT "
         "FLUSH` is called periodically, the scripts' caches may end up consuming most of your "
         "memory.\n\n";
  }
  s += "I'm here to keep you safe, Sam. I want to help you.\n";
  return s;
}

void CmdMemoryDoctor(CommandContext& context) {
  context.reply.Verbatim(MemoryDoctorReport(Measure(context)));
}

void CmdMemoryPurge(CommandContext& context) {
  context.keyspace.slab().Trim();  // emptied slab pages first, as the cron's release does
  context.server().memory().resource().ReleaseFreeMemory();
  context.reply.Ok();
}

void CmdMemoryMallocStats(CommandContext& context) {
  // What Redis built with libc malloc answers: glibc has no statistics report to give.
  context.reply.Verbatim("Stats not supported for the current allocator");
}

constexpr CommandDef kMemoryStatsCommands[] = {
    {.name = "memory|stats",
     .arity = 2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "O(1)",
     .summary = "Show memory usage details",
     .args = "",
     .handler = CmdMemoryStats,
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "memory|doctor",
     .arity = 2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "O(1)",
     .summary = "Outputs memory problems report",
     .args = "",
     .handler = CmdMemoryDoctor,
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "memory|purge",
     .arity = 2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "Depends on how much memory is allocated, could be slow",
     .summary = "Ask the allocator to release memory",
     .args = "",
     .handler = CmdMemoryPurge,
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "memory|malloc-stats",
     .arity = 2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "4.0.0",
     .complexity = "Depends on how much memory is allocated, could be slow",
     .summary = "Show allocator internal stats",
     .args = "",
     .handler = CmdMemoryMallocStats,
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
};

}  // namespace

void RegisterMemoryStatsCommands(Registry& registry) { registry.Add(kMemoryStatsCommands); }

}  // namespace keel
