// Decode throughput of the SPE decoder on a generated 64 MiB stream of
// realistic records (loads/stores with data addresses and latencies, branches
// with targets, timestamps): MiB/s and records/s, with statistics only and
// with a sink that touches every record.
#include <cstdint>
#include <random>
#include <string>

#include "benchmark/benchmark.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"

namespace hwt::spe {
namespace {

constexpr size_t kStreamBytes = size_t{64} << 20;

const std::string& Stream() {
  static const std::string* stream = [] {
    std::mt19937_64 rng(42);
    SpeEncoder e;
    while (e.size() < kStreamBytes) {
      RecordSpec spec;
      spec.pc = 0x400000 + (rng() % 0x100000) * 4;
      spec.el = 0;
      spec.context = 100 + static_cast<uint32_t>(rng() % 4);
      spec.issue_latency = static_cast<uint16_t>(rng() % 64);
      spec.total_latency =
          static_cast<uint16_t>(*spec.issue_latency + rng() % 400);
      spec.timestamp = rng();
      switch (rng() % 4) {
        case 0:  // load
        case 1:
          spec.op_class = 1;
          spec.op = 0x00;
          spec.events = 0x16 | ((rng() % 8 == 0) ? 0x8 : 0);
          spec.data_va = 0x7fff00000000 + (rng() % (1 << 24));
          spec.translation_latency = static_cast<uint16_t>(rng() % 20);
          spec.data_source = (rng() % 8 == 0) ? 0xe : 0x0;
          break;
        case 2:  // store
          spec.op_class = 1;
          spec.op = 0x01;
          spec.events = 0x16;
          spec.data_va = 0x7fff00000000 + (rng() % (1 << 24));
          break;
        default:  // branch
          spec.op_class = 2;
          spec.op = 0x01;
          spec.events = 0x2 | ((rng() % 16 == 0) ? 0x80 : 0);
          spec.branch_target = 0x400000 + (rng() % 0x100000) * 4;
          break;
      }
      EncodeRecord(spec, e);
    }
    return new std::string(e.bytes());
  }();
  return *stream;
}

class SummingSink : public RecordSink {
 public:
  void OnRecords(uint32_t, absl::Span<const Record> records) override {
    for (const Record& r : records) sum_ += r.pc + r.total_latency;
  }
  uint64_t sum() const { return sum_; }

 private:
  uint64_t sum_ = 0;
};

void Report(benchmark::State& state, const SpeStats& stats) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(stats.bytes));
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(stats.records) * state.iterations(),
      benchmark::Counter::kIsRate);
  state.counters["records"] = static_cast<double>(stats.records);
  state.counters["MiB"] = static_cast<double>(stats.bytes) / (1 << 20);
}

void BM_SpeDecodeStatsOnly(benchmark::State& state) {
  const std::string& stream = Stream();
  auto bytes = absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(stream.data()), stream.size());
  SpeStats stats;
  for (auto _ : state) {
    stats = DecodeBytes(bytes, nullptr);
    benchmark::DoNotOptimize(stats.records);
  }
  Report(state, stats);
}
BENCHMARK(BM_SpeDecodeStatsOnly)->Unit(benchmark::kMillisecond);

void BM_SpeDecodeToSink(benchmark::State& state) {
  const std::string& stream = Stream();
  auto bytes = absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(stream.data()), stream.size());
  SpeStats stats;
  for (auto _ : state) {
    SummingSink sink;
    stats = DecodeBytes(bytes, &sink);
    benchmark::DoNotOptimize(sink.sum());
  }
  Report(state, stats);
}
BENCHMARK(BM_SpeDecodeToSink)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hwt::spe

BENCHMARK_MAIN();
