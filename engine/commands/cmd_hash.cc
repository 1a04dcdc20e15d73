// Hash commands: HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HLEN, HSTRLEN, HEXISTS, HKEYS, HVALS,
// HGETALL, HINCRBY and HINCRBYFLOAT. HRANDFIELD and HSCAN are in cmd_hash_random.cc. The
// structure is engine/db/types/hash.h.
//
// Writes follow Redis 7.0's t_hash.c: a listpack converts to a hashtable before a write when an
// argument is longer than hash-max-listpack-value (hashTypeTryConversion) and after an insert
// that takes it past hash-max-listpack-entries (hashTypeSet); the dirty counter grows by the
// pairs written (HSET counts updates too) or fields deleted; events are "hset", "hdel",
// "hincrby", "hincrbyfloat" (class h), and a hash emptied by HDEL is deleted ("del"). A refused
// allocation fails the command with the OOM error and leaves every key as it was, encoding
// included.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/cmd_hash_common.h"

namespace keel {
namespace {

constexpr std::string_view kNotFloat = "ERR value is not a valid float";

// The pairs args[first], args[first + 1], ... of a command (field, value, field, value...).
struct PairArgs {
  const CommandContext& context;
  size_t first;
  size_t count() const { return (context.argc() - first) / 2; }
  std::string_view field(size_t i) const { return context.arg(first + 2 * i); }
  std::string_view value(size_t i) const { return context.arg(first + 2 * i + 1); }
};

// hashTypeTryConversion's first test: an argument too long for a listpack.
bool AnyTooLong(const PairArgs& pairs, size_t value_max) {
  for (size_t i = 0; i < pairs.count(); i++) {
    if (pairs.field(i).size() > value_max || pairs.value(i).size() > value_max) return true;
  }
  return false;
}

// hashTypeSet on a hash whose encoding may change: a long pair converts a listpack first, an
// insert past the entry limit converts it after. On kOutOfMemory the fields are unchanged (the
// encoding may have changed: callers that must keep it write to a copy).
HashValue::SetOutcome SetConverting(HashValue& hash, std::string_view field, std::string_view value,
                                    const HashLimits& limits, MemoryAccountant& memory) {
  if (hash.is_listpack() &&
      (field.size() > limits.listpack_value || value.size() > limits.listpack_value) &&
      !hash.ConvertToHashtable(hash.size(), memory)) {
    return HashValue::SetOutcome::kOutOfMemory;
  }
  const HashValue::SetOutcome outcome = hash.Set(field, value, memory);
  if (outcome == HashValue::SetOutcome::kInserted && hash.is_listpack() &&
      hash.size() > limits.listpack_entries && !hash.ConvertToHashtable(hash.size(), memory)) {
    hash.Remove(field, memory);
    return HashValue::SetOutcome::kOutOfMemory;
  }
  return outcome;
}

// Several pairs into a hashtable, in place: room for all of them (and for putting back every
// value they replace) is reserved first, so that an undo never allocates.
bool WriteToTable(HashValue& hash, const PairArgs& pairs, MemoryAccountant& memory,
                  size_t* created) {
  size_t bytes = 0;
  for (size_t i = 0; i < pairs.count(); i++) {
    bytes += HashValue::RecordBytes(pairs.field(i), pairs.value(i));
    std::string_view old;
    if (hash.Get(pairs.field(i), &old)) bytes += HashValue::RecordBytes(pairs.field(i), old);
  }
  if (!hash.Reserve(pairs.count(), bytes, memory)) return false;
  // What each pair did: inserted (nullopt) or replaced a value (kept to put back).
  std::vector<std::optional<std::string>> undo;
  undo.reserve(pairs.count());
  for (size_t i = 0; i < pairs.count(); i++) {
    std::string_view old;
    std::optional<std::string> previous;
    if (hash.Get(pairs.field(i), &old)) previous.emplace(old);
    const HashValue::SetOutcome outcome = hash.Set(pairs.field(i), pairs.value(i), memory);
    if (outcome != HashValue::SetOutcome::kOutOfMemory) {
      undo.push_back(std::move(previous));
      continue;
    }
    // Replaced values go back first (into the reserved room), then the inserts come out.
    for (size_t j = undo.size(); j-- > 0;) {
      if (undo[j].has_value()) (void)hash.Set(pairs.field(j), *undo[j], memory);
    }
    for (size_t j = undo.size(); j-- > 0;) {
      if (!undo[j].has_value()) hash.Remove(pairs.field(j), memory);
    }
    return false;
  }
  for (const auto& previous : undo) *created += previous.has_value() ? 0 : 1;
  return true;
}

// Writes every pair to *hash, all or nothing, counting the fields created. A listpack that may
// convert, or takes several pairs, is written as a copy that replaces it on success (a listpack
// is small); `fresh` (a hash made for this command) is written in place.
bool WritePairs(CommandContext& context, HashValue** hash, const PairArgs& pairs, bool fresh,
                size_t* created) {
  MemoryAccountant& memory = context.memory();
  const HashLimits limits = HashLimitsOf(context);
  *created = 0;
  const bool listpack_copy = !fresh && (*hash)->is_listpack() &&
                             (pairs.count() > 1 || AnyTooLong(pairs, limits.listpack_value));
  if (!(*hash)->is_listpack() && pairs.count() > 1) {
    return WriteToTable(**hash, pairs, memory, created);
  }
  HashValue* target = listpack_copy ? HashValue::Clone(**hash, memory) : *hash;
  if (target == nullptr) return false;
  for (size_t i = 0; i < pairs.count(); i++) {
    switch (SetConverting(*target, pairs.field(i), pairs.value(i), limits, memory)) {
      case HashValue::SetOutcome::kInserted:
        (*created)++;
        break;
      case HashValue::SetOutcome::kUpdated:
        break;
      case HashValue::SetOutcome::kOutOfMemory:
        // Only a copy or a fresh hash takes several pairs: either is thrown away whole.
        KEEL_ASSERT(listpack_copy || fresh || pairs.count() == 1);
        if (listpack_copy) HashValue::Destroy(target, memory);
        return false;
    }
  }
  if (listpack_copy) {
    HashValue::Destroy(*hash, memory);
    *hash = target;
  }
  return true;
}

// Redis's hashTypeLookupWriteOrCreate, then the pairs written: a missing key is created with
// them (announced as `event` with `changes` dirty), an existing one changed in place. False
// after replying (WRONGTYPE or OOM).
bool WriteHash(CommandContext& context, const PairArgs& pairs, KeyEvent event, uint64_t changes,
               size_t* created, bool keep_ttl = false) {
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t key_hash = context.keyspace.Hash(db, key);
  MemoryAccountant& memory = context.memory();
  Entry* entry = context.keyspace.LookupWrite(db, key, key_hash);
  if (entry != nullptr && entry->type() != ValueType::kHash) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  if (entry == nullptr) {
    HashValue* hash = HashValue::Create(memory, NewHashSeed(context));
    if (hash == nullptr || !WritePairs(context, &hash, pairs, true, created) ||
        context.keyspace.SetObject(db, key, key_hash, ValueType::kHash, HashEncodingOf(*hash), hash,
                                   kNoExpiry, event,
                                   changes) == Database::SetOutcome::kOutOfMemory) {
      HashValue::Destroy(hash, memory);
      context.reply.Error(errors::kOom);
      return false;
    }
    return true;
  }
  HashValue* hash = &MutableHashOf(*entry);
  if (!WritePairs(context, &hash, pairs, false, created)) {
    context.reply.Error(errors::kOom);
    return false;
  }
  // HSET gives a field a value without a TTL (removing one never allocates).
  if (!keep_ttl && hash->has_field_ttls()) {
    for (size_t i = 0; i < pairs.count(); i++) hash->PersistField(pairs.field(i), memory);
  }
  SetEntryObject(*entry, hash);
  entry->set_encoding(HashEncodingOf(*hash));
  context.keyspace.KeyChanged(db, key, event, changes);
  return true;
}

}  // namespace

bool WriteHashPairs(CommandContext& context, size_t first, KeyEvent event, uint64_t changes,
                    bool keep_ttl, size_t* created) {
  return WriteHash(context, PairArgs{context, first}, event, changes, created, keep_ttl);
}

namespace {

// HSET key field value [field value ...] and HMSET (the same, replying OK).
void CmdHset(CommandContext& context) {
  if (context.argc() % 2 == 1) {
    std::string name(context.arg(0));
    for (char& c : name) c = AsciiToLower(c);
    context.reply.Error("ERR wrong number of arguments for '" + name + "' command");
    return;
  }
  ReclaimExpiredFields(context, context.arg(1));
  const PairArgs pairs{context, 2};
  size_t created = 0;
  if (!WriteHash(context, pairs, hash_events::kHset, pairs.count(), &created)) return;
  if (AsciiToLower(context.arg(0)[1]) == 's') {
    context.reply.Integer(static_cast<int64_t>(created));
  } else {
    context.reply.Ok();
  }
}

// HSETNX key field value: an existing field answers 0 and changes nothing (a missing key is
// still created by Redis's lookup only when the field is written, so nothing is left behind).
void CmdHsetnx(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const Entry* entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1));
  if (entry != nullptr && entry->type() != ValueType::kHash) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  if (entry != nullptr && HashOf(*entry).Contains(context.arg(2))) {
    context.reply.Integer(0);
    return;
  }
  size_t created = 0;
  if (!WriteHash(context, PairArgs{context, 2}, hash_events::kHset, 1, &created)) return;
  context.reply.Integer(1);
}

