// keel_loadgen: a small pipelined load generator for any RESP server (keel-server, redis-server).
//
//   keel_loadgen insert --port P --records N [--value-bytes 64] [--connections 4]
//                       [--pipeline 256]
//       SET of key:000000000000 ... key:<N-1> (redis-benchmark's -r key names), for memory fills
//       and for the data that reads find.
//   keel_loadgen mix --port P --records N --operations M --read-proportion R
//                    [--value-bytes 1024] [--connections 50] [--pipeline 1] [--seed S]
//                    [--distribution zipfian|uniform]
//       YCSB-like: each operation is a GET (probability R) or a SET of a record chosen by YCSB's
//       scrambled Zipfian; workload A is R=0.5, B R=0.95, C R=1.
//   Common: --host 127.0.0.1, --key-prefix key:, --key-digits 12, --timeline PATH.
//
// SIGUSR1 ends a run early: no new batch starts, the outstanding replies are read, the report is
// printed (a load that runs until the harness has measured what it runs beside). --timeline
// writes, for each read that completed replies, three little-endian uint64s: the CLOCK_MONOTONIC
// time of the read in ns, the latency in ns and the number of replies; the harness picks the
// latencies of a time window (bench/harness/snapshot.py).
//
// One thread, epoll, every connection non-blocking with TCP_NODELAY. Like redis-benchmark, each
// connection sends a batch of --pipeline commands, waits for all their replies, then sends the
// next batch; a reply's latency runs from its batch's write to the read that completed it.
// Prints one JSON object: counts, seconds, rate, latency percentiles (milliseconds), errors and,
// for reads, nulls (a read of a missing record). Exits 1 on a connection failure, a malformed
// reply or a server that stops answering; error replies are counted, not fatal.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "bench/loadgen/reply_scanner.h"
#include "bench/loadgen/workload.h"

namespace keel::loadgen {
namespace {

constexpr int kStallTimeoutMs = 30'000;  // no reply for this long: the server stopped answering
constexpr size_t kReadChunkBytes = 256 * 1024;
constexpr int kConnectionsMax = 10'000;
constexpr int kPipelineMax = 100'000;
// Latencies kept before the first growth: a run stopped by SIGUSR1 asks for far more operations
// than it sends.
constexpr size_t kLatenciesReservedMax = size_t{1} << 24;

volatile std::sig_atomic_t g_stop_requested = 0;

void RequestStop(int) { g_stop_requested = 1; }

struct Options {
  std::string mode;
  std::string host = "127.0.0.1";
  int port = 6379;
  int64_t records = 0;
  int64_t operations = 0;
  size_t value_bytes = 0;
  int connections = 0;
  int pipeline = 0;
  double read_proportion = -1;
  uint64_t seed = 1;
  bool zipfian = true;
  KeySpace keys;
  std::string timeline_path;  // empty: no timeline
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "keel_loadgen: %s\n", message.c_str());
  std::exit(1);
}

uint64_t NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(now.tv_nsec);
}

