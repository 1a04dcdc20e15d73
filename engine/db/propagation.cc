#include "engine/db/propagation.h"

#include <algorithm>

#include "engine/base/assert.h"

namespace keel {

void Propagation::AddSink(PropagationSink* sink) {
  KEEL_ASSERT(sink != nullptr);
  KEEL_ASSERT(std::find(sinks_.begin(), sinks_.end(), sink) == sinks_.end());
  sinks_.push_back(sink);
}

void Propagation::RemoveSink(PropagationSink* sink) {
  const size_t removed = std::erase(sinks_, sink);
  KEEL_ASSERT(removed == 1);
  if (sinks_.empty()) {
    ops_.clear();
    args_.clear();
  }
}

void Propagation::Add(int db, std::span<const std::string_view> args) {
  if (sinks_.empty()) return;
  KEEL_DASSERT(!args.empty());
  KEEL_DASSERT(db >= 0);
  ops_.push_back(Op{db, args_.size(), args.size()});
  for (std::string_view arg : args) args_.emplace_back(arg);
}

void Propagation::Emit(int db, std::span<const std::string_view> args) {
  for (PropagationSink* sink : sinks_) sink->Propagate(db, args);
}

void Propagation::FlushUnit(bool transaction) {
  const bool wrap = transaction && ops_.size() > 1;
  // MULTI carries the first command's database, so that a sink selects it before the MULTI.
  if (wrap) {
    const std::string_view multi[] = {"MULTI"};
    Emit(ops_.front().db, multi);
  }
  std::vector<std::string_view> views;
  for (const Op& op : ops_) {
    views.assign(args_.begin() + static_cast<std::ptrdiff_t>(op.first_arg),
                 args_.begin() + static_cast<std::ptrdiff_t>(op.first_arg + op.arg_count));
    Emit(op.db, views);
  }
  if (wrap) {
    const std::string_view exec[] = {"EXEC"};
    Emit(-1, exec);
  }
  ops_.clear();
  args_.clear();
}

}  // namespace keel
