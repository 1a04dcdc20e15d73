// The RDB file loader (engine/db/rdb_file.h), over arbitrary bytes as a whole file.
// Input: byte 0's bit 0 turns checksum verification off (as DEBUG SET-SKIP-CHECKSUM-VALIDATION
// does), bits 1-7 a memory limit in 16 KiB steps (0: none); the rest is the file. A file that
// starts with zstd's magic is Keel's zstd snapshot, decompressed as it is read (the keel_zstd_*
// seeds of corpus/fuzz/rdb_load/ start the fuzzer inside valid frames).
// Properties: no crash and no read past the input; a refused file leaves the keyspace empty (a
// file never loads half) with an error to log; a loaded one writes out again and loads back with
// the same digest; the same file read through a window of 1 to 13 bytes loads the same or fails
// with the same error; every byte allocated is given back when the keys go.
#include <string>

#include "engine/base/rng.h"
#include "engine/db/digest.h"
#include "engine/db/keyspace.h"
#include "engine/db/rdb_file.h"
#include "engine/db/zstd_frame.h"
#include "engine/env/memory.h"
#include "fuzz/harnesses.h"
#include "sim/sim_env.h"

namespace keel::fuzz {
namespace {

constexpr int kDatabases = 16;

size_t KeyCount(const Keyspace& keyspace) {
  size_t keys = 0;
  for (int db = 0; db < keyspace.database_count(); db++) keys += keyspace.database(db).size();
  return keys;
}

}  // namespace

void RdbLoadOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return;
  sim::SimMemory resource;
  if ((data[0] >> 1) != 0) resource.set_limit_bytes(static_cast<size_t>(data[0] >> 1) * 16 * 1024);
  MemoryAccountant memory(resource);
  Rng rng(7);
  // A copy of exactly the input's bytes, so that ASan sees any read past them.
  const std::string file(reinterpret_cast<const char*>(data + 1), size - 1);
  RdbLoadOptions options;
  options.verify_checksum = (data[0] & 1) == 0;
  {
    Keyspace keyspace(memory, rng, kDatabases);
    const size_t used_before = memory.used_bytes_total();
    const RdbLoadResult result = LoadRdb(file, keyspace, options);
    if (!result.ok) {
      FUZZ_CHECK(!result.error.empty());
      FUZZ_CHECK(KeyCount(keyspace) == 0);
    } else {
      FUZZ_CHECK(result.keys_loaded == KeyCount(keyspace));
      const std::string digest = DatasetDigestHex(keyspace);
      const std::string written = WriteRdb(keyspace, RdbWriteOptions());
      Keyspace again(memory, rng, kDatabases);
      RdbLoadOptions reload = options;
      reload.verify_checksum = true;
      const RdbLoadResult second = LoadRdb(written, again, reload);
      // The second copy may not fit under the limit; when it does, it is the same data.
      if (second.ok) {
        FUZZ_CHECK(DatasetDigestHex(again) == digest);
        FUZZ_CHECK(second.keys_loaded == result.keys_loaded);
      } else {
        FUZZ_CHECK(second.error.find("Out of memory") != std::string::npos);
      }
      again.FlushAll();
    }
    // The same file pulled through a small window (as a zstd snapshot's stream is read) loads
    // the same or fails the same. Without a memory limit only: the window caps how far a count
    // presizes a table, which may change where memory runs out. Only a whole-file load ignores
    // bytes after the checksum; a source must end there.
    if ((data[0] >> 1) == 0 && !StartsWithZstdFrame(file)) {
      const std::string digest = result.ok ? DatasetDigestHex(keyspace) : std::string();
      Keyspace streamed(memory, rng, kDatabases);
      MemorySource source(file);
      const size_t window_bytes = 1 + file.size() % 13;
      const RdbLoadResult again = LoadRdbFrom(source, streamed, options, window_bytes);
      if (result.ok && result.bytes_read < file.size()) {
        FUZZ_CHECK(!again.ok);
      } else {
        FUZZ_CHECK(again.ok == result.ok);
        FUZZ_CHECK(again.error == result.error);
        if (again.ok) FUZZ_CHECK(DatasetDigestHex(streamed) == digest);
      }
      if (!again.ok) FUZZ_CHECK(KeyCount(streamed) == 0);
      streamed.FlushAll();
    }
    keyspace.FlushAll();
    FUZZ_CHECK(memory.used_bytes_total() <= used_before);
  }
  FUZZ_CHECK(resource.used_bytes() == 0);
}

}  // namespace keel::fuzz
