// Golden tests: testdata/analysis/NAME.events -> NAME.profile, the complete
// text of the profile (trees, functions, call edges, blocks, edges, paths,
// and for scripts with code bytes the per-instruction counts and loops).
// The files were reviewed by hand against docs/call-stacks.md and the
// conventions in analysis/*.h. Every input is also cut into segments at
// each event boundary, which must not change a byte.
// HWT_UPDATE_GOLDEN=1 rewrites the .profile files (review the diff!).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/block_expansion.h"
#include "analysis/loops.h"
#include "analysis/profile.h"
#include "analysis/profile_text.h"
#include "analysis/testing/event_script.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using testing::EventScript;

std::string ExpansionText(const EventScript& script, const Profile& profile) {
  testing::ScriptCodeReader reader(script);
  const BlockExpansion x = ExpandBlocks(profile, reader);
  std::string out;
  for (const std::string& error : x.errors) {
    absl::StrAppend(&out, "expand-error ", error, "\n");
  }
  for (const InstructionStats& s : x.instructions) {
    absl::StrAppend(&out, absl::StrFormat("insn %u:0x%x len=%u count=%u",
                                          s.image, s.vaddr, s.length, s.count));
    if (s.conditional) {
      absl::StrAppend(&out, " taken=", s.taken, " not_taken=", s.not_taken);
    }
    absl::StrAppend(&out, "\n");
  }
  for (const Loop& loop : FindLoops(profile, x)) {
    absl::StrAppend(
        &out,
        absl::StrFormat("loop %u:0x%x-0x%x back_edges=%u entries=%u "
                        "trips=%.2f insns=%u latches=",
                        loop.image, loop.header, loop.end, loop.back_edges,
                        loop.entries, loop.trip_count(), loop.instructions));
    for (size_t i = 0; i < loop.latches.size(); ++i) {
      absl::StrAppend(&out, i ? "," : "",
                      absl::StrFormat("0x%x", loop.latches[i]));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

TEST(GoldenTest, ProfilesMatchReviewedFiles) {
  const std::string dir = hwt::testing::SourceDir() + "/testdata/analysis";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".events") continue;
    const std::string path = entry.path().string();
    const std::string stem = path.substr(0, path.size() - 7);
    SCOPED_TRACE(path);
    absl::StatusOr<EventScript> script = testing::ReadEventScript(path);
    ASSERT_TRUE(script.ok()) << script.status();
    const Profile profile = testing::BuildProfile(*script);
    const EventScript& s = *script;
    std::string text = ProfileToText(profile, [&s](const FrameKey& key) {
      return testing::ScriptFrameName(s, key);
    });
    if (!script->code.empty()) text += ExpansionText(*script, profile);

    hwt::testing::ExpectMatchesGolden(text, stem + ".profile");

    const std::string sequential = ProfileToText(profile);
    for (size_t cut = 0; cut <= script->events.size(); ++cut) {
      EXPECT_EQ(
          testing::FirstDifference(
              ProfileToText(testing::BuildProfileInSegments(*script, {cut})),
              sequential),
          "")
          << "cut before event " << cut;
    }
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace hwt::analysis
