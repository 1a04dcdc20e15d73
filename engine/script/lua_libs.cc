#include "engine/script/lua_libs.h"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace keel {
namespace {

// ============================================================================================
// struct: pack, unpack, size (Redis's lua_struct.c). Formats: > < big/little endian, ![n]
// alignment, x padding, b/B h/H l/L T i[n]/I[n] integers (n bytes, up to 32), f float, d double,
// c[n] n chars (c0: the whole string when packing, the previous number's length when
// unpacking), s zero-terminated string, ' ' ignored.
// ============================================================================================

constexpr int kStructIntSizeMax = 32;
// The strictest alignment of the machine: a double's.
constexpr int kStructAlignMax = 8;

enum Endian : int { kBig = 0, kLittle = 1 };

struct StructHeader {
  int endian = kLittle;  // the machine's (x86-64 and ARM64 are little endian)
  int align = 1;
};

bool IsPowerOf2(int value) { return value > 0 && (value & (value - 1)) == 0; }

int ReadCount(lua_State* state, const char** format, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(**format))) return fallback;
  int value = 0;
  do {
    if (value > INT_MAX / 10 || value * 10 > INT_MAX - (**format - '0')) {
      luaL_error(state, "integral size overflow");
    }
    value = value * 10 + *((*format)++) - '0';
  } while (std::isdigit(static_cast<unsigned char>(**format)));
  return value;
}

size_t OptionSize(lua_State* state, char option, const char** format) {
  switch (option) {
    case 'B':
    case 'b':
      return 1;
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return static_cast<size_t>(ReadCount(state, format, 1));
    case 'i':
    case 'I': {
      const int size = ReadCount(state, format, sizeof(int));
      if (size > kStructIntSizeMax) {
        luaL_error(state, "integral size %d is larger than limit of %d", size, kStructIntSizeMax);
      }
      return static_cast<size_t>(size);
    }
    default:
      return 0;
  }
}

size_t PaddingFor(size_t position, const StructHeader& header, int option, size_t size) {
  if (size == 0 || option == 'c') return 0;
  if (size > static_cast<size_t>(header.align)) size = static_cast<size_t>(header.align);
  return (size - (position & (size - 1))) & (size - 1);
}

void ControlOption(lua_State* state, int option, const char** format, StructHeader* header) {
  switch (option) {
    case ' ':
      return;
    case '>':
      header->endian = kBig;
      return;
    case '<':
      header->endian = kLittle;
      return;
    case '!': {
      const int align = ReadCount(state, format, kStructAlignMax);
      if (!IsPowerOf2(align)) luaL_error(state, "alignment %d is not a power of 2", align);
      header->align = align;
      return;
    }
    default:
      luaL_argerror(state, 1, lua_pushfstring(state, "invalid format option '%c'", option));
  }
}

// Reverses `bytes` when the requested order is not the machine's (little endian).
void ToOrder(char* bytes, size_t size, int endian) {
  if (endian == kLittle) return;
  for (size_t i = 0, j = size - 1; i < j; i++, j--) {
    const char swap = bytes[i];
    bytes[i] = bytes[j];
    bytes[j] = swap;
  }
}

void PutInteger(lua_State* state, luaL_Buffer* buffer, int arg, int endian, size_t size) {
  const lua_Number number = luaL_checknumber(state, arg);
  // Through long long for negatives, as Redis's (Uinttype)(Inttype)n; x86's conversion of what
  // does not fit gives the lowest value, reproduced without undefined behaviour.
  uint64_t value = 0;
  if (number < 0) {
    value = number >= -9223372036854775808.0 ? static_cast<uint64_t>(static_cast<int64_t>(number))
                                             : 0x8000000000000000ull;
  } else if (number < 18446744073709551616.0) {
    value = static_cast<uint64_t>(number);
  }
  char bytes[kStructIntSizeMax];
  for (size_t i = 0; i < size; i++) {
    const size_t index = endian == kLittle ? i : size - 1 - i;
    bytes[index] = static_cast<char>(value & 0xff);
    value = i < 7 ? value >> 8 : 0;
  }
  luaL_addlstring(buffer, bytes, size);
}

