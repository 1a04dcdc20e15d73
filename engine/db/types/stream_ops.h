// The stream type's value operations (value_ops.h) and its RDB loader: what DUMP, RESTORE, COPY,
// MOVE, DEBUG DIGEST-VALUE and MEMORY USAGE do with a stream.
#pragma once

#include <cstdint>

#include "engine/db/rdb_format.h"
#include "engine/db/types/set_ops.h"
#include "engine/db/value_ops.h"
#include "engine/env/memory.h"

namespace keel {

class StreamValue;

extern const ValueOps kStreamOps;

// RDB_TYPE_STREAM_LISTPACKS_2, what Redis 7.0 writes (15, RDB_TYPE_STREAM_LISTPACKS, is 6.x's:
// the same without first ID, max deleted ID, entries added and the groups' entries read).
namespace rdb {
inline constexpr uint8_t kTypeStreamListpacks = 15;
inline constexpr uint8_t kTypeStreamListpacks2 = 19;
}  // namespace rdb

inline bool IsStreamRdbType(uint8_t rdb_type) {
  return rdb_type == rdb::kTypeStreamListpacks || rdb_type == rdb::kTypeStreamListpacks2;
}

// Appends the stream's RDB form (type byte included), as rdbSaveObject writes it.
void SerialiseStream(const StreamValue& stream, bool compress, std::string* out);

// Reads a stream serialised as `rdb_type` as Redis 7.0's rdbLoadObject does with deep
// sanitisation: every node validated, PEL entries owned by exactly one consumer. *out is set on
// kLoaded only.
LoadStatus LoadStream(uint8_t rdb_type, rdb::Reader& reader, MemoryAccountant& memory,
                      StreamValue** out);

}  // namespace keel
