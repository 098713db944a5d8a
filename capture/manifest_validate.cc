// The manifest's validation (see manifest_validate.h): each part of the
// manifest checked in the order of docs/capture-format.md, so that the first
// problem reported is the same whatever else is wrong.
#include "capture/manifest_validate.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace hwt::capture {
namespace {

absl::Status FieldError(std::string_view where, std::string_view path,
                        std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(where), ": ", std::string(path), ": ", std::string(message)));
}

absl::Status CheckPath(std::string_view where, std::string_view field,
                       const std::string& path) {
  if (std::optional<std::string> reason = UnsafeBundlePathReason(path)) {
    return FieldError(where, field, *reason);
  }
  return absl::OkStatus();
}

bool IsLowerHex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string SizeText(uint64_t value) {
  return absl::StrFormat("0x%x (%u bytes)", value, value);
}

// stat() of root/file with a message naming the manifest field on failure.
absl::StatusOr<uint64_t> RegularFileSize(std::string_view where,
                                         std::string_view field,
                                         const std::string& root,
                                         const std::string& file) {
  std::string full = absl::StrCat(root, "/", file);
  struct stat st;
  if (stat(full.c_str(), &st) != 0) {
    int err = errno;
    return FieldError(where, field,
                      absl::StrCat(file, ": ",
                                   err == ENOENT ? "no such file in the bundle"
                                                 : strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    return FieldError(where, field, absl::StrCat(file, ": not a regular file"));
  }
  return static_cast<uint64_t>(st.st_size);
}

absl::Status ValidateBackendConfig(const Manifest& manifest,
                                   std::string_view where) {
  if (manifest.backend != Backend::kPt &&
      manifest.backend != Backend::kCoreSight &&
      manifest.backend != Backend::kSpe) {
    return FieldError(where, "backend",
                      "unknown backend (expected \"pt\", \"coresight\" or "
                      "\"spe\")");
  }
  const std::string backend(BackendName(manifest.backend));
  if (manifest.pt && manifest.backend != Backend::kPt) {
    return FieldError(
        where, "pt",
        absl::StrCat("Intel PT configuration in a \"", backend, "\" capture"));
  }
  if (manifest.coresight && manifest.backend != Backend::kCoreSight) {
    return FieldError(
        where, "coresight",
        absl::StrCat("CoreSight configuration in a \"", backend, "\" capture"));
  }
  if (manifest.spe && manifest.backend != Backend::kSpe) {
    return FieldError(
        where, "spe",
        absl::StrCat("SPE configuration in a \"", backend, "\" capture"));
  }
  return absl::OkStatus();
}

absl::Status ValidateCpu(const CpuIdentity& cpu, std::string_view where) {
  if (cpu.family > 0x10f) {
    return FieldError(where, "cpu.family",
                      absl::StrCat("x86 family ", cpu.family,
                                   " is out of range (at most 0x10f)"));
  }
  if (cpu.model > 0xff) {
    return FieldError(where, "cpu.model",
                      absl::StrCat("x86 model ", cpu.model,
                                   " is out of range (at most 0xff)"));
  }
  if (cpu.stepping > 0xf) {
    return FieldError(where, "cpu.stepping",
                      absl::StrCat("x86 stepping ", cpu.stepping,
                                   " is out of range (at most 15)"));
  }
  return absl::OkStatus();
}

absl::Status ValidatePt(const PtConfig& pt, std::string_view where) {
  if (pt.address_filters.size() > 4) {
    return FieldError(where, "pt.address_filters",
                      "at most 4 address ranges exist");
  }
  for (size_t i = 0; i < pt.address_filters.size(); ++i) {
    const PtAddressFilter& f = pt.address_filters[i];
    std::string path = absl::StrCat("pt.address_filters[", i, "]");
    if (f.config > 2) {
      return FieldError(where, path + ".config",
                        absl::StrCat("expected 0 (off), 1 (filter) or 2 "
                                     "(stop), got ",
                                     f.config));
    }
    if (f.start > f.end) {
      return FieldError(
          where, path,
          absl::StrFormat("start 0x%x is above end 0x%x", f.start, f.end));
    }
  }
  for (auto [name, value] :
       {std::pair<const char*, uint32_t>{"mtc_freq", pt.mtc_freq},
        {"cyc_thresh", pt.cyc_thresh},
        {"psb_freq", pt.psb_freq}}) {
    if (value > 15) {
      return FieldError(where, absl::StrCat("pt.", name),
                        absl::StrCat("a 4-bit field, got ", value));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateCoreSight(const CoreSightConfig& cs, size_t buffer_count,
                               std::string_view where) {
  static const std::set<std::string> kSinks = {"etr",  "etf",  "etb",
                                               "tpiu", "trbe", "raw"};
  if (kSinks.count(cs.sink) == 0) {
    return FieldError(where, "coresight.sink",
                      absl::StrCat("unknown sink \"", cs.sink,
                                   "\" (expected etr, etf, etb, tpiu, trbe "
                                   "or raw)"));
  }
  if (cs.sources.size() > kMaxCoreSightSources) {
    return FieldError(where, "coresight.sources", "too many trace sources");
  }
  std::set<uint32_t> ids;
  for (size_t i = 0; i < cs.sources.size(); ++i) {
    const CoreSightSource& source = cs.sources[i];
    std::string path = absl::StrCat("coresight.sources[", i, "]");
    if (source.trace_id == 0 || source.trace_id > 0x6f) {
      return FieldError(where, path + ".trace_id",
                        absl::StrCat("CoreSight trace IDs are 1 to 0x6f, "
                                     "got ",
                                     source.trace_id));
    }
    if (!ids.insert(source.trace_id).second) {
      return FieldError(
          where, path + ".trace_id",
          absl::StrFormat("duplicate trace ID 0x%x", source.trace_id));
    }
    if (!source.core_profile.empty() && source.core_profile != "A" &&
        source.core_profile != "R" && source.core_profile != "M") {
      return FieldError(where, path + ".core_profile",
                        absl::StrCat("expected \"A\", \"R\" or \"M\", got "
                                     "\"",
                                     source.core_profile, "\""));
    }
    if (source.buffer && *source.buffer >= buffer_count) {
      return FieldError(where, path + ".buffer",
                        absl::StrCat("no buffer ", *source.buffer,
                                     " (the "
                                     "capture has ",
                                     buffer_count, ")"));
    }
    for (const auto& [name, value] : source.registers) {
      if (name.empty()) {
        return FieldError(where, path + ".registers", "empty register name");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSpe(const SpeConfig& spe, std::string_view where) {
  if (spe.level > 2) {
    return FieldError(where, "spe.level",
                      absl::StrCat("expected 0 (kernel and user), 1 (kernel) "
                                   "or 2 (user), got ",
                                   spe.level));
  }
  if (spe.ctx_field > 2) {
    return FieldError(where, "spe.ctx_field",
                      absl::StrCat("expected 0 (none), 1 (PID) or 2 (CPU "
                                   "id), got ",
                                   spe.ctx_field));
  }
  return absl::OkStatus();
}

// Chunks lie inside their buffer, ordered and disjoint.
absl::Status ValidateChunks(std::string_view where, const std::string& path,
                            const BufferInfo& buffer) {
  uint64_t previous_end = 0;
  for (size_t c = 0; c < buffer.chunks.size(); ++c) {
    const BufferChunk& chunk = buffer.chunks[c];
    std::string chunk_path = absl::StrCat(path, ".chunks[", c, "]");
    if (chunk.offset > buffer.size || chunk.size > buffer.size - chunk.offset) {
      return FieldError(
          where, chunk_path,
          absl::StrFormat("[0x%x, +0x%x) extends past the buffer's size 0x%x",
                          chunk.offset, chunk.size, buffer.size));
    }
    if (chunk.offset < previous_end) {
      return FieldError(
          where, chunk_path + ".offset",
          absl::StrFormat("0x%x overlaps the previous chunk (which ends at "
                          "0x%x); chunks are ordered and disjoint",
                          chunk.offset, previous_end));
    }
    previous_end = chunk.offset + chunk.size;
  }
  return absl::OkStatus();
}

// Buffers: at least one, unique ids and files, sizes and chunks in range.
// Fills `buffer_files` with the buffers' files.
absl::Status ValidateBuffers(const Manifest& manifest, std::string_view where,
                             std::map<std::string, size_t>& buffer_files) {
  if (manifest.buffers.empty()) {
    return FieldError(where, "buffers", "a capture holds at least one buffer");
  }
  if (manifest.buffers.size() > kMaxBuffers) {
    return FieldError(where, "buffers",
                      absl::StrCat("more than ", kMaxBuffers, " buffers (",
                                   manifest.buffers.size(), ")"));
  }
  std::map<uint32_t, size_t> buffer_ids;
  for (size_t i = 0; i < manifest.buffers.size(); ++i) {
    const BufferInfo& buffer = manifest.buffers[i];
    std::string path = absl::StrCat("buffers[", i, "]");
    auto [id_it, new_id] = buffer_ids.emplace(buffer.id, i);
    if (!new_id) {
      return FieldError(where, path + ".id",
                        absl::StrCat("duplicate buffer id ", buffer.id,
                                     " (also buffers[", id_it->second, "])"));
    }
    HWT_RETURN_IF_ERROR(CheckPath(where, path + ".file", buffer.file));
    auto [file_it, new_file] = buffer_files.emplace(buffer.file, i);
    if (!new_file) {
      return FieldError(
          where, path + ".file",
          absl::StrCat("\"", buffer.file, "\" is also the file of buffers[",
                       file_it->second, "]"));
    }
    if (buffer.size > kMaxBufferSize) {
      return FieldError(where, path + ".size",
                        absl::StrFormat("%s is larger than the %u-byte limit",
                                        SizeText(buffer.size), kMaxBufferSize));
    }
    if (buffer.chunks.size() > kMaxChunksPerBuffer) {
      return FieldError(
          where, path + ".chunks",
          absl::StrCat("more than ", kMaxChunksPerBuffer, " chunks"));
    }
    HWT_RETURN_IF_ERROR(ValidateChunks(where, path, buffer));
  }
  return absl::OkStatus();
}

absl::Status ValidateImages(const Manifest& manifest, std::string_view where,
                            const std::map<std::string, size_t>& buffer_files) {
  for (size_t i = 0; i < manifest.images.size(); ++i) {
    const BundledImage& image = manifest.images[i];
    std::string path = absl::StrCat("images[", i, "]");
    if (!IsLowerHex(image.build_id) || image.build_id.size() % 2 != 0 ||
        image.build_id.size() > 128) {
      return FieldError(where, path + ".build_id",
                        absl::StrCat("expected an even number (at most 128) "
                                     "of hex digits, got \"",
                                     image.build_id, "\""));
    }
    if (image.original_path.empty()) {
      return FieldError(where, path + ".original_path", "empty path");
    }
    HWT_RETURN_IF_ERROR(CheckPath(where, path + ".file", image.file));
    if (buffer_files.count(image.file) != 0) {
      return FieldError(
          where, path + ".file",
          absl::StrCat("\"", image.file, "\" is also a buffer's file"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateMemoryDumps(const Manifest& manifest,
                                 std::string_view where) {
  for (size_t i = 0; i < manifest.memory.size(); ++i) {
    const MemoryDump& dump = manifest.memory[i];
    std::string path = absl::StrCat("memory[", i, "]");
    HWT_RETURN_IF_ERROR(CheckPath(where, path + ".file", dump.file));
    if (dump.size != 0 && dump.address + dump.size < dump.address) {
      return FieldError(where, path,
                        absl::StrFormat("0x%x + 0x%x wraps around the address "
                                        "space",
                                        dump.address, dump.size));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<std::string> UnsafeBundlePathReason(std::string_view path) {
  if (path.empty()) return std::string("empty path");
  if (path.size() > kMaxPathLength) {
    return absl::StrCat("path longer than ", kMaxPathLength, " bytes");
  }
  if (path.find('\0') != std::string_view::npos) {
    return std::string("path contains a NUL byte");
  }
  if (path[0] == '/') {
    return absl::StrCat("absolute path \"", std::string(path),
                        "\" (bundle files are relative to the bundle "
                        "directory)");
  }
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(path.data(), path.size()), '/')) {
    if (part == "..") {
      return absl::StrCat("path \"", std::string(path),
                          "\" leaves the bundle directory (\"..\")");
    }
  }
  if (path.back() == '/') {
    return absl::StrCat("path \"", std::string(path), "\" names a directory");
  }
  return std::nullopt;
}

absl::Status ValidateManifest(const Manifest& manifest,
                              std::string_view where) {
  HWT_RETURN_IF_ERROR(ValidateBackendConfig(manifest, where));
  HWT_RETURN_IF_ERROR(ValidateCpu(manifest.cpu, where));
  if (manifest.pt) HWT_RETURN_IF_ERROR(ValidatePt(*manifest.pt, where));
  if (manifest.coresight) {
    HWT_RETURN_IF_ERROR(
        ValidateCoreSight(*manifest.coresight, manifest.buffers.size(), where));
  }
  if (manifest.spe) HWT_RETURN_IF_ERROR(ValidateSpe(*manifest.spe, where));
  std::map<std::string, size_t> buffer_files;
  HWT_RETURN_IF_ERROR(ValidateBuffers(manifest, where, buffer_files));
  HWT_RETURN_IF_ERROR(ValidateImages(manifest, where, buffer_files));
  return ValidateMemoryDumps(manifest, where);
}

absl::Status ValidateManifestFiles(const Manifest& manifest,
                                   const std::string& root,
                                   std::string_view where) {
  for (size_t i = 0; i < manifest.buffers.size(); ++i) {
    const BufferInfo& buffer = manifest.buffers[i];
    std::string path = absl::StrCat("buffers[", i, "]");
    HWT_ASSIGN_OR_RETURN(uint64_t actual, RegularFileSize(where, path + ".file",
                                                          root, buffer.file));
    if (buffer.size > actual) {
      return FieldError(
          where, path + ".size",
          absl::StrCat(SizeText(buffer.size), " is larger than the file ",
                       buffer.file, " (", actual, " bytes)"));
    }
    if (buffer.size < actual) {
      return FieldError(
          where, path + ".size",
          absl::StrCat(SizeText(buffer.size), " is smaller than the file ",
                       buffer.file, " (", actual,
                       " bytes): the file changed after the "
                       "manifest was written"));
    }
  }
  for (size_t i = 0; i < manifest.images.size(); ++i) {
    HWT_RETURN_IF_ERROR(RegularFileSize(where,
                                        absl::StrCat("images[", i, "].file"),
                                        root, manifest.images[i].file)
                            .status());
  }
  for (size_t i = 0; i < manifest.memory.size(); ++i) {
    const MemoryDump& dump = manifest.memory[i];
    std::string path = absl::StrCat("memory[", i, "]");
    HWT_ASSIGN_OR_RETURN(uint64_t actual, RegularFileSize(where, path + ".file",
                                                          root, dump.file));
    if (dump.file_offset > actual ||
        (dump.size != 0 && dump.size > actual - dump.file_offset)) {
      return FieldError(
          where, path,
          absl::StrFormat("[0x%x, +0x%x) extends past the end of %s (%u bytes)",
                          dump.file_offset, dump.size, dump.file, actual));
    }
  }
  return absl::OkStatus();
}

}  // namespace hwt::capture
