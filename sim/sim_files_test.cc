// Tests for the simulated file system: syncs completing as events, a full disk, failed syncs,
// directories, and the crash model (sim/sim_env.h, SimFiles): unsynced bytes lost or torn at
// sectors, unsynced directory changes undone, all fixed by the seed. The properties run random
// histories through the crash and check them against what a real disk may keep.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/sim_env.h"

namespace keel::sim {
namespace {

constexpr size_t kSector = SimFiles::kSectorBytes;

// Whether `after` (a file after a crash) is what a disk may keep of `written` (its content at the
// crash) when its first `synced` bytes were durable: no longer than what was written, the synced
// bytes intact, and every other sector either as written or all zeros.
::testing::AssertionResult IsPrefixWithTears(const std::string& after, const std::string& written,
                                             size_t synced) {
  if (after.size() < synced) {
    return ::testing::AssertionFailure()
           << "lost synced bytes: " << after.size() << " < " << synced;
  }
  if (after.size() > written.size()) {
    return ::testing::AssertionFailure()
           << "longer than written: " << after.size() << " > " << written.size();
  }
  if (after.compare(0, synced, written, 0, synced) != 0) {
    return ::testing::AssertionFailure() << "synced bytes changed";
  }
  for (size_t from = synced; from < after.size();) {
    const size_t to = std::min(after.size(), (from / kSector + 1) * kSector);
    const bool kept = after.compare(from, to - from, written, from, to - from) == 0;
    const bool zero = after.find_first_not_of('\0', from) >= to;
    if (!kept && !zero) {
      return ::testing::AssertionFailure()
             << "sector at byte " << from << " is neither as written nor zeros";
    }
    from = to;
  }
  return ::testing::AssertionSuccess();
}

class SimFilesTest : public ::testing::Test {
 protected:
  SimFilesTest() : env_(11) {}
  SimFiles& files() { return env_.sim_files(); }
  Status Append(FileId file, std::string_view text) {
    const ConstSlice slice{text.data(), text.size()};
    return files().Append(file, &slice, 1);
  }
  size_t DeliverEvents(std::vector<Event>* out) {
    Event events[8];
    const size_t count = env_.Wait(0, events, 8);
    out->assign(events, events + count);
    return count;
  }
  // Requests a sync of `directory` and delivers it.
  void SyncDirectory(std::string_view directory) {
    ASSERT_TRUE(files().SyncDirectoryAsync(directory, 900).ok());
    std::vector<Event> events;
    ASSERT_EQ(DeliverEvents(&events), 1u);
    ASSERT_EQ(events[0].handle, 900u);
    ASSERT_EQ(events[0].status, StatusCode::kOk);
  }
  // Creates `path` with `content`, synced and closed (its directory entry not yet synced).
  void WriteSynced(const std::string& path, std::string_view content) {
    Result<FileId> file = files().Open(path, OpenMode::kCreateTruncate);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(Append(*file, content).ok());
    ASSERT_TRUE(files().SyncAsync(*file, 901).ok());
    std::vector<Event> events;
    ASSERT_EQ(DeliverEvents(&events), 1u);
    ASSERT_TRUE(files().Close(*file).ok());
  }
  std::string ContentOf(std::string_view path) {
    const std::string* content = files().Content(path);
    return content == nullptr ? "<missing>" : *content;
  }

