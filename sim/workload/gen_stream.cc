// Commands of the stream family: XADD ("*", "<ms>-*" and explicit IDs, trims exact and
// approximate), XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID, XREAD, the XGROUP subcommands,
// XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and XINFO. Keys are mostly the family's own
// (xs0..xs2) and IDs near the clock's present, so that streams grow, nodes fill (100 entries),
// trims remove whole ones and groups have entries to deliver; now and then a small ID (order
// errors) or a shared key (WRONGTYPE). Groups and consumers come from small pools so that PELs
// fill and claims move entries. No BLOCK: the model does not follow a blocked read.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

// Stream keys: mostly the family's own few (so that streams grow, get groups and PELs), now and
// then one of the shared keys (WRONGTYPE, and other families' commands on streams).
std::string StreamKey(Rng& rng, const KeySpace& space) {
  if (rng.Below(5) == 0) return RandomKey(rng, space);
  return "xs" + std::to_string(rng.Below(3));
}

// An ID near the clock's present (the entries XADD "*" and "<now>-*" make), now and then a small
// one, a bound or junk.
std::string Id(Rng& rng, const KeySpace& space) {
  switch (rng.Below(20)) {
    case 0:
      return "-";
    case 1:
      return "+";
    case 2:
      return rng.Below(2) == 0 ? "x" : "0-0";
    case 3:
      return std::to_string(Between(rng, 0, 300)) + "-" + std::to_string(Between(rng, 0, 3));
    case 4:
    case 5:
      return std::to_string(space.now_ms - Between(rng, 0, 3000));
    default:
      return std::to_string(space.now_ms - Between(rng, 0, 3000)) + "-" +
             std::to_string(Between(rng, 0, 2));
  }
}

std::string Bound(Rng& rng, const KeySpace& space) {
  std::string id = Id(rng, space);
  if (rng.Below(6) == 0 && id != "-" && id != "+") return "(" + id;
  return id;
}

std::string Group(Rng& rng) { return rng.Below(3) == 0 ? "g2" : "g1"; }
std::string Consumer(Rng& rng) { return "c" + std::to_string(rng.Below(3)); }

std::string Count(Rng& rng) {
  static constexpr int64_t kCounts[] = {0, 1, 2, 3, 10, -1};
  return MaybeBadNumber(rng, kCounts[rng.Below(std::size(kCounts))]);
}

void AddTrim(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  const bool maxlen = rng.Below(2) == 0;
  args->push_back(RandomCase(rng, maxlen ? "maxlen" : "minid"));
  const uint64_t op = rng.Below(3);
  if (op == 1) args->push_back("~");
  if (op == 2) args->push_back("=");
  args->push_back(maxlen ? MaybeBadNumber(rng, Between(rng, 0, 150)) : Id(rng, space));
  if (rng.Below(8) == 0) {
    args->push_back(RandomCase(rng, "limit"));
    args->push_back(MaybeBadNumber(rng, Between(rng, 0, 120)));
  }
}

void AddFields(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  static constexpr std::string_view kFields[] = {"f", "g", "1", "name"};
  const int64_t pairs = rng.Below(30) == 0 ? 0 : Between(rng, 1, 3);
  for (int64_t i = 0; i < pairs; i++) {
    args->push_back(std::string(kFields[rng.Below(std::size(kFields))]));
    args->push_back(RandomStoredValue(rng, space));
  }
}

void AddStreams(Rng& rng, const KeySpace& space, bool group, std::vector<std::string>* args) {
  args->push_back(RandomCase(rng, "streams"));
  const int64_t keys = Between(rng, 1, 2);
  std::vector<std::string> ids;
  for (int64_t i = 0; i < keys; i++) {
    args->push_back(StreamKey(rng, space));
    if (group) {
      ids.push_back(rng.Below(3) != 0 ? ">" : Id(rng, space));
    } else {
      ids.push_back(rng.Below(5) == 0 ? "$" : Id(rng, space));
    }
  }
  if (rng.Below(40) == 0) ids.pop_back();
  args->insert(args->end(), ids.begin(), ids.end());
}

}  // namespace

