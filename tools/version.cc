// --version text of the tools; see version.h.
#include "tools/version.h"

#include <intel-pt.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/ocsd_if_version.h>

#include "absl/strings/str_format.h"
#include "llvm/Config/llvm-config.h"

#ifndef HWT_VERSION
#error "HWT_VERSION comes from project() in the top CMakeLists.txt"
#endif

namespace hwt::tools {
namespace {

// libipt's run-time version as it prints itself: MAJOR.MINOR.PATCH, then
// -BUILD and EXT when the library has them.
std::string LibiptRuntimeVersion() {
  const pt_version v = pt_library_version();
  std::string text = absl::StrFormat("%d.%d.%d", v.major, v.minor, v.patch);
  if (v.build != 0) absl::StrAppendFormat(&text, "-%d", v.build);
  if (v.ext != nullptr && v.ext[0] != '\0') text += v.ext;
  return text;
}

}  // namespace

const char* HwtVersion() { return HWT_VERSION; }

std::string VersionText(const std::string& tool) {
  std::string text = absl::StrFormat("%s %s\n", tool, HWT_VERSION);
  absl::StrAppendFormat(&text, "libipt %s (built with %d.%d.%d)\n",
                        LibiptRuntimeVersion(), LIBIPT_VERSION_MAJOR,
                        LIBIPT_VERSION_MINOR, LIBIPT_VERSION_PATCH);
  absl::StrAppendFormat(&text, "OpenCSD %s (built with %s)\n",
                        ocsd_get_version_str(), OCSD_VER_STRING);
  // libLLVM cannot report its own version at run time; its soname
  // (libLLVM.so.MAJOR.MINOR) pins the release it was built against.
  absl::StrAppendFormat(&text, "LLVM %s (built with)", LLVM_VERSION_STRING);
  return text;
}

}  // namespace hwt::tools
