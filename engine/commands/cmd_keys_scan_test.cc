// KEYS, SCAN and RANDOMKEY. Replies and error texts were checked against redis-server 7.0.15
// (with DEBUG SET-ACTIVE-EXPIRE 0 where keys expire); SCAN's cursors are Keel's own (positions in
// hash space), so those tests check what SCAN promises rather than Redis's cursor values.
#include <set>
#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ScanTest : public CommandTest {
 protected:
  // The keys of a reply's array, as strings.
  static std::vector<std::string> Keys(const RespValue& array) {
    std::vector<std::string> keys;
    for (const RespValue& element : array.elements) keys.push_back(element.text);
    return keys;
  }
  static std::set<std::string> KeySet(const RespValue& array) {
    const std::vector<std::string> keys = Keys(array);
    return std::set<std::string>(keys.begin(), keys.end());
  }

  // Runs a whole SCAN iteration with `options` after the cursor; returns every key returned and
  // checks the cursors on the way.
  std::vector<std::string> FullScan(const std::vector<std::string>& options, int calls_max) {
    std::vector<std::string> keys;
    std::string cursor = "0";
    for (int call = 0; call < calls_max; call++) {
      std::vector<std::string> args = {"scan", cursor};
      args.insert(args.end(), options.begin(), options.end());
      const RespValue reply = Run(args);
      EXPECT_EQ(reply.elements.size(), 2u);
      if (reply.elements.size() != 2) return keys;
      cursor = reply.elements[0].text;
      // Cursors stay exact in a JavaScript Number (below 2^53).
      EXPECT_LT(std::stoull(cursor), 1ull << 53);
      for (const std::string& key : Keys(reply.elements[1])) keys.push_back(key);
      if (cursor == "0") return keys;
    }
    ADD_FAILURE() << "the iteration did not end within " << calls_max << " calls";
    return keys;
  }

  void Fill(int count, std::string_view prefix = "key:") {
    for (int i = 0; i < count; i++) {
      ASSERT_EQ(Run({"set", std::string(prefix) + std::to_string(i), "v"}), Ok());
    }
  }
};

TEST_F(ScanTest, KeysMatchesWithRedisGlobs) {
  EXPECT_EQ(Run({"keys", "*"}), Array({}));
  EXPECT_EQ(Run({"set", "", "e"}), Ok());
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"set", "ab", "3"}), Ok());
  // "*" lists every key, the empty one included (Redis does not match for "*").
  EXPECT_EQ(KeySet(Run({"keys", "*"})), (std::set<std::string>{"", "a", "b", "ab"}));
  EXPECT_EQ(KeySet(Run({"keys", ""})), (std::set<std::string>{""}));
  EXPECT_EQ(KeySet(Run({"keys", "?"})), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(KeySet(Run({"keys", "[ab]"})), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(KeySet(Run({"keys", "a*"})), (std::set<std::string>{"a", "ab"}));
  EXPECT_EQ(KeySet(Run({"keys", "\\a"})), (std::set<std::string>{"a"}));
  // Redis 7.0's stringmatchlen never matches the empty key with "**" (checked on redis-server).
  EXPECT_EQ(KeySet(Run({"keys", "**"})), (std::set<std::string>{"a", "b", "ab"}));
  EXPECT_EQ(Run({"keys", "nomatch"}), Array({}));
  EXPECT_EQ(Run({"keys"}), Err("ERR wrong number of arguments for 'keys' command"));
  EXPECT_EQ(Run({"keys", "a", "b"}), Err("ERR wrong number of arguments for 'keys' command"));
}

TEST_F(ScanTest, KeysSkipsExpiredKeysWithoutReclaimingThem) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "x", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(KeySet(Run({"keys", "*"})), (std::set<std::string>{"a"}));
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  EXPECT_EQ(engine_->keyspace().stats().keyspace_hits + engine_->keyspace().stats().keyspace_misses,
            0u);
}

TEST_F(ScanTest, KeysListsThousandsOfKeysAcrossAResize) {
  Fill(3000);
  const RespValue all = Run({"keys", "key:*"});
  EXPECT_EQ(all.elements.size(), 3000u);
  EXPECT_EQ(KeySet(all).size(), 3000u);
  EXPECT_EQ(Run({"keys", "key:1?"}).elements.size(), 10u);
}

