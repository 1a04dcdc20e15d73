#include "engine/script/lua_reply.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"

namespace keel {

void PushRedisErrorTable(lua_State* state, std::string_view text) {
  std::string_view code = "ERR";
  std::string_view message = text;
  if (!text.empty() && text[0] == '-') {
    const size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      message = text.substr(1);
    } else {
      code = text.substr(1, space - 1);
      message = text.substr(space + 1);
    }
  }
  // sdstrim: CR and LF off both ends.
  while (!message.empty() && (message.front() == '\r' || message.front() == '\n')) {
    message.remove_prefix(1);
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) {
    message.remove_suffix(1);
  }
  lua_newtable(state);
  lua_pushliteral(state, "err");
  lua_pushlstring(state, code.data(), code.size());
  lua_pushliteral(state, " ");
  lua_pushlstring(state, message.data(), message.size());
  lua_concat(state, 3);
  lua_rawset(state, -3);
}

namespace {

// --- RESP -> Lua --------------------------------------------------------------------------

class ReplyReader {
 public:
  ReplyReader(lua_State* state, std::string_view bytes) : state_(state), bytes_(bytes) {}

  // Pushes the next value (or skips it when `push` is false).
  void Read(bool push) {
    if (push && !lua_checkstack(state_, 5)) {
      luaL_error(state_, "reached lua stack limit");
    }
    const char type = bytes_[position_];
    const size_t line_end = bytes_.find("\r\n", position_);
    KEEL_ASSERT(line_end != std::string_view::npos);
    const std::string_view line = bytes_.substr(position_ + 1, line_end - position_ - 1);
    const size_t body = line_end + 2;
    position_ = body;
    switch (type) {
      case '+':
        if (!push) return;
        lua_newtable(state_);
        lua_pushliteral(state_, "ok");
        lua_pushlstring(state_, line.data(), line.size());
        lua_settable(state_, -3);
        return;
      case '-':
        if (!push) return;
        // The text with its '-': "-CODE message".
        PushRedisErrorTable(state_, bytes_.substr(body - line.size() - 3, line.size() + 1));
        lua_pushliteral(state_, "ignore_error_stats_update");
        lua_pushboolean(state_, 1);
        lua_settable(state_, -3);
        return;
      case ':':
        if (push) lua_pushnumber(state_, static_cast<lua_Number>(Number(line)));
        return;
      case '$':
      case '=':
      case '!': {
        const int64_t length = Number(line);
        if (length < 0) {
          if (push) lua_pushboolean(state_, 0);
          return;
        }
        const std::string_view text = bytes_.substr(body, static_cast<size_t>(length));
        position_ = body + static_cast<size_t>(length) + 2;
        if (!push) return;
        if (type == '$') {
          lua_pushlstring(state_, text.data(), text.size());
        } else if (type == '=') {
          lua_newtable(state_);
          lua_pushliteral(state_, "verbatim_string");
          lua_newtable(state_);
          lua_pushliteral(state_, "string");
          lua_pushlstring(state_, text.data() + 4, text.size() - 4);
          lua_settable(state_, -3);
          lua_pushliteral(state_, "format");
          lua_pushlstring(state_, text.data(), 3);
          lua_settable(state_, -3);
          lua_settable(state_, -3);
        } else {
          lua_pushliteral(state_, "-");
          lua_pushlstring(state_, text.data(), text.size());
          lua_concat(state_, 2);
          size_t dashed_length = 0;
          const char* dashed = lua_tolstring(state_, -1, &dashed_length);
          PushRedisErrorTable(state_, std::string_view(dashed, dashed_length));
          lua_remove(state_, -2);
        }
        return;
      }
      case '*':
      case '>': {
        const int64_t count = Number(line);
        if (count < 0) {
          if (push) lua_pushboolean(state_, 0);
          return;
        }
        if (push) lua_createtable(state_, static_cast<int>(count), 0);
        for (int64_t i = 0; i < count; i++) {
          if (push) lua_pushnumber(state_, static_cast<lua_Number>(i + 1));
          Read(push);
          if (push) lua_settable(state_, -3);
        }
        return;
      }
      case '%':
      case '~': {
        const int64_t count = Number(line);
        if (push) {
          lua_newtable(state_);
          if (type == '%') {
            lua_pushliteral(state_, "map");
          } else {
            lua_pushliteral(state_, "set");
          }
          lua_newtable(state_);
        }
        for (int64_t i = 0; i < count; i++) {
          Read(push);
          if (type == '%') {
            Read(push);
          } else if (push) {
            lua_pushboolean(state_, 1);
          }
          if (push) lua_settable(state_, -3);
        }
        if (push) lua_settable(state_, -3);
        return;
      }
      case '|': {
        // Attributes are not shown to scripts: skip them, then read the value they annotate.
        const int64_t count = Number(line);
        for (int64_t i = 0; i < 2 * count; i++) Read(false);
        Read(push);
        return;
      }
      case '_':
        if (push) lua_pushnil(state_);
        return;
      case '#':
        if (push) lua_pushboolean(state_, line == "t");
        return;
      case ',':
        if (push) {
          lua_newtable(state_);
          lua_pushliteral(state_, "double");
          lua_pushnumber(state_, ParseDouble(line));
          lua_settable(state_, -3);
        }
        return;
      case '(':
        if (push) {
          lua_newtable(state_);
          lua_pushliteral(state_, "big_number");
          lua_pushlstring(state_, line.data(), line.size());
          lua_settable(state_, -3);
        }
        return;
      default:
        KEEL_ASSERT(false && "unknown RESP type in a reply");
    }
  }

