// The stream family in the model: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XSETID, XREAD,
// XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and XINFO, written from Redis 7.0's
// t_stream.c rules over a std::map of entries.
//
// Where Redis's nodes would split (a new listpack at 100 entries, deleted ones counted, or when
// the node's bytes plus the new values reach 4096) is kept as a list of nodes with their entries'
// listpack sizes, computed from listpack.c's encodings: approximate trimming removes whole nodes,
// and XINFO STREAM counts them. The workload leaves stream-node-max-* alone.
//
// Blocking (XREAD and XREADGROUP with BLOCK) is not modelled: the workload sends no BLOCK.
#include <algorithm>
#include <climits>

#include "sim/model/model.h"

namespace keel::model {
namespace {

using Id = StreamIdPair;

constexpr size_t kNodeMaxBytes = 4096;
constexpr int64_t kNodeMaxEntries = 100;
constexpr std::string_view kInvalidId =
    "ERR Invalid stream ID specified as stream command argument";
constexpr Id kMaxId{UINT64_MAX, UINT64_MAX};

// A name as Redis's "%s" prints it into an error: up to its first NUL byte.
std::string CText(const std::string& text) { return text.substr(0, text.find('\0')); }

std::string IdText(Id id) { return std::to_string(id.first) + "-" + std::to_string(id.second); }

bool Incr(Id* id) {
  if (id->second == UINT64_MAX) {
    if (id->first == UINT64_MAX) return false;
    *id = {id->first + 1, 0};
    return true;
  }
  id->second++;
  return true;
}

bool Decr(Id* id) {
  if (id->second == 0) {
    if (id->first == 0) return false;
    *id = {id->first - 1, UINT64_MAX};
    return true;
  }
  id->second--;
  return true;
}

// --- Listpack sizes (listpack.c) --------------------------------------------------------------

size_t BacklenBytes(size_t encoded) {
  if (encoded <= 127) return 1;
  if (encoded < 16383) return 2;
  if (encoded < 2097151) return 3;
  if (encoded < 268435455) return 4;
  return 5;
}

size_t IntBytes(int64_t v) {
  size_t encoded = 9;
  if (v >= 0 && v <= 127) {
    encoded = 1;
  } else if (v >= -4096 && v <= 4095) {
    encoded = 2;
  } else if (v >= -32768 && v <= 32767) {
    encoded = 3;
  } else if (v >= -8388608 && v <= 8388607) {
    encoded = 4;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    encoded = 5;
  }
  return encoded + BacklenBytes(encoded);
}

size_t ElementBytes(const std::string& element) {
  int64_t v = 0;
  if (element.size() <= 20 && ParseInt64(element, &v)) return IntBytes(v);
  size_t encoded = element.size() + (element.size() < 64 ? 1 : element.size() < 4096 ? 2 : 5);
  return encoded + BacklenBytes(encoded);
}

size_t NodeBytes(const StreamNodeModel& node) {
  int64_t live = 0;
  int64_t deleted = 0;
  for (const auto& [id, gone] : node.entries) (gone ? deleted : live)++;
  size_t bytes = 7 + IntBytes(live) + IntBytes(deleted) +
                 IntBytes(static_cast<int64_t>(node.master_fields.size())) + IntBytes(0);
  for (const std::string& field : node.master_fields) bytes += ElementBytes(field);
  for (size_t size : node.entry_bytes) bytes += size;
  return bytes;
}

// --- Values -----------------------------------------------------------------------------------

// Redis's string2ull.
bool StringToUll(const std::string& text, uint64_t* value) {
  int64_t strict = 0;
  if (ParseInt64(text, &strict)) {
    if (strict < 0) return false;
    *value = static_cast<uint64_t>(strict);
    return true;
  }
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r'))) i++;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i >= text.size()) return false;
  uint64_t result = 0;
  for (; i < text.size(); i++) {
    if (text[i] < '0' || text[i] > '9') return false;
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (result > (UINT64_MAX - digit) / 10) return false;
    result = result * 10 + digit;
  }
  *value = negative ? 0 - result : result;
  return true;
}

// streamGenericParseIDOrReply.
bool ParseId(std::string text, uint64_t missing_seq, bool strict, Id* id, bool* seq_given,
             Expected* error) {
  *error = Error(kInvalidId);
  if (text.size() > 127) return false;
  text = text.substr(0, text.find('\0'));
  if (strict && (text == "-" || text == "+")) return false;
  if (seq_given != nullptr) *seq_given = true;
  if (text == "-") {
    *id = {0, 0};
    return true;
  }
  if (text == "+") {
    *id = kMaxId;
    return true;
  }
  const size_t dash = text.find('-');
  uint64_t ms = 0;
  uint64_t seq = missing_seq;
  if (!StringToUll(text.substr(0, dash), &ms)) return false;
  if (dash != std::string::npos) {
    const std::string rest = text.substr(dash + 1);
    if (seq_given != nullptr && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!StringToUll(rest, &seq)) {
      return false;
    }
  }
  *id = {ms, seq};
  return true;
}

bool ParseInterval(const std::string& text, uint64_t missing_seq, Id* id, bool* exclusive,
                   Expected* error) {
  *exclusive = text.size() > 1 && text[0] == '(';
  if (*exclusive) return ParseId(text.substr(1), missing_seq, true, id, nullptr, error);
  return ParseId(text, missing_seq, false, id, nullptr, error);
}

bool LookupStream(Call& call, std::string_view key, Value** value, Expected* error) {
  *value = call.Lookup(key);
  if (*value != nullptr && (*value)->type != ValueType::kStream) {
    *error = Error(kWrongType);
    return false;
  }
  return true;
}

Value NewStream() {
  Value value;
  value.type = ValueType::kStream;
  value.encoding = Encoding::kStream;
  return value;
}

// The stream's last live entry ID (streamLastValidID).
bool LastLive(const StreamModel& s, Id* id) {
  if (s.entries.empty()) return false;
  *id = s.entries.rbegin()->first;
  return true;
}

// streamAppendItem after the ID checks.
void Append(StreamModel& s, Id id, const std::vector<std::string>& pairs) {
  const size_t fields = pairs.size() / 2;
  size_t values_bytes = 0;
  for (const std::string& p : pairs) values_bytes += p.size();
  StreamNodeModel* node = s.nodes.empty() ? nullptr : &s.nodes.back();
  if (node != nullptr) {
    if (NodeBytes(*node) + values_bytes >= kNodeMaxBytes ||
        static_cast<int64_t>(node->entries.size()) >= kNodeMaxEntries) {
      node = nullptr;
    }
  }
  bool same = false;
  if (node == nullptr) {
    s.nodes.emplace_back();
    node = &s.nodes.back();
    node->master = id;
    for (size_t i = 0; i < fields; i++) node->master_fields.push_back(pairs[2 * i]);
    same = true;
  } else if (node->master_fields.size() == fields) {
    same = true;
    for (size_t i = 0; i < fields && same; i++) {
      // lpGet's bytes: an integer master field reads as its canonical text.
      same = node->master_fields[i] == pairs[2 * i];
    }
  }
  size_t bytes = IntBytes(same ? 2 : 0) +
                 IntBytes(static_cast<int64_t>(id.first - node->master.first)) +
                 IntBytes(static_cast<int64_t>(id.second - node->master.second));
  if (!same) bytes += IntBytes(static_cast<int64_t>(fields));
  for (size_t i = 0; i < fields; i++) {
    if (!same) bytes += ElementBytes(pairs[2 * i]);
    bytes += ElementBytes(pairs[2 * i + 1]);
  }
  bytes += IntBytes(static_cast<int64_t>(same ? fields + 3 : 2 * fields + 4));
  node->entries.emplace_back(id, false);
  node->entry_bytes.push_back(bytes);
  s.entries[id] = pairs;
  s.entries_added++;
  s.last_id = id;
  if (s.entries.size() == 1) s.first_id = id;
}

void MarkDeleted(StreamModel& s, Id id) {
  for (size_t n = 0; n < s.nodes.size(); n++) {
    StreamNodeModel& node = s.nodes[n];
    for (auto& [entry_id, gone] : node.entries) {
      if (entry_id != id || gone) continue;
      gone = true;
      const bool any_live = std::any_of(node.entries.begin(), node.entries.end(),
                                        [](const auto& e) { return !e.second; });
      if (!any_live) s.nodes.erase(s.nodes.begin() + static_cast<std::ptrdiff_t>(n));
      return;
    }
  }
}

size_t LiveIn(const StreamNodeModel& node) {
  return static_cast<size_t>(std::count_if(node.entries.begin(), node.entries.end(),
                                           [](const auto& e) { return !e.second; }));
}

struct TrimArgs {
  int strategy = 0;  // 0 none, 1 maxlen, 2 minid
  uint64_t maxlen = 0;
  Id minid{0, 0};
  bool approx = false;
  int64_t limit = 0;
  size_t threshold_at = 0;
};

// streamTrim.
int64_t Trim(StreamModel& s, const TrimArgs& args) {
  if (args.strategy == 0) return 0;
  int64_t deleted = 0;
  while (!s.nodes.empty()) {
    if (args.strategy == 1 && s.entries.size() <= args.maxlen) break;
    StreamNodeModel& node = s.nodes.front();
    const auto live = static_cast<int64_t>(LiveIn(node));
    if (args.limit != 0 && deleted + live > args.limit) break;
    const bool remove = args.strategy == 1
                            ? s.entries.size() - static_cast<uint64_t>(live) >= args.maxlen
                            : node.entries.back().first < args.minid;
    if (remove) {
      for (const auto& [id, gone] : node.entries) {
        if (!gone) s.entries.erase(id);
      }
      s.nodes.erase(s.nodes.begin());
      deleted += live;
      continue;
    }
    if (args.approx) break;
    for (auto& [id, gone] : node.entries) {
      const bool stop = args.strategy == 1 ? s.entries.size() <= args.maxlen : id >= args.minid;
      if (stop) break;
      if (!gone) {
        gone = true;
        s.entries.erase(id);
        deleted++;
      }
    }
    break;
  }
  if (s.entries.empty()) {
    s.first_id = {0, 0};
  } else if (deleted > 0) {
    s.first_id = s.entries.begin()->first;
  }
  return deleted;
}

RespValue BulkValue(std::string_view text) { return Bulk(text).value; }

RespValue EntryValue(Id id, const std::vector<std::string>& pairs) {
  std::vector<RespValue> fields;
  for (const std::string& p : pairs) fields.push_back(BulkValue(p));
  return Array({BulkValue(IdText(id)), Array(std::move(fields)).value}).value;
}

std::vector<RespValue> RangeOf(const StreamModel& s, Id start, Id end, size_t count, bool reverse) {
  std::vector<RespValue> out;
  if (start > end) return out;
  if (!reverse) {
    for (auto it = s.entries.lower_bound(start); it != s.entries.end() && it->first <= end; ++it) {
      out.push_back(EntryValue(it->first, it->second));
      if (count != 0 && out.size() == count) break;
    }
  } else {
    auto it = s.entries.upper_bound(end);
    while (it != s.entries.begin()) {
      --it;
      if (it->first < start) break;
      out.push_back(EntryValue(it->first, it->second));
      if (count != 0 && out.size() == count) break;
    }
  }
  return out;
}

// --- XADD, XTRIM ------------------------------------------------------------------------------

// streamParseAddOrTrimArgsOrReply: the index of the ID (XADD), or past the options; 0 on error.
size_t ParseAddTrim(Call& call, bool xadd, TrimArgs* args, bool* nomkstream, bool* id_given,
                    bool* seq_given, Id* id, Expected* error) {
  bool limit_given = false;
  size_t i = 2;
  const auto& a = call.args;
  for (; i < a.size(); i++) {
    const size_t more = a.size() - 1 - i;
    if (xadd && a[i] == "*") break;
    if ((OptionIs(a[i], "maxlen") || OptionIs(a[i], "minid")) && more > 0) {
      const bool maxlen = OptionIs(a[i], "maxlen");
      if (args->strategy != 0) {
        *error =
            Error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
        return 0;
      }
      args->approx = false;
      if (more >= 2 && a[i + 1] == "~") {
        args->approx = true;
        i++;
      } else if (more >= 2 && a[i + 1] == "=") {
        i++;
      }
      if (maxlen) {
        int64_t v = 0;
        if (!ParseInt64(a[i + 1], &v)) {
          *error = Error(kNotInteger);
          return 0;
        }
        if (v < 0) {
          *error = Error("ERR The MAXLEN argument must be >= 0.");
          return 0;
        }
        args->maxlen = static_cast<uint64_t>(v);
        args->strategy = 1;
      } else {
        if (!ParseId(a[i + 1], 0, true, &args->minid, nullptr, error)) return 0;
        args->strategy = 2;
      }
      i++;
      args->threshold_at = i;
    } else if (OptionIs(a[i], "limit") && more > 0) {
      int64_t v = 0;
      if (!ParseInt64(a[i + 1], &v)) {
        *error = Error(kNotInteger);
        return 0;
      }
      if (v < 0) {
        *error = Error("ERR The LIMIT argument must be >= 0.");
        return 0;
      }
      args->limit = v;
      limit_given = true;
      i++;
    } else if (xadd && OptionIs(a[i], "nomkstream")) {
      *nomkstream = true;
    } else if (xadd) {
      if (!ParseId(a[i], 0, true, id, seq_given, error)) return 0;
      *id_given = true;
      break;
    } else {
      *error = Error(kSyntaxError);
      return 0;
    }
  }
  if (args->limit != 0 && args->strategy == 0) {
    *error = Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return 0;
  }
  if (!xadd && args->strategy == 0) {
    *error = Error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return 0;
  }
  if (limit_given) {
    if (!args->approx) {
      *error = Error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return 0;
    }
  } else {
    args->limit = args->approx ? 10000 : 0;
  }
  return i;
}

Expected Xadd(Call& call) {
  TrimArgs trim;
  bool nomkstream = false;
  bool id_given = false;
  bool seq_given = false;
  Id id{0, 0};
  Expected error;
  const size_t id_at =
      ParseAddTrim(call, true, &trim, &nomkstream, &id_given, &seq_given, &id, &error);
  if (id_at == 0) return error;
  const size_t fields_at = id_at + 1;
  if (call.args.size() < fields_at + 2 || (call.args.size() - fields_at) % 2 == 1) {
    return Error(WrongArity("xadd"));
  }
  if (id_given && seq_given && id == Id{0, 0}) {
    return Error("ERR The ID specified in XADD must be greater than 0-0");
  }
  Value* value = nullptr;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  if (value == nullptr && nomkstream) return call.Null();
  StreamModel fresh;
  StreamModel& s = value != nullptr ? value->stream : fresh;
  if (s.last_id == kMaxId) {
    return Error("ERR The stream has exhausted the last possible ID, unable to add more items");
  }
  Id new_id{0, 0};
  bool bad = false;
  if (id_given) {
    if (seq_given) {
      new_id = id;
    } else if (s.last_id.first == id.first) {
      if (s.last_id.second == UINT64_MAX) {
        bad = true;
      } else {
        new_id = {id.first, s.last_id.second + 1};
      }
    } else {
      new_id = id;
    }
  } else {
    const auto now = static_cast<uint64_t>(call.now_ms());
    if (now > s.last_id.first) {
      new_id = {now, 0};
    } else {
      new_id = s.last_id;
      Incr(&new_id);
    }
  }
  if (bad || new_id <= s.last_id) {
    return Error(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item");
  }
  if (call.context.allocation_refused) return Error(kOomError);
  std::vector<std::string> pairs(call.args.begin() + static_cast<std::ptrdiff_t>(fields_at),
                                 call.args.end());
  if (value == nullptr) {
    call.Store(call.args[1], NewStream());
    value = call.Lookup(call.args[1]);
  }
  Append(value->stream, new_id, pairs);
  Trim(value->stream, trim);
  return Bulk(IdText(new_id));
}

Expected Xtrim(Call& call) {
  TrimArgs trim;
  bool unused = false;
  Id id{0, 0};
  Expected error;
  if (ParseAddTrim(call, false, &trim, &unused, &unused, &unused, &id, &error) == 0) {
    return error;
  }
  Value* value = nullptr;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  if (value == nullptr) return Integer(0);
  const int64_t deleted = Trim(value->stream, trim);
  if (deleted > 0) call.model.MarkWritten(call.session.db, call.args[1]);
  return Integer(deleted);
}

Expected Xlen(Call& call) {
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  return Integer(value == nullptr ? 0 : static_cast<int64_t>(value->stream.entries.size()));
}

Expected Range(Call& call, bool reverse) {
  Id start{0, 0};
  Id end{0, 0};
  bool exclusive = false;
  Expected error;
  if (!ParseInterval(call.args[reverse ? 3 : 2], 0, &start, &exclusive, &error)) return error;
  if (exclusive && !Incr(&start)) return Error("ERR invalid start ID for the interval");
  if (!ParseInterval(call.args[reverse ? 2 : 3], UINT64_MAX, &end, &exclusive, &error)) {
    return error;
  }
  if (exclusive && !Decr(&end)) return Error("ERR invalid end ID for the interval");
  int64_t count = -1;
  for (size_t i = 4; i < call.args.size(); i++) {
    if (OptionIs(call.args[i], "count") && i + 1 < call.args.size()) {
      if (!ParseInt64(call.args[i + 1], &count)) return Error(kNotInteger);
      if (count < 0) count = 0;
      i++;
    } else {
      return Error(kSyntaxError);
    }
  }
  Value* value = nullptr;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  if (value == nullptr) return Array({});
  if (count == 0) return NullArray(call.session.resp);
  return Array(
      RangeOf(value->stream, start, end, count == -1 ? 0 : static_cast<size_t>(count), reverse));
}

Expected Xrange(Call& call) { return Range(call, false); }
Expected Xrevrange(Call& call) { return Range(call, true); }

Expected Xdel(Call& call) {
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  if (value == nullptr) return Integer(0);
  std::vector<Id> ids;
  for (size_t i = 2; i < call.args.size(); i++) {
    Id id{0, 0};
    if (!ParseId(call.args[i], 0, true, &id, nullptr, &error)) return error;
    ids.push_back(id);
  }
  StreamModel& s = value->stream;
  int64_t deleted = 0;
  bool first = false;
  for (const Id& id : ids) {
    if (s.entries.erase(id) == 0) continue;
    MarkDeleted(s, id);
    if (id == s.first_id) first = true;
    if (id > s.max_deleted) s.max_deleted = id;
    deleted++;
  }
  if (deleted > 0) {
    if (s.entries.empty()) {
      s.first_id = {0, 0};
    } else if (first) {
      s.first_id = s.entries.begin()->first;
    }
    call.model.MarkWritten(call.session.db, call.args[1]);
  }
  return Integer(deleted);
}

Expected Xsetid(Call& call) {
  Id id{0, 0};
  Id max_deleted{0, 0};
  int64_t added = -1;
  Expected error;
  if (!ParseId(call.args[2], 0, true, &id, nullptr, &error)) return error;
  for (size_t i = 3; i < call.args.size();) {
    const bool more = i + 1 < call.args.size();
    if (OptionIs(call.args[i], "entriesadded") && more) {
      if (!ParseInt64(call.args[i + 1], &added)) return Error(kNotInteger);
      if (added < 0) return Error("ERR entries_added must be positive");
      i += 2;
    } else if (OptionIs(call.args[i], "maxdeletedid") && more) {
      if (!ParseId(call.args[i + 1], 0, true, &max_deleted, nullptr, &error)) return error;
      if (id < max_deleted) {
        return Error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
      }
      i += 2;
    } else {
      return Error(kSyntaxError);
    }
  }
  Value* value = nullptr;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  if (value == nullptr) return Error("ERR no such key");
  StreamModel& s = value->stream;
  Id top{0, 0};
  if (LastLive(s, &top)) {
    if (id < top) {
      return Error("ERR The ID specified in XSETID is smaller than the target stream top item");
    }
    if (added != -1 && s.entries.size() > static_cast<uint64_t>(added)) {
      return Error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
    }
  }
  if (id < s.max_deleted) {
    return Error("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id");
  }
  s.last_id = id;
  if (added != -1) s.entries_added = static_cast<uint64_t>(added);
  if (max_deleted != Id{0, 0}) s.max_deleted = max_deleted;
  call.model.MarkWritten(call.session.db, call.args[1]);
  return Ok();
}

// --- Groups -----------------------------------------------------------------------------------

bool HasTombstones(const StreamModel& s, Id start, Id end) {
  if (s.entries.empty() || s.max_deleted == Id{0, 0}) return false;
  if (s.first_id > s.max_deleted) return false;
  return start <= s.max_deleted && s.max_deleted <= end;
}

int64_t Distance(const StreamModel& s, Id id) {
  if (s.entries_added == 0) return 0;
  if (s.entries.empty() && id <= s.last_id) return static_cast<int64_t>(s.entries_added);
  if (id == s.last_id) return static_cast<int64_t>(s.entries_added);
  if (id > s.last_id) return -1;
  if (s.max_deleted == Id{0, 0} || s.max_deleted < s.first_id) {
    const auto length = static_cast<int64_t>(s.entries.size());
    if (id < s.first_id) return static_cast<int64_t>(s.entries_added) - length;
    if (id == s.first_id) return static_cast<int64_t>(s.entries_added) - length + 1;
  }
  return -1;
}

Expected Lag(const StreamModel& s, const StreamGroupModel& g, int resp) {
  if (s.entries_added == 0) return Integer(0);
  if (g.entries_read != -1 && !HasTombstones(s, g.last_id, kMaxId)) {
    return Integer(static_cast<int64_t>(s.entries_added) - g.entries_read);
  }
  const int64_t read = Distance(s, g.last_id);
  if (read != -1) return Integer(static_cast<int64_t>(s.entries_added) - read);
  return NullBulk(resp);
}

std::string NoGroup(const std::string& key, const std::string& group) {
  return "NOGROUP No such key '" + CText(key) + "' or consumer group '" + CText(group) + "'";
}

void EnsureConsumer(StreamGroupModel& g, const std::string& name, int64_t now) {
  g.consumers.emplace(name, now);
}

// XREADGROUP's serving of one stream (streamReplyWithRange with a group).
RespValue GroupRead(Call& call, StreamModel& s, StreamGroupModel& g, const std::string& consumer,
                    Id after, size_t count, bool noack, bool history) {
  const int64_t now = call.now_ms();
  EnsureConsumer(g, consumer, now);
  g.consumers[consumer] = now;
  Id start = after;
  Incr(&start);
  std::vector<RespValue> out;
  if (history) {
    for (auto& [id, nack] : g.pel) {
      if (id < start || nack.consumer != consumer) continue;
      if (count != 0 && out.size() == count) break;
      auto it = s.entries.find(id);
      if (it == s.entries.end()) {
        out.push_back(Array({BulkValue(IdText(id)), NullArray(call.session.resp).value}).value);
      } else {
        out.push_back(EntryValue(id, it->second));
        nack.delivery_time = now;
        nack.delivery_count++;
      }
    }
    return Array(std::move(out)).value;
  }
  for (auto it = s.entries.lower_bound(start); it != s.entries.end(); ++it) {
    const Id id = it->first;
    if (id > g.last_id) {
      if (g.entries_read != -1 && !HasTombstones(s, id, kMaxId)) {
        g.entries_read++;
      } else if (s.entries_added != 0) {
        g.entries_read = Distance(s, id);
      }
      g.last_id = id;
    }
    out.push_back(EntryValue(id, it->second));
    if (!noack) g.pel[id] = StreamNackModel{consumer, now, 1};
    if (count != 0 && out.size() == count) break;
  }
  return Array(std::move(out)).value;
}

Expected Read(Call& call, bool group_read) {
  const auto& a = call.args;
  int64_t count = 0;
  bool block = false;
  size_t streams_at = 0;
  size_t streams = 0;
  std::string group_name;
  std::string consumer;
  bool has_group = false;
  bool noack = false;
  for (size_t i = 1; i < a.size(); i++) {
    const size_t more = a.size() - i - 1;
    if (OptionIs(a[i], "block") && more > 0) {
      int64_t v = 0;
      if (!ParseInt64(a[++i], &v)) return Error("ERR timeout is not an integer or out of range");
      if (v < 0) return Error("ERR timeout is negative");
      block = true;
    } else if (OptionIs(a[i], "count") && more > 0) {
      if (!ParseInt64(a[++i], &count)) return Error(kNotInteger);
      if (count < 0) count = 0;
    } else if (OptionIs(a[i], "streams") && more > 0) {
      streams_at = i + 1;
      streams = a.size() - streams_at;
      if (streams % 2 != 0) {
        return Error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.");
      }
      streams /= 2;
      break;
    } else if (OptionIs(a[i], "group") && more >= 2) {
      if (!group_read) {
        return Error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
      }
      group_name = a[i + 1];
      consumer = a[i + 2];
      has_group = true;
      i += 2;
    } else if (OptionIs(a[i], "noack")) {
      if (!group_read) {
        return Error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
      }
      noack = true;
    } else {
      return Error(kSyntaxError);
    }
  }
  if (streams_at == 0) return Error(kSyntaxError);
  if (group_read && !has_group) return Error("ERR Missing GROUP option for XREADGROUP");
  std::vector<Id> ids(streams);
  Expected error;
  for (size_t k = 0; k < streams; k++) {
    const std::string& key = a[streams_at + k];
    const std::string& text = a[streams_at + streams + k];
    Value* value = nullptr;
    if (!LookupStream(call, key, &value, &error)) return error;
    if (has_group && (value == nullptr || value->stream.groups.count(group_name) == 0)) {
      return Error("NOGROUP No such key '" + CText(key) + "' or consumer group '" +
                   CText(group_name) + "' in XREADGROUP with GROUP option");
    }
    if (text == "$") {
      if (group_read) {
        return Error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
            "history of this consumer by specifying a proper ID, or use the > ID to get new "
            "messages. The $ ID would just return an empty result set.");
      }
      ids[k] = value != nullptr ? value->stream.last_id : Id{0, 0};
      continue;
    }
    if (text == ">") {
      if (!group_read) {
        return Error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
      }
      ids[k] = kMaxId;
      continue;
    }
    if (!ParseId(text, 0, true, &ids[k], nullptr, &error)) return error;
  }
  std::vector<RespValue> served;
  for (size_t k = 0; k < streams; k++) {
    const std::string& key = a[streams_at + k];
    Value* value = call.Lookup(key);
    if (value == nullptr) continue;
    StreamModel& s = value->stream;
    bool history = false;
    if (has_group) {
      StreamGroupModel& g = s.groups.at(group_name);
      Id top{0, 0};
      if (ids[k] != kMaxId) {
        history = true;
      } else if (LastLive(s, &top) && top > g.last_id) {
        ids[k] = g.last_id;
      } else {
        continue;
      }
      if (call.context.allocation_refused) return Error(kOomError);
      RespValue entries =
          GroupRead(call, s, g, consumer, ids[k], static_cast<size_t>(count), noack, history);
      served.push_back(BulkValue(key));
      served.push_back(std::move(entries));
      continue;
    }
    Id top{0, 0};
    if (!LastLive(s, &top) || !(top > ids[k])) continue;
    Id start = ids[k];
    Incr(&start);
    served.push_back(BulkValue(key));
    served.push_back(Array(RangeOf(s, start, kMaxId, static_cast<size_t>(count), false)).value);
  }
  if (served.empty()) {
    if (block && call.context.may_block) return Blocks();
    return NullArray(call.session.resp);
  }
  if (call.session.resp == 3) return Map(std::move(served), 3);
  std::vector<RespValue> pairs;
  for (size_t i = 0; i < served.size(); i += 2) {
    pairs.push_back(Array({served[i], served[i + 1]}).value);
  }
  return Array(std::move(pairs));
}

Expected Xread(Call& call) { return Read(call, false); }
Expected Xreadgroup(Call& call) { return Read(call, true); }

Expected Xgroup(Call& call) {
  const auto& a = call.args;
  const std::string& sub = a[1];
  const bool create = OptionIs(sub, "create");
  const bool setid = OptionIs(sub, "setid");
  const std::string& key = a[2];
  const std::string& name = a[3];
  bool mkstream = false;
  int64_t entries_read = -1;
  const std::string syntax = "ERR unknown subcommand or wrong number of arguments for '" +
                             sub.substr(0, sub.find('\0')) + "'. Try XGROUP HELP.";
  for (size_t i = 5; i < a.size();) {
    if (create && OptionIs(a[i], "mkstream")) {
      mkstream = true;
      i++;
    } else if ((create || setid) && OptionIs(a[i], "entriesread") && i + 1 < a.size()) {
      if (!ParseInt64(a[i + 1], &entries_read)) return Error(kNotInteger);
      if (entries_read < 0 && entries_read != -1) {
        return Error("ERR value for ENTRIESREAD must be positive or -1");
      }
      i += 2;
    } else {
      return Error(syntax);
    }
  }
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, key, &value, &error)) return error;
  StreamGroupModel* group = nullptr;
  if (!mkstream) {
    if (value == nullptr) {
      return Error(
          "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
          "want to use the MKSTREAM option to create an empty stream automatically.");
    }
    auto it = value->stream.groups.find(name);
    if (it != value->stream.groups.end()) group = &it->second;
    if (group == nullptr &&
        (setid || OptionIs(sub, "createconsumer") || OptionIs(sub, "delconsumer"))) {
      return Error("NOGROUP No such consumer group '" + CText(name) + "' for key name '" +
                   CText(key) + "'");
    }
  }
  if (create) {
    Id id{0, 0};
    if (a[4] == "$") {
      if (value != nullptr) id = value->stream.last_id;
    } else if (!ParseId(a[4], 0, true, &id, nullptr, &error)) {
      return error;
    }
    if (value != nullptr && value->stream.groups.count(name) != 0) {
      return Error("BUSYGROUP Consumer Group name already exists");
    }
    if (call.context.allocation_refused) return Error(kOomError);
    if (value == nullptr) {
      call.Store(key, NewStream());
      value = call.Lookup(key);
    }
    StreamGroupModel made;
    made.last_id = id;
    made.entries_read = entries_read;
    value->stream.groups.emplace(name, made);
    return Ok();
  }
  if (setid && (a.size() == 5 || a.size() == 7)) {
    Id id{0, 0};
    if (a[4] == "$") {
      id = value->stream.last_id;
    } else if (!ParseId(a[4], 0, false, &id, nullptr, &error)) {
      return error;
    }
    group->last_id = id;
    group->entries_read = entries_read;
    return Ok();
  }
  if (OptionIs(sub, "destroy") && a.size() == 4) {
    if (group == nullptr) return Integer(0);
    value->stream.groups.erase(name);
    return Integer(1);
  }
  if (OptionIs(sub, "createconsumer") && a.size() == 5) {
    if (group->consumers.count(a[4]) != 0) return Integer(0);
    if (call.context.allocation_refused) return Error(kOomError);
    group->consumers.emplace(a[4], call.now_ms());
    return Integer(1);
  }
  if (OptionIs(sub, "delconsumer") && a.size() == 5) {
    if (group->consumers.count(a[4]) == 0) return Integer(0);
    int64_t pending = 0;
    for (auto it = group->pel.begin(); it != group->pel.end();) {
      if (it->second.consumer == a[4]) {
        it = group->pel.erase(it);
        pending++;
      } else {
        ++it;
      }
    }
    group->consumers.erase(a[4]);
    return Integer(pending);
  }
  return Error(syntax);
}

