#include "engine/resp/output_buffer.h"

#include "engine/base/limits.h"

namespace keel {
namespace {

size_t ChunkBytes(const ReplyChunk* chunk) { return sizeof(ReplyChunk) + chunk->capacity; }

}  // namespace

ReplyChunkPool::~ReplyChunkPool() { Trim(0); }

ReplyChunk* ReplyChunkPool::Take(size_t capacity_min) {
  if (capacity_min <= limits::kReplyChunkBytes && free_ != nullptr) {
    ReplyChunk* chunk = free_;
    free_ = chunk->next;
    free_count_--;
    chunk->next = nullptr;
    chunk->used = 0;
    return chunk;
  }
  size_t capacity = limits::kReplyChunkBytes;
  if (capacity_min > capacity) {
    capacity =
        capacity_min < limits::kReplyChunkBytesMax ? capacity_min : limits::kReplyChunkBytesMax;
  }
  void* block = memory_.Allocate(sizeof(ReplyChunk) + capacity, MemoryUse::kReplyBuffers);
  if (block == nullptr && capacity > capacity_min) {
    // Near the memory limit a standard chunk may be refused where the reply itself would fit:
    // try a chunk of just the size needed (rounded up) before giving up on the client.
    capacity = (capacity_min + 255) & ~size_t{255};
    block = memory_.Allocate(sizeof(ReplyChunk) + capacity, MemoryUse::kReplyBuffers);
  }
  if (block == nullptr) return nullptr;
  auto* chunk = static_cast<ReplyChunk*>(block);
  chunk->next = nullptr;
  chunk->capacity = static_cast<uint32_t>(capacity);
  chunk->used = 0;
  return chunk;
}

void ReplyChunkPool::Give(ReplyChunk* chunk) {
  KEEL_DASSERT(chunk != nullptr);
  if (chunk->capacity != limits::kReplyChunkBytes ||
      free_count_ >= limits::kReplyChunkPoolCountMax) {
    memory_.Deallocate(chunk, ChunkBytes(chunk), MemoryUse::kReplyBuffers);
    return;
  }
  chunk->next = free_;
  free_ = chunk;
  free_count_++;
}

void ReplyChunkPool::Trim(size_t count_keep) {
  while (free_count_ > count_keep) {
    ReplyChunk* chunk = free_;
    free_ = chunk->next;
    free_count_--;
    memory_.Deallocate(chunk, ChunkBytes(chunk), MemoryUse::kReplyBuffers);
  }
}

bool OutputBuffer::AddChunk(size_t capacity_min) {
  ReplyChunk* chunk = pool_.Take(capacity_min);
  if (chunk == nullptr) {
    failed_ = true;
    Clear();
    return false;
  }
  if (tail_ == nullptr) {
    head_ = tail_ = chunk;
  } else {
    tail_->next = chunk;
    tail_ = chunk;
  }
  chunk_count_++;
  return true;
}

bool OutputBuffer::EnsureContiguous(size_t size) {
  if (failed_) return false;
  if (tail_ != nullptr && tail_->capacity - tail_->used >= size) return true;
  return AddChunk(size);
}

bool OutputBuffer::AppendSlow(const char* data, size_t size) {
  if (failed_) return false;
  while (size > 0) {
    if (tail_ == nullptr || tail_->capacity == tail_->used) {
      if (!AddChunk(size)) return false;
    }
    size_t room = tail_->capacity - tail_->used;
    size_t take = size < room ? size : room;
    std::memcpy(tail_->data() + tail_->used, data, take);
    tail_->used += static_cast<uint32_t>(take);
    pending_bytes_ += take;
    data += take;
    size -= take;
  }
  return true;
}

size_t OutputBuffer::Gather(ConstSlice* slices, size_t slices_max) const {
  size_t count = 0;
  size_t skip = head_sent_;
  for (const ReplyChunk* chunk = head_; chunk != nullptr && count < slices_max;
       chunk = chunk->next) {
    if (chunk->used > skip) {
      slices[count++] = ConstSlice{chunk->data() + skip, chunk->used - skip};
    }
    skip = 0;
  }
  return count;
}

void OutputBuffer::Consume(size_t bytes) {
  KEEL_ASSERT(bytes <= pending_bytes_);
  pending_bytes_ -= bytes;
  dropped_bytes_ += bytes;
  while (bytes > 0) {
    KEEL_ASSERT(head_ != nullptr);
    size_t left = head_->used - head_sent_;
    if (bytes < left) {
      head_sent_ += bytes;
      return;
    }
    bytes -= left;
    ReplyChunk* done = head_;
    head_ = head_->next;
    if (head_ == nullptr) tail_ = nullptr;
    head_sent_ = 0;
    chunk_count_--;
    pool_.Give(done);
  }
  // A fully written tail chunk is released too, so an idle client holds nothing.
  if (pending_bytes_ == 0 && head_ != nullptr && head_ == tail_ && head_sent_ == head_->used) {
    pool_.Give(head_);
    head_ = tail_ = nullptr;
    head_sent_ = 0;
    chunk_count_--;
  }
}

std::string OutputBuffer::TakeAll() {
  std::string bytes;
  bytes.reserve(pending_bytes_);
  size_t skip = head_sent_;
  for (const ReplyChunk* chunk = head_; chunk != nullptr; chunk = chunk->next) {
    bytes.append(chunk->data() + skip, chunk->used - skip);
    skip = 0;
  }
  KEEL_DASSERT(bytes.size() == pending_bytes_);
  Consume(bytes.size());
  return bytes;
}

void OutputBuffer::Clear() {
  while (head_ != nullptr) {
    ReplyChunk* next = head_->next;
    pool_.Give(head_);
    head_ = next;
  }
  tail_ = nullptr;
  head_sent_ = 0;
  dropped_bytes_ += pending_bytes_;
  pending_bytes_ = 0;
  chunk_count_ = 0;
}

}  // namespace keel
