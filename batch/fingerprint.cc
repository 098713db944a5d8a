// Input fingerprints; see fingerprint.h.
#include "batch/fingerprint.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/stable_hash.h"
#include "base/status_macros.h"
#include "pipeline/profile_saving.h"

namespace hwt::batch {
namespace {

bool IsManifest(const std::string& relative) {
  return relative == "manifest.json" || relative == "snapshot.ini";
}

absl::Status HashTree(const std::string& root, const std::string& relative,
                      bool verify, StableHasher& hasher) {
  const std::string path = relative.empty() ? root : root + "/" + relative;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(ErrnoMessage(path, "cannot stat", errno));
  }
  if (S_ISDIR(st.st_mode)) {
    HWT_ASSIGN_OR_RETURN(const std::vector<std::string> names,
                         SortedDirectoryNames(path));
    for (const std::string& name : names) {
      HWT_RETURN_IF_ERROR(
          HashTree(root, relative.empty() ? name : relative + "/" + name,
                   verify, hasher));
    }
    return absl::OkStatus();
  }
  hasher.Field(relative);
  hasher.Field(static_cast<uint64_t>(st.st_size));
  if (S_ISLNK(st.st_mode)) return absl::OkStatus();
  if (verify || IsManifest(relative)) {
    HWT_ASSIGN_OR_RETURN(uint64_t contents, StableHashFile(path));
    hasher.Field(contents);
  } else {
    hasher.Field(static_cast<uint64_t>(st.st_mtim.tv_sec));
    hasher.Field(static_cast<uint64_t>(st.st_mtim.tv_nsec));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> Fingerprint(const BatchInput& input,
                                        const std::string& analysis,
                                        bool verify) {
  StableHasher hasher;
  hasher.Field(pipeline::ToolVersion());
  hasher.Field(analysis);
  hasher.Field(input.path);
  HWT_RETURN_IF_ERROR(HashTree(input.path, "", verify, hasher));
  // Images given with --image are part of the input too.
  for (const capture::ImageSpec& image : input.options.images) {
    HWT_RETURN_IF_ERROR(HashTree(image.path, "", verify, hasher));
  }
  return absl::StrCat("fp1:", hasher.HexDigest());
}

}  // namespace hwt::batch
