// Hash field expiry (Redis 7.4's HFE and Redis 8.0's additions): HEXPIRE, HPEXPIRE, HEXPIREAT,
// HPEXPIREAT, HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME, HPERSIST, HGETEX, HSETEX and HGETDEL.
// Redis 7.0, Keel's reference elsewhere, has none of them: replies, error texts, events and
// propagation follow Redis 8.0's t_hash.c and the command documentation.
//
// The TTLs live with the hash (HashValue's field TTL table, hash.h). Every hash command first
// reclaims the hash's expired fields (ReclaimExpiredFields: HDEL propagated per field,
// "hexpired", and "del" when the hash is left empty), so no command ever sees an expired field;
// the active expiry cycle visits hashes with TTLs too (Keyspace::ActiveExpireHashFields). Redis
// leaves an expired field in place for some reads (HLEN may count it until it is reclaimed);
// Keel reclaims it first, which is one of the outcomes Redis allows.
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/cmd_hash_common.h"

namespace keel {
namespace {

// Redis's HFE_MAX_ABS_TIME_MSEC: (2^48 - 1) >> 2.
constexpr int64_t kMaxFieldExpireMs = ((int64_t{1} << 48) - 1) >> 2;

constexpr std::string_view kFieldsMissing =
    "ERR Mandatory argument FIELDS is missing or not at the right position";
constexpr std::string_view kNumFieldsMismatch =
    "ERR The `numfields` parameter must match the number of arguments";
constexpr std::string_view kNumFieldsPositive = "ERR Number of fields must be a positive integer";

// The reply codes of the HEXPIRE family (Redis's SetExRes) and of HPERSIST and HTTL.
constexpr int64_t kNoField = -2;
constexpr int64_t kNoTtl = -1;
constexpr int64_t kConditionNotMet = 0;
constexpr int64_t kTtlSet = 1;
constexpr int64_t kDeletedPast = 2;

std::string LowerName(const CommandContext& context) {
  std::string name(context.arg(0));
  for (char& c : name) c = AsciiToLower(c);
  return name;
}

bool ArgIs(std::string_view arg, std::string_view word) {
  if (arg.size() != word.size()) return false;
  for (size_t i = 0; i < arg.size(); i++) {
    if (AsciiToLower(arg[i]) != AsciiToLower(word[i])) return false;
  }
  return true;
}

// Redis's parseExpireTime: args[index] in `seconds` or milliseconds, plus `basetime` (0 for an
// absolute time), as absolute milliseconds. False after replying.
bool ParseExpireTime(CommandContext& context, size_t index, bool seconds, int64_t basetime,
                     int64_t* expire_at_ms) {
  int64_t value = 0;
  if (!ParseStrictInt64(context.arg(index), &value)) {
    context.reply.Error(errors::kNotInteger);
    return false;
  }
  if (value < 0) {
    context.reply.Error("ERR invalid expire time, must be >= 0");
    return false;
  }
  const std::string invalid = "ERR invalid expire time in '" + LowerName(context) + "' command";
  if (seconds) {
    if (value > kMaxFieldExpireMs / 1000) {
      context.reply.Error(invalid);
      return false;
    }
    value *= 1000;
  } else if (value > kMaxFieldExpireMs) {
    context.reply.Error(invalid);
    return false;
  }
  if (value > kMaxFieldExpireMs - basetime) {
    context.reply.Error(invalid);
    return false;
  }
  *expire_at_ms = value + basetime;
  return true;
}

// "FIELDS numfields field..." with FIELDS at args[keyword] and the fields running to the end:
// the first field's index and their count in *first and *count. False after replying.
bool ParseFields(CommandContext& context, size_t keyword, std::string_view count_error,
                 size_t* first, size_t* count) {
  if (keyword + 1 >= context.argc()) {
    context.reply.Error("ERR wrong number of arguments for '" + LowerName(context) + "' command");
    return false;
  }
  if (!ArgIs(context.arg(keyword), "FIELDS")) {
    context.reply.Error(kFieldsMissing);
    return false;
  }
  int64_t fields = 0;
  if (!ParseStrictInt64(context.arg(keyword + 1), &fields) || fields < 1) {
    context.reply.Error(count_error);
    return false;
  }
  if (static_cast<uint64_t>(fields) != context.argc() - keyword - 2) {
    context.reply.Error(kNumFieldsMismatch);
    return false;
  }
  *first = keyword + 2;
  *count = static_cast<size_t>(fields);
  return true;
}

// A write lookup of args[1] as a hash, its expired fields reclaimed first: false after replying
// WRONGTYPE; *entry is null when missing.
bool LookupHashWrite(CommandContext& context, Entry** entry) {
  ReclaimExpiredFields(context, context.arg(1));
  *entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1));
  if (*entry != nullptr && (*entry)->type() != ValueType::kHash) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  return true;
}

