// LLVM MC based implementation of InsnDecoder; see x86_insn.h.
#include "decoders/x86/x86_insn.h"

#include <mutex>
#include <string_view>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

namespace hwt::x86 {
namespace {

void InitializeX86Once() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
  });
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Far transfers and software interrupts are not marked as branches in LLVM's
// tables consistently, so they are recognised by opcode name.
std::optional<InsnClass> ClassifyByName(std::string_view name,
                                        bool* is_syscall) {
  if (name == "SYSCALL" || name == "SYSENTER") {
    *is_syscall = true;
    return InsnClass::kFarCall;
  }
  if (name == "INT" || name == "INT3" || name == "INTO" ||
      StartsWith(name, "FARCALL") || name == "VMCALL" || name == "VMMCALL") {
    return InsnClass::kFarCall;
  }
  if (StartsWith(name, "SYSRET") || StartsWith(name, "SYSEXIT") ||
      StartsWith(name, "IRET") || StartsWith(name, "LRET") ||
      StartsWith(name, "UIRET")) {
    return InsnClass::kFarReturn;
  }
  if (StartsWith(name, "FARJMP")) return InsnClass::kFarJump;
  return std::nullopt;
}

bool IsStandalonePrefix(std::string_view name) {
  return name == "LOCK_PREFIX" || name == "XACQUIRE_PREFIX" ||
         name == "XRELEASE_PREFIX";
}

bool IsStringOp(std::string_view name) {
  for (std::string_view op :
       {"MOVS", "STOS", "LODS", "CMPS", "SCAS", "INS", "OUTS"}) {
    if (StartsWith(name, op) && name.size() <= op.size() + 2) return true;
  }
  return false;
}

class LlvmInsnDecoder : public InsnDecoder {
 public:
  explicit LlvmInsnDecoder(Mode mode) {
    InitializeX86Once();
    const char* triple_name = mode == Mode::k64   ? "x86_64-unknown-linux-gnu"
                              : mode == Mode::k32 ? "i386-unknown-linux-gnu"
                                                  : "i386-unknown-code16";
    llvm::Triple triple(triple_name);
    std::string error;
    target_ = llvm::TargetRegistry::lookupTarget(triple.str(), error);
    registers_.reset(target_->createMCRegInfo(triple.str()));
    llvm::MCTargetOptions options;
    asm_info_.reset(
        target_->createMCAsmInfo(*registers_, triple.str(), options));
    subtarget_.reset(target_->createMCSubtargetInfo(triple.str(), "", ""));
    instr_info_.reset(target_->createMCInstrInfo());
    context_ = std::make_unique<llvm::MCContext>(
        triple, asm_info_.get(), registers_.get(), subtarget_.get());
    disassembler_.reset(target_->createMCDisassembler(*subtarget_, *context_));
    analysis_.reset(target_->createMCInstrAnalysis(instr_info_.get()));
    printer_.reset(target_->createMCInstPrinter(
        triple, /*SyntaxVariant=*/0, *asm_info_, *instr_info_, *registers_));
    // Branch targets as absolute addresses, as objdump prints them.
    printer_->setPrintBranchImmAsAddress(true);
    printer_->setPrintImmHex(true);
  }