 private:
  static int64_t Number(std::string_view text) {
    int64_t value = 0;
    const bool ok = ParseStrictInt64(text, &value);
    KEEL_ASSERT(ok);
    return value;
  }
  static double ParseDouble(std::string_view text) {
    char buffer[64];
    const size_t length = text.size() < sizeof(buffer) - 1 ? text.size() : sizeof(buffer) - 1;
    std::memcpy(buffer, text.data(), length);
    buffer[length] = '\0';
    return std::strtod(buffer, nullptr);
  }

  lua_State* state_;
  std::string_view bytes_;
  size_t position_ = 0;
};

}  // namespace

void PushReplyAsLua(lua_State* state, std::string_view reply) {
  ReplyReader reader(state, reply);
  reader.Read(true);
}

// --- Lua -> tokens ----------------------------------------------------------------------------

namespace {

// A string field of the table at the top, pushed (or nil), through the table's metamethods as
// Redis's lua_gettable.
int GetField(lua_State* state, const char* name) {
  lua_pushstring(state, name);
  lua_gettable(state, -2);
  return lua_type(state, -1);
}

std::string_view ViewOf(lua_State* state, int index) {
  size_t length = 0;
  const char* text = lua_tolstring(state, index, &length);
  return {text, length};
}

// Redis's (long long) cast of a lua_Number: x86 gives INT64_MIN for what does not fit.
int64_t TruncateNumber(lua_Number number) {
  if (!(number > -9223372036854775808.0 && number < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(number);
}

void Convert(lua_State* state, int script_resp, std::vector<ReplyToken>* tokens);

// The helpers below keep what a token needs out of Convert's frame: Convert recurses once per
// level of a nested table, as deep as Lua's stack allows (about 8,000 levels, where Redis answers
// "reached lua stack limit"), so its frame must stay small.
[[gnu::noinline]] void AddToken(std::vector<ReplyToken>* tokens, ReplyToken::Kind kind,
                                int64_t integer) {
  ReplyToken token;
  token.kind = kind;
  token.integer = integer;
  tokens->push_back(token);
}

[[gnu::noinline]] void AddTextToken(lua_State* state, std::vector<ReplyToken>* tokens,
                                    ReplyToken::Kind kind, int index) {
  ReplyToken token;
  token.kind = kind;
  token.text = ViewOf(state, index);
  tokens->push_back(token);
}

// Handles a table with one of the special fields (err, ok, double, big_number,
// verbatim_string, map, set) at the top, popping it; false (nothing popped) for a plain table.
[[gnu::noinline]] bool ConvertSpecialTable(lua_State* state, int script_resp,
                                           std::vector<ReplyToken>* tokens) {
  if (GetField(state, "err") == LUA_TSTRING) {
    lua_pop(state, 1);
    bool counted = false;
    lua_getfield(state, -1, "ignore_error_stats_update");
    if (lua_isboolean(state, -1)) counted = lua_toboolean(state, -1) != 0;
    lua_pop(state, 1);
    lua_getfield(state, -1, "err");
    ReplyToken token;
    token.kind = ReplyToken::kError;
    token.integer = counted ? 1 : 0;
    token.text = ViewOf(state, -1);
    tokens->push_back(token);
    lua_pop(state, 2);
    return true;
  }
  lua_pop(state, 1);
  if (GetField(state, "ok") == LUA_TSTRING) {
    AddTextToken(state, tokens, ReplyToken::kStatus, -1);
    lua_pop(state, 2);
    return true;
  }
  lua_pop(state, 1);
  if (GetField(state, "double") == LUA_TNUMBER) {
    ReplyToken token;
    token.kind = ReplyToken::kDouble;
    token.number = lua_tonumber(state, -1);
    tokens->push_back(token);
    lua_pop(state, 2);
    return true;
  }
  lua_pop(state, 1);
  if (GetField(state, "big_number") == LUA_TSTRING) {
    AddTextToken(state, tokens, ReplyToken::kBigNumber, -1);
    lua_pop(state, 2);
    return true;
  }
  lua_pop(state, 1);
  if (GetField(state, "verbatim_string") == LUA_TTABLE) {
    if (GetField(state, "format") == LUA_TSTRING) {
      const std::string_view format = ViewOf(state, -1);
      lua_pushliteral(state, "string");
      lua_gettable(state, -3);
      if (lua_type(state, -1) == LUA_TSTRING) {
        ReplyToken token;
        token.kind = ReplyToken::kVerbatim;
        token.text = ViewOf(state, -1);
        token.format = format;
        tokens->push_back(token);
        lua_pop(state, 4);
        return true;
      }
      lua_pop(state, 1);
    }
    lua_pop(state, 1);
  }
  lua_pop(state, 1);
  if (GetField(state, "map") == LUA_TTABLE) {
    const size_t header = tokens->size();
    AddToken(tokens, ReplyToken::kMap, 0);
    int64_t pairs = 0;
    lua_pushnil(state);
    while (lua_next(state, -2) != 0) {
      lua_pushvalue(state, -2);
      Convert(state, script_resp, tokens);  // the key
      Convert(state, script_resp, tokens);  // the value
      pairs++;
    }
    (*tokens)[header].integer = pairs;
    lua_pop(state, 2);
    return true;
  }
  lua_pop(state, 1);
  if (GetField(state, "set") == LUA_TTABLE) {
    const size_t header = tokens->size();
    AddToken(tokens, ReplyToken::kSet, 0);
    int64_t members = 0;
    lua_pushnil(state);
    while (lua_next(state, -2) != 0) {
      lua_pop(state, 1);
      lua_pushvalue(state, -1);
      Convert(state, script_resp, tokens);
      members++;
    }
    (*tokens)[header].integer = members;
    lua_pop(state, 2);
    return true;
  }
  lua_pop(state, 1);
  return false;
}

// Converts and pops the value at the top (Redis's luaReplyToRedisReply).
void Convert(lua_State* state, int script_resp, std::vector<ReplyToken>* tokens) {
  if (!lua_checkstack(state, 4)) {
    AddToken(tokens, ReplyToken::kStackLimit, 0);
    lua_pop(state, 1);
    return;
  }
  switch (lua_type(state, -1)) {
    case LUA_TSTRING:
      AddTextToken(state, tokens, ReplyToken::kBulk, -1);
      break;
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(state, -1)) {
          AddToken(tokens, ReplyToken::kInteger, 1);
        } else {
          AddToken(tokens, ReplyToken::kNull, 0);
        }
      } else {
        AddToken(tokens, ReplyToken::kBoolean, lua_toboolean(state, -1) ? 1 : 0);
      }
      break;
    case LUA_TNUMBER:
      AddToken(tokens, ReplyToken::kInteger, TruncateNumber(lua_tonumber(state, -1)));
      break;
    case LUA_TTABLE: {
      if (ConvertSpecialTable(state, script_resp, tokens)) return;
      // An array, up to its first nil.
      const size_t header = tokens->size();
      AddToken(tokens, ReplyToken::kArray, 0);
      int64_t elements = 0;
      while (true) {
        lua_pushnumber(state, static_cast<lua_Number>(elements + 1));
        lua_gettable(state, -2);
        if (lua_isnil(state, -1)) {
          lua_pop(state, 1);
          break;
        }
        Convert(state, script_resp, tokens);
        elements++;
      }
      (*tokens)[header].integer = elements;
      break;
    }
    default:
      AddToken(tokens, ReplyToken::kNull, 0);
  }
  lua_pop(state, 1);
}

// Redis's sdsmapchars(s, "\r\n", "  "): the text with CR and LF as spaces.
std::string_view Spaced(std::string_view text, std::string* scratch) {
  if (text.find_first_of("\r\n") == std::string_view::npos) return text;
  scratch->assign(text);
  for (char& c : *scratch) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return *scratch;
}

}  // namespace