void CmdHget(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  std::string_view value;
  if (hash == nullptr || !hash->Get(context.arg(2), &value)) {
    context.reply.NullBulk();
    return;
  }
  context.reply.Bulk(value);
}

// HMGET: a missing key is an empty hash (nulls), not an empty reply.
void CmdHmget(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  context.reply.ArrayHeader(context.argc() - 2);
  for (size_t i = 2; i < context.argc(); i++) {
    std::string_view value;
    if (hash != nullptr && hash->Get(context.arg(i), &value)) {
      context.reply.Bulk(value);
    } else {
      context.reply.NullBulk();
    }
  }
}

// HDEL key field [field ...]: stops at the field that empties the hash, as Redis does.
void CmdHdel(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t key_hash = context.keyspace.Hash(db, key);
  Entry* entry = context.keyspace.LookupWrite(db, key, key_hash);
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  if (entry->type() != ValueType::kHash) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  HashValue& hash = MutableHashOf(*entry);
  size_t deleted = 0;
  for (size_t i = 2; i < context.argc() && hash.size() > 0; i++) {
    if (hash.Remove(context.arg(i), context.memory())) deleted++;
  }
  if (deleted > 0) {
    context.keyspace.KeyChanged(db, key, hash_events::kHdel, deleted);
    if (hash.size() == 0) context.keyspace.DeleteEmptied(db, key, key_hash);
  }
  context.reply.Integer(static_cast<int64_t>(deleted));
}

