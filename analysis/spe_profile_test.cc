// SPE aggregations on a synthetic stream with known distributions: samples
// per function and instruction, latency percentiles, events, data sources and
// data hot spots, all checked against values worked out by hand below; and
// the whole capture through ProfileCapture, whose shared profile weighs the
// same samples on the frame tree.
#include "analysis/spe_profile.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/capture_profile.h"
#include "analysis/spe_extension.h"
#include "base/file_util.h"
#include "capture/capture.h"
#include "decoders/spe/encoder.h"
#include "decoders/spe/events.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using spe::RecordSpec;
using spe::SpeEncoder;

class FakeResolver : public FunctionResolver {
 public:
  std::optional<FunctionRange> FunctionAt(uint32_t image,
                                          uint64_t vaddr) override {
    ++calls[{image, vaddr}];
    for (const auto& [im, range] : functions) {
      if (im == image && vaddr >= range.start && vaddr < range.end) {
        return range;
      }
    }
    return std::nullopt;
  }
  std::vector<std::pair<uint32_t, FunctionRange>> functions;
  std::map<std::pair<uint32_t, uint64_t>, int> calls;
};

class SpeProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    timeline_.SetBufferCount(1);
    capture::Image app;
    app.recorded_path = "/bin/app";
    app_ = timeline_.AddImage(app);
    capture::Image lib;
    lib.recorded_path = "/lib/libc.so.7";
    lib_ = timeline_.AddImage(lib);
    uint32_t r0 =
        timeline_.AddRegion({app_, 0x400000, 0x410000, 0, 0x10000, 0});
    uint32_t r1 = timeline_.AddRegion(
        {lib_, 0x800010000, 0x800020000, 0x10000, 0x10000, 0x800000000});
    for (uint32_t r : {r0, r1}) {
      capture::AddressSpaceChange change;
      change.region = r;
      timeline_.AddChange(0, change);
    }
    loads_.resize(2);
    capture::ElfSegment text, data;
    text.type = data.type = 1;
    text.vaddr = 0x10000;
    text.memsz = 0x10000;
    data.vaddr = 0x30000;
    data.memsz = 0x8000;
    loads_[lib_] = {text, data};
    resolver_.functions = {{app_, {0x400000, 0x400100}},  // main
                           {app_, {0x400100, 0x400200}},  // hot
                           {lib_, {0x10000, 0x10400}}};   // memcpy
  }

  std::string Stream() {
    SpeEncoder e;
    // hot: 100 loads, 8 instructions, latency i, issue i % 10, translation
    // 2 on odd i, L1D refill on every 4th, data in libc's .data, DRAM for
    // the last 20.
    for (int i = 1; i <= 100; ++i) {
      RecordSpec r;
      r.pc = 0x400100 + 4 * (i % 8);
      r.op_class = 1;
      r.op = 0x00;
      r.events = 0x6 | (i % 4 == 0 ? 0x8 : 0);
      r.total_latency = i;
      r.issue_latency = i % 10;
      if (i % 2) r.translation_latency = 2;
      r.data_va = 0x800030000 + 8 * i;
      r.data_source = i <= 80 ? 0x0 : 0xe;
      r.timestamp = i;
      EncodeRecord(r, e);
    }
    // main: 10 conditional branches, latency 300, 3 mispredicted.
    for (int i = 0; i < 10; ++i) {
      RecordSpec r;
      r.pc = 0x400010;
      r.op_class = 2;
      r.op = 0x01;
      r.events = 0x2 | (i < 3 ? 0x80 : 0);
      r.total_latency = 300;
      r.branch_target = 0x400020;
      EncodeRecord(r, e);
    }
    // memcpy: 20 stores to two stack lines, latency 7.
    for (int i = 0; i < 20; ++i) {
      RecordSpec r;
      r.pc = 0x800010040;
      r.op_class = 1;
      r.op = 0x01;
      r.total_latency = 7;
      r.data_va = 0x7fff0000 + 64 * (i % 2);
      EncodeRecord(r, e);
    }
    // Unsymbolized code in the app, unmapped user code, kernel code.
    for (int i = 0; i < 4; ++i) {
      RecordSpec r;
      r.pc = 0x408000;
      r.op_class = 0;
      EncodeRecord(r, e);
    }
    for (int i = 0; i < 3; ++i) {
      RecordSpec r;
      r.pc = 0x900000;
      r.op_class = 0;
      EncodeRecord(r, e);
    }
    for (int i = 0; i < 2; ++i) {
      RecordSpec r;
      r.pc = 0xffff000000001000;
      r.el = 1;
      r.op_class = 0;
      EncodeRecord(r, e);
    }
    // A record whose END was lost (partial, left out), then a record with
    // only a PC in hot (one more sample, no latency, no operation).
    e.Address(0, SpeEncoder::InstructionAddress(0x400100, 0, true))
        .OpType(1, 0);
    e.Address(0, SpeEncoder::InstructionAddress(0x400104, 0, true)).End();
    return e.bytes();
  }

  SpeProfile Build() {
    SampleAddressMap map(&timeline_, 1, loads_);
    SpeProfileBuilder builder(&map, &resolver_, spe::IdentifyCpu(0x413fd0c1));
    std::string bytes = Stream();
    spe::DecodeBytes(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes.data()),
                            bytes.size()),
        &builder);
    return builder.Finish();
  }

  capture::AddressSpaceTimeline timeline_;
  std::vector<std::vector<capture::ElfSegment>> loads_;
  FakeResolver resolver_;
  uint32_t app_ = 0, lib_ = 0;
};

