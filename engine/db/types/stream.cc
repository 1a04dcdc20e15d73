#include "engine/db/types/stream.h"

#include <algorithm>
#include <new>
#include <vector>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/db/types/listpack.h"

namespace keel {

// --- StreamId ---------------------------------------------------------------------------------

bool StreamId::Increment() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ms++;
    seq = 0;
    return true;
  }
  seq++;
  return true;
}

bool StreamId::Decrement() {
  if (seq == 0) {
    if (ms == 0) return false;
    ms--;
    seq = UINT64_MAX;
    return true;
  }
  seq--;
  return true;
}

std::string StreamId::ToString() const { return std::to_string(ms) + "-" + std::to_string(seq); }

void StreamId::Encode(unsigned char out[16]) const {
  for (int i = 0; i < 8; i++) {
    out[i] = static_cast<unsigned char>(ms >> (56 - 8 * i));
    out[8 + i] = static_cast<unsigned char>(seq >> (56 - 8 * i));
  }
}

StreamId StreamId::Decode(const unsigned char in[16]) {
  StreamId id;
  for (int i = 0; i < 8; i++) {
    id.ms = id.ms << 8 | in[i];
    id.seq = id.seq << 8 | in[8 + i];
  }
  return id;
}

// --- Groups -----------------------------------------------------------------------------------

StreamNack* StreamGroup::FindNack(const StreamId& id, size_t* at) {
  StreamNack* found = std::lower_bound(
      pel.begin(), pel.end(), id, [](const StreamNack& n, const StreamId& v) { return n.id < v; });
  if (at != nullptr) *at = static_cast<size_t>(found - pel.begin());
  return found != pel.end() && found->id == id ? found : nullptr;
}

StreamConsumer* StreamGroup::FindConsumer(std::string_view name, size_t* at) const {
  StreamConsumer* const* found =
      std::lower_bound(consumers.begin(), consumers.end(), name,
                       [](const StreamConsumer* c, std::string_view v) { return c->name() < v; });
  if (at != nullptr) *at = static_cast<size_t>(found - consumers.begin());
  return found != consumers.end() && (*found)->name() == name ? *found : nullptr;
}

namespace {

char* CopyName(std::string_view name, MemoryAccountant& memory) {
  auto* data = static_cast<char*>(memory.Allocate(name.size() + 1, MemoryUse::kKeyspace));
  if (data == nullptr) return nullptr;
  if (!name.empty()) std::memcpy(data, name.data(), name.size());
  data[name.size()] = '\0';
  return data;
}

void FreeName(char* data, size_t size, MemoryAccountant& memory) {
  if (data != nullptr) memory.Deallocate(data, size + 1, MemoryUse::kKeyspace);
}

void FreeConsumer(StreamConsumer* consumer, MemoryAccountant& memory) {
  consumer->pel.Release(memory);
  FreeName(consumer->name_data, consumer->name_size, memory);
  consumer->~StreamConsumer();
  memory.Deallocate(consumer, sizeof(StreamConsumer), MemoryUse::kKeyspace);
}

void FreeGroup(StreamGroup* group, MemoryAccountant& memory) {
  for (StreamConsumer* consumer : group->consumers) FreeConsumer(consumer, memory);
  group->consumers.Release(memory);
  group->pel.Release(memory);
  FreeName(group->name_data, group->name_size, memory);
  group->~StreamGroup();
  memory.Deallocate(group, sizeof(StreamGroup), MemoryUse::kKeyspace);
}

}  // namespace

// --- Reading nodes ----------------------------------------------------------------------------

int64_t StreamValue::IntAt(const unsigned char* p) {
  int64_t value = 0;
  std::string_view bytes;
  if (listpack::ReadEntry(p, &value, &bytes)) return value;
  // A stream writes its integers as integers; a string here would be corrupt, and loading
  // validates nodes, so read it as Redis's lpGetInteger would (its digits).
  int64_t parsed = 0;
  return ParseStrictInt64(bytes, &parsed) ? parsed : 0;
}

const unsigned char* StreamValue::Next(const unsigned char* p) {
  return p + listpack::EntrySize(p);
}

namespace stream_internal {
std::string_view ElementText(const unsigned char* p, char* digits) {
  int64_t value = 0;
  std::string_view bytes;
  if (!listpack::ReadEntry(p, &value, &bytes)) return bytes;
  return {digits, FormatInt64(value, digits)};
}
}  // namespace stream_internal

