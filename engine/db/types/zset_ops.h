// The sorted-set type's value operations (value_ops.h) and its RDB loader: what DUMP, RESTORE,
// COPY, MOVE, DEBUG DIGEST-VALUE and MEMORY USAGE do with a sorted set.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/db/entry.h"
#include "engine/db/rdb_format.h"
#include "engine/db/types/set_ops.h"
#include "engine/db/types/zset.h"
#include "engine/db/value_ops.h"
#include "engine/env/memory.h"

namespace keel {

extern const ValueOps kZsetOps;

// RDB type bytes of sorted sets (RDB_TYPE_ZSET*).
namespace rdb {
inline constexpr uint8_t kTypeZset = 3;           // count, then member and score as text
inline constexpr uint8_t kTypeZset2 = 5;          // count, then member and binary score
inline constexpr uint8_t kTypeZsetZiplist = 12;   // one ziplist (before Redis 7.0)
inline constexpr uint8_t kTypeZsetListpack = 17;  // one listpack (Redis 7.0)
}  // namespace rdb

// xorObjectDigest's sorted-set case: each member and its "%.17g" score mixed into a digest of
// their own, xor-ed in, so that the order does not count. With negative_zero_as_zero a score of
// -0 is digested as 0 (DigestOptions says when).
void DigestZset(const Entry& entry, bool negative_zero_as_zero, DigestBuilder& digest);

// OBJECT ENCODING's encoding of `zset` as it is now.
inline ObjectEncoding ZsetEncodingOf(const ZsetValue& zset) {
  return zset.is_listpack() ? ObjectEncoding::kListpack : ObjectEncoding::kSkiplist;
}

inline bool IsZsetRdbType(uint8_t type) {
  return type == rdb::kTypeZset || type == rdb::kTypeZset2 || type == rdb::kTypeZsetZiplist ||
         type == rdb::kTypeZsetListpack;
}

// Reads a sorted set serialised as `rdb_type` as Redis 7.0's rdbLoadObject does: ZSET and ZSET_2
// load and become a listpack when they fit `limits`; a listpack or ziplist with more members
// than limits.entries_max becomes a skiplist. Empty sets, NaN scores, repeated members and
// malformed bytes are kCorrupt (RESTORE's "Bad data format"). *out is set on kLoaded only.
LoadStatus LoadZset(uint8_t rdb_type, rdb::Reader& reader, const ZsetValue::Limits& limits,
                    uint64_t hash_seed, MemoryAccountant& memory, ZsetValue** out);

}  // namespace keel