// Lists the key for the active cycle once its hash has TTLs.
void NoteTtls(CommandContext& context, const HashValue& hash) {
  if (hash.has_field_ttls()) context.keyspace.NoteFieldExpiry(context.db_index(), context.arg(1));
}

// Deletes args[1] when its hash was emptied ("del").
void DeleteIfEmpty(CommandContext& context, const HashValue& hash) {
  if (hash.size() != 0) return;
  const std::string_view key = context.arg(1);
  context.keyspace.DeleteEmptied(context.db_index(), key,
                                 context.keyspace.Hash(context.db_index(), key));
}

void PropagateHdel(CommandContext& context, std::string_view field) {
  if (!context.keyspace.propagation().active()) return;
  context.keyspace.propagation().Add(context.db_index(), {"HDEL", context.arg(1), field});
}

enum class Condition : uint8_t { kNone, kNx, kXx, kGt, kLt };

// hashTypeSetEx for one field: the reply code. A time already past deletes the field (HDEL
// propagated here). No TTL counts as an infinite one for GT and LT. *oom on refused memory.
int64_t SetFieldExpiry(CommandContext& context, HashValue& hash, std::string_view field,
                       int64_t expire_at_ms, Condition condition, bool* oom) {
  if (!hash.Contains(field)) return kNoField;
  const int64_t previous = hash.FieldExpireAt(field);
  const bool has_ttl = previous != HashValue::kNoFieldTtl;
  switch (condition) {
    case Condition::kNone:
      break;
    case Condition::kNx:
      if (has_ttl) return kConditionNotMet;
      break;
    case Condition::kXx:
      if (!has_ttl) return kConditionNotMet;
      break;
    case Condition::kGt:
      if (!has_ttl || expire_at_ms <= previous) return kConditionNotMet;
      break;
    case Condition::kLt:
      if (has_ttl && expire_at_ms >= previous) return kConditionNotMet;
      break;
  }
  if (context.keyspace.ExpiryIsPast(expire_at_ms)) {
    PropagateHdel(context, field);
    hash.Remove(field, context.memory());
    // Redis's hashTypeSetEx counts a field a past time deletes as expired.
    context.keyspace.stats().expired_subkeys++;
    return kDeletedPast;
  }
  if (!hash.SetFieldExpireAt(field, expire_at_ms, context.memory())) {
    *oom = true;
    return kConditionNotMet;
  }
  return kTtlSet;
}

