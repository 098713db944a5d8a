// What every exporter (report/export/) reads: the profile with its
// per-instruction counts (block expansion), the images with what the
// consumers need to place addresses (the PT_LOAD segment map, the build-id),
// and the names, source frames and function symbols of executed addresses.
// A live capture (LiveExportInput: the timeline and the Symbolizer) and a
// saved profile (.hwtprof) both provide it; no exporter walks the trace.
#ifndef HWT_REPORT_EXPORT_EXPORT_INPUT_H_
#define HWT_REPORT_EXPORT_EXPORT_INPUT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "capture/address_space.h"
#include "report/naming/profile_symbols.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

// A loadable segment (ELF PT_LOAD): ELF address -> file offset.
struct ExportSegment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t file_offset = 0;
  uint64_t filesz = 0;
  uint32_t flags = 0;  // PF_X 1, PF_W 2, PF_R 4
  uint64_t align = 0;
  bool executable() const { return (flags & 1) != 0; }
};

struct ExportImage {
  std::string path;      // as the traced system saw it
  std::string build_id;  // lowercase hex; "" = none
  bool kernel = false;
  bool is_elf = true;
  std::vector<ExportSegment> segments;  // PT_LOAD, by vaddr
};

// One source frame at an address.
struct ExportFrame {
  std::string function;      // as reports print it
  std::string linkage_name;  // as the compiler named it ("" = unknown)
  std::string file;          // "" = no line information
  uint32_t line = 0;
  uint32_t discriminator = 0;
  uint32_t start_line = 0;  // the function's first line (DW_AT_decl_line)
  bool inlined = false;
};

// A function symbol.
struct ExportFunction {
  std::string name;          // as reports print it
  std::string linkage_name;  // as in the symbol table
  uint64_t start = 0;
  uint64_t size = 0;
  uint32_t start_line = 0;  // 0 = unknown
  std::string file;         // of start_line
};

class ExportInput {
 public:
  virtual ~ExportInput() = default;
  virtual const analysis::Profile& profile() const = 0;
  // Per-instruction counts of every block of profile().
  virtual const analysis::BlockExpansion& expansion() const = 0;
  // Names as the other outputs give them (--top, --folded).
  virtual ProfileSymbols& symbols() = 0;
  virtual uint32_t image_count() const = 0;
  virtual const ExportImage& image(uint32_t image) const = 0;
  // The function symbol starting at `start` of `image`; nullopt if none.
  virtual std::optional<ExportFunction> Function(uint32_t image,
                                                 uint64_t start) = 0;
  // Per address: innermost (inlined) frame first, the function last; empty
  // when unknown.
  virtual std::vector<std::vector<ExportFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) = 0;
};

// A live capture: images from the address-space timeline (segments read
// from each image's ELF file), names and frames from the Symbolizer (its
// images registered under the timeline's indices).
class LiveExportInput : public ExportInput {
 public:
  LiveExportInput(const analysis::Profile& profile,
                  const analysis::BlockExpansion& expansion,
                  const capture::AddressSpaceTimeline& timeline,
                  symbolizer::Symbolizer& symbolizer, ProfileSymbols& symbols);

  const analysis::Profile& profile() const override { return profile_; }
  const analysis::BlockExpansion& expansion() const override {
    return expansion_;
  }
  ProfileSymbols& symbols() override { return symbols_; }
  uint32_t image_count() const override {
    return static_cast<uint32_t>(images_.size());
  }
  const ExportImage& image(uint32_t image) const override {
    return images_[image];
  }
  std::optional<ExportFunction> Function(uint32_t image,
                                         uint64_t start) override;
  std::vector<std::vector<ExportFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) override;

 private:
  const analysis::Profile& profile_;
  const analysis::BlockExpansion& expansion_;
  symbolizer::Symbolizer& symbolizer_;
  ProfileSymbols& symbols_;
  std::vector<ExportImage> images_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_EXPORT_INPUT_H_
