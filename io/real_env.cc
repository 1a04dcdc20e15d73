#include "io/real_env.h"

#include <malloc.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "io/epoll_network.h"
#include "io/posix_files.h"
#include "io/uring_network.h"

namespace keel::io {

Status ErrnoStatus(int error_number, std::string_view context) {
  StatusCode code = StatusCode::kIoError;
  switch (error_number) {
    case EADDRINUSE:
      code = StatusCode::kAddressInUse;
      break;
    case EACCES:
    case EPERM:
      code = StatusCode::kPermissionDenied;
      break;
    case ENOENT:
      code = StatusCode::kNotFound;
      break;
    case EEXIST:
      code = StatusCode::kAlreadyExists;
      break;
    case ENOSPC:
    case EDQUOT:
      code = StatusCode::kNoSpace;
      break;
    case ENOMEM:
      code = StatusCode::kOutOfMemory;
      break;
    case EINVAL:
    case ENOTDIR:
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT:
      code = StatusCode::kInvalidArgument;
      break;
    case ECONNRESET:
    case EPIPE:
      code = StatusCode::kReset;
      break;
    case EAGAIN:
      code = StatusCode::kWouldBlock;
      break;
    default:
      break;
  }
  return Status(code, std::string(context) + ": " + std::strerror(error_number));
}

namespace {

class RealClock final : public Clock {
 public:
  int64_t MonotonicUs() override { return Read(CLOCK_MONOTONIC); }
  int64_t WallUs() override { return Read(CLOCK_REALTIME); }

 private:
  static int64_t Read(clockid_t clock) {
    timespec now{};
    clock_gettime(clock, &now);
    return static_cast<int64_t>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
  }
};

class RealRandom final : public Random {
 public:
  uint64_t NextU64() override {
    uint64_t value = 0;
    // getrandom never fails for 8 bytes once the pool is initialised; EINTR is retried.
    while (getrandom(&value, sizeof(value), 0) != sizeof(value)) {
    }
    return value;
  }
};

class RealMemory final : public MemoryResource {
 public:
  // A fixed mmap threshold: glibc otherwise raises it to the size of each large block freed, so
  // that a structure which grows by reallocation (a hash's arena and table, a set's) gets its
  // later blocks from the heap, and the freed ones stay resident (bench mem-hash-1x1M: RSS 72.9
  // bytes per field against 54.5 used). Blocks of 256 KiB and more are mapped and unmapped.
  RealMemory() { mallopt(M_MMAP_THRESHOLD, 256 * 1024); }
  void* Allocate(size_t bytes) override { return std::malloc(bytes); }
  // glibc's calloc skips the memset for a block it maps fresh (large blocks are mmapped).
  void* AllocateZeroed(size_t bytes) override { return std::calloc(1, bytes); }
  void Deallocate(void* pointer, size_t /*bytes*/) override { std::free(pointer); }
  // realloc leaves the block as it was when it fails; a mapped block moves by mremap, no copy.
  void* Reallocate(void* pointer, size_t /*old_bytes*/, size_t new_bytes) override {
    return std::realloc(pointer, new_bytes);
  }
  // glibc keeps freed memory in its arenas; malloc_trim returns their free pages (not only the
  // heap's top), which is what brings RSS down after a FLUSHALL.
  void ReleaseFreeMemory() override { malloc_trim(0); }
  size_t ResidentBytes() override {
    // /proc/self/statm: size resident shared text lib data dt, in pages.
    FILE* file = std::fopen("/proc/self/statm", "r");
    if (file == nullptr) return 0;
    unsigned long pages_total = 0;
    unsigned long pages_resident = 0;
    const int fields = std::fscanf(file, "%lu %lu", &pages_total, &pages_resident);
    std::fclose(file);
    if (fields != 2) return 0;
    return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  }
};

// redis-server's log line: "pid:M 30 Nov 2026 04:23:39.123 * message".
class RealLog final : public Log {
 public:
  explicit RealLog(std::string path) : path_(std::move(path)) {}

  void Write(LogLevel level, std::string_view line) override {
    static constexpr char kMarks[] = {'.', '-', '*', '#'};
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    tm local{};
    localtime_r(&now.tv_sec, &local);
    char stamp[64];
    const size_t stamp_length = std::strftime(stamp, sizeof(stamp), "%d %b %Y %H:%M:%S", &local);
    FILE* out = path_.empty() ? stdout : std::fopen(path_.c_str(), "a");
    if (out == nullptr) return;
    std::fprintf(out, "%d:M %.*s.%03d %c %.*s\n", static_cast<int>(getpid()),
                 static_cast<int>(stamp_length), stamp, static_cast<int>(now.tv_nsec / 1000000),
                 kMarks[static_cast<int>(level) & 3], static_cast<int>(line.size()), line.data());
    if (path_.empty()) {
      std::fflush(out);
    } else {
      std::fclose(out);
    }
  }

 private:
  std::string path_;
};

class RealEnv final : public Env {
 public:
  RealEnv(std::unique_ptr<PollingNetwork> network, int wakeup_fd, int signal_fd,
          std::string log_path)
      : wakeup_fd_(wakeup_fd),
        signal_fd_(signal_fd),
        network_(std::move(network)),
        files_(wakeup_fd),
        log_(std::move(log_path)) {
    network_->WatchWakeup(wakeup_fd_);
    if (signal_fd_ >= 0) network_->WatchSignal(signal_fd_);
  }

