// Keel's compressed snapshot (rdb-compression-algorithm zstd): an ordinary RDB byte stream inside
// one zstd frame, compressed as it is written and decompressed as it is read, so that neither
// side ever holds the whole file. libzstd only computes on buffers here; files are persistence's.
//
// The frame carries zstd's content checksum besides the RDB's own CRC-64, so a damaged frame is
// refused by zstd at its end even where the RDB checksum is off (rdbchecksum no).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/db/byte_source.h"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace keel {

// A zstd frame begins with the magic number 0xFD2FB528, little-endian; an RDB file with "REDIS".
inline constexpr std::string_view kZstdFrameMagic = "\x28\xb5\x2f\xfd";
bool StartsWithZstdFrame(std::string_view bytes);

inline constexpr int kZstdLevelMin = 1;
inline constexpr int kZstdLevelMax = 19;

// Compresses a stream of bytes given in pieces into one frame.
class ZstdFrameWriter {
 public:
  // `level` in [kZstdLevelMin, kZstdLevelMax].
  explicit ZstdFrameWriter(int level);
  ~ZstdFrameWriter();
  ZstdFrameWriter(const ZstdFrameWriter&) = delete;
  ZstdFrameWriter& operator=(const ZstdFrameWriter&) = delete;

  // Appends to `*out` what compressing `bytes` yields now (zstd keeps up to its window of them
  // back until more come or the frame ends); with `end`, the rest of the frame too. False (with
  // error()) when libzstd fails (out of memory); `*out` is then not a frame.
  bool Compress(std::string_view bytes, bool end, std::string* out);
  const std::string& error() const { return error_; }
  uint64_t bytes_in() const { return bytes_in_; }

 private:
  ZSTD_CCtx* stream_;
  std::string error_;
  uint64_t bytes_in_ = 0;
  bool ended_ = false;
};

// The whole of `bytes` as one frame (DEBUG RELOAD, tests).
bool CompressZstdFrame(std::string_view bytes, int level, std::string* out, std::string* error);

// Decompresses the one zstd frame that `compressed` holds, pulling its bytes through an input
// window of `input_window_bytes`. Refuses (Read returns 0 with error() set) a frame that is
// corrupt or truncated, that needs a window past kZstdWindowLogMax, or that bytes follow.
class ZstdSource final : public ByteSource {
 public:
  // 2^24 bytes (16 MiB): twice what level 19 uses (the zstd CLI's default levels need less), so
  // that a hostile header cannot make the decoder allocate more.
  static constexpr int kZstdWindowLogMax = 24;

  ZstdSource(ByteSource& compressed, size_t input_window_bytes);
  ~ZstdSource() override;
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  size_t Read(char* buffer, size_t capacity) override;
  // What the compressed bytes left can expand to: a zstd block of at most 128 KiB can be
  // written in 4 bytes (an RLE block), so 32 Ki per compressed byte, plus one block held back.
  uint64_t BytesLeftMax() const override;
  const std::string& error() const override { return error_; }

 private:
  size_t Fail(std::string error);
  // The frame has ended: nothing may follow it.
  void CheckNothingFollows();

  ByteSource& compressed_;
  ZSTD_DCtx* stream_;
  std::string input_;  // the input window
  size_t input_begin_ = 0;
  size_t input_end_ = 0;
  bool frame_ended_ = false;
  bool input_ended_ = false;
  bool failed_ = false;
  std::string error_;
};

}  // namespace keel
