// FileSource: an open file's bytes from its start, read through the environment a window at a
// time, for loaders that pull (a zstd snapshot is decompressed as it is read; rdb_file.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/db/byte_source.h"
#include "engine/env/env.h"

namespace keel {

class FileSource final : public ByteSource {
 public:
  // `size_bytes`: the file's size when opened (a bound for the loader; a file that grows since
  // is read to its end all the same).
  FileSource(FileSystem& files, FileId file, uint64_t size_bytes)
      : files_(files), file_(file), size_bytes_(size_bytes) {}

  size_t Read(char* buffer, size_t capacity) override {
    if (ended_) return 0;
    Result<size_t> read = files_.ReadAt(file_, offset_, buffer, capacity);
    if (!read.ok()) {
      error_ = "Error reading the RDB file: " + read.status().message();
      ended_ = true;
      return 0;
    }
    if (read.value() == 0) ended_ = true;
    offset_ += read.value();
    return read.value();
  }
  uint64_t BytesLeftMax() const override {
    return ended_ || offset_ >= size_bytes_ ? 0 : size_bytes_ - offset_;
  }
  const std::string& error() const override { return error_; }

 private:
  FileSystem& files_;
  const FileId file_;
  const uint64_t size_bytes_;
  uint64_t offset_ = 0;
  bool ended_ = false;
  std::string error_;
};

}  // namespace keel
