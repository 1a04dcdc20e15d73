#include "sim/simulator/oracle.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/db/database.h"
#include "engine/db/entry.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/list.h"
#include "engine/db/types/set.h"
#include "engine/db/types/stream.h"
#include "engine/db/types/zset.h"
#include "engine/db/value_ops.h"
#include "engine/registry/errors.h"
#include "engine/server/aof.h"
#include "engine/server/persistence.h"

namespace keel::sim {
namespace {

// The model's name for an engine string's encoding ("int" for a shared integer too), and whether
// it is one of the shared integers.
std::string_view EncodingOf(const Entry& entry) {
  switch (entry.encoding()) {
    case ObjectEncoding::kInt:
    case ObjectEncoding::kIntShared:
      return model::EncodingName(model::Encoding::kInt);
    case ObjectEncoding::kEmbstr:
      return model::EncodingName(model::Encoding::kEmbstr);
    case ObjectEncoding::kRaw:
    case ObjectEncoding::kRawGrowable:
    case ObjectEncoding::kRawExternal:
      return model::EncodingName(model::Encoding::kRaw);
    default:
      return "?";
  }
}

// A list's elements, head first (the oracle compares lists element by element).
std::deque<std::string> ListElements(const Entry& entry) {
  std::deque<std::string> elements;
  static_cast<const List*>(EntryObject(entry))->ForEachElement([&](std::string_view element) {
    elements.emplace_back(element);
  });
  return elements;
}

std::string DescribeList(const std::deque<std::string>& elements) {
  std::string text = "a list of " + std::to_string(elements.size()) + " [";
  for (size_t i = 0; i < elements.size() && i < 8; i++) {
    text += (i > 0 ? " \"" : "\"") + EscapeBytes(elements[i], 20) + "\"";
  }
  return text + (elements.size() > 8 ? " ...]" : "]");
}

// The members of an engine set.
model::Value::SetMembers SetMembersOf(const Entry& entry) {
  model::Value::SetMembers members;
  static_cast<const SetValue*>(EntryObject(entry))->ForEach([&](std::string_view member) {
    members.emplace(member);
  });
  return members;
}

std::string DescribeMembers(const model::Value::SetMembers& members) {
  std::string text = "{";
  size_t shown = 0;
  for (const std::string& member : members) {
    if (shown++ == 8) {
      text += ", ...";
      break;
    }
    text += (shown > 1 ? ", \"" : "\"") + EscapeBytes(member, 20) + "\"";
  }
  return text + "} (" + std::to_string(members.size()) + " members";
}

// A hash's pairs in the engine's order (insertion order for a listpack).
std::vector<std::pair<std::string, std::string>> HashPairsOf(const Entry& entry) {
  std::vector<std::pair<std::string, std::string>> pairs;
  static_cast<const HashValue*>(EntryObject(entry))
      ->ForEach([&](std::string_view field, std::string_view value) {
        pairs.emplace_back(field, value);
      });
  return pairs;
}

std::string DescribePairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string text = "the hash {";
  for (size_t i = 0; i < pairs.size() && i < 8; i++) {
    text += (i > 0 ? ", \"" : "\"") + EscapeBytes(pairs[i].first, 20) + "\": \"" +
            EscapeBytes(pairs[i].second, 20) + "\"";
  }
  return text + (pairs.size() > 8 ? ", ...} (" : "} (") + std::to_string(pairs.size()) +
         " fields, ";
}

// The members and scores of an engine sorted set.
std::map<std::string, double> ZsetPairsOf(const Entry& entry) {
  std::map<std::string, double> pairs;
  static_cast<const ZsetValue*>(EntryObject(entry))
      ->ForEach([&](std::string_view member, double score) { pairs.emplace(member, score); });
  return pairs;
}

std::string DescribePairs(const std::map<std::string, double>& pairs) {
  std::string text = "{";
  size_t shown = 0;
  for (const auto& [member, score] : pairs) {
    if (shown++ == 8) {
      text += ", ...";
      break;
    }
    text += (shown > 1 ? ", \"" : "\"") + EscapeBytes(member, 20) + "\": " + std::to_string(score);
  }
  return text + "} (" + std::to_string(pairs.size()) + " members";
}

std::string DescribeValue(const model::Value& value) {
  if (value.type == model::ValueType::kHash) {
    return DescribePairs(value.hash) + std::string(model::EncodingName(value.encoding)) + ")";
  }
  if (value.type == model::ValueType::kZSet) {
    return "the sorted set " + DescribePairs(value.zset) + ", " +
           std::string(model::EncodingName(value.encoding)) + ")";
  }
  if (value.type == model::ValueType::kList) return DescribeList(value.list);
  if (value.type == model::ValueType::kStream) {
    return "a stream of " + std::to_string(value.stream.entries.size()) + " entries, last " +
           std::to_string(value.stream.last_id.first) + "-" +
           std::to_string(value.stream.last_id.second) + ", " +
           std::to_string(value.stream.groups.size()) + " groups, " +
           std::to_string(value.stream.nodes.size()) + " nodes";
  }
  if (value.type == model::ValueType::kSet) {
    std::string text = "the set " + DescribeMembers(value.set) + ", " +
                       std::string(model::EncodingName(value.encoding)) + ")";
    if (value.expire_at_ms != model::kNoExpiry)
      text += " expiring at " + std::to_string(value.expire_at_ms);
    return text;
  }
  std::string text = "\"" + EscapeBytes(value.string, 60) + "\" (" +
                     std::string(model::EncodingName(value.encoding)) +
                     (value.shared ? ", shared)" : ")");
  if (value.expire_at_ms != model::kNoExpiry)
    text += " expiring at " + std::to_string(value.expire_at_ms);
  return text;
}

std::string DescribeEntry(const Entry& entry) {
  if (entry.type() == ValueType::kZSet) {
    return "the sorted set " + DescribePairs(ZsetPairsOf(entry)) + ", " +
           std::string(EncodingNameOf(entry)) + ")";
  }
  if (entry.type() == ValueType::kList) return DescribeList(ListElements(entry));
  if (entry.type() == ValueType::kStream) {
    const auto& stream = *static_cast<const StreamValue*>(EntryObject(entry));
    return "a stream of " + std::to_string(stream.length()) + " entries, last " +
           stream.last_id().ToString() + ", " + std::to_string(stream.groups().size()) +
           " groups, " + std::to_string(stream.nodes().size()) + " nodes";
  }
  if (entry.type() == ValueType::kHash) {
    return DescribePairs(HashPairsOf(entry)) + std::string(EncodingNameOf(entry)) + ")";
  }
  if (entry.type() == ValueType::kSet) {
    std::string text = "the set " + DescribeMembers(SetMembersOf(entry)) + ", " +
                       std::string(EncodingNameOf(entry)) + ")";
    if (entry.has_expiry()) text += " expiring at " + std::to_string(entry.expire_at_ms());
    return text;
  }
  if (entry.type() != ValueType::kString) return "a non-string value";
  std::string text = "\"" + EscapeBytes(entry.value(), 60) + "\" (" +
                     std::string(EncodingOf(entry)) +
                     (entry.encoding() == ObjectEncoding::kIntShared ? ", shared)" : ")");
  if (entry.has_expiry()) text += " expiring at " + std::to_string(entry.expire_at_ms());
  return text;
}

// An engine stream in the model's form: entries, IDs, counters, groups and where its nodes
// start.
model::StreamModel StreamModelOf(const Entry& entry) {
  const auto& stream = *static_cast<const StreamValue*>(EntryObject(entry));
  model::StreamModel out;
  auto pair = [](StreamId id) { return model::StreamIdPair{id.ms, id.seq}; };
  stream.Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& item) {
    std::vector<std::string>& fields = out.entries[pair(item.id)];
    item.ForEachField([&](std::string_view field, std::string_view value) {
      fields.emplace_back(field);
      fields.emplace_back(value);
    });
    return true;
  });
  out.last_id = pair(stream.last_id());
  out.first_id = pair(stream.first_id());
  out.max_deleted = pair(stream.max_deleted_id());
  out.entries_added = stream.entries_added();
  for (const StreamGroup* group : stream.groups()) {
    model::StreamGroupModel& g = out.groups[std::string(group->name())];
    g.last_id = pair(group->last_id);
    g.entries_read = group->entries_read;
    for (const StreamNack& nack : group->pel) {
      g.pel[pair(nack.id)] =
          model::StreamNackModel{std::string(nack.consumer->name()), nack.delivery_time,
                                 static_cast<int64_t>(nack.delivery_count)};
    }
    for (const StreamConsumer* consumer : group->consumers) {
      g.consumers[std::string(consumer->name())] = consumer->seen_time;
    }
  }
  return out;
}