// HEXPIRE key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...], and HPEXPIRE,
// HEXPIREAT, HPEXPIREAT. Propagated as HPEXPIREAT with the absolute time and the fields whose
// TTL was set (none: not at all; a field deleted by a past time went as HDEL).
void ExpireGeneric(CommandContext& context, bool seconds, bool relative) {
  Entry* entry = nullptr;
  if (!LookupHashWrite(context, &entry)) return;
  int64_t expire_at_ms = 0;
  const int64_t basetime = relative ? context.keyspace.command_time_ms() : 0;
  if (!ParseExpireTime(context, 2, seconds, basetime, &expire_at_ms)) return;
  Condition condition = Condition::kNone;
  size_t keyword = 3;
  const std::string_view option = context.arg(3);
  if (ArgIs(option, "NX")) {
    condition = Condition::kNx;
  } else if (ArgIs(option, "XX")) {
    condition = Condition::kXx;
  } else if (ArgIs(option, "GT")) {
    condition = Condition::kGt;
  } else if (ArgIs(option, "LT")) {
    condition = Condition::kLt;
  }
  if (condition != Condition::kNone) keyword++;
  size_t first = 0;
  size_t count = 0;
  if (!ParseFields(context, keyword, "ERR Parameter `numFields` should be greater than 0", &first,
                   &count)) {
    return;
  }
  if (entry == nullptr) {
    context.reply.ArrayHeader(count);
    for (size_t i = 0; i < count; i++) context.reply.Integer(kNoField);
    return;
  }
  HashValue& hash = MutableHashOf(*entry);
  std::vector<int64_t> codes;
  codes.reserve(count);
  std::vector<std::string_view> set_fields;
  size_t updated = 0;
  size_t deleted = 0;
  bool oom = false;
  for (size_t i = 0; i < count && !oom; i++) {
    const std::string_view field = context.arg(first + i);
    const int64_t code = SetFieldExpiry(context, hash, field, expire_at_ms, condition, &oom);
    if (oom) break;
    codes.push_back(code);
    if (code == kTtlSet) {
      updated++;
      set_fields.push_back(field);
    }
    if (code == kDeletedPast) deleted++;
  }
  if (oom && updated + deleted == 0) {
    context.reply.Error(errors::kOom);
    return;
  }
  // A refusal part way keeps what was done and answers for it (the rest did not happen).
  context.reply.ArrayHeader(count);
  for (size_t i = 0; i < count; i++) {
    context.reply.Integer(i < codes.size() ? codes[i] : kConditionNotMet);
  }
  NoteTtls(context, hash);
  const std::string_view key = context.arg(1);
  if (updated + deleted > 0) {
    context.keyspace.KeyChanged(context.db_index(), key,
                                deleted > 0 ? hash_events::kHdel : hash_events::kHexpire,
                                updated + deleted);
  }
  DeleteIfEmpty(context, hash);
  if (updated == 0) {
    context.PreventPropagation();
    return;
  }
  const std::string when = std::to_string(expire_at_ms);
  const std::string fields = std::to_string(updated);
  std::vector<std::string_view> args = {"HPEXPIREAT", key, when};
  if (condition != Condition::kNone) args.push_back(context.arg(3));
  args.push_back("FIELDS");
  args.push_back(fields);
  args.insert(args.end(), set_fields.begin(), set_fields.end());
  context.PropagateAs(args);
}

void CmdHexpire(CommandContext& context) { ExpireGeneric(context, true, true); }
void CmdHpexpire(CommandContext& context) { ExpireGeneric(context, false, true); }
void CmdHexpireat(CommandContext& context) { ExpireGeneric(context, true, false); }
void CmdHpexpireat(CommandContext& context) { ExpireGeneric(context, false, false); }

// HTTL key FIELDS numfields field [field ...], and HPTTL, HEXPIRETIME, HPEXPIRETIME: per field
// -2 (no such field), -1 (no TTL), or the time left (seconds rounded up) or the expiry.
void TtlGeneric(CommandContext& context, bool seconds, bool relative) {
  ReclaimExpiredFields(context, context.arg(1));
  const HashValue* hash = nullptr;
  if (!LookupHash(context, context.arg(1), &hash)) return;
  size_t first = 0;
  size_t count = 0;
  if (!ParseFields(context, 2, kNumFieldsPositive, &first, &count)) return;
  const int64_t basetime = relative ? context.keyspace.command_time_ms() : 0;
  context.reply.ArrayHeader(count);
  for (size_t i = 0; i < count; i++) {
    const std::string_view field = context.arg(first + i);
    if (hash == nullptr || !hash->Contains(field)) {
      context.reply.Integer(kNoField);
      continue;
    }
    const int64_t when = hash->FieldExpireAt(field);
    if (when == HashValue::kNoFieldTtl) {
      context.reply.Integer(kNoTtl);
    } else if (seconds) {
      context.reply.Integer((when + 999 - basetime) / 1000);
    } else {
      context.reply.Integer(when - basetime);
    }
  }
}

void CmdHttl(CommandContext& context) { TtlGeneric(context, true, true); }
void CmdHpttl(CommandContext& context) { TtlGeneric(context, false, true); }
void CmdHexpiretime(CommandContext& context) { TtlGeneric(context, true, false); }
void CmdHpexpiretime(CommandContext& context) { TtlGeneric(context, false, false); }

