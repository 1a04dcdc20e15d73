// OutputBuffer: a client's pending reply bytes, in chunks taken from a shared pool.
//
// Replies are appended in pipeline order and leave through one gathering write per loop iteration
// (Server::Flush). Small replies share 16 KiB chunks, so a pipeline of a thousand GETs costs no
// allocation per reply; chunks return to the pool when written, so an idle client holds no reply
// memory at all (Redis keeps a 16 KiB buffer per client). All chunk memory is accounted as
// MemoryUse::kReplyBuffers. When the environment refuses memory the buffer is marked failed and
// keeps no partial reply: the server closes such a client instead of sending a truncated stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "engine/env/memory.h"

namespace keel {

struct ReplyChunk {
  ReplyChunk* next;
  uint32_t capacity;  // bytes of data() available
  uint32_t used;      // bytes of data() filled
  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
};

// Free standard-size chunks shared by all clients of an engine.
class ReplyChunkPool {
 public:
  explicit ReplyChunkPool(MemoryAccountant& memory) : memory_(memory) {}
  ~ReplyChunkPool();
  ReplyChunkPool(const ReplyChunkPool&) = delete;
  ReplyChunkPool& operator=(const ReplyChunkPool&) = delete;

  // A chunk with at least `capacity_min` bytes, or nullptr when memory is refused.
  ReplyChunk* Take(size_t capacity_min);
  void Give(ReplyChunk* chunk);
  // Frees pooled chunks beyond `count_keep` (cron trims the pool when load drops).
  void Trim(size_t count_keep);
  size_t free_count() const { return free_count_; }

 private:
  MemoryAccountant& memory_;
  ReplyChunk* free_ = nullptr;
  size_t free_count_ = 0;
};

class OutputBuffer {
 public:
  explicit OutputBuffer(ReplyChunkPool& pool) : pool_(pool) {}
  ~OutputBuffer() { Clear(); }
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;

  // Appends bytes. Returns false, and marks the buffer failed, when memory was refused.
  bool Append(const char* data, size_t size) {
    if (tail_ != nullptr && tail_->capacity - tail_->used >= size) {
      // An empty string_view's data() may be null, and memcpy from null is undefined even for 0.
      if (size != 0) std::memcpy(tail_->data() + tail_->used, data, size);
      tail_->used += static_cast<uint32_t>(size);
      pending_bytes_ += size;
      return true;
    }
    return AppendSlow(data, size);
  }

  // Returns `size` contiguous writable bytes at the end (to be filled, then Commit), or nullptr if
  // the tail chunk lacks room (callers then fall back to Append). Never allocates.
  char* TryReserve(size_t size) {
    if (tail_ == nullptr || tail_->capacity - tail_->used < size) return nullptr;
    return tail_->data() + tail_->used;
  }
  void Commit(size_t size) {
    KEEL_DASSERT(tail_ != nullptr && tail_->capacity - tail_->used >= size);
    tail_->used += static_cast<uint32_t>(size);
    pending_bytes_ += size;
  }
  // Makes sure the tail has room for `size` contiguous bytes when that is cheap (a fresh chunk of
  // the standard size); returns false if memory was refused.
  bool EnsureContiguous(size_t size);

  size_t pending_bytes() const { return pending_bytes_; }
  bool empty() const { return pending_bytes_ == 0; }
  // Positions in the stream of every byte ever appended: where the pending bytes start (every
  // byte before was written or dropped) and end. appendfsync always names reply bytes by them.
  uint64_t start_position() const { return dropped_bytes_; }
  uint64_t end_position() const { return dropped_bytes_ + pending_bytes_; }
  bool failed() const { return failed_; }
  // Forgets a failure (a client whose replies are read in-process goes on after one).
  void ClearFailure() { failed_ = false; }
  size_t chunk_count() const { return chunk_count_; }

  // Describes up to `slices_max` pending byte ranges, oldest first; returns how many.
  size_t Gather(ConstSlice* slices, size_t slices_max) const;
  // Drops the first `bytes` pending bytes (they were written).
  void Consume(size_t bytes);
  // Drops everything (client closing or CLIENT REPLY OFF semantics).
  void Clear();
  // Moves every pending byte into a string and empties the buffer: for clients whose replies are
  // read in-process (tests, fuzz harnesses, and later the scripting engine's fake client).
  std::string TakeAll();

 private:
  bool AppendSlow(const char* data, size_t size);
  bool AddChunk(size_t capacity_min);

  ReplyChunkPool& pool_;
  ReplyChunk* head_ = nullptr;
  ReplyChunk* tail_ = nullptr;
  size_t head_sent_ = 0;  // bytes of head_ already written
  size_t pending_bytes_ = 0;
  uint64_t dropped_bytes_ = 0;  // bytes consumed or cleared, ever
  size_t chunk_count_ = 0;
  bool failed_ = false;
};

}  // namespace keel
