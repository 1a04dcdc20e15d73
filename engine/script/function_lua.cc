#include "engine/script/function_lua.h"

#include <optional>

#include "engine/base/assert.h"
#include "engine/script/lua_reply.h"
#include "engine/script/script_flags.h"

namespace keel {
namespace {

// Where a library's compiled code waits for its run.
constexpr const char* kLoadingChunk = "keel_loading_chunk";

// What redis.register_function and the time-limit hook see while a library loads (a light
// userdata in the registry under kLuaLoadContext).
struct LoadContext {
  FunctionLibrary* library;
  Clock* clock;
  int64_t start_us;
  int64_t timeout_ms;
  // register_function's refusal, kept here so that no C++ string lives in a frame Lua jumps past.
  std::string refusal;
};

LoadContext* LoadContextOf(lua_State* state) {
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaLoadContext);
  auto* load = static_cast<LoadContext*>(lua_touserdata(state, -1));
  lua_pop(state, 1);
  return load;
}

// Libraries are keyed by their id as a Lua number: exact up to 2^53, where an int key would
// wrap after 2^31 FUNCTION LOADs (failed ones take an id too).
void PushLibraryKey(lua_State* state, uint64_t id) {
  KEEL_ASSERT(id < (1ull << 53));
  lua_pushnumber(state, static_cast<lua_Number>(id));
}

int Raise(lua_State* state, std::string_view message) {
  PushRedisErrorTable(state, message);
  return lua_error(state);
}

void LoadHook(lua_State* state, lua_Debug* /*where*/) {
  LoadContext* load = LoadContextOf(state);
  KEEL_ASSERT(load != nullptr);
  load->clock->ChargeComputation(LuaVm::kHookInstructions);
  const int64_t elapsed_ms = (load->clock->MonotonicUs() - load->start_us) / 1000;
  if (load->timeout_ms > 0 && elapsed_ms > load->timeout_ms) {
    // Every line from now on raises, so that nothing the code does can go on (Redis's hook).
    lua_sethook(state, LoadHook, LUA_MASKLINE, 0);
    Raise(state, "FUNCTION LOAD timeout");
  }
}

// Reads a flags table (at `index`) as Redis's luaRegisterFunctionReadFlags: strings naming flags,
// case-insensitively, from index 1 to the first nil. False on anything else.
bool ReadFlags(lua_State* state, int index, uint32_t* flags) {
  uint32_t read = 0;
  for (int i = 1;; i++) {
    lua_pushnumber(state, i);
    lua_gettable(state, index);
    if (lua_isnil(state, -1)) {
      lua_pop(state, 1);
      break;
    }
    if (!lua_isstring(state, -1)) {
      lua_pop(state, 1);
      return false;
    }
    size_t length = 0;
    const char* text = lua_tolstring(state, -1, &length);
    char lower[32];
    if (length >= sizeof(lower)) {
      lua_pop(state, 1);
      return false;
    }
    for (size_t j = 0; j < length; j++) {
      const char c = text[j];
      lower[j] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    const uint32_t flag = ScriptFlagNamed(std::string_view(lower, length));
    lua_pop(state, 1);
    if (flag == 0) return false;
    read |= flag;
  }
  *flags = read;
  return true;
}

bool KeyIs(lua_State* state, int index, const char* name) {
  // strcasecmp on the key's text; the key is copied first so that lua_next's key stays as it was.
  lua_pushvalue(state, index);
  size_t length = 0;
  const char* text = lua_tolstring(state, -1, &length);
  bool same = true;
  size_t i = 0;
  for (; i < length && name[i] != '\0'; i++) {
    const char c = text[i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != name[i]) {
      same = false;
      break;
    }
  }
  if (same) same = i == length && name[i] == '\0';
  lua_pop(state, 1);
  return same;
}

// The named form, redis.register_function{function_name=..., callback=..., flags=...,
// description=...}: leaves name, description and callback in stack slots 2, 3 and 4 (nil when
// not given) and the flags in `*flags`. Raises Redis's errors.
void ReadNamedArguments(lua_State* state, uint32_t* flags) {
  if (!lua_istable(state, 1)) {
    Raise(state,
          "calling redis.register_function with a single argument is only applicable to Lua "
          "table (representing named arguments).");
  }
  lua_settop(state, 1);
  lua_pushnil(state);  // 2: name
  lua_pushnil(state);  // 3: description
  lua_pushnil(state);  // 4: callback
  lua_pushnil(state);  // the iteration's first key
  while (lua_next(state, 1) != 0) {
    // key at -2, value at -1.
    if (!lua_isstring(state, -2)) {
      Raise(state, "named argument key given to redis.register_function is not a string");
    }
    if (KeyIs(state, -2, "function_name")) {
      if (!lua_isstring(state, -1)) {
        Raise(state, "function_name argument given to redis.register_function must be a string");
      }
      lua_pushvalue(state, -1);
      lua_replace(state, 2);
    } else if (KeyIs(state, -2, "description")) {
      if (!lua_isstring(state, -1)) {
        Raise(state, "description argument given to redis.register_function must be a string");
      }
      lua_pushvalue(state, -1);
      lua_replace(state, 3);
    } else if (KeyIs(state, -2, "callback")) {
      if (!lua_isfunction(state, -1)) {
        Raise(state, "callback argument given to redis.register_function must be a function");
      }
      lua_pushvalue(state, -1);
      lua_replace(state, 4);
    } else if (KeyIs(state, -2, "flags")) {
      if (!lua_istable(state, -1)) {
        Raise(state,
              "flags argument to redis.register_function must be a table representing function "
              "flags");
      }
      if (!ReadFlags(state, lua_gettop(state), flags)) Raise(state, "unknown flag given");
    } else {
      Raise(state, "unknown argument given to redis.register_function");
    }
    lua_pop(state, 1);
  }
  if (lua_isnil(state, 2))
    Raise(state, "redis.register_function must get a function name argument");
  if (lua_isnil(state, 4)) Raise(state, "redis.register_function must get a callback argument");
}

// Adds the function to the library; false with the refusal in `load->refusal`. Its strings die
// here, before the caller may raise.
bool AddToLibrary(LoadContext* load, std::string_view name,
                  std::optional<std::string_view> description, uint32_t flags) {
  std::optional<std::string> owned;
  if (description) owned.emplace(*description);
  load->refusal = load->library->AddFunction(name, std::move(owned), flags);
  return load->refusal.empty();
}

}  // namespace

int RegisterFunction(lua_State* state) {
  LoadContext* load = LoadContextOf(state);
  if (load == nullptr) {
    return Raise(state, "redis.register_function can only be called on FUNCTION LOAD command");
  }
  const int argc = lua_gettop(state);
  if (argc < 1 || argc > 2) {
    return Raise(state, "wrong number of arguments to redis.register_function");
  }
  uint32_t flags = 0;
  if (argc == 1) {
    ReadNamedArguments(state, &flags);
  } else {
    if (!lua_isstring(state, 1)) {
      return Raise(state, "first argument to redis.register_function must be a string");
    }
    if (!lua_isfunction(state, 2)) {
      return Raise(state, "second argument to redis.register_function must be a function");
    }
    // The named form's layout: 2 the name, 3 no description, 4 the callback.
    lua_pushvalue(state, 2);
    lua_pushvalue(state, 1);
    lua_replace(state, 2);
    lua_pushnil(state);
    lua_insert(state, 3);
  }
  size_t name_length = 0;
  const char* name = lua_tolstring(state, 2, &name_length);
  std::optional<std::string_view> description;
  if (!lua_isnil(state, 3)) {
    size_t length = 0;
    const char* text = lua_tolstring(state, 3, &length);
    description.emplace(text, length);
  }
  if (!AddToLibrary(load, std::string_view(name, name_length), description, flags)) {
    PushRedisErrorTable(state, load->refusal);
    return lua_error(state);
  }
  // The callback joins its library's table (a memory error here fails the whole load).
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaLibraryFunctions);
  PushLibraryKey(state, load->library->id());
  lua_rawget(state, -2);
  lua_pushvalue(state, 2);
  lua_pushvalue(state, 4);
  lua_rawset(state, -3);
  return 0;
}

