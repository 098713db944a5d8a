// Hostile trace bytes through the decoders: traces truncated at every packet
// boundary, random bit flips, random bytes, a flow that loops without
// reading trace, the wrong backend, images that are not ELF or are for
// another architecture. Whatever the bytes: the decode ends, every input
// byte is accounted for (decoded or lost), errors name their trace offset,
// and what was decoded before a cut is what the whole trace decodes to.
#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/hex_dump.h"
#include "base/testing/test_env.h"
#include "capture/address_space.h"
#include "capture/elf_file.h"
#include "decoders/pt/testing/pt_streams.h"
#include "decoders/spe/decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hostile/testing/hostile_inputs.h"

namespace hwt::hostile {
namespace {

using ::hwt::testing::RunsInChild;
using ::testing::HasSubstr;

recorder::PtEncoderOptions SmallPsbPeriod() {
  recorder::PtEncoderOptions options;
  options.psb_period = 256;
  return options;
}

class PtHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-hostile-pt");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    case_ = std::make_unique<PtCase>(MakePtCase(1500, SmallPsbPeriod()));
    ASSERT_TRUE(
        WritePtBundle(dir_->path() + "/pt.hwt", *case_, case_->trace).ok());
    auto capture = CaptureUnderTest::Open(dir_->path() + "/pt.hwt");
    ASSERT_TRUE(capture.ok()) << capture.status();
    capture_ = std::move(*capture);
  }

  // Decodes `trace` in the capture; the fast count must agree.
  Decoded DecodeTrace(const std::string& trace, const std::string& what) {
    auto capture = capture_->WithTrace(trace);
    Decoded decoded = Decode(*capture, capture_->timeline());
    ExpectFastCountAgrees(*capture, capture_->timeline(), decoded, what);
    return decoded;
  }

  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<PtCase> case_;
  std::unique_ptr<CaptureUnderTest> capture_;
};

TEST_F(PtHostileTest, TruncatedAtEveryPacketBoundary) {
  const Decoded full = DecodeTrace(case_->trace, "full trace");
  ExpectAccounted(full, case_->trace.size(), false, "full trace");
  ASSERT_EQ(full.stats[0].errors, 0u);
  const std::vector<Event> full_blocks = full.Blocks();
  ASSERT_GT(case_->packet_offsets.size(), 100u);

  std::vector<uint64_t> cuts;
  for (uint64_t offset : case_->packet_offsets) {
    cuts.push_back(offset);
    cuts.push_back(offset + 1);  // inside the packet
  }
  for (uint64_t cut : cuts) {
    if (cut > case_->trace.size()) continue;
    const std::string what = absl::StrFormat("cut at %d", cut);
    const Decoded d = DecodeTrace(case_->trace.substr(0, cut), what);
    ExpectAccounted(d, cut, false, what);
    EXPECT_LE(d.Instructions(), full.Instructions()) << what;
    // What a cut trace decodes to is what the whole trace decodes to, up to
    // the last blocks before the cut (which may end early or lose their
    // branch outcome).
    const std::vector<Event> blocks = d.Blocks();
    ASSERT_LE(blocks.size(), full_blocks.size()) << what;
    for (size_t i = 0; i + 2 < blocks.size(); ++i) {
      ASSERT_EQ(blocks[i].ip, full_blocks[i].ip) << what << ", block " << i;
      ASSERT_EQ(blocks[i].ninsn, full_blocks[i].ninsn)
          << what << ", block " << i;
    }
  }
}

TEST_F(PtHostileTest, RandomBitFlips) {
  std::mt19937_64 rng(42);
  const uint64_t bits = case_->trace.size() * 8;
  for (int variant = 0; variant < 300; ++variant) {
    std::string trace = case_->trace;
    const int flips = 1 + variant % 4;
    std::string what = absl::StrFormat("variant %d, bits", variant);
    for (int i = 0; i < flips; ++i) {
      const uint64_t bit = rng() % bits;
      trace = FlipBit(trace, bit);
      absl::StrAppendFormat(&what, " %d", bit);
    }
    const Decoded d = DecodeTrace(trace, what);
    ExpectAccounted(d, trace.size(), false, what);
    for (const DecodeErrorInfo& error : d.stats[0].error_list) {
      EXPECT_THAT(error.message, HasSubstr("offset 0x")) << what;
    }
  }
}

TEST_F(PtHostileTest, RandomBytesAroundPsbs) {
  std::mt19937_64 rng(7);
  const std::string psb(case_->trace.data(), 16);  // the trace starts with one
  for (int variant = 0; variant < 50; ++variant) {
    std::string trace;
    while (trace.size() < 4096) {
      if (rng() % 8 == 0) trace += psb;
      trace.push_back(static_cast<char>(rng()));
    }
    const std::string what = absl::StrFormat("variant %d", variant);
    ExpectAccounted(DecodeTrace(trace, what), trace.size(), false, what);
  }
}

