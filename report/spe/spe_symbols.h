// Names for the SPE report: function names and data symbols by (image, ELF
// vaddr), asked once per unique address at report time from the same
// ProfileSymbols every other output names its frames with
// (report/naming/profile_symbols.h).
#ifndef HWT_REPORT_SPE_SPE_SYMBOLS_H_
#define HWT_REPORT_SPE_SPE_SYMBOLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/spe_profile.h"
#include "report/naming/profile_symbols.h"

namespace hwt::report {

// Display names shared by the SPE reports.
class SpeNames {
 public:
  SpeNames(const analysis::SpeProfile& profile, ProfileSymbols* symbols)
      : profile_(profile), symbols_(symbols) {}

  // Base name of an image's path; "[unknown]" for kNoImage.
  std::string ImageName(uint32_t image) const;
  // "memcpy", "[libc.so.7+0x1230]" (resolved but nameless), "[libc.so.7]"
  // (the image's unsymbolized code), "[unknown]", "[kernel]".
  std::string FunctionName(const analysis::SpeFunction& function);
  // "memcpy+0x40", "[app+0x408000]", "0xffff000000001000" (no image).
  std::string InstructionName(const analysis::SpeInstruction& instruction);

 private:
  const analysis::SpeProfile& profile_;
  ProfileSymbols* symbols_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_SPE_SPE_SYMBOLS_H_
