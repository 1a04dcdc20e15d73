// Planted: a data family may not reach the whole Engine.
#include "engine/commands/context.h"

namespace keel {

void Get(CommandContext& context) { context.server().RequestShutdown(); }

}  // namespace keel
