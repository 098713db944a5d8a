// HWT records (struct hwt_record_user_entry) as a capture stores them: in the
// order userland read them, each with the buffer write positions known when it
// was read (records carry no timestamp; positions are the only ordering
// against the trace). Both kernel numberings of record_type are understood.
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
  kMunmap,         // kernel copy-out loses the address (addr 0 = unknown)
  kExecutable,     // exec: path, addr = PIE load bias, baseaddr = rtld base
  kInterp,         // CheriBSD-era trees only: the interpreter
  kKernel,         // kernel object: path, addr = load address (CPU mode)
  kThreadCreate,   // thread_id = HWT thread index
  kThreadSetName,  // thread_id
  kBuffer,         // buf_id, curpage, offset
};

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
};

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_RECORD_H_