  ~RealEnv() override {
    // The network first: its pending operations may still watch the two descriptors.
    network_.reset();
    if (signal_fd_ >= 0) ::close(signal_fd_);
    ::close(wakeup_fd_);
  }

  Clock& clock() override { return clock_; }
  Random& random() override { return random_; }
  MemoryResource& memory() override { return memory_; }
  Network& network() override { return *network_; }
  FileSystem& files() override { return files_; }
  Log& log() override { return log_; }

  ProcessInfo Process() override {
    ProcessInfo info;
    info.pid = getpid();
    info.monotonic_clock = "POSIX clock_gettime";  // as redis-server reports it on Linux
    info.multiplexing_api = std::string(network_->name());
    utsname name{};
    if (uname(&name) == 0) {
      info.os = std::string(name.sysname) + " " + name.release + " " + name.machine;
    }
    char path[4096];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (length > 0) info.executable.assign(path, static_cast<size_t>(length));
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) {
      info.cpu_user_us = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec;
      info.cpu_system_us = usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec;
    }
    // As Redis's getPhysicalMemorySize.
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_bytes = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_bytes > 0) {
      info.total_system_memory_bytes = static_cast<int64_t>(pages) * page_bytes;
    }
    return info;
  }

  size_t Wait(int64_t timeout_us, Event* events, size_t capacity) override {
    if (capacity == 0) {
      Sleep(timeout_us);
      return 0;
    }
    // Completions reported by the helper thread come first: they were waiting already.
    size_t count = DrainCompletions(events, capacity);
    if (count > 0 || signal_pending_) timeout_us = 0;
    if (count == capacity) return count;
    const PollingNetwork::PollOutcome outcome =
        network_->Poll(timeout_us, events + count, capacity - count);
    count += outcome.events;
    if (outcome.wakeup) {
      uint64_t counter = 0;
      (void)!::read(wakeup_fd_, &counter, sizeof(counter));
      count += DrainCompletions(events + count, capacity - count);
    }
    // A signal stays pending until the signalfd reads empty: io_uring reports its readiness once,
    // epoll again at every Wait, and either way a full `events` leaves it for the next Wait.
    if (outcome.signal) signal_pending_ = true;
    while (signal_pending_ && count < capacity) {
      signalfd_siginfo info{};
      if (::read(signal_fd_, &info, sizeof(info)) != sizeof(info)) {
        signal_pending_ = false;
        break;
      }
      events[count++] = {EventKind::kShutdownRequested, StatusCode::kOk, info.ssi_signo};
    }
    return count;
  }

 private:
  // Stops the process (DEBUG SLEEP) for `timeout_us`, or until a termination signal is pending:
  // the signals are blocked and read through signalfd, so they cannot interrupt a plain sleep;
  // waiting on the signalfd lets one end the sleep while leaving it there for the next Wait.
  void Sleep(int64_t timeout_us) {
    const int64_t deadline_us = clock_.MonotonicUs() + timeout_us;
    for (int64_t left_us = timeout_us; left_us > 0; left_us = deadline_us - clock_.MonotonicUs()) {
      const timespec pause{static_cast<time_t>(left_us / 1000000),
                           static_cast<long>(left_us % 1000000) * 1000};
      if (signal_fd_ < 0) {
        nanosleep(&pause, nullptr);  // interrupted early by another signal: sleep the rest
        continue;
      }
      pollfd signals{signal_fd_, POLLIN, 0};
      if (ppoll(&signals, 1, &pause, nullptr) > 0) return;
    }
  }

  size_t DrainCompletions(Event* events, size_t capacity) {
    if (pending_.empty()) {
      for (const PosixFiles::Completion& done : files_.TakeCompletions()) pending_.push_back(done);
    }
    size_t count = 0;
    while (!pending_.empty() && count < capacity) {
      events[count++] = {EventKind::kFileSynced, pending_.front().status, pending_.front().token};
      pending_.erase(pending_.begin());
    }
    return count;
  }

  int wakeup_fd_;
  int signal_fd_;
  bool signal_pending_ = false;  // the signalfd was reported readable and has not read empty
  RealClock clock_;
  RealRandom random_;
  RealMemory memory_;
  std::unique_ptr<PollingNetwork> network_;
  PosixFiles files_;
  RealLog log_;
  std::vector<PosixFiles::Completion> pending_;
};

}  // namespace

Result<std::unique_ptr<Env>> NewRealEnv(const RealEnvOptions& options) {
  Result<std::unique_ptr<PollingNetwork>> network =
      options.io_backend == IoBackend::kIoUring ? NewUringNetwork() : NewEpollNetwork();
  if (!network.ok()) return network.status();
  const int wakeup_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakeup_fd < 0) return ErrnoStatus(errno, "eventfd");
  int signal_fd = -1;
  if (options.handle_signals) {
    // Block the signals in this thread before the fsync helper starts, so that it inherits the
    // mask and only signalfd ever sees them.
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    pthread_sigmask(SIG_BLOCK, &mask, nullptr);
    signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd < 0) {
      const int error = errno;
      ::close(wakeup_fd);
      return ErrnoStatus(error, "signalfd");
    }
  }
  std::signal(SIGPIPE, SIG_IGN);
  return std::unique_ptr<Env>(
      new RealEnv(std::move(*network), wakeup_fd, signal_fd, options.log_path));
}

}  // namespace keel::io
