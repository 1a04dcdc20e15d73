#include "engine/server/transaction.h"

#include <algorithm>
#include <cstring>

#include "engine/base/assert.h"
#include "engine/registry/command_spec.h"

namespace keel {

Transaction::~Transaction() {
  for (const Block& block : blocks_) {
    memory_.Deallocate(block.data, block.bytes, MemoryUse::kQueryBuffers);
  }
}

char* Transaction::Reserve(size_t bytes) {
  if (!blocks_.empty()) {
    Block& last = blocks_.back();
    if (last.bytes - last.used >= bytes) return last.data + last.used;
  }
  const size_t previous = blocks_.empty() ? kBlockBytesMin / 2 : blocks_.back().bytes;
  const size_t block_bytes = std::max(std::min(previous * 2, kBlockBytesMax), bytes);
  auto* data = static_cast<char*>(memory_.Allocate(block_bytes, MemoryUse::kQueryBuffers));
  if (data == nullptr) return nullptr;
  blocks_.push_back(Block{data, block_bytes, 0});
  return data;
}

bool Transaction::Queue(const CommandSpec& spec, std::span<const std::string_view> args) {
  KEEL_ASSERT(!args.empty());
  size_t arg_bytes = 0;
  for (std::string_view arg : args) arg_bytes += arg.size();
  // All of the command's bytes in one block, so that a refusal leaves nothing half-queued.
  char* target = arg_bytes == 0 ? nullptr : Reserve(arg_bytes);
  if (arg_bytes != 0 && target == nullptr) return false;
  const size_t first_arg = args_.size();
  for (std::string_view arg : args) {
    if (!arg.empty()) std::memcpy(target, arg.data(), arg.size());
    args_.emplace_back(target, arg.size());
    target += arg.size();
  }
  if (arg_bytes != 0) blocks_.back().used += arg_bytes;
  KEEL_DASSERT(blocks_.empty() || blocks_.back().used <= blocks_.back().bytes);
  commands_.push_back(Queued{&spec, first_arg, args.size()});
  command_flags_ |= spec.flags;
  bytes_ += arg_bytes + args.size() * kArgOverheadBytes + kCommandOverheadBytes;
  multi_mem_bytes_ += arg_bytes + args.size() * sizeof(void*);
  return true;
}

}  // namespace keel
