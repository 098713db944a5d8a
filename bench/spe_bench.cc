// Decode throughput of the SPE decoder on a generated 64 MiB stream of
// realistic records (loads/stores with data addresses and latencies, branches
// with targets, timestamps): MiB/s and records/s, with statistics only, with
// a sink that touches every record, and decoding into an SpeProfile.
#include <cstdint>
#include <random>
#include <string>

#include "analysis/spe_profile.h"
#include "benchmark/benchmark.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"

namespace hwt::spe {
namespace {

constexpr size_t kStreamBytes = size_t{64} << 20;

// Realistic locality: 90% of the samples hit 2,000 hot instructions and a
// 64 KiB hot data region; the rest spread over 4 MiB of code and 16 MiB of
// data. `uniform`: every sample spread (the aggregation's worst case: about
// 800,000 distinct instructions).
std::string MakeStream(bool uniform) {
  std::mt19937_64 rng(42);
  SpeEncoder e;
  auto pc = [&] {
    bool hot = !uniform && rng() % 10 != 0;
    return 0x400000 + (rng() % (hot ? 2000 : 0x100000)) * 4;
  };
  auto va = [&] {
    bool hot = !uniform && rng() % 10 != 0;
    return 0x7fff00000000 + rng() % (hot ? (1 << 16) : (1 << 24));
  };
  while (e.size() < kStreamBytes) {
    RecordSpec spec;
    spec.pc = pc();
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
        spec.data_va = va();
        spec.translation_latency = static_cast<uint16_t>(rng() % 20);
        spec.data_source = (rng() % 8 == 0) ? 0xe : 0x0;
        break;
      case 2:  // store
        spec.op_class = 1;
        spec.op = 0x01;
        spec.events = 0x16;
        spec.data_va = va();
        break;
      default:  // branch
        spec.op_class = 2;
        spec.op = 0x01;
        spec.events = 0x2 | ((rng() % 16 == 0) ? 0x80 : 0);
        spec.branch_target = pc();
        break;
    }
    EncodeRecord(spec, e);
  }
  return e.bytes();
}

const std::string& Stream() {
  static const std::string* stream = new std::string(MakeStream(false));
  return *stream;
}

const std::string& UniformStream() {
  static const std::string* stream = new std::string(MakeStream(true));
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

// Decode plus aggregation into a profile: one image covering every PC,
// functions of 256 bytes.
class FixedResolver : public analysis::FunctionResolver {
 public:
  std::optional<analysis::FunctionRange> FunctionAt(uint32_t,
                                                    uint64_t vaddr) override {
    return analysis::FunctionRange{vaddr & ~uint64_t{255},
                                   (vaddr & ~uint64_t{255}) + 256};
  }
};

void DecodeAndProfile(benchmark::State& state, const std::string& stream) {
  auto bytes = absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(stream.data()), stream.size());
  capture::AddressSpaceTimeline timeline;
  timeline.SetBufferCount(1);
  capture::Image image;
  image.recorded_path = "/bin/app";
  timeline.AddImage(image);
  capture::AddressSpaceChange change;
  change.region = timeline.AddRegion({0, 0x400000, 0x800000, 0, 0x400000, 0});
  timeline.AddChange(0, change);
  FixedResolver resolver;
  SpeStats stats;
  for (auto _ : state) {
    analysis::SampleAddressMap map(&timeline, 1);
    analysis::SpeProfileBuilder builder(&map, &resolver, IdentifyCpu(0));
    stats = DecodeBytes(bytes, &builder);
    analysis::SpeProfile profile = builder.Finish();
    benchmark::DoNotOptimize(profile.samples);
    state.counters["instructions"] =
        static_cast<double>(profile.instructions.size());
    state.counters["functions"] = static_cast<double>(profile.functions.size());
  }
  Report(state, stats);
}

void BM_SpeDecodeAndProfile(benchmark::State& state) {
  DecodeAndProfile(state, Stream());
}
BENCHMARK(BM_SpeDecodeAndProfile)->Unit(benchmark::kMillisecond);

void BM_SpeDecodeAndProfileUniform(benchmark::State& state) {
  DecodeAndProfile(state, UniformStream());
}
BENCHMARK(BM_SpeDecodeAndProfileUniform)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hwt::spe

BENCHMARK_MAIN();
