// Model: the reference model of Keel's command semantics, deliberately simple and separate from
// the engine.
//
// It shares no code with engine/ beyond the RESP value type and the command facts of the
// registry (names, arity, flags: written once, in the engine's CommandDefs): the keyspace is a
// std::map per database, commands are plain functions over it written from Redis's documented
// behaviour, and nothing is optimised. The simulator's oracle (sim/simulator/oracle.h) runs it
// beside the engine and checks every reply; RapidCheck tests and the command fuzz harness can run
// it the same way.
//
// Expiry follows Redis: a key is gone once the command time is past its expiry (now > expire_at,
// so a key is still there during its expiry millisecond), and the model removes an expired key
// only when a command certainly touches it, as Redis's lazy expiry does. What the model cannot
// know it predicts as a bound (expected.h): DBSIZE as a range, from the keys live at the command
// time to every key the model still holds, so that an engine which reclaims expired keys early
// (active expiry) is still correct; RANDOMKEY as one of the live keys; KEYS as a set; a SCAN
// page as a subset. Expired keys that such a walk (or active expiry) reclaimed leave the model
// through ForgetExpired, driven by whoever can see the engine's keyspace.
//
// Command families add their commands to the table in one file each (model_<family>.cc), as the
// engine does with cmd_<family>.cc.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/model/expected.h"

namespace keel::model {

inline constexpr int64_t kNoExpiry = -1;

enum class ValueType : uint8_t { kString, kList, kSet, kZSet, kHash, kStream };

// How Redis holds a value, as OBJECT ENCODING names it. A string: an integer's text of at most 20
// bytes is an int, other values of at most 44 bytes are embstr, longer ones and edited ones
// (APPEND, SETRANGE) raw. The aggregate types' encodings follow their families' rules
// (model_<family>.cc).
enum class Encoding : uint8_t {
  kInt,
  kEmbstr,
  kRaw,
  kListpack,
  kQuicklist,
  kIntset,
  kHashtable,
  kSkiplist,
  kStream
};

// A stream (model_stream.cc): entries by ID (ms, seq), the stream's IDs and counters, and its
// consumer groups, as Redis 7.0's t_stream.c keeps them. `nodes` is where Redis's listpack nodes
// would split the entries (their master IDs and sizes), which approximate trimming and XINFO
// STREAM's radix tree counts depend on.
using StreamIdPair = std::pair<uint64_t, uint64_t>;
struct StreamNackModel {
  std::string consumer;
  int64_t delivery_time = 0;
  int64_t delivery_count = 0;
  bool operator==(const StreamNackModel& other) const = default;
};
struct StreamGroupModel {
  StreamIdPair last_id{0, 0};
  int64_t entries_read = -1;
  std::map<StreamIdPair, StreamNackModel> pel;
  std::map<std::string, int64_t, std::less<>> consumers;  // name -> seen time
  bool operator==(const StreamGroupModel& other) const = default;
};
struct StreamNodeModel {
  StreamIdPair master{0, 0};
  std::vector<std::string> master_fields;
  std::vector<std::pair<StreamIdPair, bool>> entries;  // (id, deleted), in order
  std::vector<size_t> entry_bytes;                     // each entry's listpack bytes
  bool operator==(const StreamNodeModel& other) const = default;
};
struct StreamModel {
  std::map<StreamIdPair, std::vector<std::string>> entries;  // field, value, ...
  StreamIdPair last_id{0, 0};
  StreamIdPair first_id{0, 0};
  StreamIdPair max_deleted{0, 0};
  uint64_t entries_added = 0;
  std::map<std::string, StreamGroupModel, std::less<>> groups;
  std::vector<StreamNodeModel> nodes;
  bool operator==(const StreamModel& other) const = default;
};

// One key's value. Families that add types add their representation here; only the member of
// `type` is used (the others stay empty, so that == compares values).
struct Value {
  using SetMembers = std::set<std::string, std::less<>>;
  ValueType type = ValueType::kString;
  std::string string;
  std::deque<std::string> list;            // ValueType::kList, head first
  std::set<std::string, std::less<>> set;  // ValueType::kSet
  // ValueType::kHash: field and value in insertion order (a listpack's order; a hashtable's
  // order is the engine's table, which the model does not predict).
  std::vector<std::pair<std::string, std::string>> hash;
  std::map<std::string, double> zset;  // ValueType::kZSet: member -> score
  StreamModel stream;                  // ValueType::kStream
  int64_t expire_at_ms = kNoExpiry;
  Encoding encoding = Encoding::kEmbstr;
  // One of Redis's shared integers 0..9999 (OBJECT REFCOUNT 2147483647), which SET and the
  // counters use while the maxmemory policy allows sharing; a COPY is never shared.
  bool shared = false;

