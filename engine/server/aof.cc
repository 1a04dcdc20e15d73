#include "engine/server/aof.h"

#include <algorithm>
#include <cstdio>

#include "engine/base/numbers.h"
#include "engine/db/aof_rewrite.h"
#include "engine/db/rdb_file.h"
#include "engine/db/snapshot.h"
#include "engine/server/aof_reader.h"
#include "engine/server/client.h"
#include "engine/server/engine.h"
#include "engine/server/snapshot_pace.h"

namespace keel {
namespace {

// The AOF's sync tokens carry this bit, so that they never meet Persistence's.
constexpr uint64_t kTokenBit = uint64_t{1} << 63;
// appendfsync everysec: a sync at most this often.
constexpr int64_t kEverysecIntervalMs = 1000;

std::string Seconds(int64_t elapsed_us) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", static_cast<double>(elapsed_us) / 1e6);
  return text;
}

}  // namespace

// A rewrite in progress.
struct Aof::Rewrite {
  enum class Phase : uint8_t { kWalk, kSyncBase, kSyncDir, kManifest };
  Phase phase = Phase::kWalk;
  bool rdb = true;
  std::unique_ptr<RdbSnapshotWriter> rdb_sink;
  std::unique_ptr<AofCommandWriter> command_sink;
  std::unique_ptr<Snapshot> snapshot;
  FileId file = 0;
  bool file_open = false;
  std::string temp_name;
  uint64_t token = 0;
  int64_t started_us = 0;
  uint64_t bytes = 0;
  // Turning the AOF on: the incremental file opened for it, listed only by the manifest that
  // ends the rewrite.
  bool enabling = false;
  AofFileInfo enabling_incr;
  bool at_startup = false;
  // Named when the base is synced; the manifest that lists it ends the rewrite.
  std::string base_name;
  uint64_t manifest_generation = 0;

  SnapshotSink& sink() {
    return rdb ? static_cast<SnapshotSink&>(*rdb_sink) : static_cast<SnapshotSink&>(*command_sink);
  }
  size_t pending_bytes() const {
    return rdb ? rdb_sink->writer().pending_bytes() : command_sink->pending_bytes();
  }
  std::string TakeBytes() {
    return rdb ? rdb_sink->writer().TakeBytes() : command_sink->TakeBytes();
  }
  void Finish() {
    if (rdb) {
      rdb_sink->writer().Finish();
    } else {
      command_sink->Finish();
    }
  }
};

// A manifest being made durable: written to a temporary file, synced; the directory synced (so
// the files it names are there for sure); renamed into place; the directory synced again.
struct Aof::ManifestJob {
  enum class Phase : uint8_t { kSyncParent, kSyncTemp, kSyncDirBefore, kSyncDirAfter };
  Phase phase = Phase::kSyncTemp;
  FileId file = 0;
  bool file_open = false;
  std::string temp_path;
  std::string text;
  uint64_t token = 0;
  int64_t incr_seq = 0;  // the last incremental file it lists
  uint64_t generation = 0;
};

Aof::Aof(Engine& engine) : engine_(engine) {}

Aof::~Aof() {
  FileSystem& files = engine_.env().files();
  if (state_ != State::kOff) engine_.keyspace().propagation().RemoveSink(this);
  // Handles still open close with the engine; syncs in flight are the environment's business.
  if (incr_file_ != 0) files.Close(incr_file_).IgnoreError();
  for (FileId file : retired_files_) files.Close(file).IgnoreError();
  if (rewrite_ != nullptr && rewrite_->file_open) files.Close(rewrite_->file).IgnoreError();
  if (manifest_job_ != nullptr && manifest_job_->file_open) {
    files.Close(manifest_job_->file).IgnoreError();
  }
}

std::string Aof::DirPath() const {
  return engine_.persistence().PathOf(engine_.settings().appenddirname);
}

std::string Aof::FilePath(std::string_view name) const {
  std::string path = DirPath();
  path.push_back('/');
  path.append(name);
  return path;
}

std::string Aof::ManifestName() const { return engine_.settings().appendfilename + ".manifest"; }

bool Aof::HoldsReplies() const {
  return state_ != State::kOff && engine_.settings().appendfsync == kFsyncAlways;
}

std::string Aof::MisconfError() const {
  return "MISCONF Errors writing to the AOF file: " + last_write_error_;
}

int64_t Aof::current_rewrite_duration_s() const {
  if (rewrite_ == nullptr) return -1;
  return (engine_.now_monotonic_us() - rewrite_->started_us) / 1000000;
}

size_t Aof::pending_syncs() const {
  size_t count = manifest_job_ != nullptr ? 1 : 0;
  if (rewrite_ != nullptr && rewrite_->phase != Rewrite::Phase::kWalk &&
      rewrite_->phase != Rewrite::Phase::kManifest) {
    count++;
  }
  for (const PendingSync& sync : pending_) count += sync.file != 0 && !sync.done ? 1 : 0;
  return count;
}

size_t Aof::pending_fsyncs() const {
  size_t count = 0;
  for (const PendingSync& sync : pending_) count += sync.file != 0 && !sync.done ? 1 : 0;
  return count;
}

// --- Loading ----------------------------------------------------------------------------------

Status Aof::LoadAtStartup() {
  manifest_ = AofManifest();
  if (!engine_.settings().appendonly) return Status::Ok();
  const Status read = ReadManifest();
  if (!read.ok()) return read;
  if (manifest_.empty()) {
    // An AOF of Redis before 7.0 (one file in dir) would be migrated into the directory by
    // Redis; Keel does not do that yet, and must not start as if the data were not there.
    std::string ignored;
    const std::string old_style = engine_.persistence().PathOf(engine_.settings().appendfilename);
    if (ReadWholeFile(engine_.env().files(), old_style, &ignored).ok()) {
      engine_.Log(LogLevel::kWarning, "Found an old-style AOF file " + old_style +
                                          ": Keel does not migrate it into " +
                                          engine_.settings().appenddirname +
                                          " yet. Start redis-server 7.0 on it once to migrate it.");
      return Status(StatusCode::kInvalidArgument, "old-style AOF");
    }
    return Status::Ok();
  }
  return LoadFiles();
}

