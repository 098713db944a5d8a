// SPE event packet bits (architecture up to SPEv1p4, plus the
// IMPLEMENTATION DEFINED bits known for a CPU): names for listings and
// statistics.
#ifndef HWT_DECODERS_SPE_EVENTS_H_
#define HWT_DECODERS_SPE_EVENTS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "decoders/spe/midr.h"

namespace hwt::spe {

enum EventBit : uint8_t {
  kEventExceptionGenerated = 0,
  kEventRetired = 1,
  kEventL1dAccess = 2,
  kEventL1dRefill = 3,
  kEventTlbAccess = 4,
  kEventTlbWalk = 5,
  kEventNotTaken = 6,
  kEventMispredicted = 7,
  kEventLlcAccess = 8,
  kEventLlcMiss = 9,
  kEventRemoteAccess = 10,
  kEventAlignment = 11,
  // 12..15: IMPLEMENTATION DEFINED (Neoverse N1: 12 = late prefetch)
  kEventTransactional = 16,
  kEventSvePartialPredicate = 17,
  kEventSveEmptyPredicate = 18,
  kEventL2dAccess = 19,
  kEventL2dMiss = 20,
  kEventCacheDataModified = 21,  // HITM
  kEventRecentlyFetched = 22,
  kEventDataSnooped = 23,
  kEventStreamingSve = 24,
  kEventSmcu = 25,
};
inline constexpr int kNumEventBits = 64;
inline constexpr uint64_t kArchitecturalEventMask =
    0x0fffULL | (0x3ffULL << 16);  // bits 0-11 and 16-25

// Lower-case identifier of a bit for statistics and JSON: "l1d-refill",
// "impdef-12" (or the CPU's name for it, e.g. "late-prefetch"), "bit-40".
std::string EventName(int bit, const CpuModel& cpu);
// perf's upper-case name: "L1D-REFILL", "TLB-REFILL" (bit 5), "HITM", ...;
// empty for bits that have none.
std::string_view EventListingName(int bit, const CpuModel& cpu);
// perf-style text of an event packet: "EV RETIRED L1D-ACCESS IMPDEF:13".
std::string DescribeEvents(uint64_t events, const CpuModel& cpu);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_EVENTS_H_
