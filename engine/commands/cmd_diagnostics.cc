// Server diagnostics: TIME, MONITOR, SLOWLOG GET/LEN/RESET/HELP and LATENCY LATEST/HISTORY/RESET/
// HISTOGRAM/DOCTOR/GRAPH/HELP. The records themselves are kept by the Engine (Engine::AccountCall
// feeds the slow log, the latency monitor, the per-command histograms and MONITOR clients).
#include <iterator>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/server/latency_report.h"

namespace keel {
namespace {

void CmdTime(CommandContext& context) {
  // The command-time snapshot, as seconds and microseconds, both as bulk strings.
  const int64_t now_us = context.server().wall_us();
  context.reply.ArrayHeader(2);
  context.reply.Bulk(Int64ToString(now_us / 1000000));
  context.reply.Bulk(Int64ToString(now_us % 1000000));
}

void CmdMonitor(CommandContext& context) {
  // A transaction's client expects one reply per command, so it cannot turn into a monitor
  // (Redis checks CLIENT_DENY_BLOCKING, which EXEC sets).
  if (!context.may_block()) {
    context.reply.Error("ERR MONITOR isn't allowed for DENY BLOCKING client");
    return;
  }
  // A second MONITOR gets no reply at all, as in Redis (which ignores it for a replica).
  if (context.client.flags & kClientMonitor) return;
  context.server().AddMonitor(&context.client);
  context.reply.Ok();
}

void ReplyHelp(ReplyBuilder& reply, std::span<const std::string_view> lines) {
  reply.ArrayHeader(lines.size());
  for (std::string_view line : lines) reply.SimpleString(line);
}

// --- SLOWLOG ---------------------------------------------------------------------------------

void CmdSlowlogGet(CommandContext& context) {
  if (context.argc() > 3) {
    context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
    return;
  }
  const auto& entries = context.server().slowlog().entries();
  int64_t count = 10;
  if (context.argc() == 3) {
    if (!ParseStrictInt64(context.arg(2), &count) || count < -1) {
      context.reply.Error("ERR count should be greater than or equal to -1");
      return;
    }
    if (count == -1) count = static_cast<int64_t>(entries.size());
  }
  const size_t shown =
      static_cast<uint64_t>(count) < entries.size() ? static_cast<size_t>(count) : entries.size();
  ReplyBuilder& reply = context.reply;
  reply.ArrayHeader(shown);
  for (size_t i = 0; i < shown; i++) {
    const SlowLog::Entry& entry = entries[i];
    reply.ArrayHeader(6);
    reply.Integer(static_cast<int64_t>(entry.id));
    reply.Integer(entry.time_s);
    reply.Integer(entry.duration_us);
    reply.ArrayHeader(entry.args.size());
    for (const std::string& arg : entry.args) reply.Bulk(arg);
    reply.Bulk(entry.peer);
    reply.Bulk(entry.client_name);
  }
}

void CmdSlowlogLen(CommandContext& context) {
  context.reply.Integer(static_cast<int64_t>(context.server().slowlog().entries().size()));
}

void CmdSlowlogReset(CommandContext& context) {
  context.server().slowlog().Reset();
  context.reply.Ok();
}

void CmdSlowlogHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(context.reply, kLines);
}

// --- LATENCY ---------------------------------------------------------------------------------

void CmdLatencyLatest(CommandContext& context) {
  // Events in name order (Redis walks a hash table: the order is unspecified).
  const auto& events = context.server().latency_monitor().events();
  ReplyBuilder& reply = context.reply;
  reply.ArrayHeader(events.size());
  for (const auto& [name, series] : events) {
    reply.ArrayHeader(4);
    reply.Bulk(name);
    reply.Integer(series.latest().time_s);
    reply.Integer(series.latest().latency_ms);
    reply.Integer(series.max_ms);
  }
}

void CmdLatencyHistory(CommandContext& context) {
  const LatencyMonitor::Series* series = context.server().latency_monitor().Find(context.arg(2));
  ReplyBuilder& reply = context.reply;
  if (series == nullptr) {
    reply.EmptyArray();
    return;
  }
  // Oldest first, skipping the slots never used.
  size_t used = 0;
  for (const LatencyMonitor::Sample& sample : series->samples) used += sample.time_s != 0;
  reply.ArrayHeader(used);
  for (size_t j = 0; j < LatencyMonitor::kSamplesMax; j++) {
    const LatencyMonitor::Sample& sample =
        series->samples[(series->next + j) % LatencyMonitor::kSamplesMax];
    if (sample.time_s == 0) continue;
    reply.ArrayHeader(2);
    reply.Integer(sample.time_s);
    reply.Integer(sample.latency_ms);
  }
}

void CmdLatencyReset(CommandContext& context) {
  LatencyMonitor& monitor = context.server().latency_monitor();
  if (context.argc() == 2) {
    context.reply.Integer(monitor.ResetAll());
    return;
  }
  int64_t resets = 0;
  for (size_t i = 2; i < context.argc(); i++) resets += monitor.Reset(context.arg(i));
  context.reply.Integer(resets);
}

void ReplyCommandHistogram(ReplyBuilder& reply, const CommandSpec& spec,
                           const LatencyHistogram& histogram) {
  reply.Bulk(spec.full_name);
  reply.MapHeader(2);
  reply.Bulk("calls");
  reply.Integer(static_cast<int64_t>(histogram.total_count()));
  reply.Bulk("histogram_usec");
  const auto points = histogram.CumulativeDistribution();
  reply.MapHeader(points.size());
  for (const auto& [micros, cumulative] : points) {
    reply.Integer(micros);
    reply.Integer(static_cast<int64_t>(cumulative));
  }
}

void CmdLatencyHistogram(CommandContext& context) {
  // Every command with a histogram, or those named ("client" names all its subcommands;
  // unknown names are skipped), in registration order (Redis's is its hash table's).
  const auto& commands = context.server().stats().commands;
  std::vector<const CommandSpec*> chosen;
  auto add = [&](const CommandSpec* spec) {
    if (commands[spec->id].latency != nullptr) chosen.push_back(spec);
  };
  if (context.argc() == 2) {
    for (const CommandSpec* spec : context.server().registry().all()) add(spec);
  } else {
    for (size_t i = 2; i < context.argc(); i++) {
      const CommandSpec* spec = context.server().registry().FindByFullName(context.arg(i));
      if (spec == nullptr) continue;
      add(spec);
      for (const auto& sub : spec->subcommands) add(sub.get());
    }
  }
  context.reply.MapHeader(chosen.size());
  for (const CommandSpec* spec : chosen) {
    ReplyCommandHistogram(context.reply, *spec, *commands[spec->id].latency);
  }
}

void CmdLatencyDoctor(CommandContext& context) {
  const ConfigValues& config = context.config();
  const LatencyDoctorSettings settings{
      .latency_monitor_threshold_ms = config.latency_monitor_threshold_ms,
      .slowlog_log_slower_than_us = config.slowlog_log_slower_than,
      .appendfsync_always = config.appendfsync == 1,
      .hz = config.hz};
  context.reply.Verbatim(LatencyDoctorReport(context.server().latency_monitor(), settings,
                                             context.server().wall_ms() / 1000));
}

void CmdLatencyGraph(CommandContext& context) {
  const LatencyMonitor::Series* series = context.server().latency_monitor().Find(context.arg(2));
  if (series == nullptr) {
    context.reply.Error("ERR No samples available for event '" + std::string(context.arg(2)) + "'");
    return;
  }
  context.reply.Verbatim(LatencyGraph(context.arg(2), *series, context.server().wall_ms() / 1000));
}

void CmdLatencyHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(context.reply, kLines);
}

