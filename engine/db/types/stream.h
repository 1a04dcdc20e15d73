// StreamValue: an append-only log of entries keyed by 128-bit IDs (ms-seq), with consumer groups,
// as Redis 7.0's t_stream.c keeps it.
//
// Entries live in nodes that are Redis's own stream listpacks, byte for byte: a master entry
// (count, deleted, the master fields, a 0 terminator) and then each entry as flags, ms-delta,
// seq-delta, [field count, fields and values | values when its fields are the master's],
// lp-count. A node takes new entries until it reaches stream-node-max-bytes or
// stream-node-max-entries (deleted ones counted), as streamAppendItem decides, so that node
// boundaries, and with them what MAXLEN ~ trims and what DUMP writes, are Redis's. Redis keys
// the nodes by their master ID in a rax; Keel keeps them in a sorted array of (master ID, node)
// and finds a node by binary search. A listpack spends 2-4 bytes of overhead per entry beyond
// its values when the fields repeat, which is what Redis spends.
//
// Consumer groups are sorted arrays too: groups by name, each with its pending entries list (the
// NACKs, by ID) and its consumers by name, each consumer with the IDs it owns.
//
// Every allocation goes through the MemoryAccountant (MemoryUse::kKeyspace). An operation that
// may allocate either completes or, when memory is refused, leaves the stream as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "engine/base/assert.h"
#include "engine/env/memory.h"

namespace keel {

struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;

  static constexpr StreamId Min() { return {0, 0}; }
  static constexpr StreamId Max() { return {UINT64_MAX, UINT64_MAX}; }
  friend bool operator==(const StreamId& a, const StreamId& b) {
    return a.ms == b.ms && a.seq == b.seq;
  }
  friend bool operator!=(const StreamId& a, const StreamId& b) { return !(a == b); }
  friend bool operator<(const StreamId& a, const StreamId& b) {
    return a.ms < b.ms || (a.ms == b.ms && a.seq < b.seq);
  }
  friend bool operator>(const StreamId& a, const StreamId& b) { return b < a; }
  friend bool operator<=(const StreamId& a, const StreamId& b) { return !(b < a); }
  friend bool operator>=(const StreamId& a, const StreamId& b) { return !(a < b); }
  bool is_zero() const { return ms == 0 && seq == 0; }
  // The next / previous ID (streamIncrID / streamDecrID): false at the end of the space.
  bool Increment();
  bool Decrement();
  // "ms-seq".
  std::string ToString() const;
  // The 16 big-endian bytes Redis uses as a rax key (and writes in RDB PELs).
  void Encode(unsigned char out[16]) const;
  static StreamId Decode(const unsigned char in[16]);
};

// An array of trivially copyable items whose storage comes from the accountant.
template <typename T>
class StreamArray {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  size_t allocated_bytes() const { return capacity_ * sizeof(T); }

