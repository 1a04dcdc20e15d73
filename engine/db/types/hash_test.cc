#include "engine/db/types/hash.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/db/rdb_format.h"
#include "engine/db/types/hash_ops.h"
#include "engine/db/types/listpack.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Builds hashes over a counted memory, and checks at the end that every byte came back.
class HashValueTest : public ::testing::Test {
 protected:
  HashValueTest() : memory_(resource_) {}
  void TearDown() override {
    for (HashValue* hash : hashes_) HashValue::Destroy(hash, memory_);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace), 0u);
    EXPECT_EQ(resource_.used_bytes(), 0u);
  }
  HashValue* NewHash() {
    HashValue* hash = HashValue::Create(memory_, 42);
    hashes_.push_back(hash);
    return hash;
  }
  static Pairs PairsOf(const HashValue& hash) {
    Pairs pairs;
    hash.ForEach([&](std::string_view f, std::string_view v) { pairs.emplace_back(f, v); });
    return pairs;
  }
  sim::SimMemory resource_;
  MemoryAccountant memory_;
  std::vector<HashValue*> hashes_;
};

TEST_F(HashValueTest, ListpackKeepsInsertionOrderThroughUpdates) {
  HashValue* hash = NewHash();
  EXPECT_EQ(hash->Set("a", "1", memory_), HashValue::SetOutcome::kInserted);
  EXPECT_EQ(hash->Set("b", "2", memory_), HashValue::SetOutcome::kInserted);
  EXPECT_EQ(hash->Set("c", "3", memory_), HashValue::SetOutcome::kInserted);
  // Same size in place, another size rewritten in place: the order stays.
  EXPECT_EQ(hash->Set("b", "9", memory_), HashValue::SetOutcome::kUpdated);
  EXPECT_EQ(hash->Set("a", "a longer value", memory_), HashValue::SetOutcome::kUpdated);
  EXPECT_EQ(hash->Set("c", "", memory_), HashValue::SetOutcome::kUpdated);
  EXPECT_TRUE(hash->is_listpack());
  EXPECT_EQ(PairsOf(*hash), (Pairs{{"a", "a longer value"}, {"b", "9"}, {"c", ""}}));
  EXPECT_TRUE(hash->Remove("b", memory_));
  EXPECT_FALSE(hash->Remove("b", memory_));
  EXPECT_EQ(PairsOf(*hash), (Pairs{{"a", "a longer value"}, {"c", ""}}));
  std::string_view value;
  EXPECT_TRUE(hash->Get("c", &value));
  EXPECT_EQ(value, "");
  EXPECT_FALSE(hash->Get("b", &value));
  EXPECT_TRUE(hash->CheckInvariants());
}

TEST_F(HashValueTest, LargeHashThroughGrowthUpdatesAndShrinking) {
  HashValue* hash = NewHash();
  ASSERT_TRUE(hash->ConvertToHashtable(0, memory_));
  constexpr int kCount = 20000;
  for (int i = 0; i < kCount; i++) {
    ASSERT_EQ(hash->Set("field:" + std::to_string(i), std::to_string(i), memory_),
              HashValue::SetOutcome::kInserted);
  }
  // Updates of another size leave dead records that rebuilds compact.
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < kCount; i += 3) {
      ASSERT_EQ(hash->Set("field:" + std::to_string(i), std::string(round + 5, 'x'), memory_),
                HashValue::SetOutcome::kUpdated);
    }
  }
  EXPECT_TRUE(hash->CheckInvariants());
  std::string_view value;
  ASSERT_TRUE(hash->Get("field:3", &value));
  EXPECT_EQ(value, "xxxxxxx");
  ASSERT_TRUE(hash->Get("field:4", &value));
  EXPECT_EQ(value, "4");
  for (int i = 0; i < kCount; i++) {
    if (i % 50 != 0) {
      ASSERT_TRUE(hash->Remove("field:" + std::to_string(i), memory_));
    }
  }
  EXPECT_EQ(hash->size(), static_cast<size_t>(kCount / 50));
  EXPECT_TRUE(hash->CheckInvariants());
  EXPECT_LT(hash->allocated_bytes(), size_t{64} * 1024);
}

