// Owning handles for libipt's decoders: unique_ptrs that free each decoder
// with its own pt_*_free_decoder, so no error path leaks one.
#ifndef HWT_DECODERS_PT_PT_LIBIPT_HANDLES_H_
#define HWT_DECODERS_PT_PT_LIBIPT_HANDLES_H_

#include <intel-pt.h>

#include <memory>

namespace hwt::pt {

struct PacketDecoderDeleter {
  void operator()(pt_packet_decoder* decoder) const {
    pt_pkt_free_decoder(decoder);
  }
};

struct BlockDecoderDeleter {
  void operator()(pt_block_decoder* decoder) const {
    pt_blk_free_decoder(decoder);
  }
};

using PacketDecoderPtr =
    std::unique_ptr<pt_packet_decoder, PacketDecoderDeleter>;
using BlockDecoderPtr = std::unique_ptr<pt_block_decoder, BlockDecoderDeleter>;

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_LIBIPT_HANDLES_H_
