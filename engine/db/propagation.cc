#include "engine/db/propagation.h"

#include <algorithm>

#include "engine/base/assert.h"

namespace keel {

void Propagation::AddSink(PropagationSink* sink, uint8_t targets) {
  KEEL_ASSERT(sink != nullptr);
  KEEL_ASSERT(targets != 0 && (targets & ~kPropagateAll) == 0);
  KEEL_ASSERT(std::none_of(sinks_.begin(), sinks_.end(),
                           [sink](const Registration& r) { return r.sink == sink; }));
  sinks_.push_back(Registration{sink, targets});
  sink_targets_ |= targets;
}

void Propagation::RemoveSink(PropagationSink* sink) {
  const size_t removed =
      std::erase_if(sinks_, [sink](const Registration& r) { return r.sink == sink; });
  KEEL_ASSERT(removed == 1);
  sink_targets_ = 0;
  for (const Registration& registration : sinks_) sink_targets_ |= registration.targets;
  if (sinks_.empty()) {
    ops_.clear();
    args_.clear();
  }
}

void Propagation::Add(int db, std::span<const std::string_view> args, uint8_t targets) {
  // A command no registered sink receives is not kept (PUBLISH with an AOF and no replica).
  if ((sink_targets_ & targets) == 0) return;
  KEEL_DASSERT(!args.empty());
  KEEL_DASSERT(db >= 0);
  ops_.push_back(Op{db, targets, args_.size(), args.size()});
  for (std::string_view arg : args) args_.emplace_back(arg);
}

void Propagation::Emit(int db, std::span<const std::string_view> args, uint8_t targets) {
  for (const Registration& registration : sinks_) {
    if (registration.targets & targets) registration.sink->Propagate(db, args);
  }
}

void Propagation::FlushUnit(bool transaction) {
  const bool wrap = transaction && ops_.size() > 1;
  // MULTI carries the first command's database, so that a sink selects it before the MULTI.
  if (wrap) {
    // MULTI and EXEC go to every sink, as Redis's propagatePendingCommands sends them.
    const std::string_view multi[] = {"MULTI"};
    Emit(ops_.front().db, multi, kPropagateAll);
  }
  std::vector<std::string_view> views;
  for (const Op& op : ops_) {
    views.assign(args_.begin() + static_cast<std::ptrdiff_t>(op.first_arg),
                 args_.begin() + static_cast<std::ptrdiff_t>(op.first_arg + op.arg_count));
    Emit(op.db, views, op.targets);
  }
  if (wrap) {
    const std::string_view exec[] = {"EXEC"};
    Emit(-1, exec, kPropagateAll);
  }
  ops_.clear();
  args_.clear();
}

}  // namespace keel
