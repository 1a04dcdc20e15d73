#include "engine/server/persistence.h"

#include <algorithm>
#include <cstdio>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/db/snapshot.h"
#include "engine/db/zstd_frame.h"
#include "engine/server/client.h"
#include "engine/server/engine.h"
#include "engine/server/file_source.h"
#include "engine/server/snapshot_pace.h"
#include "engine/server/value_limits.h"
#include "engine/server/version.h"

namespace keel {
namespace {

// A foreground walk (SAVE) appends to the file in pieces of this size. A background save's
// pace is snapshot_pace.h's.
constexpr size_t kBytesPerAppend = 1024 * 1024;
// Redis's CONFIG_BGSAVE_RETRY_DELAY: after a failed save, the rules wait this long.
constexpr int64_t kRetryDelayS = 5;
// Reads of the RDB file at start.
constexpr size_t kReadChunkBytes = 1024 * 1024;
// A zstd snapshot's part is compressed in pieces of this size, the clock checked between them
// (level 19 takes a few milliseconds for one).
constexpr size_t kZstdPieceBytes = 16 * 1024;

}  // namespace

// A save in progress.
struct Persistence::Job {
  enum class Phase : uint8_t { kWalk, kSyncFile, kSyncDir };

  // A job that walks a snapshot of `keyspace` taken now.
  Job(Keyspace& keyspace, const RdbWriteOptions& options)
      : sink(std::make_unique<RdbSnapshotWriter>(keyspace, options)),
        snapshot(std::make_unique<Snapshot>(keyspace, *sink)) {}
  // A job that writes bytes made already.
  explicit Job(std::string bytes) : ready(std::move(bytes)) {}

  uint64_t keys_written() const { return sink != nullptr ? sink->writer().keys_written() : 0; }

