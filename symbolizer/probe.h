// An entry point for fuzzing the symbolizer's file parsing on bytes in
// memory: the same ELF loading, symbol choice, PLT decoding and function
// table as Symbolizer::AddImage, plus (optionally) DWARF queries.
#ifndef HWT_SYMBOLIZER_PROBE_H_
#define HWT_SYMBOLIZER_PROBE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace hwt::symbolizer {

// Parses `bytes` as an ELF image and builds its function table; with
// `with_dwarf`, also asks DWARF for the inline frames and line of the first
// functions. Returns the loader's error for malformed input; must never
// crash or hang, whatever the bytes.
absl::Status ProbeElf(absl::Span<const uint8_t> bytes, bool with_dwarf = true);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_PROBE_H_
