#include "sim/simulator/tracking_check.h"

#include <utility>
#include <vector>

#include "engine/base/assert.h"
#include "engine/db/database.h"
#include "engine/resp/resp_value.h"

namespace keel::sim {

TrackingCheck::TrackingCheck(Engine& engine) : engine_(engine) {
  client_ = engine_.NewClient(/*conn=*/0, nullptr);
  KEEL_ASSERT(client_ != nullptr);
  CommandObserver* observer = engine_.command_observer();
  engine_.set_command_observer(nullptr);
  engine_.RunCommand(*client_, {"hello", "3"});
  engine_.RunCommand(*client_, {"client", "tracking", "on"});
  engine_.set_command_observer(observer);
  client_->output().Clear();
  engine_.keyspace().AddObserver(this);
}

TrackingCheck::~TrackingCheck() {
  engine_.keyspace().RemoveObserver(this);
  engine_.FreeClient(client_);
}

void TrackingCheck::DatabasesSwapped(int first, int second) {
  if (first == 0 || second == 0) cache_.clear();
}

void TrackingCheck::Read(std::string_view key) {
  // Whatever arrived before the read is applied first (a write may have invalidated a key
  // since the last check).
  if (!failure_.empty()) return;
  failure_ = Drain({});
  if (!failure_.empty()) return;
  CommandObserver* observer = engine_.command_observer();
  engine_.set_command_observer(nullptr);
  client_->db_index = 0;
  engine_.RunCommand(*client_, {"get", key});
  engine_.set_command_observer(observer);
  reads_++;
  failure_ = Drain(key);
}

std::string TrackingCheck::Drain(std::string_view read_key) {
  OutputBuffer& output = client_->output();
  if (output.failed()) {
    // Replies were lost: nothing it cached can be trusted any more.
    output.Clear();
    output.ClearFailure();
    cache_.clear();
    return {};
  }
  const std::string bytes = output.TakeAll();
  std::string_view rest = bytes;
  bool replied = read_key.empty();
  while (!rest.empty()) {
    RespValue value;
    size_t consumed = 0;
    if (DecodeResp(rest, &value, &consumed) != DecodeStatus::kOk) {
      return "tracking: the tracking client received bytes it cannot decode";
    }
    rest.remove_prefix(consumed);
    if (value.type == RespType::kPush) {
      if (value.elements.size() != 2 || value.elements[0].text != "invalidate") {
        return "tracking: unexpected push " + value.ToString();
      }
      invalidations_++;
      const RespValue& keys = value.elements[1];
      if (keys.type == RespType::kNull) {
        cache_.clear();
        continue;
      }
      for (const RespValue& key : keys.elements) cache_.erase(key.text);
      continue;
    }
    if (replied) return "tracking: unexpected reply " + value.ToString();
    replied = true;
    // The GET's reply comes before any invalidation its own command caused.
    if (value.type == RespType::kBulkString) {
      cache_.insert_or_assign(std::string(read_key), value.text);
    } else if (value.type == RespType::kNull) {
      cache_.insert_or_assign(std::string(read_key), std::nullopt);
    }
    // An error (WRONGTYPE) caches nothing.
  }
  if (!replied) return "tracking: GET " + std::string(read_key) + " got no reply";
  return {};
}

std::string TrackingCheck::Check() {
  if (!failure_.empty()) return failure_;
  failure_ = Drain({});
  if (!failure_.empty()) return failure_;
  const Database& db = engine_.database(0);
  for (const auto& [key, cached] : cache_) {
    const Entry* entry = db.Find(key);
    std::optional<std::string> now;
    if (entry != nullptr) {
      now = entry->type() == ValueType::kString ? std::string(entry->value()) : "<not a string>";
    }
    if (now == cached) continue;
    failure_ = "tracking: the tracking client caches " + key + " = " +
               (cached ? "\"" + *cached + "\"" : std::string("(nil)")) +
               " but database 0 now holds " + (now ? "\"" + *now + "\"" : std::string("nothing")) +
               ", and no invalidation arrived";
    return failure_;
  }
  return {};
}

}  // namespace keel::sim
