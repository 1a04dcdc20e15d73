// The zstd frame codec (zstd_frame.h): a stream compressed in pieces is one frame that `zstd -d`
// would read; decompressing it through windows of any size gives the bytes back; a truncated,
// damaged or followed frame is refused with a reason, never read past.
#include "engine/db/zstd_frame.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/base/rng.h"

namespace keel {
namespace {

// Text that compresses (repeats) mixed with bytes that do not.
std::string Sample(size_t bytes) {
  Rng rng(3);
  std::string out;
  while (out.size() < bytes) {
    if (rng.Below(2) == 0) {
      out += "key:" + std::to_string(rng.Below(1000)) + " value-that-repeats ";
    } else {
      for (int i = 0; i < 16; i++) out.push_back(static_cast<char>(rng.Next()));
    }
  }
  out.resize(bytes);
  return out;
}

std::string Compress(std::string_view plain, int level = 1, size_t piece_bytes = 4096) {
  ZstdFrameWriter writer(level);
  std::string frame;
  while (plain.size() > piece_bytes) {
    EXPECT_TRUE(writer.Compress(plain.substr(0, piece_bytes), false, &frame));
    plain.remove_prefix(piece_bytes);
  }
  EXPECT_TRUE(writer.Compress(plain, true, &frame));
  return frame;
}

// Reads `source` to its end in reads of `read_bytes`; `*error` is its error then.
std::string Drain(ByteSource& source, size_t read_bytes, std::string* error) {
  std::string out;
  std::string buffer(read_bytes, '\0');
  // Each read adds bytes or ends the loop; the bound stops a source that never ends.
  for (int reads = 0; reads < 100000000; reads++) {
    const size_t got = source.Read(buffer.data(), buffer.size());
    if (got == 0) break;
    out.append(buffer.data(), got);
  }
  *error = source.error();
  return out;
}

TEST(ZstdFrameTest, PiecesMakeOneFrameThatReadsBackThroughAnyWindow) {
  const std::string plain = Sample(300000);
  for (int level : {1, 3, 19}) {
    const std::string frame = Compress(plain, level);
    ASSERT_TRUE(StartsWithZstdFrame(frame));
    EXPECT_LT(frame.size(), plain.size());
    for (size_t input_window : {size_t{1}, size_t{7}, size_t{128 * 1024}}) {
      for (size_t read_bytes : {size_t{1}, size_t{7}, size_t{65536}}) {
        if (input_window == 1 && read_bytes == 1 && level != 1) continue;  // slow, same path
        MemorySource compressed(frame);
        ZstdSource source(compressed, input_window);
        std::string error;
        EXPECT_EQ(Drain(source, read_bytes, &error), plain)
            << "level " << level << ", window " << input_window << ", reads " << read_bytes;
        EXPECT_EQ(error, "");
        EXPECT_EQ(source.BytesLeftMax(), 0u);
      }
    }
  }
}

TEST(ZstdFrameTest, EmptyStreamAndWholeBufferHelper) {
  const std::string frame = Compress("");
  MemorySource compressed(frame);
  ZstdSource source(compressed, 5);
  std::string error;
  EXPECT_EQ(Drain(source, 3, &error), "");
  EXPECT_EQ(error, "");
  std::string whole;
  const std::string plain = Sample(3 * 1024 * 1024 + 5);
  ASSERT_TRUE(CompressZstdFrame(plain, 3, &whole, &error)) << error;
  MemorySource again(whole);
  ZstdSource source_again(again, 1000);
  EXPECT_EQ(Drain(source_again, 100000, &error), plain);
  EXPECT_EQ(error, "");
}

TEST(ZstdFrameTest, BytesLeftMaxBoundsWhatComes) {
  const std::string plain(1000000, 'z');  // zstd's best case: runs of one byte
  const std::string frame = Compress(plain);
  MemorySource compressed(frame);
  ZstdSource source(compressed, 64);
  EXPECT_GE(source.BytesLeftMax(), plain.size());
  std::string buffer(1000, '\0');
  size_t read = source.Read(buffer.data(), buffer.size());
  size_t total = read;
  while (read > 0) {
    EXPECT_GE(source.BytesLeftMax(), plain.size() - total);
    read = source.Read(buffer.data(), buffer.size());
    total += read;
  }
  EXPECT_EQ(total, plain.size());
}

TEST(ZstdFrameTest, ATruncatedFrameIsRefusedAtEveryLength) {
  const std::string plain = Sample(20000);
  const std::string frame = Compress(plain);
  for (size_t size = 0; size < frame.size(); size++) {
    MemorySource compressed(std::string_view(frame).substr(0, size));
    ZstdSource source(compressed, 7);
    std::string error;
    const std::string out = Drain(source, 4096, &error);
    ASSERT_FALSE(error.empty()) << "cut at " << size;
    EXPECT_LT(out.size(), plain.size() + 1) << "cut at " << size;
  }
}

TEST(ZstdFrameTest, AFlippedByteIsRefusedOrChangesNothing) {
  const std::string plain = Sample(20000);
  const std::string frame = Compress(plain);
  int refused = 0;
  for (size_t at = 0; at < frame.size(); at++) {
    std::string damaged = frame;
    damaged[at] = static_cast<char>(damaged[at] ^ (1 << (at % 8)));
    MemorySource compressed(damaged);
    ZstdSource source(compressed, 128);
    std::string error;
    const std::string out = Drain(source, 4096, &error);
    // The content checksum covers the bytes: a flip that decodes to other bytes is caught at
    // the frame's end. What decodes to the same bytes is harmless; in this frame three flips
    // do: the header's unused bit (byte 4), a larger window (byte 5), and one bit of an entropy
    // table deep in a block that changes no decoded byte.
    if (error.empty()) {
      EXPECT_EQ(out, plain) << "flip at " << at << " decoded to other bytes";
    } else {
      refused++;
    }
  }
  EXPECT_GE(refused, static_cast<int>(frame.size()) - 8);
}

TEST(ZstdFrameTest, BytesAfterTheFrameAreRefused) {
  const std::string frame = Compress(Sample(5000));
  for (const std::string& tail : {std::string("x"), std::string(9000, '\0'), frame}) {
    const std::string bytes = frame + tail;
    MemorySource compressed(bytes);
    ZstdSource source(compressed, 100);
    std::string error;
    Drain(source, 512, &error);
    EXPECT_EQ(error, "Bytes follow the zstd frame (the file must be one frame)");
  }
}

TEST(ZstdFrameTest, NotAFrameOrAWindowTooLargeIsRefused) {
  MemorySource text(std::string_view("REDIS0010 and more bytes"));
  ZstdSource source(text, 16);
  std::string error;
  EXPECT_EQ(Drain(source, 16, &error), "");
  EXPECT_EQ(error.rfind("Corrupt zstd frame: ", 0), 0u) << error;
  // A header that asks for a 2 GiB window (Window_Descriptor exponent 21: 2^(10+21)).
  // (Compressed in pieces: a frame made in one call knows its size, and has no window byte.)
  std::string frame = Compress(Sample(1000), 1, 100);
  ASSERT_EQ(static_cast<uint8_t>(frame[4]) & 0x20, 0);  // no single-segment flag: a window byte
  frame[5] = static_cast<char>(21 << 3);
  MemorySource compressed(frame);
  ZstdSource large(compressed, 64);
  EXPECT_EQ(Drain(large, 64, &error), "");
  EXPECT_NE(error.find("Corrupt zstd frame: "), std::string::npos) << error;
  EXPECT_FALSE(StartsWithZstdFrame("\x28\xb5\x2f"));
  EXPECT_TRUE(StartsWithZstdFrame(std::string_view("\x28\xb5\x2f\xfd", 4)));
}

}  // namespace
}  // namespace keel