namespace {

// Appends the listpack entry of an integer / of a string to `out` (lpAppendInteger / lpAppend:
// a string that reads as an integer is stored as one).
void PutInt(std::string* out, int64_t value) {
  char digits[24];
  const std::string_view text(digits, FormatInt64(value, digits));
  const size_t at = out->size();
  out->resize(at + listpack::EntryBytes(text));
  listpack::WriteEntry(text, reinterpret_cast<unsigned char*>(out->data() + at));
}

void PutString(std::string* out, std::string_view element) {
  const size_t at = out->size();
  out->resize(at + listpack::EntryBytes(element));
  listpack::WriteEntry(element, reinterpret_cast<unsigned char*>(out->data() + at));
}

uint16_t HeaderCount(const unsigned char* lp) { return static_cast<uint16_t>(lp[4] | lp[5] << 8); }

// The listpack's element count for a header whose count may be "unknown".
size_t CountElements(const unsigned char* lp) {
  const uint16_t count = HeaderCount(lp);
  if (count != listpack::kCountUnknown) return count;
  size_t n = 0;
  for (const unsigned char* p = lp + listpack::kHeaderBytes; *p != listpack::kEnd;
       p = StreamValue::Next(p)) {
    n++;
  }
  return n;
}

// One integer element to replace at an offset of a node.
struct IntEdit {
  size_t offset;
  int64_t value;
};

// Builds the node `node` with `edits` (sorted by offset) applied and `tail` (whole elements,
// `tail_elements` of them) appended before the end byte. In place when it fits the node's
// capacity; else a new block (growing by half) replaces it. False when refused (unchanged).
bool RewriteNode(StreamValue::Node& node, std::span<const IntEdit> edits, std::string_view tail,
                 size_t tail_elements, size_t max_capacity, MemoryAccountant& memory) {
  const unsigned char* lp = node.lp;
  const size_t old_total = listpack::TotalBytes(lp);
  std::string built;
  built.reserve(old_total + tail.size() + 16);
  built.append(reinterpret_cast<const char*>(lp), listpack::kHeaderBytes);
  size_t at = listpack::kHeaderBytes;
  for (const IntEdit& edit : edits) {
    built.append(reinterpret_cast<const char*>(lp) + at, edit.offset - at);
    PutInt(&built, edit.value);
    at = edit.offset + listpack::EntrySize(lp + edit.offset);
  }
  built.append(reinterpret_cast<const char*>(lp) + at, old_total - 1 - at);
  built.append(tail);
  built.push_back(static_cast<char>(listpack::kEnd));
  const size_t count = CountElements(lp) + tail_elements;
  listpack::SetHeader(reinterpret_cast<unsigned char*>(built.data()),
                      static_cast<uint32_t>(built.size()), count);
  if (built.size() <= node.capacity) {
    std::memcpy(node.lp, built.data(), built.size());
    return true;
  }
  size_t capacity = node.capacity + node.capacity / 2;
  if (capacity > max_capacity) capacity = max_capacity;
  if (capacity < built.size()) capacity = built.size();
  auto* block = static_cast<unsigned char*>(memory.Allocate(capacity, MemoryUse::kKeyspace));
  if (block == nullptr) return false;
  std::memcpy(block, built.data(), built.size());
  memory.Deallocate(node.lp, node.capacity, MemoryUse::kKeyspace);
  node.lp = block;
  node.capacity = capacity;
  return true;
}

// Redis's STREAM_LISTPACK_MAX_SIZE: a node never grows past 1 GB.
constexpr size_t kNodeBytesMax = size_t{1} << 30;

// Where a node's parts are.
struct NodeLayout {
  size_t live_offset;
  size_t deleted_offset;
  int64_t live;
  int64_t deleted;
  int64_t master_fields;
  const unsigned char* master_first;  // the first master field
  const unsigned char* first_entry;
};

NodeLayout LayoutOf(const unsigned char* lp) {
  NodeLayout layout{};
  const unsigned char* p = lp + listpack::kHeaderBytes;
  layout.live_offset = static_cast<size_t>(p - lp);
  layout.live = StreamValue::IntAt(p);
  p = StreamValue::Next(p);
  layout.deleted_offset = static_cast<size_t>(p - lp);
  layout.deleted = StreamValue::IntAt(p);
  p = StreamValue::Next(p);
  layout.master_fields = StreamValue::IntAt(p);
  p = StreamValue::Next(p);
  layout.master_first = p;
  for (int64_t i = 0; i < layout.master_fields; i++) p = StreamValue::Next(p);
  layout.first_entry = StreamValue::Next(p);
  return layout;
}

// One entry of a node, located.
struct EntryAt {
  const unsigned char* flags_at;
  int64_t flags;
  StreamId id;
  const unsigned char* next;  // the following entry (or the end byte)
};

EntryAt ReadEntryAt(const unsigned char* p, StreamId master, int64_t master_fields) {
  EntryAt entry{};
  entry.flags_at = p;
  entry.flags = StreamValue::IntAt(p);
  p = StreamValue::Next(p);
  entry.id.ms = master.ms + static_cast<uint64_t>(StreamValue::IntAt(p));
  p = StreamValue::Next(p);
  entry.id.seq = master.seq + static_cast<uint64_t>(StreamValue::IntAt(p));
  p = StreamValue::Next(p);
  int64_t skip = 0;
  if (entry.flags & kStreamItemSameFields) {
    skip = master_fields;
  } else {
    skip = StreamValue::IntAt(p) * 2;
    p = StreamValue::Next(p);
  }
  for (int64_t i = 0; i < skip; i++) p = StreamValue::Next(p);
  entry.next = StreamValue::Next(p);  // past lp-count
  return entry;
}

}  // namespace

