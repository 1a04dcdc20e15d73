#include "sim/simulator/pubsub_check.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

#include "engine/base/assert.h"
#include "engine/resp/resp_value.h"
#include "engine/server/pubsub.h"
#include "sim/model/model.h"

namespace keel::sim {
namespace {

// A small universe, so that subscriptions overlap: channels that patterns match in different
// ways, and a pattern that matches none of them. None matches a keyspace notification's channel
// ("__keyspace@0__:..."), which the simulation may turn on for the oracle.
constexpr std::string_view kChannels[] = {"ch:a", "ch:b", "ch:c", "news"};
constexpr std::string_view kPatterns[] = {"ch:*", "ch:[ab]", "?h:c", "n*s", "x*"};

using Kind = PubSub::Kind;

std::string_view SubscribeWord(Kind kind) {
  return kind == Kind::kChannel   ? "subscribe"
         : kind == Kind::kPattern ? "psubscribe"
                                  : "ssubscribe";
}
std::string_view UnsubscribeWord(Kind kind) {
  return kind == Kind::kChannel   ? "unsubscribe"
         : kind == Kind::kPattern ? "punsubscribe"
                                  : "sunsubscribe";
}

std::string Line(std::initializer_list<std::string_view> parts) {
  std::string line;
  for (std::string_view part : parts) {
    if (!line.empty()) line += '|';
    line += part;
  }
  return line;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string text = "[";
  for (const std::string& line : lines) text += (text.size() > 1 ? ", " : "") + line;
  return text + "]";
}

// The command as the failure names it.
std::string Joined(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& arg : args) text += (text.empty() ? "" : " ") + arg;
  return text;
}

}  // namespace

std::set<std::string>& PubSubCheck::Subscriber::Held(Kind kind) {
  return kind == Kind::kChannel ? channels : kind == Kind::kPattern ? patterns : shard_channels;
}

size_t PubSubCheck::Subscriber::Count(Kind kind) const {
  return kind == Kind::kShard ? shard_channels.size() : channels.size() + patterns.size();
}

std::string PubSubCheck::RandomName(Kind kind) {
  return std::string(kind == Kind::kPattern ? kPatterns[rng_.Below(std::size(kPatterns))]
                                            : kChannels[rng_.Below(std::size(kChannels))]);
}

PubSubCheck::PubSubCheck(Engine& engine, uint64_t seed) : engine_(engine), rng_(seed) {
  for (size_t i = 0; i < kSubscribers; i++) {
    Subscriber subscriber;
    subscriber.client = engine_.NewClient(/*conn=*/0, nullptr);
    KEEL_ASSERT(subscriber.client != nullptr);
    subscriber.resp3 = i % 2 == 1;
    subscribers_.push_back(std::move(subscriber));
  }
  publisher_ = engine_.NewClient(/*conn=*/0, nullptr);
  KEEL_ASSERT(publisher_ != nullptr);
  for (Subscriber& subscriber : subscribers_) Reset(subscriber);
}

PubSubCheck::~PubSubCheck() {
  for (Subscriber& subscriber : subscribers_) engine_.FreeClient(subscriber.client);
  engine_.FreeClient(publisher_);
}

void PubSubCheck::Run(Client& client, std::vector<std::string> args) {
  std::vector<std::string_view> views(args.begin(), args.end());
  CommandObserver* observer = engine_.command_observer();
  engine_.set_command_observer(nullptr);
  engine_.RunCommand(client, views);
  engine_.set_command_observer(observer);
}

void PubSubCheck::Reset(Subscriber& subscriber) {
  Client& client = *subscriber.client;
  Run(client, {"reset"});
  if (subscriber.resp3) Run(client, {"hello", "3"});
  client.output().Clear();
  client.output().ClearFailure();
  subscriber.channels.clear();
  subscriber.patterns.clear();
  subscriber.shard_channels.clear();
}

