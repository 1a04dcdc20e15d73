// The HyperLogLog reader: arbitrary bytes taken as a string value that PFCOUNT, PFMERGE, PFADD
// and PFDEBUG read as a HyperLogLog (engine/db/types/hyperloglog.h).
// Input: byte 0 picks a register edit (with byte 1 its value), byte 2 the sparse size limit
// in units of 64 bytes; the rest is the value. A leading "HYLL" is forced on 3 inputs in 4, so
// that most inputs get past the magic and reach the opcode readers.
// Properties: no crash and no read past the value; a value whose sparse runs are sound counts
// the same sparse and converted to dense, and a register edit raises exactly that register and
// leaves a value that still reads as sound.
#include <cstring>
#include <string>

#include "engine/db/types/hyperloglog.h"
#include "fuzz/harnesses.h"

namespace keel::fuzz {

void HllReadOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return;
  const int index = (data[0] * 131 + data[1] * 7) % hll::kRegisters;
  const int count = 1 + data[1] % (hll::kHashBits + 1);
  const size_t sparse_bytes_max = 16 + size_t{data[2]} * 64;
  std::string value(reinterpret_cast<const char*>(data + 3), size - 3);
  if ((data[0] & 3) != 0 && value.size() >= 5) {
    std::memcpy(value.data(), "HYLL", 4);
    value[4] = static_cast<char>(value[4] & 1);
  }
  // A copy of exactly the value's bytes, so that ASan sees any read past them.
  const std::string exact = value;
  if (!hll::LooksLikeHll(exact)) return;
  uint64_t count_before = 0;
  const bool sound = hll::Count(exact, &count_before);
  uint8_t registers[hll::kRegisters] = {};
  FUZZ_CHECK(hll::MergeInto(exact, registers) == sound);
  if (hll::EncodingOf(exact) == hll::kSparse) {
    std::string text(8 * exact.size() + 16, '\0');
    size_t text_size = 0;
    hll::Decode(exact, text.data(), text.size(), &text_size);
    FUZZ_CHECK(text_size <= text.size());
  }
  if (hll::EncodingOf(exact) == hll::kSparse && exact.size() > hll::kSparseBytesMax) return;
  // The edit, in a working buffer as PFADD makes one.
  std::string work(hll::kWorkBytes, '\0');
  std::memcpy(work.data(), exact.data(), exact.size());
  hll::Buffer buffer{work.data(), exact.size(),
                     hll::EncodingOf(exact) == hll::kDense ? exact.size() : work.size()};
  if (sound) {
    std::string dense_work(hll::kWorkBytes, '\0');
    std::memcpy(dense_work.data(), exact.data(), exact.size());
    hll::Buffer dense{dense_work.data(), exact.size(), dense_work.size()};
    FUZZ_CHECK(hll::ToDense(dense));
    uint64_t dense_count = 0;
    FUZZ_CHECK(hll::Count({dense.data, dense.size}, &dense_count));
    FUZZ_CHECK(dense_count == count_before);
  }
  const hll::SetResult result = hll::Set(buffer, index, count, sparse_bytes_max);
  FUZZ_CHECK(buffer.size <= buffer.capacity);
  if (!sound || result == hll::SetResult::kCorrupt) return;
  const std::string_view after(buffer.data, buffer.size);
  FUZZ_CHECK(hll::LooksLikeHll(after));
  uint8_t registers_after[hll::kRegisters] = {};
  FUZZ_CHECK(hll::MergeInto(after, registers_after));
  for (int i = 0; i < hll::kRegisters; i++) {
    const int expected = i == index ? std::max<int>(registers[i], count) : registers[i];
    FUZZ_CHECK(registers_after[i] == expected);
  }
  FUZZ_CHECK((result == hll::SetResult::kUpdated) == (count > registers[index]));
}

}  // namespace keel::fuzz
