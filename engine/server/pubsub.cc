#include "engine/server/pubsub.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "engine/base/glob.h"
#include "engine/server/client.h"

namespace keel {

namespace {

std::string_view SubscribeWord(PubSub::Kind kind) {
  switch (kind) {
    case PubSub::Kind::kChannel:
      return "subscribe";
    case PubSub::Kind::kPattern:
      return "psubscribe";
    case PubSub::Kind::kShard:
      return "ssubscribe";
  }
  return "";
}

std::string_view UnsubscribeWord(PubSub::Kind kind) {
  switch (kind) {
    case PubSub::Kind::kChannel:
      return "unsubscribe";
    case PubSub::Kind::kPattern:
      return "punsubscribe";
    case PubSub::Kind::kShard:
      return "sunsubscribe";
  }
  return "";
}

// The count a confirmation reports: shard subscriptions apart, as Redis 7.0 counts them.
size_t CountFor(const Subscriptions& subs, PubSub::Kind kind) {
  return kind == PubSub::Kind::kShard ? subs.shard_channels.size() : subs.count();
}

void UpdatePubsubFlag(Client& client) {
  const Subscriptions* subs = client.subscriptions.get();
  if (subs != nullptr && (subs->count() > 0 || !subs->shard_channels.empty())) {
    client.flags |= kClientPubSub;
  } else {
    client.flags &= ~kClientPubSub;
  }
}

// Pub/sub messages and confirmations are pushed whatever CLIENT REPLY says, in both protocols
// (Redis's CLIENT_PUSHING lifts the silencing): the builder is unmuted while one is written.
class Pushing {
 public:
  explicit Pushing(ReplyBuilder& reply) : reply_(reply), was_muted_(reply.muted()) {
    reply_.set_muted(false);
  }
  ~Pushing() { reply_.set_muted(was_muted_); }
  Pushing(const Pushing&) = delete;
  Pushing& operator=(const Pushing&) = delete;