Status Aof::ReadManifest() {
  std::string text;
  const Status read = ReadWholeFile(engine_.env().files(), FilePath(ManifestName()), &text);
  if (read.code() == StatusCode::kNotFound) {
    manifest_ = AofManifest();
    return Status::Ok();
  }
  if (!read.ok()) {
    engine_.Log(LogLevel::kWarning, "Fatal error: can't open the AOF manifest file " +
                                        ManifestName() + " for reading: " + read.message());
    return read;
  }
  AofManifestError error;
  if (!ParseAofManifest(text, &manifest_, &error)) {
    engine_.Log(LogLevel::kWarning, "*** FATAL AOF MANIFEST FILE ERROR ***");
    if (error.line_number > 0) {
      engine_.Log(LogLevel::kWarning,
                  "Reading the manifest file, at line " + Int64ToString(error.line_number));
      engine_.Log(LogLevel::kWarning, ">>> '" + error.line + "'");
    }
    engine_.Log(LogLevel::kWarning, error.message);
    return Status(StatusCode::kInvalidArgument, error.message);
  }
  return Status::Ok();
}

Status Aof::LoadFiles() {
  engine_.keyspace().FlushAll();
  engine_.scripting().FlushFunctions();
  std::vector<const AofFileInfo*> files;
  if (manifest_.base.has_value()) files.push_back(&*manifest_.base);
  for (const AofFileInfo& info : manifest_.incrs) files.push_back(&info);
  current_size_ = 0;
  base_size_ = 0;
  for (size_t i = 0; i < files.size(); i++) {
    const int64_t started_us = engine_.env().clock().MonotonicUs();
    uint64_t size = 0;
    const Status loaded = LoadFile(*files[i], i + 1 == files.size(), &size);
    if (!loaded.ok()) {
      engine_.keyspace().FlushAll();
      engine_.scripting().FlushFunctions();
      return loaded;
    }
    current_size_ += size;
    if (files[i]->type == 'b') base_size_ = size;
    engine_.Log(LogLevel::kNotice,
                std::string("DB loaded from ") + (files[i]->type == 'b' ? "base" : "incr") +
                    " file " + files[i]->name + ": " +
                    Seconds(engine_.env().clock().MonotonicUs() - started_us) + " seconds");
  }
  engine_.keyspace().ResetDirty();
  return Status::Ok();
}

Status Aof::LoadFile(const AofFileInfo& info, bool last, uint64_t* size) {
  std::string bytes;
  const Status read = ReadWholeFile(engine_.env().files(), FilePath(info.name), &bytes);
  if (read.code() == StatusCode::kNotFound) {
    engine_.Log(LogLevel::kWarning, "The append log file " + info.name + " doesn't exist");
    return read;
  }
  if (!read.ok()) {
    engine_.Log(LogLevel::kWarning, "Fatal error: can't open the append log file " + info.name +
                                        " for reading: " + read.message());
    return read;
  }
  *size = bytes.size();
  if (bytes.empty()) return Status::Ok();
  size_t offset = 0;
  if (bytes.compare(0, 5, "REDIS") == 0) {
    engine_.Log(LogLevel::kNotice, "Reading RDB base file on AOF loading...");
    RdbLoadOptions options = engine_.persistence().LoadOptions();
    // The AOF replays what was in the base: keys that have expired since are expired by the
    // server afterwards, as Redis's loading with RDBFLAGS_AOF_PREAMBLE does.
    options.drop_expired_before_ms = INT64_MIN;
    options.replace_duplicates = false;
    RdbLoadResult result = LoadRdb(bytes, engine_.keyspace(), options);
    if (result.ok) {
      const std::string error =
          engine_.scripting().LoadFunctionLibraries(result.function_libraries, /*replace=*/false);
      if (!error.empty()) {
        result.ok = false;
        result.error = "Failed loading library, " + error;
      }
    }
    if (!result.ok) {
      engine_.Log(LogLevel::kWarning, "Short read or corrupt RDB file (" + result.error + ")");
      engine_.Log(LogLevel::kWarning,
                  "Error reading the RDB base file " + info.name + ", AOF loading aborted");
      return Status(StatusCode::kInvalidArgument, result.error);
    }
    offset = result.bytes_read;
  }
  size_t valid_up_to = 0;
  bool truncated = false;
  const Status replayed = ReplayCommands(info.name, bytes, offset, &truncated, &valid_up_to);
  if (!replayed.ok()) return replayed;
  if (!truncated) return Status::Ok();
  if (!last) {
    engine_.Log(LogLevel::kWarning, "Fatal error: the truncated file is not the last file");
    return Status(StatusCode::kInvalidArgument, "truncated file is not the last");
  }
  if (engine_.settings().aof_load_truncated) {
    engine_.Log(LogLevel::kWarning,
                "!!! Warning: short read while loading the AOF file " + info.name + "!!!");
    engine_.Log(LogLevel::kWarning, "!!! Truncating the AOF " + info.name + " at offset " +
                                        Int64ToString(static_cast<int64_t>(valid_up_to)) + " !!!");
    FileSystem& files = engine_.env().files();
    Result<FileId> opened = files.Open(FilePath(info.name), OpenMode::kAppend);
    Status cut = opened.status();
    if (opened.ok()) {
      cut = files.Truncate(opened.value(), valid_up_to);
      files.Close(opened.value()).IgnoreError();
    }
    if (cut.ok()) {
      engine_.Log(LogLevel::kWarning,
                  "AOF " + info.name + " loaded anyway because aof-load-truncated is enabled");
      *size = valid_up_to;
      return Status::Ok();
    }
    engine_.Log(LogLevel::kWarning,
                "Error truncating the AOF file " + info.name + ": " + cut.message());
  }
  engine_.Log(LogLevel::kWarning,
              "Unexpected end of file reading the append only file " + info.name +
                  ". You can: 1) Make a backup of your AOF file, then use ./redis-check-aof "
                  "--fix <filename.manifest>. 2) Alternatively you can set the "
                  "'aof-load-truncated' configuration option to yes and restart the server.");
  return Status(StatusCode::kInvalidArgument, "truncated AOF");
}