bool PubSubCheck::Received(Subscriber& subscriber, std::vector<std::string>* lines) {
  OutputBuffer& output = subscriber.client->output();
  if (output.failed()) {
    Reset(subscriber);
    return false;
  }
  const std::string bytes = output.TakeAll();
  std::string_view rest = bytes;
  while (!rest.empty()) {
    RespValue value;
    size_t consumed = 0;
    if (DecodeResp(rest, &value, &consumed) != DecodeStatus::kOk) {
      lines->push_back("<undecodable bytes>");
      return true;
    }
    rest.remove_prefix(consumed);
    const RespType aggregate = subscriber.resp3 ? RespType::kPush : RespType::kArray;
    if (value.type != aggregate) {
      lines->push_back("<not a " + std::string(subscriber.resp3 ? "push" : "RESP2 array") + ": " +
                       value.ToString() + ">");
      continue;
    }
    std::string line;
    for (const RespValue& element : value.elements) {
      if (!line.empty()) line += '|';
      if (element.type == RespType::kInteger) {
        line += std::to_string(element.integer);
      } else if (element.type == RespType::kNull || element.type == RespType::kNullBulk) {
        line += "(nil)";
      } else {
        line += element.text;
      }
    }
    lines->push_back(std::move(line));
  }
  return true;
}

std::string PubSubCheck::Act() {
  if (!failure_.empty()) return failure_;
  Subscriber& subscriber = subscribers_[rng_.Below(subscribers_.size())];
  const uint64_t roll = rng_.Below(10);
  if (roll < 3) {
    failure_ = Subscribe(subscriber);
  } else if (roll < 5) {
    failure_ = Unsubscribe(subscriber);
  } else {
    failure_ = Publish();
  }
  return failure_;
}

std::string PubSubCheck::Subscribe(Subscriber& subscriber) {
  const auto kind = static_cast<Kind>(rng_.Below(3));
  std::vector<std::string> args = {std::string(SubscribeWord(kind))};
  std::vector<std::string> expected;
  const size_t names = 1 + rng_.Below(2);
  for (size_t i = 0; i < names; i++) {
    const std::string name = RandomName(kind);
    args.push_back(name);
    subscriber.Held(kind).insert(name);
    expected.push_back(Line({SubscribeWord(kind), name, std::to_string(subscriber.Count(kind))}));
  }
  // SUBSCRIBE itself refuses an internal client (Redis's CLIENT_DENY_BLOCKING for its fake
  // clients), so the subscription goes to the engine's registry as the command would send it.
  for (size_t i = 1; i < args.size(); i++) {
    engine_.pubsub().Subscribe(*subscriber.client, kind, args[i]);
  }
  std::vector<std::string> got;
  if (!Received(subscriber, &got)) return {};
  if (got != expected) {
    return "pub/sub: " + Joined(args) + " was confirmed with " + Lines(got) + ", not " +
           Lines(expected);
  }
  return {};
}

std::string PubSubCheck::Unsubscribe(Subscriber& subscriber) {
  const auto kind = static_cast<Kind>(rng_.Below(3));
  std::set<std::string>& held = subscriber.Held(kind);
  const auto count = [&] { return subscriber.Count(kind); };
  std::vector<std::string> args = {std::string(UnsubscribeWord(kind))};
  std::vector<std::string> expected;
  // Without names: every name held, in an order Redis leaves free (a dict's), so the names are
  // compared as a set; the counts still fall one by one.
  const bool all = rng_.Below(3) == 0;
  if (all) {
    std::vector<std::string> names(held.begin(), held.end());
    held.clear();
    size_t left = count() + names.size();
    for (const std::string& name : names) {
      expected.push_back(Line({UnsubscribeWord(kind), name, std::to_string(--left)}));
    }
    if (names.empty())
      expected.push_back(Line({UnsubscribeWord(kind), "(nil)", std::to_string(count())}));
  } else {
    const size_t names = 1 + rng_.Below(2);
    for (size_t i = 0; i < names; i++) {
      // Mostly a name held, sometimes any name of the universe.
      std::string name;
      if (!held.empty() && rng_.Below(4) != 0) {
        auto it = held.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(rng_.Below(held.size())));
        name = *it;
      } else {
        name = RandomName(kind);
      }
      args.push_back(name);
      held.erase(name);
      expected.push_back(Line({UnsubscribeWord(kind), name, std::to_string(count())}));
    }
  }
  Run(*subscriber.client, args);
  std::vector<std::string> got;
  if (!Received(subscriber, &got)) return {};
  bool same = got == expected;
  if (!same && all && got.size() == expected.size()) {
    // The same names with the same falling counts, in any order of names.
    std::vector<std::string> got_names, expected_names;
    same = true;
    for (size_t i = 0; i < got.size() && same; i++) {
      const size_t got_bar = got[i].rfind('|');
      const size_t expected_bar = expected[i].rfind('|');
      same = got[i].substr(got_bar) == expected[i].substr(expected_bar);
      got_names.push_back(got[i].substr(0, got_bar));
      expected_names.push_back(expected[i].substr(0, expected_bar));
    }
    std::sort(got_names.begin(), got_names.end());
    std::sort(expected_names.begin(), expected_names.end());
    same = same && got_names == expected_names;
  }
  if (!same) {
    return "pub/sub: " + Joined(args) + " was confirmed with " + Lines(got) + ", not " +
           Lines(expected);
  }
  return {};
}

