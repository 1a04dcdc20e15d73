// The hash type's value operations (value_ops.h) and its RDB loader: what DUMP, RESTORE, COPY,
// MOVE, DEBUG DIGEST-VALUE and MEMORY USAGE do with a hash.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/db/entry.h"
#include "engine/db/rdb_format.h"
#include "engine/db/types/set_ops.h"
#include "engine/db/value_ops.h"
#include "engine/env/memory.h"

namespace keel {

class HashValue;

extern const ValueOps kHashOps;

// OBJECT ENCODING's encoding of `hash` as it is now.
ObjectEncoding HashEncodingOf(const HashValue& hash);

// hash-max-listpack-entries and hash-max-listpack-value.
struct HashLimits {
  size_t listpack_entries = 512;
  size_t listpack_value = 64;
};

// Whether `rdb_type` is one of the hash types LoadHash reads.
bool IsHashRdbType(uint8_t rdb_type);

// Reads a hash serialised as `rdb_type` (rdb::kTypeHash, kTypeHashZipmap, kTypeHashZiplist or
// kTypeHashListpack) as Redis 7.0's rdbLoadObject does, with deep sanitisation always on: a hash
// within `limits` loads as a listpack, any other as a hashtable. Empty hashes, repeated fields
// and malformed bytes are kCorrupt (RESTORE's "Bad data format"). *out is set on kLoaded only.
LoadStatus LoadHash(uint8_t rdb_type, rdb::Reader& reader, const HashLimits& limits,
                    uint64_t hash_seed, MemoryAccountant& memory, HashValue** out);

}  // namespace keel