Expected Xack(Call& call) {
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, call.args[1], &value, &error)) return error;
  if (value == nullptr || value->stream.groups.count(call.args[2]) == 0) return Integer(0);
  std::vector<Id> ids;
  for (size_t i = 3; i < call.args.size(); i++) {
    Id id{0, 0};
    if (!ParseId(call.args[i], 0, true, &id, nullptr, &error)) return error;
    ids.push_back(id);
  }
  StreamGroupModel& g = value->stream.groups.at(call.args[2]);
  int64_t acked = 0;
  for (const Id& id : ids) acked += static_cast<int64_t>(g.pel.erase(id));
  return Integer(acked);
}

Expected Xpending(Call& call) {
  const auto& a = call.args;
  const bool summary = a.size() == 3;
  if (a.size() != 3 && (a.size() < 6 || a.size() > 9)) return Error(kSyntaxError);
  Id start{0, 0};
  Id end{0, 0};
  int64_t count = 0;
  int64_t min_idle = 0;
  std::string consumer;
  bool has_consumer = false;
  Expected error;
  if (a.size() >= 6) {
    size_t at = 3;
    if (OptionIs(a[3], "idle")) {
      if (!ParseInt64(a[4], &min_idle)) return Error(kNotInteger);
      if (a.size() < 8) return Error(kSyntaxError);
      at += 2;
    }
    if (!ParseInt64(a[at + 2], &count)) return Error(kNotInteger);
    if (count < 0) count = 0;
    bool exclusive = false;
    if (!ParseInterval(a[at], 0, &start, &exclusive, &error)) return error;
    if (exclusive && !Incr(&start)) return Error("ERR invalid start ID for the interval");
    if (!ParseInterval(a[at + 1], UINT64_MAX, &end, &exclusive, &error)) return error;
    if (exclusive && !Decr(&end)) return Error("ERR invalid end ID for the interval");
    if (at + 3 < a.size()) {
      consumer = a[at + 3];
      has_consumer = true;
    }
  }
  Value* value = nullptr;
  if (!LookupStream(call, a[1], &value, &error)) return error;
  if (value == nullptr || value->stream.groups.count(a[2]) == 0) return Error(NoGroup(a[1], a[2]));
  const StreamGroupModel& g = value->stream.groups.at(a[2]);
  if (summary) {
    if (g.pel.empty()) {
      return Array({Integer(0).value, NullBulk(call.session.resp).value,
                    NullBulk(call.session.resp).value, NullArray(call.session.resp).value});
    }
    std::map<std::string, int64_t> owned;
    for (const auto& [id, nack] : g.pel) owned[nack.consumer]++;
    std::vector<RespValue> consumers;
    for (const auto& [name, n] : owned) {
      consumers.push_back(Array({BulkValue(name), BulkValue(std::to_string(n))}).value);
    }
    return Array({Integer(static_cast<int64_t>(g.pel.size())).value,
                  BulkValue(IdText(g.pel.begin()->first)), BulkValue(IdText(g.pel.rbegin()->first)),
                  Array(std::move(consumers)).value});
  }
  if (has_consumer && g.consumers.count(consumer) == 0) return Array({});
  const int64_t now = call.now_ms();
  std::vector<RespValue> out;
  for (const auto& [id, nack] : g.pel) {
    if (count == 0 || id > end) break;
    if (id < start) continue;
    if (has_consumer && nack.consumer != consumer) continue;
    if (min_idle != 0 && now - nack.delivery_time < min_idle) continue;
    const int64_t elapsed = now - nack.delivery_time;
    out.push_back(
        Array({BulkValue(IdText(id)), BulkValue(nack.consumer),
               Integer(elapsed < 0 ? 0 : elapsed).value, Integer(nack.delivery_count).value})
            .value);
    count--;
  }
  return Array(std::move(out));
}