void LuaValueToTokens(lua_State* state, int script_resp, std::vector<ReplyToken>* tokens) {
  tokens->clear();
  Convert(state, script_resp, tokens);
}

void WriteTokens(const std::vector<ReplyToken>& tokens, ReplyBuilder& reply, std::string* scratch) {
  for (const ReplyToken& token : tokens) {
    switch (token.kind) {
      case ReplyToken::kBulk:
        reply.Bulk(token.text);
        break;
      case ReplyToken::kInteger:
        reply.Integer(token.integer);
        break;
      case ReplyToken::kNull:
        reply.NullBulk();
        break;
      case ReplyToken::kBoolean:
        reply.Boolean(token.integer != 0);
        break;
      case ReplyToken::kStatus:
        reply.SimpleString(Spaced(token.text, scratch));
        break;
      case ReplyToken::kError: {
        // Redis writes "-<err>": the err text carries its code.
        reply.Error(token.text, /*count_in_stats=*/token.integer == 0);
        break;
      }
      case ReplyToken::kDouble:
        reply.Double(token.number);
        break;
      case ReplyToken::kBigNumber:
        reply.BigNumber(Spaced(token.text, scratch));
        break;
      case ReplyToken::kVerbatim:
        reply.Verbatim(token.text, token.format);
        break;
      case ReplyToken::kArray:
        reply.ArrayHeader(static_cast<size_t>(token.integer));
        break;
      case ReplyToken::kMap:
        reply.MapHeader(static_cast<size_t>(token.integer));
        break;
      case ReplyToken::kSet:
        reply.SetHeader(static_cast<size_t>(token.integer));
        break;
      case ReplyToken::kStackLimit:
        reply.Error("ERR reached lua stack limit");
        break;
    }
  }
}

