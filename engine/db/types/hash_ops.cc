#include "engine/db/types/hash_ops.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/db/digest.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/listpack.h"

namespace keel {
namespace {

// The longest field or value a loaded hash may hold: RDB strings of Redis 7.0 are at most
// proto-max-bulk-len, and a single element of a listpack or ziplist at most 4 GB.
constexpr size_t kElementBytesMax = UINT32_MAX;

const HashValue& HashOf(const Entry& entry) {
  return *static_cast<const HashValue*>(EntryObject(entry));
}

void HashDestroy(Entry& entry, MemoryAccountant& memory) {
  HashValue::Destroy(static_cast<HashValue*>(EntryObject(entry)), memory);
}

bool HashCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  HashValue* copy = HashValue::Clone(HashOf(from), memory);
  if (copy == nullptr) return false;
  SetEntryObject(to, copy);
  return true;
}

size_t HashExternalBytes(const Entry& entry) { return HashOf(entry).allocated_bytes(); }

// A listpack with field TTLs is Redis 7.4's "listpackex" (Redis keeps that name after the last
// TTL goes; Keel's listpack drops its TTL table then and says "listpack" again).
std::string_view HashEncodingName(const Entry& entry) {
  const HashValue& hash = HashOf(entry);
  if (hash.is_listpack() && hash.has_field_ttls()) return "listpackex";
  return ObjectEncodingName(HashEncodingOf(hash));
}

// The listpack Redis would hold for `hash`: field, value, ... in the hash's order, integers as
// integers (listpack::WriteEntry decides as lpAppend does).
std::string ListpackOf(const HashValue& hash) {
  size_t bytes = listpack::kEmptyBytes;
  hash.ForEach([&](std::string_view field, std::string_view value) {
    bytes += listpack::EntryBytes(field) + listpack::EntryBytes(value);
  });
  std::string blob(bytes, '\0');
  auto* out = reinterpret_cast<unsigned char*>(blob.data());
  size_t at = listpack::kHeaderBytes;
  hash.ForEach([&](std::string_view field, std::string_view value) {
    listpack::WriteEntry(field, out + at);
    at += listpack::EntryBytes(field);
    listpack::WriteEntry(value, out + at);
    at += listpack::EntryBytes(value);
  });
  out[at] = listpack::kEnd;
  listpack::SetHeader(out, static_cast<uint32_t>(bytes), hash.size() * 2);
  return blob;
}

// rdbSaveObject: a listpack as its blob (a string, LZF-compressed like any other), a hashtable
// as its field count and each field and value.
void HashSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  const HashValue& hash = HashOf(entry);
  if (hash.has_field_ttls()) {
    // Redis 7.4's RDB_TYPE_HASH_METADATA (either encoding: Redis writes a listpack as
    // RDB_TYPE_HASH_LISTPACK_EX, and loads both): the earliest expiry (8 bytes), the count, then
    // per field 0 (no TTL) or its expiry - earliest + 1, the field and the value.
    int64_t earliest = INT64_MAX;
    hash.ForEachFieldTtl(
        [&](std::string_view, int64_t when) { earliest = std::min(earliest, when); });
    out->push_back(static_cast<char>(rdb::kTypeHashMetadata));
    for (int i = 0; i < 8; i++) {
      out->push_back(static_cast<char>(static_cast<uint64_t>(earliest) >> (8 * i)));
    }
    rdb::WriteLength(out, hash.size());
    hash.ForEach([&](std::string_view field, std::string_view value) {
      const int64_t when = hash.FieldExpireAt(field);
      rdb::WriteLength(
          out, when == HashValue::kNoFieldTtl ? 0 : static_cast<uint64_t>(when - earliest) + 1);
      rdb::WriteString(out, field, options.compress);
      rdb::WriteString(out, value, options.compress);
    });
    return;
  }
  if (hash.is_listpack()) {
    out->push_back(static_cast<char>(rdb::kTypeHashListpack));
    rdb::WriteString(out, ListpackOf(hash), options.compress);
    return;
  }
  out->push_back(static_cast<char>(rdb::kTypeHash));
  rdb::WriteLength(out, hash.size());
  hash.ForEach([&](std::string_view field, std::string_view value) {
    rdb::WriteString(out, field, options.compress);
    rdb::WriteString(out, value, options.compress);
  });
}