TEST_F(SpeProfileTest, Totals) {
  SpeProfile p = Build();
  // 100 + 10 + 20 + 4 + 3 + 2 samples, plus the lone-PC record ending the
  // stream (complete: PC + END).
  EXPECT_EQ(p.partial_records, 1u);
  EXPECT_EQ(p.records, 140u);
  EXPECT_EQ(p.samples, 140u);
  EXPECT_EQ(p.samples_in_images, 135u);
  EXPECT_EQ(p.kernel_samples, 2u);
  EXPECT_EQ(p.samples_with_data_address, 120u);
  EXPECT_EQ(p.data_addresses_in_images, 100u);
  EXPECT_EQ(p.cpu.name, "Neoverse N1");
  ASSERT_EQ(p.images.size(), 2u);
  EXPECT_EQ(p.images[1].path, "/lib/libc.so.7");
  EXPECT_EQ(p.all.counters.loads, 100u);
  EXPECT_EQ(p.all.counters.stores, 20u);
  EXPECT_EQ(p.all.events[spe::kEventMispredicted], 3u);
  EXPECT_EQ(p.all.op_categories[static_cast<int>(spe::OpCategory::kNone)], 1u);
  // Overall total latency: 1..100, ten 300s, twenty 7s.
  EXPECT_EQ(p.all.latencies.total.count(), 130u);
  EXPECT_EQ(p.all.latencies.total.sum(), 5050u + 3000u + 140u);
  EXPECT_EQ(p.all.latencies.total.max(), 300u);
}

