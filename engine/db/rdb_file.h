// RDB files as Redis 7.0 writes and reads them (rdb.c's rdbSaveRio and rdbLoadRio): the header
// "REDIS0010", the aux fields, per database a SELECTDB and a RESIZEDB, each key with its expiry
// (and its idle time or LFU counter under an LRU or LFU policy), the EOF opcode and a CRC-64 of
// everything before it. The values are the value types' own serialisers and loaders
// (value_ops.h, value_load.h), the same bytes DUMP and RESTORE use.
//
// The writer produces bytes a part at a time (the caller appends them to a file as they come);
// the loader reads a whole file's bytes, or pulls them from a ByteSource a window at a time (a
// zstd-compressed snapshot, zstd_frame.h). Neither touches a file: persistence (server/) does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/db/byte_source.h"
#include "engine/db/snapshot.h"
#include "engine/db/value_load.h"
#include "engine/db/value_ops.h"

namespace keel {

class Entry;
class Keyspace;

namespace rdb {

// The versions the loader reads: Redis 2.6's 6 to Redis 7.4's 12 (Redis 7.0 itself reads up to
// 10); the writer writes 10, which Redis 7.0 loads.
inline constexpr int kFileVersionMin = 1;
inline constexpr int kFileVersionMax = 12;

// Opcodes (RDB_OPCODE_*).
inline constexpr uint8_t kOpSlotInfo = 244;
inline constexpr uint8_t kOpFunction2 = 245;
inline constexpr uint8_t kOpFunctionPreGa = 246;
inline constexpr uint8_t kOpModuleAux = 247;
inline constexpr uint8_t kOpIdle = 248;
inline constexpr uint8_t kOpFreq = 249;
inline constexpr uint8_t kOpAux = 250;
inline constexpr uint8_t kOpResizeDb = 251;
inline constexpr uint8_t kOpExpireTimeMs = 252;
inline constexpr uint8_t kOpExpireTime = 253;
inline constexpr uint8_t kOpSelectDb = 254;
inline constexpr uint8_t kOpEof = 255;

// Reads one function library after its opcode (Redis's rdbFunctionLoad): the code itself
// (kOpFunction2), or a Redis 7.0 release candidate's name, engine, optional description and body
// (kOpFunctionPreGa), turned into the code they stand for. Returns "" or Redis's error.
class Reader;
std::string ReadFunctionLibrary(Reader& reader, uint8_t opcode, std::string* code);

}  // namespace rdb

// What the writer puts in the header and how it encodes keys.
struct RdbWriteOptions {
  // The version the header says: Redis 7.0's, or Redis 7.4's (12) when a hash has field TTLs
  // (RdbSnapshotWriter decides), which Redis 7.0 cannot load.
  uint16_t version = rdb::kVersion;
  bool compress = true;  // rdbcompression
  bool checksum = true;  // rdbchecksum: without it the trailer is 8 zero bytes, as in Redis
  // Under an LRU policy each key carries its idle seconds, under an LFU one its counter.
  bool save_lru = false;
  bool save_lfu = false;
  uint32_t lru_clock = 0;  // now, in AccessClock::lru_clock's units, for the idle times
  int64_t ctime_s = 0;     // the "ctime" aux field
  uint64_t used_memory_bytes = 0;
  std::string_view redis_version;  // the "redis-ver" aux field
  bool aof_base = false;           // the "aof-base" aux field (an AOF's base file)
  // The function libraries' codes, written after the aux fields as Redis 7.0 writes them (an
  // RDB_OPCODE_FUNCTION2 and the code per library).
  std::vector<std::string> function_libraries;
};

class RdbWriter {
 public:
  explicit RdbWriter(const RdbWriteOptions& options);

  // The header and the aux fields (once, first).
  void Begin();
  // Announces database `db` with its sizes (a SELECTDB and a RESIZEDB). Keys of a database may
  // come in several runs; each key is written in the database last announced or selected.
  void SelectDb(int db, uint64_t keys, uint64_t volatile_keys);
  // One key with its value, expiry and access clock, in database `db` (a bare SELECTDB first
  // when it differs from the last one).
  void Key(int db, const Entry& entry);
  // The EOF opcode and the checksum (once, last).
  void Finish();

  // The bytes produced since the last call (the caller writes them out); the checksum covers
  // them all.
  std::string TakeBytes();
  size_t pending_bytes() const { return out_.size(); }
  uint64_t keys_written() const { return keys_written_; }

