#include "engine/db/types/list_rdb.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/db/digest.h"

namespace keel {
namespace {

constexpr uint64_t kContainerPlain = 1;   // QUICKLIST_NODE_CONTAINER_PLAIN
constexpr uint64_t kContainerPacked = 2;  // QUICKLIST_NODE_CONTAINER_PACKED
// No element of a list may be larger than what a listpack node holds.
constexpr size_t kElementBytesMax = UINT32_MAX - 64;

// Builds listpack nodes from loose elements: one node per call to Finish, as Redis converts
// one ziplist into one listpack.
class NodeBuilder {
 public:
  NodeBuilder() { bytes_.assign(listpack::kHeaderBytes, '\0'); }
  void Add(std::string_view element) {
    const size_t at = bytes_.size();
    bytes_.resize(at + listpack::EntryBytes(element));
    listpack::WriteEntry(element, reinterpret_cast<unsigned char*>(bytes_.data() + at));
    count_++;
  }
  // Appends the node to `list` unless it is empty (Redis skips empty ziplists).
  bool Finish(List* list, MemoryAccountant& memory) {
    if (count_ == 0) return true;
    bytes_.push_back(static_cast<char>(listpack::kEnd));
    auto* packed = reinterpret_cast<unsigned char*>(bytes_.data());
    listpack::SetHeader(packed, static_cast<uint32_t>(bytes_.size()), count_);
    return list->AppendNode(memory, packed, bytes_.size(), count_);
  }
  // The node as listpack bytes (empty or not), for the other families' ziplists.
  std::string TakeListpack(size_t* count) {
    bytes_.push_back(static_cast<char>(listpack::kEnd));
    listpack::SetHeader(reinterpret_cast<unsigned char*>(bytes_.data()),
                        static_cast<uint32_t>(bytes_.size()), count_);
    *count = count_;
    return std::move(bytes_);
  }

 private:
  std::string bytes_;
  size_t count_ = 0;
};

uint64_t ReadLittleEndian(const unsigned char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; i++) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

// One ziplist entry's value at `p` (`available` bytes left before the end byte): appends it to
// `builder` and returns the entry's size, or 0 when malformed.
size_t ReadZiplistEntry(const unsigned char* p, size_t available, size_t previous_bytes,
                        NodeBuilder* builder) {
  size_t at = 0;
  if (available < 1) return 0;
  // The previous entry's length: one byte below 254, else 0xFE and four bytes.
  uint64_t previous = p[0];
  at = 1;
  if (p[0] == 0xFE) {
    if (available < 5) return 0;
    previous = ReadLittleEndian(p + 1, 4);
    at = 5;
  } else if (p[0] == 0xFF) {
    return 0;
  }
  if (previous != previous_bytes || at >= available) return 0;
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
      if (encoding == 0xC0)
        width = 2;
      else if (encoding == 0xD0)
        width = 4;
      else if (encoding == 0xE0)
        width = 8;
      else if (encoding == 0xF0)
        width = 3;
      else if (encoding == 0xFE)
        width = 1;
      else if (encoding >= 0xF1 && encoding <= 0xFD)
        value = (encoding & 0x0F) - 1;
      else
        return 0;
      if (at + 1 + width > available) return 0;
      if (width > 0) {
        const uint64_t raw = ReadLittleEndian(p + at + 1, width);
        const uint64_t sign = uint64_t{1} << (8 * width - 1);
        value = static_cast<int64_t>((raw ^ sign) - sign);
      }
      char text[kInt64TextMax];
      builder->Add({text, FormatInt64(value, text)});
      return at + 1 + width;
    }
  }
  if (string_bytes > available - at - header) return 0;
  builder->Add({reinterpret_cast<const char*>(p + at + header), static_cast<size_t>(string_bytes)});
  return at + header + static_cast<size_t>(string_bytes);
}

// Walks a whole ziplist (ziplist.c's layout: total bytes, tail offset, count, entries, 0xFF),
// checked as ziplistValidateIntegrity's deep mode checks it, into `builder`.
bool ReadZiplist(std::string_view bytes, NodeBuilder* builder) {
  constexpr size_t kZiplistHeaderBytes = 10;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kZiplistHeaderBytes + 1 || ReadLittleEndian(p, 4) != bytes.size() ||
      p[bytes.size() - 1] != 0xFF) {
    return false;
  }
  const uint64_t tail = ReadLittleEndian(p + 4, 4);
  const uint64_t header_count = ReadLittleEndian(p + 8, 2);
  size_t offset = kZiplistHeaderBytes;
  size_t previous_bytes = 0;
  size_t last_entry = kZiplistHeaderBytes;
  uint64_t count = 0;
  const size_t end = bytes.size() - 1;
  while (offset < end) {
    const size_t size = ReadZiplistEntry(p + offset, end - offset, previous_bytes, builder);
    if (size == 0) return false;
    last_entry = offset;
    previous_bytes = size;
    offset += size;
    count++;
  }
  if (offset != end || tail != last_entry) return false;
  return header_count == 0xFFFF || header_count == count;
}

