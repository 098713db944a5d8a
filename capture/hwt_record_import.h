// The kernel's binary HWT records: arrays of `struct hwt_record_user_entry`
// as HWT_IOC_RECORD_GET copies them out (1056 bytes each, LP64 little-endian
// layout, docs/capture-format.md "The kernel's binary records"). A FreeBSD
// recorder can dump what the ioctl returned and turn it into Records here, in
// either kernel numbering of record_type.
//
// Layout: record_type (enum, 4 bytes) at 0; the union at 8:
//   MMAP/MUNMAP/EXECUTABLE/INTERP/KERNEL: fullpath char[1024] at 8,
//     addr uintptr_t at 1032, baseaddr uintptr_t at 1040
//   BUFFER: buf_id int at 8, curpage int at 12, offset vm_offset_t at 16
//   THREAD_CREATE/THREAD_SET_NAME: thread_id int at 8
#ifndef HWT_CAPTURE_HWT_RECORD_IMPORT_H_
#define HWT_CAPTURE_HWT_RECORD_IMPORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "capture/manifest.h"
#include "capture/record.h"

namespace hwt::capture {

inline constexpr size_t kHwtRecordUserEntrySize = 1056;
inline constexpr size_t kHwtRecordPathOffset = 8;
inline constexpr size_t kHwtRecordPathSize = 1024;
inline constexpr size_t kHwtRecordAddrOffset = 1032;
inline constexpr size_t kHwtRecordBaseAddrOffset = 1040;

// Parses a whole number of entries. Records get no positions (the recorder
// adds the buffer positions it saw). MMAP's baseaddr is not initialised by the
// kernel and is dropped. Errors name `where`, the entry and its byte offset.
absl::StatusOr<std::vector<Record>> ImportHwtRecordEntries(
    absl::Span<const uint8_t> bytes, RecordNumbering numbering,
    std::string_view where);

// One entry as the kernel lays it out (zero padded), for recorders that
// replay records and for tests. Fails when the type has no value in
// `numbering` or the path does not fit (1023 bytes at most).
absl::StatusOr<std::string> EncodeHwtRecordEntry(const Record& record,
                                                 RecordNumbering numbering);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_HWT_RECORD_IMPORT_H_