bool ParseStrictId(const std::string& text, Id* id) {
  // XCLAIM's silent ID parse: a strict ID (no "-" or "+").
  Expected ignored;
  return ParseId(text, 0, true, id, nullptr, &ignored);
}

Expected Xclaim(Call& call) {
  const auto& a = call.args;
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, a[1], &value, &error)) return error;
  if (value == nullptr || value->stream.groups.count(a[2]) == 0) return Error(NoGroup(a[1], a[2]));
  StreamModel& s = value->stream;
  StreamGroupModel& g = s.groups.at(a[2]);
  int64_t min_idle = 0;
  if (!ParseInt64(a[4], &min_idle)) return Error("ERR Invalid min-idle-time argument for XCLAIM");
  if (min_idle < 0) min_idle = 0;
  std::vector<Id> ids;
  size_t j = 5;
  for (; j < a.size(); j++) {
    Id id{0, 0};
    if (!ParseStrictId(a[j], &id)) break;
    ids.push_back(id);
  }
  const int64_t now = call.now_ms();
  Id last_id{0, 0};
  int64_t time = -1;
  int64_t retry = -1;
  bool force = false;
  bool justid = false;
  for (; j < a.size(); j++) {
    const bool more = j + 1 < a.size();
    if (OptionIs(a[j], "force")) {
      force = true;
    } else if (OptionIs(a[j], "justid")) {
      justid = true;
    } else if (OptionIs(a[j], "idle") && more) {
      if (!ParseInt64(a[++j], &time)) return Error("ERR Invalid IDLE option argument for XCLAIM");
      time = now - time;
    } else if (OptionIs(a[j], "time") && more) {
      if (!ParseInt64(a[++j], &time)) return Error("ERR Invalid TIME option argument for XCLAIM");
    } else if (OptionIs(a[j], "retrycount") && more) {
      if (!ParseInt64(a[++j], &retry)) {
        return Error("ERR Invalid RETRYCOUNT option argument for XCLAIM");
      }
    } else if (OptionIs(a[j], "lastid") && more) {
      if (!ParseId(a[++j], 0, true, &last_id, nullptr, &error)) return error;
    } else {
      return Error("ERR Unrecognized XCLAIM option '" + a[j].substr(0, a[j].find('\0')) + "'");
    }
  }
  if (call.context.allocation_refused) return Error(kOomError);
  if (last_id > g.last_id) g.last_id = last_id;
  if (time == -1 || time < 0 || time > now) time = now;
  std::vector<RespValue> out;
  for (const Id& id : ids) {
    auto nack = g.pel.find(id);
    if (s.entries.count(id) == 0) {
      if (nack != g.pel.end()) g.pel.erase(nack);
      continue;
    }
    bool created = false;
    if (force && nack == g.pel.end()) {
      nack = g.pel.emplace(id, StreamNackModel{"", 0, 0}).first;
      created = true;
    }
    if (nack == g.pel.end()) continue;
    if (!created && min_idle != 0 && now - nack->second.delivery_time < min_idle) continue;
    EnsureConsumer(g, a[3], now);
    g.consumers[a[3]] = now;
    nack->second.consumer = a[3];
    nack->second.delivery_time = time;
    if (retry >= 0) {
      nack->second.delivery_count = retry;
    } else if (!justid) {
      nack->second.delivery_count++;
    }
    out.push_back(justid ? BulkValue(IdText(id)) : EntryValue(id, s.entries.at(id)));
  }
  return Array(std::move(out));
}