// The model's stream holds what the engine's does; the nodes are compared by where they start.
bool SameStream(const Entry& entry, const model::StreamModel& expected) {
  model::StreamModel actual = StreamModelOf(entry);
  const auto& stream = *static_cast<const StreamValue*>(EntryObject(entry));
  if (stream.nodes().size() != expected.nodes.size()) return false;
  for (size_t i = 0; i < expected.nodes.size(); i++) {
    const StreamId master = stream.nodes()[i].master;
    if (model::StreamIdPair{master.ms, master.seq} != expected.nodes[i].master) return false;
  }
  actual.nodes = expected.nodes;
  return actual == expected;
}

// The engine's entry holds what the model's value says: bytes, expiry and encoding (OBJECT
// ENCODING and REFCOUNT report the last).
bool SameValue(const Entry& entry, const model::Value& value) {
  if (entry.type() == ValueType::kStream || value.type == model::ValueType::kStream) {
    return entry.type() == ValueType::kStream && value.type == model::ValueType::kStream &&
           entry.expire_at_ms() == value.expire_at_ms && SameStream(entry, value.stream);
  }
  if (entry.type() == ValueType::kHash || value.type == model::ValueType::kHash) {
    if (entry.type() != ValueType::kHash || value.type != model::ValueType::kHash ||
        entry.expire_at_ms() != value.expire_at_ms ||
        EncodingNameOf(entry) != model::EncodingName(value.encoding)) {
      return false;
    }
    // A listpack's order is Redis's (insertion); a hashtable's is the engine's table.
    auto pairs = HashPairsOf(entry);
    auto expected = value.hash;
    if (value.encoding != model::Encoding::kListpack) {
      std::sort(pairs.begin(), pairs.end());
      std::sort(expected.begin(), expected.end());
    }
    return pairs == expected;
  }
  if (entry.type() == ValueType::kList || value.type == model::ValueType::kList) {
    return entry.type() == ValueType::kList && value.type == model::ValueType::kList &&
           entry.expire_at_ms() == value.expire_at_ms && ListElements(entry) == value.list;
  }
  if (entry.type() == ValueType::kZSet || value.type == model::ValueType::kZSet) {
    return entry.type() == ValueType::kZSet && value.type == model::ValueType::kZSet &&
           entry.expire_at_ms() == value.expire_at_ms &&
           EncodingNameOf(entry) == model::EncodingName(value.encoding) &&
           ZsetPairsOf(entry) == value.zset;
  }
  if (entry.type() == ValueType::kSet || value.type == model::ValueType::kSet) {
    return entry.type() == ValueType::kSet && value.type == model::ValueType::kSet &&
           entry.expire_at_ms() == value.expire_at_ms &&
           EncodingNameOf(entry) == model::EncodingName(value.encoding) &&
           SetMembersOf(entry) == value.set;
  }
  return entry.type() == ValueType::kString && value.type == model::ValueType::kString &&
         entry.value() == value.string && entry.expire_at_ms() == value.expire_at_ms &&
         EncodingOf(entry) == model::EncodingName(value.encoding) &&
         (entry.encoding() == ObjectEncoding::kIntShared) == value.shared;
}

