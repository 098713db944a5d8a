// SPE aggregations; see spe_profile.h.
#include "analysis/spe_profile.h"

#include <algorithm>
#include <bit>
#include <tuple>

#include "decoders/spe/events.h"

namespace hwt::analysis {
namespace {

using spe::Record;

bool HasEvent(const Record& r, int bit) { return (r.events >> bit) & 1; }

// Samples descending, then the key ascending: deterministic output.
template <typename T, typename Key>
void SortBySamples(std::vector<T>& items, Key key) {
  std::sort(items.begin(), items.end(), [&](const T& a, const T& b) {
    uint64_t sa = a.counters.samples, sb = b.counters.samples;
    if (sa != sb) return sa > sb;
    return key(a) < key(b);
  });
}

std::vector<SpeHotSpot> HotSpots(
    const absl::flat_hash_map<uint64_t, SpeSampleCounters>& map) {
  std::vector<SpeHotSpot> out;
  out.reserve(map.size());
  for (const auto& [base, counters] : map) out.push_back({base, counters});
  SortBySamples(out, [](const SpeHotSpot& h) { return h.base; });
  return out;
}

}  // namespace

void SpeSampleCounters::Add(const Record& r) {
  ++samples;
  if (r.has(spe::kFieldTotalLatency)) {
    ++latency_samples;
    total_latency += r.total_latency;
  }
  if (r.has(spe::kFieldOpType) && r.op_class == 1) {
    if (r.op_payload & 1) {
      ++stores;
    } else {
      ++loads;
    }
  }
  l1d_refill += HasEvent(r, spe::kEventL1dRefill);
  l2d_miss += HasEvent(r, spe::kEventL2dMiss);
  llc_miss += HasEvent(r, spe::kEventLlcMiss);
  tlb_walk += HasEvent(r, spe::kEventTlbWalk);
  remote += HasEvent(r, spe::kEventRemoteAccess);
  mispredicted += HasEvent(r, spe::kEventMispredicted);
}

void SpeSampleCounters::Merge(const SpeSampleCounters& o) {
  samples += o.samples;
  latency_samples += o.latency_samples;
  total_latency += o.total_latency;
  loads += o.loads;
  stores += o.stores;
  l1d_refill += o.l1d_refill;
  l2d_miss += o.l2d_miss;
  llc_miss += o.llc_miss;
  tlb_walk += o.tlb_walk;
  remote += o.remote;
  mispredicted += o.mispredicted;
}

void SpeLatencies::Add(const Record& r) {
  if (r.has(spe::kFieldTotalLatency)) total.Add(r.total_latency);
  if (r.has(spe::kFieldIssueLatency)) issue.Add(r.issue_latency);
  if (r.has(spe::kFieldTranslationLatency)) {
    translation.Add(r.translation_latency);
  }
}

void SpeLatencies::Merge(const SpeLatencies& o) {
  total.Merge(o.total);
  issue.Merge(o.issue);
  translation.Merge(o.translation);
}

void SpeBreakdown::Add(const Record& r) {
  ++samples;
  counters.Add(r);
  latencies.Add(r);
  for (uint64_t bits = r.events; bits != 0; bits &= bits - 1) {
    ++events[std::countr_zero(bits)];
  }
  ++op_categories[static_cast<size_t>(r.op_category())];
  if (!r.has(spe::kFieldDataSource)) {
    ++without_data_source;
  } else if (r.data_source < data_sources_low_.size()) {
    ++data_sources_low_[r.data_source];
  } else {
    ++data_sources_high_[r.data_source];
  }
}

void SpeBreakdown::Merge(const SpeBreakdown& o) {
  samples += o.samples;
  counters.Merge(o.counters);
  latencies.Merge(o.latencies);
  for (size_t i = 0; i < events.size(); ++i) events[i] += o.events[i];
  for (size_t i = 0; i < op_categories.size(); ++i) {
    op_categories[i] += o.op_categories[i];
  }
  for (size_t i = 0; i < data_sources_low_.size(); ++i) {
    data_sources_low_[i] += o.data_sources_low_[i];
  }
  for (const auto& [value, count] : o.data_sources_high_) {
    data_sources_high_[value] += count;
  }
  without_data_source += o.without_data_source;
}

std::map<uint64_t, uint64_t> SpeBreakdown::DataSources() const {
  std::map<uint64_t, uint64_t> out = data_sources_high_;
  for (size_t i = 0; i < data_sources_low_.size(); ++i) {
    if (data_sources_low_[i] != 0) out[i] = data_sources_low_[i];
  }
  return out;
}

SpeProfileBuilder::SpeProfileBuilder(SampleAddressMap* address_map,
                                     FunctionResolver* resolver,
                                     spe::CpuModel cpu)
    : address_map_(address_map), resolver_(resolver) {
  profile_.cpu = std::move(cpu);
}

void SpeProfileBuilder::OnRecords(uint32_t buffer,
                                  absl::Span<const Record> records) {
  for (const Record& record : records) Add(buffer, record);
}

uint32_t SpeProfileBuilder::FunctionFor(const MappedAddress& address,
                                        uint8_t el) {
  SpeFunctionKey key;
  uint64_t end = 0;
  key.image = address.image;
  if (address.image == kNoImage) {
    key.start = el >= 1 ? kSpeUnknownKernelCode : kSpeUnknownUserCode;
  } else if (resolver_ != nullptr) {
    if (auto range = resolver_->FunctionAt(address.image, address.vaddr)) {
      key.start = range->start;
      key.resolved = true;
      end = range->end;
    }
  }
  auto [it, inserted] = function_index_.try_emplace(
      key, static_cast<uint32_t>(profile_.functions.size()));
  if (inserted) {
    SpeFunction function;
    function.key = key;
    function.end = end;
    profile_.functions.push_back(std::move(function));
  }
  return it->second;
}

void SpeProfileBuilder::Add(uint32_t buffer, const Record& record) {
  if (!record.complete()) {
    ++profile_.partial_records;
    return;
  }
  ++profile_.records;
  if (!record.has(spe::kFieldPc)) {
    ++profile_.records_without_pc;
    return;
  }
  ++profile_.samples;
  profile_.all.Add(record);
  if (record.pc_el >= 1) ++profile_.kernel_samples;

  MappedAddress pc{kNoImage, record.pc};
  if (address_map_ != nullptr) {
    if (auto mapped = address_map_->Code(buffer, record.offset, record.pc)) {
      pc = *mapped;
      ++profile_.samples_in_images;
    }
  }
  auto [it, inserted] = instruction_index_.try_emplace(
      InstructionKey{pc.image, pc.vaddr},
      static_cast<uint32_t>(profile_.instructions.size()));
  if (inserted) {
    SpeInstruction instruction;
    instruction.address = pc;
    instruction.el = record.pc_el;
    instruction.function = FunctionFor(pc, record.pc_el);
    profile_.instructions.push_back(instruction);
  }
  SpeInstruction& instruction = profile_.instructions[it->second];
  instruction.counters.Add(record);
  profile_.functions[instruction.function].breakdown.Add(record);

  if (record.has(spe::kFieldDataVirtual)) {
    ++profile_.samples_with_data_address;
    const uint64_t va = record.data_va;
    lines_[va & ~(SpeProfileOptions::kCacheLineBytes - 1)].Add(record);
    pages_[va & ~(SpeProfileOptions::kPageBytes - 1)].Add(record);
    if (address_map_ != nullptr) {
      if (auto data = address_map_->Data(buffer, record.offset, va)) {
        ++profile_.data_addresses_in_images;
        data_addresses_[InstructionKey{data->image, data->vaddr}].Add(record);
      }
    }
  }
}

SpeProfile SpeProfileBuilder::Finish() {
  SpeProfile out = std::move(profile_);
  profile_ = SpeProfile();
  profile_.cpu = out.cpu;

  if (address_map_ != nullptr && address_map_->timeline() != nullptr) {
    for (const capture::Image& image : address_map_->timeline()->images()) {
      out.images.push_back({image.recorded_path, image.kernel});
    }
  }

  // Functions by samples; instructions keep pointing at theirs.
  std::vector<uint32_t> order(out.functions.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto function_key = [&](uint32_t i) {
    const SpeFunctionKey& k = out.functions[i].key;
    return std::make_tuple(k.image, !k.resolved, k.start);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    uint64_t sa = out.functions[a].breakdown.samples;
    uint64_t sb = out.functions[b].breakdown.samples;
    if (sa != sb) return sa > sb;
    return function_key(a) < function_key(b);
  });
  std::vector<uint32_t> new_index(order.size());
  std::vector<SpeFunction> functions;
  functions.reserve(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    functions.push_back(std::move(out.functions[order[i]]));
  }
  out.functions = std::move(functions);
  for (SpeInstruction& instruction : out.instructions) {
    instruction.function = new_index[instruction.function];
  }
  SortBySamples(out.instructions, [](const SpeInstruction& i) {
    return std::make_pair(i.address.image, i.address.vaddr);
  });

  out.cache_lines = HotSpots(lines_);
  out.pages = HotSpots(pages_);
  out.data_addresses.reserve(data_addresses_.size());
  for (const auto& [key, counters] : data_addresses_) {
    out.data_addresses.push_back({{key.image, key.vaddr}, counters});
  }
  SortBySamples(out.data_addresses, [](const SpeDataAddress& d) {
    return std::make_pair(d.address.image, d.address.vaddr);
  });

  instruction_index_.clear();
  function_index_.clear();
  lines_.clear();
  pages_.clear();
  data_addresses_.clear();
  return out;
}

}  // namespace hwt::analysis
