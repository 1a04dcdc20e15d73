// Persistence: RDB snapshots written without fork, and the file loaded at start.
//
// A save is a job that moves through the event loop, never blocking it:
//   snapshot  a Snapshot (engine/db/snapshot.h) walks the keyspace a part per loop iteration
//             while clients go on writing; each part's RDB bytes are appended to temp-N.rdb;
//   sync      the file is synced (SyncAsync) and, once that completed, closed and renamed to
//             dbfilename;
//   dir sync  the directory is synced (SyncDirectoryAsync), so that the rename survives a power
//             loss (Redis 7.0.3's fix); only then is the save done: LASTSAVE moves, the changes
//             it covered leave the dirty counter, and the clients waiting for it get their reply.
// SAVE, DEBUG RELOAD and SHUTDOWN walk the whole snapshot inside the command (the file holds the
// keyspace of that instant, as Redis's blocking save does), then their client waits for the
// sync: no reply says "saved" before the file is durable. BGSAVE and the save rules leave the
// walk to the loop. A failure at any step removes the temporary file, records the error (INFO
// rdb_last_bgsave_status; with stop-writes-on-bgsave-error, writes are refused with MISCONF)
// and answers the waiting clients with an error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/db/rdb_file.h"
#include "engine/env/env.h"

namespace keel {

class Client;
class Engine;

// Reads the whole file at `path` into `*bytes` (kNotFound when it does not exist).
Status ReadWholeFile(FileSystem& files, std::string_view path, std::string* bytes);

class Persistence {
 public:
  explicit Persistence(Engine& engine);
  ~Persistence();
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  // Loads `dir`/`dbfilename` when it exists (a missing file is an empty dataset). Fails, after
  // logging why, when the file cannot be read or is corrupt: the server must not start.
  Status LoadAtStartup();

  // Why a save runs: it decides the log lines and what its waiting client gets.
  enum class Trigger : uint8_t {
    kBgsave,    // BGSAVE, the save rules, a scheduled BGSAVE: nobody waits
    kSave,      // SAVE: its client gets +OK or -ERR once the file is durable
    kReload,    // DEBUG RELOAD: likewise (the keyspace was reloaded in the command)
    kShutdown,  // SHUTDOWN or a signal: the server exits once the file is durable
  };
  // Starts a save; `waiter` (may be null) waits for it (SAVE, DEBUG RELOAD, SHUTDOWN). Every
  // trigger but kBgsave walks the whole snapshot now. Returns "" or Redis's error text (a save
  // already runs, the temporary file cannot be created).
  std::string StartSave(Trigger trigger, Client* waiter);
  // Saves `bytes` (a whole RDB file, made by SerialiseSnapshotFile) as SAVE would (DEBUG RELOAD).
  std::string StartSaveOf(std::string bytes, Trigger trigger, Client* waiter);
  bool save_in_progress() const { return job_ != nullptr; }
  bool background_save_in_progress() const;
  // BGSAVE SCHEDULE, or BGSAVE inside MULTI: a background save starts from cron when none runs.
  void ScheduleBackgroundSave() { scheduled_ = true; }
  // SHUTDOWN FORCE: the server exits even when its final save fails.
  void set_shutdown_force(bool force) { shutdown_force_ = force; }
  bool shutdown_force() const { return shutdown_force_; }
  // A signal asked the server to stop: with save rules, a final save runs first (and the server
  // stays up if it fails, as Redis 7.0's does); otherwise it stops now.
  void BeginShutdown();
  // Abandons the running save (its temporary file is removed, its waiters get an error).
  void AbortSave(std::string_view reason);

  // DEBUG RELOAD's first half, and a full sync's file: the keyspace serialised as an RDB file in
  // memory. `functions_only` leaves the keys out (REPLCONF rdb-filter-only functions).
  std::string SerialiseKeyspace(bool functions_only = false);
  // DEBUG RELOAD's: the keyspace as SAVE would write it under rdb-compression-algorithm (with
  // zstd, the RDB stream compressed a piece at a time as it is made). "" with `*error` set when
  // zstd fails.
  std::string SerialiseSnapshotFile(std::string* error);
  // Loads `bytes` (a whole RDB file) into the keyspace, replacing it (and the function
  // libraries) unless `merge` (then duplicated keys replace the existing ones, as with DEBUG
  // RELOAD NOFLUSH). A library whose name exists replaces it only when `replace_functions`
  // (DEBUG RELOAD MERGE, Redis's RDBFLAGS_ALLOW_DUP); else it fails the load, as in Redis. False
  // after logging; the keyspace is then empty (a file never loads half).
  bool LoadBytes(std::string_view bytes, bool merge, RdbLoadResult* result,
                 bool replace_functions = false);
  // Reads the whole file `dbfilename` into `*bytes`.
  Status ReadFile(std::string* bytes);
  // Loads the file `dbfilename` as LoadBytes loads bytes: a zstd snapshot is decompressed as it
  // is read from the file (its plain form is never in memory whole), an RDB file is read whole.
  // kNotFound (nothing logged, nothing changed) when there is no file; another error when it
  // cannot be read or does not load (logged; the keyspace is then empty).
  Status LoadFile(bool merge, RdbLoadResult* result, bool replace_functions = false);

