// List commands: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LLEN, LINDEX, LRANGE, LSET, LINSERT,
// LREM, LTRIM and LPOS. LMOVE, RPOPLPUSH and LMPOP are in cmd_list_move.cc.
//
// Each follows Redis 7.0's t_list.c in the order it checks its arguments, looks the key up and
// replies (an index is parsed before the lookup in LRANGE, after it in LINDEX), with its keyspace
// events and its count of changes (one per element pushed or removed, none for an LTRIM that
// removes nothing, which therefore is not propagated). A write whose memory is refused replies
// with the OOM error and leaves the list as it was. A list a command empties is deleted ("del").
#include <algorithm>
#include <climits>

#include "engine/base/numbers.h"
#include "engine/commands/list_access.h"

namespace keel {
namespace {

constexpr std::string_view kMustBePositive = "ERR value is out of range, must be positive";

// LPUSH, RPUSH, LPUSHX and RPUSHX (Redis's pushGenericCommand); `existing_only` for the X forms.
void Push(CommandContext& context, bool head, bool existing_only) {
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = nullptr;
  if (!LookupListForWrite(context, key, hash, &entry)) return;
  const KeyEvent event = head ? list_events::kLpush : list_events::kRpush;
  const List::End end = head ? List::End::kHead : List::End::kTail;
  MemoryAccountant& memory = context.memory();
  const size_t pushes = context.argc() - 2;
  if (entry == nullptr) {
    if (existing_only) {
      context.reply.Integer(0);
      return;
    }
    List* list = NewList(context);
    bool pushed = list != nullptr;
    for (size_t i = 2; pushed && i < context.argc(); i++) {
      pushed = list->Push(memory, end, context.arg(i));
    }
    if (!pushed) {
      if (list != nullptr) List::Destroy(list, memory);
      context.reply.Error(errors::kOom);
      return;
    }
    const auto length = static_cast<int64_t>(list->size());
    if (!StoreNewList(context, key, hash, list, event, pushes)) return;
    context.reply.Integer(length);
    return;
  }
  List* list = ListOf(entry);
  for (size_t i = 2; i < context.argc(); i++) {
    if (list->Push(memory, end, context.arg(i))) continue;
    // Refused part way: take back what this command pushed, so the list is as it was.
    const size_t done = i - 2;
    list->EraseRange(memory, head ? 0 : list->size() - done, done);
    context.reply.Error(errors::kOom);
    return;
  }
  context.keyspace.KeyChanged(db, key, event, pushes);
  context.reply.Integer(static_cast<int64_t>(list->size()));
}

void CmdLpush(CommandContext& context) { Push(context, true, false); }
void CmdRpush(CommandContext& context) { Push(context, false, false); }
void CmdLpushx(CommandContext& context) { Push(context, true, true); }
void CmdRpushx(CommandContext& context) { Push(context, false, true); }

// LPOP and RPOP, with Redis's popGenericCommand's cases: a count is parsed before the lookup, a
// missing key answers a null (a null array with a count), a count of 0 an empty array.
void Pop(CommandContext& context, bool head) {
  if (context.argc() > 3) {
    context.reply.Error(WrongArityError(context.spec));
    return;
  }
  const bool has_count = context.argc() == 3;
  int64_t count = 0;
  if (has_count && (!ParseStrictInt64(context.arg(2), &count) || count < 0)) {
    context.reply.Error(kMustBePositive);
    return;
  }
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = nullptr;
  if (!LookupListForWrite(context, key, hash, &entry)) return;
  if (entry == nullptr) {
    if (has_count) {
      context.reply.NullArray();
    } else {
      context.reply.NullBulk();
    }
    return;
  }
  if (has_count && count == 0) {
    context.reply.EmptyArray();
    return;
  }
  List* list = ListOf(entry);
  const size_t taken = has_count ? std::min(static_cast<size_t>(count), list->size()) : 1;
  const size_t start = head ? 0 : list->size() - taken;
  if (has_count) {
    ReplyRange(context, *list, start, taken, !head);
  } else {
    listpack::Element element;
    list->Read(list->Seek(start), &element);
    context.reply.Bulk(element.view());
  }
  list->EraseRange(context.memory(), start, taken);
  ElementsRemoved(context, key, hash, list, head, taken);
}

void CmdLpop(CommandContext& context) { Pop(context, true); }
void CmdRpop(CommandContext& context) { Pop(context, false); }

void CmdLlen(CommandContext& context) {
  const Entry* entry = nullptr;
  if (!LookupListForRead(context, context.arg(1), &entry)) return;
  context.reply.Integer(entry == nullptr ? 0 : static_cast<int64_t>(ListOf(entry)->size()));
}

// A list index as Redis takes it: negative from the end. False when outside the list.
bool ResolveIndex(int64_t index, size_t size, size_t* resolved) {
  const auto length = static_cast<int64_t>(size);
  if (index < 0) index += length;
  if (index < 0 || index >= length) return false;
  *resolved = static_cast<size_t>(index);
  return true;
}

void CmdLindex(CommandContext& context) {
  const Entry* entry = nullptr;
  if (!LookupListForRead(context, context.arg(1), &entry)) return;
  if (entry == nullptr) {
    context.reply.NullBulk();
    return;
  }
  int64_t index = 0;
  if (!ParseStrictInt64(context.arg(2), &index)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  const List& list = *ListOf(entry);
  size_t at = 0;
  if (!ResolveIndex(index, list.size(), &at)) {
    context.reply.NullBulk();
    return;
  }
  listpack::Element element;
  list.Read(list.Seek(at), &element);
  context.reply.Bulk(element.view());
}

void CmdLset(CommandContext& context) {
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = nullptr;
  if (!LookupListForWrite(context, key, hash, &entry)) return;
  if (entry == nullptr) {
    context.reply.Error("ERR no such key");
    return;
  }
  int64_t index = 0;
  if (!ParseStrictInt64(context.arg(2), &index)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  List* list = ListOf(entry);
  size_t at = 0;
  if (!ResolveIndex(index, list->size(), &at)) {
    context.reply.Error("ERR index out of range");
    return;
  }
  if (!list->Replace(context.memory(), list->Seek(at), context.arg(3))) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.keyspace.KeyChanged(db, key, list_events::kLset, 1);
  context.reply.Ok();
}

// Redis's start/end conversion for LRANGE and LTRIM: negative from the end, clamped; false for
// an empty range.
bool ResolveRange(int64_t start, int64_t end, size_t size, size_t* first, size_t* count) {
  const auto length = static_cast<int64_t>(size);
  if (start < 0) start += length;
  if (end < 0) end += length;
  if (start < 0) start = 0;
  if (start > end || start >= length) return false;
  if (end >= length) end = length - 1;
  *first = static_cast<size_t>(start);
  *count = static_cast<size_t>(end - start + 1);
  return true;
}

bool ParseStartEnd(CommandContext& context, int64_t* start, int64_t* end) {
  if (!ParseStrictInt64(context.arg(2), start) || !ParseStrictInt64(context.arg(3), end)) {
    context.reply.Error(errors::kNotInteger);
    return false;
  }
  return true;
}

void CmdLrange(CommandContext& context) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseStartEnd(context, &start, &end)) return;
  const Entry* entry = nullptr;
  if (!LookupListForRead(context, context.arg(1), &entry)) return;
  if (entry == nullptr) {
    context.reply.EmptyArray();
    return;
  }
  const List& list = *ListOf(entry);
  size_t first = 0;
  size_t count = 0;
  if (!ResolveRange(start, end, list.size(), &first, &count)) {
    context.reply.EmptyArray();
    return;
  }
  ReplyRange(context, list, first, count, false);
}

void CmdLtrim(CommandContext& context) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseStartEnd(context, &start, &end)) return;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = nullptr;
  if (!LookupListForWrite(context, key, hash, &entry)) return;
  if (entry == nullptr) {
    context.reply.Ok();
    return;
  }
  List* list = ListOf(entry);
  const size_t length = list->size();
  size_t first = 0;
  size_t count = 0;
  if (!ResolveRange(start, end, length, &first, &count)) {
    first = length;  // everything goes
    count = 0;
  }
  MemoryAccountant& memory = context.memory();
  const size_t removed = length - count;
  list->EraseRange(memory, first + count, length - first - count);
  list->EraseRange(memory, 0, first);
  context.keyspace.KeyChanged(db, key, list_events::kLtrim, removed);
  if (list->empty()) context.keyspace.DeleteEmptied(db, key, hash);
  context.reply.Ok();
}

