// The command form of an AOF rewrite: every key as the commands that rebuild it, in RESP
// multibulk form, as Redis 7.0 writes an AOF base file with aof-use-rdb-preamble off (aof.c's
// rewriteAppendOnlyFileRio).
//
// Per key, as Redis writes them: a string as SET key value; a list as RPUSH, a set as SADD, a
// sorted set as ZADD (score then member, the score as "%.17g" with "inf"/"-inf") and a hash as
// HMSET, each in commands of at most kAofRewriteItemsPerCommand elements (pairs for ZADD and
// HMSET), so that loading never builds one huge argument vector; then PEXPIREAT key ms when the
// key has an expiry. A SELECT comes before the first key and whenever the database changes (a
// Snapshot hands keys of several databases in no fixed order, so a database may be selected
// more than once). Integers held in integer encodings come out as their decimal text.
//
// The writer produces bytes as it is handed keys; the caller takes them (TakeBytes) and writes
// them out. It touches no file: persistence (server/) does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/db/snapshot.h"

namespace keel {

class Entry;

// Redis's AOF_REWRITE_ITEMS_PER_CMD: the elements (or member/score, field/value pairs) one
// rewritten command carries at most. Bounds the arguments a loader must hold per command.
inline constexpr size_t kAofRewriteItemsPerCommand = 64;

// Appends `args` as one RESP multibulk command ("*N\r\n$len\r\narg\r\n...") to *out. The AOF's
// live writer appends what it propagates with it, too. REQUIRES: args is not empty.
void AppendAofCommand(std::string* out, std::span<const std::string_view> args);

// Writes every key a Snapshot hands it as the commands that rebuild it.
class AofCommandWriter final : public SnapshotSink {
 public:
  AofCommandWriter();

  // Appends "SELECT db" when `db` is not the database selected last, then the key's commands,
  // then PEXPIREAT when it has an expiry. REQUIRES: the entry's type is one Keel stores (there
  // are no streams yet).
  void Save(int db, const Entry& entry) override;

  // Appends one command that is not a key's (the function libraries' FUNCTION LOAD), before the
  // keys.
  void AddCommand(std::span<const std::string_view> args) { AppendAofCommand(&out_, args); }

  // Bytes made and not yet taken. A single large key adds all its commands at once, so this can
  // grow by a whole value's size in one Save.
  size_t pending_bytes() const { return out_.size(); }
  // Hands over the bytes made since the last call.
  std::string TakeBytes();
  // Nothing follows the last key in this format (kept for symmetry with RdbWriter::Finish).
  void Finish() {}
  uint64_t keys_written() const { return keys_written_; }

 private:
  std::string out_;
  int current_db_ = -1;  // -1: nothing selected yet
  uint64_t keys_written_ = 0;
};

}  // namespace keel