// A whole ziplist (ziplist.c's layout: total bytes, tail offset, count, entries, 0xFF), checked
// as ziplistValidateIntegrity's deep mode checks it, into one node.
bool LoadZiplist(std::string_view bytes, List* list, MemoryAccountant& memory, bool* refused) {
  constexpr size_t kZiplistHeaderBytes = 10;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kZiplistHeaderBytes + 1 || ReadLittleEndian(p, 4) != bytes.size() ||
      p[bytes.size() - 1] != 0xFF) {
    return false;
  }
  const uint64_t tail = ReadLittleEndian(p + 4, 4);
  const uint64_t header_count = ReadLittleEndian(p + 8, 2);
  NodeBuilder builder;
  size_t offset = kZiplistHeaderBytes;
  size_t previous_bytes = 0;
  size_t last_entry = kZiplistHeaderBytes;
  uint64_t count = 0;
  const size_t end = bytes.size() - 1;
  while (offset < end) {
    const size_t size = ReadZiplistEntry(p + offset, end - offset, previous_bytes, &builder);
    if (size == 0) return false;
    last_entry = offset;
    previous_bytes = size;
    offset += size;
    count++;
  }
  if (offset != end || tail != last_entry) return false;
  if (header_count != 0xFFFF && header_count != count) return false;
  if (!builder.Finish(list, memory)) {
    *refused = true;
    return false;
  }
  return true;
}

// A quicklist node of RDB_TYPE_LIST_QUICKLIST_2: a listpack, kept as it is.
bool LoadListpackNode(std::string_view bytes, List* list, MemoryAccountant& memory, bool* refused) {
  size_t count = 0;
  const auto* packed = reinterpret_cast<const unsigned char*>(bytes.data());
  if (!listpack::Validate(packed, bytes.size(), &count)) return false;
  if (count == 0) return true;  // Redis skips an empty node
  if (!list->AppendNode(memory, packed, bytes.size(), count)) {
    *refused = true;
    return false;
  }
  return true;
}

bool LoadNodes(uint8_t rdb_type, rdb::Reader& reader, List* list, MemoryAccountant& memory,
               bool* refused) {
  uint64_t nodes = 0;
  if (!reader.ReadLength(&nodes)) return false;
  std::string bytes;
  for (uint64_t i = 0; i < nodes; i++) {
    uint64_t container = kContainerPacked;
    if (rdb_type == rdb::kTypeListQuicklist2) {
      if (!reader.ReadLength(&container)) return false;
      if (container != kContainerPacked && container != kContainerPlain) return false;
    }
    if (!reader.ReadString(&bytes, kElementBytesMax) || bytes.empty()) return false;
    if (container == kContainerPlain) {
      // A plain node holds one large element; Keel keeps it in a packed node of its own.
      NodeBuilder builder;
      builder.Add(bytes);
      if (!builder.Finish(list, memory)) {
        *refused = true;
        return false;
      }
      continue;
    }
    const bool loaded = rdb_type == rdb::kTypeListQuicklist2
                            ? LoadListpackNode(bytes, list, memory, refused)
                            : LoadZiplist(bytes, list, memory, refused);
    if (!loaded) return false;
  }
  return true;
}

// RDB_TYPE_LIST: the element count, then each element; pushed as Redis pushes them.
bool LoadPlain(rdb::Reader& reader, List* list, MemoryAccountant& memory, bool* refused) {
  uint64_t length = 0;
  if (!reader.ReadLength(&length)) return false;
  std::string element;
  for (uint64_t i = 0; i < length; i++) {
    if (!reader.ReadString(&element, kElementBytesMax)) return false;
    if (!list->Push(memory, List::End::kTail, element)) {
      *refused = true;
      return false;
    }
  }
  return true;
}

}  // namespace

bool ZiplistToListpack(std::string_view ziplist, std::string* listpack, size_t* count) {
  NodeBuilder builder;
  if (!ReadZiplist(ziplist, &builder)) return false;
  *listpack = builder.TakeListpack(count);
  return true;
}

void SerialiseList(const List& list, bool compress, std::string* out) {
  out->push_back(static_cast<char>(rdb::kTypeListQuicklist2));
  rdb::WriteLength(out, list.node_count());
  list.ForEachNode([&](const unsigned char* packed, size_t bytes) {
    rdb::WriteLength(out, kContainerPacked);
    rdb::WriteString(out, {reinterpret_cast<const char*>(packed), bytes}, compress);
  });
}

void DigestList(const List& list, DigestBuilder& digest) {
  list.ForEachElement([&](std::string_view element) { digest.Mix(element); });
}

bool IsListRdbType(uint8_t rdb_type) {
  return rdb_type == rdb::kTypeList || rdb_type == rdb::kTypeListZiplist ||
         rdb_type == rdb::kTypeListQuicklist || rdb_type == rdb::kTypeListQuicklist2;
}

LoadOutcome LoadList(uint8_t rdb_type, rdb::Reader& reader, int fill, MemoryAccountant& memory,
                     List** list) {
  KEEL_ASSERT(IsListRdbType(rdb_type));
  List* loaded = List::Create(memory, fill);
  if (loaded == nullptr) return LoadOutcome::kOutOfMemory;
  bool refused = false;
  bool ok = false;
  if (rdb_type == rdb::kTypeList) {
    ok = LoadPlain(reader, loaded, memory, &refused);
  } else if (rdb_type == rdb::kTypeListZiplist) {
    std::string bytes;
    ok =
        reader.ReadString(&bytes, kElementBytesMax) && LoadZiplist(bytes, loaded, memory, &refused);
  } else {
    ok = LoadNodes(rdb_type, reader, loaded, memory, &refused);
  }
  if (!ok || loaded->empty()) {
    List::Destroy(loaded, memory);
    return refused ? LoadOutcome::kOutOfMemory : LoadOutcome::kBadFormat;
  }
  KEEL_DASSERT(loaded->CheckInvariants());
  *list = loaded;
  return LoadOutcome::kLoaded;
}

}  // namespace keel
