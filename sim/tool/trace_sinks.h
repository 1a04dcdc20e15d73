// Where keel-sim writes a run's trace: a plain text stream, or a zstd-compressed file.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "sim/trace.h"

namespace keel::sim {

// Lines to an open stdio stream (stdout, or a file it owns).
class TextSink final : public TraceSink {
 public:
  TextSink(std::FILE* file, bool owned) : file_(file), owned_(owned) {}
  ~TextSink() override;
  void WriteLine(std::string_view line) override;

 private:
  std::FILE* file_;
  bool owned_;
};

// Opens `path` for the trace: zstd-compressed when it ends in ".zst", else plain text. Returns
// nullptr (with *error set) when the file cannot be created.
std::unique_ptr<TraceSink> OpenTraceFile(const std::string& path, std::string* error);

}  // namespace keel::sim
