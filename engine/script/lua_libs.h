// The libraries Redis gives scripts that Debian does not package: struct (binary packing, as
// Redis's bundled lua_struct.c) and cmsgpack (MessagePack, as Redis's bundled lua-cmsgpack
// 0.4.0), written here to give the same bytes and the same errors. cjson and bit are Debian's
// lua-cjson and Lua BitOp, the versions Redis bundles (lua_vm.cc opens them).
#pragma once

#include <lua.hpp>

namespace keel {

// Each leaves its library table at the top of the stack.
int OpenStructLibrary(lua_State* state);
int OpenMsgpackLibrary(lua_State* state);

}  // namespace keel
