// INFO and SHUTDOWN. Section names and field names were checked against redis-server 7.0.15;
// conformance/cases/info.txt compares every section's field names in order.
#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ServerCommandsTest : public CommandTest {
 protected:
  // The "# Title" lines of an INFO reply, in order.
  std::vector<std::string> Sections(const RespValue& info) {
    std::vector<std::string> titles;
    size_t start = 0;
    while (start < info.text.size()) {
      size_t end = info.text.find("\r\n", start);
      if (end == std::string::npos) end = info.text.size();
      if (info.text.compare(start, 2, "# ") == 0) {
        titles.push_back(info.text.substr(start + 2, end - start - 2));
      }
      start = end + 2;
    }
    return titles;
  }

  static bool HasField(const RespValue& info, std::string_view name) {
    return info.text.find("\r\n" + std::string(name) + ":") != std::string::npos ||
           info.text.starts_with(std::string(name) + ":");
  }

  using Titles = std::vector<std::string>;
};

TEST_F(ServerCommandsTest, InfoDefaultSections) {
  const Titles expected = {"Server",     "Clients",     "Memory",  "Persistence",
                           "Stats",      "Replication", "CPU",     "Modules",
                           "Errorstats", "Cluster",     "Keyspace"};
  EXPECT_EQ(Sections(Run({"info"})), expected);
  EXPECT_EQ(Sections(Run({"info", "default"})), expected);
}

TEST_F(ServerCommandsTest, InfoAllAndEverythingAreEverySection) {
  // Redis 7.0's sections for "all" and "everything".
  const Titles all = {"Server",       "Clients", "Memory",  "Persistence",  "Stats",
                      "Replication",  "CPU",     "Modules", "Commandstats", "Errorstats",
                      "Latencystats", "Cluster", "Keyspace"};
  EXPECT_EQ(Sections(Run({"info", "all"})), all);
  EXPECT_EQ(Sections(Run({"info", "everything"})), all);
}

TEST_F(ServerCommandsTest, InfoSelectsSectionsByNameInTableOrder) {
  EXPECT_EQ(Sections(Run({"info", "server"})), Titles{"Server"});
  EXPECT_EQ(Sections(Run({"info", "KEYSPACE"})), Titles{"Keyspace"});
  EXPECT_EQ(Sections(Run({"info", "commandstats"})), Titles{"Commandstats"});
  // Several names give those sections once each, in INFO's own order.
  EXPECT_EQ(Sections(Run({"info", "keyspace", "server", "server"})),
            (Titles{"Server", "Keyspace"}));
  EXPECT_EQ(Sections(Run({"info", "foo"})), Titles{});
  EXPECT_EQ(Run({"info", "foo"}), Bulk(""));
  EXPECT_EQ(Sections(Run({"info", "foo", "cpu"})), Titles{"CPU"});
  EXPECT_EQ(Sections(Run({"info", "default", "commandstats"})).size(), 12u);
}

TEST_F(ServerCommandsTest, InfoIsVerbatimInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"info", "server"}).type, RespType::kVerbatim);
}

TEST_F(ServerCommandsTest, InfoHasRedisFieldNames) {
  const RespValue info = Run({"info", "everything"});
  for (std::string_view name : {"redis_version",
                                "run_id",
                                "tcp_port",
                                "connected_clients",
                                "used_memory",
                                "used_memory_peak",
                                "used_memory_dataset_perc",
                                "allocator_frag_ratio",
                                "number_of_cached_scripts",
                                "mem_clients_normal",
                                "mem_allocator",
                                "lazyfreed_objects",
                                "rdb_last_save_time",
                                "aof_rewrites_consecutive_failures",
                                "module_fork_last_cow_size",
                                "total_net_repl_input_bytes",
                                "expired_stale_perc",
                                "evicted_clients",
                                "pubsubshard_channels",
                                "total_error_replies",
                                "reply_buffer_expands",
                                "role",
                                "master_replid",
                                "used_cpu_sys",
                                "cluster_enabled"}) {
    EXPECT_TRUE(HasField(info, name)) << name;
  }
  // Fields of later Redis versions are not in 7.0's INFO.
  EXPECT_FALSE(HasField(info, "client_query_buffer_limit_disconnections"));
  EXPECT_FALSE(HasField(info, "client_output_buffer_limit_disconnections"));
}

TEST_F(ServerCommandsTest, InfoKeyspaceCountsKeysAndExpiries) {
  EXPECT_EQ(Run({"info", "keyspace"}), Bulk("# Keyspace\r\n"));
  Run({"set", "a", "1"});
  Run({"set", "b", "2", "ex", "100"});
  Run({"select", "3"});
  Run({"set", "c", "3"});
  const std::string text = Run({"info", "keyspace"}).text;
  // avg_ttl is left out: Redis estimates it while it expires keys actively.
  EXPECT_TRUE(text.starts_with("# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=")) << text;
  EXPECT_NE(text.find("\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n"), std::string::npos) << text;
}

