// Transaction: the commands a client queued between MULTI and EXEC (Redis's multiState).
//
// Each queued command keeps its own copy of its arguments (the parser's views are valid only
// until the next read). The bytes live in blocks taken from the MemoryAccountant as client
// buffer memory, so used_memory counts them as Redis counts a client's queued argv, and the
// simulator can refuse them: Queue then fails and the command is refused with the OOM error,
// which aborts the transaction like any other queuing error.
//
// Size: `bytes()` counts the argument bytes plus a fixed overhead per argument and per command,
// and the engine refuses to queue past client-query-buffer-limit (docs/DESIGN.md section 4), so
// that a client cannot make the server hold an unbounded queue. Redis has no such limit; it only
// counts the queue into the client's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/env/memory.h"

namespace keel {

struct CommandSpec;

class Transaction {
 public:
  // Per-argument and per-command overhead counted into bytes(): the views and the command record
  // each queued argument and command costs beyond its bytes.
  static constexpr size_t kArgOverheadBytes = sizeof(std::string_view);
  static constexpr size_t kCommandOverheadBytes = 32;

  explicit Transaction(MemoryAccountant& memory) : memory_(memory) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Copies `args` (args[0] is the name) as the next command to run. Returns false, queuing
  // nothing, when the environment refused the memory.
  [[nodiscard]] bool Queue(const CommandSpec& spec, std::span<const std::string_view> args);

  size_t count() const { return commands_.size(); }
  const CommandSpec& spec(size_t index) const { return *commands_[index].spec; }
  std::span<const std::string_view> args(size_t index) const {
    const Queued& queued = commands_[index];
    return std::span<const std::string_view>(args_).subspan(queued.first_arg, queued.arg_count);
  }
  // The union of the queued commands' CommandFlag bits (Redis's mstate.cmd_flags): EXEC is a
  // write, denyoom, ... command when one of its commands is.
  uint32_t command_flags() const { return command_flags_; }
  // What the queue costs, for the size limit.
  size_t bytes() const { return bytes_; }
  // CLIENT LIST multi-mem: Redis's argv_len_sums (argument bytes plus a pointer per argument).
  size_t multi_mem_bytes() const { return multi_mem_bytes_; }

 private:
  struct Queued {
    const CommandSpec* spec;
    size_t first_arg;
    size_t arg_count;
  };
  struct Block {
    char* data;
    size_t bytes;
    size_t used;
  };
  // Room for `bytes` more bytes that never move (views into them stay valid), or nullptr.
  char* Reserve(size_t bytes);

  // Blocks start small (most transactions are a few short commands) and double up to this.
  static constexpr size_t kBlockBytesMin = 512;
  static constexpr size_t kBlockBytesMax = 64 * 1024;

  MemoryAccountant& memory_;
  std::vector<Queued> commands_;
  std::vector<std::string_view> args_;
  std::vector<Block> blocks_;
  uint32_t command_flags_ = 0;
  size_t bytes_ = 0;
  size_t multi_mem_bytes_ = 0;
};

}  // namespace keel
