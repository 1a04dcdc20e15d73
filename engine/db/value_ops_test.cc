// The plumbing every object-typed value relies on, shown with a stand-in type (a vector of
// strings posing as a sorted set, before sorted sets exist): the entry owns its structure, the
// structure's memory is counted, and every path that frees, copies or moves a value does so
// exactly once. A leak or a double free here fails under ASan; a missed count fails the checks.
#include <gtest/gtest.h>

#include <new>
#include <string>
#include <vector>

#include "engine/db/database.h"
#include "engine/db/digest.h"
#include "engine/db/rdb_format.h"
#include "engine/db/value_ops.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

struct FakeObject {
  std::vector<std::string> items;
};

// Live stand-in objects, so that the test sees every create and destroy.
int live_objects = 0;

FakeObject* NewFake(MemoryAccountant& memory, std::vector<std::string> items) {
  void* block = memory.Allocate(sizeof(FakeObject), MemoryUse::kKeyspace);
  if (block == nullptr) return nullptr;
  live_objects++;
  return new (block) FakeObject{std::move(items)};
}

void FakeDestroy(Entry& entry, MemoryAccountant& memory) {
  auto* object = static_cast<FakeObject*>(EntryObject(entry));
  object->~FakeObject();
  memory.Deallocate(object, sizeof(FakeObject), MemoryUse::kKeyspace);
  live_objects--;
}

bool FakeCopy(const Entry& from, Entry& to, MemoryAccountant& memory) {
  const auto* object = static_cast<const FakeObject*>(EntryObject(from));
  FakeObject* copy = NewFake(memory, object->items);
  if (copy == nullptr) return false;
  SetEntryObject(to, copy);
  return true;
}

size_t FakeExternalBytes(const Entry& /*entry*/) { return sizeof(FakeObject); }
std::string_view FakeEncodingName(const Entry& /*entry*/) { return "fake"; }
void FakeSerialise(const Entry& entry, const SerialiseOptions& options, std::string* out) {
  out->push_back(static_cast<char>(99));
  const auto* object = static_cast<const FakeObject*>(EntryObject(entry));
  rdb::WriteLength(out, object->items.size());
  for (const std::string& item : object->items) rdb::WriteString(out, item, options.compress);
}
void FakeDigest(const Entry& entry, DigestBuilder& digest) {
  for (const std::string& item : static_cast<const FakeObject*>(EntryObject(entry))->items) {
    digest.Mix(item);
  }
}

constexpr ValueOps kFakeOps = {
    .type = ValueType::kStream,
    .destroy = FakeDestroy,
    .copy = FakeCopy,
    .external_bytes = FakeExternalBytes,
    .encoding_name = FakeEncodingName,
    .serialise = FakeSerialise,
    .digest = FakeDigest,
};

class ValueOpsTest : public ::testing::Test {
 protected:
  ValueOpsTest()
      : memory_(env_.memory()),
        slab_(memory_),
        db_(memory_, slab_, clock_, 7),
        other_(memory_, slab_, clock_, 8) {}
  void SetUp() override {
    // Every type has its table now: the fake takes the stream's place for the test.
    real_ops_ = OpsFor(ValueType::kStream);
    SetValueOpsForTesting(ValueType::kStream, &kFakeOps);
    live_objects = 0;
  }
  void TearDown() override {
    db_.Clear();
    other_.Clear();
    EXPECT_EQ(live_objects, 0);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace),
              slab_.live_bytes() + db_.table_bytes() + other_.table_bytes());
    SetValueOpsForTesting(ValueType::kStream, real_ops_);
  }

  void SetFake(Database& db, std::string_view key, std::vector<std::string> items,
               int64_t expire_at_ms = kNoExpiry) {
    FakeObject* object = NewFake(memory_, std::move(items));
    ASSERT_NE(object, nullptr);
    ASSERT_NE(db.SetObject(key, db.Hash(key), ValueType::kStream, ObjectEncoding::kSkiplist, object,
                           expire_at_ms),
              Database::SetOutcome::kOutOfMemory);
  }
  static const FakeObject& ObjectOf(const Entry* entry) {
    return *static_cast<const FakeObject*>(EntryObject(*entry));
  }

  const ValueOps* real_ops_ = nullptr;
  sim::SimEnv env_{1};
  MemoryAccountant memory_;
  SlabAllocator slab_;
  AccessClock clock_;
  Database db_;
  Database other_;
};

