#include "engine/script/lua_vm.h"

#include <lua.hpp>

// Debian's headers declare the openers without C linkage.
extern "C" {
#include <lua-bitop.h>
#include <lua-cjson.h>
}

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/sha1.h"
#include "engine/script/function_lua.h"
#include "engine/script/lua_libs.h"
#include "engine/script/lua_reply.h"
#include "engine/server/version.h"

namespace keel {

// --- Rand48 (Redis's rand.c: the 48-bit linear congruential generator of POSIX lrand48) --------

void Rand48::Seed(int32_t seed) {
  // srand48: the seed's 32 bits above 0x330E.
  state_ = (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330Eull;
}

int32_t Rand48::Next() {
  state_ = (state_ * 0x5DEECE66Dull + 0xBull) & ((1ull << 48) - 1);
  return static_cast<int32_t>(state_ >> 17);
}

namespace {

// Every block the interpreter takes carries its real size in front, so that a shrink the
// environment refuses can keep the larger block (Lua assumes shrinking never fails) and the
// accounting still returns exactly what was taken.
struct alignas(16) BlockHeader {
  size_t bytes;
};
constexpr size_t kHeaderBytes = sizeof(BlockHeader);

// Redis 7.0's REDIS_VERSION_NUM for 7.0.15: 0x00MMmmpp.
constexpr int kRedisVersionNum = (7 << 16) | (0 << 8) | 15;

LuaVm* VmOf(lua_State* state) {
  return static_cast<LuaVm*>(lua_touserdata(state, lua_upvalueindex(1)));
}

// The C functions below register with the VM as their first upvalue.
void SetFunction(lua_State* state, LuaVm* vm, const char* name, lua_CFunction function) {
  lua_pushstring(state, name);
  lua_pushlightuserdata(state, vm);
  lua_pushcclosure(state, function, 1);
  lua_rawset(state, -3);
}

void SetNumber(lua_State* state, const char* name, lua_Number value) {
  lua_pushstring(state, name);
  lua_pushnumber(state, value);
  lua_rawset(state, -3);
}

// --- redis.* ------------------------------------------------------------------------------

int RaiseRedisError(lua_State* state, const char* text) {
  PushRedisErrorTable(state, text);
  return lua_error(state);
}

int RedisGenericCall(lua_State* state, bool raise) {
  LuaVm* vm = VmOf(state);
  if (!vm->host().running()) {
    return RaiseRedisError(state, "redis.call/pcall can only be called inside a script invocation");
  }
  const int argc = lua_gettop(state);
  if (argc == 0) {
    PushRedisErrorTable(state, "Please specify at least one argument for this redis lib call");
    return raise ? lua_error(state) : 1;
  }
  // The arguments as views: strings stay on the stack until the command ran; numbers are
  // printed with %.17g (Lua's own %.14g would lose precision) into the VM's storage, sized first
  // so that no view moves.
  std::vector<std::string>& numbers = vm->scratch_numbers();
  std::vector<std::string_view>& args = vm->scratch_args();
  if (numbers.size() < static_cast<size_t>(argc)) numbers.resize(static_cast<size_t>(argc));
  args.clear();
  bool all_strings = true;
  for (int i = 1; i <= argc; i++) {
    if (lua_type(state, i) == LUA_TNUMBER) {
      char text[64];
      const int length =
          std::snprintf(text, sizeof(text), "%.17g", static_cast<double>(lua_tonumber(state, i)));
      numbers[static_cast<size_t>(i - 1)].assign(text, static_cast<size_t>(length));
      args.emplace_back(numbers[static_cast<size_t>(i - 1)]);
    } else if (lua_type(state, i) == LUA_TSTRING) {
      size_t length = 0;
      const char* text = lua_tolstring(state, i, &length);
      args.emplace_back(text, length);
    } else {
      all_strings = false;
      break;
    }
  }
  if (!all_strings) {
    lua_pop(state, argc);
    PushRedisErrorTable(state, "Lua redis lib command arguments must be strings or integers");
    return raise ? lua_error(state) : 1;
  }
  std::string_view reply;
  const std::string_view refusal = vm->host().Call(args, &reply);
  // The arguments are not needed any more (Redis pops them before the reply too).
  lua_pop(state, argc);
  if (!refusal.empty()) {
    PushRedisErrorTable(state, refusal);
    // Already counted in the error statistics when the command was refused.
    lua_pushstring(state, "ignore_error_stats_update");
    lua_pushboolean(state, 1);
    lua_settable(state, -3);
    return raise ? lua_error(state) : 1;
  }
  const bool failed = !reply.empty() && reply[0] == '-';
  PushReplyAsLua(state, reply);
  return raise && failed ? lua_error(state) : 1;
}

int RedisCall(lua_State* state) { return RedisGenericCall(state, true); }
int RedisPcall(lua_State* state) { return RedisGenericCall(state, false); }

int RedisSha1hex(lua_State* state) {
  if (lua_gettop(state) != 1) return RaiseRedisError(state, "wrong number of arguments");
  size_t length = 0;
  const char* text = lua_tolstring(state, 1, &length);
  const Sha1::Digest digest = Sha1::Of(std::string_view(text == nullptr ? "" : text, length));
  static constexpr char kHex[] = "0123456789abcdef";
  char hex[Sha1::kDigestBytes * 2];
  for (size_t i = 0; i < digest.size(); i++) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  lua_pushlstring(state, hex, sizeof(hex));
  return 1;
}

int RedisErrorReply(lua_State* state) {
  if (lua_gettop(state) != 1 || lua_type(state, -1) != LUA_TSTRING) {
    PushRedisErrorTable(state, "wrong number or type of arguments");
    return 1;
  }
  // Redis adds the '-' when it is missing, so the first word becomes the code: "My err" is
  // code "My", and a single word gets "ERR" (luaRedisErrorReplyCommand, luaPushErrorBuff).
  size_t length = 0;
  const char* text = lua_tolstring(state, -1, &length);
  if (length > 0 && text[0] == '-') {
    PushRedisErrorTable(state, std::string_view(text, length));
  } else {
    lua_pushliteral(state, "-");
    lua_pushvalue(state, -2);
    lua_concat(state, 2);
    size_t dashed_length = 0;
    const char* dashed = lua_tolstring(state, -1, &dashed_length);
    PushRedisErrorTable(state, std::string_view(dashed, dashed_length));
  }
  return 1;
}

int RedisStatusReply(lua_State* state) {
  if (lua_gettop(state) != 1 || lua_type(state, -1) != LUA_TSTRING) {
    PushRedisErrorTable(state, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(state);
  lua_pushliteral(state, "ok");
  lua_pushvalue(state, -3);
  lua_settable(state, -3);
  return 1;
}

int RedisLog(lua_State* state) {
  const int argc = lua_gettop(state);
  if (argc < 2) return RaiseRedisError(state, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(state, 1)) {
    return RaiseRedisError(state, "First argument must be a number (log level).");
  }
  const auto level = static_cast<int>(lua_tonumber(state, 1));
  if (level < 0 || level > 3) return RaiseRedisError(state, "Invalid debug level.");
  // The arguments glued with spaces, as one Lua string (no C++ string in this frame).
  int pieces = 0;
  for (int i = 2; i <= argc; i++) {
    if (!lua_isstring(state, i)) continue;
    if (pieces > 0) {
      lua_pushliteral(state, " ");
      pieces++;
    }
    lua_pushvalue(state, i);
    lua_tostring(state, -1);
    pieces++;
  }
  lua_concat(state, pieces);
  size_t length = 0;
  const char* line = lua_tolstring(state, -1, &length);
  VmOf(state)->host().Log(level, std::string_view(line, length));
  return 0;
}

int RedisSetResp(lua_State* state) {
  LuaVm* vm = VmOf(state);
  if (!vm->host().running()) {
    return RaiseRedisError(state, "redis.setresp can only be called inside a script invocation");
  }
  if (lua_gettop(state) != 1)
    return RaiseRedisError(state, "redis.setresp() requires one argument.");
  const auto resp = static_cast<int>(lua_tonumber(state, 1));
  if (resp != 2 && resp != 3) return RaiseRedisError(state, "RESP version must be 2 or 3.");
  vm->host().SetResp(resp);
  return 0;
}

int RedisSetRepl(lua_State* state) {
  LuaVm* vm = VmOf(state);
  if (!vm->host().running()) {
    return RaiseRedisError(state, "redis.set_repl can only be called inside a script invocation");
  }
  if (lua_gettop(state) != 1) {
    return RaiseRedisError(state, "redis.set_repl() requires two arguments.");
  }
  const auto flags = static_cast<int>(lua_tonumber(state, -1));
  if ((flags & ~3) != 0) {
    return RaiseRedisError(
        state, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  vm->host().SetRepl(flags);
  return 0;
}

int RedisReplicateCommands(lua_State* state) {
  // Redis 7.0 always replicates a script's effects: the call is kept for old scripts.
  lua_pushboolean(state, 1);
  return 1;
}

int RedisBreakpoint(lua_State* state) {
  // Without the debugger there is nothing to stop at.
  lua_pushboolean(state, 0);
  return 1;
}

int RedisDebug(lua_State* /*state*/) { return 0; }

int RedisAclCheckCmd(lua_State* state) {
  LuaVm* vm = VmOf(state);
  if (!vm->host().running()) {
    return RaiseRedisError(state,
                           "redis.acl_check_cmd can only be called inside a script invocation");
  }
  if (lua_gettop(state) == 0) {
    return RaiseRedisError(state, "Please specify at least one argument for this redis lib call");
  }
  if (lua_type(state, 1) != LUA_TSTRING && lua_type(state, 1) != LUA_TNUMBER) {
    return RaiseRedisError(state, "Lua redis lib command arguments must be strings or integers");
  }
  // Keel has one user, the default one, who may run every command: a known command is allowed.
  lua_pushboolean(state, 1);
  return 1;
}

// --- math.random (Redis's redis_math_random over rand48) -----------------------------------

int MathRandom(lua_State* state) {
  LuaVm* vm = VmOf(state);
  if (!vm->host().running()) {
    return luaL_error(state, "math.random can only be called inside a script invocation");
  }
  constexpr int32_t kMax = 2147483647;
  const lua_Number r =
      static_cast<lua_Number>(vm->rand48().Next() % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(state)) {
    case 0:
      lua_pushnumber(state, r);
      break;
    case 1: {
      const int upper = luaL_checkint(state, 1);
      luaL_argcheck(state, 1 <= upper, 1, "interval is empty");
      lua_pushnumber(state, std::floor(r * upper) + 1);
      break;
    }
    case 2: {
      const int lower = luaL_checkint(state, 1);
      const int upper = luaL_checkint(state, 2);
      luaL_argcheck(state, lower <= upper, 2, "interval is empty");
      lua_pushnumber(state, std::floor(r * (upper - lower + 1)) + lower);
      break;
    }
    default:
      return luaL_error(state, "wrong number of arguments");
  }
  return 1;
}

int MathRandomseed(lua_State* state) {
  LuaVm* vm = VmOf(state);
  if (!vm->host().running()) {
    return luaL_error(state, "math.randomseed can only be called inside a script invocation");
  }
  vm->rand48().Seed(luaL_checkint(state, 1));
  return 0;
}

// --- Redis 7.0's pcall: an error table from redis.call comes back as its message -----------

int Pcall(lua_State* state) {
  const int argc = lua_gettop(state);
  lua_pushboolean(state, 1);
  lua_insert(state, 1);
  if (lua_pcall(state, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(state, 1);
    if (lua_istable(state, -1)) {
      lua_getfield(state, -1, "err");
      if (lua_isstring(state, -1)) {
        lua_replace(state, -2);
      } else {
        lua_pop(state, 1);
      }
    }
    lua_pushboolean(state, 0);
    lua_insert(state, 1);
  }
  return lua_gettop(state);
}

// --- Text chunks only ---------------------------------------------------------------------------
//
// Debian's liblua5.1 loads precompiled bytecode when a chunk starts with ESC (LUA_SIGNATURE), and
// crafted bytecode escapes any sandbox. Redis's bundled Lua always runs the text parser, which
// stops at the ESC: "<chunk>:1: unexpected symbol near 'char(27)'". A chunk starting with ESC is
// therefore parsed behind one space, which gives that very error (the space is no token and no
// new line) without ever reaching the bytecode loader.
int LoadText(lua_State* state, const char* text, size_t length, const char* chunk_name) {
  if (length > 0 && text[0] == LUA_SIGNATURE[0]) {
    return luaL_loadbuffer(state, " \x1b", 2, chunk_name);
  }
  return luaL_loadbuffer(state, text, length, chunk_name);
}

// loadstring(s [, chunkname]), through LoadText.
int LoadString(lua_State* state) {
  size_t length = 0;
  const char* text = luaL_checklstring(state, 1, &length);
  const char* chunk_name = luaL_optstring(state, 2, text);
  if (LoadText(state, text, length, chunk_name) == 0) return 1;
  lua_pushnil(state);
  lua_insert(state, -2);
  return 2;
}

// load(reader [, chunkname]): Lua's own load over a reader that hands on the function's pieces
// (in the reserved slot 3, as Lua's generic_reader) and puts a space before a first piece that
// starts with ESC, for the reason LoadText gives. Errors raised in the reader go through the
// running script's error handler, as in Redis.
struct ReaderState {
  bool first = true;
  bool held = false;  // the piece in slot 3 is still to be handed on, after the space
};

const char* ReadPiece(lua_State* state, void* data, size_t* size) {
  auto* reader = static_cast<ReaderState*>(data);
  if (reader->held) {
    reader->held = false;
    return lua_tolstring(state, 3, size);
  }
  luaL_checkstack(state, 2, "too many nested functions");
  lua_pushvalue(state, 1);
  lua_call(state, 0, 1);
  if (lua_isnil(state, -1)) {
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(state, -1)) luaL_error(state, "reader function must return a string");
  lua_replace(state, 3);
  const char* piece = lua_tolstring(state, 3, size);
  if (reader->first && *size > 0 && piece[0] == LUA_SIGNATURE[0]) {
    reader->held = true;
    *size = 1;
    piece = " ";
  }
  reader->first = false;
  return piece;
}

int LoadFromReader(lua_State* state) {
  luaL_checktype(state, 1, LUA_TFUNCTION);
  const char* chunk_name = luaL_optstring(state, 2, "=(load)");
  lua_settop(state, 3);
  ReaderState reader;
  if (lua_load(state, ReadPiece, &reader, chunk_name) == 0) return 1;
  lua_pushnil(state);
  lua_insert(state, -2);
  return 2;
}

// --- unpack with the range check of Redis's bundled Lua ---------------------------------------
//
// Debian's liblua5.1 computes the number of results of unpack(t, i, j) in a signed int, so that
// unpack({}, 0, 2147483647) asks for a stack of 2^31 slots and writes past it (a crash any
// script could cause). Redis's bundled Lua has the fix Lua 5.2 made: the count in unsigned
// arithmetic, refused from INT_MAX on with "too many results to unpack" (its tests, EVAL - Test
// table unpack with invalid indexes, pin the text).
int Unpack(lua_State* state) {
  luaL_checktype(state, 1, LUA_TTABLE);
  int first = luaL_optint(state, 2, 1);
  const int last = luaL_opt(state, luaL_checkint, 3, static_cast<int>(lua_objlen(state, 1)));
  if (first > last) return 0;
  // The number of elements minus one, which cannot overflow in unsigned arithmetic.
  unsigned int count = static_cast<unsigned int>(last) - static_cast<unsigned int>(first);
  if (count >= static_cast<unsigned int>(INT_MAX) ||
      !lua_checkstack(state, static_cast<int>(++count))) {
    return luaL_error(state, "too many results to unpack");
  }
  lua_rawgeti(state, 1, first);
  while (first++ < last) lua_rawgeti(state, 1, first);
  return static_cast<int>(count);
}

// --- bit.tohex with the fix of Redis's bundled BitOp --------------------------------------------
//
// Debian's Lua BitOp 1.0.2 negates a digit count of INT32_MIN, which stays negative, and writes
// before its buffer (bit.tohex(65535, -2147483648) crashes). Redis's copy clamps it first; this is
// BitOp's tohex with that clamp (Redis's test "lua bit.tohex bug" pins the result).
uint32_t BitArgument(lua_State* state, int index) {
  // BitOp's barg: the number's low 32 bits, taken from a double shifted so that they are the
  // mantissa's (2^52 + 2^51), which wraps numbers out of range as BitOp does.
  const double shifted = luaL_checknumber(state, index) + 6755399441055744.0;
  uint64_t bits = 0;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return static_cast<uint32_t>(bits);
}

int BitTohex(lua_State* state) {
  uint32_t value = BitArgument(state, 1);
  auto digits = lua_isnone(state, 2) ? 8 : static_cast<int32_t>(BitArgument(state, 2));
  const char* hex = "0123456789abcdef";
  if (digits == INT32_MIN) digits = INT32_MIN + 1;
  if (digits < 0) {
    digits = -digits;
    hex = "0123456789ABCDEF";
  }
  if (digits > 8) digits = 8;
  char text[8];
  for (int i = digits; --i >= 0;) {
    text[i] = hex[value & 15];
    value >>= 4;
  }
  lua_pushlstring(state, text, static_cast<size_t>(digits));
  return 1;
}

// --- The error handler every script runs under ---------------------------------------------

int ErrorHandler(lua_State* state) {
  // Where the error happened, from the script's point of view: the function that raised it, or
  // its caller when that was a C function (error, redis.call), as Redis's handler reports.
  lua_Debug where;
  bool found = lua_getstack(state, 1, &where) != 0 && lua_getinfo(state, "nSl", &where) != 0;
  if (found && std::strcmp(where.what, "C") == 0) {
    found = lua_getstack(state, 2, &where) != 0 && lua_getinfo(state, "nSl", &where) != 0;
  }
  if (!lua_istable(state, 1)) {
    // {err = 'ERR ' .. tostring(err)}
    lua_newtable(state);
    lua_pushliteral(state, "err");
    lua_pushliteral(state, "ERR ");
    lua_getfield(state, LUA_REGISTRYINDEX, "keel_tostring");
    lua_pushvalue(state, 1);
    lua_call(state, 1, 1);
    lua_concat(state, 2);
    lua_rawset(state, -3);
    lua_replace(state, 1);
    lua_settop(state, 1);
  }
  if (found) {
    lua_pushliteral(state, "source");
    lua_pushstring(state, where.source);
    lua_settable(state, 1);
    lua_pushliteral(state, "line");
    lua_pushnumber(state, where.currentline);
    lua_settable(state, 1);
  }
  lua_settop(state, 1);
  return 1;
}

// --- Read-only tables ----------------------------------------------------------------------
//
// Upvalue 1 of the functions below is the table that maps each proxy to the table it stands
// for.

// The table `index` stands for when it is a proxy, pushed; nothing pushed and false otherwise.
bool PushProxied(lua_State* state, int index) {
  if (!lua_istable(state, index)) return false;
  lua_pushvalue(state, index);
  lua_rawget(state, lua_upvalueindex(1));
  if (lua_isnil(state, -1)) {
    lua_pop(state, 1);
    return false;
  }
  return true;
}

int ReadonlyNewindex(lua_State* state) {
  return luaL_error(state, "Attempt to modify a readonly table");
}

int MissingGlobal(lua_State* state) {
  if (lua_gettop(state) != 2) {
    return luaL_error(state, "Wrong number of arguments to luaProtectedTableError");
  }
  if (!lua_isstring(state, -1) && !lua_isnumber(state, -1)) {
    return luaL_error(state,
                      "Second argument to luaProtectedTableError must be a string or number");
  }
  return luaL_error(state, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(state, -1));
}

int RaiseReadonly(lua_State* state) {
  // Redis's VM raises this from rawset and setmetatable without a position.
  lua_pushliteral(state, "Attempt to modify a readonly table");
  return lua_error(state);
}

int SafeRawset(lua_State* state) {
  luaL_checktype(state, 1, LUA_TTABLE);
  luaL_checkany(state, 2);
  luaL_checkany(state, 3);
  if (PushProxied(state, 1)) return RaiseReadonly(state);
  lua_settop(state, 3);
  lua_rawset(state, 1);
  return 1;
}

int SafeRawget(lua_State* state) {
  luaL_checktype(state, 1, LUA_TTABLE);
  luaL_checkany(state, 2);
  if (PushProxied(state, 1)) lua_replace(state, 1);
  lua_settop(state, 2);
  lua_rawget(state, 1);
  return 1;
}

int SafeSetmetatable(lua_State* state) {
  if (PushProxied(state, 1)) return RaiseReadonly(state);
  // The base library's own, kept as upvalue 2.
  lua_pushvalue(state, lua_upvalueindex(2));
  lua_insert(state, 1);
  lua_call(state, lua_gettop(state) - 1, LUA_MULTRET);
  return lua_gettop(state);
}

int SafeGetmetatable(lua_State* state) {
  luaL_checkany(state, 1);
  if (PushProxied(state, 1)) {
    // The globals show the metatable that makes a missing global an error; library tables none.
    lua_getfield(state, LUA_REGISTRYINDEX, "keel_globals_shown_meta");
    lua_pushvalue(state, 1);
    lua_getfield(state, LUA_REGISTRYINDEX, "keel_globals_proxy");
    if (lua_rawequal(state, -1, -2)) {
      lua_pop(state, 2);
      return 1;
    }
    lua_pushnil(state);
    return 1;
  }
  if (!lua_getmetatable(state, 1)) {
    lua_pushnil(state);
    return 1;
  }
  if (luaL_getmetafield(state, 1, "__metatable")) return 1;
  // The strings' metatable is shared by every script: they see a read-only proxy of it (Redis's
  // luaSetTableProtectionForBasicTypes makes it read-only).
  lua_getfield(state, LUA_REGISTRYINDEX, "keel_string_meta");
  if (lua_rawequal(state, -1, -2)) {
    lua_getfield(state, LUA_REGISTRYINDEX, "keel_string_meta_proxy");
    return 1;
  }
  lua_pop(state, 1);
  return 1;
}

int SafeNext(lua_State* state) {
  luaL_checktype(state, 1, LUA_TTABLE);
  if (PushProxied(state, 1)) lua_replace(state, 1);
  lua_settop(state, 2);
  if (lua_next(state, 1) != 0) return 2;
  lua_pushnil(state);
  return 1;
}

int SafePairs(lua_State* state) {
  luaL_checktype(state, 1, LUA_TTABLE);
  lua_pushvalue(state, lua_upvalueindex(2));  // SafeNext
  lua_pushvalue(state, 1);
  lua_pushnil(state);
  return 3;
}

// Replaces the table at `real_index` of the table at the top by a read-only proxy of it, and
// records the pair in the proxy map at `map_index` (absolute indices).
void InstallProxy(lua_State* state, int map_index, const char* name) {
  lua_getfield(state, -1, name);
  const int real = lua_gettop(state);
  lua_newtable(state);  // the proxy
  const int proxy = lua_gettop(state);
  lua_newtable(state);  // its metatable
  lua_pushvalue(state, real);
  lua_setfield(state, -2, "__index");
  lua_pushcfunction(state, ReadonlyNewindex);
  lua_setfield(state, -2, "__newindex");
  lua_setmetatable(state, proxy);
  lua_pushvalue(state, proxy);
  lua_pushvalue(state, real);
  lua_rawset(state, map_index);
  lua_pushstring(state, name);
  lua_pushvalue(state, proxy);
  lua_rawset(state, real - 1);  // the table the library lives in
  lua_pop(state, 2);
}

void LoadLibrary(lua_State* state, const char* name, lua_CFunction open) {
  lua_pushcfunction(state, open);
  lua_pushstring(state, name);
  lua_call(state, 1, 0);
}

// Pushes a read-only proxy of the table at `real` (absolute index) and records the pair in the
// proxy map at `proxies`, so that rawset and setmetatable refuse it too.
void PushReadonlyProxy(lua_State* state, int proxies, int real) {
  lua_newtable(state);  // the proxy
  lua_newtable(state);  // its metatable
  lua_pushvalue(state, real);
  lua_setfield(state, -2, "__index");
  lua_pushcfunction(state, ReadonlyNewindex);
  lua_setfield(state, -2, "__newindex");
  lua_setmetatable(state, -2);
  lua_pushvalue(state, -1);
  lua_pushvalue(state, real);
  lua_rawset(state, proxies);
}

// The functions' load-time globals (Redis's LIBRARY_API): only `redis`, with register_function,
// log, the log levels and the versions; a missing name is an error, as for the globals, and the
// `redis` table is read-only. Left in the registry under kLuaLibraryGlobals.
void BuildLibraryApi(lua_State* state, LuaVm* vm, int proxies) {
  lua_newtable(state);  // the globals
  lua_pushliteral(state, "redis");
  lua_newtable(state);
  SetFunction(state, vm, "register_function", RegisterFunction);
  SetFunction(state, vm, "log", RedisLog);
  SetNumber(state, "LOG_DEBUG", 0);
  SetNumber(state, "LOG_VERBOSE", 1);
  SetNumber(state, "LOG_NOTICE", 2);
  SetNumber(state, "LOG_WARNING", 3);
  SetNumber(state, "REDIS_VERSION_NUM", kRedisVersionNum);
  lua_pushliteral(state, "REDIS_VERSION");
  lua_pushlstring(state, kRedisCompatibleVersion.data(), kRedisCompatibleVersion.size());
  lua_rawset(state, -3);
  lua_newtable(state);
  lua_pushcfunction(state, MissingGlobal);
  lua_setfield(state, -2, "__index");
  lua_setmetatable(state, -2);
  lua_rawset(state, -3);
  InstallProxy(state, proxies, "redis");
  lua_newtable(state);
  lua_pushcfunction(state, MissingGlobal);
  lua_setfield(state, -2, "__index");
  lua_setmetatable(state, -2);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaLibraryGlobals);
  lua_newtable(state);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaLibraryFunctions);
}

}  // namespace

// --- The VM -----------------------------------------------------------------------------------

void* LuaVm::Allocate(void* self, void* pointer, size_t /*old_bytes*/, size_t new_bytes) {
  auto* vm = static_cast<LuaVm*>(self);
  BlockHeader* old_block = pointer == nullptr ? nullptr : static_cast<BlockHeader*>(pointer) - 1;
  if (new_bytes == 0) {
    if (old_block != nullptr) {
      const size_t total = old_block->bytes + kHeaderBytes;
      vm->used_bytes_ -= total;
      vm->memory_.Deallocate(old_block, total, MemoryUse::kScripting);
    }
    return nullptr;
  }
  const size_t total = new_bytes + kHeaderBytes;
  auto* block = static_cast<BlockHeader*>(vm->memory_.Allocate(total, MemoryUse::kScripting));
  if (block == nullptr) {
    // Lua takes a refused shrink for a fatal error; keeping the larger block is always correct.
    if (old_block != nullptr && new_bytes <= old_block->bytes) return pointer;
    return nullptr;
  }
  block->bytes = new_bytes;
  vm->used_bytes_ += total;
  if (old_block != nullptr) {
    const size_t kept = old_block->bytes < new_bytes ? old_block->bytes : new_bytes;
    std::memcpy(block + 1, pointer, kept);
    const size_t old_total = old_block->bytes + kHeaderBytes;
    vm->used_bytes_ -= old_total;
    vm->memory_.Deallocate(old_block, old_total, MemoryUse::kScripting);
  }
  return block + 1;
}

namespace {

int Panic(lua_State* state) {
  // Every call into Lua from C++ is protected; reaching here is a bug.
  const char* message = lua_tostring(state, -1);
  KEEL_ASSERT(message == nullptr && "unprotected Lua error");
  return 0;
}

}  // namespace

LuaVm::LuaVm(MemoryAccountant& memory, Rand48& rand48, LuaHost& host, LuaVmKind kind)
    : memory_(memory), rand48_(rand48), host_(host), kind_(kind) {
  lua_State* state = lua_newstate(&LuaVm::Allocate, this);
  if (state == nullptr) return;
  lua_atpanic(state, Panic);
  if (lua_cpcall(state, &LuaVm::Init, this) != 0) {
    lua_close(state);
    return;
  }
  state_ = state;
}

LuaVm::~LuaVm() {
  if (state_ != nullptr) lua_close(state_);
  KEEL_DASSERT(used_bytes_ == 0);
}

int LuaVm::Init(lua_State* state) {
  auto* vm = static_cast<LuaVm*>(lua_touserdata(state, 1));
  lua_settop(state, 0);
  LoadLibrary(state, "", luaopen_base);
  LoadLibrary(state, LUA_TABLIBNAME, luaopen_table);
  LoadLibrary(state, LUA_STRLIBNAME, luaopen_string);
  LoadLibrary(state, LUA_MATHLIBNAME, luaopen_math);
  // Debian's lua-cjson returns its table without making it a global; Redis's build makes one.
  lua_pushcfunction(state, luaopen_cjson);
  lua_call(state, 0, 1);
  lua_setfield(state, LUA_GLOBALSINDEX, "cjson");
  LoadLibrary(state, "bit", luaopen_bit);
  lua_getfield(state, LUA_GLOBALSINDEX, "bit");
  lua_pushcfunction(state, BitTohex);
  lua_setfield(state, -2, "tohex");
  lua_pop(state, 1);
  lua_pushcfunction(state, OpenStructLibrary);
  lua_call(state, 0, 1);
  lua_setfield(state, LUA_GLOBALSINDEX, "struct");
  lua_pushcfunction(state, OpenMsgpackLibrary);
  lua_pushlightuserdata(state, &vm->pack_buffer_);
  lua_call(state, 1, 1);
  lua_setfield(state, LUA_GLOBALSINDEX, "cmsgpack");

  lua_pushvalue(state, LUA_GLOBALSINDEX);
  const int globals = lua_gettop(state);
  // What Redis leaves out of the base library (Debian's build without the deprecated API).
  for (const char* name : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(state);
    lua_setfield(state, globals, name);
  }
  lua_getfield(state, globals, "tostring");
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_tostring");
  lua_pushcfunction(state, Pcall);
  lua_setfield(state, globals, "pcall");
  lua_pushcfunction(state, Unpack);
  lua_setfield(state, globals, "unpack");
  lua_pushcfunction(state, LoadString);
  lua_setfield(state, globals, "loadstring");
  lua_pushcfunction(state, LoadFromReader);
  lua_setfield(state, globals, "load");

  // The redis table.
  lua_newtable(state);
  SetFunction(state, vm, "call", RedisCall);
  SetFunction(state, vm, "pcall", RedisPcall);
  SetFunction(state, vm, "log", RedisLog);
  SetNumber(state, "LOG_DEBUG", 0);
  SetNumber(state, "LOG_VERBOSE", 1);
  SetNumber(state, "LOG_NOTICE", 2);
  SetNumber(state, "LOG_WARNING", 3);
  SetNumber(state, "REDIS_VERSION_NUM", kRedisVersionNum);
  lua_pushliteral(state, "REDIS_VERSION");
  lua_pushlstring(state, kRedisCompatibleVersion.data(), kRedisCompatibleVersion.size());
  lua_rawset(state, -3);
  SetFunction(state, vm, "setresp", RedisSetResp);
  SetFunction(state, vm, "sha1hex", RedisSha1hex);
  SetFunction(state, vm, "error_reply", RedisErrorReply);
  SetFunction(state, vm, "status_reply", RedisStatusReply);
  SetFunction(state, vm, "set_repl", RedisSetRepl);
  SetNumber(state, "REPL_NONE", 0);
  SetNumber(state, "REPL_AOF", 1);
  SetNumber(state, "REPL_SLAVE", 2);
  SetNumber(state, "REPL_REPLICA", 2);
  SetNumber(state, "REPL_ALL", 3);
  SetFunction(state, vm, "acl_check_cmd", RedisAclCheckCmd);
  SetFunction(state, vm, "breakpoint", RedisBreakpoint);
  SetFunction(state, vm, "debug", RedisDebug);
  SetFunction(state, vm, "replicate_commands", RedisReplicateCommands);
  lua_setfield(state, globals, "redis");

  lua_getfield(state, globals, "math");
  SetFunction(state, vm, "random", MathRandom);
  SetFunction(state, vm, "randomseed", MathRandomseed);
  lua_pop(state, 1);

  lua_pushcfunction(state, ErrorHandler);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaErrorHandler);
  if (vm->kind_ == LuaVmKind::kEval) {
    // EVAL's scripts see their handler as a global, as Redis's do; functions do not.
    lua_pushcfunction(state, ErrorHandler);
    lua_setfield(state, globals, "__redis__err__handler");
  }
  // The time-limit hook finds the VM here.
  lua_pushlightuserdata(state, vm);
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_vm");

  // Read-only tables: a proxy for every library table, and one for the globals.
  lua_newtable(state);
  const int proxies = lua_gettop(state);
  lua_pushvalue(state, globals);
  for (const char* name :
       {"string", "table", "math", "coroutine", "redis", "cjson", "bit", "struct", "cmsgpack"}) {
    InstallProxy(state, proxies, name);
  }
  lua_pop(state, 1);
  // Strings index the string library through the proxy too (getmetatable('').__index == string).
  lua_pushliteral(state, "");
  lua_getmetatable(state, -1);
  lua_getfield(state, globals, "string");
  lua_setfield(state, -2, "__index");
  // getmetatable('') gives a read-only proxy of it (SafeGetmetatable), so that no script can
  // change how strings behave for the scripts after it.
  const int string_meta = lua_gettop(state);
  lua_pushvalue(state, string_meta);
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_string_meta");
  PushReadonlyProxy(state, proxies, string_meta);
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_string_meta_proxy");
  lua_pop(state, 2);

  // The functions that would see past a proxy.
  lua_pushliteral(state, "rawset");
  lua_pushvalue(state, proxies);
  lua_pushcclosure(state, SafeRawset, 1);
  lua_rawset(state, globals);
  lua_pushliteral(state, "rawget");
  lua_pushvalue(state, proxies);
  lua_pushcclosure(state, SafeRawget, 1);
  lua_rawset(state, globals);
  lua_pushliteral(state, "setmetatable");
  lua_pushvalue(state, proxies);
  lua_getfield(state, globals, "setmetatable");
  lua_pushcclosure(state, SafeSetmetatable, 2);
  lua_rawset(state, globals);
  lua_pushliteral(state, "getmetatable");
  lua_pushvalue(state, proxies);
  lua_pushcclosure(state, SafeGetmetatable, 1);
  lua_rawset(state, globals);
  lua_pushliteral(state, "next");
  lua_pushvalue(state, proxies);
  lua_pushcclosure(state, SafeNext, 1);
  lua_pushvalue(state, -1);
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_next");
  lua_rawset(state, globals);
  lua_pushliteral(state, "pairs");
  lua_pushvalue(state, proxies);
  lua_getfield(state, LUA_REGISTRYINDEX, "keel_next");
  lua_pushcclosure(state, SafePairs, 2);
  lua_rawset(state, globals);

  // The globals: a missing one is an error (the real table's metatable), and scripts see them
  // through a proxy that refuses writes.
  lua_newtable(state);
  lua_pushcfunction(state, MissingGlobal);
  lua_setfield(state, -2, "__index");
  // getmetatable(_G) shows it through a read-only proxy: a script that replaced its __index
  // would turn the missing-global error off for every script after it.
  PushReadonlyProxy(state, proxies, lua_gettop(state));
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_globals_shown_meta");
  lua_setmetatable(state, globals);
  lua_newtable(state);
  const int globals_proxy = lua_gettop(state);
  lua_newtable(state);
  lua_pushvalue(state, globals);
  lua_setfield(state, -2, "__index");
  lua_pushcfunction(state, ReadonlyNewindex);
  lua_setfield(state, -2, "__newindex");
  lua_setmetatable(state, globals_proxy);
  lua_pushvalue(state, globals_proxy);
  lua_pushvalue(state, globals);
  lua_rawset(state, proxies);
  lua_pushliteral(state, "_G");
  lua_pushvalue(state, globals_proxy);
  lua_rawset(state, globals);
  lua_pushvalue(state, globals_proxy);
  lua_setfield(state, LUA_REGISTRYINDEX, "keel_globals_proxy");
  lua_getmetatable(state, globals_proxy);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaGlobalsProxyMeta);
  if (vm->kind_ == LuaVmKind::kFunctions) BuildLibraryApi(state, vm, proxies);
  lua_pushvalue(state, globals);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaRealGlobals);
  // From now on every chunk compiled or loaded gets the proxy as its environment.
  lua_pushvalue(state, globals_proxy);
  lua_replace(state, LUA_GLOBALSINDEX);
  lua_settop(state, 0);
  return 0;
}

namespace {

struct CompileArgs {
  std::string_view registry_name;
  std::string_view body;
  std::string_view chunk_name;
  int status;
  std::string* error;
};

int CompileProtected(lua_State* state) {
  auto* args = static_cast<CompileArgs*>(lua_touserdata(state, 1));
  lua_pop(state, 1);
  // lua_pushlstring, not a C string: the names are views.
  lua_pushlstring(state, args->chunk_name.data(), args->chunk_name.size());
  const char* chunk_name = lua_tostring(state, -1);
  args->status = LoadText(state, args->body.data(), args->body.size(), chunk_name);
  if (args->status != 0) {
    // What lua_cpcall returns is dropped: the message is copied out here.
    size_t length = 0;
    const char* message = lua_tolstring(state, -1, &length);
    args->error->assign(message == nullptr ? "" : message, length);
    return 0;
  }
  lua_pushlstring(state, args->registry_name.data(), args->registry_name.size());
  lua_insert(state, -2);
  lua_rawset(state, LUA_REGISTRYINDEX);
  return 0;
}

}  // namespace

std::string LuaVm::Compile(std::string_view registry_name, std::string_view body,
                           std::string_view chunk_name) {
  std::string error;
  CompileArgs args{registry_name, body, chunk_name, 0, &error};
  const int top = lua_gettop(state_);
  if (lua_cpcall(state_, CompileProtected, &args) != 0) error = "not enough memory";
  lua_settop(state_, top);
  // A compile error without a message cannot happen; keep the failure visible if it did.
  if (args.status != 0 && error.empty()) error = "unknown error";
  return error;
}

namespace {

struct ForgetArgs {
  std::string_view registry_name;
};

int ForgetProtected(lua_State* state) {
  auto* args = static_cast<ForgetArgs*>(lua_touserdata(state, 1));
  lua_pushlstring(state, args->registry_name.data(), args->registry_name.size());
  lua_pushnil(state);
  lua_rawset(state, LUA_REGISTRYINDEX);
  return 0;
}

struct ArrayArgs {
  const char* name;
  std::span<const std::string_view> values;
};

int SetArrayProtected(lua_State* state) {
  auto* args = static_cast<ArrayArgs*>(lua_touserdata(state, 1));
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaRealGlobals);
  lua_pushstring(state, args->name);
  lua_createtable(state, static_cast<int>(args->values.size()), 0);
  int index = 1;
  for (std::string_view value : args->values) {
    lua_pushlstring(state, value.data(), value.size());
    lua_rawseti(state, -2, index++);
  }
  lua_rawset(state, -3);
  return 0;
}

}  // namespace

void LuaVm::Forget(std::string_view registry_name) {
  ForgetArgs args{registry_name};
  const int top = lua_gettop(state_);
  (void)lua_cpcall(state_, ForgetProtected, &args);
  lua_settop(state_, top);
}

bool LuaVm::SetGlobalArray(const char* name, std::span<const std::string_view> values) {
  ArrayArgs args{name, values};
  const int top = lua_gettop(state_);
  const bool ok = lua_cpcall(state_, SetArrayProtected, &args) == 0;
  lua_settop(state_, top);
  return ok;
}

void LuaVm::PushErrorHandler() { lua_getfield(state_, LUA_REGISTRYINDEX, kLuaErrorHandler); }

void LuaVm::SetLibraryLoading(bool on) {
  KEEL_ASSERT(kind_ == LuaVmKind::kFunctions);
  // Unprotected, yet it cannot raise: the registry keys and "__index" are strings Lua holds
  // already (nothing is allocated for them), and setting a key a table has allocates nothing.
  const int top = lua_gettop(state_);
  lua_getfield(state_, LUA_REGISTRYINDEX, kLuaGlobalsProxyMeta);
  lua_pushliteral(state_, "__index");
  lua_getfield(state_, LUA_REGISTRYINDEX, on ? kLuaLibraryGlobals : kLuaRealGlobals);
  lua_rawset(state_, -3);
  lua_settop(state_, top);
}

namespace {

void InterruptHook(lua_State* state, lua_Debug* where) {
  lua_getfield(state, LUA_REGISTRYINDEX, "keel_vm");
  auto* vm = static_cast<LuaVm*>(lua_touserdata(state, -1));
  lua_pop(state, 1);
  const int64_t instructions = where->event == LUA_HOOKCOUNT ? LuaVm::kHookInstructions : 0;
  if (!vm->host().Interrupt(instructions)) return;
  vm->HookEveryLine();
  RaiseRedisError(state, "Script killed by user with SCRIPT KILL...");
}

}  // namespace

void LuaVm::SetInterruptHook(bool on) {
  if (on) {
    lua_sethook(state_, InterruptHook, LUA_MASKCOUNT, kHookInstructions);
  } else {
    lua_sethook(state_, nullptr, 0, 0);
  }
}

void LuaVm::HookEveryLine() { lua_sethook(state_, InterruptHook, LUA_MASKLINE, 0); }

}  // namespace keel
