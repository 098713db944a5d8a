// The CoreSight control-flow decoder: ETMv3, PTM, ETMv4 and ETE trace
// through OpenCSD's C API, turned into the unified event model with one
// stream per (buffer, trace ID).
//
// Element mapping (OpenCSD generic element -> Event):
//   INSTR_RANGE     kBlock: ip = st_addr, next_ip = en_addr, last_ip =
//                   en_addr - last_instr_sz, ninsn, isa, branch kind (see
//                   instr_range.h), code = OpenCSD's last-instruction detail,
//                   value = cycles, region = timeline region of ip
//   I_RANGE_NOPATH  kGap kLostData at st_addr (instructions ran, path
//                   unknown)
//   ADDR_NACC       kGap kMissingImage at the address (+ stats error)
//   ADDR_UNKNOWN    kGap kDecodeError
//   NO_SYNC         kGap kNoSync (start, reset, speculation discard),
//                   kOverflow (overflow, + error), kDecodeError (bad packet)
//   TRACE_ON        kEnabled (value = reason); after an overflow that no
//                   NO_SYNC reported, a kGap kOverflow first
//   EO_TRACE        kDisabled
//   PE_CONTEXT      kContext: value = context ID, code = EL | flags (below),
//                   isa
//   EXCEPTION       kException: ip = preferred return address (0 if not
//                   given), value = exception number
//   EXCEPTION_RET   kExceptionReturn
//   TIMESTAMP       kTimestamp (value); later events carry it in `time`
//   CYCLE_COUNT     added to the value of the preceding block
//   EVENT, SWTRACE, SYNC_MARKER, MEMTRANS, CUSTOM: not control flow, dropped
#ifndef HWT_DECODERS_CORESIGHT_CORESIGHT_DECODER_H_
#define HWT_DECODERS_CORESIGHT_CORESIGHT_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"

namespace hwt::coresight {

// Event::code of a kContext event: bits 0-7 the exception level (0xff when
// the protocol does not trace it), then flags.
inline constexpr uint32_t kContextElMask = 0xff;
inline constexpr uint32_t kContextElUnknown = 0xff;
inline constexpr uint32_t kContextNonSecure = 1u << 8;
inline constexpr uint32_t kContextIdValid = 1u << 9;
inline constexpr uint32_t kContextVmidValid = 1u << 10;
inline constexpr uint32_t kContext64Bit = 1u << 11;

struct CoreSightOptions {
  // Events a stream collects before the decode tree is paused (the element
  // callback answers WAIT) and the batch is handed to the sink.
  size_t batch_events = 4096;
};

// Streams: for a formatted buffer, one per trace ID found in its frames
// (found by a scan when the decoder is created); IDs with no configured
// source get a stream too, holding only the error that says so. For an
// unformatted buffer (ETE through TRBE), one stream for its source: the
// source whose `buffer` names it, else the only source, else the one with
// the buffer's cpu, thread, or trace ID = buffer id + 1 (HWT numbering).
// A stream's cpu/thread come from its source, else (HWT: trace ID = session
// index + 1) from the buffer whose id is trace ID - 1.
//
// Stats: trace_bytes are the stream's bytes after deformatting (frame
// headers belong to no stream; frame-level problems such as a truncated last
// frame are charged to the buffer's first stream); bytes_decoded are those
// of well-formed packets; packets counts OpenCSD's packets (Decode runs ETE
// sources on the ETMv4 decoder, which takes a packet callback; ocsd_config.h).
// Errors: bad packets, ADDR_NACC, overflows, lost data, fatal datapath
// errors, each with offset; and a mispredict from a source that does not
// speculate, which OpenCSD 1.3.3 cannot decode safely (speculation_guard.h).
//
// DecoderOptions::jobs > 1 decodes buffers, and groups of trace IDs of one
// buffer, on parallel OpenCSD trees; each stream's events are the same as in
// a sequential run.
//
// Errors (InvalidArgument): no CoreSight configuration, a source whose
// registers OpenCSD cannot be configured from (naming the register),
// duplicate or invalid trace IDs, an unformatted buffer that no source can
// be tied to.
absl::StatusOr<std::unique_ptr<TraceDecoder>> CreateCoreSightDecoder(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& address_space,
    const DecoderOptions& options, const CoreSightOptions& cs_options = {});

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_CORESIGHT_DECODER_H_
