#include "engine/db/types/stream_ops.h"

#include <algorithm>
#include <string>

#include "engine/base/numbers.h"
#include "engine/db/digest.h"
#include "engine/db/types/listpack.h"
#include "engine/db/types/stream.h"

namespace keel {
namespace {

const StreamValue& StreamOf(const Entry& entry) {
  return *static_cast<const StreamValue*>(EntryObject(entry));
}

void StreamDestroy(Entry& entry, MemoryAccountant& memory) {
  StreamValue::Destroy(static_cast<StreamValue*>(EntryObject(entry)), memory);
}

bool StreamCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  StreamValue* copy = StreamValue::Clone(StreamOf(from), memory);
  if (copy == nullptr) return false;
  SetEntryObject(to, copy);
  return true;
}

size_t StreamExternalBytes(const Entry& entry) { return StreamOf(entry).allocated_bytes(); }

std::string_view StreamEncodingName(const Entry& /*entry*/) { return "stream"; }

void StreamSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  SerialiseStream(StreamOf(entry), options.compress, out);
}

// xorObjectDigest's stream case: each entry's "ms.seq" then its fields and values, mixed in order.
void StreamDigest(const Entry& entry, DigestBuilder& digest) {
  StreamOf(entry).Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& view) {
    const std::string id = std::to_string(view.id.ms) + "." + std::to_string(view.id.seq);
    digest.Mix(id);
    view.ForEachField([&](std::string_view field, std::string_view value) {
      digest.Mix(field);
      digest.Mix(value);
    });
    return true;
  });
}

void WriteRawId(std::string* out, StreamId id) {
  unsigned char raw[16];
  id.Encode(raw);
  out->append(reinterpret_cast<const char*>(raw), 16);
}

void WriteMilliseconds(std::string* out, int64_t ms) {
  const auto bits = static_cast<uint64_t>(ms);
  for (int i = 0; i < 8; i++) out->push_back(static_cast<char>(bits >> (8 * i)));
}

// --- Loading ----------------------------------------------------------------------------------

// lpGetIntegerIfValid: an integer entry, or a string that reads as one.
bool IntegerIfValid(const unsigned char* p, int64_t* value) {
  std::string_view bytes;
  if (listpack::ReadEntry(p, value, &bytes)) return true;
  return listpack::StringToInt64(bytes, value);
}

// streamValidateListpackIntegrity with deep validation.
bool ValidateNode(std::string_view blob) {
  const auto* lp = reinterpret_cast<const unsigned char*>(blob.data());
  size_t count = 0;
  if (!listpack::Validate(lp, blob.size(), &count)) return false;
  const unsigned char* end = lp + blob.size() - 1;
  const unsigned char* p = lp + listpack::kHeaderBytes;
  size_t left = count;
  auto take = [&](int64_t* value) {
    if (left == 0 || p >= end) return false;
    const bool ok = value == nullptr || IntegerIfValid(p, value);
    p = StreamValue::Next(p);
    left--;
    return ok;
  };
  int64_t live = 0;
  int64_t deleted = 0;
  int64_t master_fields = 0;
  int64_t zero = 0;
  if (!take(&live) || !take(&deleted) || !take(&master_fields)) return false;
  if (master_fields < 0 || static_cast<uint64_t>(master_fields) > left) return false;
  for (int64_t j = 0; j < master_fields; j++) {
    if (!take(nullptr)) return false;
  }
  if (!take(&zero) || zero != 0) return false;
  if (live < 0 || deleted < 0) return false;
  uint64_t entries = static_cast<uint64_t>(live) + static_cast<uint64_t>(deleted);
  if (entries > count) return false;
  while (entries-- > 0) {
    int64_t flags = 0;
    int64_t ignored = 0;
    int64_t fields = master_fields;
    int64_t extra = 3;
    if (!take(&flags) || !take(&ignored) || !take(&ignored)) return false;
    if (!(flags & kStreamItemSameFields)) {
      if (!take(&fields)) return false;
      if (fields < 0 || static_cast<uint64_t>(fields) > left) return false;
      for (int64_t j = 0; j < fields; j++) {
        if (!take(nullptr)) return false;
      }
      extra += fields + 1;
    }
    for (int64_t j = 0; j < fields; j++) {
      if (!take(nullptr)) return false;
    }
    int64_t lp_count = 0;
    if (!take(&lp_count) || lp_count != fields + extra) return false;
  }
  return left == 0 && p == end;
}

bool ReadRawId(rdb::Reader& reader, StreamId* id) {
  std::string_view raw;
  if (!reader.ReadRaw(16, &raw)) return false;
  *id = StreamId::Decode(reinterpret_cast<const unsigned char*>(raw.data()));
  return true;
}

bool ReadMilliseconds(rdb::Reader& reader, int64_t* ms) {
  std::string_view raw;
  if (!reader.ReadRaw(8, &raw)) return false;
  uint64_t bits = 0;
  for (int i = 0; i < 8; i++)
    bits |= static_cast<uint64_t>(static_cast<uint8_t>(raw[i])) << (8 * i);
  *ms = static_cast<int64_t>(bits);
  return true;
}