TEST_F(ServerCommandsTest, InfoCommandstatsAndErrorstats) {
  Run({"get", "k"});
  Run({"get"});
  Run({"set", "k", "v", "ex", "0"});
  const RespValue stats = Run({"info", "commandstats", "errorstats"});
  EXPECT_NE(stats.text.find("cmdstat_get:calls=1,usec="), std::string::npos) << stats.text;
  EXPECT_NE(stats.text.find(",rejected_calls=1,failed_calls=0\r\n"), std::string::npos);
  EXPECT_NE(stats.text.find("cmdstat_set:calls=1,"), std::string::npos);
  EXPECT_NE(stats.text.find("errorstat_ERR:count=2\r\n"), std::string::npos) << stats.text;
}

TEST_F(ServerCommandsTest, InfoLatencystatsPercentiles) {
  // Commands take no time in the simulator: 0 µs is recorded as 1 ns, printed "0.001".
  EXPECT_EQ(Run({"info", "latencystats"}), Bulk("# Latencystats\r\n"));
  Run({"ping"});
  Run({"client", "id"});
  EXPECT_EQ(Run({"info", "latencystats"}),
            Bulk("# Latencystats\r\n"
                 "latency_percentiles_usec_ping:p50=0.001,p99=0.001,p99.9=0.001\r\n"
                 "latency_percentiles_usec_client|id:p50=0.001,p99=0.001,p99.9=0.001\r\n"
                 "latency_percentiles_usec_info:p50=0.001,p99=0.001,p99.9=0.001\r\n"));
  EXPECT_EQ(Run({"config", "set", "latency-tracking-info-percentiles", "0 12.5 100"}), Ok());
  EXPECT_NE(Run({"info", "latencystats"})
                .text.find("latency_percentiles_usec_ping:p0=0.001,p12.5=0.001,p100=0.001\r\n"),
            std::string::npos);
  EXPECT_EQ(Run({"config", "set", "latency-tracking-info-percentiles", ""}), Ok());
  EXPECT_NE(Run({"info", "latencystats"}).text.find("latency_percentiles_usec_ping:\r\n"),
            std::string::npos);
  // Tracking off: only the title, and nothing more is recorded.
  EXPECT_EQ(Run({"config", "set", "latency-tracking", "no"}), Ok());
  EXPECT_EQ(Run({"info", "latencystats"}), Bulk("# Latencystats\r\n"));
  Run({"echo", "x"});
  EXPECT_EQ(Run({"config", "set", "latency-tracking", "yes"}), Ok());
  EXPECT_EQ(Run({"info", "latencystats"}).text.find("usec_echo"), std::string::npos);
}

TEST_F(ServerCommandsTest, InfoMemoryStartupPeakAndSystemMemory) {
  const auto field = [this](std::string_view name) {
    const std::string text = Run({"info", "memory"}).text;
    const std::string key = "\r\n" + std::string(name) + ":";
    const size_t at = text.find(key);
    EXPECT_NE(at, std::string::npos) << name;
    const size_t begin = at + key.size();
    return text.substr(begin, text.find("\r\n", begin) - begin);
  };
  // What the engine held once built (its databases allocate lazily, so this may be 0).
  EXPECT_EQ(field("used_memory_startup"), std::to_string(engine_->startup_memory_bytes()));
  EXPECT_LE(engine_->startup_memory_bytes(), engine_->peak_memory_bytes());
  Run({"set", "big", std::string(200000, 'x')});
  Run({"del", "big"});
  const uint64_t used = std::stoull(field("used_memory"));
  const uint64_t peak = std::stoull(field("used_memory_peak"));
  EXPECT_GE(peak, used + 200000);
  EXPECT_EQ(peak, engine_->peak_memory_bytes());
  // CONFIG RESETSTAT leaves the peak alone, as Redis 7.0 does.
  Run({"config", "resetstat"});
  EXPECT_EQ(std::stoull(field("used_memory_peak")), peak);
  // The simulator does not tell the machine's memory size: 0, as Redis reports it then.
  EXPECT_EQ(field("total_system_memory"), "0");
  EXPECT_EQ(field("total_system_memory_human"), "0B");
}

class InfoServerTest : public ServerTest {
 protected:
  std::string StatsField(sim::SimClientId client, std::string_view name) {
    const std::string text = Exchange(client, Request({"info", "stats"})).at(0).text;
    const std::string key = "\r\n" + std::string(name) + ":";
    const size_t begin = text.find(key) + key.size();
    return text.substr(begin, text.find("\r\n", begin) - begin);
  }
};

