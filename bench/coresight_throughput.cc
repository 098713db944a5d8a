// Measures CoreSight decode throughput on an OpenCSD snapshot (not a test:
// timing numbers for the report, to compare with `trc_pkt_lister -decode`).
//   coresight_throughput SNAPSHOT_DIR [JOBS [REPEAT]]
// Prints trace MiB/s, instruction ranges/s and instructions/s, by wall
// clock and by CPU time of the process (the machine may be shared).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "capture/address_space.h"
#include "capture/opencsd_snapshot.h"
#include "decoders/coresight/coresight_decoder.h"

namespace {

double CpuSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

class CountingSink : public hwt::EventSink {
 public:
  void OnEvents(uint32_t, absl::Span<const hwt::Event> events) override {
    for (const hwt::Event& e : events) {
      if (e.kind == hwt::EventKind::kBlock) {
        ++blocks;
        instructions += e.ninsn;
      }
    }
  }
  uint64_t blocks = 0;
  uint64_t instructions = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SNAPSHOT_DIR [JOBS [REPEAT]]\n", argv[0]);
    return 2;
  }
  hwt::DecoderOptions options;
  options.jobs = argc > 2 ? atoi(argv[2]) : 1;
  int repeat = argc > 3 ? atoi(argv[3]) : 3;
  auto capture = hwt::capture::OpenOpenCsdSnapshot(argv[1], {});
  if (!capture.ok()) {
    fprintf(stderr, "%s\n", std::string(capture.status().message()).c_str());
    return 1;
  }
  auto timeline = hwt::capture::BuildAddressSpaceTimeline(**capture);
  if (!timeline.ok()) {
    fprintf(stderr, "%s\n", std::string(timeline.status().message()).c_str());
    return 1;
  }
  uint64_t trace_bytes = 0;
  for (const auto& b : (*capture)->manifest().buffers) trace_bytes += b.size;
  double best = 1e30;
  double best_cpu = 1e30;
  CountingSink last;
  for (int i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    double cpu_start = CpuSeconds();
    auto decoder =
        hwt::coresight::CreateCoreSightDecoder(**capture, *timeline, options);
    if (!decoder.ok()) {
      fprintf(stderr, "%s\n", std::string(decoder.status().message()).c_str());
      return 1;
    }
    CountingSink sink;
    absl::Status s = (*decoder)->Decode(sink);
    if (!s.ok()) {
      fprintf(stderr, "%s\n", std::string(s.message()).c_str());
      return 1;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (seconds < best) best = seconds;
    double cpu = CpuSeconds() - cpu_start;
    if (cpu < best_cpu) best_cpu = cpu;
    last = sink;
  }
  printf("%s: %llu trace bytes, %llu ranges, %llu instructions, jobs %d\n",
         argv[1], static_cast<unsigned long long>(trace_bytes),
         static_cast<unsigned long long>(last.blocks),
         static_cast<unsigned long long>(last.instructions), options.jobs);
  printf("wall, best of %d: %.3f s, %.2f MiB/s, %.0f ranges/s, %.0f insn/s\n",
         repeat, best, trace_bytes / best / (1 << 20), last.blocks / best,
         last.instructions / best);
  printf("cpu,  best of %d: %.3f s, %.2f MiB/s, %.0f ranges/s, %.0f insn/s\n",
         repeat, best_cpu, trace_bytes / best_cpu / (1 << 20),
         last.blocks / best_cpu, last.instructions / best_cpu);
  return 0;
}
