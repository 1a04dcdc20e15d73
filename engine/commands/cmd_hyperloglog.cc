// HyperLogLog: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST over string values in Redis 7.0's
// layout (engine/db/types/hyperloglog.h), as hyperloglog.c's commands run them.
//
// A dense value (the common case once a few thousand elements were added) is edited in place:
// its size never changes. A sparse one is edited in a working buffer and written back whole
// (it may grow, shrink or become dense), keeping the key's expiry. PFCOUNT of one key stores
// the count it computed in the header's cache, as Redis does: a read that counts as a change.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/commands/context.h"
#include "engine/commands/scratch.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/hyperloglog.h"

namespace keel {
namespace {

// isHLLObjectOrReply: false after replying (WRONGTYPE for another type, or for a string that
// is not a HyperLogLog).
bool CheckHll(CommandContext& context, const Entry& entry) {
  if (entry.type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  // An int-encoded value is never one (Redis checks sdsEncodedObject); its text cannot start
  // with "HYLL" anyway.
  if (!hll::LooksLikeHll(entry.value())) {
    context.reply.Error(hll::kNotHll);
    return false;
  }
  return true;
}

size_t SparseBytesMax(CommandContext& context) {
  return static_cast<size_t>(context.config().hll_sparse_max_bytes);
}

// Redis's dbUnshareStringValue before an edit: the value becomes raw where it is, which
// signals no modified key (no WATCH breaks) and counts nothing. Returns the entry, or nullptr
// after the OOM error.
Entry* Unshare(CommandContext& context, Entry* entry, uint64_t hash) {
  if (entry->raw_string()) return entry;  // already private and raw: nothing to do
  Entry* unshared =
      context.keyspace.GrowString(context.db_index(), entry, hash, entry->value_size());
  if (unshared == nullptr) context.reply.Error(errors::kOom);
  return unshared;
}

// Adds args[2..] to the HyperLogLog in `buffer`. Returns the registers raised, or -1 when the
// value is corrupt.
int64_t AddElements(CommandContext& context, hll::Buffer& buffer) {
  int64_t updated = 0;
  for (size_t i = 2; i < context.argc(); i++) {
    int index = 0;
    int count = 0;
    hll::Pattern(context.arg(i), &index, &count);
    const hll::SetResult result = hll::Set(buffer, index, count, SparseBytesMax(context));
    if (result == hll::SetResult::kCorrupt) return -1;
    if (result == hll::SetResult::kUpdated) updated++;
  }
  return updated;
}

// Replaces the string value of `key` (a live entry) by `value`, with its expiry, counting
// `changes` changes and announcing `event` once.
bool StoreWhole(CommandContext& context, std::string_view key, uint64_t hash, const Entry& entry,
                std::string_view value, KeyEvent event, uint64_t changes) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  if (keyspace.SetString(db, key, hash, value, entry.expire_at_ms(), ObjectEncoding::kRaw, event) ==
      Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return false;
  }
  if (changes > 1) keyspace.KeyChanged(db, key, events::kNone, changes - 1);
  return true;
}

// PFADD key [element ...]: 1 when a register changed (or the key was created), else 0.
void CmdPfadd(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  Entry* entry = keyspace.LookupWrite(db, key, hash);
  if (entry != nullptr && !CheckHll(context, *entry)) return;
  if (entry != nullptr && hll::EncodingOf(entry->value()) == hll::kDense) {
    // Unshared first (raw), as Redis's dbUnshareStringValue; the size stays kDenseBytes.
    entry = Unshare(context, entry, hash);
    if (entry == nullptr) return;
    const std::span<char> bytes = entry->mutable_value();
    hll::Buffer buffer{bytes.data(), bytes.size(), bytes.size()};
    const int64_t updated = AddElements(context, buffer);
    if (updated < 0) {
      context.reply.Error(hll::kInvalidHll);
      return;
    }
    if (updated > 0) keyspace.KeyChanged(db, key, events::kPfadd, static_cast<uint64_t>(updated));
    context.reply.Integer(updated > 0 ? 1 : 0);
    return;
  }
  if (entry != nullptr && entry->value_size() > hll::kSparseBytesMax) {
    // More opcodes than registers: no valid sparse value is this long.
    context.reply.Error(hll::kInvalidHll);
    return;
  }
  ScratchBuffer work(context.memory());
  if (!work.Allocate(hll::kWorkBytes)) {
    context.reply.Error(errors::kOom);
    return;
  }
  hll::Buffer buffer{work.data(), 0, hll::kWorkBytes};
  if (entry == nullptr) {
    hll::WriteEmpty(buffer.data);
    buffer.size = hll::kEmptySparseBytes;
  } else {
    std::memcpy(buffer.data, entry->value().data(), entry->value_size());
    buffer.size = entry->value_size();
  }
  const int64_t updated = AddElements(context, buffer);
  if (updated < 0) {
    context.reply.Error(hll::kInvalidHll);
    return;
  }
  const std::string_view value(buffer.data, buffer.size);
  if (entry == nullptr) {
    // Creating the key is a change of its own, as in Redis, and invalidates the cache.
    hll::InvalidateCache(buffer.data);
    if (keyspace.SetString(db, key, hash, value, kNoExpiry, ObjectEncoding::kRaw, events::kPfadd) ==
        Database::SetOutcome::kOutOfMemory) {
      context.reply.Error(errors::kOom);
      return;
    }
    if (updated > 0) keyspace.KeyChanged(db, key, events::kNone, static_cast<uint64_t>(updated));
    context.reply.Integer(1);
    return;
  }
  if (updated == 0) {
    // Nothing changed, but Redis unshares the value all the same (embstr becomes raw).
    if (Unshare(context, entry, hash) == nullptr) return;
    context.reply.Integer(0);
    return;
  }
  if (!StoreWhole(context, key, hash, *entry, value, events::kPfadd,
                  static_cast<uint64_t>(updated))) {
    return;
  }
  context.reply.Integer(1);
}

// PFCOUNT of several keys: the estimate of their union, nothing stored.
void CountUnion(CommandContext& context) {
  uint8_t registers[hll::kRegisters] = {};
  for (size_t i = 1; i < context.argc(); i++) {
    const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(i));
    if (entry == nullptr) continue;
    if (!CheckHll(context, *entry)) return;
    if (!hll::MergeInto(entry->value(), registers)) {
      context.reply.Error(hll::kInvalidHll);
      return;
    }
  }
  context.reply.Integer(static_cast<int64_t>(hll::CountRegisters(registers)));
}

// PFCOUNT key [key ...]. With one key: the cached count, or a fresh one that is then stored in
// the cache (counted as a change, so it is propagated, but announced to no one).
void CmdPfcount(CommandContext& context) {
  if (context.argc() > 2) {
    CountUnion(context);
    return;
  }
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  const Entry* found = keyspace.Lookup(db, key, hash);
  if (found == nullptr) {
    context.reply.Integer(0);
    return;
  }
  // The common case answers from the read lookup: a raw HyperLogLog with a valid cache.
  if (found->type() == ValueType::kString && found->raw_string()) {
    const std::string_view value = found->value();  // one decode of the entry's layout
    if (hll::LooksLikeHll(value) && hll::CacheValid(value)) {
      context.reply.Integer(static_cast<int64_t>(hll::CachedCount(value)));
      return;
    }
  }
  // The same entry, for writing (the cache); the read lookup above counted the hit.
  Entry* entry = keyspace.LookupWrite(db, key, hash, kLookupNoTouch);
  KEEL_ASSERT(entry != nullptr);
  if (!CheckHll(context, *entry)) return;
  entry = Unshare(context, entry, hash);
  if (entry == nullptr) return;
  if (hll::CacheValid(entry->value())) {
    context.reply.Integer(static_cast<int64_t>(hll::CachedCount(entry->value())));
    return;
  }
  uint64_t count = 0;
  if (!hll::Count(entry->value(), &count)) {
    context.reply.Error(hll::kInvalidHll);
    return;
  }
  hll::StoreCache(entry->value_data(), count);
  keyspace.KeyChanged(db, key, events::kNone);
  context.reply.Integer(static_cast<int64_t>(count));
}

// Writes `registers` into the HyperLogLog in `buffer` (PFMERGE's last step).
bool WriteRegisters(CommandContext& context, const uint8_t* registers, hll::Buffer& buffer) {
  for (int i = 0; i < hll::kRegisters; i++) {
    if (registers[i] == 0) continue;
    if (hll::Set(buffer, i, registers[i], SparseBytesMax(context)) == hll::SetResult::kCorrupt) {
      return false;
    }
  }
  return true;
}

// PFMERGE destkey [sourcekey ...]: destkey becomes the union of itself and the sources
// ("pfadd", one change), dense when any of them is.
void CmdPfmerge(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  uint8_t registers[hll::kRegisters] = {};
  bool dense = false;
  for (size_t i = 1; i < context.argc(); i++) {
    const Entry* entry = keyspace.Lookup(db, context.arg(i));
    if (entry == nullptr) continue;
    if (!CheckHll(context, *entry)) return;
    dense = dense || hll::EncodingOf(entry->value()) == hll::kDense;
    if (!hll::MergeInto(entry->value(), registers)) {
      context.reply.Error(hll::kInvalidHll);
      return;
    }
  }
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  Entry* entry = keyspace.LookupWrite(db, key, hash);
  ScratchBuffer work(context.memory());
  if (!work.Allocate(hll::kWorkBytes)) {
    context.reply.Error(errors::kOom);
    return;
  }
  hll::Buffer buffer{work.data(), 0, hll::kWorkBytes};
  if (entry == nullptr) {
    hll::WriteEmpty(buffer.data);
    buffer.size = hll::kEmptySparseBytes;
  } else {
    // Checked as a source above; merged, so its sparse opcodes are sound and within bounds.
    KEEL_ASSERT(entry->value_size() <= hll::kSparseBytesMax ||
                hll::EncodingOf(entry->value()) == hll::kDense);
    std::memcpy(buffer.data, entry->value().data(), entry->value_size());
    buffer.size = entry->value_size();
  }
  if ((dense && !hll::ToDense(buffer)) || !WriteRegisters(context, registers, buffer)) {
    context.reply.Error(hll::kInvalidHll);
    return;
  }
  hll::InvalidateCache(buffer.data);
  const std::string_view value(buffer.data, buffer.size);
  const int64_t expire_at_ms = entry != nullptr ? entry->expire_at_ms() : kNoExpiry;
  if (keyspace.SetString(db, key, hash, value, expire_at_ms, ObjectEncoding::kRaw,
                         events::kPfadd) == Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Ok();
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. GETREG and TODENSE make a sparse value dense (one
// change, so that replicas convert too). Redis's pfdebugCommand signals no modified key for it;
// Keel does, so that a client-side cache of the value's bytes is invalidated (a WATCH breaks).
void CmdPfdebug(CommandContext& context) {
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view name = context.arg(1);
  const std::string_view key = context.arg(2);
  const uint64_t hash = keyspace.Hash(db, key);
  Entry* entry = keyspace.LookupWrite(db, key, hash);
  if (entry == nullptr) {
    context.reply.Error("ERR The specified key does not exist");
    return;
  }
  if (!CheckHll(context, *entry)) return;
  entry = Unshare(context, entry, hash);
  if (entry == nullptr) return;
  const bool sparse = hll::EncodingOf(entry->value()) == hll::kSparse;
  if (OptionIs(name, "GETREG") || OptionIs(name, "TODENSE")) {
    std::string_view dense_value = entry->value();
    ScratchBuffer work(context.memory());
    if (sparse) {
      // More opcodes than registers: no valid sparse value is this long.
      if (entry->value_size() > hll::kSparseBytesMax) {
        context.reply.Error(hll::kInvalidHll);
        return;
      }
      if (!work.Allocate(hll::kWorkBytes)) {
        context.reply.Error(errors::kOom);
        return;
      }
      hll::Buffer buffer{work.data(), entry->value_size(), hll::kWorkBytes};
      std::memcpy(buffer.data, entry->value().data(), entry->value_size());
      if (!hll::ToDense(buffer)) {
        context.reply.Error(hll::kInvalidHll);
        return;
      }
      dense_value = {buffer.data, buffer.size};
      if (!StoreWhole(context, key, hash, *entry, dense_value, events::kNone, 1)) return;
    }
    if (OptionIs(name, "TODENSE")) {
      context.reply.Integer(sparse ? 1 : 0);
      return;
    }
    context.reply.ArrayHeader(hll::kRegisters);
    for (int i = 0; i < hll::kRegisters; i++) {
      context.reply.Integer(hll::DenseRegister(dense_value, i));
    }
    return;
  }
  if (OptionIs(name, "DECODE")) {
    if (!sparse) {
      context.reply.Error("ERR HLL encoding is not sparse");
      return;
    }
    const size_t capacity = 8 * (entry->value_size() - hll::kHeaderBytes) + 16;
    ScratchBuffer text(context.memory());
    size_t size = 0;
    if (!text.Allocate(capacity)) {
      context.reply.Error(errors::kOom);
      return;
    }
    if (!hll::Decode(entry->value(), text.data(), capacity, &size)) {
      context.reply.Error(hll::kInvalidHll);
      return;
    }
    context.reply.Bulk({text.data(), size});
    return;
  }
  if (OptionIs(name, "ENCODING")) {
    context.reply.SimpleString(sparse ? "sparse" : "dense");
    return;
  }
  context.reply.Error("ERR Unknown PFDEBUG subcommand '" + std::string(name) + "'");
}

// PFSELFTEST: Keel's own checks of the representation (Redis's runs its own): every dense
// register reads back what was stored, and a sparse and a dense HyperLogLog fed the same
// elements give the same count, within the estimator's error of the truth.
bool SelfTest(ScratchBuffer& sparse_work, ScratchBuffer& dense_work, std::string* failure) {
  hll::Buffer dense{dense_work.data(), hll::kEmptySparseBytes, hll::kWorkBytes};
  hll::WriteEmpty(dense.data);
  if (!hll::ToDense(dense)) return false;
  for (int i = 0; i < hll::kRegisters; i++) {
    const int value = 1 + (i * 7919) % (hll::kHashBits + 1);
    hll::Set(dense, i, value, 0);
    if (hll::DenseRegister({dense.data, dense.size}, i) != value) {
      *failure = "TESTFAILED Register error at " + std::to_string(i);
      return false;
    }
  }
  hll::Buffer sparse{sparse_work.data(), hll::kEmptySparseBytes, hll::kWorkBytes};
  hll::WriteEmpty(sparse.data);
  dense.size = hll::kEmptySparseBytes;
  hll::WriteEmpty(dense.data);
  if (!hll::ToDense(dense)) return false;
  const double relative_error_max = 5 * 1.04 / std::sqrt(double{hll::kRegisters});
  for (int i = 1; i <= 20000; i++) {
    const std::string element = "pfselftest:" + std::to_string(i);
    int index = 0;
    int count = 0;
    hll::Pattern(element, &index, &count);
    // A sparse limit no value reaches, so that it stays sparse as long as values allow.
    hll::Set(sparse, index, count, hll::kSparseBytesMax);
    hll::Set(dense, index, count, 0);
    if (i != 10 && i != 100 && i != 1000 && i != 10000 && i != 20000) continue;
    uint64_t sparse_count = 0;
    uint64_t dense_count = 0;
    if (!hll::Count({sparse.data, sparse.size}, &sparse_count) ||
        !hll::Count({dense.data, dense.size}, &dense_count) || sparse_count != dense_count) {
      *failure = "TESTFAILED sparse and dense counts differ at " + std::to_string(i);
      return false;
    }
    const double error = std::abs(static_cast<double>(dense_count) - i) / i;
    if (error > relative_error_max) {
      *failure = "TESTFAILED too big error. card:" + std::to_string(i) +
                 " counted:" + std::to_string(dense_count);
      return false;
    }
  }
  return true;
}

void CmdPfselftest(CommandContext& context) {
  ScratchBuffer sparse_work(context.memory());
  ScratchBuffer dense_work(context.memory());
  if (!sparse_work.Allocate(hll::kWorkBytes) || !dense_work.Allocate(hll::kWorkBytes)) {
    context.reply.Error(errors::kOom);
    return;
  }
  std::string failure;
  if (!SelfTest(sparse_work, dense_work, &failure)) {
    context.reply.Error("ERR " + failure);
    return;
  }
  context.reply.Ok();
}

// Copied from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS.
constexpr CommandDef kHyperLogLogCommands[] = {
    {.name = "pfadd",
     .arity = -2,
     .flags = "write denyoom fast",
     .acl = "@hyperloglog",
     .keys = "RW insert: index 1 range 0 1 0",
     .group = "hyperloglog",
     .since = "2.8.9",
     .complexity = "O(1) to add every element.",
     .summary = "Adds the specified elements to the specified HyperLogLog.",
     .args = "key:key#0 ?*element",
     .handler = CmdPfadd},
    {.name = "pfcount",
     .arity = -2,
     .flags = "readonly may_replicate",
     .acl = "@hyperloglog",
     .keys = "RW access: index 1 range -1 1 0 | RW because it may change the internal "
             "representation of the key, and propagate to replicas",
     .group = "hyperloglog",
     .since = "2.8.9",
     .complexity = "O(1) with a very small average constant time when called with a single key. "
                   "O(N) with N being the number of keys, and much bigger constant times, when "
                   "called with multiple keys.",
     .summary = "Return the approximated cardinality of the set(s) observed by the HyperLogLog "
                "at key(s).",
     .args = "*key:key#0",
     .handler = CmdPfcount},
    {.name = "pfmerge",
     .arity = -2,
     .flags = "write denyoom",
     .acl = "@hyperloglog",
     .keys = "RW access insert: index 1 range 0 1 0;RO access: index 2 range -1 1 0",
     .group = "hyperloglog",
     .since = "2.8.9",
     .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
     .summary = "Merge N different HyperLogLogs into a single one.",
     .args = "destkey:key#0 *sourcekey:key#1",
     .handler = CmdPfmerge},
    {.name = "pfdebug",
     .arity = 3,
     .flags = "write denyoom admin",
     .acl = "@hyperloglog",
     .keys = "RW access: index 2 range 0 1 0",
     .group = "hyperloglog",
     .since = "2.8.9",
     .complexity = "N/A",
     .summary = "Internal commands for debugging HyperLogLog values",
     .args = "subcommand key:key#0",
     .handler = CmdPfdebug,
     .doc_flags = "syscmd"},
    {.name = "pfselftest",
     .arity = 1,
     .flags = "admin",
     .acl = "@hyperloglog",
     .keys = "",
     .group = "hyperloglog",
     .since = "2.8.9",
     .complexity = "N/A",
     .summary = "An internal command for testing HyperLogLog values",
     .args = "",
     .handler = CmdPfselftest,
     .doc_flags = "syscmd"},
};

}  // namespace

void RegisterHyperLogLogCommands(Registry& registry) { registry.Add(kHyperLogLogCommands); }

}  // namespace keel
