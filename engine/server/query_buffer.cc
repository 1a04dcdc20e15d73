#include "engine/server/query_buffer.h"

namespace keel {

bool QueryBuffer::Reserve(size_t room) {
  if (capacity_ - end_ >= room) return true;
  const size_t unread = end_ - begin_;
  if (capacity_ - unread >= room) {
    std::memmove(data_, data_ + begin_, unread);
    begin_ = 0;
    end_ = unread;
    return true;
  }
  // Callers ask for geometric growth themselves (Server::OnReadable), so allocate what is asked.
  const size_t capacity = unread + room < 1024 ? 1024 : unread + room;
  auto* data = static_cast<char*>(memory_.Allocate(capacity, MemoryUse::kQueryBuffers));
  if (data == nullptr) return false;
  if (unread > 0) std::memcpy(data, data_ + begin_, unread);
  Release();
  data_ = data;
  capacity_ = capacity;
  begin_ = 0;
  end_ = unread;
  return true;
}

bool QueryBuffer::Assign(const char* bytes, size_t size) {
  begin_ = end_ = 0;
  if (!Reserve(size)) return false;
  // With nothing to copy there may be no block at all, and memcpy must not get a null pointer.
  if (size > 0) std::memcpy(data_, bytes, size);
  end_ = size;
  return true;
}

bool QueryBuffer::Prepend(const char* bytes, size_t size) {
  if (size == 0) return true;
  if (begin_ >= size) {
    begin_ -= size;
    std::memcpy(data_ + begin_, bytes, size);
    return true;
  }
  const size_t unread = end_ - begin_;
  const size_t capacity = size + unread < 1024 ? 1024 : size + unread;
  auto* data = static_cast<char*>(memory_.Allocate(capacity, MemoryUse::kQueryBuffers));
  if (data == nullptr) return false;
  std::memcpy(data, bytes, size);
  if (unread > 0) std::memcpy(data + size, data_ + begin_, unread);
  Release();
  data_ = data;
  capacity_ = capacity;
  begin_ = 0;
  end_ = size + unread;
  return true;
}

void QueryBuffer::Release() {
  if (data_ != nullptr) memory_.Deallocate(data_, capacity_, MemoryUse::kQueryBuffers);
  data_ = nullptr;
  capacity_ = 0;
  begin_ = end_ = 0;
}

}  // namespace keel
