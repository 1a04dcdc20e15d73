// CommandDef: how a command is described, once, next to its handler.
//
// Every command of Keel is one CommandDef in its family's file (cmd_*.cc), registered by that
// family's Register* function. The registry parses the text fields at startup into CommandSpec
// (command_spec.h) and answers dispatch, arity checks, COMMAND INFO/DOCS/LIST/GETKEYS and ACL
// categories from it, so nothing about a command is written twice. Text fields use small
// notations, checked by registry_test at every build:
//
//   flags  space-separated command flags: write readonly denyoom admin pubsub noscript blocking
//          loading stale skip_monitor skip_slowlog asking fast no_auth may_replicate
//          no_mandatory_keys protected no_async_loading no_multi allow_busy sentinel only_sentinel
//   acl    extra ACL categories beyond those implied by flags: "@keyspace @string"
//   keys   key specs separated by ';', each "FLAGS: BEGIN FIND" where FLAGS are key-spec flags
//          (RO RW OW RM access update insert delete not_key incomplete variable_flags), BEGIN is
//          "index N", "keyword WORD FROM" or "unknown", FIND is "range LAST STEP LIMIT",
//          "keynum INDEX FIRST STEP" or "unknown"; an optional "| notes text" ends a spec.
//   args   the argument tree for COMMAND DOCS: arguments separated by spaces, each
//            [?][*][+]name[:type][=TOKEN][@since][^deprecated_since][#keyspec]
//            ['{' nested args '}']
//          '?' optional, '*' multiple, '+' multiple_token; type is one of key string integer
//          double pattern unix-time pure-token oneof block (default: pure-token when a token is
//          given, string otherwise). A name holding special characters is quoted: 'ip:port'.
//   history  entries separated by '|', each "VERSION text".
//   tips   space-separated command tips: "nondeterministic_output request_policy:all_shards".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace keel {

class CommandContext;
using CommandHandler = void (*)(CommandContext& context);

// One key of a command invocation (COMMAND GETKEYS now; ACL key permissions and client tracking
// later): its index into the arguments and the KeySpecFlag bits that describe its access.
struct KeyReference {
  size_t position;
  uint32_t flags;
};

// Finds the keys of one invocation (args[0] is the command name) for a command whose key specs
// cannot: one marked variable_flags, whose access depends on the other arguments. Redis's
// getkeys_proc. Returns false when the arguments name no key.
using KeyFinder = bool (*)(std::span<const std::string_view> args, std::vector<KeyReference>* keys);

struct CommandDef {
  std::string_view name;  // lowercase; "parent|child" for a subcommand
  int arity;              // N: exactly N arguments including the name; -N: at least N
  std::string_view flags;
  std::string_view acl;
  std::string_view keys;
  std::string_view group;  // COMMAND DOCS group: "string", "generic", "connection", "server", ...
  std::string_view since;
  std::string_view complexity;
  std::string_view summary;
  std::string_view args;
  CommandHandler handler;  // nullptr for a container (it dispatches to its subcommands)
  std::string_view history = {};
  std::string_view tips = {};
  std::string_view doc_flags = {};  // "deprecated", "syscmd"
  std::string_view deprecated_since = {};
  std::string_view replaced_by = {};
  // Required when a key spec is marked variable_flags, and then used instead of the specs.
  KeyFinder find_keys = nullptr;
};

}  // namespace keel