TEST_F(InfoServerTest, RecentMaxBuffersAreTheLargestOfTheLastSeconds) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId sender = Connect();
  const sim::SimClientId reader = Connect();
  const auto clients_field = [&](std::string_view name) {
    const std::string text = Exchange(admin, Request({"info", "clients"})).at(0).text;
    const std::string key = "\r\n" + std::string(name) + ":";
    const size_t begin = text.find(key) + key.size();
    return std::stoull(text.substr(begin, text.find("\r\n", begin) - begin));
  };
  EXPECT_EQ(clients_field("client_recent_max_input_buffer"), 0u);
  // Half of a 100 KB argument waits in the sender's query buffer; the reader does not read a
  // 200 KB reply.
  env_.sim_network().Send(sender, "*2\r\n$4\r\necho\r\n$100000\r\n" + std::string(50000, 'x'));
  env_.sim_network().set_client_buffer_bytes_max(1000);
  env_.sim_network().Send(reader, Request({"echo", std::string(200000, 'y')}));
  Settle();
  EXPECT_GE(clients_field("client_recent_max_input_buffer"), 50000u);
  EXPECT_GE(clients_field("client_recent_max_output_buffer"), 190000u);
  // Once the buffers are gone, the peaks fade within eight seconds.
  env_.sim_network().set_client_buffer_bytes_max(0);
  env_.sim_network().Send(sender, std::string(50000, 'x') + "\r\n");
  Settle();
  env_.sim_network().Receive(reader);
  env_.sim_network().Receive(sender);
  for (int second = 0; second < 9; second++) {
    env_.sim_clock().Advance(1'000'000);
    Settle();
  }
  EXPECT_EQ(clients_field("client_recent_max_input_buffer"), 0u);
  EXPECT_EQ(clients_field("client_recent_max_output_buffer"), 0u);
}

TEST_F(InfoServerTest, ReadsAndWritesProcessedAreCountedByTheLoop) {
  const sim::SimClientId client = Connect();
  EXPECT_EQ(Exchange(client, Request({"config", "resetstat"})), (std::vector<RespValue>{Ok()}));
  // The INFO command's own read counts; the RESETSTAT reply was the one write since.
  EXPECT_EQ(StatsField(client, "total_reads_processed"), "1");
  EXPECT_EQ(StatsField(client, "total_writes_processed"), "2");
  EXPECT_EQ(Exchange(client, Request({"ping"}) + Request({"ping"})),
            (std::vector<RespValue>{Status("PONG"), Status("PONG")}));
  EXPECT_EQ(StatsField(client, "total_reads_processed"), "4");
}

TEST_F(ServerCommandsTest, LastsaveIsTheStartTimeOfAServerThatNeverSaved) {
  // As redis-server 7.0.15 (which sets lastsave to time(NULL) at start): the same value as INFO
  // rdb_last_save_time, and it does not move with the clock.
  const int64_t started_s = env_.sim_clock().WallUs() / 1000000;
  AdvanceMs(5000);
  EXPECT_EQ(Run({"lastsave"}), Int(started_s));
  const RespValue info = Run({"info", "persistence"});
  EXPECT_NE(info.text.find("\r\nrdb_last_save_time:" + std::to_string(started_s) + "\r\n"),
            std::string::npos)
      << info.text;
  EXPECT_EQ(Run({"lastsave", "x"}), Err("ERR wrong number of arguments for 'lastsave' command"));
}

TEST_F(ServerCommandsTest, ShutdownAbortWithoutAShutdownInProgress) {
  for (std::vector<std::string> command : {std::vector<std::string>{"shutdown", "abort"},
                                           {"SHUTDOWN", "ABORT"},
                                           {"shutdown", "abort", "abort"}}) {
    EXPECT_EQ(Run(command), Err("ERR No shutdown in progress.")) << command.size();
  }
  EXPECT_FALSE(engine_->shutdown_requested());
}

TEST_F(ServerCommandsTest, ShutdownFlagConflictsAreSyntaxErrorsAndDoNotStop) {
  for (std::vector<std::string> command : {std::vector<std::string>{"shutdown", "nosave", "abort"},
                                           {"shutdown", "abort", "now"},
                                           {"shutdown", "abort", "force"},
                                           {"shutdown", "save", "nosave"},
                                           {"shutdown", "nosave", "save", "now"},
                                           {"shutdown", "foo"},
                                           {"shutdown", "abort", "foo"}}) {
    EXPECT_EQ(Run(command), Err("ERR syntax error")) << command.back();
    EXPECT_FALSE(engine_->shutdown_requested()) << command.back();
  }
}

TEST_F(ServerCommandsTest, ShutdownStopsWithoutAReply) {
  EXPECT_EQ(RunRaw({"shutdown", "nosave", "nosave", "now", "force"}), "");
  EXPECT_TRUE(engine_->shutdown_requested());
  EXPECT_NE(client_->flags & kClientCloseAfterReply, 0u);
}

}  // namespace
}  // namespace keel::testing
