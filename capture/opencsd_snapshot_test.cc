// Tests of the OpenCSD snapshot reader: the corpus snapshots (checked against
// their .ini files by hand) and malformed snapshots written here.
#include "capture/opencsd_snapshot.h"

#include <map>
#include <string>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ------------------------------------------------------- corpus snapshots

TEST(OpenCsdSnapshotTest, A57SingleStep) {
  HWT_REQUIRE_CORPUS(corpus);
  std::string dir = corpus + "/opencsd/snapshots/a57_single_step";
  ASSERT_TRUE(IsOpenCsdSnapshot(dir));
  auto capture = OpenOpenCsdSnapshot(dir, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Manifest& m = (*capture)->manifest();
  EXPECT_EQ((*capture)->kind(), InputKind::kOpenCsdSnapshot);
  EXPECT_EQ((*capture)->root(), dir);
  EXPECT_EQ(m.backend, Backend::kCoreSight);
  ASSERT_EQ(m.buffers.size(), 1u);
  EXPECT_EQ(m.buffers[0].file, "CSTMC_TRACE_FIFO.bin");
  EXPECT_EQ(m.buffers[0].size, 128u);
  ASSERT_TRUE(m.coresight.has_value());
  EXPECT_TRUE(m.coresight->formatted);
  EXPECT_FALSE(m.coresight->has_fsyncs);
  ASSERT_EQ(m.coresight->sources.size(), 1u);
  const CoreSightSource& s = m.coresight->sources[0];
  EXPECT_EQ(s.architecture, "etmv4");
  EXPECT_EQ(s.trace_id, 0x10u);
  EXPECT_EQ(s.arch_version, "v8");  // Cortex-A57
  EXPECT_EQ(s.core_profile, "A");
  EXPECT_EQ(s.buffer, 0u);
  EXPECT_EQ(s.registers.at("TRCCONFIGR"), 1u);
  EXPECT_EQ(s.registers.at("TRCIDR0"), 0x08000CA1u);
  EXPECT_EQ(s.registers.at("TRCVICTLR"), 0x201u);
  ASSERT_EQ(m.memory.size(), 1u);
  EXPECT_EQ(m.memory[0].file, "mem_Cortex-A57_0.bin");
  EXPECT_EQ(m.memory[0].address, 0xFFFEB448u);
  EXPECT_EQ(m.memory[0].size, 0u);  // whole file
  EXPECT_EQ(m.memory[0].space, MemorySpace::kEL2N);
}

TEST(OpenCsdSnapshotTest, Tc2MixesEtmv3AndPtmAndSkipsItm) {
  HWT_REQUIRE_CORPUS(corpus);
  auto capture = OpenOpenCsdSnapshot(corpus + "/opencsd/snapshots/TC2", {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Manifest& m = (*capture)->manifest();
  ASSERT_TRUE(m.coresight.has_value());
  EXPECT_EQ(m.coresight->sink, "etb");  // buffer ETB_0
  std::map<uint32_t, std::string> arch_by_id;
  std::map<uint32_t, int32_t> cpu_by_id;
  for (const CoreSightSource& s : m.coresight->sources) {
    arch_by_id[s.trace_id] = s.architecture;
    ASSERT_TRUE(s.cpu.has_value());
    cpu_by_id[s.trace_id] = *s.cpu;
    EXPECT_EQ(s.arch_version, "v7");
  }
  // ETM_0..2 -> cpu_0..2 (Cortex-A7), PTM_0..1 -> cpu_3..4 (Cortex-A15);
  // ITM_0 is not program-flow trace.
  EXPECT_EQ(arch_by_id.size(), 5u);
  EXPECT_EQ(arch_by_id[0x10], "etmv3");
  EXPECT_EQ(arch_by_id[0x13], "ptm");
  EXPECT_EQ(cpu_by_id[0x13], 3);
  // Five cores name the same kernel dump: it is mapped once.
  ASSERT_EQ(m.memory.size(), 1u);
  EXPECT_EQ(m.memory[0].file, "kernel_dump.bin");
  EXPECT_EQ(m.memory[0].address, 0xC0008000u);
  EXPECT_EQ(m.memory[0].size, 0x50000u);
}

TEST(OpenCsdSnapshotTest, JunoHasTwoBuffersAndStmIsLeftOut) {
  HWT_REQUIRE_CORPUS(corpus);
  auto capture =
      OpenOpenCsdSnapshot(corpus + "/opencsd/snapshots/juno_r1_1", {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Manifest& m = (*capture)->manifest();
  ASSERT_EQ(m.buffers.size(), 2u);
  EXPECT_EQ(m.buffers[1].file, "cstraceitm.bin");
  EXPECT_EQ(m.coresight->sources.size(), 6u);
  for (const CoreSightSource& s : m.coresight->sources) {
    EXPECT_EQ(s.buffer, 0u);
    EXPECT_EQ(s.architecture, "etmv4");
  }
}

TEST(OpenCsdSnapshotTest, EteSourceDataIsUnformatted) {
  HWT_REQUIRE_CORPUS(corpus);
  auto capture =
      OpenOpenCsdSnapshot(corpus + "/opencsd/snapshots-ete/001-ack_test", {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Manifest& m = (*capture)->manifest();
  ASSERT_TRUE(m.coresight.has_value());
  EXPECT_FALSE(m.coresight->formatted);
  EXPECT_EQ(m.coresight->sink, "raw");
  ASSERT_EQ(m.coresight->sources.size(), 1u);
  EXPECT_EQ(m.coresight->sources[0].architecture, "ete");
  EXPECT_EQ(m.coresight->sources[0].trace_id, 2u);
  EXPECT_EQ(m.coresight->sources[0].registers.at("TRCDEVARCH"), 0x47705a13u);
  EXPECT_EQ(m.coresight->sources[0].cpu, 0);
  EXPECT_EQ(m.buffers[0].cpu, 0);
  EXPECT_EQ(m.memory.size(), 125u);
  EXPECT_EQ(m.memory[0].file, "bindir/code_91_0_exec");
  EXPECT_EQ(m.memory[0].address, 0x010029d8u);
  EXPECT_EQ(m.memory[0].size, 0x14u);
}

TEST(OpenCsdSnapshotTest, AcceptsThePathOfSnapshotIni) {
  HWT_REQUIRE_CORPUS(corpus);
  std::string ini = corpus + "/opencsd/snapshots/a57_single_step/snapshot.ini";
  EXPECT_TRUE(IsOpenCsdSnapshot(ini));
  auto capture = OpenOpenCsdSnapshot(ini, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  EXPECT_EQ((*capture)->root(), corpus + "/opencsd/snapshots/a57_single_step");
}

TEST(OpenCsdSnapshotTest, EveryCorpusSnapshotOpens) {
  HWT_REQUIRE_CORPUS(corpus);
  int opened = 0;
  for (const char* group : {"snapshots", "snapshots-ete"}) {
    auto listing =
        hwt::testing::RunCommand({"ls", "-1", corpus + "/opencsd/" + group});
    ASSERT_EQ(listing.exit_code, 0);
    std::string names = listing.out;
    size_t pos = 0;
    while (pos < names.size()) {
      size_t nl = names.find('\n', pos);
      std::string name = names.substr(pos, nl - pos);
      pos = nl == std::string::npos ? names.size() : nl + 1;
      if (name.empty()) continue;
      std::string dir = corpus + "/opencsd/" + group + "/" + name;
      auto capture = OpenOpenCsdSnapshot(dir, {});
      EXPECT_TRUE(capture.ok()) << dir << ": " << capture.status();
      ++opened;
    }
  }
  EXPECT_EQ(opened, 40);
}

TEST(CoreArchProfileTest, NamesAndPatterns) {
  EXPECT_EQ(CoreArchProfileForName("Cortex-A53").arch_version, "v8");
  EXPECT_EQ(CoreArchProfileForName("Cortex-A55").arch_version, "v8.3");
  EXPECT_EQ(CoreArchProfileForName("Cortex-A9").arch_version, "v7");
  EXPECT_EQ(CoreArchProfileForName("Cortex-M4").profile, "M");
  EXPECT_EQ(CoreArchProfileForName("ARM-AA64").arch_version, "aa64");
  EXPECT_EQ(CoreArchProfileForName("ARMv8.2-A").arch_version, "v8");
  EXPECT_EQ(CoreArchProfileForName("ARMv8.3-R").profile, "R");
  EXPECT_EQ(CoreArchProfileForName("ARMv8.4-A").arch_version, "aa64");
  EXPECT_EQ(CoreArchProfileForName("ARMv7-M").arch_version, "v7");
  EXPECT_EQ(CoreArchProfileForName("Pentium").arch_version, "");
  EXPECT_EQ(CoreArchProfileForName("ARMv8-X").arch_version, "");
}

// ------------------------------------------------------ malformed input

constexpr char kSnapshotIni[] =
    "[snapshot]\nversion=1.0\n[device_list]\ndevice0=cpu_0.ini\n"
    "device1=etm_0.ini\n[trace]\nmetadata=trace.ini\n";
constexpr char kCpuIni[] =
    "[device]\nname=cpu_0\nclass=core\ntype=Cortex-A53\n[regs]\nPC=0\n"
    "[dump1]\nfile=code.bin\naddress=0x1000\n";
constexpr char kEtmIni[] =
    "[device]\nname=etm_0\nclass=trace_source\ntype=ETM4\n[regs]\n"
    "TRCCONFIGR(0x004)=0x1\nTRCTRACEIDR(0x010)=0x10\n"
    "TRCIDR0(0x078)=0x28000EA1\nTRCIDR2(0x07A)=0x488\n";
constexpr char kTraceIni[] =
    "[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=etr_0\n"
    "file=trace.bin\nformat=coresight\n[source_buffers]\netm_0=etr_0\n"
    "[core_trace_sources]\ncpu_0=etm_0\n";

class MalformedSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-snapshot-test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_.emplace(std::move(*dir));
    files_ = {{"snapshot.ini", kSnapshotIni},
              {"cpu_0.ini", kCpuIni},
              {"etm_0.ini", kEtmIni},
              {"trace.ini", kTraceIni},
              {"trace.bin", std::string(32, '\0')},
              {"code.bin", std::string(16, '\0')}};
  }

  // Writes the files (after the test's edits) and opens the snapshot.
  absl::StatusOr<std::unique_ptr<Capture>> Open() {
    for (const auto& [name, text] : files_) {
      absl::Status s = WriteFileAtomically(dir_->path() + "/" + name, text);
      EXPECT_TRUE(s.ok()) << s;
    }
    return OpenOpenCsdSnapshot(dir_->path(), {});
  }

  void Replace(const std::string& file, const std::string& from,
               const std::string& to) {
    std::string& text = files_[file];
    size_t pos = text.find(from);
    ASSERT_NE(pos, std::string::npos) << from;
    text.replace(pos, from.size(), to);
  }

  std::optional<TempDir> dir_;
  std::map<std::string, std::string> files_;
};

TEST_F(MalformedSnapshotTest, TheTemplateIsValid) {
  auto capture = Open();
  ASSERT_TRUE(capture.ok()) << capture.status();
  const Manifest& m = (*capture)->manifest();
  EXPECT_EQ(m.coresight->sink, "etr");
  EXPECT_EQ(m.coresight->sources[0].trace_id, 0x10u);
  EXPECT_EQ(m.coresight->sources[0].cpu, 0);
  ASSERT_EQ(m.memory.size(), 1u);
  EXPECT_EQ(m.memory[0].address, 0x1000u);
}

TEST_F(MalformedSnapshotTest, NoSnapshotIni) {
  files_.erase("snapshot.ini");
  auto capture = Open();
  EXPECT_TRUE(absl::IsNotFound(capture.status())) << capture.status();
  EXPECT_THAT(capture.status().message(), HasSubstr("snapshot"));
}

TEST_F(MalformedSnapshotTest, MissingTraceIdRegister) {
  Replace("etm_0.ini", "TRCTRACEIDR(0x010)=0x10\n", "");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("etm_0.ini: [regs] TRCTRACEIDR missing"));
}

TEST_F(MalformedSnapshotTest, RegisterValueNotANumber) {
  Replace("etm_0.ini", "TRCIDR0(0x078)=0x28000EA1", "TRCIDR0(0x078)=0x28zz");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("etm_0.ini:8: [regs] TRCIDR0(0x078): '0x28zz' is not "
                        "a number"));
}

TEST_F(MalformedSnapshotTest, RegisterTwice) {
  Replace("etm_0.ini", "TRCIDR2(0x07A)=0x488\n",
          "TRCIDR2(0x07A)=0x488\ntrcidr2=0x488\n");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(), HasSubstr("register given twice"));
}

TEST_F(MalformedSnapshotTest, UnknownBufferFormat) {
  Replace("trace.ini", "format=coresight", "format=tpiu_frames");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("trace.ini:6: [buffer0] format: unknown trace buffer "
                        "format 'tpiu_frames'"));
}

TEST_F(MalformedSnapshotTest, DumpWithoutAddress) {
  Replace("cpu_0.ini", "address=0x1000\n", "");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("cpu_0.ini: [dump1]: memory dump without 'address'"));
}

TEST_F(MalformedSnapshotTest, UnknownMemorySpace) {
  Replace("cpu_0.ini", "address=0x1000\n", "address=0x1000\nspace=EL7\n");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("[dump1] space: unknown memory space 'EL7'"));
}

