#include "engine/db/aof_rewrite.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/db/entry.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/list.h"
#include "engine/db/types/set.h"
#include "engine/db/types/stream.h"
#include "engine/db/types/zset.h"
#include "engine/db/value_ops.h"

namespace keel {
namespace {

// "*<count>\r\n" or "$<count>\r\n", as rioWriteBulkCount writes them.
void AppendCount(std::string* out, char prefix, uint64_t count) {
  char digits[kInt64TextMax];
  out->push_back(prefix);
  out->append(digits, FormatUint64(count, digits));
  out->append("\r\n");
}

// One bulk string: "$<len>\r\n<bytes>\r\n" (rioWriteBulkString).
void AppendBulk(std::string* out, std::string_view bytes) {
  AppendCount(out, '$', bytes.size());
  out->append(bytes);
  out->append("\r\n");
}

void AppendBulkInt(std::string* out, int64_t value) {
  char digits[kInt64TextMax];
  AppendBulk(out, std::string_view(digits, FormatInt64(value, digits)));
}

// Writes a value's items as commands of at most kAofRewriteItemsPerCommand items each, as
// Redis's rewrite{List,Set,SortedSet,Hash}Object do: each command's header announces exactly the
// items that follow it, so the item count must be known before the first one (Finish checks
// that exactly that many came).
class BatchWriter {
 public:
  // `args_per_item` is 1 (RPUSH, SADD) or 2 (ZADD's score and member, HMSET's field and value).
  BatchWriter(std::string* out, std::string_view command, std::string_view key, size_t items,
              size_t args_per_item)
      : out_(out), command_(command), key_(key), remaining_(items), args_per_item_(args_per_item) {
    // An empty aggregate is never stored: Redis deletes the key with its last element.
    KEEL_ASSERT(items > 0);
    KEEL_ASSERT(args_per_item == 1 || args_per_item == 2);
  }
  ~BatchWriter() { KEEL_DASSERT(remaining_ == 0); }
  BatchWriter(const BatchWriter&) = delete;
  BatchWriter& operator=(const BatchWriter&) = delete;

  void Add(std::string_view first) {
    KEEL_DASSERT(args_per_item_ == 1);
    Begin();
    AppendBulk(out_, first);
    End();
  }
  void Add(std::string_view first, std::string_view second) {
    KEEL_DASSERT(args_per_item_ == 2);
    Begin();
    AppendBulk(out_, first);
    AppendBulk(out_, second);
    End();
  }
  // The value handed as many items as it said it holds.
  void Finish() const { KEEL_ASSERT(remaining_ == 0); }

 private:
  void Begin() {
    // An item past the announced count would make the file unreadable: fail here instead.
    KEEL_ASSERT(remaining_ > 0);
    if (in_command_ != 0) return;
    const size_t items = std::min(remaining_, kAofRewriteItemsPerCommand);
    AppendCount(out_, '*', 2 + items * args_per_item_);
    AppendBulk(out_, command_);
    AppendBulk(out_, key_);
  }
  void End() {
    remaining_--;
    if (++in_command_ == kAofRewriteItemsPerCommand) in_command_ = 0;
  }

