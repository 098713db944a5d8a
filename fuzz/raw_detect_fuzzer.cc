// Fuzzes the detection of bare raw trace files (capture/raw_detect.h): every
// detector and DetectRawBackend over the input, then OpenCapture on it as a
// file (the path hwt tools take for a raw file, including the archive
// sniffing that comes first). Seeds: SPE records from testdata, a PT stream
// start, CoreSight frames and syncs, and the shared corpus's raw traces
// (copied in by scripts/fuzz.sh).
//
// Checks: no crash, no hang; a detection names a backend and a reason; a
// refusal names the file; DetectRawBackend agrees with the detector that
// recognised the bytes; OpenCapture of a detected file yields that backend.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/hex_dump.h"
#include "capture/capture.h"
#include "capture/elf_file.h"
#include "capture/raw_detect.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::capture::Backend;
using hwt::capture::DetectorResult;
using hwt::fuzz::Fail;

std::string* g_path = nullptr;

void CheckResult(const DetectorResult& result, const char* detector,
                 Backend expected) {
  if (result.detection) {
    if (result.detection->backend != expected) {
      Fail(absl::StrFormat(
          "%s detected backend %s", detector,
          std::string(hwt::capture::BackendName(result.detection->backend))));
    }
    HWT_FUZZ_CHECK(!result.detection->reason.empty(),
                   std::string(detector) + ": detection without a reason");
  } else {
    HWT_FUZZ_CHECK(!result.rejection.empty(),
                   std::string(detector) + ": rejection without a reason");
  }
}

void Initialize() {
  std::vector<std::string> seeds;
  std::string spe;
  if (hwt::fuzz::ReadFile(
          hwt::fuzz::SourceDir() + "/testdata/spe/quipper_records.hex", &spe)) {
    absl::StatusOr<std::string> bytes = hwt::ParseHexDump(spe);
    hwt::fuzz::CheckOk(bytes.status(), "quipper_records.hex");
    seeds.push_back(*bytes);
  }
  // PT: PAD, PSB, PSBEND.
  std::string pt(4, '\0');
  for (int i = 0; i < 8; ++i) pt += "\x02\x82";
  pt += std::string("\x02\x23", 2);
  seeds.push_back(pt);
  // CoreSight: an ETMv4 alignment sync, then a formatted frame with IDs.
  seeds.push_back(std::string(11, '\0') + "\x80" + std::string(20, '\x04'));
  std::string frame = "\x21\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00";
  frame.resize(15, '\0');
  frame += '\x01';
  seeds.push_back(frame + frame);
  seeds.push_back(std::string("\xff\xff\xff\x7f", 4) + frame);
  hwt::fuzz::WriteGeneratedSeeds("raw", seeds);
  g_path = new std::string(hwt::fuzz::ScratchDir() + "/trace.bin");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = absl::MakeConstSpan(data, size);
  const DetectorResult pt = hwt::capture::DetectPt(bytes);
  CheckResult(pt, "DetectPt", Backend::kPt);
  CheckResult(hwt::capture::DetectCoreSightFormatted(bytes),
              "DetectCoreSightFormatted", Backend::kCoreSight);
  CheckResult(hwt::capture::DetectCoreSightFrameSyncs(bytes),
              "DetectCoreSightFrameSyncs", Backend::kCoreSight);
  CheckResult(hwt::capture::DetectCoreSightUnformatted(bytes),
              "DetectCoreSightUnformatted", Backend::kCoreSight);
  CheckResult(hwt::capture::DetectCoreSight(bytes), "DetectCoreSight",
              Backend::kCoreSight);
  const DetectorResult spe = hwt::capture::DetectSpe(bytes);
  CheckResult(spe, "DetectSpe", Backend::kSpe);

  auto detected = hwt::capture::DetectRawBackend(bytes, "fuzz/trace.bin");
  if (detected.ok()) {
    HWT_FUZZ_CHECK(detected->backend != Backend::kUnknown,
                   "DetectRawBackend: unknown backend");
    if (pt.detection) {
      HWT_FUZZ_CHECK(detected->backend == Backend::kPt,
                     "DetectPt recognised PT, DetectRawBackend did not");
    }
  } else {
    HWT_FUZZ_CHECK(
        hwt::fuzz::Contains(detected.status().message(), "fuzz/trace.bin"),
        "DetectRawBackend error does not name the file: " +
            detected.status().ToString());
    // An ELF file is refused as such even when it holds a PSB.
    HWT_FUZZ_CHECK(
        hwt::capture::LooksLikeElf(bytes) || (!pt.detection && !spe.detection),
        "a detector recognised the bytes, DetectRawBackend not");
  }

  // As a file named on the command line.
  hwt::fuzz::WriteFileOrDie(*g_path, bytes);
  auto capture = hwt::capture::OpenCapture(*g_path, {});
  if (capture.ok()) {
    if ((*capture)->kind() == hwt::capture::InputKind::kRawFile) {
      HWT_FUZZ_CHECK(
          detected.ok() && (*capture)->manifest().backend == detected->backend,
          "OpenCapture's backend differs from DetectRawBackend's");
      HWT_FUZZ_CHECK((*capture)->manifest().buffers.size() == 1 &&
                         (*capture)->manifest().buffers[0].size == size,
                     "raw capture buffer does not cover the file");
    }
  } else {
    HWT_FUZZ_CHECK(hwt::fuzz::Contains(capture.status().message(), *g_path),
                   "OpenCapture error does not name the file: " +
                       capture.status().ToString());
  }
  return 0;
}
