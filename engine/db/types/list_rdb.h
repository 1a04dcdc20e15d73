// A list's RDB form, as Redis 7.0 writes and reads it (rdb.c): written as
// RDB_TYPE_LIST_QUICKLIST_2, the node count then each node as its container kind (2, packed) and
// its listpack as an RDB string; read from that and from the older forms Redis 7.0 still loads:
// RDB_TYPE_LIST (a plain sequence of strings), RDB_TYPE_LIST_ZIPLIST (one ziplist) and
// RDB_TYPE_LIST_QUICKLIST (ziplist nodes). The loader validates every byte it keeps (Redis's
// deep sanitisation, always on: a payload is untrusted), so that nothing it accepts can make a
// later command read out of bounds.
#pragma once

#include <cstdint>
#include <string>

#include "engine/db/rdb_format.h"
#include "engine/db/types/list.h"
#include "engine/env/memory.h"

namespace keel {

class DigestBuilder;

// Appends the type byte and the value (rdbSaveObjectType and rdbSaveObject).
void SerialiseList(const List& list, bool compress, std::string* out);
// Mixes every element, head to tail, as debug.c's xorObjectDigest does for a list.
void DigestList(const List& list, DigestBuilder& digest);

// Whether `rdb_type` is one of the list types above.
bool IsListRdbType(uint8_t rdb_type);

enum class LoadOutcome : uint8_t { kLoaded, kBadFormat, kOutOfMemory };
// Reads a list of `rdb_type` from `reader` into `*list` (a new list with `fill`, owned by the
// caller on kLoaded). An empty list is kBadFormat, as RESTORE refuses it.
LoadOutcome LoadList(uint8_t rdb_type, rdb::Reader& reader, int fill, MemoryAccountant& memory,
                     List** list);

// A ziplist (RDB_TYPE_*_ZIPLIST's payload), checked as LoadList checks one, as the listpack
// holding the same entries (Redis's lpFromZiplist): false when malformed.
bool ZiplistToListpack(std::string_view ziplist, std::string* listpack, size_t* count);

}  // namespace keel