lua_Number GetInteger(const char* bytes, int endian, bool is_signed, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; i++) {
    const size_t index = endian == kBig ? i : size - 1 - i;
    value = (value << 8) | static_cast<unsigned char>(bytes[index]);
  }
  if (!is_signed) return static_cast<lua_Number>(value);
  // The sign bit of the size read (of its low 64 bits beyond 8 bytes, as x86 shifts).
  const uint64_t mask = ~uint64_t{0} << ((size * 8 - 1) & 63);
  if (value & mask) value |= mask;
  return static_cast<lua_Number>(static_cast<int64_t>(value));
}

int StructPack(lua_State* state) {
  const char* format = luaL_checkstring(state, 1);
  StructHeader header;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(state);  // separates the arguments from the buffer's pieces
  luaL_Buffer buffer;
  luaL_buffinit(state, &buffer);
  while (*format != '\0') {
    const int option = *format++;
    size_t size = OptionSize(state, static_cast<char>(option), &format);
    size_t padding = PaddingFor(total, header, option, size);
    total += padding;
    while (padding-- > 0) luaL_addchar(&buffer, '\0');
    switch (option) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        PutInteger(state, &buffer, arg++, header.endian, size);
        break;
      case 'x':
        luaL_addchar(&buffer, '\0');
        break;
      case 'f': {
        auto value = static_cast<float>(luaL_checknumber(state, arg++));
        char bytes[sizeof(float)];
        std::memcpy(bytes, &value, sizeof(bytes));
        ToOrder(bytes, sizeof(bytes), header.endian);
        luaL_addlstring(&buffer, bytes, sizeof(bytes));
        break;
      }
      case 'd': {
        const double value = luaL_checknumber(state, arg++);
        char bytes[sizeof(double)];
        std::memcpy(bytes, &value, sizeof(bytes));
        ToOrder(bytes, sizeof(bytes), header.endian);
        luaL_addlstring(&buffer, bytes, sizeof(bytes));
        break;
      }
      case 'c':
      case 's': {
        size_t length = 0;
        const char* text = luaL_checklstring(state, arg++, &length);
        if (size == 0) size = length;
        luaL_argcheck(state, length >= size, arg, "string too short");
        luaL_addlstring(&buffer, text, size);
        if (option == 's') {
          luaL_addchar(&buffer, '\0');
          size++;
        }
        break;
      }
      default:
        ControlOption(state, option, &format, &header);
    }
    total += size;
  }
  luaL_pushresult(&buffer);
  return 1;
}

int StructUnpack(lua_State* state) {
  const char* format = luaL_checkstring(state, 1);
  size_t data_length = 0;
  const char* data = luaL_checklstring(state, 2, &data_length);
  size_t position = static_cast<size_t>(luaL_optinteger(state, 3, 1));
  luaL_argcheck(state, position > 0, 3, "offset must be 1 or greater");
  position--;
  StructHeader header;
  int results = 0;
  while (*format != '\0') {
    const int option = *format++;
    size_t size = OptionSize(state, static_cast<char>(option), &format);
    position += PaddingFor(position, header, option, size);
    luaL_argcheck(state, size <= data_length && position <= data_length - size, 2,
                  "data string too short");
    luaL_checkstack(state, 2, "too many results");
    switch (option) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(state,
                       GetInteger(data + position, header.endian, std::islower(option) != 0, size));
        results++;
        break;
      case 'x':
        break;
      case 'f': {
        char bytes[sizeof(float)];
        std::memcpy(bytes, data + position, sizeof(bytes));
        ToOrder(bytes, sizeof(bytes), header.endian);
        float value = 0;
        std::memcpy(&value, bytes, sizeof(value));
        lua_pushnumber(state, value);
        results++;
        break;
      }
      case 'd': {
        char bytes[sizeof(double)];
        std::memcpy(bytes, data + position, sizeof(bytes));
        ToOrder(bytes, sizeof(bytes), header.endian);
        double value = 0;
        std::memcpy(&value, bytes, sizeof(value));
        lua_pushnumber(state, value);
        results++;
        break;
      }
      case 'c': {
        if (size == 0) {
          if (results == 0 || !lua_isnumber(state, -1)) {
            luaL_error(state, "format 'c0' needs a previous size");
          }
          size = static_cast<size_t>(lua_tonumber(state, -1));
          lua_pop(state, 1);
          results--;
          luaL_argcheck(state, size <= data_length && position <= data_length - size, 2,
                        "data string too short");
        }
        lua_pushlstring(state, data + position, size);
        results++;
        break;
      }
      case 's': {
        const auto* end =
            static_cast<const char*>(std::memchr(data + position, '\0', data_length - position));
        if (end == nullptr) luaL_error(state, "unfinished string in data");
        size = static_cast<size_t>(end - (data + position)) + 1;
        lua_pushlstring(state, data + position, size - 1);
        results++;
        break;
      }
      default:
        ControlOption(state, option, &format, &header);
    }
    position += size;
  }
  lua_pushinteger(state, static_cast<lua_Integer>(position + 1));
  return results + 1;
}

