// The code of a recorded process, rebuilt from its MappingEvents: which ELF
// image (or memory dump such as the vDSO) is mapped where, the bytes of its
// executable PT_LOAD segments and the decoded instruction at any address,
// cached per address. Recorders use it to know what they step over (rep
// strings, CPUID, branches), the ground truth to classify every executed
// instruction and to map addresses back to (image, ELF virtual address).
//
// Bias rules are the capture layer's (capture/address_space.cc): EXECUTABLE
// maps the program at addr and its PT_INTERP at baseaddr, MMAP maps an image
// so that its first executable PT_LOAD starts on the page at addr, MUNMAP
// removes the image instance containing addr.
#ifndef HWT_RECORDER_CODE_MAP_H_
#define HWT_RECORDER_CODE_MAP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/file_util.h"
#include "capture/elf_file.h"
#include "decoders/x86/x86_insn.h"
#include "recorder/execution.h"

namespace hwt::recorder {

struct CodeMapOptions {
  // Recorded path -> file on this machine, e.g. "[vdso]" -> the vDSO dump.
  // Paths without an alias are opened as they are.
  std::map<std::string, std::string> path_aliases;
  // Reads the traced process's memory where no image is mapped (code that
  // no file backs); returns the number of bytes read. Empty: such code is
  // not decodable. Results read this way are not cached.
  std::function<size_t(uint64_t addr, absl::Span<uint8_t> out)> read_memory;
};

// One image instance: a file mapped at one load bias.
struct MappedImage {
  std::string recorded_path;  // as in the MappingEvent (or PT_INTERP)
  std::string file;           // the file read on this machine
  uint64_t bias = 0;          // address = ELF virtual address + bias
  bool mapped = true;         // false once unmapped (indices stay valid)
};

struct CodeLocation {
  uint32_t image = 0;  // index into CodeMap::images()
  uint64_t vaddr = 0;  // ELF virtual address in that image
};

class CodeMap : public InsnSource {
 public:
  explicit CodeMap(CodeMapOptions options = {});
  ~CodeMap() override;

  // Follows one mapping change. Errors name the file (missing, not ELF, no
  // PT_INTERP for a nonzero interpreter base); the map is unchanged then.
  absl::Status Apply(const MappingEvent& event);

  std::optional<x86::Insn> InsnAt(uint64_t ip) override;

  // Copies up to out.size() bytes of code at `addr` (stopping at the end of
  // the segment); returns how many (0 when nothing is mapped there).
  size_t ReadCode(uint64_t addr, absl::Span<uint8_t> out);

  // The image instance containing `addr` and the ELF virtual address.
  std::optional<CodeLocation> Locate(uint64_t addr) const;

  // Every image instance ever mapped, in mapping order.
  const std::vector<MappedImage>& images() const { return images_; }

  // Incremented at every change of what is mapped (for callers' caches).
  uint64_t generation() const { return generation_; }

  // The disassembly of the instruction at `ip` (for messages and tests).
  std::string Disassemble(uint64_t ip);

 private:
  struct Region {
    uint64_t end = 0;
    uint32_t image = 0;
    const uint8_t* bytes = nullptr;  // file bytes backing the segment start
    uint64_t file_size = 0;          // bytes available from `bytes`
  };
  struct LoadedFile {
    MappedFile mapped;
    capture::ElfInfo elf;
  };

  absl::StatusOr<const LoadedFile*> Load(const std::string& recorded_path);
  absl::Status MapImage(const std::string& recorded_path, uint64_t bias);
  void UnmapImage(uint32_t image);
  void UnmapAll();
  void Changed();
  const Region* FindRegion(uint64_t addr, uint64_t* start) const;

  CodeMapOptions options_;
  std::unique_ptr<x86::InsnDecoder> decoder_;
  std::map<std::string, std::unique_ptr<LoadedFile>> files_;  // by file
  std::vector<MappedImage> images_;
  std::map<uint64_t, Region> regions_;  // by start address
  absl::flat_hash_map<uint64_t, std::optional<x86::Insn>> cache_;
  uint64_t generation_ = 0;
};

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_CODE_MAP_H_
