// The manifest of a multi-part AOF, as Redis 7.0 writes and reads it (src/aof.c).
//
// The AOF directory (appenddirname, inside dir) holds a base file (an RDB or a command-form
// AOF: the keyspace at the last rewrite), incremental files (the commands since, one per rewrite
// started), and the manifest that lists them, one line per file:
//
//   file appendonly.aof.1.base.rdb seq 1 type b
//   file appendonly.aof.1.incr.aof seq 1 type i
//
// Type b is the base, h a history file (replaced by a rewrite, to be removed), i an incremental
// file; incremental files load in the listed order, which their sequence numbers must follow.
// The manifest is replaced as a whole (written to a temporary file, synced, renamed), so that a
// crash leaves either the old list or the new one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

struct AofFileInfo {
  std::string name;  // a file name within the AOF directory, never a path
  int64_t seq = 0;
  char type = 'i';  // 'b', 'h' or 'i'
};

struct AofManifest {
  std::optional<AofFileInfo> base;
  std::vector<AofFileInfo> history;  // newest first, as Redis lists them
  std::vector<AofFileInfo> incrs;    // in load order
  int64_t base_seq = 0;              // the last base sequence number used
  int64_t incr_seq = 0;              // the last incremental sequence number used

  bool empty() const { return !base.has_value() && incrs.empty(); }

  // The manifest's text: the base, then the history files, then the incremental ones.
  std::string Format() const;

  // Makes a new base named `<filename>.<seq>.base.rdb` (or `.aof` when `rdb` is false) with the
  // next sequence number; the old base, if any, becomes history. Returns the new name.
  std::string NewBase(std::string_view filename, bool rdb);
  // Appends a new incremental file `<filename>.<seq>.incr.aof`; returns its name.
  std::string NewIncr(std::string_view filename);
  // After a rewrite: every incremental file but the last (the one being written) becomes
  // history (Redis's markRewrittenIncrAofAsHistory).
  void MarkRewrittenIncrsAsHistory();
};

// What is wrong with a manifest, with Redis's messages.
struct AofManifestError {
  std::string message;  // "Invalid AOF manifest file format", ...
  int line_number = 0;  // 0 when the error is not about one line
  std::string line;
};

// Parses a manifest's text (Redis's aofLoadManifestFromFile, with its checks: lines of at most
// 1024 bytes, '#' comments, name/seq/type pairs in any order with unknown keys ignored, names
// without a '/', one base, increasing incremental sequence numbers). False with `error` filled.
bool ParseAofManifest(std::string_view text, AofManifest* manifest, AofManifestError* error);

}  // namespace keel
