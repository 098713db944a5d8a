// SPE aggregations keyed by (image, ELF vaddr): samples per instruction and
// per function, latency distributions (total, issue, translation), event and
// operation breakdowns, data sources, and data-address hot spots (64-byte
// cache lines, 4 KiB pages, and data addresses inside images for data-symbol
// attribution at report time). Built by streaming records through
// SpeProfileBuilder (a spe::RecordSink; in a capture's decode, SPE's profile
// extension feeds it: spe_extension.h); memory grows with unique addresses,
// not with the number of samples. Function identity comes from a
// FunctionResolver, asked once per unique sampled instruction.
#ifndef HWT_ANALYSIS_SPE_PROFILE_H_
#define HWT_ANALYSIS_SPE_PROFILE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/function_resolver.h"
#include "analysis/sample_address_map.h"
#include "analysis/spe_latency.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/midr.h"
#include "decoders/spe/op_type.h"
#include "decoders/spe/stats.h"

namespace hwt::analysis {

// Pseudo-function starts for samples outside every image (image kNoImage):
// user code and kernel code (EL1/EL2) are kept apart.
inline constexpr uint64_t kSpeUnknownUserCode = 0;
inline constexpr uint64_t kSpeUnknownKernelCode = 1;

struct SpeFunctionKey {
  uint32_t image = kNoImage;
  // Resolved: the function's start vaddr. Unresolved inside an image: the
  // image's whole unsymbolized code is one pseudo-function (start = end = 0,
  // resolved = false). Outside every image: kSpeUnknownUserCode/KernelCode.
  uint64_t start = 0;
  bool resolved = false;

  bool operator==(const SpeFunctionKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const SpeFunctionKey& k) {
    return H::combine(std::move(h), k.image, k.start, k.resolved);
  }
};

// Counters kept for every instruction, cache line, page and data address.
struct SpeSampleCounters {
  uint64_t samples = 0;
  uint64_t latency_samples = 0;  // samples with a total latency
  uint64_t total_latency = 0;    // sum, cycles
  uint64_t loads = 0;
  uint64_t stores = 0;
  uint64_t l1d_refill = 0;
  uint64_t l2d_miss = 0;
  uint64_t llc_miss = 0;
  uint64_t tlb_walk = 0;
  uint64_t remote = 0;
  uint64_t mispredicted = 0;

  double mean_latency() const {
    return latency_samples == 0
               ? 0.0
               : static_cast<double>(total_latency) / latency_samples;
  }
  void Add(const spe::Record& record);
  void Merge(const SpeSampleCounters& other);
};

struct SpeLatencies {
  LatencyDistribution total;
  LatencyDistribution issue;
  LatencyDistribution translation;
  void Add(const spe::Record& record);
  void Merge(const SpeLatencies& other);
};

// Everything kept per function, and (in SpeProfile) for all samples.
struct SpeBreakdown {
  uint64_t samples = 0;
  SpeSampleCounters counters;
  SpeLatencies latencies;
  std::array<uint64_t, 64> events{};  // per event bit
  std::array<uint64_t, spe::kNumOpCategories> op_categories{};
  uint64_t without_data_source = 0;

  void Add(const spe::Record& record);
  void Merge(const SpeBreakdown& other);
  // Raw data source value -> samples.
  std::map<uint64_t, uint64_t> DataSources() const;

 private:
  // Values below 16 (all known tables) in an array, others in a map: no
  // allocation per sample.
  std::array<uint64_t, 16> data_sources_low_{};
  std::map<uint64_t, uint64_t> data_sources_high_;
};

struct SpeInstruction {
  MappedAddress address;  // image kNoImage: vaddr = the raw PC
  uint8_t el = 0;
  uint32_t function = 0;  // index into SpeProfile::functions
  SpeSampleCounters counters;
};

struct SpeFunction {
  SpeFunctionKey key;
  uint64_t end = 0;  // resolved: [key.start, end)
  SpeBreakdown breakdown;
};

struct SpeHotSpot {
  uint64_t base = 0;  // first address of the line or page
  SpeSampleCounters counters;
};

struct SpeDataAddress {
  MappedAddress address;  // data VA inside an image
  SpeSampleCounters counters;
};

struct SpeImageInfo {
  std::string path;  // as recorded
  bool kernel = false;
};

struct SpeProfile {
  spe::CpuModel cpu;
  std::vector<SpeImageInfo> images;  // the timeline's images, by index
  uint64_t records = 0;              // complete records seen
  uint64_t partial_records = 0;      // seen and left out
  uint64_t records_without_pc = 0;   // complete but no PC (left out)
  uint64_t samples = 0;              // records aggregated
  uint64_t samples_in_images = 0;    // PC inside a mapped image
  uint64_t kernel_samples = 0;       // PC at EL1 or above
  uint64_t samples_with_data_address = 0;
  uint64_t data_addresses_in_images = 0;
  SpeBreakdown all;
  // Sorted by samples (descending), then key, for stable output.
  std::vector<SpeFunction> functions;
  std::vector<SpeInstruction> instructions;
  std::vector<SpeHotSpot> cache_lines;  // 64 B, by data VA
  std::vector<SpeHotSpot> pages;        // 4 KiB, by data VA
  std::vector<SpeDataAddress> data_addresses;
};

struct SpeProfileOptions {
  static constexpr uint64_t kCacheLineBytes = 64;
  static constexpr uint64_t kPageBytes = 4096;
};

class SpeProfileBuilder : public spe::RecordSink {
 public:
  // `address_map` and `resolver` may be null (addresses stay raw; functions
  // are per image). Both must outlive the builder.
  SpeProfileBuilder(SampleAddressMap* address_map, FunctionResolver* resolver,
                    spe::CpuModel cpu);

  void OnRecords(uint32_t buffer,
                 absl::Span<const spe::Record> records) override;
  void Add(uint32_t buffer, const spe::Record& record);

  // Sorts and returns the aggregates; the builder is empty afterwards.
  SpeProfile Finish();

 private:
  struct InstructionKey {
    uint32_t image;
    uint64_t vaddr;
    bool operator==(const InstructionKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const InstructionKey& k) {
      return H::combine(std::move(h), k.image, k.vaddr);
    }
  };

  uint32_t FunctionFor(const MappedAddress& address, uint8_t el);

  SampleAddressMap* address_map_;
  FunctionResolver* resolver_;
  SpeProfile profile_;
  absl::flat_hash_map<InstructionKey, uint32_t> instruction_index_;
  absl::flat_hash_map<SpeFunctionKey, uint32_t> function_index_;
  absl::flat_hash_map<uint64_t, SpeSampleCounters> lines_;
  absl::flat_hash_map<uint64_t, SpeSampleCounters> pages_;
  absl::flat_hash_map<InstructionKey, SpeSampleCounters> data_addresses_;
};

// An SPE capture's aggregations and SPE's own decode statistics: what SPE's
// profile extension (spe_extension.h) builds in the capture's decode.
struct SpeCaptureProfile {
  SpeProfile profile;
  spe::CaptureStats stats;  // the decoder's SPE statistics
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SPE_PROFILE_H_
