// QueryBuffer: the unparsed input a client has left over between reads.
//
// Most reads need none: the server reads into one shared buffer, runs every complete command in
// place, and only a partial command at the end is copied here (Server::ProcessRead). A client
// with a partial command reads straight into this buffer until the command completes, growing it
// once to the size the parser asks for (a large bulk). Memory is accounted as
// MemoryUse::kQueryBuffers and released when the buffer empties, so idle clients hold none.
#pragma once

#include <cstddef>
#include <cstring>

#include "engine/base/memory.h"

namespace keel {

class QueryBuffer {
 public:
  explicit QueryBuffer(MemoryAccountant& memory) : memory_(memory) {}
  ~QueryBuffer() { Release(); }
  QueryBuffer(const QueryBuffer&) = delete;
  QueryBuffer& operator=(const QueryBuffer&) = delete;

  char* unread() { return data_ + begin_; }
  size_t unread_size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  char* tail() { return data_ + end_; }
  size_t tail_room() const { return capacity_ - end_; }
  size_t capacity() const { return capacity_; }

  // Makes room for at least `room` bytes after the unread ones (moving them to the front or
  // growing). Returns false when memory is refused; nothing is lost then.
  bool Reserve(size_t room);
  void Produced(size_t bytes) { end_ += bytes; }
  void Consume(size_t bytes) {
    begin_ += bytes;
    if (begin_ == end_) begin_ = end_ = 0;
  }
  // Replaces the content with `bytes` (a partial command moved out of the shared buffer).
  bool Assign(const char* bytes, size_t size);
  // Puts `bytes` (not from this buffer) before the unread bytes: a command held by CLIENT PAUSE.
  // Returns false when memory is refused; nothing changes then.
  bool Prepend(const char* bytes, size_t size);
  // Frees the memory when nothing is unread (cron calls it for idle clients).
  void ReleaseIfEmpty() {
    if (empty()) Release();
  }

 private:
  void Release();

  MemoryAccountant& memory_;
  char* data_ = nullptr;
  size_t capacity_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace keel