TEST_F(PtHostileTest, EmptyTrace) {
  const Decoded d = DecodeTrace("", "empty trace");
  ExpectAccounted(d, 0, false, "empty trace");
  EXPECT_TRUE(d.Blocks().empty());
}

// Two direct jumps to each other: libipt would follow them forever without
// reading trace. The decode must end, report the loop at its offset and go
// on at the next PSB.
TEST(PtLoopTest, CycleOfDirectJumpsEnds) {
  pt::testing::CodeBlob code{0x1000, std::vector<uint8_t>(0x40, 0xcc)};
  code.bytes[0x00] = 0xeb;  // 1000 jmp 1010
  code.bytes[0x01] = 0x0e;
  code.bytes[0x10] = 0xeb;  // 1010 jmp 1000
  code.bytes[0x11] = 0xee;
  code.bytes[0x20] = 0x90;  // 1020 nop
  code.bytes[0x21] = 0xff;  // 1021 jmp rax
  code.bytes[0x22] = 0xe0;
  pt::testing::PtWriter w;
  w.SyncAt(0x1000);
  const uint64_t second = w.size();
  w.SyncAt(0x1020).TipPgd();
  auto test = pt::testing::MakeTestCapture(w.bytes(), {code});
  ASSERT_TRUE(test.ok()) << test.status();
  ASSERT_TRUE(RunsInChild(
      [&] {
        Decoded d = Decode(*test->capture, test->timeline);
        ExpectFastCountAgrees(*test->capture, test->timeline, d, "loop");
        return d.status.ok() && !::testing::Test::HasFailure() ? 0 : 1;
      },
      60))
      << "the decode or fast count of a looping flow did not end";
  const Decoded d = Decode(*test->capture, test->timeline);
  ExpectFastCountAgrees(*test->capture, test->timeline, d, "loop");
  ExpectAccounted(d, w.size(), false, "loop");
  ASSERT_EQ(d.stats[0].error_list.size(), 1u);
  EXPECT_THAT(d.stats[0].error_list[0].message,
              HasSubstr("without reading trace"));
  EXPECT_EQ(d.Blocks().back().ip, 0x1020u);
  EXPECT_LT(d.stats[0].error_list[0].offset, second + 16);
}

// A raw file decoded as another backend than the one it holds: clear
// errors or accounted decodes, never a crash.
TEST_F(PtHostileTest, WrongBackend) {
  const std::string raw = dir_->path() + "/pt.bin";
  ASSERT_TRUE(WriteFileAtomically(raw, case_->trace).ok());
  for (capture::Backend backend :
       {capture::Backend::kCoreSight, capture::Backend::kSpe}) {
    capture::InputOptions options;
    options.backend = backend;
    auto opened = CaptureUnderTest::Open(raw, options);
    const std::string what(capture::BackendName(backend));
    if (!opened.ok()) {
      EXPECT_THAT(opened.status().message(), HasSubstr(raw)) << what;
      continue;
    }
    if (backend == capture::Backend::kSpe) {
      class NullSink : public spe::RecordSink {
        void OnRecords(uint32_t, absl::Span<const spe::Record>) override {}
      } sink;
      auto stats = spe::DecodeCapture((*opened)->capture(), sink);
      ASSERT_TRUE(stats.ok()) << stats.status();
      EXPECT_EQ(stats->total.bytes, case_->trace.size());
      EXPECT_EQ(stats->total.bytes,
                stats->total.bytes_decoded + stats->total.bytes_skipped);
      continue;
    }
    const Decoded d = Decode((*opened)->capture(), (*opened)->timeline());
    if (!d.status.ok()) {
      EXPECT_THAT(d.status.message(), HasSubstr(raw)) << what;
      continue;
    }
    ExpectAccounted(d, case_->trace.size(), true, what);
  }
}