TEST_F(MalformedSnapshotTest, MissingTraceBufferFile) {
  files_.erase("trace.bin");
  auto capture = Open();
  EXPECT_TRUE(absl::IsNotFound(capture.status())) << capture.status();
  EXPECT_THAT(capture.status().message(),
              HasSubstr("[buffer0] file=trace.bin: no such file"));
}

TEST_F(MalformedSnapshotTest, BufferSectionMissing) {
  Replace("trace.ini", "buffers=buffer0", "buffers=buffer0,buffer1");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(), HasSubstr("no [buffer1] section"));
}

TEST_F(MalformedSnapshotTest, BufferWithoutFile) {
  Replace("trace.ini", "file=trace.bin\n", "");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("trace.ini: [buffer0]: missing 'file'"));
}

TEST_F(MalformedSnapshotTest, SourceWithoutDevice) {
  Replace("trace.ini", "etm_0=etr_0", "etm_7=etr_0");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("[source_buffers] etm_7: no device named 'etm_7'"));
}

TEST_F(MalformedSnapshotTest, LineWithoutEquals) {
  Replace("cpu_0.ini", "PC=0", "PC 0");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("cpu_0.ini:6: expected 'key=value'"));
}

TEST_F(MalformedSnapshotTest, DuplicateTraceIdsInOneBuffer) {
  files_["etm_1.ini"] = files_["etm_0.ini"];
  Replace("etm_1.ini", "name=etm_0", "name=etm_1");
  Replace("snapshot.ini", "device1=etm_0.ini\n",
          "device1=etm_0.ini\ndevice2=etm_1.ini\n");
  Replace("trace.ini", "etm_0=etr_0\n", "etm_0=etr_0\netm_1=etr_0\n");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(), HasSubstr("both use trace ID 0x10"));
}

TEST_F(MalformedSnapshotTest, OnlyStmSources) {
  Replace("etm_0.ini", "type=ETM4", "type=STM");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("no ETM, PTM or ETE trace source"));
}

TEST_F(MalformedSnapshotTest, UnsupportedVersion) {
  Replace("snapshot.ini", "version=1.0", "version=2.0");
  auto capture = Open();
  ASSERT_FALSE(capture.ok());
  EXPECT_THAT(capture.status().message(),
              HasSubstr("unsupported snapshot version '2.0'"));
}

TEST_F(MalformedSnapshotTest, CommentsAndTrailingCommaAreAccepted) {
  Replace("trace.ini", "buffers=buffer0", "buffers=buffer0, ; the ETR");
  Replace("cpu_0.ini", "[dump1]", "# code\n[dump1]");
  auto capture = Open();
  ASSERT_TRUE(capture.ok()) << capture.status();
  EXPECT_THAT((*capture)->manifest().buffers.size(), 1u);
}

}  // namespace
}  // namespace hwt::capture
