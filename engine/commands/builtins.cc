// The built-in command table: every family's definitions, in registration order. The registry
// (engine/registry/) declares it; the families live above it, so the table is defined here.
#include "engine/commands/cmd_zset_common.h"
#include "engine/commands/context.h"
#include "engine/registry/registry.h"

namespace keel {

// SYNC, PSYNC, REPLCONF, WAIT, ROLE (cmd_server_replication.cc).
void RegisterReplicationCommands(Registry& registry);

void Registry::AddBuiltins() {
  Registry* registry = this;
  RegisterConnectionCommands(*registry);
  RegisterClientCommands(*registry);
  RegisterKeyCommands(*registry);
  RegisterExpireCommands(*registry);
  RegisterDumpCommands(*registry);
  RegisterScanCommands(*registry);
  RegisterObjectCommands(*registry);
  RegisterMemoryCommands(*registry);
  RegisterMemoryStatsCommands(*registry);
  RegisterStringCommands(*registry);
  RegisterStringCounterCommands(*registry);
  RegisterLcsCommands(*registry);
  RegisterListCommands(*registry);
  RegisterListMoveCommands(*registry);
  RegisterListBlockingCommands(*registry);
  RegisterSortCommands(*registry);
  RegisterSetCommands(*registry);
  RegisterHashCommands(*registry);
  RegisterZsetCommands(*registry);
  RegisterGeoCommands(*registry);
  RegisterBitmapCommands(*registry);
  RegisterBitfieldCommands(*registry);
  RegisterHyperLogLogCommands(*registry);
  RegisterStreamCommands(*registry);
  RegisterServerCommands(*registry);
  RegisterPersistCommands(*registry);
  RegisterConfigCommands(*registry);
  RegisterIntrospectionCommands(*registry);
  RegisterDiagnosticCommands(*registry);
  RegisterDebugCommands(*registry);
  RegisterMultiCommands(*registry);
  RegisterPubsubCommands(*registry);
  RegisterScriptingCommands(*registry);
  RegisterFunctionCommands(*registry);
  RegisterReplicationCommands(*registry);
}

const Registry& Registry::Builtin() {
  static const Registry* const kBuiltin = [] {
    auto* registry = new Registry();
    registry->AddBuiltins();
    return registry;
  }();
  return *kBuiltin;
}

}  // namespace keel