void CmdHlen(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  context.reply.Integer(hash == nullptr ? 0 : static_cast<int64_t>(hash->size()));
}

void CmdHstrlen(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  std::string_view value;
  const bool found = hash != nullptr && hash->Get(context.arg(2), &value);
  context.reply.Integer(found ? static_cast<int64_t>(value.size()) : 0);
}

void CmdHexists(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  context.reply.Integer(hash != nullptr && hash->Contains(context.arg(2)) ? 1 : 0);
}

// HKEYS, HVALS and HGETALL (genericHgetallCommand): a map for HGETALL in RESP3, flat arrays
// otherwise; a missing key is an empty map or array.
enum class Parts : uint8_t { kFields, kValues, kBoth };

void ReplyAll(CommandContext& context, Parts parts) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  const size_t size = hash == nullptr ? 0 : hash->size();
  if (parts == Parts::kBoth) {
    context.reply.MapHeader(size);
  } else {
    context.reply.ArrayHeader(size);
  }
  if (hash == nullptr) return;
  hash->ForEach([&](std::string_view field, std::string_view value) {
    if (parts != Parts::kValues) context.reply.Bulk(field);
    if (parts != Parts::kFields) context.reply.Bulk(value);
  });
}

void CmdHkeys(CommandContext& context) { ReplyAll(context, Parts::kFields); }
void CmdHvals(CommandContext& context) { ReplyAll(context, Parts::kValues); }
void CmdHgetall(CommandContext& context) { ReplyAll(context, Parts::kBoth); }

// The current value of args[2] for HINCRBY/HINCRBYFLOAT, after the WRONGTYPE check: false after
// replying. *entry is null for a missing key; *value is empty when the field is missing.
bool LookupCounterField(CommandContext& context, const Entry** entry,
                        std::optional<std::string_view>* value) {
  *entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1));
  if (*entry != nullptr && (*entry)->type() != ValueType::kHash) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  std::string_view found;
  if (*entry != nullptr && HashOf(**entry).Get(context.arg(2), &found)) *value = found;
  return true;
}

