// What the stream family's files share (cmd_stream.cc, cmd_stream_group.cc): the events, ID
// parsing and replies as t_stream.c writes them, and the lookups that answer WRONGTYPE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/commands/context.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/stream.h"
#include "engine/server/command_context.h"

namespace keel {

// The stream family's keyspace events, as t_stream.c names them (class 't').
namespace stream_events {
inline constexpr KeyEvent kXadd{kNotifyStream, "xadd"};
inline constexpr KeyEvent kXdel{kNotifyStream, "xdel"};
inline constexpr KeyEvent kXtrim{kNotifyStream, "xtrim"};
inline constexpr KeyEvent kXsetid{kNotifyStream, "xsetid"};
inline constexpr KeyEvent kGroupCreate{kNotifyStream, "xgroup-create"};
inline constexpr KeyEvent kGroupCreateConsumer{kNotifyStream, "xgroup-createconsumer"};
inline constexpr KeyEvent kGroupDelConsumer{kNotifyStream, "xgroup-delconsumer"};
inline constexpr KeyEvent kGroupDestroy{kNotifyStream, "xgroup-destroy"};
inline constexpr KeyEvent kGroupSetid{kNotifyStream, "xgroup-setid"};
}  // namespace stream_events

inline constexpr std::string_view kInvalidStreamId =
    "ERR Invalid stream ID specified as stream command argument";

inline const StreamValue& StreamOf(const Entry& entry) {
  return *static_cast<const StreamValue*>(EntryObject(entry));
}
inline StreamValue& MutableStreamOf(Entry& entry) {
  return *static_cast<StreamValue*>(EntryObject(entry));
}

// streamGenericParseIDOrReply: "-" and "+" (unless `strict`), "<ms>", "<ms>-<seq>", and with
// `seq_given` "<ms>-*". A missing sequence is `missing_seq`. False after replying.
bool ParseStreamId(CommandContext& context, std::string_view text, uint64_t missing_seq,
                   bool strict, StreamId* id, bool* seq_given = nullptr);

// A name as Redis's "%s" prints it into an error: up to its first NUL byte.
inline std::string CText(std::string_view text) {
  return std::string(text.substr(0, text.find('\0')));
}

// Writes "<ms>-<seq>" as a bulk string.
void ReplyStreamId(ReplyBuilder& reply, StreamId id);
std::string StreamIdText(StreamId id);
// An entry as [id, [field, value, ...]].
void ReplyStreamEntry(ReplyBuilder& reply, const StreamEntryView& entry);
// The entries in [start, end] (reverse: from end down), at most `count` (0: all), as an array.
size_t ReplyStreamRange(ReplyBuilder& reply, const StreamValue& stream, StreamId start,
                        StreamId end, size_t count, bool reverse);

// A read lookup of `key` as a stream: false after replying WRONGTYPE; *stream null when missing.
bool LookupStream(CommandContext& context, std::string_view key, const StreamValue** stream);
// A write lookup: false after replying WRONGTYPE; *entry null when missing.
bool LookupStreamWrite(CommandContext& context, std::string_view key, Entry** entry);

inline StreamNodeLimits NodeLimits(const CommandContext& context) {
  return {static_cast<size_t>(context.config().stream_node_max_bytes),
          context.config().stream_node_max_entries};
}

void RegisterStreamGroupCommands(Registry& registry);  // XGROUP, XREADGROUP, XACK, XPENDING, ...

}  // namespace keel
