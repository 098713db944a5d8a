// SavedExportInput on the hand-made profile of analysis/saved/testing
// (EveryFieldSet: image 0 has function f at 0x1000, named "_Z1fv" in the
// symbol table, with g inlined at its first instruction): functions, source
// frames and segments come from the profile as saved, and a profile of
// format 1.0 is refused for export.
#include "report/export/saved_export_input.h"

#include "analysis/saved/testing/saved_profiles.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/naming/saved_symbols.h"

namespace hwt::report {
namespace {

using ::testing::HasSubstr;

TEST(SavedExportInputTest, NamesFramesAndSegmentsComeFromTheProfile) {
  const analysis::SavedProfile saved = analysis::testing::EveryFieldSet();
  const analysis::BlockExpansion expansion;
  SavedProfileSymbols symbols(saved);
  SavedExportInput input(saved, expansion, symbols);
  ASSERT_EQ(input.image_count(), saved.images.size());
  const ExportImage& image = input.image(0);
  EXPECT_EQ(image.path, "/bin/x");
  EXPECT_EQ(image.build_id, "abc");
  ASSERT_EQ(image.segments.size(), 1u);
  EXPECT_EQ(image.segments[0].vaddr, 0x1000u);
  EXPECT_EQ(image.segments[0].file_offset, 0x10u);
  EXPECT_TRUE(image.segments[0].executable());

  auto f = input.Function(0, 0x1000);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->name, "f");
  EXPECT_EQ(f->linkage_name, "_Z1fv");
  EXPECT_EQ(f->size, 0x20u);
  EXPECT_EQ(f->start_line, 2u);  // the function frame's, at its start
  EXPECT_EQ(f->file, "f.c");
  EXPECT_FALSE(input.Function(0, 0x1001).has_value());   // not a start
  EXPECT_FALSE(input.Function(99, 0x1000).has_value());  // no such image

  const CodeAddress at[] = {{0, 0x1000}, {0, 0x1234}, {analysis::kNoImage, 1}};
  const auto frames = input.SourceFrames(at);
  ASSERT_EQ(frames.size(), 3u);
  ASSERT_EQ(frames[0].size(), 2u);
  EXPECT_EQ(frames[0][0].function, "g");
  EXPECT_EQ(frames[0][0].linkage_name, "_Z1gv");
  EXPECT_EQ(frames[0][0].line, 7u);
  EXPECT_EQ(frames[0][0].discriminator, 2u);
  EXPECT_EQ(frames[0][0].start_line, 6u);
  EXPECT_TRUE(frames[0][0].inlined);
  EXPECT_EQ(frames[0][1].function, "f");
  EXPECT_FALSE(frames[0][1].inlined);
  EXPECT_TRUE(frames[1].empty());  // no saved address
  EXPECT_TRUE(frames[2].empty());  // outside every image
}

TEST(SavedExportInputTest, AProfileOfFormat1_0IsNotExportable) {
  analysis::SavedProfile saved = analysis::testing::EveryFieldSet();
  EXPECT_TRUE(CheckExportable(saved).ok());
  saved.format_minor = 0;
  const absl::Status status = CheckExportable(saved);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("format 1.0"));
  EXPECT_THAT(status.message(), HasSubstr("save it again"));
}

}  // namespace
}  // namespace hwt::report