// Writes args[2] = `text` for a counter; false after replying OOM.
bool StoreCounterField(CommandContext& context, std::string_view text, KeyEvent event) {
  const std::string_view field = context.arg(2);
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t key_hash = context.keyspace.Hash(db, key);
  MemoryAccountant& memory = context.memory();
  const HashLimits limits = HashLimitsOf(context);
  Entry* entry = context.keyspace.LookupWrite(db, key, key_hash);
  if (entry == nullptr) {
    HashValue* hash = HashValue::Create(memory, NewHashSeed(context));
    if (hash == nullptr ||
        SetConverting(*hash, field, text, limits, memory) == HashValue::SetOutcome::kOutOfMemory ||
        context.keyspace.SetObject(db, key, key_hash, ValueType::kHash, HashEncodingOf(*hash), hash,
                                   kNoExpiry, event, 1) == Database::SetOutcome::kOutOfMemory) {
      HashValue::Destroy(hash, memory);
      context.reply.Error(errors::kOom);
      return false;
    }
    return true;
  }
  HashValue* hash = &MutableHashOf(*entry);
  // A conversion before the write (a long field) is made on a copy, so a refusal keeps it.
  const bool converts = hash->is_listpack() && (field.size() > limits.listpack_value ||
                                                text.size() > limits.listpack_value);
  HashValue* target = converts ? HashValue::Clone(*hash, memory) : hash;
  if (target == nullptr ||
      SetConverting(*target, field, text, limits, memory) == HashValue::SetOutcome::kOutOfMemory) {
    if (converts) HashValue::Destroy(target, memory);
    context.reply.Error(errors::kOom);
    return false;
  }
  if (converts) {
    HashValue::Destroy(hash, memory);
    SetEntryObject(*entry, target);
  }
  entry->set_encoding(HashEncodingOf(*target));
  context.keyspace.KeyChanged(db, key, event, 1);
  return true;
}