TEST_F(HashValueTest, ScanVisitsEveryPairAcrossResizes) {
  HashValue* hash = NewHash();
  ASSERT_TRUE(hash->ConvertToHashtable(0, memory_));
  for (int i = 0; i < 1000; i++) hash->Set("f" + std::to_string(i), "v", memory_);
  std::map<std::string, int> seen;
  uint64_t cursor = 0;
  int calls = 0;
  do {
    cursor = hash->Scan(cursor, 10,
                        [&](std::string_view f, std::string_view) { seen[std::string(f)]++; });
    // Grow the table under the scan: fields present throughout are still visited.
    if (++calls == 5) {
      for (int i = 1000; i < 3000; i++) hash->Set("g" + std::to_string(i), "v", memory_);
    }
  } while (cursor != 0 && calls < 100000);
  for (int i = 0; i < 1000; i++) EXPECT_GE(seen["f" + std::to_string(i)], 1) << i;
}

TEST_F(HashValueTest, RefusedMemoryLeavesTheHashUnchanged) {
  HashValue* hash = NewHash();
  for (int i = 0; i < 10; i++) hash->Set("f" + std::to_string(i), "v", memory_);
  const Pairs before = PairsOf(*hash);
  resource_.set_limit_bytes(resource_.used_bytes());
  EXPECT_EQ(hash->Set("new", "value", memory_), HashValue::SetOutcome::kOutOfMemory);
  EXPECT_EQ(hash->Set("f1", "a longer value", memory_), HashValue::SetOutcome::kOutOfMemory);
  EXPECT_FALSE(hash->ConvertToHashtable(10, memory_));
  EXPECT_TRUE(hash->is_listpack());
  EXPECT_EQ(PairsOf(*hash), before);
  // Same-size updates and removals need nothing.
  EXPECT_EQ(hash->Set("f1", "w", memory_), HashValue::SetOutcome::kUpdated);
  EXPECT_TRUE(hash->Remove("f2", memory_));
  resource_.set_limit_bytes(0);
  EXPECT_TRUE(hash->CheckInvariants());
}

TEST_F(HashValueTest, CloneIsEqualAndIndependent) {
  HashValue* hash = NewHash();
  for (int i = 0; i < 100; i++) hash->Set("f" + std::to_string(i), std::to_string(i), memory_);
  ASSERT_TRUE(hash->ConvertToHashtable(100, memory_));
  HashValue* copy = HashValue::Clone(*hash, memory_);
  ASSERT_NE(copy, nullptr);
  hashes_.push_back(copy);
  EXPECT_EQ(PairsOf(*copy), PairsOf(*hash));
  copy->Set("f1", "changed", memory_);
  std::string_view value;
  ASSERT_TRUE(hash->Get("f1", &value));
  EXPECT_EQ(value, "1");
  EXPECT_TRUE(copy->CheckInvariants());
}

std::string ListpackOf(const std::vector<std::string>& elements) {
  size_t bytes = listpack::kEmptyBytes;
  for (const std::string& e : elements) bytes += listpack::EntryBytes(e);
  std::string blob(bytes, '\0');
  auto* out = reinterpret_cast<unsigned char*>(blob.data());
  size_t at = listpack::kHeaderBytes;
  for (const std::string& e : elements) {
    listpack::WriteEntry(e, out + at);
    at += listpack::EntryBytes(e);
  }
  out[at] = listpack::kEnd;
  listpack::SetHeader(out, static_cast<uint32_t>(bytes), elements.size());
  return blob;
}