namespace {

struct LoadArgs {
  LoadContext* load;
  std::string* error;
};

int LoadProtected(lua_State* state) {
  auto* args = static_cast<LoadArgs*>(lua_touserdata(state, 1));
  lua_settop(state, 0);
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaLibraryFunctions);
  PushLibraryKey(state, args->load->library->id());
  lua_newtable(state);
  lua_rawset(state, -3);
  lua_pop(state, 1);
  lua_pushlightuserdata(state, args->load);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaLoadContext);
  lua_getfield(state, LUA_REGISTRYINDEX, kLoadingChunk);
  lua_sethook(state, LoadHook, LUA_MASKCOUNT, LuaVm::kHookInstructions);
  const int status = lua_pcall(state, 0, 0, 0);
  lua_sethook(state, nullptr, 0, 0);
  if (status == 0) return 0;
  // Redis's luaExtractErrorInformation: a string error gets "ERR ", a table error is its err.
  if (lua_isstring(state, -1)) {
    size_t length = 0;
    const char* text = lua_tolstring(state, -1, &length);
    *args->error = "Error registering functions: ERR " + std::string(text, length);
  } else if (lua_istable(state, -1)) {
    lua_getfield(state, -1, "err");
    size_t length = 0;
    const char* text = lua_isstring(state, -1) ? lua_tolstring(state, -1, &length) : "";
    *args->error = "Error registering functions: " + std::string(text, length);
  } else {
    *args->error = "Error registering functions: ";
  }
  return 0;
}

}  // namespace

