// Which ETMv4/ETE packet types the decode keeps from OpenCSD's decoder
// for a trace unit that does not speculate, and what it says about one.
#include "decoders/coresight/speculation_guard.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

using ::testing::HasSubstr;

TEST(SpeculationGuardTest, MispredictClassPackets) {
  // The four that mark the newest atom mispredicted (ETMv4 architecture
  // specification, "Mispredict" and "Cancel" packets).
  for (ocsd_etmv4_i_pkt_type type :
       {ETM4_PKT_I_MISPREDICT, ETM4_PKT_I_CANCEL_F1_MISPRED,
        ETM4_PKT_I_CANCEL_F2, ETM4_PKT_I_CANCEL_F3}) {
    EXPECT_TRUE(MispredictsAtom(type)) << type;
    EXPECT_TRUE(ImpossibleWithoutSpeculation(0, type)) << type;
    EXPECT_FALSE(ImpossibleWithoutSpeculation(1, type)) << type;
    EXPECT_FALSE(ImpossibleWithoutSpeculation(0x78, type)) << type;
  }
}

TEST(SpeculationGuardTest, OtherPacketsPass) {
  // Cancel format 1 without mispredict, Commit and the atoms are legal
  // without speculation as far as the guard is concerned.
  for (ocsd_etmv4_i_pkt_type type :
       {ETM4_PKT_I_CANCEL_F1, ETM4_PKT_I_COMMIT, ETM4_PKT_I_ATOM_F1,
        ETM4_PKT_I_ATOM_F6, ETM4_PKT_I_ADDR_L_64IS0, ETM4_PKT_I_ASYNC,
        ETM4_PKT_I_TRACE_INFO, ETM4_PKT_I_BAD_SEQUENCE}) {
    EXPECT_FALSE(MispredictsAtom(type)) << type;
    EXPECT_FALSE(ImpossibleWithoutSpeculation(0, type)) << type;
  }
}

TEST(SpeculationGuardTest, MessageNamesProtocolPacketAndReason) {
  const std::string message =
      SpeculationErrorMessage("ETE", "I_MISPREDICT : Mispredict.");
  EXPECT_THAT(message, HasSubstr("bad ETE packet: I_MISPREDICT : Mispredict."));
  EXPECT_THAT(message, HasSubstr("TRCIDR8.MAXSPEC 0"));
  EXPECT_THAT(message, HasSubstr("up to the next A-Sync"));
}

}  // namespace
}  // namespace hwt::coresight
