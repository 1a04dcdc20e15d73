// Tests for blocked XREAD and XREADGROUP: served by XADD, and a blocked XREADGROUP's wait ended
// with Redis 7.0's errors when its stream is deleted (UNBLOCKED) or its group destroyed
// (NOGROUP), while XGROUP DESTROY touches no WATCHed key, as in Redis.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/testing/fixtures.h"

namespace keel::testing {
namespace {

using Replies = std::vector<RespValue>;

class StreamBlockTest : public ServerTest {
 protected:
  // A client blocked in XREADGROUP on stream "x", group "g" (created empty).
  sim::SimClientId BlockedReader(sim::SimClientId admin) {
    EXPECT_EQ(Ask(admin, {"xgroup", "create", "x", "g", "$", "mkstream"}), Replies{Ok()});
    const sim::SimClientId reader = Connect();
    Send(reader, {"xreadgroup", "group", "g", "c", "block", "0", "streams", "x", ">"});
    EXPECT_EQ(Received(reader), Replies{});
    return reader;
  }
};

TEST_F(StreamBlockTest, XaddServesABlockedReader) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId reader = BlockedReader(admin);
  EXPECT_EQ(Ask(admin, {"xadd", "x", "5-1", "f", "v"}), Replies{Bulk("5-1")});
  Settle();
  EXPECT_EQ(Received(reader),
            Replies{Array({Array(
                {Bulk("x"), Array({Array({Bulk("5-1"), Array({Bulk("f"), Bulk("v")})})})})})});
}

TEST_F(StreamBlockTest, DeletingTheStreamEndsTheWaitWithUnblocked) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId reader = BlockedReader(admin);
  EXPECT_EQ(Ask(admin, {"del", "x"}), Replies{Int(1)});
  Settle();
  EXPECT_EQ(Received(reader), Replies{Err("UNBLOCKED the stream key no longer exists")});
}

TEST_F(StreamBlockTest, DestroyingTheGroupEndsTheWaitWithNogroup) {
  const sim::SimClientId admin = Connect();
  const sim::SimClientId reader = BlockedReader(admin);
  EXPECT_EQ(Ask(admin, {"xgroup", "destroy", "x", "g"}), Replies{Int(1)});
  Settle();
  EXPECT_EQ(Received(reader),
            Replies{Err("NOGROUP the consumer group this client was blocked on no longer exists")});
  // The client is free again.
  EXPECT_EQ(Ask(reader, {"ping"}), Replies{Status("PONG")});
  // A destroyed group that nobody waits on wakes nobody; a WATCH of the key holds (Redis 7.0's
  // XGROUP DESTROY signals the key as ready but does not touch it).
  EXPECT_EQ(Ask(admin, {"xgroup", "create", "x", "g", "$"}), Replies{Ok()});
  EXPECT_EQ(Ask(reader, {"watch", "x"}), Replies{Ok()});
  EXPECT_EQ(Ask(admin, {"xgroup", "destroy", "x", "g"}), Replies{Int(1)});
  EXPECT_EQ(Ask(reader, {"multi"}), Replies{Ok()});
  EXPECT_EQ(Ask(reader, {"ping"}), Replies{Status("QUEUED")});
  EXPECT_EQ(Ask(reader, {"exec"}), Replies{Array({Status("PONG")})});
}

}  // namespace
}  // namespace keel::testing
