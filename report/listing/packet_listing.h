// hwt-decode --packets: one line per packet in the style of each backend's
// reference tool (ptdump for PT, trc_pkt_lister for CoreSight, perf's arm-spe
// dump for SPE), prefixed with the stream when a capture has several.
#ifndef HWT_REPORT_LISTING_PACKET_LISTING_H_
#define HWT_REPORT_LISTING_PACKET_LISTING_H_

#include <string_view>

#include "base/output.h"
#include "capture/manifest.h"
#include "decoders/decoder.h"

namespace hwt::report {

class PacketListing : public PacketSink {
 public:
  PacketListing(capture::Backend backend, size_t stream_count, Output* out)
      : backend_(backend), multi_stream_(stream_count > 1), out_(out) {}
  void OnPacket(uint32_t stream, uint64_t offset,
                std::string_view text) override;

 private:
  capture::Backend backend_;
  bool multi_stream_;
  Output* out_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_LISTING_PACKET_LISTING_H_
