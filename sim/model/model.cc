#include "sim/model/model.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "engine/base/assert.h"
#include "engine/registry/command_spec.h"
#include "engine/registry/registry.h"

namespace keel::model {
namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string Upper(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

bool ArityAccepts(int arity, size_t argc) {
  const auto count = static_cast<int64_t>(argc);
  return arity >= 0 ? count == arity : count >= -arity;
}

}  // namespace

std::string_view TypeName(ValueType type) {
  switch (type) {
    case ValueType::kString:
      return "string";
    case ValueType::kList:
      return "list";
    case ValueType::kSet:
      return "set";
    case ValueType::kZSet:
      return "zset";
    case ValueType::kHash:
      return "hash";
    case ValueType::kStream:
      return "stream";
  }
  return "none";
}

KeyTable& Call::db() { return model.db(session.db); }

Value* Call::Lookup(std::string_view key) { return model.Lookup(session.db, key, now_ms()); }

void Call::Store(const std::string& key, Value value) {
  db()[key] = std::move(value);
  if (model.watching()) model.MarkWritten(session.db, key);
}

void Call::Replace(const std::string& key, Value value) { db()[key] = std::move(value); }

bool Call::shared_integers() const { return model.shared_integers(); }

Model::Model(int databases) : databases_(static_cast<size_t>(databases)) {
  Add(StringCommands());
  Add(CounterCommands());
  Add(LcsCommands());
  Add(KeyCommands());
  Add(ExpireCommands());
  Add(ScanCommands());
  Add(ObjectCommands());
  Add(ConnectionCommands());
  Add(MultiCommands());
  Add(ListCommands());
  Add(SetCommands());
  Add(HashCommands());
  Add(ZsetCommands());
  Add(GeoCommands());
  Add(BitCommands());
  Add(HllCommands());
  Add(SortCommands());
  Add(StreamCommands());
}

void Model::SwapDatabases(int first, int second) {
  if (first == second) return;
  std::swap(databases_[static_cast<size_t>(first)], databases_[static_cast<size_t>(second)]);
  // Each index's watchers compare what it held (now under the other index) with what it holds.
  TouchAll(first, db(second), db(first));
  TouchAll(second, db(first), db(second));
  swapped_ = true;
}

void Model::Add(std::span<const Command> commands) {
  const Registry& registry = Registry::Builtin();
  for (Command command : commands) {
    const CommandSpec* spec = registry.FindByFullName(command.name);
    // A model of a command the engine does not define is a mistake in the model's table.
    KEEL_ASSERT(spec != nullptr && !spec->is_container());
    command.arity = spec->arity;
    if (spec->flags & kCmdWrite) command.flags |= kWrite;
    if (spec->flags & kCmdDenyOom) command.flags |= kDenyOom;
    commands_.emplace(std::string(command.name), command);
    if (spec->parent != nullptr && !containers_.contains(spec->parent->name)) {
      // The container itself: the model replies its arity error when no subcommand is given.
      containers_.emplace(spec->parent->name, Command{.name = spec->parent->name,
                                                      .flags = 0,
                                                      .run = nullptr,
                                                      .arity = spec->parent->arity});
    }
  }
}

bool Model::IsContainer(std::string_view lower_name) const {
  return containers_.contains(lower_name);
}

const Command* Model::Find(std::span<const std::string> args) const {
  if (args.empty()) return nullptr;
  std::string name = Lower(args[0]);
  if (auto container = containers_.find(name); container != containers_.end()) {
    if (args.size() < 2) return &container->second;
    name += "|" + Lower(args[1]);
  }
  auto it = commands_.find(name);
  return it == commands_.end() ? nullptr : &it->second;
}

// Redis's rejections before a command runs, in its order: unknown command or subcommand, arity.
Expected Model::Reject(std::span<const std::string> args, const Command* command) const {
  if (command == nullptr && IsContainer(Lower(args[0]))) {
    return Error("ERR unknown subcommand '" + args[1] + "'. Try " + Upper(args[0]) + " HELP.");
  }
  if (command == nullptr) {
    // Redis quotes the arguments until 128 bytes of quoting are reached, each cut to what is left.
    std::string quoted;
    for (size_t i = 1; i < args.size() && quoted.size() < 128; i++) {
      quoted += "'" + args[i].substr(0, 128 - quoted.size()) + "' ";
    }
    return Error("ERR unknown command '" + args[0].substr(0, 128) +
                 "', with args beginning with: " + quoted);
  }
  return Error(WrongArity(command->name));
}

Expected Model::Execute(Session& session, std::span<const std::string> args,
                        const Context& context) {
  changed_keys_.clear();
  const Command* command = Find(args);
  const bool exec = command != nullptr && command->name == "exec";
  if (command == nullptr || command->run == nullptr || !ArityAccepts(command->arity, args.size())) {
    Expected refusal = Reject(args, command);
    if (exec) return AbortExec(session, refusal.value.text);
    // A refusal while queuing dooms the transaction (Redis's flagTransaction).
    if (session.multi) session.dirty_exec = true;
    return refusal;
  }
  const MultiRole role = RoleInMulti(command->name);
  // EXEC is denyoom when one of its commands is; inside MULTI queuing is refused too.
  const uint32_t flags = command->flags | (exec && session.multi ? session.queued_flags : 0);
  const bool deny = (flags & kDenyOom) ||
                    (session.multi && role != MultiRole::kExec && role != MultiRole::kOomExempt);
  if (maxmemory_bytes_ > 0 && deny && context.used_memory_bytes > maxmemory_bytes_) {
    if (exec) return AbortExec(session, kOomError);
    if (session.multi) session.dirty_exec = true;
    return Error(kOomError);
  }
  // Redis's writeCommandsDeniedByDiskError, next in its order: writes (EXEC when one of its
  // commands writes) and PING are refused; refusing one while queuing dooms the transaction.
  if (!context.disk_error.empty() && ((flags & kWrite) || command->name == "ping")) {
    if (exec) return AbortExec(session, context.disk_error);
    if (session.multi) session.dirty_exec = true;
    return Error(context.disk_error);
  }
  if (session.multi && role == MultiRole::kQueued) return Queue(session, *command, args, context);
  if (exec) return Exec(session, context);
  return Run(session, *command, args, context);
}

namespace {
// Whether two values hold the same contents, whatever their encodings: a conversion alone (SORT
// turning a sorted set's listpack into a skiplist) is not a change of the key, and Redis's
// zsetConvert breaks no WATCH. Writes that keep the value are in written_.
bool SameContent(const Value& before, const Value& after) {
  // A stream's consumer groups are not its content: Redis's group commands (XGROUP, XREADGROUP,
  // XACK, XCLAIM) signal no modified key, so they break no WATCH.
  if (before.type == ValueType::kStream && after.type == ValueType::kStream &&
      before.stream.groups != after.stream.groups) {
    Value a = before;
    Value b = after;
    a.stream.groups.clear();
    b.stream.groups.clear();
    return SameContent(a, b);
  }
  if (before.encoding == after.encoding) return before == after;
  Value recoded = after;
  recoded.encoding = before.encoding;
  return before == recoded;
}

// Whether two values hold the same data, whatever their encodings and sharing: what a keyspace
// event announces and WATCH sees. Redis announces no change of encoding alone (SETBIT of an
// unchanged bit of an int string) and signals no modified key for it.
bool SameData(const Value& before, const Value& after) {
  Value recoded = before;
  recoded.encoding = after.encoding;
  recoded.shared = after.shared;
  return SameContent(recoded, after);
}
}  // namespace

Expected Model::Run(Session& session, const Command& command, std::span<const std::string> args,
                    const Context& context) {
  // Which keys the command changed, for WATCH: every key whose value differs afterwards (lazy
  // expiry included), and those it wrote with the same value. Only while someone watches.
  std::vector<KeyTable> before;
  // Also while keyspace events are checked (report_changes_). A WATCH run now adds its first
  // watch after this test, and breaks nothing by itself.
  const bool tracking = !watches_.empty() || report_changes_;
  if (tracking) before = databases_;
  written_.clear();
  unannounced_.clear();
  swapped_ = false;
  now_ms_ = context.now_ms;
  Call call{*this, session, args, context};
  Expected expected = command.run(call);
  if (!tracking || swapped_) return expected;
  const bool touch = !watches_.empty();
  const bool notified = report_changes_ && command.name != "flushdb" &&
                        command.name != "flushall" && command.name != "pfcount" &&
                        command.name != "pfdebug";
  for (int i = 0; i < database_count(); i++) {
    const KeyTable& old_table = before[static_cast<size_t>(i)];
    const KeyTable& new_table = db(i);
    std::vector<std::string> changed;
    for (const auto& [key, value] : new_table) {
      auto old = old_table.find(key);
      if (old == old_table.end() || !SameContent(old->second, value)) changed.push_back(key);
    }
    for (const auto& [key, value] : old_table) {
      if (new_table.find(key) == new_table.end()) changed.push_back(key);
    }
    for (const std::string& key : changed) {
      auto old = old_table.find(key);
      auto now = new_table.find(key);
      // A change of encoding or sharing alone (a value made raw before an edit that changed no
      // byte) breaks no WATCH and is announced to no one; a write of the same data is in written_.
      const bool same_data =
          old != old_table.end() && now != new_table.end() && SameData(old->second, now->second);
      if (touch && !same_data) TouchKey(i, key, context.now_ms);
      if (!notified) continue;
      if (old != old_table.end() && IsExpired(old->second, context.now_ms)) continue;
      if (same_data) continue;
      if (std::find(unannounced_.begin(), unannounced_.end(), std::make_pair(i, key)) !=
          unannounced_.end()) {
        continue;
      }
      changed_keys_.emplace_back(i, key);
    }
  }
  if (!touch) return expected;
  for (const auto& [db_index, key] : written_) TouchKey(db_index, key, context.now_ms);
  written_.clear();
  return expected;
}

Value* Model::Lookup(int db_index, std::string_view key, int64_t now_ms) {
  KeyTable& table = db(db_index);
  auto it = table.find(key);
  if (it == table.end()) return nullptr;
  if (IsExpired(it->second, now_ms)) {
    table.erase(it);
    return nullptr;
  }
  return &it->second;
}

int64_t Model::LiveKeys(int db_index, int64_t now_ms) const {
  int64_t live = 0;
  for (const auto& [key, value] : db(db_index)) {
    if (!IsExpired(value, now_ms)) live++;
  }
  return live;
}

bool ParseInt64(std::string_view text, int64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  if (text == "0") {
    *value = 0;
    return true;
  }
  const bool negative = text[0] == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty() || text[0] < '1' || text[0] > '9') return false;
  __int128_t magnitude = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    magnitude = magnitude * 10 + (c - '0');
    if (magnitude > (static_cast<__int128_t>(INT64_MAX) + 1)) return false;
  }
  if (!negative && magnitude > INT64_MAX) return false;
  *value = static_cast<int64_t>(negative ? -magnitude : magnitude);
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && Lower(a) == Lower(b);
}

