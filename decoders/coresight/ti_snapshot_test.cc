// The TI AM243x Cortex-R5F ETMv3.5 snapshots of the corpus
// (ti-am243x-etm3/): hand-made, their cpu_0.ini names the firmware's ELF
// *file* as a memory dump at 0x0. We load such a dump by its segments (with
// a warning saying so): the FreeRTOS capture must then decode exactly as
// Debian's trc_pkt_lister (the OpenCSD we link) decodes a corrected copy of
// the snapshot, whose dumps are the ELF's executable segments at their
// addresses, written here from the ELF.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/address_space.h"
#include "capture/elf_file.h"
#include "capture/opencsd_snapshot.h"
#include "decoders/coresight/instr_range.h"
#include "decoders/coresight/testing/snapshot_decode.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr uint32_t kTraceId = 0x10;  // ETMTRACEIDR of the snapshots

// A copy of `dir` whose cpu_0.ini dumps the ELF's executable segments (as
// raw files) at their addresses instead of the ELF file at 0x0.
std::string CorrectedSnapshot(const std::string& dir, const std::string& elf,
                              const std::string& into) {
  fs::create_directories(into + "/files");
  for (const char* f : {"snapshot.ini", "trace.ini", "device_6.ini"}) {
    fs::copy_file(dir + "/" + f, into + "/" + f);
  }
  fs::copy_file(dir + "/files/freertos.data", into + "/files/freertos.data");
  auto info = capture::ReadElfFile(dir + "/files/" + elf);
  EXPECT_TRUE(info.ok()) << info.status();
  auto bytes = ReadFileToString(dir + "/files/" + elf);
  EXPECT_TRUE(bytes.ok());
  auto cpu = ReadFileToString(dir + "/cpu_0.ini");
  EXPECT_TRUE(cpu.ok());
  std::string ini = cpu->substr(0, cpu->find("[dump1]"));
  int n = 0;
  for (const capture::ElfSegment& s : info->segments) {
    if (s.type != 1 || !s.executable() || s.filesz == 0) continue;
    const std::string file = absl::StrCat("files/seg", ++n, ".bin");
    EXPECT_TRUE(WriteFileAtomically(into + "/" + file,
                                    bytes->substr(s.offset, s.filesz))
                    .ok());
    absl::StrAppendFormat(&ini, "[dump%d]\nfile=%s\naddress=0x%x\n\n", n, file,
                          s.vaddr);
  }
  EXPECT_GT(n, 0);
  EXPECT_TRUE(WriteFileAtomically(into + "/cpu_0.ini", ini).ok());
  return into;
}

// Our ranges of trace ID 0x10 as the lister prints them ("Idx:N; TEXT").
std::vector<std::string> OurRangeLines(const testing::Decoded& decoded) {
  std::vector<std::string> out;
  const int stream = decoded.StreamOf(kTraceId);
  if (stream < 0) return out;
  for (const Event& e : decoded.Blocks(stream)) {
    std::string line = FormatInstrRangeLine(kTraceId, e);
    const size_t id_at = line.find("; ID:");
    const size_t text = line.find("; ", id_at + 5);
    out.push_back(line.substr(0, id_at) + "; " + line.substr(text + 2));
  }
  return out;
}

TEST(TiSnapshotTest, FreeRtosDecodesAsTheListerDecodesTheCorrectedSnapshot) {
  HWT_REQUIRE_CORPUS(corpus);
  HWT_REQUIRE_TOOL("trc_pkt_lister");
  const std::string dir = corpus + "/ti-am243x-etm3/freertos";
  auto tmp = TempDir::Create("hwt-ti-snapshot");
  ASSERT_TRUE(tmp.ok());
  const std::string fixed =
      CorrectedSnapshot(dir, "freertos.out", tmp->path() + "/freertos");
  const testing::Listing lister = testing::ReadListing(absl::StrFormat(
      "trc_pkt_lister -ss_dir %s -decode -logstdout -logfilename /dev/null "
      "2>/dev/null",
      fixed));
  const std::vector<std::string>& want = lister.range_lines.at(kTraceId);
  ASSERT_GT(want.size(), 100000u);
  EXPECT_EQ(lister.nacc.count(kTraceId) ? lister.nacc.at(kTraceId) : 0, 0u);

  // The snapshot as it is: the ELF file at 0x0, loaded by its segments.
  auto decoded = testing::DecodeSnapshot(dir);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  bool warned = false;
  for (const std::string& w : (*decoded)->timeline.warnings()) {
    warned |= absl::StrContains(w, "files/freertos.out at 0x0 is an ELF file");
  }
  EXPECT_TRUE(warned);
  const std::vector<std::string> got = OurRangeLines(**decoded);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << "range " << i;
  }
  const int stream = (*decoded)->StreamOf(kTraceId);
  const StreamStats& stats = (*decoded)->decoder->stats()[stream];
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(stats.bytes_lost, 0u);

  // The corrected copy decodes the same with us too.
  auto corrected = testing::DecodeSnapshot(fixed);
  ASSERT_TRUE(corrected.ok()) << corrected.status();
  EXPECT_EQ(OurRangeLines(**corrected), got);

  // With --image ELF, the corrected copy's raw dumps are named by the ELF:
  // the code at the firmware's text is the ELF's (the same bytes: no
  // warning that they differ), so reports get its symbols.
  capture::InputOptions options;
  options.images.push_back({dir + "/files/freertos.out", 0, false});
  auto with_image = capture::OpenOpenCsdSnapshot(fixed, options);
  ASSERT_TRUE(with_image.ok()) << with_image.status();
  auto timeline = capture::BuildAddressSpaceTimeline(**with_image);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  const uint64_t text = 0x700ace42;  // the first I_SYNC address
  uint32_t newest = UINT32_MAX;
  for (uint32_t r : timeline->RegionsAt(0, 0)) {
    const capture::Region& region = timeline->regions()[r];
    if (text >= region.start && text < region.end &&
        (newest == UINT32_MAX || r > newest)) {
      newest = r;
    }
  }
  ASSERT_NE(newest, UINT32_MAX);
  const capture::Image& named =
      timeline->images()[timeline->regions()[newest].image];
  EXPECT_TRUE(named.is_elf);
  EXPECT_THAT(named.file, HasSubstr("freertos.out"));
  for (const std::string& w : timeline->warnings()) {
    EXPECT_THAT(w, ::testing::Not(HasSubstr("differ"))) << w;
  }
  auto again = testing::DecodeCapture(std::move(*with_image), {});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(OurRangeLines(**again), got);
}

// The Zephyr capture's buffer does not demultiplex cleanly (the reference
// listing has packet errors too): a decode that reports its errors with
// offsets and the bytes it lost, not a failure.
TEST(TiSnapshotTest, ZephyrReportsItsErrors) {
  HWT_REQUIRE_CORPUS(corpus);
  auto decoded = testing::DecodeSnapshot(corpus + "/ti-am243x-etm3/zephyr");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  uint64_t errors = 0, lost = 0, instructions = 0, trace = 0;
  for (const StreamStats& s : (*decoded)->decoder->stats()) {
    errors += s.errors;
    lost += s.bytes_lost;
    instructions += s.instructions;
    trace += s.trace_bytes;
    EXPECT_EQ(s.trace_bytes, s.bytes_decoded + s.bytes_lost);
    for (const DecodeErrorInfo& e : s.error_list) {
      EXPECT_FALSE(e.message.empty());
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_GT(lost, 0u);
  EXPECT_GT(instructions, 0u) << "what does decode is decoded";
  EXPECT_GT(trace, lost);
}

}  // namespace
}  // namespace hwt::coresight
