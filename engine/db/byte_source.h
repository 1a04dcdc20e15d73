// ByteSource: bytes that a reader pulls a window at a time instead of holding them whole (a
// file being read, a zstd frame being decompressed; engine/db/zstd_frame.h). The RDB reader
// (rdb_format.h) loads from one, so that a compressed snapshot never sits decompressed in memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace keel {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Writes at most `capacity` (> 0) bytes to `buffer` and returns how many. 0 means the bytes
  // have ended: then error() is "" at a clean end, or says why the source could not go on (a
  // read error, a corrupt or truncated frame). After 0, every later call returns 0.
  virtual size_t Read(char* buffer, size_t capacity) = 0;

  // An upper bound on the bytes Read can still produce (the loader refuses counts that claim
  // more items than that many bytes could hold).
  virtual uint64_t BytesLeftMax() const = 0;

  virtual const std::string& error() const = 0;
};

// The bytes of a string_view that outlives it.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t Read(char* buffer, size_t capacity) override {
    const size_t taken = std::min(capacity, bytes_.size());
    if (taken > 0) std::memcpy(buffer, bytes_.data(), taken);
    bytes_.remove_prefix(taken);
    return taken;
  }
  uint64_t BytesLeftMax() const override { return bytes_.size(); }
  const std::string& error() const override { return error_; }

 private:
  std::string_view bytes_;
  const std::string error_;  // a view cannot fail
};

}  // namespace keel
