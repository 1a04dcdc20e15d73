#include "fuzz/model_shadow.h"

#include <algorithm>

#include "engine/db/types/hash.h"
#include "engine/db/types/list.h"
#include "engine/db/types/set.h"
#include "engine/db/types/zset.h"
#include "engine/db/value_ops.h"
#include "engine/server/config.h"

namespace keel::fuzz {
namespace {

// Printable text for a report: bytes outside printable ASCII as \xNN.
std::string Escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

std::string Describe(std::span<const std::string> args) {
  std::string line;
  for (const std::string& arg : args) {
    if (!line.empty()) line += ' ';
    line += "\"" + Escape(arg) + "\"";
  }
  return line;
}

// The model's name for an engine string encoding (a shared integer is an int).
model::Encoding ModelEncoding(ObjectEncoding encoding) {
  switch (encoding) {
    case ObjectEncoding::kInt:
    case ObjectEncoding::kIntShared:
      return model::Encoding::kInt;
    case ObjectEncoding::kEmbstr:
      return model::Encoding::kEmbstr;
    default:
      return model::Encoding::kRaw;
  }
}

// The model's form of an engine value: a string's bytes and encoding, a list's elements or a
// set's members.
model::Value ModelValue(const Entry& entry) {
  model::Value value;
  value.expire_at_ms = entry.expire_at_ms();
  if (entry.type() == ValueType::kList) {
    value.type = model::ValueType::kList;
    value.encoding = model::Encoding::kQuicklist;
    static_cast<const List*>(EntryObject(entry))->ForEachElement([&](std::string_view element) {
      value.list.emplace_back(element);
    });
    return value;
  }
  if (entry.type() == ValueType::kSet) {
    value.type = model::ValueType::kSet;
    value.encoding = entry.encoding() == ObjectEncoding::kIntset ? model::Encoding::kIntset
                                                                 : model::Encoding::kHashtable;
    static_cast<const SetValue*>(EntryObject(entry))->ForEach([&](std::string_view member) {
      value.set.emplace(member);
    });
    return value;
  }
  if (entry.type() == ValueType::kHash) {
    const auto& hash = *static_cast<const HashValue*>(EntryObject(entry));
    value.type = model::ValueType::kHash;
    value.encoding = hash.is_listpack() ? model::Encoding::kListpack : model::Encoding::kHashtable;
    hash.ForEach([&](std::string_view field, std::string_view text) {
      value.hash.emplace_back(field, text);
    });
    return value;
  }
  if (entry.type() == ValueType::kZSet) {
    value.type = model::ValueType::kZSet;
    value.encoding = entry.encoding() == ObjectEncoding::kListpack ? model::Encoding::kListpack
                                                                   : model::Encoding::kSkiplist;
    static_cast<const ZsetValue*>(EntryObject(entry))
        ->ForEach(
            [&](std::string_view member, double score) { value.zset.emplace(member, score); });
    return value;
  }
  value.string = std::string(entry.value());
  value.encoding = ModelEncoding(entry.encoding());
  value.shared = entry.encoding() == ObjectEncoding::kIntShared;
  return value;
}

}  // namespace

ModelShadow::ModelShadow(Engine& engine, sim::SimEnv& env)
    : engine_(engine), env_(env), model_(engine.database_count()) {}

bool ModelShadow::Covers(std::span<const std::string> args) const {
  const model::Command* command = model_.Find(args);
  // Transactions are not shadowed: the model would have to see every command queued, covered or
  // not (the simulator's oracle checks them); what EXEC did is copied from the engine instead.
  if (command == nullptr || command->run == nullptr) return false;
  for (std::string_view name : {"multi", "exec", "discard", "watch", "unwatch"}) {
    if (command->name == name) return false;
  }
  return true;
}

void ModelShadow::Before(const Client& client, std::span<const std::string> args) {
  args_ = args;
  covered_ = Covers(args) && !(client.flags & kClientMulti);
  session_.client_id = client.id();
  session_.db = client.db_index;
  session_.resp = client.reply().resp();
  session_.name = client.name;
  session_.quit = false;
  context_.now_ms = env_.clock().WallUs() / 1000;
  // The harness's client has no connection: its blocking commands cannot block.
  context_.may_block = false;
  context_.used_memory_bytes = engine_.memory().used_bytes_total();
  context_.allocation_refused = false;
  model_.set_maxmemory_bytes(static_cast<uint64_t>(engine_.settings().maxmemory));
  // Redis shares the integers 0..9999 unless an LRU or LFU policy needs a clock per key.
  const auto policy = static_cast<MaxmemoryPolicy>(engine_.settings().maxmemory_policy);
  const bool per_key_clock =
      policy == MaxmemoryPolicy::kAllkeysLru || policy == MaxmemoryPolicy::kVolatileLru ||
      policy == MaxmemoryPolicy::kAllkeysLfu || policy == MaxmemoryPolicy::kVolatileLfu;
  model_.set_shared_integers(engine_.settings().maxmemory == 0 || !per_key_clock);
  // SPOP's draws are the engine's: the model reads what its set kept.
  context_.set_after = [this](std::string_view key, model::Value::SetMembers* members) {
    const Entry* entry = engine_.database(session_.db).Find(key);
    members->clear();
    if (entry == nullptr || entry->type() != ValueType::kSet) return false;
    *members = ModelValue(*entry).set;
    return true;
  };
  refused_before_ = env_.sim_memory().refused_count();
  evicted_before_ = engine_.keyspace().stats().evicted_keys;
}

std::string ModelShadow::After(const Client& client, const RespValue* reply) {
  const bool engine_chose = env_.sim_memory().refused_count() != refused_before_ ||
                            engine_.keyspace().stats().evicted_keys != evicted_before_;
  if (!covered_ || engine_chose || reply == nullptr) {
    CopyEngineKeyspace();
    return {};
  }
  const model::Expected expected = model_.Execute(session_, args_, context_);
  compared_++;
  if (!expected.Matches(*reply)) {
    return Describe(args_) + ": expected " + Escape(expected.ToString()) + ", the engine replied " +
           Escape(reply->ToString());
  }
  if (session_.db != client.db_index) {
    return Describe(args_) + ": the model's client is in db " + std::to_string(session_.db) +
           ", the engine's in db " + std::to_string(client.db_index);
  }
  if (session_.resp != client.reply().resp()) {
    return Describe(args_) + ": the model's client speaks RESP" + std::to_string(session_.resp) +
           ", the engine's RESP" + std::to_string(client.reply().resp());
  }
  for (int index = 0; index < engine_.database_count(); index++) {
    if (std::string difference = CompareDatabase(index); !difference.empty()) {
      return Describe(args_) + ": " + difference;
    }
  }
  return {};
}

void ModelShadow::CopyEngineKeyspace() {
  for (int index = 0; index < engine_.database_count(); index++) {
    model::KeyTable& table = model_.db(index);
    if (table.empty() && engine_.database(index).size() == 0) continue;
    table.clear();
    engine_.database(index).ForEach(
        [&](const Entry& entry) { table.emplace(std::string(entry.key()), ModelValue(entry)); });
  }
}

std::string ModelShadow::CompareDatabase(int index) const {
  const int64_t now_ms = context_.now_ms;
  const model::KeyTable& table = model_.db(index);
  const Database& db = engine_.database(index);
  if (table.empty() && db.size() == 0) return {};
  const std::string where = "db " + std::to_string(index) + ": ";
  // Keys the engine holds but that expired are logically gone whether or not it reclaimed them.
  for (const auto& [key, value] : table) {
    if (model::Model::IsExpired(value, now_ms)) continue;
    const Entry* entry = db.Find(key);
    if (entry == nullptr) {
      return where + "the model holds " + RespValue::Bulk(key).ToString() + ", the engine not";
    }
    if (entry->type() == ValueType::kHash || value.type == model::ValueType::kHash) {
      // A hashtable's order is the engine's table: its pairs are compared as a set.
      model::Value engine_value = ModelValue(*entry);
      model::Value model_value = value;
      if (model_value.encoding == model::Encoding::kHashtable) {
        std::sort(engine_value.hash.begin(), engine_value.hash.end());
        std::sort(model_value.hash.begin(), model_value.hash.end());
      }
      if (!(engine_value == model_value)) {
        return where + "key " + RespValue::Bulk(key).ToString() + ": the engine and the model " +
               "hold different hashes";
      }
      continue;
    }
    if (entry->type() == ValueType::kList || value.type == model::ValueType::kList ||
        entry->type() == ValueType::kSet || value.type == model::ValueType::kSet ||
        entry->type() == ValueType::kZSet || value.type == model::ValueType::kZSet) {
      if (!(ModelValue(*entry) == value)) {
        return where + "key " + RespValue::Bulk(key).ToString() + ": the engine and the model " +
               "hold different values (a list, a set or a sorted set on at least one side)";
      }
      continue;
    }
    if (entry->value() != value.string || entry->expire_at_ms() != value.expire_at_ms ||
        ModelEncoding(entry->encoding()) != value.encoding ||
        (entry->encoding() == ObjectEncoding::kIntShared) != value.shared) {
      return where + "key " + RespValue::Bulk(key).ToString() + ": the engine holds " +
             RespValue::Bulk(entry->value()).ToString() + " expiring at " +
             std::to_string(entry->expire_at_ms()) + " as " +
             std::string(ObjectEncodingName(entry->encoding())) + ", the model " +
             RespValue::Bulk(value.string).ToString() + " expiring at " +
             std::to_string(value.expire_at_ms) + " as " +
             std::string(model::EncodingName(value.encoding)) + (value.shared ? " (shared)" : "");
    }
  }
  std::string extra;
  db.ForEach([&](const Entry& entry) {
    if (!extra.empty() || (entry.has_expiry() && entry.expire_at_ms() < now_ms)) return;
    if (table.find(entry.key()) == table.end()) {
      extra =
          where + "the engine holds " + RespValue::Bulk(entry.key()).ToString() + ", the model not";
    }
  });
  return extra;
}

}  // namespace keel::fuzz
