#include "engine/server/query_buffer.h"

#include <algorithm>
#include <cstdint>

namespace keel {

bool QueryBuffer::Reserve(size_t room) {
  KEEL_DASSERT(data_ != nullptr || begin_ == end_);  // not between Give and the command's end
  if (capacity_ - end_ >= room) return true;
  const size_t needed = end_ - begin_ + room;
  // Doubling bounds the bytes copied by all the growths of one command by its size.
  return Grow(room, needed > 2 * capacity_ ? needed : 2 * capacity_);
}

bool QueryBuffer::ReserveExact(size_t room) {
  KEEL_DASSERT(data_ != nullptr || begin_ == end_);
  if (capacity_ - end_ >= room) return true;
  return Grow(room, end_ - begin_ + room);
}

bool QueryBuffer::Grow(size_t room, size_t capacity) {
  const size_t unread = end_ - begin_;
  if (capacity_ - unread >= room) {
    // Compacting is enough. Bytes move only after a command was consumed from the front, and
    // then only the partial command after it, which the next growth or command end releases.
    std::memmove(data_, data_ + begin_, unread);
    copied_bytes_ += unread;
    begin_ = 0;
    end_ = unread;
    return true;
  }
  if (capacity < 1024) capacity = 1024;
  auto* data = static_cast<char*>(memory_.Allocate(capacity, MemoryUse::kQueryBuffers));
  if (data == nullptr) return false;
  allocations_++;
  if (unread > 0) std::memcpy(data, data_ + begin_, unread);
  copied_bytes_ += unread;
  Release();
  data_ = data;
  capacity_ = capacity;
  begin_ = 0;
  end_ = unread;
  return true;
}

bool QueryBuffer::Assign(const char* bytes, size_t size) {
  begin_ = end_ = 0;
  if (!ReserveExact(size)) return false;
  // With nothing to copy there may be no block at all, and memcpy must not get a null pointer.
  if (size > 0) std::memcpy(data_, bytes, size);
  copied_bytes_ += size;
  end_ = size;
  return true;
}

bool QueryBuffer::Prepend(const char* bytes, size_t size) {
  KEEL_DASSERT(data_ != nullptr || begin_ == end_);
  if (size == 0) return true;
  if (begin_ >= size) {
    begin_ -= size;
    std::memcpy(data_ + begin_, bytes, size);
    copied_bytes_ += size;
    return true;
  }
  const size_t unread = end_ - begin_;
  const size_t capacity = size + unread < 1024 ? 1024 : size + unread;
  auto* data = static_cast<char*>(memory_.Allocate(capacity, MemoryUse::kQueryBuffers));
  if (data == nullptr) return false;
  allocations_++;
  std::memcpy(data, bytes, size);
  if (unread > 0) std::memcpy(data + size, data_ + begin_, unread);
  copied_bytes_ += size + unread;
  Release();
  data_ = data;
  capacity_ = capacity;
  begin_ = 0;
  end_ = size + unread;
  return true;
}

bool QueryBuffer::CanGive(std::string_view arg, ExternalString* external) const {
  if (!offered_ || data_ == nullptr) return false;
  // Compared as addresses (not pointer order, which is unspecified across blocks).
  const auto first = reinterpret_cast<uintptr_t>(data_ + begin_);
  const auto last = reinterpret_cast<uintptr_t>(data_ + end_);
  const auto at = reinterpret_cast<uintptr_t>(arg.data());
  if (at < first || at > last || arg.size() > last - at) return false;
  if (capacity_ - arg.size() > std::max(kGiveSlackBytes, arg.size() / 16)) return false;
  *external =
      ExternalString{data_, capacity_, static_cast<size_t>(at - first) + begin_, arg.size()};
  return true;
}

void QueryBuffer::Give() {
  KEEL_ASSERT(offered_ && data_ != nullptr);
  memory_.NoteUsed(MemoryUse::kQueryBuffers, -static_cast<int64_t>(capacity_));
  memory_.NoteUsed(MemoryUse::kKeyspace, static_cast<int64_t>(capacity_));
  data_ = nullptr;
  capacity_ = 0;
  offered_ = false;
}

void QueryBuffer::Release() {
  if (data_ != nullptr) memory_.Deallocate(data_, capacity_, MemoryUse::kQueryBuffers);
  data_ = nullptr;
  capacity_ = 0;
  begin_ = end_ = 0;
}

}  // namespace keel