Expected Xautoclaim(Call& call) {
  const auto& a = call.args;
  int64_t min_idle = 0;
  if (!ParseInt64(a[4], &min_idle)) {
    return Error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  Id start{0, 0};
  bool exclusive = false;
  Expected error;
  if (!ParseInterval(a[5], 0, &start, &exclusive, &error)) return error;
  if (exclusive && !Incr(&start)) return Error("ERR invalid start ID for the interval");
  int64_t count = 100;
  bool justid = false;
  for (size_t j = 6; j < a.size(); j++) {
    if (OptionIs(a[j], "count") && j + 1 < a.size()) {
      int64_t v = 0;
      if (!ParseInt64(a[j + 1], &v) || v < 1 || v > INT64_MAX / 16) {
        return Error("ERR COUNT must be > 0");
      }
      count = v;
      j++;
    } else if (OptionIs(a[j], "justid")) {
      justid = true;
    } else {
      return Error(kSyntaxError);
    }
  }
  Value* value = nullptr;
  if (!LookupStream(call, a[1], &value, &error)) return error;
  if (value == nullptr || value->stream.groups.count(a[2]) == 0) return Error(NoGroup(a[1], a[2]));
  if (call.context.allocation_refused) return Error(kOomError);
  StreamModel& s = value->stream;
  StreamGroupModel& g = s.groups.at(a[2]);
  const int64_t now = call.now_ms();
  int64_t attempts = count * 10;
  std::vector<RespValue> claimed;
  std::vector<RespValue> deleted;
  auto it = g.pel.lower_bound(start);
  while (attempts-- > 0 && count > 0 && it != g.pel.end()) {
    const Id id = it->first;
    if (s.entries.count(id) == 0) {
      it = g.pel.erase(it);
      deleted.push_back(BulkValue(IdText(id)));
      count--;
      continue;
    }
    if (min_idle != 0 && now - it->second.delivery_time < min_idle) {
      ++it;
      continue;
    }
    EnsureConsumer(g, a[3], now);
    g.consumers[a[3]] = now;
    it->second.consumer = a[3];
    it->second.delivery_time = now;
    if (!justid) it->second.delivery_count++;
    claimed.push_back(justid ? BulkValue(IdText(id)) : EntryValue(id, s.entries.at(id)));
    count--;
    ++it;
  }
  const Id cursor = it != g.pel.end() ? it->first : Id{0, 0};
  return Array({BulkValue(IdText(cursor)), Array(std::move(claimed)).value,
                Array(std::move(deleted)).value});
}

// --- XINFO ------------------------------------------------------------------------------------

int64_t RaxNodes(const std::vector<std::string>& keys, size_t lo, size_t hi, size_t depth,
                 bool starts) {
  if (depth == 16) return 1;
  std::vector<std::pair<size_t, size_t>> children;
  for (size_t i = lo; i < hi;) {
    size_t j = i;
    while (j < hi && keys[j][depth] == keys[i][depth]) j++;
    children.emplace_back(i, j);
    i = j;
  }
  if (children.size() == 1) return (starts ? 1 : 0) + RaxNodes(keys, lo, hi, depth + 1, false);
  int64_t total = 1;
  for (const auto& [from, to] : children) total += RaxNodes(keys, from, to, depth + 1, true);
  return total;
}

int64_t RaxNodeCount(const StreamModel& s) {
  std::vector<std::string> keys;
  for (const StreamNodeModel& node : s.nodes) {
    std::string key(16, '\0');
    for (int i = 0; i < 8; i++) {
      key[i] = static_cast<char>(node.master.first >> (56 - 8 * i));
      key[8 + i] = static_cast<char>(node.master.second >> (56 - 8 * i));
    }
    keys.push_back(key);
  }
  return keys.empty() ? 1 : RaxNodes(keys, 0, keys.size(), 0, true);
}

RespValue EntriesReadValue(const StreamGroupModel& g, int resp) {
  return g.entries_read != -1 ? Integer(g.entries_read).value : NullBulk(resp).value;
}

Expected XinfoStream(Call& call) {
  const auto& a = call.args;
  const std::string syntax = "ERR unknown subcommand or wrong number of arguments for '" +
                             a[1].substr(0, a[1].find('\0')) + "'. Try XINFO HELP.";
  bool full = false;
  int64_t count = 10;
  if (a.size() > 3) {
    if ((a.size() != 4 && a.size() != 6) || !OptionIs(a[3], "full")) return Error(syntax);
    full = true;
    if (a.size() == 6) {
      if (!OptionIs(a[4], "count")) return Error(syntax);
      if (!ParseInt64(a[5], &count)) return Error(kNotInteger);
      if (count < 0) count = 10;
    }
  }
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, a[2], &value, &error)) return error;
  if (value == nullptr) return Error("ERR no such key");
  const StreamModel& s = value->stream;
  const int resp = call.session.resp;
  std::vector<RespValue> pairs = {BulkValue("length"),
                                  Integer(static_cast<int64_t>(s.entries.size())).value,
                                  BulkValue("radix-tree-keys"),
                                  Integer(static_cast<int64_t>(s.nodes.size())).value,
                                  BulkValue("radix-tree-nodes"),
                                  Integer(RaxNodeCount(s)).value,
                                  BulkValue("last-generated-id"),
                                  BulkValue(IdText(s.last_id)),
                                  BulkValue("max-deleted-entry-id"),
                                  BulkValue(IdText(s.max_deleted)),
                                  BulkValue("entries-added"),
                                  Integer(static_cast<int64_t>(s.entries_added)).value,
                                  BulkValue("recorded-first-entry-id"),
                                  BulkValue(IdText(s.first_id))};
  if (!full) {
    pairs.push_back(BulkValue("groups"));
    pairs.push_back(Integer(static_cast<int64_t>(s.groups.size())).value);
    pairs.push_back(BulkValue("first-entry"));
    pairs.push_back(s.entries.empty()
                        ? NullBulk(resp).value
                        : EntryValue(s.entries.begin()->first, s.entries.begin()->second));
    pairs.push_back(BulkValue("last-entry"));
    pairs.push_back(s.entries.empty()
                        ? NullBulk(resp).value
                        : EntryValue(s.entries.rbegin()->first, s.entries.rbegin()->second));
    return Map(std::move(pairs), resp);
  }
  const auto limit = static_cast<size_t>(count);
  pairs.push_back(BulkValue("entries"));
  pairs.push_back(Array(RangeOf(s, {0, 0}, kMaxId, limit, false)).value);
  pairs.push_back(BulkValue("groups"));
  std::vector<RespValue> groups;
  for (const auto& [name, g] : s.groups) {
    std::vector<RespValue> pending;
    for (const auto& [id, nack] : g.pel) {
      if (limit != 0 && pending.size() == limit) break;
      pending.push_back(
          Array({BulkValue(IdText(id)), BulkValue(nack.consumer), Integer(nack.delivery_time).value,
                 Integer(nack.delivery_count).value})
              .value);
    }
    std::vector<RespValue> consumers;
    for (const auto& [consumer, seen] : g.consumers) {
      std::vector<RespValue> mine;
      int64_t owned = 0;
      for (const auto& [id, nack] : g.pel) {
        if (nack.consumer != consumer) continue;
        owned++;
        if (limit != 0 && mine.size() == limit) continue;
        mine.push_back(Array({BulkValue(IdText(id)), Integer(nack.delivery_time).value,
                              Integer(nack.delivery_count).value})
                           .value);
      }
      consumers.push_back(Map({BulkValue("name"), BulkValue(consumer), BulkValue("seen-time"),
                               Integer(seen).value, BulkValue("pel-count"), Integer(owned).value,
                               BulkValue("pending"), Array(std::move(mine)).value},
                              resp)
                              .value);
    }
    groups.push_back(Map({BulkValue("name"), BulkValue(name), BulkValue("last-delivered-id"),
                          BulkValue(IdText(g.last_id)), BulkValue("entries-read"),
                          EntriesReadValue(g, resp), BulkValue("lag"), Lag(s, g, resp).value,
                          BulkValue("pel-count"), Integer(static_cast<int64_t>(g.pel.size())).value,
                          BulkValue("pending"), Array(std::move(pending)).value,
                          BulkValue("consumers"), Array(std::move(consumers)).value},
                         resp)
                         .value);
  }
  pairs.push_back(Array(std::move(groups)).value);
  return Map(std::move(pairs), resp);
}

