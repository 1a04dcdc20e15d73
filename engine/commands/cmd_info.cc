// INFO: the server's state in Redis 7.0's section layout and field names.
#include <cstdio>
#include <initializer_list>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/script/scripting.h"
#include "engine/server/replication.h"

namespace keel {
namespace {

// Redis's bytesToHuman: "1.34M".
std::string HumanBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "K", "M", "G", "T", "P"};
  char text[64];
  if (bytes < 1024) {
    std::snprintf(text, sizeof(text), "%.0fB", bytes);
    return text;
  }
  int unit = 0;
  while (bytes >= 1024 && unit < 5) {
    bytes /= 1024;
    unit++;
  }
  std::snprintf(text, sizeof(text), "%.2f%s", bytes, kUnits[unit]);
  return text;
}

std::string Fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

class InfoWriter {
 public:
  void Section(std::string_view title) {
    if (!text_.empty()) text_ += "\r\n";
    text_ += "# ";
    text_ += title;
    text_ += "\r\n";
  }
  void Field(std::string_view name, std::string_view value) {
    text_ += name;
    text_ += ':';
    text_ += value;
    text_ += "\r\n";
  }
  void Field(std::string_view name, int64_t value) { Field(name, Int64ToString(value)); }
  // Fields of features Keel does not have yet (forks, replication, defragmentation, scripting),
  // with the value Redis reports while they are idle.
  void Fields(std::initializer_list<std::string_view> names, std::string_view value) {
    for (std::string_view name : names) Field(name, value);
  }
  void Field(std::string_view name, uint64_t value) {
    Field(name, Int64ToString(static_cast<int64_t>(value)));
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

void ServerSection(CommandContext& context, InfoWriter& info) {
  Engine& engine = context.server();
  const ProcessInfo process = engine.env().Process();
  const int64_t uptime_s = (engine.now_monotonic_us() - engine.start_monotonic_us()) / 1000000;
  info.Section("Server");
  info.Field("redis_version", kRedisCompatibleVersion);
  info.Field("keel_version", kKeelVersion);
  info.Field("redis_git_sha1", "00000000");
  info.Field("redis_git_dirty", "0");
  info.Field("redis_build_id", "0");
  info.Field("redis_mode", "standalone");
  info.Field("os", process.os);
  info.Field("arch_bits", "64");
  info.Field("monotonic_clock", process.monotonic_clock);
  info.Field("multiplexing_api", process.multiplexing_api);
  info.Field("atomicvar_api", "c11-builtin");
  info.Field("gcc_version", "0.0.0");
  info.Field("process_id", process.pid);
  info.Field("process_supervised", "no");
  info.Field("run_id", engine.run_id());
  info.Field("tcp_port", engine.settings().port);
  info.Field("server_time_usec", engine.wall_ms() * 1000);
  info.Field("uptime_in_seconds", uptime_s);
  info.Field("uptime_in_days", uptime_s / 86400);
  info.Field("hz", engine.settings().hz);
  info.Field("configured_hz", engine.settings().hz);
  info.Field("lru_clock", (engine.wall_ms() / 1000) & ((1 << 24) - 1));
  info.Field("executable", process.executable);
  info.Field("config_file", engine.startup().config_file);
  info.Field("io_threads_active", "0");
}

void ClientsSection(CommandContext& context, InfoWriter& info) {
  // Clients whose command waits for CLIENT PAUSE count as blocked, as in Redis, beside those
  // waiting for keys.
  uint64_t blocked = context.server().blocked_client_count();
  for (const auto& [id, client] : context.server().clients()) {
    blocked += (client->flags & kClientPostponed) != 0;
  }
  info.Section("Clients");
  info.Field("connected_clients", static_cast<uint64_t>(context.server().client_count()));
  info.Field("cluster_connections", "0");
  info.Field("maxclients", context.server().settings().maxclients);
  info.Field("client_recent_max_input_buffer",
             static_cast<uint64_t>(context.server().recent_max_input_buffer()));
  info.Field("client_recent_max_output_buffer",
             static_cast<uint64_t>(context.server().recent_max_output_buffer()));
  info.Field("blocked_clients", blocked);
  info.Field("tracking_clients", static_cast<uint64_t>(context.server().tracking().client_count()));
  info.Field("clients_in_timeout_table",
             static_cast<uint64_t>(context.server().timed_blocked_client_count()));
}

void MemorySection(CommandContext& context, InfoWriter& info) {
  Engine& engine = context.server();
  MemoryAccountant& memory = engine.memory();
  const auto used = static_cast<double>(memory.used_bytes_total());
  const auto rss = static_cast<double>(memory.resource().ResidentBytes());
  const auto dataset = static_cast<double>(memory.used_bytes(MemoryUse::kKeyspace));
  const int64_t maxmemory = engine.settings().maxmemory;
  // Keel's accountant plays the allocator's part, so the allocator figures are its totals.
  const auto peak = static_cast<double>(engine.peak_memory_bytes());
  const ProcessInfo process = engine.env().Process();
  const auto system_memory = static_cast<double>(process.total_system_memory_bytes);
  const double net_used = used > 0 ? used : 1;
  info.Section("Memory");
  info.Field("used_memory", static_cast<uint64_t>(used));
  info.Field("used_memory_human", HumanBytes(used));
  info.Field("used_memory_rss", static_cast<uint64_t>(rss));
  info.Field("used_memory_rss_human", HumanBytes(rss));
  info.Field("used_memory_peak", static_cast<uint64_t>(peak));
  info.Field("used_memory_peak_human", HumanBytes(peak));
  info.Field("used_memory_peak_perc", Fixed(peak > 0 ? used * 100 / peak : 100, 2) + "%");
  info.Field("used_memory_overhead", static_cast<uint64_t>(used - dataset));
  info.Field("used_memory_startup", static_cast<uint64_t>(engine.startup_memory_bytes()));
  info.Field("used_memory_dataset", static_cast<uint64_t>(dataset));
  info.Field("used_memory_dataset_perc", Fixed(dataset * 100 / net_used, 2) + "%");
  info.Field("allocator_allocated", static_cast<uint64_t>(used));
  info.Field("allocator_active", static_cast<uint64_t>(used));
  info.Field("allocator_resident", static_cast<uint64_t>(rss));
  // 0 where the environment cannot tell the machine's memory size, as Redis reports it then.
  info.Field("total_system_memory", static_cast<uint64_t>(system_memory));
  info.Field("total_system_memory_human", HumanBytes(system_memory));
  // The interpreters (EVAL's and the functions'), made on first use, and what they keep.
  Scripting& scripting = Scripting::Of(engine);
  const auto vm_eval = static_cast<uint64_t>(scripting.vm_bytes());
  const auto vm_functions = static_cast<uint64_t>(scripting.function_vm_bytes());
  const auto scripts_eval = static_cast<uint64_t>(scripting.script_bytes());
  const auto functions = static_cast<uint64_t>(scripting.functions().library_bytes());
  info.Field("used_memory_lua", vm_eval);
  info.Field("used_memory_vm_eval", vm_eval);
  info.Field("used_memory_lua_human", HumanBytes(static_cast<double>(vm_eval)));
  info.Field("used_memory_scripts_eval", scripts_eval);
  info.Field("number_of_cached_scripts", static_cast<uint64_t>(scripting.script_count()));
  info.Field("number_of_functions",
             static_cast<uint64_t>(scripting.functions().registry().function_count()));
  info.Field("number_of_libraries",
             static_cast<uint64_t>(scripting.functions().registry().library_count()));
  info.Field("used_memory_vm_functions", vm_functions);
  info.Field("used_memory_vm_total", vm_eval + vm_functions);
  info.Field("used_memory_vm_total_human", HumanBytes(static_cast<double>(vm_eval + vm_functions)));
  info.Field("used_memory_functions", functions);
  info.Field("used_memory_scripts", scripts_eval + functions);
  info.Field("used_memory_scripts_human",
             HumanBytes(static_cast<double>(scripts_eval + functions)));
  info.Field("maxmemory", maxmemory);
  info.Field("maxmemory_human", HumanBytes(static_cast<double>(maxmemory)));
  info.Field("maxmemory_policy", engine.config().Get(*Config::Find("maxmemory-policy")));
  info.Field("allocator_frag_ratio", "1.00");
  info.Field("allocator_frag_bytes", "0");
  info.Field("allocator_rss_ratio", Fixed(used > 0 ? rss / used : 0, 2));
  info.Field("allocator_rss_bytes", static_cast<int64_t>(rss - used));
  info.Field("rss_overhead_ratio", "1.00");
  info.Field("rss_overhead_bytes", "0");
  info.Field("mem_fragmentation_ratio", Fixed(used > 0 ? rss / used : 0, 2));
  info.Field("mem_fragmentation_bytes", static_cast<int64_t>(rss - used));
  info.Fields({"mem_not_counted_for_evict", "mem_replication_backlog",
               "mem_total_replication_buffers", "mem_clients_slaves"},
              "0");
  info.Field("mem_clients_normal",
             static_cast<uint64_t>(memory.used_bytes(MemoryUse::kQueryBuffers) +
                                   memory.used_bytes(MemoryUse::kReplyBuffers)));
  info.Fields({"mem_cluster_links", "mem_aof_buffer"}, "0");
  info.Field("mem_allocator", "libc");
  info.Fields({"active_defrag_running", "lazyfree_pending_objects", "lazyfreed_objects"}, "0");
}

// Unix seconds of the last successful save (INFO rdb_last_save_time, LASTSAVE). Like Redis, a
// server that never saved counts its start as one.
int64_t LastSaveTimeS(const Engine& engine) { return engine.persistence().last_save_s(); }

void PersistenceSection(CommandContext& context, InfoWriter& info) {
  Engine& engine = context.server();
  const Persistence& persistence = engine.persistence();
  info.Section("Persistence");
  info.Fields(
      {"loading", "async_loading", "current_cow_peak", "current_cow_size", "current_cow_size_age"},
      "0");
  info.Field("current_fork_perc", "0.00");
  info.Field("current_save_keys_processed", persistence.current_keys_processed());
  info.Field("current_save_keys_total", persistence.current_keys_total());
  // Redis's server.dirty: the keyspace counts every change its write path makes.
  info.Field("rdb_changes_since_last_save", engine.keyspace().dirty());
  info.Field("rdb_bgsave_in_progress", persistence.background_save_in_progress() ? "1" : "0");
  info.Field("rdb_last_save_time", LastSaveTimeS(engine));
  info.Field("rdb_last_bgsave_status", persistence.last_save_ok() ? "ok" : "err");
  info.Field("rdb_last_bgsave_time_sec", persistence.last_save_duration_s());
  info.Field("rdb_current_bgsave_time_sec", persistence.current_save_duration_s());
  info.Field("rdb_saves", persistence.saves());
  // No fork, so no copy-on-write pages.
  info.Field("rdb_last_cow_size", "0");
  info.Field("rdb_last_load_keys_expired", persistence.last_load_keys_expired());
  info.Field("rdb_last_load_keys_loaded", persistence.last_load_keys_loaded());
  const Aof& aof = engine.aof();
  info.Field("aof_enabled", aof.enabled() ? "1" : "0");
  info.Field("aof_rewrite_in_progress", aof.rewrite_in_progress() ? "1" : "0");
  info.Field("aof_rewrite_scheduled", aof.rewrite_scheduled() ? "1" : "0");
  info.Field("aof_last_rewrite_time_sec", aof.last_rewrite_duration_s());
  info.Field("aof_current_rewrite_time_sec", aof.current_rewrite_duration_s());
  info.Field("aof_last_bgrewrite_status", aof.last_rewrite_ok() ? "ok" : "err");
  info.Field("aof_rewrites", aof.rewrites());
  info.Field("aof_rewrites_consecutive_failures", aof.rewrite_failures());
  info.Field("aof_last_write_status", aof.last_write_ok() ? "ok" : "err");
  info.Fields({"aof_last_cow_size", "module_fork_in_progress", "module_fork_last_cow_size"}, "0");
  if (aof.enabled()) {
    info.Field("aof_current_size", aof.current_size());
    info.Field("aof_base_size", aof.base_size());
    info.Field("aof_pending_rewrite", aof.rewrite_scheduled() ? "1" : "0");
    info.Field("aof_buffer_length", static_cast<uint64_t>(aof.buffer_length()));
    info.Field("aof_pending_bio_fsync", static_cast<uint64_t>(aof.pending_fsyncs()));
    info.Field("aof_delayed_fsync", "0");
  }
}

void StatsSection(CommandContext& context, InfoWriter& info) {
  const ServerStats& stats = context.server().stats();
  const KeyspaceStats& keyspace_stats = context.keyspace.stats();
  info.Section("Stats");
  info.Field("total_connections_received", stats.total_connections_received);
  info.Field("total_commands_processed", stats.total_commands_processed);
  info.Field("instantaneous_ops_per_sec", stats.ops_rate.PerSecond());
  info.Field("total_net_input_bytes", stats.total_net_input_bytes);
  info.Field("total_net_output_bytes", stats.total_net_output_bytes);
  info.Fields({"total_net_repl_input_bytes", "total_net_repl_output_bytes"}, "0");
  info.Field("instantaneous_input_kbps",
             Fixed(static_cast<double>(stats.input_rate.PerSecond()) / 1024, 2));
  info.Field("instantaneous_output_kbps",
             Fixed(static_cast<double>(stats.output_rate.PerSecond()) / 1024, 2));
  info.Fields({"instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps"}, "0.00");
  info.Field("rejected_connections", stats.rejected_connections);
  const Replication& replication = context.server().replication();
  info.Field("sync_full", replication.sync_full());
  info.Field("sync_partial_ok", replication.sync_partial_ok());
  info.Field("sync_partial_err", replication.sync_partial_err());
  info.Field("expired_keys", keyspace_stats.expired_keys);
  // Redis 7.4's count of hash fields expired (Keel has its per-field TTLs).
  info.Field("expired_subkeys", keyspace_stats.expired_subkeys);
  info.Field("expired_stale_perc", "0.00");
  info.Fields({"expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds"}, "0");
  info.Field("evicted_keys", keyspace_stats.evicted_keys);
  info.Fields({"evicted_clients", "total_eviction_exceeded_time", "current_eviction_exceeded_time"},
              "0");
  info.Field("keyspace_hits", keyspace_stats.keyspace_hits);
  info.Field("keyspace_misses", keyspace_stats.keyspace_misses);
  const PubSub& pubsub = context.server().pubsub();
  info.Field("pubsub_channels", static_cast<uint64_t>(pubsub.channel_count()));
  info.Field("pubsub_patterns", static_cast<uint64_t>(pubsub.pattern_count()));
  info.Field("pubsubshard_channels", static_cast<uint64_t>(pubsub.shard_channel_count()));
  info.Fields(
      {"latest_fork_usec", "total_forks", "migrate_cached_sockets", "slave_expires_tracked_keys",
       "active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits",
       "active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time"},
      "0");
  const Tracking& tracking = context.server().tracking();
  info.Field("tracking_total_keys", static_cast<uint64_t>(tracking.total_keys()));
  info.Field("tracking_total_items", static_cast<uint64_t>(tracking.total_items()));
  info.Field("tracking_total_prefixes", static_cast<uint64_t>(tracking.total_prefixes()));
  info.Field("unexpected_error_replies", stats.unexpected_error_replies);
  info.Field("total_error_replies", stats.total_error_replies);
  info.Field("dump_payload_sanitizations", "0");
  // Reads and writes on client connections, counted by the Server loop as Redis counts its read
  // and write handler calls.
  info.Field("total_reads_processed", stats.total_reads_processed);
  info.Field("total_writes_processed", stats.total_writes_processed);
  // Keel has no I/O threads, and its pooled reply chunks are never resized.
  info.Fields({"io_threaded_reads_processed", "io_threaded_writes_processed",
               "reply_buffer_shrinks", "reply_buffer_expands"},
              "0");
}

void ReplicationSection(CommandContext& context, InfoWriter& info) {
  info.Section("Replication");
  info.Field("role", context.server().replication().is_replica() ? "slave" : "master");
  for (const auto& [name, value] : context.server().replication().InfoFields()) {
    info.Field(name, value);
  }
}

void CpuSection(CommandContext& context, InfoWriter& info) {
  const ProcessInfo process = context.server().env().Process();
  const double system_s = static_cast<double>(process.cpu_system_us) / 1e6;
  const double user_s = static_cast<double>(process.cpu_user_us) / 1e6;
  info.Section("CPU");
  info.Field("used_cpu_sys", Fixed(system_s, 6));
  info.Field("used_cpu_user", Fixed(user_s, 6));
  info.Field("used_cpu_sys_children", "0.000000");
  info.Field("used_cpu_user_children", "0.000000");
  info.Field("used_cpu_sys_main_thread", Fixed(system_s, 6));
  info.Field("used_cpu_user_main_thread", Fixed(user_s, 6));
}

void CommandStatsSection(CommandContext& context, InfoWriter& info) {
  info.Section("Commandstats");
  const ServerStats& stats = context.server().stats();
  for (const CommandSpec* spec : context.server().registry().all()) {
    const CommandStats& command = stats.commands[spec->id];
    if (command.calls == 0 && command.rejected_calls == 0 && command.failed_calls == 0) continue;
    const double per_call =
        command.calls ? static_cast<double>(command.usec) / static_cast<double>(command.calls) : 0;
    info.Field("cmdstat_" + spec->full_name,
               "calls=" + Int64ToString(static_cast<int64_t>(command.calls)) +
                   ",usec=" + Int64ToString(static_cast<int64_t>(command.usec)) +
                   ",usec_per_call=" + Fixed(per_call, 2) + ",rejected_calls=" +
                   Int64ToString(static_cast<int64_t>(command.rejected_calls)) +
                   ",failed_calls=" + Int64ToString(static_cast<int64_t>(command.failed_calls)));
  }
}

void ErrorStatsSection(CommandContext& context, InfoWriter& info) {
  info.Section("Errorstats");
  for (const auto& [code, count] : context.server().stats().errors) {
    info.Field("errorstat_" + code, "count=" + Int64ToString(static_cast<int64_t>(count)));
  }
}

// Redis's trimDoubleString over "%f": "50", "99.9".
std::string PercentileLabel(double percentile) {
  std::string text = Fixed(percentile, 6);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

void LatencyStatsSection(CommandContext& context, InfoWriter& info) {
  // The percentiles of latency-tracking-info-percentiles for every command with a histogram;
  // only the title while latency-tracking is off.
  info.Section("Latencystats");
  const ConfigValues& settings = context.server().settings();
  if (!settings.latency_tracking) return;
  const auto& commands = context.server().stats().commands;
  for (const CommandSpec* spec : context.server().registry().all()) {
    const LatencyHistogram* histogram = commands[spec->id].latency.get();
    if (histogram == nullptr) continue;
    std::string value;
    for (double percentile : settings.latency_tracking_info_percentiles) {
      if (!value.empty()) value += ',';
      value += 'p' + PercentileLabel(percentile) + '=' +
               Fixed(static_cast<double>(histogram->ValueAtPercentile(percentile)) / 1000.0, 3);
    }
    info.Field("latency_percentiles_usec_" + spec->full_name, value);
  }
}

void KeyspaceSection(CommandContext& context, InfoWriter& info) {
  info.Section("Keyspace");
  for (int i = 0; i < context.server().database_count(); i++) {
    const Database& db = context.server().database(i);
    if (db.size() == 0) continue;
    info.Field("db" + Int64ToString(i),
               "keys=" + Int64ToString(static_cast<int64_t>(db.size())) + ",expires=" +
                   Int64ToString(static_cast<int64_t>(db.expires_count())) + ",avg_ttl=0");
  }
}

struct Section {
  std::string_view name;
  bool in_default;
  void (*write)(CommandContext&, InfoWriter&);
};

constexpr Section kSections[] = {
    {"server", true, ServerSection},
    {"clients", true, ClientsSection},
    {"memory", true, MemorySection},
    {"persistence", true, PersistenceSection},
    {"stats", true, StatsSection},
    {"replication", true, ReplicationSection},
    {"cpu", true, CpuSection},
    {"modules", true, [](CommandContext&, InfoWriter& info) { info.Section("Modules"); }},
    {"commandstats", false, CommandStatsSection},
    {"errorstats", true, ErrorStatsSection},
    {"latencystats", false, LatencyStatsSection},
    {"cluster", true,
     [](CommandContext&, InfoWriter& info) {
       info.Section("Cluster");
       info.Field("cluster_enabled", "0");
     }},
    {"keyspace", true, KeyspaceSection},
};

void CmdInfo(CommandContext& context) {
  // INFO [section ...]: no argument or "default" gives the default sections, "all" and
  // "everything" every section (they differ only in sections that modules generate); unknown
  // names select nothing.
  bool selected[std::size(kSections)] = {};
  if (context.argc() == 1) {
    for (size_t i = 0; i < std::size(kSections); i++) selected[i] = kSections[i].in_default;
  }
  for (size_t a = 1; a < context.argc(); a++) {
    const std::string_view name = context.arg(a);
    for (size_t i = 0; i < std::size(kSections); i++) {
      const bool everything = OptionIs(name, "all") || OptionIs(name, "everything");
      if (everything || (OptionIs(name, "default") && kSections[i].in_default) ||
          OptionIs(name, kSections[i].name)) {
        selected[i] = true;
      }
    }
  }
  InfoWriter info;
  for (size_t i = 0; i < std::size(kSections); i++) {
    if (selected[i]) kSections[i].write(context, info);
  }
  context.reply.Verbatim(info.text());
}

void CmdLastsave(CommandContext& context) {
  context.reply.Integer(LastSaveTimeS(context.server()));
}

void CmdShutdown(CommandContext& context) {
  // SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: saves first with SAVE, or with save rules
  // unless NOSAVE; ABORT has no shutdown in progress to cancel (Keel waits for no replica). As
  // in Redis, each flag may repeat, ABORT excludes the others, and NOSAVE excludes SAVE.
  bool abort = false;
  bool save = false;
  bool nosave = false;
  bool force = false;
  bool other = false;  // NOW
  for (size_t i = 1; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    if (OptionIs(option, "ABORT")) {
      abort = true;
    } else if (OptionIs(option, "NOSAVE")) {
      nosave = true;
    } else if (OptionIs(option, "SAVE")) {
      save = true;
    } else if (OptionIs(option, "FORCE")) {
      force = true;
    } else if (OptionIs(option, "NOW")) {
      other = true;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  if ((abort && (save || nosave || force || other)) || (save && nosave)) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  if (abort) {
    context.reply.Error("ERR No shutdown in progress.");
    return;
  }
  Engine& engine = context.server();
  if (!nosave && engine.busy() != BusyKind::kNone) {
    context.reply.Error(engine.busy() == BusyKind::kEval ? Engine::kBusyEval
                                                         : Engine::kBusyFunction);
    return;
  }
  Persistence& persistence = engine.persistence();
  if (save || (!nosave && !engine.settings().save_rules.empty())) {
    // Redis's prepareForShutdown: a background save gives way to the final, foreground one.
    persistence.AbortSave("Stopping the running save: a final save for the shutdown replaces it");
    persistence.set_shutdown_force(force);
    engine.Log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
    const std::string error =
        persistence.StartSave(Persistence::Trigger::kShutdown, &context.client);
    if (!error.empty() || !persistence.save_in_progress()) {
      if (!force) {
        engine.Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
        context.reply.Error("ERR Errors trying to SHUTDOWN. Check logs.");
        return;
      }
    } else {
      // The server stops once the file is durable (Engine::EndPersistenceWait).
      engine.WaitForSave(context.client);
      return;
    }
  }
  // The server loop logs "User requested shutdown..." once it stops, as for a signal.
  engine.RequestShutdown();
  // Redis closes the connection without a reply on success.
  context.client.flags |= kClientCloseAfterReply;
}

constexpr CommandDef kServerCommands[] = {
    {.name = "info",
     .arity = -1,
     .flags = "loading stale",
     .acl = "@dangerous",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Get information and statistics about the server",
     .args = "?*section:string",
     .handler = CmdInfo,
     .history = "7.0.0 Added support for taking multiple section arguments.",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "lastsave",
     .arity = 1,
     .flags = "loading stale fast",
     .acl = "@admin @dangerous",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Get the UNIX time stamp of the last successful save to disk",
     .args = "",
     .handler = CmdLastsave,
     .tips = "nondeterministic_output"},
    {.name = "shutdown",
     .arity = -1,
     .flags = "admin noscript loading stale no_multi allow_busy",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "O(N) when saving, where N is the total number of keys in all databases when "
                   "saving data, otherwise O(1)",
     .summary = "Synchronously save the dataset to disk and then shut down the server",
     .args = "?nosave_save:oneof{nosave=NOSAVE save=SAVE} ?now=NOW@7.0.0 ?force=FORCE@7.0.0 "
             "?abort=ABORT@7.0.0",
     .handler = CmdShutdown,
     .history = "7.0.0 Added the `NOW`, `FORCE` and `ABORT` modifiers."},
};

}  // namespace

void RegisterServerCommands(Registry& registry) { registry.Add(kServerCommands); }

}  // namespace keel