int64_t ParseInt(std::string_view name, const char* text, int64_t min, int64_t max) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
    Fail("bad value for " + std::string(name) + ": " + text);
  }
  return value;
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  if (argc < 2) Fail("usage: keel_loadgen insert|mix --port P --records N ... (see main.cc)");
  options.mode = argv[1];
  const bool insert = options.mode == "insert";
  if (!insert && options.mode != "mix") Fail("unknown mode " + options.mode);
  options.value_bytes = insert ? 64 : 1024;
  options.connections = insert ? 4 : 50;
  options.pipeline = insert ? 256 : 1;
  for (int i = 2; i < argc; i += 2) {
    const std::string_view name = argv[i];
    if (i + 1 >= argc) Fail("missing value for " + std::string(name));
    const char* value = argv[i + 1];
    if (name == "--host") {
      options.host = value;
    } else if (name == "--port") {
      options.port = static_cast<int>(ParseInt(name, value, 1, 65535));
    } else if (name == "--records") {
      options.records = ParseInt(name, value, 1, INT64_MAX / 2);
    } else if (name == "--operations") {
      options.operations = ParseInt(name, value, 1, INT64_MAX / 2);
    } else if (name == "--value-bytes") {
      options.value_bytes = static_cast<size_t>(ParseInt(name, value, 0, 512 << 20));
    } else if (name == "--connections") {
      options.connections = static_cast<int>(ParseInt(name, value, 1, kConnectionsMax));
    } else if (name == "--pipeline") {
      options.pipeline = static_cast<int>(ParseInt(name, value, 1, kPipelineMax));
    } else if (name == "--read-proportion") {
      char* end = nullptr;
      options.read_proportion = std::strtod(value, &end);
      if (end == value || *end != '\0' || !(options.read_proportion >= 0) ||
          options.read_proportion > 1) {
        Fail("bad value for --read-proportion: " + std::string(value));
      }
    } else if (name == "--seed") {
      options.seed = static_cast<uint64_t>(ParseInt(name, value, 0, INT64_MAX));
    } else if (name == "--distribution") {
      const std::string_view distribution = value;
      if (distribution != "zipfian" && distribution != "uniform") {
        Fail("--distribution is zipfian or uniform");
      }
      options.zipfian = distribution == "zipfian";
    } else if (name == "--key-prefix") {
      options.keys.prefix = value;
    } else if (name == "--timeline") {
      options.timeline_path = value;
    } else if (name == "--key-digits") {
      options.keys.digits = static_cast<int>(ParseInt(name, value, 0, 20));
    } else {
      Fail("unknown option " + std::string(name));
    }
  }
  if (options.records <= 0) Fail("--records is required");
  if (!insert && options.operations <= 0) Fail("--operations is required in mix mode");
  if (!insert && options.read_proportion < 0) Fail("--read-proportion is required in mix mode");
  return options;
}

struct Connection {
  int fd = -1;
  OpStream ops;
  std::string out;
  size_t out_sent = 0;
  std::vector<char> in;
  size_t in_used = 0;
  size_t outstanding = 0;
  uint64_t batch_start_ns = 0;
  bool write_interest = false;
  bool finished = false;
};

int Connect(const Options& options) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(options.port));
  if (inet_pton(AF_INET, options.host.c_str(), &address.sin_addr) != 1) {
    Fail("--host must be an IPv4 address: " + options.host);
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) Fail(std::string("socket: ") + std::strerror(errno));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    Fail("connect to " + options.host + ":" + std::to_string(options.port) + ": " +
         std::strerror(errno));
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

class Driver {
 public:
  explicit Driver(const Options& options) : options_(options) {}

