// Disassembly for --annotate through LLVM MC: x86 (AT&T syntax, as objdump
// prints it), AArch64, and 32-bit Arm and Thumb. Each instruction with its
// length, text, whether it is a (conditional) branch, and a direct branch's
// target. Bytes that do not decode become "(bad)" and decoding goes on.
#ifndef HWT_REPORT_COMMON_DISASSEMBLER_H_
#define HWT_REPORT_COMMON_DISASSEMBLER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::report {

struct DisassembledInstruction {
  uint64_t vaddr = 0;
  uint8_t length = 0;
  std::string text;  // "jle     0x401770"; "(bad)"
  bool branch = false;
  bool conditional = false;
  bool call = false;
  std::optional<uint64_t> target;  // direct branches and calls
};

class Disassembler {
 public:
  // `arch` as the symbolizer reports it (LLVM triple arch names): x86_64,
  // i386, aarch64, arm (with `thumb` for Thumb code). Errors: unsupported.
  static absl::StatusOr<std::unique_ptr<Disassembler>> Create(
      std::string_view arch, bool thumb = false);
  virtual ~Disassembler() = default;

  virtual std::vector<DisassembledInstruction> Disassemble(
      absl::Span<const uint8_t> bytes, uint64_t vaddr) const = 0;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_COMMON_DISASSEMBLER_H_