TEST_F(ScanTest, CursorParsing) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  const RespValue everything = Array({Bulk("0"), Array({Bulk("a")})});
  // strtoul: "" is 0, a sign is allowed, trailing bytes after a NUL are not seen.
  for (std::string_view cursor : {"0", "", "00", "+0", "-0", "-1", "-18446744073709551615"}) {
    EXPECT_EQ(Run({"scan", cursor, "count", "1000"}).elements.size(), 2u) << cursor;
  }
  EXPECT_EQ(Run({"scan", "0"}), everything);
  EXPECT_EQ(Run({"scan", std::string_view("0\0junk", 6)}), everything);
  EXPECT_EQ(Run({"scan", std::string_view("\0", 1)}), everything);
  for (std::string_view cursor : {"abc", " 1", "1 ", "\t1", "+", "-", "0x1", "1.0",
                                  "18446744073709551616", "-18446744073709551616"}) {
    EXPECT_EQ(Run({"scan", cursor}), Err("ERR invalid cursor")) << cursor;
  }
  // The cursor is checked before the options.
  EXPECT_EQ(Run({"scan", "abc", "count", "0"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan"}), Err("ERR wrong number of arguments for 'scan' command"));
}

TEST_F(ScanTest, OptionErrors) {
  const RespValue syntax = Err("ERR syntax error");
  EXPECT_EQ(Run({"scan", "0", "count", "0"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "count", "-1"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "count", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"scan", "0", "count", "9223372036854775808"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"scan", "0", "count"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "match"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "type"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "foo"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "foo", "count", "0"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "count", "0", "foo"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "match", "*", "count"}), syntax);
  EXPECT_EQ(Run({"scan", "0", "count", "9223372036854775807"}), Array({Bulk("0"), Array({})}));
}

TEST_F(ScanTest, AWholeIterationReturnsEveryKeyOnce) {
  Fill(2000);
  for (const std::vector<std::string>& options : std::vector<std::vector<std::string>>{
           {}, {"count", "1"}, {"count", "7"}, {"COUNT", "500"}}) {
    const std::vector<std::string> keys = FullScan(options, 5000);
    EXPECT_EQ(keys.size(), 2000u);
    EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 2000u);
  }
}

TEST_F(ScanTest, CountBoundsTheWorkOfACall) {
  Fill(1000);
  // Keys are collected until COUNT were seen (before filtering), so a call that does not end the
  // iteration returns at least COUNT keys without a filter, and few with a filter that matches
  // nothing.
  const RespValue reply = Run({"scan", "0", "count", "20"});
  EXPECT_NE(reply.elements[0].text, "0");
  EXPECT_GE(reply.elements[1].elements.size(), 20u);
  EXPECT_LT(reply.elements[1].elements.size(), 60u);
  const RespValue filtered = Run({"scan", "0", "match", "nomatch", "count", "20"});
  EXPECT_NE(filtered.elements[0].text, "0");
  EXPECT_EQ(filtered.elements[1], Array({}));
  // The same cursor gives the same answer while nothing changes.
  EXPECT_EQ(Run({"scan", reply.elements[0].text, "count", "20"}),
            Run({"scan", reply.elements[0].text, "count", "20"}));
}

TEST_F(ScanTest, KeysPresentThroughoutAreReturnedAcrossResizes) {
  Fill(300, "stable:");
  std::set<std::string> seen;
  std::string cursor = "0";
  int batches = 0;
  for (int call = 0; call < 10000; call++) {
    const RespValue reply = Run({"scan", cursor, "count", "5"});
    cursor = reply.elements[0].text;
    for (const std::string& key : Keys(reply.elements[1])) seen.insert(key);
    if (cursor == "0") break;
    // Between calls, grow the table through several resizes, then shrink it again.
    if (batches < 30) {
      Fill(100, "grow" + std::to_string(batches) + ":");
    } else if (batches < 60) {
      std::vector<std::string> del = {"del"};
      for (int i = 0; i < 100; i++) {
        del.push_back("grow" + std::to_string(batches - 30) + ":" + std::to_string(i));
      }
      EXPECT_EQ(Run(del), Int(100));
    }
    batches++;
  }
  EXPECT_EQ(cursor, "0");
  EXPECT_GE(batches, 60);  // the iteration lasted through all of it
  for (int i = 0; i < 300; i++) {
    EXPECT_TRUE(seen.count("stable:" + std::to_string(i))) << "stable:" << i;
  }
}

TEST_F(ScanTest, MatchAndTypeFilter) {
  EXPECT_EQ(Run({"set", "", "e"}), Ok());
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  const auto keys_of = [&](std::initializer_list<std::string_view> args) {
    const RespValue reply = Run(args);
    EXPECT_EQ(reply.elements[0], Bulk("0"));
    return KeySet(reply.elements[1]);
  };
  EXPECT_EQ(keys_of({"scan", "0", "match", "*"}), (std::set<std::string>{"", "a", "b"}));
  EXPECT_EQ(keys_of({"scan", "0", "match", "a"}), (std::set<std::string>{"a"}));
  EXPECT_EQ(keys_of({"scan", "0", "match", "a", "match", "b"}), (std::set<std::string>{"b"}));
  EXPECT_EQ(keys_of({"scan", "0", "type", "STRING"}), (std::set<std::string>{"", "a", "b"}));
  EXPECT_EQ(keys_of({"scan", "0", "type", "list"}), (std::set<std::string>{}));
  EXPECT_EQ(keys_of({"scan", "0", "type", "nosuch"}), (std::set<std::string>{}));
  EXPECT_EQ(keys_of({"scan", "0", "type", "none"}), (std::set<std::string>{}));
  EXPECT_EQ(keys_of({"scan", "0", "type", std::string_view("string\0x", 8)}),
            (std::set<std::string>{"", "a", "b"}));
  EXPECT_EQ(keys_of({"scan", "0", "match", "a", "type", "string", "count", "1000"}),
            (std::set<std::string>{"a"}));
  // The type check is a read lookup of each key: counted as a keyspace hit.
  const uint64_t hits = engine_->keyspace().stats().keyspace_hits;
  keys_of({"scan", "0", "type", "string"});
  EXPECT_EQ(engine_->keyspace().stats().keyspace_hits, hits + 3);
}

TEST_F(ScanTest, ExpiredKeysAreReclaimedAndLeftOut) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "x", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"scan", "0", "match", "*"}), Array({Bulk("0"), Array({Bulk("a")})}));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(engine_->keyspace().stats().expired_keys, 1u);
}

