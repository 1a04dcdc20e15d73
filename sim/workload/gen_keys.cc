// Commands of the generic key family: DEL, UNLINK, EXISTS, TOUCH, TYPE, DBSIZE, RENAME, RENAMENX,
// COPY, MOVE, SWAPDB, FLUSHDB and FLUSHALL.
#include "sim/workload/workload.h"

namespace keel::workload {
namespace {

void GenerateCopy(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  *args = {RandomCase(rng, "copy"), RandomKey(rng, space), RandomKey(rng, space)};
  if (rng.Below(2) == 0) {
    args->push_back(RandomCase(rng, "DB"));
    args->push_back(MaybeBadNumber(rng, RandomDb(rng, space)));
  }
  if (rng.Below(2) == 0) args->push_back(RandomCase(rng, "REPLACE"));
  if (rng.Below(40) == 0) args->push_back(rng.Below(2) == 0 ? "DB" : "BOGUS");  // syntax error
}

}  // namespace

void GenerateKeys(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(100);
  if (pick < 20) {
    args->push_back(RandomCase(rng, rng.Below(4) == 0 ? "unlink" : "del"));
    AddKeys(rng, space, 4, args);
  } else if (pick < 40) {
    args->push_back(RandomCase(rng, rng.Below(4) == 0 ? "touch" : "exists"));
    AddKeys(rng, space, 4, args);
  } else if (pick < 52) {
    args->push_back(RandomCase(rng, "dbsize"));
  } else if (pick < 58) {
    *args = {RandomCase(rng, "type"), RandomKey(rng, space)};
  } else if (pick < 70) {
    *args = {RandomCase(rng, rng.Below(3) == 0 ? "renamenx" : "rename"), RandomKey(rng, space),
             RandomKey(rng, space)};
  } else if (pick < 82) {
    GenerateCopy(rng, space, args);
  } else if (pick < 94) {
    *args = {RandomCase(rng, "move"), RandomKey(rng, space),
             MaybeBadNumber(rng, RandomDb(rng, space))};
  } else if (pick < 97) {
    *args = {RandomCase(rng, "swapdb"), MaybeBadNumber(rng, RandomDb(rng, space)),
             MaybeBadNumber(rng, RandomDb(rng, space))};
  } else {
    // Rare: a flush empties what the other commands build up.
    args->push_back(RandomCase(rng, pick < 99 ? "flushdb" : "flushall"));
    const uint64_t option = rng.Below(8);
    if (option == 0) args->push_back(RandomCase(rng, "async"));
    if (option == 1) args->push_back(RandomCase(rng, "sync"));
    if (option == 2) args->push_back("now");  // syntax error
  }
}

}  // namespace keel::workload