// MOVE and COPY look a key up in a second database, whose reclaimed keys the model must have
// forgotten too (other commands touch the client's database only).
bool ReachesOtherDatabases(const std::vector<std::string>& args) {
  return !args.empty() &&
         (model::EqualsIgnoreCase(args[0], "move") || model::EqualsIgnoreCase(args[0], "copy"));
}

// EXEC's commands may reach any database (SELECT inside the transaction).
bool IsExec(const std::vector<std::string>& args) {
  return args.size() == 1 && model::EqualsIgnoreCase(args[0], "exec");
}

bool SameArgs(std::span<const std::string_view> actual, const std::vector<std::string>& sent) {
  if (actual.size() != sent.size()) return false;
  for (size_t i = 0; i < actual.size(); i++) {
    if (actual[i] != sent[i]) return false;
  }
  return true;
}

}  // namespace

std::string DescribeArgs(std::span<const std::string> args) {
  std::string text;
  for (const std::string& arg : args) {
    if (!text.empty()) text += ' ';
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return c > ' ' && c < 0x7f && c != '"';
    });
    text += plain ? arg : "\"" + EscapeBytes(arg, 60) + "\"";
  }
  return text;
}

std::string CompareKeyspace(Engine& engine, const model::Model& model, int index,
                            int64_t wall_ms_max) {
  const model::KeyTable& expected = model.db(index);
  std::string difference;
  size_t matched = 0;
  engine.database(index).ForEach([&](const Entry& entry) {
    if (!difference.empty()) return;
    auto it = expected.find(entry.key());
    const std::string where =
        "db " + std::to_string(index) + " key \"" + EscapeBytes(entry.key(), 60) + "\": ";
    if (it == expected.end()) {
      difference = where + "the engine holds " + DescribeEntry(entry) + ", the model nothing";
      return;
    }
    const model::Value& value = it->second;
    if (!SameValue(entry, value)) {
      difference = where + "the engine holds " + DescribeEntry(entry) + ", the model " +
                   DescribeValue(value);
    }
    matched++;
  });
  if (!difference.empty() || matched == expected.size()) return difference;
  // Keys only the model holds must have expired: the engine may reclaim those at any time.
  for (const auto& [key, value] : expected) {
    if (engine.database(index).Find(key) != nullptr) continue;
    if (!model::Model::IsExpired(value, wall_ms_max)) {
      return "db " + std::to_string(index) + " key \"" + EscapeBytes(key, 60) +
             "\": the model holds " + DescribeValue(value) + ", the engine nothing";
    }
  }
  return {};
}

