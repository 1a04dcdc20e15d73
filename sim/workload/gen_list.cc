// Commands of the list family: every list command with its options, indexes around the ends
// (negative, past the end, not numbers), counts at their edges, LMOVE between lists and onto
// the same list, and the blocking forms with short timeouts (served by other clients' pushes,
// timing out as the clock moves, or cut while they wait).
//
// Lists live mostly under their own names (l0 .. l3), and now and then under a string-family key,
// so that list commands meet strings and string commands meet lists (WRONGTYPE both ways).
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

// Two lists that are mostly empty, as job queues are: the blocking commands wait on them often,
// and pushes to them (now and then) serve the waiters.
std::string QueueKey(Rng& rng) { return "q" + std::to_string(rng.Below(2)); }

std::string ListKey(Rng& rng, const KeySpace& space) {
  switch (rng.Below(8)) {
    case 0:
      return RandomKey(rng, space);
    case 1:
      return QueueKey(rng);
    default:
      return "l" + std::to_string(rng.Below(4));
  }
}

std::string Index(Rng& rng) {
  static constexpr int64_t kIndexes[] = {0, 1, 2, -1, -2, 5, -6, 100, -100, 3};
  return MaybeBadNumber(rng, kIndexes[rng.Below(std::size(kIndexes))]);
}

std::string End(Rng& rng) {
  if (rng.Below(30) == 0) return "middle";
  return RandomCase(rng, rng.Below(2) == 0 ? "left" : "right");
}

// Elements repeat often (LREM, LPOS and LINSERT need matches), are sometimes integers, and now
// and then large enough (up to 9,000 bytes) to take an 8 KB node of their own, when the plan
// allows large values at all (not with splits of a few bytes, which would take a 9 KB push longer
// than the liveness bound allows: seed 1622 of the release sweep).
std::string Element(Rng& rng, const KeySpace& space) {
  if (space.large_value_per_million > 0 && rng.Below(40) == 0) {
    return std::string(1 + rng.Below(9000), 'x');
  }
  if (rng.Below(5) == 0) return RandomStoredValue(rng, space);
  return std::string(1, static_cast<char>('a' + rng.Below(4)));
}

void Push(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  static constexpr std::string_view kPushes[] = {"lpush", "rpush", "lpushx", "rpushx"};
  *args = {RandomCase(rng, kPushes[rng.Below(4)]),
           rng.Below(4) == 0 ? QueueKey(rng) : ListKey(rng, space)};
  // Now and then many small elements, so that lists grow past one node.
  const bool many = rng.Below(4) == 0;
  const uint64_t elements = 1 + rng.Below(many ? 60 : 4);
  for (uint64_t i = 0; i < elements; i++) {
    args->push_back(many ? std::string(1 + rng.Below(40), static_cast<char>('a' + rng.Below(4)))
                         : Element(rng, space));
  }
}

void Pop(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  *args = {RandomCase(rng, rng.Below(2) == 0 ? "lpop" : "rpop"), ListKey(rng, space)};
  if (rng.Below(2) == 0) args->push_back(MaybeBadNumber(rng, Between(rng, -1, 6)));
}

void Lpos(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  *args = {RandomCase(rng, "lpos"), ListKey(rng, space), Element(rng, space)};
  if (rng.Below(2) == 0)
    args->insert(args->end(), {"RANK", MaybeBadNumber(rng, Between(rng, -3, 3))});
  if (rng.Below(2) == 0)
    args->insert(args->end(), {"COUNT", MaybeBadNumber(rng, Between(rng, -1, 3))});
  if (rng.Below(3) == 0)
    args->insert(args->end(), {"MAXLEN", MaybeBadNumber(rng, Between(rng, -1, 5))});
}

void Lmpop(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  const int64_t keys = Between(rng, 1, 3);
  *args = {RandomCase(rng, "lmpop"), MaybeBadNumber(rng, rng.Below(20) == 0 ? 0 : keys)};
  for (int64_t i = 0; i < keys; i++) args->push_back(ListKey(rng, space));
  args->push_back(End(rng));
  if (rng.Below(2) == 0)
    args->insert(args->end(), {"COUNT", MaybeBadNumber(rng, Between(rng, 0, 5))});
}

void Blocking(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  switch (rng.Below(5)) {
    case 0:
    case 1: {
      *args = {RandomCase(rng, rng.Below(2) == 0 ? "blpop" : "brpop")};
      const uint64_t keys = 1 + rng.Below(3);
      for (uint64_t i = 0; i < keys; i++) {
        args->push_back(rng.Below(2) == 0 ? QueueKey(rng) : ListKey(rng, space));
      }
      args->push_back(BlockTimeout(rng));
      break;
    }
    case 2:
      *args = {RandomCase(rng, "blmove"), QueueKey(rng), ListKey(rng, space), End(rng), End(rng),
               BlockTimeout(rng)};
      break;
    case 3:
      *args = {RandomCase(rng, "brpoplpush"), QueueKey(rng), ListKey(rng, space),
               BlockTimeout(rng)};
      break;
    default:
      Lmpop(rng, space, args);
      (*args)[0] = RandomCase(rng, "blmpop");
      args->insert(args->begin() + 1, BlockTimeout(rng));
      break;
  }
}

