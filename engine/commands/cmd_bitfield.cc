// BITFIELD and BITFIELD_RO: GET, SET and INCRBY on signed (i1..i64) and unsigned (u1..u63)
// fields at bit offsets (or "#N", N fields of the type's width), with OVERFLOW WRAP, SAT or
// FAIL applying to the subcommands after it, as bitops.c's bitfieldGeneric runs them.
//
// Every subcommand is parsed before anything is read or written, so an error anywhere leaves
// the key as it was. A call with a write first makes the string long enough for its farthest
// write (zero padded, raw), then runs the subcommands in order over it: each SET and INCRBY,
// that FAIL did not refuse is one change, announced once as "setbit" (Redis's dirty count).
#include <optional>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/bit_args.h"
#include "engine/commands/scratch.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/bitmap.h"

namespace keel {
namespace {

enum class FieldOpcode : uint8_t { kGet, kSet, kIncrby };

struct FieldOp {
  FieldOpcode opcode;
  bool is_signed;
  int bits;
  uint64_t bit_offset;
  int64_t argument;  // SET's value, INCRBY's increment
  bitmap::Overflow overflow;
};

// Redis's getBitfieldTypeFromArgument: 'i' or 'u' then the width, u64 refused (a reply cannot
// hold it). The argument is read up to its first NUL byte, as Redis's strlen does.
bool ParseFieldType(CommandContext& context, std::string_view text, bool* is_signed, int* bits) {
  text = text.substr(0, text.find('\0'));
  int64_t width = 0;
  const bool ok = !text.empty() && (text[0] == 'i' || text[0] == 'u') &&
                  ParseStrictInt64(text.substr(1), &width) && width >= 1 &&
                  width <= (text[0] == 'i' ? 64 : 63);
  if (!ok) {
    context.reply.Error(
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
        "but i64 is.");
    return false;
  }
  *is_signed = text[0] == 'i';
  *bits = static_cast<int>(width);
  return true;
}

// Parses every subcommand into `ops`. Returns false after replying with the first error.
bool ParseFieldOps(CommandContext& context, std::vector<FieldOp>* ops) {
  bitmap::Overflow overflow = bitmap::Overflow::kWrap;
  for (size_t i = 2; i < context.argc(); i++) {
    const size_t remaining = context.argc() - i - 1;
    const std::string_view name = context.arg(i);
    FieldOp op{};
    if (OptionIs(name, "GET") && remaining >= 2) {
      op.opcode = FieldOpcode::kGet;
    } else if (OptionIs(name, "SET") && remaining >= 3) {
      op.opcode = FieldOpcode::kSet;
    } else if (OptionIs(name, "INCRBY") && remaining >= 3) {
      op.opcode = FieldOpcode::kIncrby;
    } else if (OptionIs(name, "OVERFLOW") && remaining >= 1) {
      const std::string_view type = context.arg(++i);
      if (OptionIs(type, "WRAP")) {
        overflow = bitmap::Overflow::kWrap;
      } else if (OptionIs(type, "SAT")) {
        overflow = bitmap::Overflow::kSat;
      } else if (OptionIs(type, "FAIL")) {
        overflow = bitmap::Overflow::kFail;
      } else {
        context.reply.Error("ERR Invalid OVERFLOW type specified");
        return false;
      }
      continue;
    } else {
      context.reply.Error(errors::kSyntax);
      return false;
    }
    if (!ParseFieldType(context, context.arg(i + 1), &op.is_signed, &op.bits)) return false;
    if (!ParseBitOffset(context, context.arg(i + 2), op.bits, &op.bit_offset)) return false;
    if (op.opcode != FieldOpcode::kGet && !ParseStrictInt64(context.arg(i + 3), &op.argument)) {
      context.reply.Error(errors::kNotInteger);
      return false;
    }
    op.overflow = overflow;
    ops->push_back(op);
    i += op.opcode == FieldOpcode::kGet ? 2 : 3;
  }
  return true;
}

// Runs one SET or INCRBY over `bytes` (long enough for it). Returns the reply: the old value
// (SET) or the new one (INCRBY), or nothing when FAIL refused the overflow.
std::optional<int64_t> RunWrite(const FieldOp& op, std::span<char> bytes) {
  const std::string_view view(bytes.data(), bytes.size());
  const bool increment = op.opcode == FieldOpcode::kIncrby;
  bitmap::FieldResult result;
  int64_t old_value;
  if (op.is_signed) {
    old_value = bitmap::GetSignedField(view, op.bit_offset, op.bits);
    result = increment ? bitmap::AddSigned(old_value, op.argument, op.bits, op.overflow)
                       : bitmap::AddSigned(op.argument, 0, op.bits, op.overflow);
  } else {
    old_value = static_cast<int64_t>(bitmap::GetField(view, op.bit_offset, op.bits));
    result = increment
                 ? bitmap::AddUnsigned(static_cast<uint64_t>(old_value), op.argument, op.bits,
                                       op.overflow)
                 : bitmap::AddUnsigned(static_cast<uint64_t>(op.argument), 0, op.bits, op.overflow);
  }
  if (result.overflowed && op.overflow == bitmap::Overflow::kFail) return std::nullopt;
  bitmap::SetField(bytes, op.bit_offset, op.bits, result.value);
  return increment ? static_cast<int64_t>(result.value) : old_value;
}

int64_t RunGet(const FieldOp& op, std::string_view bytes) {
  return op.is_signed ? bitmap::GetSignedField(bytes, op.bit_offset, op.bits)
                      : static_cast<int64_t>(bitmap::GetField(bytes, op.bit_offset, op.bits));
}

// Runs `ops` in order over `bytes`, collecting the replies. Returns the changes: the writes
// that FAIL did not refuse (Redis 7.0.15 counts only those).
uint64_t RunOps(const std::vector<FieldOp>& ops, std::span<char> bytes,
                std::vector<std::optional<int64_t>>* replies) {
  uint64_t changes = 0;
  for (const FieldOp& op : ops) {
    if (op.opcode == FieldOpcode::kGet) {
      replies->push_back(RunGet(op, std::string_view(bytes.data(), bytes.size())));
    } else {
      replies->push_back(RunWrite(op, bytes));
      if (replies->back().has_value()) changes++;
    }
  }
  return changes;
}

void ReplyWith(CommandContext& context, const std::vector<std::optional<int64_t>>& replies) {
  context.reply.ArrayHeader(replies.size());
  for (const std::optional<int64_t>& value : replies) {
    if (value.has_value()) {
      context.reply.Integer(*value);
    } else {
      context.reply.NullBulk();
    }
  }
}

// Only GETs: a read of the key (missing reads as empty).
void RunReadOnly(CommandContext& context, const std::vector<FieldOp>& ops) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry != nullptr && entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  const std::string_view bytes = entry != nullptr ? entry->value() : std::string_view();
  context.reply.ArrayHeader(ops.size());
  for (const FieldOp& op : ops) context.reply.Integer(RunGet(op, bytes));
}

void RunWithWrites(CommandContext& context, const std::vector<FieldOp>& ops) {
  uint64_t size = 0;
  for (const FieldOp& op : ops) {
    if (op.opcode != FieldOpcode::kGet) {
      size = std::max(size, ((op.bit_offset + static_cast<uint64_t>(op.bits) - 1) >> 3) + 1);
    }
  }
  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  const std::string_view key = context.arg(1);
  const uint64_t hash = keyspace.Hash(db, key);
  Entry* entry = keyspace.LookupWrite(db, key, hash);
  if (entry != nullptr && entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  std::vector<std::optional<int64_t>> replies;
  replies.reserve(ops.size());
  if (entry == nullptr) {
    // Redis adds the zeroed string ("new") and then runs the subcommands over it: here they run
    // over the new bytes first, so that a refused allocation leaves no key behind.
    ScratchBuffer created(context.memory());
    if (!created.Allocate(size)) {
      context.reply.Error(errors::kOom);
      return;
    }
    std::memset(created.data(), 0, size);
    const uint64_t changes = RunOps(ops, {created.data(), size}, &replies);
    // Nothing written (every write refused by FAIL): the zeroed key is added all the same
    // ("new" only). Redis 7.0.15 counts no change then, so it does not propagate the key it
    // created and a replica misses it; Keel counts one, so that replicas have it too.
    const KeyEvent event = changes > 0 ? events::kSetbit : events::kNone;
    if (keyspace.SetString(db, key, hash, created.view(), kNoExpiry, ObjectEncoding::kRaw, event) ==
        Database::SetOutcome::kOutOfMemory) {
      context.reply.Error(errors::kOom);
      return;
    }
    // SetString counted one change; the others are counted without a second event.
    if (changes > 1) keyspace.KeyChanged(db, key, events::kNone, changes - 1);
    ReplyWith(context, replies);
    return;
  }
  const size_t old_size = entry->value_size();
  entry = keyspace.GrowString(db, entry, hash, std::max<size_t>(size, entry->value_size()));
  if (entry == nullptr) {
    context.reply.Error(errors::kOom);
    return;
  }
  const uint64_t changes = RunOps(ops, entry->mutable_value(), &replies);
  if (changes > 0) {
    keyspace.KeyChanged(db, key, events::kSetbit, changes);
  } else if (entry->value_size() != old_size) {
    // Grown, but nothing written: Redis neither counts nor announces it (so a replica keeps the
    // shorter string); Keel counts one change, announced to no one, so that it is propagated.
    keyspace.KeyChanged(db, key, events::kNone, 1);
  }
  // Otherwise at most made raw, which signals no modified key in Redis (dbUnshareStringValue).
  ReplyWith(context, replies);
}

void BitfieldGeneric(CommandContext& context, bool read_only_command) {
  std::vector<FieldOp> ops;
  if (!ParseFieldOps(context, &ops)) return;
  bool writes = false;
  for (const FieldOp& op : ops) writes = writes || op.opcode != FieldOpcode::kGet;
  if (!writes) {
    RunReadOnly(context, ops);
    return;
  }
  if (read_only_command) {
    context.reply.Error("ERR BITFIELD_RO only supports the GET subcommand");
    return;
  }
  RunWithWrites(context, ops);
}

void CmdBitfield(CommandContext& context) { BitfieldGeneric(context, false); }
void CmdBitfieldRo(CommandContext& context) { BitfieldGeneric(context, true); }

// BITFIELD writes its key only when a SET or INCRBY is among its arguments (Redis's
// bitfieldGetKeys): RW access update then, RO access otherwise.
bool FindBitfieldKeys(std::span<const std::string_view> args, std::vector<KeyReference>* keys) {
  if (args.size() < 2) return false;
  bool writes = false;
  for (size_t i = 2; i < args.size(); i++) {
    writes = writes || OptionIs(args[i], "SET") || OptionIs(args[i], "INCRBY");
  }
  keys->push_back({1, writes ? kKeyRW | kKeyAccess | kKeyUpdate : kKeyRO | kKeyAccess});
  return true;
}

// Copied from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS.
constexpr CommandDef kBitfieldCommands[] = {
    {.name = "bitfield",
     .arity = -2,
     .flags = "write denyoom",
     .acl = "@bitmap",
     .keys = "RW access update variable_flags: index 1 range 0 1 0 | This command allows "
             "both access and modification of the key",
     .group = "bitmap",
     .since = "3.2.0",
     .complexity = "O(1) for each subcommand specified",
     .summary = "Perform arbitrary bitfield integer operations on strings",
     .args = "key:key#0 ?*operation:oneof{encoding_offset:block=GET{encoding offset:integer} "
             "write:block{?wrap_sat_fail:oneof=OVERFLOW{wrap=WRAP sat=SAT fail=FAIL} "
             "write_operation:oneof{encoding_offset_value:block=SET{encoding offset:integer "
             "value:integer} encoding_offset_increment:block=INCRBY{encoding offset:integer "
             "increment:integer}}}}",
     .handler = CmdBitfield,
     .find_keys = FindBitfieldKeys},
    {.name = "bitfield_ro",
     .arity = -2,
     .flags = "readonly fast",
     .acl = "@bitmap",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "bitmap",
     .since = "6.0.0",
     .complexity = "O(1) for each subcommand specified",
     .summary = "Perform arbitrary bitfield integer operations on strings. Read-only variant of "
                "BITFIELD",
     .args = "key:key#0 ?*+encoding_offset:block=GET{encoding offset:integer}",
     .handler = CmdBitfieldRo},
};

}  // namespace

void RegisterBitfieldCommands(Registry& registry) { registry.Add(kBitfieldCommands); }

}  // namespace keel