std::string LoadLibraryCode(LuaVm& vm, FunctionLibrary& library, std::string_view body,
                            Clock& clock, int64_t timeout_ms) {
  KEEL_ASSERT(vm.kind() == LuaVmKind::kFunctions);
  vm.SetLibraryLoading(true);
  std::string error = vm.Compile(kLoadingChunk, body, "@user_function");
  if (!error.empty()) {
    vm.SetLibraryLoading(false);
    return "Error compiling function: " + error;
  }
  LoadContext load{.library = &library,
                   .clock = &clock,
                   .start_us = clock.MonotonicUs(),
                   .timeout_ms = timeout_ms,
                   .refusal = {}};
  LoadArgs args{&load, &error};
  lua_State* state = vm.state();
  const int top = lua_gettop(state);
  if (lua_cpcall(state, LoadProtected, &args) != 0) {
    error = "Error registering functions: ERR not enough memory";
  }
  lua_settop(state, top);
  lua_sethook(state, nullptr, 0, 0);
  // Unprotected, yet they cannot fail: setting keys the registry has to nil allocates nothing.
  lua_pushnil(state);
  lua_setfield(state, LUA_REGISTRYINDEX, kLuaLoadContext);
  vm.Forget(kLoadingChunk);
  vm.SetLibraryLoading(false);
  if (!error.empty()) ForgetLibraryFunctions(vm, library.id());
  return error;
}

void ForgetLibraryFunctions(LuaVm& vm, uint64_t id) {
  lua_State* state = vm.state();
  const int top = lua_gettop(state);
  // Unprotected, yet it cannot raise: the table is the registry's from the start (its key is a
  // string Lua holds), and setting an existing key to nil allocates nothing. A library that
  // never got a table has nothing to forget.
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaLibraryFunctions);
  KEEL_ASSERT(lua_istable(state, -1));
  PushLibraryKey(state, id);
  lua_rawget(state, -2);
  const bool present = !lua_isnil(state, -1);
  lua_pop(state, 1);
  if (present) {
    PushLibraryKey(state, id);
    lua_pushnil(state);
    lua_rawset(state, -3);
  }
  lua_settop(state, top);
}

void PushLibraryFunction(lua_State* state, uint64_t id, std::string_view name) {
  lua_getfield(state, LUA_REGISTRYINDEX, kLuaLibraryFunctions);
  if (!lua_istable(state, -1)) return;  // nil stays
  PushLibraryKey(state, id);
  lua_rawget(state, -2);
  lua_remove(state, -2);
  if (!lua_istable(state, -1)) return;
  lua_pushlstring(state, name.data(), name.size());
  lua_rawget(state, -2);
  lua_remove(state, -2);
}

}  // namespace keel