void ScriptErrorText(lua_State* state, std::string_view function_name, std::string* text,
                     bool* counted) {
  *counted = false;
  // Only views and numbers while Lua may raise; the text is built at the end.
  if (!lua_istable(state, -1)) {
    // The handler itself failed (no memory): Redis's "Error running script" form.
    const std::string_view message =
        lua_type(state, -1) == LUA_TSTRING ? ViewOf(state, -1) : "execution failure";
    text->assign("ERR Error running script ");
    text->append(function_name);
    text->append(", ");
    text->append(message.substr(0, 100));
    return;
  }
  std::string_view err;
  char err_number[32];
  bool has_err = true;
  lua_getfield(state, -1, "err");
  if (lua_type(state, -1) == LUA_TSTRING) {
    err = ViewOf(state, -1);
  } else if (lua_type(state, -1) == LUA_TNUMBER) {
    const int length =
        std::snprintf(err_number, sizeof(err_number), "%.14g", lua_tonumber(state, -1));
    err = std::string_view(err_number, static_cast<size_t>(length));
  } else {
    has_err = false;
  }
  lua_pop(state, 1);
  if (!has_err) {
    // error({}): redis-server 7.0.15 crashes on a table without a message (it formats a null
    // pointer); Keel answers as for an error that is not a table.
    text->assign("ERR Error running script ");
    text->append(function_name);
    text->append(", execution failure");
    return;
  }
  std::string_view source;
  bool has_source = false;
  lua_getfield(state, -1, "source");
  if (lua_type(state, -1) == LUA_TSTRING) {
    source = ViewOf(state, -1);
    has_source = true;
  }
  lua_pop(state, 1);
  std::string_view line_text;
  lua_Number line_number = 0;
  int line_type = LUA_TNIL;
  lua_getfield(state, -1, "line");
  line_type = lua_type(state, -1);
  if (line_type == LUA_TSTRING) line_text = ViewOf(state, -1);
  if (line_type == LUA_TNUMBER) line_number = lua_tonumber(state, -1);
  lua_pop(state, 1);
  lua_getfield(state, -1, "ignore_error_stats_update");
  if (lua_isboolean(state, -1)) *counted = lua_toboolean(state, -1) != 0;
  lua_pop(state, 1);
  text->assign(err);
  if (has_source && (line_type == LUA_TSTRING || line_type == LUA_TNUMBER)) {
    text->append(" script: ");
    text->append(function_name);
    text->append(", on ");
    text->append(source);
    text->push_back(':');
    if (line_type == LUA_TSTRING) {
      text->append(line_text);
    } else {
      // Lua's own number format (LUA_NUMBER_FMT), as lua_tostring would print it.
      char number[32];
      const int length = std::snprintf(number, sizeof(number), "%.14g", line_number);
      text->append(number, static_cast<size_t>(length));
    }
    text->push_back('.');
  }
}

}  // namespace keel
