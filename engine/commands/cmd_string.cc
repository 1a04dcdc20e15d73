// String commands: GET, SET, SETNX, SETEX, PSETEX, GETEX, GETDEL, GETSET, MGET, MSET, MSETNX,
// APPEND, STRLEN, GETRANGE, SETRANGE and SUBSTR. The counters (INCR, DECR, INCRBY, DECRBY,
// INCRBYFLOAT) are in cmd_string_numeric.cc, LCS in cmd_lcs.cc.
//
// Values are written only through the keyspace's write path (Keyspace::SetString and friends),
// which either stores the whole new value or refuses (kOutOfMemory) and changes nothing: every
// write below replies with the OOM error in that case, after checking everything else, so a
// refused command leaves the keyspace as it was. Each write names the event Redis announces for
// it; commands whose arguments would replay differently say how they are propagated
// (PropagateAs), as Redis 7.0 rewrites them (conformance/writepath/expected.txt).
#include <algorithm>
#include <climits>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/commands/scratch.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"

namespace keel {
namespace {

// Makes `key` hold the argument `value` (SET and its older forms). A large argument that arrived
// in a block of the client's query buffer of its own is kept there, the block adopted as the
// value (an external string, engine/db/entry.h), as Redis keeps the object it made from its
// query buffer: a 512 MB SET is then neither copied nor held twice.
Database::SetOutcome StoreValueArgument(CommandContext& context, std::string_view key,
                                        uint64_t hash, std::string_view value,
                                        int64_t expire_at_ms) {
  ExternalString external;
  if (!context.ArgumentBlock(value, &external)) {
    return context.keyspace.SetString(context.db_index(), key, hash, value, expire_at_ms,
                                      StringEncodingFor(value), events::kSet);
  }
  const Database::SetOutcome outcome = context.keyspace.AdoptString(
      context.db_index(), key, hash, external, expire_at_ms, events::kSet);
  if (outcome != Database::SetOutcome::kOutOfMemory) context.AdoptedArgumentBlock();
  return outcome;
}

// Replies with the string value of args[1] (or null). Returns false after a WRONGTYPE error.
bool ReplyWithValue(CommandContext& context) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry == nullptr) {
    context.reply.NullBulk();
    return true;
  }
  if (entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  context.reply.Bulk(entry->value());
  return true;
}

void CmdGet(CommandContext& context) { ReplyWithValue(context); }

enum SetFlag : uint32_t {
  kSetNx = 1 << 0,
  kSetXx = 1 << 1,
  kSetGet = 1 << 2,
  kSetKeepTtl = 1 << 3,
  kSetEx = 1 << 4,
  kSetPx = 1 << 5,
  kSetExAt = 1 << 6,
  kSetPxAt = 1 << 7,
  kSetPersist = 1 << 8,  // GETEX only
};

constexpr uint32_t kSetAnyExpiry = kSetEx | kSetPx | kSetExAt | kSetPxAt;

// Redis's parseExtendedStringArgumentsOrReply for SET, with its exact exclusion rules (EX may be
// repeated, the last one wins; NX with XX, or KEEPTTL with any expiry, is a syntax error).
bool ParseSetOptions(CommandContext& context, uint32_t* flags, std::string_view* expire) {
  for (size_t i = 3; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const bool has_next = i + 1 < context.argc();
    auto expiry_option = [&](uint32_t flag) {
      // Any other expiry form, or KEEPTTL, already given makes this one a syntax error.
      if ((*flags & kSetKeepTtl) || (*flags & kSetAnyExpiry & ~flag) || !has_next) return false;
      *flags |= flag;
      *expire = context.arg(++i);
      return true;
    };
    if (OptionIs(option, "NX") && !(*flags & kSetXx)) {
      *flags |= kSetNx;
    } else if (OptionIs(option, "XX") && !(*flags & kSetNx)) {
      *flags |= kSetXx;
    } else if (OptionIs(option, "GET")) {
      *flags |= kSetGet;
    } else if (OptionIs(option, "KEEPTTL") && !(*flags & kSetAnyExpiry)) {
      *flags |= kSetKeepTtl;
    } else if (OptionIs(option, "EX")     ? expiry_option(kSetEx)
               : OptionIs(option, "PX")   ? expiry_option(kSetPx)
               : OptionIs(option, "EXAT") ? expiry_option(kSetExAt)
               : OptionIs(option, "PXAT") ? expiry_option(kSetPxAt)
                                          : false) {
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// The same parser in GETEX's mode: only the expiry forms and PERSIST, each excluding the others
// (PERSIST and one expiry form may be repeated).
bool ParseGetexOptions(CommandContext& context, uint32_t* flags, std::string_view* expire) {
  for (size_t i = 2; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    const bool has_next = i + 1 < context.argc();
    auto expiry_option = [&](uint32_t flag) {
      if ((*flags & kSetPersist) || (*flags & kSetAnyExpiry & ~flag) || !has_next) return false;
      *flags |= flag;
      *expire = context.arg(++i);
      return true;
    };
    if (OptionIs(option, "PERSIST") && !(*flags & kSetAnyExpiry)) {
      *flags |= kSetPersist;
    } else if (OptionIs(option, "EX")     ? expiry_option(kSetEx)
               : OptionIs(option, "PX")   ? expiry_option(kSetPx)
               : OptionIs(option, "EXAT") ? expiry_option(kSetExAt)
               : OptionIs(option, "PXAT") ? expiry_option(kSetPxAt)
                                          : false) {
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// Redis's getExpireMillisecondsOrReply: the absolute expiry in ms, or an error reply. `flags`
// names the form (kSetEx, kSetPx, kSetExAt or kSetPxAt).
bool ExpireAtMs(CommandContext& context, uint32_t flags, std::string_view text, int64_t* at_ms) {
  int64_t value = 0;
  if (!ParseStrictInt64(text, &value)) {
    context.reply.Error(errors::kNotInteger);
    return false;
  }
  const bool seconds = (flags & (kSetEx | kSetExAt)) != 0;
  const std::string invalid = "ERR invalid expire time in '" + context.spec.full_name + "' command";
  if (value <= 0 || (seconds && value > LLONG_MAX / 1000)) {
    context.reply.Error(invalid);
    return false;
  }
  if (seconds) value *= 1000;
  if (flags & (kSetEx | kSetPx)) {
    // Relative: overflow past LLONG_MAX is caught as Redis catches it (a non-positive sum).
    value = static_cast<int64_t>(static_cast<uint64_t>(value) +
                                 static_cast<uint64_t>(context.now_ms()));
  }
  if (value <= 0) {
    context.reply.Error(invalid);
    return false;
  }
  *at_ms = value;
  return true;
}

// Writes `value` with `expire_at_ms`, then replies with the string `existing` held before (null
// when there was none): SET ... GET and GETSET. Writing frees the old value, and the reply must
// wait until the write succeeded so that a refused write can still be reported as the command's
// only reply; so the old value is copied aside first.
// Returns false after the OOM error.
bool SetAndReplyWithOld(CommandContext& context, std::string_view key, uint64_t hash,
                        const Entry* existing, std::string_view value, int64_t expire_at_ms) {
  ScratchBuffer old_value(context.memory());
  if (existing != nullptr && !old_value.Assign(existing->value())) {
    context.reply.Error(errors::kOom);
    return false;
  }
  if (StoreValueArgument(context, key, hash, value, expire_at_ms) ==
      Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return false;
  }
  if (existing != nullptr) {
    context.reply.Bulk(old_value.view());
  } else {
    context.reply.NullBulk();
  }
  return true;
}

// How SET propagates (Redis's setGenericCommand): with an expiry option as SET key value PXAT
// <absolute ms> whatever else it had, and without its GET options otherwise (a replica has no
// one to reply to).
void PropagateSet(CommandContext& context, uint32_t flags, int64_t expire_at_ms) {
  if (!context.propagating()) return;
  if (flags & kSetAnyExpiry) {
    char text[kInt64TextMax];
    const size_t length = FormatInt64(expire_at_ms, text);
    context.PropagateAs({"SET", context.arg(1), context.arg(2), "PXAT", {text, length}});
    return;
  }
  if (!(flags & kSetGet)) return;
  std::vector<std::string_view> args;
  for (size_t i = 0; i < context.argc(); i++) {
    if (i < 3 || !OptionIs(context.arg(i), "GET")) args.push_back(context.arg(i));
  }
  context.PropagateAs(args);
}

// SETEX/PSETEX and SET ... EX announce the expiry after the set.
void AnnounceExpiry(CommandContext& context, int64_t expire_at_ms) {
  if (expire_at_ms != kNoExpiry) {
    context.keyspace.Notify(context.db_index(), events::kExpire, context.arg(1));
  }
}

void CmdSet(CommandContext& context) {
  uint32_t flags = 0;
  std::string_view expire;
  if (!ParseSetOptions(context, &flags, &expire)) return;
  int64_t expire_at_ms = kNoExpiry;
  if ((flags & kSetAnyExpiry) && !ExpireAtMs(context, flags, expire, &expire_at_ms)) return;

  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  // GET reads the old value as GET does (a read lookup: keyspace hits and misses count).
  const bool get = (flags & kSetGet) != 0;
  const Entry* existing =
      get ? keyspace.Lookup(db, key, hash) : keyspace.LookupWrite(db, key, hash);
  if (get && existing != nullptr && existing->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  if (((flags & kSetNx) && existing != nullptr) || ((flags & kSetXx) && existing == nullptr)) {
    if (!get) {
      context.reply.NullBulk();
    } else if (existing != nullptr) {
      context.reply.Bulk(existing->value());
    } else {
      context.reply.NullBulk();
    }
    return;
  }
  PropagateSet(context, flags, expire_at_ms);
  const int64_t explicit_expiry = expire_at_ms;
  if ((flags & kSetKeepTtl) && existing != nullptr) expire_at_ms = existing->expire_at_ms();
  const std::string_view value = context.arg(2);
  if (get) {
    if (SetAndReplyWithOld(context, key, hash, existing, value, expire_at_ms)) {
      AnnounceExpiry(context, explicit_expiry);
    }
    return;
  }
  if (StoreValueArgument(context, key, hash, value, expire_at_ms) ==
      Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  AnnounceExpiry(context, explicit_expiry);
  context.reply.Ok();
}

// SETNX key value: SET NX replying 1 when it wrote and 0 when the key exists (any type).
void CmdSetnx(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  if (keyspace.LookupWrite(db, key, hash) != nullptr) {
    context.reply.Integer(0);
    return;
  }
  const std::string_view value = context.arg(2);
  if (StoreValueArgument(context, key, hash, value, kNoExpiry) ==
      Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(1);
}

// SETEX/PSETEX key ttl value: SET EX/PX; the key is replaced whatever its type.
void SetWithTtl(CommandContext& context, uint32_t form) {
  int64_t expire_at_ms = kNoExpiry;
  if (!ExpireAtMs(context, form, context.arg(2), &expire_at_ms)) return;
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  // The lookup reclaims an expired key first, as Redis's lookupKeyWrite does.
  keyspace.LookupWrite(db, key, hash);
  const std::string_view value = context.arg(3);
  if (StoreValueArgument(context, key, hash, value, expire_at_ms) ==
      Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  if (context.propagating()) {
    char text[kInt64TextMax];
    const size_t length = FormatInt64(expire_at_ms, text);
    context.PropagateAs({"SET", key, value, "PXAT", {text, length}});
  }
  AnnounceExpiry(context, expire_at_ms);
  context.reply.Ok();
}

void CmdSetex(CommandContext& context) { SetWithTtl(context, kSetEx); }
void CmdPsetex(CommandContext& context) { SetWithTtl(context, kSetPx); }

// GETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]. As in Redis: option syntax
// first, then the key (a missing key replies null before the expiry value is even parsed), then
// the expiry value. An absolute time at or before now deletes the key after replying with it.
void CmdGetex(CommandContext& context) {
  uint32_t flags = 0;
  std::string_view expire;
  if (!ParseGetexOptions(context, &flags, &expire)) return;
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  const Entry* found = keyspace.Lookup(db, key, hash);
  if (found == nullptr) {
    context.reply.NullBulk();
    return;
  }
  if (found->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  int64_t expire_at_ms = kNoExpiry;
  if ((flags & kSetAnyExpiry) && !ExpireAtMs(context, flags, expire, &expire_at_ms)) return;
  if (!(flags & (kSetAnyExpiry | kSetPersist)) ||
      (!(flags & kSetAnyExpiry) && !found->has_expiry())) {
    context.reply.Bulk(found->value());
    return;
  }
  // It changes the key: the read lookup touched it already.
  Entry* entry = keyspace.LookupWrite(db, key, hash, kLookupNoTouch);
  if (flags & kSetAnyExpiry) {
    // Redis's checkAlreadyExpired (when <= now), unlike lazy expiry's now > when: an absolute
    // time equal to the command time deletes the key at once, after the reply.
    if (keyspace.ExpiryIsPast(expire_at_ms)) {
      context.reply.Bulk(entry->value());
      keyspace.SetExpiry(db, &entry, expire_at_ms);
      PropagateAsDel(context, key, keyspace.settings().lazyfree_lazy_expire);
      return;
    }
    // Adding an expiry moves the entry, which can be refused: then the command fails with
    // nothing changed rather than reply with a value whose expiry it did not set.
    if (keyspace.SetExpiry(db, &entry, expire_at_ms) == ExpiryOutcome::kOutOfMemory) {
      context.reply.Error(errors::kOom);
      return;
    }
    PropagateAsPexpireat(context, key, expire_at_ms, {});
  } else {
    if (!keyspace.RemoveExpiry(db, &entry)) {
      context.reply.Error(errors::kOom);
      return;
    }
    context.PropagateAs({"PERSIST", key});
  }
  context.reply.Bulk(entry->value());
}

void CmdGetdel(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  const Entry* entry = keyspace.Lookup(db, key, hash);
  if (entry == nullptr) {
    context.reply.NullBulk();
    return;
  }
  if (entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  context.reply.Bulk(entry->value());
  keyspace.Delete(db, key, hash);
  context.PropagateAs({"DEL", key});
}

// GETSET key value: SET key value GET, which also clears the expiry.
void CmdGetset(CommandContext& context) {
  const std::string_view key = context.arg(1);
  const uint64_t hash = context.keyspace.Hash(context.db_index(), key);
  const Entry* existing = context.keyspace.Lookup(context.db_index(), key, hash);
  if (existing != nullptr && existing->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  // Redis propagates it as SET, since its GET part has no one to reply to on a replica.
  context.PropagateAs({"SET", key, context.arg(2)});
  SetAndReplyWithOld(context, key, hash, existing, context.arg(2), kNoExpiry);
}

void CmdMget(CommandContext& context) {
  context.reply.ArrayHeader(context.argc() - 1);
  for (size_t i = 1; i < context.argc(); i++) {
    const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(i));
    // A key of another type reads as missing here, not as an error.
    if (entry == nullptr || entry->type() != ValueType::kString) {
      context.reply.NullBulk();
    } else {
      context.reply.Bulk(entry->value());
    }
  }
}

// MSET and MSETNX are all-or-nothing, also when the environment refuses memory part way, which
// Redis (whose allocations cannot fail) never has to consider. The writes run in two phases:
//   1. keys that did not exist when the command started: a refusal here is undone exactly by
//      erasing the keys this phase created;
//   2. keys that existed (MSET only): every replacement entry is allocated first
//      (Database::PrepareString), and only once all of them were is any put in place, which
//      cannot fail. A refusal while preparing frees what was prepared and undoes phase 1.
// (An earlier version reserved the phase's bytes and then wrote: the simulator's random
// refusals, and the slab's page-sized allocations, could still refuse a replacement after the
// reservation, leaving some pairs written and replying OOM; see corpus/sim/regressions.)
// Every pair of one key falls in the same phase, in argument order, so the last value of a key
// repeated in the command wins, as in Redis.
bool MsetPairs(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const size_t pairs = (context.argc() - 1) / 2;
  std::vector<uint8_t> existed(pairs);
  for (size_t p = 0; p < pairs; p++) {
    existed[p] = keyspace.LookupWrite(db, context.arg(1 + 2 * p)) != nullptr;
  }
  Keyspace::QuietWrites quiet(keyspace);
  auto undo_new_keys = [&](size_t end) {
    for (size_t p = 0; p < end; p++) {
      if (!existed[p]) keyspace.UndoCreate(db, context.arg(1 + 2 * p));
    }
  };
  for (size_t p = 0; p < pairs; p++) {
    if (existed[p]) continue;
    const std::string_view key = context.arg(1 + 2 * p);
    const std::string_view value = context.arg(2 + 2 * p);
    if (keyspace.SetString(db, key, keyspace.Hash(db, key), value, kNoExpiry,
                           StringEncodingFor(value),
                           events::kSet) == Database::SetOutcome::kOutOfMemory) {
      undo_new_keys(p);
      return false;
    }
  }
  std::vector<Entry*> prepared(pairs, nullptr);
  for (size_t p = 0; p < pairs; p++) {
    if (!existed[p]) continue;
    const std::string_view value = context.arg(2 + 2 * p);
    prepared[p] = keyspace.PrepareString(db, context.arg(1 + 2 * p), value, kNoExpiry,
                                         StringEncodingFor(value));
    if (prepared[p] == nullptr) {
      for (Entry* entry : prepared) {
        if (entry != nullptr) keyspace.DiscardPrepared(db, entry);
      }
      undo_new_keys(pairs);
      return false;
    }
  }
  for (size_t p = 0; p < pairs; p++) {
    if (existed[p]) {
      const std::string_view key = context.arg(1 + 2 * p);
      keyspace.CommitPrepared(db, prepared[p], keyspace.Hash(db, key), events::kSet);
    }
  }
  // Announced in argument order, as Redis writes them: a key that did not exist is "new" at its
  // first pair only.
  if (!keyspace.observed()) return true;
  std::unordered_set<std::string_view> created;
  for (size_t p = 0; p < pairs; p++) {
    const std::string_view key = context.arg(1 + 2 * p);
    const bool first_creation = !existed[p] && created.insert(key).second;
    keyspace.AnnounceWrite(db, key, events::kSet, first_creation);
  }
  return true;
}

void MsetGeneric(CommandContext& context, bool nx) {
  // The arity check lets through any count of at least 3; the pairs are checked here, with the
  // arity error's text, as Redis does.
  if (context.argc() % 2 == 0) {
    context.reply.Error(WrongArityError(context.spec));
    return;
  }
  if (nx) {
    for (size_t i = 1; i < context.argc(); i += 2) {
      if (context.keyspace.LookupWrite(context.db_index(), context.arg(i)) != nullptr) {
        context.reply.Integer(0);
        return;
      }
    }
  }
  if (!MsetPairs(context)) {
    context.reply.Error(errors::kOom);
    return;
  }
  if (nx) {
    context.reply.Integer(1);
  } else {
    context.reply.Ok();
  }
}

void CmdMset(CommandContext& context) { MsetGeneric(context, false); }
void CmdMsetnx(CommandContext& context) { MsetGeneric(context, true); }

// APPEND key value. A new key is stored as SET stores it (int, embstr or raw); appending to an
// existing string leaves it raw, as Redis's in-place edit does, even when nothing is appended.
void CmdAppend(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const std::string_view tail = context.arg(2);
  const uint64_t hash = keyspace.Hash(db, key);
  Entry* existing = keyspace.LookupWrite(db, key, hash);
  if (existing == nullptr) {
    if (keyspace.SetString(db, key, hash, tail, kNoExpiry, StringEncodingFor(tail),
                           events::kAppend) == Database::SetOutcome::kOutOfMemory) {
      context.reply.Error(errors::kOom);
      return;
    }
    context.reply.Integer(static_cast<int64_t>(tail.size()));
    return;
  }
  if (existing->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  const size_t head_size = existing->value_size();
  if (!CheckStringLength(context, head_size, tail.size())) return;
  // In place while the entry has room (Database::WriteStringRange): amortised O(1) per byte.
  Entry* appended = keyspace.WriteStringRange(db, existing, hash, head_size, tail, events::kAppend);
  if (appended == nullptr) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(static_cast<int64_t>(appended->value_size()));
}

void CmdStrlen(CommandContext& context) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry == nullptr) {
    context.reply.Integer(0);
    return;
  }
  if (entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  context.reply.Integer(static_cast<int64_t>(entry->value().size()));
}

// GETRANGE/SUBSTR key start end: inclusive byte offsets, negative ones counted from the end and
// clamped to the string, as Redis's getrangeCommand computes them.
void CmdGetrange(CommandContext& context) {
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseStrictInt64(context.arg(2), &start) || !ParseStrictInt64(context.arg(3), &end)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry == nullptr) {
    context.reply.Bulk("");
    return;
  }
  if (entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  const std::string_view value = entry->value();
  const auto length = static_cast<int64_t>(value.size());
  // Both from the end with start past end is empty even where clamping would make them meet.
  if (start < 0 && end < 0 && start > end) {
    context.reply.Bulk("");
    return;
  }
  if (start < 0) start += length;
  if (end < 0) end += length;
  start = std::max<int64_t>(start, 0);
  end = std::max<int64_t>(end, 0);
  if (end >= length) end = length - 1;
  if (start > end || length == 0) {
    context.reply.Bulk("");
    return;
  }
  context.reply.Bulk(
      value.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// SETRANGE key offset value: overwrites from `offset`, padding with zero bytes. The result is
// raw; writing nothing changes nothing (not even the encoding) and creates no key.
void CmdSetrange(CommandContext& context) {
  int64_t offset = 0;
  if (!ParseStrictInt64(context.arg(2), &offset)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  if (offset < 0) {
    context.reply.Error("ERR offset is out of range");
    return;
  }
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const std::string_view patch = context.arg(3);
  const uint64_t hash = keyspace.Hash(db, key);
  Entry* existing = keyspace.LookupWrite(db, key, hash);
  if (existing != nullptr && existing->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  const size_t old_size = existing != nullptr ? existing->value_size() : 0;
  if (patch.empty()) {
    context.reply.Integer(static_cast<int64_t>(old_size));
    return;
  }
  if (!CheckStringLength(context, static_cast<uint64_t>(offset), patch.size())) return;
  const size_t patch_at = static_cast<size_t>(offset);
  if (existing != nullptr) {
    Entry* patched =
        keyspace.WriteStringRange(db, existing, hash, patch_at, patch, events::kSetrange);
    if (patched == nullptr) {
      context.reply.Error(errors::kOom);
      return;
    }
    context.reply.Integer(static_cast<int64_t>(patched->value_size()));
    return;
  }
  // A new key is exactly as long as it must be, as Redis creates it (no room to spare).
  const size_t new_size = patch_at + patch.size();
  ScratchBuffer created(context.memory());
  if (!created.Allocate(new_size)) {
    context.reply.Error(errors::kOom);
    return;
  }
  std::memset(created.data(), 0, patch_at);
  std::memcpy(created.data() + patch_at, patch.data(), patch.size());
  if (keyspace.SetString(db, key, hash, created.view(), kNoExpiry, ObjectEncoding::kRaw,
                         events::kSetrange) == Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(static_cast<int64_t>(new_size));
}

// SET's key is overwritten (OW update) unless GET also reads the old value (RW access update),
// as Redis's setGetKeys reports it. Any argument after the value spelled GET counts.
bool FindSetKeys(std::span<const std::string_view> args, std::vector<KeyReference>* keys) {
  bool get = false;
  for (size_t i = 3; i < args.size(); i++) get = get || OptionIs(args[i], "GET");
  keys->push_back({1, get ? kKeyRW | kKeyAccess | kKeyUpdate : kKeyOW | kKeyUpdate});
  return true;
}

constexpr std::string_view kRangeComplexity =
    "O(N) where N is the length of the returned string. The complexity is ultimately determined "
    "by the returned length, but because creating a substring from an existing string is very "
    "cheap, it can be considered O(1) for small strings.";

// Copied from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS.
constexpr CommandDef kStringCommands[] = {
    {.name = "get",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@string",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Get the value of a key",
     .args = "key:key#0",
     .handler = CmdGet},
    {.name = "set",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "RW access update variable_flags: index 1 range 0 1 0 | RW and ACCESS due to the "
             "optional `GET` argument",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Set the string value of a key",
     .args = "key:key#0 value:string ?condition:oneof@2.6.12{nx=NX xx=XX} ?get=GET@6.2.0 "
             "?expiration:oneof{seconds:integer=EX@2.6.12 milliseconds:integer=PX@2.6.12 "
             "unix-time-seconds:unix-time=EXAT@6.2.0 unix-time-milliseconds:unix-time=PXAT@6.2.0 "
             "keepttl=KEEPTTL@6.0.0}",
     .handler = CmdSet,
     .history = "2.6.12 Added the `EX`, `PX`, `NX` and `XX` options.|6.0.0 Added the `KEEPTTL` "
                "option.|6.2.0 Added the `GET`, `EXAT` and `PXAT` option.|7.0.0 Allowed the `NX` "
                "and `GET` options to be used together.",
     .find_keys = FindSetKeys},
    {.name = "setnx",
     .arity = 3,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "OW insert: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Set the value of a key, only if the key does not exist",
     .args = "key:key#0 value",
     .handler = CmdSetnx},
    {.name = "setex",
     .arity = 4,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "OW update: index 1 range 0 1 0",
     .group = "string",
     .since = "2.0.0",
     .complexity = "O(1)",
     .summary = "Set the value and expiration of a key",
     .args = "key:key#0 seconds:integer value",
     .handler = CmdSetex},
    {.name = "psetex",
     .arity = 4,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "OW update: index 1 range 0 1 0",
     .group = "string",
     .since = "2.6.0",
     .complexity = "O(1)",
     .summary = "Set the value and expiration in milliseconds of a key",
     .args = "key:key#0 milliseconds:integer value",
     .handler = CmdPsetex},
    {.name = "getex",
     .arity = -2,
     .flags = "write fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0 | RW and UPDATE because it changes the TTL",
     .group = "string",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Get the value of a key and optionally set its expiration",
     .args = "key:key#0 ?expiration:oneof{seconds:integer=EX milliseconds:integer=PX "
             "unix-time-seconds:unix-time=EXAT unix-time-milliseconds:unix-time=PXAT "
             "persist=PERSIST}",
     .handler = CmdGetex},
    {.name = "getdel",
     .arity = 2,
     .flags = "write fast",
     .acl = "@string",
     .keys = "RW access delete: index 1 range 0 1 0",
     .group = "string",
     .since = "6.2.0",
     .complexity = "O(1)",
     .summary = "Get the value of a key and delete the key",
     .args = "key:key#0",
     .handler = CmdGetdel},
    {.name = "getset",
     .arity = 3,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(1)",
     .summary = "Set the string value of a key and return its old value",
     .args = "key:key#0 value",
     .handler = CmdGetset,
     .doc_flags = "deprecated",
     .deprecated_since = "6.2.0",
     .replaced_by = "`SET` with the `!GET` argument"},
    {.name = "mget",
     .arity = -2,
     .flags = "readonly fast",
     .acl = "@string",
     .keys = "RO access: index 1 range -1 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys to retrieve.",
     .summary = "Get the values of all the given keys",
     .args = "*key:key#0",
     .handler = CmdMget,
     .tips = "request_policy:multi_shard"},
    {.name = "mset",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "OW update: index 1 range -1 2 0",
     .group = "string",
     .since = "1.0.1",
     .complexity = "O(N) where N is the number of keys to set.",
     .summary = "Set multiple keys to multiple values",
     .args = "*key_value:block{key:key#0 value}",
     .handler = CmdMset,
     .tips = "request_policy:multi_shard response_policy:all_succeeded"},
    {.name = "msetnx",
     .arity = -3,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "OW insert: index 1 range -1 2 0",
     .group = "string",
     .since = "1.0.1",
     .complexity = "O(N) where N is the number of keys to set.",
     .summary = "Set multiple keys to multiple values, only if none of the keys exist",
     .args = "*key_value:block{key:key#0 value}",
     .handler = CmdMsetnx,
     .tips = "request_policy:multi_shard response_policy:agg_min"},
    {.name = "append",
     .arity = 3,
     .flags = "write denyoom fast",
     .acl = "@string",
     .keys = "RW insert: index 1 range 0 1 0",
     .group = "string",
     .since = "2.0.0",
     .complexity = "O(1). The amortized time complexity is O(1) assuming the appended value is "
                   "small and the already present value is of any size, since the dynamic string "
                   "library used by Redis will double the free space available on every "
                   "reallocation.",
     .summary = "Append a value to a key",
     .args = "key:key#0 value",
     .handler = CmdAppend},
    {.name = "strlen",
     .arity = 2,
     .flags = "readonly fast",
     .acl = "@string",
     .keys = "RO: index 1 range 0 1 0",
     .group = "string",
     .since = "2.2.0",
     .complexity = "O(1)",
     .summary = "Get the length of the value stored in a key",
     .args = "key:key#0",
     .handler = CmdStrlen},
    {.name = "getrange",
     .arity = 4,
     .flags = "readonly",
     .acl = "@string",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "string",
     .since = "2.4.0",
     .complexity = kRangeComplexity,
     .summary = "Get a substring of the string stored at a key",
     .args = "key:key#0 start:integer end:integer",
     .handler = CmdGetrange},
    {.name = "setrange",
     .arity = 4,
     .flags = "write denyoom",
     .acl = "@string",
     .keys = "RW update: index 1 range 0 1 0",
     .group = "string",
     .since = "2.2.0",
     .complexity = "O(1), not counting the time taken to copy the new string in place. Usually, "
                   "this string is very small so the amortized complexity is O(1). Otherwise, "
                   "complexity is O(M) with M being the length of the value argument.",
     .summary = "Overwrite part of a string at key starting at the specified offset",
     .args = "key:key#0 offset:integer value",
     .handler = CmdSetrange},
    {.name = "substr",
     .arity = 4,
     .flags = "readonly",
     .acl = "@string",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "string",
     .since = "1.0.0",
     .complexity = kRangeComplexity,
     .summary = "Get a substring of the string stored at a key",
     .args = "key:key#0 start:integer end:integer",
     .handler = CmdGetrange,
     .doc_flags = "deprecated",
     .deprecated_since = "2.0.0",
     .replaced_by = "`GETRANGE`"},
};

}  // namespace

void RegisterStringCommands(Registry& registry) { registry.Add(kStringCommands); }

}  // namespace keel
