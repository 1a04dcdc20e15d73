// Tracking: client-side caching's key tracking and invalidation (Redis 7.0's tracking.c).
//
// CLIENT TRACKING ON makes the server remember, for each key a client's read-only command read,
// that the client may hold it in a cache (default mode); a write of the key, its expiry or
// eviction sends that client an invalidation, once: the key is forgotten until it is read again.
// In BCAST mode a client remembers nothing per key: it subscribes to key prefixes and receives,
// once per event-loop iteration, every key matching a prefix that changed. OPTIN and OPTOUT
// make a read tracked only when CLIENT CACHING YES (resp. not when CLIENT CACHING NO) was given
// before it; NOLOOP leaves out the client's own writes.
//
// An invalidation is a RESP3 push (">2 invalidate [keys]") on the client's own connection, or,
// with REDIRECT, goes to another client: as a push when that one speaks RESP3, as a message on
// "__redis__:invalidate" when it speaks RESP2 and is subscribed. A flush invalidates everything
// with a null in place of the keys. When the redirect client is gone, the tracking client is
// flagged (CLIENT LIST 'R') and, over RESP3, told with a "tracking-redir-broken" push.
//
// Invalidations come from the keyspace's write path (a keyspace observer: KeyTouched and
// FlushSignalled), not from commands. Those a running command causes for its own client are
// held until the outermost command ends (FlushPending) so that they follow its reply, as
// Redis's tracking_pending_keys. The table holds at most tracking-table-max-keys keys: past it,
// LimitUsedSlots forgets keys chosen at random with the engine's seeded generator, invalidating
// them for their clients (Redis's trackingLimitUsedSlots).
//
// As in Redis, a client's entries are not removed when it turns tracking off or disconnects:
// they are skipped (and dropped) when their key is invalidated. Single-threaded, engine code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/db/keyspace_observer.h"

namespace keel {

class Client;
class Engine;
struct CommandSpec;

class Tracking final : public KeyspaceObserver {
 public:
  explicit Tracking(Engine& engine) : engine_(engine) {}
  ~Tracking() override;
  Tracking(const Tracking&) = delete;
  Tracking& operator=(const Tracking&) = delete;

  // The CLIENT TRACKING ON checks of prefixes against each other and the client's own (Redis's
  // checkPrefixCollisionsOrReply). kOk: none overlap. kRefused: `*error` is the reply and
  // nothing changes. kRefusedButEnabled: Redis 7.0.15 replies `*error` for two given prefixes
  // that overlap (but the first pair) and then enables tracking all the same, replying +OK too.
  enum class PrefixCheck : uint8_t { kOk, kRefused, kRefusedButEnabled };
  PrefixCheck CheckPrefixes(const Client& client, std::span<const std::string_view> prefixes,
                            std::string* error) const;
  // CLIENT TRACKING ON with `options` (kClientTrackingBcast, Optin, Optout, Noloop bits),
  // already checked: the client tracks, sends to `redirect_to` (0: itself) and, in BCAST mode,
  // subscribes to `prefixes` (the empty prefix when none is given).
  void Enable(Client& client, uint64_t redirect_to, uint32_t options,
              std::span<const std::string_view> prefixes);
  // CLIENT TRACKING OFF, RESET, disconnection.
  void Disable(Client& client);

  // After a read-only command of a tracking client in default mode: remembers the keys of
  // `spec` with `args` for it, unless OPTIN/OPTOUT and CLIENT CACHING say otherwise.
  void RememberKeys(Client& client, const CommandSpec& spec,
                    std::span<const std::string_view> args);
  // Sends the invalidations held for the running command's client (after its outermost
  // command ended, or after evictions before a command).
  void FlushPending(Client* current);
  bool has_pending() const { return !pending_.empty(); }
  // Once per event-loop iteration: the BCAST invalidations of the keys changed since the last.
  void Broadcast();
  // Before each command and in cron: forgets (and invalidates) keys past tracking-table-max-keys.
  void LimitUsedSlots(int64_t max_keys);

  size_t client_count() const { return clients_; }
  size_t total_keys() const { return keys_.size(); }
  size_t total_items() const { return items_; }
  size_t total_prefixes() const { return prefixes_.size(); }

  // KeyspaceObserver.
  void KeyTouched(int db_index, std::string_view key) override;
  void FlushSignalled(int db_index) override;

 private:
  // The keys changed under one prefix since the last broadcast, each with the id of the client
  // whose command changed it last (0: the server's expiry or eviction), and its subscribers.
  struct Bcast {
    std::map<std::string, uint64_t, std::less<>> keys;
    std::vector<uint64_t> clients;
  };
  enum class Payload : uint8_t { kKey, kNull, kProto };

  // Redis's trackingInvalidateKey: `bcast` also queues the key for the prefixes it matches.
  void InvalidateKey(std::string_view key, bool bcast, uint64_t modifier);
  // Redis's sendTrackingMessage: `data` is the key, or RESP bytes (kProto).
  void Send(Client& client, Payload payload, std::string_view data);
  // The RESP array of `keys` but those last changed by `excluded` (0: none excluded); nullopt
  // when that leaves none and `excluded` is not 0.
  static std::optional<std::string> BroadcastReply(
      const std::map<std::string, uint64_t, std::less<>>& keys, uint64_t excluded);
  void Observe();

  Engine& engine_;
  std::map<std::string, std::set<uint64_t>, std::less<>> keys_;  // key -> client ids
  std::map<std::string, Bcast, std::less<>> prefixes_;
  size_t items_ = 0;    // ids across keys_
  size_t clients_ = 0;  // clients with tracking on
  // Invalidations for the running command's own client: a key, or nullopt for a flush.
  std::vector<std::optional<std::string>> pending_;
  uint32_t limit_rounds_ = 0;  // LimitUsedSlots calls in a row that stayed over the limit
  bool observing_ = false;
};

}  // namespace keel
