// List: the value of a list key, a sequence of nodes that each hold a listpack (listpack.h), as
// Redis 7.0's quicklist holds them. OBJECT ENCODING says "quicklist" for every list, as Redis 7.0
// does (the "listpack" encoding of small lists came with Redis 7.2).
//
// Nodes are filled and split by Redis's own rules (quicklist.c: a node takes one more element
// while its listpack stays within list-max-listpack-size, 8 KB by default, or within a count
// when that is positive; LINSERT into a full node splits it and merges neighbours), so that a
// list's nodes, and therefore its DUMP bytes, are those redis-server would have. The node array
// is a ring, so pushing a node at either end is O(1); reaching an index walks node counts from
// the nearer end, then entries inside one node, as Redis does.
//
// Memory: the List, its ring and its nodes come from the MemoryAccountant given to each call
// (MemoryUse::kKeyspace), so used_memory counts them and an allocation can be refused. Every
// operation that can allocate returns false when refused and leaves the list as it was; removals
// never fail (a node that would shrink keeps its block if the smaller one is refused).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/db/types/listpack.h"
#include "engine/env/memory.h"

namespace keel {

class List {
 public:
  // list-max-listpack-size as quicklistSetFill keeps it: negative for a byte limit per node
  // (-1 4 KB ... -5 64 KB), positive for an element count (at most 32767).
  static int ClampFill(int64_t fill);

  // A new empty list, or nullptr when memory is refused. `fill` as ClampFill returns it.
  static List* Create(MemoryAccountant& memory, int fill);
  static void Destroy(List* list, MemoryAccountant& memory);
  // A deep copy (COPY, MOVE, RESTORE's replace paths), or nullptr when refused.
  static List* Copy(const List& list, MemoryAccountant& memory);

  List(const List&) = delete;
  List& operator=(const List&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t node_count() const { return node_count_; }
  int fill() const { return fill_; }
  // Bytes held outside the entry (MEMORY USAGE): this object, the ring and the nodes.
  size_t external_bytes() const { return bytes_; }

  enum class End : uint8_t { kHead, kTail };
  // LPUSH/RPUSH of one element. False when memory is refused (nothing changed).
  bool Push(MemoryAccountant& memory, End end, std::string_view element);

  // Where an element is: a node's index and the entry's byte offset in its listpack.
  struct Position {
    size_t node = 0;
    size_t offset = 0;
  };
  // The element at `index` (< size()).
  Position Seek(size_t index) const;
  // Moves to the next (previous) element; false at the end (start), `*at` then unchanged.
  bool Next(Position* at) const;
  bool Previous(Position* at) const;
  void Read(Position at, listpack::Element* element) const;
  bool Equals(Position at, std::string_view element) const;

  // LINSERT: `element` before or after the one at `at` (Redis's _quicklistInsert). False when
  // refused. Positions are invalid afterwards.
  bool Insert(MemoryAccountant& memory, Position at, bool after, std::string_view element);
  // LSET: the element at `at` becomes `element`, in place as lpReplace does. False when refused.
  bool Replace(MemoryAccountant& memory, Position at, std::string_view element);
  // Removes the element at `at`. `*at` then names the element that followed it, when the
  // function returns true; false when it was the last. Elements before `at` keep their
  // positions.
  bool EraseAt(MemoryAccountant& memory, Position* at);
  // Removes `count` elements from index `start` (start + count <= size()): pops, LTRIM.
  void EraseRange(MemoryAccountant& memory, size_t start, size_t count);

  // Every element, head to tail, as a view valid during the call (DIGEST, the checkers).
  template <typename Visit>
  void ForEachElement(Visit&& visit) const {
    if (empty()) return;
    Position at = Seek(0);
    listpack::Element element;
    do {
      Read(at, &element);
      visit(element.view());
    } while (Next(&at));
  }
  // The nodes' listpacks in order (the RDB serialiser writes them as they are).
  template <typename Visit>
  void ForEachNode(Visit&& visit) const {
    for (size_t i = 0; i < node_count_; i++) {
      const unsigned char* packed = SlotAt(i).listpack;
      visit(packed, static_cast<size_t>(listpack::TotalBytes(packed)));
    }
  }
  // Appends a node holding a copy of `packed` (a validated listpack of `count` > 0 elements):
  // RESTORE of a quicklist payload keeps its nodes, as Redis does. False when refused.
  bool AppendNode(MemoryAccountant& memory, const unsigned char* packed, size_t bytes,
                  size_t count);

  // Node counts add up to size(), no node is empty, every listpack's header and end byte are
  // right, and the bytes counted are the bytes held.
  bool CheckInvariants() const;

 private:
  // One node: its listpack block (`capacity` bytes, of which the listpack header says how many
  // are used) and its element count, kept here so that walking to an index reads only the ring.
  struct Slot {
    unsigned char* listpack;
    uint32_t count;
    uint32_t capacity;
  };
  explicit List(int fill) : fill_(fill) {}

  Slot& SlotAt(size_t index) const { return ring_[(head_ + index) & (ring_capacity_ - 1)]; }
  // The node holding element `index` and the element's index inside it.
  void Locate(size_t index, size_t* node, size_t* in_node) const;
  // A new node with an empty listpack and room for `listpack_bytes`; false when refused.
  bool NewNode(MemoryAccountant& memory, size_t listpack_bytes, Slot* slot);
  void FreeBlock(MemoryAccountant& memory, unsigned char* block, size_t capacity);
  // Makes room for `extra` more listpack bytes in node `index` (it may move). False if refused.
  bool Reserve(MemoryAccountant& memory, size_t index, size_t extra);
  // Gives a node that shrank a smaller block when it uses less than half of its own.
  void MaybeShrink(MemoryAccountant& memory, size_t index);
  // Room for one more node in the ring. False if refused.
  bool ReserveNodeSlot(MemoryAccountant& memory);
  // Puts `slot` at node index `index` (0..node_count_), after ReserveNodeSlot.
  void InsertNode(size_t index, const Slot& slot);
  void RemoveNode(MemoryAccountant& memory, size_t index);
  // Writes `element` into node `index` at byte `offset` (room reserved before).
  void WriteAt(size_t index, size_t offset, std::string_view element, size_t entry_bytes);
  // Deletes `count` entries of node `index` from byte `offset` (the node keeps at least one).
  void DeleteEntries(MemoryAccountant& memory, size_t index, size_t offset, size_t count);
  // _quicklistNodeAllowInsert and _quicklistNodeAllowMerge.
  bool AllowsInsert(const Slot& node, size_t element_size) const;
  bool AllowsMerge(const Slot& a, const Slot& b) const;
  bool InsertIntoFull(MemoryAccountant& memory, Position at, bool after, std::string_view element);
  bool SplitAndInsert(MemoryAccountant& memory, Position at, bool after, std::string_view element);
  // Merges node `index` + 1 into node `index` (a's elements, then b's). False if refused.
  bool Merge(MemoryAccountant& memory, size_t index);
  // _quicklistMergeNodes around node `center`.
  void MergeAround(MemoryAccountant& memory, size_t center);
  static size_t EntryOffset(const Slot& node, size_t entry_index);

  int fill_;
  Slot* ring_ = nullptr;
  size_t ring_capacity_ = 0;  // a power of two, or 0
  size_t head_ = 0;           // ring index of node 0
  size_t node_count_ = 0;
  size_t size_ = 0;
  size_t bytes_ = 0;
};

}  // namespace keel