Expected XinfoGroups(Call& call) {
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, call.args[2], &value, &error)) return error;
  if (value == nullptr) return Error("ERR no such key");
  const StreamModel& s = value->stream;
  const int resp = call.session.resp;
  std::vector<RespValue> groups;
  for (const auto& [name, g] : s.groups) {
    groups.push_back(
        Map({BulkValue("name"), BulkValue(name), BulkValue("consumers"),
             Integer(static_cast<int64_t>(g.consumers.size())).value, BulkValue("pending"),
             Integer(static_cast<int64_t>(g.pel.size())).value, BulkValue("last-delivered-id"),
             BulkValue(IdText(g.last_id)), BulkValue("entries-read"), EntriesReadValue(g, resp),
             BulkValue("lag"), Lag(s, g, resp).value},
            resp)
            .value);
  }
  return Array(std::move(groups));
}

Expected XinfoConsumers(Call& call) {
  Value* value = nullptr;
  Expected error;
  if (!LookupStream(call, call.args[2], &value, &error)) return error;
  if (value == nullptr) return Error("ERR no such key");
  auto it = value->stream.groups.find(call.args[3]);
  if (it == value->stream.groups.end()) {
    return Error("NOGROUP No such consumer group '" + CText(call.args[3]) + "' for key name '" +
                 CText(call.args[2]) + "'");
  }
  const StreamGroupModel& g = it->second;
  const int resp = call.session.resp;
  std::vector<RespValue> consumers;
  for (const auto& [name, seen] : g.consumers) {
    int64_t owned = 0;
    for (const auto& [id, nack] : g.pel) owned += nack.consumer == name ? 1 : 0;
    const int64_t idle = call.now_ms() - seen;
    consumers.push_back(
        Map({BulkValue("name"), BulkValue(name), BulkValue("pending"), Integer(owned).value,
             BulkValue("idle"), Integer(idle < 0 ? 0 : idle).value},
            resp)
            .value);
  }
  return Array(std::move(consumers));
}

