// Bitmaps in the model: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO,
// written from Redis 7.0's documented rules over a std::string, one bit at a time: bit i is the
// (7 - i % 8)th bit of byte i / 8, bits past the end read as 0, and nothing is optimised.
//
// Writes leave a raw, private string (Redis unshares the value before editing it). SETBIT that
// neither grows the string nor changes the bit counts as no write; BITFIELD counts its SET and
// INCRBY subcommands that FAIL did not refuse.
#include <algorithm>

#include "sim/model/model.h"

namespace keel::model {
namespace {

constexpr std::string_view kBadOffset = "ERR bit offset is not an integer or out of range";
constexpr int64_t kBulkBytesMax = 512LL * 1024 * 1024;  // proto-max-bulk-len's default

bool BitAt(const std::string& bytes, uint64_t i) {
  if (i / 8 >= bytes.size()) return false;
  return (static_cast<unsigned char>(bytes[i / 8]) >> (7 - i % 8)) & 1;
}

void PutBit(std::string& bytes, uint64_t i, bool on) {
  auto& byte = reinterpret_cast<unsigned char&>(bytes[i / 8]);
  const unsigned mask = 0x80u >> (i % 8);
  byte = static_cast<unsigned char>(on ? (byte | mask) : (byte & ~mask));
}

// An offset argument; '#N' means N * `width` when `width` is given (BITFIELD).
bool ParseOffset(const std::string& text, int width, uint64_t* offset) {
  const bool fields = width > 0 && !text.empty() && text[0] == '#';
  int64_t value = 0;
  if (!ParseInt64(fields ? std::string_view(text).substr(1) : std::string_view(text), &value)) {
    return false;
  }
  if (fields) {
    if (value > INT64_MAX / width || value < INT64_MIN / width) return false;
    value *= width;
  }
  if (value < 0 || value / 8 >= kBulkBytesMax) return false;
  *offset = static_cast<uint64_t>(value);
  return true;
}

// The string at `key`, or nullptr; false with *error for another type.
bool StringAt(Call& call, const std::string& key, Value** value, Expected* error) {
  *value = call.Lookup(key);
  if (IsOtherType(*value)) {
    *error = Error(kWrongType);
    return false;
  }
  return true;
}

// Stores `bytes` at `key` as an edited (raw) string, keeping the expiry of `old`. An edit that
// changes no byte is no write: Redis does not touch the key then, although it made the value
// raw (dbUnshareStringValue).
void StoreEdited(Call& call, const std::string& key, const Value* old, std::string bytes) {
  const int64_t expire_at_ms = old != nullptr ? old->expire_at_ms : kNoExpiry;
  Value edited = EditedString(std::move(bytes), expire_at_ms);
  if (old != nullptr && old->string == edited.string) {
    call.Replace(key, std::move(edited));
    return;
  }
  call.Store(key, std::move(edited));
}

Expected Setbit(Call& call) {
  uint64_t offset = 0;
  if (!ParseOffset(call.args[2], 0, &offset)) return Error(kBadOffset);
  int64_t on = 0;
  if (!ParseInt64(call.args[3], &on) || (on != 0 && on != 1)) {
    return Error("ERR bit is not an integer or out of range");
  }
  const std::string& key = call.args[1];
  Value* value = nullptr;
  Expected error;
  if (!StringAt(call, key, &value, &error)) return error;
  std::string bytes = value != nullptr ? value->string : std::string();
  const bool grows = offset / 8 >= bytes.size();
  if (grows && call.context.allocation_refused) return Error(kOomError);
  const bool old = BitAt(bytes, offset);
  if (grows) bytes.resize(offset / 8 + 1, '\0');
  PutBit(bytes, offset, on == 1);
  StoreEdited(call, key, value, std::move(bytes));
  return Integer(old ? 1 : 0);
}

Expected Getbit(Call& call) {
  uint64_t offset = 0;
  if (!ParseOffset(call.args[2], 0, &offset)) return Error(kBadOffset);
  Value* value = nullptr;
  Expected error;
  if (!StringAt(call, call.args[1], &value, &error)) return error;
  return Integer(value != nullptr && BitAt(value->string, offset) ? 1 : 0);
}

// Redis's range rules: negative indexes from the end, then clamped into [0, total - 1].
void Clamp(int64_t total, int64_t* start, int64_t* end) {
  if (*start < 0) *start += total;
  if (*end < 0) *end += total;
  if (*start < 0) *start = 0;
  if (*end < 0) *end = 0;
  if (*end >= total) *end = total - 1;
}

bool ParseUnit(const std::string& text, bool* bits) {
  if (OptionIs(text, "BIT")) {
    *bits = true;
  } else if (OptionIs(text, "BYTE")) {
    *bits = false;
  } else {
    return false;
  }
  return true;
}

Expected Bitcount(Call& call) {
  Value* value = nullptr;
  Expected error;
  if (!StringAt(call, call.args[1], &value, &error)) return error;
  if (value == nullptr) return Integer(0);
  const std::string& bytes = value->string;
  const auto length = static_cast<int64_t>(bytes.size());
  int64_t first = 0;
  int64_t last = length * 8 - 1;
  if (call.args.size() == 4 || call.args.size() == 5) {
    int64_t start = 0;
    int64_t end = 0;
    if (!ParseInt64(call.args[2], &start) || !ParseInt64(call.args[3], &end)) {
      return Error(kNotInteger);
    }
    // bitcountCommand answers 0 for a reversed range from the end before it reads the unit.
    if (start < 0 && end < 0 && start > end) return Integer(0);
    bool bits = false;
    if (call.args.size() == 5 && !ParseUnit(call.args[4], &bits)) return Error(kSyntaxError);
    Clamp(bits ? length * 8 : length, &start, &end);
    if (start > end) return Integer(0);
    first = bits ? start : start * 8;
    last = bits ? end : end * 8 + 7;
  } else if (call.args.size() != 2) {
    return Error(kSyntaxError);
  }
  int64_t count = 0;
  for (int64_t i = first; i <= last; i++) count += BitAt(bytes, static_cast<uint64_t>(i));
  return Integer(count);
}

Expected Bitpos(Call& call) {
  int64_t bit = 0;
  if (!ParseInt64(call.args[2], &bit)) return Error(kNotInteger);
  if (bit != 0 && bit != 1) return Error("ERR The bit argument must be 1 or 0.");
  Value* value = nullptr;
  Expected error;
  if (!StringAt(call, call.args[1], &value, &error)) return error;
  if (value == nullptr) return Integer(bit == 1 ? -1 : 0);
  if (call.args.size() > 6) return Error(kSyntaxError);
  const std::string& bytes = value->string;
  const auto length = static_cast<int64_t>(bytes.size());
  const bool end_given = call.args.size() >= 5;
  bool bits = false;
  int64_t start = 0;
  int64_t end = length - 1;
  if (call.args.size() >= 4) {
    if (!ParseInt64(call.args[3], &start)) return Error(kNotInteger);
    if (call.args.size() == 6 && !ParseUnit(call.args[5], &bits)) return Error(kSyntaxError);
    if (end_given && !ParseInt64(call.args[4], &end)) return Error(kNotInteger);
    if (!end_given) end = bits ? length * 8 - 1 : length - 1;
    Clamp(bits ? length * 8 : length, &start, &end);
  }
  if (start > end) return Integer(-1);
  const int64_t first = bits ? start : start * 8;
  const int64_t last = bits ? end : end * 8 + 7;
  for (int64_t i = first; i <= last; i++) {
    if (BitAt(bytes, static_cast<uint64_t>(i)) == (bit == 1)) return Integer(i);
  }
  // Looking for a clear bit with no end given: the string is zero padded on the right.
  return Integer(bit == 0 && !end_given ? last + 1 : -1);
}

Expected Bitop(Call& call) {
  const std::string& operation = call.args[1];
  const bool is_and = OptionIs(operation, "AND");
  const bool is_or = OptionIs(operation, "OR");
  const bool is_xor = OptionIs(operation, "XOR");
  const bool is_not = OptionIs(operation, "NOT");
  if (!is_and && !is_or && !is_xor && !is_not) return Error(kSyntaxError);
  if (is_not && call.args.size() != 4) {
    return Error("ERR BITOP NOT must be called with a single source key.");
  }
  std::vector<std::string> sources;
  size_t size = 0;
  for (size_t i = 3; i < call.args.size(); i++) {
    Value* value = nullptr;
    Expected error;
    if (!StringAt(call, call.args[i], &value, &error)) return error;
    sources.push_back(value != nullptr ? value->string : std::string());
    size = std::max(size, sources.back().size());
  }
  const std::string& destination = call.args[2];
  if (size == 0) {
    call.db().erase(destination);
    return Integer(0);
  }
  if (call.context.allocation_refused) return Error(kOomError);
  std::string result(size, '\0');
  for (size_t byte = 0; byte < size; byte++) {
    auto at = [&](size_t s) -> unsigned {
      return byte < sources[s].size() ? static_cast<unsigned char>(sources[s][byte]) : 0u;
    };
    unsigned out = at(0);
    for (size_t s = 1; s < sources.size(); s++) {
      out = is_and ? (out & at(s)) : is_or ? (out | at(s)) : (out ^ at(s));
    }
    if (is_not) out = ~out;
    result[byte] = static_cast<char>(out & 0xff);
  }
  call.Store(destination, EditedString(std::move(result), kNoExpiry));
  call.model.MarkWritten(call.session.db, destination);  // even with the same bytes
  return Integer(static_cast<int64_t>(size));
}

// --- BITFIELD ------------------------------------------------------------------------------

struct FieldOp {
  char kind;  // 'g' GET, 's' SET, 'i' INCRBY
  bool is_signed;
  int bits;
  uint64_t offset;
  int64_t argument;
  char overflow;  // 'w' WRAP, 's' SAT, 'f' FAIL
};

// The field's bits as an unsigned number.
uint64_t ReadField(const std::string& bytes, uint64_t offset, int bits) {
  uint64_t value = 0;
  for (int i = 0; i < bits; i++)
    value = value * 2 + BitAt(bytes, offset + static_cast<uint64_t>(i));
  return value;
}

void WriteField(std::string& bytes, uint64_t offset, int bits, uint64_t value) {
  for (int i = 0; i < bits; i++) {
    PutBit(bytes, offset + static_cast<uint64_t>(i), (value >> (bits - 1 - i)) & 1);
  }
}

// The field as a signed number: its top bit counts -2^(bits-1).
int64_t ReadSigned(const std::string& bytes, uint64_t offset, int bits) {
  const uint64_t raw = ReadField(bytes, offset, bits);
  if (bits == 64) return static_cast<int64_t>(raw);
  const int64_t half = int64_t{1} << (bits - 1);
  const auto value = static_cast<int64_t>(raw);
  return value >= half ? value - 2 * half : value;
}

// What a SET or INCRBY stores, from the exact result in 128 bits: within the field's range it
// is stored; past it FAIL refuses, SAT stores the nearest limit, WRAP the result modulo 2^bits.
struct Outcome {
  bool fail;
  uint64_t stored;  // the low `bits` bits
  int64_t reply;
};

__extension__ typedef __int128 Wide;

Outcome Apply(const FieldOp& op, const std::string& bytes) {
  Wide old_value = op.is_signed ? Wide{ReadSigned(bytes, op.offset, op.bits)}
                                : Wide{ReadField(bytes, op.offset, op.bits)};
  Wide wanted;
  if (op.kind == 'i') {
    wanted = old_value + op.argument;
  } else {
    // SET of an unsigned field takes the value as a 64-bit unsigned number, as Redis does.
    wanted = op.is_signed ? Wide{op.argument} : Wide{static_cast<uint64_t>(op.argument)};
  }
  const Wide low = op.is_signed ? -(Wide{1} << (op.bits - 1)) : 0;
  const Wide high = op.is_signed ? (Wide{1} << (op.bits - 1)) - 1 : (Wide{1} << op.bits) - 1;
  Wide result = wanted;
  bool overflow = wanted < low || wanted > high;
  if (overflow) {
    if (op.overflow == 'f') return {true, 0, 0};
    if (op.overflow == 's') {
      result = wanted > high ? high : low;
    } else {
      const Wide span = Wide{1} << op.bits;
      result = ((wanted - low) % span + span) % span + low;
    }
  }
  const auto stored = static_cast<uint64_t>(result);
  const int64_t reply =
      op.kind == 'i' ? static_cast<int64_t>(result) : static_cast<int64_t>(old_value);
  return {false, stored, reply};
}

// Parses the subcommands; false with *error at the first bad one.
bool ParseFieldOps(const Call& call, std::vector<FieldOp>* ops, Expected* error) {
  char overflow = 'w';
  for (size_t i = 2; i < call.args.size(); i++) {
    const size_t remaining = call.args.size() - i - 1;
    const std::string& name = call.args[i];
    FieldOp op{};
    if (OptionIs(name, "GET") && remaining >= 2) {
      op.kind = 'g';
    } else if (OptionIs(name, "SET") && remaining >= 3) {
      op.kind = 's';
    } else if (OptionIs(name, "INCRBY") && remaining >= 3) {
      op.kind = 'i';
    } else if (OptionIs(name, "OVERFLOW") && remaining >= 1) {
      const std::string& type = call.args[++i];
      if (OptionIs(type, "WRAP")) {
        overflow = 'w';
      } else if (OptionIs(type, "SAT")) {
        overflow = 's';
      } else if (OptionIs(type, "FAIL")) {
        overflow = 'f';
      } else {
        *error = Error("ERR Invalid OVERFLOW type specified");
        return false;
      }
      continue;
    } else {
      *error = Error(kSyntaxError);
      return false;
    }
    const std::string type = call.args[i + 1].substr(0, call.args[i + 1].find('\0'));
    int64_t width = 0;
    if (type.empty() || (type[0] != 'i' && type[0] != 'u') ||
        !ParseInt64(std::string_view(type).substr(1), &width) || width < 1 ||
        width > (type[0] == 'i' ? 64 : 63)) {
      *error = Error(
          "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
          "but i64 is.");
      return false;
    }
    op.is_signed = type[0] == 'i';
    op.bits = static_cast<int>(width);
    if (!ParseOffset(call.args[i + 2], op.bits, &op.offset)) {
      *error = Error(kBadOffset);
      return false;
    }
    if (op.kind != 'g' && !ParseInt64(call.args[i + 3], &op.argument)) {
      *error = Error(kNotInteger);
      return false;
    }
    op.overflow = overflow;
    ops->push_back(op);
    i += op.kind == 'g' ? 2 : 3;
  }
  return true;
}

Expected BitfieldGeneric(Call& call, bool read_only_command) {
  std::vector<FieldOp> ops;
  Expected error;
  if (!ParseFieldOps(call, &ops, &error)) return error;
  const bool writes =
      std::any_of(ops.begin(), ops.end(), [](const FieldOp& op) { return op.kind != 'g'; });
  if (writes && read_only_command) {
    return Error("ERR BITFIELD_RO only supports the GET subcommand");
  }
  const std::string& key = call.args[1];
  Value* value = nullptr;
  if (!StringAt(call, key, &value, &error)) return error;
  std::string bytes = value != nullptr ? value->string : std::string();
  std::vector<RespValue> replies;
  if (!writes) {
    for (const FieldOp& op : ops) {
      replies.push_back(RespValue::Integer(
          op.is_signed ? ReadSigned(bytes, op.offset, op.bits)
                       : static_cast<int64_t>(ReadField(bytes, op.offset, op.bits))));
    }
    return Array(std::move(replies));
  }
  uint64_t size = 0;
  for (const FieldOp& op : ops) {
    if (op.kind != 'g')
      size = std::max<uint64_t>(size, (op.offset + static_cast<uint64_t>(op.bits) + 7) / 8);
  }
  if (size > bytes.size() || value == nullptr) {
    if (call.context.allocation_refused) return Error(kOomError);
    bytes.resize(std::max<size_t>(bytes.size(), size), '\0');
  }
  bool written = false;
  for (const FieldOp& op : ops) {
    if (op.kind == 'g') {
      replies.push_back(RespValue::Integer(
          op.is_signed ? ReadSigned(bytes, op.offset, op.bits)
                       : static_cast<int64_t>(ReadField(bytes, op.offset, op.bits))));
      continue;
    }
    const Outcome outcome = Apply(op, bytes);
    if (outcome.fail) {
      RespValue null;
      null.type = call.session.resp == 3 ? RespType::kNull : RespType::kNullBulk;
      replies.push_back(null);
      continue;
    }
    WriteField(bytes, op.offset, op.bits, outcome.stored);
    replies.push_back(RespValue::Integer(outcome.reply));
    written = true;
  }
  StoreEdited(call, key, value, std::move(bytes));
  if (written) {
    call.model.MarkWritten(call.session.db, key);
  } else {
    call.model.MarkUnannounced(call.session.db, key);
  }
  return Array(std::move(replies));
}

Expected Bitfield(Call& call) { return BitfieldGeneric(call, false); }
Expected BitfieldRo(Call& call) { return BitfieldGeneric(call, true); }

constexpr Command kCommands[] = {
    {"setbit", kAllocates, Setbit}, {"getbit", 0, Getbit},
    {"bitcount", 0, Bitcount},      {"bitpos", 0, Bitpos},
    {"bitop", kAllocates, Bitop},   {"bitfield", kAllocates, Bitfield},
    {"bitfield_ro", 0, BitfieldRo},
};

}  // namespace

std::span<const Command> BitCommands() { return kCommands; }

}  // namespace keel::model
