// Decodes single x86 instructions: length, control-flow class and direct
// target, via LLVM's MC disassembler. Used where libipt does not tell us what
// we need (the size of a block's last instruction, to know a call's return
// address and whether a conditional branch was taken), to expand blocks into
// instructions, and by the software recorder/encoder to classify what ran.
// Callers cache per address: decoding is ~1 us, never per executed instruction.
#ifndef HWT_DECODERS_X86_X86_INSN_H_
#define HWT_DECODERS_X86_X86_INSN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/types/span.h"

namespace hwt::x86 {

enum class InsnClass : uint8_t {
  kOther,         // no control transfer
  kCondJump,      // jcc, loop*, jrcxz/jecxz/jcxz
  kJump,          // direct near jmp
  kJumpIndirect,  // jmp reg/mem
  kCall,          // direct near call
  kCallIndirect,  // call reg/mem
  kReturn,        // near ret (incl. ret imm16)
  kFarCall,       // syscall, sysenter, int n, int3, into, far call
  kFarReturn,     // sysret, sysexit, iret*, far ret
  kFarJump,       // far jmp
};

struct Insn {
  uint8_t length = 0;
  InsnClass cls = InsnClass::kOther;
  // Direct branch/call target (kCondJump, kJump, kCall); 0 otherwise.
  uint64_t target = 0;
  // A string instruction with a REP/REPE/REPNE prefix: it may execute many
  // iterations at one address; PT counts it once.
  bool rep_string = false;
  bool is_syscall = false;  // SYSCALL / SYSENTER / INT 0x80
};

enum class Mode { k16, k32, k64 };

// Not thread-safe: use one decoder per thread.
class InsnDecoder {
 public:
  static std::unique_ptr<InsnDecoder> Create(Mode mode = Mode::k64);
  virtual ~InsnDecoder() = default;

  // Decodes the instruction at `ip` from `bytes` (pass up to 15 bytes; fewer
  // at the end of a section). nullopt for invalid or truncated encodings.
  virtual std::optional<Insn> Decode(absl::Span<const uint8_t> bytes,
                                     uint64_t ip) const = 0;

  // The instruction's mnemonic in AT&T syntax (for listings/tests).
  virtual std::string Disassemble(absl::Span<const uint8_t> bytes,
                                  uint64_t ip) const = 0;
};

}  // namespace hwt::x86

#endif  // HWT_DECODERS_X86_X86_INSN_H_
