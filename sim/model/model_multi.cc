// Transactions in the model: MULTI, EXEC, DISCARD, WATCH, UNWATCH, written from Redis 7.0's
// rules (multi.c), not from the engine.
//
// A session in MULTI queues every command but the transaction's own (Model::Execute), EXEC runs
// them one after the other at its command time with nothing in between, and WATCH is broken by
// any change of the key: the model compares every database before and after each command while
// someone watches (model.cc, Model::Run), so a write of another family breaks watches without
// that family knowing about WATCH.
#include <algorithm>

#include "sim/model/model.h"

namespace keel::model {

Model::MultiRole Model::RoleInMulti(std::string_view name) {
  if (name == "exec") return MultiRole::kExec;
  if (name == "multi" || name == "watch") return MultiRole::kRunsNow;
  if (name == "discard" || name == "quit" || name == "reset") return MultiRole::kOomExempt;
  return MultiRole::kQueued;
}

Expected Model::AbortExec(Session& session, std::string_view reason) {
  DiscardTransaction(session);
  if (reason.starts_with("ERR ")) reason.remove_prefix(4);
  return Error("EXECABORT Transaction discarded because of: " + std::string(reason));
}

Expected Model::Queue(Session& session, const Command& command, std::span<const std::string> args,
                      const Context& context) {
  // A doomed transaction queues nothing more, and still answers QUEUED.
  if (session.dirty_exec || broken_.count(session.client_id) != 0) return Simple("QUEUED");
  if (context.allocation_refused) {
    session.dirty_exec = true;  // the queue's memory was refused: a refusal like any other
    return Error(kOomError);
  }
  session.queued.emplace_back(args.begin(), args.end());
  session.queued_flags |= command.flags;
  return Simple("QUEUED");
}

Expected Model::Exec(Session& session, const Context& context) {
  if (!session.multi) return Error("ERR EXEC without MULTI");
  const bool broken = WatchBroken(session.client_id, context.now_ms);
  if (session.dirty_exec || broken) {
    Expected reply = session.dirty_exec ? Error(kExecAbortError) : NullArray(session.resp);
    DiscardTransaction(session);
    return reply;
  }
  Unwatch(session.client_id);
  std::vector<std::vector<std::string>> queued = std::move(session.queued);
  std::vector<Expected> replies;
  // A blocking command inside a transaction answers as its timeout would.
  Context in_exec = context;
  in_exec.may_block = false;
  for (const std::vector<std::string>& args : queued) {
    // Checked when queued: every command is known and has a valid arity.
    const Command* command = Find(args);
    replies.push_back(Run(session, *command, args, in_exec));
  }
  DiscardTransaction(session);
  return ArrayOf(std::move(replies));
}

void Model::DiscardTransaction(Session& session) {
  session.multi = false;
  session.dirty_exec = false;
  session.queued.clear();
  session.queued_flags = 0;
  Unwatch(session.client_id);
  broken_.erase(session.client_id);
}

void Model::DropClient(uint64_t client_id) {
  Unwatch(client_id);
  broken_.erase(client_id);
}

void Model::Watch(const Session& session, std::string_view key, int64_t now_ms) {
  for (const WatchedKey& watched : watches_) {
    if (watched.client_id == session.client_id && watched.db == session.db && watched.key == key) {
      return;
    }
  }
  const KeyTable& table = db(session.db);
  auto it = table.find(key);
  const bool expired = it != table.end() && IsExpired(it->second, now_ms);
  watches_.push_back(WatchedKey{session.client_id, session.db, std::string(key), expired});
}

void Model::Unwatch(uint64_t client_id) {
  std::erase_if(watches_,
                [&](const WatchedKey& watched) { return watched.client_id == client_id; });
}

bool Model::WatchBroken(uint64_t client_id, int64_t now_ms) const {
  if (broken_.count(client_id) != 0) return true;
  for (const WatchedKey& watched : watches_) {
    if (watched.client_id != client_id || watched.expired) continue;
    const KeyTable& table = db(watched.db);
    auto it = table.find(watched.key);
    if (it != table.end() && IsExpired(it->second, now_ms)) return true;
  }
  return false;
}

void Model::TouchKey(int db_index, std::string_view key, int64_t now_ms) {
  const KeyTable& table = db(db_index);
  auto it = table.find(key);
  const bool live_now = it != table.end() && !IsExpired(it->second, now_ms);
  std::vector<uint64_t> newly_broken;
  for (WatchedKey& watched : watches_) {
    if (watched.db != db_index || watched.key != key) continue;
    if (watched.expired && !live_now) {
      watched.expired = false;  // reclaimed: now simply absent
      continue;
    }
    newly_broken.push_back(watched.client_id);
  }
  for (uint64_t client_id : newly_broken) {
    broken_.insert(client_id);
    Unwatch(client_id);
  }
}

void Model::TouchAll(int db_index, const KeyTable& emptied, const KeyTable& replaced_with) {
  std::vector<uint64_t> newly_broken;
  for (WatchedKey& watched : watches_) {
    if (watched.db != db_index) continue;
    auto old = emptied.find(watched.key);
    auto now = replaced_with.find(watched.key);
    const bool in_emptied = old != emptied.end();
    const bool in_replacement = now != replaced_with.end();
    if (!in_emptied && !in_replacement) continue;
    const bool expired_now = in_replacement && IsExpired(now->second, now_ms_);
    if (watched.expired) {
      if (!in_replacement) {
        watched.expired = false;
        continue;
      }
      if (expired_now) continue;
    } else if (!in_emptied && expired_now) {
      watched.expired = true;
      continue;
    }
    newly_broken.push_back(watched.client_id);
  }
  for (uint64_t client_id : newly_broken) {
    broken_.insert(client_id);
    Unwatch(client_id);
  }
}

namespace {

Expected Multi(Call& call) {
  if (call.session.multi) return Error("ERR MULTI calls can not be nested");
  call.session.multi = true;
  return Ok();
}

Expected Discard(Call& call) {
  if (!call.session.multi) return Error("ERR DISCARD without MULTI");
  call.model.DiscardTransaction(call.session);
  return Ok();
}

Expected Watch(Call& call) {
  if (call.session.multi) return Error("ERR WATCH inside MULTI is not allowed");
  if (call.model.IsBroken(call.session.client_id)) return Ok();  // watching more cannot help
  for (size_t i = 1; i < call.args.size(); i++) {
    call.model.Watch(call.session, call.args[i], call.now_ms());
  }
  return Ok();
}

Expected Unwatch(Call& call) {
  call.model.Unwatch(call.session.client_id);
  call.model.ClearBroken(call.session.client_id);
  return Ok();
}

// EXEC's own run is Model::Exec; this entry gives it its name and arity.
Expected ExecEntry(Call&) { return Error("ERR EXEC is run by the model itself"); }

constexpr Command kCommands[] = {
    {"multi", 0, Multi}, {"exec", 0, ExecEntry},  {"discard", 0, Discard},
    {"watch", 0, Watch}, {"unwatch", 0, Unwatch},
};

}  // namespace

std::span<const Command> MultiCommands() { return kCommands; }

}  // namespace keel::model
