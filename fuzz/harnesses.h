// The fuzz harnesses, as plain functions: each takes one input and aborts (through FUZZ_CHECK)
// when a property fails. libFuzzer entry points (fuzz/entry_*.cc, clang builds with KEEL_FUZZ)
// call them, and so does the corpus replay test (fuzz/corpus_replay_test.cc), which runs every
// file of corpus/fuzz/<harness>/ on every test run, with any compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(condition)                                                                      \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      std::fprintf(stderr, "fuzz property failed: %s at %s:%d\n", #condition, __FILE__, __LINE__); \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)

namespace keel::fuzz {

// The RESP request parser over arbitrary bytes fed in arbitrary chunks: no crash, no read outside
// the input, consumed bytes never exceed the input, and the same commands (and the same protocol
// error) come out whatever the split.
void RespParserOneInput(const uint8_t* data, size_t size);

// The reply codec: DecodeResp(EncodeResp(v)) == v for values built from the input, and
// EncodeResp(DecodeResp(bytes)) reproduces the consumed bytes for any input that decodes.
void ReplyCodecOneInput(const uint8_t* data, size_t size);

// Command sequences: the input is decoded into real commands with plausible and implausible
// arguments, run by an engine over the simulated environment, with the engine's invariants
// checked after every command.
void CommandsOneInput(const uint8_t* data, size_t size);

// The config file and command-line parsers.
void ConfigOneInput(const uint8_t* data, size_t size);

// The set type's RDB loader (RESTORE), over arbitrary bytes (set_load_fuzz.cc).
void SetLoadOneInput(const uint8_t* data, size_t size);
// The sorted-set RDB loader (zset_load_fuzz.cc).
void ZsetLoadOneInput(const uint8_t* data, size_t size);

// The hash type's RDB loader (RESTORE), over arbitrary bytes (hash_load_fuzz.cc).
void HashLoadOneInput(const uint8_t* data, size_t size);

// The HyperLogLog reader and editor, over arbitrary bytes as a string value (hll_read_fuzz.cc).
void HllReadOneInput(const uint8_t* data, size_t size);

// The RDB file loader, over arbitrary bytes as a whole file (rdb_load_fuzz.cc).
void RdbLoadOneInput(const uint8_t* data, size_t size);

// Loading the AOF at start, over arbitrary bytes as one of its files (aof_load_fuzz.cc).
void AofLoadOneInput(const uint8_t* data, size_t size);

struct Harness {
  std::string_view name;  // also the corpus folder: corpus/fuzz/<name>/
  void (*one_input)(const uint8_t* data, size_t size);
};

inline constexpr Harness kHarnesses[] = {
    {"resp_parser", RespParserOneInput}, {"reply_codec", ReplyCodecOneInput},
    {"commands", CommandsOneInput},      {"config", ConfigOneInput},
    {"set_load", SetLoadOneInput},       {"hash_load", HashLoadOneInput},
    {"zset_load", ZsetLoadOneInput},     {"hll_read", HllReadOneInput},
    {"rdb_load", RdbLoadOneInput},       {"aof_load", AofLoadOneInput},
};

}  // namespace keel::fuzz
