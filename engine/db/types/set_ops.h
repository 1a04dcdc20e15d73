// The set type's value operations (value_ops.h) and its RDB loader: what DUMP, RESTORE, COPY,
// MOVE, DEBUG DIGEST-VALUE and MEMORY USAGE do with a set.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/db/entry.h"
#include "engine/db/rdb_format.h"
#include "engine/db/value_ops.h"
#include "engine/env/memory.h"

namespace keel {

class SetValue;

extern const ValueOps kSetOps;

// OBJECT ENCODING's encoding of `set` as it is now.
ObjectEncoding SetEncodingOf(const SetValue& set);

enum class LoadStatus : uint8_t { kLoaded, kCorrupt, kOutOfMemory };

// Whether `rdb_type` is one of the set types LoadSet reads.
inline bool IsSetRdbType(uint8_t rdb_type) {
  return rdb_type == rdb::kTypeSet || rdb_type == rdb::kTypeSetIntset ||
         rdb_type == rdb::kTypeSetListpack;
}

// Reads a set serialised as RDB type `rdb_type` (rdb::kTypeSet or rdb::kTypeSetIntset) as
// Redis 7.0's rdbLoadObject does: a plain set of integers no longer than `intset_max` loads as
// an intset, an intset longer than it as a hashtable. Empty sets, repeated members and malformed
// bytes are kCorrupt (RESTORE's "Bad data format"). *out is set on kLoaded only.
LoadStatus LoadSet(uint8_t rdb_type, rdb::Reader& reader, size_t intset_max, uint64_t hash_seed,
                   MemoryAccountant& memory, SetValue** out);

}  // namespace keel
