// ExportBundle: a capture as a bundle directory or packed file; see
// capture_export.h.
#include "capture/capture_export.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/bundle_writer.h"

namespace hwt::capture {
namespace {

constexpr std::string_view kPackedSuffixes[] = {".tar", ".tar.zst", ".tzst",
                                                ".tar.gz", ".tgz"};

// What the bundle holds: everything but the image copies.
absl::StatusOr<BundleContents> CollectContents(const Capture& capture,
                                               ExportSummary* summary) {
  BundleContents contents;
  contents.manifest = capture.manifest();
  contents.manifest.import_problems = capture.import_warnings();
  contents.records = capture.records();
  for (size_t b = 0; b < capture.manifest().buffers.size(); ++b) {
    BufferContents buffer;
    buffer.info = capture.manifest().buffers[b];
    HWT_ASSIGN_OR_RETURN(buffer.data, ReadFileToString(capture.BufferPath(b)));
    summary->trace_bytes += buffer.data.size();
    contents.buffers.push_back(std::move(buffer));
  }
  // Memory dumps travel as extra files under memory/.
  for (size_t i = 0; i < contents.manifest.memory.size(); ++i) {
    MemoryDump& dump = contents.manifest.memory[i];
    const std::string source = !dump.file.empty() && dump.file[0] == '/'
                                   ? dump.file
                                   : capture.root() + "/" + dump.file;
    HWT_ASSIGN_OR_RETURN(std::string data, ReadFileToString(source));
    std::string name = absl::StrCat("memory/", i, "-", BaseName(dump.file));
    contents.extra_files.push_back({name, std::move(data)});
    dump.file = name;
  }
  return contents;
}

// The ELF images the timeline resolved, once each. --image files no recorded
// mapping names are listed in `not_carried` instead.
void CollectImages(const AddressSpaceTimeline& timeline,
                   BundleContents* contents, ExportSummary* summary) {
  std::set<std::string> copied;
  for (const Image& image : timeline.images()) {
    if (!image.is_elf || image.file.empty()) continue;
    if (image.persistent) {
      summary->not_carried.push_back(image.file);
      continue;
    }
    if (!copied.insert(image.file).second) continue;
    ImageToBundle copy;
    copy.source_file = image.file;
    copy.original_path = image.recorded_path;
    copy.build_id = image.build_id;
    contents->images.push_back(std::move(copy));
  }
}

// A packed bundle: the directory is written into a temporary directory
// first, then packed (atomically) under the name `path` gives.
absl::Status WritePacked(const std::string& path,
                         const BundleContents& contents, bool overwrite) {
  if (!overwrite && PathExists(path)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": already exists; not replacing it"));
  }
  std::string name = BaseName(path);
  for (std::string_view suffix : kPackedSuffixes) {
    if (name.ends_with(suffix)) {
      name.resize(name.size() - suffix.size());
      break;
    }
  }
  if (!name.ends_with(".hwt")) absl::StrAppend(&name, ".hwt");
  HWT_ASSIGN_OR_RETURN(TempDir temp, TempDir::Create("hwt-import"));
  const std::string dir = temp.path() + "/" + name;
  HWT_RETURN_IF_ERROR(WriteBundle(dir, contents));
  return PackBundle(dir, path);
}

}  // namespace

bool IsPackedBundleName(std::string_view path) {
  for (std::string_view suffix : kPackedSuffixes) {
    if (path.ends_with(suffix)) return true;
  }
  return false;
}

absl::StatusOr<ExportSummary> ExportBundle(const Capture& capture,
                                           const AddressSpaceTimeline& timeline,
                                           const std::string& path,
                                           bool overwrite) {
  if (capture.manifest().buffers.empty()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: no trace data to write (every AUX area's data is missing from "
        "the file: see the warnings); no bundle written",
        capture.source_path()));
  }
  if (!overwrite && PathExists(path)) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": already exists; not replacing it (remove it first)"));
  }
  ExportSummary summary;
  HWT_ASSIGN_OR_RETURN(BundleContents contents,
                       CollectContents(capture, &summary));
  CollectImages(timeline, &contents, &summary);
  summary.buffers = contents.buffers.size();
  summary.records = contents.records.size();
  summary.images_copied = contents.images.size();
  summary.import_problems = contents.manifest.import_problems.size();
  if (IsPackedBundleName(path)) {
    HWT_RETURN_IF_ERROR(WritePacked(path, contents, overwrite));
  } else {
    HWT_RETURN_IF_ERROR(WriteBundle(path, contents, overwrite));
  }
  return summary;
}

}  // namespace hwt::capture