Status Aof::ReplayCommands(std::string_view name, std::string_view bytes, size_t offset,
                           bool* truncated, size_t* valid_up_to) {
  Client* client = engine_.NewClient(0, nullptr);
  AofCommandReader reader(bytes, offset);
  std::vector<std::string_view> args;
  // A transaction's commands run at its EXEC: a MULTI the file ends inside is cut off whole.
  std::vector<std::vector<std::string_view>> queued;
  bool in_multi = false;
  size_t before_multi = offset;
  *valid_up_to = offset;
  *truncated = false;
  Status status;
  const auto run = [&](std::span<const std::string_view> command) {
    engine_.Replay(*client, command, kCallFromAof);
    client->output().Clear();
  };
  while (true) {
    const AofReadStatus read = reader.Next(&args);
    if (read == AofReadStatus::kCommand) {
      bool unknown_subcommand = false;
      if (engine_.registry().Resolve(args, &unknown_subcommand) == nullptr) {
        engine_.Log(LogLevel::kWarning, "Unknown command '" + std::string(args[0]) +
                                            "' reading the append only file " + std::string(name));
        status = Status(StatusCode::kInvalidArgument, "unknown command");
        break;
      }
      if (EqualsIgnoreCase(args[0], "multi")) {
        in_multi = true;
        before_multi = *valid_up_to;
        queued.clear();
      } else if (EqualsIgnoreCase(args[0], "exec") && in_multi) {
        for (const auto& command : queued) run(command);
        queued.clear();
        in_multi = false;
      } else if (in_multi) {
        queued.push_back(args);
      } else {
        run(args);
      }
      *valid_up_to = reader.offset();
      continue;
    }
    if (read == AofReadStatus::kEnd) {
      if (in_multi) {
        engine_.Log(LogLevel::kWarning,
                    "Revert incomplete MULTI/EXEC transaction in AOF file " + std::string(name));
        *valid_up_to = before_multi;
        *truncated = true;
      }
      break;
    }
    if (read == AofReadStatus::kTruncated || read == AofReadStatus::kZeroTail) {
      if (read == AofReadStatus::kZeroTail) {
        engine_.Log(LogLevel::kWarning,
                    "The AOF file " + std::string(name) + " ends in zero bytes after offset " +
                        Int64ToString(static_cast<int64_t>(reader.offset())) +
                        " (a write the disk did not finish): treating them as a short read");
      }
      if (in_multi) *valid_up_to = before_multi;
      *truncated = true;
      break;
    }
    engine_.Log(LogLevel::kWarning, "Bad file format reading the append only file " +
                                        std::string(name) +
                                        ": make a backup of your AOF file, then use "
                                        "./redis-check-aof --fix <filename.manifest>");
    status = Status(StatusCode::kInvalidArgument, "bad AOF format");
    break;
  }
  engine_.FreeClient(client);
  return status;
}

// --- Opening ----------------------------------------------------------------------------------

Status Aof::CreateDirectoryIfMissing() {
  const Status created = engine_.env().files().CreateDirectory(DirPath());
  if (created.ok()) {
    directory_created_ = true;
    return created;
  }
  if (created.code() == StatusCode::kAlreadyExists) return Status::Ok();
  engine_.Log(LogLevel::kWarning, "Can't open or create append-only dir " +
                                      engine_.settings().appenddirname + ": " + created.message());
  return created;
}

Status Aof::OpenAtStartup() {
  if (!engine_.settings().appendonly) return Status::Ok();
  const Status dir = CreateDirectoryIfMissing();
  if (!dir.ok()) return dir;
  if (manifest_.empty()) {
    // A first base of the (empty) keyspace and a first incremental file, as Redis makes them.
    state_ = State::kWaitRewrite;
    engine_.keyspace().propagation().AddSink(this, kPropagateAof);
    const std::string error = BeginRewrite(/*enabling=*/true, /*at_startup=*/true);
    if (!error.empty()) return Status(StatusCode::kIoError, error);
    return Status::Ok();
  }
  const bool existed = !manifest_.incrs.empty();
  if (!existed) manifest_.NewIncr(engine_.settings().appendfilename);
  const AofFileInfo& last = manifest_.incrs.back();
  FileSystem& files = engine_.env().files();
  Result<FileId> opened = files.Open(FilePath(last.name), OpenMode::kAppend);
  if (!opened.ok()) {
    engine_.Log(LogLevel::kWarning,
                "Can't open the append-only file " + last.name + ": " + opened.status().message());
    return opened.status();
  }
  Result<uint64_t> size = files.Size(opened.value());
  incr_file_ = opened.value();
  incr_seq_ = last.seq;
  incr_size_ = size.ok() ? size.value() : 0;
  incr_requested_ = 0;
  state_ = State::kOn;
  engine_.keyspace().propagation().AddSink(this, kPropagateAof);
  // What was read back may be only in the OS's cache (after a kill, not a power loss): every
  // reply waits until the file and the manifest are durable, through one virtual byte.
  written_offset_ = appended_offset_ = 1;
  QueueBarrier(incr_seq_, written_offset_);
  RequestSync();
  WriteManifest();
  engine_.Log(LogLevel::kNotice, std::string(existed ? "Opening" : "Creating") + " AOF incr file " +
                                     last.name + " on server start");
  return Status::Ok();
}

