// Tests of the perf.data parser: the AUX area rebuilt from padded AUXTRACE
// payloads, loss flags as chunk boundaries, sideband in timestamp order at
// the positions the AUX records give, build-ids from the feature section;
// and the corpus files' manifests (Intel PT from perf 4.14, CoreSight ETMv4
// and ETE from simpleperf).
#include "capture/perf/perf_import.h"

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/address_space.h"
#include "capture/perf/perf_format.h"
#include "capture/testing/perf_data_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture::perf {
namespace {

using ::hwt::capture::testing::PerfDataWriter;
using ::testing::HasSubstr;

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string Pattern(size_t n, uint8_t seed) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(seed + i));
  return out;
}

// AUX1 [0,21) t900; COMM exec t1000; MMAP2 t1100; AUX2 [21,40) t1200
// truncated; EXIT t1300; AUX3 [40,50) t1400; FORK t800 written last.
PerfDataWriter TwoPayloads() {
  PerfDataWriter w;
  w.AddAttr(8, 0x2001, {1});
  w.AddFeature(kFeatBuildId,
               PerfDataWriter::BuildIdEntry(-1, 2, "c0ffee00112233", "/bin/t"));
  w.AddFeature(kFeatCpuId,
               PerfDataWriter::FeatureString("GenuineIntel,6,85,4"));
  w.AddPtAuxtraceInfo(8);
  w.AddAux(0, 21, 0, 7, 900, 0);
  w.AddComm(7, 7, "t", true, 1000, 0);
  w.AddMmap2(7, 7, 0x555000, 0x1000, 0, "", "/bin/t", 1100, 0);
  w.AddAuxtrace(0, 0, Pattern(21, 0x10));
  w.AddAux(21, 19, kAuxFlagTruncated, 7, 1200, 0);
  w.AddTask(false, 7, 1, 7, 1, 1300, 0);
  w.AddAux(40, 10, 0, 7, 1400, 0);
  w.AddAuxtrace(21, 0, Pattern(29, 0x40));
  w.AddTask(true, 7, 1, 7, 1, 800, 0);
  return w;
}

TEST(PerfImportTest, RebuildsTheAuxAreaAndPlacesTheSideband) {
  auto dir = TempDir::Create("perf-import-test");
  ASSERT_TRUE(dir.ok());
  PerfDataWriter w = TwoPayloads();
  const std::string file = w.FileForm();
  auto imported = ImportPerfData(Bytes(file), "t.data", dir->path());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Manifest& m = imported->manifest;
  EXPECT_EQ(m.backend, Backend::kPt);
  EXPECT_EQ(m.mode, TraceMode::kCpu);
  EXPECT_EQ(m.cpu.family, 6u);
  EXPECT_EQ(m.cpu.model, 85u);
  EXPECT_EQ(m.cpu.cpuid_15_eax, 2u);    // TSC:CTC denominator
  EXPECT_EQ(m.cpu.cpuid_15_ebx, 100u);  // numerator
  EXPECT_EQ(m.cpu.nominal_frequency_hz, 1'200'000'000u);
  ASSERT_TRUE(m.pt.has_value());
  EXPECT_EQ(m.pt->rtit_ctl & 0x200d, 0x200du);  // BranchEn, User, OS, TraceEn
  ASSERT_EQ(m.buffers.size(), 1u);
  const BufferInfo& b = m.buffers[0];
  EXPECT_EQ(b.cpu, 0);
  EXPECT_TRUE(b.data_lost);
  ASSERT_EQ(b.chunks.size(), 2u);
  EXPECT_EQ(b.chunks[0].offset, 0u);
  EXPECT_EQ(b.chunks[0].size, 40u);
  EXPECT_FALSE(b.chunks[0].data_lost_before);
  EXPECT_EQ(b.chunks[1].offset, 40u);
  EXPECT_EQ(b.chunks[1].size, 10u);
  EXPECT_TRUE(b.chunks[1].data_lost_before);
  // The second payload overwrote the first one's padding.
  auto data = ReadFileToString(dir->path() + "/" + b.file);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->substr(0, 50), Pattern(21, 0x10) + Pattern(29, 0x40));

  // Sideband in time order: FORK (t800) first; exec and exit late, the
  // mapping early.
  std::vector<std::string> order;
  for (const Record& r : imported->records) {
    order.push_back(std::string(RecordTypeName(r.type)));
  }
  EXPECT_EQ(absl::StrJoin(order, " "), "fork aux comm mmap aux exit aux");
  auto position = [&](RecordType type) -> uint64_t {
    for (const Record& r : imported->records) {
      if (r.type == type) return r.positions.at(0).offset;
    }
    return ~uint64_t{0};
  };
  EXPECT_EQ(position(RecordType::kFork), 0u);
  EXPECT_EQ(position(RecordType::kComm), 40u);  // end of the AUX after it
  EXPECT_EQ(position(RecordType::kMmap), 21u);  // end of the AUX before it
  EXPECT_EQ(position(RecordType::kExit), 50u);
  for (const Record& r : imported->records) {
    if (r.type != RecordType::kMmap) continue;
    EXPECT_EQ(r.build_id, "c0ffee00112233");  // from the BUILD_ID feature
    EXPECT_EQ(r.pgoff, 0u);
    EXPECT_EQ(r.length, 0x1000u);
    EXPECT_EQ(r.pid, 7);
    EXPECT_EQ(r.time, 1100u);
    EXPECT_TRUE(r.flags & kRecordFlagExecutable);
  }
  EXPECT_TRUE(imported->warnings.empty())
      << absl::StrJoin(imported->warnings, "\n");
}

