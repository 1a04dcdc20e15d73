// DEBUG: the subcommands of Redis 7.0's DEBUG that Redis's test suite uses and that mean
// something in Keel now: CHANGE-REPL-ID, DIGEST, DIGEST-VALUE, ERROR, LOG, OBJECT, POPULATE,
// PROTOCOL, SET-ACTIVE-EXPIRE, QUICKLIST-PACKED-THRESHOLD, SET-SKIP-CHECKSUM-VALIDATION, SLEEP,
// STRINGMATCH-TEST, PAUSE-CRON, RELOAD and HELP. The ones that inspect later features (LISTPACK,
// ...) belong to those features: each is one entry of kSubcommands. DEBUG itself is
// refused unless enable-debug-command allows it (Engine::CheckAllowed).
//
// DEBUG SLEEP stops the whole server, as Redis's nanosleep does, through the environment: a Wait
// that may not report events (capacity 0). The real environment sleeps; the simulator moves its
// virtual clock, so the server serves nobody for the duration, the sleeping command's duration
// (slow log, latency monitor, INFO) includes the sleep, and no thread blocks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/base/glob.h"
#include "engine/base/numbers.h"
#include "engine/commands/context.h"
#include "engine/commands/scratch.h"
#include "engine/db/digest.h"
#include "engine/db/keyspace.h"
#include "engine/db/types/list.h"
#include "engine/db/value_ops.h"
#include "engine/server/config.h"