 private:
  ReplyBuilder& reply_;
  bool was_muted_;
};

}  // namespace

void PubSub::ReplyConfirmation(Client& client, std::string_view what, const std::string* name,
                               size_t count) {
  ReplyBuilder& reply = client.reply();
  const Pushing pushing(reply);
  reply.PushHeader(3);
  reply.Bulk(what);
  if (name != nullptr) {
    reply.Bulk(*name);
  } else {
    reply.NullBulk();
  }
  reply.Integer(static_cast<int64_t>(count));
}

void PubSub::Subscribe(Client& client, Kind kind, std::string_view name) {
  if (client.subscriptions == nullptr) client.subscriptions = std::make_unique<Subscriptions>();
  Subscriptions& subs = *client.subscriptions;
  auto [it, added] = names(subs, kind).emplace(name);
  if (added) {
    if (kind == Kind::kPattern) subs.pattern_order.emplace_back(name);
    Subscribers& subscribers = table(kind);
    auto entry = subscribers.find(name);
    if (entry == subscribers.end()) {
      entry = subscribers.emplace(std::string(name), std::vector<Client*>()).first;
      if (kind == Kind::kPattern) pattern_order_.emplace_back(name);
    }
    entry->second.push_back(&client);
  }
  UpdatePubsubFlag(client);
  ReplyConfirmation(client, SubscribeWord(kind), &*it, CountFor(subs, kind));
}

bool PubSub::Remove(Kind kind, std::string_view name, Client& client) {
  Subscribers& subscribers = table(kind);
  auto entry = subscribers.find(name);
  if (entry == subscribers.end()) return false;
  std::vector<Client*>& clients = entry->second;
  auto it = std::find(clients.begin(), clients.end(), &client);
  if (it == clients.end()) return false;
  clients.erase(it);
  if (clients.empty()) {
    if (kind == Kind::kPattern) std::erase(pattern_order_, entry->first);
    subscribers.erase(entry);
  }
  return true;
}

void PubSub::Unsubscribe(Client& client, Kind kind, std::string_view name) {
  if (client.subscriptions == nullptr) client.subscriptions = std::make_unique<Subscriptions>();
  Subscriptions& subs = *client.subscriptions;
  const std::string copy(name);  // the reply names it after it left the set
  auto& mine = names(subs, kind);
  auto it = mine.find(name);
  if (it != mine.end()) {
    mine.erase(it);
    if (kind == Kind::kPattern) std::erase(subs.pattern_order, copy);
    const bool removed = Remove(kind, name, client);
    KEEL_ASSERT(removed);
  }
  UpdatePubsubFlag(client);
  ReplyConfirmation(client, UnsubscribeWord(kind), &copy, CountFor(subs, kind));
}

void PubSub::UnsubscribeAll(Client& client, Kind kind, bool reply_when_none) {
  Subscriptions* subs = client.subscriptions.get();
  if (subs == nullptr || names(*subs, kind).empty()) {
    if (reply_when_none) {
      ReplyConfirmation(client, UnsubscribeWord(kind), nullptr,
                        subs == nullptr ? 0 : CountFor(*subs, kind));
    }
    return;
  }
  if (kind == Kind::kPattern) {
    // In the order subscribed. Each Unsubscribe then finds the order already empty.
    const std::vector<std::string> order = std::move(subs->pattern_order);
    subs->pattern_order.clear();
    for (const std::string& name : order) Unsubscribe(client, kind, name);
    return;
  }
  // Bounded by the client's subscriptions: each turn removes one.
  while (!names(*subs, kind).empty()) {
    const std::string name = *names(*subs, kind).begin();
    Unsubscribe(client, kind, name);
  }
}

void PubSub::Forget(Client& client) {
  Subscriptions* subs = client.subscriptions.get();
  if (subs == nullptr) return;
  for (Kind kind : {Kind::kChannel, Kind::kPattern, Kind::kShard}) {
    for (const std::string& name : names(*subs, kind)) Remove(kind, name, client);
    names(*subs, kind).clear();
  }
  client.subscriptions.reset();
  UpdatePubsubFlag(client);
}

size_t PubSub::Publish(std::string_view channel, std::string_view message, bool shard,
                       const std::function<void(Client&)>& wake) {
  size_t receivers = 0;
  const Subscribers& direct = shard ? shard_channels_ : channels_;
  if (auto entry = direct.find(channel); entry != direct.end()) {
    for (Client* client : entry->second) {
      ReplyBuilder& reply = client->reply();
      const Pushing pushing(reply);
      reply.PushHeader(3);
      reply.Bulk(shard ? "smessage" : "message");
      reply.Bulk(channel);
      reply.Bulk(message);
      wake(*client);
      receivers++;
    }
  }
  if (shard) return receivers;
  for (const std::string& pattern : pattern_order_) {
    if (!GlobMatch(pattern, channel)) continue;
    auto entry = patterns_.find(pattern);
    KEEL_ASSERT(entry != patterns_.end());
    for (Client* client : entry->second) {
      ReplyBuilder& reply = client->reply();
      const Pushing pushing(reply);
      reply.PushHeader(4);
      reply.Bulk("pmessage");
      reply.Bulk(pattern);
      reply.Bulk(channel);
      reply.Bulk(message);
      wake(*client);
      receivers++;
    }
  }
  return receivers;
}

std::vector<std::string> PubSub::Channels(std::string_view pattern, bool shard) const {
  std::vector<std::string> found;
  for (const auto& [name, clients] : shard ? shard_channels_ : channels_) {
    if (pattern.empty() || GlobMatch(pattern, name)) found.push_back(name);
  }
  return found;
}

size_t PubSub::SubscriberCount(std::string_view channel, bool shard) const {
  const Subscribers& subscribers = shard ? shard_channels_ : channels_;
  auto entry = subscribers.find(channel);
  return entry == subscribers.end() ? 0 : entry->second.size();
}

}  // namespace keel