  bool operator==(const Value& other) const = default;
};

// A string stored as given (SET, SETEX, MSET, GETSET, a new key of APPEND, the counters): int,
// shared when 0..9999 and `shared_integers`, else embstr up to 44 bytes, else raw.
Value StoredString(std::string bytes, int64_t expire_at_ms, bool shared_integers);
// A string edited in place (APPEND to a key, SETRANGE): raw and private.
Value EditedString(std::string bytes, int64_t expire_at_ms);
std::string_view EncodingName(Encoding encoding);

using KeyTable = std::map<std::string, Value, std::less<>>;

// What a connection's replies depend on.
struct Session {
  uint64_t client_id = 0;
  int db = 0;
  int resp = 2;
  std::string name;
  bool quit = false;  // QUIT ran: the server closes the connection after its reply
  // MULTI ... EXEC (model_multi.cc): in a transaction, the commands queued (none once it is
  // doomed), the union of their flags, and whether a command was refused while queuing. Whether
  // a watched key changed is the model's (other sessions' writes break it).
  bool multi = false;
  bool dirty_exec = false;
  std::vector<std::vector<std::string>> queued;
  uint32_t queued_flags = 0;
};

// Facts about the moment a command runs, given by whoever drives the model.
struct Context {
  int64_t now_ms = 0;              // the command-time snapshot (wall clock, ms)
  uint64_t used_memory_bytes = 0;  // for maxmemory's refusal of denyoom commands
  // The environment refused an allocation the command needed (it fails with its OOM outcome:
  // the lookups before the write happened, the write did not).
  bool allocation_refused = false;
  // The members the engine's set `key` (of the command's database) holds once the command ran,
  // false when it holds no set there: SPOP's draws are the engine's randomness, so the model
  // learns which members went from what stayed (and checks that it could have happened). Null
  // when the driver cannot look (the model then takes the first members in order).
  std::function<bool(std::string_view key, Value::SetMembers* members)> set_after;
  // Whether a blocking command may block (not inside EXEC), and, when a blocked command runs
  // again because a key became ready, that key (empty otherwise): Redis 7.0 serves a waiter
  // from the key that was signalled.
  bool may_block = true;
  std::string serving_key;
  // The MISCONF error the server refuses writes with while the disk fails it (a background save
  // failed under stop-writes-on-bgsave-error, or a write or sync of the AOF is failing), or
  // empty. When syncs fail is the environment's choice: the driver reads the server's state.
  std::string disk_error;
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
  // The live value of `key` in the session's database (lazy expiry: an expired key is removed).
  Value* Lookup(std::string_view key);
  // Stores `value` at `key` in the session's database.
  void Store(const std::string& key, Value value);
  // Puts `value`, the same data in another encoding, at `key`: no write (Redis's
  // dbUnshareStringValue, which breaks no WATCH).
  void Replace(const std::string& key, Value value);
  bool shared_integers() const;
};

enum CommandFlag : uint32_t {
  // From the registry (Redis's write and denyoom flags), filled in when the model adds a command.
  kWrite = 1 << 0,
  kDenyOom = 1 << 1,  // refused while used memory is above maxmemory
  // The model's own: the command allocates memory (keyspace or transient), so when the
  // environment refuses, the command has an OOM outcome (Context::allocation_refused) that the
  // oracle may have to pick instead of the normal one.
  kAllocates = 1 << 2,
};

// Databases the model holds unless told otherwise (Redis's default "databases").
inline constexpr int kDatabasesDefault = 16;

// One command the model knows. A family's table gives the name, the model's own flags
// (kAllocates) and the function; the command's facts (arity, write, denyoom, whether it is a
// container of subcommands) come from the engine's registry, their only source, when the model
// adds the table. COMMAND INFO's conformance cases hold those facts to redis-server's.
struct Command {
  std::string_view name;  // lower case; "client|id" for a subcommand
  uint32_t flags;         // the table's: kAllocates; the model adds kWrite and kDenyOom
  Expected (*run)(Call& call);
  int arity = 0;  // Redis's convention: n exactly, -n at least n (from the registry)
};

class Model {
 public:
  explicit Model(int databases = kDatabasesDefault);
  // --- Transactions (model_multi.cc) --------------------------------------------------------
  // WATCH of `key` in the session's database; whether it had expired at `now_ms` is kept.
  void Watch(const Session& session, std::string_view key, int64_t now_ms);
  void Unwatch(uint64_t client_id);
  // Whether a key `client_id` watched changed (Redis's CLIENT_DIRTY_CAS), or one it watched
  // while live has expired at `now_ms`.
  bool WatchBroken(uint64_t client_id, int64_t now_ms) const;
  void ClearBroken(uint64_t client_id) { broken_.erase(client_id); }
  bool IsBroken(uint64_t client_id) const { return broken_.count(client_id) != 0; }
  // Ends the session's transaction and forgets its watches (EXEC, DISCARD, RESET).
  void DiscardTransaction(Session& session);
  // The connection is gone: its watches go with it.
  void DropClient(uint64_t client_id);
  // A key changed (written, deleted, expired or reclaimed): breaks the watches on it as the
  // engine's WatchTable does (a key watched while already expired breaks only when it is live
  // now).
  void TouchKey(int db_index, std::string_view key, int64_t now_ms);
  // Marks `key` of the session's database changed even if its value is the same (SET of the same
  // value, EXPIRE to the same time): Redis touches every key a command writes.
  void MarkWritten(int db_index, std::string_view key) { written_.emplace_back(db_index, key); }
  bool watching() const { return !watches_.empty(); }
  // Keyspace events: while on, each Execute lists the keys whose contents it changed that Redis
  // notifies (changed_keys()), and the oracle requires a keyspace event from the engine for each.
  // Off, a command costs no copy of the keyspace (unless someone watches).
  void set_report_changes(bool on) { report_changes_ = on; }
  // `key` of `db_index` changed in a way Redis announces no event for: BITFIELD whose every SET
  // or INCRBY failed with OVERFLOW FAIL still creates or grows its string (Redis 7.0's
  // lookupStringForBitCommand) but counts no change.
  void MarkUnannounced(int db_index, std::string_view key) {
    unannounced_.emplace_back(db_index, key);
  }
  // The last Execute's changed keys (database, key): live before it (a key that had expired goes
  // quietly where Redis deletes it quietly: on a replica, while writes are paused) and different
  // or gone after it. Not those of FLUSHDB, FLUSHALL and SWAPDB, which notify no key, nor of
  // PFCOUNT and PFDEBUG, which rewrite a HyperLogLog's cache or encoding without an event.
  const std::vector<std::pair<int, std::string>>& changed_keys() const { return changed_keys_; }
  struct WatchedKey {
    uint64_t client_id;
    int db;
    std::string key;
    bool expired;  // had expired when watched: logically absent
  };
  // Every session's watches, for a driver that runs a command twice (the oracle's two outcomes
  // of a refused allocation) and keeps one run's effects.
  struct WatchState {
    std::vector<WatchedKey> watches;
    std::set<uint64_t> broken;
  };
  WatchState watch_state() const { return WatchState{watches_, broken_}; }
  void set_watch_state(WatchState state) {
    watches_ = std::move(state.watches);
    broken_ = std::move(state.broken);
  }
  // How a command behaves inside MULTI (as the engine's Execute): queued, run at once (MULTI,
  // WATCH), run at once and never refused for memory (DISCARD, QUIT, RESET), or EXEC.
  enum class MultiRole : uint8_t { kQueued, kRunsNow, kOomExempt, kExec };
  static MultiRole RoleInMulti(std::string_view name);