std::string CompareChangedKeys(Engine& engine, const model::KeyTable& before,
                               const model::KeyTable& after, int index) {
  const Database& db = engine.database(index);
  auto compare = [&](const std::string& key) -> std::string {
    const Entry* entry = db.Find(key);
    auto it = after.find(key);
    const std::string where =
        "db " + std::to_string(index) + " key \"" + EscapeBytes(key, 60) + "\": ";
    if (it == after.end()) {
      return entry == nullptr
                 ? ""
                 : where + "the engine holds " + DescribeEntry(*entry) + ", the model nothing";
    }
    if (entry == nullptr)
      return where + "the model holds " + DescribeValue(it->second) + ", the engine nothing";
    return SameValue(*entry, it->second) ? ""
                                         : where + "the engine holds " + DescribeEntry(*entry) +
                                               ", the model " + DescribeValue(it->second);
  };
  for (const auto& [key, value] : after) {
    auto old = before.find(key);
    if (old != before.end() && old->second == value) continue;
    if (std::string difference = compare(key); !difference.empty()) return difference;
  }
  for (const auto& [key, value] : before) {
    if (after.find(key) != after.end()) continue;
    if (std::string difference = compare(key); !difference.empty()) return difference;
  }
  return {};
}

Oracle::Oracle(Engine& engine, SimEnv& env, Trace& trace, int64_t maxmemory_bytes,
               std::string_view maxmemory_policy)
    : engine_(engine),
      env_(env),
      trace_(trace),
      maxmemory_bytes_(maxmemory_bytes),
      maxmemory_policy_(maxmemory_policy),
      model_(static_cast<int>(engine.settings().databases)) {
  model_.set_maxmemory_bytes(static_cast<uint64_t>(maxmemory_bytes));
  // CheckEventsCoverChanges, when every class of event is announced.
  model_.set_report_changes((engine.keyspace().settings().notify_classes & kNotifyAll) ==
                            kNotifyAll);
  // Redis shares the integers 0..9999 unless a policy needs each key's own access clock
  // (MAXMEMORY_FLAG_NO_SHARED_INTEGERS: the LRU and LFU policies, with maxmemory set).
  const bool per_key_clock = maxmemory_policy_.find("lru") != std::string::npos ||
                             maxmemory_policy_.find("lfu") != std::string::npos;
  model_.set_shared_integers(maxmemory_bytes == 0 || !per_key_clock);
}

void Oracle::BeforeKeyChange(const Database& /*db*/, std::string_view /*key*/, uint64_t /*hash*/) {
  used_before_change_ = engine_.memory().used_bytes_total();
}

void Oracle::KeyEventFired(int db_index, uint32_t /*type_class*/, std::string_view event,
                           std::string_view key) {
  if (running_.record != nullptr) running_.event_keys.emplace(db_index, key);
  if (event != "evicted" || !failure_.empty()) return;
  evictions_++;
  const std::string where = "the engine evicted " + std::string(key) + " from db " +
                            std::to_string(db_index) + " (maxmemory " +
                            std::to_string(maxmemory_bytes_) + " " + maxmemory_policy_ + ")";
  if (maxmemory_policy_ == "noeviction") {
    Fail(where + ", which never evicts");
    return;
  }
  if (used_before_change_ <= static_cast<size_t>(maxmemory_bytes_)) {
    Fail(where + " while it used " + std::to_string(used_before_change_) +
         " bytes, within the limit");
    return;
  }
  model::KeyTable& table = model_.db(db_index);
  auto it = table.find(key);
  if (it == table.end()) {
    Fail(where + ", a key the model does not hold");
    return;
  }
  if (maxmemory_policy_.starts_with("volatile-") && it->second.expire_at_ms == model::kNoExpiry) {
    Fail(where + ", a key without a TTL");
    return;
  }
  // An eviction is a change to a watched key (Redis's evict.c signals it; the engine touches the
  // key just before it goes).
  model_.TouchKey(db_index, key, static_cast<int64_t>(env_.clock().WallUs() / 1000));
  table.erase(table.find(key));
  // Evictions run before the command they make room for (Redis's processCommand): its OOM
  // refusal depends on what is used after them. (The engine stops after 64 * (tenacity + 1)
  // evictions per command and then lets the command run; a run's few dozen keys never reach
  // that.)
  if (running_.record != nullptr) {
    running_.context.used_memory_bytes = engine_.memory().used_bytes_total();
  }
}

ConnectionRecord& Oracle::Open(SimClientId id, uint64_t client_id) {
  ConnectionRecord& record = records_[id];
  record.id = id;
  record.session.client_id = client_id;
  return record;
}

