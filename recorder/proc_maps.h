// /proc/PID/maps and /proc/PID/auxv of a traced process, and the mapping
// events (MMAP/MUNMAP, as FreeBSD's HWT would report them) implied by a
// change of its executable file mappings.
#ifndef HWT_RECORDER_PROC_MAPS_H_
#define HWT_RECORDER_PROC_MAPS_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "recorder/execution.h"

namespace hwt::recorder {

struct ProcMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string perms;  // "r-xp"
  uint64_t offset = 0;
  uint64_t inode = 0;
  std::string path;  // file, "[vdso]", "[stack]", or empty

  bool executable() const { return perms.size() > 2 && perms[2] == 'x'; }
  // Backed by a regular file (not anonymous memory or a [pseudo] mapping).
  bool file_backed() const {
    return inode != 0 && !path.empty() && path[0] == '/';
  }
};

// Parses the text of /proc/PID/maps; malformed lines are errors naming the
// line.
absl::StatusOr<std::vector<ProcMapping>> ParseProcMaps(std::string_view text);
absl::StatusOr<std::vector<ProcMapping>> ReadProcMaps(pid_t pid);

// The auxiliary vector (/proc/PID/auxv) as (type, value) pairs, in order,
// without the terminating AT_NULL.
absl::StatusOr<std::vector<std::pair<uint64_t, uint64_t>>> ReadProcAuxv(
    pid_t pid);

// The MMAP and MUNMAP events that turn the executable file mappings of
// `before` into those of `after`: an executable file mapping that appears
// gives MMAP (addr = its start) when it holds the image's first executable
// PT_LOAD (the one mapping events are anchored to; others belong to the same
// image instance), one that disappears gives MUNMAP (addr = its start: the
// kernel's record loses it, ours keeps it). Ranges that are merely split or
// merged give nothing. `first_exec_offset` returns, for a file, the
// page-aligned file offset of its first executable PT_LOAD (or nullopt when
// it cannot tell: every appearing mapping is then reported).
std::vector<MappingEvent> DiffExecutableMappings(
    const std::vector<ProcMapping>& before,
    const std::vector<ProcMapping>& after,
    const std::function<std::optional<uint64_t>(const std::string&)>&
        first_exec_offset);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_PROC_MAPS_H_