// --- Life -------------------------------------------------------------------------------------

StreamValue* StreamValue::Create(MemoryAccountant& memory) {
  void* block = memory.Allocate(sizeof(StreamValue), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  return new (block) StreamValue();
}

void StreamValue::Destroy(StreamValue* stream, MemoryAccountant& memory) {
  if (stream == nullptr) return;
  for (Node& node : stream->nodes_) memory.Deallocate(node.lp, node.capacity, MemoryUse::kKeyspace);
  stream->nodes_.Release(memory);
  for (StreamGroup* group : stream->groups_) FreeGroup(group, memory);
  stream->groups_.Release(memory);
  stream->~StreamValue();
  memory.Deallocate(stream, sizeof(StreamValue), MemoryUse::kKeyspace);
}

StreamValue* StreamValue::Clone(const StreamValue& from, MemoryAccountant& memory) {
  StreamValue* copy = Create(memory);
  if (copy == nullptr) return nullptr;
  copy->length_ = from.length_;
  copy->last_id_ = from.last_id_;
  copy->first_id_ = from.first_id_;
  copy->max_deleted_ = from.max_deleted_;
  copy->entries_added_ = from.entries_added_;
  bool ok = copy->nodes_.Reserve(from.nodes_.size(), memory);
  for (size_t i = 0; ok && i < from.nodes_.size(); i++) {
    const Node& node = from.nodes_[i];
    const size_t bytes = listpack::TotalBytes(node.lp);
    auto* lp = static_cast<unsigned char*>(memory.Allocate(bytes, MemoryUse::kKeyspace));
    if (lp == nullptr) {
      ok = false;
      break;
    }
    std::memcpy(lp, node.lp, bytes);
    copy->nodes_.Insert(i, Node{node.master, lp, bytes});
  }
  ok = ok && copy->groups_.Reserve(from.groups_.size(), memory);
  for (size_t g = 0; ok && g < from.groups_.size(); g++) {
    const StreamGroup& source = *from.groups_[g];
    StreamGroup* group =
        copy->CreateGroup(source.name(), source.last_id, source.entries_read, memory);
    if (group == nullptr || !group->pel.Reserve(source.pel.size(), memory) ||
        !group->consumers.Reserve(source.consumers.size(), memory)) {
      ok = false;
      break;
    }
    for (const StreamNack& nack : source.pel) group->pel.Insert(group->pel.size(), nack);
    for (const StreamConsumer* consumer : source.consumers) {
      StreamConsumer* made = CreateConsumer(*group, consumer->name(), consumer->seen_time, memory);
      if (made == nullptr || !made->pel.Reserve(consumer->pel.size(), memory)) {
        ok = false;
        break;
      }
      for (const StreamId& id : consumer->pel) {
        made->pel.Insert(made->pel.size(), id);
        StreamNack* nack = group->FindNack(id);
        KEEL_ASSERT(nack != nullptr);  // the group PEL, copied above, holds every consumer id
        nack->consumer = made;
      }
    }
  }
  if (!ok) {
    // Unowned NACK consumers may point at the source's: clear them before freeing.
    Destroy(copy, memory);
    return nullptr;
  }
  return copy;
}

void StreamValue::FreeNode(size_t at, MemoryAccountant& memory) {
  memory.Deallocate(nodes_[at].lp, nodes_[at].capacity, MemoryUse::kKeyspace);
  nodes_.Erase(at);
}

// --- Entries ----------------------------------------------------------------------------------

bool StreamValue::Append(StreamId id, std::span<const std::string_view> pairs,
                         const StreamNodeLimits& limits, MemoryAccountant& memory) {
  KEEL_ASSERT(pairs.size() % 2 == 0 && !pairs.empty());
  const int64_t fields = static_cast<int64_t>(pairs.size() / 2);
  size_t values_bytes = 0;
  for (std::string_view element : pairs) values_bytes += element.size();
  size_t node_max_bytes = limits.max_bytes;
  if (node_max_bytes == 0 || node_max_bytes > kNodeBytesMax) node_max_bytes = kNodeBytesMax;

  Node* last = nodes_.empty() ? nullptr : &nodes_[nodes_.size() - 1];
  if (last != nullptr) {
    const size_t lp_bytes = listpack::TotalBytes(last->lp);
    if (lp_bytes + values_bytes >= node_max_bytes) {
      last = nullptr;
    } else if (limits.max_entries > 0) {
      const NodeLayout layout = LayoutOf(last->lp);
      if (layout.live + layout.deleted >= limits.max_entries) last = nullptr;
    }
  }

  std::string entry;
  int64_t flags = 0;
  if (last == nullptr) {
    // A new node whose master entry has this entry's fields.
    if (!nodes_.Reserve(1, memory)) return false;
    std::string lp(listpack::kHeaderBytes, '\0');
    PutInt(&lp, 1);
    PutInt(&lp, 0);
    PutInt(&lp, fields);
    for (int64_t i = 0; i < fields; i++) PutString(&lp, pairs[static_cast<size_t>(i) * 2]);
    PutInt(&lp, 0);
    flags = kStreamItemSameFields;
    PutInt(&lp, flags);
    PutInt(&lp, 0);
    PutInt(&lp, 0);
    for (int64_t i = 0; i < fields; i++) PutString(&lp, pairs[static_cast<size_t>(i) * 2 + 1]);
    PutInt(&lp, fields + 3);
    lp.push_back(static_cast<char>(listpack::kEnd));
    const size_t elements = 4 + 2 * static_cast<size_t>(fields) + 4;
    listpack::SetHeader(reinterpret_cast<unsigned char*>(lp.data()),
                        static_cast<uint32_t>(lp.size()), elements);
    // Room to grow a little, as Redis preallocates a new node.
    size_t capacity = lp.size() < 256 ? 256 : lp.size();
    if (capacity > node_max_bytes && lp.size() <= node_max_bytes) capacity = node_max_bytes;
    if (capacity < lp.size()) capacity = lp.size();
    auto* block = static_cast<unsigned char*>(memory.Allocate(capacity, MemoryUse::kKeyspace));
    if (block == nullptr) return false;
    std::memcpy(block, lp.data(), lp.size());
    nodes_.Insert(nodes_.size(), Node{id, block, capacity});
  } else {
    const NodeLayout layout = LayoutOf(last->lp);
    if (layout.master_fields == fields) {
      const unsigned char* p = layout.master_first;
      int64_t i = 0;
      for (; i < fields; i++) {
        if (!listpack::EntryEquals(p, pairs[static_cast<size_t>(i) * 2])) break;
        p = Next(p);
      }
      // lpGet compares bytes: an integer master field equals only its canonical text, which
      // EntryEquals decides the same way.
      if (i == fields) flags = kStreamItemSameFields;
    }
    PutInt(&entry, flags);
    PutInt(&entry, static_cast<int64_t>(id.ms - last->master.ms));
    PutInt(&entry, static_cast<int64_t>(id.seq - last->master.seq));
    size_t elements = 4;
    if (!(flags & kStreamItemSameFields)) {
      PutInt(&entry, fields);
      elements++;
    }
    for (int64_t i = 0; i < fields; i++) {
      if (!(flags & kStreamItemSameFields)) {
        PutString(&entry, pairs[static_cast<size_t>(i) * 2]);
        elements++;
      }
      PutString(&entry, pairs[static_cast<size_t>(i) * 2 + 1]);
      elements++;
    }
    int64_t lp_count = fields + 3;
    if (!(flags & kStreamItemSameFields)) lp_count += fields + 1;
    PutInt(&entry, lp_count);
    const IntEdit edit{layout.live_offset, layout.live + 1};
    if (!RewriteNode(*last, std::span<const IntEdit>(&edit, 1), entry, elements, node_max_bytes,
                     memory)) {
      return false;
    }
  }
  length_++;
  entries_added_++;
  last_id_ = id;
  if (length_ == 1) first_id_ = id;
  return true;
}

bool StreamValue::Delete(StreamId id, MemoryAccountant& memory, bool* refused) {
  *refused = false;
  // The last node whose master is <= id.
  size_t at = nodes_.size();
  {
    size_t low = 0;
    size_t high = nodes_.size();
    while (low < high) {
      const size_t mid = (low + high) / 2;
      if (nodes_[mid].master <= id) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    if (low == 0) return false;
    at = low - 1;
  }
  Node& node = nodes_[at];
  const NodeLayout layout = LayoutOf(node.lp);
  const unsigned char* p = layout.first_entry;
  while (*p != listpack::kEnd) {
    const EntryAt entry = ReadEntryAt(p, node.master, layout.master_fields);
    if (entry.id > id) return false;
    if (entry.id == id) {
      if (entry.flags & kStreamItemDeleted) return false;
      if (layout.live == 1) {
        FreeNode(at, memory);
      } else {
        const IntEdit edits[3] = {
            {layout.live_offset, layout.live - 1},
            {layout.deleted_offset, layout.deleted + 1},
            {static_cast<size_t>(entry.flags_at - node.lp), entry.flags | kStreamItemDeleted}};
        if (!RewriteNode(node, edits, {}, 0, kNodeBytesMax, memory)) {
          *refused = true;
          return false;
        }
      }
      length_--;
      return true;
    }
    p = entry.next;
  }
  return false;
}

int64_t StreamValue::Trim(const TrimArgs& args, MemoryAccountant& memory) {
  if (args.strategy == TrimStrategy::kNone) return 0;
  int64_t deleted = 0;
  size_t at = 0;
  while (at < nodes_.size()) {
    if (args.strategy == TrimStrategy::kMaxlen && length_ <= args.maxlen) break;
    Node& node = nodes_[at];
    const NodeLayout layout = LayoutOf(node.lp);
    const int64_t entries = layout.live;
    if (args.limit != 0 && deleted + entries > args.limit) break;
    bool remove_node = false;
    if (args.strategy == TrimStrategy::kMaxlen) {
      remove_node = length_ - static_cast<uint64_t>(entries) >= args.maxlen;
    } else {
      // The node's last entry, deleted or not (lpGetEdgeStreamID).
      StreamId last_id = node.master;
      for (const unsigned char* p = layout.first_entry; *p != listpack::kEnd;) {
        const EntryAt entry = ReadEntryAt(p, node.master, layout.master_fields);
        last_id = entry.id;
        p = entry.next;
      }
      remove_node = last_id < args.minid;
    }
    if (remove_node) {
      FreeNode(at, memory);
      length_ -= static_cast<uint64_t>(entries);
      deleted += entries;
      continue;
    }
    if (args.approx) break;
    // Mark entries deleted from the front of this node.
    std::vector<IntEdit> edits;
    edits.push_back({layout.live_offset, 0});
    edits.push_back({layout.deleted_offset, 0});
    uint64_t length = length_;
    int64_t deleted_here = 0;
    for (const unsigned char* p = layout.first_entry; *p != listpack::kEnd;) {
      const EntryAt entry = ReadEntryAt(p, node.master, layout.master_fields);
      const bool stop =
          args.strategy == TrimStrategy::kMaxlen ? length <= args.maxlen : entry.id >= args.minid;
      if (stop) break;
      if (!(entry.flags & kStreamItemDeleted)) {
        edits.push_back(
            {static_cast<size_t>(entry.flags_at - node.lp), entry.flags | kStreamItemDeleted});
        deleted_here++;
        length--;
      }
      p = entry.next;
    }
    edits[0].value = entries - deleted_here;
    edits[1].value = layout.deleted + deleted_here;
    if (!RewriteNode(node, edits, {}, 0, kNodeBytesMax, memory)) {
      // Nodes removed before this one stay removed: report what was done.
      if (deleted == 0) return -1;
      break;
    }
    length_ = length;
    deleted += deleted_here;
    break;
  }
  if (length_ == 0) {
    first_id_ = StreamId{};
  } else if (deleted > 0) {
    FirstEntryId(&first_id_);
  }
  return deleted;
}

bool StreamValue::Contains(StreamId id) const {
  bool found = false;
  Range(id, id, false, [&](const StreamEntryView&) {
    found = true;
    return false;
  });
  return found;
}

bool StreamValue::FirstEntryId(StreamId* id) const {
  bool found = false;
  Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& entry) {
    *id = entry.id;
    found = true;
    return false;
  });
  return found;
}

