// PosixFiles: FileSystem over POSIX files. Appends and reads are ordinary system calls; fsync runs
// on a helper thread so that the event loop never waits for the disk, and each completion wakes
// the loop through an eventfd (RealEnv turns it into a kFileSynced event). A directory is synced
// the same way, through a descriptor opened for the sync and closed by the helper after it.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/env/env.h"

namespace keel::io {

class PosixFiles final : public FileSystem {
 public:
  // `wakeup_fd` is an eventfd the helper thread writes to after each completed sync.
  explicit PosixFiles(int wakeup_fd);
  ~PosixFiles() override;

  Result<FileId> Open(std::string_view path, OpenMode mode) override;
  Result<size_t> ReadAt(FileId file, uint64_t offset, char* buffer, size_t capacity) override;
  Status Append(FileId file, const ConstSlice* slices, size_t count) override;
  Status Truncate(FileId file, uint64_t size) override;
  Result<uint64_t> Size(FileId file) override;
  Status SyncAsync(FileId file, uint64_t token) override;
  Status Close(FileId file) override;
  Status Rename(std::string_view from, std::string_view to) override;
  Status Remove(std::string_view path) override;
  Result<std::vector<std::string>> ListDirectory(std::string_view directory) override;
  Status CreateDirectory(std::string_view path) override;
  Status SyncDirectoryAsync(std::string_view directory, uint64_t token) override;

  // Completed syncs since the last call (called by the loop thread after the eventfd fired).
  struct Completion {
    uint64_t token;
    StatusCode status;
  };
  std::vector<Completion> TakeCompletions();

 private:
  struct Job {
    int fd;
    uint64_t token;
    bool close_after;  // a directory opened for this sync alone: the helper closes it
  };
  void SyncLoop();
  int FdOf(FileId file) const;

  int wakeup_fd_;
  std::unordered_map<FileId, int> open_;  // loop thread only
  FileId next_id_ = 1;

  std::mutex mutex_;  // guards everything below
  std::condition_variable work_ready_;
  std::deque<Job> jobs_;
  std::vector<Completion> completions_;
  bool stopping_ = false;
  std::thread thread_;  // started last, joined first
};

}  // namespace keel::io
