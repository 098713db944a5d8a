// The branch-profile exports of one image, each the exact control flow of
// the trace in the text format a post-link or profile-guided optimizer
// reads (docs/exports.md):
//   BOLT pre-aggregated  (llvm-bolt -p FILE --pa; perf2bolt --pa makes fdata)
//   AutoFDO text         (create_llvm_prof --profiler=text)
//   llvm-profgen         (llvm-profgen --unsymbolized-profile)
#ifndef HWT_REPORT_EXPORT_BRANCH_PROFILES_H_
#define HWT_REPORT_EXPORT_BRANCH_PROFILES_H_

#include <string>

#include "report/export/control_flow.h"
#include "report/export/export_input.h"

namespace hwt::report {

// BOLT's pre-aggregated profile: "B FROM TO COUNT 0" per taken branch (no
// misprediction is known: 0), "F BEGIN END COUNT" per straight-through range
// ("f" for the part entered by a return: BOLT then credits the call's
// fall-through), and "F FROM TO COUNT" where one block ran on into the next
// without a branch. Addresses are the image's ELF addresses (BOLT's offsets
// from the load base of a non-PIE executable, and of a PIE's ELF view); an
// end in another image is "X:ADDR".
std::string RenderBoltProfile(const ExportImage& image, const ImageFlow& flow);

// The AutoFDO text profile as simpleperf's inject writes it: ranges
// "BEGIN-END:COUNT", no address counts (the ranges carry every
// instruction's count), the image's taken branches "FROM->TO:COUNT" with TO
// 0 for an indirect branch (return, indirect jump or call), a target
// outside the image and one the trace does not show; addresses relative to
// the image's base (its lowest PT_LOAD address: 0 for a PIE, 0x400000 for a
// classic x86-64 executable), hex without 0x; then the trailer naming the
// image ("// build_id: 0x...", "// PATH").
std::string RenderAutoFdoText(const ExportImage& image, const ImageFlow& flow);

// llvm-profgen's unsymbolized profile: ranges and branches as offsets from
// the first executable segment's (aligned) address, as its default
// --use-offset reads them. Fails when the image has no executable segment.
absl::StatusOr<std::string> RenderProfgenProfile(const ExportImage& image,
                                                 const ImageFlow& flow);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_BRANCH_PROFILES_H_