  void Run() {
    const std::string value(options_.value_bytes, 'x');
    const bool insert = options_.mode == "insert";
    // A connection count above the work would leave idle connections; they are simply not made.
    const int64_t work = insert ? options_.records : options_.operations;
    const int count = static_cast<int>(std::min<int64_t>(options_.connections, work));
    latencies_ns_.reserve(std::min(static_cast<size_t>(work), kLatenciesReservedMax));
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) Fail(std::string("epoll_create1: ") + std::strerror(errno));
    connections_.resize(static_cast<size_t>(count));
    for (int i = 0; i < count; i++) {
      Connection& connection = connections_[static_cast<size_t>(i)];
      if (insert) {
        connection.ops = OpStream::Insert(options_.keys, value, options_.records, i, count);
      } else {
        // Each connection's share, the first ones taking the remainder; each its own seed.
        const int64_t share = options_.operations / count + (i < options_.operations % count);
        connection.ops = OpStream::Mix(options_.keys, value, options_.records, share,
                                       options_.read_proportion, options_.zipfian,
                                       options_.seed * 1'000'003ull + static_cast<uint64_t>(i));
      }
      connection.fd = Connect(options_);
      connection.in.resize(kReadChunkBytes);
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.u32 = static_cast<uint32_t>(i);
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, connection.fd, &event) != 0) {
        Fail(std::string("epoll_ctl: ") + std::strerror(errno));
      }
    }
    start_ns_ = NowNs();
    active_ = count;
    for (Connection& connection : connections_) StartBatch(connection);
    std::vector<epoll_event> events(static_cast<size_t>(count));
    while (active_ > 0) {
      const int ready = epoll_wait(epoll_fd_, events.data(), count, kStallTimeoutMs);
      if (ready < 0) {
        if (errno == EINTR) continue;
        Fail(std::string("epoll_wait: ") + std::strerror(errno));
      }
      if (ready == 0) Fail("no reply for 30 s: the server stopped answering");
      for (int i = 0; i < ready; i++) {
        Connection& connection = connections_[events[static_cast<size_t>(i)].data.u32];
        if (events[static_cast<size_t>(i)].events & EPOLLOUT) Flush(connection);
        if (events[static_cast<size_t>(i)].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
          Receive(connection);
        }
      }
    }
    end_ns_ = NowNs();
    for (Connection& connection : connections_) close(connection.fd);
    close(epoll_fd_);
  }

  void Report() {
    const double seconds = static_cast<double>(end_ns_ - start_ns_) / 1e9;
    const auto requests = static_cast<int64_t>(latencies_ns_.size());
    double sum_ns = 0;
    uint32_t max_ns = 0;
    for (const uint32_t latency : latencies_ns_) {
      sum_ns += latency;
      max_ns = std::max(max_ns, latency);
    }
    const double p50_ns = Percentile(latencies_ns_, 0.50);
    const double p99_ns = Percentile(latencies_ns_, 0.99);
    std::printf(
        "{\"mode\": \"%s\", \"requests\": %lld, \"reads\": %lld, \"updates\": %lld, "
        "\"errors\": %lld, \"read_nulls\": %lld, \"seconds\": %.6f, \"rps\": %.2f, "
        "\"avg_ms\": %.4f, \"p50_ms\": %.4f, \"p99_ms\": %.4f, \"max_ms\": %.4f, "
        "\"connections\": %d, \"pipeline\": %d, \"records\": %lld, \"value_bytes\": %zu, "
        "\"read_proportion\": %.4f, \"distribution\": \"%s\", \"seed\": %llu}\n",
        options_.mode.c_str(), static_cast<long long>(requests), static_cast<long long>(reads_),
        static_cast<long long>(updates_), static_cast<long long>(errors_),
        static_cast<long long>(read_nulls_), seconds,
        seconds > 0 ? static_cast<double>(requests) / seconds : 0.0,
        requests > 0 ? sum_ns / static_cast<double>(requests) / 1e6 : 0.0, p50_ns / 1e6,
        p99_ns / 1e6, max_ns / 1e6, static_cast<int>(connections_.size()), options_.pipeline,
        static_cast<long long>(options_.records), options_.value_bytes,
        options_.mode == "insert" ? 0.0 : options_.read_proportion,
        options_.zipfian ? "zipfian" : "uniform", static_cast<unsigned long long>(options_.seed));
  }

  // Writes the timeline (see the top of the file), if asked for.
  void WriteTimeline() const {
    if (options_.timeline_path.empty()) return;
    std::FILE* file = std::fopen(options_.timeline_path.c_str(), "wb");
    if (file == nullptr) Fail("cannot open " + options_.timeline_path);
    const size_t words = timeline_.size();
    if (words > 0 && std::fwrite(timeline_.data(), sizeof(uint64_t), words, file) != words) {
      Fail("cannot write " + options_.timeline_path);
    }
    if (std::fclose(file) != 0) Fail("cannot write " + options_.timeline_path);
  }

 private:
  void StartBatch(Connection& connection) {
    if (connection.ops.Done() || g_stop_requested) {
      connection.finished = true;
      active_--;
      return;
    }
    connection.out.clear();
    connection.out_sent = 0;
    for (int i = 0; i < options_.pipeline && !connection.ops.Done(); i++) {
      const OpKind kind = connection.ops.AppendNext(&connection.out);
      if (kind == OpKind::kRead) {
        reads_++;
      } else {
        updates_++;
      }
      connection.outstanding++;
    }
    connection.batch_start_ns = NowNs();
    Flush(connection);
  }

  void Flush(Connection& connection) {
    while (connection.out_sent < connection.out.size()) {
      const ssize_t sent = send(connection.fd, connection.out.data() + connection.out_sent,
                                connection.out.size() - connection.out_sent, MSG_NOSIGNAL);
      if (sent < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        Fail(std::string("send: ") + std::strerror(errno));
      }
      connection.out_sent += static_cast<size_t>(sent);
    }
    const bool want_write = connection.out_sent < connection.out.size();
    if (want_write != connection.write_interest) {
      epoll_event event{};
      event.events = EPOLLIN | (want_write ? EPOLLOUT : 0u);
      event.data.u32 = static_cast<uint32_t>(&connection - connections_.data());
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, connection.fd, &event) != 0) {
        Fail(std::string("epoll_ctl: ") + std::strerror(errno));
      }
      connection.write_interest = want_write;
    }
  }

  void Receive(Connection& connection) {
    if (connection.in.size() - connection.in_used < kReadChunkBytes / 4) {
      connection.in.resize(connection.in.size() * 2);
    }
    const ssize_t got = recv(connection.fd, connection.in.data() + connection.in_used,
                             connection.in.size() - connection.in_used, 0);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return;
      Fail(std::string("recv: ") + std::strerror(errno));
    }
    if (got == 0) Fail("the server closed a connection");
    if (connection.outstanding == 0) Fail("a reply arrived that no request asked for");
    connection.in_used += static_cast<size_t>(got);
    const ScanResult scan =
        ScanReplies(connection.in.data(), connection.in_used, connection.outstanding);
    if (scan.malformed) Fail("malformed reply from the server");
    const uint64_t now_ns = NowNs();
    const uint64_t latency_ns = now_ns - connection.batch_start_ns;
    const uint32_t stored =
        latency_ns > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(latency_ns);
    latencies_ns_.insert(latencies_ns_.end(), scan.replies, stored);
    if (!options_.timeline_path.empty() && scan.replies > 0) {
      timeline_.insert(timeline_.end(), {now_ns, latency_ns, scan.replies});
    }
    errors_ += static_cast<int64_t>(scan.errors);
    read_nulls_ += static_cast<int64_t>(scan.nulls);
    connection.outstanding -= scan.replies;
    std::memmove(connection.in.data(), connection.in.data() + scan.bytes,
                 connection.in_used - scan.bytes);
    connection.in_used -= scan.bytes;
    if (connection.outstanding == 0) {
      if (connection.in_used != 0) Fail("bytes arrived after the last reply of a batch");
      StartBatch(connection);
    }
  }

  const Options& options_;
  std::vector<Connection> connections_;
  int epoll_fd_ = -1;
  int active_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t end_ns_ = 0;
  std::vector<uint32_t> latencies_ns_;
  std::vector<uint64_t> timeline_;  // (time, latency, replies) per read that completed replies
  int64_t reads_ = 0;
  int64_t updates_ = 0;
  int64_t errors_ = 0;
  int64_t read_nulls_ = 0;
};

}  // namespace
}  // namespace keel::loadgen

int main(int argc, char** argv) {
  const keel::loadgen::Options options = keel::loadgen::ParseOptions(argc, argv);
  struct sigaction stop {};
  stop.sa_handler = keel::loadgen::RequestStop;
  sigaction(SIGUSR1, &stop, nullptr);
  keel::loadgen::Driver driver(options);
  driver.Run();
  driver.Report();
  driver.WriteTimeline();
  return 0;
}