  Trigger trigger = Trigger::kBgsave;
  Phase phase = Phase::kWalk;
  std::unique_ptr<RdbSnapshotWriter> sink;  // null for a job of ready bytes
  std::unique_ptr<Snapshot> snapshot;       // null once walked (or for a job of ready bytes)
  std::string ready;                        // the bytes of a job made of them
  std::unique_ptr<ZstdFrameWriter> zstd;    // a zstd snapshot's compressor (a walking job)
  std::string plain;                        // the part walked last (a zstd job's, until
  size_t plain_offset = 0;                  // compressed up to here)
  uint64_t waiter = 0;                      // the waiting client's id, or 0
  FileId file = 0;
  bool file_open = false;
  std::string temp_path;
  std::string final_path;
  uint64_t token = 0;  // of the sync in flight
  uint64_t dirty_at_start = 0;
  int64_t started_us = 0;
};

Persistence::Persistence(Engine& engine) : engine_(engine) {}

Persistence::~Persistence() {
  if (job_ != nullptr && job_->file_open) engine_.env().files().Close(job_->file).IgnoreError();
}

std::string Persistence::PathOf(std::string_view name) const {
  const std::string& dir = engine_.settings().dir;
  if (dir.empty()) return std::string(name);
  std::string path = dir;
  if (path.back() != '/') path.push_back('/');
  path.append(name);
  return path;
}

std::string Persistence::Directory() const {
  const std::string& dir = engine_.settings().dir;
  return dir.empty() ? std::string(".") : dir;
}

RdbWriteOptions Persistence::WriteOptions() const {
  const ConfigValues& settings = engine_.settings();
  const Keyspace& keyspace = engine_.keyspace();
  RdbWriteOptions options;
  options.compress = settings.rdbcompression;
  options.checksum = settings.rdbchecksum;
  const MaxmemoryPolicy policy = keyspace.settings().maxmemory_policy;
  options.save_lfu = keyspace.settings().lfu();
  options.save_lru =
      policy == MaxmemoryPolicy::kAllkeysLru || policy == MaxmemoryPolicy::kVolatileLru;
  options.lru_clock = keyspace.access_clock().lru_clock;
  options.ctime_s = engine_.wall_ms() / 1000;
  options.used_memory_bytes = engine_.memory().used_bytes_total();
  options.redis_version = kRedisCompatibleVersion;
  options.function_libraries = engine_.scripting().FunctionLibraryCodes();
  return options;
}

bool Persistence::zstd_snapshot() const {
  return engine_.settings().rdb_compression_algorithm == 1;
}

RdbWriteOptions Persistence::SnapshotWriteOptions() const {
  RdbWriteOptions options = WriteOptions();
  if (zstd_snapshot()) options.compress = false;
  return options;
}

RdbLoadOptions Persistence::LoadOptions() const {
  const Keyspace& keyspace = engine_.keyspace();
  RdbLoadOptions options;
  options.limits = LoadLimitsOf(engine_.settings());
  options.verify_checksum = !engine_.skip_checksum_validation();
  options.drop_expired_before_ms = engine_.wall_ms();
  options.new_access_clock = keyspace.access_clock().Initial();
  options.lru_clock = keyspace.access_clock().lru_clock;
  options.lfu = keyspace.settings().lfu();
  return options;
}

// --- Loading ----------------------------------------------------------------------------------

Status ReadWholeFile(FileSystem& files, std::string_view path, std::string* bytes) {
  Result<FileId> opened = files.Open(path, OpenMode::kRead);
  if (!opened.ok()) return opened.status();
  const FileId file = opened.value();
  bytes->clear();
  Status status;
  // Each read returns more bytes or ends the loop at the end of the file.
  while (true) {
    const size_t at = bytes->size();
    bytes->resize(at + kReadChunkBytes);
    Result<size_t> read = files.ReadAt(file, at, bytes->data() + at, kReadChunkBytes);
    if (!read.ok()) {
      status = read.status();
      bytes->resize(at);
      break;
    }
    bytes->resize(at + read.value());
    if (read.value() == 0) break;
  }
  files.Close(file).IgnoreError();
  return status;
}

Status Persistence::ReadFile(std::string* bytes) {
  return ReadWholeFile(engine_.env().files(), PathOf(engine_.settings().dbfilename), bytes);
}

template <typename LoadKeys>
bool Persistence::LoadWith(LoadKeys&& load, bool merge, RdbLoadResult* result,
                           bool replace_functions) {
  Keyspace& keyspace = engine_.keyspace();
  RdbLoadOptions options = LoadOptions();
  options.replace_duplicates = merge;
  if (!merge) {
    keyspace.FlushAll();
    // Redis's emptyData: a file that replaces the dataset replaces the functions too.
    engine_.scripting().FlushFunctions();
  }
  *result = load(keyspace, options);
  if (result->ok) {
    const std::string error =
        engine_.scripting().LoadFunctionLibraries(result->function_libraries, replace_functions);
    if (!error.empty()) {
      keyspace.FlushAll();
      result->ok = false;
      result->error = "Failed loading library, " + error;
    }
  }
  if (!result->ok) {
    engine_.Log(LogLevel::kWarning, "Short read or corrupt RDB file (" + result->error + ")");
    return false;
  }
  for (const std::string& warning : result->warnings) engine_.Log(LogLevel::kNotice, warning);
  last_load_keys_loaded_ = result->keys_loaded;
  last_load_keys_expired_ = result->keys_expired;
  return true;
}

bool Persistence::LoadBytes(std::string_view bytes, bool merge, RdbLoadResult* result,
                            bool replace_functions) {
  return LoadWith(
      [bytes](Keyspace& keyspace, const RdbLoadOptions& options) {
        return LoadRdb(bytes, keyspace, options);
      },
      merge, result, replace_functions);
}

Status Persistence::LoadFile(bool merge, RdbLoadResult* result, bool replace_functions) {
  FileSystem& files = engine_.env().files();
  const std::string path = PathOf(engine_.settings().dbfilename);
  Result<FileId> opened = files.Open(path, OpenMode::kRead);
  if (!opened.ok()) return opened.status();
  const FileId file = opened.value();
  char magic[kZstdFrameMagic.size()];
  Result<size_t> head = files.ReadAt(file, 0, magic, sizeof(magic));
  Result<uint64_t> size = files.Size(file);
  if (!head.ok() || !size.ok()) {
    files.Close(file).IgnoreError();
    return !head.ok() ? head.status() : size.status();
  }
  bool loaded = false;
  if (StartsWithZstdFrame(std::string_view(magic, head.value()))) {
    engine_.Log(LogLevel::kNotice, "Loading a zstd-compressed RDB file (Keel's snapshot)");
    FileSource compressed(files, file, size.value());
    loaded = LoadWith(
        [&compressed](Keyspace& keyspace, const RdbLoadOptions& options) {
          ZstdSource decompressed(compressed, kZstdInputWindowBytes);
          RdbLoadResult zstd_result = LoadRdbFrom(decompressed, keyspace, options);
          zstd_result.zstd = true;
          return zstd_result;
        },
        merge, result, replace_functions);
    files.Close(file).IgnoreError();
  } else {
    files.Close(file).IgnoreError();
    std::string bytes;
    const Status read = ReadWholeFile(files, path, &bytes);
    if (!read.ok()) return read;
    loaded = LoadBytes(bytes, merge, result, replace_functions);
  }
  return loaded ? Status::Ok() : Status(StatusCode::kInvalidArgument, result->error);
}

Status Persistence::LoadAtStartup() {
  const int64_t started_us = engine_.env().clock().MonotonicUs();
  RdbLoadResult result;
  const Status loaded = LoadFile(/*merge=*/false, &result);
  if (loaded.code() == StatusCode::kNotFound) return Status::Ok();
  if (!loaded.ok() && result.error.empty()) {
    engine_.Log(LogLevel::kWarning,
                "Fatal error loading the DB: " + loaded.message() + ". Exiting.");
    return loaded;
  }
  if (!loaded.ok()) {
    engine_.Log(LogLevel::kWarning, "Terminating server after rdb file reading failure.");
    return loaded;
  }
  if (!result.redis_version.empty()) {
    engine_.Log(LogLevel::kNotice, "Loading RDB produced by version " + result.redis_version);
  }
  if (result.ctime_s > 0) {
    const int64_t age_s = engine_.wall_ms() / 1000 - result.ctime_s;
    engine_.Log(LogLevel::kNotice, "RDB age " + Int64ToString(age_s) + " seconds");
  }
  engine_.Log(
      LogLevel::kNotice,
      "Done loading RDB, keys loaded: " + Int64ToString(static_cast<int64_t>(result.keys_loaded)) +
          ", keys expired: " + Int64ToString(static_cast<int64_t>(result.keys_expired)) + ".");
  const int64_t elapsed_us = engine_.env().clock().MonotonicUs() - started_us;
  char line[64];
  std::snprintf(line, sizeof(line), "DB loaded from disk: %.3f seconds",
                static_cast<double>(elapsed_us) / 1e6);
  engine_.Log(LogLevel::kNotice, line);
  return Status::Ok();
}

std::string Persistence::SerialiseSnapshotFile(std::string* error) {
  if (!zstd_snapshot()) return SerialiseKeyspace();
  ZstdFrameWriter zstd(static_cast<int>(engine_.settings().rdb_zstd_level));
  RdbSnapshotWriter sink(engine_.keyspace(), SnapshotWriteOptions());
  RdbWriter& writer = sink.writer();
  std::string file;
  bool ok = true;
  {
    Snapshot snapshot(engine_.keyspace(), sink);
    // Each step covers more of the hash space, so the walk ends; the plain bytes are compressed
    // a part at a time and never held whole.
    while (ok && snapshot.Step(kSnapshotSlotsPerStep)) {
      if (writer.pending_bytes() >= kBytesPerAppend)
        ok = zstd.Compress(writer.TakeBytes(), false, &file);
    }
  }
  writer.Finish();
  if (ok && zstd.Compress(writer.TakeBytes(), true, &file)) return file;
  *error = zstd.error();
  return {};
}

std::string Persistence::SerialiseKeyspace(bool functions_only) {
  if (!functions_only) return WriteRdb(engine_.keyspace(), WriteOptions());
  RdbWriter writer(WriteOptions());
  writer.Begin();
  writer.Finish();
  return writer.TakeBytes();
}

// --- Saving -----------------------------------------------------------------------------------

bool Persistence::background_save_in_progress() const {
  return job_ != nullptr && job_->trigger == Trigger::kBgsave;
}

std::string Persistence::StartSave(Trigger trigger, Client* waiter) {
  if (job_ != nullptr) return "ERR Background save already in progress";
  auto job = std::make_unique<Job>(engine_.keyspace(), SnapshotWriteOptions());
  if (zstd_snapshot()) {
    job->zstd =
        std::make_unique<ZstdFrameWriter>(static_cast<int>(engine_.settings().rdb_zstd_level));
  }
  std::string error = OpenJob(std::move(job), trigger, waiter);
  if (!error.empty()) return error;
  if (trigger == Trigger::kBgsave) {
    engine_.Log(LogLevel::kNotice, "Background saving started");
    return "";
  }
  // The file holds the keyspace of this instant: the walk ends inside the command.
  while (job_ != nullptr && job_->phase == Job::Phase::kWalk) {
    if (!Advance(false)) break;
  }
  return "";
}

std::string Persistence::StartSaveOf(std::string bytes, Trigger trigger, Client* waiter) {
  if (job_ != nullptr) return "ERR Background save already in progress";
  std::string error = OpenJob(std::make_unique<Job>(std::move(bytes)), trigger, waiter);
  if (!error.empty()) return error;
  // The keyspace was reloaded from these bytes: the changes before it are in the file.
  job_->dirty_at_start = 0;
  const ConstSlice slice{job_->ready.data(), job_->ready.size()};
  const Status appended = engine_.env().files().Append(job_->file, &slice, 1);
  job_->ready.clear();
  if (!appended.ok()) {
    Fail("Write error saving DB on disk: " + appended.message());
    return "";
  }
  FinishWalk();
  return "";
}

std::string Persistence::OpenJob(std::unique_ptr<Job> job, Trigger trigger, Client* waiter) {
  FileSystem& files = engine_.env().files();
  job->trigger = trigger;
  job->waiter = waiter != nullptr ? waiter->id() : 0;
  job->dirty_at_start = engine_.keyspace().dirty();
  job->started_us = engine_.now_monotonic_us();
  job->temp_path = PathOf("temp-" + Int64ToString(static_cast<int64_t>(next_temp_++)) + ".rdb");
  job->final_path = PathOf(engine_.settings().dbfilename);
  last_try_s_ = engine_.wall_ms() / 1000;
  Result<FileId> opened = files.Open(job->temp_path, OpenMode::kCreateTruncate);
  if (!opened.ok()) {
    if (trigger == Trigger::kBgsave) last_save_ok_ = false;
    engine_.Log(LogLevel::kWarning, "Failed opening the temp RDB file " + job->temp_path +
                                        " (in server root dir " + Directory() +
                                        ") for saving: " + opened.status().message());
    return "ERR";
  }
  job->file = opened.value();
  job->file_open = true;
  job_ = std::move(job);
  return "";
}

bool Persistence::Advance(bool paced) {
  Job& job = *job_;
  RdbWriter& writer = job.sink->writer();
  Clock& clock = engine_.env().clock();
  const int64_t deadline_us = clock.MonotonicUs() + kPumpTimeMaxUs;
  // The walk goes on once the last part is all out, so that the plain bytes waiting stay within
  // one part (a zstd job may take several iterations to compress one).
  if (job.snapshot != nullptr && job.plain_offset == job.plain.size()) {
    bool more = true;
    if (paced) {
      more = PumpSnapshot(*job.snapshot, clock, [&writer] { return writer.pending_bytes(); });
    } else {
      while (more && writer.pending_bytes() < kBytesPerAppend) {
        more = job.snapshot->Step(kSnapshotSlotsPerStep);
      }
    }
    if (!more) {
      job.snapshot.reset();
      writer.Finish();
    }
    job.plain = writer.TakeBytes();
    job.plain_offset = 0;
  }
  const bool walked = job.snapshot == nullptr;
  std::string chunk;
  if (job.zstd == nullptr) {
    chunk.swap(job.plain);
    job.plain.clear();
  } else {
    // A piece at a time: a paced job stops at the iteration's deadline and goes on at the next
    // (zstd's high levels compress a few MB per second; a 256 KB part would stall the clients).
    // The trailer is in the last part, so the frame ends with its last piece.
    KEEL_DASSERT(!walked || !job.plain.empty());
    while (job.plain_offset < job.plain.size()) {
      const size_t piece = std::min(kZstdPieceBytes, job.plain.size() - job.plain_offset);
      const bool end = walked && job.plain_offset + piece == job.plain.size();
      if (!job.zstd->Compress(std::string_view(job.plain).substr(job.plain_offset, piece), end,
                              &chunk)) {
        Fail("Error compressing the RDB file: " + job.zstd->error());
        return false;
      }
      job.plain_offset += piece;
      if (paced && clock.MonotonicUs() >= deadline_us) break;
    }
  }
  if (!chunk.empty()) {
    const ConstSlice slice{chunk.data(), chunk.size()};
    const Status appended = engine_.env().files().Append(job.file, &slice, 1);
    if (!appended.ok()) {
      Fail("Write error saving DB on disk: " + appended.message());
      return false;
    }
  }
  const bool done = walked && job.plain_offset == job.plain.size();
  if (done) FinishWalk();
  return !done;
}

void Persistence::FinishWalk() {
  Job& job = *job_;
  job.phase = Job::Phase::kSyncFile;
  job.token = next_token_++;
  const Status synced = engine_.env().files().SyncAsync(job.file, job.token);
  if (!synced.ok()) Fail("Write error saving DB on disk: " + synced.message());
}

void Persistence::Pump() {
  if (job_ == nullptr || job_->phase != Job::Phase::kWalk) return;
  Advance(true);
}

bool Persistence::wants_pump() const { return job_ != nullptr && job_->phase == Job::Phase::kWalk; }

void Persistence::OnFileSynced(uint64_t token, StatusCode code) {
  if (job_ == nullptr || job_->token != token) return;  // a save abandoned since
  Job& job = *job_;
  FileSystem& files = engine_.env().files();
  if (code != StatusCode::kOk) {
    Fail(std::string("Write error saving DB on disk: fsync failed (") +
         std::string(StatusCodeName(code)) + ")");
    return;
  }
  if (job.phase == Job::Phase::kSyncFile) {
    files.Close(job.file).IgnoreError();
    job.file_open = false;
    const Status renamed = files.Rename(job.temp_path, job.final_path);
    if (!renamed.ok()) {
      Fail("Error moving temp DB file " + job.temp_path + " on the final destination " +
           job.final_path + " (in server root dir " + Directory() + "): " + renamed.message());
      return;
    }
    job.phase = Job::Phase::kSyncDir;
    job.token = next_token_++;
    const Status synced = files.SyncDirectoryAsync(Directory(), job.token);
    if (!synced.ok()) Fail("Failed to fsync directory " + Directory() + ": " + synced.message());
    return;
  }
  Succeed();
}

void Persistence::Succeed() {
  Job& job = *job_;
  Keyspace& keyspace = engine_.keyspace();
  // Redis's server.dirty - server.dirty_before_bgsave: what changed during the save stays dirty.
  keyspace.ForgetDirty(job.dirty_at_start);
  last_save_s_ = engine_.wall_ms() / 1000;
  last_save_ok_ = true;
  last_save_duration_s_ = (engine_.now_monotonic_us() - job.started_us) / 1000000;
  saves_++;
  engine_.Log(LogLevel::kNotice, job.trigger == Trigger::kBgsave
                                     ? "Background saving terminated with success"
                                     : "DB saved on disk");
  Release(true);
}

void Persistence::Fail(std::string_view log_line, bool failed) {
  Job& job = *job_;
  FileSystem& files = engine_.env().files();
  engine_.Log(LogLevel::kWarning, log_line);
  if (job.file_open) {
    files.Close(job.file).IgnoreError();
    job.file_open = false;
  }
  // Nothing of a failed save stays behind (Redis unlinks its temp file likewise).
  if (job.phase != Job::Phase::kSyncDir) files.Remove(job.temp_path).IgnoreError();
  // Only a background save's failure counts (Redis's lastbgsave_status): SAVE's is its reply.
  if (failed && job.trigger == Trigger::kBgsave) last_save_ok_ = false;
  last_save_duration_s_ = (engine_.now_monotonic_us() - job.started_us) / 1000000;
  if (failed && job.trigger == Trigger::kBgsave) {
    engine_.Log(LogLevel::kWarning, "Background saving error");
  }
  Release(false);
}

void Persistence::AbortSave(std::string_view reason) {
  if (job_ == nullptr) return;
  Fail(reason, /*failed=*/false);
}

void Persistence::Release(bool ok) {
  const Trigger trigger = job_->trigger;
  const uint64_t waiter_id = job_->waiter;
  job_.reset();
  if (trigger == Trigger::kShutdown && waiter_id == 0) {
    // A signal's shutdown: exit once saved; if the save failed, go on serving (Redis 7.0).
    if (ok || shutdown_force_) {
      engine_.RequestShutdown();
    } else {
      engine_.Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
      engine_.Log(LogLevel::kWarning,
                  "Errors trying to shut down the server. Check the logs for more information.");
    }
    return;
  }
  Client* waiter = waiter_id != 0 ? engine_.FindClient(waiter_id) : nullptr;
  // A save that failed inside its command is answered by the command itself.
  if (waiter == nullptr || !(waiter->flags & kClientWaitingSave)) return;
  engine_.EndPersistenceWait(*waiter, trigger, ok);
}

void Persistence::BeginShutdown() {
  if (engine_.settings().save_rules.empty()) {
    engine_.RequestShutdown();
    return;
  }
  if (job_ != nullptr && job_->trigger == Trigger::kShutdown) return;  // already saving to exit
  AbortSave("Stopping the running save: a final save for the shutdown replaces it");
  engine_.Log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
  const std::string error = StartSave(Trigger::kShutdown, nullptr);
  if (!error.empty()) {
    engine_.Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
  }
}

void Persistence::ForgetClient(const Client& client) {
  if (job_ != nullptr && job_->waiter == client.id()) job_->waiter = 0;
}

void Persistence::Cron() {
  // One background job at a time, as Redis's one child: saves wait for an AOF rewrite.
  if (job_ != nullptr || engine_.aof().rewrite_in_progress()) return;
  const ConfigValues& settings = engine_.settings();
  const int64_t now_s = engine_.wall_ms() / 1000;
  const bool may_retry = last_save_ok_ || now_s - last_try_s_ > kRetryDelayS;
  if (scheduled_ && may_retry) {
    scheduled_ = false;
    StartSave(Trigger::kBgsave, nullptr);
    return;
  }
  const uint64_t dirty = engine_.keyspace().dirty();
  for (const ConfigValues::SaveRule& rule : settings.save_rules) {
    if (dirty >= static_cast<uint64_t>(rule.changes) && now_s - last_save_s_ > rule.seconds &&
        may_retry) {
      engine_.Log(LogLevel::kNotice, Int64ToString(rule.changes) + " changes in " +
                                         Int64ToString(rule.seconds) + " seconds. Saving...");
      StartSave(Trigger::kBgsave, nullptr);
      return;
    }
  }
}

bool Persistence::DeniesWritesAfterFailedSave() const {
  const ConfigValues& settings = engine_.settings();
  return settings.stop_writes_on_bgsave_error && !settings.save_rules.empty();
}

int64_t Persistence::current_save_duration_s() const {
  if (!background_save_in_progress()) return -1;
  return (engine_.now_monotonic_us() - job_->started_us) / 1000000;
}

uint64_t Persistence::current_keys_processed() const {
  return job_ != nullptr ? job_->keys_written() : 0;
}

uint64_t Persistence::current_keys_total() const {
  return job_ != nullptr && job_->sink != nullptr ? job_->sink->keys_total() : 0;
}

}  // namespace keel
