// Event bit names; see events.h.
#include "decoders/spe/events.h"

#include "absl/strings/str_cat.h"

namespace hwt::spe {
namespace {

struct EventNames {
  const char* id;       // statistics / JSON
  const char* listing;  // perf dump
};

EventNames ArchitecturalNames(int bit) {
  switch (bit) {
    case kEventExceptionGenerated:
      return {"exception-generated", "EXCEPTION-GEN"};
    case kEventRetired:
      return {"retired", "RETIRED"};
    case kEventL1dAccess:
      return {"l1d-access", "L1D-ACCESS"};
    case kEventL1dRefill:
      return {"l1d-refill", "L1D-REFILL"};
    case kEventTlbAccess:
      return {"tlb-access", "TLB-ACCESS"};
    case kEventTlbWalk:
      return {"tlb-walk", "TLB-REFILL"};
    case kEventNotTaken:
      return {"not-taken", "NOT-TAKEN"};
    case kEventMispredicted:
      return {"mispredicted", "MISPRED"};
    case kEventLlcAccess:
      return {"llc-access", "LLC-ACCESS"};
    case kEventLlcMiss:
      return {"llc-miss", "LLC-REFILL"};
    case kEventRemoteAccess:
      return {"remote-access", "REMOTE-ACCESS"};
    case kEventAlignment:
      return {"alignment", "ALIGNMENT"};
    case kEventTransactional:
      return {"transactional", "TXN"};
    case kEventSvePartialPredicate:
      return {"sve-partial-predicate", "SVE-PARTIAL-PRED"};
    case kEventSveEmptyPredicate:
      return {"sve-empty-predicate", "SVE-EMPTY-PRED"};
    case kEventL2dAccess:
      return {"l2d-access", "L2D-ACCESS"};
    case kEventL2dMiss:
      return {"l2d-miss", "L2D-MISS"};
    case kEventCacheDataModified:
      return {"cache-data-modified", "HITM"};
    case kEventRecentlyFetched:
      return {"recently-fetched", "LFB"};
    case kEventDataSnooped:
      return {"data-snooped", "SNOOPED"};
    case kEventStreamingSve:
      return {"streaming-sve", "STREAMING-SVE"};
    case kEventSmcu:
      return {"smcu", "SMCU"};
    default:
      return {nullptr, nullptr};
  }
}

EventNames CpuNames(int bit, const CpuModel& cpu) {
  if (cpu.neoverse_n1_events && bit == 12) {
    return {"late-prefetch", "LATE-PREFETCH"};
  }
  return {nullptr, nullptr};
}

}  // namespace

std::string EventName(int bit, const CpuModel& cpu) {
  EventNames names = ArchitecturalNames(bit);
  if (names.id == nullptr) names = CpuNames(bit, cpu);
  if (names.id != nullptr) return names.id;
  if (bit >= 12 && bit <= 15) return absl::StrCat("impdef-", bit);
  return absl::StrCat("bit-", bit);
}

std::string_view EventListingName(int bit, const CpuModel& cpu) {
  EventNames names = ArchitecturalNames(bit);
  if (names.listing == nullptr) names = CpuNames(bit, cpu);
  return names.listing == nullptr ? std::string_view()
                                  : std::string_view(names.listing);
}

std::string DescribeEvents(uint64_t events, const CpuModel& cpu) {
  std::string out = "EV";
  uint64_t unnamed = 0;
  for (int bit = 0; bit < kNumEventBits; ++bit) {
    if (!(events & (uint64_t{1} << bit))) continue;
    std::string_view name = EventListingName(bit, cpu);
    if (name.empty()) {
      unnamed |= uint64_t{1} << bit;
    } else {
      absl::StrAppend(&out, " ", absl::string_view(name.data(), name.size()));
    }
  }
  if (unnamed != 0) {
    // Like perf: "IMPDEF:12,13" for bits with no known meaning.
    out += " IMPDEF:";
    bool first = true;
    for (int bit = 0; bit < kNumEventBits; ++bit) {
      if (!(unnamed & (uint64_t{1} << bit))) continue;
      if (!first) out += ",";
      absl::StrAppend(&out, bit);
      first = false;
    }
  }
  return out;
}

}  // namespace hwt::spe