ConnectionRecord* Oracle::Find(SimClientId id) {
  auto it = records_.find(id);
  return it == records_.end() ? nullptr : &it->second;
}

void Oracle::Forget(SimClientId id) {
  KEEL_ASSERT(running_.record == nullptr || running_.record->id != id);
  auto it = records_.find(id);
  if (it != records_.end()) model_.DropClient(it->second.session.client_id);
  records_.erase(id);
  scans_.Drop(id);
}

void Oracle::Sent(SimClientId id, std::vector<std::string> args) {
  ConnectionRecord* record = Find(id);
  KEEL_ASSERT(record != nullptr);
  record->sent.push_back(std::move(args));
}

void Oracle::Fail(std::string message) {
  if (failure_.empty()) failure_ = std::move(message);
}

void Oracle::BeforeCommand(const Client& client, std::span<const std::string_view> args) {
  running_ = Running{};
  if (!failure_.empty()) return;
  ConnectionRecord* record = Find(client.conn());
  std::vector<std::string> copy(args.begin(), args.end());
  if (record == nullptr) {
    Fail("the engine executed " + DescribeArgs(copy) + " for an unknown connection " +
         std::to_string(client.conn()));
    return;
  }
  const std::string where = "connection " + std::to_string(record->id) + " command #" +
                            std::to_string(record->executed + 1) + ": ";
  if (record->sent.empty()) {
    Fail(where + "the engine executed " + DescribeArgs(copy) + ", which the client never sent");
    return;
  }
  if (!SameArgs(args, record->sent.front())) {
    Fail(where + "the engine executed " + DescribeArgs(copy) + " but the client sent " +
         DescribeArgs(record->sent.front()));
    return;
  }
  if (client.id() != record->session.client_id) {
    Fail(where + "the engine calls the client " + std::to_string(client.id()) + ", expected id " +
         std::to_string(record->session.client_id) + " (ids follow connection order)");
    return;
  }
  if (record->blocked) {
    Fail(where + "the engine ran " + DescribeArgs(copy) + " while the client's " +
         DescribeArgs(record->blocked_args) + " was blocked");
    return;
  }
  std::vector<std::string> sent = std::move(record->sent.front());
  record->sent.pop_front();
  Begin(record, std::move(sent));
  // What the disk's failures make the server refuse (a blocked command run again is past it).
  if (engine_.persistence().writes_denied()) {
    running_.context.disk_error = std::string(errors::kMisconf);
  } else if (engine_.aof().writes_denied()) {
    running_.context.disk_error = engine_.aof().MisconfError();
  }
}

void Oracle::Begin(ConnectionRecord* record, std::vector<std::string> args) {
  running_.record = record;
  running_.args = std::move(args);
  ForgetReclaimed(record->session.db);
  const bool exec = record->session.multi && IsExec(running_.args);
  if (ReachesOtherDatabases(running_.args) || exec) {
    for (int i = 0; i < model_.database_count(); i++) ForgetReclaimed(i);
  }
  // Under a refused allocation each command of an EXEC has two outcomes, which the oracle cannot
  // tell apart from outside the EXEC: random refusals wait until it is done.
  running_.exec = exec;
  if (exec) env_.sim_memory().set_random_refusals_suspended(true);
  running_.context.now_ms = env_.clock().WallUs() / 1000;
  // What maxmemory compares: the memory the engine uses, not the slab pages it holds.
  running_.context.used_memory_bytes = engine_.memory().used_bytes_total();
  running_.refused_before = env_.sim_memory().refused_count();
  // SPOP's draws: the model learns them from what the engine's set kept (read after the
  // command, when the model runs).
  running_.context.set_after = [this, db_index = record->session.db](
                                   std::string_view key, model::Value::SetMembers* members) {
    const Entry* entry = engine_.database(db_index).Find(key);
    members->clear();
    if (entry == nullptr || entry->type() != ValueType::kSet) return false;
    *members = SetMembersOf(*entry);
    return true;
  };
  ObserveWall(running_.context.now_ms);
}

void Oracle::ForgetReclaimed(int db_index) {
  const Database& db = engine_.database(db_index);
  model_.ForgetExpired(db_index, wall_ms_max_,
                       [&](const std::string& key) { return db.Find(key) == nullptr; });
}

// The first difference between the engine and the model in the keys a command changed (any
// database: MOVE, COPY and SWAPDB reach beyond the client's), or empty.
std::string Oracle::ChangedKeysDiffer(const std::vector<model::KeyTable>& before) {
  for (int i = 0; i < model_.database_count(); i++) {
    const std::string difference =
        CompareChangedKeys(engine_, before[static_cast<size_t>(i)], model_.db(i), i);
    if (!difference.empty()) return difference;
  }
  return {};
}