// DUMP's bytes for a listpack hash as redis-server 7.0.15 writes them (HSET h a 1 bb xyz):
// RDB_TYPE_HASH_LISTPACK, then the listpack as a string.
TEST_F(HashValueTest, ListpackRdbFormMatchesRedis) {
  const std::string payload(
      "\x10\x15\x15\x00\x00\x00\x04\x00\x81\x61\x02\x01\x01\x82\x62\x62\x03\x83\x78\x79\x7a\x04"
      "\xff",
      23);
  rdb::Reader reader(std::string_view(payload).substr(1));
  HashValue* loaded = nullptr;
  ASSERT_EQ(LoadHash(rdb::kTypeHashListpack, reader, {}, 7, memory_, &loaded), LoadStatus::kLoaded);
  hashes_.push_back(loaded);
  EXPECT_TRUE(loaded->is_listpack());
  EXPECT_EQ(PairsOf(*loaded), (Pairs{{"a", "1"}, {"bb", "xyz"}}));
  // Limits smaller than the hash: loaded as a hashtable.
  rdb::Reader again(std::string_view(payload).substr(1));
  HashValue* converted = nullptr;
  ASSERT_EQ(
      LoadHash(rdb::kTypeHashListpack, again, {.listpack_entries = 1}, 7, memory_, &converted),
      LoadStatus::kLoaded);
  hashes_.push_back(converted);
  EXPECT_FALSE(converted->is_listpack());
  // A repeated field, an odd count and an empty listpack are corrupt.
  for (const std::vector<std::string>& elements :
       {std::vector<std::string>{"a", "1", "a", "2"}, std::vector<std::string>{"a", "1", "b"},
        std::vector<std::string>{}}) {
    const std::string blob = ListpackOf(elements);
    std::string bad;
    rdb::WriteString(&bad, blob, false);
    rdb::Reader reader_bad(bad);
    HashValue* none = nullptr;
    EXPECT_EQ(LoadHash(rdb::kTypeHashListpack, reader_bad, {}, 7, memory_, &none),
              LoadStatus::kCorrupt);
    EXPECT_EQ(none, nullptr);
  }
}

// Against std::map: random sets, updates and removes, any limits, memory refused at random; the
// hash must hold what the model holds, in a valid layout, after every step.
RC_GTEST_PROP(HashValueProperty, BehavesLikeAMap, ()) {
  sim::SimMemory resource;
  MemoryAccountant memory(resource);
  HashValue* hash = HashValue::Create(memory, *rc::gen::arbitrary<uint64_t>());
  RC_ASSERT(hash != nullptr);
  const bool table = *rc::gen::arbitrary<bool>();
  if (table) RC_ASSERT(hash->ConvertToHashtable(0, memory));
  std::map<std::string, std::string> model;
  const int steps = *rc::gen::inRange(1, 400);
  for (int step = 0; step < steps; step++) {
    const std::string field = "f" + std::to_string(*rc::gen::inRange(0, 150));
    const std::string value(*rc::gen::inRange(0, 200), static_cast<char>('a' + step % 26));
    const bool refuse = *rc::gen::inRange(0, 20) == 0;
    if (refuse) resource.set_limit_bytes(resource.used_bytes());
    if (*rc::gen::inRange(0, 3) != 0) {
      const HashValue::SetOutcome outcome = hash->Set(field, value, memory);
      if (outcome == HashValue::SetOutcome::kOutOfMemory) {
        RC_ASSERT(refuse);
      } else {
        const bool inserted = model.find(field) == model.end();
        RC_ASSERT((outcome == HashValue::SetOutcome::kInserted) == inserted);
        model[field] = value;
      }
    } else {
      RC_ASSERT(hash->Remove(field, memory) == (model.erase(field) == 1));
    }
    resource.set_limit_bytes(0);
    RC_ASSERT(hash->CheckInvariants());
    RC_ASSERT(hash->size() == model.size());
  }
  std::map<std::string, std::string> held;
  hash->ForEach([&](std::string_view f, std::string_view v) {
    RC_ASSERT(held.emplace(std::string(f), std::string(v)).second);
  });
  RC_ASSERT(held == model);
  HashValue::Destroy(hash, memory);
  RC_ASSERT(memory.used_bytes(MemoryUse::kKeyspace) == 0u);
}

