// Decoder configuration from registers: required registers, OpenCSD's
// defaults, trace ID sources, architecture and profile.
#include "decoders/coresight/ocsd_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

using ::testing::HasSubstr;

capture::CoreSightSource Etmv4() {
  capture::CoreSightSource s;
  s.architecture = "etmv4";
  s.trace_id = 0x10;
  s.cpu = 2;
  s.registers = {
      {"TRCCONFIGR", 0x1}, {"TRCIDR0", 0x28000EA1}, {"TRCIDR2", 0x488}};
  return s;
}

TEST(OcsdConfigTest, Etmv4DefaultsAndTraceIdFromTheManifest) {
  auto cfg = MakeSourceDecoderConfig(Etmv4(), 3);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_STREQ(cfg->decoder_name, OCSD_BUILTIN_DCD_ETMV4I);
  EXPECT_EQ(cfg->protocol, OCSD_PROTOCOL_ETMV4I);
  EXPECT_EQ(cfg->trace_id, 0x10);
  EXPECT_EQ(cfg->description, "source 3 (etmv4, trace ID 0x10, cpu 2)");
  const auto& c = std::get<ocsd_etmv4_cfg>(cfg->config);
  EXPECT_EQ(c.reg_idr1, 0x4100F403u);  // OpenCSD's default
  EXPECT_EQ(c.reg_idr8, 0u);
  EXPECT_EQ(c.reg_traceidr, 0x10u);
  EXPECT_EQ(c.arch_ver, ARCH_V8);
  EXPECT_EQ(c.core_prof, profile_CortexA);
}

TEST(OcsdConfigTest, TraceIdFromTheRegisterAlone) {
  auto s = Etmv4();
  s.trace_id = 0;
  s.registers["TRCTRACEIDR"] = 0x93;  // only the low 7 bits are the ID
  auto cfg = MakeSourceDecoderConfig(s, 0);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->trace_id, 0x13);
}

capture::CoreSightSource Etmv4With(std::string arch, std::string profile) {
  auto s = Etmv4();
  s.arch_version = std::move(arch);
  s.core_profile = std::move(profile);
  return s;
}

TEST(OcsdConfigTest, ArchitectureVersionAndProfile) {
  auto cfg = MakeSourceDecoderConfig(Etmv4With("v8.3", "M"), 0);
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(std::get<ocsd_etmv4_cfg>(cfg->config).arch_ver, ARCH_V8r3);
  EXPECT_EQ(std::get<ocsd_etmv4_cfg>(cfg->config).core_prof, profile_CortexM);
  EXPECT_THAT(
      MakeSourceDecoderConfig(Etmv4With("v9", ""), 0).status().message(),
      HasSubstr("unknown core architecture version 'v9'"));
  EXPECT_THAT(MakeSourceDecoderConfig(Etmv4With("", "X"), 0).status().message(),
              HasSubstr("unknown core profile 'X'"));
}

TEST(OcsdConfigTest, EteDefaults) {
  auto s = Etmv4();
  s.architecture = "ete";
  auto cfg = MakeSourceDecoderConfig(s, 0);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  const auto& c = std::get<ocsd_ete_cfg>(cfg->config);
  EXPECT_EQ(c.reg_devarch, 0x47705A13u);
  EXPECT_EQ(c.arch_ver, ARCH_AA64);
  EXPECT_STREQ(cfg->decoder_name, OCSD_BUILTIN_DCD_ETE);
  EXPECT_EQ(cfg->max_speculation, 0u);
}

// A decode runs ETE on OpenCSD's ETMv4 decoder: the ETMv4 configuration
// carries the ETE registers, with the version TRCDEVARCH gives (what
// OpenCSD's EteConfig derives) in TRCIDR1's version fields.
TEST(OcsdConfigTest, EteAsEtmv4) {
  auto s = Etmv4();
  s.architecture = "ete";
  s.registers["TRCIDR1"] = 0x4100FFF0;
  s.registers["TRCIDR8"] = 0x78;
  s.registers["TRCDEVARCH"] = 0x47725A13;  // ETE major 5, minor 2
  auto cfg = MakeSourceDecoderConfig(s, 0);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->max_speculation, 0x78u);
  ASSERT_TRUE(cfg->etmv4_equivalent.has_value());
  const ocsd_etmv4_cfg& v4 = *cfg->etmv4_equivalent;
  EXPECT_EQ(v4.reg_idr0, 0x28000EA1u);
  EXPECT_EQ(v4.reg_idr1, 0x4100F520u);
  EXPECT_EQ(v4.reg_idr2, 0x488u);
  EXPECT_EQ(v4.reg_idr8, 0x78u);
  EXPECT_EQ(v4.reg_configr, 0x1u);
  EXPECT_EQ(v4.reg_traceidr, 0x10u);
  EXPECT_EQ(v4.arch_ver, ARCH_AA64);
  EXPECT_FALSE(MakeSourceDecoderConfig(Etmv4(), 0)->etmv4_equivalent);
}

TEST(OcsdConfigTest, Etmv3AndPtmNeedTheirRegisters) {
  capture::CoreSightSource s;
  s.architecture = "ptm";
  s.registers = {{"ETMIDR", 0x411CF300},
                 {"ETMCR", 0xC000},
                 {"ETMCCER", 0x34C01AC2},
                 {"ETMTRACEIDR", 0x13}};
  auto cfg = MakeSourceDecoderConfig(s, 1);
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->trace_id, 0x13);
  EXPECT_EQ(std::get<ocsd_ptm_cfg>(cfg->config).arch_ver, ARCH_V7);
  s.architecture = "etmv3";
  s.registers.erase("ETMCCER");
  EXPECT_THAT(MakeSourceDecoderConfig(s, 1).status().message(),
              HasSubstr("register ETMCCER missing"));
}

TEST(OcsdConfigTest, Rejections) {
  auto s = Etmv4();
  s.registers["TRCIDR2"] = 0x100000000;
  EXPECT_THAT(MakeSourceDecoderConfig(s, 0).status().message(),
              HasSubstr("does not fit in 32 bits"));
  s = Etmv4();
  s.registers["TRCCONFIGR"] = 0x30001;
  EXPECT_THAT(MakeSourceDecoderConfig(s, 0).status().message(),
              HasSubstr("enables data trace"));
  s = Etmv4();
  s.architecture = "stm";
  EXPECT_THAT(MakeSourceDecoderConfig(s, 0).status().message(),
              HasSubstr("unknown trace source architecture 'stm'"));
}

}  // namespace
}  // namespace hwt::coresight
