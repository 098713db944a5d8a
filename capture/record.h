// HWT records (struct hwt_record_user_entry) as a capture stores them: in the
// order userland read them, each with the buffer write positions known when it
// was read (records carry no timestamp; positions are the only ordering
// against the trace). Both kernel numberings of record_type are understood.
// Captures imported from Linux perf.data add perf's sideband (COMM, FORK,
// EXIT, SWITCH, AUX, ...) as records of their own types, in timestamp order,
// with the fields HWT records lack (pid/tid, time, cpu, build-id, pgoff).
#ifndef HWT_CAPTURE_RECORD_H_
#define HWT_CAPTURE_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/manifest.h"

namespace hwt::capture {

enum class RecordType {
  kMmap,           // executable vnode mapping: path, addr = mapping start
                   // (perf MMAP2: value = PROT_* << 32 | MAP_*)
  kMunmap,         // kernel copy-out loses the address (addr 0 = unknown)
  kExecutable,     // exec: path, addr = PIE load bias, baseaddr = rtld base
  kInterp,         // CheriBSD-era trees only: the interpreter
  kKernel,         // kernel object: path, addr = load address (CPU mode)
  kThreadCreate,   // thread_id = HWT thread index
  kThreadSetName,  // thread_id
  kBuffer,         // buf_id, curpage, offset
  // Linux perf sideband (perf.data imports; no HWT kernel value):
  kComm,           // path = thread name; flags & kRecordFlagExec: an exec
  kFork,           // pid/tid, other_pid/other_tid = parent
  kExit,           // pid/tid, other_pid/other_tid = parent
  kSwitch,         // flags: out, preempt, cpu-wide; other_* = next/prev task
  kAux,            // addr = AUX offset, value = size, flags = PERF_AUX_FLAG_*
  kLost,           // value = records lost
  kItraceStart,    // pid/tid: tracing started for that task
  kAuxtraceError,  // path = message, value = code, flags = type, addr = ip
  kAuxOutputHwId,  // value = hardware id (CoreSight trace ID) for `cpu`
};

// Record::flags bits.
inline constexpr uint32_t kRecordFlagExec = 1;        // kComm
inline constexpr uint32_t kRecordFlagSwitchOut = 1;   // kSwitch
inline constexpr uint32_t kRecordFlagPreempt = 2;     // kSwitch
inline constexpr uint32_t kRecordFlagCpuWide = 4;     // kSwitch
inline constexpr uint32_t kRecordFlagExecutable = 1;  // kMmap (perf): PROT_EXEC
inline constexpr uint32_t kRecordFlagData = 2;        // kMmap (perf): data map
inline constexpr uint32_t kRecordFlagMmap2 = 4;       // kMmap/kKernel: MMAP2

// Whether a type is one of perf's sideband types (no HWT kernel value).
bool IsPerfRecordType(RecordType type);

std::string_view RecordTypeName(RecordType type);  // "mmap", "executable", ..
std::optional<RecordType> ParseRecordTypeName(std::string_view name);
// Kernel record_type value -> type, per numbering; nullopt when unknown.
std::optional<RecordType> RecordTypeFromKernel(uint32_t value,
                                               RecordNumbering numbering);
std::optional<uint32_t> KernelValue(RecordType type, RecordNumbering numbering);

// Where a buffer's writer was when userland read a record.
struct BufferPosition {
  uint32_t buffer_id = 0;
  uint64_t offset = 0;  // byte offset in the buffer's raw file
};

struct Record {
  RecordType type = RecordType::kMmap;
  std::string path;         // MMAP / EXECUTABLE / KERNEL / INTERP
  uint64_t addr = 0;        // see RecordType
  uint64_t baseaddr = 0;    // EXECUTABLE: rtld base
  int32_t thread_id = 0;    // THREAD_CREATE / THREAD_SET_NAME
  int32_t buf_id = 0;       // BUFFER
  int32_t curpage = 0;      // BUFFER
  uint64_t buf_offset = 0;  // BUFFER: offset in page
  std::vector<BufferPosition> positions;

  // Fields of perf sideband (unset/zero for HWT records). MMAP and KERNEL
  // records imported from perf.data carry the exact mapping: `addr` maps
  // file offset `pgoff` and `length` bytes follow; `build_id` names the file.
  std::optional<int32_t> pid;
  std::optional<int32_t> tid;
  std::optional<uint64_t> time;  // perf clock, nanoseconds
  std::optional<int32_t> cpu;
  std::optional<uint64_t> pgoff;
  uint64_t length = 0;
  std::string build_id;  // lowercase hex
  uint32_t flags = 0;    // kRecordFlag*
  uint64_t value = 0;    // see RecordType
  std::optional<int32_t> other_pid;
  std::optional<int32_t> other_tid;
};

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_RECORD_H_