bool StreamValue::LastEntryId(StreamId* id) const {
  bool found = false;
  Range(StreamId::Min(), StreamId::Max(), true, [&](const StreamEntryView& entry) {
    *id = entry.id;
    found = true;
    return false;
  });
  return found;
}

// --- Groups -----------------------------------------------------------------------------------

StreamGroup* StreamValue::FindGroup(std::string_view name) const {
  StreamGroup* const* found =
      std::lower_bound(groups_.begin(), groups_.end(), name,
                       [](const StreamGroup* g, std::string_view v) { return g->name() < v; });
  return found != groups_.end() && (*found)->name() == name ? *found : nullptr;
}

StreamGroup* StreamValue::CreateGroup(std::string_view name, StreamId last_id, int64_t entries_read,
                                      MemoryAccountant& memory) {
  if (!groups_.Reserve(1, memory)) return nullptr;
  void* block = memory.Allocate(sizeof(StreamGroup), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  char* name_data = CopyName(name, memory);
  if (name_data == nullptr) {
    memory.Deallocate(block, sizeof(StreamGroup), MemoryUse::kKeyspace);
    return nullptr;
  }
  auto* group = new (block) StreamGroup();
  group->name_data = name_data;
  group->name_size = name.size();
  group->last_id = last_id;
  group->entries_read = entries_read;
  StreamGroup** at =
      std::lower_bound(groups_.begin(), groups_.end(), name,
                       [](const StreamGroup* g, std::string_view v) { return g->name() < v; });
  groups_.Insert(static_cast<size_t>(at - groups_.begin()), group);
  return group;
}

void StreamValue::DestroyGroup(std::string_view name, MemoryAccountant& memory) {
  for (size_t i = 0; i < groups_.size(); i++) {
    if (groups_[i]->name() == name) {
      FreeGroup(groups_[i], memory);
      groups_.Erase(i);
      return;
    }
  }
}

StreamConsumer* StreamValue::CreateConsumer(StreamGroup& group, std::string_view name,
                                            int64_t seen_time, MemoryAccountant& memory) {
  if (!group.consumers.Reserve(1, memory)) return nullptr;
  void* block = memory.Allocate(sizeof(StreamConsumer), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  char* name_data = CopyName(name, memory);
  if (name_data == nullptr) {
    memory.Deallocate(block, sizeof(StreamConsumer), MemoryUse::kKeyspace);
    return nullptr;
  }
  auto* consumer = new (block) StreamConsumer();
  consumer->name_data = name_data;
  consumer->name_size = name.size();
  consumer->seen_time = seen_time;
  size_t at = 0;
  (void)group.FindConsumer(name, &at);
  group.consumers.Insert(at, consumer);
  return consumer;
}

size_t StreamValue::DeleteConsumer(StreamGroup& group, StreamConsumer* consumer,
                                   MemoryAccountant& memory) {
  const size_t pending = consumer->pel.size();
  for (const StreamId& id : consumer->pel) {
    size_t at = 0;
    if (group.FindNack(id, &at) != nullptr) group.pel.Erase(at);
  }
  size_t at = 0;
  if (group.FindConsumer(consumer->name(), &at) == consumer) group.consumers.Erase(at);
  FreeConsumer(consumer, memory);
  return pending;
}

void StreamValue::RemoveNack(StreamGroup& group, size_t at) {
  const StreamNack nack = group.pel[at];
  group.pel.Erase(at);
  StreamConsumer* consumer = nack.consumer;
  if (consumer == nullptr) return;
  const StreamId* found = std::lower_bound(consumer->pel.begin(), consumer->pel.end(), nack.id);
  if (found != consumer->pel.end() && *found == nack.id) {
    consumer->pel.Erase(static_cast<size_t>(found - consumer->pel.begin()));
  }
}

// --- Counters ---------------------------------------------------------------------------------

bool StreamValue::RangeHasTombstones(StreamId start, StreamId end) const {
  // streamRangeHasTombstones: only the latest tombstone is known.
  if (length_ == 0 || max_deleted_.is_zero()) return false;
  if (first_id_ > max_deleted_) return false;
  return start <= max_deleted_ && max_deleted_ <= end;
}

int64_t StreamValue::EstimateDistanceFromFirstEverEntry(StreamId id) const {
  // streamEstimateDistanceFromFirstEverEntry (Redis 7.0).
  if (entries_added_ == 0) return 0;
  if (length_ == 0 && id <= last_id_) return static_cast<int64_t>(entries_added_);
  if (id == last_id_) return static_cast<int64_t>(entries_added_);
  if (id > last_id_) return StreamGroup::kInvalidEntriesRead;
  if (max_deleted_.is_zero() || max_deleted_ < first_id_) {
    if (id < first_id_) return static_cast<int64_t>(entries_added_ - length_);
    if (id == first_id_) return static_cast<int64_t>(entries_added_ - length_ + 1);
  }
  return StreamGroup::kInvalidEntriesRead;
}

size_t StreamValue::allocated_bytes() const {
  size_t bytes = sizeof(StreamValue) + nodes_.allocated_bytes() + groups_.allocated_bytes();
  for (const Node& node : nodes_) bytes += node.capacity;
  for (const StreamGroup* group : groups_) {
    bytes += sizeof(StreamGroup) + group->name_size + 1 + group->pel.allocated_bytes() +
             group->consumers.allocated_bytes();
    for (const StreamConsumer* consumer : group->consumers) {
      bytes += sizeof(StreamConsumer) + consumer->name_size + 1 + consumer->pel.allocated_bytes();
    }
  }
  return bytes;
}

// --- Loading ----------------------------------------------------------------------------------

bool StreamValue::AdoptNode(StreamId master, std::string_view listpack, MemoryAccountant& memory) {
  if (!nodes_.Reserve(1, memory)) return false;
  auto* block = static_cast<unsigned char*>(memory.Allocate(listpack.size(), MemoryUse::kKeyspace));
  if (block == nullptr) return false;
  std::memcpy(block, listpack.data(), listpack.size());
  nodes_.Insert(nodes_.size(), Node{master, block, listpack.size()});
  return true;
}

bool StreamValue::CheckInvariants() const {
  uint64_t live_total = 0;
  for (size_t i = 0; i < nodes_.size(); i++) {
    const Node& node = nodes_[i];
    if (i > 0 && !(nodes_[i - 1].master < node.master)) return false;
    if (listpack::TotalBytes(node.lp) > node.capacity) return false;
    const NodeLayout layout = LayoutOf(node.lp);
    if (layout.live <= 0 || layout.deleted < 0) return false;
    int64_t live = 0;
    int64_t deleted = 0;
    StreamId previous;
    bool first = true;
    for (const unsigned char* p = layout.first_entry; *p != listpack::kEnd;) {
      const EntryAt entry = ReadEntryAt(p, node.master, layout.master_fields);
      if (first && entry.id != node.master) return false;
      if (!first && !(previous < entry.id)) return false;
      if (entry.id > last_id_) return false;
      previous = entry.id;
      first = false;
      (entry.flags & kStreamItemDeleted) ? deleted++ : live++;
      p = entry.next;
    }
    if (live != layout.live || deleted != layout.deleted) return false;
    live_total += static_cast<uint64_t>(live);
  }
  if (live_total != length_) return false;
  for (const StreamGroup* group : groups_) {
    size_t owned = 0;
    for (const StreamConsumer* consumer : group->consumers) owned += consumer->pel.size();
    if (owned != group->pel.size()) return false;
  }
  return true;
}

}  // namespace keel
