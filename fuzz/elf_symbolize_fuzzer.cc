// Fuzzes the symbolizer's loading of malformed ELF files: LLVM libObject,
// symbol selection, PLT decoding, the function table and DWARF inline frames
// and lines (symbolizer/probe.h: the same path as Symbolizer::AddImage, on
// bytes in memory). Seeds: fuzz/corpus/elf.
//
// Checks: no crash, no hang (LLVM errors are statuses); ProbeElf's own
// consistency check (every function start is found again) never fails.
#include <cstdint>

#include "absl/strings/match.h"
#include "fuzz/fuzz_support.h"
#include "symbolizer/probe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::Status status = hwt::symbolizer::ProbeElf(
      absl::MakeConstSpan(data, size), /*with_dwarf=*/true);
  if (absl::IsInternal(status)) {
    hwt::fuzz::Fail("ProbeElf: " + status.ToString());
  }
  return 0;
}