  SimEnv env_;
};

TEST_F(SimFilesTest, ASyncMakesDataDurableWhenItCompletes) {
  Result<FileId> file = files().Open("dir/aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "one").ok());
  ASSERT_TRUE(files().SyncAsync(*file, 77).ok());
  ASSERT_TRUE(Append(*file, "two").ok());
  EXPECT_EQ(files().SyncedSize("dir/aof"), 0u);  // requested, not completed
  std::vector<Event> events;
  ASSERT_EQ(DeliverEvents(&events), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kFileSynced);
  EXPECT_EQ(events[0].handle, 77u);
  EXPECT_EQ(events[0].status, StatusCode::kOk);
  EXPECT_EQ(files().SyncedSize("dir/aof"), 3u);  // "two" came after the sync
}

TEST_F(SimFilesTest, ACrashKeepsSyncedBytesAndAPrefixOfTheRestWithTornSectors) {
  bool lost_all = false;
  bool kept_all = false;
  bool torn = false;       // a lost sector before a kept one
  bool zero_tail = false;  // the size kept, the last sector zeros
  std::string unsynced;
  for (int i = 0; unsynced.size() < 6 * kSector; i++) unsynced += "SET k" + std::to_string(i) + ";";
  const std::string durable = "SET a 1;";
  const std::string written = durable + unsynced;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    SimEnv env(seed);
    SimFiles& files = env.sim_files();
    Result<FileId> file = files.Open("aof", OpenMode::kAppend);
    ASSERT_TRUE(file.ok());
    ConstSlice slice{durable.data(), durable.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    ASSERT_TRUE(files.SyncAsync(*file, 1).ok());
    ASSERT_TRUE(files.SyncDirectoryAsync("", 2).ok());
    Event events[4];
    ASSERT_EQ(env.Wait(0, events, 4), 2u);
    slice = ConstSlice{unsynced.data(), unsynced.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    ASSERT_TRUE(files.SyncAsync(*file, 3).ok());  // never completes: the crash comes first
    files.Crash();
    const std::string* content = files.Content("aof");
    ASSERT_NE(content, nullptr);
    ASSERT_TRUE(IsPrefixWithTears(*content, written, durable.size())) << "seed " << seed;
    lost_all = lost_all || *content == durable;
    kept_all = kept_all || *content == written;
    bool seen_zero = false;
    for (size_t from = kSector; from < content->size(); from += kSector) {
      const bool zero = content->find_first_not_of('\0', from) >= from + kSector;
      if (!zero && seen_zero) torn = true;
      seen_zero = seen_zero || zero;
    }
    zero_tail = zero_tail || (content->size() > kSector && content->back() == '\0');
    EXPECT_EQ(env.Wait(0, events, 4), 0u);  // the pending sync died with the machine
    EXPECT_FALSE(files.Size(*file).ok());   // and so did the handle
  }
  EXPECT_TRUE(lost_all);
  EXPECT_TRUE(kept_all);
  EXPECT_TRUE(torn);
  EXPECT_TRUE(zero_tail);
}

TEST_F(SimFilesTest, ACrashIsFixedByTheSeed) {
  const auto run = [](uint64_t seed) {
    SimEnv env(seed);
    SimFiles& files = env.sim_files();
    std::string all;
    for (int f = 0; f < 4; f++) {
      const std::string path = "f" + std::to_string(f);
      Result<FileId> file = files.Open(path, OpenMode::kAppend);
      const std::string data(3000 + 100 * f, static_cast<char>('a' + f));
      const ConstSlice slice{data.data(), data.size()};
      EXPECT_TRUE(files.Append(*file, &slice, 1).ok());
    }
    EXPECT_TRUE(files.SyncDirectoryAsync("", 1).ok());
    Event events[2];
    env.Wait(0, events, 2);
    files.Crash();
    for (int f = 0; f < 4; f++) all += *files.Content("f" + std::to_string(f)) + "|";
    return all;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
}

TEST_F(SimFilesTest, AFullDiskTakesWhatFitsAndFails) {
  files().set_capacity_bytes(10);
  Result<FileId> file = files().Open("aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "12345678").ok());
  const Status full = Append(*file, "abcd");
  EXPECT_EQ(full.code(), StatusCode::kNoSpace);
  EXPECT_EQ(*files().Content("aof"), "12345678ab");
}

TEST_F(SimFilesTest, AFailedSyncReportsAnErrorAndMakesNothingDurable) {
  files().set_sync_failure_per_million(1'000'000);
  Result<FileId> file = files().Open("aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "data").ok());
  ASSERT_TRUE(files().SyncAsync(*file, 5).ok());
  std::vector<Event> events;
  ASSERT_EQ(DeliverEvents(&events), 1u);
  EXPECT_EQ(events[0].status, StatusCode::kIoError);
  EXPECT_EQ(files().SyncedSize("aof"), 0u);
  ASSERT_TRUE(files().SyncDirectoryAsync("", 6).ok());
  ASSERT_EQ(DeliverEvents(&events), 1u);
  EXPECT_EQ(events[0].status, StatusCode::kIoError);
  EXPECT_FALSE(files().EntryDurable("aof"));
}

TEST_F(SimFilesTest, ANewFileSurvivesACrashOnlyOnceItsDirectoryIsSynced) {
  WriteSynced("dump.rdb", "REDIS0010");
  EXPECT_EQ(files().SyncedSize("dump.rdb"), 9u);
  EXPECT_FALSE(files().EntryDurable("dump.rdb"));  // its data is synced, its name is not
  files().Crash();
  EXPECT_EQ(files().Content("dump.rdb"), nullptr);

  WriteSynced("dump.rdb", "REDIS0010");
  SyncDirectory("");
  EXPECT_TRUE(files().EntryDurable("dump.rdb"));
  files().Crash();
  EXPECT_EQ(ContentOf("dump.rdb"), "REDIS0010");
}

TEST_F(SimFilesTest, AnUnsyncedRenameRevertsAndASyncedOneStays) {
  // Redis's pattern: write a temporary file, sync it, rename it over the old one.
  WriteSynced("dump.rdb", "old");
  SyncDirectory("");
  WriteSynced("temp-1.rdb", "new");
  ASSERT_TRUE(files().Rename("temp-1.rdb", "dump.rdb").ok());
  EXPECT_EQ(ContentOf("dump.rdb"), "new");
  files().Crash();  // before Redis 7.0.3's directory fsync: the rename is lost
  EXPECT_EQ(ContentOf("dump.rdb"), "old");
  EXPECT_EQ(files().Content("temp-1.rdb"), nullptr);  // never in a synced directory

  WriteSynced("temp-2.rdb", "new");
  ASSERT_TRUE(files().Rename("temp-2.rdb", "dump.rdb").ok());
  SyncDirectory("");
  files().Crash();
  EXPECT_EQ(ContentOf("dump.rdb"), "new");
}

TEST_F(SimFilesTest, ADirectorySyncCoversTheDirectoryAsItWasWhenRequested) {
  WriteSynced("a", "A");
  ASSERT_TRUE(files().SyncDirectoryAsync("", 1).ok());
  ASSERT_TRUE(files().Rename("a", "b").ok());  // after the request: not covered by it
  std::vector<Event> events;
  ASSERT_EQ(DeliverEvents(&events), 1u);
  EXPECT_TRUE(files().EntryDurable("a") == false && files().EntryDurable("b") == false);
  files().Crash();
  EXPECT_EQ(ContentOf("a"), "A");
  EXPECT_EQ(files().Content("b"), nullptr);

  // A sync requested and not completed before the crash covers nothing.
  ASSERT_TRUE(files().Rename("a", "c").ok());
  ASSERT_TRUE(files().SyncDirectoryAsync("", 2).ok());
  files().Crash();
  EXPECT_EQ(ContentOf("a"), "A");
  EXPECT_EQ(files().Content("c"), nullptr);
}

TEST_F(SimFilesTest, AnUnsyncedRemoveComesBack) {
  WriteSynced("appendonly.aof.1.incr.aof", "*1\r\n$4\r\nPING\r\n");
  SyncDirectory("");
  ASSERT_TRUE(files().Remove("appendonly.aof.1.incr.aof").ok());
  EXPECT_EQ(files().Content("appendonly.aof.1.incr.aof"), nullptr);
  files().Crash();
  EXPECT_EQ(ContentOf("appendonly.aof.1.incr.aof"), "*1\r\n$4\r\nPING\r\n");
  ASSERT_TRUE(files().Remove("appendonly.aof.1.incr.aof").ok());
  SyncDirectory("");
  files().Crash();
  EXPECT_EQ(files().Content("appendonly.aof.1.incr.aof"), nullptr);
}

TEST_F(SimFilesTest, ARenameBetweenDirectoriesNeedsBothSynced) {
  WriteSynced("d1/x", "X");
  SyncDirectory("d1");
  ASSERT_TRUE(files().Rename("d1/x", "d2/x").ok());
  SyncDirectory("d2");  // only the target: both entries are on disk
  files().Crash();
  EXPECT_EQ(ContentOf("d1/x"), "X");
  EXPECT_EQ(ContentOf("d2/x"), "X");

  ASSERT_TRUE(files().Remove("d2/x").ok());
  SyncDirectory("d2");
  ASSERT_TRUE(files().Rename("d1/x", "d2/x").ok());
  SyncDirectory("d1");  // only the source: neither entry is on disk
  files().Crash();
  EXPECT_EQ(files().Content("d1/x"), nullptr);
  EXPECT_EQ(files().Content("d2/x"), nullptr);
}

TEST_F(SimFilesTest, ANewDirectoryNeedsItsParentSynced) {
  ASSERT_TRUE(files().CreateDirectory("appendonlydir").ok());
  EXPECT_EQ(files().CreateDirectory("appendonlydir").code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(files().DirectoryExists("appendonlydir"));
  WriteSynced("appendonlydir/appendonly.aof.manifest", "file x seq 1 type b\n");
  SyncDirectory("appendonlydir");
  EXPECT_FALSE(files().EntryDurable("appendonlydir/appendonly.aof.manifest"));
  Result<std::vector<std::string>> listing = files().ListDirectory("");
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(*listing, std::vector<std::string>{"appendonlydir"});
  files().Crash();  // the directory was never made durable in its parent: all of it is gone
  EXPECT_FALSE(files().DirectoryExists("appendonlydir"));
  EXPECT_EQ(files().Content("appendonlydir/appendonly.aof.manifest"), nullptr);

  ASSERT_TRUE(files().CreateDirectory("appendonlydir").ok());
  WriteSynced("appendonlydir/appendonly.aof.manifest", "file x seq 1 type b\n");
  SyncDirectory("appendonlydir");
  SyncDirectory("");
  EXPECT_TRUE(files().EntryDurable("appendonlydir/appendonly.aof.manifest"));
  files().Crash();
  EXPECT_TRUE(files().DirectoryExists("appendonlydir"));
  EXPECT_EQ(ContentOf("appendonlydir/appendonly.aof.manifest"), "file x seq 1 type b\n");
}

TEST_F(SimFilesTest, DirectoriesRefuseWhatIsNotOne) {
  WriteSynced("plain", "x");
  EXPECT_EQ(files().CreateDirectory("plain").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(files().SyncDirectoryAsync("plain", 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(files().ListDirectory("plain").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(files().SyncDirectoryAsync("missing", 1).code(), StatusCode::kNotFound);
  ASSERT_TRUE(files().CreateDirectory("d").ok());
  EXPECT_EQ(files().Open("d", OpenMode::kAppend).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(files().Rename("plain", "d").code(), StatusCode::kInvalidArgument);
  // A directory named in a path exists (as if made before the run) and lists its entries.
  WriteSynced("/data/keel/dump.rdb", "x");
  EXPECT_TRUE(files().DirectoryExists("/data"));
  EXPECT_TRUE(files().DirectoryExists("/data/keel/"));
  EXPECT_EQ(*files().ListDirectory("/data"), std::vector<std::string>{"keel"});
  EXPECT_EQ(*files().ListDirectory("/"), std::vector<std::string>{"data"});
  EXPECT_EQ(*files().ListDirectory(""), (std::vector<std::string>{"d", "plain"}));
}

TEST_F(SimFilesTest, AnOpenHandleFollowsItsFileThroughRenameAndRemove) {
  Result<FileId> file = files().Open("aof", OpenMode::kAppend);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(Append(*file, "one").ok());
  ASSERT_TRUE(files().Rename("aof", "aof.old").ok());
  ASSERT_TRUE(Append(*file, "two").ok());
  EXPECT_EQ(ContentOf("aof.old"), "onetwo");
  ASSERT_TRUE(files().Remove("aof.old").ok());
  ASSERT_TRUE(Append(*file, "three").ok());  // an unlinked file is still written
  EXPECT_EQ(*files().Size(*file), 11u);
  EXPECT_EQ(files().Content("aof"), nullptr);
  ASSERT_TRUE(files().Close(*file).ok());
}

TEST_F(SimFilesTest, AnUnsyncedTruncationIsUndoneOrKept) {
  bool undone = false;
  bool kept = false;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    SimEnv env(seed);
    SimFiles& files = env.sim_files();
    Result<FileId> file = files.Open("aof", OpenMode::kAppend);
    const std::string durable(1500, 'd');
    ConstSlice slice{durable.data(), durable.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    ASSERT_TRUE(files.SyncAsync(*file, 1).ok());
    ASSERT_TRUE(files.SyncDirectoryAsync("", 2).ok());
    Event events[4];
    ASSERT_EQ(env.Wait(0, events, 4), 2u);
    // Redis truncates a short AOF write back, then appends again.
    ASSERT_TRUE(files.Truncate(*file, 1000).ok());
    const std::string later(700, 'n');
    slice = ConstSlice{later.data(), later.size()};
    ASSERT_TRUE(files.Append(*file, &slice, 1).ok());
    const std::string written = *files.Content("aof");
    files.Crash();
    const std::string after = *files.Content("aof");
    if (after == durable) {
      undone = true;
    } else {
      kept = true;
      EXPECT_TRUE(IsPrefixWithTears(after, written, 1000)) << "seed " << seed;
    }
  }
  EXPECT_TRUE(undone);
  EXPECT_TRUE(kept);
}

// Properties ----------------------------------------------------------------------------------

// Appends of any size to several files, syncs requested and sometimes completed, then a crash:
// each file keeps at least what a completed sync covered and is a prefix-with-sector-tears of what
// was written.
RC_GTEST_PROP(SimFilesProperty, ACrashKeepsSyncedBytesAndTearsOnlyUnsyncedSectors, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  SimEnv env(seed);
  SimFiles& files = env.sim_files();
  constexpr int kFiles = 3;
  std::vector<FileId> handles;
  for (int f = 0; f < kFiles; f++) {
    Result<FileId> file = files.Open("d/f" + std::to_string(f), OpenMode::kAppend);
    RC_ASSERT(file.ok());
    handles.push_back(*file);
  }
  RC_ASSERT(files.SyncDirectoryAsync("d", 1000).ok());
  std::map<uint64_t, std::pair<int, size_t>> pending;  // token -> file, size it covers
  std::vector<size_t> acknowledged(kFiles, 0);
  uint64_t next_token = 1;
  // Delivers what has completed; returns whether the batch was full (more may be waiting).
  const auto deliver = [&]() {
    Event events[8];
    const size_t count = env.Wait(0, events, 8);
    for (size_t i = 0; i < count; i++) {
      auto it = pending.find(events[i].handle);
      if (it == pending.end()) continue;
      RC_ASSERT(events[i].status == StatusCode::kOk);
      const auto [file, size] = it->second;
      acknowledged[file] = std::max(acknowledged[file], size);
      pending.erase(it);
    }
    return count == 8;
  };
  const int steps = *rc::gen::inRange(1, 60);
  for (int step = 0; step < steps; step++) {
    const int f = *rc::gen::inRange(0, kFiles);
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
      case 1: {
        const size_t bytes = *rc::gen::weightedOneOf<size_t>(
            {{4, rc::gen::inRange<size_t>(0, 64)}, {3, rc::gen::inRange<size_t>(400, 1200)}});
        // Letters only: a zero byte in the file can only be a lost sector.
        const std::string data(bytes, static_cast<char>('a' + step % 26));
        const ConstSlice slice{data.data(), data.size()};
        RC_ASSERT(files.Append(handles[f], &slice, 1).ok());
        break;
      }
      case 2: {
        const uint64_t token = next_token++;
        RC_ASSERT(files.SyncAsync(handles[f], token).ok());
        pending[token] = {f, *files.Size(handles[f])};
        break;
      }
      default:
        deliver();
        break;
    }
  }
  // Some syncs are still in flight at the crash (the last steps requested them), or not.
  if (*rc::gen::arbitrary<bool>()) {
    while (deliver()) {
    }
  }
  for (int f = 0; f < kFiles; f++)
    RC_ASSERT(files.SyncedSize("d/f" + std::to_string(f)) == acknowledged[f]);
  // The directory sync is delivered by the first Wait: every name is durable, or no sync at all
  // was delivered, and then no file has a synced byte either.
  RC_ASSERT(files.EntryDurable("d/f0") || acknowledged == std::vector<size_t>(kFiles, 0));
  if (!files.EntryDurable("d/f0")) {
    RC_ASSERT(files.SyncDirectoryAsync("d", 1001).ok());
    while (deliver()) {
    }
  }
  std::vector<std::string> written;
  for (int f = 0; f < kFiles; f++) written.push_back(*files.Content("d/f" + std::to_string(f)));
  files.Crash();
  for (int f = 0; f < kFiles; f++) {
    const std::string* after = files.Content("d/f" + std::to_string(f));
    RC_ASSERT(after != nullptr);
    const ::testing::AssertionResult kept = IsPrefixWithTears(*after, written[f], acknowledged[f]);
    if (!kept) RC_FAIL("file " + std::to_string(f) + ": " + kept.message());
  }
}

// Random creations, renames and removals in two directories, with directory syncs requested and
// sometimes completed, then a crash: the names that come back, and what they hold, are exactly
// those of a model that applies each completed directory sync as the directory was when it was
// requested. Data is always synced first, so every file's content is its identity.
RC_GTEST_PROP(SimFilesProperty, ACrashRestoresTheNamesOfTheLastCompletedDirectorySyncs, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  SimEnv env(seed);
  SimFiles& files = env.sim_files();
  const std::vector<std::string> dirs = {"a", "b"};
  const std::vector<std::string> names = {"x", "y", "z"};
  using Namespace = std::map<std::string, std::string>;  // path -> content
  Namespace now;
  Namespace disk;
  std::map<uint64_t, std::pair<std::string, Namespace>> pending;  // token -> directory, entries
  const auto in_dir = [](const std::string& path, const std::string& dir) {
    return path.compare(0, dir.size() + 1, dir + "/") == 0;
  };
  const auto deliver = [&](size_t capacity) {
    Event events[4];
    const size_t count = env.Wait(0, events, std::min<size_t>(capacity, 4));
    for (size_t i = 0; i < count; i++) {
      auto it = pending.find(events[i].handle);
      if (it == pending.end()) continue;
      const auto& [dir, entries] = it->second;
      for (auto e = disk.begin(); e != disk.end();) e = in_dir(e->first, dir) ? disk.erase(e) : ++e;
      disk.insert(entries.begin(), entries.end());
      pending.erase(it);
    }
  };
  for (const std::string& dir : dirs) RC_ASSERT(files.CreateDirectory(dir).ok());
  RC_ASSERT(files.SyncDirectoryAsync("", 0).ok());
  deliver(4);
  uint64_t next_token = 1;
  int created = 0;
  const int steps = *rc::gen::inRange(1, 40);
  for (int step = 0; step < steps; step++) {
    const std::string path = *rc::gen::elementOf(dirs) + "/" + *rc::gen::elementOf(names);
    switch (*rc::gen::inRange(0, 5)) {
      case 0: {  // a new file, its data synced (and delivered, with whatever else is pending)
        const std::string content = "file" + std::to_string(created++);
        // Truncating an existing file would change data, not names: replace it instead.
        if (now.count(path) != 0) {
          RC_ASSERT(files.Remove(path).ok());
          now.erase(path);
        }
        Result<FileId> file = files.Open(path, OpenMode::kCreateTruncate);
        RC_ASSERT(file.ok());
        const ConstSlice slice{content.data(), content.size()};
        RC_ASSERT(files.Append(*file, &slice, 1).ok());
        RC_ASSERT(files.SyncAsync(*file, 0).ok());
        while (files.SyncedSize(path) != content.size()) deliver(4);
        RC_ASSERT(files.Close(*file).ok());
        now[path] = content;
        break;
      }
      case 1: {
        const std::string to = *rc::gen::elementOf(dirs) + "/" + *rc::gen::elementOf(names);
        const bool exists = now.count(path) != 0;
        RC_ASSERT(files.Rename(path, to).ok() == exists);
        if (exists && to != path) {
          now[to] = now[path];
          now.erase(path);
        }
        break;
      }
      case 2: {
        const bool exists = now.count(path) != 0;
        RC_ASSERT(files.Remove(path).ok() == exists);
        now.erase(path);
        break;
      }
      case 3: {
        const std::string dir = *rc::gen::elementOf(dirs);
        const uint64_t token = next_token++;
        RC_ASSERT(files.SyncDirectoryAsync(dir, token).ok());
        Namespace entries;
        for (const auto& [p, content] : now) {
          if (in_dir(p, dir)) entries[p] = content;
        }
        pending[token] = {dir, entries};
        break;
      }
      default:
        deliver(*rc::gen::inRange<size_t>(1, 4));
        break;
    }
  }
  files.Crash();
  Namespace after;
  for (const std::string& dir : dirs) {
    Result<std::vector<std::string>> listing = files.ListDirectory(dir);
    RC_ASSERT(listing.ok());
    for (const std::string& name : *listing) {
      after[dir + "/" + name] = *files.Content(dir + "/" + name);
    }
  }
  if (after != disk) {
    std::string text = "after the crash:";
    for (const auto& [path, content] : after) text += " " + path + "=" + content;
    text += "; the model's disk:";
    for (const auto& [path, content] : disk) text += " " + path + "=" + content;
    RC_FAIL(text);
  }
}

// A rename that no completed directory sync covers can revert: over seeds, a crash right after an
// unsynced rename brings the old name back every time, and a synced rename never reverts.
RC_GTEST_PROP(SimFilesProperty, UnsyncedRenamesRevertAndSyncedOnesStay, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const bool synced = *rc::gen::arbitrary<bool>();
  SimEnv env(seed);
  SimFiles& files = env.sim_files();
  Result<FileId> file = files.Open("temp-rewriteaof-bg.aof", OpenMode::kCreateTruncate);
  RC_ASSERT(file.ok());
  const std::string content = *rc::gen::nonEmpty(rc::gen::string<std::string>());
  const ConstSlice slice{content.data(), content.size()};
  RC_ASSERT(files.Append(*file, &slice, 1).ok());
  RC_ASSERT(files.SyncAsync(*file, 1).ok());
  RC_ASSERT(files.SyncDirectoryAsync("", 2).ok());
  Event events[4];
  RC_ASSERT(env.Wait(0, events, 4) == 2u);
  RC_ASSERT(files.Close(*file).ok());
  RC_ASSERT(files.Rename("temp-rewriteaof-bg.aof", "appendonly.aof").ok());
  if (synced) {
    RC_ASSERT(files.SyncDirectoryAsync("", 3).ok());
    RC_ASSERT(env.Wait(0, events, 4) == 1u);
  }
  files.Crash();
  const std::string* old_name = files.Content("temp-rewriteaof-bg.aof");
  const std::string* new_name = files.Content("appendonly.aof");
  const std::string* present = synced ? new_name : old_name;
  RC_ASSERT(present != nullptr);
  RC_ASSERT(*present == content);
  RC_ASSERT((synced ? old_name : new_name) == nullptr);
}

}  // namespace
}  // namespace keel::sim