Expected HelpLines(std::initializer_list<std::string_view> lines) {
  std::vector<RespValue> out;
  for (std::string_view line : lines) out.push_back(Simple(line).value);
  return Array(std::move(out));
}

Expected XinfoHelp(Call& /*call*/) {
  return HelpLines({"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.",
                    "GROUPS <key>", "    Show the stream consumer groups.",
                    "STREAM <key> [FULL [COUNT <count>]", "    Show information about the stream.",
                    "HELP", "    Prints this help."});
}

Expected XgroupHelp(Call& /*call*/) {
  return HelpLines(
      {"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
       "CREATE <key> <groupname> <id|$> [option]",
       "    Create a new consumer group. Options are:", "    * MKSTREAM",
       "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
       "      Set the group's entries_read counter (internal use).",
       "CREATECONSUMER <key> <groupname> <consumer>",
       "    Create a new consumer in the specified group.",
       "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
       "DESTROY <key> <groupname>", "    Remove the specified group.",
       "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
       "    Set the current group ID and entries_read counter.", "HELP", "    Prints this help."});
}

constexpr Command kCommands[] = {
    {"xadd", kAllocates, Xadd},
    {"xlen", 0, Xlen},
    {"xrange", 0, Xrange},
    {"xrevrange", 0, Xrevrange},
    {"xdel", 0, Xdel},
    {"xtrim", 0, Xtrim},
    {"xsetid", 0, Xsetid},
    {"xread", 0, Xread},
    {"xreadgroup", kAllocates, Xreadgroup},
    {"xack", 0, Xack},
    {"xpending", 0, Xpending},
    {"xclaim", kAllocates, Xclaim},
    {"xautoclaim", kAllocates, Xautoclaim},
    {"xgroup|create", kAllocates, Xgroup},
    {"xgroup|setid", 0, Xgroup},
    {"xgroup|destroy", 0, Xgroup},
    {"xgroup|createconsumer", kAllocates, Xgroup},
    {"xgroup|delconsumer", 0, Xgroup},
    {"xgroup|help", 0, XgroupHelp},
    {"xinfo|stream", 0, XinfoStream},
    {"xinfo|groups", 0, XinfoGroups},
    {"xinfo|consumers", 0, XinfoConsumers},
    {"xinfo|help", 0, XinfoHelp},
};

}  // namespace

std::span<const Command> StreamCommands() { return kCommands; }

}  // namespace keel::model