int StructSize(lua_State* state) {
  const char* format = luaL_checkstring(state, 1);
  StructHeader header;
  size_t position = 0;
  while (*format != '\0') {
    const int option = *format++;
    const size_t size = OptionSize(state, static_cast<char>(option), &format);
    position += PaddingFor(position, header, option, size);
    if (option == 's') {
      luaL_argerror(state, 1, "option 's' has no fixed size");
    } else if (option == 'c' && size == 0) {
      luaL_argerror(state, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(option)) ControlOption(state, option, &format, &header);
    position += size;
  }
  lua_pushinteger(state, static_cast<lua_Integer>(position));
  return 1;
}

// ============================================================================================
// cmsgpack: pack(...), unpack(s), unpack_one(s [, offset]), unpack_limit(s, limit [, offset]).
// ============================================================================================

// Tables nested deeper than this encode as nil, so that a table holding itself ends.
constexpr int kMsgpackNestingMax = 16;

// The encoder's output: one std::string shared by the interpreter (upvalue 1), appended to by
// nested packs (a metamethod may pack) and cut back by each when it is done.
std::string& PackBuffer(lua_State* state) {
  return *static_cast<std::string*>(lua_touserdata(state, lua_upvalueindex(1)));
}

void AppendBigEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void EncodeInteger(std::string* out, int64_t value) {
  if (value >= 0) {
    if (value <= 127) {
      out->push_back(static_cast<char>(value));
    } else if (value <= 0xff) {
      out->push_back(static_cast<char>(0xcc));
      AppendBigEndian(out, static_cast<uint64_t>(value), 1);
    } else if (value <= 0xffff) {
      out->push_back(static_cast<char>(0xcd));
      AppendBigEndian(out, static_cast<uint64_t>(value), 2);
    } else if (value <= 0xffffffffll) {
      out->push_back(static_cast<char>(0xce));
      AppendBigEndian(out, static_cast<uint64_t>(value), 4);
    } else {
      out->push_back(static_cast<char>(0xcf));
      AppendBigEndian(out, static_cast<uint64_t>(value), 8);
    }
  } else if (value >= -32) {
    out->push_back(static_cast<char>(value));
  } else if (value >= -128) {
    out->push_back(static_cast<char>(0xd0));
    AppendBigEndian(out, static_cast<uint64_t>(value), 1);
  } else if (value >= -32768) {
    out->push_back(static_cast<char>(0xd1));
    AppendBigEndian(out, static_cast<uint64_t>(value), 2);
  } else if (value >= -2147483648ll) {
    out->push_back(static_cast<char>(0xd2));
    AppendBigEndian(out, static_cast<uint64_t>(value), 4);
  } else {
    out->push_back(static_cast<char>(0xd3));
    AppendBigEndian(out, static_cast<uint64_t>(value), 8);
  }
}

void EncodeDouble(std::string* out, double value) {
  const auto narrow = static_cast<float>(value);
  if (static_cast<double>(narrow) == value) {
    uint32_t bits = 0;
    std::memcpy(&bits, &narrow, sizeof(bits));
    out->push_back(static_cast<char>(0xca));
    AppendBigEndian(out, bits, 4);
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    out->push_back(static_cast<char>(0xcb));
    AppendBigEndian(out, bits, 8);
  }
}

void EncodeHeader(std::string* out, size_t count, uint8_t fix, uint8_t fix_max, uint8_t code8,
                  uint8_t code16, uint8_t code32) {
  if (count <= fix_max) {
    out->push_back(static_cast<char>(fix | count));
  } else if (code8 != 0 && count <= 0xff) {
    out->push_back(static_cast<char>(code8));
    AppendBigEndian(out, count, 1);
  } else if (count <= 0xffff) {
    out->push_back(static_cast<char>(code16));
    AppendBigEndian(out, count, 2);
  } else {
    out->push_back(static_cast<char>(code32));
    AppendBigEndian(out, count, 4);
  }
}

// Whether the table at the top has exactly the keys 1..n.
bool IsArray(lua_State* state) {
  const int top = lua_gettop(state);
  lua_Number max = 0;
  lua_Number count = 0;
  lua_pushnil(state);
  while (lua_next(state, -2) != 0) {
    lua_pop(state, 1);
    if (lua_type(state, -1) != LUA_TNUMBER) {
      lua_settop(state, top);
      return false;
    }
    const lua_Number key = lua_tonumber(state, -1);
    if (key <= 0 || std::floor(key) != key || key > INT_MAX) {
      lua_settop(state, top);
      return false;
    }
    if (key > max) max = key;
    count++;
  }
  lua_settop(state, top);
  return max == count;
}

// Encodes and pops the value at the top.
void EncodeValue(lua_State* state, std::string* out, int level) {
  int type = lua_type(state, -1);
  if (type == LUA_TTABLE && level == kMsgpackNestingMax) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      size_t length = 0;
      const char* text = lua_tolstring(state, -1, &length);
      EncodeHeader(out, length, 0xa0, 31, 0xd9, 0xda, 0xdb);
      out->append(text, length);
      break;
    }
    case LUA_TBOOLEAN:
      out->push_back(static_cast<char>(lua_toboolean(state, -1) ? 0xc3 : 0xc2));
      break;
    case LUA_TNUMBER: {
      const lua_Number number = lua_tonumber(state, -1);
      if (std::isfinite(number) && number >= -9223372036854775808.0 &&
          number < 9223372036854775808.0 &&
          static_cast<lua_Number>(static_cast<int64_t>(number)) == number) {
        EncodeInteger(out, static_cast<int64_t>(number));
      } else {
        EncodeDouble(out, number);
      }
      break;
    }
    case LUA_TTABLE:
      if (IsArray(state)) {
        const size_t length = lua_objlen(state, -1);
        EncodeHeader(out, length, 0x90, 15, 0, 0xdc, 0xdd);
        luaL_checkstack(state, 1, "in function mp_encode_lua_table_as_array");
        for (size_t i = 1; i <= length; i++) {
          lua_pushnumber(state, static_cast<lua_Number>(i));
          lua_gettable(state, -2);
          EncodeValue(state, out, level + 1);
        }
      } else {
        size_t pairs = 0;
        lua_pushnil(state);
        while (lua_next(state, -2) != 0) {
          lua_pop(state, 1);
          pairs++;
        }
        EncodeHeader(out, pairs, 0x80, 15, 0, 0xde, 0xdf);
        luaL_checkstack(state, 3, "in function mp_encode_lua_table_as_map");
        lua_pushnil(state);
        while (lua_next(state, -2) != 0) {
          lua_pushvalue(state, -2);
          EncodeValue(state, out, level + 1);  // the key
          EncodeValue(state, out, level + 1);  // the value
        }
      }
      break;
    default:
      out->push_back(static_cast<char>(0xc0));
  }
  lua_pop(state, 1);
}