// xorObjectDigest's hash case: each pair mixed into its own digest, the pairs xor-ed together,
// so their order does not count.
void HashDigest(const Entry& entry, DigestBuilder& digest) {
  HashOf(entry).ForEach([&](std::string_view field, std::string_view value) {
    DigestBuilder pair;
    pair.Mix(field);
    pair.Mix(value);
    digest.XorDigest(pair);
  });
}

// Builds a loaded hash pair by pair as rdbLoadObject does: a listpack while it fits `limits`,
// converted as soon as it does not; a repeated field is corrupt.
class Loader {
 public:
  Loader(const HashLimits& limits, uint64_t hash_seed, MemoryAccountant& memory, size_t fields)
      : limits_(limits), memory_(memory) {
    hash_ = fields > limits.listpack_entries ? HashValue::CreateHashtable(memory, hash_seed, fields)
                                             : HashValue::Create(memory, hash_seed);
  }
  ~Loader() { HashValue::Destroy(hash_, memory_); }
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  LoadStatus Add(std::string_view field, std::string_view value) {
    if (hash_ == nullptr) return LoadStatus::kOutOfMemory;
    if (hash_->is_listpack() &&
        (field.size() > limits_.listpack_value || value.size() > limits_.listpack_value ||
         hash_->size() + 1 > limits_.listpack_entries) &&
        !hash_->ConvertToHashtable(hash_->size() + 1, memory_)) {
      return LoadStatus::kOutOfMemory;
    }
    switch (hash_->Set(field, value, memory_)) {
      case HashValue::SetOutcome::kInserted:
        return LoadStatus::kLoaded;
      case HashValue::SetOutcome::kUpdated:  // "Duplicate hash fields detected"
        return LoadStatus::kCorrupt;
      case HashValue::SetOutcome::kOutOfMemory:
        break;
    }
    return LoadStatus::kOutOfMemory;
  }
  // The hash, owned by the caller; kCorrupt when empty.
  LoadStatus Finish(HashValue** out) {
    if (hash_ == nullptr) return LoadStatus::kOutOfMemory;
    if (hash_->size() == 0) return LoadStatus::kCorrupt;
    *out = hash_;
    hash_ = nullptr;
    return LoadStatus::kLoaded;
  }

 private:
  const HashLimits& limits_;
  MemoryAccountant& memory_;
  HashValue* hash_ = nullptr;
};

LoadStatus LoadPlainHash(rdb::Reader& reader, const HashLimits& limits, uint64_t hash_seed,
                         MemoryAccountant& memory, HashValue** out) {
  uint64_t length = 0;
  if (!reader.ReadLength(&length) || length == 0) return LoadStatus::kCorrupt;
  // Each pair takes at least two bytes: a claimed length past that is corrupt, and the table's
  // first size is bounded by what the payload can hold.
  if (length > reader.remaining() / 2) return LoadStatus::kCorrupt;
  Loader loader(limits, hash_seed, memory, reader.PresizeFor(length, 2));
  std::string field;
  std::string value;
  for (uint64_t i = 0; i < length; i++) {
    if (!reader.ReadString(&field, kElementBytesMax) ||
        !reader.ReadString(&value, kElementBytesMax)) {
      return LoadStatus::kCorrupt;
    }
    const LoadStatus status = loader.Add(field, value);
    if (status != LoadStatus::kLoaded) return status;
  }
  return loader.Finish(out);
}

// Adds elements read in pairs (field, value, ...) from a packed blob.
LoadStatus LoadPairs(const std::vector<std::string>& elements, const HashLimits& limits,
                     uint64_t hash_seed, MemoryAccountant& memory, HashValue** out) {
  if (elements.empty() || elements.size() % 2 != 0) return LoadStatus::kCorrupt;
  Loader loader(limits, hash_seed, memory, elements.size() / 2);
  for (size_t i = 0; i < elements.size(); i += 2) {
    const LoadStatus status = loader.Add(elements[i], elements[i + 1]);
    if (status != LoadStatus::kLoaded) return status;
  }
  return loader.Finish(out);
}

uint64_t ReadLittleEndian(const unsigned char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; i++) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

