// Commands of the connection family: PING, ECHO, SELECT, HELLO, RESET, QUIT, CLIENT
// ID/SETNAME/GETNAME, and now and then an unknown command or subcommand.
#include "sim/workload/workload.h"

namespace keel::workload {

void GenerateConnection(Rng& rng, const KeySpace& space, std::vector<std::string>* args) {
  args->clear();
  const uint64_t pick = rng.Below(100);
  if (pick < 15) {
    *args = {RandomCase(rng, "ping")};
    if (rng.Below(2) == 0) args->push_back(RandomValue(rng, space));
    if (rng.Below(50) == 0) args->push_back("x");  // arity error
  } else if (pick < 25) {
    *args = {RandomCase(rng, "echo"), RandomValue(rng, space)};
  } else if (pick < 60) {
    // Mostly databases in use; sometimes the first one out of range, or a negative one.
    int64_t index = static_cast<int64_t>(rng.Below(static_cast<uint64_t>(space.databases)));
    if (rng.Below(20) == 0) index = rng.Below(2) == 0 ? space.databases_max : -1;
    *args = {RandomCase(rng, "select"), MaybeBadNumber(rng, index)};
  } else if (pick < 72) {
    *args = {RandomCase(rng, "hello")};
    if (rng.Below(4) != 0) args->push_back(MaybeBadNumber(rng, Between(rng, 1, 4) == 1 ? 2 : 3));
    if (args->size() == 2 && rng.Below(4) == 0) {
      *args = {args->at(0), args->at(1), "SETNAME", "n" + std::to_string(rng.Below(3))};
    }
    if (args->size() == 2 && rng.Below(8) == 0) {
      *args = {args->at(0), args->at(1), "AUTH", rng.Below(3) == 0 ? "nobody" : "default", "pw"};
    }
  } else if (pick < 78) {
    *args = {RandomCase(rng, "reset")};
  } else if (pick < 80) {
    *args = {RandomCase(rng, "quit")};
  } else if (pick < 95) {
    static constexpr std::string_view kSubcommands[] = {"id", "getname", "setname"};
    const std::string_view sub = kSubcommands[rng.Below(std::size(kSubcommands))];
    *args = {RandomCase(rng, "client"), RandomCase(rng, sub)};
    if (sub == "setname")
      args->push_back(rng.Below(10) == 0 ? "bad name" : "c" + std::to_string(rng.Below(5)));
    if (rng.Below(60) == 0) args->resize(1);  // CLIENT alone: arity error
    if (rng.Below(60) == 0) args->at(1 % args->size()) = "nosuchsub";
  } else {
    *args = {"nosuchcommand", RandomKey(rng, space)};
  }
}

}  // namespace keel::workload