// Field TTLs: the side table comes with the first TTL and goes with the last, the seed (and so
// a hashtable's order) never changes, and ExpireFields removes exactly the fields past their time.
TEST_F(HashValueTest, FieldTtlsComeAndGo) {
  HashValue* hash = NewHash();
  ASSERT_TRUE(hash->ConvertToHashtable(0, memory_));
  for (int i = 0; i < 40; i++) {
    ASSERT_NE(hash->Set("f" + std::to_string(i), "v", memory_),
              HashValue::SetOutcome::kOutOfMemory);
  }
  const Pairs order = PairsOf(*hash);
  const size_t bytes = hash->allocated_bytes();
  EXPECT_FALSE(hash->has_field_ttls());
  EXPECT_EQ(hash->FieldExpireAt("f1"), HashValue::kNoFieldTtl);
  ASSERT_TRUE(hash->SetFieldExpireAt("f1", 100, memory_));
  ASSERT_TRUE(hash->SetFieldExpireAt("f2", 50, memory_));
  ASSERT_TRUE(hash->SetFieldExpireAt("f3", 200, memory_));
  EXPECT_EQ(hash->hash_seed(), 42u);
  EXPECT_EQ(PairsOf(*hash), order);
  EXPECT_EQ(hash->field_ttl_count(), 3u);
  EXPECT_EQ(hash->min_field_expire(), 50);
  EXPECT_TRUE(hash->CheckInvariants());
  // A clone carries them.
  HashValue* copy = HashValue::Clone(*hash, memory_);
  ASSERT_NE(copy, nullptr);
  hashes_.push_back(copy);
  EXPECT_EQ(copy->FieldExpireAt("f3"), 200);
  // At 100 only f2 is past (a field lives through its expiry millisecond).
  std::vector<std::string> expired;
  EXPECT_EQ(hash->ExpireFields(100, SIZE_MAX, memory_,
                               [&](std::string_view field) { expired.emplace_back(field); }),
            1u);
  EXPECT_EQ(expired, std::vector<std::string>{"f2"});
  EXPECT_FALSE(hash->Contains("f2"));
  EXPECT_EQ(hash->min_field_expire(), 100);
  EXPECT_TRUE(hash->Remove("f1", memory_));  // the TTL goes with the field
  EXPECT_EQ(hash->field_ttl_count(), 1u);
  EXPECT_TRUE(hash->PersistField("f3", memory_));
  EXPECT_FALSE(hash->PersistField("f3", memory_));
  EXPECT_FALSE(hash->has_field_ttls());
  EXPECT_EQ(hash->hash_seed(), 42u);
  EXPECT_LE(hash->allocated_bytes(), bytes);
  EXPECT_TRUE(hash->CheckInvariants());
  // Refused memory: the first TTL is not set and nothing changes.
  resource_.set_limit_bytes(resource_.used_bytes());
  EXPECT_FALSE(hash->SetFieldExpireAt("f4", 10, memory_));
  resource_.set_limit_bytes(0);
  EXPECT_FALSE(hash->has_field_ttls());
  EXPECT_TRUE(hash->CheckInvariants());
}