constexpr CommandDef kDiagnosticCommands[] = {
    {.name = "time",
     .arity = 1,
     .flags = "loading stale fast",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Return the current server time",
     .args = "",
     .handler = CmdTime,
     .tips = "nondeterministic_output"},
    {.name = "monitor",
     .arity = 1,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "",
     .summary = "Listen for all requests received by the server in real time",
     .args = "",
     .handler = CmdMonitor},
    {.name = "slowlog",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.2.12",
     .complexity = "Depends on subcommand.",
     .summary = "A container for slow log commands",
     .args = "",
     .handler = nullptr},
    {.name = "slowlog|get",
     .arity = -2,
     .flags = "admin loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.2.12",
     .complexity = "O(N) where N is the number of entries returned",
     .summary = "Get the slow log's entries",
     .args = "?count:integer",
     .handler = CmdSlowlogGet,
     .history = "4.0.0 Added client IP address, port and name to the reply.",
     .tips = "request_policy:all_nodes nondeterministic_output"},
    {.name = "slowlog|len",
     .arity = 2,
     .flags = "admin loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.2.12",
     .complexity = "O(1)",
     .summary = "Get the slow log's length",
     .args = "",
     .handler = CmdSlowlogLen,
     .tips = "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
    {.name = "slowlog|reset",
     .arity = 2,
     .flags = "admin loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.2.12",
     .complexity = "O(N) where N is the number of entries in the slowlog",
     .summary = "Clear all entries from the slow log",
     .args = "",
     .handler = CmdSlowlogReset,
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "slowlog|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdSlowlogHelp},
    {.name = "latency",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "Depends on subcommand.",
     .summary = "A container for latency diagnostics commands",
     .args = "",
     .handler = nullptr},
    {.name = "latency|latest",
     .arity = 2,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Return the latest latency samples for all events.",
     .args = "",
     .handler = CmdLatencyLatest,
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "latency|history",
     .arity = 3,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Return timestamp-latency samples for the event.",
     .args = "event",
     .handler = CmdLatencyHistory,
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "latency|doctor",
     .arity = 2,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Return a human readable latency analysis report.",
     .args = "",
     .handler = CmdLatencyDoctor,
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "latency|graph",
     .arity = 3,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Return a latency graph for the event.",
     .args = "event",
     .handler = CmdLatencyGraph,
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "latency|reset",
     .arity = -2,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Reset latency data for one or more events.",
     .args = "?*event",
     .handler = CmdLatencyReset,
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "latency|histogram",
     .arity = -2,
     .flags = "admin noscript loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "7.0.0",
     .complexity = "O(N) where N is the number of commands with latency information being "
                   "retrieved.",
     .summary = "Return the cumulative distribution of latencies of a subset of commands or all.",
     .args = "?*command",
     .handler = CmdLatencyHistogram,
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "latency|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "2.8.13",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands.",
     .args = "",
     .handler = CmdLatencyHelp},
};

}  // namespace

void RegisterDiagnosticCommands(Registry& registry) { registry.Add(kDiagnosticCommands); }

}  // namespace keel