  // Runs one command for `session` at `context`, changes the state, returns the expected reply.
  Expected Execute(Session& session, std::span<const std::string> args, const Context& context);

  // The command `args` names (with its subcommand), or nullptr.
  const Command* Find(std::span<const std::string> args) const;

  void set_maxmemory_bytes(uint64_t bytes) { maxmemory_bytes_ = bytes; }
  // Whether new integers 0..9999 are Redis's shared objects (false under an LRU/LFU maxmemory
  // policy with maxmemory set; the simulator and the tests keep noeviction).
  void set_shared_integers(bool shared) { shared_integers_ = shared; }
  bool shared_integers() const { return shared_integers_; }
  int database_count() const { return static_cast<int>(databases_.size()); }
  KeyTable& db(int index) { return databases_[static_cast<size_t>(index)]; }
  const KeyTable& db(int index) const { return databases_[static_cast<size_t>(index)]; }

  // The key's value at `now_ms`, or nullptr; an expired key is removed (lazy expiry).
  Value* Lookup(int db_index, std::string_view key, int64_t now_ms);
  // Keys of a database live at `now_ms`.
  int64_t LiveKeys(int db_index, int64_t now_ms) const;
  // Removes the keys of a database expired at `expired_at_ms` for which `reclaimed(key)` holds:
  // the driver's view of which expired keys the engine has reclaimed on its own (a SCAN page,
  // RANDOMKEY's draws, active expiry), which the model cannot predict.
  template <typename Reclaimed>
  void ForgetExpired(int db_index, int64_t expired_at_ms, Reclaimed reclaimed) {
    KeyTable& table = db(db_index);
    for (auto it = table.begin(); it != table.end();) {
      const bool gone = IsExpired(it->second, expired_at_ms) && reclaimed(it->first);
      if (!gone) {
        ++it;
        continue;
      }
      const std::string key = it->first;
      it = table.erase(it);
      TouchKey(db_index, key, expired_at_ms);  // the engine's expiry touched it as it went
    }
  }
  void SwapDatabases(int first, int second);

