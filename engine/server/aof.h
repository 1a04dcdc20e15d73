// The append-only file: every change the keyspace propagates, written as commands to a
// multi-part AOF that Redis 7.0 reads (and Keel reads Redis 7.0's).
//
// Files (aof_manifest.h): in `dir`/`appenddirname`, a base (the keyspace at the last rewrite, an
// RDB by default), incremental files of the commands since, and the manifest that lists them.
//
// Writing. Aof is a propagation sink: each execution unit's commands land in a buffer (with
// SELECT when the database changes, and "#TS:" annotations with aof-timestamp-enabled). Once per
// loop iteration, before any reply is written, the Server calls FlushBuffer: the buffer is
// appended to the current incremental file, and a sync is requested as appendfsync says:
//   always    at once, and no reply leaves before the sync of every byte appended when it was
//             made has completed (group commit: one sync covers all that an iteration wrote;
//             while it runs, the next iteration's bytes wait for the next sync). The Server
//             holds replies through HoldsReplies / durable_offset;
//   everysec  once a second, so a write that was acknowledged is lost in a crash only if it was
//             made in the last second (plus the sync's own time);
//   no        never (the OS decides), but at file switches and shutdown.
// The loop never blocks on a disk flush: syncs complete as kFileSynced events.
//
// Durability is tracked as offsets in the stream of all bytes ever written: an offset is durable
// once every sync requested up to it has completed, and, for bytes of an incremental file, once
// a manifest that lists the file is durable too (a crash before that would lose the file from
// the directory's view). Syncs complete in any order; they are accounted for in request order.
//
// Rewriting (BGREWRITEAOF, auto-aof-rewrite-*, turning the AOF on): no fork. A new incremental
// file is opened (and, when the AOF is on, a manifest listing it is written at once, as Redis
// does), and a Snapshot of that instant is walked a part per loop iteration into a temporary
// base file (RDB preamble, or commands with aof-use-rdb-preamble no); then it is synced, renamed
// to its base name, the directory synced, and the new manifest (new base, the old files as
// history) written; the history files are then removed unless aof-disable-auto-gc.
//
// Every file becomes durable the only safe way: written, synced, renamed into place, the
// directory synced; the manifest is replaced only after the files it names are durable.
//
// Failures: a failed append is cut back off the file (Redis does the same after a short write)
// and retried from cron; a failed sync is retried from cron. Until they succeed, writes are
// refused with Redis's MISCONF error for the AOF, and in `always` mode no reply that depends on
// the unsynced bytes is sent.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/db/propagation.h"
#include "engine/env/env.h"
#include "engine/server/aof_manifest.h"

namespace keel {

class Engine;

class Aof final : public PropagationSink {
 public:
  explicit Aof(Engine& engine);
  ~Aof() override;
  Aof(const Aof&) = delete;
  Aof& operator=(const Aof&) = delete;

  // --- Start ---------------------------------------------------------------------------------
  // Loads the AOF named by the manifest (the base, then every incremental file), when
  // appendonly is on. A torn or zero-filled tail of the last file is cut off when
  // aof-load-truncated allows it; anything else wrong stops the server (returns an error after
  // logging Redis's lines).
  Status LoadAtStartup();
  // With appendonly on: creates the directory if needed, opens the last incremental file for
  // appending (or makes a base and a first incremental file when there are none) and makes the
  // manifest durable. An error stops the server.
  Status OpenAtStartup();

  // --- Runtime -------------------------------------------------------------------------------
  // CONFIG SET appendonly yes / no. Turning it on starts a rewrite (false when it cannot start,
  // after logging why).
  bool Enable();
  void Disable();
  bool enabled() const { return state_ != State::kOff; }

  // appendfsync values (ConfigValues::appendfsync).
  static constexpr int64_t kFsyncEverysec = 0;
  static constexpr int64_t kFsyncAlways = 1;
  static constexpr int64_t kFsyncNo = 2;

  // BGREWRITEAOF: "" (started), "scheduled" (after the running save, or after the EXEC it runs
  // in), or Redis's error text.
  std::string StartRewrite(bool in_exec);
  bool rewrite_in_progress() const { return rewrite_ != nullptr; }
  bool rewrite_scheduled() const { return rewrite_scheduled_; }

  // PropagationSink.
  void Propagate(int db, std::span<const std::string_view> args) override;

  // The loop's part, before replies are written: appends the buffer and requests syncs.
  void FlushBuffer();
  // Steps a running rewrite's snapshot.
  void Pump();
  bool wants_pump() const;
  // A kFileSynced event; false when `token` is not the AOF's.
  bool OnFileSynced(uint64_t token, StatusCode code);
  // Retries failed writes and syncs, starts scheduled and automatic rewrites.
  void Cron();
  // Shutdown: appends the buffer and requests a final sync; `pending_syncs` is then how many
  // of the AOF's syncs are still in flight (the Server waits for them, within a bound). Failed
  // syncs are not in flight: they wait for cron's retry.
  void BeginShutdown();
  size_t pending_syncs() const;

  // Whether replies must wait for the AOF (appendfsync always, AOF on).
  bool HoldsReplies() const;
  // Bytes ever added to the AOF stream, and how many of them are durable.
  uint64_t written_offset() const { return written_offset_; }
  uint64_t durable_offset() const { return durable_offset_; }

