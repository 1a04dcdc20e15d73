// QueryBuffer: the unparsed input a client has left over between reads.
//
// Most reads need none: the server reads into one shared buffer, runs every complete command in
// place, and only a partial command at the end is copied here (Server::OnReadable). A client
// with a partial command reads straight into this buffer until the command completes: the
// buffer doubles as a command of many arguments arrives, and grows once to the command's size
// when the parser announces a large bulk. Memory is accounted as
// MemoryUse::kQueryBuffers and released when the buffer empties, so idle clients hold none.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "engine/db/entry.h"
#include "engine/env/memory.h"

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

  // Makes room for at least `room` bytes after the unread ones: moves them to the front when that
  // is enough, else grows to at least twice the capacity, so that a command arriving in many
  // reads costs O(1) copies per byte however long it is. Returns false when memory is refused;
  // nothing is lost then.
  bool Reserve(size_t room);
  // As Reserve, but a growth takes exactly unread + `room` bytes: for a large bulk whose size is
  // announced, so that the command's bytes are read straight into a block of its final size
  // (Redis does the same for bulks of 32 KiB and more).
  bool ReserveExact(size_t room);
  void Produced(size_t bytes) { end_ += bytes; }
  void Consume(size_t bytes) {
    begin_ += bytes;
    KEEL_DASSERT(begin_ <= end_);
    KEEL_DASSERT(data_ != nullptr || begin_ == end_);  // a given block's bytes are all consumed
    if (begin_ == end_) begin_ = end_ = 0;
  }
  // Replaces the content with `bytes` (a partial command moved out of the shared buffer).
  bool Assign(const char* bytes, size_t size);
  // Puts `bytes` (not from this buffer) before the unread bytes: a command held by CLIENT PAUSE.
  // Returns false when memory is refused; nothing changes then.
  bool Prepend(const char* bytes, size_t size);
  // Lending the block to a command (Server::ProcessCommands, for a command that ends where the
  // unread bytes end): while offered, a SET may keep a large argument where it is, the block
  // becoming its value, instead of copying it (engine/db/entry.h's external strings).
  void Offer() { offered_ = true; }
  void Withdraw() { offered_ = false; }
  // Whether the offered block holds `arg` and little else (the command's other arguments and
  // headers: at most kGiveSlackBytes or a sixteenth of the argument), and if so where.
  bool CanGive(std::string_view arg, ExternalString* external) const;
  // Hands the block CanGive described over to the keyspace (its bytes count as MemoryUse::kKeyspace
  // from now on) and forgets it. Its bytes stay where they are, owned by the value, and still
  // count as unread until the server consumes the command.
  void Give();
  static constexpr size_t kGiveSlackBytes = 16 * 1024;

  // Frees the memory when nothing is unread (cron calls it for idle clients).
  void ReleaseIfEmpty() {
    if (empty()) Release();
  }

  // What the buffer has cost since it was made: bytes copied or moved inside it (compaction,
  // growth, Assign, Prepend) and blocks allocated. Tests use them to show that a request's cost
  // is linear in its size.
  uint64_t copied_bytes() const { return copied_bytes_; }
  uint64_t allocations() const { return allocations_; }

 private:
  bool Grow(size_t room, size_t capacity);
  void Release();

  MemoryAccountant& memory_;
  char* data_ = nullptr;
  size_t capacity_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
  uint64_t copied_bytes_ = 0;
  uint64_t allocations_ = 0;
  bool offered_ = false;
};

}  // namespace keel
