// A stream's content as the simulator's replica and crash checks compare it: the entries, the
// stream's IDs and counters, and each group's last ID and pending entries with their owners.
// Left out is what Redis 7.0 itself does not keep alike between a primary and what replays its
// propagation: delivery times and counts (XREADGROUP's reads of a consumer's history count on
// the primary only), consumers' seen times (each server's clock), entries_read (XCLAIM does not
// carry it) and consumers that own nothing (a history read makes one without propagating it).
#pragma once

#include <string>

#include "engine/db/entry.h"
#include "engine/db/types/stream.h"
#include "engine/db/value_ops.h"

namespace keel::sim {

inline std::string CanonicalStreamContent(const Entry& entry) {
  const auto& stream = *static_cast<const StreamValue*>(EntryObject(entry));
  std::string text = "stream " + stream.last_id().ToString() + " " + stream.first_id().ToString() +
                     " " + stream.max_deleted_id().ToString() + " " +
                     std::to_string(stream.entries_added());
  stream.Range(StreamId::Min(), StreamId::Max(), false, [&](const StreamEntryView& item) {
    text += "|" + item.id.ToString();
    item.ForEachField([&](std::string_view field, std::string_view value) {
      text += "," + std::to_string(field.size()) + ":" + std::string(field) + "=" +
              std::to_string(value.size()) + ":" + std::string(value);
    });
    return true;
  });
  for (const StreamGroup* group : stream.groups()) {
    text += "|group " + std::to_string(group->name().size()) + ":" + std::string(group->name()) +
            " " + group->last_id.ToString();
    for (const StreamNack& nack : group->pel) {
      text += " " + nack.id.ToString() + "@" + std::string(nack.consumer->name());
    }
  }
  return text;
}

}  // namespace keel::sim