  // Writes are refused (MISCONF) while a write or sync of the AOF is failing; the error text.
  bool writes_denied() const { return !last_write_ok_; }
  // Why the last write or sync failed (strerror's text).
  const std::string& last_write_error() const { return last_write_error_; }
  std::string MisconfError() const;

  // INFO persistence.
  bool last_write_ok() const { return last_write_ok_; }
  bool last_rewrite_ok() const { return last_rewrite_ok_; }
  uint64_t rewrites() const { return rewrites_; }
  uint64_t rewrite_failures() const { return rewrite_failures_; }
  int64_t last_rewrite_duration_s() const { return last_rewrite_duration_s_; }
  int64_t current_rewrite_duration_s() const;
  uint64_t current_size() const { return current_size_; }
  uint64_t base_size() const { return base_size_; }
  size_t buffer_length() const { return buffer_.size(); }
  size_t pending_fsyncs() const;

  // DEBUG LOADAOF: flushes, then reloads the keyspace from the AOF files. False after logging.
  bool Reload();

 private:
  enum class State : uint8_t { kOff, kWaitRewrite, kOn };
  struct Rewrite;
  struct ManifestJob;
  // A sync in flight, accounted for in request order.
  struct PendingSync {
    uint64_t token = 0;
    FileId file = 0;       // 0: a manifest barrier (completes with a durable manifest)
    uint64_t offset = 0;   // the stream offset it makes durable
    int64_t incr_seq = 0;  // for a barrier: the incremental file that must be listed
    bool done = false;
    bool failed = false;
  };

  std::string DirPath() const;
  std::string FilePath(std::string_view name) const;
  std::string ManifestName() const;
  Status ReadManifest();
  Status CreateDirectoryIfMissing();
  // Loads every file of manifest_ into the flushed keyspace.
  Status LoadFiles();
  // Loads one file of the manifest; `last` allows cutting off a torn tail; *size its bytes.
  Status LoadFile(const AofFileInfo& info, bool last, uint64_t* size);
  // Replays the commands of `bytes` from `offset`; sets *valid_up_to for truncation.
  Status ReplayCommands(std::string_view name, std::string_view bytes, size_t offset,
                        bool* truncated, size_t* valid_up_to);

  // Writing and syncing.
  void AppendTimestampIfNeeded();
  void AppendBuffer();
  void RequestSync();
  void QueueBarrier(int64_t incr_seq, uint64_t offset);
  void Account();
  void UpdateWriteStatus();
  void RetrySyncs();
  // The current incremental file is synced (if needed) and closed once its syncs are done.
  void RetireIncr();
  // Opens the incremental file `info` and makes it the current one; its bytes wait for a
  // manifest that lists it.
  Status SwitchIncr(const AofFileInfo& info);

  // The manifest: manifest_ made durable, one job at a time.
  void WriteManifest();  // manifest_ changed: a new generation to make durable
  void StartManifestJob();
  void WriteManifestFile();
  void OnManifestSynced(StatusCode code);
  void FailManifest(std::string_view why);
  void OnManifestDurable(int64_t incr_seq, uint64_t generation);

  // Rewrites. BeginRewrite returns "" or an error.
  std::string BeginRewrite(bool enabling, bool at_startup);
  void OnRewriteSynced(StatusCode code);
  void FinishRewrite();
  void FailRewrite(std::string_view why);
  void AbandonRewrite(std::string_view why);
  void RemoveHistory();

  Engine& engine_;
  State state_ = State::kOff;
  AofManifest manifest_;  // what the files are (the durable one may lag behind)
  FileId incr_file_ = 0;
  int64_t incr_seq_ = 0;               // the current incremental file's sequence number
  uint64_t incr_size_ = 0;             // bytes appended to it
  uint64_t incr_requested_ = 0;        // of them, covered by a sync requested
  std::vector<FileId> retired_files_;  // switched away from, closed once synced
  int selected_db_ = -1;
  int64_t last_timestamp_s_ = 0;
  std::string buffer_;
  uint64_t written_offset_ = 0;
  uint64_t appended_offset_ = 0;
  uint64_t durable_offset_ = 0;
  std::deque<PendingSync> pending_;
  uint64_t next_token_ = 1;
  // everysec's second runs on the monotonic clock: a wall clock stepped back must not hold syncs
  // back (Redis measures it on unixtime).
  int64_t last_sync_request_us_ = 0;
  bool data_sync_in_flight_ = false;
  bool append_failed_ = false;
  bool sync_failed_ = false;  // a sync failed, and no retry has succeeded since
  bool last_write_ok_ = true;
  std::string last_write_error_;
  // Manifest writes: one at a time; a change while one runs is written after it. Every change
  // counts a generation; a job carries the generation it wrote.
  std::unique_ptr<ManifestJob> manifest_job_;
  bool manifest_again_ = false;
  bool manifest_failed_ = false;
  uint64_t manifest_generation_ = 0;
  uint64_t manifest_generation_durable_ = 0;
  int64_t durable_incr_seq_ = 0;  // the last incremental file a durable manifest lists
  bool directory_created_ = false;
  // Rewrites.
  std::unique_ptr<Rewrite> rewrite_;
  bool rewrite_scheduled_ = false;
  bool last_rewrite_ok_ = true;
  uint64_t rewrites_ = 0;
  uint64_t rewrite_failures_ = 0;
  int64_t last_rewrite_duration_s_ = -1;
  uint64_t next_temp_ = 1;
  uint64_t current_size_ = 0;
  uint64_t base_size_ = 0;
};

}  // namespace keel
