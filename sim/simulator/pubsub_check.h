// PubSubCheck: subscribers and a publisher inside a simulation, checking every message's
// delivery (engine/server/pubsub.h) while the workload's clients run around them.
//
// Internal clients of the engine (no connection: what they receive is read in-process) change
// their subscriptions at random between steps: SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE of one or
// two names (a name already held too), and UNSUBSCRIBE, PUNSUBSCRIBE and SUNSUBSCRIBE of some
// names or of all. Half speak RESP3 (pushes), half RESP2 (arrays, in the subscribed context). A
// publisher sends PUBLISH and SPUBLISH of numbered messages. The subscriptions go to the engine's
// registry directly (engine/server/pubsub.h), as the commands would: SUBSCRIBE refuses an
// internal client, as Redis refuses its fake clients (CLIENT_DENY_BLOCKING); the rest are
// commands. The check keeps each subscriber's
// subscriptions itself and requires:
//   - every confirmation names what was asked, with the count Redis 7.0 reports (channels and
//     patterns together; shard channels apart);
//   - every message reaches every subscriber once per matching subscription (a channel, each
//     matching pattern; SPUBLISH only shard channels), in the order published, and nothing else
//     arrives; PUBLISH's reply counts exactly those deliveries.
// Within one publish the order of the pattern deliveries is free (Redis walks a dict).
//
// A refused allocation for a subscriber's output (the environment's memory faults) loses what
// it received: it sends RESET and starts over with no subscription.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/rng.h"
#include "engine/server/engine.h"
#include "engine/server/pubsub.h"

namespace keel::sim {

class PubSubCheck {
 public:
  static constexpr size_t kSubscribers = 3;

  // Creates the subscribers and the publisher: call before any connection, as they take the
  // next client ids (clients() of them).
  PubSubCheck(Engine& engine, uint64_t seed);
  ~PubSubCheck();
  PubSubCheck(const PubSubCheck&) = delete;
  PubSubCheck& operator=(const PubSubCheck&) = delete;

  // One random subscription change or publish, checked. Returns the first failure, or empty
  // (and the same failure on every call after it).
  std::string Act();

  size_t clients() const { return kSubscribers + 1; }
  uint64_t published() const { return published_; }
  uint64_t delivered() const { return delivered_; }

 private:
  struct Subscriber {
    Client* client = nullptr;
    bool resp3 = false;
    std::set<std::string> channels;
    std::set<std::string> patterns;
    std::set<std::string> shard_channels;
    // The names held of `kind`, and the count a confirmation of `kind` reports (channels and
    // patterns together, shard channels apart, as Redis 7.0 counts them).
    std::set<std::string>& Held(PubSub::Kind kind);
    size_t Count(PubSub::Kind kind) const;
  };

  // Runs a command from `client` without the command observer (the oracle) seeing it.
  void Run(Client& client, std::vector<std::string> args);
  // Decodes what `subscriber` received into one line per message ("message|ch|m1"); false when
  // its output failed (what it had is lost, and it was reset).
  bool Received(Subscriber& subscriber, std::vector<std::string>* lines);
  void Reset(Subscriber& subscriber);
  std::string Subscribe(Subscriber& subscriber);
  std::string Unsubscribe(Subscriber& subscriber);
  std::string Publish();
  std::string RandomName(PubSub::Kind kind);  // of the small universe of names

  Engine& engine_;
  Rng rng_;
  std::vector<Subscriber> subscribers_;
  Client* publisher_ = nullptr;
  uint64_t published_ = 0;
  uint64_t delivered_ = 0;
  std::string failure_;
};

}  // namespace keel::sim
