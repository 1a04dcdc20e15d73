// The blocking list commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP (Redis's t_list.c
// blockingPopGenericCommand, blmoveGenericCommand and lmpopGenericCommand).
//
// Each takes at once when it can, as its non-blocking form; otherwise its client blocks on the
// keys (CommandContext::BlockOn) and the engine runs the same handler again when one of them
// may serve it. Such a run takes from the key that became ready (context.serving_key()), as
// Redis 7.0 serves a waiter from the key that was signalled, and blocks again when it finds
// nothing there. Inside MULTI/EXEC or a script a blocking command cannot block: it answers as
// its timeout would, at once.
//
// Propagation is what the pop did, as Redis rewrites it: LPOP/RPOP key for BLPOP/BRPOP, LPOP or
// RPOP key count for BLMPOP, LMOVE (with the directions as sent, or in capitals when a waiter
// is served) for BLMOVE and RPOPLPUSH for BRPOPLPUSH.
#include "engine/commands/list_access.h"

namespace keel {
namespace {

constexpr std::string_view kLeft = "LEFT";
constexpr std::string_view kRight = "RIGHT";

// BLPOP/BRPOP key [key ...] timeout, and BLMPOP timeout numkeys key [key ...] LEFT|RIGHT
// [COUNT n] (`count` > 0: the reply is [key, [elements]]).
void BlockingPop(CommandContext& context, size_t first_key, size_t end_key, bool head, size_t count,
                 std::string_view timeout_text) {
  int64_t timeout_ms = 0;
  if (!ParseBlockTimeout(context, timeout_text, &timeout_ms)) return;
  const int db = context.db_index();
  const std::span<const std::string_view> keys =
      context.args.subspan(first_key, end_key - first_key);
  // A waiter being served takes from the key that became ready, and from no other.
  const std::string_view serving = context.serving_key();
  for (std::string_view key : keys) {
    if (!serving.empty() && key != serving) continue;
    const uint64_t hash = context.keyspace.Hash(db, key);
    Entry* entry = nullptr;
    if (!LookupListForWrite(context, key, hash, &entry)) return;
    if (entry == nullptr) continue;
    if (count > 0) {
      PopRangeWithKey(context, key, hash, entry, head, count);
      return;
    }
    List* list = ListOf(entry);
    const size_t index = head ? 0 : list->size() - 1;
    listpack::Element element;
    list->Read(list->Seek(index), &element);
    context.reply.ArrayHeader(2);
    context.reply.Bulk(key);
    context.reply.Bulk(element.view());
    list->EraseRange(context.memory(), index, 1);
    context.PropagateAs({head ? "LPOP" : "RPOP", key});
    ElementsRemoved(context, key, hash, list, head, 1);
    return;
  }
  if (!context.may_block()) {
    context.reply.NullArray();
    return;
  }
  context.BlockOn(keys, ValueType::kList, timeout_ms);
}

void CmdBlpop(CommandContext& context) {
  BlockingPop(context, 1, context.argc() - 1, true, 0, context.arg(context.argc() - 1));
}

void CmdBrpop(CommandContext& context) {
  BlockingPop(context, 1, context.argc() - 1, false, 0, context.arg(context.argc() - 1));
}

void CmdBlmpop(CommandContext& context) {
  MpopArgs parsed;
  if (!ParseMpopArgs(context, 2, &parsed)) return;
  BlockingPop(context, parsed.first_key, parsed.end_key, parsed.head, parsed.count, context.arg(1));
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout, and BRPOPLPUSH source destination
// timeout (`brpoplpush`).
void BlockingMove(CommandContext& context, bool from_head, bool to_head,
                  std::string_view timeout_text, bool brpoplpush) {
  int64_t timeout_ms = 0;
  if (!ParseBlockTimeout(context, timeout_text, &timeout_ms)) return;
  const int db = context.db_index();
  const std::string_view source_key = context.arg(1);
  const uint64_t source_hash = context.keyspace.Hash(db, source_key);
  Entry* source = nullptr;
  if (!LookupListForWrite(context, source_key, source_hash, &source)) return;
  if (source == nullptr) {
    if (!context.may_block()) {
      context.reply.NullBulk();  // blmoveGenericCommand's addReplyNull, unlike the timeout's
      return;
    }
    context.BlockOn(context.args.subspan(1, 1), ValueType::kList, timeout_ms);
    return;
  }
  MoveListEnd(context, from_head, to_head);
  if (brpoplpush) {
    context.PropagateAs({"RPOPLPUSH", source_key, context.arg(2)});
  } else if (!context.serving_key().empty()) {
    context.PropagateAs({"LMOVE", source_key, context.arg(2), from_head ? kLeft : kRight,
                         to_head ? kLeft : kRight});
  } else {
    context.PropagateAs({"LMOVE", source_key, context.arg(2), context.arg(3), context.arg(4)});
  }
}

void CmdBlmove(CommandContext& context) {
  bool from_head = false;
  bool to_head = false;
  if (!ParseListEnd(context, context.arg(3), &from_head) ||
      !ParseListEnd(context, context.arg(4), &to_head)) {
    return;
  }
  BlockingMove(context, from_head, to_head, context.arg(5), false);
}

void CmdBrpoplpush(CommandContext& context) {
  BlockingMove(context, false, true, context.arg(3), true);
}

constexpr std::string_view kTimeoutDoubleHistory =
    "6.0.0 `timeout` is interpreted as a double instead of an integer.";

constexpr CommandDef kListBlockingCommands[] = {
    {
        .name = "blpop",
        .arity = -3,
        .flags = "write noscript blocking",
        .acl = "@list",
        .keys = "RW access delete: index 1 range -2 1 0",
        .group = "list",
        .since = "2.0.0",
        .complexity = "O(N) where N is the number of provided keys.",
        .summary = "Remove and get the first element in a list, or block until one is available",
        .args = "*key:key#0 timeout:double",
        .handler = CmdBlpop,
        .history = kTimeoutDoubleHistory,
    },
    {
        .name = "brpop",
        .arity = -3,
        .flags = "write noscript blocking",
        .acl = "@list",
        .keys = "RW access delete: index 1 range -2 1 0",
        .group = "list",
        .since = "2.0.0",
        .complexity = "O(N) where N is the number of provided keys.",
        .summary = "Remove and get the last element in a list, or block until one is available",
        .args = "*key:key#0 timeout:double",
        .handler = CmdBrpop,
        .history = kTimeoutDoubleHistory,
    },
    {
        .name = "blmove",
        .arity = 6,
        .flags = "write denyoom noscript blocking",
        .acl = "@list",
        .keys = "RW access delete: index 1 range 0 1 0;RW insert: index 2 range 0 1 0",
        .group = "list",
        .since = "6.2.0",
        .complexity = "O(1)",
        .summary = "Pop an element from a list, push it to another list and return it; or block "
                   "until one is available",
        .args = "source:key#0 destination:key#1 wherefrom:oneof{left=LEFT right=RIGHT} "
                "whereto:oneof{left=LEFT right=RIGHT} timeout:double",
        .handler = CmdBlmove,
    },
    {
        .name = "brpoplpush",
        .arity = 4,
        .flags = "write denyoom noscript blocking",
        .acl = "@list",
        .keys = "RW access delete: index 1 range 0 1 0;RW insert: index 2 range 0 1 0",
        .group = "list",
        .since = "2.2.0",
        .complexity = "O(1)",
        .summary = "Pop an element from a list, push it to another list and return it; or block "
                   "until one is available",
        .args = "source:key#0 destination:key#1 timeout:double",
        .handler = CmdBrpoplpush,
        .history = kTimeoutDoubleHistory,
        .doc_flags = "deprecated",
        .deprecated_since = "6.2.0",
        .replaced_by = "`BLMOVE` with the `RIGHT` and `LEFT` arguments",
    },
    {
        .name = "blmpop",
        .arity = -5,
        .flags = "write blocking",
        .acl = "@list",
        .keys = "RW access delete: index 2 keynum 0 1 1",
        .group = "list",
        .since = "7.0.0",
        .complexity = "O(N+M) where N is the number of provided keys and M is the number of "
                      "elements returned.",
        .summary = "Pop elements from a list, or block until one is available",
        .args = "timeout:double numkeys:integer *key:key#0 where:oneof{left=LEFT right=RIGHT} "
                "?count:integer=COUNT",
        .handler = CmdBlmpop,
    },
};

}  // namespace

void RegisterListBlockingCommands(Registry& registry) { registry.Add(kListBlockingCommands); }

}  // namespace keel
