#include "engine/db/rdb_file.h"

#include <algorithm>
#include <cstdio>

#include "engine/base/crc64.h"
#include "engine/base/numbers.h"
#include "engine/db/entry.h"
#include "engine/db/keyspace.h"
#include "engine/db/rdb_format.h"
#include "engine/db/zstd_frame.h"

namespace keel {
namespace {

constexpr uint32_t kLruClockMax = (1u << 24) - 1;  // Redis's LRU_CLOCK_MAX
// Keys and aux strings longer than this are refused as corrupt (Redis's keys are limited by
// proto-max-bulk-len, 512 MB by default; the limit keeps a corrupt length from allocating).
constexpr size_t kKeySizeMax = 512u << 20;

void AppendLittleEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>(value >> (8 * i)));
}

}  // namespace

RdbWriter::RdbWriter(const RdbWriteOptions& options) : options_(options) {}

void RdbWriter::Begin() {
  char magic[16];
  std::snprintf(magic, sizeof(magic), "REDIS%04d", static_cast<int>(options_.version));
  out_.append(magic);
  // rdbSaveInfoAuxFields, in its order.
  Aux("redis-ver", options_.redis_version);
  AuxInt("redis-bits", 64);
  AuxInt("ctime", options_.ctime_s);
  AuxInt("used-mem", static_cast<int64_t>(options_.used_memory_bytes));
  AuxInt("aof-base", options_.aof_base ? 1 : 0);
  // rdbSaveFunctions: after the aux fields, before the databases.
  for (const std::string& code : options_.function_libraries) {
    out_.push_back(static_cast<char>(rdb::kOpFunction2));
    rdb::WriteString(&out_, code, options_.compress);
  }
}

void RdbWriter::Aux(std::string_view name, std::string_view value) {
  out_.push_back(static_cast<char>(rdb::kOpAux));
  rdb::WriteString(&out_, name, options_.compress);
  rdb::WriteString(&out_, value, options_.compress);
}

void RdbWriter::AuxInt(std::string_view name, int64_t value) { Aux(name, Int64ToString(value)); }

void RdbWriter::SelectDb(int db, uint64_t keys, uint64_t volatile_keys) {
  out_.push_back(static_cast<char>(rdb::kOpSelectDb));
  rdb::WriteLength(&out_, static_cast<uint64_t>(db));
  out_.push_back(static_cast<char>(rdb::kOpResizeDb));
  rdb::WriteLength(&out_, keys);
  rdb::WriteLength(&out_, volatile_keys);
  current_db_ = db;
}

void RdbWriter::Key(int db, const Entry& entry) {
  if (db != current_db_) {
    out_.push_back(static_cast<char>(rdb::kOpSelectDb));
    rdb::WriteLength(&out_, static_cast<uint64_t>(db));
    current_db_ = db;
  }
  // rdbSaveKeyValuePair: expiry, then the idle time or the LFU counter, then type, key, value.
  if (entry.has_expiry()) {
    out_.push_back(static_cast<char>(rdb::kOpExpireTimeMs));
    AppendLittleEndian(&out_, static_cast<uint64_t>(entry.expire_at_ms()), 8);
  }
  if (options_.save_lru) {
    const uint32_t clock = entry.access_clock();
    const uint32_t idle_s = options_.lru_clock >= clock
                                ? options_.lru_clock - clock
                                : options_.lru_clock + (kLruClockMax - clock);
    out_.push_back(static_cast<char>(rdb::kOpIdle));
    rdb::WriteLength(&out_, idle_s);
  } else if (options_.save_lfu) {
    out_.push_back(static_cast<char>(rdb::kOpFreq));
    out_.push_back(static_cast<char>(entry.access_clock() & 0xff));
  }
  // The serialiser writes the type byte, then the value; the key goes between them.
  std::string value;
  SerialiseValue(entry, {.compress = options_.compress}, &value);
  out_.push_back(value[0]);
  rdb::WriteString(&out_, entry.key(), options_.compress);
  out_.append(value, 1, std::string::npos);
  keys_written_++;
}

void RdbWriter::Finish() {
  out_.push_back(static_cast<char>(rdb::kOpEof));
  Checksum();
  AppendLittleEndian(&out_, options_.checksum ? crc_ : 0, 8);
  checksummed_ = out_.size();
}

void RdbWriter::Checksum() {
  if (options_.checksum && out_.size() > checksummed_) {
    crc_ = Crc64(crc_, out_.data() + checksummed_, out_.size() - checksummed_);
  }
  checksummed_ = out_.size();
}