  // Room for `more` items beyond size(); false when refused (nothing changed).
  bool Reserve(size_t more, MemoryAccountant& memory) {
    if (size_ + more <= capacity_) return true;
    size_t capacity = capacity_ < 4 ? 4 : capacity_ + capacity_ / 2;
    if (capacity < size_ + more) capacity = size_ + more;
    auto* data = static_cast<T*>(memory.Allocate(capacity * sizeof(T), MemoryUse::kKeyspace));
    if (data == nullptr) return false;
    if (size_ > 0) std::memcpy(static_cast<void*>(data), data_, size_ * sizeof(T));
    Free(memory);
    data_ = data;
    capacity_ = capacity;
    return true;
  }
  // REQUIRES: room reserved.
  void Insert(size_t at, const T& item) {
    KEEL_DASSERT(size_ < capacity_ && at <= size_);
    std::memmove(static_cast<void*>(data_ + at + 1), data_ + at, (size_ - at) * sizeof(T));
    data_[at] = item;
    size_++;
  }
  void Erase(size_t at) { EraseRange(at, at + 1); }
  void EraseRange(size_t from, size_t to) {
    KEEL_DASSERT(from <= to && to <= size_);
    std::memmove(static_cast<void*>(data_ + from), data_ + to, (size_ - to) * sizeof(T));
    size_ -= to - from;
  }
  void Free(MemoryAccountant& memory) {
    if (data_ != nullptr) memory.Deallocate(data_, capacity_ * sizeof(T), MemoryUse::kKeyspace);
    data_ = nullptr;
    capacity_ = 0;
  }
  void Release(MemoryAccountant& memory) {
    Free(memory);
    size_ = 0;
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

struct StreamConsumer;

// A delivered, not yet acknowledged entry (streamNACK).
struct StreamNack {
  StreamId id;
  int64_t delivery_time = 0;  // ms
  uint64_t delivery_count = 0;
  StreamConsumer* consumer = nullptr;
};

struct StreamConsumer {
  char* name_data = nullptr;
  size_t name_size = 0;
  int64_t seen_time = 0;      // ms
  StreamArray<StreamId> pel;  // sorted
  std::string_view name() const { return {name_data, name_size}; }
};

struct StreamGroup {
  char* name_data = nullptr;
  size_t name_size = 0;
  StreamId last_id;
  int64_t entries_read = 0;                // kInvalidEntriesRead when unknown
  StreamArray<StreamNack> pel;             // sorted by id
  StreamArray<StreamConsumer*> consumers;  // sorted by name
  std::string_view name() const { return {name_data, name_size}; }

  static constexpr int64_t kInvalidEntriesRead = -1;

  // The NACK of `id`, or nullptr; *at is where it is or would go.
  StreamNack* FindNack(const StreamId& id, size_t* at = nullptr);
  StreamConsumer* FindConsumer(std::string_view name, size_t* at = nullptr) const;
};

// stream-node-max-bytes and stream-node-max-entries.
struct StreamNodeLimits {
  size_t max_bytes = 4096;
  int64_t max_entries = 100;
};

// One entry as iteration shows it: its ID and a way to read its fields.
class StreamEntryView {
 public:
  StreamId id;
  size_t field_count() const { return static_cast<size_t>(count_); }
  // visit(field, value) for each pair, in order; the views live until the next call.
  template <typename Visit>
  void ForEachField(Visit&& visit) const;

 private:
  friend class StreamValue;
  const unsigned char* master_fields_ = nullptr;  // the master's first field
  const unsigned char* fields_ = nullptr;         // this entry's first field or value
  int64_t count_ = 0;
  bool same_fields_ = false;
};

class StreamValue {
 public:
  static StreamValue* Create(MemoryAccountant& memory);
  static void Destroy(StreamValue* stream, MemoryAccountant& memory);
  static StreamValue* Clone(const StreamValue& stream, MemoryAccountant& memory);
  StreamValue(const StreamValue&) = delete;
  StreamValue& operator=(const StreamValue&) = delete;

  uint64_t length() const { return length_; }
  StreamId last_id() const { return last_id_; }
  StreamId first_id() const { return first_id_; }
  StreamId max_deleted_id() const { return max_deleted_; }
  uint64_t entries_added() const { return entries_added_; }
  void set_last_id(StreamId id) { last_id_ = id; }
  void set_max_deleted_id(StreamId id) { max_deleted_ = id; }
  void set_entries_added(uint64_t n) { entries_added_ = n; }
  size_t node_count() const { return nodes_.size(); }

  // Appends an entry with ID `id` (> last_id) and fields (field, value, field, value...):
  // streamAppendItem. Updates length, last_id, entries_added and first_id. False when refused.
  bool Append(StreamId id, std::span<const std::string_view> pairs, const StreamNodeLimits& limits,
              MemoryAccountant& memory);
  // Marks the entry `id` deleted (streamIteratorRemoveEntry); false when it is not there. Never
  // allocates more than it frees... but may be refused a rebuilt node: then returns false with
  // *refused set.
  bool Delete(StreamId id, MemoryAccountant& memory, bool* refused);

  enum class TrimStrategy : uint8_t { kNone, kMaxlen, kMinid };
  struct TrimArgs {
    TrimStrategy strategy = TrimStrategy::kNone;
    uint64_t maxlen = 0;
    StreamId minid;
    bool approx = false;
    int64_t limit = 0;  // 0: none
  };
  // streamTrim: the entries removed (-1 when memory was refused, nothing changed).
  int64_t Trim(const TrimArgs& args, MemoryAccountant& memory);

  // Visits the live entries in [start, end] (reverse: from end down). visit(entry) returns
  // false to stop.
  template <typename Visit>
  void Range(StreamId start, StreamId end, bool reverse, Visit&& visit) const;
  // Whether `id` is a live entry.
  bool Contains(StreamId id) const;
  // The first / last live entry's ID (streamGetEdgeID); false when empty.
  bool FirstEntryId(StreamId* id) const;
  bool LastEntryId(StreamId* id) const;

  // Consumer groups, sorted by name.
  const StreamArray<StreamGroup*>& groups() const { return groups_; }
  StreamGroup* FindGroup(std::string_view name) const;
  // A new group (the name must be new); nullptr when refused.
  StreamGroup* CreateGroup(std::string_view name, StreamId last_id, int64_t entries_read,
                           MemoryAccountant& memory);
  void DestroyGroup(std::string_view name, MemoryAccountant& memory);
  // A new consumer of `group` (name must be new); nullptr when refused.
  static StreamConsumer* CreateConsumer(StreamGroup& group, std::string_view name,
                                        int64_t seen_time, MemoryAccountant& memory);
  // Removes `consumer` and its pending entries from `group`: the number it had pending.
  static size_t DeleteConsumer(StreamGroup& group, StreamConsumer* consumer,
                               MemoryAccountant& memory);
  // Removes the NACK at `at` of `group`'s PEL (and from its consumer's).
  static void RemoveNack(StreamGroup& group, size_t at);

  // streamEstimateDistanceFromFirstEverEntry / streamRangeHasTombstones.
  int64_t EstimateDistanceFromFirstEverEntry(StreamId id) const;
  bool RangeHasTombstones(StreamId start, StreamId end) const;

  size_t allocated_bytes() const;

  // RDB (RDB_TYPE_STREAM_LISTPACKS_2): the nodes as they are.
  struct Node {
    StreamId master;
    unsigned char* lp = nullptr;
    size_t capacity = 0;
  };
  const StreamArray<Node>& nodes() const { return nodes_; }
  // Loading: adds a node (whose bytes were validated) after the others; false when refused.
  bool AdoptNode(StreamId master, std::string_view listpack, MemoryAccountant& memory);
  void set_length(uint64_t length) { length_ = length; }
  void set_first_id(StreamId id) { first_id_ = id; }
  // Checks the structure (tests): node order, counts, length.
  bool CheckInvariants() const;

  // Reading a node's fields (used by the iteration templates).
  static int64_t IntAt(const unsigned char* p);
  static const unsigned char* Next(const unsigned char* p);

 private:
  StreamValue() = default;
  ~StreamValue() = default;

  template <typename Visit>
  bool VisitNode(const Node& node, StreamId start, StreamId end, bool reverse, Visit& visit) const;
  void UpdateFirstId();
  void FreeNode(size_t at, MemoryAccountant& memory);

  StreamArray<Node> nodes_;
  StreamArray<StreamGroup*> groups_;
  uint64_t length_ = 0;
  StreamId last_id_;
  StreamId first_id_;
  StreamId max_deleted_;
  uint64_t entries_added_ = 0;
};

// Stream entry flags (STREAM_ITEM_FLAG_*).
inline constexpr int64_t kStreamItemDeleted = 1;
inline constexpr int64_t kStreamItemSameFields = 2;

namespace stream_internal {
// One listpack element read as text (an integer as its decimal digits).
std::string_view ElementText(const unsigned char* p, char* digits);
}  // namespace stream_internal

template <typename Visit>
void StreamEntryView::ForEachField(Visit&& visit) const {
  char field_digits[24];
  char value_digits[24];
  const unsigned char* master = master_fields_;
  const unsigned char* p = fields_;
  for (int64_t i = 0; i < count_; i++) {
    std::string_view field;
    if (same_fields_) {
      field = stream_internal::ElementText(master, field_digits);
      master = StreamValue::Next(master);
    } else {
      field = stream_internal::ElementText(p, field_digits);
      p = StreamValue::Next(p);
    }
    const std::string_view value = stream_internal::ElementText(p, value_digits);
    p = StreamValue::Next(p);
    visit(field, value);
  }
}

// Walks one node's entries; returns false when the visitor stopped.
template <typename Visit>
bool StreamValue::VisitNode(const Node& node, StreamId start, StreamId end, bool reverse,
                            Visit& visit) const {
  // Positions of every entry's flags element (a node holds at most a few hundred entries).
  const unsigned char* p = node.lp + 6;
  const int64_t live = IntAt(p);
  p = Next(p);
  const int64_t deleted = IntAt(p);
  p = Next(p);
  const int64_t master_fields = IntAt(p);
  p = Next(p);
  const unsigned char* master_first = p;
  for (int64_t i = 0; i < master_fields; i++) p = Next(p);
  p = Next(p);  // the 0 terminator
  const int64_t total = live + deleted;
  const unsigned char* stack_positions[128];
  const unsigned char** positions = stack_positions;
  std::string heap;
  if (total > 128) {
    heap.resize(static_cast<size_t>(total) * sizeof(unsigned char*));
    positions = reinterpret_cast<const unsigned char**>(heap.data());
  }
  int64_t n = 0;
  for (; n < total && *p != 0xFF; n++) {
    positions[n] = p;
    // Skip to the next entry: its lp-count says how many elements precede it.
    const unsigned char* q = p;
    const int64_t flags = IntAt(q);
    q = Next(q);
    q = Next(q);
    q = Next(q);
    int64_t skip = 0;
    if (flags & kStreamItemSameFields) {
      skip = master_fields;
    } else {
      skip = IntAt(q) * 2;
      q = Next(q);
    }
    for (int64_t k = 0; k < skip; k++) q = Next(q);
    p = Next(q);  // lp-count
  }
  for (int64_t k = 0; k < n; k++) {
    const unsigned char* e = positions[reverse ? n - 1 - k : k];
    const int64_t flags = IntAt(e);
    e = Next(e);
    StreamEntryView view;
    view.id.ms = node.master.ms + static_cast<uint64_t>(IntAt(e));
    e = Next(e);
    view.id.seq = node.master.seq + static_cast<uint64_t>(IntAt(e));
    e = Next(e);
    if (!reverse && view.id > end) return false;
    if (reverse && view.id < start) return false;
    if (flags & kStreamItemDeleted) continue;
    if (!reverse && view.id < start) continue;
    if (reverse && view.id > end) continue;
    view.master_fields_ = master_first;
    if (flags & kStreamItemSameFields) {
      view.same_fields_ = true;
      view.count_ = master_fields;
    } else {
      view.count_ = IntAt(e);
      e = Next(e);
    }
    view.fields_ = e;
    if (!visit(view)) return false;
  }
  return true;
}

template <typename Visit>
void StreamValue::Range(StreamId start, StreamId end, bool reverse, Visit&& visit) const {
  if (nodes_.empty() || start > end) return;
  // The last node whose master ID is <= the bound holds the bound, if anything does.
  auto last_at_or_before = [&](StreamId id) -> size_t {
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
    return low;  // nodes [0, low) start at or before id
  };
  if (!reverse) {
    size_t at = last_at_or_before(start);
    if (at > 0) at--;
    for (; at < nodes_.size(); at++) {
      if (nodes_[at].master > end) return;
      if (!VisitNode(nodes_[at], start, end, false, visit)) return;
    }
  } else {
    size_t stop = last_at_or_before(end);
    while (stop > 0) {
      stop--;
      if (!VisitNode(nodes_[stop], start, end, true, visit)) return;
    }
  }
}

}  // namespace keel
