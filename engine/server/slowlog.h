// SlowLog: the commands that took at least slowlog-log-slower-than microseconds, newest first,
// at most slowlog-max-len of them (Redis's slowlog.c).
//
// Entries keep what Redis keeps: the arguments (at most kArgsMax of them, the last one replaced
// by "... (N more arguments)" when there were more; each cut to kArgBytesMax bytes followed by
// "... (N more bytes)"), the Unix time in seconds, the duration in microseconds, and the client's
// address and name at the time.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

class SlowLog {
 public:
  // Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING: a logged command costs at most
  // about 32 * 128 bytes whatever its size.
  static constexpr size_t kArgsMax = 32;
  static constexpr size_t kArgBytesMax = 128;

  struct Entry {
    uint64_t id = 0;
    int64_t time_s = 0;
    int64_t duration_us = 0;
    std::vector<std::string> args;
    std::string peer;
    std::string client_name;
  };

  // Logs a command that took `duration_us` if slowlog-log-slower-than allows it (`slower_than_us`
  // < 0 disables the log), then trims the log to `max_len` entries. Ids keep counting across
  // RESET, as in Redis.
  void Push(std::span<const std::string_view> args, int64_t duration_us, int64_t now_s,
            std::string_view peer, std::string_view client_name, int64_t slower_than_us,
            int64_t max_len);
  void Reset() { entries_.clear(); }

  // Newest first.
  const std::deque<Entry>& entries() const { return entries_; }

 private:
  // As in Redis, a lowered slowlog-max-len takes effect at the next push, not at CONFIG SET.
  void Trim(int64_t max_len);

  std::deque<Entry> entries_;
  uint64_t next_id_ = 0;
};

}  // namespace keel
