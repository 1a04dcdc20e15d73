#include "engine/db/value_load.h"

#include "engine/db/keyspace.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/list.h"
#include "engine/db/types/list_rdb.h"
#include "engine/db/types/set.h"
#include "engine/db/types/set_ops.h"
#include "engine/db/types/stream.h"
#include "engine/db/types/stream_ops.h"
#include "engine/db/types/zset_ops.h"

namespace keel {

void LoadedValue::Discard(MemoryAccountant& memory) {
  if (object == nullptr) return;
  if (type == ValueType::kList) {
    List::Destroy(static_cast<List*>(object), memory);
  } else if (type == ValueType::kSet) {
    SetValue::Destroy(static_cast<SetValue*>(object), memory);
  } else if (type == ValueType::kHash) {
    HashValue::Destroy(static_cast<HashValue*>(object), memory);
  } else if (type == ValueType::kZSet) {
    ZsetValue::Destroy(static_cast<ZsetValue*>(object), memory);
  } else if (type == ValueType::kStream) {
    StreamValue::Destroy(static_cast<StreamValue*>(object), memory);
  }
  object = nullptr;
}

bool IsLoadableRdbType(uint8_t rdb_type) {
  return rdb_type == rdb::kTypeString || IsListRdbType(rdb_type) || IsSetRdbType(rdb_type) ||
         IsHashRdbType(rdb_type) || IsZsetRdbType(rdb_type) || IsStreamRdbType(rdb_type);
}

namespace {

ValueLoad FromStatus(LoadStatus status) {
  switch (status) {
    case LoadStatus::kLoaded:
      return ValueLoad::kLoaded;
    case LoadStatus::kCorrupt:
      return ValueLoad::kBadFormat;
    case LoadStatus::kOutOfMemory:
      return ValueLoad::kOutOfMemory;
  }
  return ValueLoad::kBadFormat;
}

}  // namespace

ValueLoad LoadValueOfType(uint8_t rdb_type, rdb::Reader& reader, const ValueLoadLimits& limits,
                          Rng& rng, MemoryAccountant& memory, LoadedValue* loaded) {
  if (rdb_type == rdb::kTypeString) {
    loaded->type = ValueType::kString;
    return reader.ReadString(&loaded->string, UINT32_MAX) ? ValueLoad::kLoaded
                                                          : ValueLoad::kBadFormat;
  }
  if (IsListRdbType(rdb_type)) {
    List* list = nullptr;
    const LoadOutcome outcome = LoadList(rdb_type, reader, limits.list_fill, memory, &list);
    if (outcome == LoadOutcome::kOutOfMemory) return ValueLoad::kOutOfMemory;
    if (outcome != LoadOutcome::kLoaded) return ValueLoad::kBadFormat;
    loaded->type = ValueType::kList;
    loaded->encoding = ObjectEncoding::kQuicklist;
    loaded->object = list;
    return ValueLoad::kLoaded;
  }
  if (IsSetRdbType(rdb_type)) {
    SetValue* set = nullptr;
    const ValueLoad result =
        FromStatus(LoadSet(rdb_type, reader, limits.set_intset_entries, rng.Next(), memory, &set));
    if (result == ValueLoad::kLoaded) {
      loaded->type = ValueType::kSet;
      loaded->encoding = SetEncodingOf(*set);
      loaded->object = set;
    }
    return result;
  }
  if (IsHashRdbType(rdb_type)) {
    HashValue* hash = nullptr;
    const ValueLoad result =
        FromStatus(LoadHash(rdb_type, reader, limits.hash, rng.Next(), memory, &hash));
    if (result == ValueLoad::kLoaded) {
      loaded->type = ValueType::kHash;
      loaded->encoding = HashEncodingOf(*hash);
      loaded->object = hash;
    }
    return result;
  }
  if (IsZsetRdbType(rdb_type)) {
    ZsetValue* zset = nullptr;
    const ValueLoad result =
        FromStatus(LoadZset(rdb_type, reader, limits.zset, rng.Next(), memory, &zset));
    if (result == ValueLoad::kLoaded) {
      loaded->type = ValueType::kZSet;
      loaded->encoding = ZsetEncodingOf(*zset);
      loaded->object = zset;
    }
    return result;
  }
  if (IsStreamRdbType(rdb_type)) {
    StreamValue* stream = nullptr;
    const ValueLoad result = FromStatus(LoadStream(rdb_type, reader, memory, &stream));
    if (result == ValueLoad::kLoaded) {
      loaded->type = ValueType::kStream;
      loaded->encoding = ObjectEncoding::kStream;
      loaded->object = stream;
    }
    return result;
  }
  return ValueLoad::kBadFormat;
}

Database::SetOutcome StoreLoadedValue(Keyspace& keyspace, int db, std::string_view key,
                                      uint64_t hash, LoadedValue* loaded, int64_t expire_at_ms,
                                      uint32_t access_clock) {
  if (loaded->type == ValueType::kString) {
    return keyspace.Restore(db, key, hash, loaded->string, expire_at_ms, access_clock);
  }
  const Database::SetOutcome outcome = keyspace.RestoreObject(
      db, key, hash, loaded->type, loaded->encoding, loaded->object, expire_at_ms, access_clock);
  if (outcome == Database::SetOutcome::kOutOfMemory) {
    loaded->Discard(keyspace.memory());
  } else {
    loaded->object = nullptr;  // the entry owns it now
  }
  return outcome;
}

}  // namespace keel
