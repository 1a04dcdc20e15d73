// The arena of records that a set's, hash's or sorted set's hashtable encoding keeps its members
// in (set.h, hash.h, zset.h; MemberIndex points into it by offset).
//
// Every record starts with its member: a varint length (7 bits a byte, low first, the high bit
// meaning "more"), then the bytes. What follows is the owner's (a hash's value, a sorted set's
// score). The helpers here are the one place that format is read (its varints are base/varint.h's,
// the keyspace entries' too), and the one place an arena changes block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/base/varint.h"
#include "engine/env/memory.h"

namespace keel {

// The member of the record at `offset`; what the record holds after it starts at the view's end.
inline std::string_view RecordMember(const char* arena, uint64_t offset) {
  size_t length = 0;
  const size_t at = ReadVarint(reinterpret_cast<const unsigned char*>(arena + offset), &length);
  return {arena + offset + at, length};
}

// Moves the arena `*arena` of `*capacity` bytes (nullptr and 0 when there is none) into a block
// of `new_capacity` (> 0) bytes that keeps its first `used` bytes, through Reallocate: a large
// arena's pages are remapped rather than copied (growing a million-member set's arena by a
// quarter copied it, 17-26 ms, the slowest single write of its growth). False when memory is
// refused: the arena is then as it was.
bool ResizeArena(char** arena, size_t* capacity, size_t used, size_t new_capacity,
                 MemoryAccountant& memory);

}  // namespace keel
