// Implementation of the packet listing; see packet_listing.h.
#include "report/listing/packet_listing.h"

#include "absl/strings/str_format.h"
#include "decoders/pt/pt_packet_lister.h"
#include "decoders/spe/listing.h"

namespace hwt::report {

void PacketListing::OnPacket(uint32_t stream, uint64_t offset,
                             std::string_view text) {
  if (multi_stream_) out_->Write(absl::StrFormat("[%u] ", stream));
  switch (backend_) {
    case capture::Backend::kPt:
      out_->Write(pt::PtdumpLine(offset, text));
      break;
    case capture::Backend::kSpe:
      out_->Write(spe::FormatListingLine(offset, text));
      break;
    default:
      // OpenCSD's printer already starts its lines with the packet index.
      out_->Write(text);
      break;
  }
  out_->Write("\n");
}

}  // namespace hwt::report
