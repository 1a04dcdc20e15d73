#include "sim/tool/runner.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace keel::sim {
namespace {

// A worker's result record in its output stream: kStart, the fields, the failure text, kEnd.
// Anything else in the stream is the worker's own stderr (assertions, sanitizer reports). Failure
// texts are escaped (EscapeBytes), so they never hold these two bytes.
constexpr char kStart = '\x1e';
constexpr char kEnd = '\x1f';

// A long-lived child that runs the seeds it is handed, one at a time, so that a sweep pays for a
// process (and a sanitizer runtime's start and leak check) per worker instead of per seed. A
// crash still costs only the seed it happened in: the worker is replaced.
struct Worker {
  pid_t pid = -1;
  int to_worker = -1;
  int from_worker = -1;
  bool busy = false;
  size_t index = 0;    // the run it is on while busy
  std::string output;  // bytes received since its last result
};

void WriteAll(int fd, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

std::string SerializeResult(size_t index, const RunResult& result) {
  std::string text(1, kStart);
  text += std::to_string(index) + " " + (result.ok ? "ok " : "fail ") +
          std::to_string(result.commands) + " " + std::to_string(result.steps) + " " +
          std::to_string(result.simulated_us) + " " + std::to_string(result.trace_hash) + " " +
          std::to_string(result.trace_records) + " " + std::to_string(result.evictions) + " " +
          std::to_string(result.scan_iterations) + " " + std::to_string(result.waits) + " " +
          std::to_string(result.waits_served) + " " + std::to_string(result.crashes) + " " +
          std::to_string(result.disk_faults) + " " + std::to_string(result.messages_delivered) +
          " " + (result.phase.empty() ? "-" : result.phase) + "\n" + result.failure + kEnd;
  return text;
}

RunResult ParseResult(const std::string& record, size_t* index) {
  std::istringstream in(record);
  std::string verdict;
  std::string phase;
  RunResult result;
  in >> *index >> verdict >> result.commands >> result.steps >> result.simulated_us >>
      result.trace_hash >> result.trace_records >> result.evictions >> result.scan_iterations >>
      result.waits >> result.waits_served >> result.crashes >> result.disk_faults >>
      result.messages_delivered >> phase;
  in.get();  // the newline before the failure text
  result.ok = verdict == "ok";
  result.phase = phase == "-" ? "" : phase;
  std::getline(in, result.failure, '\0');
  return result;
}

[[noreturn]] void WorkerMain(const std::vector<SeedRun>& runs, int commands, int results) {
  dup2(results, STDERR_FILENO);
  std::FILE* in = fdopen(commands, "r");
  size_t index = 0;
  while (in != nullptr && std::fscanf(in, "%zu", &index) == 1 && index < runs.size()) {
    const RunResult result = Simulate(DrawPlan(runs[index].seed, runs[index].overrides));
    WriteAll(results, SerializeResult(index, result));
  }
  // exit, not _exit: in sanitizer builds LeakSanitizer checks the worker's heap at exit.
  std::exit(0);
}

Worker StartWorker(const std::vector<SeedRun>& runs) {
  int commands[2];
  int results[2];
  if (pipe(commands) != 0 || pipe(results) != 0) {
    std::perror("keel-sim: pipe");
    std::exit(2);
  }
  // Buffered output would otherwise be written twice, by the parent and by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("keel-sim: fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(commands[1]);
    close(results[0]);
    WorkerMain(runs, commands[0], results[1]);
  }
  close(commands[0]);
  close(results[1]);
  Worker worker;
  worker.pid = pid;
  worker.to_worker = commands[1];
  worker.from_worker = results[0];
  return worker;
}

void Assign(Worker& worker, size_t index) {
  worker.busy = true;
  worker.index = index;
  WriteAll(worker.to_worker, std::to_string(index) + "\n");
}

// How a worker that ended looked: its exit status in words.
std::string ExitText(int status) {
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// Takes every complete result record out of the worker's output, calling `done` for each.
void TakeResults(Worker& worker, const std::vector<SeedRun>& runs,
                 const std::function<void(const SeedOutcome&)>& done) {
  while (true) {
    const size_t start = worker.output.find(kStart);
    if (start == std::string::npos) return;
    const size_t end = worker.output.find(kEnd, start);
    if (end == std::string::npos) return;
    SeedOutcome outcome;
    size_t index = 0;
    outcome.result = ParseResult(worker.output.substr(start + 1, end - start - 1), &index);
    outcome.run = runs[index];
    outcome.output = worker.output.substr(0, start);
    worker.output.erase(0, end + 1);
    worker.busy = false;
    done(outcome);
  }
}

}  // namespace

void RunInChildren(const std::vector<SeedRun>& runs, int jobs,
                   const std::function<void(const SeedOutcome&)>& done,
                   const std::function<bool()>& stop) {
  std::vector<Worker> workers;
  size_t next = 0;
  const auto more = [&] { return next < runs.size() && !stop(); };
  while (true) {
    // Hand out work; workers with nothing left to do are told to finish (their input ends).
    for (Worker& worker : workers) {
      if (worker.busy || worker.to_worker < 0) continue;
      if (more()) {
        Assign(worker, next++);
      } else {
        close(worker.to_worker);
        worker.to_worker = -1;
      }
    }
    while (static_cast<int>(workers.size()) < jobs && more()) {
      workers.push_back(StartWorker(runs));
      Assign(workers.back(), next++);
    }
    if (workers.empty()) return;
    std::vector<pollfd> fds;
    for (const Worker& worker : workers) fds.push_back(pollfd{worker.from_worker, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR
    for (size_t i = workers.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      Worker& worker = workers[i];
      char buffer[65536];
      const ssize_t n = read(worker.from_worker, buffer, sizeof(buffer));
      if (n > 0) {
        worker.output.append(buffer, static_cast<size_t>(n));
        TakeResults(worker, runs, done);
        continue;
      }
      // The worker ended: after its input closed (normal), or in the middle of a run (a crash).
      int status = 0;
      waitpid(worker.pid, &status, 0);
      close(worker.from_worker);
      if (worker.to_worker >= 0) close(worker.to_worker);
      const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (worker.busy || !clean) {
        SeedOutcome outcome;
        outcome.run = runs[worker.index];
        outcome.crashed = true;
        outcome.output = worker.output;
        outcome.result.ok = false;
        outcome.result.phase = worker.busy ? "crash" : "exit";
        outcome.result.failure =
            worker.busy ? "the run crashed: the process " + ExitText(status)
                        : "the worker process " + ExitText(status) +
                              " after its last run (this one), e.g. a leak found at exit";
        done(outcome);
      }
      workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

SeedOutcome RunInChild(const SeedRun& run) {
  SeedOutcome result;
  RunInChildren({run}, 1, [&](const SeedOutcome& outcome) { result = outcome; });
  return result;
}

}  // namespace keel::sim
