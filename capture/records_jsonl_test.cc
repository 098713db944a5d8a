// Tests records.jsonl: round trip of every record type in both numberings, the
// hand-written line format, and errors that carry the line number.
#include "capture/records_jsonl.h"

#include "capture/testing/manifest_samples.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

using ::testing::HasSubstr;

Manifest WithNumbering(RecordNumbering numbering) {
  Manifest m = FullPtManifest();  // buffers 7, 8, 9
  m.record_numbering = numbering;
  return m;
}

TEST(RecordsJsonlTest, RoundTripsEveryTypeInBothNumberings) {
  for (RecordNumbering numbering :
       {RecordNumbering::kUpstream, RecordNumbering::kCheriBsd}) {
    Manifest manifest = WithNumbering(numbering);
    std::vector<Record> records = AllRecordTypes(numbering);
    std::string text = RecordsToJsonl(records, numbering);
    auto parsed = ParseRecordsJsonl(text, manifest, "r.jsonl");
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
    ExpectSameRecords(*parsed, records);
    EXPECT_TRUE(ValidateRecords(records, manifest, "r").ok());
  }
}

TEST(RecordsJsonlTest, LineFormat) {
  Record exec;
  exec.type = RecordType::kExecutable;
  exec.path = "/usr/bin/true";
  exec.addr = 0x555555554000;
  exec.baseaddr = 0x7ffff7fc3000;
  exec.positions = {{0, 0x1a2b0}};
  EXPECT_EQ(RecordToJsonLine(exec, RecordNumbering::kUpstream),
            R"({"type":"executable","kernel_type":2,"path":"/usr/bin/true",)"
            R"("addr":"0x555555554000","baseaddr":"0x7ffff7fc3000",)"
            R"("positions":[{"buffer":0,"offset":"0x1a2b0"}]})");
  Record kernel;
  kernel.type = RecordType::kKernel;
  kernel.path = "/boot/kernel/kernel";
  kernel.addr = 0xffffffff80200000;
  EXPECT_EQ(RecordToJsonLine(kernel, RecordNumbering::kUpstream),
            R"({"type":"kernel","kernel_type":3,"path":"/boot/kernel/kernel",)"
            R"("addr":"0xffffffff80200000","positions":[]})");
  EXPECT_EQ(RecordToJsonLine(kernel, RecordNumbering::kCheriBsd),
            R"({"type":"kernel","kernel_type":6,"path":"/boot/kernel/kernel",)"
            R"("addr":"0xffffffff80200000","positions":[]})");
  Record buffer;
  buffer.type = RecordType::kBuffer;
  buffer.buf_id = 1;
  buffer.curpage = 2;
  buffer.buf_offset = 0x10;
  EXPECT_EQ(RecordToJsonLine(buffer, RecordNumbering::kUpstream),
            R"({"type":"buffer","kernel_type":6,"buf_id":1,"curpage":2,)"
            R"("buf_offset":"0x10","positions":[]})");
}

TEST(RecordsJsonlTest, KernelTypeAloneUsesTheManifestNumbering) {
  std::string text =
      R"({"kernel_type":3,"path":"/libexec/ld-elf.so.1","addr":"0x1000"})"
      "\n";
  auto cheri = ParseRecordsJsonl(
      text, WithNumbering(RecordNumbering::kCheriBsd), "r.jsonl");
  ASSERT_TRUE(cheri.ok()) << cheri.status();
  EXPECT_EQ((*cheri)[0].type, RecordType::kInterp);
  auto upstream = ParseRecordsJsonl(
      text, WithNumbering(RecordNumbering::kUpstream), "r.jsonl");
  ASSERT_TRUE(upstream.ok()) << upstream.status();
  EXPECT_EQ((*upstream)[0].type, RecordType::kKernel);
}

TEST(RecordsJsonlTest, BlankLinesAreSkippedAndCounted) {
  std::string text =
      "\n"
      R"({"type":"munmap"})"
      "\n\n"
      R"({"type":"thread_create","thread_id":1})"
      "\n";
  auto parsed = ParseRecordsJsonl(
      text, WithNumbering(RecordNumbering::kUpstream), "r.jsonl");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->size(), 2u);
}