// HPERSIST key FIELDS numfields field [field ...]: -2 no such field, -1 no TTL, 1 removed.
// One change however many fields it persisted ("hpersist"), propagated as it is.
void CmdHpersist(CommandContext& context) {
  Entry* entry = nullptr;
  if (!LookupHashWrite(context, &entry)) return;
  size_t first = 0;
  size_t count = 0;
  if (!ParseFields(context, 2, kNumFieldsPositive, &first, &count)) return;
  context.reply.ArrayHeader(count);
  bool changed = false;
  for (size_t i = 0; i < count; i++) {
    const std::string_view field = context.arg(first + i);
    if (entry == nullptr || !HashOf(*entry).Contains(field)) {
      context.reply.Integer(kNoField);
    } else if (MutableHashOf(*entry).PersistField(field, context.memory())) {
      context.reply.Integer(1);
      changed = true;
    } else {
      context.reply.Integer(kNoTtl);
    }
  }
  if (changed) {
    context.keyspace.KeyChanged(context.db_index(), context.arg(1), hash_events::kHpersist, 1);
  }
}

// HGETDEL key FIELDS numfields field [field ...]: the values (null for a missing field), the
// fields deleted ("hdel", one change each), propagated as HDEL key field...
void CmdHgetdel(CommandContext& context) {
  Entry* entry = nullptr;
  if (!LookupHashWrite(context, &entry)) return;
  size_t first = 0;
  size_t count = 0;
  if (!ParseFields(context, 2, kNumFieldsPositive, &first, &count)) return;
  context.reply.ArrayHeader(count);
  size_t deleted = 0;
  for (size_t i = 0; i < count; i++) {
    std::string_view value;
    if (entry == nullptr || !HashOf(*entry).Get(context.arg(first + i), &value)) {
      context.reply.NullBulk();
      continue;
    }
    context.reply.Bulk(value);
    MutableHashOf(*entry).Remove(context.arg(first + i), context.memory());
    deleted++;
  }
  if (deleted == 0) return;
  context.keyspace.KeyChanged(context.db_index(), context.arg(1), hash_events::kHdel, deleted);
  std::vector<std::string_view> args = {"HDEL", context.arg(1)};
  for (size_t i = 0; i < count; i++) args.push_back(context.arg(first + i));
  context.PropagateAs(args);
  DeleteIfEmpty(context, HashOf(*entry));
}

// HGETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT
// unix-time-milliseconds | PERSIST] FIELDS numfields field [field ...]: the values, and the
// fields' TTL set or removed. Propagated as HPEXPIREAT (absolute) or HPERSIST; a time already
// past deletes the fields (HDEL each, "hdel").
void CmdHgetex(CommandContext& context) {
  Entry* entry = nullptr;
  if (!LookupHashWrite(context, &entry)) return;
  enum class Mode : uint8_t { kNone, kExpire, kPersist } mode = Mode::kNone;
  size_t keyword = 2;
  int64_t expire_at_ms = 0;
  const std::string_view option = context.arg(2);
  const bool ex = ArgIs(option, "EX");
  const bool px = ArgIs(option, "PX");
  const bool exat = ArgIs(option, "EXAT");
  const bool pxat = ArgIs(option, "PXAT");
  if (ex || px || exat || pxat) {
    mode = Mode::kExpire;
    keyword = 4;
    const int64_t basetime = ex || px ? context.keyspace.command_time_ms() : 0;
    if (!ParseExpireTime(context, 3, ex || exat, basetime, &expire_at_ms)) return;
  } else if (ArgIs(option, "PERSIST")) {
    mode = Mode::kPersist;
    keyword = 3;
  }
  size_t first = 0;
  size_t count = 0;
  if (!ParseFields(context, keyword, kNumFieldsPositive, &first, &count)) return;
  if (entry == nullptr) {
    context.reply.ArrayHeader(count);
    for (size_t i = 0; i < count; i++) context.reply.NullBulk();
    return;
  }
  HashValue& hash = MutableHashOf(*entry);
  // Field by field, as Redis: the value is replied, then its TTL changes (a past time deletes
  // it, so the same field named again reads as missing).
  context.reply.ArrayHeader(count);
  size_t updated = 0;
  size_t deleted = 0;
  bool oom = false;
  for (size_t i = 0; i < count; i++) {
    const std::string_view field = context.arg(first + i);
    std::string_view value;
    if (!hash.Get(field, &value)) {
      context.reply.NullBulk();
      continue;
    }
    context.reply.Bulk(value);
    if (mode == Mode::kPersist) {
      if (hash.PersistField(field, context.memory())) updated++;
    } else if (mode == Mode::kExpire && !oom) {
      // After a refused allocation the rest keep their TTL (their values are still replied).
      const int64_t code =
          SetFieldExpiry(context, hash, field, expire_at_ms, Condition::kNone, &oom);
      if (code == kTtlSet && !oom) updated++;
      if (code == kDeletedPast) deleted++;
    }
  }
  if (mode == Mode::kNone) return;
  NoteTtls(context, hash);
  const std::string_view key = context.arg(1);
  if (updated > 0) {
    context.keyspace.KeyChanged(
        context.db_index(), key,
        mode == Mode::kPersist ? hash_events::kHpersist : hash_events::kHexpire, updated + deleted);
    // As Redis rewrites it: the command's own fields, PERSIST dropped or the time absolute.
    const std::string when = std::to_string(expire_at_ms);
    std::vector<std::string_view> args;
    if (mode == Mode::kPersist) {
      args = {"HPERSIST", key};
    } else {
      args = {"HPEXPIREAT", key, when};
    }
    for (size_t i = keyword; i < context.argc(); i++) args.push_back(context.arg(i));
    context.PropagateAs(args);
  } else if (deleted > 0) {
    context.keyspace.KeyChanged(context.db_index(), key, hash_events::kHdel, deleted);
    context.PreventPropagation();  // the HDELs went already
  }
  DeleteIfEmpty(context, hash);
}