bool OptionIs(std::string_view arg, std::string_view option) {
  return EqualsIgnoreCase(arg.substr(0, arg.find('\0')), option);
}

bool ParseDbIndex(const Call& call, std::string_view text, int* index, Expected* error) {
  int64_t value = 0;
  if (!ParseInt64(text, &value)) {
    *error = Error(kNotInteger);
    return false;
  }
  if (value < INT_MIN || value > INT_MAX) {
    *error = Error("ERR value is out of range, value must between -2147483648 and 2147483647");
    return false;
  }
  if (value < 0 || value >= call.model.database_count()) {
    *error = Error(kDbIndexOutOfRange);
    return false;
  }
  *index = static_cast<int>(value);
  return true;
}

Value StoredString(std::string bytes, int64_t expire_at_ms, bool shared_integers) {
  Value value;
  int64_t number = 0;
  if (bytes.size() <= 20 && ParseInt64(bytes, &number)) {
    value.encoding = Encoding::kInt;
    value.shared = shared_integers && number >= 0 && number < 10000;
  } else {
    value.encoding = bytes.size() <= 44 ? Encoding::kEmbstr : Encoding::kRaw;
  }
  value.string = std::move(bytes);
  value.expire_at_ms = expire_at_ms;
  return value;
}

Value EditedString(std::string bytes, int64_t expire_at_ms) {
  Value value;
  value.string = std::move(bytes);
  value.expire_at_ms = expire_at_ms;
  value.encoding = Encoding::kRaw;
  return value;
}

std::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kInt:
      return "int";
    case Encoding::kEmbstr:
      return "embstr";
    case Encoding::kRaw:
      return "raw";
    case Encoding::kListpack:
      return "listpack";
    case Encoding::kQuicklist:
      return "quicklist";
    case Encoding::kIntset:
      return "intset";
    case Encoding::kHashtable:
      return "hashtable";
    case Encoding::kSkiplist:
      return "skiplist";
    case Encoding::kStream:
      return "stream";
  }
  return "?";
}

std::string WrongArity(std::string_view full_name) {
  return "ERR wrong number of arguments for '" + std::string(full_name) + "' command";
}

}  // namespace keel::model