int MsgpackPack(lua_State* state) {
  const int count = lua_gettop(state);
  if (count == 0) return luaL_argerror(state, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(state, count)) {
    return luaL_argerror(state, 0, "Too many arguments for MessagePack pack.");
  }
  std::string& out = PackBuffer(state);
  const size_t start = out.size();
  for (int i = 1; i <= count; i++) {
    lua_pushvalue(state, i);
    EncodeValue(state, &out, 0);
  }
  lua_pushlstring(state, out.data() + start, out.size() - start);
  out.resize(start);
  return 1;
}

enum class DecodeError { kNone, kEof, kBadFormat };

struct Cursor {
  const unsigned char* bytes;
  size_t left;
  DecodeError error = DecodeError::kNone;

  bool Need(size_t count) {
    if (left >= count) return true;
    error = DecodeError::kEof;
    return false;
  }
  uint64_t BigEndian(size_t offset, int count) const {
    uint64_t value = 0;
    for (int i = 0; i < count; i++) value = (value << 8) | bytes[offset + static_cast<size_t>(i)];
    return value;
  }
  void Consume(size_t count) {
    bytes += count;
    left -= count;
  }
};

void DecodeValue(lua_State* state, Cursor* cursor);

void DecodeArray(lua_State* state, Cursor* cursor, size_t length) {
  lua_newtable(state);
  luaL_checkstack(state, 1, "in function mp_decode_to_lua_array");
  lua_Number index = 1;
  while (length-- > 0) {
    lua_pushnumber(state, index++);
    DecodeValue(state, cursor);
    if (cursor->error != DecodeError::kNone) return;
    lua_settable(state, -3);
  }
}