// An image that is not an ELF file, and one for another architecture.
TEST_F(PtHostileTest, ImagesNotElfOrForAnotherArchitecture) {
  const std::string text = dir_->path() + "/notes.txt";
  ASSERT_TRUE(WriteFileAtomically(text, "not an ELF file\n").ok());
  capture::InputOptions options;
  options.images.push_back({text, 0});
  auto opened = CaptureUnderTest::Open(dir_->path() + "/pt.hwt", options);
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr(text));
  EXPECT_THAT(opened.status().message(), HasSubstr("not an ELF file"));

  // An AArch64 program mapped where the x86 code runs: decoded as x86, it
  // goes wrong somewhere; that is reported, with every byte accounted for.
  const std::string arm =
      testing::SourceDir() + "/fuzz/corpus/elf/aarch64-static.elf";
  options.images = {{arm, 0}};
  auto elf = capture::ReadElfFile(arm);
  ASSERT_TRUE(elf.ok()) << elf.status();
  ASSERT_FALSE(elf->ExecutableLoads().empty());
  const uint64_t entry = elf->entry;
  pt::testing::PtWriter w;
  w.SyncAt(entry).Tnt("!.!!..!").Tip(entry + 8).Tnt("..!!");
  const std::string raw = dir_->path() + "/arm-as-x86.bin";
  ASSERT_TRUE(
      WriteFileAtomically(raw, std::string(w.bytes().begin(), w.bytes().end()))
          .ok());
  options.backend = capture::Backend::kPt;
  auto mixed = CaptureUnderTest::Open(raw, options);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  const Decoded d = Decode((*mixed)->capture(), (*mixed)->timeline());
  ExpectAccounted(d, w.size(), false, "aarch64 image");
  EXPECT_GE(d.stats[0].errors, 1u);
}

// SPE: every cut of two real records, and bit flips.
std::string QuipperRecords() {
  auto text = ReadFileToString(testing::SourceDir() +
                               "/testdata/spe/quipper_records.hex");
  EXPECT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::string> bytes = ParseHexDump(text.value_or(""));
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or("");
}

class CountingRecordSink : public spe::RecordSink {
 public:
  void OnRecords(uint32_t, absl::Span<const spe::Record> records) override {
    for (const spe::Record& r : records) {
      EXPECT_LE(r.offset, r.end_offset);
      max_end = std::max(max_end, r.end_offset);
      ++count;
    }
  }
  uint64_t count = 0;
  uint64_t max_end = 0;
};

void ExpectSpeAccounted(const std::string& bytes, const std::string& what) {
  CountingRecordSink sink;
  spe::SpeStats stats = spe::DecodeBytes(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes.data()),
                          bytes.size()),
      &sink);
  EXPECT_EQ(stats.bytes, bytes.size()) << what;
  EXPECT_EQ(stats.bytes, stats.bytes_decoded + stats.bytes_skipped) << what;
  EXPECT_EQ(sink.count, stats.records + stats.partial_records) << what;
  EXPECT_LE(sink.max_end, bytes.size()) << what;
}

TEST(SpeHostileTest, TruncatedAtEveryByteAndBitFlips) {
  const std::string full = QuipperRecords();
  ASSERT_GT(full.size(), 50u);
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    ExpectSpeAccounted(full.substr(0, cut), absl::StrFormat("cut %d", cut));
  }
  std::mt19937_64 rng(3);
  for (int variant = 0; variant < 500; ++variant) {
    std::string bytes = full + full;
    for (int i = 0; i <= variant % 3; ++i) bytes = FlipBit(bytes, rng());
    ExpectSpeAccounted(bytes, absl::StrFormat("variant %d", variant));
  }
}

// CoreSight: real snapshots with their trace cut at every byte and with
// bit flips.
TEST(CoreSightHostileTest, TruncatedAtEveryByteAndBitFlips) {
  HWT_REQUIRE_CORPUS(corpus);
  for (const char* name : {"opencsd/snapshots/a57_single_step",
                           "opencsd/snapshots/trace_cov_a15"}) {
    auto opened = CaptureUnderTest::Open(corpus + "/" + name);
    ASSERT_TRUE(opened.ok()) << opened.status();
    auto full = ReadFileToString((*opened)->capture().BufferPath(0));
    ASSERT_TRUE(full.ok());
    const bool formatted = (*opened)->capture().manifest().coresight->formatted;
    for (size_t cut = 0; cut <= full->size(); ++cut) {
      auto capture = (*opened)->WithTrace(full->substr(0, cut));
      ExpectAccounted(Decode(*capture, (*opened)->timeline()), cut, formatted,
                      absl::StrFormat("%s cut at %d", name, cut));
    }
    std::mt19937_64 rng(5);
    for (int variant = 0; variant < 200; ++variant) {
      std::string bytes = *full;
      for (int i = 0; i <= variant % 3; ++i) bytes = FlipBit(bytes, rng());
      auto capture = (*opened)->WithTrace(bytes);
      ExpectAccounted(Decode(*capture, (*opened)->timeline()), bytes.size(),
                      formatted,
                      absl::StrFormat("%s variant %d", name, variant));
    }
  }
}

}  // namespace
}  // namespace hwt::hostile