TEST_F(ValueOpsTest, EraseReplaceAndClearDestroyOnce) {
  SetFake(db_, "a", {"x", "y"});
  SetFake(db_, "b", {"z"});
  EXPECT_EQ(live_objects, 2);
  // Replaced by another object, then by a string: each old value goes once.
  SetFake(db_, "a", {"w"});
  EXPECT_EQ(live_objects, 2);
  ASSERT_EQ(db_.SetString("a", "now a string", kNoExpiry), Database::SetOutcome::kReplaced);
  EXPECT_EQ(live_objects, 1);
  EXPECT_TRUE(db_.Erase("b"));
  EXPECT_EQ(live_objects, 0);
  SetFake(db_, "c", {"1"});
  db_.Clear();
  EXPECT_EQ(live_objects, 0);
}

TEST_F(ValueOpsTest, ExpiryChangesMoveTheObjectWithoutCopying) {
  SetFake(db_, "a", {"x"});
  const FakeObject* before = &ObjectOf(db_.Find("a"));
  Entry* moved = db_.SetExpiry(db_.Find("a"), 123456);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(&ObjectOf(moved), before);
  moved = db_.SetExpiry(moved, kNoExpiry);
  EXPECT_EQ(&ObjectOf(moved), before);
  EXPECT_EQ(live_objects, 1);
}

TEST_F(ValueOpsTest, DeepCopyAndTransfer) {
  SetFake(db_, "a", {"x", "y"});
  const Entry* source = db_.Find("a");
  // COPY into another database: a second, equal structure.
  Entry* copy = other_.StoreCopy("a", other_.Hash("a"), *source, kNoExpiry);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(live_objects, 2);
  EXPECT_NE(&ObjectOf(copy), &ObjectOf(source));
  EXPECT_EQ(ObjectOf(copy).items, ObjectOf(source).items);
  // RENAME: the structure changes key, not count.
  const FakeObject* structure = &ObjectOf(source);
  Entry* renamed =
      db_.StoreCopy("b", db_.Hash("b"), *source, kNoExpiry, Database::CopyMode::kTransfer);
  ASSERT_NE(renamed, nullptr);
  EXPECT_TRUE(db_.Erase("a", db_.Hash("a"), Database::EraseMode::kKeepValue));
  EXPECT_EQ(&ObjectOf(db_.Find("b")), structure);
  EXPECT_EQ(live_objects, 2);
}

TEST_F(ValueOpsTest, RefusedCopyLeavesNothingBehind) {
  SetFake(db_, "a", {"x"});
  const size_t used_before = memory_.used_bytes_total();
  // Refuse the copy's structure (the entry block comes from a slab page already held).
  env_.sim_memory().set_limit_bytes(env_.sim_memory().used_bytes());
  Entry* copy = other_.StoreCopy("a", other_.Hash("a"), *db_.Find("a"), kNoExpiry);
  env_.sim_memory().set_limit_bytes(0);
  EXPECT_EQ(copy, nullptr);
  EXPECT_EQ(other_.size(), 0u);
  EXPECT_EQ(live_objects, 1);
  EXPECT_LE(memory_.used_bytes_total(), used_before + other_.table_bytes());
}

TEST_F(ValueOpsTest, TheTableAnswersForTheType) {
  SetFake(db_, "a", {"x", "y"});
  const Entry& entry = *db_.Find("a");
  EXPECT_EQ(EncodingNameOf(entry), "fake");
  EXPECT_EQ(ExternalBytesOf(entry), sizeof(FakeObject));
  std::string serialised;
  SerialiseValue(entry, {}, &serialised);
  EXPECT_EQ(serialised, std::string("\x63\x02\x01x\x01y", 6));
  DigestBuilder digest;
  DigestEntry(entry, digest);
  DigestBuilder expected;
  const char type[4] = {0, 0, 0, 6};  // OBJ_STREAM, the fake's type here
  expected.Mix(std::string_view(type, 4));
  expected.Mix("x");
  expected.Mix("y");
  EXPECT_EQ(digest.Hex(), expected.Hex());
}

}  // namespace
}  // namespace keel