// One ziplist entry at `p` (`available` bytes before the end byte), appended to `elements`;
// returns its size, or 0 when malformed (ziplist.c's layout, checked as its deep validation
// checks it: the previous-entry length must match).
size_t ReadZiplistEntry(const unsigned char* p, size_t available, size_t previous_bytes,
                        std::vector<std::string>* elements) {
  if (available < 2 || p[0] == 0xFF) return 0;
  size_t at = 1;
  uint64_t previous = p[0];
  if (p[0] == 0xFE) {
    if (available < 6) return 0;
    previous = ReadLittleEndian(p + 1, 4);
    at = 5;
  }
  if (previous != previous_bytes) return 0;
  const unsigned char encoding = p[at];
  uint64_t string_bytes = 0;
  size_t header = 1;
  switch (encoding >> 6) {
    case 0:
      string_bytes = encoding & 0x3F;
      break;
    case 1:
      if (at + 2 > available) return 0;
      string_bytes = static_cast<uint64_t>(encoding & 0x3F) << 8 | p[at + 1];
      header = 2;
      break;
    case 2:
      if (encoding != 0x80 || at + 5 > available) return 0;
      string_bytes = static_cast<uint64_t>(p[at + 1]) << 24 |
                     static_cast<uint64_t>(p[at + 2]) << 16 |
                     static_cast<uint64_t>(p[at + 3]) << 8 | p[at + 4];
      header = 5;
      break;
    default: {
      // Integers: 16, 32, 64, 24 or 8 bits little-endian, or 0..12 in the encoding itself.
      size_t width = 0;
      int64_t value = 0;
      if (encoding == 0xC0) {
        width = 2;
      } else if (encoding == 0xD0) {
        width = 4;
      } else if (encoding == 0xE0) {
        width = 8;
      } else if (encoding == 0xF0) {
        width = 3;
      } else if (encoding == 0xFE) {
        width = 1;
      } else if (encoding >= 0xF1 && encoding <= 0xFD) {
        value = (encoding & 0x0F) - 1;
      } else {
        return 0;
      }
      if (at + 1 + width > available) return 0;
      if (width > 0) {
        const uint64_t raw = ReadLittleEndian(p + at + 1, width);
        const uint64_t sign = uint64_t{1} << (8 * width - 1);
        value = static_cast<int64_t>((raw ^ sign) - sign);
      }
      char text[kInt64TextMax];
      elements->emplace_back(text, FormatInt64(value, text));
      return at + 1 + width;
    }
  }
  if (string_bytes > available - at - header) return 0;
  elements->emplace_back(reinterpret_cast<const char*>(p + at + header),
                         static_cast<size_t>(string_bytes));
  return at + header + static_cast<size_t>(string_bytes);
}

// A whole ziplist: total bytes, tail offset, count (65535: unknown), entries, 0xFF.
bool ReadZiplist(std::string_view blob, std::vector<std::string>* elements) {
  constexpr size_t kHeaderBytes = 10;
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  if (blob.size() < kHeaderBytes + 1 || ReadLittleEndian(p, 4) != blob.size() ||
      p[blob.size() - 1] != 0xFF) {
    return false;
  }
  const size_t tail = ReadLittleEndian(p + 4, 4);
  const size_t count = ReadLittleEndian(p + 8, 2);
  const size_t end = blob.size() - 1;
  size_t offset = kHeaderBytes;
  size_t previous_bytes = 0;
  size_t last_entry = kHeaderBytes;
  while (offset < end) {
    const size_t size = ReadZiplistEntry(p + offset, end - offset, previous_bytes, elements);
    if (size == 0) return false;
    last_entry = offset;
    previous_bytes = size;
    offset += size;
  }
  if (offset != end || last_entry != tail) return false;
  return count == 65535 || count == elements->size();
}