// HINCRBY key field increment
void CmdHincrby(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  int64_t increment = 0;
  if (!ParseStrictInt64(context.arg(3), &increment)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  const Entry* entry = nullptr;
  std::optional<std::string_view> current;
  if (!LookupCounterField(context, &entry, &current)) return;
  int64_t value = 0;
  if (current.has_value() && !ParseStrictInt64(*current, &value)) {
    context.reply.Error("ERR hash value is not an integer");
    return;
  }
  if ((increment < 0 && value < 0 && increment < INT64_MIN - value) ||
      (increment > 0 && value > 0 && increment > INT64_MAX - value)) {
    context.reply.Error("ERR increment or decrement would overflow");
    return;
  }
  value += increment;
  char text[kInt64TextMax];
  const std::string_view result(text, FormatInt64(value, text));
  if (!StoreCounterField(context, result, hash_events::kHincrby)) return;
  context.reply.Integer(value);
}

// HINCRBYFLOAT key field increment, in long double as Redis computes it; propagated as HSET of
// the value it produced, so that a replica's floating point cannot differ.
void CmdHincrbyfloat(CommandContext& context) {
  ReclaimExpiredFields(context, context.arg(1));
  long double increment = 0;
  if (!ParseLongDouble(context.arg(3), &increment)) {
    context.reply.Error(kNotFloat);
    return;
  }
  if (std::isnan(increment) || std::isinf(increment)) {
    context.reply.Error("ERR value is NaN or Infinity");
    return;
  }
  const Entry* entry = nullptr;
  std::optional<std::string_view> current;
  if (!LookupCounterField(context, &entry, &current)) return;
  long double value = 0;
  if (current.has_value() && !ParseLongDouble(*current, &value)) {
    context.reply.Error("ERR hash value is not a float");
    return;
  }
  value += increment;
  if (std::isnan(value) || std::isinf(value)) {
    context.reply.Error("ERR increment would produce NaN or Infinity");
    return;
  }
  char text[kLongDoubleTextMax];
  const std::string_view result(text, FormatLongDoubleHuman(value, text));
  if (!StoreCounterField(context, result, hash_events::kHincrbyfloat)) return;
  // A field with a TTL keeps it: replayed as HSETEX ... KEEPTTL (Redis 8.0 always does so;
  // Redis 7.0's HSET is kept for the fields that have none).
  const Entry* written =
      context.keyspace.Peek(context.db_index(), context.arg(1),
                            context.keyspace.Hash(context.db_index(), context.arg(1)));
  if (written != nullptr &&
      HashOf(*written).FieldExpireAt(context.arg(2)) != HashValue::kNoFieldTtl) {
    context.PropagateAs(
        {"HSETEX", context.arg(1), "KEEPTTL", "FIELDS", "1", context.arg(2), result});
  } else {
    context.PropagateAs({"HSET", context.arg(1), context.arg(2), result});
  }
  context.reply.Bulk(result);
}

constexpr std::string_view kPairsArgs = "key:key#0 *field_value:block{field:string value:string}";

constexpr CommandDef kHashCommands[] = {
    {.name = "hset",
     .arity = -4,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when "
                   "the command is called with multiple field/value pairs.",
     .summary = "Set the string value of a hash field",
     .args = kPairsArgs,
     .handler = CmdHset,
     .history = "4.0.0 Accepts multiple `field` and `value` arguments."},
    {.name = "hsetnx",
     .arity = 4,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW insert: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Set the value of a hash field, only if the field does not exist",
     .args = "key:key#0 field value",
     .handler = CmdHsetnx},
    {.name = "hget",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Get the value of a hash field",
     .args = "key:key#0 field",
     .handler = CmdHget},
    {.name = "hmset",
     .arity = -4,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(N) where N is the number of fields being set.",
     .summary = "Set multiple hash fields to multiple values",
     .args = kPairsArgs,
     .handler = CmdHset,
     .doc_flags = "deprecated",
     .deprecated_since = "4.0.0",
     .replaced_by = "`HSET` with multiple field-value pairs"},
    {.name = "hmget",
     .arity = -3,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(N) where N is the number of fields being requested.",
     .summary = "Get the values of all the given hash fields",
     .args = "key:key#0 *field",
     .handler = CmdHmget},
    {.name = "hdel",
     .arity = -3,
     .flags = "write fast",
     .acl = "@hash",
     .keys = "RW delete: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(N) where N is the number of fields to be removed.",
     .summary = "Delete one or more hash fields",
     .args = "key:key#0 *field",
     .handler = CmdHdel,
     .history = "2.4.0 Accepts multiple `field` arguments."},
    {.name = "hlen",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Get the number of fields in a hash",
     .args = "key:key#0",
     .handler = CmdHlen},
    {.name = "hstrlen",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO: index 1 range 0 1 0",
     .group = "hash",
     .since = "3.2.0",
     .complexity = "O(1)",
     .summary = "Get the length of the value of a hash field",
     .args = "key:key#0 field",
     .handler = CmdHstrlen},
    {.name = "hexists",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Determine if a hash field exists",
     .args = "key:key#0 field",
     .handler = CmdHexists},
    {.name = "hkeys",
     .arity = 2,
     .flags = "readonly",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(N) where N is the size of the hash.",
     .summary = "Get all the fields in a hash",
     .args = "key:key#0",
     .handler = CmdHkeys,
     .tips = "nondeterministic_output_order"},
    {.name = "hvals",
     .arity = 2,
     .flags = "readonly",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(N) where N is the size of the hash.",
     .summary = "Get all the values in a hash",
     .args = "key:key#0",
     .handler = CmdHvals,
     .tips = "nondeterministic_output_order"},
    {.name = "hgetall",
     .arity = 2,
     .flags = "readonly",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(N) where N is the size of the hash.",
     .summary = "Get all the fields and values in a hash",
     .args = "key:key#0",
     .handler = CmdHgetall,
     .tips = "nondeterministic_output_order"},
    {.name = "hincrby",
     .arity = 4,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Increment the integer value of a hash field by the given number",
     .args = "key:key#0 field increment:integer",
     .handler = CmdHincrby},
    {.name = "hincrbyfloat",
     .arity = 4,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "hash",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Increment the float value of a hash field by the given amount",
     .args = "key:key#0 field increment:double",
     .handler = CmdHincrbyfloat},
};

}  // namespace

void RegisterHashCommands(Registry& registry) {
  registry.Add(kHashCommands);
  RegisterHashRandomCommands(registry);
  RegisterHashTtlCommands(registry);
}

}  // namespace keel