// HSETEX key [FNX | FXX] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT
// unix-time-milliseconds | KEEPTTL] FIELDS numfields field value [field value ...]: 1 when the
// fields were set, 0 when FNX or FXX refused them all. Without EX/PX/EXAT/PXAT/KEEPTTL a set
// field loses its TTL, as HSET. Propagated with PXAT and the absolute time.
void CmdHsetex(CommandContext& context) {
  enum Flag : uint32_t {
    kEx = 1,
    kPx = 2,
    kExat = 4,
    kPxat = 8,
    kKeepttl = 16,
    kFxx = 32,
    kFnx = 64,
  };
  uint32_t flags = 0;
  int64_t expire_at_ms = 0;
  size_t time_index = 0;
  size_t first = 0;
  size_t count = 0;
  const std::string arity_error =
      "ERR wrong number of arguments for '" + LowerName(context) + "' command";
  bool found_fields = false;
  for (size_t i = 2; i < context.argc() && !found_fields; i++) {
    const std::string_view arg = context.arg(i);
    if (ArgIs(arg, "FIELDS")) {
      if (i + 3 >= context.argc()) {
        context.reply.Error(arity_error);
        return;
      }
      int64_t fields = 0;
      if (!ParseStrictInt64(context.arg(i + 1), &fields) || fields < 1 || fields > INT32_MAX) {
        context.reply.Error("ERR invalid number of fields");
        return;
      }
      const size_t remaining = context.argc() - i - 2;
      if (remaining % 2 != 0 || static_cast<size_t>(fields) != remaining / 2) {
        context.reply.Error(arity_error);
        return;
      }
      first = i + 2;
      count = static_cast<size_t>(fields);
      found_fields = true;
      continue;
    }
    uint32_t expiry = 0;
    if (ArgIs(arg, "EX")) expiry = kEx;
    if (ArgIs(arg, "PX")) expiry = kPx;
    if (ArgIs(arg, "EXAT")) expiry = kExat;
    if (ArgIs(arg, "PXAT")) expiry = kPxat;
    if (ArgIs(arg, "KEEPTTL")) expiry = kKeepttl;
    if (expiry != 0) {
      if (flags & (kEx | kPx | kExat | kPxat | kKeepttl)) {
        context.reply.Error(
            "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified");
        return;
      }
      flags |= expiry;
      if (expiry == kKeepttl) continue;
      if (i + 1 >= context.argc()) {
        context.reply.Error("ERR missing expire time");
        return;
      }
      i++;
      const int64_t basetime = expiry & (kEx | kPx) ? context.keyspace.command_time_ms() : 0;
      if (!ParseExpireTime(context, i, expiry & (kEx | kExat), basetime, &expire_at_ms)) return;
      time_index = i;
      continue;
    }
    if (ArgIs(arg, "FXX") || ArgIs(arg, "FNX")) {
      if (flags & (kFxx | kFnx)) {
        context.reply.Error("ERR Only one of FXX or FNX arguments can be specified");
        return;
      }
      flags |= ArgIs(arg, "FXX") ? kFxx : kFnx;
      continue;
    }
    context.reply.Error("ERR unknown argument: " + std::string(arg));
    return;
  }
  if (!found_fields) {
    context.reply.Error(arity_error);
    return;
  }
  Entry* entry = nullptr;
  if (!LookupHashWrite(context, &entry)) return;
  if (flags & (kFxx | kFnx)) {
    size_t existing = 0;
    for (size_t i = 0; i < count; i++) {
      if (entry != nullptr && HashOf(*entry).Contains(context.arg(first + 2 * i))) existing++;
    }
    if (((flags & kFxx) && existing != count) || ((flags & kFnx) && existing != 0)) {
      context.reply.Integer(0);
      return;
    }
  }
  const bool set_expiry = (flags & (kEx | kPx | kExat | kPxat)) != 0;
  const bool keep_ttl = (flags & kKeepttl) != 0;
  // The values go in through HSET's path (conversions, all or nothing); then the TTLs.
  size_t created = 0;
  if (!WriteHashPairs(context, first, hash_events::kHset, count, keep_ttl || set_expiry,
                      &created)) {
    return;
  }
  entry = context.keyspace.LookupWrite(context.db_index(), context.arg(1));
  KEEL_ASSERT(entry != nullptr);
  HashValue& hash = MutableHashOf(*entry);
  size_t updated = 0;
  size_t deleted = 0;
  if (set_expiry) {
    for (size_t i = 0; i < count; i++) {
      const std::string_view field = context.arg(first + 2 * i);
      if (!hash.Contains(field)) continue;
      bool oom = false;
      const int64_t code =
          SetFieldExpiry(context, hash, field, expire_at_ms, Condition::kNone, &oom);
      if (oom) break;
      updated += code == kTtlSet ? 1 : 0;
      deleted += code == kDeletedPast ? 1 : 0;
    }
  }
  NoteTtls(context, hash);
  context.reply.Integer(1);
  const std::string_view key = context.arg(1);
  if (updated + deleted > 0) {
    context.keyspace.KeyChanged(context.db_index(), key,
                                deleted > 0 ? hash_events::kHdel : hash_events::kHexpire, 0);
  }
  if (deleted > 0) {
    // Every field had the same past time, so all were deleted: the HDELs went already.
    context.PreventPropagation();
  } else if (set_expiry && !(flags & kPxat)) {
    std::vector<std::string_view> args;
    args.reserve(context.argc());
    for (size_t i = 0; i < context.argc(); i++) args.push_back(context.arg(i));
    const std::string when = std::to_string(expire_at_ms);
    args[time_index - 1] = "PXAT";
    args[time_index] = when;
    context.PropagateAs(args);
  }
  DeleteIfEmpty(context, hash);
}