// --- Turning the AOF on and off ---------------------------------------------------------------

bool Aof::Enable() {
  if (state_ != State::kOff) return true;
  if (engine_.persistence().background_save_in_progress()) {
    // Redis: the rewrite starts once the running save is over.
    state_ = State::kWaitRewrite;
    engine_.keyspace().propagation().AddSink(this, kPropagateAof);
    rewrite_scheduled_ = true;
    engine_.Log(LogLevel::kWarning,
                "AOF was enabled but there is already another background operation. An AOF "
                "background was scheduled to start when possible.");
    return true;
  }
  if (!CreateDirectoryIfMissing().ok()) return false;
  // The manifest on disk is read again: an earlier run may have left files there.
  const Status read = ReadManifest();
  if (!read.ok()) manifest_ = AofManifest();
  state_ = State::kWaitRewrite;
  engine_.keyspace().propagation().AddSink(this, kPropagateAof);
  const std::string error = BeginRewrite(/*enabling=*/true, /*at_startup=*/false);
  if (!error.empty()) {
    engine_.keyspace().propagation().RemoveSink(this);
    state_ = State::kOff;
    engine_.Log(LogLevel::kWarning,
                "Redis needs to enable the AOF but can't trigger a background AOF rewrite "
                "operation. Check the above logs for more info about the error.");
    return false;
  }
  last_write_ok_ = true;
  append_failed_ = false;
  return true;
}

void Aof::Disable() {
  if (state_ == State::kOff) return;
  FlushBuffer();
  if (incr_file_ != 0 && incr_requested_ < incr_size_) RequestSync();
  RetireIncr();
  if (rewrite_ != nullptr) AbandonRewrite("Killing running AOF rewrite: the AOF was turned off");
  engine_.keyspace().propagation().RemoveSink(this);
  state_ = State::kOff;
  rewrite_scheduled_ = false;
  selected_db_ = -1;
  buffer_.clear();
  // Nothing waits for the AOF any more: barriers that no manifest will complete are dropped.
  for (PendingSync& sync : pending_) {
    if (sync.file == 0) sync.done = true;
  }
  Account();
}

// --- Writing ----------------------------------------------------------------------------------

void Aof::AppendTimestampIfNeeded() {
  if (!engine_.settings().aof_timestamp_enabled) return;
  const int64_t now_s = engine_.wall_ms() / 1000;
  if (now_s <= last_timestamp_s_) return;
  last_timestamp_s_ = now_s;
  buffer_ += "#TS:";
  buffer_ += Int64ToString(now_s);
  buffer_ += "\r\n";
}

void Aof::Propagate(int db, std::span<const std::string_view> args) {
  const size_t before = buffer_.size();
  AppendTimestampIfNeeded();
  if (db >= 0 && db != selected_db_) {
    const std::string index = Int64ToString(db);
    const std::string_view select[] = {"SELECT", index};
    AppendAofCommand(&buffer_, select);
    selected_db_ = db;
  }
  AppendAofCommand(&buffer_, args);
  written_offset_ += buffer_.size() - before;
}

void Aof::FlushBuffer() {
  if (state_ == State::kOff || incr_file_ == 0) return;
  if (!buffer_.empty() && !append_failed_) AppendBuffer();
  const int64_t policy = engine_.settings().appendfsync;
  if (incr_requested_ >= incr_size_ || data_sync_in_flight_) return;
  if (policy == kFsyncAlways ||
      (policy == kFsyncEverysec &&
       engine_.now_monotonic_us() - last_sync_request_us_ >= kEverysecIntervalMs * 1000)) {
    RequestSync();
  }
}

void Aof::AppendBuffer() {
  FileSystem& files = engine_.env().files();
  const ConstSlice slice{buffer_.data(), buffer_.size()};
  const Status appended = files.Append(incr_file_, &slice, 1);
  if (!appended.ok()) {
    // How much reached the file is unknown: cut it back, keep the buffer, retry from cron.
    files.Truncate(incr_file_, incr_size_).IgnoreError();
    if (!append_failed_) {
      engine_.Log(LogLevel::kWarning,
                  "Error writing to the AOF file: " + appended.message() +
                      (HoldsReplies() ? " (replies wait until it can be written)" : ""));
    }
    append_failed_ = true;
    last_write_error_ = appended.message();
    UpdateWriteStatus();
    return;
  }
  if (append_failed_) {
    engine_.Log(LogLevel::kWarning, "AOF write error looks solved, Redis can write again.");
  }
  append_failed_ = false;
  incr_size_ += buffer_.size();
  appended_offset_ += buffer_.size();
  current_size_ += buffer_.size();
  buffer_.clear();
  UpdateWriteStatus();
}

void Aof::RequestSync() {
  if (incr_file_ == 0) return;
  PendingSync sync;
  sync.token = kTokenBit | next_token_++;
  sync.file = incr_file_;
  sync.offset = appended_offset_;
  incr_requested_ = incr_size_;
  data_sync_in_flight_ = true;
  last_sync_request_us_ = engine_.now_monotonic_us();
  const Status requested = engine_.env().files().SyncAsync(incr_file_, sync.token);
  if (!requested.ok()) {
    sync.failed = true;
    sync.done = true;
    sync_failed_ = true;
    data_sync_in_flight_ = false;
    last_write_error_ = requested.message();
    engine_.Log(LogLevel::kWarning, "Fail to fsync the AOF file: " + requested.message());
  }
  pending_.push_back(sync);
  UpdateWriteStatus();
}

