// How an OpenCSD decode tree reads opcodes: from the shared memory model
// (decoders/memory_image.h), one MemoryImage per tree replaying the buffer's
// address-space changes as the decode advances. Served through one OpenCSD
// callback accessor rather than binfile accessors because 1.3.3 keeps file
// accessors in a process-wide table keyed by path (not safe for trees
// decoding in parallel, and unable to map one file at two addresses),
// re-reads each opcode with an ifstream seek, and cannot unmap or remap a
// region in the middle of a buffer.
#ifndef HWT_DECODERS_CORESIGHT_MEMORY_VIEW_H_
#define HWT_DECODERS_CORESIGHT_MEMORY_VIEW_H_

#include <cstdint>

#include "capture/manifest.h"
#include "decoders/memory_image.h"
#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

// The memory model's space bits are OpenCSD's, so requests pass through.
static_assert(kSpaceEL1S == OCSD_MEM_SPACE_EL1S);
static_assert(kSpaceEL1N == OCSD_MEM_SPACE_EL1N);
static_assert(kSpaceEL2N == OCSD_MEM_SPACE_EL2);
static_assert(kSpaceEL3 == OCSD_MEM_SPACE_EL3);
static_assert(kSpaceEL2S == OCSD_MEM_SPACE_EL2S);
static_assert(kSpaceSecure == OCSD_MEM_SPACE_S);
static_assert(kSpaceNonSecure == OCSD_MEM_SPACE_N);
static_assert(kSpaceAny == OCSD_MEM_SPACE_ANY);

// OCSD_MEM_SPACE_* bits a region's memory space covers.
inline uint32_t OcsdSpaceMask(capture::MemorySpace space) {
  return SpaceMaskOf(space);
}

// OpenCSD's memory callback: copies up to `size` bytes at `address` in
// memory space `space`; 0 when no region is mapped there. A read stops at
// the end of the region it starts in, as OpenCSD's own accessors do (its
// mapper reads from one accessor per request), so that decodes match
// OpenCSD's reference decoders on the same memory layout.
inline uint32_t ReadForOpenCsd(const MemoryImage& memory, uint64_t address,
                               ocsd_mem_space_acc_t space, uint32_t size,
                               uint8_t* out) {
  return static_cast<uint32_t>(memory.Read(address, out, size,
                                           static_cast<SpaceMask>(space),
                                           ReadExtent::kOneRegion));
}

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_MEMORY_VIEW_H_