// SORT and SORT_RO over lists and the other families' keys (sets, sorted sets, and keys of
// the wrong type), sorted as numbers (most list elements are not: the error) or ALPHA, BY and
// GET patterns that reach string keys (k*), hash fields (k*->f0), the element itself ('*': a
// key named as the element) and constants (nosort: nothing to sort), with LIMIT at its edges
// and now and then STORE.
void Sort(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  const bool read_only = rng.Below(5) == 0;
  *args = {RandomCase(rng, read_only ? "sort_ro" : "sort"),
           rng.Below(2) == 0 ? ListKey(rng, space) : RandomKey(rng, space)};
  static constexpr std::string_view kPatterns[] = {"k*", "*",  "nosort", "k*->f0",  "k*->a",
                                                   "#",  "l*", "*->",    "k*->name"};
  const auto pattern = [&] { return std::string(kPatterns[rng.Below(std::size(kPatterns))]); };
  const uint64_t options = rng.Below(5);
  for (uint64_t i = 0; i < options; i++) {
    switch (rng.Below(8)) {
      case 0:
        // A constant (nothing to sort: the source's own order, DESC from its end) a third of
        // the time.
        args->insert(args->end(), {RandomCase(rng, "by"),
                                   rng.Below(3) == 0 ? std::string("nosort") : pattern()});
        break;
      case 1:
        args->insert(args->end(),
                     {RandomCase(rng, "limit"), MaybeBadNumber(rng, Between(rng, -2, 4)),
                      MaybeBadNumber(rng, Between(rng, -2, 4))});
        break;
      case 2:
      case 3:
        args->insert(args->end(), {RandomCase(rng, "get"), pattern()});
        break;
      case 4:
        args->push_back(RandomCase(rng, rng.Below(3) == 0 ? "asc" : "desc"));
        break;
      case 5:
      case 6:
        args->push_back(RandomCase(rng, "alpha"));
        break;
      default:
        if (rng.Below(10) == 0) {
          args->push_back("sideways");
        } else {
          args->insert(args->end(),
                       {RandomCase(rng, "store"),
                        rng.Below(2) == 0 ? ListKey(rng, space) : RandomKey(rng, space)});
        }
        break;
    }
  }
}

// The generic commands on lists.
void Generic(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  switch (rng.Below(5)) {
    case 0:
      *args = {"type", ListKey(rng, space)};
      break;
    case 1:
      *args = {"object", "encoding", ListKey(rng, space)};
      break;
    case 2:
      *args = {"del", ListKey(rng, space)};
      break;
    case 3:
      *args = {"rename", ListKey(rng, space), ListKey(rng, space)};
      break;
    default:
      *args = {"copy", ListKey(rng, space), ListKey(rng, space), "replace"};
      break;
  }
}

}  // namespace

std::string BlockTimeout(Rng& rng) {
  static constexpr std::string_view kTimeouts[] = {"0.01", "0.05", "0.2", "0.5", "1", "1.5"};
  switch (rng.Below(25)) {
    case 0:
      return "-1";
    case 1:
      return "soon";
    default:
      return std::string(kTimeouts[rng.Below(std::size(kTimeouts))]);
  }
}

void GenerateList(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  switch (rng.Below(19)) {
    case 0:
    case 1:
    case 2:
      Push(rng, space, args);
      break;
    case 18:
      Sort(rng, space, args);
      break;
    case 3:
    case 4:
      Pop(rng, space, args);
      break;
    case 5:
      *args = {RandomCase(rng, "llen"), ListKey(rng, space)};
      break;
    case 6:
      *args = {RandomCase(rng, "lindex"), ListKey(rng, space), Index(rng)};
      break;
    case 7:
      *args = {RandomCase(rng, "lrange"), ListKey(rng, space), Index(rng), Index(rng)};
      break;
    case 8:
      *args = {RandomCase(rng, "lset"), ListKey(rng, space), Index(rng), Element(rng, space)};
      break;
    case 9:
      *args = {RandomCase(rng, "linsert"), ListKey(rng, space),
               rng.Below(15) == 0 ? "inside" : RandomCase(rng, rng.Below(2) ? "before" : "after"),
               Element(rng, space), Element(rng, space)};
      break;
    case 10:
      *args = {RandomCase(rng, "lrem"), ListKey(rng, space),
               MaybeBadNumber(rng, Between(rng, -2, 2)), Element(rng, space)};
      break;
    case 11:
      *args = {RandomCase(rng, "ltrim"), ListKey(rng, space), Index(rng), Index(rng)};
      break;
    case 12:
      Lpos(rng, space, args);
      break;
    case 13:
      if (rng.Below(3) == 0) {
        *args = {RandomCase(rng, "rpoplpush"), ListKey(rng, space), ListKey(rng, space)};
      } else {
        *args = {RandomCase(rng, "lmove"), ListKey(rng, space), ListKey(rng, space), End(rng),
                 End(rng)};
      }
      break;
    case 14:
      Lmpop(rng, space, args);
      break;
    case 15:
      Blocking(rng, space, args);
      break;
    default:
      Generic(rng, space, args);
      break;
  }
}

}  // namespace keel::workload