TEST(PerfImportTest, PipeAndCompressedFormsImportTheSame) {
  PerfDataWriter w = TwoPayloads();
  auto file = ImportPerfData(Bytes(w.FileForm()), "t.data", "");
  auto pipe = ImportPerfData(Bytes(w.PipeForm()), "t.data", "");
  auto packed = ImportPerfData(Bytes(w.FileForm(33)), "t.data", "");
  ASSERT_TRUE(file.ok() && pipe.ok() && packed.ok());
  for (const PerfImport* other : {&*pipe, &*packed}) {
    ASSERT_EQ(other->records.size(), file->records.size());
    for (size_t i = 0; i < file->records.size(); ++i) {
      EXPECT_EQ(other->records[i].type, file->records[i].type) << i;
      EXPECT_EQ(other->records[i].positions.at(0).offset,
                file->records[i].positions.at(0).offset)
          << i;
      EXPECT_EQ(other->records[i].build_id, file->records[i].build_id) << i;
    }
    EXPECT_EQ(other->manifest.buffers.at(0).chunks.size(), 2u);
  }
}

TEST(PerfImportTest, AuxDataTheFileLacksIsReportedAsLost) {
  PerfDataWriter w;
  w.AddAttr(8, 0, {1});
  w.AddPtAuxtraceInfo(8);
  w.AddAux(0, 4096, 0, 7, 100, 3);
  auto imported = ImportPerfData(Bytes(w.FileForm()), "t.data", "");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_TRUE(imported->manifest.buffers.empty());
  EXPECT_THAT(absl::StrJoin(imported->warnings, "\n"),
              HasSubstr("cpu 3: the kernel reported 4096 bytes of AUX data "
                        "in 1 AUX records, but the file holds 0 of them"));
}