  std::string* out_;
  std::string_view command_;
  std::string_view key_;
  size_t remaining_;       // items not yet written
  size_t in_command_ = 0;  // items written in the current command
  size_t args_per_item_;
};

void WriteList(std::string* out, const Entry& entry) {
  const List& list = *static_cast<const List*>(EntryObject(entry));
  BatchWriter batch(out, "RPUSH", entry.key(), list.size(), 1);
  // Head to tail, so that RPUSH rebuilds the same order. Integer entries of a node's listpack
  // read as their decimal text.
  list.ForEachElement([&](std::string_view element) { batch.Add(element); });
  batch.Finish();
}

void WriteSet(std::string* out, const Entry& entry) {
  const SetValue& set = *static_cast<const SetValue*>(EntryObject(entry));
  BatchWriter batch(out, "SADD", entry.key(), set.size(), 1);
  // An intset's members come as their decimal text, in ascending order.
  set.ForEach([&](std::string_view member) { batch.Add(member); });
  batch.Finish();
}

void WriteZset(std::string* out, const Entry& entry) {
  const ZsetValue& zset = *static_cast<const ZsetValue*>(EntryObject(entry));
  BatchWriter batch(out, "ZADD", entry.key(), zset.size(), 2);
  // rioWriteBulkDouble's "%.17g" (FormatDouble spells the infinities "inf" and "-inf", as glibc
  // does for Redis), which ZADD reads back to the same double. A listpack's score is the double
  // its entry reads as (zzlGetScore), so an integral -0 stored there comes out as "0", as in Redis.
  zset.ForEach([&](std::string_view member, double score) {
    char text[kDoubleTextMax];
    batch.Add(std::string_view(text, FormatDouble(score, text)), member);
  });
  batch.Finish();
}

void WriteHash(std::string* out, const Entry& entry) {
  const HashValue& hash = *static_cast<const HashValue*>(EntryObject(entry));
  BatchWriter batch(out, "HMSET", entry.key(), hash.size(), 2);
  // A listpack hash in insertion order, so the replayed one keeps its order.
  hash.ForEach([&](std::string_view field, std::string_view value) { batch.Add(field, value); });
  batch.Finish();
  // Field TTLs as Redis 7.4's rewriteHashObject gives them: HPEXPIREAT per field, absolute.
  hash.ForEachFieldTtl([&](std::string_view field, int64_t when) {
    AppendCount(out, '*', 6);
    AppendBulk(out, "HPEXPIREAT");
    AppendBulk(out, entry.key());
    AppendBulkInt(out, when);
    AppendBulk(out, "FIELDS");
    AppendBulk(out, "1");
    AppendBulk(out, field);
  });
}

// rewriteStreamObject: an XADD per entry (an empty stream as XADD MAXLEN 0 of a dummy entry), the
// stream's IDs and counters with XSETID, then each group with XGROUP CREATE, its pending entries
// as XCLAIMs and its consumers without pending entries as XGROUP CREATECONSUMER.
void WriteStream(std::string* out, const Entry& entry) {
  const StreamValue& stream = *static_cast<const StreamValue*>(EntryObject(entry));
  const std::string_view key = entry.key();
  if (stream.length() > 0) {
    stream.Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& item) {
      AppendCount(out, '*', 3 + item.field_count() * 2);
      AppendBulk(out, "XADD");
      AppendBulk(out, key);
      AppendBulk(out, item.id.ToString());
      item.ForEachField([&](std::string_view field, std::string_view value) {
        AppendBulk(out, field);
        AppendBulk(out, value);
      });
      return true;
    });
  } else {
    const std::string_view args[] = {"XADD", key, "MAXLEN", "0", "0-1", "x", "y"};
    AppendAofCommand(out, args);
  }
  const std::string last = stream.last_id().ToString();
  const std::string added = std::to_string(stream.entries_added());
  const std::string max_deleted = stream.max_deleted_id().ToString();
  const std::string_view setid[] = {"XSETID",       key,        last, "ENTRIESADDED", added,
                                    "MAXDELETEDID", max_deleted};
  AppendAofCommand(out, setid);
  for (const StreamGroup* group : stream.groups()) {
    const std::string group_last = group->last_id.ToString();
    const std::string read = std::to_string(group->entries_read);
    const std::string_view create[] = {"XGROUP",   "CREATE",      key, group->name(),
                                       group_last, "ENTRIESREAD", read};
    AppendAofCommand(out, create);
    StreamGroup& mutable_group = *const_cast<StreamGroup*>(group);
    for (const StreamConsumer* consumer : group->consumers) {
      if (consumer->pel.empty()) {
        const std::string_view args[] = {"XGROUP", "CREATECONSUMER", key, group->name(),
                                         consumer->name()};
        AppendAofCommand(out, args);
        continue;
      }
      for (const StreamId& id : consumer->pel) {
        const StreamNack* nack = mutable_group.FindNack(id);
        KEEL_ASSERT(nack != nullptr);
        const std::string id_text = id.ToString();
        const std::string time = std::to_string(nack->delivery_time);
        const std::string count = std::to_string(nack->delivery_count);
        const std::string_view args[] = {"XCLAIM",     key,     group->name(), consumer->name(),
                                         "0",          id_text, "TIME",        time,
                                         "RETRYCOUNT", count,   "JUSTID",      "FORCE"};
        AppendAofCommand(out, args);
      }
    }
  }
}

}  // namespace

void AppendAofCommand(std::string* out, std::span<const std::string_view> args) {
  KEEL_ASSERT(!args.empty());
  AppendCount(out, '*', args.size());
  for (std::string_view arg : args) AppendBulk(out, arg);
}

AofCommandWriter::AofCommandWriter() = default;

void AofCommandWriter::Save(int db, const Entry& entry) {
  KEEL_ASSERT(db >= 0);
  const size_t bytes_before = out_.size();
  if (db != current_db_) {
    // rewriteAppendOnlyFileRio's SELECT, with the index as rioWriteBulkLongLong writes it.
    AppendCount(&out_, '*', 2);
    AppendBulk(&out_, "SELECT");
    AppendBulkInt(&out_, db);
    current_db_ = db;
  }
  switch (entry.type()) {
    case ValueType::kString: {
      // Every string is held as its bytes, an int-encoded one as its decimal text.
      const std::string_view args[] = {"SET", entry.key(), entry.value()};
      AppendAofCommand(&out_, args);
      break;
    }
    case ValueType::kList:
      WriteList(&out_, entry);
      break;
    case ValueType::kSet:
      WriteSet(&out_, entry);
      break;
    case ValueType::kZSet:
      WriteZset(&out_, entry);
      break;
    case ValueType::kHash:
      WriteHash(&out_, entry);
      break;
    case ValueType::kStream:
      WriteStream(&out_, entry);
      break;
  }
  if (entry.has_expiry()) {
    AppendCount(&out_, '*', 3);
    AppendBulk(&out_, "PEXPIREAT");
    AppendBulk(&out_, entry.key());
    AppendBulkInt(&out_, entry.expire_at_ms());
  }
  KEEL_ASSERT(out_.size() > bytes_before);
  keys_written_++;
}

std::string AofCommandWriter::TakeBytes() {
  std::string bytes;
  bytes.swap(out_);
  return bytes;
}

}  // namespace keel
