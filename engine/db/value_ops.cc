#include "engine/db/value_ops.h"

#include <array>

#include "engine/db/digest.h"
#include "engine/db/rdb_format.h"
#include "engine/db/types/hash_ops.h"
#include "engine/db/types/list.h"
#include "engine/db/types/list_rdb.h"
#include "engine/db/types/set_ops.h"
#include "engine/db/types/stream_ops.h"
#include "engine/db/types/zset_ops.h"

namespace keel {
namespace {

// Strings: the value is the entry's own bytes, or for an external string the block it owns.
void StringDestroy(Entry& entry, MemoryAccountant& memory) {
  if (!entry.external()) return;
  const ExternalString string = entry.external_string();
  memory.Deallocate(string.block, string.block_bytes, MemoryUse::kKeyspace);
}

bool StringCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  const std::string_view value = from.value();
  if (from.external()) {
    // A block of its own, holding just the string.
    KEEL_DASSERT(to.external() && !value.empty());
    auto* block = static_cast<char*>(memory.Allocate(value.size(), MemoryUse::kKeyspace));
    if (block == nullptr) return false;
    std::memcpy(block, value.data(), value.size());
    const ExternalString copy{block, value.size(), 0, value.size()};
    to.set_external_string(copy);
    return true;
  }
  KEEL_DASSERT(to.value_size() == value.size());
  if (!value.empty()) std::memcpy(to.value_data(), value.data(), value.size());
  return true;
}

size_t StringExternalBytes(const Entry& entry) {
  return entry.external() ? entry.external_string().block_bytes : 0;
}

std::string_view StringEncodingName(const Entry& entry) {
  return ObjectEncodingName(entry.encoding());
}

// rdbSaveStringObject: an int-encoded value and a raw one with the same text serialise alike
// (an integer of 32 bits as such, any other as its text), so the bytes decide.
void StringSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  out->push_back(static_cast<char>(rdb::kTypeString));
  rdb::WriteString(out, entry.value(), options.compress);
}

void StringDigest(const Entry& entry, DigestBuilder& digest) { digest.Mix(entry.value()); }

constexpr ValueOps kStringOps = {
    .type = ValueType::kString,
    .destroy = StringDestroy,
    .copy = StringCopy,
    .external_bytes = StringExternalBytes,
    .encoding_name = StringEncodingName,
    .serialise = StringSerialise,
    .digest = StringDigest,
};

// Lists (engine/db/types/list.h): the entry holds a List*.
const List& ListOf(const Entry& entry) { return *static_cast<const List*>(EntryObject(entry)); }

void ListDestroy(Entry& entry, MemoryAccountant& memory) {
  List::Destroy(static_cast<List*>(EntryObject(entry)), memory);
}

bool ListCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  List* copy = List::Copy(ListOf(from), memory);
  if (copy == nullptr) return false;
  SetEntryObject(to, copy);
  return true;
}

size_t ListExternalBytes(const Entry& entry) { return ListOf(entry).external_bytes(); }

std::string_view ListEncodingName(const Entry& /*entry*/) { return "quicklist"; }

void ListSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  SerialiseList(ListOf(entry), options.compress, out);
}

void ListDigest(const Entry& entry, DigestBuilder& digest) { DigestList(ListOf(entry), digest); }

constexpr ValueOps kListOps = {
    .type = ValueType::kList,
    .destroy = ListDestroy,
    .copy = ListCopy,
    .external_bytes = ListExternalBytes,
    .encoding_name = ListEncodingName,
    .serialise = ListSerialise,
    .digest = ListDigest,
};

constexpr size_t kTypeCount = static_cast<size_t>(ValueType::kStream) + 1;

// Indexed by ValueType. Types without commands yet have no operations; each family's table is
// added here when it lands.
std::array<const ValueOps*, kTypeCount> ops_by_type = [] {
  std::array<const ValueOps*, kTypeCount> table{};
  table[static_cast<size_t>(ValueType::kString)] = &kStringOps;
  table[static_cast<size_t>(ValueType::kList)] = &kListOps;
  table[static_cast<size_t>(ValueType::kSet)] = &kSetOps;
  table[static_cast<size_t>(ValueType::kHash)] = &kHashOps;
  table[static_cast<size_t>(ValueType::kZSet)] = &kZsetOps;
  table[static_cast<size_t>(ValueType::kStream)] = &kStreamOps;
  return table;
}();

// The fallback for an entry whose type has no table (tests plant such entries): its bytes.
const ValueOps& OpsOrInline(const Entry& entry) {
  const ValueOps* ops = OpsFor(entry.type());
  return ops != nullptr ? *ops : kStringOps;
}

}  // namespace

const ValueOps* OpsFor(ValueType type) {
  const auto index = static_cast<size_t>(type);
  return index < ops_by_type.size() ? ops_by_type[index] : nullptr;
}

void SetValueOpsForTesting(ValueType type, const ValueOps* ops) {
  KEEL_ASSERT(type != ValueType::kString);
  ops_by_type[static_cast<size_t>(type)] = ops;
}

std::string_view EncodingNameOf(const Entry& entry) {
  return OpsOrInline(entry).encoding_name(entry);
}

void SerialiseValue(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  OpsOrInline(entry).serialise(entry, options, out);
}

size_t ExternalBytesOf(const Entry& entry) { return OpsOrInline(entry).external_bytes(entry); }

void DigestEntry(const Entry& entry, DigestBuilder& digest, const DigestOptions& options) {
  // Redis's object type numbers: OBJ_STREAM is 6 (5 was OBJ_MODULE's place).
  const uint32_t type =
      entry.type() == ValueType::kStream ? 6u : static_cast<uint32_t>(entry.type());
  const unsigned char type_big_endian[4] = {
      static_cast<unsigned char>(type >> 24), static_cast<unsigned char>(type >> 16),
      static_cast<unsigned char>(type >> 8), static_cast<unsigned char>(type)};
  digest.Mix(std::string_view(reinterpret_cast<const char*>(type_big_endian), 4));
  if (options.zset_negative_zero_as_zero && entry.type() == ValueType::kZSet) {
    DigestZset(entry, /*negative_zero_as_zero=*/true, digest);
  } else {
    OpsOrInline(entry).digest(entry, digest);
  }
  if (entry.has_expiry()) digest.Xor("!!expire!!");
}

}  // namespace keel
