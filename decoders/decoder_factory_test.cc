// CreateDecoder() picks the decoder by backend (PT, CoreSight, SPE) and says
// clearly what it cannot decode.
#include <memory>

#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "decoders/spe/trace_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

std::unique_ptr<capture::Capture> MakeCapture(capture::Backend backend) {
  capture::Manifest manifest;
  manifest.backend = backend;
  return std::make_unique<capture::Capture>(
      capture::InputKind::kBundleDirectory, "test.hwt", "/nonexistent",
      manifest, std::vector<capture::Record>{}, capture::InputOptions{},
      std::nullopt);
}

TEST(DecoderFactoryTest, PtGetsThePtDecoder) {
  auto capture = MakeCapture(capture::Backend::kPt);
  capture::AddressSpaceTimeline timeline;
  auto decoder = CreateDecoder(*capture, timeline, DecoderOptions());
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  EXPECT_TRUE((*decoder)->streams().empty());
}

TEST(DecoderFactoryTest, CoreSightGetsTheCoreSightDecoder) {
  // Without a coresight section the CoreSight decoder itself refuses, which
  // shows the factory handed the capture to it.
  capture::AddressSpaceTimeline timeline;
  auto coresight = CreateDecoder(*MakeCapture(capture::Backend::kCoreSight),
                                 timeline, DecoderOptions());
  ASSERT_FALSE(coresight.ok());
  EXPECT_THAT(coresight.status().message(), ::testing::HasSubstr("CoreSight"));
}

TEST(DecoderFactoryTest, SpeGetsTheSpeDecoder) {
  capture::AddressSpaceTimeline timeline;
  auto decoder = CreateDecoder(*MakeCapture(capture::Backend::kSpe), timeline,
                               DecoderOptions());
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  EXPECT_NE(spe::SpeCaptureStatsOf(**decoder), nullptr);
  EXPECT_TRUE((*decoder)->streams().empty());
  auto pt = CreateDecoder(*MakeCapture(capture::Backend::kPt), timeline,
                          DecoderOptions());
  ASSERT_TRUE(pt.ok()) << pt.status();
  EXPECT_EQ(spe::SpeCaptureStatsOf(**pt), nullptr);
}

TEST(DecoderFactoryTest, UnknownBackendIsAClearError) {
  capture::AddressSpaceTimeline timeline;
  auto unknown = CreateDecoder(*MakeCapture(capture::Backend::kUnknown),
                               timeline, DecoderOptions());
  EXPECT_THAT(unknown.status().message(), ::testing::HasSubstr("test.hwt"));
}

}  // namespace
}  // namespace hwt