void Aof::QueueBarrier(int64_t incr_seq, uint64_t offset) {
  PendingSync barrier;
  barrier.incr_seq = incr_seq;
  barrier.offset = offset;
  barrier.done = incr_seq <= durable_incr_seq_;
  pending_.push_back(barrier);
}

void Aof::Account() {
  while (!pending_.empty() && pending_.front().done && !pending_.front().failed) {
    durable_offset_ = std::max(durable_offset_, pending_.front().offset);
    pending_.pop_front();
  }
  // With nothing in flight, everything appended is durable exactly when it was synced; a file
  // switched away from is closed once no sync of it is left.
  for (auto it = retired_files_.begin(); it != retired_files_.end();) {
    const FileId file = *it;
    const bool busy = std::any_of(pending_.begin(), pending_.end(), [file](const PendingSync& s) {
      return s.file == file && (!s.done || s.failed);
    });
    if (busy) {
      ++it;
      continue;
    }
    engine_.env().files().Close(file).IgnoreError();
    it = retired_files_.erase(it);
  }
}

void Aof::UpdateWriteStatus() {
  const bool ok = !append_failed_ && !sync_failed_ && !manifest_failed_;
  if (ok && !last_write_ok_) engine_.Log(LogLevel::kWarning, "AOF write error looks solved.");
  last_write_ok_ = ok;
}

bool Aof::OnFileSynced(uint64_t token, StatusCode code) {
  if ((token & kTokenBit) == 0) return false;
  if (rewrite_ != nullptr && rewrite_->token == token) {
    OnRewriteSynced(code);
    return true;
  }
  if (manifest_job_ != nullptr && manifest_job_->token == token) {
    OnManifestSynced(code);
    return true;
  }
  for (PendingSync& sync : pending_) {
    if (sync.token != token || sync.file == 0) continue;
    sync.done = true;
    if (sync.file == incr_file_) data_sync_in_flight_ = false;
    if (code != StatusCode::kOk) {
      sync.failed = true;
      sync_failed_ = true;
      last_write_error_ = std::string("fsync failed (") + std::string(StatusCodeName(code)) + ")";
      engine_.Log(LogLevel::kWarning, "Fail to fsync the AOF file: " + last_write_error_);
    }
    break;
  }
  Account();
  // A failed sync keeps writes refused until none is left failed (Redis's aof_bio_fsync_status
  // stays an error until an fsync succeeds).
  if (sync_failed_ && std::none_of(pending_.begin(), pending_.end(),
                                   [](const PendingSync& s) { return s.failed; })) {
    sync_failed_ = false;
  }
  UpdateWriteStatus();
  return true;
}

void Aof::RetrySyncs() {
  for (PendingSync& sync : pending_) {
    if (!sync.failed) continue;
    // A sync that failed is asked again: the bytes it covered are still in the file (Linux may
    // have dropped them from its cache; the next successful sync covers whatever is there).
    sync.token = kTokenBit | next_token_++;
    sync.failed = false;
    sync.done = false;
    if (sync.file == incr_file_) data_sync_in_flight_ = true;
    const Status requested = engine_.env().files().SyncAsync(sync.file, sync.token);
    if (!requested.ok()) {
      sync.failed = true;
      sync.done = true;
      sync_failed_ = true;
      if (sync.file == incr_file_) data_sync_in_flight_ = false;
    }
  }
  UpdateWriteStatus();
}

// --- Incremental files --------------------------------------------------------------------------

void Aof::RetireIncr() {
  if (incr_file_ == 0) return;
  if (incr_requested_ < incr_size_) RequestSync();
  retired_files_.push_back(incr_file_);
  incr_file_ = 0;
  data_sync_in_flight_ = false;
  Account();
}

Status Aof::SwitchIncr(const AofFileInfo& info) {
  Result<FileId> opened =
      engine_.env().files().Open(FilePath(info.name), OpenMode::kCreateTruncate);
  if (!opened.ok()) {
    engine_.Log(LogLevel::kWarning,
                "Can't open the append-only file " + info.name + ": " + opened.status().message());
    return opened.status();
  }
  RetireIncr();
  incr_file_ = opened.value();
  incr_seq_ = info.seq;
  incr_size_ = 0;
  incr_requested_ = 0;
  selected_db_ = -1;
  // Bytes of the new file are durable only once a manifest listing it is.
  QueueBarrier(info.seq, appended_offset_);
  return Status::Ok();
}

// --- The manifest -------------------------------------------------------------------------------

void Aof::WriteManifest() {
  manifest_generation_++;
  StartManifestJob();
}

void Aof::StartManifestJob() {
  if (manifest_job_ != nullptr) {
    manifest_again_ = true;
    return;
  }
  manifest_again_ = false;
  auto job = std::make_unique<ManifestJob>();
  job->generation = manifest_generation_;
  job->text = manifest_.Format();
  job->incr_seq = manifest_.incrs.empty() ? 0 : manifest_.incrs.back().seq;
  job->temp_path = FilePath("temp-" + ManifestName());
  manifest_job_ = std::move(job);
  if (directory_created_) {
    // The directory itself must be in its parent before anything in it counts.
    manifest_job_->phase = ManifestJob::Phase::kSyncParent;
    manifest_job_->token = kTokenBit | next_token_++;
    const Status synced = engine_.env().files().SyncDirectoryAsync(
        engine_.persistence().Directory(), manifest_job_->token);
    if (!synced.ok()) FailManifest("Fail to fsync directory: " + synced.message());
    return;
  }
  WriteManifestFile();
}

