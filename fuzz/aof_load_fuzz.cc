// Loading the AOF at start (engine/server/aof.h), over arbitrary bytes as one of its files.
// Input: byte 0 says which file the rest is (bits 0-1: 0 the incremental file, 1 a command-form
// base, 2 an RDB-preamble base with the rest after a fixed empty RDB, 3 the manifest over fixed
// good files) and bit 2 turns aof-load-truncated off.
// Properties: no crash and no read past the input; a refused load leaves the keyspace empty;
// a load that succeeded (perhaps cutting a torn tail off the last file) loads again from the
// files as they are now to the same digest, and cut nothing more the second time.
#include <string>

#include "engine/db/digest.h"
#include "engine/server/engine.h"
#include "fuzz/harnesses.h"
#include "sim/sim_env.h"

namespace keel::fuzz {
namespace {

// What Keel's RDB writer makes of an empty keyspace (version 10, no aux fields needed).
const std::string kEmptyRdb = std::string("REDIS0010\xff", 10) + std::string(8, '\0');
const std::string kGoodIncr =
    "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n";

void WriteFile(sim::SimEnv& env, const std::string& path, std::string_view bytes) {
  Result<FileId> file = env.files().Open(path, OpenMode::kCreateTruncate);
  FUZZ_CHECK(file.ok());
  const ConstSlice slice{bytes.data(), bytes.size()};
  FUZZ_CHECK(env.files().Append(*file, &slice, 1).ok());
  FUZZ_CHECK(env.files().Close(*file).ok());
}

size_t KeyCount(const Engine& engine) {
  size_t keys = 0;
  for (int db = 0; db < engine.database_count(); db++) keys += engine.database(db).size();
  return keys;
}

Config LoadConfig(bool load_truncated) {
  Config config;
  std::string error;
  FUZZ_CHECK(config.SetFromCommand(*Config::Find("appendonly"), "yes", &error));
  FUZZ_CHECK(config.SetFromCommand(*Config::Find("save"), "", &error));
  FUZZ_CHECK(config.SetFromCommand(*Config::Find("aof-load-truncated"),
                                   load_truncated ? "yes" : "no", &error));
  return config;
}

}  // namespace

void AofLoadOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return;
  const int which = data[0] & 3;
  const bool load_truncated = (data[0] & 4) == 0;
  // A copy of exactly the input's bytes, so that ASan sees any read past them.
  const std::string input(reinterpret_cast<const char*>(data + 1), size - 1);
  sim::SimEnv env(1);
  FUZZ_CHECK(env.files().CreateDirectory("appendonlydir").ok());
  const std::string dir = "appendonlydir/";
  std::string manifest;
  std::string last_file;
  if (which == 0) {
    manifest = "file appendonly.aof.1.incr.aof seq 1 type i\n";
    last_file = "appendonly.aof.1.incr.aof";
    WriteFile(env, dir + last_file, input);
  } else if (which == 1 || which == 2) {
    const std::string base = which == 1 ? "appendonly.aof.1.base.aof" : "appendonly.aof.1.base.rdb";
    manifest = "file " + base + " seq 1 type b\n";
    last_file = base;
    WriteFile(env, dir + base, which == 1 ? input : kEmptyRdb + input);
  } else {
    manifest = input;
    WriteFile(env, dir + "appendonly.aof.1.base.aof", kGoodIncr);
    WriteFile(env, dir + "appendonly.aof.1.incr.aof", kGoodIncr);
    WriteFile(env, dir + "appendonly.aof.2.incr.aof", kGoodIncr);
  }
  WriteFile(env, dir + "appendonly.aof.manifest", manifest);
  std::string digest;
  {
    Engine engine(env, LoadConfig(load_truncated));
    const Status loaded = engine.aof().LoadAtStartup();
    if (!loaded.ok()) {
      FUZZ_CHECK(KeyCount(engine) == 0);
      return;
    }
    digest = DatasetDigestHex(engine.keyspace());
  }
  const std::string* before =
      last_file.empty() ? nullptr : env.sim_files().Content(dir + last_file);
  const size_t size_before = before != nullptr ? before->size() : 0;
  Engine again(env, LoadConfig(load_truncated));
  FUZZ_CHECK(again.aof().LoadAtStartup().ok());
  FUZZ_CHECK(DatasetDigestHex(again.keyspace()) == digest);
  if (before != nullptr) {
    const std::string* after = env.sim_files().Content(dir + last_file);
    FUZZ_CHECK(after != nullptr && after->size() == size_before);
  }
}

}  // namespace keel::fuzz