  static bool IsExpired(const Value& value, int64_t now_ms) {
    return value.expire_at_ms != kNoExpiry && value.expire_at_ms < now_ms;
  }

 private:
  void Add(std::span<const Command> commands);
  bool IsContainer(std::string_view lower_name) const;
  Expected Reject(std::span<const std::string> args, const Command* command) const;
  // EXEC refused before it ran: the transaction ends with EXECABORT and `reason`.
  Expected AbortExec(Session& session, std::string_view reason);
  // Runs an accepted command (at top level or inside EXEC) and breaks the watches of the keys it
  // changed.
  Expected Run(Session& session, const Command& command, std::span<const std::string> args,
               const Context& context);
  Expected Queue(Session& session, const Command& command, std::span<const std::string> args,
                 const Context& context);
  Expected Exec(Session& session, const Context& context);
  // SWAPDB's rules for the watchers of `db_index` (Redis's touchAllWatchedKeysInDb):
  // `emptied` held the keys before, `replaced_with` holds them now.
  void TouchAll(int db_index, const KeyTable& emptied, const KeyTable& replaced_with);

  std::vector<WatchedKey> watches_;                   // in WATCH order
  std::set<uint64_t> broken_;                         // clients whose watched keys changed
  std::vector<std::pair<int, std::string>> written_;  // MarkWritten during the running command
  bool swapped_ = false;  // the running command swapped databases (its touches are done)
  bool report_changes_ = false;
  std::vector<std::pair<int, std::string>> changed_keys_;  // see changed_keys()
  std::vector<std::pair<int, std::string>> unannounced_;   // MarkUnannounced, running command
  int64_t now_ms_ = 0;                                     // the running command's time

