// LLVM MC disassembler; see disassembler.h.
#include "report/common/disassembler.h"

#include <mutex>

#include "absl/strings/str_cat.h"
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

namespace hwt::report {
namespace {

void InitializeTargetsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64Disassembler();
    LLVMInitializeARMTargetInfo();
    LLVMInitializeARMTargetMC();
    LLVMInitializeARMDisassembler();
  });
}

class LlvmDisassembler : public Disassembler {
 public:
  absl::Status Init(const std::string& triple_name, uint8_t bad_length) {
    InitializeTargetsOnce();
    bad_length_ = bad_length;
    pc_is_next_ = triple_name.rfind("x86_64", 0) == 0 ||
                  triple_name.rfind("i386", 0) == 0;
    const llvm::Triple triple(triple_name);
    std::string error;
    target_ = llvm::TargetRegistry::lookupTarget(triple.str(), error);
    if (target_ == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat("no LLVM disassembler for ", triple_name, ": ", error));
    }
    registers_.reset(target_->createMCRegInfo(triple.str()));
    llvm::MCTargetOptions options;
    asm_info_.reset(
        target_->createMCAsmInfo(*registers_, triple.str(), options));
    // All extensions: traced code may use any the CPU had.
    const char* features = triple.isAArch64() ? "+all" : "";
    subtarget_.reset(
        target_->createMCSubtargetInfo(triple.str(), "", features));
    instr_info_.reset(target_->createMCInstrInfo());
    if (!registers_ || !asm_info_ || !subtarget_ || !instr_info_) {
      return absl::InternalError(
          absl::StrCat("cannot set up LLVM MC for ", triple_name));
    }
    context_ = std::make_unique<llvm::MCContext>(
        triple, asm_info_.get(), registers_.get(), subtarget_.get());
    disassembler_.reset(target_->createMCDisassembler(*subtarget_, *context_));
    analysis_.reset(target_->createMCInstrAnalysis(instr_info_.get()));
    printer_.reset(target_->createMCInstPrinter(
        triple, /*SyntaxVariant=*/0, *asm_info_, *instr_info_, *registers_));
    if (!disassembler_ || !printer_) {
      return absl::InternalError(absl::StrCat(
          "cannot create the LLVM disassembler for ", triple_name));
    }
    printer_->setPrintImmHex(true);
    printer_->setPrintBranchImmAsAddress(true);
    return absl::OkStatus();
  }

  std::vector<DisassembledInstruction> Disassemble(
      absl::Span<const uint8_t> bytes, uint64_t vaddr) const override {
    std::vector<DisassembledInstruction> out;
    size_t offset = 0;
    while (offset < bytes.size()) {
      DisassembledInstruction insn;
      insn.vaddr = vaddr + offset;
      llvm::MCInst inst;
      uint64_t size = 0;
      const llvm::ArrayRef<uint8_t> data(bytes.data() + offset,
                                         bytes.size() - offset);
      const auto status = disassembler_->getInstruction(
          inst, size, data, insn.vaddr, llvm::nulls());
      if (status != llvm::MCDisassembler::Success || size == 0 ||
          size > data.size()) {
        insn.length = static_cast<uint8_t>(
            std::min<size_t>(bad_length_, bytes.size() - offset));
        insn.text = "(bad)";
        offset += insn.length;
        out.push_back(std::move(insn));
        continue;
      }
      insn.length = static_cast<uint8_t>(size);
      std::string text;
      llvm::raw_string_ostream os(text);
      // x86's printer adds PC-relative displacements to the address it is
      // given, which must be the next instruction's; other printers want
      // the instruction's own address.
      printer_->printInst(&inst, pc_is_next_ ? insn.vaddr + size : insn.vaddr,
                          "", *subtarget_, os);
      os.flush();
      const size_t start = text.find_first_not_of(" \t");
      insn.text = start == std::string::npos ? text : text.substr(start);
      for (char& c : insn.text) {
        if (c == '\t') c = ' ';
      }
      const llvm::MCInstrDesc& desc = instr_info_->get(inst.getOpcode());
      insn.call = desc.isCall();
      insn.branch = desc.isBranch() || desc.isReturn() || insn.call;
      insn.conditional = desc.isConditionalBranch();
      uint64_t target = 0;
      if (analysis_ && (desc.isBranch() || insn.call) &&
          analysis_->evaluateBranch(inst, insn.vaddr, size, target)) {
        insn.target = target;
      }
      offset += size;
      out.push_back(std::move(insn));
    }
    return out;
  }

 private:
  uint8_t bad_length_ = 1;
  bool pc_is_next_ = false;
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

absl::StatusOr<std::unique_ptr<Disassembler>> Disassembler::Create(
    std::string_view arch, bool thumb) {
  std::string triple;
  uint8_t bad_length = 1;
  if (arch == "x86_64") {
    triple = "x86_64-unknown-linux-gnu";
  } else if (arch == "i386" || arch == "x86") {
    triple = "i386-unknown-linux-gnu";
  } else if (arch == "aarch64" || arch == "arm64") {
    triple = "aarch64-unknown-linux-gnu";
    bad_length = 4;
  } else if (arch == "arm" || arch == "thumb") {
    triple = thumb || arch == "thumb" ? "thumbv8a-unknown-linux-gnueabihf"
                                      : "armv8a-unknown-linux-gnueabihf";
    bad_length = thumb ? 2 : 4;
  } else {
    return absl::UnimplementedError(absl::StrCat(
        "no disassembler for architecture '", std::string(arch), "'"));
  }
  auto disassembler = std::make_unique<LlvmDisassembler>();
  absl::Status status = disassembler->Init(triple, bad_length);
  if (!status.ok()) return status;
  return disassembler;
}

}  // namespace hwt::report
