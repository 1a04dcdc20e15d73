// CommandSpec: the parsed, checked form of a CommandDef (see command_def.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/registry/command_def.h"

namespace keel {

// Command flags, in the order COMMAND INFO lists them.
enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,
  kCmdReadonly = 1u << 1,
  kCmdDenyOom = 1u << 2,
  kCmdModule = 1u << 3,
  kCmdAdmin = 1u << 4,
  kCmdPubsub = 1u << 5,
  kCmdNoScript = 1u << 6,
  kCmdBlocking = 1u << 7,
  kCmdLoading = 1u << 8,
  kCmdStale = 1u << 9,
  kCmdSkipMonitor = 1u << 10,
  kCmdSkipSlowlog = 1u << 11,
  kCmdAsking = 1u << 12,
  kCmdFast = 1u << 13,
  kCmdNoAuth = 1u << 14,
  kCmdMayReplicate = 1u << 15,  // hidden from COMMAND INFO, as in Redis
  kCmdSentinel = 1u << 16,      // hidden
  kCmdOnlySentinel = 1u << 17,  // hidden
  kCmdNoMandatoryKeys = 1u << 18,
  kCmdProtected = 1u << 19,  // hidden
  kCmdNoAsyncLoading = 1u << 20,
  kCmdNoMulti = 1u << 21,
  kCmdMovableKeys = 1u << 22,  // derived from the key specs, never written in a CommandDef
  kCmdAllowBusy = 1u << 23,
};

// ACL categories, in the order Redis lists them.
enum AclCategory : uint32_t {
  kAclKeyspace = 1u << 0,
  kAclRead = 1u << 1,
  kAclWrite = 1u << 2,
  kAclSet = 1u << 3,
  kAclSortedSet = 1u << 4,
  kAclList = 1u << 5,
  kAclHash = 1u << 6,
  kAclString = 1u << 7,
  kAclBitmap = 1u << 8,
  kAclHyperLogLog = 1u << 9,
  kAclGeo = 1u << 10,
  kAclStream = 1u << 11,
  kAclPubsub = 1u << 12,
  kAclAdmin = 1u << 13,
  kAclFast = 1u << 14,
  kAclSlow = 1u << 15,
  kAclBlocking = 1u << 16,
  kAclDangerous = 1u << 17,
  kAclConnection = 1u << 18,
  kAclTransaction = 1u << 19,
  kAclScripting = 1u << 20,
};

// Key-spec flags, in the order COMMAND INFO lists them.
enum KeySpecFlag : uint32_t {
  kKeyRO = 1u << 0,
  kKeyRW = 1u << 1,
  kKeyOW = 1u << 2,
  kKeyRM = 1u << 3,
  kKeyAccess = 1u << 4,
  kKeyUpdate = 1u << 5,
  kKeyInsert = 1u << 6,
  kKeyDelete = 1u << 7,
  kKeyNotKey = 1u << 8,
  kKeyIncomplete = 1u << 9,
  kKeyVariableFlags = 1u << 10,
};

struct KeySpec {
  enum class Begin : uint8_t { kUnknown, kIndex, kKeyword };
  enum class Find : uint8_t { kUnknown, kRange, kKeynum };
  uint32_t flags = 0;
  std::string notes;
  Begin begin = Begin::kUnknown;
  int index = 0;        // kIndex
  std::string keyword;  // kKeyword
  int start_from = 0;   // kKeyword
  Find find = Find::kUnknown;
  int last_key = 0;      // kRange (relative to the first key; -1 = last argument)
  int key_step = 0;      // kRange, kKeynum
  int limit = 0;         // kRange
  int keynum_index = 0;  // kKeynum
  int first_key = 0;     // kKeynum
};

struct ArgSpec {
  enum Flag : uint8_t { kOptional = 1, kMultiple = 2, kMultipleToken = 4 };
  std::string name;
  std::string type;  // key string integer double pattern unix-time pure-token oneof block
  std::string token;
  std::string since;
  std::string deprecated_since;
  int key_spec_index = -1;
  uint8_t flags = 0;
  std::vector<ArgSpec> children;
};

struct CommandSpec {
  std::string name;       // "get", "set"; for a subcommand the child part ("get" of config|get)
  std::string full_name;  // "get", "config|get"
  int arity = 0;
  uint32_t flags = 0;
  uint32_t acl = 0;  // including implied categories
  std::vector<KeySpec> key_specs;
  int legacy_first_key = 0;  // COMMAND INFO's first/last/step, derived as Redis derives them
  int legacy_last_key = 0;
  int legacy_key_step = 0;
  std::vector<std::string> tips;
  std::vector<ArgSpec> args;
  std::vector<std::pair<std::string, std::string>> history;  // version, text
  std::vector<std::string> doc_flags;
  const CommandDef* def = nullptr;
  CommandHandler handler = nullptr;
  const CommandSpec* parent = nullptr;
  std::vector<std::unique_ptr<CommandSpec>> subcommands;  // in registration order
  uint32_t id = 0;                                        // dense index for per-command statistics

  bool is_container() const { return !subcommands.empty(); }
  const CommandSpec* FindSubcommand(std::string_view name) const;  // case-insensitive
  bool ArityAccepts(size_t argc) const {
    return arity > 0 ? static_cast<size_t>(arity) == argc : argc >= static_cast<size_t>(-arity);
  }
};

// Parses `def` into `spec`. Returns an empty string on success or a description of the first
// problem (a bad flag name, a malformed key spec or argument tree).
std::string ParseCommandDef(const CommandDef& def, CommandSpec* spec);

// Names for replies.
std::vector<std::string_view> CommandFlagNames(uint32_t flags);       // visible flags only
std::vector<std::string_view> AclCategoryNames(uint32_t categories);  // without '@'
std::vector<std::string_view> KeySpecFlagNames(uint32_t flags);
// The category bit for "string" (case-insensitive), or 0. "@string" is not a category name:
// COMMAND LIST FILTERBY ACLCAT @string matches nothing in Redis.
uint32_t AclCategoryFromName(std::string_view name);

}  // namespace keel