  std::vector<KeyTable> databases_;
  std::map<std::string, Command, std::less<>> commands_;
  std::map<std::string, Command, std::less<>> containers_;
  uint64_t maxmemory_bytes_ = 0;
  bool shared_integers_ = true;
};

// The families (one file each).
std::span<const Command> StringCommands();      // model_strings.cc
std::span<const Command> CounterCommands();     // model_counters.cc
std::span<const Command> LcsCommands();         // model_lcs.cc
std::span<const Command> KeyCommands();         // model_keys.cc
std::span<const Command> ExpireCommands();      // model_expire.cc
std::span<const Command> ScanCommands();        // model_scan.cc
std::span<const Command> ObjectCommands();      // model_object.cc
std::span<const Command> ConnectionCommands();  // model_connection.cc
std::span<const Command> MultiCommands();       // model_multi.cc
std::span<const Command> ListCommands();        // model_list.cc
std::span<const Command> SetCommands();         // model_set.cc
std::span<const Command> HashCommands();        // model_hash.cc
std::span<const Command> ZsetCommands();        // model_zset.cc
std::span<const Command> GeoCommands();         // model_geo.cc
std::span<const Command> BitCommands();         // model_bits.cc
std::span<const Command> HllCommands();         // model_hll.cc
std::span<const Command> SortCommands();        // model_sort.cc
std::span<const Command> StreamCommands();      // model_stream.cc

// Helpers shared by families, written from Redis's rules (not the engine's code).
// A live value that is not a string: string commands that read it answer WRONGTYPE.
inline bool IsOtherType(const Value* value) {
  return value != nullptr && value->type != ValueType::kString;
}
// TYPE's name for a value type ("string", "set", ...).
std::string_view TypeName(ValueType type);
// Redis's string2ll: optional '-', no leading zeros or spaces, within int64.
bool ParseInt64(std::string_view text, int64_t* value);
// Redis's string2ld (INCRBYFLOAT, the blocking commands' timeouts): the whole text a number for
// strtold, no leading space or NUL byte, neither NaN nor an overflow (model_counters.cc).
bool ParseLongDouble(const std::string& text, long double* value);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// A blocking command's timeout as Redis's getTimeoutFromObjectOrReply takes it, in seconds;
// false with the error in `*error` (model_list.cc).
bool ParseBlockTimeout(const std::string& text, Expected* error);
// An option word as Redis compares it (strcasecmp): the argument up to its first NUL byte.
bool OptionIs(std::string_view arg, std::string_view option);
std::string WrongArity(std::string_view full_name);
// Redis's stringmatchlen (glob-style, case-sensitive): '*', '?', '[...]' with '^' and ranges,
// and '\' escapes. Note that "*" does not match the empty string (KEYS and SCAN special-case it).
bool GlobMatch(std::string_view pattern, std::string_view text);
// A SCAN-family cursor as Redis's parseScanCursorOrReply takes it (model_scan.cc): strtoul over
// the argument as a C string, so "" is 0 and a sign is allowed; leading space, trailing bytes or
// overflow are refused. Any cursor that parses is valid: where it resumes is the engine's business.
bool ValidCursor(const std::string& text);
// A database index argument (SELECT, MOVE, COPY ... DB): false with the error Redis replies.
bool ParseDbIndex(const Call& call, std::string_view text, int* index, Expected* error);

inline constexpr std::string_view kSyntaxError = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kOomError =
    "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kDbIndexOutOfRange = "ERR DB index is out of range";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kExecAbortError =
    "EXECABORT Transaction discarded because of previous errors.";

}  // namespace keel::model