void DecodeMap(lua_State* state, Cursor* cursor, size_t length) {
  lua_newtable(state);
  luaL_checkstack(state, 2, "in function mp_decode_to_lua_hash");
  while (length-- > 0) {
    DecodeValue(state, cursor);
    if (cursor->error != DecodeError::kNone) return;
    DecodeValue(state, cursor);
    if (cursor->error != DecodeError::kNone) return;
    lua_settable(state, -3);
  }
}

void DecodeString(lua_State* state, Cursor* cursor, size_t header, size_t length) {
  if (!cursor->Need(header + length)) return;
  lua_pushlstring(state, reinterpret_cast<const char*>(cursor->bytes + header), length);
  cursor->Consume(header + length);
}

void DecodeValue(lua_State* state, Cursor* cursor) {
  if (!cursor->Need(1)) return;
  luaL_checkstack(state, 1, "too many items");
  const unsigned char code = cursor->bytes[0];
  switch (code) {
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {
      const int bytes = 1 << (code - 0xcc);
      if (!cursor->Need(1 + static_cast<size_t>(bytes))) return;
      // Redis's build reads a uint 64 through int64_t: 2^64-1 decodes as -1.
      const uint64_t value = cursor->BigEndian(1, bytes);
      lua_pushnumber(state, bytes == 8 ? static_cast<lua_Number>(static_cast<int64_t>(value))
                                       : static_cast<lua_Number>(value));
      cursor->Consume(1 + static_cast<size_t>(bytes));
      return;
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
      const int bytes = 1 << (code - 0xd0);
      if (!cursor->Need(1 + static_cast<size_t>(bytes))) return;
      uint64_t value = cursor->BigEndian(1, bytes);
      if (bytes < 8 && (value >> (8 * bytes - 1)) != 0) value |= ~uint64_t{0} << (8 * bytes);
      lua_pushnumber(state, static_cast<lua_Number>(static_cast<int64_t>(value)));
      cursor->Consume(1 + static_cast<size_t>(bytes));
      return;
    }
    case 0xc0:
      lua_pushnil(state);
      cursor->Consume(1);
      return;
    case 0xc2:
    case 0xc3:
      lua_pushboolean(state, code == 0xc3);
      cursor->Consume(1);
      return;
    case 0xca: {
      if (!cursor->Need(5)) return;
      const auto bits = static_cast<uint32_t>(cursor->BigEndian(1, 4));
      float value = 0;
      std::memcpy(&value, &bits, sizeof(value));
      lua_pushnumber(state, value);
      cursor->Consume(5);
      return;
    }
    case 0xcb: {
      if (!cursor->Need(9)) return;
      const uint64_t bits = cursor->BigEndian(1, 8);
      double value = 0;
      std::memcpy(&value, &bits, sizeof(value));
      lua_pushnumber(state, value);
      cursor->Consume(9);
      return;
    }
    case 0xd9:
      if (!cursor->Need(2)) return;
      DecodeString(state, cursor, 2, cursor->BigEndian(1, 1));
      return;
    case 0xda:
      if (!cursor->Need(3)) return;
      DecodeString(state, cursor, 3, cursor->BigEndian(1, 2));
      return;
    case 0xdb:
      if (!cursor->Need(5)) return;
      DecodeString(state, cursor, 5, cursor->BigEndian(1, 4));
      return;
    case 0xdc:
    case 0xdd: {
      const size_t header = code == 0xdc ? 3 : 5;
      if (!cursor->Need(header)) return;
      const uint64_t length = cursor->BigEndian(1, static_cast<int>(header - 1));
      cursor->Consume(header);
      DecodeArray(state, cursor, length);
      return;
    }
    case 0xde:
    case 0xdf: {
      const size_t header = code == 0xde ? 3 : 5;
      if (!cursor->Need(header)) return;
      const uint64_t length = cursor->BigEndian(1, static_cast<int>(header - 1));
      cursor->Consume(header);
      DecodeMap(state, cursor, length);
      return;
    }
    default:
      if (code <= 0x7f) {
        lua_pushnumber(state, code);
        cursor->Consume(1);
      } else if (code >= 0xe0) {
        lua_pushnumber(state, static_cast<int8_t>(code));
        cursor->Consume(1);
      } else if ((code & 0xe0) == 0xa0) {
        DecodeString(state, cursor, 1, code & 0x1f);
      } else if ((code & 0xf0) == 0x90) {
        cursor->Consume(1);
        DecodeArray(state, cursor, code & 0x0f);
      } else if ((code & 0xf0) == 0x80) {
        cursor->Consume(1);
        DecodeMap(state, cursor, code & 0x0f);
      } else {
        cursor->error = DecodeError::kBadFormat;
      }
  }
}