void Aof::WriteManifestFile() {
  ManifestJob& job = *manifest_job_;
  FileSystem& files = engine_.env().files();
  Result<FileId> opened = files.Open(job.temp_path, OpenMode::kCreateTruncate);
  if (!opened.ok()) {
    FailManifest("Can't open the AOF manifest file temp-" + ManifestName() +
                 " for writing: " + opened.status().message());
    return;
  }
  job.file = opened.value();
  job.file_open = true;
  const ConstSlice slice{job.text.data(), job.text.size()};
  Status status = files.Append(job.file, &slice, 1);
  if (status.ok()) {
    job.phase = ManifestJob::Phase::kSyncTemp;
    job.token = kTokenBit | next_token_++;
    status = files.SyncAsync(job.file, job.token);
  }
  if (!status.ok()) FailManifest("Error trying to write the AOF manifest: " + status.message());
}

void Aof::OnManifestSynced(StatusCode code) {
  ManifestJob& job = *manifest_job_;
  FileSystem& files = engine_.env().files();
  if (code != StatusCode::kOk) {
    FailManifest(std::string("Fail to fsync the AOF manifest (") +
                 std::string(StatusCodeName(code)) + ")");
    return;
  }
  Status status;
  switch (job.phase) {
    case ManifestJob::Phase::kSyncParent:
      directory_created_ = false;
      WriteManifestFile();
      return;
    case ManifestJob::Phase::kSyncTemp:
      files.Close(job.file).IgnoreError();
      job.file_open = false;
      job.phase = ManifestJob::Phase::kSyncDirBefore;
      job.token = kTokenBit | next_token_++;
      status = files.SyncDirectoryAsync(DirPath(), job.token);
      break;
    case ManifestJob::Phase::kSyncDirBefore:
      status = files.Rename(job.temp_path, FilePath(ManifestName()));
      if (status.ok()) {
        job.phase = ManifestJob::Phase::kSyncDirAfter;
        job.token = kTokenBit | next_token_++;
        status = files.SyncDirectoryAsync(DirPath(), job.token);
      }
      break;
    case ManifestJob::Phase::kSyncDirAfter: {
      const int64_t incr_seq = job.incr_seq;
      const uint64_t generation = job.generation;
      manifest_job_.reset();
      if (manifest_failed_) {
        manifest_failed_ = false;
        UpdateWriteStatus();
      }
      OnManifestDurable(incr_seq, generation);
      if (manifest_again_ && manifest_job_ == nullptr) StartManifestJob();
      return;
    }
  }
  if (!status.ok()) FailManifest("Error trying to write the AOF manifest: " + status.message());
}

void Aof::FailManifest(std::string_view why) {
  engine_.Log(LogLevel::kWarning, why);
  if (manifest_job_->file_open) engine_.env().files().Close(manifest_job_->file).IgnoreError();
  engine_.env().files().Remove(manifest_job_->temp_path).IgnoreError();
  manifest_job_.reset();
  // Retried from cron; until then writes are refused (the files are not all reachable).
  manifest_failed_ = true;
  manifest_again_ = true;
  last_write_error_ = std::string(why);
  UpdateWriteStatus();
}

void Aof::OnManifestDurable(int64_t incr_seq, uint64_t generation) {
  durable_incr_seq_ = std::max(durable_incr_seq_, incr_seq);
  manifest_generation_durable_ = std::max(manifest_generation_durable_, generation);
  for (PendingSync& sync : pending_) {
    if (sync.file == 0 && sync.incr_seq <= durable_incr_seq_) sync.done = true;
  }
  Account();
  if (rewrite_ != nullptr && rewrite_->phase == Rewrite::Phase::kManifest &&
      rewrite_->manifest_generation <= manifest_generation_durable_) {
    FinishRewrite();
  }
}

// --- Rewriting ----------------------------------------------------------------------------------

std::string Aof::StartRewrite(bool in_exec) {
  if (rewrite_ != nullptr && rewrite_->at_startup) {
    // Redis makes the first base synchronously before it serves anyone, so a BGREWRITEAOF right
    // after the start always starts; Keel's is written by the loop and may still be running:
    // this one starts as soon as it is done.
    rewrite_scheduled_ = true;
    return "";
  }
  if (rewrite_ != nullptr) return "ERR Background append only file rewriting already in progress";
  if (engine_.persistence().background_save_in_progress() || in_exec) {
    rewrite_scheduled_ = true;
    return "scheduled";
  }
  const bool enabling = state_ == State::kWaitRewrite;
  // With the AOF off, the rewrite replaces what an earlier run left (Redis keeps the manifest
  // it read at start).
  if (state_ == State::kOff && !ReadManifest().ok()) manifest_ = AofManifest();
  const std::string error = BeginRewrite(enabling, /*at_startup=*/false);
  if (error == "scheduled") return error;
  if (!error.empty()) {
    return "ERR Can't execute an AOF background rewriting. Please check the server logs for "
           "more information.";
  }
  return "";
}

