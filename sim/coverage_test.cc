// Every command the registry defines is covered by every instrument that takes its facts from
// the registry: the reference model has it (the oracle checks its replies in every seed), a
// workload family sends it (the sweep exercises it), and the fuzz dictionary holds its name. The
// exceptions are few, named and reviewed: sim/coverage_exceptions.txt, one line per command (or
// container) with the instruments it is excused from and the reason. An exception that excuses
// nothing fails too, so the list shrinks as coverage grows. (Conformance cases and the random
// differential generators are held to the same rule by conformance/compat/compatibility.py, ctest
// compatibility_check.)
#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/base/rng.h"
#include "engine/registry/registry.h"
#include "fuzz/dictionary.h"
#include "sim/model/model.h"
#include "sim/workload/workload.h"

namespace keel {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Every runnable command: top-level commands with a handler, and every subcommand.
std::vector<std::string> RegisteredCommands() {
  std::vector<std::string> names;
  for (const CommandSpec* spec : Registry::Builtin().all()) {
    if (spec->handler != nullptr) names.push_back(spec->full_name);
  }
  return names;
}

// One line of sim/coverage_exceptions.txt: a command ("client|kill"), or every subcommand of a
// container not otherwise covered ("client|*"); the instruments it is excused from; the reason.
struct Exception {
  std::string pattern;
  std::set<std::string> instruments;
  std::string reason;
  bool used = false;

  bool Covers(const std::string& name, const std::string& instrument) const {
    if (!instruments.contains(instrument)) return false;
    if (pattern.ends_with("|*")) {
      return name.starts_with(pattern.substr(0, pattern.size() - 1));
    }
    return name == pattern;
  }
};

std::vector<Exception> Exceptions() {
  std::ifstream file(std::string(KEEL_SOURCE_DIR) + "/sim/coverage_exceptions.txt");
  EXPECT_TRUE(file.good()) << "sim/coverage_exceptions.txt is missing";
  std::vector<Exception> exceptions;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Exception exception;
    std::string instruments;
    fields >> exception.pattern >> instruments;
    std::getline(fields, exception.reason);
    EXPECT_FALSE(exception.reason.empty()) << "an exception needs its reason: " << line;
    std::istringstream names(instruments);
    for (std::string name; std::getline(names, name, ',');) {
      EXPECT_TRUE(name == "model" || name == "workload") << line;
      exception.instruments.insert(name);
    }
    exceptions.push_back(std::move(exception));
  }
  return exceptions;
}

// What the workload families send, over enough draws that every branch of a generator comes up.
std::set<std::string> GeneratedCommands() {
  std::set<std::string> names;
  Rng rng(20261203);
  workload::KeySpace space;
  std::vector<std::string> args;
  for (const workload::Family& family : workload::Families()) {
    for (int i = 0; i < 20000; i++) {
      family.generate(rng, space, &args);
      if (args.empty()) continue;
      std::string name = Lower(args[0]);
      const CommandSpec* spec = Registry::Builtin().Find(name);
      if (spec != nullptr && spec->is_container() && args.size() >= 2) {
        name += "|" + Lower(args[1]);
      }
      names.insert(name);
    }
  }
  return names;
}

TEST(CoverageTest, EveryRegisteredCommandIsModelledAndGeneratedOrExcepted) {
  std::vector<Exception> exceptions = Exceptions();
  const model::Model model;
  const std::set<std::string> generated = GeneratedCommands();
  std::vector<std::string> missing;
  for (const std::string& name : RegisteredCommands()) {
    std::vector<std::string> args;
    const size_t bar = name.find('|');
    if (bar == std::string::npos) {
      args = {name};
    } else {
      args = {name.substr(0, bar), name.substr(bar + 1)};
    }
    const model::Command* command = model.Find(args);
    const bool modelled = command != nullptr && command->run != nullptr;
    const bool in_workload = generated.contains(name);
    for (auto [instrument, covered] : {std::pair{"model", modelled}, {"workload", in_workload}}) {
      const std::string key = name + " " + instrument;
      bool excepted = false;
      for (Exception& exception : exceptions) {
        if (covered || !exception.Covers(name, instrument)) continue;
        excepted = exception.used = true;
      }
      if (!covered && !excepted) missing.push_back(key);
    }
  }
  std::string listed;
  for (const std::string& key : missing) listed += "\n  " + key;
  EXPECT_TRUE(missing.empty()) << "not covered, and not in sim/coverage_exceptions.txt:" << listed;
  // An exception that excuses nothing (the command is covered now, or no longer defined) goes.
  std::string stale;
  for (const Exception& exception : exceptions) {
    if (!exception.used) stale += "\n  " + exception.pattern;
  }
  EXPECT_TRUE(stale.empty()) << "exceptions that excuse nothing (remove them):" << stale;
}

TEST(CoverageTest, FuzzDictionaryHoldsEveryCommandAndSubcommandName) {
  const fuzz::Dictionary& dictionary = fuzz::CommandDictionary();
  for (const CommandSpec* spec : Registry::Builtin().all()) {
    const std::vector<std::string>& list =
        spec->parent == nullptr ? dictionary.commands : dictionary.words;
    EXPECT_NE(std::find(list.begin(), list.end(), spec->name), list.end()) << spec->full_name;
  }
}

}  // namespace
}  // namespace keel
