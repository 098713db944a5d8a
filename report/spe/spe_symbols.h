// Names for SPE reports: function names and data symbols by (image, ELF
// vaddr), asked once per unique address at report time. SpeSymbolSource is
// what the reports need; SymbolizerSymbolSource (spe_symbolizer_source.h)
// provides it from the project's Symbolizer, tests fake it.
#ifndef HWT_REPORT_SPE_SPE_SYMBOLS_H_
#define HWT_REPORT_SPE_SPE_SYMBOLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/spe_profile.h"

namespace hwt::report {

struct SpeSymbol {
  std::string name;
  uint64_t start = 0;  // ELF vaddr
  uint64_t size = 0;
};

class SpeSymbolSource {
 public:
  virtual ~SpeSymbolSource() = default;
  // The name of the function starting at `start` (a resolved function of
  // the profile); empty when unknown.
  virtual std::string FunctionName(uint32_t image, uint64_t start) = 0;
  // The symbol of image `image` containing data address `vaddr`, if any.
  virtual std::optional<SpeSymbol> DataSymbolAt(uint32_t image,
                                                uint64_t vaddr) = 0;
};

// Display names shared by the SPE reports.
class SpeNames {
 public:
  SpeNames(const analysis::SpeProfile& profile, SpeSymbolSource* symbols)
      : profile_(profile), symbols_(symbols) {}

  // Base name of an image's path; "[unknown]" for kSpeNoImage.
  std::string ImageName(uint32_t image) const;
  // "memcpy", "[libc.so.7+0x1230]" (resolved but nameless), "[libc.so.7]"
  // (the image's unsymbolized code), "[unknown]", "[kernel]".
  std::string FunctionName(const analysis::SpeFunction& function);
  // "memcpy+0x40", "[app+0x408000]", "0xffff000000001000" (no image).
  std::string InstructionName(const analysis::SpeInstruction& instruction);

 private:
  const analysis::SpeProfile& profile_;
  SpeSymbolSource* symbols_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_SPE_SPE_SYMBOLS_H_
