// PubSub: the channels and patterns clients subscribe to, and the delivery of messages (Redis's
// pubsub.c): PUBLISH, SPUBLISH and the keyspace notifications.
//
// Each channel keeps its subscribers in subscription order, so a message reaches them in that
// order; patterns are matched with Redis's glob in the order they were first subscribed. Shard
// channels (SSUBSCRIBE) are their own namespace, as in a Redis that is not a cluster. A message
// is added to each receiver's output (a push in RESP3, an array in RESP2) and the receiver is
// named to `wake` so that the server writes it out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

class Client;

// One client's subscriptions (Client::subscriptions), sorted, and its patterns in the order it
// subscribed them: Redis keeps a client's patterns in a list, so PUNSUBSCRIBE without arguments
// confirms them in that order.
struct Subscriptions {
  std::set<std::string, std::less<>> channels;
  std::set<std::string, std::less<>> patterns;
  std::set<std::string, std::less<>> shard_channels;
  std::vector<std::string> pattern_order;
  size_t count() const { return channels.size() + patterns.size(); }
};

class PubSub {
 public:
  enum class Kind : uint8_t { kChannel, kPattern, kShard };

  // Subscribes `client` to `name` and replies with the confirmation ("subscribe", "psubscribe"
  // or "ssubscribe", the name, the client's count). Subscribing twice changes nothing but the
  // reply.
  void Subscribe(Client& client, Kind kind, std::string_view name);
  // Unsubscribes `client` from `name` (whether it was subscribed or not) and replies.
  void Unsubscribe(Client& client, Kind kind, std::string_view name);
  // Unsubscribes from every name of `kind`, replying for each (a null name and count 0 when
  // there was none and `reply_when_none`).
  void UnsubscribeAll(Client& client, Kind kind, bool reply_when_none);
  // Forgets every subscription of `client` without a reply (disconnection, RESET).
  void Forget(Client& client);

  // Delivers `message` on `channel` (shard channels for SPUBLISH); returns the receivers.
  size_t Publish(std::string_view channel, std::string_view message, bool shard,
                 const std::function<void(Client&)>& wake);

  size_t channel_count() const { return channels_.size(); }
  size_t pattern_count() const { return patterns_.size(); }
  size_t shard_channel_count() const { return shard_channels_.size(); }
  // Channels with subscribers (shard ones for `shard`) matching `pattern` (all when empty).
  std::vector<std::string> Channels(std::string_view pattern, bool shard) const;
  size_t SubscriberCount(std::string_view channel, bool shard) const;

 private:
  using Subscribers = std::map<std::string, std::vector<Client*>, std::less<>>;
  Subscribers& table(Kind kind) {
    return kind == Kind::kChannel   ? channels_
           : kind == Kind::kPattern ? patterns_
                                    : shard_channels_;
  }
  static std::set<std::string, std::less<>>& names(Subscriptions& subs, Kind kind) {
    return kind == Kind::kChannel   ? subs.channels
           : kind == Kind::kPattern ? subs.patterns
                                    : subs.shard_channels;
  }
  void ReplyConfirmation(Client& client, std::string_view what, const std::string* name,
                         size_t count);
  // Removes `client` from `name`'s subscribers; false when it was not there.
  bool Remove(Kind kind, std::string_view name, Client& client);

  Subscribers channels_;
  Subscribers patterns_;
  std::vector<std::string> pattern_order_;  // patterns in the order first subscribed
  Subscribers shard_channels_;
};

}  // namespace keel