bool ReadId(rdb::Reader& reader, StreamId* id) {
  return reader.ReadLength(&id->ms) && reader.ReadLength(&id->seq);
}

LoadStatus LoadGroups(uint8_t rdb_type, rdb::Reader& reader, MemoryAccountant& memory,
                      StreamValue& stream) {
  uint64_t groups = 0;
  if (!reader.ReadLength(&groups)) return LoadStatus::kCorrupt;
  std::string name;
  while (groups-- > 0) {
    if (!reader.ReadString(&name, UINT32_MAX)) return LoadStatus::kCorrupt;
    StreamId last_id;
    if (!ReadId(reader, &last_id)) return LoadStatus::kCorrupt;
    int64_t entries_read = 0;
    if (rdb_type == rdb::kTypeStreamListpacks2) {
      uint64_t read = 0;
      if (!reader.ReadLength(&read)) return LoadStatus::kCorrupt;
      entries_read = static_cast<int64_t>(read);
    } else {
      entries_read = stream.EstimateDistanceFromFirstEverEntry(last_id);
    }
    if (stream.FindGroup(name) != nullptr) return LoadStatus::kCorrupt;
    StreamGroup* group = stream.CreateGroup(name, last_id, entries_read, memory);
    if (group == nullptr) return LoadStatus::kOutOfMemory;
    uint64_t pel_size = 0;
    if (!reader.ReadLength(&pel_size) || pel_size > reader.remaining() / 17) {
      return LoadStatus::kCorrupt;
    }
    if (!group->pel.Reserve(reader.PresizeFor(pel_size, 17), memory)) {
      return LoadStatus::kOutOfMemory;
    }
    for (uint64_t i = 0; i < pel_size; i++) {
      StreamNack nack;
      uint64_t count = 0;
      if (!ReadRawId(reader, &nack.id) || !ReadMilliseconds(reader, &nack.delivery_time) ||
          !reader.ReadLength(&count)) {
        return LoadStatus::kCorrupt;
      }
      nack.delivery_count = count;
      size_t at = 0;
      if (group->FindNack(nack.id, &at) != nullptr) return LoadStatus::kCorrupt;
      group->pel.Insert(at, nack);
    }
    uint64_t consumers = 0;
    if (!reader.ReadLength(&consumers)) return LoadStatus::kCorrupt;
    while (consumers-- > 0) {
      if (!reader.ReadString(&name, UINT32_MAX)) return LoadStatus::kCorrupt;
      if (group->FindConsumer(name) != nullptr) return LoadStatus::kCorrupt;
      int64_t seen = 0;
      if (!ReadMilliseconds(reader, &seen)) return LoadStatus::kCorrupt;
      StreamConsumer* consumer = StreamValue::CreateConsumer(*group, name, seen, memory);
      if (consumer == nullptr) return LoadStatus::kOutOfMemory;
      if (!reader.ReadLength(&pel_size) || pel_size > reader.remaining() / 16) {
        return LoadStatus::kCorrupt;
      }
      if (!consumer->pel.Reserve(reader.PresizeFor(pel_size, 16), memory)) {
        return LoadStatus::kOutOfMemory;
      }
      for (uint64_t i = 0; i < pel_size; i++) {
        StreamId id;
        if (!ReadRawId(reader, &id)) return LoadStatus::kCorrupt;
        StreamNack* nack = group->FindNack(id);
        if (nack == nullptr || nack->consumer != nullptr) return LoadStatus::kCorrupt;
        nack->consumer = consumer;
        // Redis saves a consumer's PEL in ID order; keep it sorted whatever the order.
        const StreamId* spot = std::lower_bound(consumer->pel.begin(), consumer->pel.end(), id);
        consumer->pel.Insert(static_cast<size_t>(spot - consumer->pel.begin()), id);
      }
    }
    for (const StreamNack& nack : group->pel) {
      if (nack.consumer == nullptr) return LoadStatus::kCorrupt;  // "PEL entry without consumer"
    }
  }
  return LoadStatus::kLoaded;
}

}  // namespace

