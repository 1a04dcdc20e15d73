#include "engine/server/descriptors.h"

#include <string>

#include "engine/base/numbers.h"
#include "engine/server/engine.h"

namespace keel {

namespace {

std::string Count(uint64_t value) { return Int64ToString(static_cast<int64_t>(value)); }

}  // namespace

MaxclientsFit FitMaxclientsToDescriptors(Engine& engine, uint64_t maxclients) {
  const uint64_t wanted = maxclients + kReservedDescriptors;
  const DescriptorLimit limit = engine.env().network().RaiseDescriptorLimit(wanted);
  if (!limit.known) {
    engine.Log(LogLevel::kWarning, "Unable to obtain the current NOFILE limit (" + limit.error +
                                       "), assuming 1024 and setting the max clients "
                                       "configuration accordingly.");
    return {true, 1024 - kReservedDescriptors};
  }
  if (limit.before >= wanted) return {true, maxclients};
  if (limit.after >= wanted) {
    engine.Log(LogLevel::kNotice, "Increased maximum number of open files to " + Count(wanted) +
                                      " (it was originally set to " + Count(limit.before) + ").");
    return {true, maxclients};
  }
  if (limit.after <= kReservedDescriptors) {
    engine.Log(LogLevel::kWarning, "Your current 'ulimit -n' of " + Count(limit.before) +
                                       " is not enough for the server to start. Please increase "
                                       "your open file limit to at least " +
                                       Count(wanted) + ". Exiting.");
    return {false, 0};
  }
  const uint64_t reduced = limit.after - kReservedDescriptors;
  engine.Log(LogLevel::kWarning, "You requested maxclients of " + Count(maxclients) +
                                     " requiring at least " + Count(wanted) +
                                     " max file descriptors.");
  engine.Log(LogLevel::kWarning, "Server can't set maximum open files to " + Count(wanted) +
                                     " because of OS error: " + limit.error + ".");
  engine.Log(LogLevel::kWarning, "Current maximum open files is " + Count(limit.after) +
                                     ". maxclients has been reduced to " + Count(reduced) +
                                     " to compensate for low ulimit. If you need higher "
                                     "maxclients increase 'ulimit -n'.");
  return {true, reduced};
}

}  // namespace keel
