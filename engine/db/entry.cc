#include "engine/db/entry.h"

#include "engine/base/numbers.h"

namespace keel {

std::string_view ObjectEncodingName(ObjectEncoding encoding) {
  switch (encoding) {
    case ObjectEncoding::kRaw:
    case ObjectEncoding::kRawGrowable:
    case ObjectEncoding::kRawExternal:
      return "raw";
    case ObjectEncoding::kInt:
    case ObjectEncoding::kIntShared:
      return "int";
    case ObjectEncoding::kEmbstr:
      return "embstr";
    case ObjectEncoding::kHashtable:
      return "hashtable";
    case ObjectEncoding::kListpack:
      return "listpack";
    case ObjectEncoding::kQuicklist:
      return "quicklist";
    case ObjectEncoding::kIntset:
      return "intset";
    case ObjectEncoding::kSkiplist:
      return "skiplist";
    case ObjectEncoding::kStream:
      return "stream";
  }
  return "unknown";
}

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kString:
      return "string";
    case ValueType::kList:
      return "list";
    case ValueType::kSet:
      return "set";
    case ValueType::kZSet:
      return "zset";
    case ValueType::kHash:
      return "hash";
    case ValueType::kStream:
      return "stream";
  }
  return "none";
}

Entry* Entry::Create(void* block, ValueType type, ObjectEncoding encoding, std::string_view key,
                     size_t value_size, int64_t expire_at_ms) {
  KEEL_DASSERT(encoding != ObjectEncoding::kRawGrowable);
  return Write(block, type, encoding, key, value_size, value_size, expire_at_ms);
}

Entry* Entry::CreateGrowable(void* block, std::string_view key, size_t value_size, size_t capacity,
                             int64_t expire_at_ms) {
  KEEL_DASSERT(value_size <= capacity && capacity <= kGrowableValueBytesMax);
  return Write(block, ValueType::kString, ObjectEncoding::kRawGrowable, key, value_size, capacity,
               expire_at_ms);
}

Entry* Entry::Write(void* block, ValueType type, ObjectEncoding encoding, std::string_view key,
                    size_t value_size, size_t capacity, int64_t expire_at_ms) {
  auto* entry = static_cast<Entry*>(block);
  unsigned char* p = entry->data();
  const bool has_expiry = expire_at_ms != kNoExpiry;
  p[0] = static_cast<unsigned char>(static_cast<int>(type) | static_cast<int>(encoding) << 3 |
                                    (has_expiry ? 0x80 : 0));
  p[1] = p[2] = p[3] = 0;
  size_t offset = kFixedBytes;
  offset += WriteVarint(p + offset, key.size());
  if (encoding == ObjectEncoding::kRawGrowable) {
    WritePaddedVarint(p + offset, value_size);
    offset += kPaddedVarintBytes;
    offset += WriteVarint(p + offset, capacity);
  } else {
    offset += WriteVarint(p + offset, value_size);
  }
  if (has_expiry) {
    std::memcpy(p + offset, &expire_at_ms, sizeof(expire_at_ms));
    std::memset(p + offset + 8, 0, 4);
    offset += kExpiryBytes;
  }
  if (!key.empty()) std::memcpy(p + offset, key.data(), key.size());
  return entry;
}

ObjectEncoding StringEncodingFor(std::string_view value) {
  // Redis's tryObjectEncoding: a value of at most 20 bytes that string2l accepts is stored as an
  // integer; otherwise at most 44 bytes (OBJ_ENCODING_EMBSTR_SIZE_LIMIT) are embedded.
  int64_t number = 0;
  if (value.size() <= 20 && ParseStrictInt64(value, &number)) return ObjectEncoding::kInt;
  return value.size() <= 44 ? ObjectEncoding::kEmbstr : ObjectEncoding::kRaw;
}

}  // namespace keel
