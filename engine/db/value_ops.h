// The operations every value type provides: one table per type (string, list, set, ...), so that
// the keyspace, the commands that move values around, persistence and the debugging commands
// handle every type the same way, and a new type is a new table (docs/ADDING_A_TYPE.md).
//
// Strings live inline in their entry (entry.h). Every other type's entry holds, in its value
// bytes, a pointer to its structure: that structure is allocated through the keyspace's
// MemoryAccountant (so used_memory counts it and the simulator can refuse it), owned by the entry
// and destroyed with it. Moving an entry to a new block (an expiry added, a key renamed) moves the
// pointer; copying a value (COPY, MOVE into another database, RESTORE) deep-copies the structure.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/db/entry.h"
#include "engine/env/memory.h"

namespace keel {

class DigestBuilder;

struct SerialiseOptions {
  bool compress = true;  // rdbcompression: LZF for strings longer than 20 bytes
};

struct ValueOps {
  ValueType type;
  // Frees what the value owns outside its entry's block (nothing for an inline string).
  void (*destroy)(Entry& entry, MemoryAccountant& memory);
  // Makes `to` (a new entry of the same type, encoding and value size) hold a copy of `from`'s
  // value. False when memory is refused: `to` then owns nothing and may be freed as it is.
  bool (*copy)(const Entry& from, Entry& to, MemoryAccountant& memory);
  // The bytes the value occupies outside its entry's block (MEMORY USAGE adds the block).
  size_t (*external_bytes)(const Entry& entry);
  // OBJECT ENCODING's name for the value as it is stored now.
  std::string_view (*encoding_name)(const Entry& entry);
  // Appends the RDB encoding of the value: its type byte, then the value (rdbSaveObjectType and
  // rdbSaveObject). DUMP, RDB files, AOF rewrite and the simulator's comparisons use this.
  void (*serialise)(const Entry& entry, const SerialiseOptions& options, std::string* out);
  // Adds the value to a DEBUG DIGEST-VALUE digest (the part of xorObjectDigest after the type).
  void (*digest)(const Entry& entry, DigestBuilder& digest);
};

// The operations of `type`, or nullptr when Keel has no values of that type yet.
const ValueOps* OpsFor(ValueType type);

// Tests of a type's plumbing install fake operations for a type, and must put back what was
// there (OpsFor's answer before) before they end.
void SetValueOpsForTesting(ValueType type, const ValueOps* ops);

// The pointer an object-typed entry holds in its value bytes.
inline void* EntryObject(const Entry& entry) {
  void* object = nullptr;
  KEEL_DASSERT(entry.value_size() == sizeof(object));
  std::memcpy(&object, entry.value().data(), sizeof(object));
  return object;
}
inline void SetEntryObject(Entry& entry, void* object) {
  KEEL_DASSERT(entry.value_size() == sizeof(object));
  std::memcpy(entry.value_data(), &object, sizeof(object));
}

// Shorthands over OpsFor for an entry of any type (an entry of a type without operations, as
// WRONGTYPE tests plant one, is treated as inline bytes).
std::string_view EncodingNameOf(const Entry& entry);
void SerialiseValue(const Entry& entry, const SerialiseOptions& options, std::string* out);
size_t ExternalBytesOf(const Entry& entry);

}  // namespace keel