TEST_F(SpeProfileTest, FunctionsAndTheirDistributions) {
  SpeProfile p = Build();
  ASSERT_EQ(p.functions.size(), 6u);
  // Sorted by samples: hot 101 (100 + the lone PC), memcpy 20, main 10,
  // [app] 4, [unknown] 3, [kernel] 2.
  const SpeFunction& hot = p.functions[0];
  EXPECT_EQ(hot.key, (SpeFunctionKey{app_, 0x400100, true}));
  EXPECT_EQ(hot.end, 0x400200u);
  EXPECT_EQ(hot.breakdown.samples, 101u);
  const LatencyDistribution& total = hot.breakdown.latencies.total;
  EXPECT_EQ(total.count(), 100u);
  EXPECT_DOUBLE_EQ(total.mean(), 50.5);
  EXPECT_EQ(total.Percentile(50), 50u);
  EXPECT_EQ(total.Percentile(90), 90u);
  EXPECT_EQ(total.Percentile(99), 99u);
  EXPECT_EQ(total.max(), 100u);
  // Issue latency i % 10: each of 0..9 ten times.
  const LatencyDistribution& issue = hot.breakdown.latencies.issue;
  EXPECT_EQ(issue.count(), 100u);
  EXPECT_DOUBLE_EQ(issue.mean(), 4.5);
  EXPECT_EQ(issue.Percentile(50), 4u);
  EXPECT_EQ(issue.Percentile(90), 8u);
  EXPECT_EQ(issue.Percentile(99), 9u);
  const LatencyDistribution& xlat = hot.breakdown.latencies.translation;
  EXPECT_EQ(xlat.count(), 50u);
  EXPECT_EQ(xlat.Percentile(50), 2u);
  EXPECT_EQ(hot.breakdown.events[spe::kEventL1dRefill], 25u);
  EXPECT_EQ(hot.breakdown.events[spe::kEventL1dAccess], 100u);
  EXPECT_EQ(hot.breakdown.counters.l1d_refill, 25u);
  EXPECT_EQ(hot.breakdown.counters.loads, 100u);
  EXPECT_EQ(hot.breakdown.DataSources(),
            (std::map<uint64_t, uint64_t>{{0x0, 80}, {0xe, 20}}));
  EXPECT_EQ(hot.breakdown.without_data_source, 1u);

  const SpeFunction& memcpy_fn = p.functions[1];
  EXPECT_EQ(memcpy_fn.key, (SpeFunctionKey{lib_, 0x10000, true}));
  EXPECT_EQ(memcpy_fn.breakdown.samples, 20u);
  EXPECT_EQ(memcpy_fn.breakdown.counters.stores, 20u);
  EXPECT_EQ(memcpy_fn.breakdown.latencies.total.Percentile(99), 7u);

  const SpeFunction& main_fn = p.functions[2];
  EXPECT_EQ(main_fn.key, (SpeFunctionKey{app_, 0x400000, true}));
  EXPECT_EQ(main_fn.breakdown.counters.mispredicted, 3u);
  EXPECT_EQ(
      main_fn.breakdown
          .op_categories[static_cast<int>(spe::OpCategory::kBranchConditional)],
      10u);
  EXPECT_EQ(main_fn.breakdown.latencies.total.Percentile(50), 300u);

  EXPECT_EQ(p.functions[3].key, (SpeFunctionKey{app_, 0, false}));
  EXPECT_EQ(p.functions[3].breakdown.samples, 4u);
  EXPECT_EQ(p.functions[4].key,
            (SpeFunctionKey{kNoImage, kSpeUnknownUserCode, false}));
  EXPECT_EQ(p.functions[4].breakdown.samples, 3u);
  EXPECT_EQ(p.functions[5].key,
            (SpeFunctionKey{kNoImage, kSpeUnknownKernelCode, false}));
  EXPECT_EQ(p.functions[5].breakdown.samples, 2u);
}

TEST_F(SpeProfileTest, InstructionsAndResolverCalls) {
  SpeProfile p = Build();
  // hot: 8 PCs (0x400100 + 4 * (i % 8)); residues 1..4 occur 13 times among
  // i = 1..100 (+1 for 0x400104 from the final record), the others 12.
  ASSERT_EQ(p.instructions.size(), 8u + 1 + 1 + 1 + 1 + 1);
  EXPECT_EQ(p.instructions[0].address, (MappedAddress{lib_, 0x10040}));
  EXPECT_EQ(p.instructions[0].counters.samples, 20u);
  EXPECT_EQ(p.instructions[1].address, (MappedAddress{app_, 0x400104}));
  EXPECT_EQ(p.instructions[1].counters.samples, 14u);
  EXPECT_EQ(p.instructions[2].address, (MappedAddress{app_, 0x400108}));
  EXPECT_EQ(p.instructions[2].counters.samples, 13u);
  EXPECT_EQ(p.instructions[4].address, (MappedAddress{app_, 0x400110}));
  EXPECT_EQ(p.instructions[5].address, (MappedAddress{app_, 0x400100}));
  EXPECT_EQ(p.instructions[5].counters.samples, 12u);
  // Every instruction points at its (re-sorted) function.
  EXPECT_EQ(p.functions[p.instructions[0].function].key.start, 0x10000u);
  EXPECT_EQ(p.functions[p.instructions[1].function].key.start, 0x400100u);
  // Unmapped addresses stay raw.
  bool saw_kernel = false;
  for (const SpeInstruction& i : p.instructions) {
    if (i.address.image == kNoImage && i.el == 1) {
      EXPECT_EQ(i.address.vaddr, 0xffff000000001000u);
      saw_kernel = true;
    }
  }
  EXPECT_TRUE(saw_kernel);
  // The resolver is asked once per unique instruction inside an image.
  EXPECT_EQ(resolver_.calls.size(), 8u + 1 + 1 + 1);
  for (const auto& [key, count] : resolver_.calls) EXPECT_EQ(count, 1);
}