void GenerateStream(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const std::string key = StreamKey(rng, space);
  switch (rng.Below(24)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: {
      *args = {RandomCase(rng, "xadd"), key};
      if (rng.Below(15) == 0) args->push_back(RandomCase(rng, "nomkstream"));
      if (rng.Below(5) == 0) AddTrim(rng, space, args);
      const uint64_t form = rng.Below(10);
      if (form < 3) {
        args->push_back("*");
      } else if (form < 7) {
        args->push_back(std::to_string(space.now_ms - Between(rng, 0, 2)) + "-*");
      } else {
        args->push_back(Id(rng, space));
      }
      AddFields(rng, space, args);
      break;
    }
    case 6:
      *args = {RandomCase(rng, "xlen"), key};
      break;
    case 7:
    case 8:
      *args = {RandomCase(rng, rng.Below(2) == 0 ? "xrange" : "xrevrange"), key, Bound(rng, space),
               Bound(rng, space)};
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "count"));
        args->push_back(Count(rng));
      }
      break;
    case 9:
      *args = {RandomCase(rng, "xdel"), key, Id(rng, space)};
      if (rng.Below(2) == 0) args->push_back(Id(rng, space));
      break;
    case 10:
      *args = {RandomCase(rng, "xtrim"), key};
      AddTrim(rng, space, args);
      break;
    case 11:
      *args = {RandomCase(rng, "xsetid"), key, Id(rng, space)};
      if (rng.Below(3) == 0) {
        args->push_back(RandomCase(rng, "entriesadded"));
        args->push_back(MaybeBadNumber(rng, Between(rng, 0, 400)));
      }
      if (rng.Below(3) == 0) {
        args->push_back(RandomCase(rng, "maxdeletedid"));
        args->push_back(Id(rng, space));
      }
      break;
    case 12:
      *args = {RandomCase(rng, "xread")};
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "count"));
        args->push_back(Count(rng));
      }
      AddStreams(rng, space, false, args);
      break;
    case 13:
    case 14: {
      *args = {RandomCase(rng, "xreadgroup"), RandomCase(rng, "group"), Group(rng), Consumer(rng)};
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "count"));
        args->push_back(Count(rng));
      }
      if (rng.Below(6) == 0) args->push_back(RandomCase(rng, "noack"));
      AddStreams(rng, space, true, args);
      break;
    }
    case 15: {
      static constexpr std::string_view kSubs[] = {
          "create", "create", "setid", "destroy", "createconsumer", "delconsumer", "help"};
      const std::string_view sub = kSubs[rng.Below(std::size(kSubs))];
      *args = {RandomCase(rng, "xgroup"), RandomCase(rng, sub)};
      if (sub == "help") break;
      args->push_back(key);
      args->push_back(Group(rng));
      if (sub == "create" || sub == "setid") {
        args->push_back(rng.Below(4) == 0 ? "$" : rng.Below(2) == 0 ? "0" : Id(rng, space));
        if (sub == "create" && rng.Below(2) == 0) args->push_back(RandomCase(rng, "mkstream"));
        if (rng.Below(5) == 0) {
          args->push_back(RandomCase(rng, "entriesread"));
          args->push_back(MaybeBadNumber(rng, Between(rng, -1, 30)));
        }
      } else if (sub == "createconsumer" || sub == "delconsumer") {
        args->push_back(Consumer(rng));
      }
      break;
    }
    case 16:
      *args = {RandomCase(rng, "xack"), key, Group(rng), Id(rng, space)};
      if (rng.Below(2) == 0) args->push_back(Id(rng, space));
      break;
    case 17:
      *args = {RandomCase(rng, "xpending"), key, Group(rng)};
      if (rng.Below(2) == 0) {
        if (rng.Below(4) == 0) {
          args->push_back(RandomCase(rng, "idle"));
          args->push_back(MaybeBadNumber(rng, Between(rng, 0, 50)));
        }
        args->push_back(Bound(rng, space));
        args->push_back(Bound(rng, space));
        args->push_back(Count(rng));
        if (rng.Below(3) == 0) args->push_back(Consumer(rng));
      }
      break;
    case 18:
    case 19: {
      *args = {RandomCase(rng, "xclaim"),
               key,
               Group(rng),
               Consumer(rng),
               MaybeBadNumber(rng, rng.Below(3) == 0 ? 20 : 0),
               Id(rng, space)};
      if (rng.Below(2) == 0) args->push_back(Id(rng, space));
      static constexpr std::string_view kOptions[] = {"force",  "justid", "retrycount",
                                                      "lastid", "idle",   "time"};
      const uint64_t options = rng.Below(3);
      for (uint64_t i = 0; i < options; i++) {
        const std::string_view option = kOptions[rng.Below(std::size(kOptions))];
        args->push_back(RandomCase(rng, option));
        if (option == "retrycount") args->push_back(MaybeBadNumber(rng, Between(rng, 0, 5)));
        if (option == "lastid") args->push_back(Id(rng, space));
        if (option == "idle") args->push_back(MaybeBadNumber(rng, Between(rng, 0, 100)));
        if (option == "time") args->push_back(std::to_string(space.now_ms - Between(rng, 0, 50)));
      }
      break;
    }
    case 20:
      *args = {RandomCase(rng, "xautoclaim"),
               key,
               Group(rng),
               Consumer(rng),
               MaybeBadNumber(rng, rng.Below(3) == 0 ? 20 : 0),
               Bound(rng, space)};
      if (rng.Below(2) == 0) {
        args->push_back(RandomCase(rng, "count"));
        args->push_back(MaybeBadNumber(rng, Between(rng, 0, 5)));
      }
      if (rng.Below(3) == 0) args->push_back(RandomCase(rng, "justid"));
      break;
    case 21:
      *args = {RandomCase(rng, "xinfo"), RandomCase(rng, "stream"), key};
      if (rng.Below(3) == 0) {
        args->push_back(RandomCase(rng, "full"));
        if (rng.Below(2) == 0) {
          args->push_back(RandomCase(rng, "count"));
          args->push_back(Count(rng));
        }
      }
      break;
    case 22:
      *args = {RandomCase(rng, "xinfo"), RandomCase(rng, "groups"), key};
      break;
    default:
      if (rng.Below(8) == 0) {
        *args = {RandomCase(rng, "xinfo"), RandomCase(rng, "help")};
      } else {
        *args = {RandomCase(rng, "xinfo"), RandomCase(rng, "consumers"), key, Group(rng)};
      }
      break;
  }
}

}  // namespace keel::workload
