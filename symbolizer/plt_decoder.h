// Finds PLT stubs in the bytes of a PLT section and the GOT slot each one
// jumps through, by recognising the stub instruction patterns the GNU and LLVM
// linkers emit (x86-64 incl. IBT .plt.sec, i386, AArch64 incl. BTI, ARM).
// LLVM 19's ELFObjectFileBase::getPltEntries misses .plt.sec (IBT) and
// mis-places IBT .plt.got entries, hence our own decoder. Matching a stub's
// GOT slot against the dynamic relocations gives its name (elf_image.cc).
#ifndef HWT_SYMBOLIZER_PLT_DECODER_H_
#define HWT_SYMBOLIZER_PLT_DECODER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace hwt::symbolizer {

struct PltStub {
  uint64_t address = 0;   // first instruction of the stub
  uint64_t got_slot = 0;  // address of the GOT word it jumps through
};

struct PltSectionBytes {
  uint16_t machine = 0;  // ELF e_machine
  uint64_t address = 0;  // section vaddr
  absl::Span<const uint8_t> bytes;
  // i386 PIC stubs address the GOT relative to %ebx, which holds the
  // address of .got.plt (_GLOBAL_OFFSET_TABLE_).
  uint64_t got_plt_address = 0;
  bool big_endian_code = false;  // ARM BE32 only; A64/BE8 code is LE
};

// Stubs in address order. Unknown machines give none. Never reads outside
// `bytes`. Patterns that merely look like a stub (the PLT header) are
// returned too; the caller keeps only stubs whose slot has a relocation.
std::vector<PltStub> DecodePltStubs(const PltSectionBytes& section);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_PLT_DECODER_H_
