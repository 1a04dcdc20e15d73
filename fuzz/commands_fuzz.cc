#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/resp/resp_value.h"
#include "engine/server/engine.h"
#include "fuzz/dictionary.h"
#include "fuzz/harnesses.h"
#include "fuzz/model_shadow.h"
#include "sim/sim_env.h"

namespace keel::fuzz {
namespace {

class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return position_ >= size_; }
  uint8_t Byte() { return position_ < size_ ? data_[position_++] : 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// Two bytes of the input pick a dictionary entry (the registry's names and tokens outnumber 256).
size_t Pick(Choices& choices) {
  const size_t high = choices.Byte();
  return (high << 8) | choices.Byte();
}

// A word of the dictionary: real names and options so that commands get past arity and parsing,
// plus implausible values (empty, huge numbers, binary) so that error paths run too; now and then
// raw bytes from the input.
std::string Word(Choices& choices) {
  const std::vector<std::string>& words = CommandDictionary().words;
  const uint8_t pick = choices.Byte();
  if (pick < 240) return words[((static_cast<size_t>(pick) << 8) | choices.Byte()) % words.size()];
  // A raw byte string from the input.
  std::string raw;
  const size_t length = choices.Byte() % 24;
  for (size_t i = 0; i < length; i++) raw.push_back(static_cast<char>(choices.Byte()));
  return raw;
}

// Lets a save move on as the server loop would: a background save writes its next part, and the
// disk's completed syncs reach it. SAVE, DEBUG RELOAD and SHUTDOWN reply only once their file is
// durable, so while the client waits for one the disk is waited for (a bounded number of times).
void DriveSaves(Engine& engine, sim::SimEnv& env, const Client& client) {
  Persistence& persistence = engine.persistence();
  Aof& aof = engine.aof();
  for (int turn = 0; turn < 1000; turn++) {
    persistence.Pump();
    aof.Pump();
    aof.FlushBuffer();
    const bool waiting = (client.flags & kClientWaitingSave) != 0;
    Event events[16];
    const size_t count = env.Wait(waiting ? 1000 : 0, events, 16);
    for (size_t i = 0; i < count; i++) {
      if (events[i].kind == EventKind::kFileSynced &&
          !aof.OnFileSynced(events[i].handle, events[i].status)) {
        persistence.OnFileSynced(events[i].handle, events[i].status);
      }
    }
    if (!waiting && count == 0) return;
  }
}

// Engine invariants that must hold after every command.
void CheckInvariants(Engine& engine, sim::SimEnv& env, Client& client, std::string_view reply,
                     bool silenced, bool per_argument) {
  // Exactly one complete RESP reply per command (QUIT and SHUTDOWN reply too, or nothing for a
  // successful SHUTDOWN which closes the connection, or under CLIENT REPLY OFF/SKIP). A MONITOR
  // client also receives a status line per command after its reply; the (un)subscribe commands
  // reply once per channel or pattern (`per_argument`).
  RespValue value;
  size_t consumed = 0;
  const bool shutdown = engine.shutdown_requested();
  if ((!shutdown && !silenced) || !reply.empty()) {
    FUZZ_CHECK(DecodeResp(reply, &value, &consumed) == DecodeStatus::kOk);
    while (per_argument && consumed < reply.size()) {
      size_t more = 0;
      FUZZ_CHECK(DecodeResp(reply.substr(consumed), &value, &more) == DecodeStatus::kOk);
      consumed += more;
    }
    while ((client.flags & kClientMonitor) && consumed < reply.size()) {
      size_t more = 0;
      FUZZ_CHECK(DecodeResp(reply.substr(consumed), &value, &more) == DecodeStatus::kOk);
      FUZZ_CHECK(value.type == RespType::kSimpleString);
      consumed += more;
    }
    FUZZ_CHECK(consumed == reply.size());
  }
  // Memory: what the engine believes it holds is what the environment handed out, and what it
  // counts as used is part of that.
  FUZZ_CHECK(engine.memory().held_bytes() == env.sim_memory().used_bytes());
  FUZZ_CHECK(engine.memory().used_bytes_total() <= engine.memory().held_bytes());
  // Keyspace counters agree with the tables.
  for (int i = 0; i < engine.database_count(); i++) {
    const Database& db = engine.database(i);
    size_t entries = 0;
    size_t with_expiry = 0;
    db.ForEach([&](const Entry& entry) {
      entries++;
      if (entry.has_expiry()) with_expiry++;
    });
    FUZZ_CHECK(entries == db.size());
    FUZZ_CHECK(with_expiry == db.expires_count());
  }
  FUZZ_CHECK(client.db_index >= 0 && client.db_index < engine.database_count());
}

}  // namespace

void CommandsOneInput(const uint8_t* data, size_t size) {
  Choices choices(data, size);
  sim::SimEnv env(choices.Byte());
  // Some runs cap memory so that refusals happen in the middle of commands.
  if (choices.Byte() % 4 == 0) env.sim_memory().set_limit_bytes(4096 + choices.Byte() * 256);
  Engine engine(env, Config());
  Client* client = engine.NewClient(0, nullptr);
  ModelShadow shadow(engine, env);
  for (int step = 0; step < 256 && !choices.done(); step++) {
    const uint8_t control = choices.Byte();
    if (control % 16 == 0) {
      // Let time pass, sometimes across expiry boundaries.
      env.sim_clock().Advance(static_cast<int64_t>(choices.Byte()) * 7919);
      continue;
    }
    std::vector<std::string> args;
    // A command name as registered, in upper case or in mixed case (names are case-insensitive).
    const std::vector<std::string>& commands = CommandDictionary().commands;
    const size_t pick = Pick(choices) % (commands.size() * 3);
    std::string name = commands[pick % commands.size()];
    for (size_t i = 0; i < name.size(); i++) {
      const size_t variant = pick / commands.size();
      if (variant == 1 || (variant == 2 && i % 2 == 1)) {
        name[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[i])));
      }
    }
    args.push_back(std::move(name));
    const size_t extra = control % 7;
    for (size_t i = 0; i < extra; i++) args.push_back(Word(choices));
    std::vector<std::string_view> views(args.begin(), args.end());
    constexpr uint32_t kSilencing = kClientReplyOff | kClientReplySkip | kClientMonitor;
    const bool silenced_before = (client->flags & kSilencing) != 0;
    shadow.Before(*client, args);
    engine.RunCommand(*client, views);
    DriveSaves(engine, env, *client);
    const bool silenced = silenced_before || (client->flags & kSilencing) != 0;
    if (client->output().failed()) {
      // Memory for the reply was refused: the server closes such a client (the reply is never
      // half-sent). Continue with a fresh connection.
      shadow.After(*client, nullptr);
      engine.FreeClient(client);
      client = engine.NewClient(0, nullptr);
      continue;
    }
    if (client->flags & kClientReplica) {
      // SYNC or PSYNC made the connection a replica's: what it reads from now on is the RDB file
      // (a bulk string without its CRLF, as Redis sends it) and the stream, not one reply per
      // command (replication_test.cc checks those bytes). Continue with a fresh connection.
      shadow.After(*client, nullptr);
      engine.FreeClient(client);
      client = engine.NewClient(0, nullptr);
      continue;
    }
    const std::string reply = client->output().TakeAll();
    if (std::getenv("KEEL_FUZZ_TRACE") != nullptr) {
      std::string line;
      for (const std::string& arg : args) line += "[" + arg + "] ";
      std::fprintf(stderr, "%s=> %s\n", line.c_str(), reply.c_str());
    }
    std::string lower = args.empty() ? std::string() : args[0];
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool per_argument =
        lower.size() >= 9 && lower.size() <= 12 && lower.ends_with("subscribe");
    CheckInvariants(engine, env, *client, reply, silenced, per_argument);
    // The reply, as the reference model predicts it where the model covers the command.
    RespValue value;
    size_t consumed = 0;
    const bool decoded =
        !silenced && !reply.empty() && DecodeResp(reply, &value, &consumed) == DecodeStatus::kOk;
    const std::string divergence = shadow.After(*client, decoded ? &value : nullptr);
    if (!divergence.empty()) std::fprintf(stderr, "model divergence: %s\n", divergence.c_str());
    FUZZ_CHECK(divergence.empty());
    if (engine.shutdown_requested()) break;
  }
}

}  // namespace keel::fuzz
