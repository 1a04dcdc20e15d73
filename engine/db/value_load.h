// Reading one serialised value (its RDB type byte and encoding) into a value the keyspace can
// store: RESTORE's payloads and RDB files share it, so both accept exactly the same encodings and
// refuse the same malformed ones (Redis's rdbLoadObjectType and rdbLoadObject, with deep
// sanitisation always on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/rng.h"
#include "engine/db/database.h"
#include "engine/db/rdb_format.h"
#include "engine/db/types/hash_ops.h"
#include "engine/db/types/zset.h"
#include "engine/env/memory.h"

namespace keel {

class Keyspace;

// The encoding limits a loaded value is converted under (the list-, set-, hash- and zset-max-*
// parameters in force).
struct ValueLoadLimits {
  int list_fill = -2;  // as List::ClampFill returns it
  size_t set_intset_entries = 512;
  HashLimits hash;
  ZsetValue::Limits zset{128, 64};
};

enum class ValueLoad : uint8_t {
  kLoaded,
  kBadFormat,  // a type Keel does not read, or malformed bytes
  kOutOfMemory,
};

// A value read from a payload: a string's bytes, or an object-typed value's structure (owned
// here until stored or discarded).
struct LoadedValue {
  ValueType type = ValueType::kString;
  ObjectEncoding encoding = ObjectEncoding::kRaw;
  std::string string;
  void* object = nullptr;

  // Frees the structure, if one was loaded and not stored.
  void Discard(MemoryAccountant& memory);
};

// Whether Keel reads values of RDB type `rdb_type`.
bool IsLoadableRdbType(uint8_t rdb_type);

// Reads a value of RDB type `rdb_type` (its type byte already read) from `reader`. Draws a hash
// seed from `rng` for the types that need one.
ValueLoad LoadValueOfType(uint8_t rdb_type, rdb::Reader& reader, const ValueLoadLimits& limits,
                          Rng& rng, MemoryAccountant& memory, LoadedValue* loaded);

// Stores what LoadValueOfType read as `key` of `db`, as RESTORE does (Keyspace::Restore and
// RestoreObject). On kOutOfMemory the loaded value is discarded.
Database::SetOutcome StoreLoadedValue(Keyspace& keyspace, int db, std::string_view key,
                                      uint64_t hash, LoadedValue* loaded, int64_t expire_at_ms,
                                      uint32_t access_clock);

}  // namespace keel
