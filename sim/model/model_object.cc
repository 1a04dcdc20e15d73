// OBJECT ENCODING and OBJECT REFCOUNT in the model. OBJECT IDLETIME and FREQ report the engine's
// access clock, which the model does not keep: they stay out of it (and out of the workload).
#include "sim/model/model.h"

namespace keel::model {
namespace {

// The lookups reclaim an expired key, as Redis's objectCommandLookup does.
Expected ObjectEncoding(Call& call) {
  const Value* value = call.Lookup(call.args[2]);
  return value != nullptr ? Bulk(EncodingName(value->encoding)) : call.Null();
}

// A key's value is referenced once, unless it is one of Redis's shared integers.
Expected ObjectRefcount(Call& call) {
  const Value* value = call.Lookup(call.args[2]);
  if (value == nullptr) return call.Null();
  return Integer(value->shared ? 2147483647 : 1);
}

constexpr Command kCommands[] = {
    {"object|encoding", 0, ObjectEncoding},
    {"object|refcount", 0, ObjectRefcount},
};

}  // namespace

std::span<const Command> ObjectCommands() { return kCommands; }

}  // namespace keel::model
