// hwt-decode on an SPE trace: --packets and --stats, which go through the
// shared decoder (CreateDecoder), print byte for byte what SPE's record
// decoder gives (perf-style packet lines; SPE's own statistics, text and
// JSON), --records lists the records, and skipped bytes exit 1.
#include <string>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/capture.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/testing/counted_samples.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/spe/spe_stats_report.h"

namespace hwt {
namespace {

using ::testing::HasSubstr;
using testing::RunCommand;
using testing::ToolPath;

// The listing lines as hwt-decode prints them for one buffer.
class ListingLines : public PacketSink {
 public:
  void OnPacket(uint32_t, uint64_t offset, std::string_view text) override {
    lines += spe::FormatListingLine(offset, text) + "\n";
  }
  std::string lines;
};

class NoRecords : public spe::RecordSink {
 public:
  void OnRecords(uint32_t, absl::Span<const spe::Record>) override {}
};

TEST(HwtDecodeSpeTest, PacketsAndStatsAreTheRecordDecoders) {
  auto dir = TempDir::Create("hwt-decode-spe-test");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string path = dir->path() + "/trace.spe";
  const std::string trace = spe::testing::CountedSamplesTrace() +
                            std::string("\xff\xff", 2) +
                            spe::testing::CountedSamplesTrace();
  ASSERT_TRUE(WriteFileAtomically(path, trace).ok());
  capture::InputOptions options;
  options.backend = capture::Backend::kSpe;
  auto capture = capture::OpenCapture(path, options);
  ASSERT_TRUE(capture.ok()) << capture.status();

  ListingLines listing;
  ASSERT_TRUE(spe::ListCapturePackets(**capture, listing).ok());
  NoRecords no_records;
  auto stats = spe::DecodeCapture(**capture, no_records);
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->total.bytes_skipped, 2u);

  const std::string tool = ToolPath("hwt-decode");
  auto packets = RunCommand({tool, "--packets", "--backend", "spe", path});
  EXPECT_EQ(packets.exit_code, 1);
  EXPECT_EQ(packets.out, listing.lines);
  EXPECT_THAT(packets.err, HasSubstr("2 bytes were not valid SPE packets"));

  auto text = RunCommand({tool, "--stats", "--backend", "spe", path});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.out, report::FormatSpeStatsText(*stats));
  auto json = RunCommand(
      {tool, "--stats", "--format", "json", "--backend", "spe", path});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(json.out, report::FormatSpeStatsJson(*stats));

  auto records = RunCommand({tool, "--records", "--backend", "spe", path});
  EXPECT_EQ(records.exit_code, 1);
  EXPECT_THAT(records.out, HasSubstr("[0] 0x00000000 pc=0x401050"));

  // Control-flow listings are refused.
  auto insn = RunCommand({tool, "--insn", "--backend", "spe", path});
  EXPECT_EQ(insn.exit_code, 2);
  EXPECT_THAT(insn.err, HasSubstr("--records, --packets or --stats"));
}

}  // namespace
}  // namespace hwt
