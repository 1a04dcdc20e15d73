#include "engine/server/tracking.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/base/assert.h"
#include "engine/base/numbers.h"
#include "engine/registry/key_extraction.h"
#include "engine/server/engine.h"

namespace keel {

namespace {

constexpr std::string_view kInvalidateChannel = "__redis__:invalidate";
constexpr uint32_t kModeFlags =
    kClientTrackingBcast | kClientTrackingOptin | kClientTrackingOptout | kClientTrackingNoloop;

// Two prefixes overlap when one starts the other: some key would match both.
bool Overlap(std::string_view first, std::string_view second) {
  const size_t common = std::min(first.size(), second.size());
  return first.substr(0, common) == second.substr(0, common);
}

// An invalidation reaches its client even under CLIENT REPLY OFF/SKIP (Redis's CLIENT_PUSHING).
class Unmuted {
 public:
  explicit Unmuted(ReplyBuilder& reply) : reply_(reply), was_muted_(reply.muted()) {
    reply_.set_muted(false);
  }
  ~Unmuted() { reply_.set_muted(was_muted_); }
  Unmuted(const Unmuted&) = delete;
  Unmuted& operator=(const Unmuted&) = delete;

 private:
  ReplyBuilder& reply_;
  bool was_muted_;
};

}  // namespace

Tracking::~Tracking() {
  if (observing_) engine_.keyspace().RemoveObserver(this);
}

void Tracking::Observe() {
  // Once on, the table stays an observer (Redis's TrackingTable is never freed): entries of
  // clients that stopped tracking are dropped only when their key is invalidated.
  if (observing_) return;
  engine_.keyspace().AddObserver(this);
  observing_ = true;
}

Tracking::PrefixCheck Tracking::CheckPrefixes(const Client& client,
                                              std::span<const std::string_view> prefixes,
                                              std::string* error) const {
  for (size_t i = 0; i < prefixes.size(); i++) {
    for (const std::string& existing : client.tracking_prefixes) {
      if (!Overlap(existing, prefixes[i])) continue;
      *error = "ERR Prefix '" + std::string(prefixes[i]) + "' overlaps with an existing prefix '" +
               existing + "'. Prefixes for a single client must not overlap.";
      return PrefixCheck::kRefused;
    }
    for (size_t j = i + 1; j < prefixes.size(); j++) {
      if (!Overlap(prefixes[i], prefixes[j])) continue;
      *error = "ERR Prefix '" + std::string(prefixes[i]) +
               "' overlaps with another provided prefix '" + std::string(prefixes[j]) +
               "'. Prefixes for a single client must not overlap.";
      // Redis 7.0's checkPrefixCollisionsOrReply returns the index here, which its caller takes
      // for success unless it is 0.
      return i == 0 ? PrefixCheck::kRefused : PrefixCheck::kRefusedButEnabled;
    }
  }
  return PrefixCheck::kOk;
}

void Tracking::Enable(Client& client, uint64_t redirect_to, uint32_t options,
                      std::span<const std::string_view> prefixes) {
  KEEL_ASSERT((options & ~kModeFlags) == 0);
  if (!(client.flags & kClientTracking)) clients_++;
  client.flags |= kClientTracking;
  client.flags &= ~(kClientTrackingBrokenRedirect | kModeFlags);
  client.tracking_redirect = redirect_to;
  Observe();
  if (options & kClientTrackingBcast) {
    client.flags |= kClientTrackingBcast;
    auto subscribe = [&](std::string_view prefix) {
      auto it = prefixes_.find(prefix);
      if (it == prefixes_.end()) it = prefixes_.emplace(std::string(prefix), Bcast()).first;
      std::vector<uint64_t>& subscribers = it->second.clients;
      if (std::find(subscribers.begin(), subscribers.end(), client.id()) != subscribers.end()) {
        return;
      }
      subscribers.push_back(client.id());
      client.tracking_prefixes.emplace(prefix);
    };
    if (prefixes.empty()) subscribe("");
    for (std::string_view prefix : prefixes) subscribe(prefix);
  }
  client.flags |= options & (kClientTrackingOptin | kClientTrackingOptout | kClientTrackingNoloop);
}

void Tracking::Disable(Client& client) {
  if (client.flags & kClientTrackingBcast) {
    for (const std::string& prefix : client.tracking_prefixes) {
      auto it = prefixes_.find(prefix);
      KEEL_ASSERT(it != prefixes_.end());
      std::vector<uint64_t>& subscribers = it->second.clients;
      std::erase(subscribers, client.id());
      if (subscribers.empty()) prefixes_.erase(it);
    }
    client.tracking_prefixes.clear();
  }
  if (client.flags & kClientTracking) {
    KEEL_ASSERT(clients_ > 0);
    clients_--;
    client.flags &=
        ~(kClientTracking | kClientTrackingBrokenRedirect | kModeFlags | kClientTrackingCaching);
  }
}

void Tracking::RememberKeys(Client& client, const CommandSpec& spec,
                            std::span<const std::string_view> args) {
  const bool optin = (client.flags & kClientTrackingOptin) != 0;
  const bool optout = (client.flags & kClientTrackingOptout) != 0;
  const bool caching_given = (client.flags & kClientTrackingCaching) != 0;
  if ((optin && !caching_given) || (optout && caching_given)) return;
  // Shard channels are keys to the key specs, not to a cache.
  if (spec.flags & kCmdPubsub) return;
  std::vector<KeyReference> keys;
  if (!ExtractKeys(spec, args, &keys)) return;
  for (const KeyReference& key : keys) {
    const std::string_view name = args[key.position];
    auto it = keys_.find(name);
    if (it == keys_.end()) it = keys_.emplace(std::string(name), std::set<uint64_t>()).first;
    if (it->second.insert(client.id()).second) items_++;
  }
}

void Tracking::KeyTouched(int /*db_index*/, std::string_view key) {
  // The client whose command changed the key (for NOLOOP in BCAST mode): none for the server's
  // own expiry and eviction, the script's client for a script's write, as Redis's
  // signalModifiedKey(c, ...).
  uint64_t modifier = 0;
  if (!engine_.keyspace().server_deletion() && engine_.call_depth() > 0) {
    modifier = engine_.current_call().client->id();
  }
  InvalidateKey(key, /*bcast=*/true, modifier);
}

void Tracking::InvalidateKey(std::string_view key, bool bcast, uint64_t modifier) {
  if (bcast && !prefixes_.empty()) {
    for (auto& [prefix, state] : prefixes_) {
      if (prefix.size() > key.size() || key.substr(0, prefix.size()) != prefix) continue;
      state.keys.insert_or_assign(std::string(key), modifier);
    }
  }
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  const std::set<uint64_t> ids = std::move(it->second);
  const std::string name = it->first;  // `key` may view the erased entry
  keys_.erase(it);
  items_ -= ids.size();
  Client* current = engine_.current_client();
  const bool in_command = engine_.call_depth() > 0;
  for (uint64_t id : ids) {
    Client* target = engine_.FindClient(id);
    // A client that switched to BCAST mode gets nothing for the keys it read before.
    if (target == nullptr || !(target->flags & kClientTracking) ||
        (target->flags & kClientTrackingBcast)) {
      continue;
    }
    if ((target->flags & kClientTrackingNoloop) && target == current) continue;
    // The running command's own client gets it after the command's reply.
    if (target == current && in_command) {
      pending_.emplace_back(name);
    } else {
      Send(*target, Payload::kKey, name);
    }
  }
}

void Tracking::FlushSignalled(int /*db_index*/) {
  if (clients_ > 0) {
    Client* current = engine_.current_client();
    const bool in_command = engine_.call_depth() > 0;
    for (const auto& [id, client] : engine_.clients()) {
      if (!(client->flags & kClientTracking)) continue;
      if (client.get() == current && in_command) {
        pending_.emplace_back(std::nullopt);
      } else {
        Send(*client, Payload::kNull, {});
      }
    }
  }
  keys_.clear();
  items_ = 0;
}

void Tracking::FlushPending(Client* current) {
  if (pending_.empty()) return;
  std::vector<std::optional<std::string>> pending = std::move(pending_);
  pending_.clear();
  if (current == nullptr) return;
  for (const std::optional<std::string>& key : pending) {
    if (key.has_value()) {
      Send(*current, Payload::kKey, *key);
    } else {
      Send(*current, Payload::kNull, {});
    }
  }
}

void Tracking::Send(Client& client, Payload payload, std::string_view data) {
  // A null is written in the tracking client's protocol, even to a redirect client of the other
  // one (Redis's shared.null[c->resp]).
  const std::string_view null = client.reply().resp() > 2 ? "_\r\n" : "$-1\r\n";
  Client* target = &client;
  bool redirected = false;
  if (client.tracking_redirect != 0) {
    target = engine_.FindClient(client.tracking_redirect);
    if (target == nullptr) {
      client.flags |= kClientTrackingBrokenRedirect;
      if (client.reply().resp() > 2) {
        ReplyBuilder& reply = client.reply();
        const Unmuted unmuted(reply);
        reply.PushHeader(2);
        reply.Bulk("tracking-redir-broken");
        reply.Integer(static_cast<int64_t>(client.tracking_redirect));
        engine_.WakeOutput(client);
      }
      return;
    }
    redirected = true;
  }
  ReplyBuilder& reply = target->reply();
  const Unmuted unmuted(reply);
  if (reply.resp() > 2) {
    reply.PushHeader(2);
    reply.Bulk("invalidate");
  } else if (redirected && (target->flags & kClientPubSub)) {
    reply.PushHeader(3);
    reply.Bulk("message");
    reply.Bulk(kInvalidateChannel);
  } else {
    // RESP2 has no pushes on a connection that reads replies.
    return;
  }
  switch (payload) {
    case Payload::kKey:
      reply.ArrayHeader(1);
      reply.Bulk(data);
      break;
    case Payload::kNull:
      reply.Raw(null);
      break;
    case Payload::kProto:
      reply.Raw(data);
      break;
  }
  engine_.WakeOutput(*target);
}

std::optional<std::string> Tracking::BroadcastReply(
    const std::map<std::string, uint64_t, std::less<>>& keys, uint64_t excluded) {
  size_t count = keys.size();
  if (excluded != 0) {
    count = 0;
    for (const auto& [key, modifier] : keys) count += modifier != excluded ? 1 : 0;
    if (count == 0) return std::nullopt;
  }
  std::string proto = "*" + Int64ToString(static_cast<int64_t>(count)) + "\r\n";
  for (const auto& [key, modifier] : keys) {
    if (excluded != 0 && modifier == excluded) continue;
    proto += "$" + Int64ToString(static_cast<int64_t>(key.size())) + "\r\n";
    proto += key;
    proto += "\r\n";
  }
  return proto;
}

void Tracking::Broadcast() {
  if (clients_ == 0) return;
  for (auto& [prefix, state] : prefixes_) {
    if (state.keys.empty()) continue;
    const std::optional<std::string> everything = BroadcastReply(state.keys, 0);
    for (uint64_t id : state.clients) {
      Client* client = engine_.FindClient(id);
      KEEL_ASSERT(client != nullptr);  // disconnection unsubscribes (Disable)
      if (client->flags & kClientTrackingNoloop) {
        const std::optional<std::string> others = BroadcastReply(state.keys, id);
        if (others.has_value()) Send(*client, Payload::kProto, *others);
      } else {
        Send(*client, Payload::kProto, *everything);
      }
    }
    state.keys.clear();
  }
}

void Tracking::LimitUsedSlots(int64_t max_keys) {
  if (!observing_ || max_keys <= 0) return;
  const auto limit = static_cast<size_t>(max_keys);
  if (keys_.size() <= limit) {
    limit_rounds_ = 0;
    return;
  }
  // The effort grows with every call that could not get under the limit (Redis's
  // timeout_counter). Each round forgets the key at or after a random point of the key space.
  int64_t effort = 100 * (static_cast<int64_t>(limit_rounds_) + 1);
  while (effort-- > 0 && !keys_.empty()) {
    const uint64_t draw = engine_.rng().Next();
    char point[sizeof(draw)];
    std::memcpy(point, &draw, sizeof(draw));
    auto it = keys_.lower_bound(std::string_view(point, sizeof(point)));
    if (it == keys_.end()) it = keys_.begin();
    const std::string key = it->first;
    InvalidateKey(key, /*bcast=*/false, 0);
    if (keys_.size() <= limit) {
      limit_rounds_ = 0;
      return;
    }
  }
  limit_rounds_++;
}

}  // namespace keel
