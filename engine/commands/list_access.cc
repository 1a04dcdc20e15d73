#include "engine/commands/list_access.h"

#include "engine/server/config.h"

namespace keel {

bool LookupListForWrite(CommandContext& context, std::string_view key, uint64_t hash,
                        Entry** entry) {
  *entry = context.keyspace.LookupWrite(context.db_index(), key, hash);
  if (*entry != nullptr && (*entry)->type() != ValueType::kList) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  return true;
}

bool LookupListForRead(CommandContext& context, std::string_view key, const Entry** entry) {
  *entry = context.keyspace.Lookup(context.db_index(), key);
  if (*entry != nullptr && (*entry)->type() != ValueType::kList) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  return true;
}

List* NewList(CommandContext& context) {
  const int fill = List::ClampFill(context.config().list_max_listpack_size);
  return List::Create(context.memory(), fill);
}

bool StoreNewList(CommandContext& context, std::string_view key, uint64_t hash, List* list,
                  KeyEvent event, uint64_t changes) {
  KEEL_ASSERT(!list->empty());
  if (context.keyspace.SetObject(context.db_index(), key, hash, ValueType::kList,
                                 ObjectEncoding::kQuicklist, list, kNoExpiry, event,
                                 changes) == Database::SetOutcome::kOutOfMemory) {
    List::Destroy(list, context.memory());
    context.reply.Error(errors::kOom);
    return false;
  }
  return true;
}

void ReplyRange(CommandContext& context, const List& list, size_t start, size_t count,
                bool reverse) {
  KEEL_ASSERT(start + count <= list.size());
  context.reply.ArrayHeader(count);
  if (count == 0) return;
  List::Position at = list.Seek(reverse ? start + count - 1 : start);
  listpack::Element element;
  for (size_t i = 0; i < count; i++) {
    if (i > 0) {
      const bool moved = reverse ? list.Previous(&at) : list.Next(&at);
      KEEL_ASSERT(moved);
    }
    list.Read(at, &element);
    context.reply.Bulk(element.view());
  }
}

void ElementsRemoved(CommandContext& context, std::string_view key, uint64_t hash, List* list,
                     bool head, size_t count) {
  const int db = context.db_index();
  context.keyspace.KeyChanged(db, key, head ? list_events::kLpop : list_events::kRpop, count);
  if (list->empty()) context.keyspace.DeleteEmptied(db, key, hash);
}

bool ParseListEnd(CommandContext& context, std::string_view arg, bool* head) {
  if (OptionIs(arg, "right")) {
    *head = false;
  } else if (OptionIs(arg, "left")) {
    *head = true;
  } else {
    context.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

}  // namespace keel
