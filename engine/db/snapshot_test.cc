// The point-in-time snapshot (snapshot.h): whatever writes run between its steps, it saves every
// key exactly once, as the key was when the snapshot began.
#include "engine/db/snapshot.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel {
namespace {

using testing::CommandTest;
using testing::ConfigWith;

// What a saved key holds: its type, value bytes and expiry.
using Saved = std::tuple<int, std::string, int64_t>;
using Contents = std::map<std::pair<int, std::string>, Saved>;

Saved SavedOf(const Entry& entry) {
  return {static_cast<int>(entry.type()), std::string(entry.value()), entry.expire_at_ms()};
}

class Collector final : public SnapshotSink {
 public:
  void Save(int db, const Entry& entry) override {
    const bool fresh =
        saved.emplace(std::pair(db, std::string(entry.key())), SavedOf(entry)).second;
    if (!fresh) duplicates++;
  }
  Contents saved;
  int duplicates = 0;
};

class SnapshotTest : public CommandTest {
 protected:
  static constexpr int kDatabases = 3;

  void SetUp() override { StartEngine(ConfigWith({{"databases", "3"}})); }

  Contents Current() {
    Contents contents;
    for (int db = 0; db < kDatabases; db++) {
      engine_->database(db).ForEach([&](const Entry& entry) {
        contents.emplace(std::pair(db, std::string(entry.key())), SavedOf(entry));
      });
    }
    return contents;
  }

  // A random write (or read) of the keys k0..k11 in a random database.
  std::vector<std::string> RandomCommand() {
    const std::string key = "k" + std::to_string(*rc::gen::inRange(0, 12));
    const std::string other = "k" + std::to_string(*rc::gen::inRange(0, 12));
    const std::string db = std::to_string(*rc::gen::inRange(0, kDatabases));
    const std::string value = std::string(*rc::gen::inRange<size_t>(0, 60), 'v');
    switch (*rc::gen::inRange(0, 17)) {
      case 0:
        return {"set", key, value};
      case 1:
        return {"set", key, value, "px", *rc::gen::element<std::string>("30", "100000")};
      case 2:
        return {"del", key, other};
      case 3:
        return {"append", key, "tail"};
      case 4:
        return {"setrange", key, "3", "xyz"};
      case 5:
        return {"incr", key};
      case 6:
        return {"expire", key, "1000"};
      case 7:
        return {"persist", key};
      case 8:
        return {"rename", key, other};
      case 9:
        return {"move", key, db};
      case 10:
        return {"copy", key, other, "db", db, "replace"};
      case 11:
        return {"swapdb", db, "0"};
      case 12:
        return {"mset", key, value, other, "m"};
      case 13:
        return {"getdel", key};
      case 14:
        return {"select", db};
      case 15:
        return {"flushdb"};
      default:
        return *rc::gen::inRange(0, 20) == 0 ? std::vector<std::string>{"flushall"}
                                             : std::vector<std::string>{"get", key};
    }
  }
};

RC_GTEST_FIXTURE_PROP(SnapshotTest, SavesEveryKeyOnceAsItWasWhenItBegan, ()) {
  // Enough keys that the tables resize while the snapshot walks them.
  const int keys = *rc::gen::inRange(0, 300);
  for (int i = 0; i < keys; i++) {
    Run({"select", std::to_string(i % kDatabases)});
    const std::string key = "k" + std::to_string(i % 40);
    if (i % 7 == 0) {
      Run({"set", key, "short-lived", "px", std::to_string(1 + i % 20)});
    } else {
      Run({"set", key, std::string(static_cast<size_t>(i % 50), 'x')});
    }
  }
  Run({"select", "0"});
  const Contents expected = Current();
  Collector collector;
  {
    Snapshot snapshot(engine_->keyspace(), collector);
    int steps_max = 100000;
    while (steps_max-- > 0) {
      const int writes = *rc::gen::inRange(0, 4);
      for (int i = 0; i < writes; i++) Run(RandomCommand());
      // Time passes: keys expire, and lookups reclaim them.
      AdvanceMs(*rc::gen::element<int64_t>(0, 0, 10));
      if (!snapshot.Step(*rc::gen::inRange<size_t>(1, 20))) break;
    }
    RC_ASSERT(snapshot.done());
    RC_ASSERT(snapshot.pending_ahead() == 0u);
    // Writes after the end change nothing saved.
    for (int i = 0; i < 20; i++) Run(RandomCommand());
  }
  RC_ASSERT(collector.duplicates == 0);
  RC_ASSERT(collector.saved == expected);
}

TEST_F(SnapshotTest, AFlushedDatabaseIsStillSavedWhole) {
  for (int i = 0; i < 100; i++) Run({"set", "k" + std::to_string(i), "v"});
  const Contents expected = Current();
  Collector collector;
  Snapshot snapshot(engine_->keyspace(), collector);
  ASSERT_TRUE(snapshot.Step(4));
  Run({"flushall"});
  Run({"set", "k1", "new"});
  EXPECT_EQ(engine_->database(0).size(), 1u);
  while (snapshot.Step(4)) {
  }
  EXPECT_EQ(collector.saved, expected);
}

TEST_F(SnapshotTest, AKeyChangedAheadOfTheWalkIsSavedBeforeTheChange) {
  Run({"set", "a", "old"});
  Collector collector;
  Snapshot snapshot(engine_->keyspace(), collector);
  Run({"append", "a", "er"});
  // Saved at the change, before the walk got anywhere; the walk does not save it again.
  EXPECT_EQ(collector.saved.size(), 1u);
  while (snapshot.Step(1)) {
  }
  EXPECT_EQ(collector.duplicates, 0);
  EXPECT_EQ(std::get<1>(collector.saved.at({0, "a"})), "old");
  EXPECT_EQ(Run({"get", "a"}), testing::Bulk("older"));
}

}  // namespace
}  // namespace keel