std::string PubSubCheck::Publish() {
  const bool shard = rng_.Below(4) == 0;
  const std::string channel(kChannels[rng_.Below(std::size(kChannels))]);
  const std::string message = "m" + std::to_string(++published_);
  // What each subscriber must receive: its channel subscription's message first, then one per
  // matching pattern (in any order).
  std::vector<std::vector<std::string>> expected(subscribers_.size());
  int64_t receivers = 0;
  for (size_t i = 0; i < subscribers_.size(); i++) {
    const Subscriber& subscriber = subscribers_[i];
    if (shard) {
      if (subscriber.shard_channels.count(channel) > 0) {
        expected[i].push_back(Line({"smessage", channel, message}));
      }
    } else {
      if (subscriber.channels.count(channel) > 0) {
        expected[i].push_back(Line({"message", channel, message}));
      }
      for (const std::string& pattern : subscriber.patterns) {
        if (model::GlobMatch(pattern, channel)) {
          expected[i].push_back(Line({"pmessage", pattern, channel, message}));
        }
      }
    }
    receivers += static_cast<int64_t>(expected[i].size());
  }
  Run(*publisher_, {shard ? "spublish" : "publish", channel, message});
  OutputBuffer& output = publisher_->output();
  const bool reply_lost = output.failed();  // a refused allocation for it
  const std::string reply = reply_lost ? std::string() : output.TakeAll();
  output.Clear();
  output.ClearFailure();
  const std::string sent = std::string(shard ? "SPUBLISH " : "PUBLISH ") + channel + " " + message;
  if (!reply_lost && reply != ":" + std::to_string(receivers) + "\r\n") {
    return "pub/sub: " + sent + " replied " + reply.substr(0, reply.find('\r')) +
           ", not :" + std::to_string(receivers);
  }
  for (size_t i = 0; i < subscribers_.size(); i++) {
    std::vector<std::string> got;
    if (!Received(subscribers_[i], &got)) continue;
    std::vector<std::string> want = expected[i];
    // Pattern deliveries of one publish come in an order Redis leaves free: compare sorted,
    // after the channel's own message, which comes first.
    const auto patterns_from = [](std::vector<std::string>& lines) {
      return lines.begin() + (!lines.empty() && lines[0].rfind("pmessage", 0) != 0 ? 1 : 0);
    };
    if (got.size() == want.size()) {
      std::sort(patterns_from(got), got.end());
      std::sort(patterns_from(want), want.end());
    }
    if (got != want) {
      return "pub/sub: after " + sent + " subscriber " + std::to_string(i) + " (" +
             (subscribers_[i].resp3 ? "RESP3" : "RESP2") + ") received " + Lines(got) + ", not " +
             Lines(want);
    }
    delivered_ += got.size();
  }
  return {};
}

}  // namespace keel::sim