model::Expected Oracle::RunModel(ConnectionRecord& record) {
  model::Session& session = record.session;
  const bool refused = env_.sim_memory().refused_count() != running_.refused_before;
  const model::Command* command = model_.Find(running_.args);
  if (session.multi && command != nullptr &&
      model::Model::RoleInMulti(command->name) == model::Model::MultiRole::kQueued) {
    // Queuing copies the command: a refused copy is an OOM refusal that dooms the transaction,
    // which the engine's client shows.
    const Client* client = engine_.FindClient(session.client_id);
    model::Context context = running_.context;
    context.allocation_refused = refused && !session.dirty_exec && client != nullptr &&
                                 (client->flags & kClientDirtyExec) != 0;
    return model_.Execute(session, running_.args, context);
  }
  if (!refused || command == nullptr || !(command->flags & model::kAllocates)) {
    return model_.Execute(session, running_.args, running_.context);
  }
  // A refusal during a command that allocates: either outcome is legal. The one whose changed
  // keys match the engine's exactly is the one that happened; when both do (the command's memory
  // was transient, or its write changed nothing the engine shows), either reply is.
  std::vector<model::KeyTable> before;
  for (int i = 0; i < model_.database_count(); i++) before.push_back(model_.db(i));
  const model::Session saved_session = session;
  const model::Model::WatchState saved_watches = model_.watch_state();
  model::Context refused_context = running_.context;
  refused_context.allocation_refused = true;
  model::Expected refused_reply = model_.Execute(session, running_.args, refused_context);
  const std::string refused_difference = ChangedKeysDiffer(before);
  std::vector<model::KeyTable> refused_state;
  for (int i = 0; i < model_.database_count(); i++) {
    refused_state.push_back(std::move(model_.db(i)));
    model_.db(i) = before[static_cast<size_t>(i)];
  }
  const model::Session refused_session = session;
  model::Model::WatchState refused_watches = model_.watch_state();
  session = saved_session;
  model_.set_watch_state(saved_watches);
  model::Expected expected = model_.Execute(session, running_.args, running_.context);
  const std::string difference = ChangedKeysDiffer(before);
  if (difference.empty()) {
    if (!refused_difference.empty()) return expected;
    return model::OneOf({std::move(expected), std::move(refused_reply)});
  }
  for (int i = 0; i < model_.database_count(); i++) {
    model_.db(i) = std::move(refused_state[static_cast<size_t>(i)]);
  }
  session = refused_session;
  model_.set_watch_state(std::move(refused_watches));
  if (!refused_difference.empty()) {
    Fail("connection " + std::to_string(record.id) + " command #" +
         std::to_string(record.executed) + " " + DescribeArgs(running_.args) +
         ": after a refused allocation the keyspace matches neither outcome: " + difference);
  }
  return refused_reply;
}

void Oracle::CommandPostponed(const Client& client) {
  // The command did not run: it is again the next one its client is waiting for.
  if (running_.exec) env_.sim_memory().set_random_refusals_suspended(false);
  if (running_.record == nullptr || !failure_.empty()) return;
  KEEL_ASSERT(running_.record->id == client.conn());
  running_.record->sent.push_front(std::move(running_.args));
  running_ = Running{};
}

void Oracle::BeforeRetry(const Client& client) {
  running_ = Running{};
  if (!failure_.empty()) return;
  ConnectionRecord* record = Find(client.conn());
  if (record == nullptr || !record->blocked) {
    Fail("the engine ran a blocked command again for connection " + std::to_string(client.conn()) +
         ", which is not blocked");
    return;
  }
  Begin(record, record->blocked_args);
  running_.retry = true;
  running_.context.serving_key = std::string(engine_.serving_key(client));
  CheckServedInOrder(*record, running_.context.serving_key);
}

namespace {

// The keys a blocked command waits for (what the model checks; the engine parsed them the same
// way when it blocked).
std::vector<std::string> BlockedKeys(const std::vector<std::string>& args) {
  std::vector<std::string> keys;
  if (model::EqualsIgnoreCase(args[0], "blpop") || model::EqualsIgnoreCase(args[0], "brpop") ||
      model::EqualsIgnoreCase(args[0], "bzpopmin") ||
      model::EqualsIgnoreCase(args[0], "bzpopmax")) {
    keys.assign(args.begin() + 1, args.end() - 1);
  } else if (model::EqualsIgnoreCase(args[0], "blmpop") ||
             model::EqualsIgnoreCase(args[0], "bzmpop")) {
    int64_t count = 0;
    if (model::ParseInt64(args[2], &count) && count > 0 &&
        static_cast<uint64_t>(count) + 3 <= args.size()) {
      keys.assign(args.begin() + 3, args.begin() + 3 + count);
    }
  } else {
    keys.push_back(args[1]);  // BLMOVE, BRPOPLPUSH
  }
  return keys;
}

// The type of value that serves a blocked command.
model::ValueType BlockedType(const std::vector<std::string>& args) {
  return args[0].size() > 1 && (args[0][1] == 'z' || args[0][1] == 'Z') ? model::ValueType::kZSet
                                                                        : model::ValueType::kList;
}

// The timeout a blocked command was sent with, in ms (-1 when unreadable).
int64_t BlockedTimeoutMs(const std::vector<std::string>& args) {
  std::string text = args.back();  // BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BZPOPMIN, BZPOPMAX
  if (model::EqualsIgnoreCase(args[0], "blmpop") || model::EqualsIgnoreCase(args[0], "bzmpop")) {
    text = args[1];
  }
  long double seconds = 0;
  if (!model::ParseLongDouble(text, &seconds)) return -1;
  return static_cast<int64_t>(std::ceil(seconds * 1000.0L));
}

}  // namespace

