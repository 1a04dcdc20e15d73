#include "engine/server/slowlog.h"

#include "engine/base/numbers.h"

namespace keel {

void SlowLog::Push(std::span<const std::string_view> args, int64_t duration_us, int64_t now_s,
                   std::string_view peer, std::string_view client_name, int64_t slower_than_us,
                   int64_t max_len) {
  if (slower_than_us < 0 || duration_us < slower_than_us) return;
  Entry entry;
  entry.id = next_id_++;
  entry.time_s = now_s;
  entry.duration_us = duration_us;
  const size_t kept = args.size() < kArgsMax ? args.size() : kArgsMax;
  entry.args.reserve(kept);
  for (size_t i = 0; i < kept; i++) {
    if (kept != args.size() && i == kept - 1) {
      // The last slot says how many arguments were left out, itself included.
      entry.args.push_back("... (" + Int64ToString(static_cast<int64_t>(args.size() - kept + 1)) +
                           " more arguments)");
      break;
    }
    const std::string_view arg = args[i];
    if (arg.size() > kArgBytesMax) {
      entry.args.push_back(std::string(arg.substr(0, kArgBytesMax)) + "... (" +
                           Int64ToString(static_cast<int64_t>(arg.size() - kArgBytesMax)) +
                           " more bytes)");
    } else {
      entry.args.emplace_back(arg);
    }
  }
  entry.peer = std::string(peer);
  entry.client_name = std::string(client_name);
  entries_.push_front(std::move(entry));
  Trim(max_len);
}

void SlowLog::Trim(int64_t max_len) {
  while (!entries_.empty() && static_cast<int64_t>(entries_.size()) > max_len) {
    entries_.pop_back();
  }
}

}  // namespace keel
