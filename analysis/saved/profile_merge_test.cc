// Merging saved profiles: a hand-checked golden (testdata/saved/one.events
// and two.events -> merge.golden: the same images numbered differently and
// loaded elsewhere, joined by build-id; every count of merge.golden was
// added up by hand from the two scripts' comments), associativity and
// commutativity byte for byte on synthetic profiles, the merged stacks equal
// to the sum of the inputs' (and to the synthetic reference model's), threads
// kept per capture, images without build-id kept apart by content, and a
// capture merged twice refused.
#include "analysis/saved/profile_merge.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/profile_text.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/testing/saved_profiles.h"
#include "analysis/testing/event_script.h"
#include "analysis/testing/synthetic_trace.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using ::testing::HasSubstr;

SavedProfile FromScriptFile(const std::string& name) {
  auto script = testing::ReadEventScript(hwt::testing::SourceDir() +
                                         "/testdata/saved/" + name + ".events");
  EXPECT_TRUE(script.ok()) << script.status();
  return testing::SavedFromScript(*script, testing::BuildProfile(*script),
                                  name);
}

std::string Describe(const SavedProfile& p) {
  std::string out;
  for (size_t i = 0; i < p.sources.size(); ++i) {
    absl::StrAppend(&out, "capture ", i, " ", p.sources[i].name, " ",
                    p.sources[i].fingerprint, "\n");
  }
  for (size_t i = 0; i < p.images.size(); ++i) {
    absl::StrAppend(&out, "image ", i, " ", p.images[i].Identity(), " ",
                    p.images[i].path, " functions=");
    for (const SavedFunction& f : p.images[i].functions) {
      absl::StrAppend(&out, absl::StrFormat("%s@0x%x ", f.name, f.start));
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, ProfileToText(p.profile, [&](const FrameKey& key) {
    return testing::SavedFrameName(p, key);
  }));
  return out;
}

TEST(ProfileMergeTest, MatchesTheHandCheckedGolden) {
  const SavedProfile one = FromScriptFile("one");
  const SavedProfile two = FromScriptFile("two");
  auto merged = MergeProfiles({&one, &two}, "test");
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_TRUE(ValidateProfile(*merged).ok()) << ValidateProfile(*merged);
  hwt::testing::ExpectMatchesGolden(
      Describe(*merged),
      hwt::testing::SourceDir() + "/testdata/saved/merge.golden");
}

SavedProfile Synthetic(uint64_t seed, int streams, bool per_context,
                       testing::ExpectedProfile* expected = nullptr) {
  testing::SyntheticOptions options;
  options.seed = seed;
  options.streams = streams;
  options.per_context = per_context;
  options.blocks = 5000;
  const testing::SyntheticTrace trace =
      testing::GenerateSyntheticTrace(options);
  if (expected != nullptr) *expected = trace.expected;
  return testing::SavedFromScript(trace.script,
                                  testing::BuildProfile(trace.script),
                                  absl::StrCat("syn", seed));
}

SavedProfile Merge(std::vector<const SavedProfile*> inputs) {
  auto merged = MergeProfiles(inputs, "test");
  EXPECT_TRUE(merged.ok()) << merged.status();
  return merged.ok() ? *merged : SavedProfile();
}

TEST(ProfileMergeTest, IsAssociativeAndCommutativeByteForByte) {
  const SavedProfile a = Synthetic(11, 2, false);
  // Another machine: the same images numbered the other way round.
  const SavedProfile b = testing::PermuteImages(Synthetic(12, 1, false), [] {
    std::vector<uint32_t> order;
    for (uint32_t i =
             static_cast<uint32_t>(Synthetic(12, 1, false).images.size());
         i-- > 0;) {
      order.push_back(i);
    }
    return order;
  }());
  const SavedProfile c = Synthetic(13, 3, true);
  ASSERT_TRUE(ValidateProfile(b).ok()) << ValidateProfile(b);

  const SavedProfile bc = Merge({&b, &c});
  const SavedProfile ab = Merge({&a, &b});
  const SavedProfile a_bc = Merge({&a, &bc});
  const SavedProfile ab_c = Merge({&ab, &c});
  const SavedProfile cba = Merge({&c, &b, &a});
  ProfileAccumulator acc;
  ASSERT_TRUE(acc.Add(b).ok());
  ASSERT_TRUE(acc.Add(a).ok());
  ASSERT_TRUE(acc.Add(c).ok());
  const SavedProfile bac = acc.Finish("test");

  const std::string expected = SerializeProfile(a_bc);
  EXPECT_EQ(SerializeProfile(ab_c), expected);
  EXPECT_EQ(SerializeProfile(cba), expected);
  EXPECT_EQ(SerializeProfile(bac), expected);
  EXPECT_TRUE(SameContent(a_bc, cba));
  ASSERT_TRUE(ValidateProfile(a_bc).ok()) << ValidateProfile(a_bc);
  // Read back from its file, merging once more with nothing changes
  // nothing.
  auto read = ParseProfile(
      absl::Span<const uint8_t>(
          reinterpret_cast<const uint8_t*>(expected.data()), expected.size()),
      "m");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(SerializeProfile(Merge({&*read})), expected);
}

std::map<std::string, uint64_t> Sum(
    std::vector<std::map<std::string, uint64_t>> parts) {
  std::map<std::string, uint64_t> out;
  for (const auto& part : parts) {
    for (const auto& [stack, n] : part) out[stack] += n;
  }
  return out;
}

TEST(ProfileMergeTest, MergedStacksAreTheSumAndThreadsStayPerCapture) {
  testing::ExpectedProfile ea, eb;
  const SavedProfile a = Synthetic(21, 2, false, &ea);
  const SavedProfile b = Synthetic(22, 2, true, &eb);
  const SavedProfile m = Merge({&a, &b});
  const auto folded = testing::FoldedByName(m, m.profile.merged);
  EXPECT_EQ(folded, Sum({testing::FoldedByName(a, a.profile.merged),
                         testing::FoldedByName(b, b.profile.merged)}));
  // And the reference model's expectation of both traces together.
  std::map<std::string, uint64_t> expected = Sum({ea.stacks, eb.stacks});
  std::erase_if(expected, [](const auto& kv) { return kv.second == 0; });
  EXPECT_EQ(folded, expected);
  EXPECT_EQ(m.profile.stats.instructions, ea.instructions + eb.instructions);

  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_EQ(m.sources[0].name, "syn21");
  ASSERT_EQ(m.profile.threads.size(),
            a.profile.threads.size() + b.profile.threads.size());
  size_t from_a = 0;
  for (const ThreadProfile& t : m.profile.threads) {
    const SavedProfile& in = t.capture == 0 ? a : b;
    from_a += t.capture == 0;
    const ThreadProfile* original = nullptr;
    for (const ThreadProfile& o : in.profile.threads) {
      if (o.stream == t.stream && o.context == t.context) original = &o;
    }
    ASSERT_NE(original, nullptr);
    EXPECT_EQ(testing::FoldedByName(m, t.tree),
              testing::FoldedByName(in, original->tree));
  }
  EXPECT_EQ(from_a, a.profile.threads.size());
}

TEST(ProfileMergeTest, ImagesWithoutBuildIdStayApartByContent) {
  auto script = testing::ReadEventScript(hwt::testing::SourceDir() +
                                         "/testdata/saved/one.events");
  ASSERT_TRUE(script.ok());
  const Profile profile = testing::BuildProfile(*script);
  SavedProfile x = testing::SavedFromScript(*script, profile, "x", false);
  SavedProfile y = testing::SavedFromScript(*script, profile, "y", false);
  SavedProfile z = testing::SavedFromScript(*script, profile, "z", false);
  for (SavedImage& image : x.images) image.content_hash = 1;
  for (SavedImage& image : y.images) image.content_hash = 1;
  for (SavedImage& image : z.images) image.content_hash = 2;
  // x and y: the same files (same path and content) are one image each.
  const SavedProfile xy = Merge({&x, &y});
  EXPECT_EQ(xy.images.size(), 2u);
  EXPECT_EQ(xy.profile.blocks.size(), x.profile.blocks.size());
  // z: same paths, other content: other images, blocks kept apart.
  const SavedProfile xz = Merge({&x, &z});
  EXPECT_EQ(xz.images.size(), 4u);
  EXPECT_EQ(xz.profile.blocks.size(), 2 * x.profile.blocks.size());
}

TEST(ProfileMergeTest, ACaptureMergedTwiceIsRefused) {
  const SavedProfile one = FromScriptFile("one");
  ProfileAccumulator acc;
  ASSERT_TRUE(acc.Add(one, "a.hwtprof").ok());
  const absl::Status twice = acc.Add(one, "b.hwtprof");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.message(),
              HasSubstr("b.hwtprof: capture 'one' is already in the merge"));
}

