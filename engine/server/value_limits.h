// The encoding limits of the configuration in force, as a loaded value is converted under them
// (RESTORE, RDB loading).
#pragma once

#include <cstddef>

#include "engine/db/types/list.h"
#include "engine/db/value_load.h"
#include "engine/server/config.h"

namespace keel {

inline ValueLoadLimits LoadLimitsOf(const ConfigValues& config) {
  ValueLoadLimits limits;
  limits.list_fill = List::ClampFill(config.list_max_listpack_size);
  limits.set_intset_entries = static_cast<size_t>(config.set_max_intset_entries);
  limits.hash = {.listpack_entries = static_cast<size_t>(config.hash_max_listpack_entries),
                 .listpack_value = static_cast<size_t>(config.hash_max_listpack_value)};
  limits.zset = {static_cast<size_t>(config.zset_max_listpack_entries),
                 static_cast<size_t>(config.zset_max_listpack_value)};
  return limits;
}

}  // namespace keel
