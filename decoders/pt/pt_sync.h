// Finding PSB packets (the sync points of Intel PT) in trace bytes. The
// decoders sync with pt_*_sync_set at the offsets found here rather than with
// pt_*_sync_forward: the search can start inside the packet that failed to
// decode, so a PSB whose first bytes a corrupt packet swallowed is still
// found (as libipt >= 2.1 does), and libipt 2.0.5's forward search, which can
// read past the end of the buffer (see pt_trace_buffer.h), is never used.
#ifndef HWT_DECODERS_PT_PT_SYNC_H_
#define HWT_DECODERS_PT_PT_SYNC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace hwt::pt {

inline constexpr size_t kPsbSize = 16;

// The offset of the first PSB that starts at or after `from` in
// [data, data + size). Like libipt, a run of PSB payload longer than one
// PSB yields the last PSB of the run.
std::optional<uint64_t> FindNextPsb(const uint8_t* data, size_t size,
                                    uint64_t from);

// The offsets of every PSB in [data, data + size), increasing.
std::vector<uint64_t> FindAllPsbs(const uint8_t* data, size_t size);

// Where to search for the next PSB after a decode error at `error_offset`
// when the last sync point was `last_sync`: a little before the error (the
// PSB may have been partly consumed by the failing packet) but after the
// last sync point.
uint64_t ResyncSearchStart(uint64_t error_offset, uint64_t last_sync);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_SYNC_H_