// Redis 7.4's RDB_TYPE_HASH_METADATA round trip, and RDB_TYPE_HASH_LISTPACK_EX (field, value,
// ttl triplets after the minimum) as Redis writes a small hash with TTLs.
TEST_F(HashValueTest, FieldTtlRdbForms) {
  HashValue* hash = NewHash();
  ASSERT_NE(hash->Set("a", "1", memory_), HashValue::SetOutcome::kOutOfMemory);
  ASSERT_NE(hash->Set("b", "2", memory_), HashValue::SetOutcome::kOutOfMemory);
  ASSERT_TRUE(hash->SetFieldExpireAt("b", 1700000000123, memory_));
  std::string out;
  // The serialiser's layout, written by hand: min, count, (ttl - min + 1 | 0, field, value)...
  out.push_back(static_cast<char>(rdb::kTypeHashMetadata));
  for (int i = 0; i < 8; i++) out.push_back(static_cast<char>(1700000000123ull >> (8 * i)));
  rdb::WriteLength(&out, 2);
  rdb::WriteLength(&out, 0);
  rdb::WriteString(&out, "a", false);
  rdb::WriteString(&out, "1", false);
  rdb::WriteLength(&out, 1);
  rdb::WriteString(&out, "b", false);
  rdb::WriteString(&out, "2", false);
  rdb::Reader reader(std::string_view(out).substr(1));
  HashValue* loaded = nullptr;
  ASSERT_EQ(LoadHash(rdb::kTypeHashMetadata, reader, {}, 7, memory_, &loaded), LoadStatus::kLoaded);
  hashes_.push_back(loaded);
  EXPECT_EQ(PairsOf(*loaded), (Pairs{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(loaded->FieldExpireAt("a"), HashValue::kNoFieldTtl);
  EXPECT_EQ(loaded->FieldExpireAt("b"), 1700000000123);
  // The listpack form: fields ordered by TTL, 0 for none.
  std::string ex;
  for (int i = 0; i < 8; i++) ex.push_back(static_cast<char>(1700000000123ull >> (8 * i)));
  rdb::WriteString(&ex, ListpackOf({"b", "2", "1700000000123", "a", "1", "0"}), false);
  rdb::Reader reader_ex(ex);
  HashValue* loaded_ex = nullptr;
  ASSERT_EQ(LoadHash(rdb::kTypeHashListpackEx, reader_ex, {}, 7, memory_, &loaded_ex),
            LoadStatus::kLoaded);
  hashes_.push_back(loaded_ex);
  EXPECT_EQ(loaded_ex->FieldExpireAt("b"), 1700000000123);
  EXPECT_EQ(loaded_ex->FieldExpireAt("a"), HashValue::kNoFieldTtl);
  // A triplet count that is not one, and a time past 2^48 - 1, are corrupt.
  for (const std::vector<std::string>& elements :
       {std::vector<std::string>{"a", "1"},
        std::vector<std::string>{"a", "1", "281474976710656"}}) {
    std::string bad(8, '\0');
    rdb::WriteString(&bad, ListpackOf(elements), false);
    rdb::Reader reader_bad(bad);
    HashValue* none = nullptr;
    EXPECT_EQ(LoadHash(rdb::kTypeHashListpackEx, reader_bad, {}, 7, memory_, &none),
              LoadStatus::kCorrupt);
  }
}

// Against a map of field to (value, TTL): sets (which keep the TTL, as HINCRBY), removes, TTLs
// set and removed, and expiry at a moving time, with memory refused at random.
RC_GTEST_PROP(HashValueProperty, FieldTtlsBehaveLikeAMap, ()) {
  sim::SimMemory resource;
  MemoryAccountant memory(resource);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  HashValue* hash = HashValue::Create(memory, seed);
  RC_ASSERT(hash != nullptr);
  if (*rc::gen::arbitrary<bool>()) RC_ASSERT(hash->ConvertToHashtable(0, memory));
  std::map<std::string, std::pair<std::string, int64_t>> model;
  int64_t now = 1000;
  const int steps = *rc::gen::inRange(1, 300);
  for (int step = 0; step < steps; step++) {
    const std::string field = "f" + std::to_string(*rc::gen::inRange(0, 60));
    const bool refuse = *rc::gen::inRange(0, 20) == 0;
    if (refuse) resource.set_limit_bytes(resource.used_bytes());
    const int action = *rc::gen::inRange(0, 5);
    auto found = model.find(field);
    if (action == 0) {
      if (hash->Set(field, "v" + std::to_string(step), memory) !=
          HashValue::SetOutcome::kOutOfMemory) {
        const int64_t ttl = found == model.end() ? HashValue::kNoFieldTtl : found->second.second;
        model[field] = {"v" + std::to_string(step), ttl};
      }
    } else if (action == 1) {
      RC_ASSERT(hash->Remove(field, memory) == (model.erase(field) == 1));
    } else if (action == 2 && found != model.end()) {
      const int64_t when = now + *rc::gen::inRange(0, 100);
      if (hash->SetFieldExpireAt(field, when, memory)) {
        found->second.second = when;
      } else {
        RC_ASSERT(refuse);
      }
    } else if (action == 3) {
      const bool had = found != model.end() && found->second.second != HashValue::kNoFieldTtl;
      RC_ASSERT(hash->PersistField(field, memory) == had);
      if (had) found->second.second = HashValue::kNoFieldTtl;
    } else {
      now += *rc::gen::inRange(0, 30);
      size_t gone = 0;
      for (auto it = model.begin(); it != model.end();) {
        if (it->second.second != HashValue::kNoFieldTtl && it->second.second < now) {
          it = model.erase(it);
          gone++;
        } else {
          ++it;
        }
      }
      RC_ASSERT(hash->ExpireFields(now, SIZE_MAX, memory, [](std::string_view) {}) == gone);
    }
    resource.set_limit_bytes(0);
    RC_ASSERT(hash->CheckInvariants());
    RC_ASSERT(hash->size() == model.size());
    RC_ASSERT(hash->hash_seed() == seed);
    for (const auto& [name, held] : model) {
      RC_ASSERT(hash->FieldExpireAt(name) == held.second);
    }
  }
  HashValue::Destroy(hash, memory);
  RC_ASSERT(memory.used_bytes(MemoryUse::kKeyspace) == 0u);
}

}  // namespace
}  // namespace keel
