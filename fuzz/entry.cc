// libFuzzer entry point; built once per harness with KEEL_FUZZ_HARNESS naming its function.
#include "fuzz/harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  KEEL_FUZZ_HARNESS(data, size);
  return 0;
}
