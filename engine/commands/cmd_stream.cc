// Stream commands: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID and XREAD. The consumer
// group commands (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO) are in
// cmd_stream_group.cc. The structure is engine/db/types/stream.h.
//
// Writes follow Redis 7.0's t_stream.c: the events are "xadd", "xdel", "xtrim", "xsetid"
// (class t); a stream is never deleted when it empties. XADD propagates the ID it generated and
// an approximate trim as the exact threshold it reached (streamRewriteTrimArgument), so that a
// replica or an AOF replay trims the same entries.
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/cmd_stream_common.h"
#include "engine/db/types/stream_ops.h"
#include "engine/server/blocked_call.h"

namespace keel {

// --- Shared helpers ---------------------------------------------------------------------------

namespace {

// Redis's string2ull: a strict int64 that is not negative, else what strtoull accepts whole
// (leading space, a sign, no overflow).
bool StringToUll(std::string_view text, uint64_t* value) {
  int64_t strict = 0;
  if (ParseStrictInt64(text, &strict)) {
    if (strict < 0) return false;
    *value = static_cast<uint64_t>(strict);
    return true;
  }
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    i++;
  }
  if (i >= text.size()) return false;
  uint64_t result = 0;
  for (; i < text.size(); i++) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (result > (UINT64_MAX - digit) / 10) return false;
    result = result * 10 + digit;
  }
  *value = negative ? 0 - result : result;
  return true;
}

}  // namespace

bool ParseStreamId(CommandContext& context, std::string_view text, uint64_t missing_seq,
                   bool strict, StreamId* id, bool* seq_given) {
  auto invalid = [&]() {
    context.reply.Error(kInvalidStreamId);
    return false;
  };
  // The argument as a C string: up to its first NUL byte, and at most 127 bytes.
  if (text.size() > 127) return invalid();
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) text = text.substr(0, nul);
  if (strict && (text == "-" || text == "+")) return invalid();
  if (seq_given != nullptr) *seq_given = true;
  if (text == "-") {
    *id = StreamId::Min();
    return true;
  }
  if (text == "+") {
    *id = StreamId::Max();
    return true;
  }
  const size_t dash = text.find('-');
  uint64_t ms = 0;
  uint64_t seq = missing_seq;
  if (!StringToUll(text.substr(0, dash), &ms)) return invalid();
  if (dash != std::string_view::npos) {
    const std::string_view rest = text.substr(dash + 1);
    if (seq_given != nullptr && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!StringToUll(rest, &seq)) {
      return invalid();
    }
  }
  id->ms = ms;
  id->seq = seq;
  return true;
}

std::string StreamIdText(StreamId id) { return id.ToString(); }

void ReplyStreamId(ReplyBuilder& reply, StreamId id) {
  char text[48];
  size_t size = FormatUint64(id.ms, text);
  text[size++] = '-';
  size += FormatUint64(id.seq, text + size);
  reply.Bulk(std::string_view(text, size));
}

void ReplyStreamEntry(ReplyBuilder& reply, const StreamEntryView& entry) {
  reply.ArrayHeader(2);
  ReplyStreamId(reply, entry.id);
  reply.ArrayHeader(entry.field_count() * 2);
  entry.ForEachField([&](std::string_view field, std::string_view value) {
    reply.Bulk(field);
    reply.Bulk(value);
  });
}

size_t ReplyStreamRange(ReplyBuilder& reply, const StreamValue& stream, StreamId start,
                        StreamId end, size_t count, bool reverse) {
  // Count first, then reply: the array header comes before the entries.
  size_t matched = 0;
  stream.Range(start, end, reverse, [&](const StreamEntryView&) {
    matched++;
    return count == 0 || matched < count;
  });
  reply.ArrayHeader(matched);
  size_t emitted = 0;
  stream.Range(start, end, reverse, [&](const StreamEntryView& entry) {
    ReplyStreamEntry(reply, entry);
    emitted++;
    return emitted < matched;
  });
  return emitted;
}

bool LookupStream(CommandContext& context, std::string_view key, const StreamValue** stream) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), key);
  *stream = nullptr;
  if (entry == nullptr) return true;
  if (entry->type() != ValueType::kStream) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  *stream = &StreamOf(*entry);
  return true;
}

