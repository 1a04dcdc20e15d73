// The connection family in the model: PING, ECHO, SELECT, HELLO, RESET, QUIT and CLIENT
// ID/SETNAME/GETNAME, without requirepass (every connection is authenticated).
#include <climits>

#include "sim/model/model.h"

namespace keel::model {
namespace {

Expected Ping(Call& call) {
  if (call.args.size() > 2) return Error(WrongArity("ping"));
  return call.args.size() == 1 ? Simple("PONG") : Bulk(call.args[1]);
}

Expected Echo(Call& call) { return Bulk(call.args[1]); }

Expected Select(Call& call) {
  int64_t index = 0;
  if (!ParseInt64(call.args[1], &index)) return Error(kNotInteger);
  if (index < INT_MIN || index > INT_MAX) {
    return Error("ERR value is out of range, value must between -2147483648 and 2147483647");
  }
  if (index < 0 || index >= call.model.database_count()) {
    return Error("ERR DB index is out of range");
  }
  call.session.db = static_cast<int>(index);
  return Ok();
}

// Printable ASCII without spaces, so that CLIENT LIST stays parseable.
bool ValidName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

constexpr std::string_view kBadName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

Expected Hello(Call& call) {
  int64_t version = 0;
  size_t next = 1;
  if (call.args.size() >= 2) {
    if (!ParseInt64(call.args[next++], &version)) {
      return Error("ERR Protocol version is not an integer or out of range");
    }
    if (version < 2 || version > 3) return Error("NOPROTO unsupported protocol version");
  }
  for (size_t i = next; i < call.args.size(); i++) {
    const size_t more = call.args.size() - 1 - i;
    if (EqualsIgnoreCase(call.args[i], "AUTH") && more >= 2) {
      // Without requirepass the default user takes any password; other users do not exist.
      if (call.args[i + 1] != "default") {
        return Error("WRONGPASS invalid username-password pair or user is disabled.");
      }
      i += 2;
    } else if (EqualsIgnoreCase(call.args[i], "SETNAME") && more >= 1) {
      // Redis 7.0 names the client as soon as it reads the option.
      if (!ValidName(call.args[i + 1])) return Error(kBadName);
      call.session.name = call.args[++i];
    } else {
      // Redis formats the option with %s: the text ends at its first NUL byte.
      const std::string& option = call.args[i];
      return Error("ERR Syntax error in HELLO option '" + option.substr(0, option.find('\0')) +
                   "'");
    }
  }
  if (version != 0) call.session.resp = static_cast<int>(version);
  std::vector<RespValue> pairs = {
      RespValue::Bulk("server"),  RespValue::Bulk("redis"),
      RespValue::Bulk("version"), RespValue::Bulk("7.0.15"),
      RespValue::Bulk("proto"),   RespValue::Integer(call.session.resp),
      RespValue::Bulk("id"),      RespValue::Integer(static_cast<int64_t>(call.session.client_id)),
      RespValue::Bulk("mode"),    RespValue::Bulk("standalone"),
      RespValue::Bulk("role"),    RespValue::Bulk("master"),
      RespValue::Bulk("modules"), RespValue::Array({}),
  };
  return Map(std::move(pairs), call.session.resp);
}

Expected Reset(Call& call) {
  call.model.DiscardTransaction(call.session);
  call.session.db = 0;
  call.session.resp = 2;
  call.session.name.clear();
  return Simple("RESET");
}

Expected Quit(Call& call) {
  call.session.quit = true;
  return Ok();
}

Expected ClientId(Call& call) { return Integer(static_cast<int64_t>(call.session.client_id)); }

Expected ClientSetname(Call& call) {
  if (!ValidName(call.args[2])) return Error(kBadName);
  call.session.name = call.args[2];
  return Ok();
}

Expected ClientGetname(Call& call) {
  return call.session.name.empty() ? call.Null() : Bulk(call.session.name);
}

constexpr Command kCommands[] = {
    {"ping", 0, Ping},
    {"echo", 0, Echo},
    {"select", 0, Select},
    {"hello", 0, Hello},
    {"reset", 0, Reset},
    {"quit", 0, Quit},
    {"client|id", 0, ClientId},
    {"client|setname", 0, ClientSetname},
    {"client|getname", 0, ClientGetname},
};

}  // namespace

std::span<const Command> ConnectionCommands() { return kCommands; }

}  // namespace keel::model
