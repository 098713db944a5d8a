// Tests the import of struct hwt_record_user_entry arrays against entries laid
// out byte by byte from the ABI description (reference/hwt-abi.md), in both
// kernel numberings.
#include "capture/hwt_record_import.h"

#include <cstring>
#include <vector>

#include "capture/testing/manifest_samples.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

// A 1056-byte entry: record_type at 0, the union at 8.
class Entry {
 public:
  explicit Entry(uint32_t type) : bytes_(1056, 0) { Put32(0, type); }
  Entry& Path(const std::string& path) {
    memcpy(bytes_.data() + 8, path.data(), path.size());
    return *this;
  }
  Entry& Put32(size_t offset, uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_[offset + i] = uint8_t(v >> (8 * i));
    return *this;
  }
  Entry& Put64(size_t offset, uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_[offset + i] = uint8_t(v >> (8 * i));
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

std::vector<uint8_t> Concat(const std::vector<Entry>& entries) {
  std::vector<uint8_t> out;
  for (const Entry& e : entries) {
    out.insert(out.end(), e.bytes().begin(), e.bytes().end());
  }
  return out;
}

TEST(HwtRecordImportTest, UpstreamNumbering) {
  std::vector<uint8_t> bytes = Concat({
      Entry(2)  // EXECUTABLE
          .Path("/usr/bin/true")
          .Put64(1032, 0x555555554000)
          .Put64(1040, 0x7ffff7fc3000),
      Entry(0)  // MMAP: baseaddr is garbage the kernel never set
          .Path("/lib/libc.so.7")
          .Put64(1032, 0x800200000)
          .Put64(1040, 0xdeadbeefdeadbeef),
      Entry(1),  // MUNMAP: zeroed union
      Entry(3).Path("/boot/kernel/kernel").Put64(1032, 0xffffffff80200000),
      Entry(4).Put32(8, 5),                                 // THREAD_CREATE
      Entry(5).Put32(8, 6),                                 // THREAD_SET_NAME
      Entry(6).Put32(8, 2).Put32(12, 17).Put64(16, 0xff8),  // BUFFER
  });
  auto records =
      ImportHwtRecordEntries(bytes, RecordNumbering::kUpstream, "rec.bin");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 7u);
  const auto& r = *records;
  EXPECT_EQ(r[0].type, RecordType::kExecutable);
  EXPECT_EQ(r[0].path, "/usr/bin/true");
  EXPECT_EQ(r[0].addr, 0x555555554000u);
  EXPECT_EQ(r[0].baseaddr, 0x7ffff7fc3000u);
  EXPECT_EQ(r[1].type, RecordType::kMmap);
  EXPECT_EQ(r[1].path, "/lib/libc.so.7");
  EXPECT_EQ(r[1].addr, 0x800200000u);
  EXPECT_EQ(r[1].baseaddr, 0u);
  EXPECT_EQ(r[2].type, RecordType::kMunmap);
  EXPECT_EQ(r[2].addr, 0u);
  EXPECT_EQ(r[2].path, "");
  EXPECT_EQ(r[3].type, RecordType::kKernel);
  EXPECT_EQ(r[3].addr, 0xffffffff80200000u);
  EXPECT_EQ(r[4].type, RecordType::kThreadCreate);
  EXPECT_EQ(r[4].thread_id, 5);
  EXPECT_EQ(r[5].type, RecordType::kThreadSetName);
  EXPECT_EQ(r[5].thread_id, 6);
  EXPECT_EQ(r[6].type, RecordType::kBuffer);
  EXPECT_EQ(r[6].buf_id, 2);
  EXPECT_EQ(r[6].curpage, 17);
  EXPECT_EQ(r[6].buf_offset, 0xff8u);
  for (const Record& record : r) EXPECT_TRUE(record.positions.empty());
}

TEST(HwtRecordImportTest, CheriBsdNumbering) {
  std::vector<uint8_t> bytes = Concat({
      Entry(3).Path("/libexec/ld-elf.so.1").Put64(1032, 0x7ffff7fc3000),
      Entry(6).Path("/boot/kernel/kernel").Put64(1032, 0xffffffff80200000),
      Entry(4).Put32(8, 1),
  });
  auto records =
      ImportHwtRecordEntries(bytes, RecordNumbering::kCheriBsd, "rec.bin");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[0].type, RecordType::kInterp);
  EXPECT_EQ((*records)[0].path, "/libexec/ld-elf.so.1");
  EXPECT_EQ((*records)[1].type, RecordType::kKernel);
  EXPECT_EQ((*records)[1].addr, 0xffffffff80200000u);
  EXPECT_EQ((*records)[2].type, RecordType::kThreadCreate);
}

