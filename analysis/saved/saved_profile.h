// The saved profile: the analysis result of one capture, or of many merged,
// with everything needed to report it on a machine that has none of the
// traced images: where it came from (the captures and their manifest
// identity, decode statistics per stream), the images by build-id with their
// segment maps, the names (function symbols, source frames per executed
// address) and the code bytes of every executed block. profile_file.h reads
// and writes it (.hwtprof), profile_merge.h merges; docs/profile-format.md is
// the specification.
#ifndef HWT_ANALYSIS_SAVED_SAVED_PROFILE_H_
#define HWT_ANALYSIS_SAVED_SAVED_PROFILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile.h"
#include "decoders/decoder.h"

namespace hwt::analysis {

// The format version this code writes; it reads every 1.x.
inline constexpr int kProfileMajorVersion = 1;
inline constexpr int kProfileMinorVersion = 2;

// A loadable segment of an image: ELF address -> file offset (what pprof,
// BOLT and AutoFDO need to turn addresses into file offsets). A raw memory
// dump has one segment at its address.
struct ImageSegment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t file_offset = 0;
  uint64_t filesz = 0;
  uint32_t flags = 0;  // PF_X 1, PF_W 2, PF_R 4
  friend bool operator==(const ImageSegment&, const ImageSegment&) = default;
  friend auto operator<=>(const ImageSegment&, const ImageSegment&) = default;
};

// A function symbol of an image.
struct SavedFunction {
  uint64_t start = 0;  // ELF vaddr
  uint64_t size = 0;
  std::string name;      // as reports print it (demangled)
  std::string raw_name;  // as in the symbol table (mangled)
  std::string file;      // source of the first instruction; "" = unknown
  uint32_t line = 0;
  friend bool operator==(const SavedFunction&, const SavedFunction&) = default;
  friend auto operator<=>(const SavedFunction&, const SavedFunction&) = default;
};

// One source frame at an address (DWARF: inline frames, then the function).
struct SavedSourceFrame {
  std::string function;
  std::string file;  // "" = no line information
  uint32_t line = 0;
  uint32_t discriminator = 0;
  bool inlined = false;
  // Since format 1.1 ("" and 0 in profiles read from 1.0 files).
  std::string linkage_name;  // as the compiler named it; "" = unknown
  uint32_t start_line = 0;   // the function's first line; 0 = unknown
  friend bool operator==(const SavedSourceFrame&,
                         const SavedSourceFrame&) = default;
  friend auto operator<=>(const SavedSourceFrame&,
                          const SavedSourceFrame&) = default;
};

struct SavedAddress {
  uint64_t vaddr = 0;
  std::vector<SavedSourceFrame> frames;  // innermost first, function last
  friend bool operator==(const SavedAddress&, const SavedAddress&) = default;
  friend auto operator<=>(const SavedAddress&, const SavedAddress&) = default;
};

// Code bytes at [vaddr, vaddr + bytes.size()) of an image.
struct CodeRange {
  uint64_t vaddr = 0;
  std::string bytes;
  friend bool operator==(const CodeRange&, const CodeRange&) = default;
};

struct SavedImage {
  std::string build_id;  // lowercase hex; "" = none
  std::string path;      // as the traced system saw it (a hint)
  bool is_elf = true;
  bool kernel = false;
  uint64_t file_size = 0;
  // With `path`, the identity of an image without build-id: a stable hash
  // of its file's contents (0 = the file was not readable).
  uint64_t content_hash = 0;
  uint32_t machine = 0;  // ELF e_machine
  std::vector<ImageSegment> segments;
  std::vector<SavedFunction> functions;  // by start, unique
  std::vector<SavedAddress> addresses;   // by vaddr, unique
  std::vector<CodeRange> code;           // by vaddr, disjoint, not adjacent
  friend bool operator==(const SavedImage&, const SavedImage&) = default;

  // What merging joins by: the build-id, else the path and content hash.
  std::string Identity() const;
  const SavedFunction* FunctionAt(uint64_t start) const;  // exact start
  const SavedAddress* AddressAt(uint64_t vaddr) const;
  // The saved code bytes at [vaddr, vaddr + size), clipped to the range
  // that holds vaddr; empty when none does.
  std::string_view CodeAt(uint64_t vaddr, size_t size) const;
};

// A decode stream of a capture with its decoder statistics.
struct SavedStream {
  StreamInfo info;
  StreamStats stats;
  friend bool operator==(const SavedStream&, const SavedStream&) = default;
};

// One analysed capture.
struct CaptureSource {
  std::string name;         // unique in a batch: the profile's name
  std::string path;         // the input as given
  std::string fingerprint;  // input + analysis identity (docs/batch.md)
  std::string analysis;     // the analysis options, as text
  std::string backend;      // "pt", "coresight", "spe"
  std::string mode;         // "thread", "cpu"
  std::string cpu_arch, cpu_vendor;
  uint32_t cpu_family = 0, cpu_model = 0, cpu_stepping = 0;
  uint64_t cpu_midr = 0;
  uint64_t cpu_frequency_hz = 0;  // nominal TSC frequency; 0 = unknown
  std::optional<int64_t> pid;
  std::string command, hostname, os, created, recorder;
  std::map<std::string, std::string> labels;
  std::vector<SavedStream> streams;
  friend bool operator==(const CaptureSource&, const CaptureSource&) = default;

  // Sums over the streams.
  StreamStats TotalStats() const;
  // A manifest field (backend, mode, command, hostname, os, created,
  // recorder, cpu, name, path) or else a label; "" when neither exists.
  std::string Field(const std::string& key) const;
};

struct SavedProfile {
  std::string writer;  // the tool that wrote it, "hwt 0.1.0 (hwt-batch)"
  // The format minor version of the file it was read from (a merge keeps the
  // lowest of its inputs'): below 1 the source frames have no linkage names
  // and function start lines, which the exports need.
  int format_minor = kProfileMinorVersion;
  // The captures, sorted (see profile_merge.h); ThreadProfile::capture
  // indexes them.
  std::vector<CaptureSource> sources;
  // The images; every image index in `profile` indexes them.
  std::vector<SavedImage> images;
  Profile profile;
};

// Equality of the parts a merge must reproduce (everything but `writer`
// and `format_minor`).
bool SameContent(const SavedProfile& a, const SavedProfile& b);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SAVED_SAVED_PROFILE_H_