TEST(PerfImportTest, AFileWithoutAuxTraceIsRefusedByOpenPerfData) {
  PerfDataWriter w;
  w.AddAttr(1, 0, {1});
  w.AddComm(7, 7, "t", true, 1000, 0);
  auto dir = TempDir::Create("perf-import-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/sw.data";
  ASSERT_TRUE(WriteFileAtomically(path, w.FileForm()).ok());
  auto capture = OpenCapture(path, {});
  ASSERT_FALSE(capture.ok());
  EXPECT_EQ(capture.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(capture.status().message(), HasSubstr("without AUX area trace"));
}

// --- The corpus ------------------------------------------------------------

absl::StatusOr<PerfImport> ImportCorpus(const std::string& path) {
  auto file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  return ImportPerfData(file->bytes(), path, "");
}

TEST(PerfImportCorpusTest, QuipperIntelPtFileAndPipeForms) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/quipper-intel-pt/";
  auto file = ImportCorpus(dir + "perf.data.intel_pt-4.14");
  ASSERT_TRUE(file.ok()) << file.status();
  auto pipe = ImportCorpus(dir + "perf.data.piped.intel_pt-4.14");
  ASSERT_TRUE(pipe.ok()) << pipe.status();
  EXPECT_FALSE(file->tokenize.pipe);
  EXPECT_TRUE(pipe->tokenize.pipe);
  for (const PerfImport* p : {&*file, &*pipe}) {
    const Manifest& m = p->manifest;
    EXPECT_EQ(m.backend, Backend::kPt);
    EXPECT_EQ(m.cpu.vendor, "GenuineIntel");
    EXPECT_EQ(m.cpu.family, 6u);
    EXPECT_EQ(m.cpu.model, 78u);
    EXPECT_EQ(m.cpu.nominal_frequency_hz, 1'200'000'000u);
    EXPECT_EQ(m.cpu.cpuid_15_eax, 2u);
    EXPECT_EQ(m.cpu.cpuid_15_ebx, 100u);
    ASSERT_EQ(m.buffers.size(), 2u);
    EXPECT_EQ(m.buffers[0].cpu, 0);
    EXPECT_EQ(m.buffers[1].cpu, 3);
    EXPECT_THAT(m.command, HasSubstr("perf record"));
    EXPECT_TRUE(p->warnings.empty()) << absl::StrJoin(p->warnings, "\n");
  }
  // Two recordings (perf report -D: AUXTRACE sizes).
  EXPECT_EQ(file->manifest.buffers[0].size, 12240u);
  EXPECT_EQ(file->manifest.buffers[1].size, 137728u);
  EXPECT_EQ(pipe->manifest.buffers[0].size, 76400u);
  EXPECT_EQ(pipe->manifest.buffers[1].size, 68192u);
  // Build-ids: only the file form has them (the BUILD_ID feature).
  size_t with_id = 0;
  for (const Record& r : file->records) with_id += !r.build_id.empty();
  EXPECT_EQ(with_id, 66u);  // 56 kernel maps + 10 MMAP2
}

TEST(PerfImportCorpusTest, SimpleperfEtmv4Capture) {
  HWT_REQUIRE_CORPUS(corpus);
  auto p = ImportCorpus(corpus + "/simpleperf-etm/perf_etm.data");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->simpleperf);
  const Manifest& m = p->manifest;
  EXPECT_EQ(m.backend, Backend::kCoreSight);
  ASSERT_TRUE(m.coresight.has_value());
  EXPECT_TRUE(m.coresight->formatted);
  EXPECT_FALSE(m.coresight->reset_on_4x_fsync);
  ASSERT_EQ(m.coresight->sources.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const CoreSightSource& s = m.coresight->sources[i];
    EXPECT_EQ(s.architecture, "etmv4");
    EXPECT_EQ(s.cpu, static_cast<int32_t>(i));
    EXPECT_EQ(s.trace_id, 0x10 + 2 * i);
    EXPECT_EQ(s.registers.at("TRCCONFIGR"), 0x40u);
    EXPECT_EQ(s.registers.at("TRCIDR0"), 0x28000ea1u);
  }
  ASSERT_EQ(m.buffers.size(), 1u);
  EXPECT_EQ(m.buffers[0].cpu, 7);
  EXPECT_EQ(m.buffers[0].size, 0x180u);
  EXPECT_FALSE(m.buffers[0].data_lost);
  for (const Record& r : p->records) {
    if (r.path == "/data/local/tmp/etm_test_loop" &&
        r.type == RecordType::kMmap && (r.flags & kRecordFlagExecutable)) {
      EXPECT_EQ(r.addr, 0x582b2b1000u);
      EXPECT_EQ(r.pgoff, 0x1000u);
      EXPECT_EQ(r.build_id, "0c9a20bf9c009d0e4e8bbf9fad0300ae");
      // perf report -D: the AUX record for [0x50, 0xa0) is at time
      // 1118688029825, this MMAP2 at 1118688864877, the next AUX (from
      // 0xa0) after it; so the text is mapped from 0xa0 on.
      EXPECT_EQ(r.positions.at(0).offset, 0xa0u);
    }
  }
}

TEST(PerfImportCorpusTest, SimpleperfEteOverTrbeIsUnformatted) {
  HWT_REQUIRE_CORPUS(corpus);
  auto p =
      ImportCorpus(corpus + "/simpleperf-etm/perf_with_unformatted_trace.data");
  ASSERT_TRUE(p.ok()) << p.status();
  const Manifest& m = p->manifest;
  ASSERT_TRUE(m.coresight.has_value());
  EXPECT_FALSE(m.coresight->formatted);
  ASSERT_EQ(m.buffers.size(), 1u);
  EXPECT_EQ(m.buffers[0].size, 0x4cu);  // AUX size; the payload's padding cut
  ASSERT_EQ(m.coresight->sources.size(), 1u);  // only the CPU with a buffer
  EXPECT_EQ(m.coresight->sources[0].architecture, "ete");
  EXPECT_EQ(m.coresight->sources[0].registers.at("TRCDEVARCH"), 0x47715a13u);
  EXPECT_EQ(m.coresight->sources[0].buffer, 0u);
}

TEST(PerfImportCorpusTest, SimpleperfKernelTraceAndMissingAuxData) {
  HWT_REQUIRE_CORPUS(corpus);
  auto kernel = ImportCorpus(corpus + "/simpleperf-etm/perf_kernel.data");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  ASSERT_EQ(kernel->manifest.buffers.size(), 2u);
  for (const BufferInfo& b : kernel->manifest.buffers) {
    EXPECT_TRUE(b.data_lost) << "AUX records flagged [T]";
  }
  auto missing =
      ImportCorpus(corpus + "/simpleperf-etm/perf_with_missing_aux_data.data");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_TRUE(missing->manifest.buffers.empty());
  const std::string warnings = absl::StrJoin(missing->warnings, "\n");
  EXPECT_THAT(warnings, HasSubstr("cpu 7: the kernel reported"));
  EXPECT_THAT(warnings, HasSubstr("cpu 4: the kernel reported"));
  EXPECT_THAT(warnings, HasSubstr("but the file holds 0 of them"));
}

}  // namespace
}  // namespace hwt::capture::perf
