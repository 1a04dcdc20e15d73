// Bitmaps: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP over string values, as Redis 7.0's
// bitops.c computes them (BITFIELD is in cmd_bitfield.cc, the word-at-a-time loops in
// engine/db/types/bitmap.cc). The values are plain strings in Redis's byte layout.
//
// Writes go through the keyspace's write path: SETBIT grows the string in place with room to
// spare (Keyspace::GrowString, amortised like APPEND), so setting bits one after another past
// the end costs O(1) each; a refused allocation is the OOM error and changes nothing.
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/commands/bit_args.h"
#include "engine/commands/scratch.h"
#include "engine/db/keyspace.h"
#include "engine/db/notify.h"
#include "engine/db/types/bitmap.h"

namespace keel {

bool ParseBitOffset(CommandContext& context, std::string_view text, int field_bits,
                    uint64_t* bit_offset) {
  const bool fields = field_bits > 0 && !text.empty() && text[0] == '#';
  int64_t offset = 0;
  if (!ParseStrictInt64(fields ? text.substr(1) : text, &offset) ||
      (fields && __builtin_mul_overflow(offset, int64_t{field_bits}, &offset)) || offset < 0) {
    context.reply.Error(kBadBitOffset);
    return false;
  }
  const uint64_t byte = static_cast<uint64_t>(offset) >> 3;
  if (byte >= static_cast<uint64_t>(context.config().proto_max_bulk_len) ||
      byte >= kBitOffsetBytesMax) {
    context.reply.Error(kBadBitOffset);
    return false;
  }
  *bit_offset = static_cast<uint64_t>(offset);
  return true;
}

namespace {

constexpr std::string_view kBadBit = "ERR bit is not an integer or out of range";

// SETBIT key offset value: replies with the bit's old value. A new key is exactly as long as
// the bit needs; an existing one grows zero padded. Only a change (a new bit value or a longer
// string) is counted and announced ("setbit"), as in Redis 7.0.15; the value becomes raw
// either way (dbUnshareStringValue).
void CmdSetbit(CommandContext& context) {
  uint64_t bit_offset = 0;
  if (!ParseBitOffset(context, context.arg(2), 0, &bit_offset)) return;
  int64_t on = 0;
  if (!ParseStrictInt64(context.arg(3), &on) || (on & ~int64_t{1}) != 0) {
    context.reply.Error(kBadBit);
    return;
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
  const size_t byte = static_cast<size_t>(bit_offset >> 3);
  const auto mask = static_cast<unsigned char>(0x80u >> (bit_offset & 7));
  if (entry == nullptr) {
    ScratchBuffer created(context.memory());
    if (!created.Allocate(byte + 1)) {
      context.reply.Error(errors::kOom);
      return;
    }
    std::memset(created.data(), 0, byte + 1);
    if (on) created.data()[byte] = static_cast<char>(mask);
    if (keyspace.SetString(db, key, hash, created.view(), kNoExpiry, ObjectEncoding::kRaw,
                           events::kSetbit) == Database::SetOutcome::kOutOfMemory) {
      context.reply.Error(errors::kOom);
      return;
    }
    context.reply.Integer(0);
    return;
  }
  const bool grows = byte >= entry->value_size();
  const bool old_bit = bitmap::GetBit(entry->value(), bit_offset);
  const bool was_raw = entry->raw_string();
  // A raw string long enough is edited where it is: no unsharing, no growth (the common case).
  if (grows || !was_raw) entry = keyspace.GrowString(db, entry, hash, byte + 1);
  if (entry == nullptr) {
    context.reply.Error(errors::kOom);
    return;
  }
  if (grows || old_bit != (on != 0)) {
    auto& target = reinterpret_cast<unsigned char&>(entry->value_data()[byte]);
    target =
        on ? static_cast<unsigned char>(target | mask) : static_cast<unsigned char>(target & ~mask);
    keyspace.KeyChanged(db, key, events::kSetbit);
  }
  // Otherwise at most made raw, which Redis's dbUnshareStringValue does without signalling a
  // modified key: no WATCH breaks, nothing is counted or announced.
  context.reply.Integer(old_bit ? 1 : 0);
}

// GETBIT key offset: bits past the end (and of a missing key) are 0. The offset is checked
// before the key is looked up.
void CmdGetbit(CommandContext& context) {
  uint64_t bit_offset = 0;
  if (!ParseBitOffset(context, context.arg(2), 0, &bit_offset)) return;
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry != nullptr && entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return;
  }
  context.reply.Integer(entry != nullptr && bitmap::GetBit(entry->value(), bit_offset) ? 1 : 0);
}

// Looks up the string args[1] for BITCOUNT and BITPOS. Returns false after replying: WRONGTYPE,
// or `missing_reply` for a missing key (Redis answers before it parses the range).
bool LookupBitString(CommandContext& context, int64_t missing_reply, std::string_view* value) {
  const Entry* entry = context.keyspace.Lookup(context.db_index(), context.arg(1));
  if (entry == nullptr) {
    context.reply.Integer(missing_reply);
    return false;
  }
  if (entry->type() != ValueType::kString) {
    context.reply.Error(errors::kWrongType);
    return false;
  }
  *value = entry->value();
  return true;
}

// BYTE or BIT (any case) at args[index]; false after a syntax error.
bool ParseIndexUnit(CommandContext& context, size_t index, bool* in_bits) {
  if (OptionIs(context.arg(index), "BIT")) {
    *in_bits = true;
  } else if (OptionIs(context.arg(index), "BYTE")) {
    *in_bits = false;
  } else {
    context.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

// Redis's conversion of a start/end pair over `total` units: negative indexes count from the
// end, then both are clamped to [0, total - 1]. The range may come out empty (start > end).
void ClampRange(int64_t total, int64_t* start, int64_t* end) {
  if (*start < 0) *start += total;
  if (*end < 0) *end += total;
  *start = std::max<int64_t>(*start, 0);
  *end = std::max<int64_t>(*end, 0);
  if (*end >= total) *end = total - 1;
}

// BITCOUNT key [start end [BYTE|BIT]].
void CmdBitcount(CommandContext& context) {
  std::string_view value;
  if (!LookupBitString(context, 0, &value)) return;
  const auto length = static_cast<int64_t>(value.size());
  if (context.argc() == 2) {
    context.reply.Integer(static_cast<int64_t>(bitmap::CountBits(value)));
    return;
  }
  if (context.argc() != 4 && context.argc() != 5) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  int64_t start = 0;
  int64_t end = 0;
  if (!ParseStrictInt64(context.arg(2), &start) || !ParseStrictInt64(context.arg(3), &end)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  // Both from the end with start past end is empty even where clamping would make them meet,
  // and Redis answers so before it reads the unit (BITCOUNT k -2 -5 junk is 0).
  if (start < 0 && end < 0 && start > end) {
    context.reply.Integer(0);
    return;
  }
  bool in_bits = false;
  if (context.argc() == 5 && !ParseIndexUnit(context, 4, &in_bits)) return;
  ClampRange(in_bits ? length * 8 : length, &start, &end);
  if (start > end) {
    context.reply.Integer(0);
    return;
  }
  const uint64_t first_bit =
      in_bits ? static_cast<uint64_t>(start) : 8 * static_cast<uint64_t>(start);
  const uint64_t last_bit =
      in_bits ? static_cast<uint64_t>(end) : 8 * static_cast<uint64_t>(end) + 7;
  context.reply.Integer(static_cast<int64_t>(bitmap::CountBitRange(value, first_bit, last_bit)));
}

// BITPOS key bit [start [end [BYTE|BIT]]]: the first bit equal to `bit` in the range, or -1. A
// missing key is all zeros (0 for a clear bit, -1 for a set one); looking for a clear bit with
// no end given finds the first bit past the string when the range has none, as Redis treats
// the string as zero padded on the right.
void CmdBitpos(CommandContext& context) {
  int64_t bit = 0;
  if (!ParseStrictInt64(context.arg(2), &bit)) {
    context.reply.Error(errors::kNotInteger);
    return;
  }
  if (bit != 0 && bit != 1) {
    context.reply.Error("ERR The bit argument must be 1 or 0.");
    return;
  }
  std::string_view value;
  if (!LookupBitString(context, bit ? -1 : 0, &value)) return;
  const auto length = static_cast<int64_t>(value.size());
  int64_t start = 0;
  int64_t end = length - 1;
  bool in_bits = false;
  const bool end_given = context.argc() >= 5;
  if (context.argc() > 6) {
    context.reply.Error(errors::kSyntax);
    return;
  }
  if (context.argc() >= 4) {
    if (!ParseStrictInt64(context.arg(3), &start)) {
      context.reply.Error(errors::kNotInteger);
      return;
    }
    // The unit is read before the end (a bad unit is a syntax error even with a bad end).
    if (context.argc() == 6 && !ParseIndexUnit(context, 5, &in_bits)) return;
    if (end_given && !ParseStrictInt64(context.arg(4), &end)) {
      context.reply.Error(errors::kNotInteger);
      return;
    }
    if (!end_given) end = in_bits ? length * 8 - 1 : length - 1;
    ClampRange(in_bits ? length * 8 : length, &start, &end);
  }
  if (start > end) {
    context.reply.Integer(-1);
    return;
  }
  const uint64_t first_bit =
      in_bits ? static_cast<uint64_t>(start) : 8 * static_cast<uint64_t>(start);
  const uint64_t last_bit =
      in_bits ? static_cast<uint64_t>(end) : 8 * static_cast<uint64_t>(end) + 7;
  int64_t position = bitmap::FindBit(value, first_bit, last_bit, bit == 1);
  if (position < 0 && bit == 0 && !end_given) position = static_cast<int64_t>(last_bit + 1);
  context.reply.Integer(position);
}

// BITOP AND|OR|XOR|NOT destkey key [key ...]: the result, as long as the longest source, is
// stored as a new raw string without expiry ("set"); an empty result deletes destkey ("del").
// Replies with the result's length.
void CmdBitop(CommandContext& context) {
  const std::string_view name = context.arg(1);
  bitmap::BitOperation operation;
  if (OptionIs(name, "AND")) {
    operation = bitmap::BitOperation::kAnd;
  } else if (OptionIs(name, "OR")) {
    operation = bitmap::BitOperation::kOr;
  } else if (OptionIs(name, "XOR")) {
    operation = bitmap::BitOperation::kXor;
  } else if (OptionIs(name, "NOT")) {
    operation = bitmap::BitOperation::kNot;
  } else {
    context.reply.Error(errors::kSyntax);
    return;
  }
  if (operation == bitmap::BitOperation::kNot && context.argc() != 4) {
    context.reply.Error("ERR BITOP NOT must be called with a single source key.");
    return;
  }
  const int db = context.db_index();
  std::vector<std::string_view> sources;
  sources.reserve(context.argc() - 3);
  size_t size = 0;
  for (size_t i = 3; i < context.argc(); i++) {
    const Entry* entry = context.keyspace.Lookup(db, context.arg(i));
    if (entry != nullptr && entry->type() != ValueType::kString) {
      context.reply.Error(errors::kWrongType);
      return;
    }
    sources.push_back(entry != nullptr ? entry->value() : std::string_view());
    size = std::max(size, sources.back().size());
  }
  const std::string_view destination = context.arg(2);
  const uint64_t hash = context.keyspace.Hash(db, destination);
  if (size == 0) {
    context.keyspace.Delete(db, destination, hash);
    context.reply.Integer(0);
    return;
  }
  ScratchBuffer result(context.memory());
  if (!result.Allocate(size)) {
    context.reply.Error(errors::kOom);
    return;
  }
  bitmap::Combine(operation, sources, size, reinterpret_cast<unsigned char*>(result.data()));
  if (context.keyspace.SetString(db, destination, hash, result.view(), kNoExpiry,
                                 ObjectEncoding::kRaw,
                                 events::kSet) == Database::SetOutcome::kOutOfMemory) {
    context.reply.Error(errors::kOom);
    return;
  }
  context.reply.Integer(static_cast<int64_t>(size));
}

// Copied from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS.
constexpr CommandDef kBitmapCommands[] = {
    {.name = "setbit",
     .arity = 4,
     .flags = "write denyoom",
     .acl = "@bitmap",
     .keys = "RW access update: index 1 range 0 1 0",
     .group = "bitmap",
     .since = "2.2.0",
     .complexity = "O(1)",
     .summary = "Sets or clears the bit at offset in the string value stored at key",
     .args = "key:key#0 offset:integer value:integer",
     .handler = CmdSetbit},
    {.name = "getbit",
     .arity = 3,
     .flags = "readonly fast",
     .acl = "@bitmap",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "bitmap",
     .since = "2.2.0",
     .complexity = "O(1)",
     .summary = "Returns the bit value at offset in the string value stored at key",
     .args = "key:key#0 offset:integer",
     .handler = CmdGetbit},
    {.name = "bitcount",
     .arity = -2,
     .flags = "readonly",
     .acl = "@bitmap",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "bitmap",
     .since = "2.6.0",
     .complexity = "O(N)",
     .summary = "Count set bits in a string",
     .args = "key:key#0 ?index:block{start:integer end:integer "
             "?index_unit:oneof@7.0.0{byte=BYTE bit=BIT}}",
     .handler = CmdBitcount,
     .history = "7.0.0 Added the `BYTE|BIT` option."},
    {.name = "bitpos",
     .arity = -3,
     .flags = "readonly",
     .acl = "@bitmap",
     .keys = "RO access: index 1 range 0 1 0",
     .group = "bitmap",
     .since = "2.8.7",
     .complexity = "O(N)",
     .summary = "Find first bit set or clear in a string",
     .args = "key:key#0 bit:integer ?index:block{start:integer ?end_index:block{end:integer "
             "?index_unit:oneof@7.0.0{byte=BYTE bit=BIT}}}",
     .handler = CmdBitpos,
     .history = "7.0.0 Added the `BYTE|BIT` option."},
    {.name = "bitop",
     .arity = -4,
     .flags = "write denyoom",
     .acl = "@bitmap",
     .keys = "OW update: index 2 range 0 1 0;RO access: index 3 range -1 1 0",
     .group = "bitmap",
     .since = "2.6.0",
     .complexity = "O(N)",
     .summary = "Perform bitwise operations between strings",
     .args = "operation destkey:key#0 *key:key#1",
     .handler = CmdBitop},
};

}  // namespace

void RegisterBitmapCommands(Registry& registry) { registry.Add(kBitmapCommands); }

}  // namespace keel
