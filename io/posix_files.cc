#include "io/posix_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "io/real_env.h"

namespace keel::io {

PosixFiles::PosixFiles(int wakeup_fd) : wakeup_fd_(wakeup_fd), thread_([this] { SyncLoop(); }) {}

PosixFiles::~PosixFiles() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  thread_.join();
  for (auto& [id, fd] : open_) ::close(fd);
}

void PosixFiles::SyncLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    // Pending syncs are finished even when stopping, so every SyncAsync completes exactly once.
    if (jobs_.empty()) return;
    const Job job = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    const int rc = ::fsync(job.fd);
    const StatusCode status = rc == 0           ? StatusCode::kOk
                              : errno == ENOSPC ? StatusCode::kNoSpace
                                                : StatusCode::kIoError;
    if (job.close_after) ::close(job.fd);
    lock.lock();
    completions_.push_back({job.token, status});
    const uint64_t one = 1;
    // The eventfd counter only needs to become non-zero; a failed write means it already is.
    (void)!::write(wakeup_fd_, &one, sizeof(one));
  }
}

std::vector<PosixFiles::Completion> PosixFiles::TakeCompletions() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Completion> done;
  done.swap(completions_);
  return done;
}

int PosixFiles::FdOf(FileId file) const {
  auto it = open_.find(file);
  return it == open_.end() ? -1 : it->second;
}

Result<FileId> PosixFiles::Open(std::string_view path, OpenMode mode) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case OpenMode::kRead:
      flags |= O_RDONLY;
      break;
    case OpenMode::kCreateTruncate:
      flags |= O_WRONLY | O_CREAT | O_TRUNC;
      break;
    case OpenMode::kAppend:
      flags |= O_WRONLY | O_CREAT | O_APPEND;
      break;
  }
  const std::string name(path);
  const int fd = ::open(name.c_str(), flags, 0644);
  if (fd < 0) return ErrnoStatus(errno, "open " + name);
  const FileId id = next_id_++;
  open_.emplace(id, fd);
  return id;
}

Result<size_t> PosixFiles::ReadAt(FileId file, uint64_t offset, char* buffer, size_t capacity) {
  const int fd = FdOf(file);
  if (fd < 0) return Status(StatusCode::kNotFound, "no such file handle");
  while (true) {
    const ssize_t n = ::pread(fd, buffer, capacity, static_cast<off_t>(offset));
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return ErrnoStatus(errno, "read");
  }
}

Status PosixFiles::Append(FileId file, const ConstSlice* slices, size_t count) {
  const int fd = FdOf(file);
  if (fd < 0) return Status(StatusCode::kNotFound, "no such file handle");
  std::vector<iovec> vectors;
  for (size_t i = 0; i < count; i++) {
    if (slices[i].size > 0) vectors.push_back({const_cast<char*>(slices[i].data), slices[i].size});
  }
  size_t index = 0;
  while (index < vectors.size()) {
    const int batch = static_cast<int>(std::min<size_t>(vectors.size() - index, IOV_MAX));
    const ssize_t n = ::writev(fd, vectors.data() + index, batch);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write");
    }
    // Skip what was written, resuming inside a partially written slice.
    auto written = static_cast<size_t>(n);
    while (written > 0 && index < vectors.size()) {
      if (written >= vectors[index].iov_len) {
        written -= vectors[index].iov_len;
        index++;
      } else {
        vectors[index].iov_base = static_cast<char*>(vectors[index].iov_base) + written;
        vectors[index].iov_len -= written;
        written = 0;
      }
    }
  }
  return Status::Ok();
}

Status PosixFiles::Truncate(FileId file, uint64_t size) {
  const int fd = FdOf(file);
  if (fd < 0) return Status(StatusCode::kNotFound, "no such file handle");
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return ErrnoStatus(errno, "ftruncate");
  return Status::Ok();
}

Result<uint64_t> PosixFiles::Size(FileId file) {
  const int fd = FdOf(file);
  if (fd < 0) return Status(StatusCode::kNotFound, "no such file handle");
  struct stat info {};
  if (::fstat(fd, &info) != 0) return ErrnoStatus(errno, "fstat");
  return static_cast<uint64_t>(info.st_size);
}

Status PosixFiles::SyncAsync(FileId file, uint64_t token) {
  const int fd = FdOf(file);
  if (fd < 0) return Status(StatusCode::kNotFound, "no such file handle");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back({fd, token, false});
  }
  work_ready_.notify_one();
  return Status::Ok();
}

Status PosixFiles::Close(FileId file) {
  auto it = open_.find(file);
  if (it == open_.end()) return Status(StatusCode::kNotFound, "no such file handle");
  const int fd = it->second;
  {
    // A sync still queued for this descriptor must finish before it can be closed and reused.
    std::lock_guard<std::mutex> lock(mutex_);
    const bool queued =
        std::any_of(jobs_.begin(), jobs_.end(), [fd](const Job& job) { return job.fd == fd; });
    if (queued) return Status(StatusCode::kInvalidArgument, "close with a sync in flight");
  }
  open_.erase(it);
  if (::close(fd) != 0) return ErrnoStatus(errno, "close");
  return Status::Ok();
}

Status PosixFiles::Rename(std::string_view from, std::string_view to) {
  const std::string source(from);
  const std::string target(to);
  if (::rename(source.c_str(), target.c_str()) != 0) {
    return ErrnoStatus(errno, "rename " + source + " " + target);
  }
  return Status::Ok();
}

Status PosixFiles::Remove(std::string_view path) {
  const std::string name(path);
  if (::unlink(name.c_str()) != 0) return ErrnoStatus(errno, "unlink " + name);
  return Status::Ok();
}

Result<std::vector<std::string>> PosixFiles::ListDirectory(std::string_view directory) {
  const std::string name(directory);
  DIR* dir = ::opendir(name.c_str());
  if (dir == nullptr) return ErrnoStatus(errno, "opendir " + name);
  std::vector<std::string> entries;
  while (dirent* entry = ::readdir(dir)) {
    const std::string entry_name = entry->d_name;
    if (entry_name != "." && entry_name != "..") entries.push_back(entry_name);
  }
  ::closedir(dir);
  std::sort(entries.begin(), entries.end());
  return entries;
}

Status PosixFiles::CreateDirectory(std::string_view path) {
  const std::string name(path);
  if (::mkdir(name.c_str(), 0755) != 0) return ErrnoStatus(errno, "mkdir " + name);
  return Status::Ok();
}

Status PosixFiles::SyncDirectoryAsync(std::string_view directory, uint64_t token) {
  const std::string name(directory);
  const int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open " + name);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back({fd, token, true});
  }
  work_ready_.notify_one();
  return Status::Ok();
}

}  // namespace keel::io
