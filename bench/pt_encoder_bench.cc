// Throughput of the synthetic execution generator and of the PT encoder
// (instructions per second, trace bytes per instruction), for the numbers in
// the recorder's documentation and to size gigabyte-scale benchmark traces.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "recorder/pt_encoder.h"
#include "recorder/synthetic_program.h"

namespace hwt::recorder {
namespace {

class CountingSink : public ExecutionSink {
 public:
  void OnMapping(const MappingEvent&) override {}
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    count += ips.size();
    for (uint64_t ip : ips) checksum ^= ip;
  }
  uint64_t count = 0;
  uint64_t checksum = 0;
};

class VectorSink : public ExecutionSink {
 public:
  void OnMapping(const MappingEvent&) override {}
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    ips_.insert(ips_.end(), ips.begin(), ips.end());
  }
  std::vector<uint64_t> ips_;
};

const SyntheticProgram& Program() {
  static const SyntheticProgram* program = [] {
    SyntheticProgramOptions options;
    options.seed = 42;
    options.functions = 64;
    return new SyntheticProgram(SyntheticProgram::Generate(options));
  }();
  return *program;
}

const std::vector<uint64_t>& Execution() {
  static const std::vector<uint64_t>* ips = [] {
    VectorSink sink;
    SyntheticExecutionOptions run;
    run.instructions = 8'000'000;
    RunSyntheticExecution(Program(), run, &sink);
    return new std::vector<uint64_t>(std::move(sink.ips_));
  }();
  return *ips;
}

void BM_SyntheticExecution(benchmark::State& state) {
  SyntheticExecutionOptions run;
  run.instructions = 4'000'000;
  uint64_t total = 0;
  for (auto _ : state) {
    CountingSink sink;
    RunSyntheticExecution(Program(), run, &sink);
    benchmark::DoNotOptimize(sink.checksum);
    total += sink.count;
  }
  state.counters["insn/s"] = benchmark::Counter(static_cast<double>(total),
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SyntheticExecution)->Unit(benchmark::kMillisecond);

// Arg 0: 0 = no timing, 1 = TSC+MTC+CYC; arg 1: return compression.
void BM_PtEncoder(benchmark::State& state) {
  const std::vector<uint64_t>& ips = Execution();
  auto source = Program().NewInsnSource();
  PtEncoderOptions options;
  if (state.range(0) != 0) {
    options.timing.tsc = options.timing.mtc = options.timing.cyc = true;
  }
  options.return_compression = state.range(1) != 0;
  uint64_t bytes = 0, instructions = 0;
  for (auto _ : state) {
    uint64_t written = 0;
    PtEncoder encoder(source.get(), options, [&](std::string_view data) {
      written += data.size();
      return absl::OkStatus();
    });
    for (size_t i = 0; i < ips.size(); i += 4096) {
      encoder.OnInstructions(absl::MakeConstSpan(ips).subspan(i, 4096));
    }
    encoder.OnExit(0);
    if (!encoder.Finish().ok()) state.SkipWithError("encoder failed");
    bytes += written;
    instructions += ips.size();
  }
  state.counters["insn/s"] = benchmark::Counter(
      static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["bytes/insn"] =
      static_cast<double>(bytes) / static_cast<double>(instructions);
  state.counters["MiB/s"] =
      benchmark::Counter(static_cast<double>(bytes) / (1024.0 * 1024.0),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PtEncoder)
    ->Args({0, 1})
    ->Args({0, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hwt::recorder

BENCHMARK_MAIN();