std::string RdbWriter::TakeBytes() {
  Checksum();
  std::string bytes;
  bytes.swap(out_);
  checksummed_ = 0;
  return bytes;
}

namespace {

// The options with the version a file of `keyspace` needs: 12 once a hash has field TTLs.
RdbWriteOptions VersionFor(const Keyspace& keyspace, const RdbWriteOptions& options) {
  RdbWriteOptions versioned = options;
  for (int db = 0; db < keyspace.database_count(); db++) {
    if (keyspace.database(db).field_expiry_key_count() > 0) {
      versioned.version = rdb::kVersionFieldExpiry;
    }
  }
  return versioned;
}

}  // namespace

RdbSnapshotWriter::RdbSnapshotWriter(const Keyspace& keyspace, const RdbWriteOptions& options)
    : writer_(VersionFor(keyspace, options)) {
  for (int db = 0; db < keyspace.database_count(); db++) {
    const Database& database = keyspace.database(db);
    sizes_.push_back({database.size(), database.expires_count()});
    keys_total_ += database.size();
  }
  announced_.assign(sizes_.size(), false);
  writer_.Begin();
}

void RdbSnapshotWriter::Save(int db, const Entry& entry) {
  const auto index = static_cast<size_t>(db);
  if (index < announced_.size() && !announced_[index]) {
    announced_[index] = true;
    writer_.SelectDb(db, sizes_[index].first, sizes_[index].second);
  }
  writer_.Key(db, entry);
}

std::string WriteRdb(Keyspace& keyspace, const RdbWriteOptions& options) {
  RdbSnapshotWriter sink(keyspace, options);
  {
    Snapshot snapshot(keyspace, sink);
    // Each step covers more of the hash space, so the walk ends.
    while (snapshot.Step(1024)) {
    }
  }
  sink.writer().Finish();
  return sink.writer().TakeBytes();
}

// --- Loading ----------------------------------------------------------------------------------

namespace {

class Loader {
 public:
  Loader(rdb::Reader& reader, Keyspace& keyspace, const RdbLoadOptions& options,
         RdbLoadResult* result)
      : reader_(reader), keyspace_(keyspace), options_(options), result_(result) {}

  bool Run();

 private:
  bool Fail(std::string error) {
    result_->error = std::move(error);
    return false;
  }
  bool Corrupt() { return Fail("Short read or corrupt RDB file"); }
  bool ReadFixed(int bytes, uint64_t* value) {
    *value = 0;
    for (int i = 0; i < bytes; i++) {
      uint8_t byte = 0;
      if (!reader_.ReadByte(&byte)) return false;
      *value |= static_cast<uint64_t>(byte) << (8 * i);
    }
    return true;
  }
  bool ReadHeader();
  bool ReadAux();
  bool ReadModuleAux();
  bool ReadKey(uint8_t type, int64_t expire_at_ms, int64_t idle_s, int frequency);
  bool VerifyChecksum();

