// BOLT pre-aggregated, AutoFDO text and llvm-profgen unsymbolized profiles.
#include "report/export/branch_profiles.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hwt::report {
namespace {

// llvm-profgen places the text segments at 4 KiB page boundaries whatever
// the segments' own alignment (ProfiledBinary: "assuming 4K page").
constexpr uint64_t kProfgenPageSize = 0x1000;

bool IsIndirect(hwt::BranchKind kind) {
  return kind == hwt::BranchKind::kJumpIndirect ||
         kind == hwt::BranchKind::kCallIndirect ||
         kind == hwt::BranchKind::kReturn;
}

// BOLT 19 ignores the object id of a pre-aggregated address and looks the
// offset up in its own binary: an end in another image must be an offset
// that no function has (perf2bolt uses all ones for "elsewhere" too).
std::string BoltAddress(uint32_t image, uint32_t flow_image, uint64_t addr) {
  if (image == flow_image) return absl::StrFormat("%x", addr);
  return "X:ffffffffffffffff";
}

}  // namespace

std::string RenderBoltProfile(const ExportImage& image, const ImageFlow& flow) {
  (void)image;
  std::string out;
  for (const FlowBranch& b : flow.branches) {
    absl::StrAppend(&out, "B ", BoltAddress(b.from_image, flow.image, b.from),
                    " ", BoltAddress(b.to_image, flow.image, b.to), " ",
                    b.count, " 0\n");
  }
  for (const FlowRange& r : flow.ranges) {
    if (r.count > r.after_return) {
      absl::StrAppendFormat(&out, "F %x %x %d\n", r.begin, r.end,
                            r.count - r.after_return);
    }
    if (r.after_return != 0) {
      absl::StrAppendFormat(&out, "f %x %x %d\n", r.begin, r.end,
                            r.after_return);
    }
  }
  for (const FlowContinuation& c : flow.continuations) {
    absl::StrAppendFormat(&out, "F %x %x %d\n", c.from, c.to, c.count);
  }
  return out;
}

std::string RenderAutoFdoText(const ExportImage& image, const ImageFlow& flow) {
  // create_llvm_prof adds the image's base (its lowest PT_LOAD address) to
  // every address it reads.
  const uint64_t base = image.segments.empty() ? 0 : image.segments[0].vaddr;
  auto offset = [&](uint64_t vaddr) -> uint64_t {
    return vaddr >= base ? vaddr - base : 0;
  };
  std::string out = absl::StrCat(flow.ranges.size(), "\n");
  for (const FlowRange& r : flow.ranges) {
    absl::StrAppendFormat(&out, "%x-%x:%d\n", offset(r.begin), offset(r.end),
                          r.count);
  }
  // The branches as simpleperf's `inject` writes them for ETM: every taken
  // branch of the image, with its target when the instruction names it (a
  // direct branch) and the target is in the image, else 0: an indirect
  // branch's next traced address need not be its target (an address filter
  // hides what it jumped to), and AutoFDO has no use for a return's.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> branches;
  for (const FlowBranch& b : flow.branches) {
    if (b.from_image != flow.image) continue;
    const bool known = !IsIndirect(b.kind) && b.to_image == flow.image;
    branches[{offset(b.from), known ? offset(b.to) : 0}] += b.count;
  }
  for (const UnfollowedBranch& u : flow.unfollowed) {
    branches[{offset(u.from), 0}] += u.count;
  }
  absl::StrAppend(&out, "0\n", branches.size(), "\n");
  for (const auto& [ends, count] : branches) {
    absl::StrAppendFormat(&out, "%x->%x:%d\n", ends.first, ends.second, count);
  }
  // simpleperf's trailer: the image it is for (build-id as 20 bytes).
  std::string build_id = image.build_id;
  if (build_id.size() < 40) build_id.resize(40, '0');
  absl::StrAppend(&out, "// build_id: 0x", build_id, "\n// ", image.path,
                  "\n\n");
  return out;
}

absl::StatusOr<std::string> RenderProfgenProfile(const ExportImage& image,
                                                 const ImageFlow& flow) {
  const ExportSegment* text = FirstExecutableSegment(image);
  if (text == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        image.path, ": no executable segment: llvm-profgen needs one"));
  }
  const uint64_t base = text->vaddr & ~(kProfgenPageSize - 1);
  std::string ranges;
  size_t nranges = 0;
  for (const FlowRange& r : flow.ranges) {
    if (r.begin < base) continue;  // below the text: not for llvm-profgen
    absl::StrAppendFormat(&ranges, "%x-%x:%d\n", r.begin - base, r.end - base,
                          r.count);
    ++nranges;
  }
  // llvm-profgen has no way to say "outside the binary": branches with an
  // end elsewhere stay out (their ranges are in).
  std::string branches;
  size_t nbranches = 0;
  for (const FlowBranch& b : flow.branches) {
    if (b.from_image != flow.image || b.to_image != flow.image ||
        b.from < base || b.to < base) {
      continue;
    }
    absl::StrAppendFormat(&branches, "%x->%x:%d\n", b.from - base, b.to - base,
                          b.count);
    ++nbranches;
  }
  return absl::StrCat(nranges, "\n", ranges, nbranches, "\n", branches);
}

}  // namespace hwt::report
