// ScratchBuffer: a command's transient working memory (a value being rebuilt by APPEND or
// SETRANGE, the old value GETSET replies with after writing, LCS's table), taken from the
// MemoryAccountant so that it is counted in used_memory while the command runs and so that a
// refusal fails the command with an error instead of crashing.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "engine/env/memory.h"

namespace keel {

class ScratchBuffer {
 public:
  explicit ScratchBuffer(MemoryAccountant& memory) : memory_(memory) {}
  ~ScratchBuffer() { Release(); }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;

  // Makes the buffer `bytes` long (contents unspecified). Returns false when the environment
  // refuses the memory; the buffer is then empty. Zero bytes always succeeds.
  [[nodiscard]] bool Allocate(size_t bytes) {
    Release();
    if (bytes == 0) return true;
    data_ = static_cast<char*>(memory_.Allocate(bytes, MemoryUse::kScratch));
    if (data_ == nullptr) return false;
    size_ = bytes;
    return true;
  }

  // Allocate, then copy `text` in. Returns false when refused.
  [[nodiscard]] bool Assign(std::string_view text) {
    if (!Allocate(text.size())) return false;
    if (!text.empty()) std::memcpy(data_, text.data(), text.size());
    return true;
  }

  void Release() {
    if (data_ != nullptr) memory_.Deallocate(data_, size_, MemoryUse::kScratch);
    data_ = nullptr;
    size_ = 0;
  }

  char* data() { return data_; }
  size_t size() const { return size_; }
  // Never a null pointer, even when empty (memcpy of a null source is undefined even for zero
  // bytes, and views get copied into replies).
  std::string_view view() const { return data_ != nullptr ? std::string_view(data_, size_) : ""; }

 private:
  MemoryAccountant& memory_;
  char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace keel
