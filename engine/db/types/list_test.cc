// The list structure against redis-server 7.0's own layout (node counts and DUMP bytes captured
// from it), and as a property: any sequence of operations, with allocations refused at random,
// behaves as a std::deque, keeps its invariants and counts every byte it holds.
#include "engine/db/types/list.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "engine/db/rdb_format.h"
#include "engine/db/types/list_rdb.h"
#include "sim/sim_env.h"

namespace keel {
namespace {

class ListHarness {
 public:
  explicit ListHarness(int fill = -2) : memory_(env_.memory()) {
    list_ = List::Create(memory_, fill);
    KEEL_ASSERT(list_ != nullptr);
  }
  ~ListHarness() {
    List::Destroy(list_, memory_);
    EXPECT_EQ(memory_.used_bytes(MemoryUse::kKeyspace), 0u);
  }
  std::vector<std::string> Elements() const {
    std::vector<std::string> out;
    if (list_->empty()) return out;
    List::Position at = list_->Seek(0);
    listpack::Element element;
    do {
      list_->Read(at, &element);
      out.emplace_back(element.view());
    } while (list_->Next(&at));
    return out;
  }
  std::string Serialised() const {
    std::string out;
    SerialiseList(*list_, true, &out);
    return out;
  }

  sim::SimEnv env_{1};
  MemoryAccountant memory_;
  List* list_;
};

std::vector<std::string> Numbers(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; i++) out.push_back(std::to_string(i));
  return out;
}

TEST(ListTest, ThreeSmallElementsSerialiseAsRedisDumpsThem) {
  ListHarness h;
  for (const char* element : {"a", "b", "c"}) {
    ASSERT_TRUE(h.list_->Push(h.memory_, List::End::kTail, element));
  }
  // redis-server 7.0: RPUSH l a b c; DUMP l (without the version and checksum footer).
  EXPECT_EQ(h.Serialised(), std::string("\x12\x01\x02\x10\x10\x00\x00\x00\x03\x00\x81"
                                        "a\x02\x81"
                                        "b\x02\x81"
                                        "c\x02\xff",
                                        20));
  EXPECT_EQ(h.list_->external_bytes(), h.memory_.used_bytes(MemoryUse::kKeyspace));
  EXPECT_TRUE(h.list_->CheckInvariants());
}

TEST(ListTest, CountFilledNodesSplitOnInsertAsRedisDoes) {
  // CONFIG SET list-max-listpack-size 5; RPUSH small 1..12; LINSERT small AFTER 3 x; DUMP small.
  ListHarness h(5);
  for (const std::string& element : Numbers(1, 12)) {
    ASSERT_TRUE(h.list_->Push(h.memory_, List::End::kTail, element));
  }
  EXPECT_EQ(h.list_->node_count(), 3u);
  ASSERT_TRUE(h.list_->Insert(h.memory_, h.list_->Seek(2), true, "x"));
  EXPECT_EQ(h.list_->node_count(), 4u);
  const std::string expected(
      "\x12\x04\x02\r\r\x00\x00\x00\x03\x00\x01\x01\x02\x01\x03\x01\xff\x02\x0e\x0e\x00\x00\x00"
      "\x03\x00\x81x\x02\x04\x01\x05\x01\xff\x02\x11\x11\x00\x00\x00\x05\x00\x06\x01\a\x01\b\x01"
      "\t\x01\n\x01\xff\x02\x0b\x0b\x00\x00\x00\x02\x00\x0b\x01\x0c\x01\xff",
      65);
  EXPECT_EQ(h.Serialised(), expected);
  EXPECT_TRUE(h.list_->CheckInvariants());
}

TEST(ListTest, ByteFilledNodesHoldWhatRedisNodesHold) {
  // RPUSH big of 1,000 16-byte elements: Redis's DEBUG OBJECT says ql_nodes:3 and
  // ql_uncompressed_size:18021 (the listpacks' bytes).
  ListHarness h;
  for (int i = 1; i <= 1000; i++) {
    char element[17];
    std::snprintf(element, sizeof(element), "aaaaaaaaaaaaaa%02d", i % 100);
    ASSERT_TRUE(h.list_->Push(h.memory_, List::End::kTail, element));
  }
  EXPECT_EQ(h.list_->node_count(), 3u);
  size_t listpack_bytes = 0;
  h.list_->ForEachNode([&](const unsigned char*, size_t bytes) { listpack_bytes += bytes; });
  EXPECT_EQ(listpack_bytes, 18021u);
}

TEST(ListTest, IntegersAreStoredAsListpackIntegersAndReadBackAsText) {
  ListHarness h;
  const std::vector<std::string> elements = {"0",
                                             "127",
                                             "128",
                                             "-1",
                                             "4095",
                                             "-4096",
                                             "4096",
                                             "32767",
                                             "-32769",
                                             "8388607",
                                             "-9223372036854775808",
                                             "9223372036854775807",
                                             "007",
                                             "-0",
                                             "1.5",
                                             " 1",
                                             ""};
  for (const std::string& element : elements) {
    ASSERT_TRUE(h.list_->Push(h.memory_, List::End::kTail, element));
  }
  EXPECT_EQ(h.Elements(), elements);
  EXPECT_TRUE(h.list_->Equals(h.list_->Seek(0), "0"));
  EXPECT_FALSE(h.list_->Equals(h.list_->Seek(12), "7"));  // "007" is a string, not 7
  EXPECT_TRUE(h.list_->CheckInvariants());
}

TEST(ListTest, LoaderReadsWhatTheSerialiserWritesAndRejectsCorruption) {
  ListHarness h;
  for (int i = 0; i < 3000; i++) {
    ASSERT_TRUE(h.list_->Push(h.memory_, i % 2 ? List::End::kHead : List::End::kTail,
                              std::string(static_cast<size_t>(i % 50), 'x') + std::to_string(i)));
  }
  const std::string payload = h.Serialised();
  rdb::Reader reader(std::string_view(payload).substr(1));
  List* loaded = nullptr;
  ASSERT_EQ(LoadList(rdb::kTypeListQuicklist2, reader, -2, h.memory_, &loaded),
            LoadOutcome::kLoaded);
  std::string again;
  SerialiseList(*loaded, true, &again);
  EXPECT_EQ(again, payload);
  List::Destroy(loaded, h.memory_);
  // Every single-byte corruption is either refused or loads a valid list; none reads out of
  // bounds (ASan) or breaks the invariants.
  for (size_t i = 1; i < std::min<size_t>(payload.size(), 400); i++) {
    std::string bad = payload;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    rdb::Reader bad_reader(std::string_view(bad).substr(1));
    List* result = nullptr;
    if (LoadList(rdb::kTypeListQuicklist2, bad_reader, -2, h.memory_, &result) ==
        LoadOutcome::kLoaded) {
      EXPECT_TRUE(result->CheckInvariants());
      List::Destroy(result, h.memory_);
    }
  }
}

TEST(ListTest, OlderEncodingsLoad) {
  ListHarness h;
  // RDB_TYPE_LIST: two elements, one an integer-encoded string.
  const std::string plain("\x02\x01x\xc0\x07", 5);
  rdb::Reader plain_reader(plain);
  List* loaded = nullptr;
  ASSERT_EQ(LoadList(rdb::kTypeList, plain_reader, -2, h.memory_, &loaded), LoadOutcome::kLoaded);
  EXPECT_EQ(loaded->size(), 2u);
  List::Destroy(loaded, h.memory_);
  // RDB_TYPE_LIST_ZIPLIST: a ziplist of "ab" and the immediate integer 5.
  const std::string ziplist(
      "\x11"
      "\x11\x00\x00\x00\x0e\x00\x00\x00\x02\x00"
      "\x00\x02"
      "ab"
      "\x04\xf6\xff",
      18);
  rdb::Reader ziplist_reader(ziplist);
  ASSERT_EQ(LoadList(rdb::kTypeListZiplist, ziplist_reader, -2, h.memory_, &loaded),
            LoadOutcome::kLoaded);
  listpack::Element element;
  loaded->Read(loaded->Seek(1), &element);
  EXPECT_EQ(element.view(), "5");
  List::Destroy(loaded, h.memory_);
  // An empty list is refused, as Redis refuses it.
  rdb::Reader empty_reader(std::string_view("\x00", 1));
  EXPECT_EQ(LoadList(rdb::kTypeList, empty_reader, -2, h.memory_, &loaded),
            LoadOutcome::kBadFormat);
}

// Random operations, with random refusals, against a std::deque.
RC_GTEST_PROP(ListProperty, BehavesLikeADeque, ()) {
  ListHarness h(*rc::gen::element(-2, -1, 1, 3, 16));
  std::deque<std::string> model;
  h.env_.sim_memory().set_refusal(0, *rc::gen::element(0u, 20000u));
  const int steps = *rc::gen::inRange(0, 600);
  for (int step = 0; step < steps; step++) {
    const int action = *rc::gen::inRange(0, 10);
    const size_t size = model.size();
    const std::string element =
        *rc::gen::element(std::string("a"), std::string("12"), std::string(300, 'z'),
                          std::string(5000, 'q'), std::to_string(step));
    if (action < 4) {
      const bool head = action % 2 == 0;
      if (h.list_->Push(h.memory_, head ? List::End::kHead : List::End::kTail, element)) {
        head ? model.push_front(element) : model.push_back(element);
      }
    } else if (action == 4 && size > 0) {
      const size_t start = *rc::gen::inRange<size_t>(0, size);
      const size_t count = *rc::gen::inRange<size_t>(0, size - start + 1);
      h.list_->EraseRange(h.memory_, start, count);
      model.erase(model.begin() + static_cast<long>(start),
                  model.begin() + static_cast<long>(start + count));
    } else if (action == 5 && size > 0) {
      const size_t index = *rc::gen::inRange<size_t>(0, size);
      const bool after = *rc::gen::arbitrary<bool>();
      if (h.list_->Insert(h.memory_, h.list_->Seek(index), after, element)) {
        model.insert(model.begin() + static_cast<long>(index + (after ? 1 : 0)), element);
      }
    } else if (action == 6 && size > 0) {
      const size_t index = *rc::gen::inRange<size_t>(0, size);
      if (h.list_->Replace(h.memory_, h.list_->Seek(index), element)) model[index] = element;
    } else if (action == 7 && size > 0) {
      const size_t index = *rc::gen::inRange<size_t>(0, size);
      List::Position at = h.list_->Seek(index);
      const bool more = h.list_->EraseAt(h.memory_, &at);
      model.erase(model.begin() + static_cast<long>(index));
      RC_ASSERT(more == (index < model.size()));
      if (more) {
        listpack::Element read;
        h.list_->Read(at, &read);
        RC_ASSERT(read.view() == model[index]);
      }
    } else if (action == 8) {
      List* copy = List::Copy(*h.list_, h.memory_);
      if (copy != nullptr) {
        RC_ASSERT(copy->size() == model.size());
        RC_ASSERT(copy->CheckInvariants());
        List::Destroy(copy, h.memory_);
      }
    } else if (size > 0) {
      const size_t index = *rc::gen::inRange<size_t>(0, size);
      listpack::Element read;
      h.list_->Read(h.list_->Seek(index), &read);
      RC_ASSERT(read.view() == model[index]);
    }
    RC_ASSERT(h.list_->size() == model.size());
    RC_ASSERT(h.list_->CheckInvariants());
    RC_ASSERT(h.list_->external_bytes() == h.memory_.used_bytes(MemoryUse::kKeyspace));
  }
  h.env_.sim_memory().set_refusal(0, 0);
  const std::vector<std::string> expected(model.begin(), model.end());
  RC_ASSERT(h.Elements() == expected);
}

}  // namespace
}  // namespace keel