std::string Aof::BeginRewrite(bool enabling, bool at_startup) {
  // A buffer the disk refused (full or failing) holds writes from before the snapshot: they
  // belong to the current incremental file. In the new one they would replay on top of a base
  // that already holds them, and without the SELECT written before them (simulator seed 971: a
  // write of db 2 loaded into db 0). The rewrite waits until the disk takes them.
  if (state_ == State::kOn) {
    FlushBuffer();
    if (!buffer_.empty()) {
      rewrite_scheduled_ = true;
      return "scheduled";
    }
  }
  if (!CreateDirectoryIfMissing().ok()) {
    last_rewrite_ok_ = false;
    return "ERR";
  }
  const ConfigValues& settings = engine_.settings();
  auto rewrite = std::make_unique<Rewrite>();
  rewrite->enabling = enabling;
  rewrite->at_startup = at_startup;
  rewrite->rdb = settings.aof_use_rdb_preamble;
  rewrite->started_us = engine_.now_monotonic_us();
  // What was written before the snapshot goes to the old incremental file; everything after
  // it to a new one.
  FlushBuffer();
  if (state_ != State::kOff) {
    AofManifest next = manifest_;
    if (enabling) {
      // The files of an earlier run are not this AOF's: the new incremental file follows them
      // in numbering and only the manifest that ends the rewrite will list it.
      next.NewIncr(settings.appendfilename);
      rewrite->enabling_incr = next.incrs.back();
      manifest_.incr_seq = next.incr_seq;
    } else {
      next.NewIncr(settings.appendfilename);
    }
    const AofFileInfo& info = next.incrs.back();
    if (!SwitchIncr(info).ok()) {
      last_rewrite_ok_ = false;
      return "ERR";
    }
    if (!enabling) {
      manifest_ = std::move(next);
      WriteManifest();
    }
    engine_.Log(LogLevel::kNotice,
                "Creating AOF incr file " + info.name +
                    (at_startup ? " on server start" : " on background rewrite"));
  }
  rewrite->temp_name =
      "temp-rewriteaof-bg-" + Int64ToString(static_cast<int64_t>(next_temp_++)) + ".aof";
  Result<FileId> opened =
      engine_.env().files().Open(FilePath(rewrite->temp_name), OpenMode::kCreateTruncate);
  if (!opened.ok()) {
    engine_.Log(LogLevel::kWarning,
                "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): " +
                    opened.status().message());
    last_rewrite_ok_ = false;
    rewrite_failures_++;
    return "ERR";
  }
  rewrite->file = opened.value();
  rewrite->file_open = true;
  if (rewrite->rdb) {
    rewrite->rdb_sink = std::make_unique<RdbSnapshotWriter>(engine_.keyspace(),
                                                            engine_.persistence().WriteOptions());
  } else {
    rewrite->command_sink = std::make_unique<AofCommandWriter>();
    // Redis's rewriteFunctions: the libraries first, as the commands that load them.
    for (const std::string& code : engine_.scripting().FunctionLibraryCodes()) {
      const std::string_view args[] = {"FUNCTION", "LOAD", code};
      rewrite->command_sink->AddCommand(args);
    }
  }
  rewrite->snapshot = std::make_unique<Snapshot>(engine_.keyspace(), rewrite->sink());
  rewrite_ = std::move(rewrite);
  rewrite_scheduled_ = false;
  // The base made at start is not a background rewrite (Redis makes it synchronously).
  if (!at_startup) rewrites_++;
  if (!at_startup) engine_.Log(LogLevel::kNotice, "Background append only file rewriting started");
  return "";
}

bool Aof::wants_pump() const {
  return rewrite_ != nullptr && rewrite_->phase == Rewrite::Phase::kWalk;
}

void Aof::Pump() {
  if (!wants_pump()) return;
  Rewrite& rewrite = *rewrite_;
  // At a background save's pace (snapshot_pace.h).
  const bool more = PumpSnapshot(*rewrite.snapshot, engine_.env().clock(),
                                 [&rewrite] { return rewrite.pending_bytes(); });
  if (!more) {
    rewrite.snapshot.reset();
    rewrite.Finish();
  }
  const std::string chunk = rewrite.TakeBytes();
  if (!chunk.empty()) {
    const ConstSlice slice{chunk.data(), chunk.size()};
    const Status appended = engine_.env().files().Append(rewrite.file, &slice, 1);
    if (!appended.ok()) {
      FailRewrite("Error writing the AOF rewrite: " + appended.message());
      return;
    }
    rewrite.bytes += chunk.size();
  }
  if (more) return;
  rewrite.phase = Rewrite::Phase::kSyncBase;
  rewrite.token = kTokenBit | next_token_++;
  const Status synced = engine_.env().files().SyncAsync(rewrite.file, rewrite.token);
  if (!synced.ok()) FailRewrite("Error syncing the AOF rewrite: " + synced.message());
}

void Aof::OnRewriteSynced(StatusCode code) {
  Rewrite& rewrite = *rewrite_;
  FileSystem& files = engine_.env().files();
  if (code != StatusCode::kOk) {
    FailRewrite(std::string("Error syncing the AOF rewrite (") + std::string(StatusCodeName(code)) +
                ")");
    return;
  }
  if (rewrite.phase == Rewrite::Phase::kSyncBase) {
    files.Close(rewrite.file).IgnoreError();
    rewrite.file_open = false;
    // The new base gets its name now; the manifest that names it comes after the directory
    // sync, so that it never names a file the disk may not have.
    AofManifest next = manifest_;
    rewrite.base_name = next.NewBase(engine_.settings().appendfilename, rewrite.rdb);
    const Status renamed = files.Rename(FilePath(rewrite.temp_name), FilePath(rewrite.base_name));
    if (!renamed.ok()) {
      FailRewrite("Error trying to rename the temporary AOF base file " + rewrite.temp_name +
                  " into " + rewrite.base_name + ": " + renamed.message());
      return;
    }
    engine_.Log(LogLevel::kNotice, "Successfully renamed the temporary AOF base file " +
                                       rewrite.temp_name + " into " + rewrite.base_name);
    rewrite.phase = Rewrite::Phase::kSyncDir;
    rewrite.token = kTokenBit | next_token_++;
    const Status synced = files.SyncDirectoryAsync(DirPath(), rewrite.token);
    if (!synced.ok()) FailRewrite("Fail to fsync the AOF directory: " + synced.message());
    return;
  }
  // kSyncDir: the new base is in place; the manifest switches to it (the same name: only a
  // rewrite makes bases, one at a time).
  const std::string base_name = manifest_.NewBase(engine_.settings().appendfilename, rewrite.rdb);
  KEEL_ASSERT(base_name == rewrite.base_name);
  if (rewrite.enabling) {
    // The files an earlier run left are replaced by the new base; the new incremental file is
    // the only one.
    for (AofFileInfo info : manifest_.incrs) {
      info.type = 'h';
      manifest_.history.insert(manifest_.history.begin(), std::move(info));
    }
    manifest_.incrs.clear();
    manifest_.incrs.push_back(rewrite.enabling_incr);
    manifest_.incr_seq = std::max(manifest_.incr_seq, rewrite.enabling_incr.seq);
  } else if (state_ != State::kOff) {
    manifest_.MarkRewrittenIncrsAsHistory();
  } else {
    for (AofFileInfo info : manifest_.incrs) {
      info.type = 'h';
      manifest_.history.insert(manifest_.history.begin(), std::move(info));
    }
    manifest_.incrs.clear();
  }
  rewrite.phase = Rewrite::Phase::kManifest;
  WriteManifest();
  rewrite.manifest_generation = manifest_generation_;
}