TEST(HwtRecordImportTest, FullLengthPath) {
  std::string path = "/" + std::string(1022, 'p');  // 1023 bytes + NUL
  auto records = ImportHwtRecordEntries(Entry(0).Path(path).bytes(),
                                        RecordNumbering::kUpstream, "r");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ((*records)[0].path, path);
}

TEST(HwtRecordImportTest, Errors) {
  std::vector<uint8_t> partial(1000, 0);
  EXPECT_EQ(ImportHwtRecordEntries(partial, RecordNumbering::kUpstream, "r.bin")
                .status()
                .message(),
            "r.bin: 1000 bytes is not a whole number of 1056-byte "
            "hwt_record_user_entry records");
  std::vector<uint8_t> bad = Concat({Entry(4), Entry(7)});
  EXPECT_EQ(ImportHwtRecordEntries(bad, RecordNumbering::kUpstream, "r.bin")
                .status()
                .message(),
            "r.bin: entry 1 (offset 0x420): record_type 7 is not a record "
            "type in the upstream numbering");
  Entry unterminated(0);
  unterminated.Path(std::string(1024, 'x'));
  EXPECT_EQ(ImportHwtRecordEntries(unterminated.bytes(),
                                   RecordNumbering::kUpstream, "r.bin")
                .status()
                .message(),
            "r.bin: entry 0 (offset 0x0): fullpath is not NUL-terminated");
}

TEST(HwtRecordImportTest, EncodeMatchesTheLayoutAndRoundTrips) {
  for (RecordNumbering numbering :
       {RecordNumbering::kUpstream, RecordNumbering::kCheriBsd}) {
    std::vector<Record> records = AllRecordTypes(numbering);
    std::string bytes;
    for (Record& record : records) {
      record.positions.clear();  // not part of the kernel's entry
      if (record.type != RecordType::kExecutable &&
          record.type != RecordType::kInterp) {
        record.baseaddr = 0;
      }
      auto entry = EncodeHwtRecordEntry(record, numbering);
      ASSERT_TRUE(entry.ok()) << entry.status();
      ASSERT_EQ(entry->size(), kHwtRecordUserEntrySize);
      bytes += *entry;
    }
    auto decoded = ImportHwtRecordEntries(
        absl::Span<const uint8_t>(
            reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
        numbering, "r");
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    ExpectSameRecords(*decoded, records);
  }
  // The encoder writes the same bytes the hand-built entry has.
  Record exec;
  exec.type = RecordType::kExecutable;
  exec.path = "/usr/bin/true";
  exec.addr = 0x555555554000;
  exec.baseaddr = 0x7ffff7fc3000;
  auto entry = EncodeHwtRecordEntry(exec, RecordNumbering::kUpstream);
  ASSERT_TRUE(entry.ok());
  std::vector<uint8_t> expected = Entry(2)
                                      .Path("/usr/bin/true")
                                      .Put64(1032, 0x555555554000)
                                      .Put64(1040, 0x7ffff7fc3000)
                                      .bytes();
  EXPECT_EQ(std::vector<uint8_t>(entry->begin(), entry->end()), expected);
  Record buffer;
  buffer.type = RecordType::kBuffer;
  EXPECT_FALSE(EncodeHwtRecordEntry(buffer, RecordNumbering::kCheriBsd).ok());
  Record long_path;
  long_path.type = RecordType::kMmap;
  long_path.path = std::string(1024, 'x');
  EXPECT_FALSE(
      EncodeHwtRecordEntry(long_path, RecordNumbering::kUpstream).ok());
}

}  // namespace
}  // namespace hwt::capture
