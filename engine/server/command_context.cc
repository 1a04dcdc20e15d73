#include "engine/server/command_context.h"

#include "engine/server/call_frame.h"

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

}  // namespace keel