namespace keel {
namespace {

// The text of an argument as C sees it: up to its first NUL byte.
std::string CText(std::string_view text) { return std::string(text.substr(0, text.find('\0'))); }

// C's atoi as glibc implements it (strtol, then truncated to int): leading spaces, a sign,
// digits; anything else ends the number, and "" or "abc" are 0.
int CAtoi(std::string_view text) {
  const std::string c_text = CText(text);
  return static_cast<int>(std::strtol(c_text.c_str(), nullptr, 10));
}

void DebugHelp(CommandContext& context);

void DebugChangeReplId(CommandContext& context) {
  context.server().ChangeReplicationId();
  context.reply.Ok();
}

void DebugError(CommandContext& context) {
  // The argument verbatim as an error reply, newlines made spaces. Written as raw protocol, as
  // Redis's addReplySds does, so it counts in no error statistics.
  std::string error = "-" + std::string(context.arg(2));
  for (char& c : error) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  error += "\r\n";
  context.reply.Raw(error);
}

void DebugLog(CommandContext& context) {
  context.server().Log(LogLevel::kWarning, "DEBUG LOG: " + CText(context.arg(2)));
  context.reply.Ok();
}

// Redis's rdbSavedObjectLen: the bytes of the value's RDB encoding, without its type byte, with
// LZF when rdbcompression is on.
size_t SerializedBytes(const CommandContext& context, const Entry& entry) {
  std::string serialised;
  SerialiseValue(entry, {.compress = context.server().config().values().rdbcompression},
                 &serialised);
  return serialised.size() - 1;
}

// DEBUG DIGEST: the digest of every database, as Redis computes it (engine/db/digest.h).
void DebugDigest(CommandContext& context) {
  context.reply.SimpleString(DatasetDigestHex(context.keyspace));
}

// DEBUG DIGEST-VALUE key ...: one digest per key, of its value as stored, expired or not (Redis
// uses dictFind here); a missing key digests as 40 zeros.
void DebugDigestValue(CommandContext& context) {
  context.reply.ArrayHeader(context.argc() - 2);
  const Database& db = context.db();
  for (size_t i = 2; i < context.argc(); i++) {
    DigestBuilder digest;
    if (const Entry* entry = db.FindConst(context.arg(i), db.Hash(context.arg(i)))) {
      DigestEntry(*entry, digest);
    }
    context.reply.SimpleString(digest.Hex());
  }
}

// The quicklist fields Redis adds for a list: nodes, elements per node, the fill the list was
// made with, whether nodes are compressed (Keel's never are; this follows list-compress-depth
// as configured now, where Redis keeps the depth the list was made with) and the listpacks'
// bytes. Returns the characters appended at `line` + `used`.
int AppendQuicklistFields(const CommandContext& context, const Entry& entry, char* line, int used,
                          size_t size) {
  const auto& list = *static_cast<const List*>(EntryObject(entry));
  size_t listpack_bytes = 0;
  list.ForEachNode([&](const unsigned char*, size_t bytes) { listpack_bytes += bytes; });
  const double average = static_cast<double>(list.size()) / static_cast<double>(list.node_count());
  const int compressed = context.config().list_compress_depth != 0 ? 1 : 0;
  return std::snprintf(line + used, size - static_cast<size_t>(used),
                       " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d "
                       "ql_uncompressed_size:%zu",
                       list.node_count(), average, list.fill(), compressed, listpack_bytes);
}

// DEBUG OBJECT key: Redis's line with the fields Keel has. The key is found as it is stored,
// expired or not, without touching it or counting a lookup, as Redis's dictFind does. "Value at"
// is the key's hash where Redis prints the object's address: a pointer value would make the
// reply differ between two runs of the same simulator seed.
void DebugObject(CommandContext& context) {
  const Database& db = context.db();
  const Entry* entry = db.FindConst(context.arg(2), db.Hash(context.arg(2)));
  if (entry == nullptr) {
    context.reply.Error("ERR no such key");
    return;
  }
  char line[512];
  int length =
      std::snprintf(line, sizeof(line),
                    "Value at:0x%llx refcount:%lld encoding:%.*s serializedlength:%zu lru:%u "
                    "lru_seconds_idle:%lld",
                    static_cast<unsigned long long>(db.Hash(context.arg(2))),
                    static_cast<long long>(ObjectRefcount(entry->encoding())),
                    static_cast<int>(EncodingNameOf(*entry).size()), EncodingNameOf(*entry).data(),
                    SerializedBytes(context, *entry), entry->access_clock(),
                    static_cast<long long>(context.keyspace.IdleTimeMs(*entry) / 1000));
  if (entry->type() == ValueType::kList)
    length += AppendQuicklistFields(context, *entry, line, length, sizeof(line));
  context.reply.SimpleString(std::string_view(line, static_cast<size_t>(length)));
}

// Redis's getPositiveLongFromObjectOrReply as DEBUG POPULATE calls it: anything but a strict
// integer of 0..LONG_MAX gets the one error.
bool PositiveLongArg(CommandContext& context, std::string_view text, int64_t* value) {
  if (!ParseStrictInt64(text, value) || *value < 0) {
    context.reply.Error("ERR value is out of range, must be positive");
    return false;
  }
  return true;
}

// DEBUG POPULATE count [prefix] [size]: string keys <prefix>:0 .. <prefix>:<count-1> (prefix
// "key"), each with the value "value:<n>", or, given a size, that text cut or zero-padded to
// `size` bytes. Keys that exist are left alone, an expired one is replaced. As in Redis, the
// writes count as no change since the last save, the prefix is read as C reads it (up to a NUL
// byte) and a key name is cut at 127 bytes (Redis formats it into a 128-byte buffer).
// Where Redis's allocations would abort the process, Keel stops at the first refused one with an
// OOM error (the keys written so far stay), and a size past proto-max-bulk-len is refused as
// SETRANGE refuses it.
void DebugPopulate(CommandContext& context) {
  constexpr size_t kKeyBytesMax = 127;
  int64_t count = 0;
  if (!PositiveLongArg(context, context.arg(2), &count)) return;
  int64_t size = 0;
  if (context.argc() == 5 && !PositiveLongArg(context, context.arg(4), &size)) return;
  if (!CheckStringLength(context, static_cast<uint64_t>(size), 0)) return;
  const std::string prefix = context.argc() >= 4 ? CText(context.arg(3)) : std::string("key");

  // With a size, one zeroed buffer serves every value: each key's text is written over its
  // start and zeroed again after the write.
  ScratchBuffer padded(context.server().memory());
  if (!padded.Allocate(static_cast<size_t>(size))) {
    context.reply.Error(errors::kOom);
    return;
  }
  if (size > 0) std::memset(padded.data(), 0, padded.size());

  Keyspace& keyspace = context.keyspace;
  const int db = context.db_index();
  std::string key;
  for (int64_t n = 0; n < count; n++) {
    const std::string number = Int64ToString(n);
    key.assign(prefix).append(":").append(number);
    if (key.size() > kKeyBytesMax) key.resize(kKeyBytesMax);
    const uint64_t hash = keyspace.Hash(db, key);
    if (keyspace.LookupWrite(db, key, hash) != nullptr) continue;
    const std::string text = "value:" + number;
    std::string_view value = text;
    size_t written = 0;
    if (size > 0) {
      written = std::min(text.size(), padded.size());
      std::memcpy(padded.data(), text.data(), written);
      value = padded.view();
    }
    const bool stored = keyspace.Populate(db, key, hash, value);
    if (written > 0) std::memset(padded.data(), 0, written);
    if (!stored) {
      context.reply.Error(errors::kOom);
      return;
    }
  }
  context.reply.Ok();
}

void DebugProtocol(CommandContext& context) {
  // One test value of each RESP3 type, as Redis's client tests use them.
  ReplyBuilder& reply = context.reply;
  const std::string_view name = context.arg(2);
  if (OptionIs(name, "string")) {
    reply.Bulk("Hello World");
  } else if (OptionIs(name, "integer")) {
    reply.Integer(12345);
  } else if (OptionIs(name, "double")) {
    reply.Double(3.141);
  } else if (OptionIs(name, "bignum")) {
    reply.BigNumber("1234567999999999999999999999999999999");
  } else if (OptionIs(name, "null")) {
    reply.NullBulk();
  } else if (OptionIs(name, "array")) {
    reply.ArrayHeader(3);
    for (int j = 0; j < 3; j++) reply.Integer(j);
  } else if (OptionIs(name, "set")) {
    reply.SetHeader(3);
    for (int j = 0; j < 3; j++) reply.Integer(j);
  } else if (OptionIs(name, "map")) {
    reply.MapHeader(3);
    for (int j = 0; j < 3; j++) {
      reply.Integer(j);
      reply.Boolean(j == 1);
    }
  } else if (OptionIs(name, "attrib")) {
    if (reply.resp() >= 3) {
      reply.AttributeHeader(1);
      reply.Bulk("key-popularity");
      reply.ArrayHeader(2);
      reply.Bulk("key:123");
      reply.Integer(90);
    }
    // An attribute only annotates: a real reply follows it.
    reply.Bulk("Some real reply following the attribute");
  } else if (OptionIs(name, "push")) {
    if (reply.resp() < 3) {
      reply.Error("ERR RESP2 is not supported by this command");
      return;
    }
    reply.PushHeader(2);
    reply.Bulk("server-cpu-usage");
    reply.Integer(42);
    // Push data is out of band: the command's own reply follows.
    reply.Bulk("Some real reply following the push reply");
  } else if (OptionIs(name, "true")) {
    reply.Boolean(true);
  } else if (OptionIs(name, "false")) {
    reply.Boolean(false);
  } else if (OptionIs(name, "verbatim")) {
    reply.Verbatim("This is a verbatim\nstring");
  } else {
    reply.Error(
        "ERR Wrong protocol type name. Please use one of the following: "
        "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
  }
}

void DebugSetActiveExpire(CommandContext& context) {
  context.server().set_active_expire_enabled(CAtoi(context.arg(2)) != 0);
  context.reply.Ok();
}

void DebugQuicklistPackedThreshold(CommandContext& context) {
  // Redis's quicklistisSetPackedThreshold: up to 1 MiB under 4 GiB; 0 restores the default.
  constexpr uint64_t kThresholdMax = (uint64_t{1} << 32) - (uint64_t{1} << 20);
  uint64_t bytes = 0;
  if (!ParseMemory(CText(context.arg(2)), &bytes) || bytes > kThresholdMax) {
    context.reply.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
    return;
  }
  context.server().set_quicklist_packed_threshold_bytes(
      bytes == 0 ? Engine::kQuicklistPackedThresholdDefault : bytes);
  context.reply.Ok();
}

void DebugSetSkipChecksumValidation(CommandContext& context) {
  context.server().set_skip_checksum_validation(CAtoi(context.arg(2)) != 0);
  context.reply.Ok();
}

void DebugSetDisableDenyScripts(CommandContext& context) {
  context.server().set_scripts_run_noscript_commands(CAtoi(context.arg(2)) != 0);
  context.reply.Ok();
}

void DebugSleep(CommandContext& context) {
  // Seconds as strtod reads them ("abc" is 0, "0.5" half a second). Redis converts them to a
  // long long of microseconds; what is not a positive number in range sleeps not at all, as
  // nanosleep refuses a negative time.
  const double seconds = std::strtod(CText(context.arg(2)).c_str(), nullptr);
  const double micros = seconds * 1e6;
  // A termination signal ends the sleep early, as it interrupts Redis's nanosleep, and the server
  // then shuts down at once instead of after the sleep.
  if (micros >= 1.0 && micros < 9.2e18) {
    context.server().env().Wait(static_cast<int64_t>(micros), nullptr, 0);
  }
  context.reply.Ok();
}

void DebugStringmatchTest(CommandContext& context) {
  // Redis runs ten million random patterns against random strings and passes if it did not
  // crash; this runs fewer, so that the server stalls for milliseconds rather than seconds.
  constexpr int kCycles = 100000;
  constexpr size_t kBytesMax = 32;
  char text[kBytesMax];
  char pattern[kBytesMax];
  Rng& rng = context.server().rng();
  uint64_t matches = 0;
  for (int cycle = 0; cycle < kCycles; cycle++) {
    const size_t text_size = rng.Next() % kBytesMax;
    const size_t pattern_size = rng.Next() % kBytesMax;
    for (size_t j = 0; j < text_size; j++) text[j] = static_cast<char>(rng.Next() % 128);
    for (size_t j = 0; j < pattern_size; j++) pattern[j] = static_cast<char>(rng.Next() % 128);
    matches +=
        GlobMatch(std::string_view(pattern, pattern_size), std::string_view(text, text_size));
  }
  (void)matches;
  context.reply.SimpleString("Apparently Redis did not crash: test passed");
}

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: saves the keyspace (unless NOSAVE), empties it
// (unless NOFLUSH) and loads the file back (with MERGE, a key in the file replaces the one in
// memory). Keel reloads from the bytes it saves, then replies once the file is durable.
void DebugReload(CommandContext& context) {
  // What it loads is what it saved (or the file on disk): replaying it would change nothing but
  // save again, so it is not propagated (Redis's rdbSave resets server.dirty).
  context.PreventPropagation();
  bool merge = false;
  bool flush = true;
  bool save = true;
  for (size_t i = 2; i < context.argc(); i++) {
    const std::string_view option = context.arg(i);
    if (OptionIs(option, "merge")) {
      merge = true;
    } else if (OptionIs(option, "noflush")) {
      flush = false;
    } else if (OptionIs(option, "nosave")) {
      save = false;
    } else {
      context.reply.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
      return;
    }
  }
  Engine& engine = context.server();
  Persistence& persistence = engine.persistence();
  // Without NOFLUSH the keyspace is replaced; with it the file's keys are added, replacing
  // those they share (Redis kills itself on such a key unless MERGE; Keel takes the file's). A
  // function library of a name that exists fails the load without MERGE, as in Redis. The bytes
  // saved are the file SAVE would write (a zstd snapshot under rdb-compression-algorithm zstd),
  // and what is loaded back is that file; NOSAVE loads the file on disk.
  std::string bytes;
  RdbLoadResult result;
  bool loaded = false;
  if (save) {
    persistence.AbortSave("Stopping the running save: DEBUG RELOAD saves the dataset itself");
    std::string error;
    bytes = persistence.SerialiseSnapshotFile(&error);
    if (!error.empty()) {
      engine.Log(LogLevel::kWarning, "DEBUG RELOAD could not compress the dataset: " + error);
      context.reply.Error("ERR Error trying to load the RDB dump");
      return;
    }
    loaded = persistence.LoadBytes(bytes, /*merge=*/!flush, &result, /*replace_functions=*/merge);
  } else {
    loaded = persistence.LoadFile(/*merge=*/!flush, &result, /*replace_functions=*/merge).ok();
  }
  if (!loaded) {
    context.reply.Error("ERR Error trying to load the RDB dump");
    return;
  }
  engine.Log(LogLevel::kWarning, "DB reloaded by DEBUG RELOAD");
  if (!save) {
    context.reply.Ok();
    return;
  }
  const std::string error =
      persistence.StartSaveOf(std::move(bytes), Persistence::Trigger::kReload, &context.client);
  if (!error.empty() || !persistence.save_in_progress()) {
    context.reply.Error(error.empty() ? "ERR" : error);
    return;
  }
  engine.WaitForSave(context.client);
}

// DEBUG LOADAOF: the AOF's buffer is written out, and the keyspace replaced by what the AOF files
// hold. Redis exits when they cannot be loaded; Keel replies with an error and keeps nothing
// half loaded (the keyspace is then empty, as after a failed load at start).
void DebugLoadAof(CommandContext& context) {
  Engine& engine = context.server();
  // The keyspace was replaced by what the AOF already holds: nothing to propagate (Redis resets
  // server.dirty for the same reason).
  context.PreventPropagation();
  if (!engine.aof().Reload()) {
    context.reply.Error("ERR Error trying to load the AOF files, check server logs.");
    return;
  }
  engine.Log(LogLevel::kNotice, "Append Only File loaded by DEBUG LOADAOF");
  context.reply.Ok();
}

void DebugPauseCron(CommandContext& context) {
  context.server().set_cron_paused(CAtoi(context.arg(2)) != 0);
  context.reply.Ok();
}

struct DebugSubcommand {
  std::string_view name;
  size_t argc_min;  // counting DEBUG and the subcommand
  size_t argc_max;
  void (*handler)(CommandContext& context);
  std::initializer_list<std::string_view> help;  // its lines of DEBUG HELP
};

// In the order of Redis's DEBUG HELP, with Redis's texts.
const DebugSubcommand kSubcommands[] = {
    {"change-repl-id",
     2,
     2,
     DebugChangeReplId,
     {"CHANGE-REPL-ID", "    Change the replication IDs of the instance.",
      "    Dangerous: should be used only for testing the replication subsystem."}},
    {"digest",
     2,
     2,
     DebugDigest,
     {"DIGEST", "    Output a hex signature representing the current DB content."}},
    {"digest-value",
     2,
     SIZE_MAX,
     DebugDigestValue,
     {"DIGEST-VALUE <key> [<key> ...]",
      "    Output a hex signature of the values of all the specified keys."}},
    {"error",
     3,
     3,
     DebugError,
     {"ERROR <string>",
      "    Return a Redis protocol error with <string> as message. Useful for clients",
      "    unit tests to simulate Redis errors."}},
    {"log", 3, 3, DebugLog, {"LOG <message>", "    Write <message> to the server log."}},
    {"loadaof",
     2,
     2,
     DebugLoadAof,
     {"LOADAOF", "    Flush the AOF buffers on disk and reload the AOF in memory."}},
    {"object",
     3,
     3,
     DebugObject,
     {"OBJECT <key>", "    Show low level info about `key` and associated value."}},
    {"populate",
     3,
     5,
     DebugPopulate,
     {"POPULATE <count> [<prefix>] [<size>]",
      "    Create <count> string keys named key:<num>. If <prefix> is specified then",
      "    it is used instead of the 'key' prefix. These are not propagated to",
      "    replicas. Cluster slots are not respected so keys not belonging to the",
      "    current node can be created in cluster mode."}},
    {"protocol",
     3,
     3,
     DebugProtocol,
     {"PROTOCOL <type>",
      "    Reply with a test value of the specified type. <type> can be: string,",
      "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
      "    true, false."}},
    {"reload",
     2,
     5,
     DebugReload,
     {"RELOAD [option ...]",
      "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
      "    * MERGE: conflicting keys will be loaded from RDB.",
      "    * NOFLUSH: the existing database will not be removed before load, but",
      "      conflicting keys will generate an exception and kill the server.",
      "    * NOSAVE: the database will be loaded from an existing RDB file.", "    Examples:",
      "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
      "      the database.",
      "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
      "      existing RDB file.",
      "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
      "      file to the database."}},
    {"set-active-expire",
     3,
     3,
     DebugSetActiveExpire,
     {"SET-ACTIVE-EXPIRE <0|1>",
      "    Setting it to 0 disables expiring keys in background when they are not",
      "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
      "    default."}},
    {"quicklist-packed-threshold",
     3,
     3,
     DebugQuicklistPackedThreshold,
     {"QUICKLIST-PACKED-THRESHOLD <size>",
      "    Sets the threshold for elements to be inserted as plain vs packed nodes",
      "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default."}},
    {"set-skip-checksum-validation",
     3,
     3,
     DebugSetSkipChecksumValidation,
     {"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
      "    Enables or disables checksum checks for RDB files and RESTORE's payload."}},
    // Not in Redis's DEBUG HELP either.
    {"set-disable-deny-scripts", 3, 3, DebugSetDisableDenyScripts, {}},
    {"sleep",
     3,
     3,
     DebugSleep,
     {"SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed."}},
    {"stringmatch-test",
     2,
     2,
     DebugStringmatchTest,
     {"STRINGMATCH-TEST", "    Run a fuzz tester against the stringmatchlen() function."}},
    {"pause-cron",
     3,
     3,
     DebugPauseCron,
     {"PAUSE-CRON <0|1>", "    Stop periodic cron job processing."}},
    {"help", 2, 2, DebugHelp, {"HELP", "    Prints this help."}},
};

void DebugHelp(CommandContext& context) {
  std::vector<std::string_view> lines = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"};
  for (const DebugSubcommand& sub : kSubcommands) lines.insert(lines.end(), sub.help);
  context.reply.ArrayHeader(lines.size());
  for (std::string_view line : lines) context.reply.SimpleString(line);
}

void CmdDebug(CommandContext& context) {
  for (const DebugSubcommand& sub : kSubcommands) {
    if (!OptionIs(context.arg(1), sub.name)) continue;
    if (context.argc() < sub.argc_min || context.argc() > sub.argc_max) break;
    sub.handler(context);
    return;
  }
  context.reply.Error(SubcommandSyntaxError(context.arg(0), context.arg(1)));
}

constexpr CommandDef kDebugCommands[] = {
    {.name = "debug",
     .arity = -2,
     .flags = "admin noscript loading stale protected",
     .acl = "",
     .keys = "",
     .group = "server",
     .since = "1.0.0",
     .complexity = "Depends on subcommand.",
     .summary = "A container for debugging commands",
     .args = "",
     .handler = CmdDebug,
     .doc_flags = "syscmd"},
};

}  // namespace

void RegisterDebugCommands(Registry& registry) { registry.Add(kDebugCommands); }

}  // namespace keel