// LINSERT key BEFORE|AFTER pivot element: the first pivot from the head.
void CmdLinsert(CommandContext& context) {
  bool after = false;
  if (OptionIs(context.arg(2), "after")) {
    after = true;
  } else if (!OptionIs(context.arg(2), "before")) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = nullptr;
  if (!LookupListForWrite(context, key, hash, &entry)) return;
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  List* list = ListOf(entry);
  List::Position at = list->Seek(0);
  bool found = list->Equals(at, context.arg(3));
  while (!found && list->Next(&at)) found = list->Equals(at, context.arg(3));
  if (!found) {
    context.reply.Integer(-1);
    return;
  }
  if (!list->Insert(context.memory(), at, after, context.arg(4))) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.keyspace.KeyChanged(db, key, list_events::kLinsert, 1);
  context.reply.Integer(static_cast<int64_t>(list->size()));
}

// LREM key count element: count > 0 from the head, < 0 from the tail, 0 all.
void CmdLrem(CommandContext& context) {
  int64_t wanted = 0;
  if (!ParseStrictInt64(context.arg(2), &wanted)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(db, key);
  Entry* entry = nullptr;
  if (!LookupListForWrite(context, key, hash, &entry)) return;
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  List* list = ListOf(entry);
  MemoryAccountant& memory = context.memory();
  const std::string_view element = context.arg(3);
  const bool from_tail = wanted < 0;
  // The magnitude of INT64_MIN does not fit: it means "all" as well as any count past the size.
  const uint64_t limit =
      from_tail ? 0 - static_cast<uint64_t>(wanted) : static_cast<uint64_t>(wanted);
  uint64_t removed = 0;
  List::Position at = list->Seek(from_tail ? list->size() - 1 : 0);
  bool more = true;
  while (more && (limit == 0 || removed < limit)) {
    if (!list->Equals(at, element)) {
      more = from_tail ? list->Previous(&at) : list->Next(&at);
      continue;
    }
    removed++;
    if (from_tail) {
      List::Position previous = at;
      more = list->Previous(&previous);
      list->EraseAt(memory, &at);
      at = previous;
    } else {
      more = list->EraseAt(memory, &at);
    }
  }
  if (removed > 0) context.keyspace.KeyChanged(db, key, list_events::kLrem, removed);
  if (list->empty()) context.keyspace.DeleteEmptied(db, key, hash);
  context.reply.Integer(static_cast<int64_t>(removed));
}

struct LposOptions {
  int64_t rank = 1;
  int64_t count = -1;  // -1: not given
  int64_t maxlen = 0;  // 0: the whole list
};

bool ParseLposOptions(CommandContext& context, LposOptions* options) {
  for (size_t i = 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const bool has_value = i + 1 < context.argc();
    if (OptionIs(option, "rank") && has_value) {
      if (!ParseStrictInt64(context.arg(++i), &options->rank)) {
        context.reply.Error(errors::kNotInteger);
        return false;
      }
      if (options->rank == 0) {
        context.reply.Error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
        return false;
      }
    } else if (OptionIs(option, "count") && has_value) {
      if (!ParseStrictInt64(context.arg(++i), &options->count) || options->count < 0) {
        context.reply.Error("ERR COUNT can't be negative");
        return false;
      }
    } else if (OptionIs(option, "maxlen") && has_value) {
      if (!ParseStrictInt64(context.arg(++i), &options->maxlen) || options->maxlen < 0) {
        context.reply.Error("ERR MAXLEN can't be negative");
        return false;
      }
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
void CmdLpos(CommandContext& context) {
  LposOptions options;
  if (!ParseLposOptions(context, &options)) return;
  const bool from_tail = options.rank < 0;
  // Redis negates a negative rank in a long: LONG_MIN stays negative, so every match counts as
  // reaching it, as rank -1 does.
  const uint64_t rank = !from_tail                  ? static_cast<uint64_t>(options.rank)
                        : options.rank == INT64_MIN ? 1
                                                    : static_cast<uint64_t>(-options.rank);
  const bool with_count = options.count != -1;
  const Entry* entry = nullptr;
  if (!LookupListForRead(context, context.arg(1), &entry)) return;
  if (entry == nullptr) {
    if (with_count) {
      context.reply.EmptyArray();
    } else {
      context.reply.NullBulk();
    }
    return;
  }
  // Two passes, the first counting what the second replies, so the reply's length comes first
  // without holding the matches.
  const List& list = *ListOf(entry);
  const size_t length = list.size();
  const auto maxlen = static_cast<uint64_t>(options.maxlen);
  const auto scan = [&](auto&& emit) {
    uint64_t matches = 0;
    uint64_t emitted = 0;
    List::Position at = list.Seek(from_tail ? length - 1 : 0);
    for (uint64_t scanned = 0; maxlen == 0 || scanned < maxlen; scanned++) {
      if (list.Equals(at, context.arg(2)) && ++matches >= rank) {
        emit(static_cast<int64_t>(from_tail ? length - scanned - 1 : scanned));
        emitted++;
        if (!with_count) break;
        if (options.count != 0 && emitted >= static_cast<uint64_t>(options.count)) break;
      }
      if (!(from_tail ? list.Previous(&at) : list.Next(&at))) break;
    }
    return emitted;
  };
  if (!with_count) {
    int64_t index = -1;
    if (scan([&](int64_t found) { index = found; }) == 0) {
      context.reply.NullBulk();
    } else {
      context.reply.Integer(index);
    }
    return;
  }
  context.reply.ArrayHeader(scan([](int64_t) {}));
  scan([&](int64_t found) { context.reply.Integer(found); });
}

constexpr CommandDef kListCommands[] = {
    {
        .name = "lpush",
        .arity = -3,
        .flags = "write denyoom fast",
        .acl = "@list",
        .keys = "RW insert: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(1) for each element added, so O(N) to add N elements when the command is "
                      "called with multiple arguments.",
        .summary = "Prepend one or multiple elements to a list",
        .args = "key:key#0 *element",
        .handler = CmdLpush,
        .history = "2.4.0 Accepts multiple `element` arguments.",
    },
    {
        .name = "rpush",
        .arity = -3,
        .flags = "write denyoom fast",
        .acl = "@list",
        .keys = "RW insert: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(1) for each element added, so O(N) to add N elements when the command is "
                      "called with multiple arguments.",
        .summary = "Append one or multiple elements to a list",
        .args = "key:key#0 *element",
        .handler = CmdRpush,
        .history = "2.4.0 Accepts multiple `element` arguments.",
    },
    {
        .name = "lpushx",
        .arity = -3,
        .flags = "write denyoom fast",
        .acl = "@list",
        .keys = "RW insert: index 1 range 0 1 0",
        .group = "list",
        .since = "2.2.0",
        .complexity = "O(1) for each element added, so O(N) to add N elements when the command is "
                      "called with multiple arguments.",
        .summary = "Prepend an element to a list, only if the list exists",
        .args = "key:key#0 *element",
        .handler = CmdLpushx,
        .history = "4.0.0 Accepts multiple `element` arguments.",
    },
    {
        .name = "rpushx",
        .arity = -3,
        .flags = "write denyoom fast",
        .acl = "@list",
        .keys = "RW insert: index 1 range 0 1 0",
        .group = "list",
        .since = "2.2.0",
        .complexity = "O(1) for each element added, so O(N) to add N elements when the command is "
                      "called with multiple arguments.",
        .summary = "Append an element to a list, only if the list exists",
        .args = "key:key#0 *element",
        .handler = CmdRpushx,
        .history = "4.0.0 Accepts multiple `element` arguments.",
    },
    {
        .name = "lpop",
        .arity = -2,
        .flags = "write fast",
        .acl = "@list",
        .keys = "RW access delete: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(N) where N is the number of elements returned",
        .summary = "Remove and get the first elements in a list",
        .args = "key:key#0 ?count:integer@6.2.0",
        .handler = CmdLpop,
        .history = "6.2.0 Added the `count` argument.",
    },
    {
        .name = "rpop",
        .arity = -2,
        .flags = "write fast",
        .acl = "@list",
        .keys = "RW access delete: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(N) where N is the number of elements returned",
        .summary = "Remove and get the last elements in a list",
        .args = "key:key#0 ?count:integer@6.2.0",
        .handler = CmdRpop,
        .history = "6.2.0 Added the `count` argument.",
    },
    {
        .name = "llen",
        .arity = 2,
        .flags = "readonly fast",
        .acl = "@list",
        .keys = "RO: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(1)",
        .summary = "Get the length of a list",
        .args = "key:key#0",
        .handler = CmdLlen,
    },
    {
        .name = "lindex",
        .arity = 3,
        .flags = "readonly",
        .acl = "@list",
        .keys = "RO access: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity =
            "O(N) where N is the number of elements to traverse to get to the element at index. "
            "This makes asking for the first or the last element of the list O(1).",
        .summary = "Get an element from a list by its index",
        .args = "key:key#0 index:integer",
        .handler = CmdLindex,
    },
    {
        .name = "lrange",
        .arity = 4,
        .flags = "readonly",
        .acl = "@list",
        .keys = "RO access: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(S+N) where S is the distance of start offset from HEAD for small lists, "
                      "from nearest end (HEAD or TAIL) for large lists; and N is the number of "
                      "elements in the specified range.",
        .summary = "Get a range of elements from a list",
        .args = "key:key#0 start:integer stop:integer",
        .handler = CmdLrange,
    },
    {
        .name = "lset",
        .arity = 4,
        .flags = "write denyoom",
        .acl = "@list",
        .keys = "RW update: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(N) where N is the length of the list. Setting either the first or the "
                      "last element of the list is O(1).",
        .summary = "Set the value of an element in a list by its index",
        .args = "key:key#0 index:integer element",
        .handler = CmdLset,
    },
    {
        .name = "linsert",
        .arity = 5,
        .flags = "write denyoom",
        .acl = "@list",
        .keys = "RW insert: index 1 range 0 1 0",
        .group = "list",
        .since = "2.2.0",
        .complexity =
            "O(N) where N is the number of elements to traverse before seeing the value pivot. "
            "This means that inserting somewhere on the left end on the list (head) can be "
            "considered O(1) and inserting somewhere on the right end (tail) is O(N).",
        .summary = "Insert an element before or after another element in a list",
        .args = "key:key#0 where:oneof{before=BEFORE after=AFTER} pivot element",
        .handler = CmdLinsert,
    },
    {
        .name = "lrem",
        .arity = 4,
        .flags = "write",
        .acl = "@list",
        .keys = "RW delete: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity =
            "O(N+M) where N is the length of the list and M is the number of elements removed.",
        .summary = "Remove elements from a list",
        .args = "key:key#0 count:integer element",
        .handler = CmdLrem,
    },
    {
        .name = "ltrim",
        .arity = 4,
        .flags = "write",
        .acl = "@list",
        .keys = "RW delete: index 1 range 0 1 0",
        .group = "list",
        .since = "1.0.0",
        .complexity = "O(N) where N is the number of elements to be removed by the operation.",
        .summary = "Trim a list to the specified range",
        .args = "key:key#0 start:integer stop:integer",
        .handler = CmdLtrim,
    },
    {
        .name = "lpos",
        .arity = -3,
        .flags = "readonly",
        .acl = "@list",
        .keys = "RO access: index 1 range 0 1 0",
        .group = "list",
        .since = "6.0.6",
        .complexity = "O(N) where N is the number of elements in the list, for the average case. "
                      "When searching for elements near the head or the tail of the list, or when "
                      "the MAXLEN option is provided, the command may run in constant time.",
        .summary = "Return the index of matching elements on a list",
        .args =
            "key:key#0 element ?rank:integer=RANK ?num-matches:integer=COUNT ?len:integer=MAXLEN",
        .handler = CmdLpos,
    },
};

}  // namespace

void RegisterListCommands(Registry& registry) { registry.Add(kListCommands); }

}  // namespace keel
