// The exporters on a hand-made profile: control flow (branches, ranges,
// continuations, returns), the three branch-profile texts, LLVM's
// discriminator encoding and the sample profile's rules, gzip, and the
// Chrome trace of a hand-made timeline. Expected outputs are worked out by
// hand from the profile below (the real consumers read the same formats in
// tests/export/).
#include <zlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "report/export/branch_profiles.h"
#include "report/export/chrome_trace.h"
#include "report/export/control_flow.h"
#include "report/export/llvm_sample.h"
#include "report/export/pprof.h"

namespace hwt::report {
namespace {

using analysis::BlockStats;

// Image 0 ("/bin/prog", text at 0x401000): main runs 0x401000-0x401008,
// falls on (a block cut after a not-taken conditional) into 0x40100a-
// 0x401010, which calls f at 0x402000; f returns (0x402004) to 0x401015,
// which runs to 0x401018. Twice.
struct Fixture {
  analysis::Profile profile;
  analysis::BlockExpansion expansion;
  ExportImage image;

  Fixture() {
    auto block = [](uint64_t vaddr, uint64_t last, uint32_t n, BranchKind end) {
      BlockStats b;
      b.image = 0;
      b.vaddr = vaddr;
      b.last_vaddr = last;
      b.ninsn = n;
      b.end = end;
      b.count = 2;
      return b;
    };
    profile.blocks = {block(0x401000, 0x401008, 3, BranchKind::kCondNotTaken),
                      block(0x40100a, 0x401010, 2, BranchKind::kCall),
                      block(0x401015, 0x401018, 2, BranchKind::kNone),
                      block(0x402000, 0x402004, 2, BranchKind::kReturn)};
    profile.edges = {{0, 1, 2}, {1, 3, 2}, {3, 2, 2}};
    // Instructions: (vaddr, length) per block.
    const std::vector<std::vector<std::pair<uint64_t, uint8_t>>> insns = {
        {{0x401000, 4}, {0x401004, 4}, {0x401008, 2}},
        {{0x40100a, 6}, {0x401010, 5}},
        {{0x401015, 3}, {0x401018, 1}},
        {{0x402000, 4}, {0x402004, 1}}};
    expansion.block_begin.push_back(0);
    for (const auto& b : insns) {
      for (const auto& [vaddr, length] : b) {
        expansion.insn_vaddrs.push_back(vaddr);
        expansion.insn_lengths.push_back(length);
      }
      expansion.block_begin.push_back(
          static_cast<uint32_t>(expansion.insn_vaddrs.size()));
    }
    image.path = "/bin/prog";
    image.segments = {{0x400000, 0x1000, 0, 0x1000, 4, 0x1000},
                      {0x401000, 0x2000, 0x1000, 0x2000, 5, 0x1000}};
  }
};

TEST(ControlFlowTest, BranchesRangesAndContinuations) {
  Fixture f;
  const ImageFlow flow = CollectImageFlow(f.profile, f.expansion, 0);
  ASSERT_EQ(flow.branches.size(), 2u);
  EXPECT_EQ(flow.branches[0].from, 0x401010u);  // the call
  EXPECT_EQ(flow.branches[0].to, 0x402000u);
  EXPECT_EQ(flow.branches[1].from, 0x402004u);  // the return
  EXPECT_EQ(flow.branches[1].to, 0x401015u);
  EXPECT_EQ(flow.branches[1].count, 2u);
  ASSERT_EQ(flow.continuations.size(), 1u);
  EXPECT_EQ(flow.continuations[0].from, 0x401008u);
  EXPECT_EQ(flow.continuations[0].to, 0x40100au);
  ASSERT_EQ(flow.ranges.size(), 4u);
  EXPECT_EQ(flow.ranges[2].begin, 0x401015u);
  EXPECT_EQ(flow.ranges[2].after_return, 2u);
  EXPECT_EQ(flow.instructions, 2u * 9);
  EXPECT_EQ(FileOffsetOf(f.image, 0x401015), 0x1015u);
  EXPECT_EQ(FileOffsetOf(f.image, 0x500000), std::nullopt);
}

// A taken branch the trace does not follow (here: the last block returns
// three times, once into the code the trace shows) is in the AutoFDO text
// with target 0, as simpleperf counts an ETM atom whose target it does not
// see; a branch into the image from elsewhere is not (its source is not in
// the image).
TEST(BranchProfilesTest, AutoFdoCountsBranchesItCannotFollow) {
  Fixture f;
  f.profile.blocks[2].end = BranchKind::kReturn;
  f.profile.blocks[2].count = 3;
  f.profile.blocks.push_back(f.profile.blocks[0]);
  f.profile.blocks.back().image = 1;  // elsewhere, calls into the image
  f.profile.blocks.back().end = BranchKind::kJump;
  f.profile.edges.push_back({2, 0, 1});
  f.profile.edges.push_back({4, 1, 5});
  f.expansion.block_begin.push_back(f.expansion.block_begin.back());
  f.image.build_id = "0c9a20bf";
  const ImageFlow flow = CollectImageFlow(f.profile, f.expansion, 0);
  ASSERT_EQ(flow.unfollowed.size(), 1u);
  EXPECT_EQ(flow.unfollowed[0].from, 0x401018u);
  EXPECT_EQ(flow.unfollowed[0].count, 2u);
  const std::string text = RenderAutoFdoText(f.image, flow);
  EXPECT_NE(text.find("\n0\n3\n1010->2000:2\n1018->0:3\n2004->0:2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("// build_id: 0x0c9a20bf00000000000000000000000000000000"),
      std::string::npos)
      << text;
}

TEST(BranchProfilesTest, Texts) {
  Fixture f;
  const ImageFlow flow = CollectImageFlow(f.profile, f.expansion, 0);
  EXPECT_EQ(RenderBoltProfile(f.image, flow),
            "B 401010 402000 2 0\n"
            "B 402004 401015 2 0\n"
            "F 401000 401008 2\n"
            "F 40100a 401010 2\n"
            "f 401015 401018 2\n"
            "F 402000 402004 2\n"
            "F 401008 40100a 2\n");
  // As simpleperf writes it: the return's target is 0.
  EXPECT_EQ(RenderAutoFdoText(f.image, flow),
            "4\n1000-1008:2\n100a-1010:2\n1015-1018:2\n2000-2004:2\n"
            "0\n2\n1010->2000:2\n2004->0:2\n"
            "// build_id: 0x0000000000000000000000000000000000000000\n"
            "// /bin/prog\n\n");
  auto profgen = RenderProfgenProfile(f.image, flow);
  ASSERT_TRUE(profgen.ok());
  EXPECT_EQ(*profgen,
            "4\n0-8:2\na-10:2\n15-18:2\n1000-1004:2\n"
            "2\n10->1000:2\n1004->15:2\n");
  ExportImage no_text = f.image;
  no_text.segments.pop_back();
  EXPECT_FALSE(RenderProfgenProfile(no_text, flow).ok());
}

TEST(LlvmSampleTest, DiscriminatorEncoding) {
  EXPECT_EQ(BaseDiscriminator(0), 0u);
  EXPECT_EQ(BaseDiscriminator(2), 1u);  // base 1, no other component
  EXPECT_EQ(DuplicationFactor(2), 1u);
  // Base 0 (encoded 1), duplication factor 4 (encoded 8 << 1).
  EXPECT_EQ(BaseDiscriminator(17), 0u);
  EXPECT_EQ(DuplicationFactor(17), 4u);
}

TEST(LlvmSampleTest, TextNestsInlinedCallSites) {
  SampleProfile profile;
  SampleFunction& main = profile["main"];
  main.name = "main";
  main.total = 30;
  main.head = 1;
  main.body[{1, 0}] = 5;
  main.body[{2, 1}] = 5;
  main.calls[{2, 1}]["f"] = 5;
  SampleFunction& inl = main.inlined[{3, 0, "mix"}];
  inl.name = "mix";
  inl.total = 8;
  inl.body[{1, 0}] = 4;
  EXPECT_EQ(RenderSampleProfileText(profile),
            "main:30:1\n 1: 5\n 2.1: 5 f:5\n 3: mix:8\n  1: 4\n");
}

TEST(PprofTest, GzipRoundTrip) {
  const std::string bytes(10000, 'x');
  auto gz = Gzip(bytes);
  ASSERT_TRUE(gz.ok());
  ASSERT_GE(gz->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>((*gz)[1]), 0x8b);
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(bytes.size(), '\0');
  z.next_in = reinterpret_cast<Bytef*>(gz->data());
  z.avail_in = static_cast<uInt>(gz->size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  inflateEnd(&z);
  EXPECT_EQ(out, bytes);
}

class NamesOnly : public ProfileSymbols {
 public:
  std::string FunctionName(uint32_t, uint64_t start) override {
    return start == 0x1000 ? "main" : "f";
  }
  std::string ImagePath(uint32_t) override { return "/bin/prog"; }
};

TEST(ChromeTraceTest, CompleteEventsNestedInOrderOfStart) {
  CallTimeline timeline;
  timeline.frames = {{analysis::FrameKind::kFunction, 0, 0x1000},
                     {analysis::FrameKind::kFunction, 0, 0x2000}};
  ThreadTimeline t;
  t.events = {{0, 0, true}, {3, 1, true}, {5, 1, false}, {9, 0, false}};
  timeline.threads = {t};
  NamesOnly symbols;
  ProfileNames names(symbols);
  ChromeTraceOptions options;
  options.name = "prog.hwt";
  EXPECT_EQ(
      RenderChromeTrace(timeline, {"thread 0"}, names, options),
      "{\"traceEvents\":[\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{"
      "\"name\":\"thread 0\"}},\n"
      "{\"name\":\"main\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":0.000,"
      "\"dur\":9.000},\n"
      "{\"name\":\"f\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":3.000,"
      "\"dur\":2.000}\n"
      "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"name\":\"prog.hwt\","
      "\"clock\":\"instructions (1 instruction = 1 us)\",\"truncated\":false}}"
      "\n");
}

}  // namespace
}  // namespace hwt::report