void Aof::FinishRewrite() {
  Rewrite& rewrite = *rewrite_;
  base_size_ = rewrite.bytes;
  current_size_ = rewrite.bytes + incr_size_;
  last_rewrite_ok_ = true;
  rewrite_failures_ = 0;
  last_rewrite_duration_s_ = (engine_.now_monotonic_us() - rewrite.started_us) / 1000000;
  const bool enabling = rewrite.enabling;
  const bool at_startup = rewrite.at_startup;
  const std::string base_name = rewrite.base_name;
  rewrite_.reset();
  if (enabling && state_ == State::kWaitRewrite) state_ = State::kOn;
  if (at_startup) {
    engine_.Log(LogLevel::kNotice, "Creating AOF base file " + base_name + " on server start");
  } else {
    engine_.Log(LogLevel::kNotice, "Background AOF rewrite terminated with success");
    engine_.Log(LogLevel::kNotice, "Background AOF rewrite finished successfully");
  }
  RemoveHistory();
}

void Aof::RemoveHistory() {
  if (engine_.settings().aof_disable_auto_gc || manifest_.history.empty()) return;
  for (const AofFileInfo& info : manifest_.history) {
    engine_.Log(LogLevel::kNotice, "Removing the history file " + info.name + " in the background");
    engine_.env().files().Remove(FilePath(info.name)).IgnoreError();
  }
  manifest_.history.clear();
  WriteManifest();
}

void Aof::FailRewrite(std::string_view why) {
  engine_.Log(LogLevel::kWarning, why);
  engine_.Log(LogLevel::kWarning, "Background AOF rewrite terminated with error");
  last_rewrite_ok_ = false;
  rewrite_failures_++;
  const bool enabling = rewrite_->enabling;
  AbandonRewrite("");
  // Turning the AOF on goes on trying (a new incremental file each time: the old one holds
  // writes the next snapshot will already have).
  if (enabling && state_ == State::kWaitRewrite) rewrite_scheduled_ = true;
}

void Aof::AbandonRewrite(std::string_view why) {
  if (!why.empty()) engine_.Log(LogLevel::kNotice, why);
  Rewrite& rewrite = *rewrite_;
  FileSystem& files = engine_.env().files();
  if (rewrite.file_open) files.Close(rewrite.file).IgnoreError();
  if (rewrite.phase == Rewrite::Phase::kWalk || rewrite.phase == Rewrite::Phase::kSyncBase) {
    files.Remove(FilePath(rewrite.temp_name)).IgnoreError();
  }
  last_rewrite_duration_s_ = (engine_.now_monotonic_us() - rewrite.started_us) / 1000000;
  rewrite_.reset();
}

// --- Cron and shutdown ---------------------------------------------------------------------------

void Aof::Cron() {
  if (state_ != State::kOff) {
    if (append_failed_) {
      append_failed_ = false;  // one more try
      if (!buffer_.empty()) AppendBuffer();
      FlushBuffer();
    }
    RetrySyncs();
    if (manifest_failed_ && manifest_job_ == nullptr) StartManifestJob();
    // everysec also when no new write came in the last second (Redis's flushAppendOnlyFile
    // with an empty buffer).
    FlushBuffer();
  }
  if (rewrite_ != nullptr || engine_.persistence().background_save_in_progress()) return;
  if (rewrite_scheduled_) {
    const bool enabling = state_ == State::kWaitRewrite;
    BeginRewrite(enabling, /*at_startup=*/false);
    return;
  }
  const ConfigValues& settings = engine_.settings();
  if (state_ == State::kOn && settings.auto_aof_rewrite_percentage > 0 &&
      static_cast<int64_t>(current_size_) > settings.auto_aof_rewrite_min_size) {
    const int64_t base = base_size_ > 0 ? static_cast<int64_t>(base_size_) : 1;
    const int64_t growth = static_cast<int64_t>(current_size_) * 100 / base - 100;
    if (growth >= settings.auto_aof_rewrite_percentage) {
      engine_.Log(LogLevel::kNotice,
                  "Starting automatic rewriting of AOF on " + Int64ToString(growth) + "% growth");
      BeginRewrite(/*enabling=*/false, /*at_startup=*/false);
    }
  }
}

void Aof::BeginShutdown() {
  if (state_ == State::kOff) return;
  if (!buffer_.empty()) AppendBuffer();
  if (incr_file_ != 0 && incr_requested_ < incr_size_ && !data_sync_in_flight_) RequestSync();
}

// --- DEBUG LOADAOF
// --------------------------------------------------------------------------------

bool Aof::Reload() {
  if (state_ != State::kOff && !buffer_.empty()) AppendBuffer();
  if (state_ == State::kOff) {
    const Status read = ReadManifest();
    if (!read.ok()) return false;
  }
  return LoadFiles().ok();
}

}  // namespace keel