void SerialiseStream(const StreamValue& stream, bool compress, std::string* out) {
  out->push_back(static_cast<char>(rdb::kTypeStreamListpacks2));
  rdb::WriteLength(out, stream.nodes().size());
  for (const StreamValue::Node& node : stream.nodes()) {
    unsigned char key[16];
    node.master.Encode(key);
    rdb::WriteString(out, std::string_view(reinterpret_cast<const char*>(key), 16), compress);
    rdb::WriteString(
        out,
        std::string_view(reinterpret_cast<const char*>(node.lp), listpack::TotalBytes(node.lp)),
        compress);
  }
  rdb::WriteLength(out, stream.length());
  rdb::WriteLength(out, stream.last_id().ms);
  rdb::WriteLength(out, stream.last_id().seq);
  rdb::WriteLength(out, stream.first_id().ms);
  rdb::WriteLength(out, stream.first_id().seq);
  rdb::WriteLength(out, stream.max_deleted_id().ms);
  rdb::WriteLength(out, stream.max_deleted_id().seq);
  rdb::WriteLength(out, stream.entries_added());
  rdb::WriteLength(out, stream.groups().size());
  for (const StreamGroup* group : stream.groups()) {
    rdb::WriteString(out, group->name(), compress);
    rdb::WriteLength(out, group->last_id.ms);
    rdb::WriteLength(out, group->last_id.seq);
    rdb::WriteLength(out, static_cast<uint64_t>(group->entries_read));
    rdb::WriteLength(out, group->pel.size());
    for (const StreamNack& nack : group->pel) {
      WriteRawId(out, nack.id);
      WriteMilliseconds(out, nack.delivery_time);
      rdb::WriteLength(out, nack.delivery_count);
    }
    rdb::WriteLength(out, group->consumers.size());
    for (const StreamConsumer* consumer : group->consumers) {
      rdb::WriteString(out, consumer->name(), compress);
      WriteMilliseconds(out, consumer->seen_time);
      rdb::WriteLength(out, consumer->pel.size());
      for (const StreamId& id : consumer->pel) WriteRawId(out, id);
    }
  }
}

LoadStatus LoadStream(uint8_t rdb_type, rdb::Reader& reader, MemoryAccountant& memory,
                      StreamValue** out) {
  StreamValue* stream = StreamValue::Create(memory);
  if (stream == nullptr) return LoadStatus::kOutOfMemory;
  auto fail = [&](LoadStatus status) {
    StreamValue::Destroy(stream, memory);
    return status;
  };
  uint64_t nodes = 0;
  if (!reader.ReadLength(&nodes) || nodes > reader.remaining() / 2) {
    return fail(LoadStatus::kCorrupt);
  }
  std::string key;
  std::string blob;
  for (uint64_t i = 0; i < nodes; i++) {
    if (!reader.ReadString(&key, 16) || key.size() != 16) return fail(LoadStatus::kCorrupt);
    if (!reader.ReadString(&blob, UINT32_MAX) || !ValidateNode(blob)) {
      return fail(LoadStatus::kCorrupt);
    }
    const StreamId master = StreamId::Decode(reinterpret_cast<const unsigned char*>(key.data()));
    // An empty node ("Empty listpack inside stream"); and a node out of order, which Redis
    // would place by its key (Keel keeps the order saved, and only ever saves in order).
    const unsigned char* first = reinterpret_cast<const unsigned char*>(blob.data()) + 6;
    if (*first == listpack::kEnd || StreamValue::IntAt(first) == 0) {
      return fail(LoadStatus::kCorrupt);
    }
    const auto& existing = stream->nodes();
    if (existing.size() > 0 && !(existing[existing.size() - 1].master < master)) {
      return fail(LoadStatus::kCorrupt);
    }
    if (!stream->AdoptNode(master, blob, memory)) return fail(LoadStatus::kOutOfMemory);
  }
  uint64_t length = 0;
  StreamId last_id;
  if (!reader.ReadLength(&length) || !ReadId(reader, &last_id)) return fail(LoadStatus::kCorrupt);
  stream->set_length(length);
  stream->set_last_id(last_id);
  if (rdb_type == rdb::kTypeStreamListpacks2) {
    StreamId first_id;
    StreamId max_deleted;
    uint64_t added = 0;
    if (!ReadId(reader, &first_id) || !ReadId(reader, &max_deleted) || !reader.ReadLength(&added)) {
      return fail(LoadStatus::kCorrupt);
    }
    stream->set_first_id(first_id);
    stream->set_max_deleted_id(max_deleted);
    stream->set_entries_added(added);
  } else {
    stream->set_entries_added(length);
    StreamId first_id;
    stream->FirstEntryId(&first_id);
    stream->set_first_id(first_id);
  }
  if (length > 0 && stream->nodes().size() == 0) return fail(LoadStatus::kCorrupt);
  // Keel's iteration trusts the length: the nodes must hold exactly that many live entries.
  if (!stream->CheckInvariants()) return fail(LoadStatus::kCorrupt);
  const LoadStatus groups = LoadGroups(rdb_type, reader, memory, *stream);
  if (groups != LoadStatus::kLoaded) return fail(groups);
  *out = stream;
  return LoadStatus::kLoaded;
}

namespace {

constexpr ValueOps kStreamOpsTable = {
    .type = ValueType::kStream,
    .destroy = StreamDestroy,
    .copy = StreamCopy,
    .external_bytes = StreamExternalBytes,
    .encoding_name = StreamEncodingName,
    .serialise = StreamSerialise,
    .digest = StreamDigest,
};

}  // namespace

const ValueOps kStreamOps = kStreamOpsTable;

}  // namespace keel
