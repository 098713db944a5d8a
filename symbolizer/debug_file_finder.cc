// Debug file lookup by build-id and .gnu_debuglink; see debug_file_finder.h.
#include "symbolizer/debug_file_finder.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CRC.h"

namespace hwt::symbolizer {
namespace {

// a + "/" + b, with exactly one slash between them.
std::string Join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  std::string out = a;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  size_t skip = 0;
  while (skip < b.size() && b[skip] == '/') ++skip;
  if (out != "/") out += '/';
  out.append(b, skip, std::string::npos);
  return out;
}

std::string DirName(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

void AddUnique(std::vector<std::string>* list, std::string value) {
  if (value.empty()) return;
  if (std::find(list->begin(), list->end(), value) == list->end()) {
    list->push_back(std::move(value));
  }
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> DebugRoots(const DebugSearchPaths& paths) {
  std::vector<std::string> roots;
  AddUnique(&roots,
            Join(paths.sysroot.empty() ? "/" : paths.sysroot, "usr/lib/debug"));
  for (const std::string& dir : paths.debug_dirs) AddUnique(&roots, dir);
  return roots;
}

}  // namespace

std::vector<std::string> DebugFileCandidates(const DebugFileQuery& query,
                                             const DebugSearchPaths& paths) {
  std::vector<std::string> out;
  const std::vector<std::string> roots = DebugRoots(paths);
  if (query.build_id.size() > 2) {
    const std::string rel =
        absl::StrCat(".build-id/", query.build_id.substr(0, 2), "/",
                     query.build_id.substr(2), ".debug");
    for (const std::string& root : roots) AddUnique(&out, Join(root, rel));
  }
  if (!query.debug_link) return out;
  const std::string& link = query.debug_link->file;

  // The image's directory as the traced system saw it, and on this machine.
  std::vector<std::string> system_dirs;
  if (!query.display_path.empty() && query.display_path[0] == '/') {
    AddUnique(&system_dirs, DirName(query.display_path));
  }
  std::string image_dir;
  if (!query.image_file.empty()) {
    std::error_code ec;
    auto absolute = std::filesystem::absolute(query.image_file, ec);
    image_dir = DirName(ec ? query.image_file : absolute.string());
    AddUnique(&system_dirs, image_dir);
  }
  for (const std::string& root : roots) {
    for (const std::string& dir : system_dirs) {
      AddUnique(&out, Join(Join(root, dir), link));
    }
  }
  std::vector<std::string> image_dirs;
  AddUnique(&image_dirs, image_dir);
  if (!paths.sysroot.empty() && !query.display_path.empty() &&
      query.display_path[0] == '/') {
    AddUnique(&image_dirs, Join(paths.sysroot, DirName(query.display_path)));
  }
  for (const std::string& dir : image_dirs) {
    AddUnique(&out, Join(Join(dir, ".debug"), link));
    AddUnique(&out, Join(dir, link));
  }
  for (const std::string& dir : paths.debug_dirs) {
    AddUnique(&out, Join(dir, link));
  }
  return out;
}

std::optional<FoundDebugFile> FindDebugFile(
    const DebugFileQuery& query, const DebugSearchPaths& paths,
    std::vector<std::string>* rejected) {
  const std::string build_id_suffix =
      query.build_id.size() > 2
          ? absl::StrCat("/.build-id/", query.build_id.substr(0, 2), "/",
                         query.build_id.substr(2), ".debug")
          : std::string();
  auto reject = [&](const std::string& path, const std::string& why) {
    if (rejected != nullptr) rejected->push_back(absl::StrCat(path, ": ", why));
  };
  for (const std::string& path : DebugFileCandidates(query, paths)) {
    if (!IsRegularFile(path)) continue;
    if (!query.image_file.empty() && SameFile(path, query.image_file)) continue;
    const bool by_build_id =
        !build_id_suffix.empty() && path.size() >= build_id_suffix.size() &&
        path.compare(path.size() - build_id_suffix.size(),
                     build_id_suffix.size(), build_id_suffix) == 0;
    auto image = ElfImage::Open(path);
    if (!image.ok()) {
      reject(path, std::string(image.status().message()));
      continue;
    }
    const std::string& found_id = (*image)->build_id();
    if (by_build_id) {
      if (found_id != query.build_id) {
        reject(path,
               absl::StrCat("build-id ", found_id, " != ", query.build_id));
        continue;
      }
    } else {
      const uint32_t crc = llvm::crc32(llvm::ArrayRef<uint8_t>(
          (*image)->bytes().data(), (*image)->bytes().size()));
      if (crc != query.debug_link->crc) {
        reject(path, absl::StrFormat("CRC32 %08x != %08x from .gnu_debuglink",
                                     crc, query.debug_link->crc));
        continue;
      }
      if (!query.build_id.empty() && !found_id.empty() &&
          found_id != query.build_id) {
        reject(path,
               absl::StrCat("build-id ", found_id, " != ", query.build_id));
        continue;
      }
    }
    return FoundDebugFile{path, std::move(*image)};
  }
  return std::nullopt;
}

}  // namespace hwt::symbolizer
