// Fuzzes the perf.data importer: the input is a file given to a tool.
// OpenCapture recognises it as perf.data (file or pipe form) and imports it
// (tokenizer, COMPRESSED records, features, AUXTRACE_INFO, AUX areas rebuilt
// into buffer files below $TMPDIR, sideband placed), then the address-space
// timeline is built and every buffer mapped. Seeds: perf.data files made with
// the tests' writer (Intel PT AUXTRACE_INFO, sideband, AUX and AUXTRACE
// records; file, pipe and zstd-compressed forms), and the shared corpus's
// small simpleperf ETM captures when it is there.
//
// Checks: no crash, no hang; a refusal names the file; an imported capture's
// buffers have the sizes its manifest states; the temporary directory of the
// import is gone once the capture is destroyed.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "capture/capture.h"
#include "capture/perf/perf_format.h"
#include "capture/testing/perf_data_writer.h"
#include "fuzz/capture_checks.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::capture::testing::PerfDataWriter;
using hwt::fuzz::Fail;
namespace fs = std::filesystem;

std::string* g_input = nullptr;
std::string* g_tmp = nullptr;
std::string* g_sysroot = nullptr;

// A small Intel PT recording: two processes' sideband, AUX marks (one
// truncated) and the AUXTRACE data they describe.
PerfDataWriter Sample() {
  PerfDataWriter w;
  w.AddAttr(8, 0x2001, {11, 12});
  w.AddFeature(hwt::capture::perf::kFeatHostname,
               PerfDataWriter::FeatureString("box"));
  w.AddFeature(hwt::capture::perf::kFeatBuildId,
               PerfDataWriter::BuildIdEntry(-1, 2, "abcdef0123", "/bin/true"));
  w.AddPtAuxtraceInfo(8);
  w.AddComm(7, 7, "true", true, 1000, 0);
  w.AddMmap2(7, 7, 0x400000, 0x1000, 0, "", "/bin/true", 1100, 0);
  w.AddAux(0, 24, 0, 7, 1200, 0);
  w.AddTask(true, 9, 7, 9, 7, 1250, 0);
  w.AddAux(24, 16, hwt::capture::perf::kAuxFlagTruncated, 9, 1300, 0);
  w.AddAuxtrace(0, 0, std::string(40, '\x02'));
  w.AddTask(false, 7, 1, 7, 1, 1400, 0);
  return w;
}

std::string CorpusDir() {
  const char* env = getenv("HWT_CORPUS_DIR");
  if (env != nullptr && *env) return env;
  return hwt::fuzz::SourceDir() + "/../shared/corpus";
}

void Initialize() {
  const std::string scratch = hwt::fuzz::ScratchDir();
  g_input = new std::string(scratch + "/input.data");
  g_tmp = new std::string(scratch + "/tmp");
  g_sysroot = new std::string(scratch + "/sysroot");  // empty: no host files
  fs::create_directories(*g_tmp);
  // The importer writes its buffers below $TMPDIR: watch that directory.
  setenv("TMPDIR", g_tmp->c_str(), 1);

  const PerfDataWriter sample = Sample();
  std::vector<std::string> seeds = {sample.FileForm(), sample.PipeForm(),
                                    sample.FileForm(/*compress_chunk=*/64)};
  for (const char* name : {"simpleperf-etm/perf_etm.data",
                           "simpleperf-etm/perf_with_unformatted_trace.data"}) {
    std::string bytes;
    if (hwt::fuzz::ReadFile(CorpusDir() + "/" + name, &bytes)) {
      seeds.push_back(bytes);
    }
  }
  hwt::fuzz::WriteGeneratedSeeds("perf_data", seeds);
}

bool EmptyDir(const std::string& dir) {
  std::error_code error;
  return fs::is_empty(dir, error) || error;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hwt::fuzz::WriteFileOrDie(*g_input, absl::MakeConstSpan(data, size));
  {
    hwt::capture::InputOptions options;
    options.sysroot = *g_sysroot;
    hwt::fuzz::CheckOpensAsATool(*g_input, options, "file");
  }
  if (!EmptyDir(*g_tmp)) Fail("the import left temporary files behind");
  return 0;
}
