// Commands of the list family: every list command with its options, indexes around the ends
// (negative, past the end, not numbers), counts at their edges, and LMOVE between lists and onto
// the same list.
//
// Lists live mostly under their own names (l0 .. l3), and now and then under a string-family key,
// so that list commands meet strings and string commands meet lists (WRONGTYPE both ways).
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

std::string ListKey(Rng& rng, const KeySpace& space) {
  return rng.Below(8) == 0 ? RandomKey(rng, space) : "l" + std::to_string(rng.Below(4));
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
// and then large enough (up to 9,000 bytes) to take an 8 KB node of their own.
std::string Element(Rng& rng, const KeySpace& space) {
  if (rng.Below(40) == 0) return std::string(1 + rng.Below(9000), 'x');
  if (rng.Below(5) == 0) return RandomStoredValue(rng, space);
  return std::string(1, static_cast<char>('a' + rng.Below(4)));
}

void Push(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  static constexpr std::string_view kPushes[] = {"lpush", "rpush", "lpushx", "rpushx"};
  *args = {RandomCase(rng, kPushes[rng.Below(4)]), ListKey(rng, space)};
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

void GenerateList(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  switch (rng.Below(16)) {
    case 0:
    case 1:
    case 2:
      Push(rng, space, args);
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
    default:
      Generic(rng, space, args);
      break;
  }
}

}  // namespace keel::workload
