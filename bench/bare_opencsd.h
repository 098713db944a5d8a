// The CoreSight baseline of the benchmark suite (issue 14): OpenCSD's library
// alone, through its C API, over the same capture and memory as our decoder,
// producing nothing. What a program that only decodes costs, without our
// event mapping, statistics or analysis: the figure the full profile is
// compared with, as the PT cases compare with bare libipt (BareLibipt).
#ifndef HWT_BENCH_BARE_OPENCSD_H_
#define HWT_BENCH_BARE_OPENCSD_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"

namespace hwt::bench {

struct BareOpenCsdResult {
  uint64_t elements = 0;      // generic trace elements delivered
  uint64_t instructions = 0;  // in the INSTR_RANGE elements
  uint64_t fatal = 0;         // fatal datapath responses (decoder reset)
  uint64_t regions = 0;       // memory accessors added
  // Regions OpenCSD refused as overlapping one added before (regions are
  // added latest first, so a later mapping hides an earlier one, as in the
  // memory model; identical copies of one dump per core are the usual case).
  uint64_t overlapping = 0;
};

// Per buffer of a CoreSight capture: one decode tree (frame-formatted with
// the capture's deformatter flags, or single-source), a full decoder per
// trace source that writes to the buffer (our importer's configuration,
// decoders/coresight/ocsd_config.h, on the source's own OpenCSD decoder), a
// memory-buffer accessor over the file bytes of every region mapped at the
// buffer's start (read through an image file cache as our decoder reads
// them), and an element callback that counts and returns OCSD_RESP_CONT;
// then the buffer's chunks through ocsd_dt_process_data (EOT and reset
// between discontinuous chunks, reset and one unit skipped after a fatal
// response) and EOT.
absl::StatusOr<BareOpenCsdResult> BareOpenCsd(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline);

}  // namespace hwt::bench

#endif  // HWT_BENCH_BARE_OPENCSD_H_