// Samples (SPE) and executed instructions are not the same kind of count:
// their sum would mean nothing.
TEST(ProfileMergeTest, SamplesAndInstructionsDoNotMerge) {
  const SavedProfile one = FromScriptFile("one");
  SavedProfile two = FromScriptFile("two");
  two.profile.counts = ProfileCounts::kSamples;
  ProfileAccumulator acc;
  ASSERT_TRUE(acc.Add(one, "a.hwtprof").ok());
  const absl::Status mixed = acc.Add(two, "b.hwtprof");
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.message(),
              HasSubstr("b.hwtprof: a profile of samples (SPE) and one of "
                        "executed instructions cannot be merged"));
  // Two of samples merge, and the merge counts samples.
  SavedProfile also = FromScriptFile("one");
  also.profile.counts = ProfileCounts::kSamples;
  EXPECT_EQ(Merge({&also, &two}).profile.counts, ProfileCounts::kSamples);
}

TEST(ProfileMergeTest, CodeRangesAreUnited) {
  SavedProfile a = FromScriptFile("one");
  SavedProfile b = FromScriptFile("two");
  a.images[0].code = {{0x401000, "abcd"}, {0x401010, "qr"}};
  // In b, prog is image 1; its code overlaps and bridges a's ranges.
  b.images[1].code = {{0x401002, std::string("cdefghijklmnop")},
                      {0x401020, "z"}};
  const SavedProfile m = Merge({&a, &b});
  const SavedImage* prog = nullptr;
  for (const SavedImage& image : m.images) {
    if (image.path == "/bin/prog") prog = &image;
  }
  ASSERT_NE(prog, nullptr);
  ASSERT_EQ(prog->code.size(), 2u);
  EXPECT_EQ(prog->code[0].vaddr, 0x401000u);
  EXPECT_EQ(prog->code[0].bytes, "abcdefghijklmnopqr");
  EXPECT_EQ(prog->code[1].vaddr, 0x401020u);
  EXPECT_EQ(prog->CodeAt(0x401005, 3), "fgh");
  EXPECT_EQ(prog->CodeAt(0x401012, 1), "");
}

// A merge is only as complete as its oldest input: a 1.0 profile has no
// linkage names, so neither has the merge (the exports refuse it).
TEST(ProfileMergeTest, KeepsTheLowestFormatVersion) {
  SavedProfile a = FromScriptFile("one");
  SavedProfile b = FromScriptFile("two");
  EXPECT_EQ(Merge({&a, &b}).format_minor, kProfileMinorVersion);
  b.format_minor = 0;
  EXPECT_EQ(Merge({&a, &b}).format_minor, 0);
  EXPECT_EQ(Merge({&b, &a}).format_minor, 0);
}

}  // namespace
}  // namespace hwt::analysis