  rdb::Reader& reader_;
  Keyspace& keyspace_;
  const RdbLoadOptions& options_;
  RdbLoadResult* result_;
  int db_ = 0;
};

bool Loader::ReadHeader() {
  char header[9];
  if (!reader_.ReadInto(header, sizeof(header)) || std::string_view(header, 5) != "REDIS") {
    return Fail("Wrong signature trying to load DB from file");
  }
  int version = 0;
  for (size_t i = 5; i < 9; i++) {
    const char digit = header[i];
    if (digit < '0' || digit > '9') return Fail("Wrong signature trying to load DB from file");
    version = version * 10 + (digit - '0');
  }
  if (version < rdb::kFileVersionMin || version > rdb::kFileVersionMax) {
    return Fail("Can't handle RDB format version " + Int64ToString(version));
  }
  result_->version = version;
  return true;
}

bool Loader::ReadAux() {
  std::string name;
  std::string value;
  if (!reader_.ReadString(&name, kKeySizeMax) || !reader_.ReadString(&value, kKeySizeMax)) {
    return Corrupt();
  }
  // rdbLoadRio reads these; the others (used-mem, aof-base, repl-*, redis-bits, lua scripts of
  // Redis 5...) are information Keel has no use for yet, and Redis ignores unknown ones too.
  if (name == "ctime") {
    int64_t ctime = 0;
    if (ParseStrictInt64(value, &ctime)) result_->ctime_s = ctime;
  } else if (name == "redis-ver") {
    result_->redis_version = value;
  } else if (name == "lua") {
    result_->warnings.push_back("a Lua script in the RDB file was ignored (no scripting yet)");
  }
  return true;
}

bool Loader::ReadModuleAux() {
  // rdbLoadRio: the module id and when-opcode, then the module's own data, which only the module
  // can read. Keel has no modules, so it refuses the file as Redis does without the module.
  uint64_t module_id = 0;
  if (!reader_.ReadLength(&module_id)) return Corrupt();
  return Fail("The RDB file contains AUX module data I can't load: no matching module");
}

bool Loader::ReadKey(uint8_t type, int64_t expire_at_ms, int64_t idle_s, int frequency) {
  if (!IsLoadableRdbType(type)) {
    return Fail("Unknown or unsupported RDB encoding type " + Int64ToString(type));
  }
  std::string key;
  if (!reader_.ReadString(&key, kKeySizeMax)) return Corrupt();
  LoadedValue loaded;
  const ValueLoad outcome =
      LoadValueOfType(type, reader_, options_.limits, keyspace_.rng(), keyspace_.memory(), &loaded);
  if (outcome == ValueLoad::kOutOfMemory) return Fail("Out of memory loading the RDB file");
  if (outcome != ValueLoad::kLoaded) {
    return Fail("Bad data format for key '" + key + "' of type " + Int64ToString(type));
  }
  // rdbLoadRio: a primary drops keys that expired while the file lay on disk.
  if (expire_at_ms != kNoExpiry && expire_at_ms < options_.drop_expired_before_ms) {
    loaded.Discard(keyspace_.memory());
    result_->keys_expired++;
    return true;
  }
  const uint64_t hash = keyspace_.Hash(db_, key);
  if (!options_.replace_duplicates && keyspace_.database(db_).FindConst(key, hash) != nullptr) {
    loaded.Discard(keyspace_.memory());
    return Fail("RDB has duplicated key '" + key + "' in DB " + Int64ToString(db_));
  }
  // objectSetLRUOrLFU: the file's idle time or counter where it fits the policy in force.
  uint32_t clock = options_.new_access_clock;
  if (options_.lfu && frequency >= 0) {
    clock = (options_.new_access_clock & ~0xffu) | static_cast<uint32_t>(frequency);
  } else if (!options_.lfu && idle_s >= 0) {
    int64_t at = static_cast<int64_t>(options_.lru_clock) - idle_s;
    if (at < 0) at += kLruClockMax;
    clock = static_cast<uint32_t>(at) & kLruClockMax;
  }
  if (StoreLoadedValue(keyspace_, db_, key, hash, &loaded, expire_at_ms, clock) ==
      Database::SetOutcome::kOutOfMemory) {
    return Fail("Out of memory loading the RDB file");
  }
  result_->keys_loaded++;
  return true;
}

bool Loader::VerifyChecksum() {
  // Version 5 added the checksum; a zero one means the writer had rdbchecksum off.
  if (result_->version < 5) return true;
  const uint64_t actual = reader_.ConsumedCrc64();
  uint64_t expected = 0;
  if (!ReadFixed(8, &expected)) return Corrupt();
  if (expected == 0 || !options_.verify_checksum) return true;
  if (actual != expected) {
    char text[96];
    std::snprintf(text, sizeof(text), "Wrong RDB checksum expected: (%llx) got (%llx)",
                  static_cast<unsigned long long>(expected),
                  static_cast<unsigned long long>(actual));
    return Fail(text);
  }
  return true;
}

bool Loader::Run() {
  if (!ReadHeader()) return false;
  int64_t expire_at_ms = kNoExpiry;
  int64_t idle_s = -1;
  int frequency = -1;
  // Every turn consumes at least one byte, so the loop ends with the input.
  while (true) {
    uint8_t type = 0;
    if (!reader_.ReadByte(&type)) return Corrupt();
    uint64_t value = 0;
    switch (type) {
      case rdb::kOpExpireTime:
        if (!ReadFixed(4, &value)) return Corrupt();
        expire_at_ms = static_cast<int64_t>(static_cast<int32_t>(value)) * 1000;
        continue;
      case rdb::kOpExpireTimeMs:
        if (!ReadFixed(8, &value)) return Corrupt();
        expire_at_ms = static_cast<int64_t>(value);
        continue;
      case rdb::kOpFreq:
        if (!ReadFixed(1, &value)) return Corrupt();
        frequency = static_cast<int>(value);
        continue;
      case rdb::kOpIdle:
        if (!reader_.ReadLength(&value)) return Corrupt();
        idle_s = value > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(value);
        continue;
      case rdb::kOpEof:
        return VerifyChecksum();
      case rdb::kOpSelectDb:
        if (!reader_.ReadLength(&value)) return Corrupt();
        if (value >= static_cast<uint64_t>(keyspace_.database_count())) {
          return Fail(
              "FATAL: Data file was created with a Redis server configured to handle "
              "more than " +
              Int64ToString(keyspace_.database_count()) + " databases. Exiting");
        }
        db_ = static_cast<int>(value);
        continue;
      case rdb::kOpResizeDb: {
        uint64_t volatile_keys = 0;
        if (!reader_.ReadLength(&value) || !reader_.ReadLength(&volatile_keys)) return Corrupt();
        // Every key takes at least 3 bytes of the file (type, key length, value), so a hint
        // beyond that is a corrupt or hostile file's, and is not believed.
        keyspace_.Reserve(db_, reader_.PresizeFor(value, 3));
        continue;
      }
      case rdb::kOpSlotInfo: {
        uint64_t skipped = 0;
        for (int i = 0; i < 3; i++) {
          if (!reader_.ReadLength(&skipped)) return Corrupt();
        }
        continue;
      }
      case rdb::kOpAux:
        if (!ReadAux()) return false;
        continue;
      case rdb::kOpModuleAux:
        return ReadModuleAux();
      case rdb::kOpFunctionPreGa:
      case rdb::kOpFunction2: {
        std::string code;
        const std::string error = rdb::ReadFunctionLibrary(reader_, type, &code);
        if (!error.empty()) return Fail("Failed loading library, " + error);
        result_->function_libraries.push_back(std::move(code));
        continue;
      }
      default:
        if (!ReadKey(type, expire_at_ms, idle_s, frequency)) return false;
        expire_at_ms = kNoExpiry;
        idle_s = -1;
        frequency = -1;
        continue;
    }
  }
}

}  // namespace

