#include "sim/simulator/scan_guarantee.h"

#include <iterator>

namespace keel::sim {
namespace {

bool IsScan(std::span<const std::string> args) {
  return !args.empty() && model::EqualsIgnoreCase(args[0], "scan");
}

bool Live(const model::KeyTable& table, const std::string& key, int64_t now_ms) {
  auto it = table.find(key);
  return it != table.end() && !model::Model::IsExpired(it->second, now_ms);
}

}  // namespace

uint64_t ScanGuarantee::Executed(SimClientId conn, uint64_t number, int db,
                                 std::span<const std::string> args, const model::Model& model,
                                 int64_t now_ms) {
  if (!IsScan(args)) return 0;
  if (auto follow_up = follow_ups_.find({conn, number}); follow_up != follow_ups_.end()) {
    const uint64_t id = follow_up->second;
    follow_ups_.erase(follow_up);
    auto it = iterations_.find(id);
    if (it == iterations_.end()) return 0;
    if (it->second.db != db) {  // the client changed databases between pages
      iterations_.erase(it);
      return 0;
    }
    return id;
  }
  // A new iteration: SCAN 0 with well-formed options and no TYPE (a TYPE filter's candidates
  // would depend on lookups that reclaim expired keys).
  if (args.size() < 2 || args[1] != "0" || args.size() % 2 != 0) return 0;
  Iteration iteration;
  iteration.conn = conn;
  iteration.db = db;
  for (size_t i = 2; i + 1 < args.size(); i += 2) {
    if (model::OptionIs(args[i], "TYPE")) return 0;
    if (model::OptionIs(args[i], "MATCH")) {
      iteration.pattern = args[i + 1];
      iteration.use_pattern = args[i + 1] != "*";
    }
  }
  iteration.options.assign(args.begin() + 2, args.end());
  for (const auto& [key, value] : model.db(db)) {
    if (model::Model::IsExpired(value, now_ms)) continue;
    if (iteration.use_pattern && !model::GlobMatch(iteration.pattern, key)) continue;
    iteration.candidates.insert(key);
  }
  Drop(conn);  // a client follows one iteration at a time
  const uint64_t id = next_id_++;
  iterations_.emplace(id, std::move(iteration));
  return id;
}

void ScanGuarantee::AfterCommand(const model::Model& model, int64_t now_ms, bool swapdb) {
  if (swapdb) {
    iterations_.clear();
    follow_ups_.clear();
    return;
  }
  for (auto& [id, iteration] : iterations_) {
    const model::KeyTable& table = model.db(iteration.db);
    std::erase_if(iteration.candidates,
                  [&](const std::string& key) { return !Live(table, key, now_ms); });
  }
}

std::string ScanGuarantee::Replied(uint64_t id, const RespValue& reply,
                                   std::vector<std::string>* next) {
  next->clear();
  auto it = iterations_.find(id);
  if (it == iterations_.end()) return {};
  Iteration& iteration = it->second;
  const bool page = reply.type == RespType::kArray && reply.elements.size() == 2 &&
                    reply.elements[0].type == RespType::kBulkString &&
                    reply.elements[1].type == RespType::kArray;
  if (!page) {  // an error (the options were refused): nothing to follow
    iterations_.erase(it);
    return {};
  }
  for (const RespValue& key : reply.elements[1].elements) iteration.returned.insert(key.text);
  iteration.pages++;
  const std::string& cursor = reply.elements[0].text;
  if (cursor != "0") {
    *next = {"SCAN", cursor};
    next->insert(next->end(), iteration.options.begin(), iteration.options.end());
    return {};
  }
  std::string missed;
  for (const std::string& key : iteration.candidates) {
    if (!iteration.returned.contains(key)) missed += (missed.empty() ? "" : ", ") + key;
  }
  std::string failure;
  if (!missed.empty()) {
    failure = "connection " + std::to_string(iteration.conn) + ": a SCAN iteration of db " +
              std::to_string(iteration.db) + " (" + std::to_string(iteration.pages) +
              " pages) ended without returning " + missed + ", present for the whole iteration";
  }
  iterations_.erase(it);
  completed_++;
  return failure;
}

void ScanGuarantee::FollowUpSent(SimClientId conn, uint64_t number, uint64_t id) {
  follow_ups_[{conn, number}] = id;
}

void ScanGuarantee::Drop(SimClientId conn) {
  std::erase_if(iterations_, [&](const auto& entry) { return entry.second.conn == conn; });
  std::erase_if(follow_ups_, [&](const auto& entry) { return entry.first.first == conn; });
}

}  // namespace keel::sim