int UnpackFull(lua_State* state, int limit, int offset) {
  size_t length = 0;
  const char* text = luaL_checklstring(state, 1, &length);
  const bool decode_all = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    return luaL_error(state, "Invalid request to unpack with offset of %d and limit of %d.", offset,
                      static_cast<int>(length));
  }
  if (static_cast<size_t>(offset) > length) {
    return luaL_error(state, "Start offset %d greater than input length %d.", offset,
                      static_cast<int>(length));
  }
  if (decode_all) limit = INT_MAX;
  Cursor cursor{reinterpret_cast<const unsigned char*>(text) + offset,
                length - static_cast<size_t>(offset)};
  int count = 0;
  for (; cursor.left > 0 && count < limit; count++) {
    DecodeValue(state, &cursor);
    if (cursor.error == DecodeError::kEof) return luaL_error(state, "Missing bytes in input.");
    if (cursor.error == DecodeError::kBadFormat) {
      return luaL_error(state, "Bad data format in input.");
    }
  }
  if (!decode_all) {
    const auto next = static_cast<lua_Integer>(length - cursor.left);
    luaL_checkstack(state, 1, "in function mp_unpack_full");
    lua_pushinteger(state, cursor.left == 0 ? -1 : next);
    lua_insert(state, 2);
    count++;
  }
  return count;
}

int MsgpackUnpack(lua_State* state) { return UnpackFull(state, 0, 0); }

int MsgpackUnpackOne(lua_State* state) {
  const auto offset = static_cast<int>(luaL_optinteger(state, 2, 0));
  lua_pop(state, lua_gettop(state) - 1);
  return UnpackFull(state, 1, offset);
}

int MsgpackUnpackLimit(lua_State* state) {
  const auto limit = static_cast<int>(luaL_checkinteger(state, 2));
  const auto offset = static_cast<int>(luaL_optinteger(state, 3, 0));
  lua_pop(state, lua_gettop(state) - 1);
  return UnpackFull(state, limit, offset);
}

}  // namespace

int OpenStructLibrary(lua_State* state) {
  lua_newtable(state);
  lua_pushcfunction(state, StructPack);
  lua_setfield(state, -2, "pack");
  lua_pushcfunction(state, StructUnpack);
  lua_setfield(state, -2, "unpack");
  lua_pushcfunction(state, StructSize);
  lua_setfield(state, -2, "size");
  return 1;
}

int OpenMsgpackLibrary(lua_State* state) {
  // Upvalue 1 of the encoder: the interpreter's output buffer, passed as argument 1.
  void* buffer = lua_touserdata(state, 1);
  lua_newtable(state);
  lua_pushlightuserdata(state, buffer);
  lua_pushcclosure(state, MsgpackPack, 1);
  lua_setfield(state, -2, "pack");
  lua_pushcfunction(state, MsgpackUnpack);
  lua_setfield(state, -2, "unpack");
  lua_pushcfunction(state, MsgpackUnpackOne);
  lua_setfield(state, -2, "unpack_one");
  lua_pushcfunction(state, MsgpackUnpackLimit);
  lua_setfield(state, -2, "unpack_limit");
  lua_pushliteral(state, "cmsgpack");
  lua_setfield(state, -2, "_NAME");
  lua_pushliteral(state, "lua-cmsgpack 0.4.0");
  lua_setfield(state, -2, "_VERSION");
  lua_pushliteral(state, "Copyright (C) 2012, Salvatore Sanfilippo");
  lua_setfield(state, -2, "_COPYRIGHT");
  lua_pushliteral(state, "MessagePack C implementation for Lua");
  lua_setfield(state, -2, "_DESCRIPTION");
  return 1;
}

}  // namespace keel