namespace rdb {

std::string ReadFunctionLibrary(Reader& reader, uint8_t opcode, std::string* code) {
  if (opcode == kOpFunction2) {
    if (!reader.ReadString(code, kKeySizeMax)) return "Failed loading library payload";
    return {};
  }
  std::string name;
  std::string engine;
  std::string description;
  std::string body;
  uint64_t has_description = 0;
  if (!reader.ReadString(&name, kKeySizeMax)) return "Failed loading library name";
  if (!reader.ReadString(&engine, kKeySizeMax)) return "Failed loading engine name";
  if (!reader.ReadLength(&has_description)) return "Failed loading library description indicator";
  if (has_description != 0 && !reader.ReadString(&description, kKeySizeMax)) {
    return "Failed loading library description";
  }
  if (!reader.ReadString(&body, kKeySizeMax)) return "Failed loading library blob";
  *code = "#!" + engine + " name=" + name + "\n" + body;
  return {};
}

}  // namespace rdb

namespace {

// Runs the loader over `reader`; `whole_input` says whether the input must end with the RDB
// file (a zstd frame holds nothing else, while an AOF goes on after its RDB preamble).
RdbLoadResult LoadFromReader(rdb::Reader& reader, bool whole_input, Keyspace& keyspace,
                             const RdbLoadOptions& options) {
  RdbLoadResult result;
  Loader loader(reader, keyspace, options, &result);
  result.ok = loader.Run();
  if (result.ok && whole_input && !reader.at_end() && reader.source_error().empty()) {
    result.ok = false;
    result.error = "Bytes follow the RDB file's checksum inside the zstd frame";
  }
  // A source that stopped on an error (a corrupt or truncated frame) is why the RDB reads
  // failed, whatever they made of the bytes they got.
  if (!reader.source_error().empty()) {
    result.ok = false;
    result.error = std::string(reader.source_error());
  }
  result.bytes_read = static_cast<size_t>(reader.position());
  if (!result.ok) keyspace.FlushAll();
  keyspace.ResetDirty();
  return result;
}

}  // namespace

RdbLoadResult LoadRdbFrom(ByteSource& source, Keyspace& keyspace, const RdbLoadOptions& options,
                          size_t window_bytes) {
  rdb::Reader reader(source, window_bytes);
  return LoadFromReader(reader, /*whole_input=*/true, keyspace, options);
}

RdbLoadResult LoadRdb(std::string_view bytes, Keyspace& keyspace, const RdbLoadOptions& options) {
  if (StartsWithZstdFrame(bytes)) {
    MemorySource compressed(bytes);
    ZstdSource decompressed(compressed, kZstdInputWindowBytes);
    RdbLoadResult result = LoadRdbFrom(decompressed, keyspace, options);
    result.zstd = true;
    if (result.ok) result.bytes_read = bytes.size();
    return result;
  }
  rdb::Reader reader(bytes);
  return LoadFromReader(reader, /*whole_input=*/false, keyspace, options);
}

}  // namespace keel
