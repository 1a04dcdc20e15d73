// Stream consumer groups: XGROUP (CREATE, CREATECONSUMER, DELCONSUMER, DESTROY, SETID, HELP),
// XREADGROUP's serving of a group (the parsing is XREAD's, in cmd_stream.cc), XACK, XPENDING,
// XCLAIM, XAUTOCLAIM and XINFO (STREAM, GROUPS, CONSUMERS, HELP), as Redis 7.0's t_stream.c.
//
// Propagation is Redis's: XREADGROUP replays as an XCLAIM per delivered entry (with the group's
// last ID) and an XGROUP SETID, XCLAIM and XAUTOCLAIM as the XCLAIMs they did, so that a replica
// holds the same pending entries list whatever the time.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/commands/cmd_stream_common.h"

namespace keel {
namespace {

using stream_events::kGroupCreate;
using stream_events::kGroupCreateConsumer;
using stream_events::kGroupDelConsumer;
using stream_events::kGroupDestroy;
using stream_events::kGroupSetid;

std::string Int(int64_t value) { return std::to_string(value); }

void AlsoPropagate(CommandContext& context, std::initializer_list<std::string_view> args) {
  if (!context.propagating()) return;
  context.keyspace.propagation().Add(context.db_index(), args);
}

// streamPropagateXCLAIM: the idempotent XCLAIM that gives `nack` to its consumer.
void PropagateXclaim(CommandContext& context, std::string_view key, const StreamGroup& group,
                     std::string_view group_name, StreamId id, const StreamNack& nack) {
  if (!context.propagating()) return;
  const std::string id_text = id.ToString();
  const std::string time = Int(nack.delivery_time);
  const std::string count = Int(static_cast<int64_t>(nack.delivery_count));
  const std::string last = group.last_id.ToString();
  AlsoPropagate(context, {"XCLAIM", key, group_name, nack.consumer->name(), "0", id_text, "TIME",
                          time, "RETRYCOUNT", count, "FORCE", "JUSTID", "LASTID", last});
}

// streamPropagateGroupID.
void PropagateGroupId(CommandContext& context, std::string_view key, const StreamGroup& group,
                      std::string_view group_name) {
  if (!context.propagating()) return;
  const std::string last = group.last_id.ToString();
  const std::string read = Int(group.entries_read);
  AlsoPropagate(context, {"XGROUP", "SETID", key, group_name, last, "ENTRIESREAD", read});
}

// streamPropagateConsumerCreation.
void PropagateConsumerCreation(CommandContext& context, std::string_view key,
                               std::string_view group_name, std::string_view consumer) {
  AlsoPropagate(context, {"XGROUP", "CREATECONSUMER", key, group_name, consumer});
}

// A change to a stream's groups: its event and one change for the dirty counter. Redis's group
// commands signal no modified key, so they break no WATCH.
void GroupChanged(CommandContext& context, std::string_view key, KeyEvent event) {
  context.keyspace.Notify(context.db_index(), event, key);
  context.keyspace.CountChange();
}

// The entry `id` as [id, fields] if it is live; false otherwise (nothing replied).
bool ReplyEntryIfLive(ReplyBuilder& reply, const StreamValue& stream, StreamId id) {
  bool found = false;
  stream.Range(id, id, false, [&](const StreamEntryView& entry) {
    ReplyStreamEntry(reply, entry);
    found = true;
    return false;
  });
  return found;
}

// The consumer's own pending entries from `start` on (streamReplyWithRangeFromConsumerPEL).
void ReplyConsumerHistory(CommandContext& context, const StreamValue& stream, StreamGroup& group,
                          StreamConsumer& consumer, StreamId start, size_t count) {
  const StreamId* from = std::lower_bound(consumer.pel.begin(), consumer.pel.end(), start);
  size_t n = static_cast<size_t>(consumer.pel.end() - from);
  if (count != 0 && n > count) n = count;
  context.reply.ArrayHeader(n);
  const size_t first = static_cast<size_t>(from - consumer.pel.begin());
  for (size_t i = first; i < first + n; i++) {
    const StreamId id = consumer.pel[i];
    if (!ReplyEntryIfLive(context.reply, stream, id)) {
      context.reply.ArrayHeader(2);
      ReplyStreamId(context.reply, id);
      context.reply.NullArray();
    } else {
      StreamNack* nack = group.FindNack(id);
      if (nack != nullptr) {
        nack->delivery_time = context.now_ms();
        nack->delivery_count++;
      }
    }
  }
}

}  // namespace

// XREADGROUP's serving of one stream: the consumer's history (an explicit ID), or new entries
// after `after` (the group's last ID), each added to the PEL unless `noack`.
bool PrepareGroupRead(CommandContext& context, StreamGroup& group, std::string_view consumer_name,
                      size_t entries, bool* created) {
  MemoryAccountant& memory = context.memory();
  *created = false;
  StreamConsumer* consumer = group.FindConsumer(consumer_name);
  if (consumer == nullptr) {
    consumer = StreamValue::CreateConsumer(group, consumer_name, context.now_ms(), memory);
    if (consumer == nullptr) return false;
    *created = true;
  }
  if (!group.pel.Reserve(entries, memory) || !consumer->pel.Reserve(entries, memory)) {
    if (*created) StreamValue::DeleteConsumer(group, consumer, memory);
    *created = false;
    return false;
  }
  return true;
}

void UndoConsumerCreation(CommandContext& context, StreamGroup& group,
                          std::string_view consumer_name) {
  StreamConsumer* consumer = group.FindConsumer(consumer_name);
  if (consumer != nullptr) StreamValue::DeleteConsumer(group, consumer, context.memory());
}

void ReplyGroupRead(CommandContext& context, std::string_view key, StreamValue& stream,
                    StreamGroup& group, std::string_view consumer_name, StreamId after,
                    size_t count, bool noack, bool history, bool created) {
  StreamConsumer* consumer = group.FindConsumer(consumer_name);
  KEEL_ASSERT(consumer != nullptr);
  if (created) {
    GroupChanged(context, key, kGroupCreateConsumer);
    // Without NOACK the XCLAIMs below make the consumer on a replica; a read of the history
    // propagates nothing (Redis 7.0).
    if (noack && !history) PropagateConsumerCreation(context, key, group.name(), consumer_name);
  }
  consumer->seen_time = context.now_ms();
  context.keyspace.CountChange();  // XREADGROUP counts one change per stream served
  StreamId start = after;
  start.Increment();
  if (history) {
    ReplyConsumerHistory(context, stream, group, *consumer, start, count);
    return;
  }
  // The new entries to deliver.
  std::vector<StreamId> ids;
  stream.Range(start, StreamId::Max(), false, [&](const StreamEntryView& entry) {
    ids.push_back(entry.id);
    return count == 0 || ids.size() < count;
  });
  // PrepareGroupRead made room for these.
  KEEL_ASSERT(noack || (group.pel.Reserve(ids.size(), context.memory()) &&
                        consumer->pel.Reserve(ids.size(), context.memory())));
  context.reply.ArrayHeader(ids.size());
  bool propagate_last_id = false;
  for (const StreamId& id : ids) {
    if (id > group.last_id) {
      if (group.entries_read != StreamGroup::kInvalidEntriesRead &&
          !stream.RangeHasTombstones(id, StreamId::Max())) {
        group.entries_read++;
      } else if (stream.entries_added() != 0) {
        group.entries_read = stream.EstimateDistanceFromFirstEverEntry(id);
      }
      group.last_id = id;
      // Without NOACK each entry's XCLAIM carries the group's last ID.
      propagate_last_id = noack;
    }
    ReplyEntryIfLive(context.reply, stream, id);
    if (noack) continue;
    size_t at = 0;
    StreamNack* nack = group.FindNack(id, &at);
    if (nack == nullptr) {
      group.pel.Insert(at, StreamNack{id, context.now_ms(), 1, consumer});
      nack = &group.pel[at];
    } else {
      // Delivered before (the group's ID was set back): the entry moves to this consumer.
      StreamConsumer* previous = nack->consumer;
      const StreamId* spot = std::lower_bound(previous->pel.begin(), previous->pel.end(), id);
      if (spot != previous->pel.end() && *spot == id) {
        previous->pel.Erase(static_cast<size_t>(spot - previous->pel.begin()));
      }
      nack->consumer = consumer;
      nack->delivery_time = context.now_ms();
      nack->delivery_count = 1;
    }
    const StreamId* spot = std::lower_bound(consumer->pel.begin(), consumer->pel.end(), id);
    if (spot == consumer->pel.end() || *spot != id) {
      consumer->pel.Insert(static_cast<size_t>(spot - consumer->pel.begin()), id);
    }
    PropagateXclaim(context, key, group, group.name(), id, *nack);
  }
  if (propagate_last_id) PropagateGroupId(context, key, group, group.name());
}

namespace {

// --- XGROUP -----------------------------------------------------------------------------------

void CmdXgroupHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CREATE <key> <groupname> <id|$> [option]",
      "    Create a new consumer group. Options are:",
      "    * MKSTREAM",
      "      Create the empty stream if it does not exist.",
      "    * ENTRIESREAD entries_read",
      "      Set the group's entries_read counter (internal use).",
      "CREATECONSUMER <key> <groupname> <consumer>",
      "    Create a new consumer in the specified group.",
      "DELCONSUMER <key> <groupname> <consumer>",
      "    Remove the specified consumer.",
      "DESTROY <key> <groupname>",
      "    Remove the specified group.",
      "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
      "    Set the current group ID and entries_read counter.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

// xgroupCommand, for every subcommand but HELP.
void CmdXgroup(CommandContext& context) {
  const std::string_view sub = context.arg(1);
  const bool create = OptionIs(sub, "create");
  const bool setid = OptionIs(sub, "setid");
  const int db = context.db_index();
  const std::string_view key = context.arg(2);
  const std::string_view group_name = context.arg(3);
  bool mkstream = false;
  int64_t entries_read = StreamGroup::kInvalidEntriesRead;
  for (size_t i = 5; i < context.argc();) {
    if (create && OptionIs(context.arg(i), "mkstream")) {
      mkstream = true;
      i++;
    } else if ((create || setid) && OptionIs(context.arg(i), "entriesread") &&
               i + 1 < context.argc()) {
      if (!ParseStrictInt64(context.arg(i + 1), &entries_read)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (entries_read < 0 && entries_read != StreamGroup::kInvalidEntriesRead) {
        context.reply.Error("ERR value for ENTRIESREAD must be positive or -1");
        return;
      }
      i += 2;
    } else {
      context.reply.Error(SubcommandSyntaxError("XGROUP", sub));
      return;
    }
  }
  Entry* entry = nullptr;
  if (!LookupStreamWrite(context, key, &entry)) return;
  StreamValue* stream = entry != nullptr ? &MutableStreamOf(*entry) : nullptr;
  StreamGroup* group = nullptr;
  if (!mkstream) {
    if (stream == nullptr) {
      context.reply.Error(
          "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
          "want to use the MKSTREAM option to create an empty stream automatically.");
      return;
    }
    group = stream->FindGroup(group_name);
    if (group == nullptr &&
        (setid || OptionIs(sub, "createconsumer") || OptionIs(sub, "delconsumer"))) {
      context.reply.Error("NOGROUP No such consumer group '" + CText(group_name) +
                          "' for key name '" + CText(key) + "'");
      return;
    }
  }
  MemoryAccountant& memory = context.memory();
  if (create && context.argc() >= 5) {
    StreamId id;
    if (context.arg(4) == "$") {
      id = stream != nullptr ? stream->last_id() : StreamId{};
    } else if (!ParseStreamId(context, context.arg(4), 0, true, &id)) {
      return;
    }
    if (stream != nullptr && stream->FindGroup(group_name) != nullptr) {
      context.reply.Error("BUSYGROUP Consumer Group name already exists");
      return;
    }
    if (stream == nullptr) {
      StreamValue* created = StreamValue::Create(memory);
      if (created == nullptr ||
          created->CreateGroup(group_name, id, entries_read, memory) == nullptr) {
        StreamValue::Destroy(created, memory);
        context.reply.Error(errors::kOom);
        return;
      }
      const uint64_t hash = context.keyspace.Hash(db, key);
      if (context.keyspace.SetObject(db, key, hash, ValueType::kStream, ObjectEncoding::kStream,
                                     created, kNoExpiry, kGroupCreate,
                                     1) == Database::SetOutcome::kOutOfMemory) {
        StreamValue::Destroy(created, memory);
        context.reply.Error(errors::kOom);
        return;
      }
      context.reply.Ok();
      return;
    }
    if (stream->CreateGroup(group_name, id, entries_read, memory) == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    GroupChanged(context, key, kGroupCreate);
    context.reply.Ok();
    return;
  }
  if (setid && (context.argc() == 5 || context.argc() == 7)) {
    StreamId id;
    if (context.arg(4) == "$") {
      id = stream->last_id();
    } else if (!ParseStreamId(context, context.arg(4), 0, false, &id)) {
      return;
    }
    group->last_id = id;
    group->entries_read = entries_read;
    GroupChanged(context, key, kGroupSetid);
    context.reply.Ok();
    return;
  }
  if (OptionIs(sub, "destroy") && context.argc() == 4) {
    if (group == nullptr) {
      context.reply.Integer(0);
      return;
    }
    stream->DestroyGroup(group_name, memory);
    GroupChanged(context, key, kGroupDestroy);
    // Its blocked XREADGROUPs run again and end with NOGROUP.
    context.SignalKeyReady(key);
    context.reply.Integer(1);
    return;
  }
  if (OptionIs(sub, "createconsumer") && context.argc() == 5) {
    if (group->FindConsumer(context.arg(4)) != nullptr) {
      context.reply.Integer(0);
      return;
    }
    if (StreamValue::CreateConsumer(*group, context.arg(4), context.now_ms(), memory) == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    GroupChanged(context, key, kGroupCreateConsumer);
    context.reply.Integer(1);
    return;
  }
  if (OptionIs(sub, "delconsumer") && context.argc() == 5) {
    StreamConsumer* consumer = group->FindConsumer(context.arg(4));
    int64_t pending = 0;
    if (consumer != nullptr) {
      pending = static_cast<int64_t>(StreamValue::DeleteConsumer(*group, consumer, memory));
      GroupChanged(context, key, kGroupDelConsumer);
    }
    context.reply.Integer(pending);
    return;
  }
  context.reply.Error(SubcommandSyntaxError("XGROUP", sub));
}

// --- XACK -------------------------------------------------------------------------------------

// XACK key group id [id ...]
void CmdXack(CommandContext& context) {
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(1), &stream)) return;
  StreamGroup* group = stream != nullptr ? stream->FindGroup(context.arg(2)) : nullptr;
  if (group == nullptr) {
    context.reply.Integer(0);
    return;
  }
  std::vector<StreamId> ids(context.argc() - 3);
  for (size_t i = 3; i < context.argc(); i++) {
    if (!ParseStreamId(context, context.arg(i), 0, true, &ids[i - 3])) return;
  }
  // Redis looks the key up for reading; the change goes through a write lookup, which a
  // running snapshot needs to see before the value changes.
  Entry* entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1));
  KEEL_ASSERT(entry != nullptr);  // found above, and nothing ran in between
  group = MutableStreamOf(*entry).FindGroup(context.arg(2));
  int64_t acknowledged = 0;
  for (const StreamId& id : ids) {
    size_t at = 0;
    if (group->FindNack(id, &at) == nullptr) continue;
    StreamValue::RemoveNack(*group, at);
    acknowledged++;
    context.keyspace.CountChange();
  }
  context.reply.Integer(acknowledged);
}

// --- XPENDING ---------------------------------------------------------------------------------

bool ParseIntervalBound(CommandContext& context, std::string_view text, uint64_t missing_seq,
                        StreamId* id, bool* exclusive) {
  *exclusive = false;
  if (text.size() > 1 && text[0] == '(') {
    *exclusive = true;
    return ParseStreamId(context, text.substr(1), missing_seq, true, id);
  }
  return ParseStreamId(context, text, missing_seq, false, id);
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
void CmdXpending(CommandContext& context) {
  const bool summary = context.argc() == 3;
  if (context.argc() != 3 && (context.argc() < 6 || context.argc() > 9)) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  StreamId start;
  StreamId end;
  int64_t count = 0;
  int64_t min_idle = 0;
  std::string_view consumer_name;
  bool has_consumer = false;
  if (context.argc() >= 6) {
    size_t at = 3;
    if (OptionIs(context.arg(3), "idle")) {
      if (!ParseStrictInt64(context.arg(4), &min_idle)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (context.argc() < 8) {
        context.reply.Error(errors::kSyntax);
        return;
      }
      at += 2;
    }
    if (!ParseStrictInt64(context.arg(at + 2), &count)) {
      context.reply.Error(errors::kNotInteger);
      return;
    }
    if (count < 0) count = 0;
    bool exclusive = false;
    if (!ParseIntervalBound(context, context.arg(at), 0, &start, &exclusive)) return;
    if (exclusive && !start.Increment()) {
      context.reply.Error("ERR invalid start ID for the interval");
      return;
    }
    if (!ParseIntervalBound(context, context.arg(at + 1), UINT64_MAX, &end, &exclusive)) return;
    if (exclusive && !end.Decrement()) {
      context.reply.Error("ERR invalid end ID for the interval");
      return;
    }
    if (at + 3 < context.argc()) {
      consumer_name = context.arg(at + 3);
      has_consumer = true;
    }
  }
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(1), &stream)) return;
  const StreamGroup* group = stream != nullptr ? stream->FindGroup(context.arg(2)) : nullptr;
  if (group == nullptr) {
    context.reply.Error("NOGROUP No such key '" + CText(context.arg(1)) + "' or consumer group '" +
                        CText(context.arg(2)) + "'");
    return;
  }
  ReplyBuilder& reply = context.reply;
  if (summary) {
    reply.ArrayHeader(4);
    reply.Integer(static_cast<int64_t>(group->pel.size()));
    if (group->pel.empty()) {
      reply.NullBulk();
      reply.NullBulk();
      reply.NullArray();
      return;
    }
    ReplyStreamId(reply, group->pel[0].id);
    ReplyStreamId(reply, group->pel[group->pel.size() - 1].id);
    size_t with_pending = 0;
    for (const StreamConsumer* consumer : group->consumers) with_pending += !consumer->pel.empty();
    reply.ArrayHeader(with_pending);
    for (const StreamConsumer* consumer : group->consumers) {
      if (consumer->pel.empty()) continue;
      reply.ArrayHeader(2);
      reply.Bulk(consumer->name());
      reply.Bulk(Int(static_cast<int64_t>(consumer->pel.size())));
    }
    return;
  }
  const StreamConsumer* consumer = nullptr;
  if (has_consumer) {
    consumer = group->FindConsumer(consumer_name);
    if (consumer == nullptr) {
      reply.EmptyArray();
      return;
    }
  }
  const int64_t now = context.now_ms();
  std::vector<const StreamNack*> shown;
  auto consider = [&](const StreamNack& nack) {
    if (count == 0) return false;
    if (nack.id > end) return false;
    if (nack.id < start) return true;
    if (min_idle != 0 && now - nack.delivery_time < min_idle) return true;
    shown.push_back(&nack);
    count--;
    return true;
  };
  StreamGroup& mutable_group = *const_cast<StreamGroup*>(group);
  if (consumer != nullptr) {
    for (const StreamId& id : consumer->pel) {
      const StreamNack* nack = mutable_group.FindNack(id);
      if (nack != nullptr && !consider(*nack)) break;
    }
  } else {
    for (const StreamNack& nack : group->pel) {
      if (!consider(nack)) break;
    }
  }
  reply.ArrayHeader(shown.size());
  for (const StreamNack* nack : shown) {
    reply.ArrayHeader(4);
    ReplyStreamId(reply, nack->id);
    reply.Bulk(nack->consumer->name());
    const int64_t elapsed = now - nack->delivery_time;
    reply.Integer(elapsed < 0 ? 0 : elapsed);
    reply.Integer(static_cast<int64_t>(nack->delivery_count));
  }
}

// --- XCLAIM and XAUTOCLAIM --------------------------------------------------------------------

// Gives the NACK at `at` of `group` to `consumer` (it keeps its place in the group's PEL).
// REQUIRES: room for one more ID in consumer->pel.
void MoveNack(StreamGroup& group, size_t at, StreamConsumer* consumer) {
  StreamNack& nack = group.pel[at];
  if (nack.consumer == consumer) return;
  if (nack.consumer != nullptr) {
    StreamConsumer* previous = nack.consumer;
    const StreamId* spot = std::lower_bound(previous->pel.begin(), previous->pel.end(), nack.id);
    if (spot != previous->pel.end() && *spot == nack.id) {
      previous->pel.Erase(static_cast<size_t>(spot - previous->pel.begin()));
    }
  }
  const StreamId* spot = std::lower_bound(consumer->pel.begin(), consumer->pel.end(), nack.id);
  consumer->pel.Insert(static_cast<size_t>(spot - consumer->pel.begin()), nack.id);
  nack.consumer = consumer;
}

bool ParseOptionInt(CommandContext& context, std::string_view text, std::string_view message,
                    int64_t* value) {
  if (ParseStrictInt64(text, value)) return true;
  context.reply.Error("ERR " + std::string(message));
  return false;
}

// The group of a stream a command changes (XCLAIM, XAUTOCLAIM), or null after replying WRONGTYPE
// or Redis's NOGROUP error.
StreamGroup* LookupGroupWrite(CommandContext& context, std::string_view key,
                              std::string_view group_name, StreamValue** stream) {
  Entry* entry = nullptr;
  if (!LookupStreamWrite(context, key, &entry)) return nullptr;
  *stream = entry != nullptr ? &MutableStreamOf(*entry) : nullptr;
  StreamGroup* group = *stream != nullptr ? (*stream)->FindGroup(group_name) : nullptr;
  if (group == nullptr) {
    context.reply.Error("NOGROUP No such key '" + CText(key) + "' or consumer group '" +
                        CText(group_name) + "'");
  }
  return group;
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT count]
//   [FORCE] [JUSTID] [LASTID id]
void CmdXclaim(CommandContext& context) {
  const std::string_view key = context.arg(1);
  const std::string_view group_name = context.arg(2);
  StreamValue* stream = nullptr;
  StreamGroup* group = LookupGroupWrite(context, key, group_name, &stream);
  if (group == nullptr) return;
  context.PreventPropagation();
  int64_t min_idle = 0;
  if (!ParseOptionInt(context, context.arg(4), "Invalid min-idle-time argument for XCLAIM",
                      &min_idle)) {
    return;
  }
  if (min_idle < 0) min_idle = 0;
  std::vector<StreamId> ids;
  size_t j = 5;
  for (; j < context.argc(); j++) {
    StreamId id;
    // Parsed without a reply: the first argument that is no ID starts the options.
    ReplyBuilder& reply = context.reply;
    (void)reply;
    std::string_view text = context.arg(j);
    if (text == "-" || text == "+") break;
    const size_t dash = text.find('-');
    uint64_t ms = 0;
    uint64_t seq = 0;
    int64_t parsed = 0;
    auto parse_part = [&](std::string_view part, uint64_t* value) {
      if (ParseStrictInt64(part, &parsed) && parsed >= 0) {
        *value = static_cast<uint64_t>(parsed);
        return true;
      }
      return false;
    };
    if (text.size() > 127 || !parse_part(text.substr(0, dash), &ms)) break;
    if (dash != std::string_view::npos && !parse_part(text.substr(dash + 1), &seq)) break;
    id = {ms, seq};
    ids.push_back(id);
  }
  const int64_t now = context.now_ms();
  StreamId last_id;
  int64_t delivery_time = -1;
  int64_t retry_count = -1;
  bool force = false;
  bool justid = false;
  for (; j < context.argc(); j++) {
    const bool more = j + 1 < context.argc();
    const std::string_view option = context.arg(j);
    if (OptionIs(option, "force")) {
      force = true;
    } else if (OptionIs(option, "justid")) {
      justid = true;
    } else if (OptionIs(option, "idle") && more) {
      j++;
      if (!ParseOptionInt(context, context.arg(j), "Invalid IDLE option argument for XCLAIM",
                          &delivery_time)) {
        return;
      }
      delivery_time = now - delivery_time;
    } else if (OptionIs(option, "time") && more) {
      j++;
      if (!ParseOptionInt(context, context.arg(j), "Invalid TIME option argument for XCLAIM",
                          &delivery_time)) {
        return;
      }
    } else if (OptionIs(option, "retrycount") && more) {
      j++;
      if (!ParseOptionInt(context, context.arg(j), "Invalid RETRYCOUNT option argument for XCLAIM",
                          &retry_count)) {
        return;
      }
    } else if (OptionIs(option, "lastid") && more) {
      j++;
      if (!ParseStreamId(context, context.arg(j), 0, true, &last_id)) return;
    } else {
      const size_t nul = option.find('\0');
      context.reply.Error("ERR Unrecognized XCLAIM option '" + std::string(option.substr(0, nul)) +
                          "'");
      return;
    }
  }
  MemoryAccountant& memory = context.memory();
  // Room first, so that the claims below cannot fail half-way: the consumer is made now (and
  // unmade if it claims nothing, as Redis makes it at its first claim).
  StreamConsumer* consumer = group->FindConsumer(context.arg(3));
  bool made = false;
  if (consumer == nullptr) {
    consumer = StreamValue::CreateConsumer(*group, context.arg(3), now, memory);
    if (consumer == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    made = true;
  }
  if (!group->pel.Reserve(force ? ids.size() : 0, memory) ||
      !consumer->pel.Reserve(ids.size(), memory)) {
    if (made) StreamValue::DeleteConsumer(*group, consumer, memory);
    context.reply.Error(errors::kOom);
    return;
  }
  bool propagate_last_id = false;
  if (last_id > group->last_id) {
    group->last_id = last_id;
    propagate_last_id = true;
  }
  if (delivery_time != -1) {
    if (delivery_time < 0 || delivery_time > now) delivery_time = now;
  } else {
    delivery_time = now;
  }
  std::vector<StreamId> claimed;
  for (size_t k = 0; k < ids.size(); k++) {
    const StreamId id = ids[k];
    size_t at = 0;
    StreamNack* nack = group->FindNack(id, &at);
    if (!stream->Contains(id)) {
      if (nack != nullptr) {
        PropagateXclaim(context, key, *group, group_name, id, *nack);
        propagate_last_id = false;
        context.keyspace.CountChange();
        StreamValue::RemoveNack(*group, at);
      }
      continue;
    }
    if (force && nack == nullptr) {
      group->pel.Insert(at, StreamNack{id, 0, 0, nullptr});
      nack = &group->pel[at];
    }
    if (nack == nullptr) continue;
    if (nack->consumer != nullptr && min_idle != 0 && now - nack->delivery_time < min_idle) {
      continue;
    }
    if (made && claimed.empty()) GroupChanged(context, key, kGroupCreateConsumer);
    consumer->seen_time = now;
    nack->delivery_time = delivery_time;
    if (retry_count >= 0) {
      nack->delivery_count = static_cast<uint64_t>(retry_count);
    } else if (!justid) {
      nack->delivery_count++;
    }
    MoveNack(*group, at, consumer);
    claimed.push_back(id);
    PropagateXclaim(context, key, *group, group_name, id, group->pel[at]);
    propagate_last_id = false;
    context.keyspace.CountChange();
  }
  if (made && claimed.empty()) StreamValue::DeleteConsumer(*group, consumer, memory);
  if (propagate_last_id) {
    PropagateGroupId(context, key, *group, group_name);
    context.keyspace.CountChange();
  }
  context.reply.ArrayHeader(claimed.size());
  for (const StreamId& id : claimed) {
    if (justid) {
      ReplyStreamId(context.reply, id);
    } else if (!ReplyEntryIfLive(context.reply, *stream, id)) {
      context.reply.NullBulk();
    }
  }
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
void CmdXautoclaim(CommandContext& context) {
  const std::string_view key = context.arg(1);
  const std::string_view group_name = context.arg(2);
  int64_t min_idle = 0;
  if (!ParseOptionInt(context, context.arg(4), "Invalid min-idle-time argument for XAUTOCLAIM",
                      &min_idle)) {
    return;
  }
  if (min_idle < 0) min_idle = 0;
  StreamId start;
  bool exclusive = false;
  if (!ParseIntervalBound(context, context.arg(5), 0, &start, &exclusive)) return;
  if (exclusive && !start.Increment()) {
    context.reply.Error("ERR invalid start ID for the interval");
    return;
  }
  int64_t count = 100;
  bool justid = false;
  // LONG_MAX / max(sizeof(streamID), attempts_factor 10)
  constexpr int64_t kCountMax = INT64_MAX / 16;
  for (size_t j = 6; j < context.argc(); j++) {
    const bool more = j + 1 < context.argc();
    if (OptionIs(context.arg(j), "count") && more) {
      int64_t value = 0;
      if (!ParseStrictInt64(context.arg(j + 1), &value) || value < 1 || value > kCountMax) {
        context.reply.Error("ERR COUNT must be > 0");
        return;
      }
      count = value;
      j++;
    } else if (OptionIs(context.arg(j), "justid")) {
      justid = true;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  StreamValue* stream = nullptr;
  StreamGroup* group = LookupGroupWrite(context, key, group_name, &stream);
  if (group == nullptr) return;
  context.PreventPropagation();
  MemoryAccountant& memory = context.memory();
  const int64_t now = context.now_ms();
  StreamConsumer* consumer = group->FindConsumer(context.arg(3));
  bool made = false;
  if (consumer == nullptr) {
    consumer = StreamValue::CreateConsumer(*group, context.arg(3), now, memory);
    if (consumer == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    made = true;
  }
  const size_t room = std::min(group->pel.size(), static_cast<size_t>(count));
  if (!consumer->pel.Reserve(room, memory)) {
    if (made) StreamValue::DeleteConsumer(*group, consumer, memory);
    context.reply.Error(errors::kOom);
    return;
  }
  int64_t attempts = count * 10;
  std::vector<StreamId> claimed;
  std::vector<StreamId> deleted;
  size_t at = 0;
  group->FindNack(start, &at);
  bool stopped_early = false;
  while (true) {
    if (attempts-- == 0 || count == 0) {
      stopped_early = true;
      break;
    }
    if (at >= group->pel.size()) break;
    const StreamId id = group->pel[at].id;
    if (!stream->Contains(id)) {
      PropagateXclaim(context, key, *group, group_name, id, group->pel[at]);
      context.keyspace.CountChange();
      StreamValue::RemoveNack(*group, at);
      deleted.push_back(id);
      count--;
      continue;
    }
    if (min_idle != 0 && now - group->pel[at].delivery_time < min_idle) {
      at++;
      continue;
    }
    if (made && claimed.empty()) GroupChanged(context, key, kGroupCreateConsumer);
    consumer->seen_time = now;
    StreamNack& nack = group->pel[at];
    nack.delivery_time = now;
    if (!justid) nack.delivery_count++;
    MoveNack(*group, at, consumer);
    claimed.push_back(id);
    count--;
    PropagateXclaim(context, key, *group, group_name, id, group->pel[at]);
    context.keyspace.CountChange();
    at++;
  }
  if (made && claimed.empty()) StreamValue::DeleteConsumer(*group, consumer, memory);
  // The cursor: the PEL entry after the last one examined.
  (void)stopped_early;
  const StreamId cursor = at < group->pel.size() ? group->pel[at].id : StreamId{};
  ReplyBuilder& reply = context.reply;
  reply.ArrayHeader(3);
  ReplyStreamId(reply, cursor);
  reply.ArrayHeader(claimed.size());
  for (const StreamId& id : claimed) {
    if (justid) {
      ReplyStreamId(reply, id);
    } else if (!ReplyEntryIfLive(reply, *stream, id)) {
      reply.NullBulk();
    }
  }
  reply.ArrayHeader(deleted.size());
  for (const StreamId& id : deleted) ReplyStreamId(reply, id);
}

// --- XINFO ------------------------------------------------------------------------------------

// The rax node count Redis would report for the nodes' 16-byte keys: a compressed radix tree
// has a node for its root, each branching point, each child of a branching point and each key.
int64_t RaxNodes(const std::vector<std::string>& keys, size_t lo, size_t hi, size_t depth,
                 bool starts) {
  if (depth == 16) return 1;
  int64_t total = 0;
  size_t children = 0;
  for (size_t i = lo; i < hi;) {
    size_t j = i;
    while (j < hi && keys[j][depth] == keys[i][depth]) j++;
    children++;
    i = j;
  }
  if (children == 1) return (starts ? 1 : 0) + RaxNodes(keys, lo, hi, depth + 1, false);
  total = 1;
  for (size_t i = lo; i < hi;) {
    size_t j = i;
    while (j < hi && keys[j][depth] == keys[i][depth]) j++;
    total += RaxNodes(keys, i, j, depth + 1, true);
    i = j;
  }
  return total;
}

int64_t RaxNodeCount(const StreamValue& stream) {
  std::vector<std::string> keys;
  for (const StreamValue::Node& node : stream.nodes()) {
    unsigned char raw[16];
    node.master.Encode(raw);
    keys.emplace_back(reinterpret_cast<const char*>(raw), 16);
  }
  if (keys.empty()) return 1;
  return RaxNodes(keys, 0, keys.size(), 0, true);
}

// streamReplyWithCGLag.
void ReplyLag(ReplyBuilder& reply, const StreamValue& stream, const StreamGroup& group) {
  if (stream.entries_added() == 0) {
    reply.Integer(0);
    return;
  }
  if (group.entries_read != StreamGroup::kInvalidEntriesRead &&
      !stream.RangeHasTombstones(group.last_id, StreamId::Max())) {
    reply.Integer(static_cast<int64_t>(stream.entries_added()) - group.entries_read);
    return;
  }
  const int64_t read = stream.EstimateDistanceFromFirstEverEntry(group.last_id);
  if (read != StreamGroup::kInvalidEntriesRead) {
    reply.Integer(static_cast<int64_t>(stream.entries_added()) - read);
  } else {
    reply.NullBulk();
  }
}

void ReplyEntriesRead(ReplyBuilder& reply, const StreamGroup& group) {
  if (group.entries_read != StreamGroup::kInvalidEntriesRead) {
    reply.Integer(group.entries_read);
  } else {
    reply.NullBulk();
  }
}

void ReplyFullGroups(CommandContext& context, const StreamValue& stream, size_t count) {
  ReplyBuilder& reply = context.reply;
  reply.ArrayHeader(stream.groups().size());
  for (const StreamGroup* group : stream.groups()) {
    reply.MapHeader(7);
    reply.Bulk("name");
    reply.Bulk(group->name());
    reply.Bulk("last-delivered-id");
    ReplyStreamId(reply, group->last_id);
    reply.Bulk("entries-read");
    ReplyEntriesRead(reply, *group);
    reply.Bulk("lag");
    ReplyLag(reply, stream, *group);
    reply.Bulk("pel-count");
    reply.Integer(static_cast<int64_t>(group->pel.size()));
    reply.Bulk("pending");
    size_t shown = group->pel.size();
    if (count != 0 && shown > count) shown = count;
    reply.ArrayHeader(shown);
    for (size_t i = 0; i < shown; i++) {
      const StreamNack& nack = group->pel[i];
      reply.ArrayHeader(4);
      ReplyStreamId(reply, nack.id);
      reply.Bulk(nack.consumer->name());
      reply.Integer(nack.delivery_time);
      reply.Integer(static_cast<int64_t>(nack.delivery_count));
    }
    reply.Bulk("consumers");
    reply.ArrayHeader(group->consumers.size());
    StreamGroup& mutable_group = *const_cast<StreamGroup*>(group);
    for (const StreamConsumer* consumer : group->consumers) {
      reply.MapHeader(4);
      reply.Bulk("name");
      reply.Bulk(consumer->name());
      reply.Bulk("seen-time");
      reply.Integer(consumer->seen_time);
      reply.Bulk("pel-count");
      reply.Integer(static_cast<int64_t>(consumer->pel.size()));
      reply.Bulk("pending");
      size_t mine = consumer->pel.size();
      if (count != 0 && mine > count) mine = count;
      reply.ArrayHeader(mine);
      for (size_t i = 0; i < mine; i++) {
        const StreamNack* nack = mutable_group.FindNack(consumer->pel[i]);
        reply.ArrayHeader(3);
        ReplyStreamId(reply, consumer->pel[i]);
        reply.Integer(nack != nullptr ? nack->delivery_time : 0);
        reply.Integer(nack != nullptr ? static_cast<int64_t>(nack->delivery_count) : 0);
      }
    }
  }
}

// XINFO STREAM key [FULL [COUNT count]]
void CmdXinfoStream(CommandContext& context) {
  bool full = false;
  int64_t count = 10;
  if (context.argc() > 3) {
    if (context.argc() != 4 && context.argc() != 6) {
      context.reply.Error(SubcommandSyntaxError("XINFO", context.arg(1)));
      return;
    }
    if (!OptionIs(context.arg(3), "full")) {
      context.reply.Error(SubcommandSyntaxError("XINFO", context.arg(1)));
      return;
    }
    full = true;
    if (context.argc() == 6) {
      if (!OptionIs(context.arg(4), "count")) {
        context.reply.Error(SubcommandSyntaxError("XINFO", context.arg(1)));
        return;
      }
      if (!ParseStrictInt64(context.arg(5), &count)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 10;
    }
  }
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(2), &stream)) return;
  if (stream == nullptr) {
    context.reply.Error("ERR no such key");
    return;
  }
  ReplyBuilder& reply = context.reply;
  reply.MapHeader(full ? 9 : 10);
  reply.Bulk("length");
  reply.Integer(static_cast<int64_t>(stream->length()));
  reply.Bulk("radix-tree-keys");
  reply.Integer(static_cast<int64_t>(stream->nodes().size()));
  reply.Bulk("radix-tree-nodes");
  reply.Integer(RaxNodeCount(*stream));
  reply.Bulk("last-generated-id");
  ReplyStreamId(reply, stream->last_id());
  reply.Bulk("max-deleted-entry-id");
  ReplyStreamId(reply, stream->max_deleted_id());
  reply.Bulk("entries-added");
  reply.Integer(static_cast<int64_t>(stream->entries_added()));
  reply.Bulk("recorded-first-entry-id");
  ReplyStreamId(reply, stream->first_id());
  if (!full) {
    reply.Bulk("groups");
    reply.Integer(static_cast<int64_t>(stream->groups().size()));
    bool found = false;
    reply.Bulk("first-entry");
    stream->Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& entry) {
      ReplyStreamEntry(reply, entry);
      found = true;
      return false;
    });
    if (!found) reply.NullBulk();
    found = false;
    reply.Bulk("last-entry");
    stream->Range(StreamId::Min(), StreamId::Max(), true, [&](const StreamEntryView& entry) {
      ReplyStreamEntry(reply, entry);
      found = true;
      return false;
    });
    if (!found) reply.NullBulk();
    return;
  }
  reply.Bulk("entries");
  ReplyStreamRange(reply, *stream, StreamId::Min(), StreamId::Max(), static_cast<size_t>(count),
                   false);
  reply.Bulk("groups");
  ReplyFullGroups(context, *stream, static_cast<size_t>(count));
}

// XINFO GROUPS key
void CmdXinfoGroups(CommandContext& context) {
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(2), &stream)) return;
  if (stream == nullptr) {
    context.reply.Error("ERR no such key");
    return;
  }
  ReplyBuilder& reply = context.reply;
  reply.ArrayHeader(stream->groups().size());
  for (const StreamGroup* group : stream->groups()) {
    reply.MapHeader(6);
    reply.Bulk("name");
    reply.Bulk(group->name());
    reply.Bulk("consumers");
    reply.Integer(static_cast<int64_t>(group->consumers.size()));
    reply.Bulk("pending");
    reply.Integer(static_cast<int64_t>(group->pel.size()));
    reply.Bulk("last-delivered-id");
    ReplyStreamId(reply, group->last_id);
    reply.Bulk("entries-read");
    ReplyEntriesRead(reply, *group);
    reply.Bulk("lag");
    ReplyLag(reply, *stream, *group);
  }
}

// XINFO CONSUMERS key group
void CmdXinfoConsumers(CommandContext& context) {
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(2), &stream)) return;
  if (stream == nullptr) {
    context.reply.Error("ERR no such key");
    return;
  }
  const StreamGroup* group = stream->FindGroup(context.arg(3));
  if (group == nullptr) {
    context.reply.Error("NOGROUP No such consumer group '" + CText(context.arg(3)) +
                        "' for key name '" + CText(context.arg(2)) + "'");
    return;
  }
  ReplyBuilder& reply = context.reply;
  const int64_t now = context.now_ms();
  reply.ArrayHeader(group->consumers.size());
  for (const StreamConsumer* consumer : group->consumers) {
    reply.MapHeader(3);
    reply.Bulk("name");
    reply.Bulk(consumer->name());
    reply.Bulk("pending");
    reply.Integer(static_cast<int64_t>(consumer->pel.size()));
    reply.Bulk("idle");
    const int64_t idle = now - consumer->seen_time;
    reply.Integer(idle < 0 ? 0 : idle);
  }
}

