// KeyspaceObserver: what is told about every write of the keyspace (keyspace.h), before and after.
//
// Every creation, change and deletion of a key goes through Keyspace, which tells its observers:
//   before:  BeforeKeyChange, so that a point-in-time snapshot in progress can serialise the key
//            while it still holds the value the snapshot must see (snapshot.h); BeforeFlush, so
//            that it can keep a database that is about to be emptied; DatabaseFlushing, so that
//            WATCH can see which watched keys a flush removes;
//   after:   KeyTouched (WATCH, client-tracking invalidation: Redis's signalModifiedKey),
//            DatabaseFlushed and DatabasesSwapped (signalFlushedDb, SWAPDB's touch of both), and
//            KeyEventFired (keyspace notifications) for the classes notify-keyspace-events enables.
// The dirty counter and propagation are the keyspace's own (Keyspace::dirty(), propagation.h).
//
// Observers run inside the write: they must not write the keyspace themselves. Every method has an
// empty default, so an observer overrides only what it needs.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace keel {

class Database;

class KeyspaceObserver {
 public:
  virtual ~KeyspaceObserver() = default;

  // `key` (whose hash in `db` is `hash`) is about to be created, changed or deleted; `db` still
  // holds its old state (the key may not exist yet). Called at most once per write, possibly
  // more than once per command (a write lookup announces the key it may change).
  virtual void BeforeKeyChange(const Database& /*db*/, std::string_view /*key*/,
                               uint64_t /*hash*/) {}

  // Every key of `*db` is about to go (FLUSHDB, FLUSHALL). An observer that still needs the
  // contents may take the database: it then owns it, and the keyspace continues with an empty
  // one in its place. The first observer to take it gets it.
  virtual void BeforeFlush(std::unique_ptr<Database>* /*db*/) {}
  // Database `db_index` (still holding its keys) is about to be emptied: WATCH breaks the
  // watches of keys it holds (Redis's signalFlushedDb runs while the keys are still there).
  virtual void DatabaseFlushing(int /*db_index*/, const Database& /*db*/) {}

  // After a write.
  virtual void KeyTouched(int /*db_index*/, std::string_view /*key*/) {}
  virtual void DatabaseFlushed(int /*db_index*/) {}
  // Once per FLUSHDB (`db_index`) or FLUSHALL (-1), and per load that empties the dataset, after
  // the databases' own DatabaseFlushed: client tracking's one null invalidation (Redis's
  // trackingInvalidateKeysOnFlush, called once by signalFlushedDb).
  virtual void FlushSignalled(int /*db_index*/) {}
  virtual void DatabasesSwapped(int /*first*/, int /*second*/) {}
  virtual void KeyEventFired(int /*db_index*/, uint32_t /*type_class*/, std::string_view /*event*/,
                             std::string_view /*key*/) {}
};

}  // namespace keel
