#include "engine/db/types/zset_ops.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "engine/base/numbers.h"
#include "engine/db/digest.h"
#include "engine/db/types/list_rdb.h"

namespace keel {
namespace {

const ZsetValue& ZsetOf(const Entry& entry) {
  return *static_cast<const ZsetValue*>(EntryObject(entry));
}

void ZsetDestroy(Entry& entry, MemoryAccountant& memory) {
  ZsetValue::Destroy(static_cast<ZsetValue*>(EntryObject(entry)), memory);
}

bool ZsetCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  ZsetValue* copy = ZsetValue::Clone(ZsetOf(from), memory);
  if (copy == nullptr) return false;
  SetEntryObject(to, copy);
  return true;
}

size_t ZsetExternalBytes(const Entry& entry) { return ZsetOf(entry).allocated_bytes(); }

std::string_view ZsetEncodingName(const Entry& entry) {
  return ObjectEncodingName(ZsetEncodingOf(ZsetOf(entry)));
}

// rdbSaveObject: a listpack as its blob; a skiplist as its length and then each member with
// its binary score, from the highest to the lowest (Redis writes from the tail, so that loading
// inserts each at the head of the skiplist).
void ZsetSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  const ZsetValue& zset = ZsetOf(entry);
  if (zset.is_listpack()) {
    out->push_back(static_cast<char>(rdb::kTypeZsetListpack));
    rdb::WriteString(out, zset.listpack_blob(), options.compress);
    return;
  }
  out->push_back(static_cast<char>(rdb::kTypeZset2));
  rdb::WriteLength(out, zset.size());
  zset.ForRange(0, zset.size(), true, [&](std::string_view member, double score) {
    rdb::WriteString(out, member, options.compress);
    char bytes[sizeof(double)];
    std::memcpy(bytes, &score, sizeof(score));  // little-endian, as x86 and Redis write it
    out->append(bytes, sizeof(bytes));
  });
}

void ZsetDigest(const Entry& entry, DigestBuilder& digest) {
  DigestZset(entry, /*negative_zero_as_zero=*/false, digest);
}

// rdbLoadDoubleValue: a length byte (253 NaN, 254 +inf, 255 -inf) and that many bytes of text.
bool ReadTextScore(rdb::Reader& reader, double* score) {
  uint8_t length = 0;
  if (!reader.ReadByte(&length)) return false;
  if (length == 253) {
    *score = std::nan("");
    return true;
  }
  if (length >= 254) {
    *score = length == 254 ? HUGE_VAL : -HUGE_VAL;
    return true;
  }
  char text[256];
  for (uint8_t i = 0; i < length; i++) {
    uint8_t byte = 0;
    if (!reader.ReadByte(&byte)) return false;
    text[i] = static_cast<char>(byte);
  }
  text[length] = '\0';
  return std::sscanf(text, "%lg", score) == 1;
}

bool ReadBinaryScore(rdb::Reader& reader, double* score) {
  char bytes[sizeof(double)];
  for (char& byte : bytes) {
    uint8_t read = 0;
    if (!reader.ReadByte(&read)) return false;
    byte = static_cast<char>(read);
  }
  std::memcpy(score, bytes, sizeof(double));
  return true;
}

LoadStatus LoadPairs(uint8_t rdb_type, rdb::Reader& reader, const ZsetValue::Limits& limits,
                     uint64_t hash_seed, MemoryAccountant& memory, ZsetValue** out) {
  uint64_t length = 0;
  if (!reader.ReadLength(&length) || length == 0) return LoadStatus::kCorrupt;
  // Each pair takes at least two bytes: a longer claim is corrupt before anything is sized by it.
  if (length > reader.remaining() / 2) return LoadStatus::kCorrupt;
  ZsetValue* zset = ZsetValue::CreateSkiplist(memory, hash_seed, reader.PresizeFor(length, 2));
  if (zset == nullptr) return LoadStatus::kOutOfMemory;
  const ZsetValue::Limits unlimited{0, 0};
  std::string member;
  LoadStatus status = LoadStatus::kLoaded;
  for (uint64_t i = 0; i < length && status == LoadStatus::kLoaded; i++) {
    double score = 0;
    if (!reader.ReadString(&member, UINT32_MAX) ||
        !(rdb_type == rdb::kTypeZset2 ? ReadBinaryScore(reader, &score)
                                      : ReadTextScore(reader, &score)) ||
        std::isnan(score)) {
      status = LoadStatus::kCorrupt;
      break;
    }
    double existing = 0;
    if (zset->Score(member, &existing)) {  // "Duplicate zset fields detected"
      status = LoadStatus::kCorrupt;
      break;
    }
    if (zset->Set(member, score, unlimited, memory) == ZsetValue::SetOutcome::kOutOfMemory) {
      status = LoadStatus::kOutOfMemory;
    }
  }
  // Converted after loading, as Redis does, when it fits (a refusal keeps the skiplist).
  if (status == LoadStatus::kLoaded && zset->FitsListpack(limits)) {
    (void)zset->ConvertToListpack(memory);
  }
  if (status != LoadStatus::kLoaded) {
    ZsetValue::Destroy(zset, memory);
    return status;
  }
  *out = zset;
  return status;
}

}  // namespace

void DigestZset(const Entry& entry, bool negative_zero_as_zero, DigestBuilder& digest) {
  ZsetOf(entry).ForEach([&](std::string_view member, double score) {
    DigestBuilder element;
    element.Mix(member);
    // 0 == -0: the comparison is true for both zeros, and the sum makes either of them +0.
    if (negative_zero_as_zero && score == 0) score = 0.0;
    char text[kDoubleTextMax];
    element.Mix(std::string_view(text, FormatDouble(score, text)));
    digest.XorDigest(element);
  });
}

const ValueOps kZsetOps = {
    .type = ValueType::kZSet,
    .destroy = ZsetDestroy,
    .copy = ZsetCopy,
    .external_bytes = ZsetExternalBytes,
    .encoding_name = ZsetEncodingName,
    .serialise = ZsetSerialise,
    .digest = ZsetDigest,
};

LoadStatus LoadZset(uint8_t rdb_type, rdb::Reader& reader, const ZsetValue::Limits& limits,
                    uint64_t hash_seed, MemoryAccountant& memory, ZsetValue** out) {
  if (rdb_type == rdb::kTypeZset || rdb_type == rdb::kTypeZset2) {
    return LoadPairs(rdb_type, reader, limits, hash_seed, memory, out);
  }
  std::string blob;
  if (!reader.ReadString(&blob, UINT32_MAX)) return LoadStatus::kCorrupt;
  if (rdb_type == rdb::kTypeZsetZiplist) {
    std::string converted;
    size_t count = 0;
    if (!ZiplistToListpack(blob, &converted, &count)) return LoadStatus::kCorrupt;
    blob.swap(converted);
  } else {
    KEEL_ASSERT(rdb_type == rdb::kTypeZsetListpack);
  }
  bool corrupt = false;
  ZsetValue* zset = ZsetValue::FromListpackBlob(memory, hash_seed, blob, &corrupt);
  if (zset == nullptr) return corrupt ? LoadStatus::kCorrupt : LoadStatus::kOutOfMemory;
  if (zset->size() == 0) {
    ZsetValue::Destroy(zset, memory);
    return LoadStatus::kCorrupt;
  }
  if (zset->size() > limits.entries_max && !zset->ConvertToSkiplist(memory)) {
    ZsetValue::Destroy(zset, memory);
    return LoadStatus::kOutOfMemory;
  }
  *out = zset;
  return LoadStatus::kLoaded;
}

}  // namespace keel
