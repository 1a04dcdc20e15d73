// StringTest: CommandTest with what the string family's tests inspect directly in the keyspace
// (OBJECT ENCODING and expiry times, before those commands exist), and a way to plant a key of
// another type (a list).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/db/entry.h"
#include "sim/testing/fixtures.h"

namespace keel::testing {

class StringTest : public CommandTest {
 protected:
  // OBJECT ENCODING of `key` in db 0, or "(missing)".
  std::string EncodingOf(std::string_view key) {
    const Entry* entry = engine_->database(0).Find(key);
    return entry == nullptr ? "(missing)" : std::string(ObjectEncodingName(entry->encoding()));
  }

  // The absolute expiry of `key` in ms, kNoExpiry, or -2 when the key is not stored.
  int64_t ExpireAtMs(std::string_view key) {
    const Entry* entry = engine_->database(0).Find(key);
    return entry == nullptr ? -2 : entry->expire_at_ms();
  }

  // The wall-clock ms of the last command.
  int64_t NowMs() { return engine_->command_time_ms(); }

  // Makes `key` (db 0) a key of another type, a list: commands see WRONGTYPE.
  void PlantList(std::string_view key) {
    ASSERT_EQ(Run({"del", key}).type, RespType::kInteger);
    ASSERT_EQ(Run({"rpush", key, "payload"}), Int(1));
  }
};

}  // namespace keel::testing