  // The loop's part: steps the snapshot of a running background save and writes what it made.
  void Pump();
  // Whether Pump has work now (the loop must not sleep).
  bool wants_pump() const;
  // A kFileSynced event: the sync with `token` completed with `code`.
  void OnFileSynced(uint64_t token, StatusCode code);
  // The save rules and a scheduled BGSAVE (from the engine's cron).
  void Cron();
  // A waiting client is being freed: it no longer waits.
  void ForgetClient(const Client& client);

  // Whether writes are refused because the last background save failed (Redis's
  // writeCommandsDeniedByDiskError for RDB).
  bool writes_denied() const { return !last_save_ok_ && DeniesWritesAfterFailedSave(); }

  // INFO persistence and LASTSAVE.
  int64_t last_save_s() const { return last_save_s_; }
  void set_last_save_s(int64_t seconds) { last_save_s_ = seconds; }
  bool last_save_ok() const { return last_save_ok_; }
  int64_t last_save_duration_s() const { return last_save_duration_s_; }
  int64_t current_save_duration_s() const;
  uint64_t saves() const { return saves_; }
  uint64_t current_keys_processed() const;
  uint64_t current_keys_total() const;
  uint64_t last_load_keys_loaded() const { return last_load_keys_loaded_; }
  uint64_t last_load_keys_expired() const { return last_load_keys_expired_; }

  // How RDB files are written and loaded under the configuration in force (the AOF's RDB base
  // files too).
  RdbWriteOptions WriteOptions() const;
  RdbLoadOptions LoadOptions() const;
  // Whether SAVE, BGSAVE, SHUTDOWN and DEBUG RELOAD write a zstd snapshot, and the options of
  // its RDB stream: strings are left to zstd rather than LZF-compressed one by one (zstd then
  // finds the repeats across keys; bench/harness/snapshot_compression.py measured the files).
  bool zstd_snapshot() const;
  RdbWriteOptions SnapshotWriteOptions() const;

  // The path of `name` in `dir`, and the directory itself ("." for the working directory).
  std::string PathOf(std::string_view name) const;
  std::string Directory() const;

 private:
  struct Job;
  // Opens the temporary file of a new job; "" or the error to reply.
  std::string OpenJob(std::unique_ptr<Job> job, Trigger trigger, Client* waiter);
  // Steps the snapshot and appends what it produced: one loop iteration's share when `paced`
  // (snapshot_pace.h), else a piece of kBytesPerAppend (SAVE's walk inside the command).
  // Returns whether the walk goes on.
  bool Advance(bool paced);
  // The walk is over: the trailer, then the file sync.
  void FinishWalk();
  void Succeed();
  // Ends the job with its temporary file removed; `failed` (not for a save stopped on purpose,
  // as Redis's killRDBChild) records the failure for INFO and MISCONF.
  void Fail(std::string_view log_line, bool failed = true);
  // Answers the waiting client, if it is still there, and lets it go on.
  void Release(bool ok);
  // LoadBytes's work around a loader of the file's keys (`load` fills `*result`).
  template <typename LoadKeys>
  bool LoadWith(LoadKeys&& load, bool merge, RdbLoadResult* result, bool replace_functions);

  Engine& engine_;
  std::unique_ptr<Job> job_;
  uint64_t next_token_ = 1;
  uint64_t next_temp_ = 1;
  bool scheduled_ = false;
  bool shutdown_force_ = false;
  int64_t last_save_s_ = 0;
  int64_t last_try_s_ = 0;
  bool last_save_ok_ = true;
  // stop-writes-on-bgsave-error with save rules: whether a failed save refuses writes.
  bool DeniesWritesAfterFailedSave() const;
  int64_t last_save_duration_s_ = -1;
  uint64_t saves_ = 0;
  uint64_t last_load_keys_loaded_ = 0;
  uint64_t last_load_keys_expired_ = 0;
};

}  // namespace keel
