// BlockedCall: a command that waits for a key (BLPOP and friends), kept with its client.
//
// A blocking command that finds nothing to take asks to block (CommandContext::BlockOn); the
// engine then keeps a copy of the command here (its request bytes are gone once the server moves
// on) and runs it again whenever one of its keys may have something for it (blocking.h). Each run
// is the command's own handler, so what it takes, replies and propagates is written once.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <vector>

#include "engine/db/entry.h"

namespace keel {

class Client;
struct CommandSpec;

struct BlockedCall {
  const CommandSpec* spec = nullptr;
  std::vector<std::string> args;
  std::vector<std::string_view> arg_views;  // into `args`, for Engine::Call
  int db = 0;
  std::vector<std::string> keys;      // distinct, in argument order
  ValueType type = ValueType::kList;  // a key of this type can serve it
  int64_t deadline_us = 0;            // monotonic; 0: waits forever
  // Where this client is in each key's queue (BlockingTable), one per key.
  std::vector<std::list<Client*>::iterator> positions;
  // While the command runs again: the key that became ready, which it takes from first (Redis
  // 7.0 serves a client from the key that was signalled, not from its first non-empty key).
  std::string_view serving_key;
  bool in_deadline_index = false;
  // A wait for something other than keys (WAIT: replicas' acknowledgements): its timeout runs
  // the command again, which gives the reply, instead of replying a null array.
  bool retry_on_timeout = false;
  // XREADGROUP: runs again also when its key is deleted or no longer holds its type, which ends
  // its wait with an error (Redis 7.0's unblockDeletedStreamReadgroupClients).
  bool serve_when_gone = false;
};

}  // namespace keel