void Oracle::CheckServedInOrder(const ConnectionRecord& record, const std::string& key) {
  for (const auto& [id, other] : records_) {
    // A waiter for another type is not served by this key's value.
    if (&other == &record || !other.blocked || other.block_number > record.block_number ||
        other.session.db != record.session.db ||
        BlockedType(other.blocked_args) != BlockedType(record.blocked_args)) {
      continue;
    }
    // A client on its way out is passed over (it would take an element nobody receives).
    const Client* client = engine_.FindClient(other.session.client_id);
    if (client == nullptr || (client->flags & kClientCloseAsap)) continue;
    const std::vector<std::string> keys = BlockedKeys(other.blocked_args);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
    Fail("connection " + std::to_string(record.id) + " " + DescribeArgs(record.blocked_args) +
         " is served for key " + key + " before connection " + std::to_string(other.id) + " " +
         DescribeArgs(other.blocked_args) + ", which blocked on it earlier");
    return;
  }
}

void Oracle::CheckWaitedItsTimeout(const ConnectionRecord& record) {
  const int64_t timeout_ms = BlockedTimeoutMs(record.blocked_args);
  const int64_t waited_us = env_.clock().MonotonicUs() - record.blocked_at_us;
  // The engine's deadline counts from its reading at the command's start, at most a
  // millisecond before the oracle's.
  if (timeout_ms <= 0 || waited_us + 1000 >= timeout_ms * 1000) return;
  Fail("connection " + std::to_string(record.id) + " " + DescribeArgs(record.blocked_args) +
       ": its wait ended after " + std::to_string(waited_us) + " us, before its timeout");
}

void Oracle::CommandBlocked(const Client& client) {
  if (running_.exec) env_.sim_memory().set_random_refusals_suspended(false);
  if (running_.record == nullptr || !failure_.empty()) return;
  ConnectionRecord& record = *running_.record;
  KEEL_ASSERT(record.id == client.conn());
  const model::Expected expected = RunModel(record);
  trace_.Record(TraceKind::kExecute, record.id, record.executed + 1,
                "(blocks) " + DescribeArgs(running_.args));
  if (expected.kind != model::Expected::Kind::kBlocks) {
    Fail("connection " + std::to_string(record.id) + " command #" +
         std::to_string(record.executed + 1) + " " + DescribeArgs(running_.args) +
         ": the engine blocked the client, but the model predicts " + expected.ToString() +
         (running_.retry ? " (run again for key " + running_.context.serving_key + ")" : ""));
    return;
  }
  if (!running_.retry) {
    record.block_number = ++blocks_;
    record.blocked_at_us = env_.clock().MonotonicUs();
  }
  record.blocked = true;
  record.blocked_args = std::move(running_.args);
  running_ = Running{};
}

void Oracle::CheckNothingToServe(const ConnectionRecord& record) {
  const std::vector<std::string>& args = record.blocked_args;
  const std::vector<std::string> keys = BlockedKeys(args);
  const int64_t now_ms = env_.clock().WallUs() / 1000;
  const model::KeyTable& db = model_.db(record.session.db);
  for (const std::string& key : keys) {
    auto it = db.find(key);
    if (it == db.end() || it->second.type != BlockedType(args)) continue;
    const size_t size = it->second.type == model::ValueType::kList ? it->second.list.size()
                                                                   : it->second.zset.size();
    if (model::Model::IsExpired(it->second, now_ms) || size == 0) continue;
    Fail("connection " + std::to_string(record.id) + " " + DescribeArgs(args) +
         ": its wait ended unserved while " +
         (it->second.type == model::ValueType::kList ? "list " : "sorted set ") + key + " holds " +
         std::to_string(size) + " elements (a lost wakeup)");
    return;
  }
}