 private:
  void Aux(std::string_view name, std::string_view value);
  void AuxInt(std::string_view name, int64_t value);
  void Checksum();

  RdbWriteOptions options_;
  std::string out_;
  uint64_t crc_ = 0;
  size_t checksummed_ = 0;  // bytes of out_ already in crc_
  int current_db_ = -1;
  uint64_t keys_written_ = 0;
};

// Writes the keys a Snapshot hands it: each database is announced (SELECTDB, and RESIZEDB with
// its sizes when the snapshot began) before its first key.
class RdbSnapshotWriter final : public SnapshotSink {
 public:
  // Call before the Snapshot is made, so that the sizes are those of its instant. Writes the
  // header.
  RdbSnapshotWriter(const Keyspace& keyspace, const RdbWriteOptions& options);
  void Save(int db, const Entry& entry) override;
  RdbWriter& writer() { return writer_; }
  const RdbWriter& writer() const { return writer_; }
  uint64_t keys_total() const { return keys_total_; }

 private:
  RdbWriter writer_;
  std::vector<std::pair<uint64_t, uint64_t>> sizes_;  // keys and volatile keys per database
  std::vector<bool> announced_;
  uint64_t keys_total_ = 0;
};

// The whole keyspace as one RDB file, written now (DEBUG RELOAD, tests, fuzzing).
std::string WriteRdb(Keyspace& keyspace, const RdbWriteOptions& options);

// How the loader treats the file and the keys in it.
struct RdbLoadOptions {
  ValueLoadLimits limits;
  bool verify_checksum = true;  // false under DEBUG SET-SKIP-CHECKSUM-VALIDATION
  // Keys whose expiry is before this time (ms) are skipped, as a primary loading an RDB does;
  // INT64_MIN keeps them all.
  int64_t drop_expired_before_ms = INT64_MIN;
  uint32_t new_access_clock = 0;  // for keys without an IDLE or FREQ opcode
  uint32_t lru_clock = 0;         // now, to turn IDLE seconds into an access clock
  bool lfu = false;               // the policy in force is an LFU one
  // A key the keyspace holds already replaces it (DEBUG RELOAD MERGE) rather than failing the
  // load as a duplicated key.
  bool replace_duplicates = false;
};

struct RdbLoadResult {
  bool ok = false;
  std::string error;  // what is wrong with the file, for the log
  int version = 0;
  uint64_t keys_loaded = 0;
  uint64_t keys_expired = 0;          // skipped because they had expired
  int64_t ctime_s = 0;                // the "ctime" aux field, if any
  std::string redis_version;          // the "redis-ver" aux field, if any
  std::vector<std::string> warnings;  // things skipped (unknown aux fields)
  // The function libraries' codes, in file order; the caller creates them (the keyspace holds
  // no functions), and a library that fails fails the load.
  std::vector<std::string> function_libraries;
  // Where the file ended (after the checksum): an AOF with an RDB preamble goes on from there.
  size_t bytes_read = 0;
  bool zstd = false;  // the file was Keel's zstd-compressed snapshot (zstd_frame.h)
};

// The window LoadRdbFrom reads its source through, and the compressed bytes a zstd frame is
// pulled through: a load holds these, never the whole decompressed file.
inline constexpr size_t kLoadWindowBytes = 256 * 1024;
inline constexpr size_t kZstdInputWindowBytes = 128 * 1024;

// Loads the RDB file `bytes` into `keyspace`. On failure the keyspace is emptied (a file never
// loads half) and `error` says why, with Redis's wording where it has one. Loading is no change:
// the dirty counter is reset afterwards.
// A file that starts with a zstd frame's magic is decompressed as it is read (LoadRdbFrom), so
// a zstd snapshot loads whatever rdb-compression-algorithm says now.
RdbLoadResult LoadRdb(std::string_view bytes, Keyspace& keyspace, const RdbLoadOptions& options);

// Loads the RDB file that `source` produces, read through a window of `window_bytes`. The source
// must end with the file: bytes after its checksum refuse it. A source's error (a corrupt or
// truncated zstd frame) is the load's error.
RdbLoadResult LoadRdbFrom(ByteSource& source, Keyspace& keyspace, const RdbLoadOptions& options,
                          size_t window_bytes = kLoadWindowBytes);

}  // namespace keel
