// Finds the separate debug file of an image the way GDB and the distributions
// lay them out: by build-id under the debug roots, then by .gnu_debuglink
// next to the image and under the debug roots. A candidate is accepted only
// if it is an ELF file whose build-id (build-id lookup) or CRC32 (debuglink
// lookup) matches, so stale or foreign files are skipped.
#ifndef HWT_SYMBOLIZER_DEBUG_FILE_FINDER_H_
#define HWT_SYMBOLIZER_DEBUG_FILE_FINDER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symbolizer/elf_image.h"

namespace hwt::symbolizer {

struct DebugFileQuery {
  std::string image_file;    // the image on this machine
  std::string display_path;  // the image's path on the traced system
  std::string build_id;      // lowercase hex, may be empty
  std::optional<ElfDebugLink> debug_link;
};

struct DebugSearchPaths {
  std::string sysroot;                  // empty = "/"
  std::vector<std::string> debug_dirs;  // extra roots, not under sysroot
};

// The paths tried, in order:
//   ROOT/.build-id/xx/rest.debug          for each debug root
//   ROOT/DIR/LINK                         for each debug root and image dir
//   IMAGEDIR/.debug/LINK, IMAGEDIR/LINK   for each image dir
//   ROOT/LINK                             for each extra debug dir
// where the debug roots are SYSROOT/usr/lib/debug then debug_dirs, DIR is the
// image's directory on the traced system (and on this machine), and the
// image dirs are the directory of image_file and, with a sysroot,
// SYSROOT/dirname(display_path).
std::vector<std::string> DebugFileCandidates(const DebugFileQuery& query,
                                             const DebugSearchPaths& paths);

struct FoundDebugFile {
  std::string path;
  std::unique_ptr<ElfImage> image;
};

// The first acceptable candidate, or nullopt. `rejected` (optional) collects
// "PATH: reason" for candidates that exist but were not accepted.
std::optional<FoundDebugFile> FindDebugFile(
    const DebugFileQuery& query, const DebugSearchPaths& paths,
    std::vector<std::string>* rejected = nullptr);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_DEBUG_FILE_FINDER_H_
