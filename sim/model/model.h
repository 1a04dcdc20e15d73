// Model: the reference model of Keel's command semantics, deliberately simple and separate from
// the engine.
//
// It shares no code with engine/ beyond the RESP value type: the keyspace is a std::map per
// database, commands are plain functions over it written from Redis's documented behaviour, and
// nothing is optimised. The simulator's oracle (sim/simulator/oracle.h) runs it beside the engine
// and checks every reply; RapidCheck tests and the command fuzz harness can run it the same way.
//
// Expiry follows Redis: a key is gone once the command time is past its expiry (now > expire_at,
// so a key is still there during its expiry millisecond), and the model removes an expired key
// only when a command touches it, as the engine's lazy expiry does. DBSIZE is predicted as a
// range: from the keys live at the command time to every key the model still holds, so that an
// engine which reclaims expired keys early (active expiry) is still correct.
//
// Command families add their commands to the table in one file each (model_<family>.cc), as the
// engine does with cmd_<family>.cc.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/expected.h"

namespace keel::model {

inline constexpr int64_t kNoExpiry = -1;

enum class ValueType : uint8_t { kString };

// One key's value. Families that add types add their representation here.
struct Value {
  ValueType type = ValueType::kString;
  std::string string;
  int64_t expire_at_ms = kNoExpiry;

  bool operator==(const Value& other) const = default;
};

using KeyTable = std::map<std::string, Value, std::less<>>;

// What a connection's replies depend on.
struct Session {
  uint64_t client_id = 0;
  int db = 0;
  int resp = 2;
  std::string name;
  bool quit = false;  // QUIT ran: the server closes the connection after its reply
};

// Facts about the moment a command runs, given by whoever drives the model.
struct Context {
  int64_t now_ms = 0;              // the command-time snapshot (wall clock, ms)
  uint64_t used_memory_bytes = 0;  // for maxmemory's refusal of denyoom commands
  // The environment refused an allocation the command needed (it fails with its OOM outcome).
  bool allocation_refused = false;
};

class Model;

// One command being run: what its function sees.
struct Call {
  Model& model;
  Session& session;
  std::span<const std::string> args;
  const Context& context;

  int64_t now_ms() const { return context.now_ms; }
  KeyTable& db();
  Expected Null() const { return NullBulk(session.resp); }
};

enum CommandFlag : uint32_t {
  kWrite = 1 << 0,
  kDenyOom = 1 << 1,  // refused while used memory is above maxmemory
  // Allocates keyspace memory: when the environment refuses, the command has an OOM outcome
  // (Context::allocation_refused) that the oracle may have to pick instead of the normal one.
  kAllocates = 1 << 2,
};

struct Command {
  std::string_view name;  // lower case; "client|id" for a subcommand
  int arity;              // Redis's convention: n exactly, -n at least n
  uint32_t flags;
  Expected (*run)(Call& call);
};

class Model {
 public:
  explicit Model(int databases = 16);

  // Runs one command for `session` at `context`, changes the state, returns the expected reply.
  Expected Execute(Session& session, std::span<const std::string> args, const Context& context);

  // The command `args` names (with its subcommand), or nullptr.
  const Command* Find(std::span<const std::string> args) const;

  void set_maxmemory_bytes(uint64_t bytes) { maxmemory_bytes_ = bytes; }
  int database_count() const { return static_cast<int>(databases_.size()); }
  KeyTable& db(int index) { return databases_[static_cast<size_t>(index)]; }
  const KeyTable& db(int index) const { return databases_[static_cast<size_t>(index)]; }

  // The key's value at `now_ms`, or nullptr; an expired key is removed (lazy expiry).
  Value* Lookup(int db_index, std::string_view key, int64_t now_ms);
  // Keys of a database live at `now_ms`.
  int64_t LiveKeys(int db_index, int64_t now_ms) const;

  static bool IsExpired(const Value& value, int64_t now_ms) {
    return value.expire_at_ms != kNoExpiry && value.expire_at_ms < now_ms;
  }

 private:
  void Add(std::span<const Command> commands);
  Expected Reject(std::span<const std::string> args, const Command* command) const;

  std::vector<KeyTable> databases_;
  std::map<std::string, Command, std::less<>> commands_;
  uint64_t maxmemory_bytes_ = 0;
};

// The families (one file each).
std::span<const Command> StringCommands();
std::span<const Command> KeyCommands();
std::span<const Command> ConnectionCommands();

// Helpers shared by families, written from Redis's rules (not the engine's code).
// Redis's string2ll: optional '-', no leading zeros or spaces, within int64.
bool ParseInt64(std::string_view text, int64_t* value);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string WrongArity(std::string_view full_name);

inline constexpr std::string_view kSyntaxError = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kOomError =
    "OOM command not allowed when used memory > 'maxmemory'.";

}  // namespace keel::model
