// List commands that take from one list and give to another or to the client: LMOVE, RPOPLPUSH
// and LMPOP, and the cores their blocking forms share (cmd_list_block.cc).
//
// LMOVE pushes to the destination before it pops the source, so that a refused allocation (the
// only way it can fail once its keys are checked) leaves both lists as they were; the result is
// the same as Redis's pop-then-push, also when source and destination are one list. It counts
// one change, as Redis does, and announces the push on the destination before the pop on the
// source. LMPOP propagates as the LPOP or RPOP with the count it took, as Redis rewrites it.
#include <algorithm>
#include <climits>

#include "engine/base/numbers.h"
#include "engine/commands/list_access.h"
#include "engine/commands/scratch.h"

namespace keel {
namespace {

// The element at `head`'s end of `list`, copied aside (it is popped before the reply is sent).
bool CopyEnd(const List& list, bool head, ScratchBuffer* copy) {
  listpack::Element element;
  list.Read(list.Seek(head ? 0 : list.size() - 1), &element);
  return copy->Assign(element.view());
}

}  // namespace

void MoveListEnd(CommandContext& context, bool from_head, bool to_head) {
  const int db = context.db_index();
  const std::string_view source_key = context.arg(1);
  const std::string_view target_key = context.arg(2);
  const uint64_t source_hash = context.keyspace.Hash(db, source_key);
  Entry* source = nullptr;
  if (!LookupListForWrite(context, source_key, source_hash, &source)) return;
  if (source == nullptr) {
    context.reply.NullBulk();
    return;
  }
  const uint64_t target_hash = context.keyspace.Hash(db, target_key);
  Entry* target = nullptr;
  if (!LookupListForWrite(context, target_key, target_hash, &target)) return;
  MemoryAccountant& memory = context.memory();
  List* source_list = ListOf(source);
  ScratchBuffer value(memory);
  if (!CopyEnd(*source_list, from_head, &value)) {
    context.reply.Error(errors::kOom);
    return;
  }
  const List::End end = to_head ? List::End::kHead : List::End::kTail;
  const KeyEvent push_event = to_head ? list_events::kLpush : list_events::kRpush;
  if (target == nullptr) {
    List* list = NewList(context);
    if (list == nullptr || !list->Push(memory, end, value.view())) {
      if (list != nullptr) List::Destroy(list, memory);
      context.reply.Error(errors::kOom);
      return;
    }
    if (!StoreNewList(context, target_key, target_hash, list, push_event, 1)) return;
  } else {
    if (!ListOf(target)->Push(memory, end, value.view())) {
      context.reply.Error(errors::kOom);
      return;
    }
    context.keyspace.KeyChanged(db, target_key, push_event, 1);
  }
  // The source is popped from the end it was read at (a push at that end of the same list
  // added the copy there, so it is the copy that goes: the same elements as pop-then-push).
  source_list->EraseRange(memory, from_head ? 0 : source_list->size() - 1, 1);
  context.keyspace.KeyChanged(db, source_key, from_head ? list_events::kLpop : list_events::kRpop,
                              0);
  if (source_list->empty()) context.keyspace.DeleteEmptied(db, source_key, source_hash);
  context.reply.Bulk(value.view());
}

void PopRangeWithKey(CommandContext& context, std::string_view key, uint64_t hash, Entry* entry,
                     bool head, size_t count) {
  List* list = ListOf(entry);
  const size_t taken = std::min(count, list->size());
  const size_t start = head ? 0 : list->size() - taken;
  context.reply.ArrayHeader(2);
  context.reply.Bulk(key);
  ReplyRange(context, *list, start, taken, !head);
  list->EraseRange(context.memory(), start, taken);
  if (context.propagating()) {
    char text[kInt64TextMax];
    const std::string_view taken_text(text, FormatInt64(static_cast<int64_t>(taken), text));
    context.PropagateAs({head ? "LPOP" : "RPOP", key, taken_text});
  }
  ElementsRemoved(context, key, hash, list, head, taken);
}

namespace {

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
void CmdLmove(CommandContext& context) {
  bool from_head = false;
  bool to_head = false;
  if (!ParseListEnd(context, context.arg(3), &from_head) ||
      !ParseListEnd(context, context.arg(4), &to_head)) {
    return;
  }
  MoveListEnd(context, from_head, to_head);
}

void CmdRpoplpush(CommandContext& context) { MoveListEnd(context, false, true); }

// Redis's getRangeLongFromObjectOrReply with a message: a number that is not one, or is below 1,
// is refused with `error`.
bool ParseAtLeastOne(CommandContext& context, std::string_view text, std::string_view error,
                     int64_t* value) {
  if (!ParseStrictInt64(text, value) || *value < 1) {
    context.reply.Error(error);
    return false;
  }
  return true;
}

}  // namespace

bool ParseMpopArgs(CommandContext& context, size_t numkeys_index, MpopArgs* parsed) {
  int64_t keys = 0;
  if (!ParseAtLeastOne(context, context.arg(numkeys_index), "ERR numkeys should be greater than 0",
                       &keys)) {
    return false;
  }
  // Where LEFT|RIGHT must be: past the keys (a numkeys beyond the arguments is a syntax error).
  const auto argc = static_cast<uint64_t>(context.argc());
  if (static_cast<uint64_t>(keys) >= argc - numkeys_index - 1) {
    context.reply.Error(errors::kSyntax);
    return false;
  }
  parsed->first_key = numkeys_index + 1;
  parsed->end_key = parsed->first_key + static_cast<size_t>(keys);
  if (!ParseListEnd(context, context.arg(parsed->end_key), &parsed->head)) return false;
  int64_t count = -1;
  for (size_t i = parsed->end_key + 1; i < context.argc(); i++) {
    if (count == -1 && OptionIs(context.arg(i), "count") && i + 1 < context.argc()) {
      if (!ParseAtLeastOne(context, context.arg(++i), "ERR count should be greater than 0",
                           &count)) {
        return false;
      }
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  parsed->count = count == -1 ? 1 : static_cast<size_t>(count);
  return true;
}

namespace {

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: pops from the first key holding a list.
void CmdLmpop(CommandContext& context) {
  MpopArgs parsed;
  if (!ParseMpopArgs(context, 1, &parsed)) return;
  const int db = context.db_index();
  for (size_t i = parsed.first_key; i < parsed.end_key; i++) {
    const std::string_view key = context.arg(i);
    const uint64_t hash = context.keyspace.Hash(db, key);
    Entry* entry = nullptr;
    if (!LookupListForWrite(context, key, hash, &entry)) return;
    if (entry == nullptr) continue;
    PopRangeWithKey(context, key, hash, entry, parsed.head, parsed.count);
    return;
  }
  context.reply.NullArray();
}

constexpr CommandDef kListMoveCommands[] = {
    {
        .name = "lmove",
        .arity = 5,
        .flags = "write denyoom",
        .acl = "@list",
        .keys = "RW access delete: index 1 range 0 1 0;RW insert: index 2 range 0 1 0",
        .group = "list",
        .since = "6.2.0",
        .complexity = "O(1)",
        .summary = "Pop an element from a list, push it to another list and return it",
        .args = "source:key#0 destination:key#1 wherefrom:oneof{left=LEFT right=RIGHT} "
                "whereto:oneof{left=LEFT right=RIGHT}",
        .handler = CmdLmove,
    },
    {
        .name = "rpoplpush",
        .arity = 3,
        .flags = "write denyoom",
        .acl = "@list",
        .keys = "RW access delete: index 1 range 0 1 0;RW insert: index 2 range 0 1 0",
        .group = "list",
        .since = "1.2.0",
        .complexity = "O(1)",
        .summary = "Remove the last element in a list, prepend it to another list and return it",
        .args = "source:key#0 destination:key#1",
        .handler = CmdRpoplpush,
        .doc_flags = "deprecated",
        .deprecated_since = "6.2.0",
        .replaced_by = "`LMOVE` with the `RIGHT` and `LEFT` arguments",
    },
    {
        .name = "lmpop",
        .arity = -4,
        .flags = "write",
        .acl = "@list",
        .keys = "RW access delete: index 1 keynum 0 1 1",
        .group = "list",
        .since = "7.0.0",
        .complexity = "O(N+M) where N is the number of provided keys and M is the number of "
                      "elements returned.",
        .summary = "Pop elements from a list",
        .args =
            "numkeys:integer *key:key#0 where:oneof{left=LEFT right=RIGHT} ?count:integer=COUNT",
        .handler = CmdLmpop,
    },
};

}  // namespace

void RegisterListMoveCommands(Registry& registry) { registry.Add(kListMoveCommands); }

}  // namespace keel