// A zipmap (zipmap.c): a count byte, then length-prefixed field and value (a length below 254
// in one byte, else 254 and four bytes; a value followed by a free-bytes count and that many
// unused bytes), then 0xFF.
bool ReadZipmap(std::string_view blob, std::vector<std::string>* elements) {
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  const size_t size = blob.size();
  if (size < 2) return false;
  size_t at = 1;
  auto read_length = [&](uint64_t* length) {
    if (at >= size) return false;
    if (p[at] < 254) {
      *length = p[at++];
      return true;
    }
    if (p[at] != 254 || at + 5 > size) return false;
    *length = ReadLittleEndian(p + at + 1, 4);
    at += 5;
    return true;
  };
  while (at < size && p[at] != 0xFF) {
    uint64_t field_bytes = 0;
    if (!read_length(&field_bytes) || field_bytes > size - at) return false;
    elements->emplace_back(reinterpret_cast<const char*>(p + at), field_bytes);
    at += field_bytes;
    uint64_t value_bytes = 0;
    if (!read_length(&value_bytes) || at >= size) return false;
    const size_t free_bytes = p[at++];
    if (value_bytes > size - at || free_bytes > size - at - value_bytes) return false;
    elements->emplace_back(reinterpret_cast<const char*>(p + at), value_bytes);
    at += value_bytes + free_bytes;
  }
  // The end byte is the last byte.
  return at + 1 == size;
}

}  // namespace

const ValueOps kHashOps = {
    .type = ValueType::kHash,
    .destroy = HashDestroy,
    .copy = HashCopy,
    .external_bytes = HashExternalBytes,
    .encoding_name = HashEncodingName,
    .serialise = HashSerialise,
    .digest = HashDigest,
};

ObjectEncoding HashEncodingOf(const HashValue& hash) {
  return hash.is_listpack() ? ObjectEncoding::kListpack : ObjectEncoding::kHashtable;
}

bool IsHashRdbType(uint8_t rdb_type) {
  return rdb_type == rdb::kTypeHash || rdb_type == rdb::kTypeHashZipmap ||
         rdb_type == rdb::kTypeHashZiplist || rdb_type == rdb::kTypeHashListpack ||
         (rdb_type >= rdb::kTypeHashMetadataPreGa && rdb_type <= rdb::kTypeHashListpackEx);
}