  std::optional<Insn> Decode(absl::Span<const uint8_t> bytes,
                             uint64_t ip) const override {
    llvm::MCInst inst;
    uint64_t size = 0;
    llvm::ArrayRef<uint8_t> data(bytes.data(), bytes.size());
    auto status =
        disassembler_->getInstruction(inst, size, data, ip, llvm::nulls());
    if (status != llvm::MCDisassembler::Success || size == 0 ||
        size > bytes.size()) {
      return std::nullopt;
    }
    std::string_view name = instr_info_->getName(inst.getOpcode());
    if (IsStandalonePrefix(name)) {
      // LLVM returns LOCK (and XACQUIRE/XRELEASE before it) as an
      // instruction of its own; the CPU executes prefix and instruction as
      // one, so decode the rest and count the prefix in its length.
      auto rest = Decode(bytes.subspan(size), ip + size);
      if (!rest || rest->length + size > 15) return std::nullopt;
      rest->length = static_cast<uint8_t>(rest->length + size);
      return rest;
    }
    Insn insn;
    insn.length = static_cast<uint8_t>(size);
    const llvm::MCInstrDesc& desc = instr_info_->get(inst.getOpcode());

    bool is_syscall = false;
    if (auto cls = ClassifyByName(name, &is_syscall)) {
      insn.cls = *cls;
      insn.is_syscall = is_syscall;
      // INT 0x80 is the legacy system call gate.
      if (name == "INT" && inst.getNumOperands() > 0 &&
          inst.getOperand(0).isImm() && inst.getOperand(0).getImm() == 0x80) {
        insn.is_syscall = true;
      }
    } else if (desc.isReturn()) {
      insn.cls = InsnClass::kReturn;
    } else if (desc.isCall()) {
      insn.cls = desc.isIndirectBranch() || !HasDirectTarget(inst, ip, size)
                     ? InsnClass::kCallIndirect
                     : InsnClass::kCall;
    } else if (desc.isConditionalBranch()) {
      insn.cls = InsnClass::kCondJump;
    } else if (desc.isBranch()) {
      insn.cls = desc.isIndirectBranch() || !HasDirectTarget(inst, ip, size)
                     ? InsnClass::kJumpIndirect
                     : InsnClass::kJump;
    } else {
      insn.cls = InsnClass::kOther;
    }
    if (insn.cls == InsnClass::kCondJump || insn.cls == InsnClass::kJump ||
        insn.cls == InsnClass::kCall) {
      uint64_t target = 0;
      if (analysis_->evaluateBranch(inst, ip, size, target)) {
        // Operand-size prefixes truncate targets in 16/32-bit code; MC
        // returns the full sum, which is what 64-bit code uses.
        insn.target = target;
      }
    }
    if (insn.cls == InsnClass::kOther && IsStringOp(name)) {
      for (uint64_t i = 0; i < size; ++i) {
        uint8_t b = bytes[i];
        if (b == 0xf3 || b == 0xf2) {
          insn.rep_string = true;
          break;
        }
        // Stop at the first byte that is not a legacy prefix or REX.
        bool prefix = b == 0x66 || b == 0x67 || b == 0x2e || b == 0x3e ||
                      b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65 ||
                      b == 0xf0 || (b & 0xf0) == 0x40;
        if (!prefix) break;
      }
    }
    return insn;
  }

  std::string Disassemble(absl::Span<const uint8_t> bytes,
                          uint64_t ip) const override {
    llvm::MCInst inst;
    uint64_t size = 0;
    llvm::ArrayRef<uint8_t> data(bytes.data(), bytes.size());
    if (disassembler_->getInstruction(inst, size, data, ip, llvm::nulls()) !=
        llvm::MCDisassembler::Success) {
      return "(bad)";
    }
    std::string text;
    llvm::raw_string_ostream out(text);
    // X86 PC-relative immediates count from the end of the instruction.
    printer_->printInst(&inst, ip + size, "", *subtarget_, out);
    out.flush();
    size_t start = text.find_first_not_of(" \t");
    return start == std::string::npos ? text : text.substr(start);
  }

 private:
  bool HasDirectTarget(const llvm::MCInst& inst, uint64_t ip,
                       uint64_t size) const {
    uint64_t target = 0;
    return analysis_->evaluateBranch(inst, ip, size, target);
  }

  const llvm::Target* target_ = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> registers_;
  std::unique_ptr<llvm::MCAsmInfo> asm_info_;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget_;
  std::unique_ptr<llvm::MCInstrInfo> instr_info_;
  std::unique_ptr<llvm::MCContext> context_;
  std::unique_ptr<llvm::MCDisassembler> disassembler_;
  std::unique_ptr<llvm::MCInstrAnalysis> analysis_;
  std::unique_ptr<llvm::MCInstPrinter> printer_;
};

}  // namespace

std::unique_ptr<InsnDecoder> InsnDecoder::Create(Mode mode) {
  return std::make_unique<LlvmInsnDecoder>(mode);
}

}  // namespace hwt::x86