void Oracle::BlockEnded(const Client& client) {
  if (!failure_.empty()) return;
  ConnectionRecord* record = Find(client.conn());
  if (record == nullptr || !record->blocked) return;
  record->blocked = false;
  // Freed with the connection: nothing is replied.
  if (record->cut || record->closed || (client.flags & kClientCloseAsap)) return;
  CheckNothingToServe(*record);
  CheckWaitedItsTimeout(*record);
  commands_++;
  record->executed++;
  trace_.Record(TraceKind::kExecute, record->id, record->executed,
                "(wait ends) " + DescribeArgs(record->blocked_args));
  const int resp = record->session.resp;
  model::Expected expected = model::OneOf(
      {model::NullArray(resp), model::Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")});
  record->replies.push_back(PendingReply{std::move(expected), record->executed,
                                         std::move(record->blocked_args),
                                         env_.clock().WallUs() / 1000, record->session.db, 0,
                                         history_ != nullptr ? history_->units() : 0});
  record->blocked_args.clear();
}

void Oracle::AfterCommand(const Client& client) {
  if (running_.exec) env_.sim_memory().set_random_refusals_suspended(false);
  if (running_.record == nullptr || !failure_.empty()) return;
  ConnectionRecord& record = *running_.record;
  KEEL_ASSERT(record.id == client.conn());
  if (running_.retry) {
    record.blocked = false;
    record.blocked_args.clear();
    waits_served_++;
  }
  commands_++;
  record.executed++;
  const int db = record.session.db;
  const bool refused = env_.sim_memory().refused_count() != running_.refused_before;
  model::Expected expected = RunModel(record);
  trace_.Record(TraceKind::kExecute, record.id, record.executed,
                (running_.retry ? "(served) " : "") + DescribeArgs(running_.args));
  // Under a refused allocation the model ran twice and kept one outcome: its list of changes is
  // the last run's, which may not be the kept one.
  if (!refused) CheckEventsCoverChanges();
  if (!failure_.empty()) return;
  const int64_t now_ms = running_.context.now_ms;
  const uint64_t scan_iteration =
      record.cut ? 0
                 : scans_.Executed(record.id, record.executed, db, running_.args, model_, now_ms);
  const bool swapdb = !running_.args.empty() && model::EqualsIgnoreCase(running_.args[0], "swapdb");
  scans_.AfterCommand(model_, now_ms, swapdb);
  if (!record.cut) {
    record.replies.push_back(PendingReply{std::move(expected), record.executed,
                                          std::move(running_.args), now_ms, db, scan_iteration,
                                          history_ != nullptr ? history_->units() : 0});
  }
  running_ = Running{};
}

void Oracle::CheckEventsCoverChanges() {
  for (const auto& [db_index, key] : model_.changed_keys()) {
    if (running_.event_keys.count({db_index, key}) != 0) continue;
    Fail("connection " + std::to_string(running_.record->id) + " command #" +
         std::to_string(running_.record->executed) + " " + DescribeArgs(running_.args) +
         ": it changed " + key + " in db " + std::to_string(db_index) +
         " (the model says) but the engine fired no keyspace event for it");
    return;
  }
}

void Oracle::Received(SimClientId id, const RespValue& actual, std::string_view bytes) {
  ConnectionRecord* record = Find(id);
  KEEL_ASSERT(record != nullptr);
  if (record->cut || !failure_.empty()) return;
  if (record->replies.empty()) {
    trace_.Record(TraceKind::kReply, id, 0, bytes);
    Fail("connection " + std::to_string(id) + " received " + actual.ToString() +
         " when no reply was due (every command it sent had its reply)");
    return;
  }
  PendingReply& pending = record->replies.front();
  trace_.Record(TraceKind::kReply, id, pending.number, bytes);
  if (!pending.expected.Matches(actual)) {
    Fail("connection " + std::to_string(id) + " (client id " +
         std::to_string(record->session.client_id) + ") command #" +
         std::to_string(pending.number) + " in db " + std::to_string(pending.db) + " at wall " +
         std::to_string(pending.now_ms) + " ms: " + DescribeArgs(pending.args) +
         "\n  expected: " + pending.expected.ToString() + "\n  actual:   " + actual.ToString());
    return;
  }
  if (pending.scan_iteration != 0) {
    std::string failure = scans_.Replied(pending.scan_iteration, actual, &record->scan_next);
    if (!failure.empty()) {
      Fail(std::move(failure));
      return;
    }
    record->scan_next_iteration = record->scan_next.empty() ? 0 : pending.scan_iteration;
  }
  if (history_ != nullptr &&
      (acknowledgements_.empty() || pending.units > acknowledgements_.back().units)) {
    acknowledgements_.push_back(Acknowledgement{env_.clock().MonotonicUs(), pending.units});
  }
  record->replies.pop_front();
}

}  // namespace keel::sim
