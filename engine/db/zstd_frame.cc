#include "engine/db/zstd_frame.h"

#include <zstd.h>

#include <algorithm>

#include "engine/base/assert.h"

namespace keel {
namespace {

// RLE blocks give zstd its highest ratio: a 3-byte header and one byte stand for up to
// ZSTD_BLOCKSIZE_MAX (128 KiB) bytes.
constexpr uint64_t kExpansionPerByteMax = (128 * 1024) / 4;
constexpr uint64_t kBlockBytesMax = 128 * 1024;

}  // namespace

bool StartsWithZstdFrame(std::string_view bytes) { return bytes.starts_with(kZstdFrameMagic); }

ZstdFrameWriter::ZstdFrameWriter(int level) : stream_(ZSTD_createCCtx()) {
  KEEL_ASSERT(level >= kZstdLevelMin && level <= kZstdLevelMax);
  if (stream_ == nullptr) {
    error_ = "zstd could not allocate its compression context";
    return;
  }
  // The frame's own checksum catches a damaged frame even when the RDB's is off. No workers:
  // the engine starts no threads.
  const size_t set_level = ZSTD_CCtx_setParameter(stream_, ZSTD_c_compressionLevel, level);
  const size_t set_checksum = ZSTD_CCtx_setParameter(stream_, ZSTD_c_checksumFlag, 1);
  if (ZSTD_isError(set_level) || ZSTD_isError(set_checksum)) {
    error_ = std::string("zstd refused its parameters: ") + ZSTD_getErrorName(set_level);
  }
}

ZstdFrameWriter::~ZstdFrameWriter() { ZSTD_freeCCtx(stream_); }

bool ZstdFrameWriter::Compress(std::string_view bytes, bool end, std::string* out) {
  if (!error_.empty()) return false;
  KEEL_ASSERT(!ended_);
  ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
  const ZSTD_EndDirective directive = end ? ZSTD_e_end : ZSTD_e_continue;
  const size_t step_bytes = ZSTD_CStreamOutSize();
  // Each call consumes input or emits output; zstd says when all input is taken (continue) or
  // the frame is flushed to its end (end).
  while (true) {
    const size_t at = out->size();
    out->resize(at + step_bytes);
    ZSTD_outBuffer output{out->data() + at, step_bytes, 0};
    const size_t left = ZSTD_compressStream2(stream_, &output, &input, directive);
    out->resize(at + output.pos);
    if (ZSTD_isError(left)) {
      error_ = std::string("zstd compression failed: ") + ZSTD_getErrorName(left);
      return false;
    }
    if (end ? left == 0 : input.pos == input.size) break;
  }
  bytes_in_ += bytes.size();
  ended_ = end;
  return true;
}

bool CompressZstdFrame(std::string_view bytes, int level, std::string* out, std::string* error) {
  ZstdFrameWriter writer(level);
  // In pieces, so that the output grows as compressed bytes come rather than by a bound on all.
  constexpr size_t kPieceBytes = 1024 * 1024;
  while (bytes.size() > kPieceBytes) {
    if (!writer.Compress(bytes.substr(0, kPieceBytes), false, out)) break;
    bytes.remove_prefix(kPieceBytes);
  }
  if (writer.error().empty() && writer.Compress(bytes, true, out)) return true;
  *error = writer.error();
  return false;
}

ZstdSource::ZstdSource(ByteSource& compressed, size_t input_window_bytes)
    : compressed_(compressed),
      stream_(ZSTD_createDCtx()),
      input_(std::max<size_t>(input_window_bytes, 1), '\0') {
  if (stream_ == nullptr) {
    Fail("zstd could not allocate its decompression context");
    return;
  }
  const size_t set = ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, kZstdWindowLogMax);
  if (ZSTD_isError(set))
    Fail(std::string("zstd refused its parameters: ") + ZSTD_getErrorName(set));
}

ZstdSource::~ZstdSource() { ZSTD_freeDCtx(stream_); }

size_t ZstdSource::Fail(std::string error) {
  if (!failed_) error_ = std::move(error);
  failed_ = true;
  return 0;
}

void ZstdSource::CheckNothingFollows() {
  if (input_begin_ == input_end_ && !input_ended_) {
    input_begin_ = 0;
    input_end_ = compressed_.Read(input_.data(), input_.size());
    if (input_end_ == 0) {
      input_ended_ = true;
      if (!compressed_.error().empty()) Fail(compressed_.error());
    }
  }
  if (input_begin_ < input_end_) Fail("Bytes follow the zstd frame (the file must be one frame)");
}

size_t ZstdSource::Read(char* buffer, size_t capacity) {
  KEEL_DASSERT(capacity > 0);
  if (failed_ || frame_ended_) return 0;
  ZSTD_outBuffer output{buffer, capacity, 0};
  // Each turn consumes input or produces output, or finds the input ended: then the frame is
  // truncated unless zstd still had output to give.
  while (output.pos == 0) {
    if (input_begin_ == input_end_ && !input_ended_) {
      input_begin_ = 0;
      input_end_ = compressed_.Read(input_.data(), input_.size());
      if (input_end_ == 0) {
        input_ended_ = true;
        if (!compressed_.error().empty()) return Fail(compressed_.error());
      }
    }
    ZSTD_inBuffer input{input_.data(), input_end_, input_begin_};
    const size_t hint = ZSTD_decompressStream(stream_, &output, &input);
    const bool consumed = input.pos > input_begin_;
    input_begin_ = input.pos;
    if (ZSTD_isError(hint)) {
      return Fail(std::string("Corrupt zstd frame: ") + ZSTD_getErrorName(hint));
    }
    if (hint == 0) {
      frame_ended_ = true;
      CheckNothingFollows();
      return failed_ ? 0 : output.pos;
    }
    if (output.pos == 0 && !consumed && input_ended_) {
      return Fail("Truncated zstd frame (the file ends inside it)");
    }
  }
  return output.pos;
}

uint64_t ZstdSource::BytesLeftMax() const {
  if (failed_ || frame_ended_) return 0;
  const uint64_t compressed_left = compressed_.BytesLeftMax() + (input_end_ - input_begin_);
  if (compressed_left > (UINT64_MAX - kBlockBytesMax) / kExpansionPerByteMax) return UINT64_MAX;
  return compressed_left * kExpansionPerByteMax + kBlockBytesMax;
}

}  // namespace keel