struct BadLine {
  const char* line;
  const char* error;  // after "r.jsonl:3: "
};

TEST(RecordsJsonlTest, ErrorsNameTheLine) {
  const BadLine cases[] = {
      {R"({"type":"mmap","path":"/x","addr":"0x1000")", "not valid JSON: "},
      // A number no double can hold made the JSON parser throw.
      {R"({"type":"mmap","path":"/x","addr":1e400})",
       "not valid JSON: number overflow parsing '1e400'"},
      {R"(["mmap"])", "expected a JSON object, got [\"mmap\"]"},
      {R"({"type":"sample"})", "type: unknown record type \"sample\""},
      {R"({"path":"/x"})",
       "type: missing required field (give type or kernel_type)"},
      {R"({"type":"mmap","addr":"0x1000"})", "path: missing required field"},
      {R"({"type":"mmap","path":"/x","addr":-4096})",
       "addr: expected an unsigned integer, got -4096"},
      {R"({"type":"mmap","path":"/x","addr":"0xg"})",
       "addr: expected an unsigned integer or a \"0x...\" hex string of 1 to "
       "16 digits, got \"0xg\""},
      {R"({"type":"thread_create"})", "thread_id: missing required field"},
      {R"({"type":"thread_create","thread_id":-1})",
       "thread_id: expected a non-negative integer, got -1"},
      {R"({"type":"buffer","buf_id":0,"curpage":1})",
       "buf_offset: missing required field"},
      {R"({"type":"mmap","kernel_type":2,"path":"/x"})",
       "kernel_type: 2 is \"executable\" in the upstream numbering, but type "
       "says \"mmap\""},
      {R"({"kernel_type":7,"path":"/x"})",
       "kernel_type: 7 is not a record type in the upstream numbering"},
      {R"({"type":"interp","path":"/x"})",
       "type: \"interp\" records do not exist in the upstream numbering (see "
       "the manifest's record_numbering)"},
      {R"({"type":"munmap","positions":{"buffer":7}})",
       "positions: expected an array, got {\"buffer\":7}"},
      {R"({"type":"munmap","positions":[{"offset":"0x0"}]})",
       "positions[0].buffer: missing required field"},
      {R"({"type":"munmap","positions":[{"buffer":1,"offset":"0x0"}]})",
       "positions[0].buffer: no buffer with id 1 in the manifest"},
      {R"({"type":"munmap","positions":[{"buffer":7,"offset":0},{"buffer":7,"offset":1}]})",
       "positions[1].buffer: buffer 7 is listed twice"},
      {R"({"type":"munmap","positions":[{"buffer":7,"offset":"0x1000000001"}]})",
       "positions[0].offset: 0x1000000001 is past the end of buffer 7 (size "
       "0x1000000000)"},
  };
  const Manifest manifest = WithNumbering(RecordNumbering::kUpstream);
  for (const BadLine& c : cases) {
    std::string text = std::string(R"({"type":"munmap"})") + "\n" +
                       R"({"type":"thread_create","thread_id":0})" + "\n" +
                       c.line + "\n" + R"({"type":"munmap"})" + "\n";
    auto parsed = ParseRecordsJsonl(text, manifest, "r.jsonl");
    ASSERT_FALSE(parsed.ok()) << c.line;
    std::string message(parsed.status().message());
    EXPECT_EQ(message.rfind(std::string("r.jsonl:3: ") + c.error, 0), 0u)
        << "got: " << message << "\nwant prefix: r.jsonl:3: " << c.error;
  }
}

TEST(RecordsJsonlTest, ValidateRecordsNamesTheRecord) {
  std::vector<Record> records = AllRecordTypes(RecordNumbering::kUpstream);
  records[2].positions.push_back({42, 0});
  absl::Status status = ValidateRecords(
      records, WithNumbering(RecordNumbering::kUpstream), "x/records.jsonl");
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("x/records.jsonl: record 2: positions[2].buffer: no "
                        "buffer with id 42"));
}

}  // namespace
}  // namespace hwt::capture
