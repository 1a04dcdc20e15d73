// The conversions between Lua values and RESP, both ways, as Redis 7.0's script_lua.c defines
// them (https://redis.io/docs/interact/programmability/lua-api/#data-type-conversion):
//
//   RESP -> Lua (a redis.call reply): integer -> number; bulk -> string; null bulk and null
//   array -> false; array -> table; status -> {ok=...}; error -> {err=...}; RESP3: null -> nil,
//   boolean -> boolean, double -> {double=n}, big number -> {big_number=s}, map -> {map={...}},
//   set -> {set={member=true}}, verbatim -> {verbatim_string={string=s, format=f}}; attributes
//   are skipped.
//   Lua -> RESP (a script's result): string -> bulk; number -> integer (truncated); boolean ->
//   1 or null (or a RESP3 boolean after redis.setresp(3)); a table with err, ok, double,
//   big_number, verbatim_string, map or set as above; any other table -> array up to its first
//   nil; anything else -> null.
//
// The result of a script is first turned into a list of tokens (inside Lua's protection, so that
// a memory error or a metamethod that raises cannot leave half a reply), then written.
#pragma once

#include <lua.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/resp/reply_builder.h"

namespace keel {

// Pushes {err = "CODE message"} for an error text in Redis's two forms: "-CODE message" (the
// code is the first word), or a plain message (code ERR). CR and LF around the message are
// trimmed (Redis's luaPushErrorBuff). May raise a Lua memory error.
void PushRedisErrorTable(lua_State* state, std::string_view text);

// Pushes the Lua form of one RESP reply (trusted bytes the engine wrote). May raise.
void PushReplyAsLua(lua_State* state, std::string_view reply);

// One piece of a script's reply.
struct ReplyToken {
  enum Kind : uint8_t {
    kBulk,
    kInteger,
    kNull,     // null in the caller's protocol
    kBoolean,  // RESP3-style boolean (the script chose RESP3)
    kStatus,   // text: CR and LF become spaces when written
    kError,    // text: Redis's err message; `integer` 1 when already counted in statistics
    kDouble,
    kBigNumber,  // text: CR and LF become spaces
    kVerbatim,   // text, and the three-character format in `format`
    kArray,      // `integer` elements follow
    kMap,        // `integer` pairs follow
    kSet,
    kStackLimit,  // "reached lua stack limit"
  };
  Kind kind = kNull;
  int64_t integer = 0;
  double number = 0;
  std::string_view text = {};
  std::string_view format = {};
};

// Converts the value at the top of the stack (popping it) into `tokens`, whose texts point into
// Lua strings: the caller stops Lua's garbage collector from before the call until the tokens
// are written, since a metamethod may have made a string nothing else holds. Raises on a memory
// error (run it protected) and reads tables with their metamethods, as Redis does. `script_resp` is
// the protocol the script set with redis.setresp (booleans depend on it).
void LuaValueToTokens(lua_State* state, int script_resp, std::vector<ReplyToken>* tokens);

// Writes the tokens to `reply`. `scratch` holds a text being rewritten.
void WriteTokens(const std::vector<ReplyToken>& tokens, ReplyBuilder& reply, std::string* scratch);

// The error of a failed script, from the error table its handler left at the top of the stack:
// "<err> script: <name>, on <source>:<line>." when the table says where. Sets
// `*counted` when the error was counted when it happened (ignore_error_stats_update). Raises
// on a memory error or a raising metamethod (run it protected); `*text` is only assigned at the
// end.
void ScriptErrorText(lua_State* state, std::string_view function_name, std::string* text,
                     bool* counted);

}  // namespace keel