TEST_F(SpeProfileTest, DataHotSpots) {
  SpeProfile p = Build();
  // Lines: two stack lines with 10 stores each; hot's 8 * i offsets give
  // line 0: 7, lines 1..11: 8 each, line 12: 5.
  ASSERT_EQ(p.cache_lines.size(), 2u + 13);
  EXPECT_EQ(p.cache_lines[0].base, 0x7fff0000u);
  EXPECT_EQ(p.cache_lines[0].counters.samples, 10u);
  EXPECT_EQ(p.cache_lines[0].counters.stores, 10u);
  EXPECT_EQ(p.cache_lines[0].counters.mean_latency(), 7.0);
  EXPECT_EQ(p.cache_lines[1].base, 0x7fff0040u);
  EXPECT_EQ(p.cache_lines[2].base, 0x800030040u);
  EXPECT_EQ(p.cache_lines[2].counters.samples, 8u);
  EXPECT_EQ(p.cache_lines[13].base, 0x800030000u);
  EXPECT_EQ(p.cache_lines[13].counters.samples, 7u);
  EXPECT_EQ(p.cache_lines[14].base, 0x800030300u);
  EXPECT_EQ(p.cache_lines[14].counters.samples, 5u);
  // Line 1 holds i = 8..15: latencies sum 92, two L1D refills (8, 12).
  EXPECT_EQ(p.cache_lines[2].counters.total_latency, 92u);
  EXPECT_EQ(p.cache_lines[2].counters.l1d_refill, 2u);

  ASSERT_EQ(p.pages.size(), 2u);
  EXPECT_EQ(p.pages[0].base, 0x800030000u);
  EXPECT_EQ(p.pages[0].counters.samples, 100u);
  EXPECT_EQ(p.pages[1].base, 0x7fff0000u);
  EXPECT_EQ(p.pages[1].counters.samples, 20u);

  // libc .data addresses resolve into the image; the stack does not.
  ASSERT_EQ(p.data_addresses.size(), 100u);
  EXPECT_EQ(p.data_addresses[0].address, (MappedAddress{lib_, 0x30008}));
  EXPECT_EQ(p.data_addresses[99].address, (MappedAddress{lib_, 0x30320}));
}

