// Decoding and encoding of struct hwt_record_user_entry; see
// hwt_record_import.h.
#include "capture/hwt_record_import.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capture/manifest_json.h"

namespace hwt::capture {
namespace {

constexpr size_t kBufIdOffset = 8;
constexpr size_t kCurpageOffset = 12;
constexpr size_t kBufOffsetOffset = 16;
constexpr size_t kThreadIdOffset = 8;

uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}
uint64_t LoadU64(const uint8_t* p) {
  return static_cast<uint64_t>(LoadU32(p)) |
         static_cast<uint64_t>(LoadU32(p + 4)) << 32;
}
void StoreU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void StoreU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

bool CarriesPath(RecordType type) {
  return type == RecordType::kMmap || type == RecordType::kMunmap ||
         type == RecordType::kExecutable || type == RecordType::kInterp ||
         type == RecordType::kKernel;
}

}  // namespace

absl::StatusOr<std::vector<Record>> ImportHwtRecordEntries(
    absl::Span<const uint8_t> bytes, RecordNumbering numbering,
    std::string_view where) {
  if (bytes.size() % kHwtRecordUserEntrySize != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %u bytes is not a whole number of %u-byte hwt_record_user_entry "
        "records",
        where, bytes.size(), kHwtRecordUserEntrySize));
  }
  std::vector<Record> records;
  records.reserve(bytes.size() / kHwtRecordUserEntrySize);
  for (size_t offset = 0; offset < bytes.size();
       offset += kHwtRecordUserEntrySize) {
    const uint8_t* entry = bytes.data() + offset;
    const size_t index = offset / kHwtRecordUserEntrySize;
    const uint32_t raw_type = LoadU32(entry);
    std::optional<RecordType> type = RecordTypeFromKernel(raw_type, numbering);
    if (!type) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: entry %u (offset 0x%x): record_type %u is not a record type in "
          "the %s numbering",
          where, index, offset, raw_type, RecordNumberingName(numbering)));
    }
    Record record;
    record.type = *type;
    if (CarriesPath(record.type)) {
      const char* path =
          reinterpret_cast<const char*>(entry + kHwtRecordPathOffset);
      const void* nul = memchr(path, '\0', kHwtRecordPathSize);
      if (nul == nullptr) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: entry %u (offset 0x%x): fullpath is not NUL-terminated", where,
            index, offset));
      }
      record.path.assign(path, static_cast<const char*>(nul) - path);
      record.addr = LoadU64(entry + kHwtRecordAddrOffset);
      // Only EXECUTABLE (and the older INTERP) set baseaddr; for the others
      // the kernel leaves it uninitialised.
      if (record.type == RecordType::kExecutable ||
          record.type == RecordType::kInterp) {
        record.baseaddr = LoadU64(entry + kHwtRecordBaseAddrOffset);
      }
    } else if (record.type == RecordType::kBuffer) {
      record.buf_id = static_cast<int32_t>(LoadU32(entry + kBufIdOffset));
      record.curpage = static_cast<int32_t>(LoadU32(entry + kCurpageOffset));
      record.buf_offset = LoadU64(entry + kBufOffsetOffset);
    } else {
      record.thread_id = static_cast<int32_t>(LoadU32(entry + kThreadIdOffset));
    }
    records.push_back(std::move(record));
  }
  return records;
}

absl::StatusOr<std::string> EncodeHwtRecordEntry(const Record& record,
                                                 RecordNumbering numbering) {
  std::optional<uint32_t> raw_type = KernelValue(record.type, numbering);
  if (!raw_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", std::string(RecordTypeName(record.type)),
        "\" records do not exist in the ",
        std::string(RecordNumberingName(numbering)), " numbering"));
  }
  std::string entry(kHwtRecordUserEntrySize, '\0');
  StoreU32(entry.data(), *raw_type);
  if (CarriesPath(record.type)) {
    if (record.path.size() >= kHwtRecordPathSize ||
        record.path.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("path of ", record.path.size(),
                       " bytes does not fit the kernel's 1024-byte fullpath"));
    }
    memcpy(entry.data() + kHwtRecordPathOffset, record.path.data(),
           record.path.size());
    StoreU64(entry.data() + kHwtRecordAddrOffset, record.addr);
    StoreU64(entry.data() + kHwtRecordBaseAddrOffset, record.baseaddr);
  } else if (record.type == RecordType::kBuffer) {
    StoreU32(entry.data() + kBufIdOffset, static_cast<uint32_t>(record.buf_id));
    StoreU32(entry.data() + kCurpageOffset,
             static_cast<uint32_t>(record.curpage));
    StoreU64(entry.data() + kBufOffsetOffset, record.buf_offset);
  } else {
    StoreU32(entry.data() + kThreadIdOffset,
             static_cast<uint32_t>(record.thread_id));
  }
  return entry;
}

}  // namespace hwt::capture