bool LookupStreamWrite(CommandContext& context, std::string_view key, Entry** entry) {
  *entry = context.keyspace.LookupWrite(context.db_index(), key);
  if (*entry != nullptr && (*entry)->type() != ValueType::kStream) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  return true;
}

namespace {

// --- XADD and XTRIM ---------------------------------------------------------------------------

struct AddTrimArgs {
  StreamValue::TrimArgs trim;
  size_t threshold_index = 0;  // the MAXLEN/MINID argument (rewritten when approximate)
  bool approx_token = false;   // "~" was given (at threshold_index - 1)
  bool no_mkstream = false;
  bool id_given = false;
  bool seq_given = false;
  StreamId id;
  size_t id_index = 0;
};

// streamParseAddOrTrimArgsOrReply: the index of the ID (XADD) or past the options; 0 after
// replying with an error.
size_t ParseAddOrTrimArgs(CommandContext& context, bool xadd, AddTrimArgs* args) {
  using Strategy = StreamValue::TrimStrategy;
  bool limit_given = false;
  size_t i = 2;
  for (; i < context.argc(); i++) {
    const size_t more = context.argc() - 1 - i;
    const std::string_view option = context.arg(i);
    if (xadd && option == "*") break;
    if ((OptionIs(option, "maxlen") || OptionIs(option, "minid")) && more > 0) {
      const bool maxlen = OptionIs(option, "maxlen");
      if (args->trim.strategy != Strategy::kNone) {
        context.reply.Error(
            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
        return 0;
      }
      args->trim.approx = false;
      const std::string_view next = context.arg(i + 1);
      if (more >= 2 && next == "~") {
        args->trim.approx = true;
        i++;
      } else if (more >= 2 && next == "=") {
        i++;
      }
      if (maxlen) {
        int64_t value = 0;
        if (!ParseStrictInt64(context.arg(i + 1), &value)) {
          context.reply.Error(errors::kNotInteger);
          return 0;
        }
        if (value < 0) {
          context.reply.Error("ERR The MAXLEN argument must be >= 0.");
          return 0;
        }
        args->trim.maxlen = static_cast<uint64_t>(value);
        args->trim.strategy = Strategy::kMaxlen;
      } else {
        if (!ParseStreamId(context, context.arg(i + 1), 0, true, &args->trim.minid)) return 0;
        args->trim.strategy = Strategy::kMinid;
      }
      i++;
      args->threshold_index = i;
      args->approx_token = args->trim.approx;
    } else if (OptionIs(option, "limit") && more > 0) {
      int64_t value = 0;
      if (!ParseStrictInt64(context.arg(i + 1), &value)) {
        context.reply.Error(errors::kNotInteger);
        return 0;
      }
      if (value < 0) {
        context.reply.Error("ERR The LIMIT argument must be >= 0.");
        return 0;
      }
      args->trim.limit = value;
      limit_given = true;
      i++;
    } else if (xadd && OptionIs(option, "nomkstream")) {
      args->no_mkstream = true;
    } else if (xadd) {
      if (!ParseStreamId(context, option, 0, true, &args->id, &args->seq_given)) return 0;
      args->id_given = true;
      break;
    } else {
      context.reply.Error(errors::kSyntax);
      return 0;
    }
  }
  if (args->trim.limit != 0 && args->trim.strategy == Strategy::kNone) {
    context.reply.Error(
        "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return 0;
  }
  if (!xadd && args->trim.strategy == Strategy::kNone) {
    context.reply.Error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return 0;
  }
  if (context.must_obey()) {
    // The AOF and the primary send the trim as it was done (LIMIT stays, "~" became "="): it is
    // applied whole.
    args->trim.limit = 0;
  } else if (limit_given) {
    if (!args->trim.approx) {
      context.reply.Error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return 0;
    }
  } else if (args->trim.approx) {
    int64_t limit = 100 * context.config().stream_node_max_entries;
    if (limit <= 0 || limit > 10000) limit = 10000;
    args->trim.limit = limit;
  } else {
    args->trim.limit = 0;
  }
  return i;
}

// The trim threshold an approximate trim reached (streamRewriteTrimArgument): the length for
// MAXLEN, the first entry (deleted or not) for MINID.
std::string ReachedThreshold(const StreamValue& stream, StreamValue::TrimStrategy strategy) {
  if (strategy == StreamValue::TrimStrategy::kMaxlen) return std::to_string(stream.length());
  if (stream.nodes().size() == 0) return StreamId::Max().ToString();
  return stream.nodes()[0].master.ToString();
}

// The propagated form of an approximate trim: "~" as "=", the threshold as reached.
void RewriteApproxTrim(CommandContext& context, const StreamValue& stream, const AddTrimArgs& args,
                       std::vector<std::string>* rewritten) {
  if (!args.trim.approx) return;
  if (args.approx_token) (*rewritten)[args.threshold_index - 1] = "=";
  (*rewritten)[args.threshold_index] = ReachedThreshold(stream, args.trim.strategy);
  (void)context;
}

void Propagate(CommandContext& context, const std::vector<std::string>& args) {
  std::vector<std::string_view> views(args.begin(), args.end());
  context.PropagateAs(std::span<const std::string_view>(views));
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
void CmdXadd(CommandContext& context) {
  AddTrimArgs args;
  const size_t id_index = ParseAddOrTrimArgs(context, true, &args);
  if (id_index == 0) return;
  const size_t field_index = id_index + 1;
  if (context.argc() < field_index + 2 || (context.argc() - field_index) % 2 == 1) {
    context.reply.Error(WrongArityError(context.spec));
    return;
  }
  if (args.id_given && args.seq_given && args.id.is_zero()) {
    context.reply.Error("ERR The ID specified in XADD must be greater than 0-0");
    return;
  }
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  Entry* entry = nullptr;
  if (!LookupStreamWrite(context, key, &entry)) return;
  if (entry == nullptr && args.no_mkstream) {
    context.reply.NullBulk();
    return;
  }
  MemoryAccountant& memory = context.memory();
  StreamValue* created = nullptr;
  StreamValue* stream = nullptr;
  if (entry == nullptr) {
    created = StreamValue::Create(memory);
    if (created == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    stream = created;
  } else {
    stream = &MutableStreamOf(*entry);
  }
  const StreamId last = stream->last_id();
  if (last == StreamId::Max()) {
    context.reply.Error(
        "ERR The stream has exhausted the last possible ID, unable to add more items");
    return;
  }
  StreamId id;
  bool domain_error = false;
  if (args.id_given) {
    if (args.seq_given) {
      id = args.id;
    } else if (last.ms == args.id.ms) {
      if (last.seq == UINT64_MAX) {
        domain_error = true;
      } else {
        id = {last.ms, last.seq + 1};
      }
    } else {
      id = args.id;
    }
  } else {
    const auto now = static_cast<uint64_t>(context.now_ms());
    if (now > last.ms) {
      id = {now, 0};
    } else {
      id = last;
      id.Increment();
    }
  }
  if (domain_error || id <= last) {
    StreamValue::Destroy(created, memory);
    context.reply.Error(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
    return;
  }
  const std::span<const std::string_view> pairs =
      context.args.subspan(field_index, context.argc() - field_index);
  size_t total = 0;
  for (std::string_view element : pairs) total += element.size();
  if (total > (size_t{1} << 30)) {
    StreamValue::Destroy(created, memory);
    context.reply.Error("ERR Elements are too large to be stored");
    return;
  }
  if (!stream->Append(id, pairs, NodeLimits(context), memory)) {
    StreamValue::Destroy(created, memory);
    context.reply.Error(errors::kOom);
    return;
  }
  const uint64_t hash = context.keyspace.Hash(db, key);
  if (created != nullptr) {
    if (context.keyspace.SetObject(db, key, hash, ValueType::kStream, ObjectEncoding::kStream,
                                   created, kNoExpiry, stream_events::kXadd,
                                   1) == Database::SetOutcome::kOutOfMemory) {
      StreamValue::Destroy(created, memory);
      context.reply.Error(errors::kOom);
      return;
    }
  } else {
    context.keyspace.KeyChanged(db, key, stream_events::kXadd, 1);
  }
  ReplyStreamId(context.reply, id);
  if (args.trim.strategy != StreamValue::TrimStrategy::kNone) {
    const int64_t trimmed = stream->Trim(args.trim, memory);
    if (trimmed > 0) context.keyspace.Notify(db, stream_events::kXtrim, key);
  }
  if (!context.propagating()) return;
  std::vector<std::string> rewritten(context.args.begin(), context.args.end());
  RewriteApproxTrim(context, *stream, args, &rewritten);
  if (!args.id_given || !args.seq_given) rewritten[id_index] = id.ToString();
  Propagate(context, rewritten);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
void CmdXtrim(CommandContext& context) {
  AddTrimArgs args;
  if (ParseAddOrTrimArgs(context, false, &args) == 0) return;
  Entry* entry = nullptr;
  if (!LookupStreamWrite(context, context.arg(1), &entry)) return;
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  StreamValue& stream = MutableStreamOf(*entry);
  const int64_t trimmed = stream.Trim(args.trim, context.memory());
  if (trimmed < 0) {
    context.reply.Error(errors::kOom);
    return;
  }
  if (trimmed > 0) {
    context.keyspace.KeyChanged(context.db_index(), context.arg(1), stream_events::kXtrim,
                                static_cast<uint64_t>(trimmed));
    if (context.propagating() && args.trim.approx) {
      std::vector<std::string> rewritten(context.args.begin(), context.args.end());
      RewriteApproxTrim(context, stream, args, &rewritten);
      Propagate(context, rewritten);
    }
  }
  context.reply.Integer(trimmed);
}

// XLEN key
void CmdXlen(CommandContext& context) {
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(1), &stream)) return;
  context.reply.Integer(stream == nullptr ? 0 : static_cast<int64_t>(stream->length()));
}

// streamParseIntervalIDOrReply: an ID, or "(" and an ID for an exclusive bound.
bool ParseIntervalId(CommandContext& context, std::string_view text, uint64_t missing_seq,
                     StreamId* id, bool* exclusive) {
  *exclusive = false;
  if (text.size() > 1 && text[0] == '(') {
    *exclusive = true;
    return ParseStreamId(context, text.substr(1), missing_seq, true, id);
  }
  return ParseStreamId(context, text, missing_seq, false, id);
}

// XRANGE key start end [COUNT count] / XREVRANGE key end start [COUNT count]
void RangeCommand(CommandContext& context, bool reverse) {
  const std::string_view start_text = context.arg(reverse ? 3 : 2);
  const std::string_view end_text = context.arg(reverse ? 2 : 3);
  StreamId start;
  StreamId end;
  bool exclusive = false;
  if (!ParseIntervalId(context, start_text, 0, &start, &exclusive)) return;
  if (exclusive && !start.Increment()) {
    context.reply.Error("ERR invalid start ID for the interval");
    return;
  }
  if (!ParseIntervalId(context, end_text, UINT64_MAX, &end, &exclusive)) return;
  if (exclusive && !end.Decrement()) {
    context.reply.Error("ERR invalid end ID for the interval");
    return;
  }
  int64_t count = -1;
  for (size_t i = 4; i < context.argc(); i++) {
    if (OptionIs(context.arg(i), "count") && i + 1 < context.argc()) {
      if (!ParseStrictInt64(context.arg(i + 1), &count)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 0;
      i++;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  const StreamValue* stream = nullptr;
  if (!LookupStream(context, context.arg(1), &stream)) return;
  if (stream == nullptr) {
    context.reply.EmptyArray();
    return;
  }
  if (count == 0) {
    context.reply.NullArray();
    return;
  }
  ReplyStreamRange(context.reply, *stream, start, end, count == -1 ? 0 : static_cast<size_t>(count),
                   reverse);
}

void CmdXrange(CommandContext& context) { RangeCommand(context, false); }
void CmdXrevrange(CommandContext& context) { RangeCommand(context, true); }

// XDEL key id [id ...]
void CmdXdel(CommandContext& context) {
  Entry* entry = nullptr;
  if (!LookupStreamWrite(context, context.arg(1), &entry)) return;
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  std::vector<StreamId> ids(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    if (!ParseStreamId(context, context.arg(i), 0, true, &ids[i - 2])) return;
  }
  StreamValue& stream = MutableStreamOf(*entry);
  int64_t deleted = 0;
  bool first_entry = false;
  for (const StreamId& id : ids) {
    bool refused = false;
    if (stream.Delete(id, context.memory(), &refused)) {
      if (id == stream.first_id()) first_entry = true;
      if (id > stream.max_deleted_id()) stream.set_max_deleted_id(id);
      deleted++;
    } else if (refused) {
      break;  // what was deleted stays deleted, as each deletion is whole
    }
  }
  if (deleted > 0) {
    if (stream.length() == 0) {
      stream.set_first_id(StreamId{});
    } else if (first_entry) {
      StreamId first;
      stream.FirstEntryId(&first);
      stream.set_first_id(first);
    }
    context.keyspace.KeyChanged(context.db_index(), context.arg(1), stream_events::kXdel,
                                static_cast<uint64_t>(deleted));
  }
  context.reply.Integer(deleted);
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
void CmdXsetid(CommandContext& context) {
  StreamId id;
  StreamId max_deleted;
  int64_t entries_added = -1;
  if (!ParseStreamId(context, context.arg(2), 0, true, &id)) return;
  for (size_t i = 3; i < context.argc();) {
    const bool more = i + 1 < context.argc();
    const std::string_view option = context.arg(i);
    if (OptionIs(option, "entriesadded") && more) {
      if (!ParseStrictInt64(context.arg(i + 1), &entries_added)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (entries_added < 0) {
        context.reply.Error("ERR entries_added must be positive");
        return;
      }
      i += 2;
    } else if (OptionIs(option, "maxdeletedid") && more) {
      if (!ParseStreamId(context, context.arg(i + 1), 0, true, &max_deleted)) return;
      if (id < max_deleted) {
        context.reply.Error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return;
      }
      i += 2;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  Entry* entry = nullptr;
  if (!LookupStreamWrite(context, context.arg(1), &entry)) return;
  if (entry == nullptr) {
    context.reply.Error("ERR no such key");
    return;
  }
  StreamValue& stream = MutableStreamOf(*entry);
  if (stream.length() > 0) {
    StreamId top;
    stream.LastEntryId(&top);
    if (id < top) {
      context.reply.Error(
          "ERR The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && stream.length() > static_cast<uint64_t>(entries_added)) {
      context.reply.Error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  if (id < stream.max_deleted_id()) {
    context.reply.Error(
        "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id");
    return;
  }
  stream.set_last_id(id);
  if (entries_added != -1) stream.set_entries_added(static_cast<uint64_t>(entries_added));
  if (!max_deleted.is_zero()) stream.set_max_deleted_id(max_deleted);
  context.keyspace.KeyChanged(context.db_index(), context.arg(1), stream_events::kXsetid, 1);
  context.reply.Ok();
}

}  // namespace

// --- XREAD and XREADGROUP ---------------------------------------------------------------------

// Defined in cmd_stream_group.cc: serves one stream of an XREADGROUP (streamReplyWithRange with
// a group), after the key name was replied.
void ReplyGroupRead(CommandContext& context, std::string_view key, StreamValue& stream,
                    StreamGroup& group, std::string_view consumer_name, StreamId after,
                    size_t count, bool noack, bool history, bool created);
// Makes room to deliver `entries` entries to the consumer (made when missing: *created). False
// when memory is refused, with nothing changed.
bool PrepareGroupRead(CommandContext& context, StreamGroup& group, std::string_view consumer_name,
                      size_t entries, bool* created);
void UndoConsumerCreation(CommandContext& context, StreamGroup& group,
                          std::string_view consumer_name);

namespace {

constexpr size_t kBlockedDefaultCount = 1000;  // XREAD_BLOCKED_DEFAULT_COUNT

void ReadCommand(CommandContext& context, bool group_read) {
  int64_t timeout_ms = -1;
  int64_t count = 0;
  size_t streams_at = 0;
  size_t streams = 0;
  std::string_view group_name;
  std::string_view consumer_name;
  bool has_group = false;
  bool noack = false;
  for (size_t i = 1; i < context.argc(); i++) {
    const size_t more = context.argc() - i - 1;
    const std::string_view option = context.arg(i);
    if (OptionIs(option, "block") && more > 0) {
      i++;
      if (!ParseMillisecondTimeout(context, context.arg(i), &timeout_ms)) return;
    } else if (OptionIs(option, "count") && more > 0) {
      i++;
      if (!ParseStrictInt64(context.arg(i), &count)) {
        context.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 0;
    } else if (OptionIs(option, "streams") && more > 0) {
      streams_at = i + 1;
      streams = context.argc() - streams_at;
      if (streams % 2 != 0) {
        context.reply.Error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
        return;
      }
      streams /= 2;
      break;
    } else if (OptionIs(option, "group") && more >= 2) {
      if (!group_read) {
        context.reply.Error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
        return;
      }
      group_name = context.arg(i + 1);
      consumer_name = context.arg(i + 2);
      has_group = true;
      i += 2;
    } else if (OptionIs(option, "noack")) {
      if (!group_read) {
        context.reply.Error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
        return;
      }
      noack = true;
    } else {
      context.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (streams_at == 0) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  if (group_read && !has_group) {
    context.reply.Error("ERR Missing GROUP option for XREADGROUP");
    return;
  }
  // XREADGROUP replays as what it did to the group (XCLAIM, XGROUP SETID), never as itself.
  if (group_read) context.PreventPropagation();
  const int db = context.db_index();
  // A blocked XREADGROUP run again because its key went or its group did: its wait ends with
  // Redis's errors.
  if (has_group && !context.serving_key().empty()) {
    const Entry* entry = context.keyspace.Lookup(db, context.serving_key());
    if (entry == nullptr || entry->type() != ValueType::kStream) {
      context.reply.Error("UNBLOCKED the stream key no longer exists");
      return;
    }
    if (StreamOf(*entry).FindGroup(group_name) == nullptr) {
      context.reply.Error("NOGROUP the consumer group this client was blocked on no longer exists");
      return;
    }
  }
  std::vector<StreamId> ids(streams);
  std::vector<size_t> dollar_at;  // XREAD's "$" arguments, resolved here
  for (size_t k = 0; k < streams; k++) {
    const std::string_view key = context.arg(streams_at + k);
    const std::string_view text = context.arg(streams_at + streams + k);
    const Entry* entry = context.keyspace.Lookup(db, key);
    if (entry != nullptr && entry->type() != ValueType::kStream) {
      context.reply.Error(errors::kWrongType);
      return;
    }
    if (has_group) {
      if (entry == nullptr || StreamOf(*entry).FindGroup(group_name) == nullptr) {
        context.reply.Error("NOGROUP No such key '" + CText(key) + "' or consumer group '" +
                            CText(group_name) + "' in XREADGROUP with GROUP option");
        return;
      }
    }
    if (text == "$") {
      if (group_read) {
        context.reply.Error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
        return;
      }
      ids[k] = entry != nullptr ? StreamOf(*entry).last_id() : StreamId{};
      dollar_at.push_back(streams_at + streams + k);
      continue;
    }
    if (text == ">") {
      if (!group_read) {
        context.reply.Error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
        return;
      }
      ids[k] = StreamId::Max();
      continue;
    }
    if (!ParseStreamId(context, text, 0, true, &ids[k])) return;
  }

  // A blocked run again, for the key that became ready: serve only that key, with the count a
  // blocked read gets when none was given.
  const std::string_view serving = context.serving_key();
  size_t read_count = static_cast<size_t>(count);
  if (!serving.empty() && read_count == 0) read_count = kBlockedDefaultCount;

  // Which streams can be served now, in order as Redis serves them: a key named twice by
  // XREADGROUP ">" serves the second time from where the first left the group's last ID.
  std::vector<size_t> served;
  std::vector<bool> history(streams, false);
  std::vector<size_t> deliveries(streams, 0);  // new entries each served stream delivers
  std::map<std::string_view, StreamId> group_last;
  for (size_t k = 0; k < streams; k++) {
    const std::string_view key = context.arg(streams_at + k);
    if (!serving.empty() && key != serving) continue;
    const Entry* entry = context.keyspace.Lookup(db, key);
    if (entry == nullptr) continue;
    const StreamValue& stream = StreamOf(*entry);
    if (has_group) {
      if (ids[k] != StreamId::Max()) {
        served.push_back(k);
        history[k] = true;
      } else if (stream.length() > 0) {
        const StreamGroup* group = stream.FindGroup(group_name);
        if (group == nullptr) continue;
        auto last = group_last.emplace(key, group->last_id).first;
        StreamId top;
        stream.LastEntryId(&top);
        if (top > last->second) {
          ids[k] = last->second;
          served.push_back(k);
          StreamId start = last->second;
          start.Increment();
          stream.Range(start, StreamId::Max(), false, [&](const StreamEntryView& item) {
            deliveries[k]++;
            last->second = item.id;
            return read_count == 0 || deliveries[k] < read_count;
          });
        }
      }
    } else if (stream.length() > 0) {
      StreamId top;
      stream.LastEntryId(&top);
      if (top > ids[k]) served.push_back(k);
    }
  }
  // XREADGROUP: room for every delivery first (once per key, for all its deliveries), so that a
  // refusal changes nothing.
  std::vector<bool> created(streams, false);
  if (has_group) {
    std::map<std::string_view, size_t> per_key;
    std::vector<size_t> first_of_key;
    for (size_t k : served) {
      const std::string_view key = context.arg(streams_at + k);
      if (per_key.count(key) == 0) first_of_key.push_back(k);
      per_key[key] += deliveries[k];
    }
    for (size_t at = 0; at < first_of_key.size(); at++) {
      const size_t k = first_of_key[at];
      const std::string_view key = context.arg(streams_at + k);
      Entry* entry = context.keyspace.LookupWrite(db, key);
      bool made = false;
      if (!PrepareGroupRead(context, *MutableStreamOf(*entry).FindGroup(group_name), consumer_name,
                            per_key[key], &made)) {
        for (size_t undo = 0; undo < at; undo++) {
          if (!created[first_of_key[undo]]) continue;
          Entry* earlier =
              context.keyspace.LookupWrite(db, context.arg(streams_at + first_of_key[undo]));
          UndoConsumerCreation(context, *MutableStreamOf(*earlier).FindGroup(group_name),
                               consumer_name);
        }
        context.reply.Error(errors::kOom);
        return;
      }
      created[k] = made;
    }
  }
  if (!served.empty()) {
    if (context.reply.resp() == 2) {
      context.reply.ArrayHeader(served.size());
    } else {
      context.reply.MapHeader(served.size());
    }
    for (size_t k : served) {
      const std::string_view key = context.arg(streams_at + k);
      if (context.reply.resp() == 2) context.reply.ArrayHeader(2);
      context.reply.Bulk(key);
      StreamId start = ids[k];
      start.Increment();
      if (has_group) {
        Entry* entry = context.keyspace.LookupWrite(db, key);
        StreamValue& stream = MutableStreamOf(*entry);
        ReplyGroupRead(context, key, stream, *stream.FindGroup(group_name), consumer_name, ids[k],
                       read_count, noack, history[k], created[k]);
      } else {
        const Entry* entry = context.keyspace.Lookup(db, key);
        ReplyStreamRange(context.reply, StreamOf(*entry), start, StreamId::Max(), read_count,
                         false);
      }
    }
    return;
  }
  if (timeout_ms == -1 || !context.may_block()) {
    context.reply.NullArray();
    return;
  }
  context.BlockOn(context.args.subspan(streams_at, streams), ValueType::kStream, timeout_ms);
  // "$" means the last ID when the command first ran: the blocked command keeps that ID.
  BlockedCall* call = context.client.blocked.get();
  if (call != nullptr && serving.empty()) call->serve_when_gone = has_group;
  if (call != nullptr && serving.empty() && !dollar_at.empty()) {
    for (size_t at : dollar_at) call->args[at] = ids[at - streams_at - streams].ToString();
    call->arg_views.assign(call->args.begin(), call->args.end());
  }
}

void CmdXread(CommandContext& context) { ReadCommand(context, false); }

}  // namespace

void CmdXreadgroup(CommandContext& context) { ReadCommand(context, true); }

namespace {

constexpr CommandDef kStreamCommands[] = {
    {.name = "xadd",
     .arity = -5,
     .flags = "write denyoom fast",
     .acl = "@stream",
     .keys = "RW update: index 1 range 0 1 0 | UPDATE instead of INSERT because of the optional "
             "trimming feature",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of "
                   "entries evicted.",
     .summary = "Appends a new entry to a stream",
     .args = "key:key#0 ?nomkstream:pure-token=NOMKSTREAM@6.2.0 "
             "?trim:block{strategy:oneof{maxlen:pure-token=MAXLEN minid:pure-token=MINID@6.2.0} "
             "?operator:oneof{equal:pure-token='=' approximately:pure-token=~} threshold:string "
             "?count:integer=LIMIT@6.2.0} id_or_auto:oneof{auto_id:pure-token=* id:string} "
             "*field_value:block{field:string value:string}",
     .handler = CmdXadd,
     .history = "6.2.0 Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` "
                "option.|7.0.0 Added support for the `<ms>-*` explicit ID form.",
     .tips = "nondeterministic_output"},
    {.name = "xlen",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@stream",
     .keys = "RO: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "Return the number of entries in a stream",
     .args = "key:key#0",
     .handler = CmdXlen},
    {.name = "xrange",
     .arity = -4,
     .flags = "readonly",
     .acl = "@stream",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity =
         "O(N) with N being the number of elements being returned. If N is constant (e.g. always "
         "asking for the first 10 elements with COUNT), you can consider it O(1).",
     .summary =
         "Return a range of elements in a stream, with IDs matching the specified IDs interval",
     .args = "key:key#0 start:string end:string ?count:integer=COUNT",
     .handler = CmdXrange,
     .history = "6.2.0 Added exclusive ranges."},
    {.name = "xrevrange",
     .arity = -4,
     .flags = "readonly",
     .acl = "@stream",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. "
                   "always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs "
                "interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
     .args = "key:key#0 end:string start:string ?count:integer=COUNT",
     .handler = CmdXrevrange,
     .history = "6.2.0 Added exclusive ranges."},
    {.name = "xdel",
     .arity = -3,
     .flags = "write fast",
     .acl = "@stream",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity =
         "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .summary = "Removes the specified entries from the stream. Returns the number of items "
                "actually deleted, that may be different from the number of IDs passed in case "
                "certain IDs do not exist.",
     .args = "key:key#0 *id:string",
     .handler = CmdXdel},
    {.name = "xtrim",
     .arity = -4,
     .flags = "write",
     .acl = "@stream",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(N), with N being the number of evicted entries. Constant times are very "
                   "small however, since entries are organized in macro nodes containing multiple "
                   "entries that can be released with a single deallocation.",
     .summary = "Trims the stream to (approximately if '~' is passed) a certain size",
     .args = "key:key#0 trim:block{strategy:oneof{maxlen:pure-token=MAXLEN "
             "minid:pure-token=MINID@6.2.0} ?operator:oneof{equal:pure-token='=' "
             "approximately:pure-token=~} threshold:string ?count:integer=LIMIT@6.2.0}",
     .handler = CmdXtrim,
     .history = "6.2.0 Added the `MINID` trimming strategy and the `LIMIT` option.",
     .tips = "nondeterministic_output"},
    {.name = "xsetid",
     .arity = -3,
     .flags = "write denyoom fast",
     .acl = "@stream",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "O(1)",
     .summary = "An internal command for replicating stream values",
     .args = "key:key#0 last-id:string ?entries_added:integer=ENTRIESADDED@7.0.0 "
             "?max_deleted_entry_id:string=MAXDELETEDID@7.0.0",
     .handler = CmdXsetid,
     .history = "7.0.0 Added the `entries_added` and `max_deleted_entry_id` arguments."},
    {.name = "xread",
     .arity = -4,
     .flags = "readonly blocking",
     .acl = "@stream",
     .keys = "RO access: keyword STREAMS 1 range -1 1 2",
     .group = "stream",
     .since = "5.0.0",
     .complexity = "For each stream mentioned: O(N) with N being the number of elements being "
                   "returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when "
                   "the BLOCK option is used, XADD will pay O(M) time in order to serve the M "
                   "clients blocked on the stream getting new data.",
     .summary = "Return never seen elements in multiple streams, with IDs greater than the ones "
                "reported by the caller for each stream. Can block.",
     .args = "?count:integer=COUNT ?milliseconds:integer=BLOCK streams:block=STREAMS{*key:key#0 "
             "*id:string}",
     .handler = CmdXread},
};

}  // namespace

void RegisterStreamCommands(Registry& registry) {
  registry.Add(kStreamCommands);
  RegisterStreamGroupCommands(registry);
}

}  // namespace keel
