// OBJECT ENCODING, REFCOUNT, IDLETIME, FREQ and HELP. Every expected reply was checked against
// redis-server 7.0.15.
#include <string>

#include "engine/db/entry.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

class ObjectTest : public CommandTest {
 protected:
  void ConfigSet(std::string_view name, std::string_view value) {
    ASSERT_EQ(Run({"config", "set", name, value}), Ok());
  }
};

TEST_F(ObjectTest, MissingKeysAndArity) {
  for (std::string_view sub : {"encoding", "refcount", "idletime", "freq"}) {
    EXPECT_EQ(Run({"object", sub, "missing"}), NilBulk()) << sub;
    EXPECT_EQ(Run({"object", sub}),
              Err("ERR wrong number of arguments for 'object|" + std::string(sub) + "' command"));
    EXPECT_EQ(Run({"object", sub, "a", "b"}),
              Err("ERR wrong number of arguments for 'object|" + std::string(sub) + "' command"));
  }
  EXPECT_EQ(Run({"object"}), Err("ERR wrong number of arguments for 'object' command"));
  EXPECT_EQ(Run({"object", "foo"}), Err("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
  EXPECT_EQ(Run({"object", "foo", "bar"}), Err("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
  EXPECT_EQ(Run({"object", "help", "x"}),
            Err("ERR wrong number of arguments for 'object|help' command"));
  // A missing key counts as a keyspace miss.
  EXPECT_EQ(engine_->keyspace().stats().keyspace_misses, 4u);
}

TEST_F(ObjectTest, NullIsRespThreeNull) {
  EXPECT_EQ(Run({"hello", "3"}).type, RespType::kMap);
  EXPECT_EQ(Run({"object", "encoding", "missing"}), Null());
}

TEST_F(ObjectTest, EncodingsOfStrings) {
  EXPECT_EQ(Run({"set", "i", "12345"}), Ok());
  EXPECT_EQ(Run({"set", "e", "hello"}), Ok());
  EXPECT_EQ(Run({"set", "r", std::string(45, 'x')}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "i"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "encoding", "e"}), Bulk("embstr"));
  EXPECT_EQ(Run({"object", "encoding", "r"}), Bulk("raw"));
  EXPECT_EQ(Run({"append", "i", "6"}), Int(6));
  EXPECT_EQ(Run({"object", "encoding", "i"}), Bulk("raw"));
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "e"}), Bulk("embstr"));
}

TEST_F(ObjectTest, SharedIntegersHaveRedisSharedRefcount) {
  EXPECT_EQ(Run({"set", "a", "5"}), Ok());
  EXPECT_EQ(Run({"set", "zero", "0"}), Ok());
  EXPECT_EQ(Run({"set", "top", "9999"}), Ok());
  EXPECT_EQ(Run({"set", "big", "10000"}), Ok());
  EXPECT_EQ(Run({"set", "neg", "-1"}), Ok());
  EXPECT_EQ(Run({"set", "s", "hello"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "a"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"object", "refcount", "zero"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"object", "refcount", "top"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"object", "refcount", "big"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "neg"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "s"}), Int(1));
  // Counters: shared in 0..9999, private outside; INCRBYFLOAT stores text (embstr).
  EXPECT_EQ(Run({"set", "c", "9998"}), Ok());
  EXPECT_EQ(Run({"incr", "c"}), Int(9999));
  EXPECT_EQ(Run({"object", "refcount", "c"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"incr", "c"}), Int(10000));
  EXPECT_EQ(Run({"object", "refcount", "c"}), Int(1));
  EXPECT_EQ(Run({"decr", "c"}), Int(9999));
  EXPECT_EQ(Run({"object", "refcount", "c"}), Int(kSharedRefcount));
  EXPECT_EQ(Run({"incrbyfloat", "c", "1"}), Bulk("10000"));
  EXPECT_EQ(Run({"object", "encoding", "c"}), Bulk("embstr"));
  EXPECT_EQ(Run({"object", "refcount", "c"}), Int(1));
  EXPECT_EQ(Run({"append", "a", "1"}), Int(2));
  EXPECT_EQ(Run({"object", "refcount", "a"}), Int(1));
}

TEST_F(ObjectTest, IntegersAreNotSharedUnderAnLruOrLfuMaxmemoryPolicy) {
  EXPECT_EQ(Run({"set", "n", "5"}), Ok());
  ConfigSet("maxmemory", "1gb");
  EXPECT_EQ(Run({"set", "m", "6"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "m"}), Int(kSharedRefcount));  // noeviction shares
  ConfigSet("maxmemory-policy", "allkeys-lru");
  EXPECT_EQ(Run({"set", "m", "6"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "m"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "n"}), Int(kSharedRefcount));  // decided when written
  ConfigSet("maxmemory-policy", "allkeys-random");
  EXPECT_EQ(Run({"set", "r", "7"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "r"}), Int(kSharedRefcount));
  ConfigSet("maxmemory-policy", "volatile-lfu");
  EXPECT_EQ(Run({"incr", "r"}), Int(8));
  EXPECT_EQ(Run({"object", "refcount", "r"}), Int(1));
  ConfigSet("maxmemory", "0");
  EXPECT_EQ(Run({"set", "r", "7"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "r"}), Int(kSharedRefcount));
}

TEST_F(ObjectTest, IdletimeCountsWholeSecondsSinceTheLastAccess) {
  EXPECT_EQ(Run({"set", "k", "hello"}), Ok());
  AdvanceMs(4999);
  EXPECT_EQ(Run({"object", "idletime", "k"}), Int(4));
  AdvanceMs(1);
  EXPECT_EQ(Run({"object", "idletime", "k"}), Int(5));  // OBJECT itself does not touch
  EXPECT_EQ(Run({"get", "k"}), Bulk("hello"));
  EXPECT_EQ(Run({"object", "idletime", "k"}), Int(0));
  EXPECT_EQ(Run({"object", "freq", "k"}),
            Err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                "Please note that when switching between policies at runtime LRU and LFU data "
                "will take some time to adjust."));
}

TEST_F(ObjectTest, FreqUnderAnLfuPolicy) {
  ConfigSet("maxmemory-policy", "allkeys-lfu");
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(5));  // LFU_INIT_VAL
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(6));  // certain while at LFU_INIT_VAL
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(6));  // OBJECT is no access
  // One minute per decrement with lfu-decay-time 1.
  AdvanceMs(3 * 60 * 1000);
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(3));
  EXPECT_EQ(Run({"object", "idletime", "k"}),
            Err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note "
                "that when switching between policies at runtime LRU and LFU data will take some "
                "time to adjust."));
  EXPECT_EQ(Run({"object", "idletime", "missing"}), NilBulk());
}

TEST_F(ObjectTest, HelpListsTheSubcommands) {
  const RespValue help = Run({"object", "help"});
  ASSERT_EQ(help.elements.size(), 15u);
  EXPECT_EQ(help.elements[0],
            Status("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[1], Status("ENCODING <key>"));
  EXPECT_EQ(help.elements[14], Status("    Prints this help."));
}

TEST_F(ObjectTest, AnExpiredKeyIsMissingAndReclaimed) {
  EXPECT_EQ(Run({"set", "k", "5", "px", "1"}), Ok());
  AdvanceMs(2);
  EXPECT_EQ(Run({"object", "encoding", "k"}), NilBulk());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

}  // namespace
}  // namespace keel::testing