void CmdXinfoHelp(CommandContext& context) {
  static constexpr std::string_view kLines[] = {
      "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CONSUMERS <key> <groupname>",
      "    Show consumers of <groupname>.",
      "GROUPS <key>",
      "    Show the stream consumer groups.",
      "STREAM <key> [FULL [COUNT <count>]",
      "    Show information about the stream.",
      "HELP",
      "    Prints this help.",
  };
  context.reply.ArrayHeader(std::size(kLines));
  for (std::string_view line : kLines) context.reply.SimpleString(line);
}

void CmdXgroupCreate(CommandContext& context) { CmdXgroup(context); }
void CmdXgroupCreateconsumer(CommandContext& context) { CmdXgroup(context); }
void CmdXgroupDelconsumer(CommandContext& context) { CmdXgroup(context); }
void CmdXgroupDestroy(CommandContext& context) { CmdXgroup(context); }
void CmdXgroupSetid(CommandContext& context) { CmdXgroup(context); }

}  // namespace

void CmdXreadgroup(CommandContext& context);

namespace {

constexpr CommandDef kStreamGroupCommands[] = {
    {.name = "xreadgroup",
     .arity = -7,
     .flags = "write blocking",
     .acl = "@stream",
     .keys = "RO access: keyword STREAMS 4 range -1 1 2",
     .group = "stream",
     .since = "5.0.0",
     .complexity =
         "For each stream mentioned: O(M) with M being the number of elements returned. If M is "
         "constant (e.g. always asking for the first 10 elements with COUNT), you can consider it "
         "O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to "
         "serve the N clients blocked on the stream getting new data.",
     .summary = "Return new entries from a stream using a consumer group, or access the history of "
                "the pending entries for a given consumer. Can block.",
     .args = "group_consumer:block=GROUP{group:string consumer:string} ?count:integer=COUNT "
             "?milliseconds:integer=BLOCK ?noack:pure-token=NOACK streams:block=STREAMS{*key:key#0 "
             "*id:string}",
     .handler = CmdXreadgroup},
    {.name = "xack",
     .arity = -4,
     .flags = "write fast",
     .acl = "@stream",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1) for each message ID processed.",
     .summary = "Marks a pending message as correctly processed, effectively removing it from the "
                "pending entries list of the consumer group. Return value of the command is the "
                "number of messages successfully acknowledged, that is, the IDs we were actually "
                "able to resolve in the PEL.",
     .args = "key:key#0 group:string *id:string",
     .handler = CmdXack},
    {.name = "xpending",
     .arity = -3,
     .flags = "readonly",
     .acl = "@stream",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed "
                   "number of entries per call is O(1). O(M), where M is the total number of "
                   "entries scanned when used with the IDLE filter. When the command returns just "
                   "the summary and the list of consumers is small, it runs in O(1) time; "
                   "otherwise, an additional O(N) time for iterating every consumer.",
     .summary = "Return information and entries from a stream consumer group pending entries list, "
                "that are messages fetched but never acknowledged.",
     .args = "key:key#0 group:string ?filters:block{?min-idle-time:integer=IDLE@6.2.0 start:string "
             "end:string count:integer ?consumer:string}",
     .handler = CmdXpending,
     .history = "6.2.0 Added the `IDLE` option and exclusive range intervals.",
     .tips = "nondeterministic_output"},
    {.name = "xclaim",
     .arity = -6,
     .flags = "write fast",
     .acl = "@stream",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .summary = "Changes (or acquires) ownership of a message in a consumer group, as if the "
                "message was delivered to the specified consumer.",
     .args = "key:key#0 group:string consumer:string min-idle-time:string *id:string "
             "?ms:integer=IDLE ?unix-time-milliseconds:unix-time=TIME ?count:integer=RETRYCOUNT "
             "?force:pure-token=FORCE ?justid:pure-token=JUSTID ?id:string=LASTID",
     .handler = CmdXclaim,
     .tips = "nondeterministic_output"},
    {.name = "xautoclaim",
     .arity = -6,
     .flags = "write fast",
     .acl = "@stream",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "stream",
     .since = "6.2.0",
     .complexity = "O(1) if COUNT is small.",
     .summary = "Changes (or acquires) ownership of messages in a consumer group, as if the "
                "messages were delivered to the specified consumer.",
     .args = "key:key#0 group:string consumer:string min-idle-time:string start:string "
             "?count:integer=COUNT ?justid:pure-token=JUSTID",
     .handler = CmdXautoclaim,
     .history = "7.0.0 Added an element to the reply array, containing deleted entries the command "
                "cleared from the PEL",
     .tips = "nondeterministic_output"},
    {.name = "xgroup",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for consumer groups commands",
     .args = "",
     .handler = nullptr},
    {.name = "xgroup|create",
     .arity = -5,
     .flags = "write denyoom",
     .acl = "@stream",
     .keys = "RW insert: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Create a consumer group.",
     .args = "key:key#0 groupname:string id:oneof{id:string new_id:pure-token=$} "
             "?mkstream:pure-token=MKSTREAM ?entries_read:integer=ENTRIESREAD",
     .handler = CmdXgroupCreate,
     .history = "7.0.0 Added the `entries_read` named argument."},
    {.name = "xgroup|createconsumer",
     .arity = 5,
     .flags = "write denyoom",
     .acl = "@stream",
     .keys = "RW insert: index 2 range 0 1 0",
     .group = "stream",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Create a consumer in a consumer group.",
     .args = "key:key#0 groupname:string consumername:string",
     .handler = CmdXgroupCreateconsumer},
    {.name = "xgroup|delconsumer",
     .arity = 5,
     .flags = "write",
     .acl = "@stream",
     .keys = "RW delete: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Delete a consumer from a consumer group.",
     .args = "key:key#0 groupname:string consumername:string",
     .handler = CmdXgroupDelconsumer},
    {.name = "xgroup|destroy",
     .arity = 4,
     .flags = "write",
     .acl = "@stream",
     .keys = "RW delete: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity =
         "O(N) where N is the number of entries in the group's pending entries list (PEL).",
     .summary = "Destroy a consumer group.",
     .args = "key:key#0 groupname:string",
     .handler = CmdXgroupDestroy},
    {.name = "xgroup|setid",
     .arity = -5,
     .flags = "write",
     .acl = "@stream",
     .keys = "RW update: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Set a consumer group to an arbitrary last delivered ID value.",
     .args = "key:key#0 groupname:string id:oneof{id:string new_id:pure-token=$} "
             "?entries_read:integer=ENTRIESREAD",
     .handler = CmdXgroupSetid,
     .history = "7.0.0 Added the optional `entries_read` argument."},
    {.name = "xgroup|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@stream",
     .keys = "",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdXgroupHelp},
    {.name = "xinfo",
     .arity = -2,
     .flags = "",
     .acl = "",
     .keys = "",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for stream introspection commands",
     .args = "",
     .handler = nullptr},
    {.name = "xinfo|stream",
     .arity = -3,
     .flags = "readonly",
     .acl = "@stream",
     .keys = "RO access: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Get information about a stream",
     .args = "key:key#0 ?full:block=FULL{?count:integer=COUNT}",
     .handler = CmdXinfoStream,
     .history = "6.0.0 Added the `FULL` modifier.|7.0.0 Added the `max-deleted-entry-id`, "
                "`entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"},
    {.name = "xinfo|groups",
     .arity = 3,
     .flags = "readonly",
     .acl = "@stream",
     .keys = "RO access: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "List the consumer groups of a stream",
     .args = "key:key#0",
     .handler = CmdXinfoGroups,
     .history = "7.0.0 Added the `entries-read` and `lag` fields"},
    {.name = "xinfo|consumers",
     .arity = 4,
     .flags = "readonly",
     .acl = "@stream",
     .keys = "RO access: index 2 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "List the consumers in a consumer group",
     .args = "key:key#0 groupname:string",
     .handler = CmdXinfoConsumers,
     .tips = "nondeterministic_output"},
    {.name = "xinfo|help",
     .arity = 2,
     .flags = "loading stale",
     .acl = "@stream",
     .keys = "",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Show helpful text about the different subcommands",
     .args = "",
     .handler = CmdXinfoHelp},
};

}  // namespace

void RegisterStreamGroupCommands(Registry& registry) { registry.Add(kStreamGroupCommands); }

}  // namespace keel
