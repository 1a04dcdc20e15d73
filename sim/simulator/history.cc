#include "sim/simulator/history.h"

#include <algorithm>
#include <cstdint>

#include "engine/base/hash.h"
#include "engine/base/numbers.h"
#include "engine/db/database.h"
#include "engine/db/types/hash.h"
#include "engine/db/types/list.h"
#include "engine/db/types/set.h"
#include "engine/db/types/zset.h"
#include "engine/db/value_ops.h"
#include "sim/simulator/stream_canonical.h"

namespace keel::sim {
namespace {

constexpr uint64_t kContentSeed = 0x686973746f7279ull;

void AppendPart(std::string* out, std::string_view part) {
  const uint64_t size = part.size();
  out->append(reinterpret_cast<const char*>(&size), sizeof(size));
  out->append(part);
}

// The content of `entry` in a form that no encoding, table order or reload changes.
std::string CanonicalContent(const Entry& entry) {
  std::string out;
  switch (entry.type()) {
    case ValueType::kString:
      AppendPart(&out, entry.value());
      break;
    case ValueType::kList:
      static_cast<const List*>(EntryObject(entry))->ForEachElement([&](std::string_view element) {
        AppendPart(&out, element);
      });
      break;
    case ValueType::kSet: {
      std::set<std::string> members;
      static_cast<const SetValue*>(EntryObject(entry))->ForEach([&](std::string_view member) {
        members.emplace(member);
      });
      for (const std::string& member : members) AppendPart(&out, member);
      break;
    }
    case ValueType::kHash: {
      std::set<std::pair<std::string, std::string>> pairs;
      static_cast<const HashValue*>(EntryObject(entry))
          ->ForEach(
              [&](std::string_view field, std::string_view value) { pairs.emplace(field, value); });
      for (const auto& [field, value] : pairs) {
        AppendPart(&out, field);
        AppendPart(&out, value);
      }
      break;
    }
    case ValueType::kZSet:
      static_cast<const ZsetValue*>(EntryObject(entry))
          ->ForEach([&](std::string_view member, double score) {
            // A reload may turn -0 into 0 (digest.h, DigestOptions); the order is by score, then
            // member, so the two zeros sort alike.
            if (score == 0) score = 0.0;
            char text[kDoubleTextMax];
            AppendPart(&out, member);
            AppendPart(&out, std::string_view(text, FormatDouble(score, text)));
          });
      break;
    case ValueType::kStream:
      AppendPart(&out, CanonicalStreamContent(entry));
      break;
  }
  return out;
}

bool Live(const StateHistory::KeyState& state, int64_t now_ms) {
  return state.expire_at_ms < 0 || now_ms <= state.expire_at_ms;
}

std::string Describe(const StateHistory::Key& key, const StateHistory::KeyState* state) {
  std::string text = "db " + std::to_string(key.first) + " key \"" + key.second + "\": ";
  if (state == nullptr) return text + "absent";
  return text + "type " + std::to_string(state->type) + ", content " +
         std::to_string(state->content_hash) + ", expiry " + std::to_string(state->expire_at_ms);
}

}  // namespace

bool StateHistory::StateOf(const Engine& engine, int db, std::string_view key, KeyState* state) {
  const Entry* entry = engine.database(db).Find(key);
  if (entry == nullptr) return false;
  const std::string content = CanonicalContent(*entry);
  state->type = static_cast<int>(entry->type());
  state->content_hash = HashBytes(content.data(), content.size(), kContentSeed);
  state->expire_at_ms = entry->has_expiry() ? entry->expire_at_ms() : -1;
  return true;
}

void StateHistory::KeyTouched(int db_index, std::string_view key) {
  touched_.emplace(db_index, std::string(key));
}

void StateHistory::BeforeKeyChange(const Database& db, std::string_view key, uint64_t /*hash*/) {
  written_.emplace(&db, std::string(key));
}

void StateHistory::DatabaseFlushed(int db_index) { whole_dbs_.insert(db_index); }

void StateHistory::DatabasesSwapped(int first, int second) {
  whole_dbs_.insert(first);
  whole_dbs_.insert(second);
}

void StateHistory::Record(Key key, bool present, const KeyState& state) {
  auto it = now_.find(key);
  if (!present) {
    if (it == now_.end()) return;
    now_.erase(it);
  } else {
    if (it != now_.end() && it->second == state) return;
    now_[key] = state;
  }
  changes_.push_back(Change{units_ + 1, std::move(key), present, state});
}

void StateHistory::EndUnit(const Engine& engine) {
  for (const auto& [db, key] : written_) {
    for (int index = 0; index < engine.database_count(); index++) {
      if (&engine.database(index) == db) touched_.emplace(index, key);
    }
  }
  written_.clear();
  for (int db : whole_dbs_) {
    // Every key the database held may be gone, every key it holds now may be new.
    std::set<Key> keys;
    for (auto it = now_.lower_bound(Key{db, ""}); it != now_.end() && it->first.first == db; ++it) {
      keys.insert(it->first);
    }
    engine.database(db).ForEach(
        [&](const Entry& entry) { keys.emplace(db, std::string(entry.key())); });
    touched_.insert(keys.begin(), keys.end());
  }
  for (const Key& key : touched_) {
    KeyState state;
    const bool present = StateOf(engine, key.first, key.second, &state);
    Record(key, present, state);
  }
  touched_.clear();
  whole_dbs_.clear();
  units_++;
}

StateHistory::Verdict StateHistory::CheckRecovered(const Engine& recovered, int64_t now_ms,
                                                   uint64_t units_min) const {
  std::map<Key, KeyState> target;
  for (int db = 0; db < recovered.database_count(); db++) {
    recovered.database(db).ForEach([&](const Entry& entry) {
      KeyState state;
      const bool present = StateOf(recovered, db, entry.key(), &state);
      KEEL_ASSERT(present);
      if (Live(state, now_ms)) target.emplace(Key{db, std::string(entry.key())}, state);
    });
  }
  // Walk the states from the empty keyspace, keeping how many keys differ from `target`.
  std::map<Key, KeyState> state;
  const auto same = [&](const Key& key) {
    auto in_state = state.find(key);
    auto in_target = target.find(key);
    const bool live = in_state != state.end() && Live(in_state->second, now_ms);
    if (!live) return in_target == target.end();
    return in_target != target.end() && in_target->second == in_state->second;
  };
  // States change only at the units that recorded changes: state N is the state of the last
  // such unit at or before N. Each group of changes starts a run of equal states, which ends
  // before the next group (or at units_).
  size_t differing = target.size();
  bool any_match = false;
  uint64_t matched = 0;  // the latest state equal to `target`
  size_t fewest = SIZE_MAX;
  uint64_t closest = 0;  // a late-enough state with the fewest differing keys
  const auto consider = [&](uint64_t first, uint64_t last) {
    if (differing == 0) {
      any_match = true;
      matched = last;
    }
    if (last >= units_min && differing < fewest) {
      fewest = differing;
      closest = std::max(first, units_min);
    }
  };
  uint64_t run_start = 0;
  for (size_t i = 0; i < changes_.size(); i++) {
    const Change& change = changes_[i];
    if (change.unit != run_start) {
      consider(run_start, change.unit - 1);
      run_start = change.unit;
    }
    const bool before = same(change.key);
    if (change.present) {
      state[change.key] = change.state;
    } else {
      state.erase(change.key);
    }
    const bool after = same(change.key);
    differing = differing + (before ? 1 : 0) - (after ? 1 : 0);
  }
  consider(run_start, units_);
  Verdict verdict;
  verdict.matched = matched;
  if (any_match && matched >= units_min) return verdict;
  if (any_match) {
    verdict.failure = "the recovered keyspace is state " + std::to_string(matched) + " of " +
                      std::to_string(units_) + ", but a client had received a reply that state " +
                      std::to_string(units_min) + " must hold (an acknowledged write was lost)";
    return verdict;
  }
  // No state explains it: name a key where the closest late-enough state differs.
  std::map<Key, KeyState> closest_state;
  for (const Change& change : changes_) {
    if (change.unit > closest) break;
    if (change.present) {
      closest_state[change.key] = change.state;
    } else {
      closest_state.erase(change.key);
    }
  }
  std::string detail;
  for (const auto& [key, expected] : closest_state) {
    if (!Live(expected, now_ms)) continue;
    auto it = target.find(key);
    if (it == target.end() || it->second != expected) {
      detail = "state " + std::to_string(closest) + " has " + Describe(key, &expected) +
               "; recovered " + Describe(key, it == target.end() ? nullptr : &it->second);
      break;
    }
  }
  if (detail.empty()) {
    for (const auto& [key, actual] : target) {
      auto it = closest_state.find(key);
      if (it == closest_state.end() || !Live(it->second, now_ms)) {
        detail = "recovered " + Describe(key, &actual) + "; state " + std::to_string(closest) +
                 " has it absent";
        break;
      }
    }
  }
  verdict.failure = "the recovered keyspace is no state of the history (" + std::to_string(units_) +
                    " units; closest at or after " + std::to_string(units_min) + ": " + detail +
                    ")";
  return verdict;
}

}  // namespace keel::sim