constexpr CommandDef kHashTtlCommands[] = {
    {.name = "hexpire",
     .arity = -6,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Set expiry for hash field using relative time to expire (seconds)",
     .args = "key:key#0 seconds:integer ?condition:oneof{nx=NX xx=XX gt=GT lt=LT} "
             "fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHexpire},
    {.name = "hpexpire",
     .arity = -6,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Set expiry for hash field using relative time to expire (milliseconds)",
     .args = "key:key#0 milliseconds:integer ?condition:oneof{nx=NX xx=XX gt=GT lt=LT} "
             "fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHpexpire},
    {.name = "hexpireat",
     .arity = -6,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Set expiry for hash field using an absolute Unix timestamp (seconds)",
     .args = "key:key#0 unix-time-seconds:unix-time ?condition:oneof{nx=NX xx=XX gt=GT lt=LT} "
             "fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHexpireat},
    {.name = "hpexpireat",
     .arity = -6,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Set expiry for hash field using an absolute Unix timestamp (milliseconds)",
     .args = "key:key#0 unix-time-milliseconds:unix-time "
             "?condition:oneof{nx=NX xx=XX gt=GT lt=LT} "
             "fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHpexpireat},
    {.name = "httl",
     .arity = -5,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the TTL in seconds of a hash field.",
     .args = "key:key#0 fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHttl},
    {.name = "hpttl",
     .arity = -5,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the TTL in milliseconds of a hash field.",
     .args = "key:key#0 fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHpttl},
    {.name = "hexpiretime",
     .arity = -5,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the expiration time of a hash field as a Unix timestamp, in seconds.",
     .args = "key:key#0 fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHexpiretime},
    {.name = "hpexpiretime",
     .arity = -5,
     .flags = "readonly fast",
     .acl = "@hash",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the expiration time of a hash field as a Unix timestamp, in msec.",
     .args = "key:key#0 fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHpexpiretime},
    {.name = "hpersist",
     .arity = -5,
     .flags = "write fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "7.4.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Removes the expiration time for each specified field",
     .args = "key:key#0 fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHpersist},
    {.name = "hgetdel",
     .arity = -5,
     .flags = "write fast",
     .acl = "@hash",
     .keys = "RW access delete: index 1 range 0 1 0",
     .group = "hash",
     .since = "8.0.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Returns the value of a field and deletes it from the hash.",
     .args = "key:key#0 fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHgetdel},
    {.name = "hgetex",
     .arity = -5,
     .flags = "write fast",
     .acl = "@hash",
     .keys = "RW access update: index 1 range 0 1 0 | RW and UPDATE because it changes the TTL",
     .group = "hash",
     .since = "8.0.0",
     .complexity = "O(N) where N is the number of specified fields",
     .summary = "Get the value of one or more fields of a given hash key, and optionally set "
                "their expiration.",
     .args = "key:key#0 ?expiration:oneof{seconds:integer=EX milliseconds:integer=PX "
             "unix-time-seconds:unix-time=EXAT unix-time-milliseconds:unix-time=PXAT "
             "persist=PERSIST} fields:block=FIELDS{numfields:integer *field}",
     .handler = CmdHgetex},
    {.name = "hsetex",
     .arity = -6,
     .flags = "write denyoom fast",
     .acl = "@hash",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "hash",
     .since = "8.0.0",
     .complexity = "O(N) where N is the number of fields being set.",
     .summary = "Set the value of one or more fields of a given hash key, and optionally set "
                "their expiration.",
     .args = "key:key#0 ?condition:oneof{fnx=FNX fxx=FXX} "
             "?expiration:oneof{seconds:integer=EX milliseconds:integer=PX "
             "unix-time-seconds:unix-time=EXAT unix-time-milliseconds:unix-time=PXAT "
             "keepttl=KEEPTTL} fields:block=FIELDS{numfields:integer *data:block{field value}}",
     .handler = CmdHsetex},
};

}  // namespace

void ReclaimExpiredFields(CommandContext& context, std::string_view key) {
  const int db = context.db_index();
  Keyspace& keyspace = context.keyspace;
  const uint64_t key_hash = keyspace.Hash(db, key);
  const Entry* entry = keyspace.Peek(db, key, key_hash);
  if (entry == nullptr || entry->type() != ValueType::kHash ||
      HashOf(*entry).min_field_expire() >= keyspace.command_time_ms() ||
      IsExpired(*entry, keyspace.command_time_ms())) {
    return;
  }
  keyspace.ExpireHashFields(db, key, key_hash, SIZE_MAX);
}

void RegisterHashTtlCommands(Registry& registry) { registry.Add(kHashTtlCommands); }

}  // namespace keel
