// ScanGuarantee: SCAN's promise, checked over whole iterations that simulated clients follow.
//
// Redis promises that a full iteration (from cursor 0 until SCAN returns cursor 0 again) returns
// every key that was present in the database for the whole iteration at least once, whatever
// other clients write, and however the table grows, shrinks or rehashes meanwhile. A SCAN 0
// without TYPE starts an iteration: the keys the model holds live then, that its MATCH pattern
// lets through, are its candidates; after every command of any client, the candidates no longer
// live (deleted, expired, moved, flushed) leave the set. The client follows the cursors (the
// simulation sends the next SCAN with the same options when the reply comes), and when the
// cursor comes back to 0 every remaining candidate must have been returned. An iteration is
// dropped, unchecked, when its client's connection is cut, a page fails, a page runs in another
// database (the client SELECTed meanwhile) or a SWAPDB exchanges the tables under it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "engine/resp/resp_value.h"
#include "sim/model/model.h"
#include "sim/sim_env.h"

namespace keel::sim {

class ScanGuarantee {
 public:
  // Command number `number` of connection `conn`, a SCAN run in `db`, has just executed: the
  // iteration it is a page of (a follow-up the simulation sent, or a new one for SCAN 0 without
  // TYPE), or 0.
  uint64_t Executed(SimClientId conn, uint64_t number, int db, std::span<const std::string> args,
                    const model::Model& model, int64_t now_ms);
  // After every command: candidates no longer live leave their iterations; `swapdb` drops every
  // iteration (its database is now another table).
  void AfterCommand(const model::Model& model, int64_t now_ms, bool swapdb);
  // The reply to a page of iteration `id`. Returns a failure (empty when none); sets `next` to
  // the following page's arguments, or leaves it empty when the iteration ended or was dropped.
  std::string Replied(uint64_t id, const RespValue& reply, std::vector<std::string>* next);
  // The simulation queued the page `next` (from Replied) as command `number` of `conn`.
  void FollowUpSent(SimClientId conn, uint64_t number, uint64_t id);
  // The connection is gone: its iteration ends unchecked.
  void Drop(SimClientId conn);

  uint64_t completed() const { return completed_; }

 private:
  struct Iteration {
    SimClientId conn = 0;
    int db = 0;
    std::vector<std::string> options;  // the arguments after the cursor, repeated on every page
    std::string pattern;
    bool use_pattern = false;
    std::set<std::string> candidates;  // live at the start and at every command since
    std::set<std::string> returned;
    uint64_t pages = 0;
  };

  std::map<uint64_t, Iteration> iterations_;
  // (connection, command number) of a follow-up page -> its iteration.
  std::map<std::pair<SimClientId, uint64_t>, uint64_t> follow_ups_;
  uint64_t next_id_ = 1;
  uint64_t completed_ = 0;
};

}  // namespace keel::sim
