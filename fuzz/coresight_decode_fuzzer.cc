// Fuzzes the CoreSight decode path (deformatter, OpenCSD packet processors
// and decoders through our C API wrapper, element -> event mapping,
// statistics) and the packet lister, with fixed OpenCSD snapshots from the
// shared corpus: the input's first byte picks the snapshot, the rest replaces
// its trace buffer.
//   0: opencsd/snapshots/a57_single_step  (ETMv4, formatted ETF frames)
//   1: opencsd/snapshots/trace_cov_a15    (PTM, unformatted source data)
//   2: opencsd/snapshots-ete/001-ack_test (ETE, unformatted, as TRBE writes)
// Seeds: each snapshot's own trace. Without the corpus ($HWT_CORPUS_DIR, or
// ../shared/corpus beside the repository) the fuzzer says so and exits 77
// (ctest: skipped).
//
// Checks (decode_fixture.h): no crash, no hang, Decode/ListPackets succeed,
// offsets inside the buffer, trace_bytes == bytes_decoded + bytes_lost per
// stream, and at most the input size over all streams (frame headers belong
// to no stream).
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capture/capture.h"
#include "fuzz/decode_fixture.h"
#include "fuzz/fuzz_support.h"

namespace {

struct Snapshot {
  std::unique_ptr<hwt::fuzz::DecodeFixture> fixture;
  bool formatted = true;
};
std::vector<Snapshot>* g_snapshots = nullptr;

std::string CorpusDir() {
  const char* env = getenv("HWT_CORPUS_DIR");
  if (env != nullptr && *env) return env;
  return hwt::fuzz::SourceDir() + "/../shared/corpus";
}

bool IsDir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void Initialize() {
  const std::string corpus = CorpusDir();
  const char* names[] = {"opencsd/snapshots/a57_single_step",
                         "opencsd/snapshots/trace_cov_a15",
                         "opencsd/snapshots-ete/001-ack_test"};
  g_snapshots = new std::vector<Snapshot>();
  std::vector<std::string> seeds;
  for (const char* name : names) {
    const std::string dir = corpus + "/" + name;
    if (!IsDir(dir)) {
      // 77 makes ctest report the replay skipped; in CI a missing corpus
      // fails instead (docs/reliability.md, "No silent skips").
      const char* ci = getenv("CI");
      const bool in_ci = ci != nullptr && *ci && strcmp(ci, "0") != 0 &&
                         strcmp(ci, "false") != 0;
      fprintf(stderr,
              "coresight_decode_fuzzer: %s not found: this fuzzer needs the "
              "shared corpus (set HWT_CORPUS_DIR); %s\n",
              dir.c_str(), in_ci ? "failing (CI)" : "exiting");
      exit(in_ci ? 1 : 77);
    }
    auto capture = hwt::capture::OpenCapture(dir, {});
    hwt::fuzz::CheckOk(capture.status(), "OpenCapture");
    std::string trace;
    if (!hwt::fuzz::ReadFile((*capture)->BufferPath(0), &trace)) {
      hwt::fuzz::Fail("cannot read " + (*capture)->BufferPath(0));
    }
    if (trace.size() > 4096) trace.resize(4096);
    seeds.push_back(std::string(1, static_cast<char>(g_snapshots->size())) +
                    trace);
    Snapshot snapshot;
    snapshot.formatted = (*capture)->manifest().coresight &&
                         (*capture)->manifest().coresight->formatted;
    snapshot.fixture =
        std::make_unique<hwt::fuzz::DecodeFixture>(std::move(*capture), 0);
    g_snapshots->push_back(std::move(snapshot));
  }
  hwt::fuzz::WriteGeneratedSeeds("coresight", seeds);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Snapshot& snapshot = (*g_snapshots)[data[0] % g_snapshots->size()];
  auto trace = absl::MakeConstSpan(data + 1, size - 1);
  auto capture = snapshot.fixture->WithTrace(trace);
  snapshot.fixture->DecodeAndCheck(*capture, trace.size(),
                                   /*deformatted=*/snapshot.formatted);
  return 0;
}
