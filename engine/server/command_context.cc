#include "engine/server/command_context.h"

#include "engine/server/call_frame.h"
#include "engine/server/engine.h"

namespace keel {

void CommandContext::PropagateAs(std::initializer_list<std::string_view> args) {
  PropagateAs(std::span<const std::string_view>(args.begin(), args.size()));
}

void CommandContext::PropagateAs(std::span<const std::string_view> args) {
  if (!propagating()) return;
  CallFrame& frame = engine_.current_call();
  frame.rewritten = true;
  frame.propagated_args.assign(args.begin(), args.end());
}

void CommandContext::SaveAfterFlushAll() {
  Persistence& persistence = engine_.persistence();
  if (engine_.settings().save_rules.empty()) return;
  persistence.AbortSave("Stopping the running save: FLUSHALL saves the empty dataset");
  // A failure is logged and shows in INFO; FLUSHALL itself succeeds, as in Redis.
  persistence.StartSave(Persistence::Trigger::kBgsave, nullptr);
}

}  // namespace keel
