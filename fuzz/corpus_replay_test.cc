// Replays every file of corpus/fuzz/<harness>/ through its harness, so the corpus (and every crash
// ever found, which becomes a corpus file) is checked on every test run, with any compiler.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz/harnesses.h"

namespace keel::fuzz {
namespace {

std::vector<std::filesystem::path> CorpusFiles(std::string_view harness) {
  const std::filesystem::path folder =
      std::filesystem::path(KEEL_CORPUS_DIR) / "fuzz" / std::string(harness);
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::exists(folder)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class CorpusReplayTest : public ::testing::TestWithParam<Harness> {};

TEST_P(CorpusReplayTest, EveryCorpusFilePasses) {
  const Harness harness = GetParam();
  const std::vector<std::filesystem::path> files = CorpusFiles(harness.name);
  // A harness without seeds would make this test vacuous.
  ASSERT_FALSE(files.empty()) << "no corpus for " << harness.name;
  for (const std::filesystem::path& file : files) {
    // Read with an explicit size: GCC 12 at -O3 warns falsely (-Wnull-dereference) about
    // istreambuf_iterator here.
    std::ifstream stream(file, std::ios::binary);
    std::string bytes(std::filesystem::file_size(file), '\0');
    stream.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_EQ(static_cast<size_t>(stream.gcount()), bytes.size());
    SCOPED_TRACE(file.string());
    // A failing property aborts the process, which fails this test with the file named above.
    harness.one_input(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu corpus files replayed\n", std::string(harness.name).c_str(), files.size());
}

INSTANTIATE_TEST_SUITE_P(Harnesses, CorpusReplayTest, ::testing::ValuesIn(kHarnesses),
                         [](const ::testing::TestParamInfo<Harness>& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace keel::fuzz
