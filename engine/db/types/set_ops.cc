#include "engine/db/types/set_ops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/db/digest.h"
#include "engine/db/types/listpack.h"
#include "engine/db/types/set.h"

namespace keel {
namespace {

const SetValue& SetOf(const Entry& entry) {
  return *static_cast<const SetValue*>(EntryObject(entry));
}

void SetDestroy(Entry& entry, MemoryAccountant& memory) {
  SetValue::Destroy(static_cast<SetValue*>(EntryObject(entry)), memory);
}

bool SetCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  SetValue* copy = SetValue::Clone(SetOf(from), memory);
  if (copy == nullptr) return false;
  SetEntryObject(to, copy);
  return true;
}

size_t SetExternalBytes(const Entry& entry) { return SetOf(entry).allocated_bytes(); }

std::string_view SetEncodingName(const Entry& entry) {
  return ObjectEncodingName(SetEncodingOf(SetOf(entry)));
}

// rdbSaveObject: an intset as its blob (a string, LZF-compressed like any other), a hashtable
// as its member count and each member.
void SetSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  const SetValue& set = SetOf(entry);
  if (set.is_intset()) {
    out->push_back(static_cast<char>(rdb::kTypeSetIntset));
    rdb::WriteString(out, set.intset_blob(), options.compress);
    return;
  }
  out->push_back(static_cast<char>(rdb::kTypeSet));
  rdb::WriteLength(out, set.size());
  set.ForEach([&](std::string_view member) { rdb::WriteString(out, member, options.compress); });
}

// xorObjectDigest's set case: the members xor-ed in, so their order does not count.
void SetDigest(const Entry& entry, DigestBuilder& digest) {
  SetOf(entry).ForEach([&](std::string_view member) { digest.Xor(member); });
}

// Builds a loaded set of `length` members, each from next(&member) (false: malformed), as Redis
// 7.0's rdbLoadObject does: an intset while the members are integers and no more than
// `intset_max`, converted at the first that is not; a repeated member is corrupt. A hashtable
// starts sized for `presize` members (rdb::Reader::PresizeFor).
template <typename Next>
LoadStatus LoadMembers(uint64_t length, size_t presize, Next&& next, size_t intset_max,
                       uint64_t hash_seed, MemoryAccountant& memory, SetValue** out) {
  if (length == 0) return LoadStatus::kCorrupt;  // an empty key, which Redis refuses
  SetValue* set = length > intset_max ? SetValue::CreateHashtable(memory, hash_seed, presize)
                                      : SetValue::Create(memory, hash_seed);
  if (set == nullptr) return LoadStatus::kOutOfMemory;
  std::string member;
  LoadStatus status = LoadStatus::kLoaded;
  for (uint64_t i = 0; i < length && status == LoadStatus::kLoaded; i++) {
    if (!next(&member)) {
      status = LoadStatus::kCorrupt;
      break;
    }
    // Redis converts a loading intset at its first non-integer with room for every member;
    // the limit cannot be passed here (length <= intset_max).
    if (set->is_intset() && !set->Contains(member)) {
      int64_t ignored = 0;
      if (!ParseStrictInt64(member, &ignored) &&
          !set->ConvertToHashtable(static_cast<size_t>(length), memory)) {
        status = LoadStatus::kOutOfMemory;
        break;
      }
    }
    switch (set->Add(member, SIZE_MAX, memory)) {
      case SetValue::AddOutcome::kAdded:
        break;
      case SetValue::AddOutcome::kPresent:  // "Duplicate set members detected"
        status = LoadStatus::kCorrupt;
        break;
      case SetValue::AddOutcome::kOutOfMemory:
        status = LoadStatus::kOutOfMemory;
        break;
    }
  }
  if (status != LoadStatus::kLoaded) {
    SetValue::Destroy(set, memory);
    return status;
  }
  *out = set;
  return status;
}

LoadStatus LoadPlainSet(rdb::Reader& reader, size_t intset_max, uint64_t hash_seed,
                        MemoryAccountant& memory, SetValue** out) {
  uint64_t length = 0;
  if (!reader.ReadLength(&length)) return LoadStatus::kCorrupt;
  // Each member takes at least a byte: a claimed length past that is corrupt, and the table's
  // first size is bounded by what the payload can hold.
  if (length > reader.remaining()) return LoadStatus::kCorrupt;
  return LoadMembers(
      length, reader.PresizeFor(length, 1),
      [&](std::string* member) { return reader.ReadString(member, UINT32_MAX); }, intset_max,
      hash_seed, memory, out);
}

// Redis 7.2's listpack set (RDB_TYPE_SET_LISTPACK): Keel, as Redis 7.0, keeps small sets as an
// intset or a hashtable, so the members load as a plain set's.
LoadStatus LoadListpackSet(rdb::Reader& reader, size_t intset_max, uint64_t hash_seed,
                           MemoryAccountant& memory, SetValue** out) {
  std::string blob;
  std::vector<std::string> members;
  if (!reader.ReadString(&blob, UINT32_MAX) || !listpack::ReadAll(blob, &members)) {
    return LoadStatus::kCorrupt;
  }
  size_t next = 0;
  return LoadMembers(
      members.size(), members.size(),
      [&](std::string* member) {
        *member = std::move(members[next++]);
        return true;
      },
      intset_max, hash_seed, memory, out);
}

}  // namespace

const ValueOps kSetOps = {
    .type = ValueType::kSet,
    .destroy = SetDestroy,
    .copy = SetCopy,
    .external_bytes = SetExternalBytes,
    .encoding_name = SetEncodingName,
    .serialise = SetSerialise,
    .digest = SetDigest,
};

ObjectEncoding SetEncodingOf(const SetValue& set) {
  return set.is_intset() ? ObjectEncoding::kIntset : ObjectEncoding::kHashtable;
}

LoadStatus LoadSet(uint8_t rdb_type, rdb::Reader& reader, size_t intset_max, uint64_t hash_seed,
                   MemoryAccountant& memory, SetValue** out) {
  if (rdb_type == rdb::kTypeSet) return LoadPlainSet(reader, intset_max, hash_seed, memory, out);
  if (rdb_type == rdb::kTypeSetListpack) {
    return LoadListpackSet(reader, intset_max, hash_seed, memory, out);
  }
  KEEL_ASSERT(rdb_type == rdb::kTypeSetIntset);
  std::string blob;
  if (!reader.ReadString(&blob, UINT32_MAX)) return LoadStatus::kCorrupt;
  bool corrupt = false;
  SetValue* set = SetValue::FromIntsetBlob(memory, hash_seed, blob, intset_max, &corrupt);
  if (set == nullptr) return corrupt ? LoadStatus::kCorrupt : LoadStatus::kOutOfMemory;
  // An empty intset is an empty key, which Redis refuses.
  if (set->size() == 0) {
    SetValue::Destroy(set, memory);
    return LoadStatus::kCorrupt;
  }
  *out = set;
  return LoadStatus::kLoaded;
}

}  // namespace keel
