// Intel PT packet listing in ptdump's format (libipt's packet decoder): one
// line per packet, the offset first, then the packet as ptdump prints it
// (IP compression as "3: 0000000000100000" / "1: ????????????1002", TNT bits
// as "!!.", ...). Problems appear as bracketed lines, as in ptdump.
#ifndef HWT_DECODERS_PT_PT_PACKET_LISTER_H_
#define HWT_DECODERS_PT_PT_PACKET_LISTER_H_

#include <intel-pt.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "decoders/decoder.h"

namespace hwt::pt {

// ptdump's options that change the listing (defaults = ptdump's defaults).
struct PtdumpOptions {
  bool raw = false;        // --raw: the packet bytes before the packet
  bool lastip = false;     // --lastip: the IP each IP packet leaves
  bool exec_mode = false;  // --exec-mode: the mode each mode.exec sets
  bool no_pad = false;     // --no-pad
  bool no_timing = false;  // --no-timing: hide tsc/cbr/tma/mtc/cyc
  bool no_cyc = false;     // --no-cyc
  bool no_sync = false;    // --no-sync: decode from the first byte, not the
                           // first PSB
  // Time per packet (see pt_packet_time.h).
  bool time = false;              // --time: the estimated TSC on timing
                                  // packets
  bool tcal = false;              // --tcal: the calibration (fcr) instead
  bool time_delta = false;        // --time-delta: as deltas
  bool no_tcal = false;           // --no-tcal: do not calibrate
  bool no_wall_clock = false;     // --no-wall-clock: relative time is fine
  bool keep_tcal_on_ovf = false;  // --keep-tcal-on-ovf
};

// Called with the trace offset and the text after ptdump's offset column;
// diagnostics start with '[' (e.g. "[error decoding packet: unknown
// opcode]") and apply at `offset`.
using PtPacketLineFn =
    std::function<void(uint64_t offset, std::string_view text)>;

// Lists the packets of [data, data + size), which sits at `file_offset` in
// the buffer's file, using `base`'s CPU and errata. Updates `stats`: packets,
// trace_bytes, bytes lost (before the first PSB; from an undecodable packet
// to the next PSB), errors.
void ListPtPackets(const struct pt_config& base, const uint8_t* data,
                   size_t size, uint64_t file_offset,
                   const PtdumpOptions& options, const PtPacketLineFn& line,
                   StreamStats* stats);

// The line ptdump prints for a packet or diagnostic given to PtPacketLineFn
// (or PacketSink::OnPacket): "0000000000000010  fup        3: ..." or
// "[17: error decoding packet: unknown opcode]".
std::string PtdumpLine(uint64_t offset, std::string_view text,
                       bool show_offset = true);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_PACKET_LISTER_H_