TEST_F(SpeProfileTest, WholeCaptureGivesTheSameProfile) {
  auto dir = TempDir::Create("spe_profile_test");
  ASSERT_TRUE(dir.ok()) << dir.status();
  ASSERT_TRUE(WriteFileAtomically(dir->path() + "/cpu0.spe", Stream()).ok());
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kSpe;
  manifest.cpu.midr = 0x413fd0c1;
  capture::BufferInfo buffer;
  buffer.file = "cpu0.spe";
  manifest.buffers = {buffer};
  capture::Capture capture(capture::InputKind::kBundleDirectory, dir->path(),
                           dir->path(), manifest, {}, {}, std::nullopt);
  // Images have no files here: data addresses map through the regions only.
  // One decode gives both the shared profile and SPE's extension.
  auto result = ProfileCapture(capture, timeline_, resolver_);
  ASSERT_TRUE(result.ok()) << result.status();
  const auto* spe = dynamic_cast<const SpeExtension*>(result->extension.get());
  ASSERT_NE(spe, nullptr);
  const SpeProfile& p = spe->result().profile;
  EXPECT_EQ(spe->result().stats.total.records, 140u);
  EXPECT_EQ(spe->result().stats.total.partial_records, 1u);
  EXPECT_EQ(p.samples, 140u);
  EXPECT_EQ(p.partial_records, 1u);
  EXPECT_EQ(p.samples_in_images, 135u);
  EXPECT_EQ(p.data_addresses_in_images, 0u);  // .data is not executable
  ASSERT_EQ(p.functions.size(), 6u);
  EXPECT_EQ(p.functions[0].breakdown.latencies.total.Percentile(90), 90u);
  EXPECT_EQ(p.cpu.name, "Neoverse N1");

  // The shared profile weighs the same 140 samples on one frame each, with
  // their latency as time: hot 101 (latencies 1..100 and none), main 10
  // (300 each), memcpy 20 (7 each), the app's unsymbolized code 4 (entered,
  // as the frame says, where its mapping starts), and outside every image
  // 3 user and 2 kernel samples, all [unknown].
  const Profile& shared = result->profile;
  EXPECT_EQ(shared.counts, ProfileCounts::kSamples);
  EXPECT_TRUE(shared.has_time);
  EXPECT_EQ(shared.stats.instructions, 140u);
  EXPECT_EQ(shared.stats.time, 5050u + 3000u + 140u);
  EXPECT_EQ(shared.stats.unknown_region_blocks, 5u);
  EXPECT_EQ(shared.blocks.size(), 13u);  // unique sampled PCs
  ASSERT_EQ(shared.threads.size(), 1u);
  EXPECT_EQ(shared.threads[0].tree, shared.merged);
  const std::vector<std::tuple<FrameKey, uint64_t, uint64_t>> expected = {
      {{FrameKind::kFunction, app_, 0x400000}, 10, 3000},
      {{FrameKind::kFunction, app_, 0x400100}, 101, 5050},
      {{FrameKind::kFunction, lib_, 0x10000}, 20, 140},
      {{FrameKind::kUnknownCode, app_, 0x400000}, 4, 0},
      {FrameKey{}, 5, 0}};
  ASSERT_EQ(shared.functions.size(), expected.size());
  ASSERT_EQ(shared.merged.nodes.size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& [frame, samples, latency] = expected[i];
    const FunctionStats& f = shared.functions[i];
    EXPECT_EQ(f.frame, frame) << i;
    EXPECT_EQ(f.self_insns, samples) << i;
    EXPECT_EQ(f.total_insns, samples) << i;
    EXPECT_EQ(f.self_time, latency) << i;
    const CallTree::Node& node = shared.merged.nodes[i + 1];
    EXPECT_EQ(node.frame, frame) << i;
    EXPECT_EQ(node.parent, 0u) << i;
    EXPECT_EQ(node.self_insns, samples) << i;
  }
  EXPECT_EQ(shared.merged.nodes[0].total_insns, 140u);
  // And so does SPE's own aggregation, per function.
  for (const SpeFunction& f : p.functions) {
    if (!f.key.resolved) continue;
    const FrameKey frame{FrameKind::kFunction, f.key.image, f.key.start};
    const auto it =
        std::find_if(shared.functions.begin(), shared.functions.end(),
                     [&](const FunctionStats& s) { return s.frame == frame; });
    ASSERT_NE(it, shared.functions.end()) << f.key.start;
    EXPECT_EQ(it->self_insns, f.breakdown.samples) << f.key.start;
    EXPECT_EQ(it->self_time, f.breakdown.counters.total_latency) << f.key.start;
  }
}

TEST(SpeProfileNoImagesTest, EverythingStaysRaw) {
  SpeEncoder e;
  RecordSpec r;
  r.pc = 0x400000;
  r.total_latency = 5;
  EncodeRecord(r, e);
  SpeProfileBuilder builder(nullptr, nullptr, spe::IdentifyCpu(0));
  spe::DecodeBytes(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(e.bytes().data()),
                          e.size()),
      &builder);
  SpeProfile p = builder.Finish();
  ASSERT_EQ(p.functions.size(), 1u);
  EXPECT_EQ(p.functions[0].key,
            (SpeFunctionKey{kNoImage, kSpeUnknownUserCode, false}));
  ASSERT_EQ(p.instructions.size(), 1u);
  EXPECT_EQ(p.instructions[0].address.vaddr, 0x400000u);
  EXPECT_TRUE(p.images.empty());
}

}  // namespace
}  // namespace hwt::analysis
