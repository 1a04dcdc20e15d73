#include "sim/tool/trace_sinks.h"

#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace keel::sim {
namespace {

// Streams lines through one zstd frame; the frame is finished when the sink is destroyed, so
// `zstd -dc trace.zst` reads it back whole.
class ZstdSink final : public TraceSink {
 public:
  explicit ZstdSink(std::FILE* file)
      : file_(file), stream_(ZSTD_createCStream()), out_(ZSTD_CStreamOutSize()) {
    ZSTD_CCtx_setParameter(stream_, ZSTD_c_compressionLevel, 3);
  }
  ~ZstdSink() override {
    Compress("", ZSTD_e_end);
    ZSTD_freeCStream(stream_);
    std::fclose(file_);
  }
  void WriteLine(std::string_view line) override {
    Compress(line, ZSTD_e_continue);
    Compress("\n", ZSTD_e_continue);
  }

 private:
  void Compress(std::string_view bytes, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    bool finished = false;
    while (!finished) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      const size_t left = ZSTD_compressStream2(stream_, &out, &in, mode);
      if (ZSTD_isError(left)) return;  // a lost trace is not the run's failure
      std::fwrite(out_.data(), 1, out.pos, file_);
      finished = mode == ZSTD_e_end ? left == 0 : in.pos == in.size;
    }
  }

  std::FILE* file_;
  ZSTD_CStream* stream_;
  std::vector<char> out_;
};

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

TextSink::~TextSink() {
  if (owned_) {
    std::fclose(file_);
  } else {
    std::fflush(file_);
  }
}

void TextSink::WriteLine(std::string_view line) {
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fputc('\n', file_);
}

std::unique_ptr<TraceSink> OpenTraceFile(const std::string& path, std::string* error) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    *error = "cannot create " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  if (EndsWith(path, ".zst")) return std::make_unique<ZstdSink>(file);
  return std::make_unique<TextSink>(file, /*owned=*/true);
}

}  // namespace keel::sim
