#include "engine/db/types/list.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "engine/base/assert.h"

namespace keel {
namespace {

using listpack::kEmptyBytes;
using listpack::kEnd;
using listpack::kHeaderBytes;

// quicklist.c's limits: the byte limit per node of fill -1 .. -5, the limit a count-bounded
// node stays within anyway, what an insert is estimated to add beyond the element's bytes, and
// the largest positive fill.
constexpr size_t kNodeBytesByLevel[] = {4096, 8192, 16384, 32768, 65536};
constexpr size_t kSafetyLimitBytes = 8192;
constexpr size_t kInsertOverheadBytes = 8;
constexpr int kFillMax = 32767;
// Block sizes follow an allocator's size classes (4 per doubling, as jemalloc's), so a node that
// grows one element at a time moves to a new block only every quarter doubling, and a full
// 8 KB node fits an 8 KB block as it does in Redis.
constexpr size_t kSmallClassStep = 16;
constexpr size_t kSmallClassMax = 128;
// The largest listpack a node may hold: its size is a 32-bit header field.
constexpr size_t kListpackBytesMax = UINT32_MAX - 64;

size_t BlockBytesFor(size_t bytes) {
  if (bytes <= kSmallClassMax)
    return (bytes + kSmallClassStep - 1) / kSmallClassStep * kSmallClassStep;
  const size_t step = std::bit_floor(bytes - 1) / 4;
  return (bytes + step - 1) / step * step;
}

}  // namespace

int List::ClampFill(int64_t fill) {
  if (fill > kFillMax) return kFillMax;
  if (fill < -5) return -5;
  return static_cast<int>(fill);
}

List* List::Create(MemoryAccountant& memory, int fill) {
  KEEL_ASSERT(fill >= -5 && fill <= kFillMax);
  void* block = memory.Allocate(sizeof(List), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  List* list = new (block) List(fill);
  list->bytes_ = sizeof(List);
  return list;
}

void List::Destroy(List* list, MemoryAccountant& memory) {
  for (size_t i = 0; i < list->node_count_; i++) {
    const Slot& slot = list->SlotAt(i);
    list->FreeBlock(memory, slot.listpack, slot.capacity);
  }
  if (list->ring_ != nullptr) {
    memory.Deallocate(list->ring_, list->ring_capacity_ * sizeof(Slot), MemoryUse::kKeyspace);
  }
  list->~List();
  memory.Deallocate(list, sizeof(List), MemoryUse::kKeyspace);
}

List* List::Copy(const List& list, MemoryAccountant& memory) {
  List* copy = Create(memory, list.fill_);
  if (copy == nullptr) return nullptr;
  for (size_t i = 0; i < list.node_count_; i++) {
    const Slot& slot = list.SlotAt(i);
    if (!copy->AppendNode(memory, slot.listpack, listpack::TotalBytes(slot.listpack), slot.count)) {
      Destroy(copy, memory);
      return nullptr;
    }
  }
  KEEL_DASSERT(copy->size_ == list.size_);
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Blocks and the ring.

bool List::NewNode(MemoryAccountant& memory, size_t listpack_bytes, Slot* slot) {
  if (listpack_bytes > kListpackBytesMax) return false;
  const size_t block_bytes = BlockBytesFor(listpack_bytes);
  auto* block = static_cast<unsigned char*>(memory.Allocate(block_bytes, MemoryUse::kKeyspace));
  if (block == nullptr) return false;
  bytes_ += block_bytes;
  listpack::WriteEmpty(block);
  *slot = {block, 0, static_cast<uint32_t>(block_bytes)};
  return true;
}

void List::FreeBlock(MemoryAccountant& memory, unsigned char* block, size_t capacity) {
  KEEL_DASSERT(bytes_ >= capacity);
  bytes_ -= capacity;
  memory.Deallocate(block, capacity, MemoryUse::kKeyspace);
}

bool List::Reserve(MemoryAccountant& memory, size_t index, size_t extra) {
  Slot& slot = SlotAt(index);
  const size_t used = listpack::TotalBytes(slot.listpack);
  if (used + extra <= slot.capacity) return true;
  Slot bigger;
  if (!NewNode(memory, used + extra, &bigger)) return false;
  std::memcpy(bigger.listpack, slot.listpack, used);
  FreeBlock(memory, slot.listpack, slot.capacity);
  slot.listpack = bigger.listpack;
  slot.capacity = bigger.capacity;
  return true;
}

void List::MaybeShrink(MemoryAccountant& memory, size_t index) {
  Slot& slot = SlotAt(index);
  const size_t used = listpack::TotalBytes(slot.listpack);
  if (BlockBytesFor(used) * 2 > slot.capacity) return;
  Slot smaller;
  if (!NewNode(memory, used, &smaller)) return;  // refused: the larger block serves as well
  std::memcpy(smaller.listpack, slot.listpack, used);
  FreeBlock(memory, slot.listpack, slot.capacity);
  slot.listpack = smaller.listpack;
  slot.capacity = smaller.capacity;
}

bool List::ReserveNodeSlot(MemoryAccountant& memory) {
  if (node_count_ < ring_capacity_) return true;
  const size_t capacity = ring_capacity_ == 0 ? 4 : ring_capacity_ * 2;
  auto* ring = static_cast<Slot*>(memory.Allocate(capacity * sizeof(Slot), MemoryUse::kKeyspace));
  if (ring == nullptr) return false;
  for (size_t i = 0; i < node_count_; i++) ring[i] = SlotAt(i);
  if (ring_ != nullptr) {
    memory.Deallocate(ring_, ring_capacity_ * sizeof(Slot), MemoryUse::kKeyspace);
    bytes_ -= ring_capacity_ * sizeof(Slot);
  }
  ring_ = ring;
  ring_capacity_ = capacity;
  head_ = 0;
  bytes_ += capacity * sizeof(Slot);
  return true;
}

void List::InsertNode(size_t index, const Slot& slot) {
  KEEL_ASSERT(node_count_ < ring_capacity_);
  KEEL_DASSERT(index <= node_count_);
  if (index == 0) {
    head_ = (head_ + ring_capacity_ - 1) & (ring_capacity_ - 1);
  } else {
    for (size_t i = node_count_; i > index; i--) SlotAt(i) = SlotAt(i - 1);
  }
  node_count_++;
  SlotAt(index) = slot;
}

void List::RemoveNode(MemoryAccountant& memory, size_t index) {
  KEEL_DASSERT(index < node_count_);
  const Slot slot = SlotAt(index);
  FreeBlock(memory, slot.listpack, slot.capacity);
  if (index == 0) {
    head_ = (head_ + 1) & (ring_capacity_ - 1);
  } else {
    for (size_t i = index; i + 1 < node_count_; i++) SlotAt(i) = SlotAt(i + 1);
  }
  node_count_--;
}

// ---------------------------------------------------------------------------------------------
// Entries inside a node.

void List::WriteAt(size_t index, size_t offset, std::string_view element, size_t entry_bytes) {
  Slot& slot = SlotAt(index);
  const size_t used = listpack::TotalBytes(slot.listpack);
  KEEL_ASSERT(used + entry_bytes <= slot.capacity);
  KEEL_DASSERT(offset >= kHeaderBytes && offset < used);
  std::memmove(slot.listpack + offset + entry_bytes, slot.listpack + offset, used - offset);
  listpack::WriteEntry(element, slot.listpack + offset);
  slot.count++;
  listpack::SetHeader(slot.listpack, static_cast<uint32_t>(used + entry_bytes), slot.count);
}

void List::DeleteEntries(MemoryAccountant& memory, size_t index, size_t offset, size_t count) {
  Slot& slot = SlotAt(index);
  KEEL_ASSERT(count < slot.count);
  const size_t used = listpack::TotalBytes(slot.listpack);
  size_t end = offset;
  for (size_t i = 0; i < count; i++) end += listpack::EntrySize(slot.listpack + end);
  KEEL_DASSERT(end < used);
  std::memmove(slot.listpack + offset, slot.listpack + end, used - end);
  slot.count -= static_cast<uint32_t>(count);
  listpack::SetHeader(slot.listpack, static_cast<uint32_t>(used - (end - offset)), slot.count);
  MaybeShrink(memory, index);
}

size_t List::EntryOffset(const Slot& node, size_t entry_index) {
  KEEL_DASSERT(entry_index < node.count);
  const unsigned char* packed = node.listpack;
  if (entry_index < node.count / 2) {
    size_t offset = kHeaderBytes;
    for (size_t i = 0; i < entry_index; i++) offset += listpack::EntrySize(packed + offset);
    return offset;
  }
  const unsigned char* p = packed + listpack::TotalBytes(packed) - 1;
  for (size_t i = node.count; i > entry_index; i--) p = listpack::PreviousEntry(p);
  return static_cast<size_t>(p - packed);
}

bool List::AllowsInsert(const Slot& node, size_t element_size) const {
  const size_t new_bytes =
      listpack::TotalBytes(node.listpack) + element_size + kInsertOverheadBytes;
  if (fill_ < 0) return new_bytes <= kNodeBytesByLevel[-fill_ - 1];
  return new_bytes <= kSafetyLimitBytes && static_cast<int64_t>(node.count) < fill_;
}

bool List::AllowsMerge(const Slot& a, const Slot& b) const {
  // The merged listpack's size, less one header and end byte (quicklist.c subtracts 11).
  const size_t merged_bytes =
      listpack::TotalBytes(a.listpack) + listpack::TotalBytes(b.listpack) - 11;
  if (fill_ < 0) return merged_bytes <= kNodeBytesByLevel[-fill_ - 1];
  return merged_bytes <= kSafetyLimitBytes &&
         static_cast<int64_t>(a.count) + static_cast<int64_t>(b.count) <= fill_;
}

// ---------------------------------------------------------------------------------------------
// Reading.

void List::Locate(size_t index, size_t* node, size_t* in_node) const {
  KEEL_ASSERT(index < size_);
  if (index < size_ / 2) {
    size_t i = 0;
    while (index >= SlotAt(i).count) index -= SlotAt(i++).count;
    *node = i;
    *in_node = index;
    return;
  }
  size_t from_tail = size_ - 1 - index;
  size_t i = node_count_ - 1;
  while (from_tail >= SlotAt(i).count) from_tail -= SlotAt(i--).count;
  *node = i;
  *in_node = SlotAt(i).count - 1 - from_tail;
}

List::Position List::Seek(size_t index) const {
  size_t node = 0;
  size_t in_node = 0;
  Locate(index, &node, &in_node);
  return {node, EntryOffset(SlotAt(node), in_node)};
}

bool List::Next(Position* at) const {
  const unsigned char* packed = SlotAt(at->node).listpack;
  const size_t next = at->offset + listpack::EntrySize(packed + at->offset);
  if (packed[next] != kEnd) {
    at->offset = next;
    return true;
  }
  if (at->node + 1 >= node_count_) return false;
  *at = {at->node + 1, kHeaderBytes};
  return true;
}

bool List::Previous(Position* at) const {
  if (at->offset > kHeaderBytes) {
    const unsigned char* packed = SlotAt(at->node).listpack;
    at->offset = static_cast<size_t>(listpack::PreviousEntry(packed + at->offset) - packed);
    return true;
  }
  if (at->node == 0) return false;
  const unsigned char* packed = SlotAt(at->node - 1).listpack;
  const unsigned char* last = listpack::PreviousEntry(packed + listpack::TotalBytes(packed) - 1);
  *at = {at->node - 1, static_cast<size_t>(last - packed)};
  return true;
}

void List::Read(Position at, listpack::Element* element) const {
  element->Read(SlotAt(at.node).listpack + at.offset);
}

bool List::Equals(Position at, std::string_view element) const {
  return listpack::EntryEquals(SlotAt(at.node).listpack + at.offset, element);
}

// ---------------------------------------------------------------------------------------------
// Writing.

bool List::Push(MemoryAccountant& memory, End end, std::string_view element) {
  const size_t entry_bytes = listpack::EntryBytes(element);
  const bool head = end == End::kHead;
  if (node_count_ > 0 && AllowsInsert(SlotAt(head ? 0 : node_count_ - 1), element.size())) {
    const size_t index = head ? 0 : node_count_ - 1;
    if (!Reserve(memory, index, entry_bytes)) return false;
    const size_t used = listpack::TotalBytes(SlotAt(index).listpack);
    WriteAt(index, head ? kHeaderBytes : used - 1, element, entry_bytes);
  } else {
    Slot slot;
    if (!ReserveNodeSlot(memory) || !NewNode(memory, kEmptyBytes + entry_bytes, &slot)) {
      return false;
    }
    const size_t index = head ? 0 : node_count_;
    InsertNode(index, slot);
    WriteAt(index, kHeaderBytes, element, entry_bytes);
  }
  size_++;
  return true;
}

bool List::AppendNode(MemoryAccountant& memory, const unsigned char* packed, size_t bytes,
                      size_t count) {
  KEEL_ASSERT(count > 0);
  KEEL_ASSERT(bytes == listpack::TotalBytes(packed));
  Slot slot;
  if (!ReserveNodeSlot(memory) || !NewNode(memory, bytes, &slot)) return false;
  std::memcpy(slot.listpack, packed, bytes);
  slot.count = static_cast<uint32_t>(count);
  InsertNode(node_count_, slot);
  size_ += count;
  return true;
}

bool List::Replace(MemoryAccountant& memory, Position at, std::string_view element) {
  const size_t old_bytes = listpack::EntrySize(SlotAt(at.node).listpack + at.offset);
  const size_t new_bytes = listpack::EntryBytes(element);
  if (new_bytes > old_bytes && !Reserve(memory, at.node, new_bytes - old_bytes)) return false;
  Slot& slot = SlotAt(at.node);
  const size_t used = listpack::TotalBytes(slot.listpack);
  const size_t tail = at.offset + old_bytes;
  std::memmove(slot.listpack + at.offset + new_bytes, slot.listpack + tail, used - tail);
  listpack::WriteEntry(element, slot.listpack + at.offset);
  listpack::SetHeader(slot.listpack, static_cast<uint32_t>(used - old_bytes + new_bytes),
                      slot.count);
  if (new_bytes < old_bytes) MaybeShrink(memory, at.node);
  return true;
}

bool List::EraseAt(MemoryAccountant& memory, Position* at) {
  KEEL_ASSERT(at->node < node_count_);
  size_--;
  if (SlotAt(at->node).count == 1) {
    RemoveNode(memory, at->node);
    at->offset = kHeaderBytes;
    return at->node < node_count_;
  }
  DeleteEntries(memory, at->node, at->offset, 1);
  if (SlotAt(at->node).listpack[at->offset] != kEnd) return true;
  if (at->node + 1 >= node_count_) return false;
  *at = {at->node + 1, kHeaderBytes};
  return true;
}

void List::EraseRange(MemoryAccountant& memory, size_t start, size_t count) {
  KEEL_ASSERT(start + count <= size_);
  if (count == 0) return;
  size_t node = 0;
  size_t in_node = 0;
  Locate(start, &node, &in_node);
  while (count > 0) {
    const Slot& slot = SlotAt(node);
    const size_t take = std::min<size_t>(count, slot.count - in_node);
    if (take == slot.count) {
      RemoveNode(memory, node);  // the next node takes its index
    } else {
      DeleteEntries(memory, node, EntryOffset(slot, in_node), take);
      node++;
    }
    count -= take;
    size_ -= take;
    in_node = 0;
  }
}

bool List::Insert(MemoryAccountant& memory, Position at, bool after, std::string_view element) {
  const Slot& node = SlotAt(at.node);
  if (!AllowsInsert(node, element.size())) return InsertIntoFull(memory, at, after, element);
  const size_t entry_bytes = listpack::EntryBytes(element);
  const size_t offset =
      after ? at.offset + listpack::EntrySize(node.listpack + at.offset) : at.offset;
  if (!Reserve(memory, at.node, entry_bytes)) return false;
  WriteAt(at.node, offset, element, entry_bytes);
  size_++;
  return true;
}

// _quicklistInsert's cases for a full node: the neighbour's near end when the element goes at
// this node's edge and the neighbour has room, a new node at the edge otherwise, else a split.
bool List::InsertIntoFull(MemoryAccountant& memory, Position at, bool after,
                          std::string_view element) {
  const Slot& node = SlotAt(at.node);
  const size_t entry_bytes = listpack::EntryBytes(element);
  const bool at_tail =
      after && node.listpack[at.offset + listpack::EntrySize(node.listpack + at.offset)] == kEnd;
  const bool at_head = !after && at.offset == kHeaderBytes;
  if (at_tail || at_head) {
    const bool has_neighbour = at_tail ? at.node + 1 < node_count_ : at.node > 0;
    const size_t neighbour = at_tail ? at.node + 1 : at.node - 1;
    if (has_neighbour && AllowsInsert(SlotAt(neighbour), element.size())) {
      if (!Reserve(memory, neighbour, entry_bytes)) return false;
      const size_t used = listpack::TotalBytes(SlotAt(neighbour).listpack);
      WriteAt(neighbour, at_tail ? kHeaderBytes : used - 1, element, entry_bytes);
    } else {
      Slot slot;
      if (!ReserveNodeSlot(memory) || !NewNode(memory, kEmptyBytes + entry_bytes, &slot)) {
        return false;
      }
      const size_t index = at_tail ? at.node + 1 : at.node;
      InsertNode(index, slot);
      WriteAt(index, kHeaderBytes, element, entry_bytes);
    }
    size_++;
    return true;
  }
  return SplitAndInsert(memory, at, after, element);
}

// _quicklistSplitNode then the insert: after the pivot, the node keeps what is up to the pivot
// and a new node after it takes the element and the rest; before the pivot, a new node before it
// takes what precedes the pivot and the element. Then neighbours merge where they fit.
bool List::SplitAndInsert(MemoryAccountant& memory, Position at, bool after,
                          std::string_view element) {
  const Slot& node = SlotAt(at.node);
  const size_t used = listpack::TotalBytes(node.listpack);
  const size_t split =
      after ? at.offset + listpack::EntrySize(node.listpack + at.offset) : at.offset;
  size_t before_split = 0;  // entries in [header, split)
  for (size_t offset = kHeaderBytes; offset < split; before_split++) {
    offset += listpack::EntrySize(node.listpack + offset);
  }
  const size_t moved_from = after ? split : kHeaderBytes;
  const size_t moved_bytes = after ? used - 1 - split : split - kHeaderBytes;
  const size_t moved_count = after ? node.count - before_split : before_split;
  const size_t entry_bytes = listpack::EntryBytes(element);
  Slot fresh;
  if (!ReserveNodeSlot(memory) ||
      !NewNode(memory, kEmptyBytes + moved_bytes + entry_bytes, &fresh)) {
    return false;
  }
  const Slot& source = SlotAt(at.node);  // the ring may have moved
  // The new node: the moved entries, with the element before them (after) or after them.
  const size_t element_at = after ? kHeaderBytes : kHeaderBytes + moved_bytes;
  const size_t moved_to = after ? kHeaderBytes + entry_bytes : kHeaderBytes;
  std::memcpy(fresh.listpack + moved_to, source.listpack + moved_from, moved_bytes);
  listpack::WriteEntry(element, fresh.listpack + element_at);
  fresh.listpack[kEmptyBytes + moved_bytes + entry_bytes - 1] = kEnd;
  fresh.count = static_cast<uint32_t>(moved_count + 1);
  listpack::SetHeader(fresh.listpack,
                      static_cast<uint32_t>(kEmptyBytes + moved_bytes + entry_bytes), fresh.count);
  const size_t original = at.node;
  if (moved_count > 0) DeleteEntries(memory, original, moved_from, moved_count);
  InsertNode(after ? original + 1 : original, fresh);
  size_++;
  MergeAround(memory, after ? original : original + 1);
  return true;
}

bool List::Merge(MemoryAccountant& memory, size_t index) {
  const Slot& a = SlotAt(index);
  const Slot& b = SlotAt(index + 1);
  const size_t a_bytes = listpack::TotalBytes(a.listpack);
  const size_t b_bytes = listpack::TotalBytes(b.listpack);
  Slot merged;
  if (!NewNode(memory, a_bytes + b_bytes - kEmptyBytes, &merged)) return false;
  std::memcpy(merged.listpack, a.listpack, a_bytes - 1);
  std::memcpy(merged.listpack + a_bytes - 1, b.listpack + kHeaderBytes, b_bytes - kHeaderBytes);
  merged.count = a.count + b.count;
  listpack::SetHeader(merged.listpack, static_cast<uint32_t>(a_bytes + b_bytes - kEmptyBytes),
                      merged.count);
  RemoveNode(memory, index + 1);
  Slot& kept = SlotAt(index);
  FreeBlock(memory, kept.listpack, kept.capacity);
  kept = merged;
  return true;
}

// _quicklistMergeNodes: (center-2, center-1), (center+1, center+2), then center with its
// previous node and the result with its next. A merge whose block is refused is skipped: the
// list is as correct, only laid out in one more node.
void List::MergeAround(MemoryAccountant& memory, size_t center) {
  if (center >= 2 && AllowsMerge(SlotAt(center - 2), SlotAt(center - 1)) &&
      Merge(memory, center - 2)) {
    center--;
  }
  if (center + 2 < node_count_ && AllowsMerge(SlotAt(center + 1), SlotAt(center + 2))) {
    Merge(memory, center + 1);
  }
  size_t target = center;
  if (center >= 1 && AllowsMerge(SlotAt(center), SlotAt(center - 1)) && Merge(memory, center - 1)) {
    target = center - 1;
  }
  if (target + 1 < node_count_ && AllowsMerge(SlotAt(target), SlotAt(target + 1))) {
    Merge(memory, target);
  }
}

bool List::CheckInvariants() const {
  size_t elements = 0;
  size_t bytes = sizeof(List) + ring_capacity_ * sizeof(Slot);
  for (size_t i = 0; i < node_count_; i++) {
    const Slot& slot = SlotAt(i);
    const size_t used = listpack::TotalBytes(slot.listpack);
    size_t count = 0;
    if (slot.count == 0 || used > slot.capacity) return false;
    if (!listpack::Validate(slot.listpack, used, &count) || count != slot.count) return false;
    elements += slot.count;
    bytes += slot.capacity;
  }
  return elements == size_ && bytes == bytes_ && node_count_ <= ring_capacity_;
}

}  // namespace keel