TEST_F(ScanTest, AnExpiredKeyIsListedUnderTypeNone) {
  // Redis's type filter looks the key up (reclaiming it: type "none") before the expiry filter,
  // which then finds nothing to expire.
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "y", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"scan", "0", "type", "none"}), Array({Bulk("0"), Array({Bulk("y")})}));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(engine_->keyspace().stats().keyspace_misses, 1u);
  EXPECT_EQ(Run({"set", "y", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"scan", "0", "type", "string"}), Array({Bulk("0"), Array({Bulk("a")})}));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(ScanTest, WhileWritesArePausedExpiredKeysStayButAreLeftOut) {
  EXPECT_EQ(Run({"set", "y", "v", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"client", "pause", "100000", "write"}), Ok());
  EXPECT_EQ(Run({"scan", "0", "type", "none"}), Array({Bulk("0"), Array({})}));
  EXPECT_EQ(Run({"scan", "0"}), Array({Bulk("0"), Array({})}));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  // RANDOMKEY cannot reclaim either; with nothing but expired keys it gives one up after a
  // bounded number of draws instead of looping forever.
  EXPECT_EQ(Run({"randomkey"}), Bulk("y"));
  EXPECT_EQ(Run({"client", "unpause"}), Ok());
  EXPECT_EQ(Run({"randomkey"}), NilBulk());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(ScanTest, RandomkeyReturnsLiveKeys) {
  EXPECT_EQ(Run({"randomkey"}), NilBulk());
  EXPECT_EQ(Run({"set", "only", "v"}), Ok());
  EXPECT_EQ(Run({"randomkey"}), Bulk("only"));
  Fill(50);
  for (int i = 0; i < 50; i++) EXPECT_EQ(Run({"pexpire", "key:" + std::to_string(i), "1"}), Int(1));
  AdvanceMs(2);
  // Every expired key drawn is reclaimed until the live one comes up.
  EXPECT_EQ(Run({"randomkey"}), Bulk("only"));
  std::set<std::string> drawn;
  Fill(20, "live:");
  for (int i = 0; i < 400; i++) drawn.insert(Run({"randomkey"}).text);
  EXPECT_EQ(drawn.count("only"), 1u);
  EXPECT_GT(drawn.size(), 15u);  // not stuck on a few keys
  for (const std::string& key : drawn) EXPECT_TRUE(key == "only" || key.rfind("live:", 0) == 0);
  EXPECT_EQ(Run({"randomkey", "x"}), Err("ERR wrong number of arguments for 'randomkey' command"));
}

}  // namespace
}  // namespace keel::testing