namespace {

// Redis's EB_EXPIRE_TIME_MAX: a field expiry past it is corrupt.
constexpr uint64_t kFieldExpireMax = (uint64_t{1} << 48) - 1;

bool ReadMilliseconds(rdb::Reader& reader, uint64_t* ms) {
  *ms = 0;
  for (int i = 0; i < 8; i++) {
    uint8_t byte = 0;
    if (!reader.ReadByte(&byte)) return false;
    *ms |= static_cast<uint64_t>(byte) << (8 * i);
  }
  return true;
}

// Gives the loaded hash its fields' TTLs; a field named twice or an invalid time is corrupt.
LoadStatus AttachTtls(HashValue* hash, const std::vector<std::pair<std::string, uint64_t>>& ttls,
                      MemoryAccountant& memory) {
  for (const auto& [field, when] : ttls) {
    if (when > kFieldExpireMax || !hash->Contains(field)) return LoadStatus::kCorrupt;
    if (!hash->SetFieldExpireAt(field, static_cast<int64_t>(when), memory)) {
      return LoadStatus::kOutOfMemory;
    }
  }
  return LoadStatus::kLoaded;
}

// RDB_TYPE_HASH_METADATA and its pre-GA form (absolute times, no minimum first).
LoadStatus LoadHashMetadata(uint8_t rdb_type, rdb::Reader& reader, const HashLimits& limits,
                            uint64_t hash_seed, MemoryAccountant& memory, HashValue** out) {
  uint64_t earliest = 0;
  if (rdb_type == rdb::kTypeHashMetadata &&
      (!ReadMilliseconds(reader, &earliest) || earliest > kFieldExpireMax + 1)) {
    return LoadStatus::kCorrupt;
  }
  uint64_t length = 0;
  if (!reader.ReadLength(&length) || length == 0) return LoadStatus::kCorrupt;
  if (length > reader.remaining() / 3) return LoadStatus::kCorrupt;
  Loader loader(limits, hash_seed, memory, reader.PresizeFor(length, 3));
  std::vector<std::pair<std::string, uint64_t>> ttls;
  std::string field;
  std::string value;
  for (uint64_t i = 0; i < length; i++) {
    uint64_t ttl = 0;
    if (!reader.ReadLength(&ttl) || !reader.ReadString(&field, kElementBytesMax) ||
        !reader.ReadString(&value, kElementBytesMax)) {
      return LoadStatus::kCorrupt;
    }
    const LoadStatus status = loader.Add(field, value);
    if (status != LoadStatus::kLoaded) return status;
    if (ttl == 0) continue;
    if (rdb_type == rdb::kTypeHashMetadata && ttl - 1 > kFieldExpireMax - earliest) {
      return LoadStatus::kCorrupt;
    }
    ttls.emplace_back(field, rdb_type == rdb::kTypeHashMetadata ? ttl - 1 + earliest : ttl);
  }
  HashValue* hash = nullptr;
  const LoadStatus status = loader.Finish(&hash);
  if (status != LoadStatus::kLoaded) return status;
  const LoadStatus attached = AttachTtls(hash, ttls, memory);
  if (attached != LoadStatus::kLoaded) {
    HashValue::Destroy(hash, memory);
    return attached;
  }
  *out = hash;
  return LoadStatus::kLoaded;
}

// RDB_TYPE_HASH_LISTPACK_EX and its pre-GA form: a listpack of field, value, ttl (0: none).
LoadStatus LoadHashListpackEx(uint8_t rdb_type, rdb::Reader& reader, const HashLimits& limits,
                              uint64_t hash_seed, MemoryAccountant& memory, HashValue** out) {
  uint64_t earliest = 0;
  if (rdb_type == rdb::kTypeHashListpackEx && !ReadMilliseconds(reader, &earliest)) {
    return LoadStatus::kCorrupt;
  }
  std::string blob;
  if (!reader.ReadString(&blob, kElementBytesMax)) return LoadStatus::kCorrupt;
  std::vector<std::string> elements;
  if (!listpack::ReadAll(blob, &elements) || elements.empty() || elements.size() % 3 != 0) {
    return LoadStatus::kCorrupt;
  }
  Loader loader(limits, hash_seed, memory, elements.size() / 3);
  std::vector<std::pair<std::string, uint64_t>> ttls;
  for (size_t i = 0; i < elements.size(); i += 3) {
    int64_t ttl = 0;
    if (!ParseStrictInt64(elements[i + 2], &ttl) || ttl < 0) return LoadStatus::kCorrupt;
    const LoadStatus status = loader.Add(elements[i], elements[i + 1]);
    if (status != LoadStatus::kLoaded) return status;
    if (ttl != 0) ttls.emplace_back(elements[i], static_cast<uint64_t>(ttl));
  }
  HashValue* hash = nullptr;
  const LoadStatus status = loader.Finish(&hash);
  if (status != LoadStatus::kLoaded) return status;
  const LoadStatus attached = AttachTtls(hash, ttls, memory);
  if (attached != LoadStatus::kLoaded) {
    HashValue::Destroy(hash, memory);
    return attached;
  }
  *out = hash;
  return LoadStatus::kLoaded;
}

}  // namespace

LoadStatus LoadHash(uint8_t rdb_type, rdb::Reader& reader, const HashLimits& limits,
                    uint64_t hash_seed, MemoryAccountant& memory, HashValue** out) {
  KEEL_ASSERT(IsHashRdbType(rdb_type));
  if (rdb_type == rdb::kTypeHash) return LoadPlainHash(reader, limits, hash_seed, memory, out);
  if (rdb_type == rdb::kTypeHashMetadata || rdb_type == rdb::kTypeHashMetadataPreGa) {
    return LoadHashMetadata(rdb_type, reader, limits, hash_seed, memory, out);
  }
  if (rdb_type == rdb::kTypeHashListpackEx || rdb_type == rdb::kTypeHashListpackExPreGa) {
    return LoadHashListpackEx(rdb_type, reader, limits, hash_seed, memory, out);
  }
  std::string blob;
  if (!reader.ReadString(&blob, kElementBytesMax)) return LoadStatus::kCorrupt;
  std::vector<std::string> elements;
  bool valid = false;
  if (rdb_type == rdb::kTypeHashListpack) {
    valid = listpack::ReadAll(blob, &elements);
  } else if (rdb_type == rdb::kTypeHashZiplist) {
    valid = ReadZiplist(blob, &elements);
  } else {
    valid = ReadZipmap(blob, &elements);
  }
  if (!valid) return LoadStatus::kCorrupt;
  return LoadPairs(elements, limits, hash_seed, memory, out);
}

}  // namespace keel
